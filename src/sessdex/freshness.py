"""How the index tells, cheaply, whether anything an app wrote has changed since its last look.

Two kinds of evidence, `stat` calls (and a few headers of a SQLite database):

- a file's *signature*: size, mtime (or ctime, the later) and inode, plus for a SQLite
  database its `-wal` file's size, mtime and state (`wal_state`: the newest rows of a WAL
  database change only the `-wal`) or, with no WAL, the change counter in its header;
- a folder's *state*: mtime and inode. Creating, deleting or renaming an entry changes its
  folder's mtime, so a folder whose state is unchanged still holds the same entries. While a
  source's scan runs, every folder it lists through `folders.entries`, and every path whose
  existence it asks `folders.is_dir`/`is_file`/`exists` about, is noted here; when all of them
  still look the same, the scan would find the same files again.

A file changed within a tick of its clock before its read began (or stamped up to SKEW_NS
ahead of the clock) is not trusted either (`settled`): its signature is kept with an
unknown change time, and the next refresh reads it again. The tick: RACY_NS for a stamp
of whole seconds (a coarse clock's), FINE_TICK_NS for any other. So are the other files a
read depended on (`settled_look`) and those a usage sum or mark was read from
(`settled_side`).

A folder modified within RACY_NS of its listing is not trusted: a second change in the same
timestamp tick would leave its mtime as it was (git's "racy" case). Its state is noted as
unknown, so that the next refresh lists it again. So is one stamped up to SKEW_NS ahead of
the clock (a file server's clock, a FAT drive's time zone). One stamped further ahead (a
home copied from a machine whose clock was wrong, a `touch -d`) is trusted: any change to
it now stamps it with the time now, which differs.

This module imports only a few built-in modules: the quick listing path uses it before
anything else is loaded.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    import sqlite3

DB_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".vscdb")
RACY_NS = 2_000_000_000  # FAT stamps folders to 2 s; everything else is finer
SKEW_NS = 24 * 3600 * 10**9  # stamps this far ahead of the clock may still be "now"


def _fine_tick_ns() -> int:
    """How long a fine clock may stamp files with one time: Linux stamps them with its
    coarse clock, which moves once a timer tick (1 to 10 ms, its resolution), Windows
    once its timer's (15.6 ms); twice that, as a tick may come late on a busy machine."""
    tick = 0.016
    if sys.platform.startswith("linux"):
        with suppress(OSError):  # CLOCK_REALTIME_COARSE, which Python names from 3.13
            tick = time.clock_getres(getattr(time, "CLOCK_REALTIME_COARSE", 5))
    return int(2 * min(max(tick, 0.001), 0.016) * 10**9)


FINE_TICK_NS = _fine_tick_ns()
UNKNOWN = -2  # a folder state that never matches: list it again next time
MISSING = -1  # the folder did not exist when the scan tried to list it

FileSignature = tuple[int, int, int, str]
# The WAL field of a file sessdex may not open (no WAL signature looks so): unchanged, it
# is said again on every listing (the quick path says it too), and a full refresh tries it again.
REFUSED = "refused"
# ... and of a file that holds a session dated ahead of the clock, listed without that
# time: "due <second> <WAL signature>", read again from that second on (the index decides
# "ahead" when it reads a file; the clock catches up with a file that never changes)
DUE = "due "


# ... and of a file read whole but for other files of its sessions that sessdex may not
# open (Roo's history_item.json, a sub-agent's meta.json, a Vibe store's manifest): the
# WAL field (any of the above), then for each of those files SIDE and what `side` gave.
# Never equal to a signature, so every full refresh reads such a file again (and says what
# it could not open again); a warm listing says it from what the index noted, and reads
# the file again once one of them changes (`chmod` moves its change time).
SIDE = "\x00"  # no path holds it


def due(second: float, wal: str) -> str:
    """The WAL field of a file to read again at `second` (see DUE)."""
    return f"{DUE}{int(second) + 1} {wal}"


def side(path: str) -> str:
    """How a file a read was refused looks now: size, change time and inode, or "-" where
    it cannot be stat'ed (a folder above it shut too); and its path."""
    try:
        st = os.stat(path)
    except OSError:
        return f"- {path}"
    return f"{st.st_size} {changed_ns(st)} {st.st_ino} {path}"


def with_sides(wal: str, refused: Iterable[str]) -> str:
    """`wal`, with the files a read was refused noted after it (see SIDE)."""
    return wal + "".join(SIDE + side(path) for path in refused)


def sides_hold(noted: str) -> bool:
    """Whether every file noted after SIDE (the rest of a WAL field past its first SIDE)
    still looks as it did: still refused, as far as a stat tells."""
    for entry in noted.split(SIDE):
        path = entry[2:] if entry.startswith("- ") else entry.split(" ", 3)[3]
        if side(path) != entry:
            return False
    return True


# The index packs each app's signatures with `marshal`, whose format belongs to one Python.
PACKED_FORMAT = (
    f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}"
    f"-{marshal.version}"
)


def pack_signatures(db: sqlite3.Connection, apps: Iterable[str]) -> None:
    """Each app's file signatures as one marshalled list per `nested` value, in the
    index's open write transaction: the quick path loads 10,000 of them in a few
    milliseconds, where rows take several times that."""
    for app in apps:
        db.execute("DELETE FROM signatures WHERE app = ?", (app,))
        for nested in (0, 1):
            rows = db.execute(
                "SELECT path, size, mtime_ns, inode, wal FROM files "
                "WHERE app = ? AND nested = ?",
                (app, nested),
            ).fetchall()
            db.execute(
                "INSERT INTO signatures VALUES (?, ?, ?, ?)",
                (app, nested, PACKED_FORMAT, marshal.dumps(rows)),
            )


def wal_signature(path: str) -> str:
    """For a database path, the `-wal` file's size, change time and state (`wal_state`),
    or with no WAL the header's file change counter; "" for anything else.

    Without a WAL an app commits in place: a commit that keeps the file's size, within the
    timestamp tick of the last look, would leave size and mtime as they were; the counter,
    which every rollback-journal commit increments, tells. With one, a commit into a WAL
    the app reuses from its start keeps its size too: its headers tell."""
    if not path.endswith(DB_SUFFIXES):
        return ""
    try:
        wal = os.stat(path + "-wal")
    except OSError:
        return _change_counter(path)
    # the change time too, as `file_signature`: a WAL rewritten at the same size (SQLite
    # reuses it from its start) whose mtime was set back
    return f"{wal.st_size}:{changed_ns(wal)}:{wal_state(path + '-wal')}"


# SQLite's header: the file change counter (4 bytes, big-endian), which every
# rollback-journal commit increments; `inplace` watches it too
COUNTER_OFFSET = 24
# ... and in WAL mode only where a commit rewrites the first page (a new table, the file
# grown); the schema cookie (40) changes with the schema, and the version-valid-for
# number (92) takes the counter's value at each commit that writes it
HEADER_FIELDS = ((COUNTER_OFFSET, 4), (40, 4), (92, 4))
# A WAL: a 32-byte header, whose checkpoint sequence and two salts (12 to 24) change each
# time the app starts writing it again from its start after a checkpoint; then frames, a
# 24-byte header (page number, database size after a commit or 0, the salts of the
# generation it belongs to, checksums summed over every frame of it so far) and a page.
WAL_HEADER = 32
FRAME_HEADER = 24


def _opened(path: str) -> int | None:
    """A descriptor of `path` to read, or None when it cannot be opened or is not a
    regular file. Non-blocking: a pipe named like a database is not waited on. Binary on
    Windows: in text mode its C runtime ends a read at a 0x1a byte, so a change counter
    from 0x1a00 to 0x1aff (256 commits) would read the same. Never a link to an agent's
    credential file, as `files.open_regular` refuses one: a WAL's name is made from its
    database's, not listed, so no listing passed such a link over."""
    if os.path.islink(path) and _to_credential(path):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _to_credential(link: str) -> bool:
    from . import folders  # here: only a link loads it

    return folders.is_credential_path(os.path.realpath(link))


def _read_at(fd: int, offset: int, length: int) -> bytes:
    if hasattr(os, "pread"):  # one call, not two
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows has no pread
    return os.read(fd, length)


def _change_counter(path: str) -> str:
    """ "c" and the database header's change counter in hex, "" when it cannot be read."""
    fd = _opened(path)
    if fd is None:
        return ""
    try:
        return "c" + _read_at(fd, COUNTER_OFFSET, 4).hex()
    except OSError:
        return ""
    finally:
        os.close(fd)


def database_state(path: str) -> str:
    """The fields of a SQLite database's header that a write changes (HEADER_FIELDS), in
    hex; "" when they cannot be read."""
    fd = _opened(path)
    if fd is None:
        return ""
    try:
        header = _read_at(fd, 0, 100)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return "".join(header[at : at + size].hex() for at, size in HEADER_FIELDS)


def wal_state(path: str) -> str:
    """What a SQLite WAL's headers say of the rows it holds, cheap however long it is:
    "<generation>.<frames>.<last frame>", its header's checkpoint sequence and salts, how
    many frames its current generation holds, and the last one's page, size and summed
    checksums (which every commit moves); "" when it cannot be read, or holds no header.

    A generation's frames are those from the start that carry its salts: after a
    checkpoint the app writes over older frames, which the file keeps behind the new
    ones, at the same size. Their end is found by halving, a frame header at a time."""
    fd = _opened(path)
    if fd is None:
        return ""
    try:
        header = _read_at(fd, 0, WAL_HEADER)
        if len(header) < WAL_HEADER:
            return ""
        page = int.from_bytes(header[8:12], "big")
        page = 65536 if page == 1 else page
        if page < 512 or page & (page - 1):  # no WAL SQLite reads: nor its frames
            return header[12:24].hex()
        frame = FRAME_HEADER + page
        salts = header[16:24]
        frames = (os.fstat(fd).st_size - WAL_HEADER) // frame

        def head(index: int) -> bytes:
            return _read_at(fd, WAL_HEADER + index * frame, FRAME_HEADER)

        last = head(frames - 1) if frames > 0 else b""
        if last[8:16] != salts:  # the generation ends before the file does
            low, high = -1, frames - 1  # frame `low` is of it (or none), `high` not
            while high - low > 1:
                middle = (low + high) // 2
                if head(middle)[8:16] == salts:
                    low = middle
                else:
                    high = middle
            frames = low + 1
            last = head(low) if low >= 0 else b""
    except OSError:
        return ""
    finally:
        os.close(fd)
    return f"{header[12:24].hex()}.{frames}.{last[:8].hex()}{last[16:24].hex()}"


def file_signature(path: str) -> FileSignature | None:
    """(size, mtime_ns, inode, wal) of a file, or None when it cannot be stat'ed or is
    neither a regular file nor a folder (a pipe named like a transcript: opening it to
    read would wait for a writer)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return None
    # the change time too: a rewrite that keeps the size and sets the mtime back (`cp -p`,
    # `touch -r`, a save in the same tick) still moves the ctime, which no one can set
    return st.st_size, changed_ns(st), st.st_ino, wal_signature(path)


def racy(changed: int, since_ns: int) -> bool:
    """Whether a file last changed at `changed` (ns) may have been changed again since
    `since_ns` (when its read began) with its stamp kept: it was changed within its
    clock's tick before, and a rewrite at the same size in that tick would leave its stat
    as it was (git's "racy" case, as a folder's above). A stamp of whole seconds is a coarse
    clock's (FAT's two, one on ext3, HFS+ and many network mounts); any other a fine
    one's (FINE_TICK_NS; none on Linux 6.13 and later for a file just looked at, on most
    local file systems), whose tick costs one more read of a file written just before a
    listing. A stamp ahead of the clock (SKEW_NS) was made by a clock still in that tick."""
    tick = RACY_NS if changed % 10**9 == 0 else FINE_TICK_NS
    return since_ns - tick < changed <= since_ns + SKEW_NS


def settled(signature: FileSignature, since_ns: int) -> FileSignature:
    """`signature`, or, for a file changed in its clock's tick before `since_ns` (`racy`),
    the same with its change time UNKNOWN: the next refresh reads it again."""
    size, changed, inode, wal = signature
    if SIDE in wal:  # the files a read was refused, noted after it
        first, *sides = wal.split(SIDE)
        wal = SIDE.join((first, *(settled_side(entry, since_ns) for entry in sides)))
    if racy(changed, since_ns):
        return size, UNKNOWN, inode, wal
    return size, changed, inode, wal


def settled_look(look: str, since_ns: int) -> str:
    """A file's look as a parse noted it (`read_signature`, maybe inside a note of its
    start or sub-folders), or, for one changed in its clock's tick before `since_ns`
    (`racy`), the same with a change time that no look has: what depended on it is read
    again next time. The others (its head, its presence) hold no time."""
    for note, unit in ((_START, " "), (_FOLDERS, "\x1f")):
        if look.startswith(note):  # the look then is its last part (spaces inside)
            *head, then = look.split(unit, 3)
            return unit.join((*head, settled_look(then, since_ns)))
    size, space, rest = look.partition(" ")
    changed, _, tail = rest.partition(" ")
    if not (space and size.isdigit() and changed.isdigit()):
        return look  # ABSENT, PRESENT, a head's note, or no look of a file
    if racy(int(changed), since_ns):
        return f"{size} {UNKNOWN} {tail}"
    return look


def settled_side(entry: str, since_ns: int) -> str:
    """A `side` entry, or, for a file changed in its clock's tick before `since_ns`
    (`racy`), one whose change time no stat gives: what was read from it is read again."""
    size, _, rest = entry.partition(" ")
    changed, _, tail = rest.partition(" ")
    if size.isdigit() and changed.isdigit() and racy(int(changed), since_ns):
        return f"{size} {UNKNOWN} {tail}"
    return entry


def changed_ns(st: os.stat_result) -> int:
    """A file's last modification or status change, whichever is later (ns)."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


# What a noted path looked like: (kind, mtime_ns, inode). A listed folder is compared on
# mtime and inode (its entries); a probed path (is it a folder? a file?) only on its kind
# and inode, so that a busy folder's new entries do not count as a change of its existence.
LISTED, PROBED = 0, 1
_MISSING_KIND, _DIR, _FILE, _OTHER = 0, 1, 2, 3
Noted = tuple[
    int, int, int, bool
]  # (LISTED or PROBED, mtime_ns or kind, inode, nested)


def _kind(st: os.stat_result | None) -> int:
    if st is None:
        return _MISSING_KIND
    if stat.S_ISDIR(st.st_mode):
        return _DIR
    return _FILE if stat.S_ISREG(st.st_mode) else _OTHER


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in a path an app wrote: none
        return None


def still_holds(path: str, what: int, value: int, inode: int) -> bool:
    """Whether a path noted during a scan would give the scan the same answer now."""
    st = _stat(path)
    if what == PROBED:
        return _kind(st) == value and (st is None or st.st_ino == inode)
    if value == MISSING:
        return st is None
    return st is not None and st.st_mtime_ns == value and st.st_ino == inode


class _Notes:
    """The paths a scan looked at while it was being recorded, as they were then."""

    def __init__(self) -> None:
        self.started_ns = time.time_ns()
        self.paths: dict[str, Noted] = {}

    def listing(self, directory: str, nested: bool) -> None:
        known = self.paths.get(directory)
        if known is not None and known[0] == LISTED:
            if known[3] and not nested:  # now also listed for top-level sessions
                self.paths[directory] = (*known[:3], False)
            return
        st = _stat(directory)  # before listing: a change made while listing shows later
        if st is None:
            self.paths[directory] = (LISTED, MISSING, 0, nested)
            return
        mtime_ns = st.st_mtime_ns
        if self.started_ns - RACY_NS <= mtime_ns <= self.started_ns + SKEW_NS:
            mtime_ns = UNKNOWN
        self.paths[directory] = (LISTED, mtime_ns, st.st_ino, nested)

    def probe(self, path: str) -> None:
        if path not in self.paths:
            st = _stat(path)
            self.paths[path] = (PROBED, _kind(st), st.st_ino if st else 0, False)


_recording: _Notes | None = None
_refusals: dict[str, None] | None = None  # files refused while `refusals` records
_openings: dict[str, None] | None = None  # files opened while `openings` records
_depending: dict[str, str] | None = None  # files read while `depending` records


# How a file a parse read looks (`read_signature`) when it was not there: a parse that
# looked for it and went on without it depends on its absence too.
ABSENT = ""


def read_signature(path: str) -> str:
    """A file a parse read (or looked for), as a stat and a database's WAL tell: ABSENT
    where it cannot be stat'ed. Compared whole: any change reads the parsed file again."""
    try:
        st = os.stat(path)
    except OSError:
        return ABSENT
    mode = st.st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return ABSENT  # a pipe: never opened (as `file_signature`)
    changed = st.st_mtime_ns if st.st_mtime_ns > st.st_ctime_ns else st.st_ctime_ns
    wal = wal_signature(path) if path.endswith(DB_SUFFIXES) else ""
    return f"{st.st_size} {changed} {st.st_ino} {wal}"


def note_depended(path: str | os.PathLike[str], look: str | None = None) -> None:
    """A file a parse read or looked for, there or not (see `depending`): called by
    `files` and `databases` where they open one, and by an adapter that opens a file
    some other way (`look`: its `read_signature`, where it has just taken it); free
    when nothing records."""
    if _depending is not None:
        name = os.fspath(path)
        if name in _depending:
            if _weak(_depending[name]):  # read whole now, after its head alone
                _depending[name] = read_signature(name) if look is None else look
        elif len(_depending) < MAX_DEPENDED:
            # as it was before the read
            _depending[name] = read_signature(name) if look is None else look


# Files noted per parse: past these, a parse's later reads are not followed.
MAX_DEPENDED = 512

# What a parse needed of a file less than all of it (`note_head`, `note_present`): its
# first bytes, of a file its app only appends to ("head <inode> <bytes>": they hold while
# the file keeps its inode and at least those bytes), or only that it is there. Every
# turn of a live session then reads again none of the files that looked at its head.
PRESENT = "present"
_HEAD = "head "


def note_head(path: str | os.PathLike[str], length: int) -> None:
    """A file a parse read only the first `length` bytes of, which its app appends to
    and never rewrites: the parse is read again once the file is cut below them,
    replaced or gone, not when it grows. A file the parse read whole stays so noted."""
    if _depending is not None:
        name = os.fspath(path)
        now = read_signature(name)
        if name not in _depending and len(_depending) < MAX_DEPENDED:
            inode = now.split(" ")[2] if now != ABSENT else "-"
            _depending[name] = f"{_HEAD}{inode} {length}" if now != ABSENT else ABSENT


def note_present(path: str | os.PathLike[str]) -> None:
    """A file a parse needed only to be there (what it read of it is fixed once
    written): the parse is read again once it comes or goes, not when it changes."""
    if _depending is not None:
        name = os.fspath(path)
        if name not in _depending and len(_depending) < MAX_DEPENDED:
            _depending[name] = PRESENT if read_signature(name) != ABSENT else ABSENT


def note_as(path: str | os.PathLike[str], signature: str) -> None:
    """A file a parse depended on as it looked (`read_signature`) when a cache the
    adapter keeps across parses read it: the parse is read again once it looks otherwise."""
    if _depending is not None:
        name = os.fspath(path)
        if name not in _depending and len(_depending) < MAX_DEPENDED:
            _depending[name] = signature


# ... or its first bytes, of a file its app replaces whole but whose start (ids written
# first) it keeps: "start <bytes> <digest> <signature then>", which holds while the file
# looks as it did, else while its first bytes are the same
_START = "start "


def note_start(
    path: str | os.PathLike[str], start: bytes, look: str | None = None
) -> None:
    """A file a parse needed only the first bytes of, `start`, which its app keeps when
    it rewrites the file: the parse is read again once they differ or the file goes,
    not when the rest changes. `look`: its `read_signature` taken before `start` was
    read (a rewrite between the read and this note then shows), else taken now."""
    if _depending is not None:
        name = os.fspath(path)
        now = read_signature(name) if look is None else look
        if name not in _depending and len(_depending) < MAX_DEPENDED:
            _depending[name] = (
                f"{_START}{len(start)} {_digest(start)} {now}" if now != ABSENT else now
            )


def _digest(data: bytes) -> str:
    import hashlib  # here: only a warm list that finds such a file changed loads it

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _starts_with(path: str, length: int, digest: str) -> bool:
    fd = _opened(path)  # a regular file only: a pipe is never waited on
    if fd is None:
        return False
    try:
        return _digest(os.read(fd, length)) == digest
    except OSError:
        return False
    finally:
        os.close(fd)


# ... or, of a folder, only its sub-folders not hidden (a name not starting with "."),
# those named in `skip` aside: "folders <skip, /-joined> <digest> <signature then>",
# units apart, which holds while the folder looks as it did, else while that set is the
# same (a cache file its app rewrites beside them, a hidden folder, changes nothing)
_FOLDERS = "folders\x1f"


def note_folders(
    path: str | os.PathLike[str], skip: Iterable[str] = (), look: str | None = None
) -> None:
    """A folder a parse needed only the sub-folders of, not hidden and not named in
    `skip`: the parse is read again once one of those comes or goes, not when a file or
    a hidden folder does. `look`: its `read_signature` when the parse listed it; one
    changed since is noted as that, which no longer holds (its sub-folders now may not
    be those the parse used)."""
    if _depending is not None:
        name = os.fspath(path)
        now = read_signature(name)
        if look is not None and look != now:
            if name not in _depending and len(_depending) < MAX_DEPENDED:
                _depending[name] = look
            return
        if name not in _depending and len(_depending) < MAX_DEPENDED:
            skipped = "/".join(skip)  # no name holds it
            digest = _folders_digest(name, skipped, now)
            _depending[name] = (
                "\x1f".join((_FOLDERS[:-1], skipped, digest, now))
                if now != ABSENT and digest
                else now
            )


_LISTED: dict[
    tuple[str, str, str], str
] = {}  # per process: many parses note one folder


def _folders_digest(path: str, skipped: str, now: str) -> str:
    """A digest of a folder's sub-folders but hidden ones and those in `skipped`, the
    folder looking as `now` (`read_signature`); "" where it cannot be listed."""
    key = (path, skipped, now)
    if key in _LISTED:
        return _LISTED[key]
    # kept by its look only once that is settled: a folder changed again in its tick
    # looks the same, and its sub-folders may not be
    keep = settled_look(now, time.time_ns()) == now
    skip = set(skipped.split("/"))
    try:
        with os.scandir(path) as listing:
            names = sorted(
                entry.name
                for entry in listing
                if not entry.name.startswith(".")
                and entry.name not in skip
                and entry.is_dir()
            )
    except OSError:
        return ""
    digest = _digest("\x00".join(names).encode("utf-8", "surrogateescape"))
    if keep:
        if len(_LISTED) >= 64:
            _LISTED.clear()
        _LISTED[key] = digest
    return digest


def _weak(signature: str) -> bool:
    return (
        signature == PRESENT
        or signature.startswith(_HEAD)
        or signature.startswith(_START)
        or signature.startswith(_FOLDERS)
    )


def holds(signature: str, now: str, path: str = "") -> bool:
    """Whether a file noted for a parse as `signature` still gives the parse what it
    read, looking as `now` (`read_signature`) does; `path`, the file, for a note of
    its first bytes."""
    if now == signature:
        return True
    if now == ABSENT:
        return False
    if signature == PRESENT:
        return True
    if signature.startswith(_FOLDERS):
        skipped, digest, then = signature[len(_FOLDERS) :].split("\x1f", 2)
        return then == now or (
            bool(path) and _folders_digest(path, skipped, now) == digest
        )
    if signature.startswith(_START):
        length, digest, then = signature[len(_START) :].split(" ", 2)
        return then == now or (bool(path) and _starts_with(path, int(length), digest))
    if signature.startswith(_HEAD):
        inode, _, length = signature[len(_HEAD) :].partition(" ")
        size, _, rest = now.partition(" ")
        return rest.split(" ")[1] == inode and int(size) >= int(length)
    return False


@contextmanager
def depending() -> Iterator[dict[str, str]]:
    """Note every file opened or looked for inside the block (a parse's), with how it
    looked then (`read_signature`): the index reads the parsed file again when one of
    them changes, comes or goes, as what it listed came from them too."""
    global _depending
    outer, _depending = _depending, {}
    try:
        yield _depending
    finally:
        _depending = outer


def read_again(depended: Iterable[tuple[str, str]], looks: dict[str, str]) -> bool:
    """Whether one of the files a parse read or looked for (`depending`: path, how it
    looked) looks otherwise now; `looks` holds each path's look within one run, so that
    a file many parses read is stat'ed once."""
    for path, signature in depended:
        now = looks.get(path)
        if now is None:
            now = looks[path] = read_signature(path)
        if not holds(signature, now, path):
            return True
    return False


@contextmanager
def not_depending() -> Iterator[None]:
    """Note no file read inside the block as a parse's: reads an adapter keeps (a cache
    of every folder's ids, fixed when each was made) for many parses, which tie none of
    them to those files."""
    global _depending
    outer, _depending = _depending, None
    try:
        yield
    finally:
        _depending = outer


def note_refused(path: str | os.PathLike[str]) -> None:
    """Called by `files` when the system refuses to open a file; free when nothing records."""
    if _refusals is not None:
        _refusals[os.fspath(path)] = None


@contextmanager
def refusals() -> Iterator[dict[str, None]]:
    """Note every file the system refuses to open inside the block (a parse's): what the
    index read depended on, and may read once they open."""
    global _refusals
    outer, _refusals = _refusals, {}
    try:
        yield _refusals
    finally:
        _refusals = outer


def note_opened(path: str | os.PathLike[str]) -> None:
    """Called by `files` and `databases` when they open a file to read it; free when
    nothing records."""
    if _openings is not None:
        _openings[os.fspath(path)] = None


@contextmanager
def openings() -> Iterator[dict[str, None]]:
    """Note every file opened inside the block (a session's read for its usage sums): the
    files its sums came from, its own and any beside it (a log another file names), whose
    `side` then tells whether the sums still hold (`sides_hold`)."""
    global _openings
    outer, _openings = _openings, {}
    try:
        yield _openings
    finally:
        if outer is not None:  # an enclosing record holds these too
            outer.update(_openings)
        _openings = outer


def note_listing(directory: str | os.PathLike[str], nested: bool = False) -> None:
    """Called by `folders.entries` before it lists a folder; free when nothing records."""
    if _recording is not None:
        _recording.listing(os.fspath(directory), nested)


def note_read(path: str | os.PathLike[str]) -> None:
    """Called by `files.read_small`/`read_json_file`: a file read to decide what to list is
    compared like a listed folder, on mtime and inode (with the same racy rule)."""
    if _recording is not None:
        _recording.listing(os.fspath(path), False)


def note_probe(path: str | os.PathLike[str]) -> None:
    """Called by `folders.is_dir`/`is_file`/`exists` before they answer."""
    if _recording is not None:
        _recording.probe(os.fspath(path))


def not_recording() -> None:
    """Note nothing from here on in this process: a worker forked while its parent's scan
    is recorded (index parsing starts before the scan ends) inherits that recording, and
    would otherwise stat every file it reads or probes again, into a copy no one reads."""
    global _recording
    _recording = None


@contextmanager
def recording() -> Iterator[dict[str, Noted]]:
    """Note every path a scan lists or probes inside the block; the dict fills as it runs."""
    global _recording
    outer, _recording = _recording, _Notes()
    try:
        yield _recording.paths
    finally:
        _recording = outer


@contextmanager
def paused() -> Iterator[None]:
    """Note nothing inside the block: a read a scan makes for the index itself (a context
    file's digest), which a warm listing compares on its own."""
    global _recording
    outer, _recording = _recording, None
    try:
        yield
    finally:
        _recording = outer


class RecordingEnviron(Mapping[str, str]):
    """An environment that remembers which variables were looked up, and what they held.

    A source's `locate` reads its overrides through `Home.env_dir`/`Home.xdg`; when none of
    those values changed, it would find the same folder again.
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        self.read: dict[str, str | None] = {}

    def __getitem__(self, name: str) -> str:
        value = self._environ.get(name)
        self.read[name] = value
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return self.get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._environ)

    def __len__(self) -> int:
        return len(self._environ)


def environ_key(read: Mapping[str, str | None]) -> bytes:
    """The variables a `locate` looked up, and their values (None: unset), as one blob."""
    return "\x00".join(
        name if value is None else f"{name}={value}"
        for name, value in sorted(read.items())
    ).encode("utf-8", "surrogateescape")


def environ_holds(key: bytes, environ: Mapping[str, str]) -> bool:
    """Whether every variable in `key` still has the value it had."""
    for item in key.decode("utf-8", "surrogateescape").split("\x00"):
        if item:
            name, sep, value = item.partition("=")
            if environ.get(name) != (value if sep else None):
                return False
    return True
