"""sessdex's own state: where its cache and data live. Nothing here touches an agent's folder."""

from __future__ import annotations

from pathlib import Path


def state_root() -> Path | None:
    """`SESSDEX_HOME`, when set: every sessdex file goes below it (tests, portable use);
    a relative one below the user's home (`indexfile.state_home`)."""
    from .indexfile import state_home

    value = state_home()
    return Path(value) if value else None


_fallback: Path | None = None  # this process's stand-in for a cache dir it cannot write
_private: Path | None = None  # where the index is kept meanwhile, from run to run
_problem: str | None = None  # why the cache folder could not be used


def cache_dir() -> Path:
    """Rebuildable state: the index and database snapshots.

    Where that folder cannot be created or written (a read-only home, a container),
    a temporary folder stands in for this run, removed at exit, with a warning: every
    command still works, only nothing is kept for the next one but the index
    (`index_dir`).
    """
    from .indexfile import (
        cache_folder,
        cache_problem,
        private_folder,
        say_kept_elsewhere,
    )

    global _fallback, _private, _problem
    if _fallback is not None:
        return _fallback
    folder = cache_folder()
    problem = _problem = cache_problem(folder)
    if problem is None:
        return Path(folder)
    _fallback = stand_in("sessdex-cache-")
    private = private_folder()
    _private = None if private is None else Path(private)
    say_kept_elsewhere(folder, problem, private)
    return _fallback


def index_dir() -> Path:
    """The folder of the index: the cache folder, or where that cannot be written, a
    folder of this user's alone below the temporary folder, where the next run finds it
    (an index rebuilt from nothing each run costs seconds over a big home). Database
    snapshots, which may weigh GBs, are not kept there (/tmp may be memory)."""
    folder = cache_dir()
    return _private if _fallback is not None and _private is not None else folder


def cache_problem() -> str | None:
    """Why the cache folder cannot be written this run (its files are then in temporary
    folders), or None."""
    return _problem if cache_dir() == _fallback else None


def index_kept() -> bool:
    """Whether the index outlives this run: False where a temporary one stands in."""
    return cache_dir() != _fallback or _private is not None


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
