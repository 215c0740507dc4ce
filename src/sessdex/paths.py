"""sessdex's own state: where its cache and data live. Nothing here touches an agent's folder."""

from __future__ import annotations

import os
from pathlib import Path


def state_root() -> Path | None:
    """`SESSDEX_HOME`, when set: every sessdex file goes below it (tests, portable use);
    a relative one below the user's home (`indexfile.state_home`)."""
    from .indexfile import state_home

    value = state_home()
    return Path(value) if value else None


_fallback: Path | None = None  # this process's stand-in for a cache dir it cannot write


def cache_dir() -> Path:
    """Rebuildable state: the index and database snapshots.

    Where that folder cannot be created or written (a read-only home, a container),
    a temporary folder stands in for this run, removed at exit, with a warning: every
    command still works, only nothing is kept for the next one.
    """
    from .indexfile import cache_folder

    global _fallback
    if _fallback is not None:
        return _fallback
    path = Path(cache_folder())
    try:
        if not path.is_absolute():
            # `~` left as is (no HOME, no entry in the password database): taken as it
            # is, the index went below the working folder (an agent's folder too)
            problem = "no home folder: HOME is not set"
        else:
            path.mkdir(parents=True, exist_ok=True)
            if os.access(path, os.W_OK | os.X_OK):
                return path
            problem = "not writable"
    except OSError as error:
        problem = error.strerror or str(error)
    import logging

    _fallback = stand_in("sessdex-cache-")
    logging.getLogger(__name__).warning(
        "sessdex cannot keep its index in %s (%s): using a temporary one for "
        "this run; set SESSDEX_HOME to a writable folder",
        path,
        problem,
    )
    return _fallback


def stand_in(prefix: str) -> Path:
    """A temporary folder for state sessdex cannot keep where it belongs, removed at exit."""
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


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
