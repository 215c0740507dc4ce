"""Kimi: Kimi CLI (MoonshotAI/kimi-cli) under `$KIMI_SHARE_DIR`, Kimi Code under `$KIMI_CODE_HOME`.

Kimi CLI is archived; from 1.52 running `kimi` installs Kimi Code, a different program with a
different tree (`~/.kimi-code`), read by `_kimi_code.py` (see its docstring). Both are the one
app `kimi`: `locate` names `~/.kimi` as the root and `~/.kimi-code` beside it, `scan` lists
both, and `parse`, `read` and `resume` hand Kimi Code's files to that module. Both install
`kimi`: a Kimi Code session is never given Kimi CLI's (`resume_program`), which would open a
new, empty session under an id it does not know. What follows is Kimi CLI's format.

What it writes: `sessions/<md5(work dir)>/<session uuid>/` (a non-local KAOS prefixes the
folder with its name) holding `wire.jsonl` (every UI event with a timestamp: the user's
turns, merged text and thinking parts, tool calls and results, one `StatusUpdate` with the
step's token usage per model call, and `SubagentEvent`s wrapping a sub-agent's events),
`context.jsonl` (the model's context: messages, checkpoints, context size; rewritten when
the user undoes or compacts) and `state.json` (custom title, approval, plan mode). Sub-agent
instances live in `subagents/<agent id>/` (`meta.json`, their own `wire.jsonl`). `kimi.json`
at the root maps work directories, whose md5 names the folders, back to their paths.

What we read: `wire.jsonl` for listing and reading (the first `TurnBegin` is the fallback
title, as kimi itself derives it); `state.json` for the title (not when kimi-cli titled the
session after a sub-agent's task, see `_a_sub_agents_task`) and the approval mode;
`kimi.json` for the cwd; sub-agents' `meta.json` and `wire.jsonl`. Older sessions with only
`context.jsonl` are read from it (no times, no usage). Sub-agent events come inline from the
parent's wire (`SubagentEvent`); a sub-agent whose events never reached the parent (run in
the background) is appended from its own wire after the parent's events.

Usage: one event per `StatusUpdate` carrying `token_usage` (one per model call, keyed by
`message_id`); `input_other` already excludes cache reads and writes. `/fork` and `/undo`
copy the wire into a new session titled "Fork: …" / "Undo: …" whose `state.json` notes the
copy's time (`wire_mtime`): the copied lines are shown there, but billed in the source
only. Kimi records no model name per session (a sub-agent's `meta.json` has one) and no git
branch.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from .. import files, folders, programs
from ..diagnostics import ODD_COUNT, Diagnostics
from ..hints import named
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _kimi_code, _kimi_json
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_str,
    decoded_size,
    epoch_time,
    line_start,
    odd_count,
    one_line,
    shown_arguments,
    shown_text,
    type_tag,
)
from .base import Home, Location

NAME = "kimi"
TITLE = "Kimi Code / Kimi CLI"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "Kimi Code 0.3x real captures (wire 1.4), the kimi-code 0.38 source and 2.1.0's "
    "bundle (wire 1.5), and the real kimi-code 2.1.0 in the conformance suite (a turn, "
    "`--session` resume, an `Agent` sub-agent, `kimi fork`); "
    "kimi-cli 1.49 source (wire protocol 1.x) and kimi-cli 1.51 (wire protocol 1.10, real "
    "runs in the conformance suite: sub-agent, resume and /title included)"
    "; kimi-cli resume flags from 1.51's --help and 1.49's source (`--session`, `--plan`, "
    "`--yolo`, `--afk`); the yolo and afk a resume restores from 1.49's soul/agent.py "
    "(1.52, the last release, runs no agent)"
)
ENV_VARS = ("KIMI_SHARE_DIR", "KIMI_CODE_HOME")


_WIRE = "wire.jsonl"
_LEGACY_METADATA = "metadata.json"
_CONTEXT = "context.jsonl"
_STATE = "state.json"
# the titles kimi-cli gives the session `/fork` and `/undo` copy a session into
_COPY_TITLES = ("Fork: ", "Undo: ")
_CHECKPOINT = re.compile(r"^\s*(<system>)?\s*CHECKPOINT \d+\s*(</system>)?\s*$")

# Known wire messages that say nothing about the conversation itself.
_IGNORED = frozenset(
    {
        "StepBegin",
        "CompactionEnd",
        "ToolCallPart",
        "HookTriggered",
        "HookResolved",
        "MCPLoadingBegin",
        "MCPLoadingEnd",
        "Notification",
        "ToolCallRequest",
        "QuestionRequest",
        "QuestionResponse",
        "HookRequest",
        "HookResponse",
    }
)
_HANDLED = frozenset(
    {
        "TurnBegin",
        "SteerInput",
        "TurnEnd",
        "StepInterrupted",
        "StepRetry",
        "CompactionBegin",
        "StatusUpdate",
        "ContentPart",
        "ToolCall",
        "ToolResult",
        "SubagentEvent",
        "PlanDisplay",
        "BtwBegin",
        "BtwEnd",
        "ApprovalRequest",
        "ApprovalResponse",
        "ApprovalRequestResolved",
    }
)
_CONTEXT_IGNORED = frozenset({"_system_prompt", "_checkpoint", "_usage", "system"})


# kimi-cli 0.32 and 0.33 kept their tree in `~/.local/share/kimi` on every OS (share.py's
# literal `Path.home() / ".local" / "share" / "kimi"`, no variable read); 0.34 moved to
# `~/.kimi` and left those sessions where they were.
OLD_SHARE = (".local", "share", "kimi")


def locate(home: Home) -> Location:
    """Kimi CLI's folder as the root, Kimi Code's beside it (each with its own override),
    then the folder of kimi-cli 0.32 and 0.33."""
    share = home.env_dir("KIMI_SHARE_DIR")
    code = home.env_dir("KIMI_CODE_HOME")
    said = [f"KIMI_SHARE_DIR={share}"] if share is not None else []
    if code is not None:
        said.append(f"KIMI_CODE_HOME={code}")
    return Location(
        share if share is not None else home.path / ".kimi",
        ", ".join(said) or None,
        also=(
            code if code is not None else home.path / ".kimi-code",
            home.path.joinpath(*OLD_SHARE),
        ),
    )


def _is_old_share(root: Path) -> bool:
    return root.parts[-len(OLD_SHARE) :] == OLD_SHARE


# where `scan` reads a session, a sub-agent or a folder of them, in Kimi CLI's folder
# or Kimi Code's (see base.py): a broken link elsewhere (a note in a session's folder)
# hides none
SESSION_NAMES = (
    "sessions",
    "sessions/*",
    "sessions/*/*",  # a session's folder, or an old session's one file
    "sessions/*/*/wire.jsonl",
    "sessions/*/*/context.jsonl",
    "sessions/*/*/state.json",
    "sessions/*/*/metadata.json",
    "sessions/*/*/subagents",
    "sessions/*/*/subagents/*",
    "sessions/*/*/subagents/*/wire.jsonl",
    "sessions/*/*/subagents/*/context.jsonl",
    "sessions/*/*/agents",
    "sessions/*/*/agents/main",
    "sessions/*/*/agents/main/wire.jsonl",
)


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    yield from _scan_cli(location.root)
    for root in location.also:
        if _is_old_share(root):
            if root != location.root:
                yield from _scan_cli(root)
        else:
            yield from _kimi_code.scan(root)


def companion_of(path: str) -> str | None:
    """Kimi Code's `state.json` of a session whose main wire this is (see `_kimi_code`);
    a Kimi CLI sub-agent's wire, for its `meta.json` (its type, model and title: a meta
    changed alone, cut or rewritten, changes its listing); its session's `state.json`,
    for its `prompt.txt` (whether the state's title is the sub-agent's task)."""
    child, base = os.path.split(path)
    subagents = os.path.dirname(child)
    if base == _META and os.path.basename(subagents) == "subagents":
        return os.path.join(child, _WIRE)
    if base == _PROMPT and os.path.basename(subagents) == "subagents":
        return os.path.join(os.path.dirname(subagents), _STATE)
    return _kimi_code.companion_of(path)


# a main wire is listed on its own, and changes its `state.json`'s listing too
COMPANIONS_PARSED = True


def _cli_root(path: Path, location: Location) -> Path:
    """The Kimi CLI folder `path` is in: the one whose `kimi.json` names its work dir."""
    for root in (location.root, *location.also):
        if path.is_relative_to(root / "sessions"):
            return root
    return location.root


def _in_old_share(session: Session) -> bool:
    """Whether the session is one kimi-cli 0.32 or 0.33 left in `~/.local/share/kimi`
    (not today's kimi's tree, `KIMI_SHARE_DIR` set to that folder): `parse` says so."""
    return session.extra.get(_OLD_SHARE_MARK) is True


_OLD_SHARE_MARK = "kept_by_kimi_0_33"


def _scan_cli(root: Path) -> Iterator[Path]:
    if folders.is_file(root / _WORK_DIRS):  # read with the sessions (`context_of`)
        yield root / _WORK_DIRS
    for work_dir in folders.entries(root / "sessions", root):
        if not work_dir.is_dir():
            continue
        for entry in folders.entries(Path(work_dir.path), root):
            if entry.is_dir():
                yield from _session_files(Path(entry.path), root)
            elif entry.name.endswith(".jsonl"):
                yield Path(
                    entry.path
                )  # a context file from before sessions had folders


_META = "meta.json"  # a sub-agent's, beside its wire
_PROMPT = "prompt.txt"  # a sub-agent's task, beside its wire


_WORK_DIRS = "kimi.json"  # work dirs by path (whose md5 names their sessions' folders)


def context_of(path: str, location: Location) -> str | None:
    """The sessions folder whose sessions' work dirs a Kimi CLI `kimi.json` names."""
    folder, base = os.path.split(path)
    roots = (location.root, *(r for r in location.also if _is_old_share(r)))
    if base != _WORK_DIRS or all(folder != os.fspath(r) for r in roots):
        return None
    return os.path.join(folder, "sessions")


# a `kimi.json` without the `last_session_id` kimi-cli rewrites it for at every session's
# start: the work dirs its sessions read (a warm list loads it without this module)
context_digest = _kimi_json.digest


def _session_files(folder: Path, root: Path) -> Iterator[Path]:
    names = {e.name: e for e in folders.entries(folder, root)}
    if _WIRE in names:
        yield folder / _WIRE
    elif _CONTEXT in names:
        yield folder / _CONTEXT
    if _STATE in names:
        yield folder / _STATE
    elif _LEGACY_METADATA in names:  # before 1.29; moved into state.json when reopened
        yield folder / _LEGACY_METADATA
    if "subagents" in names and names["subagents"].is_dir():
        for child in folders.entries(folder / "subagents", root, nested=True):
            if child.is_dir():
                child_names = {
                    e.name for e in folders.entries(Path(child.path), root, nested=True)
                }
                for name in (_WIRE, _CONTEXT):
                    if name in child_names:
                        yield Path(child.path) / name
                        if _META in child_names:  # a companion (`companion_of`)
                            yield Path(child.path) / _META
                        break
                if _STATE in names and _PROMPT in child_names:  # the state's companion
                    yield Path(child.path) / _PROMPT


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if _kimi_code.owns(path):
        return _kimi_code.parse(path, diagnostics)
    if path.name in (_META, _PROMPT, _WORK_DIRS):  # read with a wire or state
        return []
    if path.name == _STATE:
        return _parse_state(path, diagnostics)
    if path.name == _LEGACY_METADATA:
        return _parse_legacy_metadata(path, diagnostics)
    try:
        stat = path.stat()
    except FileNotFoundError:
        return []
    child = path.parent.parent.name == "subagents"
    legacy = path.name not in (_WIRE, _CONTEXT)
    session_dir = path.parent.parent.parent if child else path.parent
    # a one-file session (`<work dir>/<id>.jsonl`) lies in its work dir's folder itself
    work_dir = session_dir if legacy else session_dir.parent
    session_id = path.stem if legacy else path.parent.name
    facts = (
        _wire_facts(path, diagnostics)
        if path.name == _WIRE
        else _context_facts(path, diagnostics)
    )
    if facts is None:
        return []
    created, updated, first_prompt, protocol = facts
    if path.name != _WIRE:
        updated = datetime.fromtimestamp(
            stat.st_mtime, UTC
        )  # kimi's own "updated" for these
    extra: dict[str, JSONValue] = {"protocol_version": protocol} if protocol else {}
    root = _cli_root(path, location)
    if root != location.root and _is_old_share(root):
        extra[_OLD_SHARE_MARK] = True
    cwd = _work_dirs(root).get(work_dir.name)
    if not child:
        return [
            Session(
                app=NAME,
                id=session_id,
                path=str(path),
                cwd=cwd,
                title=first_prompt,
                created=created,
                updated=updated,
                bytes=stat.st_size,
                precedence=1,
                extra=extra,
            )
        ]
    meta = files.read_json_counted(path.parent / "meta.json", 1024 * 1024, diagnostics)
    meta = meta if isinstance(meta, dict) else {}
    spec = as_dict(meta.get("launch_spec"))
    return [
        Session(
            app=NAME,
            id=as_str(meta.get("agent_id")) or session_id,
            path=str(path),
            cwd=cwd,
            title=one_line(as_str(meta.get("description")), limit=None) or first_prompt,
            created=created or epoch_time(meta.get("created_at")),
            updated=updated or epoch_time(meta.get("updated_at")),
            model=as_str(spec.get("effective_model"))
            or as_str(spec.get("model_override")),
            bytes=stat.st_size,
            parent_id=session_dir.name,
            agent_type=as_str(meta.get("subagent_type")),
            precedence=1,
            extra={**extra, "status": as_str(meta.get("status"))},
        )
    ]


def _parse_state(path: Path, diagnostics: Diagnostics) -> list[Session]:
    state = files.read_json_file(path, limit=4 * 1024 * 1024, diagnostics=diagnostics)
    if not isinstance(state, dict):
        return []
    approval = as_dict(state.get("approval"))
    if approval.get("yolo") is True:
        mode = "yolo"
    elif approval.get("afk") is True:
        mode = "afk"
    elif state.get("plan_mode") is True:
        mode = "plan"
    else:
        mode = "default"
    title = one_line(as_str(state.get("custom_title")), limit=None)
    extra: dict[str, JSONValue] = {"archived": state.get("archived") is True}
    copied = state.get("wire_mtime")
    if (
        (title or "").startswith(_COPY_TITLES)
        and state.get("title_generated") is True
        and isinstance(copied, int | float)
        and not isinstance(copied, bool)
    ):
        # `/fork` or `/undo` (session_fork.py) copied the source's wire here, usage
        # included, and noted when (`wire_mtime`, which nothing else writes since 1.29)
        extra["copied_until"] = float(copied)
    if (
        title
        and state.get("title_generated") is not True
        and _a_sub_agents_task(path.parent, title)
    ):
        title = None  # the first prompt, from the wire, is the title
    return [
        Session(
            app=NAME,
            id=path.parent.name,
            title=title,
            permission_mode=mode,
            precedence=2,
            listed=False,
            extra=extra,
        )
    ]


def _a_sub_agents_task(folder: Path, title: str) -> bool:
    """Whether a title kimi-cli set by itself is a sub-agent's task, not the session's.

    kimi-cli (1.51) titles a session after the first turn that ends while it has no title,
    as `shorten(prompt, 50)`; a sub-agent shares its parent's session, so one spawned in the
    first turn ends first and its task becomes the parent's title. A title the user set
    has `title_generated`; the sub-agent's task is its `prompt.txt`.
    """
    stem = title.removesuffix("…").rstrip()
    for child in folders.entries(folder / "subagents") if stem else ():
        if not child.is_dir():
            continue
        data = files.read_small(Path(child.path) / "prompt.txt", 256 * 1024)
        prompt = " ".join(data.decode("utf-8", "replace").split()) if data else ""
        if prompt == title or (title.endswith("…") and prompt.startswith(stem)):
            return True
    return False


def _parse_legacy_metadata(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """Kimi CLI before 1.29 kept the title and the archived flag in `metadata.json`."""
    metadata = files.read_json_file(path, limit=1024 * 1024, diagnostics=diagnostics)
    if not isinstance(metadata, dict):
        return []
    title = one_line(as_str(metadata.get("title")), limit=None)
    return [
        Session(
            app=NAME,
            id=path.parent.name,
            title=title if title and title != "Untitled" else None,
            precedence=2,
            listed=False,
            extra={"archived": metadata.get("archived") is True},
        )
    ]


Facts = tuple[datetime | None, datetime | None, str | None, str | None]


def _wire_facts(path: Path, diagnostics: Diagnostics) -> Facts | None:
    """(first time, last time, first prompt, protocol version); None for a wire with no turn yet."""
    try:
        # a first prompt too long to hold (a pasted image or log) still titles it
        head = files.head_lines(path, diagnostics=diagnostics, openings=True)
        tail = files.tail_lines(path)
    except FileNotFoundError:
        return None
    files.note_unfinished_last(tail, diagnostics, str(path))
    created: datetime | None = None
    prompt: str | None = None
    protocol: str | None = None
    records = 0
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is None:
            continue
        if record.get("type") == "metadata":
            protocol = as_str(record.get("protocol_version"))
            continue
        records += 1
        created = created or epoch_time(record.get("timestamp"))
        message = as_dict(record.get("message"))
        if prompt is None and message.get("type") == "TurnBegin":
            prompt = one_line(
                _parts_text(as_dict(message.get("payload")).get("user_input")),
                limit=None,
            )
    updated = None
    for line in reversed(tail):
        match = (
            re.match(
                rb'\{"timestamp":\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)[,}\s]', line.data
            )
            if line.complete
            else None
        )
        if match:
            updated = epoch_time(float(match.group(1)))
            break
    if records == 0:
        return None
    if updated is None or (created is not None and updated < created):
        updated = created  # (a broken last stamp never puts the end before the start)
    return created, updated, prompt, protocol


def _context_facts(path: Path, diagnostics: Diagnostics) -> Facts | None:
    try:
        head = files.head_lines(path, diagnostics=diagnostics, openings=True)
    except FileNotFoundError:
        return None
    prompt: str | None = None
    seen = False
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        role = record.get("role") if record else None
        if not isinstance(role, str) or role.startswith("_"):
            continue
        seen = True
        if role == "user" and prompt is None and record is not None:
            text = _parts_text(record.get("content"))
            if text and not _CHECKPOINT.match(text):
                prompt = one_line(text, limit=None)
    return (None, None, prompt, None) if seen else None


def _work_dirs(root: Path) -> dict[str, str]:
    """Session folder name -> work directory, from kimi.json."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    metadata = files.read_json_file(root / "kimi.json", limit=_kimi_json.LIMIT)
    found: dict[str, str] = {}
    listed = as_dict(metadata).get("work_dirs")
    for work_dir in listed if isinstance(listed, list) else []:
        if not isinstance(work_dir, dict) or not isinstance(work_dir.get("path"), str):
            continue
        digest = hashlib.md5(
            work_dir["path"].encode("utf-8")
        ).hexdigest()  # kimi names folders so
        kaos = work_dir.get("kaos")
        name = digest if kaos in (None, "local") else f"{kaos}_{digest}"
        found[name] = work_dir["path"]
    return found


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    path = Path(session.path)
    if _kimi_code.owns(path):
        yield from _kimi_code.read(session, diagnostics, full=full, offset=offset)
        return
    reader = _Reader(session, diagnostics)
    try:
        if path.name == _WIRE:
            yield from reader.wire(path, full=full, offset=line_start(path, offset))
        else:
            yield from reader.context(path, full=full, offset=line_start(path, offset))
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")
        return
    if offset or session.parent_id or path.parent.parent.name == "subagents":
        return
    # sub-agents whose events never reached the parent's wire (background runs)
    for child in folders.entries(path.parent / "subagents"):
        if not child.is_dir() or child.name in reader.spawned:
            continue
        meta = files.read_json_counted(
            Path(child.path) / "meta.json", 1024 * 1024, diagnostics
        )
        meta = meta if isinstance(meta, dict) else {}
        child_id = as_str(meta.get("agent_id")) or child.name
        yield reader.event(
            "subagent",
            None,
            text=as_str(meta.get("description")),
            extra={
                "child_id": child_id,
                "agent_type": as_str(meta.get("subagent_type")),
            },
        )
        child_wire = Path(child.path) / _WIRE
        try:
            if child_wire.is_file():
                yield from reader.wire(child_wire, full=full, offset=0, agent=child_id)
            elif (Path(child.path) / _CONTEXT).is_file():
                yield from reader.context(
                    Path(child.path) / _CONTEXT, full=full, offset=0, agent=child_id
                )
        except FileNotFoundError:
            diagnostics.problem(f"{child_wire}: vanished while reading")
        # how the run ended, as the sub-agent store keeps it (subagents/models.py
        # SubagentStatus): a killed or failed run may end without a turn end
        status = as_str(meta.get("status"))
        if status in ("completed", "failed", "killed"):
            yield reader.event(
                "meta",
                None,
                agent_id=child_id,
                text=f"sub-agent {status}",
                extra={
                    "child_id": child_id,
                    "subagent_status": "failed" if status == "failed" else "done",
                },
            )


# a `StatusUpdate`'s `token_usage` counts, in `Usage`'s order
_COUNTS = ("input_other", "output", "input_cache_read", "input_cache_creation")


class _Reader:
    """Translates wire messages (and context messages) into events, in order."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.event = Emitter(session.id)
        self.spawned: set[str] = set()  # sub-agent ids already introduced
        self.billed: set[str] = set()
        # a fork's or undo's copy of its source's wire: billed in the source
        copied = session.extra.get("copied_until")
        self.copied_until = (
            float(copied)
            if isinstance(copied, int | float) and not isinstance(copied, bool)
            else None
        )
        self.calls: dict[
            str, tuple[str | None, JSONValue]
        ] = {}  # call id -> (agent, arguments)
        self.at = ("", 0)  # the wire file and line read last: where damage is met

    def wire(
        self, path: Path, *, full: bool, offset: int, agent: str | None = None
    ) -> Iterator[Event]:
        for line, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=full
        ):
            self.at = (str(path), line.number)
            if record.get("type") == "metadata":
                continue
            message = as_dict(record.get("message"))
            yield from self.message(message, epoch_time(record.get("timestamp")), agent)

    def message(
        self, message: Mapping[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        kind = type_tag(message.get("type"))
        payload = as_dict(message.get("payload"))
        if not isinstance(kind, str):
            self.diagnostics.unknown_type("<no type>")
            return
        if kind in _IGNORED:
            return
        if kind not in _HANDLED:
            self.diagnostics.unknown_type(kind)
            return
        if kind in ("TurnBegin", "SteerInput"):
            yield self.event(
                "user",
                time,
                agent_id=agent,
                text=_parts_text(payload.get("user_input")),
            )
        elif kind == "TurnEnd":
            yield self.event("turn_end", time, agent_id=agent)
        elif kind == "StepInterrupted":
            yield self.event("error", time, agent_id=agent, text="step interrupted")
        elif kind == "StepRetry":
            why = as_str(payload.get("error_type")) or "error"
            yield self.event(
                "error",
                time,
                agent_id=agent,
                text=f"retrying after {why}",
                extra={"retry": True, "retrying": True},  # kimi tries again
            )
        elif kind == "CompactionBegin":
            yield self.event("compaction", time, agent_id=agent)
        elif kind == "StatusUpdate":
            usage = as_dict(payload.get("token_usage"))
            message_id = as_str(payload.get("message_id"))
            if not usage or (message_id and message_id in self.billed):
                return
            if self.copied_until and time and time.timestamp() < self.copied_until:
                return  # a copied line: its source session paid for it
            if message_id:
                self.billed.add(message_id)
            if any(odd_count(usage.get(key)) for key in _COUNTS):
                self.diagnostics.damage(*self.at, ODD_COUNT)
            # each 0 below 0: a broken count took as much off the rest
            given, output, cache_read, cache_write = (
                max(0, as_int(usage.get(key))) for key in _COUNTS
            )
            yield self.event(
                "usage",
                time,
                agent_id=agent,
                usage=Usage(
                    given, output, cache_read, cache_write, model=self.session.model
                ),
            )
        elif kind == "ContentPart":
            yield from self.part(payload, time, agent, "assistant")
        elif kind == "ToolCall":
            yield self.tool_call(payload, time, agent)
        elif kind == "ToolResult":
            value = as_dict(payload.get("return_value"))
            text = _parts_text(value.get("output")) or shown_text(value.get("message"))
            yield self.event(
                "tool_result",
                time,
                agent_id=agent,
                call_id=as_str(payload.get("tool_call_id")),
                text=_kimi_code.agent_reply(text),
                is_error=value.get("is_error") is True,
            )
        elif kind == "PlanDisplay":
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=shown_text(payload.get("content")),
                extra={"plan": True},
            )
        elif kind == "BtwBegin":
            yield self.event(
                "user",
                time,
                agent_id=agent,
                text=shown_text(payload.get("question")),
                extra={"btw": True},
            )
        elif kind == "BtwEnd":
            if as_str(payload.get("error")):
                yield self.event(
                    "error", time, agent_id=agent, text=as_str(payload.get("error"))
                )
            else:
                yield self.event(
                    "assistant",
                    time,
                    agent_id=agent,
                    text=shown_text(payload.get("response")),
                    extra={"btw": True},
                )
        elif kind == "SubagentEvent":
            yield from self.subagent(payload, time, agent)
        elif kind == "ApprovalRequest":
            # the wire records the request the user must answer (a sub-agent's too)
            sender = as_str(payload.get("sender")) or "a tool"
            action = as_str(payload.get("action"))
            what = shown_text(payload.get("description"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                tool=sender,
                call_id=as_str(payload.get("tool_call_id")),
                text=f"{sender} asks approval to {action or 'run'}"
                + (f": {what}" if what else ""),
                extra={
                    "asks": "approval",
                    "request_id": as_str(payload.get("id")),
                    # a sub-agent's request, forwarded to the lead's wire: its type
                    # and its id (SubagentEvent's `agent_id`), which name it
                    "agent_type": as_str(payload.get("subagent_type")),
                    "asker_id": as_str(payload.get("agent_id")),
                },
            )
        elif kind in ("ApprovalResponse", "ApprovalRequestResolved"):
            answer = as_str(payload.get("response")) or "answered"
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"approval: {answer}",
                extra={
                    "answered": True,
                    "request_id": as_str(payload.get("request_id")),
                },
            )

    def subagent(
        self, payload: Mapping[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        call_id = as_str(payload.get("parent_tool_call_id")) or as_str(
            payload.get("task_tool_call_id")
        )
        child = as_str(payload.get("agent_id")) or call_id or "subagent"
        if child not in self.spawned:
            self.spawned.add(child)
            owner, arguments = (
                self.calls.get(call_id, (agent, None)) if call_id else (agent, None)
            )
            description = (
                as_dict(arguments).get("description")
                if isinstance(arguments, dict)
                else None
            )
            yield self.event(
                "subagent",
                time,
                agent_id=owner,
                call_id=call_id,
                text=as_str(description),
                extra={
                    "child_id": child,
                    "agent_type": as_str(payload.get("subagent_type")),
                },
            )
        yield from self.message(as_dict(payload.get("event")), time, child)

    def part(
        self,
        part: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        role: EventKind,
    ) -> Iterator[Event]:
        kind = type_tag(part.get("type"))
        if kind == "text":
            text = shown_text(part.get("text"))
            if text and text.strip():
                yield self.event(role, time, agent_id=agent, text=text)
        elif kind == "think":
            text = shown_text(part.get("think"))
            if text and text.strip():
                yield self.event("thinking", time, agent_id=agent, text=text)
        elif isinstance(kind, str) and kind.endswith("_url"):
            yield self.event(role, time, agent_id=agent, text=_media(part))

    def tool_call(
        self, payload: Mapping[str, object], time: datetime | None, agent: str | None
    ) -> Event:
        function = as_dict(payload.get("function"))
        call_id = as_str(payload.get("id"))
        arguments = shown_arguments(function.get("arguments"))
        if call_id:
            self.calls[call_id] = (agent, arguments)
        return self.event(
            "tool_call",
            time,
            agent_id=agent,
            tool=as_str(function.get("name")),
            call_id=call_id,
            text=arguments if isinstance(arguments, str) else None,
            extra={"input": arguments},
        )

    def context(
        self, path: Path, *, full: bool, offset: int, agent: str | None = None
    ) -> Iterator[Event]:
        """An older session's model context: messages only, no times and no usage."""
        for _line, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=full
        ):
            role = record.get("role")
            if not isinstance(role, str):
                self.diagnostics.unknown_type("<no role>")
                continue
            if role in _CONTEXT_IGNORED:
                continue
            content = record.get("content")
            if role == "user":
                text = _parts_text(content)
                if text and not _CHECKPOINT.match(text):
                    yield self.event("user", None, agent_id=agent, text=text)
            elif role == "assistant":
                if isinstance(content, str) and content.strip():
                    yield self.event(
                        "assistant", None, agent_id=agent, text=shown_text(content)
                    )
                for part in content if isinstance(content, list) else []:
                    if isinstance(part, dict):
                        yield from self.part(part, None, agent, "assistant")
                calls = record.get("tool_calls")
                for call in calls if isinstance(calls, list) else []:
                    if isinstance(call, dict):
                        yield self.tool_call(call, None, agent)
            elif role == "tool":
                yield self.event(
                    "tool_result",
                    None,
                    agent_id=agent,
                    call_id=as_str(record.get("tool_call_id")),
                    text=_kimi_code.agent_reply(_parts_text(content)),
                )
            else:
                self.diagnostics.unknown_type(f"context/{role}")


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`kimi --session <id>` run in the session's work directory; sub-agents have no resume."""
    if session.path and _kimi_code.owns(Path(session.path)):
        return _kimi_code.resume(session, keep_permissions=keep_permissions)
    if session.parent_id or not session.cwd or _in_old_share(session):
        return None
    argv = ["kimi", "--session", session.id]
    if session.model:
        argv += ["--model", session.model]
    looser = ""
    if session.permission_mode in ("yolo", "afk"):
        # kimi-cli (1.49's soul/agent.py) reopens the session at the yolo or afk its
        # state.json saved whatever the flags, and none lowers it: refused unless kept
        if keep_permissions:
            argv.append(f"--{session.permission_mode}")
        else:
            looser = f"{session.permission_mode} approval"
    elif session.permission_mode == "plan":
        argv.append("--plan")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="kimi",
        install_hint="uv tool install kimi-cli",
        restores_looser=looser,
    )


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `kimi` on PATH, unless a Kimi Code session would be given Kimi CLI's: both
    install `kimi`, and Kimi CLI takes an id it does not know as a new session's
    (cli/__init__.py: "Session … not found, creating new session"), so it would open an
    empty session unsaid. Kimi CLI's `kimi` is its Python launcher (`from kimi_cli…`), or
    lies in its uv tool or pipx folder, `kimi-cli`; Kimi Code's, given an unknown id,
    says "Session not found", so it runs Kimi CLI's sessions as before."""
    found = shutil.which(plan.program)
    if found is None or plan.install_hint != _kimi_code.INSTALL_HINT:
        return plan, found
    judged = programs.wrapped(found) or found
    if programs.lies_in(judged, ("kimi-cli",)) or (
        programs.is_launcher(judged) and programs.launcher_names(judged, ("kimi_cli",))
    ):
        note = (
            f"the 'kimi' on PATH ({found}) is Kimi CLI's (kimi-cli), which would start a "
            "new, empty session under this Kimi Code session's id; Kimi Code's `kimi` "
            "reopens it"
        )
        return replace(plan, notes=(*plan.notes, note)), None
    return plan, found


def resume_refusal(session: Session) -> str | None:
    """Why a session kimi-cli 0.32 or 0.33 kept in `~/.local/share/kimi` has no resume."""
    if not _in_old_share(session):
        return None
    return (
        "this session was saved in ~/.local/share/kimi by kimi-cli 0.32 or 0.33; kimi "
        "has looked for sessions only in ~/.kimi since 0.34, so `kimi --session` cannot "
        f"open it there. {named('show', f'{session.app}:{session.id}')} reads it."
    )


# --- small helpers ----------------------------------------------------------------------


def _parts_text(value: object) -> str | None:
    """A user input or tool output: a string, or content parts."""
    return _kimi_code.parts_text(value, _media)


def _media(part: Mapping[str, object]) -> str:
    kind = str(part.get("type", "media")).removesuffix("_url")
    url = as_dict(part.get(f"{kind}_url")).get("url")
    if isinstance(url, str):
        if url.startswith("data:") or files.elided(url):
            return f"[{kind}, {files.human_bytes(decoded_size(url))}]"
        return f"[{kind}: {url}]"
    return f"[{kind}]"
