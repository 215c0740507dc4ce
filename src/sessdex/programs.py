"""What a program on PATH is, told without running it: where its file really lies (links
resolved), what a small launcher (a script, an npm shim) names, what a wrapper starts
(Nix's makeWrapper and makeBinaryWrapper, a Homebrew exec script), and whether a large
one is a Go program or a Bun-compiled one. Bounded reads of the program's head and tail
only; the sources decide what makes a program their app's own."""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable
from pathlib import Path

SCRIPT_LIMIT = 64 * 1024  # a launcher is far smaller; a compiled program far larger
HEAD = 64 * 1024  # a Mach-O's load commands, an ELF's program headers, a PE's sections
TAIL = 64 * 1024  # an ELF's section names and a Bun program's trailer end its file
_NOTES = 64 * 1024
_PT_NOTE = 4
_NT_GO_BUILD_ID = 4  # the note Go's linker writes in every ELF program
BINARY_WRAPPER_LIMIT = 256 * 1024  # a makeBinaryWrapper program is some 16 to 70 KB
_HOPS = 4  # a wrapper of a wrapper (a Homebrew script starting a Nix one) and no more

# a launcher's line that hands its own arguments to one program by its full path (Nix's
# makeWrapper: `exec -a "$0" "/nix/store/…/.goose-wrapped"  "$@"`; Homebrew's exec
# scripts: `VAR=x exec "/…/libexec/goose" "$@"`), options of its own (`--add-flags`)
# allowed between; a second path there is a script for an interpreter the path names
_EXEC = re.compile(
    rb"""^[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*exec[ \t]+"""
    rb"""(?:-a[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\S+)[ \t]+)?"""
    rb"""(?:"(/[^"$`\\\n]+)"|'(/[^'\n]+)'|(/[^\s"'$`\\;&|]+))"""
    rb"""(?:[ \t]+-[^\s/]*)*[ \t]+"\$@"[ \t]*$""",
    re.MULTILINE,
)
# the docstring nixpkgs' makeBinaryWrapper compiles into its program: the command that
# made it, the wrapped program's path first
_C_WRAPPER = re.compile(rb"\nmakeCWrapper (/[^\s\\\x00]+)")


def real(path: str) -> Path:
    """The program's own file, links resolved (an npm or Homebrew link on PATH)."""
    return Path(os.path.realpath(path))


def lies_in(path: str, folders: Iterable[str]) -> bool:
    """Whether the program's own file lies below a folder named one of `folders` (its
    package's, its installer's)."""
    parts = real(path).parts[:-1]
    return any(folder in parts for folder in folders)


def launcher_names(path: str, words: Iterable[str]) -> bool:
    """Whether the program is a small text launcher (a script, an npm `.cmd` shim, a
    wrapper) whose text names one of `words` (the package it starts)."""
    head = _read(real(path), 0, SCRIPT_LIMIT + 1)
    if head is None or len(head) > SCRIPT_LIMIT or b"\x00" in head:
        return False
    return any(word.encode() in head for word in words)


def is_launcher(path: str) -> bool:
    """Whether the program is a small text file (a script), not a compiled one."""
    head = _read(real(path), 0, SCRIPT_LIMIT + 1)
    return head is not None and len(head) <= SCRIPT_LIMIT and b"\x00" not in head


def wrapped(path: str) -> str | None:
    """The program a wrapper starts, wrappers of wrappers followed (a few): the full path
    a small launcher `exec`s with its own arguments, or the one a Nix makeBinaryWrapper
    program holds. None where `path` is no such wrapper, or what it starts is no file."""
    found: str | None = None
    seen = {real(path)}
    for _ in range(_HOPS):
        target = _target(real(found or path))
        if target is None or not os.path.isfile(target) or real(target) in seen:
            break
        seen.add(real(target))
        found = target
    return found


def _target(file: Path) -> str | None:
    """What `file` starts, where it is a wrapper (see `wrapped`)."""
    head = _read(file, 0, BINARY_WRAPPER_LIMIT + 1)
    if head is None:
        return None
    if len(head) <= SCRIPT_LIMIT and b"\x00" not in head:
        match = _EXEC.search(head)
        if match is None:
            return None
        words = match.group(1) or match.group(2) or match.group(3)
    elif len(head) <= BINARY_WRAPPER_LIMIT and (
        head.startswith(b"\x7fELF") or head[:4] in _MACHO
    ):
        match = _C_WRAPPER.search(head)
        if match is None:
            return None
        words = match.group(1)
    else:
        return None
    return os.fsdecode(words)


def is_go(path: str) -> bool:
    """Whether the program was built by Go (its ELF build-id note, its Mach-O's Go
    sections, or the build info Go's linker puts at the start of a PE's data section)."""
    file = real(path)
    head = _read(file, 0, HEAD) or b""
    if head.startswith(b"\x7fELF"):
        return _elf_go(file, head)
    if head[:4] in _MACHO:
        return b"__gopclntab" in head or b"__go_buildinfo" in head
    if head.startswith(b"MZ"):
        return _pe_go(file, head)
    return False


def is_bun(path: str) -> bool:
    """Whether the program is one `bun build --compile` made: its code appended after
    the trailer Bun reads it by (ELF), or in a section of its own (Mach-O, PE)."""
    file = real(path)
    head = _read(file, 0, HEAD) or b""
    if head.startswith(b"\x7fELF"):
        try:
            size = file.stat().st_size
        except OSError:
            return False
        tail = _read(file, max(size - TAIL, 0), TAIL) or b""
        return b"\n---- Bun! ----\n" in tail or b"\x00.bun\x00" in tail
    if head[:4] in _MACHO:
        return b"__BUN\x00" in head
    if head.startswith(b"MZ"):
        return b".bun\x00" in head
    return False


_MACHO = frozenset(
    {
        b"\xcf\xfa\xed\xfe",
        b"\xce\xfa\xed\xfe",
        b"\xfe\xed\xfa\xcf",
        b"\xfe\xed\xfa\xce",
        b"\xca\xfe\xba\xbe",  # universal: the first slice's load commands follow later
    }
)


def _elf_go(file: Path, head: bytes) -> bool:
    """Whether one of the ELF's note segments holds Go's build id."""
    wide = head[4:5] == b"\x02"
    order = "<" if head[5:6] == b"\x01" else ">"
    try:
        if wide:
            (table,) = struct.unpack_from(order + "Q", head, 32)
            size, count = struct.unpack_from(order + "HH", head, 54)
        else:
            (table,) = struct.unpack_from(order + "I", head, 28)
            size, count = struct.unpack_from(order + "HH", head, 42)
        entries = _read(file, table, size * min(count, 128)) or b""
        for n in range(len(entries) // size if size else 0):
            entry = entries[n * size : (n + 1) * size]
            (kind,) = struct.unpack_from(order + "I", entry, 0)
            if kind != _PT_NOTE:
                continue
            if wide:
                (offset,) = struct.unpack_from(order + "Q", entry, 8)
                (length,) = struct.unpack_from(order + "Q", entry, 32)
            else:
                (offset,) = struct.unpack_from(order + "I", entry, 4)
                (length,) = struct.unpack_from(order + "I", entry, 16)
            notes = _read(file, offset, min(length, _NOTES)) or b""
            if _names_go(notes, order):
                return True
    except struct.error:
        return False
    return False


def _pe_go(file: Path, head: bytes) -> bool:
    """Whether the PE's first writable data section (`.data`) holds Go's build info
    where Go's own reader looks for it: 16-aligned, in its first 64 KB."""
    try:
        (at,) = struct.unpack_from("<I", head, 0x3C)
        if head[at : at + 4] != b"PE\x00\x00":
            return False
        count, _, _, _, options = struct.unpack_from("<HIIIH", head, at + 6)
        table = at + 24 + options
        for n in range(min(count, 96)):
            size, offset = struct.unpack_from("<II", head, table + 40 * n + 16)
            (flags,) = struct.unpack_from("<I", head, table + 40 * n + 36)
            if flags & _PE_CODE or flags & _PE_DATA_WRITABLE != _PE_DATA_WRITABLE:
                continue
            # Go's reader takes the first such section (initialised, read-write)
            data = _read(file, offset, min(size, _GO_BUILDINFO_SEARCH)) or b""
            found = data.find(_GO_BUILDINFO)
            while found >= 0 and found % 16:
                found = data.find(_GO_BUILDINFO, found + 1)
            return found >= 0
    except struct.error:
        return False
    return False


_GO_BUILDINFO = b"\xff Go buildinf:"
_GO_BUILDINFO_SEARCH = 64 * 1024
_PE_CODE = 0x20
_PE_DATA_WRITABLE = 0x80000040  # initialised data, writable


def _names_go(notes: bytes, order: str) -> bool:
    at = 0
    while at + 12 <= len(notes):
        name_size, desc_size, kind = struct.unpack_from(order + "III", notes, at)
        name = notes[at + 12 : at + 12 + name_size].rstrip(b"\x00")
        if name == b"Go" and kind == _NT_GO_BUILD_ID:
            return True
        at += 12 + (name_size + 3) // 4 * 4 + (desc_size + 3) // 4 * 4
    return False


def _read(file: Path, offset: int, size: int) -> bytes | None:
    from .files import open_regular  # a pipe on PATH is refused, never waited on

    try:
        with open_regular(file) as stream:
            stream.seek(offset)
            return stream.read(size)
    except (OSError, ValueError):
        return None
