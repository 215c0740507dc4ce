"""Which sessions `list` and `find` ask for, and the SQL that picks them from the index.

Both the full command (through `Index.rows`) and the quick path (`quick`) build their query
here, so they cannot drift apart. Only the standard library is imported up front: the quick
path must start in a few milliseconds.
"""

from __future__ import annotations

import itertools
import ntpath
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence

from . import pathnames
from .hints import folder_said, named, named_in
from .idtext import dashed
from .sources import BUILTIN, canonical
from .wording import count_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from datetime import datetime, tzinfo

_SCOPES = {
    "app": "app",
    "id": "id",
    "title": "title",
    "dir": "dir",
    "cwd": "dir",
    "folder": "dir",
    "branch": "branch",
}
# where each scope's text sits in the index's `search` column (NUL-separated, lower case)
FIELD_POSITIONS = {"app": 0, "id": 1, "title": 2, "dir": 3, "branch": 4}
# between the names of one folder in a `dir:` value (`dir:.` through a link): a NUL,
# which no word typed holds
DIR_NAMES = "\x00"


class Query:
    """A `find` query: words that must all match, and scoped words (`branch:fix/`)."""

    __slots__ = ("apps", "order", "scoped", "typed", "words")

    def __init__(
        self,
        words: tuple[str, ...] = (),
        scoped: tuple[tuple[str, str], ...] = (),
        apps: tuple[str, ...] = (),
        typed: tuple[tuple[str, str], ...] = (),
        order: tuple[tuple[str, int], ...] = (),
    ) -> None:
        self.words = words
        self.scoped = scoped  # (field, value): id, title, dir, branch
        self.apps = apps
        # each scoped word as typed (`cwd`, `~/shop-apu`), for a suggestion to keep
        self.typed = typed or scoped
        # the words in the order typed, each ("app" | "scoped" | "word", its index), for
        # a suggestion to keep it; apps, scoped words, then plain ones where not given
        self.order = order or (
            *(("app", n) for n in range(len(apps))),
            *(("scoped", n) for n in range(len(scoped))),
            *(("word", n) for n in range(len(words))),
        )

    @property
    def id_prefix(self) -> str | None:
        """The word whose id-prefix matches rank first: the only plain word, else the
        only `id:` (or `codex:`) value; `id:7f3a` matches inside an id too, and the
        session whose id starts so is the one `show 7f3a` means."""
        if len(self.words) == 1:
            return self.words[0]
        ids = [value for scope, value in self.scoped if scope == "id"]
        return ids[0] if not self.words and len(ids) == 1 else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Query) and (
            self.words,
            self.scoped,
            self.apps,
        ) == (other.words, other.scoped, other.apps)

    def __repr__(self) -> str:
        return (
            f"Query(words={self.words!r}, scoped={self.scoped!r}, apps={self.apps!r})"
        )


def parse_query(text: str, home: str | None = None) -> Query:
    """Words that must all match; `app:codex`, `branch:fix/`, `dir:shop-api`, `id:7f3a`
    and `codex:7f3a` (an app's id) narrow. `dir:~/code` is a folder under `home`, as
    `list` shows it."""
    words: list[str] = []
    scoped: list[tuple[str, str]] = []
    typed: list[tuple[str, str]] = []
    apps: list[str] = []
    order: list[tuple[str, int]] = []
    # a NUL is what parts of the index's search text are joined with: never a word
    for token in _unquoted(text.replace("\x00", " ").split()):
        name, colon, value = token.partition(":")
        if colon and name.lower() in _SCOPES and value:
            scope = _SCOPES[name.lower()]
            if scope == "app":
                app = canonical(value)  # the names --app takes (`app:claude-code`)
                if app not in BUILTIN:
                    from .errors import UnknownApp

                    raise UnknownApp(app, BUILTIN)
                order.append(("app", len(apps)))
                apps.append(app)
                continue
            folder = scope == "dir"
            order.append(("scoped", len(scoped)))
            scoped.append((scope, _under_home(value, home) if folder else value))
            typed.append((name, value))
        elif colon and canonical(name) in BUILTIN and value:
            # "codex:7f3a": an id as `show` and `resume` take it, its app in front
            order += [("app", len(apps)), ("scoped", len(scoped))]
            apps.append(canonical(name))
            scoped.append(("id", value))
            typed.append((name, value))
        else:
            order.append(("word", len(words)))
            words.append(token)
    return Query(tuple(words), tuple(scoped), tuple(apps), tuple(typed), tuple(order))


def _unquoted(tokens: list[str]) -> list[str]:
    """The words with the quotes that pair up around some of them left out (`"retry
    checkout"`, `title:'retry checkout'`): in the library's text, or escaped past the
    shell, they keep words together as the shell's do, and are no letters a title holds.
    A quote with no pair (`don't`, a lone `"`) is kept as typed."""
    words = list(tokens)
    at = 0
    while at < len(words):
        token = words[at]
        _, colon, value = token.partition(":")
        opening = value if colon and value[:1] in "\"'" else token
        mark = opening[:1]
        if mark not in ('"', "'"):
            at += 1
            continue
        start = len(token) - len(opening)
        for end in range(at, len(words)):
            closing = words[end]
            # a quote closes in the word it opens only around something (`""` is a word)
            shortest = start + 3 if end == at else 1
            if len(closing) >= shortest and closing.endswith(mark):
                words[end] = closing[:-1]
                words[at] = token[:start] + words[at][start + 1 :]
                at = end
                break
        at += 1
    return [word for word in words if word]


def _under_home(folder: str, home: str | None) -> str:
    """`~/code/shop` (a folder as `list` shows it; no shell expands a `~` after `dir:`)
    as the path it stands for; `\\` as `/`, as the index holds a Windows folder
    (`pathnames.comparable`), so that `dir:code\\shop` and `dir:~\\code` find it too."""
    if home and (folder == "~" or folder.startswith(("~/", "~\\"))):
        folder = _as_shell_reads(home.rstrip("/\\") + folder[1:])
    elif _from_here_typed(folder):
        folder = _from_here(folder)
    elif _full_with_dots(folder):  # `/…/code/../shop` pasted: as `~/code/../shop` is
        folder = _as_shell_reads(folder)
    return folder.replace("\\", "/")


def _from_here_typed(folder: str) -> bool:
    """Whether `folder` is a path from the folder you are in: `.`, `..`, `./api`, or
    one with a separator in it that names a folder there (`code/../docs`, which was
    matched as that text: no folder holds it). A plain word (`shop-api`, or `shop-api/`,
    whose `/` keeps it to folders of that name) is text, a folder of that name here or
    not."""
    if folder in (".", "..") or folder.startswith(("./", "../", ".\\", "..\\")):
        return True
    typed = folder.replace("\\", "/")
    if "/" not in typed.rstrip("/") or typed.startswith("/") or typed[1:3] == ":/":
        return False
    from .errors import SessdexError

    try:  # the folder as `_from_here` reads it: `link/..` is here, not past the link
        named = _from_here(folder)
    except SessdexError:  # the folder you are in is gone: none is named from it
        return False
    return any(os.path.isdir(path) for path in named.split(DIR_NAMES))


def _full_with_dots(folder: str) -> bool:
    """Whether `folder` is a full path (`/…`, `C:\\…`, `\\\\server\\…`) with a `.` or
    `..` in it, which no folder's name is: text matched as such found nothing."""
    typed = folder.replace("\\", "/")
    full = typed.startswith("/") or typed[1:3] == ":/"
    return full and any(part in (".", "..") for part in typed.split("/"))


def _as_shell_reads(path: str) -> str:
    """`path` as a shell reads it: `..` takes off the folder before it, `.` and `//` go
    (`~/code/../docs` was matched as that text: no folder holds it); a `/` typed at its
    end kept, as it keeps `dir:` to that folder and those below it."""
    typed = path.replace("\\", "/")
    # a Windows path's drive (`C:`, `//srv/share`) is a root no `..` goes above: read
    # as a plain path, `C:/Users/me/../../..` was `.`, matched as text
    drive = ntpath.splitdrive(typed)[0]
    normal = ntpath.normpath(typed) if drive else posixpath.normpath(typed)
    normal = normal.replace("\\", "/")
    return normal + "/" if typed.endswith("/") and normal[-1:] != "/" else normal


def _from_here(folder: str) -> str:
    """`.`, `..`, `./api` (`..\\api` too): the folder you are in, or one reached from
    it, as a shell reads the path (no folder the index holds is `.`); a `/` typed at
    its end kept. From each name `--here` takes for that folder (`here_folders`: the
    shell's `$PWD` too, what a Go app's `os.Getwd` records), joined by `DIR_NAMES`: a
    folder entered through a link, or removed under the shell, found as `--here` finds
    it."""
    from .errors import BadValue, SessdexError

    typed = folder.replace("\\", "/")  # as `dir:code\shop` is read, before `..` is
    try:
        here = here_folders()
    except SessdexError:  # `.` as text matched every folder whose name holds a dot
        raise BadValue(
            f"dir:{folder}: the folder you are in no longer exists; cd to one "
            "that does, or give the folder's path."
        ) from None
    paths = [os.path.normpath(os.path.join(name, typed)) for name in here]
    ended = [p + "/" if typed.endswith("/") and p[-1:] != "/" else p for p in paths]
    return DIR_NAMES.join(dict.fromkeys(ended))


def selected_apps(apps: Sequence[str], query: Query) -> tuple[str, ...] | None:
    """The apps to read for `--app` options and `app:` words: () for all, None for none
    (asked for apps that the query's `app:` words exclude)."""
    if apps and query.apps:
        both = tuple(a for a in apps if a in query.apps)
        return both or None
    return tuple(apps) or query.apps


def folded(text: str) -> str:
    """`text` as `find` compares it: case folded in full (`Straße` is `strasse`, a Greek
    final sigma a sigma), accents composed alike (macOS may record a folder's é as e and
    a combining accent, where a keyboard types é) and those on Latin and Greek letters
    dropped, and their strokes: `cafe` finds `Café`, `istanbul` finds `İstanbul`, `lodz`
    finds `Łódź`; wide and narrow forms
    are the letters they stand for. A Cyrillic й or a kana's voicing mark is a letter of
    its own and stays."""
    if text.isascii():
        return text.lower()
    import unicodedata  # here: most words are ASCII, and the quick path starts fast

    # NFKD: what an input method types wide (fullwidth API) or narrow (halfwidth kana)
    # is the letter it stands for
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    # a picker's ❤️ is the ❤ a title holds; a stroke is left out as an accent is
    text = text.translate(_VARIATIONS)
    if len(text.translate(_ACCENTS)) != len(text):
        kept: list[str] = []
        base = ""
        for char in text:
            if not "\u0300" <= char <= "\u036f":
                base = char
            elif base < "\u0400":  # after a Latin or Greek letter (or none)
                continue
            kept.append(char)
        text = "".join(kept)
    return unicodedata.normalize("NFC", text)


# the text and emoji variation selectors, which only choose how a character is drawn,
# and the Latin letters with a stroke (Đà Nẵng, Łódź, København), which no normal form
# takes apart into a letter and a mark: as their letters (after casefold: lower case)
_VARIATIONS: dict[int, int | None] = {
    **dict.fromkeys((0xFE0E, 0xFE0F)),
    **{
        ord(stroked): ord(letter)
        for stroked, letter in zip("đłøħŧ", "dloht", strict=True)
    },
}
# the combining diacritical marks (U+0300-U+036F), as `str.translate` drops them
_ACCENTS: dict[int, None] = dict.fromkeys(range(0x300, 0x370))


def nothing_matches(
    query: str | None,
    apps: Sequence[str],
    since: str | None,
    here: bool,
    hidden: int = 0,
    wider: int = 0,
    instead: Sequence[str] = (),
    output: str | None = None,
    kept: Sequence[str] = (),
    until: str | None = None,
    above: tuple[str, int] | None = None,
    newest: datetime | None = None,
) -> str | None:
    """The line `list` or `find` prints on stderr when the apps' folders were read but
    nothing matched, saying what to try next (an empty table alone looks like a hang);
    None when no word or option narrowed the listing. `hidden`: how many sub-agents
    matched, which only `--all` lists; `wider`: how many sessions the words match
    without `--since`, `--until` and `--here`; `instead`: the words to find in their
    place, each that matched nothing swapped for the closest the index holds
    (`did_you_mean`).
    Shared with the quick path, which says it too rather than start the full command
    for one line. Where `SESSDEX_SHELL` names a
    shell sessdex does not know, the options are quoted as sh quotes them, and said so
    where that changed one: a hint is no reason to fail the listing. `output`: the
    `--json` or `--nl` given, which the command it suggests keeps, as it keeps `kept`,
    the other options given that still apply (`--all`, `--limit 5`). `above`: the
    folder above the one `--here` took that holds sessions, and how many
    (`folder_above`), which the line names with the `list --here` there that lists
    them. `newest`: when the newest session of the apps (in the folder, with
    `--here`) changed, for `--since` alone that left it out: the line names its age and
    the `--since` that reaches it, as an empty `watch` board does."""
    from .errors import BadSetting
    from .shells import POSIX, current, word

    try:
        shell, told = current(), ""
    except BadSetting:
        shell = POSIX
        told = " (quoted for sh: SESSDEX_SHELL names a shell sessdex does not know)"
    options = filter_words(apps, since, until, here, shell)
    hint = _nothing_matches(query, apps, options, hidden, wider)
    if hint and newest is not None and since and not (query or until or hidden):
        when, reach = reaching(newest)
        given = [*kept, *([output] if output else [])]
        lists = named("list", *_app_words(apps), "--since", reach, *["--here"] * here, *given)  # fmt: skip
        hint = f"No session matches {' '.join(options)}; the newest changed {when}: {lists} lists it."  # fmt: skip
    if hint and since and is_now(since) and not (query or until or hidden):
        # nothing changed after the moment it ran, of course: what follows the changes
        watches = named(
            "watch", *_app_words(apps), "--since", "now", *["--here"] * here
        )
        hint = f"No session matches {' '.join(options)}, the moment list ran: {watches} shows those that change from then on."  # fmt: skip
    if hint and here and above is not None and not (query or hidden):
        folder, count = above
        are = "1 session is" if count == 1 else f"{count_of(count, 'session')} are"
        # `find dir:FOLDER` would match `FOLDER2` too: `--here` there lists these alone
        given = [*kept, *([output] if output else [])]
        span = [w for o, b in (("--since", since), ("--until", until)) if b for w in (o, b)]  # fmt: skip
        lists = named_in(folder, "list", *_app_words(apps), *span, "--here", *given)
        hint = f"No session matches {' '.join(options)}; {are} in {folder_said(folder)} above it: {lists} lists {_listed_of(count, kept)}."  # fmt: skip
    if hint and here:  # which folder: the one the shell is in may not be the one meant
        here_said = folder_said(here_folders()[-1])
        hint = hint.replace("--here", f"--here (in {here_said})", 1)
    if (
        hint
        and query
        and instead
        and not hidden
        and not (wider and options[len(apps) :])
    ):
        given_too = [*kept, *([output] if output else [])]
        bounds = (since, until)
        hint = _suggested(query, apps, bounds, here, instead, given_too)
    given = [*apps, *(bound for bound in (since, until) if bound)]
    changed = any(word(value, shell) != value for value in given)
    if hint and told and changed and "SESSDEX_SHELL" not in hint:
        hint += told
    return hint


def _listed_of(count: int, kept: Sequence[str]) -> str:
    """What the `list` named lists of the `count` sessions above: `it`, `them`, or,
    where the `--limit N` it keeps (`kept`) cuts them, the newest N of them."""
    limit = next(
        (int(kept[at + 1]) for at, w in enumerate(kept[:-1]) if w == "--limit"), 0
    )
    if count == 1:
        return "it"
    if not 0 < limit < count:
        return "them"
    return "the newest of them" if limit == 1 else f"the newest {limit} of them"


def _app_words(apps: Sequence[str]) -> list[str]:
    """`--app NAME` for each of `apps`, as words to give `named`."""
    return [word for app in apps for word in ("--app", app)]


def filter_words(
    apps: Sequence[str],
    since: str | None,
    until: str | None,
    here: bool,
    shell: str | None = None,
) -> list[str]:
    """The options that narrowed a listing or a report, as the user types them (`--app
    claude`, `--since 3d`), each value quoted for `shell` (None: theirs, as sh quotes it
    where `SESSDEX_SHELL` names a shell sessdex does not know)."""
    from .errors import BadSetting
    from .shells import POSIX, current, word

    if shell is None:
        try:
            shell = current()
        except BadSetting:
            shell = POSIX
    options = [f"--app {word(app, shell)}" for app in apps]
    options += [f"--since {word(since, shell)}"] if since else []
    options += [f"--until {word(until, shell)}"] if until else []
    return options + (["--here"] if here else [])


def kept_options(limit: int | None, include_subagents: bool) -> list[str]:
    """The options `list` or `find` was given that a command it suggests keeps besides
    the filters and the output: `--all` and `--limit N` (it dropped them)."""
    return ["--all"] * include_subagents + (["--limit", str(limit)] if limit else [])


def _nothing_matches(
    query: str | None,
    apps: Sequence[str],
    options: list[str],
    hidden: int,
    wider: int,
) -> str | None:
    """`nothing_matches`'s line, the options already written as the user types them."""
    if hidden and (query or options):
        asked = repr(query) if query else " ".join(options)
        within = f" with {' '.join(options)}" if query and options else ""
        agents = "1 sub-agent does" if hidden == 1 else f"{hidden} sub-agents do"
        them = "it" if hidden == 1 else "them"
        return f"No session matches {asked}{within}, but {agents}: add --all to list {them}."  # fmt: skip
    if query:
        said = f"{query!r}{_dotted_said(query)}"
        # the words matched: the time or folder is what hid them, not too many words
        left_out = options[len(apps) :]
        if wider and left_out:
            does = "1 does" if wider == 1 else f"{wider} do"
            return f"No session matches {said} with {' '.join(options)}, but {does} without {' '.join(left_out)}."  # fmt: skip
        within = f", with {' '.join(options)}" if options else ""
        fields = _fields_searched(query)
        recent = f"{named('list')} shows recent sessions"
        if len(query.split()) > 1:
            recent = f"Fewer words find more; {recent}"
        elif fields == _EVERY_FIELD or "title" in fields:
            # what was said in a session is not searched: a word from it finds nothing
            recent = f"What was said in a session is not searched; {recent}"
        else:  # an id, a folder or a branch looked in: no said words meant
            return f"No session matches {said} in its {fields}{within}; {recent}."
        return f"No session matches {said} in its {fields}{within}. {recent}."
    if options:
        return f"No session matches {' '.join(options)}; {named('list')} alone shows them all."  # fmt: skip
    return None


_EVERY_FIELD = "title, folder, branch, app or id"


def _dotted_said(query: str) -> str:
    """Which folder each `dir:.`, `dir:../api` of `query` was (` (. is ~/shop)`), as
    a message says it after the query: the folder the shell is in may not be the one
    meant; "" where the query has none."""
    said = []
    for word in dict.fromkeys(query.split()):
        _, colon, value = word.partition(":")
        scoped = parse_query(word).scoped if colon and _from_here_typed(value) else ()
        if scoped and scoped[0][0] == "dir":
            # a folder reached through a link has two names (`here_folders`): the first said
            said.append(f"{value} is {folder_said(scoped[0][1].split(DIR_NAMES)[0])}")
    return f" ({', '.join(said)})" if said else ""


def _fields_searched(query: str) -> str:
    """Where `find`'s words were looked for, as a message names it: every field, or
    only those every word was narrowed to (`id:7f3a`: its id; `codex:7f3a`: its app
    and id)."""
    parsed = parse_query(query)
    if parsed.words:
        return _EVERY_FIELD
    names = {"dir": "folder"}
    scopes = [names.get(scope, scope) for scope, _ in parsed.scoped]
    fields = list(dict.fromkeys(["app"] * bool(parsed.apps) + scopes))
    if not fields:
        return _EVERY_FIELD
    return fields[0] if len(fields) == 1 else f"{', '.join(fields[:-1])} and {fields[-1]}"  # fmt: skip


def _suggested(
    query: str,
    apps: Sequence[str],
    bounds: tuple[str | None, str | None],
    here: bool,
    instead: Sequence[str],
    kept: Sequence[str] = (),
) -> str:
    """The hint naming the words to find instead, as a command to type (`hints.named`
    quotes it for the user's shell), with the options that were given."""
    typed = [word for app in apps for word in ("--app", app)]
    for option, bound in zip(("--since", "--until"), bounds, strict=True):
        typed += [option, bound] if bound else []
    typed += ["--here"] if here else []
    typed += kept
    words = list(instead)
    if any(word.startswith("-") for word in words):
        words.insert(0, "--")
    said = " ".join(word for word in instead if not word.startswith("app:"))
    return f"No session matches {query!r}. Did you mean {said!r}? ({named('find', *typed, *words)})"  # fmt: skip


def searches_sql(apps: Sequence[str], include_subagents: bool) -> tuple[str, list[str]]:
    """SELECT the search text (`find`'s: app, id, title, folder, branch, folded) of each
    session of `apps` (all where none), sub-agents' only with --all: what the words
    `did_you_mean` suggests are taken from (the full command's and the quick path's)."""
    where = ["1"]
    if apps:
        where.append(f"app IN ({','.join('?' * len(apps))})")
    if not include_subagents:
        where.append("parent_id IS NULL")
    return f"SELECT search FROM sessions WHERE {' AND '.join(where)}", list(apps)


def did_you_mean(query: Query, searches: Iterable[str]) -> list[str] | None:
    """`query`'s words, each that is in no session's search text (`searches`: the
    index's, app, id, title, folder and branch, already folded) swapped for the word
    of a title, folder, branch or app one typo away (a letter left out, added, changed,
    or two swapped), the one most sessions hold: what `find` suggests when nothing
    matched. A scoped word (`branch:featrue`, `cwd:shop-apu`) is mended within its own
    field's words and keeps its prefix as typed. None where every word is in some
    session (together they found none), a word has none so near, or it narrows by id.
    No `difflib`: its import (with `re`) would cost an empty warm `find` more than the
    matching."""
    if not (query.words or query.scoped) or any(s == "id" for s, _ in query.scoped):
        return None
    texts = list(searches)
    keys = {word: folded(word) for word in query.words}
    missing = [w for w, key in keys.items() if not any(key in t for t in texts)]
    fields = [
        [field(text, FIELD_POSITIONS[scope]) for text in texts]
        for scope, _ in query.scoped
    ]
    unmatched = [
        n
        for n, (_, value) in enumerate(query.scoped)
        if not any(
            folded(one) in part for one in value.split(DIR_NAMES) for part in fields[n]
        )
    ]
    if not missing and not unmatched:
        return None
    # the words: each text but its id
    held = _held(
        part for text in texts for n, part in enumerate(text.split("\x00")) if n != 1
    )
    swapped: dict[str, str] = {}
    for word in missing:
        near = _one_typo_from(keys[word], held)
        if not near:
            return None
        swapped[word] = near
    scoped = [f"{name}:{value}" for name, value in query.typed]
    for n in unmatched:
        mended = _mended(query.scoped[n][1], query.typed[n][1], fields[n])
        if mended is None:
            return None
        scoped[n] = f"{query.typed[n][0]}:{mended}"
    said = {
        "app": [f"app:{app}" for app in query.apps],
        "scoped": scoped,
        "word": [swapped.get(word, word) for word in query.words],
    }
    return [said[kind][n] for kind, n in query.order]  # in the order typed


def _held(parts: Iterable[str]) -> Mapping[str, int]:
    """The words of `parts` (cut at everything but letters and digits): how often."""
    joined = "\x00".join(parts)
    for char in {char for char in set(joined) if not char.isalnum()}:
        joined = joined.replace(char, " ")  # few kinds: faster than str.translate
    from collections import Counter  # loaded with collections.abc

    return Counter(joined.split())


def _mended(value: str, typed: str, parts: list[str]) -> str | None:
    """`typed` (a scoped word's value, as typed; `value`, as the query reads it) with
    each of its words no part holds swapped for one of `parts`' words a typo away, where
    the whole then matches one of `parts`; else None (a value with a space too: the
    command suggested would cut it in two)."""
    if any(char.isspace() for char in typed):
        return None
    held = _held(parts)
    swaps: dict[str, str] = {}
    for run in _runs(typed):
        key = folded(run)
        if run[:1].isalnum() and not any(key in part for part in parts):
            near = _one_typo_from(key, held)
            if near is None:
                return None
            swaps[run] = near
    mended = folded("".join(swaps.get(run, run) for run in _runs(value)))
    if not swaps or not any(mended in part for part in parts):
        return None
    return "".join(swaps.get(run, run) for run in _runs(typed))


def _runs(text: str) -> list[str]:
    """`text` cut into its runs of letters and digits and the runs between them."""
    runs: list[str] = []
    for char in text:
        if runs and runs[-1][-1].isalnum() == char.isalnum():
            runs[-1] += char
        else:
            runs.append(char)
    return runs


def _one_typo_from(key: str, held: Mapping[str, int]) -> str | None:
    """The word of `held` (word: how often) one typo from `key`, the most often held
    (then the first in order); None for a key under 3 letters, where most are."""
    if len(key) < 3:
        return None
    shortened = {key[:n] + key[n + 1 :] for n in range(len(key))}
    best: tuple[int, str] | None = None
    for word, often in held.items():
        if abs(len(word) - len(key)) > 1 or len(word) < 3 or word == key:
            continue
        # a letter left out, added, changed, or two swapped: one letter less on
        # both sides (or on one) makes them the same
        if not (
            word in shortened
            or any(word[:n] + word[n + 1 :] == key for n in range(len(word)))
            or (
                len(word) == len(key)
                and not shortened.isdisjoint(
                    word[:n] + word[n + 1 :] for n in range(len(word))
                )
            )
        ):
            continue
        if best is None or (-often, word) < best:
            best = (-often, word)
    return best[1] if best else None


def refused_files(
    app: str, count: int, example: str | None, see: str = "--verbose"
) -> str:
    """The warning for files of `app` that sessdex may not open (their sessions may be
    missing, where an unreadable line only cuts one short); `see` names where each is
    named (`hints.see_each`). Shared with the quick path, which says it on every warm
    listing, as the full command does."""
    such = f", such as {example}" if example else ""
    return (
        f"{app}: could not open {count_of(count, 'file')}{such} (permission denied); the "
        f"sessions kept in them may be missing; see {see} or {named('doctor')}"
    )


def field(search: str, position: int) -> str:
    """One field of the `search` column (a SQL function while scoped words are asked)."""
    parts = search.split("\x00")
    return parts[position] if position < len(parts) else ""


def here_folders(cwd: str | None = None, pwd: str | None = None) -> tuple[str, ...]:
    """The folder `--here` means, under each name a session may record for it: the working
    folder as the system gives it (links resolved), and as the shell names it (`$PWD`)
    when that is another path to the same folder (a home reached through a link). A
    folder removed under the shell has only the shell's name left."""
    pwd = os.environ.get("PWD") if pwd is None else pwd
    if cwd is None:
        try:
            cwd = os.getcwd()
        except FileNotFoundError:
            if pwd and os.path.isabs(pwd):
                return (pwd,)
            from .errors import SessdexError

            raise SessdexError(
                "--here: the folder you are in no longer exists; cd to one that does."
            ) from None
    if not pwd or pwd == cwd or not os.path.isabs(pwd):
        return (cwd,)
    try:
        same = os.path.samefile(pwd, cwd)
    except OSError:
        same = False
    return (cwd, pwd) if same else (cwd,)


def folder_above(
    here: Sequence[str], holding: Callable[[tuple[str, ...]], int]
) -> tuple[str, int] | None:
    """The nearest folder above `here` (one folder under each of its names) that
    `holding` finds sessions in or below, and how many: what a `--here` that matched
    nothing names, a project's `src` being no project. It looks no further than the
    repository `here` is in, nor at the home folder or `/`, which hold every project."""
    stop = {os.sep, os.path.expanduser("~").rstrip(os.sep)}
    steps = [_parents(name, stop) for name in here]
    if any(_repository_root(name) for name in here):
        return None
    for above in itertools.zip_longest(*steps):
        folders = tuple(folder for folder in above if folder)
        if count := holding(folders):
            return folders[-1], count  # the name `--here`'s line shows
        if any(_repository_root(folder) for folder in folders):
            return None
    return None


def _parents(folder: str, stop: set[str]) -> list[str]:
    """The folders above `folder`, nearest first, short of any in `stop`."""
    parents: list[str] = []
    while (parent := os.path.dirname(folder)) != folder and parent not in stop:
        parents.append(parent)
        folder = parent
    return parents


def _repository_root(folder: str) -> bool:
    """Whether `folder` is a git repository's top (a `.git` folder or file in it)."""
    return os.path.lexists(os.path.join(folder, ".git"))


def folders_of(under: str | Sequence[str]) -> tuple[str, ...]:
    """`under` as the folder names it stands for (one path, or several for one folder)."""
    return (under,) if isinstance(under, str) else tuple(under)


def sessions_sql(
    columns: str,
    *,
    apps: Sequence[str] = (),
    since: float | None = None,
    until: float | None = None,
    under: str | Sequence[str] | None = None,
    words: Sequence[str] = (),
    scoped: Sequence[tuple[str, str]] = (),
    include_subagents: bool = False,
    limit: int | None = None,
    first_prefix: str | None = None,
    first_under: str | Sequence[str] | None = None,
    home: str | None = None,
) -> tuple[str, list[object]]:
    """SELECT `columns` FROM sessions, filtered, newest first; an id starting with
    `first_prefix` ranks first, then a session in `first_under` or below it. Uses
    `_field(search, n)` when `scoped` is given. Plain words are matched against a
    folder under `home` as `list` shows it, `~/code/shop`."""
    where: list[str] = []
    args: list[object] = []
    if apps:
        # `+app`: filtering rows read in order costs less than sorting the app's rows
        where.append(f"+app IN ({','.join('?' * len(apps))})")
        args.extend(apps)
    if since is not None:
        where.append("updated >= ?")
        args.append(since)
    if until is not None:
        where.append("updated < ?")
        args.append(until)
    if under is not None:
        within, within_args = _under_sql(under)
        where.append(within)
        args.extend(within_args)
    if not include_subagents:
        where.append("parent_id IS NULL")
    # the home's own path is not shown, so not matched: `alex` or, on macOS, `users`
    # found every session below /Users/alex; a word written from the home is its ~ form.
    # Only a session whose folder starts so (after the NUL before it) is shown from ~:
    # /mnt/backup/home/alex/app is not (SQLite's replace takes no pattern opening in NUL)
    # A home reached through a link has its real path too (`pathnames.home_names`): the
    # apps record that one
    names = pathnames.home_names(home) if home else ()
    owns = [
        own for name in names if (own := folded(pathnames.comparable(name)).rstrip("/"))
    ]
    typed_words = [folded(_slashed(word)) for word in words]
    for own in owns:
        typed_words = _from_home(typed_words, own)
    for typed in typed_words:
        test_args: list[object]
        if not owns:
            test, test_args = "instr(search, ?) > 0", [typed]
        elif typed.startswith("~"):
            shown, shown_args = _shown_from_home(owns)
            test, test_args = f"instr({shown}, ?) > 0", [*shown_args, typed]
        else:  # the plain test first: most rows fail it, and skip the copy replace makes
            shown, shown_args = _shown_from_home(owns)
            test = f"instr(search, ?) > 0 AND instr({shown}, ?) > 0"
            test_args = [typed, *shown_args, typed]
        if (uuid := _undashed_uuid(typed)) is not None:
            test, test_args = f"({test}) OR instr(search, ?) > 0", [*test_args, uuid]
        where.append(f"({test})")
        args.extend(test_args)
    for column, value in scoped:
        values = value.split(DIR_NAMES) if column == "dir" else [value]
        if column == "id" and (uuid := _undashed_uuid(folded(value))) is not None:
            values.append(uuid)
        if column == "dir" and home:  # the folder under each name of the home
            values += [
                name + one[len(home.rstrip("/")) :]
                for one in values
                for name in names[1:]
                if pathnames.under(one, home)
            ]
        part = f"_field(search, {FIELD_POSITIONS[column]})"
        where.append("(" + " OR ".join([f"instr({part}, ?) > 0"] * len(values)) + ")")
        args.extend(folded(one) for one in values)
    order = "updated DESC, app, id"  # NULLs sort last in DESC: the sessions_order index
    order_args: list[object] = []
    if first_under is not None:  # the project the user is in, before the others
        within, order_args = _under_sql(first_under)
        order = f"{within} DESC, " + order
    if first_prefix:  # in any case, as `find` matches and `resolve` takes a prefix
        order = "(lower(substr(id, 1, ?)) = ?) DESC, " + order
        order_args = [len(first_prefix), first_prefix.lower(), *order_args]
    sql = f"SELECT {columns} FROM sessions"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY " + order
    args.extend(order_args)
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return sql, args


def _under_sql(under: str | Sequence[str]) -> tuple[str, list[object]]:
    """The test that a session's folder is one of `under` or below it, and its values."""
    tests, args = [], []
    for folder in folders_of(under):
        column = "cwd"
        if pathnames.is_windows(folder):  # C:\\… and c:/… are one folder there
            column = pathnames.comparable_sql("cwd")
            folder = pathnames.comparable(folder)
        tests.append(f"{column} = ? OR substr({column}, 1, ?) = ?")
        base = folder.rstrip("/") or "/"
        prefix = base if base.endswith("/") else base + "/"
        args.extend([base, len(prefix), prefix])
    return "(" + " OR ".join(tests) + ")", args


def project_folders() -> tuple[str, ...] | None:
    """The folder the user is in (as `--here` names it), whose sessions `find` ranks
    first; None in their home or at the root, which hold every project, or where the
    folder is gone."""
    from .errors import SessdexError

    try:
        folders = here_folders()
    except SessdexError:
        return None
    ignored = {os.sep, os.path.expanduser("~").rstrip(os.sep)}
    return None if any(f.rstrip(os.sep) in ignored | {""} for f in folders) else folders


# what `list --all` asks for besides a row's own columns, to put it under its lead
# (`under_leads`): its lead, and for a sub-agent the time it started
LEAD_COLUMNS = (
    "parent_id, CASE WHEN parent_id IS NOT NULL"
    " THEN json_extract(record, '$.created') END"
)


def under_leads(keys: Sequence[tuple[str, str, str | None, str | None]]) -> list[int]:
    """The order `list --all` shows rows in, as positions in `keys`: each row's (app,
    id, lead's id or None, start time of a sub-agent), newest first as `sessions_sql`
    gives them. Each sub-agent comes right after its lead (a sub-agent's own after it),
    the sub-agents of one lead in the order they started (one with no start time last);
    the leads, and a sub-agent whose lead is not among the rows, stay in their order."""
    at = {(app, own): n for n, (app, own, _, _) in enumerate(keys)}
    heads: list[int] = []
    under: dict[int, list[int]] = {}
    for n, (app, _, lead, _) in enumerate(keys):
        above = None if lead is None else at.get((app, lead))
        if above is None or above == n:
            heads.append(n)
        else:
            under.setdefault(above, []).append(n)
    if not under:
        return list(range(len(keys)))
    for rows in under.values():
        rows.sort(key=lambda n: (keys[n][3] is None, keys[n][3] or ""))
    order: list[int] = []
    placed = [False] * len(keys)
    # then the rows of a loop (two sessions, each the other's lead), which no head
    # reaches: at the end, as listed
    for head in [*heads, *range(len(keys))]:
        stack = [head]
        while stack:
            n = stack.pop()
            if not placed[n]:
                placed[n] = True
                order.append(n)
                stack.extend(reversed(under.get(n, ())))
    return order


def listing_depths(keys: Iterable[tuple[str, str, str | None]]) -> list[int]:
    """How deep each row (app, id, lead's id or None) of a listing in `under_leads`'
    order sits: 0 for a lead, 1 for its sub-agent or one whose lead is not listed, 2 for
    a sub-agent's own, and so on."""
    depths: dict[tuple[str, str], int] = {}
    found = []
    for app, own, lead in keys:
        depth = 0 if lead is None else depths.get((app, lead), 0) + 1
        depths[app, own] = depth
        found.append(depth)
    return found


def _undashed_uuid(word: str) -> str | None:
    """A whole UUID typed without its dashes, as some tools print one, with them put
    back as ids hold them; None for any other word (a part of one could be from any
    place in an id)."""
    return dashed(word) if len(word) == 32 else None


_LATEST = 253402300799.0  # 9999-12-31T23:59:59Z, the last moment a datetime holds
_EARLIEST = -62135596800.0  # 0001-01-01T00:00:00Z, the first


def _slashed(word: str) -> str:
    """A Windows folder typed as `list` shows it (`~\\code\\shop`, `C:\\Users\\me\\shop`)
    with `/` for `\\`, as the index holds it (`pathnames.comparable`); any other word as
    it is (a title's `src\\main.rs`)."""
    if word.startswith("~\\") or pathnames.is_windows(word):
        return word.replace("\\", "/")
    return word


def _shown_from_home(owns: Sequence[str]) -> tuple[str, list[object]]:
    """The search text with a folder under the home (by any of its names `owns`) written
    from `~`, as `list` shows it: an SQLite expression and its arguments."""
    shown = "search"
    shown_args: list[object] = []
    for own in owns:
        inner = shown_args
        shown = (
            f"CASE WHEN instr({shown}, ?) > 0 THEN replace({shown}, ?, '~/') "
            f"ELSE {shown} END"
        )
        shown_args = [*inner, "\x00" + own + "/", *inner, own + "/", *inner]
    return shown, shown_args


def _from_home(typed: list[str], own: str) -> list[str]:
    """The folded words with the home's path `own` in front of a folder written `~`, as
    `list` shows it; a home holding a blank (`C:/Users/John Smith`, which the query split
    in two) is found across the words it was split into."""
    if not own:
        return typed
    text, start = " ".join(typed), 0
    while (at := text.find(own, start)) >= 0:
        end = at + len(own)
        if (at == 0 or text[at - 1] == " ") and text[end : end + 1] in ("", "/", " "):
            text = text[:at] + "~" + text[end:]
        start = at + 1
    return text.split()


DAYS_BACK = {"today": 0, "yesterday": 1}  # words for a day, and how many days back
# a span back from now (3d, 12h, 1mo, 2months, 3days, `3 days ago` as it is said);
# words in any case, but a lone M stays refused: minutes or months?
SPAN = (
    r"\s*(\d+)\s*(m|(?i:mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?"
    r"|mos?|months?|y|yrs?|years?))\s*(?i:ago\s*)?"
)
# a unit's word by its first two letters (mi, mo) or its first letter
_UNITS = {"m": "minutes", "mi": "minutes", "mo": "months", "h": "hours", "d": "days",
          "w": "weeks", "y": "years"}  # fmt: skip
# a month (2026-11): from its first day, as a date is taken
MONTH = r"\s*(\d{4})-(\d{2})\s*"


# a date with a zone (2026-11-28Z, 2026-11-28+09:00): that day where the zone is.
# (fromisoformat reads any character as the date's separator: `+09:00` as a time)
_ZONED_DATE = r"\s*(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}(?::?\d{2})?)\s*"


# the --since values an empty listing or board suggests, shortest first: past the last,
# a date. A month's length is its shortest (2mo: 59 days, Jan and Feb), so it always
# reaches. Here, not in `views.board`: the quick path's empty `list --since` names one,
# and the board's module takes in `live` and the database code.
_HOUR, _DAY = 3600, 86400
_RUNGS = (
    ("1h", _HOUR),
    ("3h", 3 * _HOUR),
    ("6h", 6 * _HOUR),
    ("12h", 12 * _HOUR),
    ("1d", _DAY),
    ("2d", 2 * _DAY),
    ("3d", 3 * _DAY),
    ("1w", 7 * _DAY),
    ("2w", 14 * _DAY),
    ("4w", 28 * _DAY),
    ("2mo", 59 * _DAY),
    ("3mo", 89 * _DAY),
    ("6mo", 181 * _DAY),
    ("52w", 364 * _DAY),
)
_SLACK = 60.0  # seconds: the value still reaches the session when typed a bit later


def reaching(newest: datetime, now: datetime | None = None) -> tuple[str, str]:
    """How long ago the newest session changed (at `newest`: `1w ago`) and the shortest
    --since that shows it (`2w`). Ages round down, so a session `1w` old may need more
    than `--since 1w`."""
    from datetime import UTC, datetime

    from .views.text import age

    now = now or datetime.now(UTC)
    ago = max(0.0, (now - newest).total_seconds())
    reach = next((value for value, length in _RUNGS if length > ago + _SLACK), None)
    if reach is None:  # a date: its midnight (UTC, as --since reads it) comes before
        reach = newest.astimezone(UTC).date().isoformat()
    when = age(newest, now)
    when = "just now" if when == "now" else f"{when} ago"  # not "now ago"
    return when, reach


def zoned_day(value: str) -> datetime | None:
    """The midnight, in its zone, that starts a date given with a zone (`2026-11-28Z`,
    `2026-11-28+09:00`); None for any other text (a bad date or offset included)."""
    import re
    from datetime import datetime

    match = re.fullmatch(_ZONED_DATE, value)
    if match is None:
        return None
    try:
        return datetime.fromisoformat(f"{match[1]}T00:00{match[2]}")
    except ValueError:  # 2026-13-01Z, +25:00: what parse_since says of a bad time
        return None


def is_now(value: str) -> bool:
    """Whether a `--since`/`--until` value is `now`: the moment the command starts."""
    return value.strip().lower() == "now"


def parse_since(value: str, now: datetime | None = None) -> float:
    """'3d', '12h', '2w', '30min', '1mo', '1y' ago (or in words: '3days', '2months'; a
    year of 365 days, as `list`'s ages count it), 'today' or 'yesterday' (from its
    midnight in this machine's zone), a month ('2026-11', from its first day) or a
    date/time ('2026-11-01', ISO 8601; UTC if no zone), or 'now', as a POSIX
    timestamp. Raises SessdexError for anything else."""
    import re
    from datetime import UTC, datetime, timedelta

    moment = now or datetime.now(UTC)
    match = re.fullmatch(SPAN, value)
    if match:
        amount = _amount(match.group(1))
        if not amount:  # `0mo` picks nothing, or all to now: asked which, not guessed
            from .errors import BadValue

            raise BadValue(
                f"{value!r} is no time at all: a span counts from 1 "
                f"(1{_unit(match.group(2))[:-1]}), or use today."
            )
        return _back(moment, amount, _unit(match.group(2)))
    if (month := month_start(value)) is not None:
        return month.timestamp()
    if is_now(value):  # `--until now`: the moment the command runs
        return moment.timestamp()
    if (back := DAYS_BACK.get(value.strip().lower())) is not None:
        # what a day's work is asked by: its start where the user is, not UTC's midnight
        from .zones import local_zone

        day = moment.astimezone(local_zone()).date() - timedelta(days=back)
        return datetime(day.year, day.month, day.day, tzinfo=local_zone()).timestamp()
    try:
        parsed = zoned_day(value) or datetime.fromisoformat(
            value.strip().replace("Z", "+00:00")
        )
    except ValueError:
        from .errors import BadValue

        raise BadValue(_no_such_day(value) or _unread(value)) from None
    try:
        stamp = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()
    except (OverflowError, ValueError):  # a zone that moves it past year 1 or 9999
        return 0.0 if parsed.year < 1970 else _LATEST
    # (0001-01-01T00:00+14:00 is in year 0 in UTC: no datetime holds it)
    return min(max(stamp, _EARLIEST), _LATEST)


def _amount(digits: str) -> int:
    """A span's count; past 18 digits (which int() refuses at 4,300) one that reaches
    before year 1 in any unit, as the count typed does."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def _unit(word: str) -> str:
    """The unit a span's word names (`mo`, `Months` -> months; `m`, `min` -> minutes)."""
    word = word.lower()
    return _UNITS.get(word[:2]) or _UNITS[word[0]]


def _back(moment: datetime, amount: int, unit: str) -> float:
    """`amount` of `unit` before `moment`: a month back is the same day of the month
    (or that month's last), a year 365 days (as `list`'s ages count it)."""
    from datetime import timedelta

    try:
        if unit == "months":
            return _months_back(moment, amount).timestamp()
        if unit == "years":
            amount, unit = amount * 365, "days"
        return (moment - timedelta(**{unit: amount})).timestamp()
    except (OverflowError, ValueError):  # before year 1: since the beginning
        return 0.0


def _months_back(moment: datetime, amount: int) -> datetime:
    """`moment` `amount` calendar months earlier, its day cut to that month's last."""
    import calendar

    count = moment.year * 12 + moment.month - 1 - amount
    year, month = divmod(count, 12)
    if year < 1:
        raise ValueError(year)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def month_start(value: str, zone: tzinfo | None = None) -> datetime | None:
    """The first midnight of a month given as `2026-11`, in `zone` (UTC where not
    given, as a date is taken); None for any other text."""
    import re
    from datetime import UTC, datetime

    match = re.fullmatch(MONTH, value)
    if match is None or not 1 <= int(match[2]) <= 12 or int(match[1]) < 1:
        return None
    return datetime(int(match[1]), int(match[2]), 1, tzinfo=zone or UTC)


def month_end(start: datetime) -> datetime:
    """The first midnight after the month that `start` begins (as late as a time goes
    after December 9999)."""
    if start.month < 12:
        return start.replace(month=start.month + 1)
    if start.year < 9999:
        return start.replace(year=start.year + 1, month=1)
    return start.replace(month=12, day=31, hour=23, minute=59, second=59)


# English whatever the locale: calendar.month_name follows LC_TIME
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def _no_such_day(value: str) -> str | None:
    """What a date whose day its month lacks is told (`2026-11-31`: November 2026 has
    30 days); None for any other text: it was read as a date, the day alone was wrong."""
    import calendar
    import re

    match = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})(?![\d])", value)
    if match is None or not 1 <= int(match[2]) <= 12 or int(match[1]) < 1:
        return None
    year, month = int(match[1]), int(match[2])
    days = calendar.monthrange(year, month)[1]
    if 1 <= int(match[3]) <= days:
        return None
    return (
        f"no such day {value.strip()!r}: {_MONTHS[month - 1]} {year} has {days} days."
    )


def _unread(value: str) -> str:
    """What a `--since`/`--until` value sessdex cannot read is told, `30M` asked which."""
    import re

    examples = (
        "use 3d, 12h, 2w, 1mo, 1y, 30min (or 3days, 2weeks, 6months, 3 days ago), "
        "today, "
        "yesterday, now, a date like 2026-11-01 or a month like 2026-11."
    )
    if (match := re.fullmatch(r"\s*(\d+)\s*M\s*", value)) is not None:
        amount = match[1] if int(match[1]) else "1"  # a zero span is refused too
        return f"{value!r}: minutes or months? Write {amount}min or {amount}mo."
    return f"cannot read the time {value!r}: {examples}"


def parse_bounds(
    since: str | None, until: str | None
) -> tuple[float | None, float | None]:
    """`parse_since` of `since` and `parse_until` of `until` (None where not given), a
    span back (`3d`) in both from one reading of the clock: the same span is one moment."""
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    return (
        parse_since(since, now) if since else None,
        parse_until(until, now) if until else None,
    )


def parse_until(value: str, now: datetime | None = None) -> float:
    """`--until`'s bound, as a POSIX timestamp before which a session was last updated:
    what `parse_since` reads, but a day (`today`, `yesterday`, `2026-11-30`) counts
    whole, up to its next midnight (as `usage --until` counts it; a date with a zone,
    `2026-11-30+09:00`, its midnight in that zone), where a span (3d)
    or a time (2026-11-30T09:00) is that moment."""
    from datetime import date, timedelta

    text = value.strip()
    if text.lower() in DAYS_BACK:
        midnight = parse_since(text, now)
        return midnight + _day_after(midnight)
    if (month := month_start(text)) is not None:  # the month whole
        return min(month_end(month).timestamp(), _LATEST)
    if zoned_day(text) is not None:  # a fixed offset's day: 24 hours
        return min(parse_since(text) + timedelta(days=1).total_seconds(), _LATEST)
    try:
        date.fromisoformat(text)
    except ValueError:
        return parse_since(value, now)
    start = parse_since(text, now)  # its midnight UTC, as --since reads the date
    return min(start + timedelta(days=1).total_seconds(), _LATEST)


def _day_after(midnight: float) -> float:
    """The seconds from a local midnight to the next (23 or 25 on a clock change)."""
    from datetime import datetime, timedelta

    from .zones import local_zone

    start = datetime.fromtimestamp(midnight, local_zone())
    day = start.date() + timedelta(days=1)
    following = datetime(day.year, day.month, day.day, tzinfo=local_zone())
    return following.timestamp() - midnight
