"""The look `watch` takes beside a mid-turn session's main file for a sub-agent's writes.

A folder may hold thousands of other sessions' files (Gemini CLI's `chats/`, droid's
project folder), so a look stats a bounded number of files: every one written lately,
every name new since the folder was last listed, and a round of the others; it lists a
folder again only when the folder's own mtime says a name was added or removed. It is
not the reading of those files, which the source's `read` does.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from pathlib import Path

# files stat'ed at one look at most: the new and the recent ones first
BESIDE_CAP = 2000
# and of the others, this many in turn: a file already there and written again after a
# long pause is seen within (files / ROUND) looks
ROUND = 250
# a file written this lately is stat'ed at every look: a running sub-agent's transcript
RECENT_NS = 10 * 60 * 10**9


class Beside:
    """The files in `path`'s folder and in the folders in it, `path` left out."""

    def __init__(self, path: Path, cap: int = BESIDE_CAP, round_: int = ROUND) -> None:
        self.path = str(path)
        self.top = str(path.parent)
        self.cap = cap
        self.round = round_
        self.looked = False
        self.listed: dict[str, int] = {}  # folder: its mtime (ns) when last listed
        self.files: dict[str, str] = {}  # file: its folder
        # each file known is in one of these: written lately, or the others in turn
        self.recent: set[str] = set()
        self.rest: deque[str] = deque()
        self.queued: set[str] = set()  # what `rest` holds, each name once

    def remember(self) -> None:
        """Take note of the files there now, as the session is read whole with them:
        a name that appears after this is a new file, stat'ed at the next look."""
        if not self.looked:
            self._relist()
            self.looked = True

    def newest(self) -> int:
        """The newest mtime (ns) of the files stat'ed at this look, 0 for none: a file
        not stat'ed now was not written since the look that last stat'ed it (or is one
        of the others, its turn still to come)."""
        new = self._relist()
        self.looked = True
        newest, budget = 0, self.cap
        now = time.time_ns()
        for name in [*new, *sorted(self.recent)][:budget]:
            budget -= 1
            newest = max(newest, self._stat(name, now))
        for name in new[self.cap :]:  # over the cap: in turn with the others
            self._queue(name)
        for _ in range(min(budget, self.round, len(self.rest))):
            name = self.rest.popleft()
            self.queued.discard(name)
            if name in self.files and name not in self.recent:  # else gone, or new
                newest = max(newest, self._stat(name, now))
        return newest

    def _stat(self, name: str, now: int) -> int:
        """Its mtime, 0 when gone; it goes on in `recent` or back at the end of `rest`."""
        try:
            mtime = os.stat(name).st_mtime_ns
        except OSError:
            self.files.pop(name, None)
            self.recent.discard(name)
            return 0
        if now - mtime < RECENT_NS:
            self.recent.add(name)
        else:
            self.recent.discard(name)
            self._queue(name)
        return mtime

    def _queue(self, name: str) -> None:
        if name not in self.queued:
            self.queued.add(name)
            self.rest.append(name)

    def _relist(self) -> list[str]:
        """List again each folder whose mtime changed (a name added or removed there);
        the files new since the first look, which this look stats first."""
        new: list[str] = []
        folders = [self.top, *(f for f in self.listed if f != self.top)]
        for folder in folders:
            try:
                mtime = os.stat(folder).st_mtime_ns
            except OSError:
                self._forget(folder)
                continue
            if self.listed.get(folder) == mtime:
                continue
            self.listed[folder] = mtime
            names, subfolders = _entries(folder)
            if folder == self.top:
                folders += [sub for sub in subfolders if sub not in self.listed]
                for gone in set(self.listed) - {self.top, *subfolders}:
                    self._forget(gone)
            present = set(names)
            for name in [n for n, f in self.files.items() if f == folder]:
                if name not in present:
                    del self.files[name]  # its stale place in `rest` is passed over
                    self.recent.discard(name)
            fresh = [n for n in names if n not in self.files and n != self.path]
            for name in fresh:
                self.files[name] = folder
            if self.looked:
                new += fresh
            else:  # what is there at the first look was read whole with the session
                for name in fresh:
                    self._queue(name)
        return new

    def _forget(self, folder: str) -> None:
        self.listed.pop(folder, None)
        for name in [n for n, f in self.files.items() if f == folder]:
            del self.files[name]
            self.recent.discard(name)


def _entries(folder: str) -> tuple[list[str], list[str]]:
    """The files and the folders in `folder`, links left out."""
    names: list[str] = []
    subfolders: list[str] = []
    with contextlib.suppress(OSError), os.scandir(folder) as it:
        for entry in it:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
            else:
                names.append(entry.path)
    return names, subfolders
