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
    """One index per home and set of folder overrides, so a copied home never mixes with
    yours, and per build of sessdex (`code_stamp`): what an older reader made of a file
    that has not changed since is not kept past an upgrade."""
    return f"{home_key(home_path, environ)}-{code_stamp()}.sqlite"


def home_key(home_path: str, environ: Mapping[str, str]) -> str:
    """`index-<hash>`: what every index of this home's names start with. Only the
    variables the sources read count: others that merely look like folders change from
    one shell to the next (pyenv's shims export PYENV_DIR, the working folder)."""
    from .sources import OVERRIDES

    relevant = sorted(
        f"{name}={value}"
        for name in OVERRIDES
        if (value := environ.get(name)) is not None
    )
    key = "\x00".join([home_path, *relevant]).encode("utf-8", "surrogateescape")
    return f"index-{hashlib.sha256(key).hexdigest()[:12]}"


_STAMP: str | None = None


def code_stamp() -> str:
    """Which build of sessdex this is: the names, sizes and times of its modules and data
    files, hashed. An upgrade or an edit changes it; a stat of each file, once a process."""
    global _STAMP
    if _STAMP is None:
        root = os.path.dirname(os.path.abspath(__file__))
        parts: list[str] = []
        folders = [root]
        while folders:
            folder = folders.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            folders.append(entry.path)
                    elif entry.name.endswith((".py", ".json")):
                        st = entry.stat()
                        name = os.path.relpath(entry.path, root)
                        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
                except OSError:
                    continue
        _STAMP = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]
    return _STAMP
