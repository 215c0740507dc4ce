"""Folders an agent keeps its files in, listed as the sources' scans need them.

Every listing and existence check a scan makes goes through here, so the index can note
what was looked at (see `freshness`) and a warm `sessdex list` can skip the scan. Only
folders and regular files come back: pipes, sockets, devices, broken or looping links and
names that are not text are passed over, never waited on or stored.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar, cast

from . import freshness
from .cells import written_out
from .diagnostics import FOLDER_UNREADABLE, NAME_NOT_UTF8

# (path, why) of what listings refused since `take_passed_over`: `NAME_NOT_UTF8`, or what
# the entry is instead of a folder or regular file (see `plain_kind`, `_followed`)
_PASSED_OVER: list[tuple[str, str]] = []


def is_text(name: str) -> bool:
    """Whether `name` is text (valid UTF-8). One that is not (bytes Python keeps as lone
    surrogates) could be opened, but not stored, printed or sent as JSON."""
    if name.isascii():
        return True
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def is_utf8(name: str) -> bool:
    """Whether `name`'s bytes are valid UTF-8, whichever encoding Python read them in."""
    try:
        os.fsencode(name).decode()
    except UnicodeError:
        return False
    return True


def as_named(path: str) -> str:
    """`path` as Python spells file names here: under an ASCII locale (UTF-8 mode off) a
    non-ASCII name given as text ('jösé') stands for its UTF-8 bytes, which Python
    spells with lone surrogates; no os call takes the text itself (UnicodeEncodeError)."""
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        with contextlib.suppress(UnicodeEncodeError):
            return os.fsdecode(path.encode("utf-8", "surrogateescape"))
    return path


def shown(path: str | os.PathLike[str]) -> str:
    """`path` with the bytes that are not UTF-8 written out (`caf\\xe9`), to name it, and
    its control characters too (`\\x1b`): a warning cleaned of them named another file."""
    return written_out(os.fsencode(path).decode(errors="backslashreplace"))


def nameable(entry: os.DirEntry[str]) -> bool:
    """Whether the entry's name is text; one that is not is passed over, and noted for
    `take_passed_over`."""
    if is_text(entry.name):
        return True
    _PASSED_OVER.append((shown(entry.path), NAME_NOT_UTF8))
    return False


def plain_name(name: str) -> bool:
    """Whether `name` is one entry's name, so that a path made of it stays in its folder:
    not empty, `.` or `..`, with no separator and no NUL. An id read from a file names a
    folder only so: a hostile or broken writer's `../..` led out of the app's home."""
    return (
        name not in ("", ".", "..")
        and "/" not in name
        and "\x00" not in name
        and (os.altsep is None or os.altsep not in name)
        and os.sep not in name
    )


def take_passed_over() -> list[tuple[str, str]]:
    """What listings passed over since the last call, as (path, why): names that are not
    text (shown with their odd bytes escaped, `caf\\xe9`), folders that may not be
    opened, pipes, sockets, devices and links that are broken, loop or lead above the
    folder listed; for the caller to count and report. Each once: an app may list one
    folder twice (for its sessions, then for its older format's), and a name counted
    twice told the user of two files where there was one."""
    taken = list(dict.fromkeys(_PASSED_OVER))
    _PASSED_OVER.clear()
    return taken


@contextlib.contextmanager
def unreported() -> Iterator[None]:
    """Listings inside note no passed-over names: a probe of another app's folders, whose
    own scan reports them (once, under that app)."""
    mark = len(_PASSED_OVER)
    try:
        yield
    finally:
        del _PASSED_OVER[mark:]


def entries(
    directory: str | Path, root: Path | None = None, *, nested: bool = False
) -> list[os.DirEntry[str]]:
    """The directory's folders and regular files sorted by name: pipes, sockets, devices
    and broken links are left out (opening a pipe waits for a writer), and so are links
    that loop or lead to `root` or above it (`/`, the home), names that are not text (see
    `nameable`) and the agents' credential files (see `CREDENTIALS`). A link to a folder
    elsewhere (a project folder kept on another disk) is followed.

    A missing or unreadable directory has no entries (one it may not open is noted for
    `take_passed_over`: the sessions in it would go missing unsaid). The listing is noted for the index
    (see `freshness`); `nested=True` says it looks only for sub-agent files, so a listing
    of top-level sessions need not check it.
    """
    freshness.note_listing(directory, nested)
    return listing(directory, root)


_T = TypeVar("_T")
# what the pass under way looked at (see `one_pass`); None outside one
_PASS: list[dict[tuple[object, ...], object]] = []


@contextlib.contextmanager
def one_pass() -> Iterator[None]:
    """Within it, a folder listed again, or a small file read again through
    `files.read_small`, is what the first look found. For a command that reads many
    sessions of one folder in turn, each of which looks at the others' files (a
    sub-agent's children are the siblings whose meta file names it): N looks, not N
    times N. Only for a command's while: what changes after is seen by the next."""
    _PASS.append({})
    try:
        yield
    finally:
        _PASS.pop()


def in_pass() -> dict[tuple[object, ...], object] | None:
    """What the pass under way keeps (see `one_pass`), None outside one."""
    return _PASS[-1] if _PASS else None


def kept(key: tuple[object, ...], make: Callable[[], _T]) -> _T:
    """`make()`; within a pass (`one_pass`), what it made the first time for `key`: what
    a reader derives from a folder's files (its sub-agents by parent), read once."""
    memo = in_pass()
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return cast(_T, memo[key])


def listing(directory: str | Path, root: Path | None = None) -> list[os.DirEntry[str]]:
    """`entries`, not noted for the index: for walks no listing depends on."""
    kept = in_pass()
    if kept is None:
        return _listing(directory, root)
    key = ("listing", os.fspath(directory), root)
    if key not in kept:
        kept[key] = _listing(directory, root)
    found = kept[key]
    assert isinstance(found, list)
    return list(found)


def _listing(directory: str | Path, root: Path | None) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            found = sorted(
                (
                    e
                    for e in it
                    if not is_credential(e.name)
                    and not (e.name.lower() in _PLACED and is_credential_path(e.path))
                    and nameable(e)
                    and plain_kind(e)
                ),
                key=lambda e: e.name,
            )
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM):
            _PASSED_OVER.append((shown(_refusing(directory)), FOLDER_UNREADABLE))
        elif error.errno in (errno.ENOENT, errno.ELOOP):
            _broken_link_at(directory)  # `~/.gemini/tmp -> gone`: named, as dir_at does
        return []
    if not any(entry.is_symlink() for entry in found):
        return found
    inside = resolved(root) if root is not None else None
    return [
        entry for entry in found if not entry.is_symlink() or _followed(entry, inside)
    ]


# The names agent CLIs give the files they keep logins, tokens and keys in: never
# listed, so never opened, whatever a link to one is called.
CREDENTIALS = frozenset(
    {
        "auth.json",
        ".credentials.json",
        "credentials.json",
        "oauth_creds.json",
        "google_accounts.json",
        "mcp-oauth-tokens.json",
        "secrets.json",
        "secrets.yaml",
        "auth-profiles.json",  # OpenClaw's per-agent API keys and OAuth tokens
        "kiro-auth-token.json",  # the Kiro IDE's login, in ~/.aws/sso/cache/
        # Nanocoder's providers with their API keys (in its config folder, or a project's),
        # and its Codex and Copilot logins beside them
        "agents.config.json",
        "codex-credentials.json",
        "copilot-credentials.json",
        # a project's MCP servers, with the tokens their env or headers may carry (Claude
        # Code, Forge, Nanocoder, Cursor and others read it); no session is ever named so
        ".mcp.json",
    }
)


# Login files whose name alone is too common to refuse everywhere: known by the folder
# that holds them (Auggie's, `~/.augment/session.json` and `oauth-state.json`; the
# OpenHands CLI's LLM key in `~/.openhands/agent_settings.json`, its MCP servers'
# environment in `mcp.json`, its cloud key in `~/.openhands/cloud/api_key.txt`; gptme's
# API keys in `~/.config/gptme/config.toml` and `config.local.toml`; OpenClaw's gateway
# token and API keys in `~/.openclaw/openclaw.json`, Clawdbot's in `clawdbot.json`, its
# OAuth logins in `credentials/oauth.json`; Hermes Agent's API keys in `~/.hermes/.env`;
# Qoder CLI's login in `~/.qoder/.auth/user` and `.credential-transaction`).
CREDENTIALS_IN = frozenset(
    {
        (".augment", "session.json"),
        (".augment", "oauth-state.json"),
        (".openhands", "agent_settings.json"),
        (".openhands", "mcp.json"),
        ("cloud", "api_key.txt"),
        ("gptme", "config.toml"),
        ("gptme", "config.local.toml"),
        (".openclaw", "openclaw.json"),
        (".clawdbot", "clawdbot.json"),
        ("credentials", "oauth.json"),
        (".hermes", ".env"),
        (".auth", "user"),
        (".auth", ".credential-transaction"),
    }
)
_PLACED = frozenset(name for _, name in CREDENTIALS_IN)
# A placed name that is no login file where the file beside it says what its folder is:
# a gptme conversation's own `config.toml` sits beside its `conversation.jsonl` (a
# conversation may be named `gptme`: `logs/gptme/`); gptme's settings folder holds none.
_UNLESS_BESIDE = {("gptme", "config.toml"): "conversation.jsonl"}


def is_credential_path(path: str | os.PathLike[str]) -> bool:
    """Whether the file at `path` is an agent's login file: by its name (`is_credential`),
    or by its name and the folder that holds it (`CREDENTIALS_IN`), in any case, that
    folder reached through a link too (resolved only for the few names placed so)."""
    path = os.fspath(path)
    name = os.path.basename(path).lower()
    if name in CREDENTIALS:
        return True
    if name not in _PLACED:
        return False
    if _placed(path, name):
        return True
    # through a linked folder (`~/alias -> ~/.augment`): the folder it leads to
    return _placed(os.path.realpath(path), name)


def _placed(path: str, name: str) -> bool:
    """Whether `path` is in the folder `CREDENTIALS_IN` places `name` in, and no file
    beside it (`_UNLESS_BESIDE`) says the folder is something else."""
    folder = os.path.dirname(path)
    key = (os.path.basename(folder).lower(), name)
    if key not in CREDENTIALS_IN:
        return False
    beside = _UNLESS_BESIDE.get(key)
    return beside is None or not os.path.isfile(os.path.join(folder, beside))


def is_credential(name: str) -> bool:
    """Whether a file name is one of `CREDENTIALS` in any case: on a case-insensitive
    disk (macOS's, Windows') `AUTH.JSON` opens `auth.json`, and a link resolves to the
    name it was made with."""
    return name.lower() in CREDENTIALS


def _followed(entry: os.DirEntry[str], root: Path | None) -> bool:
    """Whether a link is listed: not to a credential file, not looping (nor to a folder
    that holds it: `loop -> .` would list the same files again at every depth), and not
    to `root` or a folder above it (a link to `/` or the home would list everything)."""
    target = resolved(entry.path)
    if target is None:
        return _passed_over(entry, LOOPING_LINK)
    if is_credential_path(target):
        return False  # never named, not even as passed over
    holder = resolved(os.path.dirname(entry.path))
    if holder is not None and holder.is_relative_to(target):
        return _passed_over(entry, LOOPING_LINK)
    if root is None or target.is_relative_to(root) or not root.is_relative_to(target):
        return True
    return _passed_over(entry, "link to the home or a folder above it")


LOOPING_LINK = "link that loops"
BROKEN_LINK = "broken link"


def plain_kind(entry: os.DirEntry[str]) -> bool:
    """A folder or a regular file, links followed: not a pipe, socket or device (opening
    a pipe waits for a writer), nor a broken or looping link. What is refused is noted
    for `take_passed_over`."""
    try:
        if entry.is_dir() or entry.is_file():
            return True
    except OSError:
        pass
    return _passed_over(entry, _odd_kind(entry.path))


FOLDER_NOT_FILE = "folder in a file's place"


def file_entry(entry: os.DirEntry[str]) -> bool:
    """Whether the entry, named as a session's file, is a file. A folder so named (a
    restore or a `mkdir -p` gone wrong) hides that session as a broken link would: it
    is noted for `take_passed_over`."""
    if entry.is_file():
        return True
    if entry.is_dir():
        _PASSED_OVER.append((shown(entry.path), FOLDER_NOT_FILE))
    return False


def file_at(path: str | Path) -> bool:
    """`is_file` of a path an app names as a session's file: a folder there is noted
    for `take_passed_over`, as `file_entry` notes one listed."""
    if is_file(path):
        return True
    with contextlib.suppress(OSError, ValueError):
        if stat.S_ISDIR(os.stat(path).st_mode):
            _PASSED_OVER.append((shown(path), FOLDER_NOT_FILE))
    return False


FILE_NOT_FOLDER = "file in a folder's place"


def not_a_folder(path: str | Path) -> None:
    """A path an app keeps a folder at that holds something else (a file, a pipe, a
    broken link): noted for `take_passed_over`, as a pipe listed is; nothing where a
    folder or nothing is there."""
    with contextlib.suppress(OSError, ValueError):
        mode = os.stat(path).st_mode
        if not stat.S_ISDIR(mode):
            why = FILE_NOT_FOLDER if stat.S_ISREG(mode) else _odd_kind(os.fspath(path))
            _PASSED_OVER.append((shown(path), why))
            return
    if not os.path.isdir(path) and os.path.islink(path):
        _broken_link_at(path)


def dir_at(path: str | Path) -> bool:
    """`is_dir` of a path an app names as its folder of sessions: a broken or looping
    link there is noted for `take_passed_over`, as `is_file` notes one in a file's
    place (`~/.claude/projects -> gone` hides every session as its store's link would)."""
    if is_dir(path):
        return True
    with contextlib.suppress(OSError, ValueError):
        if os.path.islink(path) and not os.path.exists(path):
            _broken_link_at(path)
    return False


def _broken_link_at(path: str | Path) -> None:
    """A folder to list that is a broken or looping link: noted for `take_passed_over`
    (it hides every session the folder held), where a missing one is said nothing."""
    with contextlib.suppress(OSError, ValueError):
        if os.path.islink(path):
            _PASSED_OVER.append((shown(path), _odd_kind(os.fspath(path))))


def odd_at(path: str | os.PathLike[str]) -> str | None:
    """What is at `path` where a file was expected and is not one (a pipe, a folder in
    its place, a broken link), to name it; None where a regular file is there or
    nothing is."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and os.path.isfile(path)):
        return None
    if os.path.isdir(path):
        return FOLDER_NOT_FILE
    return _odd_kind(os.fspath(path))


def _odd_kind(path: str) -> str:
    """What an entry that is neither a folder nor a regular file is, for a reader."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            return LOOPING_LINK
        return BROKEN_LINK if os.path.islink(path) else "unreadable entry"
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "entry of another kind"


def _passed_over(entry: os.DirEntry[str], why: str) -> bool:
    if nameable(entry):  # an odd name is noted as that already
        _PASSED_OVER.append((entry.path, why))
    return False


def resolved(path: str | os.PathLike[str]) -> Path | None:
    """The path with every link followed; None where a link loops or cannot be read."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python before 3.13)
        return None


def shut_out(path: str | os.PathLike[str]) -> bool:
    """Whether `path` cannot be looked at because a folder on the way to it may not be
    entered (chmod 000, left by `sudo`): there `os.path.isdir` and the others answer
    False, as for a path that is not there, and `Path.is_dir` raises (Python 3.11)."""
    try:
        os.stat(path)
    except OSError as error:
        return error.errno in (errno.EACCES, errno.EPERM)
    except ValueError:  # a NUL in the name: no such path
        return False
    return False


def _refusing(directory: str | os.PathLike[str]) -> str:
    """The folder that refused a listing of `directory`: itself, or the nearest folder
    above it that may not be entered, when one is; the folders below that one may not
    even be there, and were said as more folders that could not be opened."""
    folder = os.path.abspath(directory)
    while shut_out(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def _note_closed(path: str | os.PathLike[str]) -> None:
    """Note for `take_passed_over` the folder on the way to `path` that may not be
    entered (the nearest to the root): what it holds is hidden, as in a listing refused.
    A link's own folder is open: the closed one is on the way to where it leads."""
    folder = os.path.dirname(os.path.realpath(path))
    while shut_out(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    _PASSED_OVER.append((shown(folder), FOLDER_UNREADABLE))


def is_dir(path: str | Path) -> bool:
    """`os.path.isdir`, noted for the index (see `freshness`). Where a folder on the
    way may not be entered, that folder is noted for `take_passed_over`: the app's
    sessions below it would go missing unsaid."""
    freshness.note_probe(path)
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM):
            _note_closed(path)
        return False
    except ValueError:  # a NUL in a path an app recorded: no folder is named so
        return False


def is_file(path: str | Path) -> bool:
    """`os.path.isfile`, noted for the index like `is_dir`. A pipe, socket, device, or a
    broken or looping link in the file's place is noted for `take_passed_over`, as a
    listing notes one: a file an app names (its database, a session's log) hides that
    session as surely as one in a listed folder."""
    freshness.note_probe(path)
    try:
        mode = os.stat(path).st_mode
    except ValueError:  # a NUL in a path an app recorded: no file is named so
        return False
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM):
            _note_closed(path)
        elif error.errno == errno.ELOOP or os.path.islink(path):
            _PASSED_OVER.append((shown(path), _odd_kind(os.fspath(path))))
        return False
    if stat.S_ISREG(mode):
        return True
    if not stat.S_ISDIR(mode):  # a folder in a file's place holds no session unsaid
        _PASSED_OVER.append((shown(path), _odd_kind(os.fspath(path))))
    return False


def broken_link_words(path: str) -> str:
    """`path is a link to 'target', which does not exist`: where a broken link leads,
    for a user to mend it (the target quoted, the path written out: a name from the disk
    is untrusted, and a warning cleaned of its escapes would name another file). One
    that loops (`~/.vibe/logs/session -> session`) is said so: its target is there."""
    if _odd_kind(path) == LOOPING_LINK:
        return f"{shown(path)} is a {LOOPING_LINK}"
    try:
        target = os.readlink(path)
    except (OSError, ValueError):
        return f"{shown(path)} is a broken link"
    return f"{shown(path)} is a link to {target!r}, which does not exist"


def hiding_links(
    passed_over: list[tuple[str, str]],
    reads: Callable[[str], bool] = lambda path: True,
    most: int = 3,
) -> list[str]:
    """`broken_link_words` of the first `most` broken links a listing passed over
    (`take_passed_over`) where the app would read a session (`reads`, see
    `sources.base.reads_as_session`), and of links that loop and folders in a session
    file's place: where it found nothing else, they stand where the app's store or
    files would. A few are enough to see what went wrong: a folder of 100,000 is not
    read link by link, nor held."""
    links = ((path, why) for path, why in passed_over if why in _HIDING and reads(path))
    return [
        # a listed link that loops was noted as named: written out here
        broken_link_words(path) if why == BROKEN_LINK else f"{shown(path)} is a {why}"
        for path, why in itertools.islice(links, most)
    ]


# what, in a session's or its store's place, hides it (`hiding_links`)
_HIDING = frozenset({BROKEN_LINK, LOOPING_LINK, FOLDER_NOT_FILE})


def broken_link_above(path: Path) -> str | None:
    """A broken link at `path`, or at the nearest folder above it that is there: an
    app's whole folder linked to one gone (`~/.claude -> /mnt/gone`) looks as if the app
    were not installed. None where there is no such link."""
    for place in (path, *path.parents):
        try:
            if not os.path.lexists(place):
                continue
            if os.path.islink(place) and not os.path.exists(place):
                return os.fspath(place)
        except (OSError, ValueError):  # a NUL in a variable's path: no link named so
            pass
        return None
    return None


def broken_link_above_any(places: Iterable[Path]) -> str | None:
    """The first of `places` (an app's folder and its others, `Location.also`) with a
    broken link at it or above it (`broken_link_above`): `list` and `usage` name the
    same one. None where there is none."""
    for place in places:
        if (link := broken_link_above(place)) is not None:
            return link
    return None


def exists(path: str | Path) -> bool:
    """`os.path.exists`, noted for the index like `is_dir`, a folder on the way that
    may not be entered noted as `is_dir` notes it."""
    freshness.note_probe(path)
    try:
        os.stat(path)
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM):
            _note_closed(path)
        return False
    except ValueError:
        return False
    return True
