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
_private: Path | None = None  # where the index is kept meanwhile, from run to run


def cache_dir() -> Path:
    """Rebuildable state: the index and database snapshots.

    Where that folder cannot be created or written (a read-only home, a container),
    a temporary folder stands in for this run, removed at exit, with a warning: every
    command still works, only nothing is kept for the next one but the index
    (`index_dir`).
    """
    from .indexfile import cache_folder

    global _fallback, _private
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
    _private = private_folder()
    logging.getLogger(__name__).warning(
        "sessdex cannot keep its index in %s (%s): %s; set SESSDEX_HOME to a "
        "writable folder",
        path,
        problem,
        "using a temporary one for this run"
        if _private is None
        else f"keeping it in {_private}, which the system may clear",
    )
    return _fallback


def index_dir() -> Path:
    """The folder of the index: the cache folder, or where that cannot be written, a
    folder of this user's alone below the temporary folder, where the next run finds it
    (an index rebuilt from nothing each run costs seconds over a big home). Database
    snapshots, which may weigh GBs, are not kept there (/tmp may be memory)."""
    folder = cache_dir()
    return _private if _fallback is not None and _private is not None else folder


def private_folder() -> Path | None:
    """`<temporary folder>/sessdex-<uid>`, made if missing, where it is this user's alone:
    a folder, not a link, owned by this user and closed to others (0700), in a temporary
    folder that no one else may take it out of (sticky, as /tmp is, or open to none but
    its owner, this user or root). None where any of it is not so: another user's
    folder, or one others could have swapped in, is never used."""
    import contextlib
    import stat
    import tempfile

    if not hasattr(os, "geteuid"):  # Windows: the temporary folder is the user's own
        return None
    uid = os.geteuid()
    base = tempfile.gettempdir()
    folder = Path(base, f"sessdex-{uid}")
    try:
        above = os.stat(base)
        shared = above.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if above.st_uid not in (0, uid) or (
            shared and not above.st_mode & stat.S_ISVTX
        ):
            return None
        with contextlib.suppress(FileExistsError):  # checked below, as a made one
            os.mkdir(folder, 0o700)
        made = os.lstat(folder)
    except OSError:
        return None
    if (
        not stat.S_ISDIR(made.st_mode)
        or made.st_uid != uid
        or stat.S_IMODE(made.st_mode) & 0o077
    ):
        return None
    return folder


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
