"""A first pass's state over a big file that only grows, kept between runs.

A reader that must pass over a whole transcript before it can emit anything (to learn
which branches a rewind left behind, say) spends seconds a GB on it, every time the
session is opened. Transcripts are append-only: the state after the first N bytes stays
true while those bytes are unchanged, so the next run takes it from here and reads only
what was added since.

An entry is trusted only for the same file (device and inode), at least as long as it
was, whose bytes still hash alike where they were sampled (the start, the end, and
sixteen spots between), written by this build of sessdex (`code_stamp`). Anything else,
or any error, is a miss: the caller reads the whole file as before. Entries live in
sessdex's cache folder, never beside the file; the folder is kept under
`BUDGET` bytes, the least recently used entries going first, and an entry unused for a
week goes.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from io import BufferedReader
from pathlib import Path
from typing import BinaryIO, TypeVar, cast

from .files import open_regular

MIN_SIZE = 16 << 20  # smaller files are read whole faster than an entry is checked
BUDGET = 256 << 20  # the folder's size, at most
UNUSED = 7 * 86400  # an entry not used for a week goes (its transcript may be gone)
_SAMPLES = 16  # spots between the ends whose bytes are hashed
_WINDOW = 4096  # bytes hashed at each spot
_MAGIC = b"sessdex-pass 1\n"
_HEADER = 512  # bytes that hold an entry's header (about 200) and its blank line
_PIECE = 1 << 20  # bytes an entry is read by
_Bytes = bytes | bytearray | memoryview
_T = TypeVar("_T")


def load(
    path: Path, kind: str, stream: BinaryIO | None = None
) -> tuple[int, bytearray] | None:
    """(offset, state) kept for `path`'s first `offset` bytes by pass `kind`, if they are
    unchanged; else None. With `stream`, the file as `stream` reads it is checked (the
    one the caller reads on: `path` may name another file by now); its position moves."""
    return load_with(path, kind, read_exactly, stream)


def load_with(
    path: Path,
    kind: str,
    parse: Callable[[BinaryIO, int], _T],
    stream: BinaryIO | None = None,
) -> tuple[int, _T] | None:
    """`load`, the state given to `parse` as the entry's file at the state's start and
    the state's size, once the whole of it was found intact: a caller reads it into its
    own arrays, never holding it whole beside them. ValueError from `parse` is a miss."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    try:
        if stream is None:
            with open_regular(path) as own:
                return load_with(path, kind, parse, own)
        info = os.fstat(stream.fileno())
        if info.st_size < MIN_SIZE:
            return None  # never kept: not worth a look
        entry = _entry(path, kind)
        try:
            kept = open_regular(entry)
        except FileNotFoundError:
            return None
        with kept:
            # the header first: an entry for another file is not read whole
            header, found, _ = kept.read(_HEADER).partition(b"\n\n")
            fields = header.removeprefix(_MAGIC).split(b" ")
            if not found or not header.startswith(_MAGIC) or len(fields) != 5:
                return None
            device, inode, offset = (int(field) for field in fields[:3])
            if (device, inode) != (info.st_dev, info.st_ino) or offset > info.st_size:
                return None
            if fields[3] != _digest(stream, offset).encode():
                return None
            # checked in pieces first (the entry is read twice, never held whole)
            start = len(header) + 2
            kept.seek(start)
            digest = hashlib.sha256()
            while piece := kept.read(_PIECE):
                digest.update(piece)
            if fields[4] != digest.hexdigest().encode():
                return None  # the entry itself was damaged
            size = os.fstat(kept.fileno()).st_size - start
            kept.seek(start)
            state = parse(kept, size)
        with contextlib.suppress(OSError):
            os.utime(entry)  # used now: the budget evicts the least recently used
        return offset, state
    except (OSError, ValueError):
        return None


def read_exactly(entry: BinaryIO, size: int) -> bytearray:
    """The next `size` bytes of `entry`, read in pieces into one buffer (a read of it
    whole would hold it twice); ValueError if it ends before."""
    data = bytearray(size)
    got = 0
    reader = cast("BufferedReader", entry)  # `open_regular` gives one
    with memoryview(data) as view:  # read into it: no piece held beside it
        while got < size and (count := reader.readinto(view[got : got + _PIECE])):
            got += count
    if got != size:
        raise ValueError("the entry ends early")
    return data


def save(
    path: Path,
    kind: str,
    offset: int,
    state: _Bytes | Sequence[_Bytes],
    stream: BinaryIO | None = None,
) -> None:
    """Keep `state`, the pass's state after `path`'s first `offset` bytes (as `stream`,
    when given, read them: the same file even if it was replaced since). Quietly does
    nothing for a small file or when the cache folder cannot be written. A state given
    in pieces is kept as their bytes end to end, never joined here (a copy of it)."""
    import hashlib

    if offset < MIN_SIZE:
        return
    try:
        if stream is None:
            with open_regular(path) as own:
                return save(path, kind, offset, state, own)
        info = os.fstat(stream.fileno())
        if info.st_size < offset:
            return
        digest = _digest(stream, offset)
        entry = _entry(path, kind)
        entry.parent.mkdir(parents=True, exist_ok=True)
        # a bytearray or a view is one piece, not a sequence of ints
        pieces = [state] if isinstance(state, (bytes, bytearray, memoryview)) else state
        digest_of_state = hashlib.sha256()
        for piece in pieces:
            digest_of_state.update(piece)
        kept = digest_of_state.hexdigest()
        header = f"{info.st_dev} {info.st_ino} {offset} {digest} {kept}".encode()
        partial = entry.with_name(f"{entry.name}.{os.getpid()}.partial")
        with open(partial, "wb") as out:  # a write a piece: the state is not copied
            out.write(_MAGIC + header + b"\n\n")
            for piece in pieces:
                out.write(piece)
        os.replace(partial, entry)  # a reader sees the old entry or the new, never half
        _keep_budget(entry.parent, keep=entry.name)
    except OSError:
        pass


def _entry(path: Path, kind: str) -> Path:
    import hashlib

    from .indexfile import code_stamp

    name = os.fsencode(os.path.abspath(path))
    key = hashlib.sha256(b"\x00".join([kind.encode(), name, code_stamp().encode()]))
    return _folder() / key.hexdigest()[:32]


def _digest(stream: BinaryIO, offset: int) -> str:
    """A hash of the bytes at the start, the end and `_SAMPLES` spots of [0, offset)."""
    import hashlib

    spots = {0, max(0, offset - _WINDOW)}
    spots.update(offset * n // (_SAMPLES + 1) for n in range(1, _SAMPLES + 1))
    digest = hashlib.sha256(str(offset).encode())
    for spot in sorted(spots):
        stream.seek(spot)
        digest.update(stream.read(min(_WINDOW, offset - spot)))
    return digest.hexdigest()


def usage() -> tuple[int, int]:
    """(entries, bytes) kept, for `doctor`."""
    from .databases import folder_size

    folder = _folder()
    try:
        count = sum(1 for _ in os.scandir(folder))
    except OSError:
        return 0, 0
    return count, folder_size(folder)


def _folder() -> Path:
    from .paths import cache_dir

    return cache_dir() / "passes"


def _keep_budget(folder: Path, keep: str) -> None:
    """Delete entries unused for `UNUSED` seconds, then the least recently used (never
    `keep`) while over `BUDGET`."""
    entries = []
    for item in os.scandir(folder):
        try:
            info = item.stat(follow_symlinks=False)
        except OSError:
            continue
        entries.append((info.st_mtime, info.st_size, item.name))
    total = sum(size for _, size, _ in entries)
    stale = time.time() - UNUSED
    for used, size, name in sorted(entries):
        if total <= BUDGET and used >= stale:
            return
        if name != keep:
            try:
                os.unlink(folder / name)
            except OSError:
                continue
            total -= size
