"""The running processes, from /proc, and what an agent CLI's command line says: the
session it has open (`opened_by`), the folder it works in (`process_folder`), whether it
names a session (`names`). Which process is which followed session's is
`live_session.attach_processes`'s job.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import sources
from .model import Session
from .sources.base import Opened

PROCESS_SECONDS = 5.0  # scan /proc this often
# a CLI found only by its folder that started this long after a session's last write is
# not that session's writer (a fresh one, with nothing written yet; the session crashed)
STARTED_AFTER = 30.0


_ARGS_CAP = 64 * 1024  # of a command line, what a helper is told from
# of each process's command line, what the scan of every process keeps: past the most one
# word may hold (Linux's MAX_ARG_STRLEN, 128 KiB), so that a CLI's `--resume <id>` after
# a long prompt is still read, where a linker's 2 MB of object files is not
_SCAN_CAP = 256 * 1024

# (a process's words, argv[0] first) -> whether it is a helper its CLI keeps running (an
# MCP server), or one that runs what the user typed, not a tool call the model made
Helper = Callable[[Sequence[str]], bool]


@dataclass(slots=True)
class _Process:
    names: frozenset[str]  # basenames of the first arguments (none: a kernel thread)
    args: bytes
    start: int | None = None  # clock ticks after boot: another start, another process
    cwd: str | None = None
    cwd_read: bool = False


@dataclass(slots=True)
class Processes:
    """The running processes, from /proc, scanned at most every PROCESS_SECONDS."""

    root: Path = Path("/proc")
    table: dict[int, _Process | None] = field(default_factory=dict)
    scanned_at: float = float("-inf")
    boot: float | None = None
    # the processes the last scan met first: one may have been between its fork and its
    # exec (a shell's command line), so the next scan reads theirs again
    young: set[int] = field(default_factory=set)

    @property
    def available(self) -> bool:
        return self.root.is_dir() and (self.root / "self").exists()

    def refresh(self, now: float | None = None, *, force: bool = False) -> bool:
        """Scan again if PROCESS_SECONDS passed (or `force`); whether it scanned."""
        now = time.monotonic() if now is None else now
        if not force and now - self.scanned_at < PROCESS_SECONDS:
            return False
        self.scanned_at = now
        me = os.getpid()
        try:
            pids = {int(name) for name in os.listdir(self.root) if name.isdigit()}
        except OSError:
            return True
        pids.discard(me)
        for pid in list(self.table):
            if pid not in pids:
                del self.table[pid]
        again, self.young = self.young & pids, pids - self.table.keys()
        for pid, known in self.table.items():
            # a pid the system gave to a new process since the last scan: what was read
            # of the old one (its words, its folder) is not the new one's; one that
            # could not be read, gone as it was met, may have been given again too
            if pid not in again and (known is None or self._start(pid) != known.start):
                again.add(pid)
        for pid in self.young | again:
            self.table[pid] = self._read(pid)
        return True

    def _read(self, pid: int) -> _Process | None:
        start = self._start(pid)
        try:
            raw = self._cmdline(pid, _SCAN_CAP)
        except OSError:
            return None
        args = raw.split(b"\0", 3)  # the first three words name it
        names = frozenset(
            os.path.basename(a.decode(errors="replace")) for a in args[:3] if a
        )
        return _Process(names, raw, start)  # no words: a kernel thread or a zombie

    def cwd(self, pid: int) -> str | None:
        found = self.table.get(pid)
        if found is None:
            return None
        if not found.cwd_read:
            found.cwd_read = True
            try:
                found.cwd = os.readlink(self.root / str(pid) / "cwd")
            except OSError:
                found.cwd = None
        return found.cwd

    def running(
        self, program: str, aliases: Sequence[str] = ()
    ) -> list[tuple[int, bytes]]:
        """(pid, command line) of each process running `program` (or one of `aliases`)."""
        names = {program, *aliases}
        return [
            (pid, found.args)
            for pid, found in self.table.items()
            if found is not None and not names.isdisjoint(found.names)
        ]

    def spawned_since(
        self, pid: int, since: float, helper: Helper | None = None
    ) -> bool | None:
        """Whether `pid` has a descendant process started after `since` (epoch seconds),
        one `helper` (given its words) does not call a helper of the CLI's: such a one,
        and what it started, are passed over."""
        boot = self._boot()
        if boot is None:
            return None
        for children in self._walk([pid], boot, since, unknown=True):
            for child, started in children:
                if started is None or started < since:
                    continue
                if helper is None or not helper(_words(self._args(child))):
                    return True
        return False

    def descendants(self, pids: Iterable[int], before: float, most: int) -> set[bytes]:
        """The command lines of the descendants of `pids` started before `before` (epoch
        seconds; at most `most`), as `spawned_since`'s `helper` is given them."""
        boot = self._boot()
        found: set[bytes] = set()
        if boot is None or most <= 0:
            return found
        for children in self._walk(pids, boot, before, unknown=False):
            for child, started in children:
                if started is None or started >= before:
                    continue  # the prompt's own work, or gone
                if args := self._args(child):
                    found.add("\0".join(_words(args)).encode(errors="replace"))
            if len(found) >= most:
                break
        return found

    def _walk(
        self, roots: Iterable[int], boot: float, before: float, *, unknown: bool
    ) -> Iterator[list[tuple[int, float | None]]]:
        """The children of each process met going down from `roots`, one process's at a
        time, each with when it started (epoch seconds; None where /proc does not say).
        The walk goes on into those started before `before`, and into those whose start
        is unknown where `unknown`."""
        ticks = os.sysconf("SC_CLK_TCK")
        todo, seen = list(roots), set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            children: list[tuple[int, float | None]] = []
            for child in self._children(current):
                ticked = self._start(child)
                children.append(
                    (child, None if ticked is None else boot + ticked / ticks)
                )
            yield children
            todo.extend(
                child
                for child, started in children
                if (unknown if started is None else started < before)
            )

    def _args(self, pid: int) -> bytes:
        """`pid`'s command line, read now: one started since the last scan is not known."""
        try:
            return self._cmdline(pid, _ARGS_CAP)
        except OSError:
            return b""

    def _cmdline(self, pid: int, cap: int) -> bytes:
        """`pid`'s command line, its first `cap` bytes: read no further than is kept (a
        tool's, a linker's, may be megabytes)."""
        with open(self.root / str(pid) / "cmdline", "rb") as handle:
            return handle.read(cap)

    def parent(self, pid: int) -> int | None:
        """The pid of `pid`'s parent, where /proc says."""
        fields = self._stat(pid)
        return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None

    def started(self, pid: int) -> float | None:
        """When `pid` started (epoch seconds), where /proc says."""
        boot, ticks = self._boot(), self._start(pid)
        if boot is None or ticks is None:
            return None
        return boot + ticks / os.sysconf("SC_CLK_TCK")

    def _children(self, pid: int) -> list[int]:
        found: list[int] = []
        try:
            tasks = os.listdir(self.root / str(pid) / "task")
        except OSError:
            return found
        for task in tasks:
            try:
                text = (self.root / str(pid) / "task" / task / "children").read_text()
            except OSError:
                continue
            found.extend(int(part) for part in text.split())
        return found

    def _start(self, pid: int) -> int | None:
        fields = self._stat(pid)
        return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None

    def _stat(self, pid: int) -> list[bytes]:
        """The fields of /proc/<pid>/stat after the command's name, the state first."""
        # read at every scan for every process: os.read costs a third of read_text
        try:
            handle = os.open(self.root / str(pid) / "stat", os.O_RDONLY)
        except OSError:
            return []
        try:
            text = os.read(handle, 4096)
        except OSError:
            return []
        finally:
            os.close(handle)
        return text.rpartition(b")")[2].split()

    def _boot(self) -> float | None:
        if self.boot is None:
            try:
                for line in (self.root / "stat").read_text().splitlines():
                    if line.startswith("btime "):
                        self.boot = float(line.split()[1])
            except OSError:
                return None
        return self.boot


# (app, the start of an id a CLI was given) -> the ids of every session of that app that
# start so (the index's: a session off the board makes the start name none)
Sharing = Callable[[str, str], Sequence[str]]


def existed(session: Session, started: float | None) -> bool:
    """Whether `session` was there when a process that started at `started` (epoch
    seconds) did; where either time is unknown, it may have been."""
    created = session.created
    return created is None or started is None or created.timestamp() <= started


def opened_by(source: sources.Source, args: bytes) -> Opened | None:
    """What a process whose command line is `args` (NUL-separated) has open, in the words
    of `source`'s CLI (its `process_session`), or None where it cannot say."""
    hook = getattr(source, "process_session", None)
    if not callable(hook):
        return None
    found = hook(_words(args))
    return found if isinstance(found, Opened) else None


def process_folder(source: sources.Source, cwd: str, args: bytes) -> str:
    """The folder a process of `source`'s CLI whose command line is `args`, started in
    `cwd`, works in: the one its options name (`codex -C <dir>`, its `process_folder`),
    or `cwd`."""
    hook = getattr(source, "process_folder", None)
    named = hook(_words(args)) if callable(hook) else None
    if not isinstance(named, str) or not named:
        return cwd
    return os.path.normpath(os.path.join(cwd, named))


def _words(args: bytes) -> list[str]:
    words = [word.decode(errors="replace") for word in args.split(b"\0")]
    return words[:-1] if words and not words[-1] else words


def names(
    source: sources.Source,
    session_id: str,
    args: bytes,
    sharing: Callable[[str], Sequence[str]] | None = None,
) -> bool:
    """Whether a process whose command line is `args` has session `session_id` open: as
    `source`'s CLI reads its words, or where it cannot say, the id anywhere in them. The
    start of an id names it where no other session `sharing` gives (the ids of the
    app's sessions that start so) does."""
    opened = opened_by(source, args)
    known: list[str] = [session_id]
    if opened is not None and opened.prefix is not None and sharing is not None:
        known.extend(sharing(opened.prefix))
    return has_open(opened, session_id, args, known)


def has_open(
    opened: Opened | None, session_id: str, args: bytes, known: Iterable[str] = ()
) -> bool:
    """Whether a process whose command line is `args`, and whose words say it has `opened`
    open, has session `session_id` open; an id's start is read against `known`."""
    if opened is not None and opened.prefix is not None:
        # the start of an id, the CLI's where one of its app's sessions `known` alone
        # starts so; else a name
        starting = {other for other in known if other.startswith(opened.prefix)}
        if len(starting) == 1:
            return starting.pop() == session_id
    if opened is None or opened.chosen:  # a title may be an id it does not know as one
        return session_id.encode() in args
    return opened.session_id is not None and opened.session_id == session_id
