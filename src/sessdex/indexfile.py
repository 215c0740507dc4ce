"""Where a home's index lives, worked out with the standard library alone.

Both the index and the quick listing path (`quick`) need the file's name before anything
heavy is imported, so this module uses only `os`, `sys` and `hashlib`.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping

SCHEMA_VERSION = 3  # the number of migrations in `index.MIGRATIONS`


def cache_folder() -> str:
    """sessdex's cache folder: below `SESSDEX_HOME` when set, else the user cache dir."""
    root = os.environ.get("SESSDEX_HOME")
    if root:
        return os.path.join(os.path.expanduser(root), "cache")
    if sys.platform.startswith("linux"):
        # platformdirs' XDG rule (tests compare the two); importing it costs more than a
        # warm listing may take
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        return os.path.join(base or os.path.expanduser("~/.cache"), "sessdex")
    from platformdirs import user_cache_dir

    return user_cache_dir("sessdex", appauthor=False)


def index_name(home_path: str, environ: Mapping[str, str]) -> str:
    """One index per home and set of folder overrides, so a copied home never mixes with yours."""
    relevant = sorted(
        f"{name}={value}"
        for name, value in environ.items()
        if name.isupper() and name.endswith(("_HOME", "_DIR"))
    )
    key = "\x00".join([home_path, *relevant]).encode("utf-8", "surrogateescape")
    return f"index-{hashlib.sha256(key).hexdigest()[:12]}.sqlite"
