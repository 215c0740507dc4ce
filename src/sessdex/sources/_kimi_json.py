"""What Kimi CLI's `kimi.json` means to its sessions, as a digest: the file's bytes without
the value of `last_session_id`, which kimi-cli rewrites at every session's start.

Apart from `kimi.py`, and with no JSON library, so that a warm list can tell that rewrite
without loading the source (`sources.CONTEXT_DIGESTS`). Any other difference, even one a
parse would not see (spacing, the order of keys), counts as a change: the sessions are
read again, as they are when the work dirs change.
"""

from __future__ import annotations

from . import _string_blanked

# the most of kimi.json read (`kimi._work_dirs` reads no more)
LIMIT = 16 * 1024 * 1024


def digest(path: str) -> bytes | None:
    """The digest of the file at `path`, each `last_session_id` string left out; None
    where it cannot be read, or is bigger than `kimi._work_dirs` reads."""
    return _string_blanked.digest(path, b"last_session_id", LIMIT)
