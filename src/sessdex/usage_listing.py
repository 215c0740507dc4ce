"""The usage files of an app whose source counts them itself (`usage_files`), listed once
and kept in the index with what the listing looked at (`freshness`): while the
environment its `locate` read and every folder and file it looked at are as they were, a
warm `usage` takes the kept list and need not load the app's source to list them again.

Not the files' sums: `usage` compares each listed file's signature with its stored sums.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace

import msgspec

from . import folders, freshness
from .sources import Home, Source
from .sources.base import not_text, reads_as_session

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


def meta_name(app: str) -> str:
    """The `usage_meta` row an app's kept listing is stored in."""
    return f"listing:{app}"


@dataclass(slots=True)
class Listing:
    """One app's usage files, in the order its walk found them, with what else the walk
    met: why its folder is unusable (then no files), and what it passed over."""

    paths: list[str]
    unusable: str | None = None
    passed_over: list[tuple[str, str]] | None = None
    # whether a path it passed over stands where a session would be read
    # (`sources.base.reads_as_session`): a broken link there hides the app's usage
    reads: Callable[[str], bool] = lambda path: True
    kept: bytes = (
        b""  # what to store for the next run (b"": nothing that run may trust)
    )


def kept(stored: bytes | None, home: Home) -> list[str] | None:
    """The paths of a listing stored by `listed`, when it still holds: the variables its
    `locate` read hold the same values, and every folder listed, file read and path
    probed looks as it did. None where anything may list otherwise."""
    if not stored:
        return None
    try:
        environ, notes, paths = _decode(stored)
    except (msgspec.DecodeError, TypeError, ValueError):
        return None
    if not freshness.environ_holds(environ, home.environ):
        return None
    for path, what, value, inode in notes:
        if not freshness.still_holds(path, what, value, inode):
            return None
    return list(paths)


def listed(source: Source, home: Home) -> Listing:
    """Where the source's app keeps its files, and every usage file there, the walk noted:
    `Listing.kept` is what `kept` reads back, empty where the walk passed over anything
    (a folder it may not open, a name that is not text: said each run, never trusted)."""
    environ = freshness.RecordingEnviron(home.environ)
    with freshness.recording() as notes:
        location = source.locate(replace(home, environ=environ))
        unusable = not_text(location)
        paths = (
            []
            if unusable is not None
            else [os.fspath(p) for p in source.usage_files(location)]  # type: ignore[attr-defined]
        )
    passed = folders.take_passed_over()
    if unusable is None and not location.exists:
        # the app's whole folder a broken link (`~/.claude -> gone`, or `~/.config` above
        # its other): said, as `list` does
        link = folders.broken_link_above_any((location.root, *location.also))
        passed += [(link, folders.BROKEN_LINK)] if link is not None else []
    if unusable is not None or passed:
        return Listing(paths, unusable, passed, reads_as_session(source, location))
    record = [
        freshness.environ_key(environ.read),
        [[path, *noted[:3]] for path, noted in notes.items()],
        paths,
    ]
    return Listing(paths, kept=_encode(record))
