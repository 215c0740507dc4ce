"""What Kimi CLI's `kimi.json` means to its sessions, as a digest: the file's bytes without
the value of `last_session_id`, which kimi-cli rewrites at every session's start.

Apart from `kimi.py`, and with no JSON library, so that a warm list can tell that rewrite
without loading the source (`sources.CONTEXT_DIGESTS`). Any other difference, even one a
parse would not see (spacing, the order of keys), counts as a change: the sessions are
read again, as they are when the work dirs change.
"""

from __future__ import annotations

# the most of kimi.json read (`kimi._work_dirs` reads no more)
LIMIT = 16 * 1024 * 1024

# a `last_session_id` member whose value is a string that is valid JSON whatever it holds
# (no control character, no unknown escape): another such string leaves the document as
# valid as it was, and every other member as it was. A quote that opens the name may be
# an escaped one inside a key (`"x\"last_session_id"`): a member kimi reads no more.
_MEMBER = (
    rb'"last_session_id"[ \t\r\n]*:[ \t\r\n]*'
    rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
)


def digest(path: str) -> bytes | None:
    """The digest of the file at `path`, each `last_session_id` string left out; None
    where it cannot be read, or is bigger than `kimi._work_dirs` reads."""
    import re

    from ..indexfile import sha256_of

    try:
        with open(path, "rb") as stream:
            data = stream.read(LIMIT + 1)
    except OSError:
        return None
    if len(data) > LIMIT:
        return None
    return sha256_of(re.sub(_MEMBER, b'"last_session_id":""', data))
