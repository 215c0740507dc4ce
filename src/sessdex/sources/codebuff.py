"""Codebuff (npm `codebuff`, formerly Manicode): its terminal CLI's chats.

Codebuff keeps each chat in a folder of its own,
`~/.config/manicode/projects/<project>/chats/<chat id>/` (`os.homedir()/.config` on every
OS, macOS and Windows too; a development build's `NEXT_PUBLIC_CB_ENVIRONMENT=<env>` other
than `prod` makes it `~/.config/manicode-<env>`). `<project>` is the base name of the folder
the CLI ran in (two projects of one name share it); the chat id is the time it began,
`new Date().toISOString()` with its colons made dashes (`2026-12-01T10-00-00.000Z`).
Each save rewrites two files whole with JSON.stringify(value, null, 2):
`chat-messages.json`, the list of messages the CLI shows (`cli/src/types/chat.ts`), read
here; and `run-state.json`, the SDK's `{sessionState: {mainAgentState, fileContext}, output}`
(the model's own message history and the project's file tree), of which only the
`projectRoot` of its `fileContext` is read, as the session's folder: from its first and last
256 KB, else searched for in its middle (`files.lines_with`: the history comes first, a
long chat puts it there). `turn-checkpoint.json` (a turn in flight) and `log.jsonl` (the
CLI's own log, in every chat folder, one with no chat too) are not read. The CLI keeps only
a chat's last 100 messages (its first prompt, and so its title, can go), and a finished
answer carries the whole run state again in its `metadata.runState` (not read). A chat
is one JSON list rewritten whole; `show --tail` finds its last messages from its end
(`read_last`), one written on one line (another tool's copy) too, and reads it through
(a message at a time past the size parsed at once) where it is not laid out either way.

A message is `{id, variant: user|ai|agent|error, content, blocks?, timestamp, credits?,
userError?, attachments?}`; an `ai` message is an answer only when its id says so (the CLI
adds mode dividers, shell output and notices as `ai` messages too). Its `timestamp` is only
the clock time the CLI shows (`toLocaleTimeString`, "10:32 AM": no date, no zone), so a
message is dated by its id, made from `Date.now()`: `user-<ms>`, `ai-<ms>-<hex>`,
`divider-<ms>`, `error-<ms>` (a shell command's `bash-result-<uuid>` has none). An answer's
blocks keep what the run did, in order: text (`textType: "reasoning"` for thinking), a tool
call with its output on the same block (`toolCallId`, `toolName`, `input`, `output`), a
sub-agent (`agent`: `agentId`, `agentType`, `agentName`, `initialPrompt`, `status`, and its
own blocks nested: the file-picker, reviewer, thinker... that `spawn_agents` started; that
call itself is no block), a plan, a question to the user (`ask-user`, with the answers), a
gate or a mode change. Sub-agents stay inside their lead's chat: their events carry the
agent's id, no session of their own. Codebuff keeps no per-call tokens and no model in the
chat (run-state.json's main agent has only cache totals, not read): an answer's `credits`
(Codebuff's own unit, charged by its server) is its `usage` event, just before its
`turn_end`: counted by `sessdex usage` as Codebuff's credits.

Resume: `codebuff --continue <chat id>` in a folder of the project's name (`--continue`
alone reopens the project's newest chat, and so does an id it does not find under the
folder's base name: run in another folder, it would open another chat; a chat without its
`run-state.json` is not reopened, and has no known folder here); never a mode flag.
`credentials.json` beside the projects is never opened. The older CLI's `messages.json` (no
resume) is read by `_codebuff_legacy`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from io import BytesIO
from pathlib import Path
from typing import Unpack

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _codebuff_legacy as _legacy
from ._values import (
    Emitter,
    EventFields,
    as_credits,
    as_dict,
    as_list,
    as_str,
    iso_time,
    ms_time,
    one_line,
    shown_arguments,
    shown_text,
    stat_size,
    stripped,
    type_tag,
    written_time,
)
from .base import Home, Location, Opened, WholeRead

NAME = "codebuff"
TITLE = "Codebuff CLI"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "CodebuffAI/codebuff's CLI source only (cli/src/project-files.ts, utils/config-dir.ts, "
    "utils/run-state-storage.ts, utils/chat-history.ts, types/chat.ts, cli-args.ts "
    "@ce10b6eeda97; message ids and clock-only timestamps from utils/message-history.ts, "
    "utils/send-message-helpers.ts, hooks/helpers/send-message.ts; npm-app/ and common/ "
    "@da0d57111a35 for the older CLI's messages.json), as npm codebuff ships it up to "
    "1.0.685 (a launcher that downloads the CLI's binary into ~/.config/manicode; not run "
    "here); synthetic fixtures, no real capture (Medium); resume checked against "
    "cli-args.ts @ce10b6eeda97 (`--continue [conversation-id]`)"
)
NEWEST_CHECKED = "1.0.685"
ENV_VARS = ("HOME", "NEXT_PUBLIC_CB_ENVIRONMENT")
CLI = ("codebuff",)

MESSAGES = "chat-messages.json"
RUN_STATE = "run-state.json"
WHOLE_CAP = (
    files.WHOLE_JSON_CAP
)  # a bigger chat is listed from its head, read in pieces
_ENDS = 256 * 1024  # bytes of run-state.json read at either end for the folder
_VARIANTS = frozenset({"user", "ai", "agent", "error"})
# the project's folder, in run-state.json's fileContext (a string's own quotes are escaped,
# so a pasted `"projectRoot":` inside a message does not match)
_ROOT = re.compile(rb'(?<!\\)"projectRoot": ("(?:[^"\\\n]|\\.)*")')
_ROOT_MARKER = b'"projectRoot": '
_CHAT_ID = re.compile(r"(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d(?:\.\d+)?Z)")
# a message's id carries the epoch milliseconds it was made (`user-<ms>`, `ai-<ms>-<hex>`,
# `divider-<ms>`, `error-<ms>`); its `timestamp` is only the clock time the CLI shows
_MESSAGE_MS = re.compile(r"[a-z][a-z-]*?-(\d{12,14})(?:-|$)")


def locate(home: Home) -> Location:
    """`$HOME/.config/manicode` (Node's `os.homedir()`, not `$XDG_CONFIG_HOME`: Codebuff
    joins `.config` itself), `manicode-<env>` for a development build's environment."""
    base, overrides = home.path, []
    value = home.env_dir("HOME")
    if value is not None and value != home.path:
        base = value
        overrides.append(f"HOME={home.environ['HOME']}")
    folder = "manicode"
    environment = home.environ.get("NEXT_PUBLIC_CB_ENVIRONMENT", "")
    if environment and environment != "prod" and "/" not in environment:
        folder = f"manicode-{environment}"
        overrides.append(f"NEXT_PUBLIC_CB_ENVIRONMENT={environment}")
    return Location(base / ".config" / folder, override=" ".join(overrides) or None)


def scan(location: Location) -> Iterator[str]:
    """Each chat folder's `chat-messages.json` under `projects/<project>/chats/`."""
    if not location.exists:
        return
    for project in folders.entries(location.root / "projects", location.root):
        if not project.is_dir():
            continue
        chats = Path(project.path) / "chats"
        for chat in folders.entries(chats, location.root):
            if not chat.is_dir():
                continue
            path = Path(chat.path) / MESSAGES
            if folders.is_file(path):
                yield str(path)
                if folders.is_file(state := Path(chat.path) / RUN_STATE):
                    yield str(state)  # a companion (`companion_of`)
            elif folders.is_file(older := Path(chat.path) / _legacy.MESSAGES):
                yield str(older)


def companion_of(path: str) -> str | None:
    """The chat-messages.json whose listing the run-state.json beside it changes (the
    chat's folder): the chat is read again when its run state changes alone."""
    folder, base = os.path.split(path)
    return os.path.join(folder, MESSAGES) if base == RUN_STATE else None


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == RUN_STATE:  # read with its chat's messages (`companion_of`)
        return []
    size = stat_size(path)
    if size is None:
        files.say_if_refused(NAME, path, diagnostics)
        return []
    if path.name == _legacy.MESSAGES:
        return _parse_legacy(path, size, diagnostics)
    facts: _Facts | None
    if size > WHOLE_CAP:
        facts = _Facts(prompt=_head_prompt(path))
    else:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if isinstance(value, list):
            facts = _facts(value)
        elif value is not None:
            diagnostics.skip(str(path), 1, "not an object")
            return []
        else:  # cut short (a write stopped half way): the messages before the cut
            facts = _in_pieces(path, diagnostics)
        if facts is None:
            return []
    chat_id = path.parent.name
    project = path.parent.parent.parent.name
    extra: dict[str, JSONValue] = {"project": project}
    if facts.count is not None:
        extra["messages"] = facts.count
    return [
        Session(
            app=NAME,
            id=chat_id,
            path=str(path),
            cwd=_project_root(path.parent / RUN_STATE, diagnostics),
            title=one_line(facts.prompt),
            created=_chat_time(chat_id) or facts.first,
            updated=facts.last or written_time(path),
            bytes=size,
            extra=extra,
        )
    ]


def _parse_legacy(path: Path, size: int, diagnostics: Diagnostics) -> list[Session]:
    """A chat of the older CLI (`messages.json`): no folder, no resume."""
    found = _legacy.listing(path, WHOLE_CAP, diagnostics)
    if found is None:
        return []
    prompt, updated, count = found
    chat_id = path.parent.name
    extra: dict[str, JSONValue] = {
        "project": path.parent.parent.parent.name,
        "format": "legacy",
    }
    if count is not None:
        extra["messages"] = count
    return [
        Session(
            app=NAME,
            id=chat_id,
            path=str(path),
            title=one_line(prompt),
            created=_chat_time(chat_id),
            updated=updated or written_time(path),
            bytes=size,
            extra=extra,
        )
    ]


@dataclass(slots=True)
class _Facts:
    """What a listing takes from a chat's messages."""

    prompt: str | None = None  # the first typed prompt
    first: datetime | None = None  # the first message's time
    last: datetime | None = None  # the last message's
    count: int | None = None  # how many messages (None: not counted, a chat too big)

    def add(self, raw: object) -> None:
        message = as_dict(raw)
        self.count = (self.count or 0) + 1
        if self.prompt is None and message.get("variant") == "user":
            self.prompt = stripped(message.get("content"))
        moment = _message_time(message)
        if moment is not None:
            self.first = self.first or moment
            self.last = moment


def _facts(messages: Iterable[object]) -> _Facts:
    facts = _Facts(count=0)
    for raw in messages:
        facts.add(raw)
    return facts


def _in_pieces(path: Path, diagnostics: Diagnostics) -> _Facts | None:
    """A chat that does not parse whole: what the messages before its break say; None
    (counted) where none is read."""
    from ..jsonstream import file_items

    facts = _facts(file_items(path, None, diagnostics, NAME))
    if not facts.count:
        diagnostics.skip(str(path), 1, "not JSON")
        return None
    return facts


def _head_prompt(path: Path) -> str | None:
    """The first typed prompt among the messages the first 256 KB hold whole."""
    from ..jsonstream import NotThisShape, array_items

    try:
        with files.open_regular(path) as stream:
            head = stream.read(_ENDS)
    except OSError:
        return None
    facts = _Facts()
    try:
        for item in array_items(BytesIO(head)):
            facts.add(item)
            if facts.prompt is not None:
                break
    except NotThisShape:  # the head ends inside a message
        pass
    return facts.prompt


def _project_root(path: Path, diagnostics: Diagnostics) -> str | None:
    """The folder the chat ran in: run-state.json's `projectRoot`, from its ends, else
    searched for in its middle (the main agent's history comes before the file context, so
    a long chat puts it there); None where the file holds none."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_ENDS)
            size = stream.seek(0, 2)
            middle_end = max(len(head), size - _ENDS)
            stream.seek(middle_end)
            tail = stream.read(_ENDS)
    except OSError:
        return None
    for block in (head, tail):
        root = _root_in(block)
        if root:
            return root
    try:
        for line in files.lines_with(
            path, _ROOT_MARKER, len(head), middle_end, diagnostics=diagnostics
        ):
            root = _root_in(line.data)
            if root:
                return root
    except OSError:
        return None
    return None


def _root_in(data: bytes) -> str | None:
    match = _ROOT.search(data)
    if match is None:
        return None
    try:
        root = orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return None
    return root if isinstance(root, str) and root.strip() else None


def _chat_time(chat_id: str) -> datetime | None:
    """When the chat began, from its id (an ISO time with its colons made dashes)."""
    match = _CHAT_ID.fullmatch(chat_id)
    if match is None:
        return None
    return iso_time(f"{match.group(1)}:{match.group(2)}:{match.group(3)}")


def _message_time(message: dict[str, object]) -> datetime | None:
    """When a message was made: the epoch milliseconds in its id; else its `timestamp` where
    that is a full ISO time (the CLI writes only the clock time, "10:32 AM", in the user's
    locale: no date, no zone, not read)."""
    ident = message.get("id")
    match = _MESSAGE_MS.match(ident) if isinstance(ident, str) else None
    if match is not None:
        moment = ms_time(int(match.group(1)))
        if moment is not None:
            return moment
    return iso_time(message.get("timestamp"))


def _is_answer(message: dict[str, object]) -> bool:
    """Whether an `ai` message is the model's answer (`ai-<ms>-<hex>`), not one the CLI adds
    itself: a mode divider (`divider-<ms>`), a shell command's output (`bash-result-<id>`),
    a notice (`sys-<ms>`). A message with no id is taken for an answer."""
    ident = message.get("id")
    return not isinstance(ident, str) or ident.startswith("ai-")


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    path = Path(session.path)
    if path.name == _legacy.MESSAGES:
        yield from _legacy.read(session, WHOLE_CAP, diagnostics)
        return
    from . import _json_chat

    found = _json_chat.document(path, NAME, None, WHOLE_CAP, diagnostics)
    if found is not None:
        yield from _Reader(session, diagnostics).messages(found.items)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the chat's last `rows` messages, found from its end (see base.py):
    a message's events are its own (a tool's output is on its call's block)."""
    from . import _json_chat

    path = Path(session.path or "")
    found = None
    if path.name != _legacy.MESSAGES:
        # one written on one line (another tool's copy) too: `[{id, variant}, …]`
        compact = _json_chat.Compact("id", "variant")
        found = _json_chat.last_messages(path, rows, key=None, compact=compact)
    if found is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    yield from _Reader(session, diagnostics).messages(iter(found))


class _Reader:
    """Translates the CLI's chat messages into events."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.event = Emitter(session.id)
        self.diagnostics = diagnostics
        self.path = session.path or ""
        self.agent: str | None = None  # the sub-agent whose blocks are read

    def emit(
        self, kind: EventKind, time: datetime | None, **fields: Unpack[EventFields]
    ) -> Event:
        """The next event, the sub-agent's while one is read."""
        if self.agent is not None:
            fields["agent_id"] = self.agent
        return self.event(kind, time, **fields)

    def messages(self, messages: Iterator[object] | list[object]) -> Iterator[Event]:
        for raw in messages:
            if not isinstance(raw, dict):
                self.diagnostics.skip(self.path, 0, "not an object")
                continue
            variant = type_tag(raw.get("variant"))
            if variant not in _VARIANTS:
                self.diagnostics.unknown_type(f"message:{variant}")
                continue
            yield from self.message(raw, str(variant))

    def message(self, message: dict[str, object], variant: str) -> Iterator[Event]:
        time = _message_time(message)
        content = shown_text(message.get("content"), keep_empty=False)
        if variant == "user":
            if content is None and "content" in message and message["content"] != "":
                self.diagnostics.skip(self.path, 0, "bad value")
                return
            extra: dict[str, JSONValue] = {}
            attached = [
                name
                for raw in as_list(message.get("attachments"))
                + as_list(message.get("fileAttachments"))
                if (name := stripped(as_dict(raw).get("path")))
            ]
            if attached:
                extra["attachments"] = list(attached)
            yield self.emit("user", time, text=content or "", extra=extra)
        elif variant == "error":
            yield self.emit("error", time, text=content or "error", is_error=True)
        else:
            blocks = as_list(message.get("blocks"))
            if variant == "agent":
                agent = as_dict(message.get("agent"))
                name = stripped(agent.get("agentName")) or stripped(
                    agent.get("agentType")
                )
                if name:
                    yield self.emit(
                        "meta", time, text=f"agent {name}", extra={"agent_name": name}
                    )
            if blocks:
                yield from self.blocks(blocks, time)
            elif content:
                yield self.emit("assistant", time, text=content)
            if (
                variant == "ai"
                and message.get("isComplete") is not False
                and _is_answer(message)
            ):
                # what Codebuff's server charged for the answer, in its credits: the
                # only usage a chat keeps (no token count, no model)
                credits = as_credits(message.get("credits"))
                if credits:
                    yield self.emit("usage", time, usage=Usage(credits=credits))
                yield self.emit("turn_end", time)
        problem = shown_text(message.get("userError"), keep_empty=False)
        if problem:
            yield self.emit("error", time, text=problem, is_error=True)

    def blocks(self, blocks: list[object], time: datetime | None) -> Iterator[Event]:
        for raw in blocks:
            if not isinstance(raw, dict):
                self.diagnostics.skip(self.path, 0, "not an object")
                continue
            block = raw
            kind = type_tag(block.get("type"))
            if kind == "text":
                text = shown_text(block.get("content"), keep_empty=False)
                if text:
                    thinking = block.get("textType") == "reasoning"
                    yield self.emit(
                        "thinking" if thinking else "assistant", time, text=text
                    )
            elif kind == "tool":
                yield from self.tool(block, time)
            elif kind == "agent":
                yield from self.subagent(block, time)
            elif kind == "plan":
                text = shown_text(block.get("content"), keep_empty=False)
                if text:
                    yield self.emit("assistant", time, text=text, extra={"plan": True})
            elif kind == "ask-user":
                yield from self.question(block, time)
            elif kind == "image":
                name = stripped(block.get("filename")) or "image"
                yield self.emit("assistant", time, text=f"[image: {name}]")
            elif kind == "mode-divider":
                mode = stripped(block.get("mode")) or "?"
                yield self.emit("meta", time, text=f"mode {mode}", extra={"mode": mode})
            elif kind == "gate-state":
                gate = stripped(block.get("gate")) or "gate"
                status = stripped(block.get("gateStatus")) or "?"
                yield self.emit("meta", time, text=f"{gate}: {status}")
            elif kind in ("agent-list", "html"):
                continue  # the CLI's own display: no part of the chat
            else:
                self.diagnostics.unknown_type(f"block:{kind}")

    def tool(self, block: dict[str, object], time: datetime | None) -> Iterator[Event]:
        call_id = as_str(block.get("toolCallId"))
        tool = as_str(block.get("toolName"))
        if call_id is None and tool is None:
            self.diagnostics.skip(self.path, 0, "bad value")
            return
        yield self.emit(
            "tool_call",
            time,
            tool=tool,
            call_id=call_id,
            extra={"input": shown_arguments(block.get("input") or {})},
        )
        output = block.get("output")
        if output is None and "outputRaw" in block:
            output = orjson.dumps(block["outputRaw"], default=str).decode()
        if output is not None:
            text = output if isinstance(output, str) else str(output)
            yield self.emit(
                "tool_result",
                time,
                text=shown_text(text) or "",
                tool=tool,
                call_id=call_id,
                is_error=_failed(text),
            )

    def subagent(
        self, block: dict[str, object], time: datetime | None
    ) -> Iterator[Event]:
        agent_id = as_str(block.get("agentId"))
        agent_type = stripped(block.get("agentType"))
        name = stripped(block.get("agentName")) or agent_type or "sub-agent"
        status = stripped(block.get("status"))
        extra: dict[str, JSONValue] = {"agent_name": name}
        if agent_id:
            extra["child_id"] = agent_id
        if agent_type:
            extra["agent_type"] = agent_type
        if status:
            extra["status"] = status
        yield self.emit(
            "subagent",
            time,
            text=shown_text(block.get("initialPrompt"), keep_empty=False) or name,
            call_id=as_str(block.get("spawnToolCallId")),
            extra=extra,
        )
        outer = self.agent
        self.agent = agent_id or name
        try:
            nested = as_list(block.get("blocks"))
            if nested:
                yield from self.blocks(nested, time)
            else:
                text = shown_text(block.get("content"), keep_empty=False)
                if text:
                    yield self.emit("assistant", time, text=text)
            if status in ("failed", "cancelled"):
                yield self.emit("error", time, text=f"{name} {status}", is_error=True)
        finally:
            self.agent = outer
        if status in ("complete", "failed") and agent_id:
            # the block's own status: how the tree ends it
            yield self.emit(
                "meta",
                time,
                call_id=as_str(block.get("spawnToolCallId")),
                extra={
                    "subagent_status": "done" if status == "complete" else "failed",
                    "child_id": agent_id,
                },
            )

    def question(
        self, block: dict[str, object], time: datetime | None
    ) -> Iterator[Event]:
        call_id = as_str(block.get("toolCallId"))
        questions = [
            text
            for raw in as_list(block.get("questions"))
            if (text := stripped(as_dict(raw).get("question")))
        ]
        yield self.emit(
            "tool_call",
            time,
            tool="ask_user",
            call_id=call_id,
            extra={"input": {"questions": list(questions)}},
        )
        answers: list[str] = []
        for raw in as_list(block.get("answers")):
            answer = as_dict(raw)
            chosen = [
                text
                for text in [
                    answer.get("selectedOption"),
                    answer.get("otherText"),
                    *as_list(answer.get("selectedOptions")),
                ]
                if isinstance(text, str) and text
            ]
            answers.extend(chosen)
        if answers or block.get("skipped") is True:
            yield self.emit(
                "tool_result",
                time,
                text="\n".join(answers) if answers else "(skipped)",
                tool="ask_user",
                call_id=call_id,
            )


def _failed(output: str) -> bool:
    """Whether a tool's output says it failed (the SDK's `{"errorMessage": ...}`)."""
    return output.lstrip().startswith("{") and '"errorMessage"' in output[:200]


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`codebuff --continue <chat id>` in the chat's folder: Codebuff finds the chat
    under the folder's base name. No mode flag is added."""
    if resume_refusal(session) is not None or not session.cwd:
        return None
    return ResumePlan(
        argv=("codebuff", "--continue", session.id),
        cwd=session.cwd,
        program="codebuff",
        install_hint="npm install -g codebuff",
    )


def resume_refusal(session: Session) -> str | None:
    """Why a chat of the older CLI has no resume."""
    if session.extra.get("format") != "legacy":
        return None
    return (
        "this chat was written by the older Codebuff CLI (messages.json), which had no "
        "way to reopen a chat; `codebuff --continue` reopens only chats of the current CLI."
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `codebuff` has open: `--continue <id>` that chat, `--continue`
    alone the project's newest."""
    words = list(args[1:])
    for index, word in enumerate(words):
        if word == "--":
            break
        if word.startswith("--continue="):
            chosen = word.partition("=")[2]
            return Opened(session_id=chosen) if chosen else Opened(latest=True)
        if word == "--continue":
            following = words[index + 1] if index + 1 < len(words) else ""
            if following and not following.startswith("-"):
                return Opened(session_id=following)
            return Opened(latest=True)
    return None
