"""Claude Code: JSONL transcripts under `<config>/projects/<cwd slug>/<session id>.jsonl`.

Claude Code (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) appends one JSON record per line: the
conversation (`user`, `assistant`, `system`, `attachment`, chained by `uuid`/`parentUuid`) and
bookkeeping (titles, queue and mode records, file-history snapshots). Sub-agents live in
`<session>/subagents/agent-<id>.jsonl` (+ `.meta.json`, 2.1), in `agent-<id>.jsonl` beside the
parent (2.0), or inline as `isSidechain` lines (1.0). Listing reads only the head and tail of
main transcripts, never sub-agent files; the project folder name is lossy, so `cwd` comes
from the records. Title: newest custom title, else newest AI title, else a `summary` whose
leaf is in the lines read, else the first typed prompt, else the first slash command.
Lines of the tail are searched key by key rather than split; `effort` is not waited for
in a session whose newest version predates it (2.1.212).

Reading (`_claude_read`, `_claude_stream`):
- Usage: one API response is written as one line per content block, each with a copy of
  `usage` whose `output_tokens` may still be partial. We emit one `usage` event per
  `message.id` + `requestId` (ccusage's rule), with the largest copy, dated by its last line;
  a key already billed in this session (replays, `/btw` side chains) is not billed again, so
  the first copy read wins over a later side-chain one. `<synthetic>` and
  `isApiErrorMessage` lines bill nothing; API errors become `error` events.
- Branches: a rewind writes a new prompt whose parent is an older line, and the file keeps
  the abandoned continuation. We follow the chain that ends at the last line and leave out
  a branch only when it starts with a typed prompt that a later typed prompt replaced
  (other multi-child shapes are how Claude Code records one conversation). Each abandoned
  branch is one `meta` event (`extra["abandoned_branch"]`: first uuid, lines, sub-agent
  spawns); its responses are still billed (`usage` with `extra["branch"] = "abandoned"`);
  the sub-agents it spawned are counted there, not read.
- Sub-agents: a `subagent` event at the Task/Agent call, then the child's events (any
  depth) merged by time. 1.0 side chains are matched to their call by prompt; children
  nothing links to are announced by a `subagent` event without a call id.
- Harness text on `isMeta` user lines (a slash command's expansion) is a `user` event with
  `extra["injected"]`; a prompt queued while the agent was busy, one with `extra["queued"]`.
- Turn ends come from `stop_reason: end_turn` or, failing that, `system/turn_duration`.
  A compaction is the boundary line plus the summary that follows it, as one event.
  Model, permission mode, mode, cwd and branch changes are `meta` events.
- Ignored on purpose: titles, `last-prompt`, `queue-operation`, file history, `progress`
  and the rest of `IGNORED_TYPES`, harness attachments (`IGNORED_ATTACHMENTS`), hook and
  session-start system lines (`IGNORED_SYSTEM`), all in `_claude_records`. Anything else
  goes to `diagnostics.unknown_type`. Workflow journals (`subagents/workflows/`) are not
  read yet. A read from `offset` > 0 skips the survey: no branch pruning, no sub-agent
  files, and 1.0 side-chain lines get their `agentId`, or "sidechain".

Resume: `claude --resume <id>` in the session's folder, with `--model` and `--effort`;
a recorded permission mode only when it is at least as strict as the default.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session
from . import _claude_read
from . import _claude_records as rec
from ._claude_usage import usage_files, usage_records  # noqa: F401 - `sessdex usage` hook
from .base import Home, Location, SessionFollow

NAME = "claude"
TITLE = "Claude Code"
CHECKED_WITH = (
    "Claude Code 1.0.98 to 2.1.197 (real files), record catalogue up to 2.1.220"
)
ENV_VARS = ("CLAUDE_CONFIG_DIR",)

PROGRAM = "claude"
INSTALL_HINT = "npm install -g @anthropic-ai/claude-code"
# Modes at least as strict as the default (ask before acting); the others loosen it.
STRICT_MODES = frozenset({"default", "manual", "plan", "dontAsk"})
LOOSE_MODES = frozenset({"acceptEdits", "auto", "bypassPermissions"})
TITLE_CHARS = 200

# tail keys: a line holding one is parsed while its field is unknown
CUSTOM_TITLE = b'"customTitle"'
AI_TITLE = b'"aiTitle"'
TIMESTAMP = b'"timestamp"'
VERSION = b'"version"'
ASSISTANT = b'"assistant"'
EFFORT = b'"effort"'
PERMISSION_MODE = b'"permissionMode"'
LEAF_UUID = b'"leafUuid"'  # head only: a 1.0 summary names its conversation's leaf
_TAIL_KEYS = (
    CUSTOM_TITLE,
    AI_TITLE,
    TIMESTAMP,
    VERSION,
    ASSISTANT,
    EFFORT,
    PERMISSION_MODE,
)
EFFORT_SINCE = (2, 1, 212)  # the first Claude Code that writes `effort`
TAIL_WINDOW = 16 * 1024  # the first stretch of the tail searched for keys
HEAD_PROBE = 256 * 1024  # one read that holds the 80 head lines of most transcripts

_Load = Callable[[int, bytes, bool, Callable[[], int]], dict[str, object] | None]
_LoadLine = Callable[[files.Line], dict[str, object] | None]


def locate(home: Home) -> Location:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    override = home.env_dir("CLAUDE_CONFIG_DIR")
    if override is not None:
        return Location(override, f"CLAUDE_CONFIG_DIR={override}")
    return Location(home.path / ".claude")


def scan(location: Location) -> Iterator[str]:
    """Transcripts `projects/*/*.jsonl`, and sub-agent files (listed under their parent).

    Sub-agents live in `<session>/subagents/agent-<id>.jsonl` (2.1) or beside the parent as
    `agent-<id>.jsonl` (2.0); they are indexed with `parent_id` set, so `list` hides them
    and `list --all`, `show <agent id>` and the live view find them. Paths are plain
    strings: a big home has tens of thousands of them.
    """
    if not location.exists:
        return
    root = location.root
    for project in files.entries(root / "projects", root):
        if not project.is_dir():
            continue
        for entry in files.entries(project.path, root):
            name = entry.name
            if name.endswith(".jsonl") and entry.is_file():
                yield entry.path
            elif entry.is_dir():
                subagents = entry.path + "/subagents"
                for child in files.entries(subagents, root):
                    if (
                        child.name.startswith("agent-")
                        and child.name.endswith(".jsonl")
                        and child.is_file()
                    ):
                        yield child.path


@dataclass(slots=True)
class _Listing:
    """What the head, or the tail, of one transcript says; `parse` lets the tail win."""

    created: datetime | None = None
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
class _Tail:
    """The last TAIL_BYTES of a transcript, unsplit: lines are found by searching `data`.

    `data` starts at file offset `start`; its first whole line starts at `first` (the
    piece before it may be cut). In a `whole` file, lines are numbered from that line.
    """

    start: int
    data: bytes
    first: int
    whole: bool

    @classmethod
    def of(cls, start: int, data: bytes, whole: bool) -> _Tail:
        first = 0
        if start > 0:  # the read may begin mid-line: drop that piece
            newline = data.find(b"\n")
            first = newline + 1 if newline >= 0 else len(data)
        return cls(start, data, first, whole)

    def head(self) -> list[files.Line]:
        """The first HEAD_LINES lines, as `files.tail_lines` would have made them."""
        data, position = self.data, self.first
        lines: list[files.Line] = []
        while position < len(data) and len(lines) < files.HEAD_LINES:
            newline = data.find(b"\n", position)
            end = newline if newline >= 0 else len(data)
            lines.append(
                files.Line(
                    len(lines) + 1,
                    self.start + position,
                    data[position:end],
                    self.start + end + (newline >= 0),
                    newline >= 0,
                )
            )
            position = end + 1
        return lines

    def number(self, start: int) -> int:
        """The number of the line starting at `start`: known only in a whole file, else 0."""
        return self.data.count(b"\n", self.first, start) + 1 if self.whole else 0

    def line_start(self, position: int) -> int:
        """Where the line holding `position` starts."""
        return self.data.rfind(b"\n", self.first, position) + 1 or self.first


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """One session per main transcript, from its first and last lines only."""
    name = str(path)
    try:
        size = path.stat().st_size
        whole = size <= files.TAIL_BYTES  # the tail is the whole file: read it once
        if whole:
            tail = _Tail.of(*files.tail_bytes(path), whole=True)
            head = tail.head()
        else:
            # an over-long line (a pasted image) is passed over here; reading summarises it
            head = _head_lines(path)
            tail = _Tail.of(*files.tail_bytes(path), whole=False)
    except FileNotFoundError:
        diagnostics.skip(name, 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(name, 0, "unreadable")
        return []
    # a head line inside the tail's span has no known number there; when the tail holds
    # no whole line (one huge last line), the head's lines keep theirs
    tail_from = tail.start + tail.first if tail.first < len(tail.data) else float("inf")
    loaded: dict[int, dict[str, object] | None] = {}

    def load(
        offset: int, data: bytes, complete: bool, number: Callable[[], int]
    ) -> dict[str, object] | None:
        if offset not in loaded:  # head and tail may share lines: parse and count once
            record = rec.load(data, complete, 0, None, name)
            if record is None:  # count it, under its number (found only now: rare)
                rec.load(data, complete, number(), diagnostics, name)
            loaded[offset] = record
        return loaded[offset]

    def load_line(line: files.Line) -> dict[str, object] | None:
        def number() -> int:
            return line.number if whole or line.offset < tail_from else 0

        return load(line.offset, line.data, line.complete, number)

    late = _Listing()  # what the tail says
    _read_tail(tail, load, late)
    found = _Listing()  # what the head says
    _read_head(head, load_line, found, late)
    if not (found.conversation or late.conversation):
        return []  # only bookkeeping (1.0's summary-only files): nothing to list
    title = (
        late.custom_title
        or found.custom_title
        or late.ai_title
        or found.ai_title
        or _leaf_title(found.summaries, head, tail)
        or found.prompt
        or found.command
    )
    session_id, parent_id, agent_type = path.stem, None, None
    if path.stem.startswith("agent-"):
        session_id = path.stem[len("agent-") :]
        in_folder = path.parent.name == "subagents"
        parent_id = path.parent.parent.name if in_folder else found.session_ref
        meta = files.read_json_file(
            path.with_name(path.stem + ".meta.json"), 1024 * 1024
        )
        if isinstance(meta, dict):
            agent_type = rec.string(meta.get("agentType"))
            parent_id = rec.string(meta.get("parentAgentId")) or parent_id
            title = rec.string(meta.get("description")) or title
        if parent_id is None or parent_id == session_id:
            return []  # a side file we cannot place: its parent reads it
        if title is None:  # a sub-agent's task prompt is its title
            for line in head:
                if (
                    b'"user"' in line.data
                    and (record := load_line(line)) is not None
                    and record.get("type") == "user"
                ):
                    title = rec.message_text(record)
                    break
    return [
        Session(
            app=NAME,
            id=session_id,
            parent_id=parent_id,
            agent_type=agent_type,
            path=name,
            cwd=found.cwd or late.cwd,
            branch=late.branch or found.branch,
            title=" ".join(title.split())[:TITLE_CHARS] if title else None,
            created=found.created or late.updated,
            updated=late.updated or found.created,
            model=late.model,
            effort=late.effort,
            permission_mode=late.permission_mode,
            cli_version=late.version,
            bytes=size,
        )
    ]


def _head_lines(path: Path) -> list[files.Line]:
    """`files.head_lines`, from one small read when the head's lines all fit in it."""
    with open(path, "rb") as stream:
        data = stream.read(HEAD_PROBE)
    lines: list[files.Line] = []
    position = 0
    while len(lines) < files.HEAD_LINES:
        newline = data.find(b"\n", position)
        if newline < 0 or newline - position > files.LINE_CAP:
            return files.head_lines(
                path
            )  # a long line, or a long head: read it in full
        lines.append(
            files.Line(
                len(lines) + 1, position, data[position:newline], newline + 1, True
            )
        )
        position = newline + 1
    return lines


def _leaf_title(
    summaries: list[tuple[str, str]], head: list[files.Line], tail: _Tail
) -> str | None:
    """The last 1.0 `summary` whose leaf line is among the lines read, if any."""
    title = None
    for leaf, summary in summaries:
        needle = b'"uuid":"' + leaf.encode() + b'"'
        if tail.data.find(needle, tail.first) >= 0 or any(
            needle in line.data for line in head
        ):
            title = summary
    return title


def _read_head(
    head: list[files.Line], load: _LoadLine, found: _Listing, late: _Listing
) -> None:
    """Titles anywhere in the head; created, cwd, branch and prompt from its first lines.

    `late` is what the tail said: once the first lines settle the rest, the head is
    searched only for the titles that could still name the session.
    """
    for index, line in enumerate(head):
        data = line.data
        if len(data) > files.LINE_CAP:
            continue
        if TIMESTAMP not in data and not (
            CUSTOM_TITLE in data or AI_TITLE in data or LEAF_UUID in data
        ):
            continue
        record = load(line)
        if record is None:
            continue
        kind = record.get("type")
        if _title(record, kind, found) or kind not in rec.CONVERSATION:
            continue
        found.conversation = True
        found.created = found.created or rec.moment(record.get("timestamp"))
        found.cwd = found.cwd or rec.string(record.get("cwd"))
        found.branch = found.branch or rec.string(record.get("gitBranch"))
        found.session_ref = found.session_ref or rec.string(record.get("sessionId"))
        if kind == "user" and found.prompt is None:
            found.prompt, command = rec.prompt(record)
            found.command = found.command or command
        if found.created and found.cwd and found.branch and found.prompt:
            if late.custom_title:
                return  # the tail's custom title wins over anything here
            # with a custom or an AI title known, only a custom title can still win
            screen = (
                (CUSTOM_TITLE,)
                if late.ai_title or found.custom_title
                else (b'Title"', LEAF_UUID)  # `Title"` ends both title keys
            )
            rest = head[index + 1 :]
            joined = b"\n".join(line.data for line in rest)  # most heads hold none
            if not any(key in joined for key in screen):
                return
            for line in rest:
                data = line.data
                if (
                    any(key in data for key in screen)
                    and len(data) <= files.LINE_CAP
                    and (CUSTOM_TITLE in data or AI_TITLE in data or LEAF_UUID in data)
                    and (record := load(line)) is not None
                ):
                    _title(record, record.get("type"), found)
            return


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


def _read_tail(tail: _Tail, load: _Load, found: _Listing) -> None:
    """Newest titles, settings and times, newest line first, parsing only what can help.

    A line is parsed when it holds the key of a field still unknown. Rather than test
    every line for every key, each key is searched for backwards through the block, in
    windows that grow while nothing turns up; only the lines holding a hit are cut out.
    Lines are taken newest first, so each field is the newest line's, as if read in turn.
    """
    custom = ai = model = effort = mode = version = branch = cwd = None
    updated: datetime | None = None
    data, low = tail.data, tail.first
    # Lines from `floor` up were searched for every key still wanted; `hits` holds each
    # key's newest place there that is older than the lines already walked, or -1.
    floor = len(data)  # a line start, so no key straddles it
    hits = dict.fromkeys(_TAIL_KEYS, -1)
    window = TAIL_WINDOW
    wanted = list(_TAIL_KEYS)
    while wanted:
        hit = max(hits[key] for key in wanted)
        if hit < 0:  # nothing left above `floor`: search further back
            if floor <= low:
                break
            bottom = tail.line_start(max(low, floor - window))
            for key in wanted:
                hits[key] = data.rfind(key, bottom, floor)
            floor, window = bottom, window * 2
            continue
        begin = tail.line_start(hit)
        end = data.find(b"\n", hit)
        complete = end >= 0
        end = end if complete else len(data)
        for key in wanted:  # hits in this line are used up: find the next ones below
            if hits[key] >= begin:
                hits[key] = data.rfind(key, floor, begin)
        if end - begin > files.LINE_CAP:
            continue
        record = load(
            tail.start + begin,
            data[begin:end],
            complete,
            functools.partial(tail.number, begin),
        )
        if record is None:
            continue
        kind = record.get("type")
        if kind == "custom-title":
            custom = custom or rec.string(record.get("customTitle"))
        elif kind == "ai-title":
            ai = ai or rec.string(record.get("aiTitle"))
        elif kind == "permission-mode":
            mode = mode or rec.string(record.get("permissionMode"))
        updated = updated or rec.moment(record.get("timestamp"))
        if kind in rec.CONVERSATION:
            found.conversation = True
            version = version or rec.string(record.get("version"))
            branch = branch or rec.string(record.get("gitBranch"))
            cwd = cwd or rec.string(record.get("cwd"))
            if kind == "user":
                mode = mode or rec.string(record.get("permissionMode"))
            message = record.get("message")
            used = (
                rec.string(message.get("model")) if isinstance(message, dict) else None
            )
            if kind == "assistant" and used and used != rec.SYNTHETIC:
                model = model or used
                effort = effort or rec.string(record.get("effort"))
        wanted = [
            key
            for key, missing in (
                (CUSTOM_TITLE, custom is None),
                (AI_TITLE, ai is None),
                (TIMESTAMP, updated is None),
                (VERSION, version is None or branch is None),
                (ASSISTANT, model is None),
                (EFFORT, effort is None and not _before_effort(version)),
                (PERMISSION_MODE, mode is None),
            )
            if missing
        ]
    found.custom_title, found.ai_title, found.updated = custom, ai, updated
    found.version, found.branch, found.cwd = version, branch, cwd
    found.model, found.effort, found.permission_mode = model, effort, mode


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
    if session.parent_id is not None:
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
        argv += ["--permission-mode", mode]
    elif mode in LOOSE_MODES:
        withheld.append(f"--permission-mode {mode}")
    elif mode:
        notes.append(f"unknown permission mode {mode!r} left out")
    if not session.cwd:
        notes.append(
            "the session's folder is unknown: run this from its project folder"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program=PROGRAM,
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )
