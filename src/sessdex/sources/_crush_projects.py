"""What Crush's `projects.json` means to its projects' databases, as a digest: the file's
bytes without the value of each `last_accessed`, which Crush rewrites at every start.

Apart from `crush.py`, and with no JSON library, so that a warm list can tell that rewrite
without loading the source (`sources.CONTEXT_DIGESTS`). Any other difference, even one a
parse would not see (spacing, the order of keys), counts as a change: every project's
database is read again, as it is when a project's path or data folder changes.
"""

from __future__ import annotations

# the most of projects.json read (`crush._registry` reads no more)
LIMIT = 16 * 1024 * 1024

# a `last_accessed` member whose value is a string that is valid JSON whatever it holds
# (no control character, no unknown escape): another such string leaves the document as
# valid as it was, and every other member as it was. A quote that opens the name may be
# an escaped one inside a key (`"x\"last_accessed"`): a member Crush reads no more.
_MEMBER = (
    rb'"last_accessed"[ \t\r\n]*:[ \t\r\n]*'
    rb'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
)


def digest(path: str) -> bytes | None:
    """The digest of the file at `path`, each `last_accessed` string left out; None where
    it cannot be read, or is bigger than `crush._registry` reads."""
    import re

    from ..indexfile import sha256_of

    try:
        with open(path, "rb") as stream:
            data = stream.read(LIMIT + 1)
    except OSError:
        return None
    if len(data) > LIMIT:
        return None
    return sha256_of(re.sub(_MEMBER, b'"last_accessed":""', data))
