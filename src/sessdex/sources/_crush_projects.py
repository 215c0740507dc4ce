"""What Crush's `projects.json` means to its projects' databases, as a digest: the file's
bytes without the value of each `last_accessed`, which Crush rewrites at every start.

Apart from `crush.py`, and with no JSON library, so that a warm list can tell that rewrite
without loading the source (`sources.CONTEXT_DIGESTS`). Any other difference, even one a
parse would not see (spacing, the order of keys), counts as a change: every project's
database is read again, as it is when a project's path or data folder changes.
"""

from __future__ import annotations

from . import _string_blanked

# the most of projects.json read (`crush._registry` reads no more)
LIMIT = 16 * 1024 * 1024


def digest(path: str) -> bytes | None:
    """The digest of the file at `path`, each `last_accessed` string left out; None where
    it cannot be read, or is bigger than `crush._registry` reads."""
    return _string_blanked.digest(path, b"last_accessed", LIMIT)
