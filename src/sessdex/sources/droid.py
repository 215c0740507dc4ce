"""Factory droid: one JSONL transcript per session under ~/.factory/sessions, plus settings.

droid appends `~/.factory/sessions/<cwd slug>/<id>.jsonl`: a `session_start` record (id,
title, cwd, owner, version) then `message` records holding Anthropic-style
`{role, content[]}` (text, thinking, tool_use, tool_result) with an ISO `timestamp`. Next
to it `<id>.settings.json` holds the session's model, reasoning effort, autonomy level
and `tokenUsage` totals. Flat `sessions/<id>.jsonl` files are read too.

Listing reads the transcript's head (session_start, first prompt) and tail (last time);
the settings file is its own fragment (model, effort, autonomy as permission mode; for
`model: "auto"` the router's pick, `effectiveFactoryRouterModel.modelId`, once it made one). A
user message's leading `<system-reminder>` blocks are not the user's words: they are
dropped from titles and user events, and a message marked `visibility: llm_only` (the
context droid injects at a session's start, real in 0.213) or `user_only` (a notice) is a
`meta` event, never the user's words nor the title. A `document` block is named. A
`session_start` naming a `parent` (`/fork`; 0.215's `droid --fork <id>` and `droid exec
--fork <id>` write it, with `forkedAtMessageId`) is a session of its own, `extra["forked_from_id"]`: it
copies the origin's messages (shown), while its `tokenUsage` counts only its own calls. Usage: droid logs no per-response usage that we
have seen, so `read` emits one `usage` event with the session totals of `tokenUsage`
(`extra["session_total"]`; its `thinkingTokens` added to the output, which every public
reader of it takes them to be apart from: ccusage's droid app, no word of Factory's), unless messages carry their own `usage` (then one per
message, and the total is not added). `tokenUsage` is the session's own (0.215 and 0.225);
`inclusiveTokenUsage` adds its sub-agents', which are read from their own files, so it is
not read: a lead would bill them twice. A `session_start` naming `callingSessionId` is a
sub-agent the Task tool ran: listed under that session, titled by the line after droid's
"# Task Tool Invocation" header, and read into it after the call (`callingToolUseId`) that
ran it, its events tagged with its id (those no call names come at the end). Only the
sub-agent names its lead: one whose transcript is gone leaves a plain Task call, and no
warning can name it. `compaction_state` is a compaction (its summary),
`agent_turn_outcome` the end of a turn (an error when it failed). `~/.factory/projects` stream-JSON exports are not
read. The folder is `$FACTORY_HOME_OVERRIDE/.factory` where that is set (Factory's SDK
reads it; the desktop app sets it for its daemon), else `~/.factory`, `~` found through
`$HOME` as any Node CLI does. Resume: `droid --resume <id>` (Factory's CLI
reference; `droid exec -s <id>` continues headless), run against droid 0.215.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from .. import files, folders, shells
from ..diagnostics import ODD_COUNT, Diagnostics, odd_in
from ..errors import NotQuotable
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    as_int,
    first_line,
    iso_time,
    odd_count,
    stripped,
    type_tag,
)
from .base import Home, Location

NAME = "droid"
TITLE = "Factory droid"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "public synthetic samples (droid 0.81-era session store) and reader projects, "
    "the injected-context shape as third-party readers quote a real 0.213 run; "
    "and real sessions of droid 0.215.0 (conformance suite: exec, TUI resume, a Task "
    "sub-agent, `exec --fork` and TUI `--fork`; BYOK model, airgap mode); resume flag `--resume <id>` also in Factory's "
    "CLI reference of 2026-09; droid 0.225.2 (its @factory/cli-linux-x64 binary run by "
    "the same suite: exec, TUI resume, a Task sub-agent; the same records)"
)
NEWEST_CHECKED = "0.225.2"  # doctor names versions past it
ENV_VARS = ("FACTORY_HOME_OVERRIDE", "HOME")

SETTINGS_CAP = 4 * 1024 * 1024
_REMINDER = re.compile(
    r"^\s*<system-reminder>.*?</system-reminder>\s*", re.DOTALL | re.IGNORECASE
)
_IGNORED = frozenset({"session_start", "todo_state"})  # todos: a tool call shows them
_CHILDREN_CAP = 5000  # transcripts looked at beside a session for its sub-agents
_DEPTH = 3  # sub-agents of sub-agents read into a session
# The header droid puts on a sub-agent's first prompt, and the title of an untitled session.
_TASK_HEADER = "# Task Tool Invocation"
_UNTITLED = "New Session"
# What that header says of the task (droid's Task tool: `subagent_type`, `description`),
# and a sub-agent's own title, "<type>: <description>"
_SUBAGENT_TYPE = re.compile(r"Subagent type:\s*([\w.-]+)")
_TASK_DESCRIPTION = re.compile(r"Task description:\s*(.+?)(?:\s+##|\n|$)")
_TYPED_TITLE = re.compile(r"^([\w.-]+): \S")


def locate(home: Home) -> Location:
    """`$FACTORY_HOME_OVERRIDE/.factory` (the desktop app sets it for its daemon), else
    `$HOME/.factory`."""
    override = home.env_dir("FACTORY_HOME_OVERRIDE")
    if override is not None:
        return Location(
            override / ".factory",
            override=f"FACTORY_HOME_OVERRIDE={home.environ['FACTORY_HOME_OVERRIDE']}",
        )
    value = home.env_dir("HOME")
    if value is not None and value != home.path:
        return Location(value / ".factory", override=f"HOME={home.environ['HOME']}")
    return Location(home.path / ".factory")


# where `scan` reads a transcript, its settings or a folder of them (see base.py): a
# broken link elsewhere (a note in a project's folder) hides none
SESSION_NAMES = (
    "sessions",
    "sessions/*",
    "sessions/*/*.jsonl",
    "sessions/*/*.settings.json",
)


def scan(location: Location) -> Iterator[Path]:
    """Transcripts and their settings files under sessions/, one folder level deep."""
    if not location.exists:
        return
    sessions = location.root / "sessions"
    for entry in folders.entries(sessions, location.root):
        if entry.is_dir():
            for child in folders.entries(Path(entry.path), location.root):
                if _wanted(child.name) and folders.file_entry(child):
                    yield Path(child.path)
        elif _wanted(entry.name) and folders.file_entry(entry):
            yield Path(entry.path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name.endswith(".settings.json"):
        return _parse_settings(path, diagnostics)
    try:
        size, head, tail = files.ends(path, diagnostics=diagnostics)
    except FileNotFoundError:
        diagnostics.problem(f"droid: {path} vanished while it was read")
        return []
    start: dict[str, object] = {}
    first_time: datetime | None = None
    prompt: str | None = None
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is None:
            continue
        if record.get("type") == "session_start" and not start:
            start = record
        elif record.get("type") == "message":
            first_time = first_time or iso_time(record.get("timestamp"))
            if prompt is None and _role(record) == "user" and not _visibility(record):
                prompt = _prompt(record)
    last_time = None
    for line in reversed(tail):
        if b'"timestamp"' not in line.data:
            continue
        record = files.parse_json(line)
        if record is not None and iso_time(record.get("timestamp")):
            last_time = iso_time(record.get("timestamp"))
            break
    version = start.get("version")
    cli_version = version if isinstance(version, str) else None
    if cli_version:
        diagnostics.versions[cli_version] += 1
    extra: dict[str, JSONValue] = {}
    if isinstance(version, int):
        extra["format_version"] = version
    title = next(
        (
            t
            for t in (stripped(start.get("sessionTitle")), stripped(start.get("title")))
            if t and t != _UNTITLED and not t.startswith(_TASK_HEADER)
        ),
        None,
    ) or _task_title(prompt)
    parent = stripped(start.get("callingSessionId"))  # a sub-agent the Task tool ran
    if parent and (call := stripped(start.get("callingToolUseId"))):
        extra["parent_call_id"] = call
    if (origin := stripped(start.get("parent"))) and origin != parent:
        extra["forked_from_id"] = (
            origin  # `/fork`: a session of its own, copied from it
        )
    return [
        Session(
            app=NAME,
            id=stripped(start.get("id")) or path.stem,
            path=str(path),
            cwd=stripped(start.get("cwd")),
            title=first_line(title),
            created=first_time,
            updated=last_time or first_time,
            cli_version=cli_version,
            bytes=size,
            parent_id=parent,
            agent_type=_agent_type(start, prompt) if parent else None,
            extra=extra,
        )
    ]


def _task_title(prompt: str | None) -> str | None:
    """A sub-agent's prompt starts with droid's header: its title is the task's
    description (else the first line after the header that is not its type)."""
    if prompt is None or not prompt.startswith(_TASK_HEADER):
        return prompt
    if described := _TASK_DESCRIPTION.search(prompt):
        return described[1].strip()
    rest = [line.strip() for line in prompt[len(_TASK_HEADER) :].splitlines()]
    return next(
        (line for line in rest if line and not _SUBAGENT_TYPE.match(line)), None
    )


def _agent_type(start: dict[str, object], prompt: str | None) -> str:
    """A sub-agent's type (`worker`, `explorer`, a custom droid's name), as droid's
    header on its task or its title says; "task" when neither does."""
    for text in (stripped(start.get("title")), prompt):
        if (
            text
            and text.startswith(_TASK_HEADER)
            and (typed := _SUBAGENT_TYPE.search(text))
        ):
            return typed[1]
    titled = stripped(start.get("sessionTitle"))
    if titled and (typed := _TYPED_TITLE.match(titled)):
        return typed[1]
    return "task"


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    event = Emitter(session.id)
    children = _Children(Path(session.path)) if offset == 0 else None
    if children is not None:
        children.read.add(session.id)  # never read back in as a sub-agent of its own
    yield from _transcript(
        Path(session.path), session, event, diagnostics, full, offset, None, children
    )


@dataclass(slots=True)
class _Child:
    session_id: str
    path: Path
    title: str | None
    parent: str
    agent_type: str = "task"


class _Children:
    """The sub-agent transcripts beside a session's, by the call that ran each
    (`session_start.callingSessionId` / `callingToolUseId`), found on first need."""

    def __init__(self, path: Path) -> None:
        self.folder = path.parent
        self.own = path
        self.by_call: dict[str, _Child] | None = None
        self.unlinked: dict[str, list[_Child]] = {}
        self.read: set[str] = set()

    def _load(self) -> dict[str, _Child]:
        if self.by_call is None:
            self.by_call = {}
            for name, call, child in _beside(self.folder):
                if name == self.own.name:
                    continue
                if call:
                    self.by_call[call] = child
                else:
                    self.unlinked.setdefault(child.parent, []).append(child)
        return self.by_call

    def of_call(self, call_id: str | None) -> _Child | None:
        child = self._load().get(call_id) if call_id else None
        return (
            child if child is not None and child.session_id not in self.read else None
        )

    def left(self, parent: str) -> list[_Child]:
        """Children of `parent` no call of it led to."""
        by_call = self._load()
        found = [*self.unlinked.get(parent, []), *by_call.values()]
        return [
            c for c in found if c.parent == parent and c.session_id not in self.read
        ]


def _beside(folder: Path) -> list[tuple[str, str | None, _Child]]:
    """The sub-agent transcripts in `folder`, as (file name, the call that ran it, the
    child). Read once a command (`folders.kept`): doctor --deep reads each of a folder's
    thousands of sessions in turn, and each read the first line of every other."""

    def make() -> list[tuple[str, str | None, _Child]]:
        found = []
        for entry in folders.listing(folder)[:_CHILDREN_CAP]:
            if not entry.name.endswith(".jsonl"):
                continue
            path = Path(entry.path)
            start = _start_of(path)
            parent = stripped(start.get("callingSessionId"))
            if not parent:
                continue
            child = _Child(
                stripped(start.get("id")) or path.stem,
                path,
                stripped(start.get("title")),
                parent,
                _agent_type(start, None),
            )
            found.append((entry.name, stripped(start.get("callingToolUseId")), child))
        return found

    return folders.kept(("droid-children", os.fspath(folder)), make)


def _start_of(path: Path) -> dict[str, object]:
    """A transcript's `session_start` record (its first line), else {}."""
    try:
        head = files.head_lines(path, 1)
    except OSError:
        return {}
    record = files.parse_json(head[0]) if head else None
    return (
        record if record is not None and record.get("type") == "session_start" else {}
    )


def _transcript(
    path: Path,
    session: Session,
    event: Emitter,
    diagnostics: Diagnostics,
    full: bool,
    offset: int,
    agent: str | None,
    children: _Children | None,
    depth: int = 0,
) -> Iterator[Event]:
    """One transcript's events (`agent` tags a sub-agent's), its sub-agents after the
    calls that ran them."""
    per_message_usage = False
    last_time: datetime | None = None
    own = stripped(_start_of(path).get("id")) or path.stem

    def tagged(made: Event) -> Event:
        return made if agent is None else replace(made, agent_id=agent)

    try:
        for line, record in files.iter_records(
            path, diagnostics, offset=offset, full=full
        ):
            if offset and line.offset == offset:
                continue  # the partial line at a --tail offset
            kind = type_tag(record.get("type"))
            if kind == "message":
                time = iso_time(record.get("timestamp"))
                last_time = time or last_time
                message = record.get("message")
                if not isinstance(message, dict):
                    diagnostics.skip(str(path), line.number, "bad value")
                    continue
                if hidden := _visibility(record):
                    yield tagged(_hidden(message, hidden, time, event, full))
                    continue
                if message.get("role") == "assistant" and _odd(
                    message.get("usage"), _MESSAGE_COUNTS
                ):  # what `_message` bills
                    diagnostics.damage(str(path), line.number, ODD_COUNT)
                for made in _message(message, time, event, diagnostics):
                    per_message_usage = per_message_usage or made.kind == "usage"
                    yield tagged(made)
                    if made.kind == "tool_call" and children is not None:
                        child = children.of_call(made.call_id)
                        if child is not None and depth < _DEPTH:
                            yield from _child(
                                child,
                                made,
                                session,
                                event,
                                diagnostics,
                                children,
                                depth,
                            )
            elif kind == "compaction_state":  # older messages summarised
                yield tagged(
                    event(
                        "compaction",
                        iso_time(record.get("timestamp")) or last_time,
                        text=stripped(record.get("summaryText")),
                        extra={
                            "kind": stripped(record.get("summaryKind")),
                            "removed": as_int(record.get("removedCount")),
                        },
                    )
                )
            elif kind == "agent_turn_outcome":  # how a turn ended
                reason = stripped(record.get("reason"))
                when = iso_time(record.get("timestamp")) or last_time
                if reason == "error":
                    yield tagged(event("error", when, text="the turn failed"))
                else:
                    yield tagged(event("turn_end", when, extra={"reason": reason}))
            elif kind in _IGNORED:
                continue
            else:
                diagnostics.unknown_type(str(kind), session.cli_version)
    except FileNotFoundError:
        diagnostics.problem(f"droid: {path} vanished")
        return
    if children is not None and depth < _DEPTH:
        for child in children.left(own):
            yield from _child(child, None, session, event, diagnostics, children, depth)
    if not per_message_usage and offset == 0:
        total = _settings_usage(
            path, session.model if agent is None else None, diagnostics
        )
        if total is not None:
            yield tagged(
                event(
                    "usage",
                    last_time,
                    usage=total,
                    extra={"session_total": True, "summed": True},
                )
            )


def _child(
    child: _Child,
    call: Event | None,
    session: Session,
    event: Emitter,
    diagnostics: Diagnostics,
    children: _Children,
    depth: int,
) -> Iterator[Event]:
    """A sub-agent: its `subagent` event (at its call, when one ran it), then its events."""
    children.read.add(child.session_id)
    task = call.extra.get("input") if call is not None else None
    task = task if isinstance(task, dict) else {}
    yield event(
        "subagent",
        call.time if call is not None else None,
        agent_id=call.agent_id if call is not None else None,
        call_id=call.call_id if call is not None else None,
        text=stripped(task.get("description"))
        or (_task_title(child.title) if child.title else None),
        extra={
            "child_id": child.session_id,
            "agent_type": stripped(task.get("subagent_type")) or child.agent_type,
        },
    )
    yield from _transcript(
        child.path,
        session,
        event,
        diagnostics,
        False,
        0,
        child.session_id,
        children,
        depth + 1,
    )


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`droid --resume <id>` in the session's folder (Factory's docs; run with droid 0.215)."""
    if session.cwd is None:
        return None
    # droid 0.215 opens a session given by id without a picker; `exec -s` asks
    # Factory's API for it first (fails in airgap mode), so it is only a note; the id
    # is the file's: quoted for the user's shell, as a command a person may paste
    notes = []
    with contextlib.suppress(NotQuotable):  # no line that shell could take: no note
        headless = shells.run(("droid", "exec", "-s", session.id))
        notes.append(f"headless: `{headless}` (needs a Factory login)")
    if session.parent_id:  # a Task sub-agent's transcript is a session file of its own
        notes.append(
            "a sub-agent session: it reopens on its own, not inside its parent"
        )
    # droid 0.215 loads the session's own settings on resume, autonomy level included
    # (its default is off), and `--auto` takes only low, medium or high: none lowers it
    level = (session.permission_mode or "").removeprefix("auto-")
    looser = level in _LOOSER_LEVELS and not keep_permissions
    return ResumePlan(
        argv=("droid", "--resume", session.id),
        cwd=session.cwd,
        program="droid",
        install_hint="curl -fsSL https://app.factory.ai/cli | sh",
        notes=tuple(notes),
        restores_looser=f"autonomy level {level}" if looser else "",
    )


# autonomy levels above droid's default, off (auto-approving some or all tool calls)
_LOOSER_LEVELS = frozenset({"low", "medium", "high"})


# --- helpers ---------------------------------------------------------------------------


def _wanted(name: str) -> bool:
    return name.endswith(".jsonl") or name.endswith(".settings.json")


def _parse_settings(path: Path, diagnostics: Diagnostics) -> list[Session]:
    settings = files.read_json_counted(path, SETTINGS_CAP, diagnostics)
    if not isinstance(settings, dict):
        return []
    defaults = settings.get("sessionDefaultSettings")
    defaults = defaults if isinstance(defaults, dict) else {}
    model = stripped(settings.get("model")) or stripped(defaults.get("model"))
    if model in (None, "auto"):  # droid's router picks; it names its pick once it has
        routed = settings.get("effectiveFactoryRouterModel")
        if isinstance(routed, dict):
            model = stripped(routed.get("modelId")) or model
    effort = stripped(settings.get("reasoningEffort")) or stripped(
        defaults.get("reasoningEffort")
    )
    autonomy = (
        stripped(settings.get("autonomyLevel"))
        or stripped(settings.get("autonomyMode"))
        or stripped(defaults.get("autonomyLevel"))
    )
    extra: dict[str, JSONValue] = {}
    if stripped(settings.get("providerLock")):
        extra["provider"] = stripped(settings.get("providerLock"))
    return [
        Session(
            app=NAME,
            id=path.name.removesuffix(".settings.json"),
            path=str(path),
            model=model,
            effort=effort,
            permission_mode=autonomy,
            precedence=-1,  # fills in; the transcript stays the session's file
            listed=False,
            extra=extra,
        )
    ]


# the counts of a message's `usage` and of a settings file's `tokenUsage`, in `Usage`'s
# order (`thinkingTokens` come on top of the output)
_MESSAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
_SETTINGS_COUNTS = (
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheCreationTokens",
    "thinkingTokens",
)


def _odd(usage: object, keys: tuple[str, ...]) -> bool:
    """Whether billed `usage` holds a count no app writes (`odd_count`): said."""
    return isinstance(usage, dict) and any(odd_count(usage.get(k)) for k in keys)


def _counts(usage: dict[str, object], keys: tuple[str, ...]) -> list[int]:
    """`usage`'s counts named by `keys`, each 0 below 0 (a broken one took as much off
    the rest) or where it is no count."""
    return [max(0, as_int(usage.get(key))) for key in keys]


def _settings_usage(
    transcript: Path, model: str | None, diagnostics: Diagnostics
) -> Usage | None:
    named = transcript.with_name(transcript.stem + ".settings.json")
    settings = files.read_json_counted(named, SETTINGS_CAP, diagnostics)
    if not isinstance(settings, dict) or not isinstance(
        settings.get("tokenUsage"), dict
    ):
        return None
    tokens = settings["tokenUsage"]
    if _odd(tokens, _SETTINGS_COUNTS):
        diagnostics.damage(str(named), 0, odd_in("set of totals"))
    # `thinkingTokens` come on top of `outputTokens` (every public reader of these files
    # counts them so: ccusage's droid app bills `outputTokens + thinkingTokens` at the
    # output price); sessdex's output holds a response's thinking, as Gemini's does
    thinking = max(0, as_int(tokens.get("thinkingTokens")))
    # each 0 below 0: a broken count took as much off the rest
    given, output, cache_read, cache_write = _counts(tokens, _SETTINGS_COUNTS[:4])
    usage = Usage(
        given, output + thinking, cache_read, cache_write, thinking, model=model
    )
    return usage if usage.total or usage.reasoning_tokens else None


def _message(
    message: dict[str, object],
    time: datetime | None,
    event: Emitter,
    diagnostics: Diagnostics,
) -> Iterator[Event]:
    role = message.get("role")
    content = message.get("content")
    blocks = (
        [{"type": "text", "text": content}] if isinstance(content, str) else content
    )
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = type_tag(block.get("type"))
        if kind == "text":
            text = stripped(block.get("text"))
            if role == "user" and text:
                text = _unremind(text)
            if text:
                yield event("user" if role == "user" else "assistant", time, text=text)
        elif kind == "thinking":
            text = stripped(block.get("thinking")) or stripped(block.get("text"))
            if text:
                yield event("thinking", time, text=text)
        elif kind == "tool_use":
            value = block.get("input")
            yield event(
                "tool_call",
                time,
                tool=stripped(block.get("name")),
                call_id=stripped(block.get("id")),
                extra={
                    "input": value if isinstance(value, dict | list | str) else None
                },
            )
        elif kind == "tool_result":
            yield event(
                "tool_result",
                time,
                call_id=stripped(block.get("tool_use_id")),
                text=_flatten(block.get("content")),
                is_error=block.get("is_error") is True,
            )
        elif kind == "document":  # an attached file: named, its text not repeated
            source = block.get("source")
            name = stripped(source.get("name")) if isinstance(source, dict) else None
            yield event(
                "user" if role == "user" else "assistant",
                time,
                text=f"[document {name or 'attached'}]",
            )
        elif kind in ("image", "redacted_thinking"):
            continue
        else:
            diagnostics.unknown_type(f"message.content.{kind}")
    usage = message.get("usage")
    if role == "assistant" and isinstance(usage, dict):
        given, output, cache_read, cache_write = _counts(usage, _MESSAGE_COUNTS)
        yield event(
            "usage",
            time,
            usage=Usage(
                given,
                output,
                cache_read,
                cache_write,
                # real droid files say `modelId` (marmutapp/superbased-observer's
                # records.go, read from them); `model` in older ones
                model=stripped(message.get("modelId"))
                or stripped(message.get("model")),
            ),
        )


def _flatten(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, dict) and part.get("type") == "image":
                parts.append("[image]")
        return "\n".join(parts)
    return None


INJECTED_SHOWN = 200  # characters of an injected context a meta event quotes


def _visibility(record: dict[str, object]) -> str | None:
    """`llm_only` (context droid injected for the model: its catalogs, reminders, at the
    start of each session) or `user_only` (a notice shown to the user alone), on the
    message or its record; None for the conversation itself."""
    message = record.get("message")
    for holder in (message, record):
        if isinstance(holder, dict):
            value = stripped(holder.get("visibility"))
            if value in ("llm_only", "user_only"):
                return value
    return None


def _hidden(
    message: dict[str, object],
    visibility: str,
    time: datetime | None,
    event: Emitter,
    full: bool,
) -> Event:
    """A message only the model (or only the user) saw: a `meta` event, never the user's
    words nor the title; a long injected context shortened unless `full` (payloads asked
    for whole)."""
    content = message.get("content")
    texts = (
        [content]
        if isinstance(content, str)
        else [
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        if isinstance(content, list)
        else []
    )
    text = "\n".join(t for t in texts if t.strip())
    injected = visibility == "llm_only"
    extra: dict[str, JSONValue] = {"visibility": visibility, "injected": injected}
    if injected and len(text) > INJECTED_SHOWN and not full:
        # droid's catalogs and reminders run to several KB at every session's start: a
        # line that says what it is, not pages of it ahead of the user's first words
        extra["characters"] = len(text)
        start = " ".join(text[: INJECTED_SHOWN * 2].split())[:INJECTED_SHOWN]
        text = f"context droid gave the model ({len(text):,} characters): {start}…"
    return event("meta", time, text=text or None, extra=extra)


def _role(record: dict[str, object]) -> object:
    message = record.get("message")
    return message.get("role") if isinstance(message, dict) else None


def _prompt(record: dict[str, object]) -> str | None:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return _unremind(content)
    if isinstance(content, list):
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "text"
                and isinstance(block.get("text"), str)
            ):
                return _unremind(block["text"])
    return None


def _unremind(text: str) -> str | None:
    """The text without its leading <system-reminder> blocks (droid's, not the user's)."""
    while match := _REMINDER.match(text):
        text = text[match.end() :]
    return stripped(text)
