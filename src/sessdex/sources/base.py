"""The contract every source module fulfils, and the small values it speaks in.

A source is one module per agent app. It knows where the app keeps its sessions, how to
list them cheaply, how to translate one session into events, and how to reopen it.
Nothing outside `sources/` knows any app by name.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import (
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeAlias

from .. import folders
from ..diagnostics import LOCALE_CURE, Diagnostics, locale_reads_ascii
from ..files import Line
from ..model import Event, JSONValue, ResumePlan, Session, Usage


@dataclass(frozen=True, slots=True)
class Home:
    """Whose sessions to read: a home folder and the environment its apps would see.

    `Home.current()` is the user's own; `Home.at(dir)` reads a copied or fake home and
    ignores the apps' environment overrides, so everything comes from that folder. A
    folder that does not exist is a home without sessions, not an error.
    """

    path: Path
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> Home:
        try:
            return cls(Path.home(), dict(os.environ))
        except RuntimeError:  # no HOME, and no entry in the password database
            from ..errors import NoHome

            raise NoHome() from None

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> Home:
        return cls(Path(folders.as_named(os.fspath(path))).expanduser().absolute(), {})

    def env_dir(self, name: str) -> Path | None:
        """The folder an app's override variable names, if it is set and not empty."""
        value = self.environ.get(name)
        return Path(value).expanduser() if value else None

    def xdg(self, kind: str) -> Path:
        """An XDG base folder ("data", "config", "state", "cache") as the app would resolve it."""
        defaults = {
            "data": ".local/share",
            "config": ".config",
            "state": ".local/state",
            "cache": ".cache",
        }
        return self.env_dir(f"XDG_{kind.upper()}_HOME") or self.path / defaults[kind]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a source looked for its app's files, and which override sent it there."""

    root: Path
    override: str | None = None  # e.g. "CODEX_HOME=/tmp/x", or None for the default
    also: tuple[Path, ...] = ()  # other folders the app writes to, outside `root`
    # files and folders the app writes beside those it keeps sessions in (its settings):
    # never read for sessions, but no export may go into them or replace them
    keeps: tuple[Path, ...] = ()
    # where `root` is a folder other programs share (the editors' `~/.config`), the
    # folders in it and beside it that are the app's own: those no export may go into
    owned: tuple[Path, ...] | None = None
    # for doctor: an override that is set but was not followed, and why
    notes: tuple[str, ...] = ()
    # the app's variables that change how its files read, not where they are
    # (`NAME=value`, as `override`): for the source's own `parse`
    settings: tuple[str, ...] = ()
    # paths whose presence, of whatever kind, marks the app as used where they are no
    # folder (aider's `~/.aider` a file or a pipe): its scan still looks for its files
    # elsewhere, and says what stands there (`folders.not_a_folder`)
    marks: tuple[Path, ...] = ()

    @property
    def exists(self) -> bool:
        return (
            folders.is_dir(self.root)
            or any(folders.is_dir(p) for p in self.also)
            # a broken link there marks the app too (said by its scan)
            or any(folders.exists(p) or os.path.islink(p) for p in self.marks)
        )


def not_text(location: Location) -> str | None:
    """Why sessdex cannot use `location`, when an override (`CODEX_HOME`,
    `XDG_DATA_HOME`) names a folder whose name is not valid UTF-8; else None. Such a
    path could be read, never stored in the index or printed: the app is left out,
    said in one line, where every command ended in a UnicodeEncodeError's traceback."""
    root = str(location.root)
    if folders.is_text(root):
        return None
    given = (location.override or "").partition("=")[0]
    source = f" (from {given})" if given else ""
    if locale_reads_ascii() and folders.is_utf8(root):
        # a valid name, which Python was told the file system cannot hold
        return (
            f"its folder {folders.shown(root)}{source} has a name that this locale "
            f"({sys.getfilesystemencoding()}) cannot read: left out; {LOCALE_CURE}, "
            "to list its sessions"
        )
    return (
        f"its folder {folders.shown(root)}{source} has a name that is not valid UTF-8, "
        "which sessdex cannot store or print: left out; name it through a link with a "
        "UTF-8 name"
    )


class Source(Protocol):
    """One agent app. Built-in sources are modules; see sources/claude.py for an example."""

    NAME: str  # the --app value, the `app` field in JSON, tests/data/<NAME>/
    TITLE: str  # for people: "Claude Code"
    CHECKED_WITH: str  # versions whose files we have seen
    # Optional: NEWEST_CHECKED = "2.1.220", the newest app version whose records the reader
    # knows; `doctor` names the versions seen in files past it (where drift is likeliest).
    ENV_VARS: tuple[str, ...]  # overrides the app honours (reported by doctor)
    # Optional: IN_PROJECTS = (".app.history.md", …), the names of the files the
    # app writes into the user's projects (where no folder of its own says they are its):
    # no export may replace or be one, found by the index or not.
    # Optional: REPLAYED_LOGS = True, its `.jsonl` files are logs whose lines change what
    # earlier ones wrote (replayed whole to one state): the live view reads such a file
    # again whole as it does a store, never from a line on.
    # Optional: CALLS_END_IN_PLACE = True, it writes a tool call's result into the call's
    # own row once the tool returns, however many rows were written after it meanwhile
    # (OpenCode's tool part): the live view's read of a session's last rows reaches back
    # to each call it found unanswered.
    # Optional: SUBAGENTS_INSIDE = True, it may keep a sub-agent inside its lead's file,
    # listed as no session of its own: `show` of a short id that matches nothing says
    # that 6 or more characters find one (resolving._holding_subagent) in a home of it.
    # Optional: LISTED_TABLES, the tables of its shared database whose rows its listing
    # shows (a session's title, times, archived flag), each with the columns it reads:
    # `watch` lists its sessions again when one of those changes in place
    # (databases.rows_mark), not only when a row of any table is added.
    # Optional: last_written(session) -> float | None, of a session in a database many
    # share: when a row of its was last written (epoch s), as stamps written at every write
    # say (a trigger's, or the app's where its source shows every write stamps them: its
    # docstring names the upstream files); None where it cannot tell. The live
    # view's first read, right after another session wrote, then shows this one's last
    # answer at once where it was written STORE_SECONDS ago or more.

    def locate(self, home: Home) -> Location:
        """Where this app keeps its files for `home` (which may not exist)."""
        ...

    def scan(self, location: Location) -> Iterator[str | Path]:
        """Every file `parse` should see. Cheap: list directories, open nothing.

        Plain path strings are welcome (a big home has tens of thousands of files, and a
        Path object costs more than the stat the index then makes of it).
        """
        ...

    def parse(
        self, path: Path, location: Location, diagnostics: Diagnostics
    ) -> list[Session]:
        """What one file says about the sessions in it: head and tail reads, or indexed SQL."""
        ...

    def read(
        self,
        session: Session,
        diagnostics: Diagnostics,
        *,
        full: bool = False,
        offset: int = 0,
    ) -> Iterator[Event]:
        """The session's events in order, sub-agents included with their `agent_id`.

        `full` keeps over-long payloads instead of eliding them. A non-zero `offset` starts
        at that byte of the session's main file (the partial line there is dropped) and
        reads no sub-agent files: it serves `show --tail`; stores that are not one file
        ignore it. Unknown record types go to `diagnostics.unknown_type`, never an error.
        """
        ...

    def resume(
        self, session: Session, *, keep_permissions: bool = False
    ) -> ResumePlan | None:
        """How to reopen `session` with the app's own CLI, or None if it has no resume."""
        ...


# --- a scan the index may skip (optional) ------------------------------------------------
#
# A source may set, at module level, `SCAN_NOTED = True` when its `locate` reads nothing but
# the environment (through `Home.env_dir`/`Home.xdg`) and its `scan` asks the file system
# only through `folders.entries`, `folders.is_dir`/`is_file`/`exists` and `Location.exists`.
# The index then notes what those looked at (see `freshness`) and, while all of it is
# unchanged, knows the scan would find the same files: a warm `sessdex list` checks only the
# files' signatures, without loading the source at all. `folders.entries(..., nested=True)`
# marks a listing that looks only for sub-agent files, which a top-level listing skips.


# --- a line the next one reads by (optional) -----------------------------------------------
#
# A source whose JSONL line vouches for the record after it (Qwen Code's `api_response`
# telemetry, written before the reply it counts) may define `leads_on(line: bytes) ->
# bool`: `follow`, a read of a growing file having ended on such a line, reads on from it
# rather than past it, so that the next record is read as a whole read would read it.


# --- the names a scan reads (optional) ----------------------------------------------------
#
# A source may set, at module level, `SESSION_NAMES`: the paths, relative to its location's
# `root` or one of `also`, at which its scan would read a session's file, a store or a
# folder of them, as patterns of one `fnmatch` pattern per path segment
# (`projects/*/*.jsonl`). A broken link passed over where the scan found nothing is said
# to hide the app's sessions only at such a path (`reads_as_session`); a source without
# them has every broken link said.


# It may set `HIDDEN_BESIDE` too, in the same shape: the folders whose broken link hides
# sessions even where the scan listed other files (Hermes's `sessions/` beside its
# `state.db`: an older release's chats are only there).


def reads_as_session(source: object, location: Location) -> Callable[[str], bool]:
    """Whether a path stands where `source`'s scan of `location` would read a session,
    its store or a folder of them (`SESSION_NAMES`); every path, where it names none."""
    patterns: tuple[str, ...] | None = getattr(source, "SESSION_NAMES", None)
    if patterns is None:
        return lambda path: True
    return _matching(patterns, location)


def hidden_beside(source: object, location: Location) -> Callable[[str], bool] | None:
    """Whether a path is one of `source`'s `HIDDEN_BESIDE` folders in `location`; None
    where it names none."""
    patterns: tuple[str, ...] | None = getattr(source, "HIDDEN_BESIDE", None)
    return None if patterns is None else _matching(patterns, location)


def _matching(patterns: tuple[str, ...], location: Location) -> Callable[[str], bool]:
    """Whether a path matches one of `patterns` under `location`'s folders, or is one
    of those folders or above it."""
    shapes = [pattern.split("/") for pattern in patterns]
    roots = (location.root, *location.also)

    def reads(path: str) -> bool:
        for root in roots:
            if root.is_relative_to(path):  # the app's whole folder, or one above it
                return True
            try:
                parts = Path(path).relative_to(root).parts
            except ValueError:
                continue
            if any(
                len(shape) == len(parts) and all(map(fnmatch.fnmatchcase, parts, shape))
                for shape in shapes
            ):
                return True
        return False

    return reads


# --- companion files (optional) -----------------------------------------------------------
#
# A source whose `parse` reads, beside a session's file, a small file the app may write on
# its own (a title kept in a sidecar) lists that file in `scan` too and defines, at module
# level, `companion_of(path) -> str | None`: the file whose sessions it speaks of, None for
# any other. The index keeps the companion's signature but never parses it on its own:
# when it changes, appears or goes, the index parses its owner again. `parse` of a
# companion returns nothing. A source whose companions hold sessions of their own too
# (a file another file's listing reads a little of) sets `COMPANIONS_PARSED = True`:
# the index parses each companion as any file, and its owner again when it changes; one
# where only some do defines `companion_parsed(path) -> bool` instead: True for those.


# --- context files (optional) -------------------------------------------------------------
#
# A source whose `parse` reads, for the sessions of many files, one small file the app
# rewrites on its own (a map of projects to their folders) lists that file in `scan` too and
# defines, at module level, `context_of(path, location) -> str | None`: the folder whose
# listed files' sessions it speaks of (those of `location`, where the app may keep its
# settings apart from its sessions), None for any other. The index keeps the context
# file's signature but never parses it: when it changes, appears or goes, the index parses
# again every file the scan listed under that folder (a warm listing that sees it changed
# scans again). Where the app rewrites that file for fields those sessions never read (at
# each session's start), the source defines `context_digest(path) -> bytes | None` too: a
# digest of what the sessions read of it (None: unreadable). The index keeps it, and when
# the file changes with the same digest, reads none of its files again.


# --- other files a parse reads (automatic) ------------------------------------------------
#
# Every other file a source's `parse` opens through `files` or `databases` (or looks for
# there, and finds missing) is noted with how it looked (`freshness.depending`): the index
# keeps them per parsed file, and a warm listing reads that file again when one changed,
# came or went. A source that opens a file some other way, or whose listing depends on a
# folder's entries, calls `freshness.note_depended(path)`; one that keeps what it read for
# many parses (a cache of every folder's ids) reads it under `freshness.not_depending()`.
# Files a hook below ties to the parsed one already (its companions, context files, kin)
# are left out: read again as the hook says.


# --- files that look for others (optional) -----------------------------------------------
#
# A source whose `parse` of one file looks whether other files it lists are there (a
# database that names each session's transcript, and lists the session by it while it is
# there) defines, at module level, `looks_for_others(path) -> bool`: True for such a file.
# When a file of its scan comes or goes (not when one only changes), the index parses each
# such file again.


# --- files read together (optional) ------------------------------------------------------
#
# A source whose `parse` of one file reads others of its kind (a store that resolves the
# keys it names through the stores beside it) defines, at module level,
# `kin_of(path) -> str | None`: a name such files share (the folder that holds them), None
# for any other. When one of them changes, comes or goes, the index parses again each
# listed file of the same name. For small files only: each is read again at every change
# of any of them.
# A source whose kin matter only when one goes (a title another file gave, which the app
# no longer writes) sets `KIN_GONE = True` too: its kin are read again only when one is
# deleted, never when one changes or comes, so large files may be kin.


# --- sub-agents merged by time (optional) -------------------------------------------------
#
# A source whose `read` merges each sub-agent's events in among its lead's by time, from
# its spawn on (Claude Code's, Codex's), sets `SUBAGENTS_BY_TIME = True`. Without it, `read`
# is taken to give each sub-agent's events as one block at its spawn, and `follow -n`
# draws the history it reads so too, to start as the end of `show` does.


# --- why a session cannot be resumed (optional) -------------------------------------------
#
# A source whose `resume` returns None for some sessions of an app that does resume others
# (a format today's CLI no longer opens, a session of which only the prompts are left) may
# define, at module level, `resume_refusal(session) -> str | None`: the reason, in a sentence
# for people, or None to let `sessdex resume` say what it says of any session without a
# resume command.


# --- a session that recorded no folder (optional) -----------------------------------------
#
# A source whose CLI finds a session by its id from any folder (one database or folder for
# every project) sets `RESUMES_ANYWHERE = True`: a session that recorded no folder is then
# resumed where the user is, its command printed with no `cd`. Without it such a session is
# refused, as a CLI that keeps a store per project finds it only from the folder it ran in.


# --- which program runs a resume (optional) --------------------------------------------
#
# A source whose CLI goes by a name another program may hold, or by an older name, may
# define, at module level, `resume_program(plan) -> tuple[ResumePlan, str | None]`: the plan
# to run (its `program` and `argv[0]` the name found) and the path of the app's own program
# on PATH, or None where there is none. It may look at PATH, resolve links and read the
# program's head and tail (`programs`), never run anything. Without it, `sessdex resume`
# takes whatever `plan.program` names on PATH.


# --- which session a running CLI has open (optional) -------------------------------------
#
# A source may define, at module level, `process_session(args) -> Opened | None`: what the
# command line of a running copy of its CLI (`args`, argv[0] first, as /proc gives it: an
# interpreter and its script may come first) says the process has open, read back from the
# words `resume` writes. The live status then takes a process that names a session by id for
# that session's whatever its start time (a CLI reopened on a session last written hours
# ago), and never for another's; one that continues its folder's latest session for that
# one's; one with no session known yet (a fork, a picker, a title) for none written before
# it started. None where the words say nothing sure (a plain start, a prompt): the process
# is then that of a session whose id its command line holds, or of its folder's.


# A source with `process_session` may also set, at module level, `CLI = ("<program>", ...)`:
# the program its `resume` runs (and other names its process may show). `watch` then shows
# a running copy of it that no session has and whose words open none (just started, with
# nothing written; or showing its picker) as a row of its own, in its folder, by its pid.


# A source whose CLI starts processes that run no tool call may define
# `helper_process(session, args) -> bool`: whether the process of `args` (argv[0] first)
# that the running CLI of `session` started is one (an MCP server it keeps running, a
# command the user typed). `watch` then reads no tool run into it: an answer whose calls
# its app writes only once they have run (`calls_later`) is working only while the CLI
# runs a process started since that is not one.


# A source whose CLI takes its session's folder from an option, not from the folder it was
# started in (`codex -C <dir>`), may define `process_folder(args) -> str | None`: that
# option's value as written (relative to the process's working folder, where it is not
# absolute), or None where its words name none.


@dataclass(frozen=True, slots=True)
class Opened:
    """What a running CLI's command line says it has open. No field set: a new session,
    not known yet (a fork of the one it names); `chosen`: one the user picks or names by
    a title or a number, not known here. Either is written after the CLI started."""

    session_id: str | None = None  # one session, by its id (`--resume <id>`)
    latest: bool = False  # the latest session of its folder (`--continue`)
    chosen: bool = False  # one picked (a picker) or named by title or number
    # with `chosen`: a start of an id, which the CLI opens where one session's id alone
    # starts so (the live status asks the sessions it knows); else a name, as `chosen`
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class ResumeFlags:
    """The options a flag-style CLI reopens a session with (`claude --resume <id>`), for
    `opened_by_flags`: only those its own `--help` lists."""

    resume: tuple[str, ...]  # take a session id; a name, or nothing: a picker
    latest: tuple[str, ...] = ()  # continue the folder's latest session
    fork: tuple[str, ...] = ()  # with a resume: copy it into a new session
    new_id: tuple[str, ...] = ()  # the id of the session it writes
    latest_values: tuple[str, ...] = ()  # resume values that mean the latest ("latest")
    bare_latest: bool = False  # a resume option without a value continues the latest


_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def is_uuid(word: str) -> bool:
    """Whether `word` is a UUID (the session ids most CLIs resume by)."""
    return _UUID.fullmatch(word) is not None


def opened_by_flags(
    args: Sequence[str],
    flags: ResumeFlags,
    is_id: Callable[[str], bool] = is_uuid,
    is_prefix: Callable[[str], bool] | None = None,
) -> Opened | None:
    """What a running CLI has open, from its options (anywhere after argv[0], up to `--`;
    `--opt value` or `--opt=value`): see `process_session`. `is_prefix` says which
    resume values the CLI may read as the start of a session's id."""
    resumed: str | None = None
    forced: str | None = None
    picker = latest = fork = False
    index = 1
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if name in flags.resume or name in flags.new_id:
            if not equals and index < len(args) and not args[index].startswith("-"):
                value, index = args[index], index + 1
            if name in flags.new_id:
                forced = value if is_id(value) else None
            elif value in flags.latest_values or (not value and flags.bare_latest):
                latest = True
            elif value:
                resumed = value
            else:
                picker = True
        elif word in flags.latest:
            latest = True
        elif word in flags.fork:
            fork = True
    if fork and (resumed or picker or latest):
        return Opened(forced)  # a new session, copied from the one it names
    if resumed:  # a title or a number in its list: which one is not known here
        if is_id(resumed):
            return Opened(resumed)
        prefix = resumed if is_prefix is not None and is_prefix(resumed) else None
        return Opened(chosen=True, prefix=prefix)
    if picker:
        return Opened(chosen=True)  # what the user will choose: nothing open until then
    if latest:
        return Opened(latest=True)
    return Opened(forced) if forced else None


# --- a note for doctor (optional) ---------------------------------------------------------
#
# A source whose app may keep sessions where sessdex cannot read them (on its server, say)
# may define, at module level, `doctor_notes(location) -> list[str]`: sentences for people
# that `sessdex doctor` shows under the app (`notes` in its --json) when the signs are
# there, naming the files sessdex did read. It may list folders and stat files, never read
# them, and runs for doctor only, where `location.exists`.


# --- where doctor says it looked (optional) -------------------------------------------------
#
# A source whose files are not under its `root` (Aider's histories lie in the home and in
# project folders; its root, `~/.aider`, only marks an aider user) may define, at module
# level, `looked_in(location) -> list[str]`: where it looked, in words, the first for
# doctor's `looked in`, the rest each an `and in` (`looked_in` in its --json). Where the
# location does not exist, it says the location alone (no file read): the index keeps
# that answer with the noted scan, and a warm doctor says it without loading the source.


# --- whether the app is there, for doctor (optional) ----------------------------------------
#
# `sessdex doctor` counts an app whose folder exists as found (`exists`), sessions or none.
# A source whose `root` is a folder other programs share (the editors' `~/.config`,
# another app's `~/.gemini`) may define, at module level, `found(location) -> bool`: whether
# a folder of the app's own is there, so that a desktop's `~/.config` alone lists it among
# the apps not found. It may probe folders (through `folders.is_dir`/`exists`, noted with
# the scan: the index keeps its answer while they hold, for a warm doctor and an empty
# list), never read files, and runs where `location.exists`.


# --- reading only a session's last rows (optional) ----------------------------------------
#
# A source whose sessions are rows of a database (one message a row), or messages of one JSON
# document its `read` parses whole (which it can find from the document's end), may define, at module
# level, `read_last(session, diagnostics, rows, *, full=False) -> Iterator[Event]`: the lead
# agent's events of only the session's last `rows` messages, in the order `read` gives them,
# each as `read` gives it but for its `seq` (counted from the first of those rows); no
# sub-agent's session is read. `show --tail` then reads a big session's end at once, asking
# for more rows until it has the events it wants. Before it gives any event, it raises
# `WholeRead` where it cannot give exactly what `read` would (a session of no more than
# `rows` messages, a fork's copies, an event that needs earlier rows): `read` then serves.
# With `READ_LAST_UNSURE = True` beside it, it takes `unsure`, a set it adds the `seq` of
# each event it gives that earlier rows may change (OpenCode's note of a compaction whose
# fold starts before them): one of those among the events asked for, more rows are read,
# with `settle` true: as many as place each such event (a source may read more than `rows`,
# or raise `WholeRead` where that is most of the session). Given `settles`, a list, it
# appends whether `settle` would read more than these rows (False: a wider window alone
# places such an event, without a second read of the same rows first).
# A source whose `read` places each sub-agent's events at its spawn may define beside it
# `spawns_all(session, children) -> bool`: whether the lead's own rows spawn each of
# `children` (ids the index lists under it); `show --tail` of a session with sub-agents
# then reads the last rows too, where they hold no spawn, instead of the whole session.


class WholeRead(Exception):
    """A `read_last` hook cannot give the session's last rows exactly: read it whole."""


# --- following a live session (optional) ------------------------------------------------
#
# A source whose sessions are JSON-lines files that only grow may also define, at module
# level, `follow(session, diagnostics) -> SessionFollow`. `sessdex follow` and `watch` then
# read each of the session's files on its own, only the appended lines, through readers
# that keep their state between lines (pending usage, messages written twice). Without it,
# the live layer re-reads the session with `read` (from the last offset when the main file
# only grew) and keeps the events it has not seen yet.


@dataclass(frozen=True, slots=True)
class FollowFile:
    """One file of a live session: the lead agent's transcript or one sub-agent's."""

    path: Path
    agent_id: str | None = None  # None for the lead agent
    call_id: str | None = None  # the tool call that spawned this sub-agent, when known
    agent_type: str | None = None
    description: str | None = None
    # an agent the app runs beside another to watch it (Claude Code's observers): the
    # session never waits on it
    observer: bool = False


# Translates one complete line of a followed file into events (it parses the line itself).
# One may also have `settle(quiet) -> Iterable[Event]`: what it holds for a line that may
# never come (Claude Code's compaction waiting for its summary; with `quiet`, the file
# silent a while, a response's usage waiting for its next line), asked after each read
# that ended on a complete line, as the end of `read` settles it.
LineReader: TypeAlias = Callable[[Line], Iterable[Event]]


class SessionFollow(Protocol):
    """What `follow(session, diagnostics)` returns: the session's files and their readers."""

    def files(self, children: Collection[str]) -> list[FollowFile]:
        """The files to follow now, the lead agent's first. `children` holds the sub-agent
        ids seen so far in `subagent` events. Cheap: directory listings, small meta files."""
        ...

    def reader(self, file: FollowFile, offset: int) -> LineReader:
        """A reader for `file`'s lines from `offset` (a line start; 0 for the whole file).
        Readers of one session may share state; a rewritten file gets a new reader."""
        ...


# --- counting usage fast (optional) ------------------------------------------------------
#
# A source whose transcripts are big append-only JSON-lines files may also define, at module
# level, `usage_files(location) -> Iterator[Path]` (every file that bills tokens; as cheap as
# `scan`, its folders listed through `folders.entries`: a warm `usage` keeps the list while
# every folder noted so holds, see `usage_listing`) and `usage_records(path, diagnostics, *, offset=0, state=None, explain=False) ->
# UsageScan`. `sessdex usage` then reads those files itself, with a byte prefilter and a
# decoder that names only the fields it needs, keeps per-file sums in the index and reads only
# the bytes appended since (from `offset`, with the `state` the previous call returned, so
# that de-duplication across lines carries over). Without them, usage comes from `read()`'s
# `usage` events, one top-level session at a time. The rules must be those of `read()`.
# `usage_records` also takes `fold: Callable[[UsageRecord], None] | None = None` (usage.py
# passes it): a hook may hand it, in the order it would list them, the records it expects no
# later line to change, instead of listing them, so that a huge file costs no memory per
# response (the records it lists come after those folded). When a later line does change a
# folded record, the hook raises `FoldedTooSoon`: usage.py drops what was folded and calls
# again without `fold`, and the hook then lists every record.
# It takes `drop: Callable[[DroppedLine], None] | None = None` too: with it, the hook explains
# (as `explain=True`) and hands each line it did not count to `drop` as soon as it knows,
# instead of listing them in `UsageScan.dropped`; a record handed to `fold` then carries its
# `note`. With both, `--explain` reads a huge file in bounded memory.

#
# A source that keeps many sessions in one database, whose rows a session's usage is read
# from may be added with an earlier time than its session's (a clock stepped back, an
# import) and its listed session then unchanged, defines `usage_marks(path) -> dict[str, str]`:
# per session id, a short text that changes with those rows (`databases.row_marks`), {} where
# the database cannot be read. A warm `usage` keys each session's kept sums on it too; it is
# asked only when the database changed since the last run (see `usage_marks`).


@dataclass(slots=True)
class UsageRecord:
    """One billed model response, as `sessdex usage` counts it."""

    time: float | None  # epoch seconds (UTC) of the response's last line
    usage: Usage  # input excludes cache, as everywhere
    session_id: str
    agent_id: str | None = None  # None for the lead agent
    cwd: str | None = None
    key: str | None = (
        None  # the same key in two files is one response (None: never merged)
    )
    alias: str | None = (
        None  # a second key that matches only when one side is a side chain
    )
    sidechain: bool = False  # loses to a lead-agent record with the same key or alias
    speed: str | None = None  # a price variant ("fast")
    cache_write_1h: int = (
        0  # of cache_write_tokens, those cached for an hour (priced apart)
    )
    line: int = 0  # the line it was dated by
    app_cost_usd: float | None = None  # the app's own cost, used instead of a price
    # the cost the app recorded, used only where the catalogue has no price (0: unknown)
    recorded_cost_usd: float | None = None
    provider: str | None = None  # whom the app sent the request to, for the price list
    note: str = ""  # how it was counted, for --explain
    summed: bool = False  # adds up several responses (priced with no long-context tier)
    replaces: UsageRecord | None = (
        None  # read from an offset: the record this one updates
    )
    # a copy another session made of this response (a fork's): loses to the original
    copied: bool = False
    # what the provider bills over the catalogue's price (1.1: Anthropic's US-only inference)
    price_factor: float = 1.0
    # USD billed per call beside the tokens, not times `price_factor` (Anthropic's web
    # searches, $0.01 each); added to a catalogue's price only
    fee_usd: float = 0.0


class FoldedTooSoon(Exception):
    """A `usage_records` hook read a line that changes a record it had handed to `fold`."""


@dataclass(frozen=True, slots=True)
class DroppedLine:
    """A line that carried usage but was not counted, and the rule that dropped it."""

    line: int
    rule: str
    note: str = ""
    time: float | None = None


@dataclass(slots=True)
class UsageScan:
    """What `usage_records` read from one file."""

    records: list[UsageRecord]
    offset: int  # where the next call starts: the end of the last complete line
    # what the next call (from `offset`) needs to carry de-duplication on
    state: dict[str, JSONValue] = field(default_factory=dict)
    dropped: list[DroppedLine] = field(default_factory=list)  # only with explain=True
