"""Writing an export to the file `-o` names, whole or not at all.

The export is written to a new file beside it and renamed over it once complete: a
Ctrl-C, a full disk or a session that cannot be read halfway leaves the file as it was
(an earlier export stays whole) and no part-written one. A name that is no plain file
(a named pipe) or is reached through /dev or /proc (`/dev/stdout`) is written to as it
is; any other link is followed, and the file it points to replaced, the link kept.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from typing import IO

from ..errors import SessdexError, typed


def write_file(
    path: str, chunks: Iterable[str] | Iterable[bytes], *, binary: bool
) -> int:
    """Write `chunks` to `path`; the size of the plain file it replaced (0 where there
    was none, or it was empty). The OS's refusal to open, write or close it (a
    read-only disk, a full one, /proc) is said as an error about that path; a failure
    to read the session is not mistaken for one."""

    def refusal(error: OSError) -> SessdexError:
        return SessdexError(
            f"could not write {typed(path)}: {error.strerror or error}."
        )

    target = _replaceable(path)
    temporary = None
    replaced = 0
    if target is not None:
        try:
            found = os.stat(target)
        except OSError:
            mode: int | None = None
        else:
            mode = found.st_mode
            replaced = found.st_size if stat.S_ISREG(mode) else 0
        if mode is None or stat.S_ISREG(mode):
            temporary = _new_beside(target, mode)
    try:
        handle = _open(temporary or path, binary)
    except OSError as error:
        _remove(temporary)
        raise refusal(error) from None
    try:
        for chunk in chunks:
            try:
                handle.write(chunk)  # type: ignore[arg-type]
            except OSError as error:
                raise refusal(error) from None
        try:
            handle.close()
            if temporary is not None and target is not None:
                os.replace(temporary, target)
                temporary = None
        except OSError as error:
            raise refusal(error) from None
    finally:  # a reading error, a Ctrl-C: the file stays as it was
        if not handle.closed:
            with contextlib.suppress(OSError):  # already said, or a reading error
                handle.close()
        _remove(temporary)
    return replaced


def _replaceable(path: str) -> str | None:
    """The file `path` names, its links followed; None for one reached through /dev or
    /proc (`-o /dev/stdout`, `/dev/fd/3`: whatever the shell opened there, a file it
    appends to among them, is written to in place, never replaced)."""
    current = os.path.abspath(path)
    for _ in range(40):  # a loop of links: the OS says so when it is opened
        if current.startswith(("/dev/", "/proc/")):
            return None
        if not os.path.islink(current):
            break
        link = os.readlink(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
    target = os.path.realpath(current)
    return None if target.startswith(("/dev/", "/proc/")) else target


def _new_beside(target: str, mode: int | None) -> str | None:
    """A new, empty file in `target`'s folder, with the permissions `target` has (a new
    file's, the umask applied, where there is none); None where the folder takes no new
    file (the export is then written to `target` itself)."""
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.part")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        return None
    os.close(descriptor)
    if mode is not None:
        with contextlib.suppress(OSError):  # a folder that keeps no modes: left as made
            os.chmod(temporary, stat.S_IMODE(mode))
    return temporary


def _open(path: str, binary: bool) -> IO[str] | IO[bytes]:
    if binary:
        return open(path, "wb")
    # half an emoji (a lone surrogate, which JSON allows) has no UTF-8: written as `?`
    return open(path, "w", encoding="utf-8", errors="replace")


def _remove(path: str | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            os.remove(path)
