"""The digest of a JSON file's bytes with each string value of one member blanked: what an
app's context file means to its sessions where the app rewrites that member at every
start (`sources.CONTEXT_DIGESTS`). No JSON library, and nothing of a source, so that a
warm list can tell that rewrite without loading the source.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a warm list loads this module, never typing
if TYPE_CHECKING:
    from typing import BinaryIO


def digest(path: str, name: bytes, limit: int) -> bytes | None:
    """The digest of the file at `path`, each string value of a `name` member left out;
    None where it cannot be read, is not a regular file, or is bigger than `limit`."""
    import re

    from ..indexfile import sha256_of

    # a `name` member whose value is a string that is valid JSON whatever it holds (no
    # control character, no unknown escape): another such string leaves the document as
    # valid as it was, and every other member as it was. A quote that opens the name may
    # be an escaped one inside a key (`"x\"name"`): a member the app reads no more.
    member = (
        rb'"' + re.escape(name) + rb'"[ \t\r\n]*:[ \t\r\n]*'
        rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
    )
    try:
        with _open_regular(path) as stream:
            data = stream.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return sha256_of(re.sub(member, b'"' + name + b'":""', data))


def _open_regular(path: str) -> BinaryIO:
    """`path` opened to read, without waiting: a pipe put in the file's place (stat'ed
    as a file a moment before) raises, where a plain open would wait for a writer.
    `files.open_regular`'s way, without its imports (a warm list loads this alone)."""
    import os
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        return open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
