"""Where a home's index lives, worked out with the standard library alone.

Both the index and the quick listing path (`quick`) need the file's name before anything
heavy is imported, so this module uses only `os`, `sys` and SHA-256 (and, to set a
damaged index aside, `sqlite3` and `logging`; for a home read by another path to it,
`json` and `re`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping

SCHEMA_VERSION = 9  # the number of migrations in `indexschema.MIGRATIONS`

# Python's own SHA-256, the digest hashlib's gives: hashlib loads OpenSSL first, some ms
# of a warm listing
try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256  # type: ignore[import-not-found]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # a Python built without its own hashes
    from hashlib import sha256


def sha256_of(data: bytes) -> bytes:
    """The SHA-256 digest of `data`, without loading OpenSSL where Python has its own."""
    return bytes(sha256(data).digest())


def state_home() -> str | None:
    """`SESSDEX_HOME`, when set: the folder all of sessdex's state goes below. A relative
    value (an env file's `.sessdex`, never expanded) is taken below the user's home: taken
    as it is, an index was made in every folder sessdex ran in (an agent's folder too)."""
    root = os.environ.get("SESSDEX_HOME")
    if not root:
        return None
    root = os.path.expanduser(root)
    if not os.path.isabs(root):
        root = os.path.join(os.path.expanduser("~"), root)
    return root


# in the cache's `snapshots/`: the database copies an earlier sessdex kept (the
# logins in some) have been removed (databases.sweep_login_copies)
SNAPSHOTS_SWEPT = ".logins-swept"


def cache_folder() -> str:
    """sessdex's cache folder: below `SESSDEX_HOME` when set, else the user cache dir."""
    root = state_home()
    if root:
        return os.path.join(root, "cache")
    if sys.platform.startswith("linux"):
        # platformdirs' XDG rule (tests compare the two) but for a relative value;
        # importing it costs more than a warm listing may take
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        if not os.path.isabs(base):
            # the XDG spec: a relative one is invalid and ignored; taken as it is, an
            # index was made in every folder sessdex ran in (an agent's folder too)
            base = os.path.expanduser("~/.cache")
        return os.path.join(base, "sessdex")
    from platformdirs import user_cache_dir

    return user_cache_dir("sessdex", appauthor=False)


def cache_problem(folder: str) -> str | None:
    """Why the index cannot be kept in the cache folder `folder` (made here if missing),
    or None where it can."""
    if not os.path.isabs(folder):
        # `~` left as is (no HOME, no entry in the password database): taken as it is,
        # the index went below the working folder (an agent's folder too)
        return "no home folder: HOME is not set"
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        return error.strerror or str(error)
    return None if os.access(folder, os.W_OK | os.X_OK) else "not writable"


def private_folder(make: bool = True) -> str | None:
    """`<temporary folder>/sessdex-<uid>`, made if missing (`make`), where it is this
    user's alone: a folder, not a link, owned by this user and closed to others (0700), in
    a temporary folder that no one else may take it out of (sticky, as /tmp is, or open to
    none but its owner, this user or root). None where any of it is not so: another
    user's folder, or one others could have swapped in, is never used."""
    import stat
    import tempfile

    if not hasattr(os, "geteuid"):  # Windows: the temporary folder is the user's own
        return None
    uid = os.geteuid()
    base = tempfile.gettempdir()
    folder = os.path.join(base, f"sessdex-{uid}")
    try:
        above = os.stat(base)
        shared = above.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if above.st_uid not in (0, uid) or (
            shared and not above.st_mode & stat.S_ISVTX
        ):
            return None
        if make:
            with contextlib.suppress(FileExistsError):  # checked below, as a made one
                os.mkdir(folder, 0o700)
        made = os.lstat(folder)
    except OSError:
        return None
    if (
        not stat.S_ISDIR(made.st_mode)
        or made.st_uid != uid
        or stat.S_IMODE(made.st_mode) & 0o077
    ):
        return None
    return folder


_kept_said = False  # whether this process said where the index is kept instead


def say_kept_elsewhere(folder: str, problem: str, private: str | None) -> None:
    """Warn that the index cannot be kept in the cache folder, and where it is instead."""
    import logging

    global _kept_said
    _kept_said = True
    logging.getLogger("sessdex.paths").warning(
        "sessdex cannot keep its index in %s (%s): %s; set SESSDEX_HOME to a "
        "writable folder",
        folder,
        problem,
        "using a temporary one for this run"
        if private is None
        else f"keeping it in {private}, which the system may clear",
    )


def kept_elsewhere_said() -> bool:
    """Whether this process has warned where its index is kept instead (once is enough)."""
    return _kept_said


def kept_index(home_path: str, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """(the index file, the problem with the cache folder) of a home whose index is
    kept in `private_folder` because the cache folder cannot hold it, where that file
    exists; else None. For the quick paths, which find the same file the full command
    would, with the same checks, and make nothing there."""
    folder = cache_folder()
    problem = cache_problem(folder)
    if problem is None:
        return None  # the full command builds it in the cache folder
    private = private_folder(make=False)
    if private is None:
        return None
    path = os.path.join(private, index_name(home_path, environ))
    return (path, problem) if os.path.isfile(path) else None


def index_name(home_path: str, environ: Mapping[str, str]) -> str:
    """One index per home and set of folder overrides, so a copied home never mixes with
    yours, and per build of sessdex (`code_stamp`): what an older reader made of a file
    that has not changed since is not kept past an upgrade."""
    return f"{home_key(home_path, environ)}-{code_stamp()}.sqlite"


def home_key(home_path: str, environ: Mapping[str, str]) -> str:
    """`index-<hash>`: what every index of this home's names start with. The home is
    named by its real path: one reached through a link (`--home /b` where /b -> /a, a
    `$HOME` with a link in it) is the same home, with one index. Only the variables the
    sources read count: others that merely look like folders change from one shell to
    the next (pyenv's shims export PYENV_DIR, the working folder). A relative folder
    (`NANOCODER_DATA_DIR=data`) is read against the working folder, as the apps read it:
    it counts as the folder it names from there, so runs from two folders keep two indexes."""
    from .sources import OVERRIDES

    relevant = sorted(
        f"{name}={_real(value) if name == 'HOME' else _resolved(value)}"
        for name in OVERRIDES
        if (value := environ.get(name)) is not None
    )
    home_path = _real(home_path)
    key = "\x00".join([home_path, *relevant]).encode("utf-8", "surrogateescape")
    return f"index-{sha256(key).hexdigest()[:12]}"


def _resolved(value: str) -> str:
    """An override's value, a relative folder put under the working folder it is read
    against (`~/…`, which the sources expand, and an empty value as they are)."""
    if not value or os.path.isabs(value) or value.startswith("~"):
        return value
    try:
        return os.path.join(os.getcwd(), value)
    except OSError:  # a working folder removed since: nothing is read against it
        return value


def _real(path: str) -> str:
    """An absolute path with its links resolved (the home, `$HOME`); anything else as it is."""
    return os.path.realpath(path) if os.path.isabs(path) else path


def rehomed(path: str, recorded: str, given: str) -> str:
    """`path` under the home as `given`, where it lies under `recorded`, another path to
    that home (a link): the index reads the home by the path it was built by, and what
    sessdex shows is under the one the user gave. Any other path as it is."""
    base = recorded.rstrip(os.sep)
    if recorded == given or not base:
        return path
    if path != base and not path.startswith(base + os.sep):
        return path
    return given.rstrip(os.sep) + path[len(base) :] or given


def rehomed_records(body: bytes, recorded: str, given: str) -> bytes:
    """Session records (a `--json` array, `--nl` lines), as the index holds them, with
    the `path` and `cwd` under `recorded` put under `given` (`rehomed`)."""
    if recorded == given or not recorded.rstrip(os.sep):
        return body
    import json  # here: `re`, which json imports, is some ms of a warm listing
    import re

    try:
        old, new = (
            json.dumps(name.rstrip(os.sep), ensure_ascii=False)[1:-1].encode()
            for name in (recorded, given)
        )
    except UnicodeEncodeError:  # a name that is no text is in no record
        return body
    # a key's opening quote is never escaped, one inside a string always is
    separator = re.escape(json.dumps(os.sep)[1:-1].encode())
    pattern = re.compile(
        rb'("(?:path|cwd)":")' + re.escape(old) + rb"(?=" + separator + rb'|")'
    )
    return pattern.sub(lambda found: found[1] + new, body)


_STAMP: str | None = None


def code_stamp() -> str:
    """Which build of sessdex this is: the names, sizes and times of its modules and data
    files, hashed. An upgrade or an edit changes it; a stat of each file, once a process."""
    global _STAMP
    if _STAMP is None:
        _STAMP = stamp_of(os.path.dirname(os.path.abspath(__file__)))
    return _STAMP


def stamp_of(root: str) -> str:
    """`code_stamp` of the package whose files are below `root`, as they are now."""
    parts: list[str] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                elif entry.name.endswith((".py", ".json")):
                    st = entry.stat()
                    name = entry.path[len(root) + 1 :]  # its relpath, at less cost
                    parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                continue
    return str(sha256("\n".join(parts).encode()).hexdigest()[:8])


def sqlite_uri(path: str | os.PathLike[str], options: str = "") -> str:
    """The `file:` URI SQLite opens `path` by, `options` after its `?`: the path's bytes
    quoted, as a folder named in another encoding (Latin-1) is text `quote` refuses."""
    from urllib.parse import quote

    uri = "file:" + quote(os.fsencode(path))
    return f"{uri}?{options}" if options else uri


def set_aside_if_damaged(path: str, error: BaseException) -> bool:
    """Whether `error`, raised by a query of the index at `path`, came from damage there
    (a bad sector, a copy cut short): a check of the whole file tells. Opening reads only
    the header and the schema, so damage deeper in shows only when a query reaches it.
    A damaged index is set aside (`set_aside`); busy, locked or full is no damage."""
    import sqlite3

    if not isinstance(error, sqlite3.DatabaseError) or isinstance(
        error, sqlite3.OperationalError
    ):
        return False
    # mode=rw: an index another sessdex set aside already is not created again here
    uri = sqlite_uri(path, "mode=rw")
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
            if db.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok":
                return False
    except sqlite3.OperationalError:
        return False  # gone, busy: nothing to tell of it
    except sqlite3.DatabaseError:
        pass  # too damaged to check
    try:
        set_aside(path, error)  # the query's words: one line, quick_check's are not
    except FileNotFoundError:
        return False  # another sessdex was first
    return True


def set_aside(path: str, error: BaseException) -> None:
    """Move a damaged index out of the way (kept once, for a look), with the warning:
    the next open builds it again."""
    import logging

    damaged = path + ".damaged"
    os.replace(path, damaged)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")
    logging.getLogger(__name__).warning(
        "sessdex's index was damaged (%s): moved to %s, building it again",
        error,
        damaged,
    )
