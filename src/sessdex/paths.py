"""sessdex's own state: where its cache and data live. Nothing here touches an agent's folder."""

from __future__ import annotations

import os
from pathlib import Path


def state_root() -> Path | None:
    """`SESSDEX_HOME`, when set: every sessdex file goes below it (tests, portable use)."""
    value = os.environ.get("SESSDEX_HOME")
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """Rebuildable state: the index and database snapshots."""
    from .indexfile import cache_folder

    path = Path(cache_folder())
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    """State worth keeping (settings, exports the user asked to keep)."""
    root = state_root()
    if root is not None:
        path = root / "data"
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("sessdex", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def index_path() -> Path:
    return cache_dir() / "index.sqlite"


def snapshot_dir() -> Path:
    path = cache_dir() / "snapshots"
    path.mkdir(parents=True, exist_ok=True)
    return path
