"""Claude Code: JSONL transcripts under `<config>/projects/<cwd slug>/<session id>.jsonl`.

Claude Code (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) appends one JSON record per line: the
conversation (`user`, `assistant`, `system`, `attachment`, chained by `uuid`/`parentUuid`) and
bookkeeping (titles, queue and mode records, file-history snapshots). Sub-agents live in
`<session>/subagents/agent-<id>.jsonl` (+ `.meta.json`, 2.1), in `agent-<id>.jsonl` beside the
parent (2.0), or inline as `isSidechain` lines (1.0). Listing reads only the head and tail of
main transcripts, never sub-agent files; the project folder name is lossy, so `cwd` comes
from the records. Title: newest custom title, else newest AI title, else a `summary` whose
leaf is in the lines read, else the first typed prompt, else the first slash command.

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

import itertools
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

_Load = Callable[[files.Line], dict[str, object] | None]


def locate(home: Home) -> Location:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    override = home.env_dir("CLAUDE_CONFIG_DIR")
    if override is not None:
        return Location(override, f"CLAUDE_CONFIG_DIR={override}")
    return Location(home.path / ".claude")


def scan(location: Location) -> Iterator[Path]:
    """Transcripts `projects/*/*.jsonl`, and sub-agent files (listed under their parent).

    Sub-agents live in `<session>/subagents/agent-<id>.jsonl` (2.1) or beside the parent as
    `agent-<id>.jsonl` (2.0); they are indexed with `parent_id` set, so `list` hides them
    and `list --all`, `show <agent id>` and the live view find them.
    """
    if not location.exists:
        return
    root = location.root
    for project in files.entries(root / "projects", root):
        if not project.is_dir():
            continue
        for entry in files.entries(Path(project.path), root):
            name = entry.name
            if name.endswith(".jsonl") and entry.is_file():
                yield Path(entry.path)
            elif entry.is_dir():
                for child in files.entries(Path(entry.path) / "subagents", root):
                    if (
                        child.name.startswith("agent-")
                        and child.name.endswith(".jsonl")
                        and child.is_file()
                    ):
                        yield Path(child.path)


@dataclass(slots=True)
class _Listing:
    """What the head and tail of one transcript say; the tail wins where both speak."""

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


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """One session per main transcript, from its first and last lines only."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size <= files.TAIL_BYTES:  # the tail is the whole file: read it once
            tail = files.tail_lines(path)
            head = tail[: files.HEAD_LINES]
        else:
            # an over-long line (a pasted image) is passed over here; reading summarises it
            head = files.head_lines(path)
            tail = files.tail_lines(path)
    except FileNotFoundError:
        diagnostics.skip(name, 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(name, 0, "unreadable")
        return []
    whole = size <= files.TAIL_BYTES
    loaded: dict[int, dict[str, object] | None] = {}

    def load(line: files.Line) -> dict[str, object] | None:
        if (
            line.offset not in loaded
        ):  # head and tail may share lines: parse and count once
            number = line.number if whole or line.offset < tail[0].offset else 0
            loaded[line.offset] = rec.load(
                line.data, line.complete, number, diagnostics, name
            )
        return loaded[line.offset]

    found = _Listing()
    _read_head(head, load, found)
    _read_tail(tail, load, found)
    if not found.conversation:
        return []  # only bookkeeping (1.0's summary-only files): nothing to list
    leaf_title = None
    for leaf, summary in found.summaries:
        needle = b'"uuid":"' + leaf.encode() + b'"'
        if any(needle in line.data for line in itertools.chain(head, tail)):
            leaf_title = summary
    title = (
        found.custom_title
        or found.ai_title
        or leaf_title
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
                    and (record := load(line)) is not None
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
            cwd=found.cwd,
            branch=found.branch,
            title=" ".join(title.split())[:TITLE_CHARS] if title else None,
            created=found.created or found.updated,
            updated=found.updated or found.created,
            model=found.model,
            effort=found.effort,
            permission_mode=found.permission_mode,
            cli_version=found.version,
            bytes=size,
        )
    ]


def _read_head(head: list[files.Line], load: _Load, found: _Listing) -> None:
    """Titles anywhere in the head; created, cwd, branch and prompt from its first lines."""
    settled = False
    for line in head:
        data = line.data
        if len(data) > files.LINE_CAP:
            continue
        titled = (
            b'"customTitle"' in data or b'"aiTitle"' in data or b'"leafUuid"' in data
        )
        if not titled and (settled or b'"timestamp"' not in data):
            continue
        record = load(line)
        if record is None:
            continue
        kind = record.get("type")
        if kind == "custom-title":
            found.custom_title = (
                rec.string(record.get("customTitle")) or found.custom_title
            )
        elif kind == "ai-title":
            found.ai_title = rec.string(record.get("aiTitle")) or found.ai_title
        elif kind == "summary":
            leaf, summary = (
                rec.string(record.get("leafUuid")),
                rec.string(record.get("summary")),
            )
            if leaf and summary:
                found.summaries.append((leaf, summary))
        elif kind in rec.CONVERSATION and not settled:
            found.conversation = True
            found.created = found.created or rec.moment(record.get("timestamp"))
            found.cwd = found.cwd or rec.string(record.get("cwd"))
            found.branch = found.branch or rec.string(record.get("gitBranch"))
            found.session_ref = found.session_ref or rec.string(record.get("sessionId"))
            if kind == "user" and found.prompt is None:
                found.prompt, command = rec.prompt(record)
                found.command = found.command or command
            settled = bool(
                found.created and found.cwd and found.branch and found.prompt
            )


def _read_tail(tail: list[files.Line], load: _Load, found: _Listing) -> None:
    """Newest titles, settings and times, newest line first, parsing only what can help."""
    custom = ai = model = effort = mode = version = branch = cwd = None
    updated: datetime | None = None
    for line in reversed(tail):
        data = line.data
        if len(data) > files.LINE_CAP:
            continue
        wanted = (
            (custom is None and b'"customTitle"' in data)
            or (ai is None and b'"aiTitle"' in data)
            or (updated is None and b'"timestamp"' in data)
            or ((version is None or branch is None) and b'"version"' in data)
            or (model is None and b'"assistant"' in data)
            or (effort is None and b'"effort"' in data)
            or (mode is None and b'"permissionMode"' in data)
        )
        record = load(line) if wanted else None
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
        if kind not in rec.CONVERSATION:
            continue
        found.conversation = True
        version = version or rec.string(record.get("version"))
        branch = branch or rec.string(record.get("gitBranch"))
        cwd = cwd or rec.string(record.get("cwd"))
        if kind == "user":
            mode = mode or rec.string(record.get("permissionMode"))
        message = record.get("message")
        used = rec.string(message.get("model")) if isinstance(message, dict) else None
        if kind == "assistant" and used and used != rec.SYNTHETIC:
            model = model or used
            effort = effort or rec.string(
                record.get("effort")
            )  # recorded since 2.1.212
        if (
            custom
            and ai
            and updated
            and version
            and branch
            and model
            and effort
            and mode
        ):
            break
    found.custom_title = custom or found.custom_title
    found.ai_title = ai or found.ai_title
    found.updated = updated
    found.version = version or found.version
    found.branch = branch or found.branch
    found.cwd = found.cwd or cwd
    found.model, found.effort, found.permission_mode = model, effort, mode


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
