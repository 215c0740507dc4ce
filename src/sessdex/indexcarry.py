"""What a new build's index keeps of an older build's: the rows of each app whose code
did not change. Each index stores, per app, a digest of the code its rows came from
(`app_digests`); the first index a new build makes of a home copies, from the newest
other build's index of that home, the rows of the apps whose digest is the same, so an
upgrade that changed one reader reads only that app's files again. It is made beside and
put in place whole (`make`): no other sessdex waits on its write lock meanwhile.

An app's code is its source's module, the source modules it imports (followed through
imports), and everything outside `sources/` (the index, usage sums, prices, `files`,
`model`: any of them shapes every app's rows), with the source modules that code
imports. The digest is of the files' bytes, read when the index is made (once a build,
a cold run's cost): a table written at build time could be stale after an edit, and a
row kept from another reader is worse than a slow run.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import indexfile
from .indexfile import SCHEMA_VERSION, sha256_of

log = logging.getLogger(__name__)

# where the code is read from: this package (a test points it at a changed copy)
ROOT = os.path.dirname(os.path.abspath(__file__))
_SOURCES = "sources"

# the tables whose rows are an app's, by their `app` column
_APP_TABLES = (
    "files",
    "fragments",
    "sessions",
    "usage_files",
    "scans",
    "scan_paths",
    "signatures",
    "depends",
)


# digests made, by the code's folder and Python's version: once a process
_made: dict[tuple[str, str], dict[str, str]] = {}


def app_digests(
    apps: Iterable[str], root: str | None = None, kept: Path | None = None
) -> dict[str, str]:
    """Each app's code digest (see the module's docstring), by app; what each file
    imports kept in the folder `kept`, by the file's digest."""
    root = root or ROOT
    wanted = tuple(apps)
    made = _made.get((root, sys.version))
    if made is None or any(app not in made for app in wanted):
        made = _made[root, sys.version] = _digests(wanted, root, kept)
    return {app: made[app] for app in wanted}


def _digests(
    apps: Iterable[str], root: str, kept: Path | None = None
) -> dict[str, str]:
    files = _package_files(root)
    helpers = _helpers(files)
    scans = _scans(root, files, kept)
    imports = {
        name: _source_imports(name, scan, files, helpers)
        for name, scan in scans.items()
    }
    shared = {name for name in files if not name.startswith(_SOURCES + os.sep)}
    shared.add(os.path.join(_SOURCES, "__init__.py"))
    shared = _closure(shared, imports)
    under = _libraries()
    from .sources import CONTEXT_DIGESTS, MODULES

    found = {}
    for app in apps:
        own = {os.path.join(_SOURCES, MODULES.get(app, app) + ".py")}
        if app in CONTEXT_DIGESTS:  # `quick` imports it by name, for this app
            own.add(os.path.join(_SOURCES, CONTEXT_DIGESTS[app] + ".py"))
        names = sorted(_closure(shared | own, imports))
        lines = "\n".join(
            [under, *(f"{name}:{files.get(name, '-')}" for name in names)]
        )
        found[app] = sha256_of(lines.encode("utf-8", "surrogateescape")).hex()[:16]
    return found


# what a module's text says of its imports: whether it loads modules by name, its
# words that start with `_`, its import statements (`_IMPORT`'s groups: the dots, the
# module, the names listed after `from`, or those after a plain `import`)
_Scan = tuple[bool, list[bytes], list[tuple[bytes, bytes, list[str], list[str]]]]

# beside the indexes: each module's `_Scan`, by its digest
SCANS = "code-scans.marshal"


def _scans(root: str, files: dict[str, str], kept: Path | None) -> dict[str, _Scan]:
    """Each module's `_Scan`, by its path below `root`: those of the modules an older
    build had too (most of an upgrade's) as it kept them in `kept`, by their bytes'
    digest, the others read. Reading them was most of the digests' cost (0.2 s of a
    new build's first run), the bytes' digests a tenth of it."""
    import marshal

    # kept by this reading of the text (this module) and this Python (marshal's format)
    stamp = f"{files.get('indexcarry.py', '-')} {sys.version}"
    where = None if kept is None else kept / SCANS
    stored = {} if where is None else _kept_scans(where, stamp)
    found: dict[str, _Scan] = {}
    by_digest: dict[str, _Scan] = {}
    for name, digest in files.items():
        if not name.endswith(".py"):
            continue
        scan = stored.get(digest)
        if scan is None:
            with open(os.path.join(root, name), "rb") as file:
                scan = _scanned(file.read())
        found[name] = by_digest[digest] = scan
    if where is not None and by_digest.keys() != stored.keys():
        data = marshal.dumps({"stamp": stamp, "scans": by_digest})
        _store(where, sha256_of(data) + data)
    return found


# more than a kept file of scans ever holds (170 KB): read no further
_SCANS_MOST = 16 << 20


def _kept_scans(where: Path, stamp: str) -> dict[str, _Scan]:
    """The scans kept at `where` by this `stamp`, or none. Its bytes are given to
    marshal only where they are the digest they start with says: marshal trusts what it
    is given (five garbled bytes asked it for 16 GB), and a file cut short or garbled
    (a disk error) reads the modules again."""
    import marshal

    try:
        with open(where, "rb") as file:
            data = file.read(_SCANS_MOST + 1)
    except OSError:
        return {}
    if len(data) > _SCANS_MOST or sha256_of(data[32:]) != data[:32]:
        return {}
    with contextlib.suppress(ValueError, EOFError, TypeError):
        loaded = marshal.loads(data[32:])
        if isinstance(loaded, dict) and loaded.get("stamp") == stamp:
            scans = loaded.get("scans")
            return scans if isinstance(scans, dict) else {}
    return {}


def _store(where: Path, data: bytes) -> None:
    """`data` written whole at `where`, or nothing (a full disk: read next time)."""
    _prune_parts(where)
    part = where.with_name(f"{where.name}.{os.getpid()}")
    try:
        part.write_bytes(data)
        os.replace(part, where)
    except OSError as error:
        log.debug("module scans not kept: %s", error)
        with contextlib.suppress(OSError):
            part.unlink()


# a part older than this was left by a run killed writing it (a write takes ms)
_PART_KEPT = 60.0


def _prune_parts(where: Path) -> None:
    """The parts of `where` (`_store`'s, `.<pid>`) that runs killed while they wrote
    it left: those of a process gone, or a minute old. Each stayed for good."""
    import time

    prefix = f"{where.name}."
    try:
        names = [name for name in os.listdir(where.parent) if name.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :]
        if not (pid.isascii() and pid.isdigit()) or int(pid) == os.getpid():
            continue
        part = where.parent / name
        with contextlib.suppress(OSError):
            if not _alive(int(pid)) or time.time() - part.stat().st_mtime > _PART_KEPT:
                part.unlink()


def _alive(pid: int) -> bool:
    """Whether a process `pid` runs (where that cannot be told: yes)."""
    if sys.platform == "win32":  # its os.kill ends the process: a part's age tells
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's: alive
        return True
    return True


def _scanned(text: bytes) -> _Scan:
    return (
        b"importlib" in text or b"__import__" in text,
        sorted(set(_UNDERSCORED.findall(text))),
        [
            (dots, module, _words(listed), _words(plain))
            for dots, module, listed, plain in _IMPORT.findall(text)
        ],
    )


def _libraries() -> str:
    """Python's version, SQLite's and those of the libraries sessdex depends on (orjson,
    msgspec, zstandard, ...): an upgrade that brings a newer one may read a file otherwise, so
    every app's code counts them. Told by their `.dist-info` folders' names, read
    beside sessdex's own (its METADATA names them): `importlib.metadata` loads some
    modules a cold `usage` does without."""
    installed: list[tuple[str, str]] = []
    for folder in sys.path:
        with contextlib.suppress(OSError):
            names = os.listdir(folder or ".")
            installed += [(folder, n) for n in names if n.endswith(".dist-info")]
    needed: set[str] = set()
    for folder, name in installed:
        if _named(name) == "sessdex":
            needed = _required(os.path.join(folder or ".", name, "METADATA"))
            break
    versions = sorted({name for _, name in installed if _named(name) in needed})
    import sqlite3  # the index is one: loaded already

    # the readers query the apps' databases through it (its JSON functions, its parser)
    return "\n".join([sys.version, f"sqlite {sqlite3.sqlite_version}", *versions])


def _named(dist_info: str) -> str:
    """The project a `.dist-info` folder is of, as a requirement names it."""
    return dist_info.split("-", 1)[0].lower().replace("_", "-").replace(".", "-")


def _required(metadata: str) -> set[str]:
    """The projects a METADATA file requires (its extras' aside)."""
    needed = set()
    with contextlib.suppress(OSError), open(metadata, encoding="utf-8") as file:
        for line in file:
            if line.startswith("Requires-Dist:") and "extra ==" not in line:
                name = re.split(r"[ <>=!~;\[(]", line[14:].strip(), maxsplit=1)[0]
                needed.add(name.lower().replace("_", "-").replace(".", "-"))
    return needed


def _package_files(root: str) -> dict[str, str]:
    """Every file of the package (less compiled ones), by its path below `root`: the
    digest of its bytes."""
    found = {}
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in names:
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                data = file.read()
            below = os.path.relpath(path, root)
            if below == "__init__.py":  # every release changes its number, read by none
                data = _RELEASE.sub(b"", data, count=1)
            found[below] = sha256_of(data).hex()
    return found


# the package's release number, as `__init__` says it: a line of its own
_RELEASE = re.compile(rb'^__version__ = "[^"\n]*"$', re.MULTILINE)


# an import statement, a parenthesised or continued list of names too; text that only
# looks like one (in a docstring) adds a module, which reads more again, never less
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]*"
    rb"(\((?:[^)#]|#[^\n]*)*\)|(?:[^\n]*\\\n)*[^\n]*)"
    rb"|import[ \t]+((?:[^\n]*\\\n)*[^\n]*))",
    re.MULTILINE,
)


# a word that starts with `_`, whole: what a helper module's name is, wherever it stands
_UNDERSCORED = re.compile(rb"\b_\w+")


def _source_imports(
    name: str,
    scan: _Scan,
    files: dict[str, str],
    helpers: dict[bytes, str],
) -> set[str]:
    """The modules of the package that the module `name` imports anywhere in it (a
    function's lazy import too), as paths below the package, from its `_Scan`. A
    source that looks another up by name (`importlib`, the registry's `get`) imports
    every source, as far as this tells. Read as text: parsing each module costs a
    second, every new index."""
    dynamic, words, statements = scan
    package = os.path.dirname(name).split(os.sep) if os.path.dirname(name) else []
    # the rest of the package looks sources up by the app it is given: that app's
    looks_up = package == [_SOURCES] and not name.endswith("__init__.py")
    if looks_up and dynamic:
        return _every_source(files)
    # a helper module named anywhere (a string, a comment) counts as imported: a way
    # of loading one these lines miss reads more again, never less
    # (each word that starts with `_` looked up: one pass over the text, where a search
    # per helper and module took most of a cold first run's 0.15 s of digests)
    found = {
        helper
        for word in words
        if (helper := helpers.get(word)) is not None and helper != name
    }
    for dots, module, listed, plain in statements:
        if not dots and not module:  # `import a.b, c`
            for each in plain:
                parts = each.split(".")
                if parts[0] == "sessdex":
                    found.update(_module_files(parts[1:], (), files))
            continue
        names = listed
        parts = module.decode(errors="replace").split(".") if module else []
        if dots:
            if len(dots) - 1 > len(package):
                continue
            parts = [*package[: len(package) - len(dots) + 1], *parts]
        elif parts[0] == "sessdex":
            parts = parts[1:]
        else:
            continue
        found.update(_module_files(parts, names, files))
        if looks_up and parts == [_SOURCES] and {"get", "all_sources"} & set(names):
            found.update(_every_source(files))
    return found


def _helpers(files: dict[str, str]) -> dict[bytes, str]:
    """The sources' helper modules (`sources/_<app>_read.py`) by their names, which mean
    the module wherever they stand in a text."""
    found = {}
    for name in files:
        stem = os.path.basename(name)[:-3]
        if os.path.dirname(name) != _SOURCES or not name.endswith(".py"):
            continue
        if stem.startswith("_") and stem != "__init__":
            found[stem.encode()] = name
    return found


def _words(listed: bytes) -> list[str]:
    """The names an import lists (`a as b, c`): each first word."""
    text = listed.decode(errors="replace")
    if "#" in text:  # comments first
        text = re.sub(r"#[^\n]*", "", text)
    text = text.replace("\\\n", " ").strip("()\\ \t\r\n")
    return [part.split()[0] for part in text.split(",") if part.split()]


def _module_files(
    parts: list[str], names: Iterable[str], files: dict[str, str]
) -> set[str]:
    """The files of module `parts` (a package: its `__init__`), and of each of `names`
    that is a module in it."""
    # joined by hand: os.path.join was half the digests' cost once the scans were kept
    at = os.sep.join(parts)
    under = at + os.sep if parts else ""
    found = set()
    for candidate in (
        at + ".py" if parts else "",
        f"{under}__init__.py",
        *(f"{under}{name}.py" for name in names),
        *(f"{under}{name}{os.sep}__init__.py" for name in names),
    ):
        if candidate in files:
            found.add(candidate)
    return found


def _every_source(files: dict[str, str]) -> set[str]:
    return {name for name in files if name.startswith(_SOURCES + os.sep)}


def _closure(names: set[str], imports: dict[str, set[str]]) -> set[str]:
    found, todo = set(names), list(names)
    while todo:
        for imported in imports.get(todo.pop(), ()):
            if imported not in found:
                found.add(imported)
                todo.append(imported)
    return found


def carry_over(db: sqlite3.Connection, path: Path) -> None:
    """Store this build's code digests in the new index at `path` (one `make` did not
    make: nothing to copy, or its copy was not this build's first), unless another
    sessdex stored them first."""
    digests = _digests_now(path.parent)
    if digests is None:
        return
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:  # another sessdex is storing them
        log.debug("no code digests kept: %s", error)
        return
    try:
        if db.execute("SELECT 1 FROM codes LIMIT 1").fetchone() is None:
            db.executemany("INSERT INTO codes VALUES (?, ?)", digests.items())
        db.execute("COMMIT")
    except BaseException as error:
        if db.in_transaction:
            db.execute("ROLLBACK")
        if not isinstance(error, sqlite3.Error):
            raise
        # a full disk: the run goes on as it would have, its own writes saying why
        log.debug("no code digests kept: %s", error)


def make(path: Path) -> None:
    """Make the index at `path` (none there yet), this build's first of this home, with
    its code digests and the rows of each app whose digest the newest other build's
    index of this home stored too. It is made beside (`MAKING`) and put in place whole,
    where no other sessdex waits on it: copied in the index itself, the rows of 200,000
    sessions held every other sessdex's writes for longer than it waits (15 s). One put
    there meanwhile (another sessdex that could not wait) wins; anything amiss (no such
    index, one of another schema, a file that cannot be read) makes nothing: every file
    is read again, as before."""
    older = _newest_other(path)
    digests = None if older is None else _digests_now(path.parent)
    with _maker(path) as taken:
        if taken == _HELD and os.path.lexists(f"{path}{MADE}"):
            # no live maker (it would hold the lock): what one left is a dead one's
            _remove_making(path)
            return
        # the lock busy: another run makes the index, or is about to find it made
        first = taken != _BUSY and _first_made(path)
        if first and older is not None and digests is not None:
            _make_in_place(path, older, digests)
    if not first:
        _wait_for_making(path)  # unlocked: its own lock would look like a maker's


def _make_in_place(path: Path, older: Path, digests: dict[str, str]) -> None:
    making = f"{path}{MAKING}"
    # one left (its mark deleted by hand) is no start: SQLite would open it, a file
    # that is no index or another's second name (`tidy`)
    _remove_making(path)
    try:
        try:
            _make(making, older, digests)
            _put_in_place(making, path)
        finally:
            # where Windows refuses (the index open in another run), `tidy` does it
            _remove_making(path)
    except FileExistsError:
        log.debug("index rows not copied: another sessdex made %s first", path)
    except (OSError, sqlite3.Error) as error:
        # an index not to be read (a table gone, a bad sector), a full disk: half an
        # app's rows would list it wrong; the new index is made empty
        log.debug("index rows not copied from %s: %s", older, error)


def _put_in_place(making: str, path: Path) -> None:
    """The index made at `making` put at `path`, never over one another sessdex made
    there (FileExistsError)."""
    try:
        os.link(making, path)
    except (FileExistsError, FileNotFoundError):
        raise
    except OSError as error:
        # a file system without hard links (FAT, some network shares): renamed, which
        # replaces (POSIX) an index made meanwhile, open with its WAL beside it: only
        # while none is there, none made meanwhile (`create` holds the same lock)
        log.debug("no hard link (%s): %s renamed into place", error, making)
        with _placing(path) as held:
            if not held or os.path.lexists(path):
                raise FileExistsError(path) from error
            os.rename(making, path)


def create(path: Path) -> None:
    """An empty index at `path` where none is (SQLite's own start), made under the lock
    `_put_in_place` renames under. Where it cannot be made, SQLite says why."""
    with _placing(path), contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))


# beside an index while one is created or put there (`_placing`), for moments
PLACING = ".placing"

# how long a run waits for that lock: it is held for moments
PLACING_WAIT = 1.0


@contextlib.contextmanager
def _placing(path: Path) -> Iterator[bool]:
    """Whether this process holds the lock under which an index is created or renamed
    at `path` (the file `PLACING` beside it, locked), held in the `with` block. The
    lock dies with its process: a file made with O_EXCL, left by a run killed holding
    it, held every later run `PLACING_WAIT`."""
    import time

    lock = f"{path}{PLACING}"
    since = time.monotonic()
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:  # a folder not written to: SQLite says why
            yield False
            return
        taken = _lock(fd, shared=False)
        if taken == _HELD and _still_there(fd, lock):
            break
        os.close(fd)
        if taken == _NONE or time.monotonic() - since > PLACING_WAIT:
            yield False  # no locks on this file system: nothing renamed
            return
        time.sleep(0.01)
    try:
        yield True
    finally:
        # removed while held: a run that locks it next (opened before) finds it is
        # not the file there any more (`_still_there`) and takes the one there
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)
        if sys.platform == "win32":  # it removes no file open: once let go, unless
            with contextlib.suppress(OSError):  # another opened it meanwhile
                os.unlink(lock)


def _still_there(fd: int, name: str) -> bool:
    """Whether the open file `fd` is the one at `name`."""
    try:
        now, held = os.stat(name), os.fstat(fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


# beside an index while `make` makes it
MAKING = ".making"


# how long the index being made may stay unchanged before its making counts as cut short
MAKING_STILL = 5.0

# how long after its mark its making may not be there yet (a maker makes it at once)
MAKING_BEGUN = 1.0


# beside an index: the lock its maker holds while it lives (`_maker`), kept with it
MAKER = ".maker"

# what taking a lock did: taken, held by another, or none on this file system
_HELD, _BUSY, _NONE = "held", "busy", "none"


@contextlib.contextmanager
def _maker(path: Path) -> Iterator[str]:
    """The lock that tells a live maker of the index at `path` from a dead one (a run
    killed while it made it), taken without waiting and held in the block: the
    operating system lets it go with its process. Taken before the mark, so a run that
    finds the mark and the lock free knows that none makes it."""
    try:
        fd = os.open(f"{path}{MAKER}", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a folder not written to: the mark fails too
        yield _NONE
        return
    try:
        yield _lock(fd, shared=False)
    finally:
        os.close(fd)  # the lock with it


def _maker_alive(path: Path) -> bool | None:
    """Whether a run holds the lock of `_maker` (None: locks are not to be had here,
    the file system's or the platform's)."""
    try:
        fd = os.open(f"{path}{MAKER}", os.O_RDONLY)
    except FileNotFoundError:
        return False  # none ever took it: a maker takes it before its mark
    except OSError:
        return None
    try:
        taken = _lock(fd, shared=True)  # runs waiting together do not hold each other
    finally:
        os.close(fd)
    return None if taken == _NONE else taken == _BUSY


def _lock(fd: int, shared: bool) -> str:
    """The open file `fd` locked without waiting (until it is closed): `_HELD`, `_BUSY`
    where another open file holds it, `_NONE` where there are no such locks."""
    try:
        if sys.platform == "win32":
            import msvcrt

            # one byte, exclusive only: two runs waiting together may see each other's
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            how = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
            fcntl.flock(fd, how | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):  # EWOULDBLOCK; Windows' EACCES
        return _BUSY
    except OSError:  # ENOLCK, EOPNOTSUPP: some network file systems
        return _NONE
    except ImportError:  # a platform with neither module: no such locks there
        return _NONE
    return _HELD


def _remove_making(path: Path) -> None:
    for suffix in ("", "-journal"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{MAKING}{suffix}")


def tidy(path: Path) -> None:
    """A `.making` beside the index at `path` removed, where it is the index's second
    name (os.link put it in place, and the run was killed before it removed that
    name, or Windows refused it while another run had the index open) or no live run
    makes it: it kept GBs once the index was deleted or set aside."""
    making = f"{path}{MAKING}"
    with contextlib.suppress(OSError):
        if os.path.samefile(making, path) or _maker_alive(path) is False:
            _remove_making(path)


def _wait_for_making(path: Path) -> None:
    """Until another sessdex's `make` put the index at `path` in place, while it writes
    it: one that made its own meanwhile would read every file again, and the copy
    would be lost. A maker that is gone (`_maker_alive`) is not waited for."""
    import time

    making = f"{path}{MAKING}"
    last, since = None, time.monotonic()
    while not os.path.lexists(path):
        alive = _maker_alive(path)
        if alive is False:
            # killed while it made it: what it left goes (a live one holds the lock
            # until its making is gone; none takes it again once the mark is there)
            _remove_making(path)
            return
        try:
            stat = os.stat(making)
        except OSError:
            if last is None and (
                (alive and time.monotonic() - since < MAKING_BEGUN)
                or _just_marked(path, since)
            ):
                time.sleep(0.05)  # the maker is between its mark and its making
                continue
            return  # none is being made, or it failed
        seen = (stat.st_size, stat.st_mtime_ns)
        if seen != last:
            last, since = seen, time.monotonic()
        elif time.monotonic() - since > MAKING_STILL:
            # a run cut short left it (as big as the rows it copied): a maker only
            # stalled this long loses its copy, as it would to the index made now
            with contextlib.suppress(OSError):
                os.unlink(making)
            return
        time.sleep(0.05)


def _just_marked(path: Path, since: float) -> bool:
    """Whether the mark of the index at `path` was made moments ago (by a run that is
    about to make it), for no longer than `MAKING_BEGUN` since `since` (a clock off)."""
    import time

    if time.monotonic() - since > MAKING_BEGUN:
        return False
    try:
        age = time.time() - os.stat(f"{path}{MADE}").st_mtime
    except OSError:
        return False
    return age < MAKING_BEGUN


def _make(making: str, older: Path, digests: dict[str, str]) -> None:
    from .indexschema import migrate

    # none but this process reads it until it is put in place: no journal, no sync
    # before the one of the whole file
    with contextlib.closing(sqlite3.connect(making, isolation_level=None)) as db:
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        migrate(db, Path(making))
        db.execute("BEGIN")
        db.executemany("INSERT INTO codes VALUES (?, ?)", digests.items())
        _copy(db, older, digests)
        db.execute("COMMIT")
    _synced(making)


def _synced(making: str) -> None:
    """The index made at `making` synced to its disk, its time touched meanwhile: a GB
    takes seconds to reach a slow disk, and a run waiting for it (`_wait_for_making`)
    took a making unchanged that long for one cut short."""
    import threading

    done = threading.Event()

    def going_on() -> None:
        while not done.wait(MAKING_STILL / 5):
            with contextlib.suppress(OSError):
                os.utime(making)

    beat = threading.Thread(target=going_on, daemon=True)
    beat.start()
    try:
        with open(making, "r+b") as file:  # Windows syncs only a file open to write
            os.fsync(file.fileno())
    finally:
        done.set()
        beat.join()


def _digests_now(kept: Path) -> dict[str, str] | None:
    """This build's code digests (what each module imports kept in the folder `kept`),
    or None where sessdex's files are not those this process loaded."""
    from .sources import BUILTIN

    if indexfile.stamp_of(ROOT) != indexfile.code_stamp():
        # its files changed since this process loaded them (an upgrade under a running
        # `watch`): their digests are not of the code that writes this index's rows
        log.debug("no code digests: sessdex's files changed since it started")
        return None
    try:
        digests = app_digests(BUILTIN, kept=kept)
    except (OSError, ValueError) as error:
        log.debug("no code digests: %s", error)
        return None
    if indexfile.stamp_of(ROOT) != indexfile.code_stamp():
        # ... or while they were read: some digests may be of the newer files
        log.debug("no code digests: sessdex's files changed while they were read")
        return None
    return digests


# beside an index, once its build has made it (`_first_made`); pruned with it
MADE = ".carried"


def _first_made(path: Path) -> bool:
    """Whether this build makes its index of this home for the first time, marked
    beside it: one made again (the user deleted it to have every file read again, or
    it was set aside as damaged) copies nothing, where it brought back the older
    build's rows it was deleted to be rid of. A mark that cannot be made: no copy."""
    try:
        os.close(os.open(f"{path}{MADE}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return False
    return True


def _newest_other(path: Path) -> Path | None:
    """The index of this home another build used last."""
    prefix = path.name.rsplit("-", 1)[0]
    found: list[tuple[float, Path]] = []
    for other in path.parent.glob(f"{prefix}-*.sqlite"):
        if other == path:
            continue
        used = 0.0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                used = max(used, os.stat(f"{other}{suffix}").st_mtime)
        found.append((used, other))
    return max(found)[1] if found else None


def _copy(db: sqlite3.Connection, older: Path, digests: dict[str, str]) -> None:
    """The rows of the apps whose digest `older` stored too, copied from it (read
    only: another build may be using it)."""
    uri = indexfile.sqlite_uri(older, "mode=ro")
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as old:
        # one read transaction: the older build's `watch` may write between the tables,
        # and rows of two moments (files of one, signatures of the next) list wrong
        old.execute("BEGIN")
        if old.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return  # another schema: its rows are not this build's tables
        stored = dict(old.execute("SELECT app, digest FROM codes"))
        same = sorted(
            app for app, digest in digests.items() if stored.get(app) == digest
        )
        if not same:
            return
        marks = ",".join("?" * len(same))
        for table in _APP_TABLES:
            _copy_rows(db, old, table, f"app IN ({marks})", same)
        _copy_rows(
            db,
            old,
            "usage_meta",
            f"substr(name, instr(name, ':') + 1) IN ({marks})",
            same,
        )
        # what each context file meant (`context_digest`): a file of those apps, told
        # by its `files` row (the table names no app)
        _copy_rows(
            db,
            old,
            "contexts",
            f"path IN (SELECT path FROM files WHERE app IN ({marks}))",
            same,
        )
        _copy_rows(db, old, "home", "1", [])
        log.debug("index rows of %s kept from %s", ", ".join(same), older)


def _copy_rows(
    db: sqlite3.Connection,
    old: sqlite3.Connection,
    table: str,
    where: str,
    values: list[str],
) -> None:
    columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    names = ", ".join(columns)
    marks = ", ".join("?" * len(columns))
    rows = old.execute(f"SELECT {names} FROM {table} WHERE {where}", values)
    db.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
