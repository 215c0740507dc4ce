"""Ids given to the library, resolved to the one session each means (a unique prefix is
enough, as in git), and, for an id no session has, what it most likely meant.

Not the listing (`api.list_sessions`): `resolve` asks the index first and refreshes only
what it must. Nothing here names an app.
"""

from __future__ import annotations

import bisect
import os
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

import orjson

from . import (
    files,
    folders,
    freshness,
    hints,
    idtext,
    pathnames,
    reading,
    sources,
)
from .calls import new_view, storable
from .diagnostics import FILE_REFUSED, VANISHED, Diagnostics
from .errors import AmbiguousId, BadValue, SessdexError, SessionNotFound, nearest
from .index import Index, Progress, Row, once_more_if_damaged
from .model import Session
from .sources import Home


def id_left_out(reference: str) -> str | None:
    """What to give instead of an id that was left out: nothing or blanks (every id
    starts with ""), or an app and its colon alone (`claude:`); None for an id. A usage
    error, not an id no session has, in the library and on the command line alike."""
    if not reference.strip():
        return f"give an id, or the start of one ({hints.named('list')})"
    app, colon, rest = reference.partition(":")
    named = sources.canonical(app.strip())
    if colon and not rest.strip() and named in sources.names():
        return (
            f"give an id after {app.strip() + ':'!r}, or the start of one "
            f"({hints.named('list', '--app', named)})"
        )
    return None


@once_more_if_damaged
def resolve(home: Home, prefix: str, *, progress: Progress | None = None) -> Session:
    """The one session whose id starts with `prefix` (sub-agents included).

    The index answers first, without a full refresh: a 2 GB transcript's `show --tail` must
    not wait on stat-ing every other file. Only that session's own file is brought up to
    date; an unknown or ambiguous prefix refreshes everything and asks again. A session
    its app copied into a new one (and resumes only by the copy's id) gives that copy.
    Raises SessionNotFound (no id starts so), AmbiguousId (several do), IndexBusy, and
    BadValue for an id left out (`""`, `"codex:"`), as the command line refuses it.
    """
    left_out = id_left_out(prefix)
    if left_out is not None:
        raise BadValue(f"{left_out}.")
    reference = prefix.strip()
    app, prefix = _app_and_prefix(reference)
    if not prefix or storable(prefix) != prefix:  # no stored id holds what is no text
        raise SessionNotFound(reference)
    new_view()  # this call, and the transcript read after it, see one state
    index = Index(home)
    typed = (app, prefix)
    # what the text may stand for, tried only where it matches no id as given; an app
    # named in front still narrows each
    forms: list[tuple[str | None, str]]
    if app is not None:
        forms = [(app, form) for form in idtext.loose_forms(prefix)]
    else:
        forms = [_app_and_prefix(form) for form in idtext.loose_forms(reference)]

    try:
        app, prefix, rows = _matching(index, typed, forms)
        row = _unique(rows, prefix)
        if row is not None and index.refresh_file(
            sources.get(row.app), row.session().path
        ):
            current = _unique(index.by_prefix(row.id, row.app), row.id)
            if current is not None:
                return index.shown(current.session())
        # an app whose files and folders are as the index read them holds no other id
        report = index.refresh_changed(sources.BUILTIN, progress)
        app, prefix, rows = _matching(index, typed, forms)
        rows = rows or _replacement(index, prefix, app) or _shown_as(index, prefix, app)
        row = _unique(rows, prefix)
        if row is not None:
            return index.shown(row.session())
        if not rows:
            word, colon, _ = reference.partition(":")
            # `C:\Users\…`, a Windows path given for the id: its drive is no misspelt app
            misspelt = colon and app is None and word.isalpha() and word.lower() != "id"
            raise SessionNotFound(
                reference,
                word if misspelt and not pathnames.is_windows(reference) else None,
                _meant(index, reference, prefix, app, report.passed_names)
                or _too_short(index, prefix, app),
            )
        raise AmbiguousId(prefix, index.prefix_titles(prefix, app) or _titles(rows))
    finally:
        index.close()


def as_given(index: Index, app: str, ids: Iterable[str]) -> set[str]:
    """The ids of `ids` (of sessions of `app` the index holds) that `resolve` of
    `app:id` gives as they are, their own row, told for thousands (a lead's sub-agents)
    in one query: an id that the id's own checks keep whole and that starts no other id
    of the app (as `by_prefix` compares them). The others are left to `resolve`."""
    lowered = index.ids_lowered(app)
    keys = [key for key, _ in lowered]
    found: set[str] = set()
    for session_id in ids:
        if (
            id_left_out(f"{app}:{session_id}") is not None
            or session_id.strip() != session_id
            or storable(session_id) != session_id
        ):
            continue
        wanted = session_id.lower()
        at = bisect.bisect_left(keys, wanted)
        starting = [i for key, i in lowered[at : at + 2] if key.startswith(wanted)]
        if starting == [session_id]:
            found.add(session_id)
    return found


def _matching(
    index: Index,
    typed: tuple[str | None, str],
    forms: list[tuple[str | None, str]],
) -> tuple[str | None, str, list[Row]]:
    """The sessions the id as typed starts, else those of the first loose form that
    starts any (`idtext.loose_forms`), with that form's app and prefix, else the one
    session a transcript's path given for the id holds."""
    for app, prefix in (typed, *forms):
        if prefix and (rows := index.by_prefix(prefix, app)):
            return app, prefix, rows
    paths = [typed[1], *(prefix for _, prefix in forms)]
    return typed[0], typed[1], _held_by_file(index, paths, typed[0])


def _held_by_file(index: Index, paths: list[str], app: str | None) -> list[Row]:
    """The session whose transcript is the first of `paths` that is a file: the one
    lead session it holds a part of (or the one sub-agent, in a sub-agent's own file);
    none for a file of several sessions (a database, a history many share), which is no
    more one id than a prefix that several ids start."""
    for path in (os.path.expanduser(text) for text in paths):
        # `…/app.db#session/<id>`: one session of a database, as `list --json` names it
        if not os.path.isfile(path) and not os.path.isfile(path.rpartition("#")[0]):
            continue
        held = index.in_file(
            dict.fromkeys((os.path.abspath(path), os.path.realpath(path)))
        )
        rows = [
            row
            for held_app, held_id in held
            if app is None or held_app == app
            for row in index.by_prefix(held_id, held_app)
            if row.id == held_id
        ]
        leads = [row for row in rows if row.session().parent_id is None] or rows
        return leads if len(leads) == 1 else []
    return []


DEMO_ID_LEAST = 4  # of a demo session's id: fewer is more likely a typo than its start


def _in_the_demo(index: Index, prefix: str, app: str | None) -> str | None:
    """For the start of a demo session's id given on another home (a line `sessdex demo`
    printed, typed without its `--home`): that it is the demo's, and the `--home` that
    reads it; None otherwise. Only where `sessdex demo` has indexed the demo home (a
    miss builds no index)."""
    from .api import demo_home
    from .indexdb import index_file

    demo = demo_home()
    if len(prefix) < DEMO_ID_LEAST or os.path.realpath(
        index.given.path
    ) == os.path.realpath(demo.path):
        return None
    if not index_file(demo).is_file():
        return None
    try:
        shown = Index(demo)
        try:
            if not shown.by_prefix(prefix, app, limit=1):
                return None
        finally:
            shown.close()
    except (sqlite3.Error, OSError, SessdexError):  # a hint is no reason to fail
        return None
    return (
        f"it is a session of the demo home, which {hints.named_at(str(demo.path), 'list')} "
        "lists: give that --home to read it."
    )


def _meant(
    index: Index,
    reference: str,
    prefix: str,
    app: str | None,
    passed: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> str | None:
    """What an id no session has most likely meant: another app's session (the app put
    in front is the wrong one), or the session a file given for the id holds, or one
    in a file sessdex may not open whose name holds the id. `passed`: what the refresh
    just run passed over, by the app (a folder refused, of an app whose scan the index
    does not note)."""
    refused = _refused_holding(index, prefix, app)
    if refused is not None:
        return (
            f"sessdex could not open {refused} (permission denied: another user's, "
            "a 'sudo' run's?), which may hold it."
        )
    demo = _in_the_demo(index, prefix, app)
    if demo is not None:
        return demo
    unread = _unread_holding(index, prefix, app, passed)
    if (
        unread is None
        and not index.count(include_subagents=True)
        and not os.path.lexists(os.path.expanduser(reference))
    ):  # `list` would show nothing: say so, and where to look
        from .checkup import home_elsewhere

        # a --home a level too high or low: the home meant, and the line that reads it
        meant = home_elsewhere(
            index.given, "list", f"sessdex found no sessions at all {hints.where()}"
        )
        if meant is not None:
            return meant
        return (
            "sessdex found no sessions at all, of any app: "
            f"{hints.named('doctor')} shows where it looked."
        )
    orphans = index.orphans(prefix, app)
    leads = {(lead_app, lead) for lead_app, lead, _ in orphans}
    if len(leads) == 1:
        lead_app, lead = leads.pop()
        children = [f"{lead_app}:{child}" for _, _, child in orphans]
        shown = [c for c in children if c.isprintable()]
        one = len(children) == 1
        how = f": see {'it' if one else 'one'} with {hints.named('show', shown[0])}"
        named = ", ".join(map(hints.spelt, children[:5]))
        unread = unread or _unread_holding(index, lead, lead_app)
        gone = (
            f"has no transcript sessdex could read: it could not read {unread}; "
            if unread
            else "has no transcript left (moved or deleted), "
        )
        return (
            f"the {lead_app} session {hints.spelt(lead)} {gone}"
            f"but the file{'' if one else 's'} of its sub-agent{'' if one else 's'} "
            f"{named}{' …' if len(children) > 5 else ''} {'is' if one else 'are'} "
            f"left{how if shown else ''}."
        )
    if unread is not None:
        return f"sessdex could not read {unread}, which may hold it."
    holder = _holding_subagent(index, prefix, app)
    if holder is not None:
        lead = f"{holder.app}:{holder.id}"
        said = hints.spelt(holder.id)
        if not lead.isprintable():  # no command a terminal cannot show as it is
            return f"that is a sub-agent inside the {holder.app} session {said}."
        return (
            f"that is a sub-agent inside the {holder.app} session {said}, not a "
            f"session of its own: see it with {hints.named('tree', lead)} or "
            f"{hints.named('show', lead)}."
        )
    if app is not None:
        apps: list[str] = []
        for form in (prefix, *idtext.loose_forms(prefix)):  # as pasted, then as meant
            apps = sorted({other for other, _, _ in index.prefix_titles(form)})
            if apps:
                break
        named = ", ".join(hints.spelt(f"{other}:{form}") for other in apps)
        if len(apps) == 1:
            return f"a {apps[0]} session's does: {named}."
        if apps:
            return f"sessions of {', '.join(apps)} do: {named}."
        # a title that starts with an app's name and a colon, pasted for the id
        # ("Claude Code: fix login"): its words, else those after the colon, in that
        # app's titles; another app's only where a space says it was a title pasted
        # (`codex:retry` named the claude session whose title held 'retry')
        pasted = any(char.isspace() for char in reference)
        return (
            _found_by_words(index, reference)
            or _found_by_words(index, prefix, app)
            or (_found_by_words(index, prefix) if pasted else None)
        )
    word, colon, rest = reference.partition(":")
    if colon and word.isalpha() and (near := nearest(word, sources.names())):
        return f"did you mean {hints.spelt(f'{near}:{rest}')}?"  # a misspelt app
    if "/" not in reference and os.sep not in reference:
        ids = index.ids()
        if (meant := _shell_expanded(prefix.lower(), ids)) is not None:
            return (
                f"did you mean {hints.id_typed(meant)}? Your shell put its process id "
                'in place of the id\'s "$$": type the id in quotes.'
            )
        if (read := _shell_read(prefix.lower(), ids)) is not None:
            meant, mark = read
            quote = "'" if mark == '"' else '"'
            return (
                f"did you mean {hints.id_typed(meant)}? Your shell acted on the id's "
                f"{quote}{mark}{quote}: type the id in quotes."
            )
        near = _one_typo_away(prefix.lower(), ids)
        if near is not None:
            return f"did you mean {hints.spelt(near)}?"
        if not os.path.lexists(reference):
            found = _found_by_words(index, reference)
            if found is not None:
                return found
    path = os.path.expanduser(reference)
    if not os.path.isfile(path):
        if ("/" in reference or os.sep in reference) and not os.path.lexists(path):
            # a transcript's path stands for its session: one mistyped is no id either
            return (
                "no file is there either: check the path, or give the id "
                f"{hints.named('list')} shows."
            )
        if os.path.isdir(path):
            return _folder_holding(index, path)
        return None
    held = index.in_file(dict.fromkeys((os.path.abspath(path), os.path.realpath(path))))
    if not held:
        try:
            empty = os.path.getsize(path) == 0
        except OSError:
            empty = False
        if empty:  # an app's file made before its first line: no session yet to show
            return "that file is empty: its app has written no session into it yet."
        return f"that is a file, not an id: give the id {hints.named('list')} shows."
    first = f"{held[0][0]}:{held[0][1]}"
    more = f" (and {len(held) - 1} more sessions)" if len(held) > 1 else ""
    return f"that is a file, not an id: give the id of the session it holds, {hints.spelt(first)}{more}."


def _folder_holding(index: Index, folder: str) -> str:
    """What a folder given for an id holds: the one session whose files are in it (an
    app that keeps a folder per session, or its sub-agents'), else how many, else none."""
    limit = 20
    leads = index.leads_in_folder(
        dict.fromkeys((os.path.abspath(folder), os.path.realpath(folder))), limit
    )
    if len(leads) == 1:
        app, session_id = leads[0]
        return (
            f"that is a folder, holding the files of the {app} session "
            f"{hints.spelt(session_id)}: give its id."
        )
    if leads:
        many = f"{len(leads)}{' or more' if len(leads) >= limit else ''}"
        return (
            f"that is a folder, holding the files of {many} sessions: give the id "
            f"of one ({hints.named('list')} shows them)."
        )
    return (
        "that is a folder, not a session's file: give the id "
        f"{hints.named('list')} shows."
    )


def _found_by_words(index: Index, reference: str, app: str | None = None) -> str | None:
    """Where the id given is words of a session's title (a title pasted for the id):
    the one session they find (of `app` alone, where given), or the `find` that lists
    the several; None where no title holds them all. Titles alone: the start of an id
    is found inside others."""
    words = reference.split()
    if not words:
        return None
    scoped = tuple(("title", word) for word in words)
    rows = index.rows(apps=(app,) if app else (), scoped=scoped, limit=2)
    if not rows:
        return None
    if len(rows) > 1:
        # a word that starts with `-` is read as an option unless it comes after `--`
        dashes = ["--"] if any(word[:1] == "-" for word in words) else []
        options = ["--app", app] if app else []
        line = hints.named("find", *options, *dashes, *words)
        return (
            f"{line} finds the sessions whose titles hold these words, with their ids."
        )
    from .views.text import one_line

    session = index.shown(rows[0].session())
    return (
        f"these words are in the title of the {session.app} session "
        f"{hints.spelt(session.id)} "
        f"({one_line(session.title, 60)!r}): give its id."
    )


def _shell_expanded(typed: str, ids: list[str]) -> str | None:
    """The start of an id holding `$$` (a Crush sub-agent's `<message>$$<call>`) that
    `typed` is once a shell put its process id in place of the `$$` (`m-1$$cal`, typed
    bare, reached sessdex as `m-129071cal`); None where `typed` is no such start."""
    for session_id in ids:
        before, mark, after = session_id.partition("$$")
        if not mark or not typed.startswith(before):
            continue
        rest = typed[len(before) :]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        for cut in range(digits, 0, -1):  # the pid's digits, the id's own after them
            if after.startswith(rest[cut:]):
                return f"{before}$${rest[cut:]}"
    return None


# what a shell acts on inside a word, the word going on after it changed: a variable or
# a command's output put in, a quote or a backslash taken out, a glob's file names
_SHELL_READS = re.compile(r"[$`\\'\"*?\[{!]")
_PLAIN_END = re.compile(r"[a-z0-9_-]+\Z")


def _shell_read(typed: str, ids: list[str]) -> tuple[str, str] | None:
    """The start of the one id holding a character a shell acts on (`$(…)`, a
    backtick, a backslash, a glob) that `typed` is once the shell acted on it, bare:
    `typed` goes on past the id's plain start, to end as the id does (`7e57a$(x)b`,
    reached sessdex as `7e57ab`), with the character; None for none, or several."""
    found: dict[str, int] = {}  # each such id: where its first such character is
    for session_id in ids:
        mark = _SHELL_READS.search(session_id)
        if mark is None or not mark.start():
            continue
        before = session_id[: mark.start()]
        # and ends as the id does, past what the shell acted on (a typo does not)
        after = _PLAIN_END.search(session_id)
        if (
            len(typed) > len(before)
            and typed.startswith(before)
            and typed.endswith(after[0] if after else "")
        ):
            found[session_id] = mark.start()
        if len(found) > 1:
            return None
    if not found:
        return None
    ((session_id, at),) = found.items()
    # as much of it as names it alone, the character at least
    size = next(
        (
            n
            for n in range(at + 1, len(session_id))
            if _starting(ids, session_id[:n]) == 1
        ),
        len(session_id),
    )
    return session_id[:size], session_id[at]


def _one_typo_away(typed: str, ids: list[str]) -> str | None:
    """The start of the one id (of `ids`, sorted) `typed` misspells by a character
    (changed, left out, added, or two swapped), as long as typed and no shorter than it
    need be to name that id alone; None where none or several are that near, or `typed`
    is too short (4 characters) for a typo to tell ids apart. Each spelling one typo
    from `typed` is looked up in `ids`: no id is compared in turn."""
    if len(typed) < 4:
        return None
    near: dict[str, int] = {}  # each id that near: how much of it was typed
    for spelling in _one_typo_from(typed):
        at = bisect.bisect_left(ids, spelling)
        while at < len(ids) and ids[at].startswith(spelling) and len(near) < 2:
            near.setdefault(ids[at], len(spelling))
            at += 1
        if len(near) > 1:
            return None
    if len(near) != 1:
        return None
    ((session_id, typed_size),) = near.items()
    for size in range(typed_size, len(session_id) + 1):
        start = session_id[:size]
        if _starting(ids, start) == 1:
            bare = start.rstrip("-_")  # `3f2b9c1e`, not `3f2b9c1e-`
            return bare if bare and _starting(ids, bare) == 1 else start
    return session_id


def _starting(ids: list[str], start: str) -> int:
    """How many of `ids` (sorted) start with `start`: 0, 1, or 2 for more."""
    at = bisect.bisect_left(ids, start)
    return sum(other.startswith(start) for other in ids[at : at + 2])


# the characters an id's typo may have put in or left out: ids are lowercased
_ID_CHARACTERS = "0123456789abcdefghijklmnopqrstuvwxyz-_"


def _one_typo_from(typed: str) -> list[str]:
    """Every spelling `typed` is with one character changed, left out or added, or two
    side by side swapped, the one-longer ones last (an id matched so typed all of it)."""
    cuts = range(len(typed) + 1)
    same = {
        typed[:n] + char + typed[n + 1 :]
        for n in range(len(typed))
        for char in _ID_CHARACTERS
    }
    same |= {
        typed[:n] + typed[n + 1] + typed[n] + typed[n + 2 :]
        for n in range(len(typed) - 1)
    }
    shorter = {typed[:n] + typed[n + 1 :] for n in range(len(typed))}
    longer = {typed[:n] + char + typed[n:] for n in cuts for char in _ID_CHARACTERS}
    spellings = [*sorted(same - {typed}), *sorted(shorter), *sorted(longer)]
    return spellings


# where an id no session has may be a sub-agent an app keeps inside its lead's file: the
# newest sessions' files searched for it, this many at most and this many bytes in all
SUBAGENT_SEARCH_SESSIONS = 200
# the fewest characters of an id searched for so: a shorter one is in most files' bytes
SUBAGENT_SEARCH_LEAST = 6
SUBAGENT_SEARCH_BYTES = 128 * 1024 * 1024
_SEARCH_BLOCK = 1024 * 1024


def _holding_subagent(index: Index, prefix: str, app: str | None) -> Session | None:
    """The session whose events spawn (or are written by) a sub-agent whose id starts
    with `prefix`, where the app keeps sub-agents in their lead's own file and lists them
    as no session; None for a prefix too short to say, or none found. Bounded: the
    newest sessions' files are searched as bytes, in blocks, up to a budget; only a
    file holding the prefix is read as events, to confirm it."""
    if (
        len(prefix) < SUBAGENT_SEARCH_LEAST or "/" in prefix or os.sep in prefix
    ):  # a path is no id
        return None
    needles = {prefix.encode(), prefix.lower().encode()}
    budget = SUBAGENT_SEARCH_BYTES
    wanted = prefix.lower()
    searched: dict[str, bool] = {}
    for row in index.rows(apps=[app] if app else (), limit=SUBAGENT_SEARCH_SESSIONS):
        if budget <= 0:
            break
        listed = row.session()
        if not listed.path:
            continue
        if listed.path not in searched:  # a store many sessions share: searched once
            searched[listed.path], read = _file_holds(listed.path, needles, budget)
            budget -= read
        # a sub-agent id made of its lead's (Cline's `<lead>__agent_…`) is not in the file
        named_after = len(wanted) > len(row.id) and wanted.startswith(row.id.lower())
        if not searched[listed.path] and not named_after:
            continue
        # the listing row lacks the app's own facts, which its reader may need
        whole = [r for r in index.by_prefix(row.id, row.app) if r.id == row.id]
        session = whole[0].session() if whole else listed
        try:
            events = reading.read_session(sources.get(row.app), session, Diagnostics())
            for event in events:
                child = (
                    event.extra.get("child_id") if event.kind == "subagent" else None
                )
                for agent in (child, event.agent_id):
                    if isinstance(agent, str) and agent.lower().startswith(wanted):
                        return session
        except (OSError, SessdexError):
            continue
    return None


def _too_short(index: Index, prefix: str, app: str | None) -> str | None:
    """For an id too short to search the files for (`_holding_subagent`), that a
    sub-agent kept inside its lead's file is found by more of it; None for a path, or
    where no app of the home (or `app`) keeps its sub-agents so (`SUBAGENTS_INSIDE`)."""
    if len(prefix) >= SUBAGENT_SEARCH_LEAST or "/" in prefix or os.sep in prefix:
        return None
    held = index.apps_held() & ({app} if app else set(sources.BUILTIN))
    if not any(getattr(sources.get(name), "SUBAGENTS_INSIDE", False) for name in held):
        return None
    return (
        "a sub-agent kept inside its lead's file is found by "
        f"{SUBAGENT_SEARCH_LEAST} or more characters of its id. "
        f"Run {hints.named('list')} to see recent ones."
    )


def _file_holds(path: str, needles: set[bytes], budget: int) -> tuple[bool, int]:
    """Whether the first `budget` bytes of the file hold one of `needles`, and how many
    bytes were read to say it, in blocks (a block's end kept, so that a needle across
    two blocks is found)."""
    keep = max(len(n) for n in needles) - 1
    read = 0
    try:
        with files.open_regular(path) as file:  # a pipe put in its place: no wait
            tail = b""
            while read < budget:
                block = file.read(min(_SEARCH_BLOCK, budget - read))
                if not block:
                    break
                read += len(block)
                data = tail + block
                if any(n in data for n in needles):
                    return True, read
                tail = data[-keep:] if keep else b""
    except OSError:
        pass
    return False, read


def _refused_holding(index: Index, prefix: str, app: str | None) -> str | None:
    """A file the index noted as refused (permissions) whose name holds `prefix`, as
    most apps name a session's file after its id, or else a refused database (any of
    the sessions it keeps may be the one); None for a prefix too short to say."""
    if len(prefix) < 4:
        return None
    wanted = prefix.lower()
    refused = [
        path
        for _, path, _, reason in index.skipped_details([app] if app else ())
        if reason == FILE_REFUSED
    ]
    for path in refused:
        if _named_by(path, wanted, wanted):
            return path
    return next((p for p in refused if p.endswith(freshness.DB_SUFFIXES)), None)


# of an id, the start that a file's name holds where its app names it so (Gemini's
# session-<time>-<first 8>.jsonl)
_NAMED_START = 8


def _unread_holding(
    index: Index,
    prefix: str,
    app: str | None,
    passed: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> str | None:
    """`<path> (<reason>)` of a file the index noted as not read at all (UTF-16 text, a
    pipe or a folder in its place, a session's folder refused; not a file refused, said
    before, nor one gone) whose name holds `prefix`
    (or its first 8 characters), as most apps name a session's file after its id; None
    for a prefix too short to say."""
    if len(prefix) < 4:
        return None
    wanted = prefix.lower()
    start = wanted[:_NAMED_START] if len(wanted) >= _NAMED_START else wanted
    apps = [app] if app else []
    unread = list(index.not_read(apps))  # every line-0 note, past MAX_DETAILS too
    unread += [(path, why) for _, path, why in index.passed_over(apps)]
    unread += [  # a session's folder refused (Copilot's `session-state/<id>`)
        (path, why)
        for name, names in (passed or {}).items()
        if app in (None, name)
        for path, why in names
    ]
    for path, reason in unread:
        if reason in (FILE_REFUSED, VANISHED):  # (`_refused_holding` said the one)
            continue
        if _named_by(path, wanted, start):  # its control characters written out
            return f"{folders.shown(path)} ({reason})"
    # else a database not read (any of the sessions it keeps may be the one)
    return next(
        (
            f"{folders.shown(path)} ({reason})"
            for path, reason in unread
            if reason not in (FILE_REFUSED, VANISHED)
            and path.endswith(freshness.DB_SUFFIXES)
        ),
        None,
    )


def _named_by(path: str, wanted: str, start: str) -> bool:
    """Whether the file's name holds `wanted` (or `start`, its first characters) where
    an id starts (`_holds_id`), or its folder's name starts with it, as a session's
    folder is named after its id (Copilot CLI's `session-state/<id>/events.jsonl`)."""
    name = os.path.basename(path).lower()
    folder = os.path.basename(os.path.dirname(path)).lower()
    held = _holds_id(name, wanted) or _holds_id(name, start)
    return held or folder.startswith(wanted)


def _holds_id(name: str, prefix: str) -> bool:
    """Whether a file's name holds `prefix` where an id starts: at the name's start or
    after `-` or `_`, in a part of `_NAMED_START` characters or more up to the next `-`
    or `.` (a uuid's first, Gemini's first 8, OpenCode's `ses_…`). Not a word of its
    own: `session`, the year of Gemini's `session-2026-…`, the extension."""
    stem = name.split(".", 1)[0]
    at = stem.find(prefix)
    while at >= 0:
        part = re.split(r"[-.]", stem[at:], maxsplit=1)[0]
        if (at == 0 or stem[at - 1] in "-_") and len(part) >= _NAMED_START:
            return True
        at = stem.find(prefix, at + 1)
    return False


def _replacement(index: Index, prefix: str, app: str | None) -> list[Row]:
    """The session that replaced the one whose id starts with `prefix` (a copy its app made
    and resumes instead, through any chain of copies), as `by_prefix` rows; else none."""
    seen: set[tuple[str, str]] = set()
    found: list[Row] = []
    while not found:
        successors = {
            (old_app, by)
            for old_app, _, by in index.superseded(prefix)
            if app is None or old_app == app
        }
        if len(successors) != 1 or (successor := successors.pop()) in seen:
            return []
        seen.add(successor)
        app, prefix = successor
        found = [r for r in index.by_prefix(prefix, app) if r.id == prefix]
    return found


def _shown_as(index: Index, prefix: str, app: str | None) -> list[Row]:
    """Sessions whose id, cleaned of what no terminal shows as `list` prints it, starts
    with `prefix`: an id holding a NUL or a bidi mark cannot be typed as it is stored."""
    from .views.text import one_line

    return index.by_shown_prefix(prefix, one_line, app)


def _app_and_prefix(reference: str) -> tuple[str | None, str]:
    """`<app>:7f3a` names the app as well as the id's start, for an id that two apps
    share (a task one app copied from another); a plain id is any app's, and so is
    `id:7f3a`, as `find` takes it; the app by any name `--app` takes (`claude-code:`).
    A colon after another word is part of the id."""
    app, colon, rest = reference.partition(":")
    if colon and (named := sources.canonical(app)) in sources.names():
        return named, rest.strip()
    if colon and app.lower() == "id":
        return None, rest.strip()
    return None, reference


def _unique(rows: list[Row], prefix: str) -> Row | None:
    # the id as spelt first: two ids may differ only in case (an app's base62 ids)
    for exact in (
        [row for row in rows if row.id == prefix],
        [row for row in rows if row.id.lower() == prefix.lower()],
    ):
        if len(exact) == 1:
            return exact[0]
    return rows[0] if len(rows) == 1 else None


def _titles(rows: list[Row]) -> list[tuple[str, str, str]]:
    """(app, id, title) of each row, as `AmbiguousId` lists them."""
    return [
        (row.app, row.id, orjson.loads(row.record).get("title") or "") for row in rows
    ]
