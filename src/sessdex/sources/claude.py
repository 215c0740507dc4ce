"""Claude Code: JSONL transcripts under `<config>/projects/<cwd slug>/<session id>.jsonl`.

Claude Code (`$CLAUDE_CONFIG_DIR`, else `~/.claude`, and the XDG folder
`~/.config/claude` that ccusage reads as well: some installs keep their transcripts there)
appends one JSON record per line: the conversation (`user`, `assistant`, `system`,
`attachment`, chained by `uuid`/`parentUuid`) and
bookkeeping (titles, queue and mode records, file-history snapshots). Sub-agents live in
`<session>/subagents/agent-<id>.jsonl` (+ `.meta.json`, 2.1), in `agent-<id>.jsonl` beside the
parent (2.0), or inline as `isSidechain` lines (1.0). Listing reads only the head (80
lines, past the `summary` lines 1.0 may open a file with) and the tail (512 KiB) of each
transcript, sub-agent files included (listed under their parent); the project folder name
is lossy, so `cwd` comes from the records. Title:
newest custom title, else newest AI title, else a `summary` whose leaf is in the lines
read, else (a 1.x file) a summary another transcript of the project opens with naming one
of those lines (1.0 wrote a conversation's summary at the head of the next one: one
deleted reads its project's others again, `kin_of`), else the first
typed prompt, else the first slash command; a sub-agent's description (`.meta.json`)
comes first, and an observer's meta (`isObserver`) marks it `extra["observer"]`. A
sub-agent whose `.meta.json` is lost is listed under the sibling whose call its first
line's prompt is, or whose result names it (`_claude_spawns`: the siblings' heads and
tails, as `tree` links it), else under its session. A sub-agent no meta file
types (2.0's, beside the lead, or one the lead spawned whose meta is lost) takes the type
of the lead's call whose prompt is its first line, where the lead's head or tail holds it:
the lead's listing keeps what its calls asked for (`extra["spawn_types"]`) and the
sub-agent's names its prompt (`spawn_key`), joined by the index, so that a lead that
grows types its sub-agents without their files read again. A custom or AI title line
over the line cap (a pasted text as a name) gives the start of its title from its first
bytes (`files.OPENING`), the rest never held. Both ends are searched key by key rather
than split into lines: a line is parsed only when it holds the key of a field that can
still change.
`effort` is not waited for in a session whose newest version predates it (2.1.212).

Reading (`_claude_read`, `_claude_stream`):
- Usage: one API response is written as one line per content block, each with a copy of
  `usage` whose `output_tokens` may still be partial. We emit one `usage` event per
  `message.id` + `requestId` (ccusage's rule), with the largest copy, dated by its last line,
  billed when the agent's next response begins or its last line says it stopped (a 1.0
  inline side chain's last one when the lead reads the spawn's answer, not at the file's
  end: `show` gives it by its time, as `follow` does); a key already billed in this session (replays, `/btw` side chains) is not billed again, so
  the first copy read wins over a later side-chain one. `<synthetic>` and
  `isApiErrorMessage` lines bill nothing; API errors become `error` events. A response that
  consulted the advisor (`/advisor`) lists the advisor's calls in `usage.iterations`
  (`advisor_message`), outside the top-level counts: one more `usage` event per advisor
  model (`extra["advisor"]`), priced at that model. Versions before 1.0.9 wrote their own
  price of each response on its line (`costUSD`): `usage` takes that figure
  (`extra["app_cost_usd"]`) instead of the catalogue's, as ccusage's default mode does.
  `sessdex usage` prices a response that ran on US-only inference (`inference_geo: "us"`)
  at 1.1 times the catalogue's price, as Anthropic bills it, and adds $0.01 for each web
  search (`server_tool_use.web_search_requests`, once per response) (`_claude_usage`).
- Branches: a rewind writes a new prompt whose parent is an older line, and the file keeps
  the abandoned continuation. We follow the chain that ends at the last line and leave out
  a branch only when it starts with a typed prompt that a later typed prompt replaced
  (other multi-child shapes are how Claude Code records one conversation). Each abandoned
  branch is one `meta` event (`extra["abandoned_branch"]`: first uuid, lines, sub-agent
  spawns); its responses are still billed (`usage` with `extra["branch"] = "abandoned"`);
  the sub-agents it spawned are counted there, not read. A rewind with nothing written
  after it, where the file says so (Qoder CLI's `active-leaf` line with `explicit` and
  `rewound`, the newest in the last 64 KiB), ends the chain at its kept leaf instead. Knowing the chain takes a first
  pass over the whole file (the survey); a big file's survey is kept (`passcache`) and
  the next read surveys only the lines added since.
- Sub-agents: a `subagent` event at the Task/Agent call, then the child's events (any
  depth) merged by time. 1.0 side chains are matched to their call by prompt, and so is a
  file that no meta file or result in the lead's file links (a nested sub-agent whose
  `.meta.json` is lost): its first user line is the call's prompt. Children nothing
  links to are announced by a `subagent` event without a call id. An observer (2.1.33x:
  `isObserver` in its meta; a background agent started beside one whose definition names
  it, fed that agent's activity, left out of Claude Code's agents view) is announced so with
  `extra["observer"]`; its requests are billed as any agent's.
- A REPL script's own tool calls (2.1.33x) are `isVirtual` lines, model `<synthetic>`, no
  tokens: their `tool_call` and `tool_result` events carry `extra["virtual"]` (and
  `extra["ran_by"]`, the script's call, from `ranByToolUseId`); nothing of theirs is billed.
- Harness text on `isMeta` user lines (a slash command's expansion), and a background task's
  `<task-notification>` (an `origin.kind` or queued `commandMode` that is not a person), is a
  `user` event with `extra["injected"]`; a prompt queued while the agent was busy, one with
  `extra["queued"]`. A `microcompact_boundary` (old tool outputs cleared) is a compaction,
  as is a `tool_results_cut` attachment (2.1.33x: outputs replaced by a stand-in for the
  model after time away, `extra["reason"]`). A `model_fallback` or `model_consent_fallback`
  line (2.1.33x) is a `meta` event naming both models, as `model_refusal_fallback` is;
  a `subagent_file_changes` line (2.1.337: the files sub-agents and Stop hooks changed in
  a turn) a `meta` event naming them, `extra["changed_files"]` their count.
  A lead's user line with `entrypoint: "sdk-cli"` (`claude -p`, print mode; the TUI writes
  `"cli"`, the Agent SDKs `"sdk-ts"`/`"sdk-py"`, whose hosts may be chat windows) is a
  `user` event with `extra["headless"]`: no one types, and its process runs until its
  background agents are done.
- Agent teams: a user line made of `<teammate-message teammate_id="…">` envelopes (public
  transcripts of 2.1.x; no real capture here) is one `user` event per message with
  `extra["from_agent"]` = its sender, or a `meta` line when the body is a JSON protocol
  note (idle, shutdown). So are the messages of a `teammate_mailbox` attachment (what
  arrived while the agent was busy) and a queued prompt that is such an envelope.
- Turn ends come from `stop_reason: end_turn` or, failing that, `system/turn_duration`.
  A compaction is the boundary line plus the summary that follows it, as one event.
  Model, permission mode, mode, cwd and branch changes are `meta` events, as is a pull
  request link (once per link: session state is written again at each save).
- Sent to the background (`/background`, `--bg`, 2.1.261+), a conversation is forked under
  a new id and this file ends with `continued-in` naming it: a `meta` event, the listing's
  `extra["continued_in"]` and a note on resume. `ended-by-model` (the model closed the
  conversation) is a `meta` event, as is each session a `derived-from` entry (2.1.33x)
  names as this one's origin (`extra["derived_from"]`, `extra["via"]`: branch, resume…); one
  made by `branch` or `fork` is also the listing's `extra["forked_from_id"]`.
- Forks (`--fork-session`, `/branch`): the new file opens with the lines it copied, under its
  own `sessionId`, each stamped `forkedFrom: {sessionId, messageUuid}`. The listing takes the
  first from the head (`extra["forked_from_id"]`); `read` shows the copied turns after one
  `meta` note naming the source, and bills a copied response only when the source's file
  is not beside the fork's; `usage` bills it to the source's file (the original beats the
  copy, `UsageRecord.copied`), to the fork only where no original is left.
- Ignored on purpose: titles, `last-prompt`, `queue-operation`, file history, `progress`
  and the rest of `IGNORED_TYPES`, harness attachments (`IGNORED_ATTACHMENTS`), hook and
  session-start system lines (`IGNORED_SYSTEM`), all in `_claude_records`. Anything else
  goes to `diagnostics.unknown_type`. Agents a Workflow run launched
  (`subagents/workflows/<run>/agent-*.jsonl`) are read as sub-agents; the run's
  `journal.jsonl` is not. A read from `offset` > 0 skips the survey: no branch pruning, no sub-agent
  files, and 1.0 side-chain lines get their `agentId`, or "sidechain".

Resume: `claude --resume <id>` in the session's folder, with `--model` and `--effort`;
a recorded permission mode only when it is at least as strict as the default. The id is the
file's name, which Claude Code looks the transcript up by (a copy under another UUID name
resumes, under that name: 2.1.332, real run); a transcript renamed to no UUID and away from
its lines' `sessionId` (`backup.jsonl`) gets no command, since `--resume backup` would search
titles, but `resume_refusal`: the name to give it back.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from .. import files, folders, shells
from ..bytesearch import find, rfind
from ..diagnostics import Diagnostics, at_byte
from ..model import Event, JSONValue, ResumePlan, Session
from . import _claude_records as rec
from . import _claude_spawns
from ._values import one_line, type_tag
from .base import (
    DroppedLine,
    Home,
    Location,
    Opened,
    ResumeFlags,
    SessionFollow,
    UsageRecord,
    UsageScan,
    opened_by_flags,
)

NAME = "claude"
TITLE = "Claude Code"
CHECKED_WITH = (
    "Claude Code 1.0.98 to 2.1.197 and 2.1.332 (real files), record catalogue up to 2.1.220, "
    "2.1.289-2.1.292 record types from third-party readers of real files, "
    "2.1.332's /rename sidecar, its tables of transcript entry types, its set of context "
    "attachments, its host-row, fallback and cut-tool-results writers from its program "
    "text, 2.1.337's tables of entry types, context attachments and its "
    "subagent_file_changes writer from its program text, advisor usage iterations from "
    "Anthropic's API documentation"
    "; resume checked against 2.1.197's and 2.1.332's --help"
)
NEWEST_CHECKED = "2.1.337"  # doctor names versions past it
ENV_VARS = ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("claude",)
SCAN_NOTED = True  # locate reads the environment, scan only lists (see base.py)

PROGRAM = "claude"
INSTALL_HINT = "npm install -g @anthropic-ai/claude-code"
# Modes at least as strict as the default (ask before acting); the others loosen it.
STRICT_MODES = frozenset({"default", "manual", "plan", "dontAsk"})
LOOSE_MODES = frozenset({"acceptEdits", "auto", "bypassPermissions"})
# 2.1.3xx calls the default mode `manual` and still takes `default` (unlisted); 2.1.197 and
# older refuse `manual`: a session's `manual` resumes as `default`, which both accept
MODE_SPELLING = {"manual": "default"}
# how a running claude says which session it has open (2.1.197's and 2.1.332's --help)
RESUME_FLAGS = ResumeFlags(
    resume=("-r", "--resume"),
    latest=("-c", "--continue"),
    fork=("--fork-session",),
    new_id=("--session-id",),
)

# tail keys: a line holding one is parsed while its field is unknown
CUSTOM_TITLE = b'"customTitle"'
AI_TITLE = b'"aiTitle"'
TIMESTAMP = b'"timestamp"'
VERSION = b'"version"'
ASSISTANT = b'"assistant"'
EFFORT = b'"effort"'
PERMISSION_MODE = b'"permissionMode"'
LEAF_UUID = b'"leafUuid"'  # head only: a 1.0 summary names its conversation's leaf
SUMMARY_LINE = b'{"type":"summary",'  # how a 1.0 summary record's line starts
_SUMMARY_SPACED = re.compile(rb'\{\s*"type"\s*:\s*"summary"\s*,')  # a re-written one
CONTINUED_IN = b'"continuedInSessionId"'  # tail only: sent to the background (2.1.261+)
FORKED_FROM = b'"forkedFrom"'  # head only: a fork's copied lines name their source
DERIVED_FROM = b'"derived-from"'  # 2.1.33x: the sessions this one's data came from
FORK_VIAS = ("branch", "fork")  # of those, the ways a fork was made (not clear, resume)
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # never shell words
_UUID = re.compile(
    r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
)  # a session id
_RECORDED_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,128})"')  # a line's own
TITLES = b'Title"'  # the end of both title keys: one search while neither is known
EFFORT_SINCE = (2, 1, 212)  # the first Claude Code that writes `effort`
SIDECAR = "custom-title.json"  # `/rename`'s name, in the session's folder (2.1.3xx)
# how a title record too long to parse (a pasted text as a name) starts, as Claude Code
# writes it: its type, then its title
_LONG_TITLE = re.compile(
    rb'\{\s*"type"\s*:\s*"(custom-title|ai-title)"\s*,\s*"(customTitle|aiTitle)"\s*:\s*"'
)
_TITLE_KEYS = {b"custom-title": b"customTitle", b"ai-title": b"aiTitle"}
_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = json.JSONDecoder()
HEAD_PROBE = files.LINE_CAP  # one read that holds the 80 head lines of most transcripts

# (block, where the line starts in it, the line, whether a newline ends it) -> its record
_Load = Callable[["_Block", int, bytes, bool], dict[str, object] | None]


def locate(home: Home) -> Location:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude` and the XDG `~/.config/claude` (ccusage reads
    both: some installs keep their transcripts there). Where one links to the other, a
    session found twice is one (the index merges by id, `usage` by response)."""
    override = home.env_dir("CLAUDE_CONFIG_DIR")
    if override is not None:
        return Location(override, f"CLAUDE_CONFIG_DIR={override}")
    return Location(
        home.path / ".claude",
        also=(home.xdg("config") / "claude",),
        keeps=(
            home.path / ".claude.json",
        ),  # its settings; inside an override's folder
    )


def project_folders(location: Location) -> list[Path]:
    """Each config folder's `projects/` that is there."""
    return [
        root / "projects"
        for root in (location.root, *location.also)
        if folders.dir_at(root / "projects")
    ]


def scan(location: Location) -> Iterator[str]:
    """Transcripts `projects/*/*.jsonl`, and sub-agent files (listed under their parent).

    Sub-agents live in `<session>/subagents/agent-<id>.jsonl` (2.1) or beside the parent as
    `agent-<id>.jsonl` (2.0); they are indexed with `parent_id` set, so `list` hides them
    and `list --all`, `show <agent id>` and the live view find them. A `/rename` sidecar
    (`<session>/custom-title.json`) is listed too, as its transcript's companion (see
    `companion_of`). Paths are plain strings: a big home has tens of thousands of them.
    """
    if not location.exists:
        return
    for projects in project_folders(location):
        yield from _scan_projects(projects.parent)


def _scan_projects(root: Path) -> Iterator[str]:
    for project in folders.entries(root / "projects", root):
        if not project.is_dir():
            continue
        listed = folders.entries(project.path, root)
        names = {entry.name for entry in listed}
        for entry in listed:
            name = entry.name
            if name.endswith(".jsonl") and folders.file_entry(entry):
                yield entry.path
            elif entry.is_dir():
                # a session's `/rename` sidecar: probed (one stat on a warm list) only
                # where the session has a folder; creating the folder changes the
                # project folder, which is noted already
                sidecar = entry.path + "/" + SIDECAR
                if name + ".jsonl" in names and folders.is_file(sidecar):
                    yield sidecar
                subagents = entry.path + "/subagents"
                for child in folders.entries(subagents, root, nested=True):
                    if (
                        child.name.startswith("agent-")
                        and child.name.endswith((".jsonl", META))
                        and folders.file_entry(child)
                    ):
                        yield child.path  # a .meta.json: a companion


META = ".meta.json"  # a sub-agent's, beside its transcript
# where `scan` reads a transcript or a folder of them (see base.py): a broken link
# elsewhere (a note beside them) hides no session
SESSION_NAMES = (
    "projects",
    "projects/*",
    "projects/*/*.jsonl",
    "projects/*/*/subagents/agent-*.jsonl",
)


def companion_of(path: str) -> str | None:
    """The transcript whose listing a `/rename` sidecar (`<id>/custom-title.json`) or a
    sub-agent's `.meta.json` changes: `parse` reads it with the transcript, so the index
    reads that again when it changes (a rename may write nothing else)."""
    folder, base = os.path.split(path)
    if base == SIDECAR:
        return folder + ".jsonl"
    # a sub-agent's .meta.json (its type and title), rewritten alone
    if base.endswith(META) and os.path.basename(folder) == "subagents":
        return os.path.join(folder, base[: -len(META)] + ".jsonl")
    return None


# only 1.0 wrote a summary at a new transcript's head, and no transcript gains one later:
# one deleted (Claude Code's clean-up of old ones) is what retitles the others today
KIN_GONE = True
# its sub-agents are merged in among the lead's events by time (`_merge`)
SUBAGENTS_BY_TIME = True


def kin_of(path: str) -> str | None:
    """A project's folder, for its transcripts: a 1.x one's title may be the summary
    another opens with (`_title_beside`), so one deleted reads the others again."""
    folder, base = os.path.split(path)
    if not base.endswith(".jsonl") or base.startswith("agent-"):
        return None
    if os.path.basename(os.path.dirname(folder)) != "projects":
        return None
    return folder


def usage_files(location: Location) -> Iterator[str]:
    """Every transcript under `projects/`: main files, sub-agent files of every era."""
    if not location.exists:
        return
    for projects in project_folders(location):
        yield from _transcripts(projects)


def usage_records(
    path: Path,
    diagnostics: Diagnostics,
    *,
    offset: int = 0,
    state: dict[str, JSONValue] | None = None,
    explain: bool = False,
    fold: Callable[[UsageRecord], None] | None = None,
    drop: Callable[[DroppedLine], None] | None = None,
) -> UsageScan:
    """The `sessdex usage` hook: `_claude_usage.usage_records`."""
    # here: every full list loads this module, and counts no usage (msgspec's structs)
    from ._claude_usage import usage_records as records

    return records(
        path,
        diagnostics,
        offset=offset,
        state=state,
        explain=explain,
        fold=fold,
        drop=drop,
    )


def _transcripts(projects: Path) -> Iterator[str]:
    root = projects.parent
    stack = [str(projects)]
    while stack:
        folder = stack.pop()
        subfolders = []
        # noted (`entries`): a warm `usage` trusts the listing while these hold
        for entry in folders.entries(folder, root):  # no link out of it
            if entry.is_dir():
                subfolders.append(entry.path)
            elif entry.name.endswith(".jsonl"):
                yield entry.path
        stack.extend(reversed(subfolders))


@dataclass(slots=True)
class _Listing:
    """What the head, or the tail, of one transcript says; `parse` lets the tail win."""

    created: datetime | None = None
    copied: datetime | None = (
        None  # a fork's last copied line in the head (`forkedFrom`)
    )
    updated: datetime | None = None
    cwd: str | None = None
    branch: str | None = None
    version: str | None = None
    prompt: str | None = None
    command: str | None = None
    custom_title: str | None = None
    ai_title: str | None = None
    summaries: list[tuple[str, str]] = field(default_factory=list)
    model: str | None = None
    effort: str | None = None
    permission_mode: str | None = None
    conversation: bool = False
    session_ref: str | None = (
        None  # `sessionId` on the lines: the parent's, in a sub-agent file
    )


@dataclass(slots=True)
class _Block:
    """Lines of a transcript held unsplit in `data`, found by searching it, not split.

    The lines run from `begin` to `end`; `data` starts at file offset `start`. A line at a
    file offset below `numbered_below` has a known number (1 at `begin`), others their
    byte (`at_byte`). In a head, each line `files.split_head` passed over (too long) is
    left empty, and `holes` lists (position, shift to add from there on) to map back to
    file offsets.
    """

    data: bytes
    start: int
    begin: int
    end: int
    numbered_below: float
    holes: tuple[tuple[int, int], ...] = ()
    # position -> first bytes of each line `files.split_head` left empty (too long)
    openings: dict[int, bytes] = field(default_factory=dict)

    @classmethod
    def tail(cls, start: int, data: bytes, whole: bool) -> _Block:
        """The tail read: past the piece the read may have cut (when it began mid-file)."""
        begin = 0
        if start > 0:
            newline = data.find(b"\n")
            begin = newline + 1 if newline >= 0 else len(data)
            # a record after written zeros in the cut piece: its line, from their last
            # NUL, as every reader starts it (`files.glued_in`)
            if newline > 0 and data.find(b"\x00", 0, newline) >= 0:
                last, _ = files.glued_in(b"", data[:newline])
                begin = begin if last is None else last
        return cls(data, start, begin, len(data), math.inf if whole else 0)

    @classmethod
    def of_head(cls, head: files.Head) -> _Block:
        """The lines `files.split_head` read, numbered from 1."""
        openings = {head.ends[index]: data for index, data in head.openings.items()}
        return cls(head.data, 0, 0, head.end, math.inf, tuple(head.shifts), openings)

    def head(self) -> _Block:
        """The first HEAD_LINES lines of this block (past its opening summaries): the
        head of a file read whole."""
        lines = files.HEAD_LINES + _opening_summaries(self.data, self.begin)
        position, left = _skip_lines(self.data, self.begin, lines)
        if left:  # fewer lines: the last one may lack its newline
            position = self.end
        return _Block(self.data, self.start, self.begin, position, self.numbered_below)

    def offset(self, position: int) -> int:
        """The file offset of `position` in `data`."""
        if not self.holes:  # all but a head read past a too-long line
            return self.start + position
        shift = 0
        for at, moved in self.holes:
            if at > position:
                break
            shift = moved
        return self.start + position + shift

    def number(self, position: int) -> int:
        """The number of the line starting at `position`, or where it is not known (in a
        tail), its byte (`at_byte`): line 0 names the whole file."""
        offset = self.offset(position)
        if offset >= self.numbered_below:
            return at_byte(offset)
        return self.data.count(b"\n", self.begin, position) + 1

    def line_start(self, position: int) -> int:
        """Where the line holding `position` starts."""
        return self.data.rfind(b"\n", self.begin, position) + 1 or self.begin

    def long_title(self, begin: int, stop: int) -> dict[str, object] | None:
        """The title record on the line from `begin` to `stop` when it is too long to
        parse: from its first bytes, held here or kept by the head read that emptied it."""
        if stop - begin > files.LINE_CAP:
            return _long_title(self.data[begin : begin + files.OPENING])
        if begin == stop and (opening := self.openings.get(begin)) is not None:
            return _long_title(opening)
        return None

    def cut_record(self, begin: int, stop: int) -> dict[str, object] | None:
        """The record on the line from `begin` to `stop` when it is too long to parse, as
        far as its first bytes go (`files.closed_opening`: its last string cut short)."""
        if stop - begin > files.LINE_CAP:
            opening: bytes | None = self.data[begin : begin + files.OPENING]
        else:
            opening = self.openings.get(begin) if begin == stop else None
        closed = files.closed_opening(opening) if opening else None
        if closed is None:
            return None
        try:
            record = files.loads(closed)
        except ValueError:  # orjson's error is one
            return None
        return record if isinstance(record, dict) else None


def _long_title(opening: bytes) -> dict[str, object] | None:
    """A custom or AI title record from the first bytes of its line (files.OPENING, more
    than a listed title shows): its title is the start of the text."""
    match = _LONG_TITLE.match(opening)
    if match is None or _TITLE_KEYS[match[1]] != match[2]:
        return None
    body = opening[match.end() :].decode("utf-8", "replace")
    # the read may have cut an escape (`\u00e9`, a surrogate pair: 12 characters)
    for cut in range(min(len(body), 12) + 1):
        try:
            text, _ = _DECODER.raw_decode('"' + body[: len(body) - cut] + '"')
        except ValueError:
            continue
        if not isinstance(text, str):
            return None
        if text and "\ud800" <= text[-1] <= "\udbff":
            text = text[:-1]  # an emoji's first half, its second cut off by the read
        kind = match[1].decode()
        return {"type": kind, match[2].decode(): _SURROGATE.sub("\ufffd", text)}
    return None


def parse(
    path: Path,
    location: Location,
    diagnostics: Diagnostics,
    *,
    summaries_beside: bool = True,
) -> list[Session]:
    """One session per transcript (a sub-agent's under its parent), from its two ends only.
    Without `summaries_beside` (an app in this format whose 1.x is no Claude Code 1.0),
    no other transcript's opening summary titles it."""
    name = str(path)
    if companion_of(name) is not None:
        return []  # a sidecar speaks through its transcript's listing
    try:
        size, head, tail = _blocks(name)
    except FileNotFoundError:
        diagnostics.skip(name, 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(name, 0, "unreadable")
        return []
    loaded: dict[int, dict[str, object] | None] = {}

    def load(
        block: _Block, begin: int, data: bytes, complete: bool
    ) -> dict[str, object] | None:
        offset = block.offset(begin)
        if offset in loaded:  # head and tail may share lines: parse and count once
            return loaded[offset]
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            record: dict[str, object] | None = value
        else:  # read leniently and counted (damaged, skipped) under its number, found
            # only now: rare
            record = rec.load(data, complete, block.number(begin), diagnostics, name)
        loaded[offset] = record
        return record

    stem = path.stem
    agent = stem.startswith("agent-")
    meta: object = None
    if agent:  # the .meta.json beside it (string work: pathlib is slow per call)
        meta_name = os.path.join(os.path.dirname(name), stem + ".meta.json")
        meta = files.read_json_file(meta_name, 1024 * 1024, diagnostics=diagnostics)
    # a sub-agent's description is its title: then no title record can matter
    titled = isinstance(meta, dict) and rec.string(meta.get("description")) is not None
    late = _Listing()  # what the tail says
    _read_tail(tail, load, late, titles=not titled)
    _load_unfinished(tail, load)
    found = _Listing()  # what the head says
    _read_head(head, load, found, late, titles=not titled)
    if not (found.conversation or late.conversation):
        # only bookkeeping (1.0's summary-only files): nothing to list; or every line
        # that would have said more was too long to read, which is said
        for _ in head.holes if head is not tail else ():
            diagnostics.skip(name, 0, "too long")
        return []
    title = (
        late.custom_title
        or (None if agent else _renamed(name, diagnostics))
        or found.custom_title
        or late.ai_title
        or found.ai_title
        or _leaf_title(found.summaries, head, tail)
        or (
            None
            if agent or not summaries_beside
            else _title_beside(name, late.version, head, tail)
        )
        or found.prompt
        or found.command
    )
    session_id, parent_id, agent_type = stem, None, None
    extra: dict[str, JSONValue] = {}
    if moved := _continued_in(tail, load):
        extra["continued_in"] = moved
    if not agent and (
        source := _forked_from(head, load, stem)
        or _derived_from(head, tail, load, stem)
    ):
        extra["forked_from_id"] = source
    if agent:
        session_id = stem[len("agent-") :]
        in_folder = path.parent.name == "subagents"
        parent_id = path.parent.parent.name if in_folder else found.session_ref
        if isinstance(meta, dict):
            agent_type = rec.string(meta.get("agentType"))
            parent_id = rec.string(meta.get("parentAgentId")) or parent_id
            title = rec.string(meta.get("description")) or title
            if meta.get("isObserver") is True:
                extra["observer"] = True  # 2.1.33x: it watches another, given no work
        metaless = in_folder and not isinstance(meta, dict)
        task = _task_prompt(head, load) if title is None or metaless else None
        if metaless:
            # its meta file is lost: a sibling's call may have spawned it (as `tree` links)
            spawn = _claude_spawns.spawner(name, session_id, task, found.created)
            if spawn is not None:
                parent_id, agent_type = spawn.agent, spawn.agent_type
                title = spawn.description or title
        if parent_id is None or parent_id == session_id:
            return []  # a side file we cannot place: its parent reads it
        if agent_type is None and parent_id == found.session_ref:
            # no meta file names its type: the lead's call does, where its ends hold
            # it; the index looks it up there, so that the lead grown alone types it
            task = task or _task_prompt(head, load)
            if task:
                extra["spawn_key"] = _claude_spawns.task_key(task)
        if title is None:  # a sub-agent's task prompt is its title
            title = task
    else:  # what its calls asked for: the type of each sub-agent that names none
        ends = [(tail.data[tail.begin : tail.end], True)]
        if head is not tail:
            ends.append((head.data[head.begin : head.end], True))
        extra["spawn_types"] = dict(_claude_spawns.types_by_task(ends, name))
    return [
        Session(
            app=NAME,
            id=session_id,
            parent_id=parent_id,
            agent_type=agent_type,
            path=name,
            cwd=found.cwd or late.cwd,
            branch=late.branch or found.branch,
            title=one_line(title),  # cut with "…", which says so
            created=found.created or found.copied or late.updated,
            updated=late.updated or found.created,
            model=late.model,
            effort=late.effort,
            permission_mode=late.permission_mode,
            cli_version=late.version,
            bytes=size,
            extra=extra,
        )
    ]


def _load_unfinished(tail: _Block, load: _Load) -> None:
    """Load a last line with no newline yet, whatever it holds: one that does not parse is
    then noted as unfinished (the app may still be writing it), for `doctor` and
    --verbose to say, where no search of the tail would have met it."""
    data, end = tail.data, tail.end
    if end <= tail.begin or data[end - 1] == 0x0A:  # none, or it ends in a newline
        return
    if data[end - 1] == 0:  # a hole the file ends in (`files.tail_read`): not written
        return
    begin = tail.line_start(end)
    load(tail, begin, data[begin:end], False)


def _continued_in(tail: _Block, load: _Load) -> str | None:
    """The session this one continued in, when its last lines say so.

    Sending a conversation to the background (`/background`, `--bg`) forks it under a new
    id and closes this file with `{"type":"continued-in","continuedInSessionId":…}`:
    what was said after lives in the other session."""
    data = tail.data
    hit = rfind(data, CONTINUED_IN, tail.begin, tail.end)
    if hit < 0:
        return None
    begin = tail.line_start(hit)
    newline = data.find(b"\n", hit, tail.end)
    stop = newline if newline >= 0 else tail.end
    record = load(tail, begin, data[begin:stop], newline >= 0)
    if record is None or record.get("type") != "continued-in":
        return None
    moved = rec.string(record.get("continuedInSessionId"))
    return moved if moved and _SESSION_ID.fullmatch(moved) else None


def _forked_from(head: _Block, load: _Load, session_id: str) -> str | None:
    """The session this one was forked from (`--fork-session`, `/branch`): the fork's file
    opens with the lines it copied, each stamped `forkedFrom: {sessionId, messageUuid}`."""
    data = head.data
    hit = find(data, FORKED_FROM, head.begin, head.end)
    if hit < 0:
        return None
    begin = head.line_start(hit)
    newline = data.find(b"\n", hit, head.end)
    stop = newline if newline >= 0 else head.end
    record = load(head, begin, data[begin:stop], newline >= 0)
    fork = record.get("forkedFrom") if record is not None else None
    source = rec.string(fork.get("sessionId")) if isinstance(fork, dict) else None
    if source and source != session_id and _SESSION_ID.fullmatch(source):
        return source
    return None


def _derived_from(
    head: _Block, tail: _Block, load: _Load, session_id: str
) -> str | None:
    """The session this one was branched or forked from, by its `derived-from` entry.

    2.1.33x writes `{"type":"derived-from","v":1,"sessionId":…,"sessions":[{"type":
    "claude_code_session","id":…,"via":"branch"}, …]}` again at each save (the last
    wins): `via` is `branch` or `fork` for a fork, `clear`/`resume`/`import` otherwise.
    The tail's last entry is looked at, else the head's first."""
    for block, search in ((tail, rfind), (head, find)):
        data = block.data
        hit = search(data, DERIVED_FROM, block.begin, block.end)
        if hit < 0:
            continue
        begin = block.line_start(hit)
        newline = data.find(b"\n", hit, block.end)
        stop = newline if newline >= 0 else block.end
        record = load(block, begin, data[begin:stop], newline >= 0)
        if record is None or record.get("type") != "derived-from":
            continue
        sessions = record.get("sessions")
        for item in sessions if isinstance(sessions, list) else ():
            if not isinstance(item, dict) or item.get("type") != "claude_code_session":
                continue
            origin = rec.string(item.get("id"))
            if (
                item.get("via") in FORK_VIAS
                and origin
                and origin != session_id
                and _SESSION_ID.fullmatch(origin)
            ):
                return origin
        return None  # the newest entry names no fork's source
    return None


def _blocks(path: str) -> tuple[int, _Block, _Block]:
    """(size, head, tail) from one open; a file within TAIL_BYTES is read once, as both.

    The tail is the last TAIL_BYTES; the head, the first HEAD_LINES lines, from one
    HEAD_PROBE read when they fit (`files.split_head`: a line over LINE_CAP, a pasted
    image, is passed over without being held).
    """
    with files.open_regular(path, buffering=0) as stream:
        files.ends_only(stream)  # no readahead from disk past the head
        status = os.fstat(stream.fileno())
        size = status.st_size
        if size <= files.TAIL_BYTES:  # the tail is the whole file: read it once
            tail = _Block.tail(0, stream.read(files.TAIL_BYTES), whole=True)
            return size, tail.head(), tail
        end = files.data_end(stream, status)
        if end <= files.TAIL_BYTES:
            # all its data lies before a hole it ends in, within reach: read once too
            tail = _Block.tail(*files.tail_read(stream, status, end=end), whole=True)
            return size, tail.head(), tail
        probe = stream.read(HEAD_PROBE)
        lines = files.HEAD_LINES + _opening_summaries(probe, 0)
        split = files.split_head(probe, stream, whole=False, max_lines=lines)
        start, data = files.tail_read(stream, os.fstat(stream.fileno()))
        tail = _Block.tail(start, data, whole=False)
    head = _Block.of_head(split)
    # a head line inside the tail's span has no known number there; when the tail holds
    # no whole line (one huge last line), the head's lines keep theirs
    if tail.begin < tail.end:
        head.numbered_below = tail.start + tail.begin
    return size, head, tail


def _opening_summaries(data: bytes, position: int) -> int:
    """How many whole lines from `position` are 1.0 `summary` records. 1.0 opened a new
    transcript with one for each earlier conversation of the project still lacking one
    (summaries of other files): a busy project's can fill more than the head's lines."""
    count = 0
    while _is_summary(data, position):
        newline = data.find(b"\n", position)
        if newline < 0:
            break
        position, count = newline + 1, count + 1
    return count


def _is_summary(data: bytes, position: int = 0) -> bool:
    """Whether the line at `position` starts as a 1.0 `summary` record: compact, as
    Claude Code writes it, or with other spacing (a file a tool re-wrote)."""
    if data.startswith(SUMMARY_LINE, position):
        return True
    return data.startswith(b"{", position) and bool(
        _SUMMARY_SPACED.match(data, position)
    )


def _skip_lines(data: bytes, position: int, lines: int) -> tuple[int, int]:
    """(where the `lines` whole lines from `position` end, how many of them were missing)."""
    find = data.find
    for done in range(lines):
        newline = find(b"\n", position)
        if newline < 0:
            return position, lines - done
        position = newline + 1
    return position, 0


def _renamed(name: str, diagnostics: Diagnostics) -> str | None:
    """The name `/rename` keeps beside the transcript (2.1.3xx: `<id>/custom-title.json`,
    `{"customTitle": …}`), which Claude Code's list takes when the tail holds none: the
    title record may sit mid-file, or its append may have failed."""
    stem, _ = os.path.splitext(name)
    sidecar = files.read_json_file(
        os.path.join(stem, SIDECAR), 64 * 1024, diagnostics=diagnostics
    )
    return rec.string(sidecar.get("customTitle")) if isinstance(sidecar, dict) else None


def _leaf_title(
    summaries: list[tuple[str, str]], head: _Block, tail: _Block
) -> str | None:
    """The last 1.0 `summary` whose leaf line is among the lines read, if any."""
    title = None
    for leaf, summary in summaries:
        value = b'"' + leaf.encode() + b'"'
        if rec.holds(tail.data, b"uuid", value, tail.begin) or rec.holds(
            head.data, b"uuid", value, head.begin, head.end
        ):
            title = summary
    return title


# 1.0 wrote a conversation's summary into the next transcript of its project, at its head:
# the conversation's own file never holds it. Summaries beside are looked up for 1.x files.
_SUMMARIZED_VERSIONS = ("0.", "1.")
_UUID_VALUE = re.compile(rb'"uuid":"([^"\\]{1,128})"')
_UUID_SPACED = re.compile(rb'"uuid"\s*:\s*"([^"\\]{1,128})"')  # a re-written file's
SUMMARIES_READ = 1 << 20  # of one file's opening summaries: a busy project's fill KBs
_FolderState = tuple[int, int]  # a folder's mtime and inode: its entries unchanged
_beside: dict[str, tuple[_FolderState, dict[str, str]]] = {}  # per folder, this process


def _title_beside(
    name: str, version: str | None, head: _Block, tail: _Block
) -> str | None:
    """A 1.x conversation's summary, written at the head of another transcript of its
    project (the next one 1.0 started): the one naming the newest of its lines that one
    names. Claude Code's picker showed it as the conversation's title."""
    if not version or not version.startswith(_SUMMARIZED_VERSIONS):
        return None
    summaries = _summaries_beside(os.path.dirname(name))
    if not summaries:
        return None
    for block in (tail, head):  # newest lines first
        data = block.data[block.begin : block.end]
        named = _UUID_VALUE.findall(data)
        if not named and b'"uuid"' in data:  # not compact JSON
            named = _UUID_SPACED.findall(data)
        for found in reversed(named):
            title = summaries.get(found.decode("utf-8", "replace"))
            if title:
                return title
    return None


def _summaries_beside(folder: str) -> dict[str, str]:
    """leafUuid -> summary, from the opening summary lines of the folder's transcripts (the
    newest file's wins), kept per process while the folder's entries stay the same."""
    try:
        st = os.stat(folder)
    except OSError:
        return {}
    state = (st.st_mtime_ns, st.st_ino)
    kept = _beside.get(folder)
    if kept is not None and kept[0] == state:
        return kept[1]
    transcripts = []
    for entry in folders.listing(folder):
        if entry.name.endswith(".jsonl") and not entry.name.startswith("agent-"):
            try:
                transcripts.append((entry.stat().st_mtime_ns, entry.path))
            except OSError:
                continue
    summaries: dict[str, str] = {}
    for _, path in sorted(transcripts):
        summaries.update(_opening_summary_map(path))
    if len(_beside) > 64:  # a long-lived process walks many projects: keep it bounded
        _beside.clear()
    _beside[folder] = (state, summaries)
    return summaries


def _opening_summary_map(path: str) -> dict[str, str]:
    """leafUuid -> summary of the `summary` lines a transcript opens with."""
    try:
        with files.open_regular(path) as stream:
            if not _is_summary(stream.read(64)):
                return {}  # the common case: one small read
            stream.seek(0)
            data = stream.read(SUMMARIES_READ)
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in data.split(b"\n"):
        if not _is_summary(line):
            break  # the conversation starts: no summary follows
        record = rec.load(line, True, 0, None, path)
        if record is None or record.get("type") != "summary":
            continue
        leaf, summary = (
            rec.string(record.get("leafUuid")),
            rec.string(record.get("summary")),
        )
        if leaf and summary:
            found[leaf] = summary
    return found


def _task_prompt(head: _Block, load: _Load) -> str | None:
    """The text of the head's first `user` line: a sub-agent's task."""
    data, end = head.data, head.end
    hit = find(data, b'"user"', head.begin, end)
    while hit >= 0:
        begin = head.line_start(hit)
        newline = data.find(b"\n", hit, end)
        stop = newline if newline >= 0 else end
        if stop - begin > files.LINE_CAP:  # a record after written zeros in it?
            begin = files.glued_start(data, begin, stop)
        record = load(head, begin, data[begin:stop], newline >= 0)
        if record is not None and record.get("type") == "user":
            return rec.message_text(record)
        hit = find(data, b'"user"', stop, end)
    return None


def _read_head(
    head: _Block, load: _Load, found: _Listing, late: _Listing, *, titles: bool
) -> None:
    """Titles anywhere in the head; created, cwd, branch and prompt from its first lines.

    `late` is what the tail said: once the first lines settle the rest, the rest of the
    head is searched, key by key, only for the titles that could still name the session.
    Without `titles` (a sub-agent named by its description), the head's first lines are
    read only for created, cwd, branch and the parent's session id.
    """
    data, position, end = head.data, head.begin, head.end
    while position < end:
        begin = position
        newline = data.find(b"\n", begin, end)
        stop = newline if newline >= 0 else end
        position = stop + 1
        if stop - begin > files.LINE_CAP:  # a record after written zeros in it?
            begin = files.glued_start(data, begin, stop)
        if stop - begin > files.LINE_CAP or begin == stop:
            if titles and (named := head.long_title(begin, stop)) is not None:
                _title(named, named["type"], found)
            elif titles and found.prompt is None:
                # a first prompt with a long paste or an image: what its first bytes
                # hold (only that: a string of its other fields may be the one cut)
                cut = head.cut_record(begin, stop)
                if cut is not None and type_tag(cut.get("type")) == "user":
                    found.prompt, command = rec.prompt(cut)
                    found.command = found.command or command
            continue
        line = data[begin:stop]
        if TIMESTAMP not in line and not (
            CUSTOM_TITLE in line or AI_TITLE in line or LEAF_UUID in line
        ):
            continue
        record = load(head, begin, line, newline >= 0)
        if record is None:
            continue
        kind = type_tag(record.get("type"))
        if _title(record, kind, found) or kind not in rec.CONVERSATION:
            continue
        found.conversation = True
        moment = rec.moment(record.get("timestamp"))
        if (
            "forkedFrom" in record
        ):  # copied by a fork: the source's time, not the fork's
            found.copied = moment or found.copied
        else:
            found.created = found.created or moment
        found.cwd = found.cwd or rec.string(record.get("cwd"))
        found.branch = found.branch or rec.string(record.get("gitBranch"))
        found.session_ref = found.session_ref or rec.string(record.get("sessionId"))
        if not titles:
            if found.created and found.cwd and found.branch and found.session_ref:
                return
            continue
        if kind == "user" and found.prompt is None:
            found.prompt, command = rec.prompt(record)
            found.command = found.command or command
        if found.created and found.cwd and found.branch and found.prompt:
            if late.custom_title:
                return  # the tail's custom title wins over anything here
            if late.ai_title or found.custom_title:
                keys: tuple[bytes, ...] = (CUSTOM_TITLE,)  # only it can still win
            elif found.ai_title:
                keys = (TITLES,)  # a newer AI title, or a custom one; no summary
            else:
                keys = (TITLES, LEAF_UUID)
            _head_titles(head, position, keys, load, found)
            return


def _head_titles(
    head: _Block,
    position: int,
    keys: tuple[bytes, ...],
    load: _Load,
    found: _Listing,
) -> None:
    """Title records in the head from `position` on: one search per key finds their lines;
    those too long to parse, from their first bytes (the emptied ones, in turn)."""
    data, end = head.data, head.end
    hits = [find(data, key, position, end) for key in keys]
    emptied = [at for at in head.openings if at >= position]
    while True:
        hit = min((hit for hit in hits if hit >= 0), default=-1)
        if emptied and (hit < 0 or emptied[0] < hit):
            at = emptied.pop(0)
            if (named := head.long_title(at, at)) is not None:
                _title(named, named["type"], found)
            continue
        if hit < 0:
            return
        begin = head.line_start(hit)
        newline = data.find(b"\n", hit, end)
        stop = newline if newline >= 0 else end
        if stop - begin > files.LINE_CAP:  # a record after written zeros in it?
            begin = files.glued_start(data, begin, stop)
        line = data[begin:stop]
        if len(line) > files.LINE_CAP:
            if (named := head.long_title(begin, stop)) is not None:
                _title(named, named["type"], found)
        elif (CUSTOM_TITLE in line or AI_TITLE in line or LEAF_UUID in line) and (
            record := load(head, begin, line, newline >= 0)
        ) is not None:
            _title(record, record.get("type"), found)
        hits = [
            find(data, key, stop, end) if 0 <= hit <= stop else hit
            for key, hit in zip(keys, hits, strict=True)
        ]


def _title(record: dict[str, object], kind: object, found: _Listing) -> bool:
    """Note a head title record (custom, AI, or a 1.0 summary); False for other kinds."""
    if kind == "custom-title":
        found.custom_title = rec.string(record.get("customTitle")) or found.custom_title
    elif kind == "ai-title":
        found.ai_title = rec.string(record.get("aiTitle")) or found.ai_title
    elif kind == "summary":
        leaf, summary = (
            rec.string(record.get("leafUuid")),
            rec.string(record.get("summary")),
        )
        if leaf and summary:
            found.summaries.append((leaf, summary))
    else:
        return False
    return True


def _read_tail(tail: _Block, load: _Load, found: _Listing, *, titles: bool) -> None:
    """Newest titles, settings and times, newest line first, parsing only what can help.

    A line is parsed when it holds the key of a field still unknown. Rather than test
    every line for every key, each wanted key is searched for backwards to its newest
    place; the newest of these places is the next line taken, and the keys it held are
    searched for again below it while still wanted. A search stops at its key's newest
    place, so no byte is searched twice for one key, and a key that is not there costs
    one pass. While neither title is known, one search for `Title"` stands for both
    title keys; once the custom title is known, the AI title no longer matters; without
    `titles`, neither does (a sub-agent named by its description). Lines are taken
    newest first, so each field is the newest line's, as if read in turn.
    """
    custom = ai = model = effort = mode = version = branch = cwd = None
    updated: datetime | None = None
    before_effort = False
    data, low = tail.data, tail.begin
    wanted = [TIMESTAMP, VERSION, ASSISTANT, PERMISSION_MODE]
    if titles:
        wanted.append(TITLES)
    hits: dict[bytes, int] = {}  # a key's newest place below `cursor`, or -1
    cursor = tail.end  # where the lines taken so far begin
    while True:
        for key in wanted:  # newly wanted, or its place was in the line just taken
            if hits.get(key, cursor) >= cursor:
                hits[key] = rfind(data, key, low, cursor)
        hit = max([hits[key] for key in wanted], default=-1)
        if hit < 0:
            break
        cursor = begin = data.rfind(b"\n", low, hit) + 1 or low
        newline = data.find(b"\n", hit)
        stop = newline if newline >= 0 else len(data)
        if stop - begin > files.LINE_CAP:  # a record after written zeros in it?
            begin = files.glued_start(data, begin, stop)
        titles_only = True  # only `Title"` led here: it may be some other key's end
        for key in wanted:
            if hits[key] >= begin and key != TITLES:
                titles_only = False
        if stop - begin > files.LINE_CAP:
            # a title too long to parse, found by its first bytes; any other line, passed
            record = tail.long_title(begin, stop) if titles else None
        else:
            line = data[begin:stop]
            if titles_only and CUSTOM_TITLE not in line and AI_TITLE not in line:
                continue
            record = load(tail, begin, line, newline >= 0)
        if record is None:
            continue
        kind = type_tag(record.get("type"))
        if kind == "custom-title":
            custom = custom or rec.string(record.get("customTitle"))
        elif kind == "ai-title":
            ai = ai or rec.string(record.get("aiTitle"))
        elif kind == "permission-mode":
            mode = mode or rec.string(record.get("permissionMode"))
        updated = updated or rec.moment(record.get("timestamp"))
        if kind in rec.CONVERSATION:
            found.conversation = True
            if version is None:
                version = rec.string(record.get("version"))
                before_effort = _before_effort(version)
            branch = branch or rec.string(record.get("gitBranch"))
            cwd = cwd or rec.string(record.get("cwd"))
            if kind == "user":
                mode = mode or rec.string(record.get("permissionMode"))
            if kind == "assistant" and (model is None or effort is None):
                message = record.get("message")
                used = (
                    rec.string(message.get("model"))
                    if isinstance(message, dict)
                    else None
                )
                if used and used != rec.SYNTHETIC:
                    model = model or used
                    effort = effort or rec.string(record.get("effort"))
        wanted = []
        if custom is None and titles:
            wanted.append(TITLES if ai is None else CUSTOM_TITLE)
        if updated is None:
            wanted.append(TIMESTAMP)
        if version is None or branch is None:
            wanted.append(VERSION)
        if model is None:
            wanted.append(ASSISTANT)
        if effort is None and model is not None and not before_effort:
            wanted.append(EFFORT)  # until `model` is known, ASSISTANT finds its lines
        if mode is None:
            wanted.append(PERMISSION_MODE)
    found.custom_title, found.ai_title, found.updated = custom, ai, updated
    found.version, found.branch, found.cwd = version, branch, cwd
    found.model, found.effort, found.permission_mode = model, effort, mode


@functools.lru_cache(maxsize=256)  # a home holds a few versions, thousands of files
def _before_effort(version: str | None) -> bool:
    """Whether `version` predates the `effort` field (so no line of it can hold one)."""
    if version is None:
        return False
    parts = version.split(".")[:3]
    if len(parts) < 3 or not all(part.isdigit() for part in parts):
        return False
    return tuple(int(part) for part in parts) < EFFORT_SINCE


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The session's events, sub-agents merged in by time (see the module docstring)."""
    path = Path(session.path) if session.path else None
    if path is None or not path.is_file():
        diagnostics.problem(f"{session.path}: the transcript vanished")
        return
    # here: every full list loads this module, and reads no transcript
    from . import _claude_read

    yield from _claude_read.read(
        path, session.id, diagnostics, full=full, offset=offset
    )


def follow(session: Session, diagnostics: Diagnostics) -> SessionFollow:
    """Live reading: the transcript and each sub-agent file, only appended lines (`_claude_follow`)."""
    from ._claude_follow import Follow

    return Follow(session, diagnostics)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`claude --resume <id>` in the session's folder, with its model, effort and a safe mode.

    A sub-agent has no resume of its own: None (its parent is the session to reopen).
    """
    if session.parent_id is not None or _renamed_from(session) is not None:
        return None
    argv = [PROGRAM, "--resume", session.id]
    notes: list[str] = []
    withheld: list[str] = []
    if session.model and session.model != rec.SYNTHETIC:
        argv += ["--model", session.model]
    if session.effort:
        argv += ["--effort", session.effort]
    mode = session.permission_mode
    if mode in STRICT_MODES or (mode in LOOSE_MODES and keep_permissions):
        argv += ["--permission-mode", MODE_SPELLING.get(mode, mode)]
    elif mode in LOOSE_MODES:
        withheld.append(f"--permission-mode {mode}")
    elif mode:
        notes.append(f"unknown permission mode {mode!r} left out")
    moved = session.extra.get("continued_in")
    if isinstance(moved, str) and moved:
        notes.append(
            f"this conversation went on in session {moved} (sent to the background): "
            "this opens it as it was before"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program=PROGRAM,
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )


def resume_refusal(session: Session) -> str | None:
    """Why a renamed transcript gets no `claude --resume <its name>`, and the way back."""
    recorded = _renamed_from(session)
    if recorded is None or session.path is None:
        return None
    name = os.path.basename(session.path)
    folder = os.path.dirname(session.path)
    told = (
        f"{name} holds session {recorded} under another name (renamed or copied): Claude "
        f"Code finds a session by its file name, {recorded}.jsonl, and reads "
        f"`{_typed_line('claude', '--resume', session.id)}` as a search for a session "
        "titled so, which opens its picker or another conversation."
    )
    if os.path.exists(os.path.join(folder, f"{recorded}.jsonl")):
        return (
            f"{told} `claude --resume {recorded}` opens the {recorded}.jsonl beside it, "
            f"not this copy; to resume this one, rename it in {folder} to a new UUID "
            "(from `uuidgen`) followed by .jsonl (sessdex never renames an app's files)."
        )
    return (
        f"{told} Rename it back to {recorded}.jsonl in {folder} to resume it (sessdex "
        "never renames an app's files)."
    )


def _typed_line(program: str, option: str, value: str) -> str:
    """The line as the user's shell takes it: a file's name (`copy$$`) printed bare in
    a line to paste was another word there. A value that shell cannot be given: its
    repr, said, never printed wrong."""
    from ..errors import BadSetting, NotQuotable, typed

    try:
        return shells.run((program, option, value))
    except (NotQuotable, BadSetting):
        return f"{program} {option} {typed(value)}"


def _renamed_from(session: Session) -> str | None:
    """The `sessionId` a transcript's lines carry, where its file was renamed from it.

    Claude Code names each transcript `<session id>.jsonl` and finds it by that name; any
    other `--resume` value is a title to search for (2.1.x). A file under another UUID
    (a copy) resumes by that name, so only a name that is no UUID is asked about: never
    a real transcript left as Claude Code wrote it, and not a file whose lines agree."""
    if session.path is None or session.parent_id is not None:
        return None
    stem, extension = os.path.splitext(os.path.basename(session.path))
    if extension != ".jsonl" or _UUID.fullmatch(stem):
        return None
    try:  # the newest lines: a 1.0 resume's copied opening lines keep the old id
        _, ending = files.tail_bytes(session.path, HEAD_PROBE)
    except OSError:
        return None
    found: list[bytes] = _RECORDED_ID.findall(ending) or _RECORDED_ID.findall(
        files.read_start(session.path, HEAD_PROBE) or b""
    )
    recorded = found[-1].decode("utf-8", "replace") if found else None
    if recorded is None or recorded == stem or not _SESSION_ID.fullmatch(recorded):
        return None
    return recorded


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `claude` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`) that session, `--continue` (`-c`) its folder's latest; with
    `--fork-session`, a new session (the one `--session-id <uuid>` names, when given); a
    picker (`--resume` alone) or a title, none known yet. A plain start: None."""
    return opened_by_flags(args, RESUME_FLAGS)
