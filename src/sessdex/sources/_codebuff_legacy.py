"""The older Codebuff CLI's chats (the `npm-app` package, before the terminal UI of late 2025).

It kept a chat in the same folders as today's CLI, `projects/<project>/chats/<chat id>/`, but
as `messages.json`: `{id, messages, updatedAt}`, rewritten whole with JSON.stringify(value,
null, 2) at each change, its messages the model's own history (`common/src/types/messages/
codebuff-message.ts`): `{role: user|assistant|tool|system, content}`, an assistant's content
text or parts (`text`, `reasoning`, `tool-call` with `toolCallId`, `toolName`, `input`), a
tool message's content one `tool-result` part (`output`: `[{type: json, value} | {type:
media}]`). What the user typed is wrapped in `<user_message>` (backend/src/util/messages.ts);
the other user messages are what Codebuff put in (instructions, `<system>` notes, file
contents) and show as injected input. No time per message: the document's `updatedAt`.
That CLI had no way to reopen a chat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from io import BytesIO
from pathlib import Path

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, Session
from ._values import (
    Emitter,
    as_dict,
    as_list,
    as_str,
    iso_time,
    shown_arguments,
    shown_json,
    shown_text,
    stat_size,
    type_tag,
)

NAME = "codebuff"
MESSAGES = "messages.json"
_ROLES = frozenset({"user", "assistant", "tool", "system"})
_TYPED = re.compile(r"<user_message>(.*?)</user_message>", re.DOTALL)
_HEAD = 256 * 1024  # bytes read for the first prompt of a chat too big to parse


def typed(text: str) -> str | None:
    """What the user typed, out of the `<user_message>` Codebuff wraps it in."""
    match = _TYPED.search(text)
    return match.group(1).strip() if match else None


def _text(content: object) -> str | None:
    """A message's text: a string, or its text parts."""
    if isinstance(content, str):
        return content
    parts = [
        text
        for raw in as_list(content)
        if as_dict(raw).get("type") == "text"
        and isinstance(text := as_dict(raw).get("text"), str)
    ]
    return "\n".join(parts) if parts else None


def first_prompt(messages: Iterable[object]) -> str | None:
    for raw in messages:
        message = as_dict(raw)
        if message.get("role") == "user":
            prompt = typed(_text(message.get("content")) or "")
            if prompt:
                return prompt
    return None


def listing(
    path: Path, cap: int, diagnostics: Diagnostics
) -> tuple[str | None, datetime | None, int | None] | None:
    """(first prompt, updatedAt, message count) of a chat; None (counted) where the file
    is not one. A chat too big to parse is titled from its head, its time and count unknown."""
    size = stat_size(path)
    if size is None:
        return None
    if size > cap:
        try:
            with files.open_regular(path) as stream:
                head = stream.read(_HEAD)
        except OSError:
            return None
        from ..jsonstream import NotThisShape, array_items

        seen: list[object] = []
        try:
            for item in array_items(BytesIO(head), "messages"):
                seen.append(item)
                if first_prompt([item]):
                    break
        except NotThisShape:
            pass
        return first_prompt(seen), None, None
    value = files.read_json_file(path, limit=cap, diagnostics=diagnostics)
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        diagnostics.skip(
            str(path), 1, "not an object" if value is not None else "not JSON"
        )
        return None
    messages = as_list(value.get("messages"))
    return first_prompt(messages), iso_time(value.get("updatedAt")), len(messages)


def read(session: Session, cap: int, diagnostics: Diagnostics) -> Iterator[Event]:
    if session.path is None:
        return
    path = Path(session.path)
    size = stat_size(path)
    if size is None:
        diagnostics.problem(
            files.refused_problem(NAME, path) or f"{NAME}: {path} vanished"
        )
        return
    messages: Iterable[object]
    if size <= cap:
        value = files.read_json_file(path, limit=cap, diagnostics=diagnostics)
        if not isinstance(value, dict):
            if value is not None:
                diagnostics.skip(str(path), 1, "not an object")
            return
        messages = as_list(value.get("messages"))
    else:
        from ..jsonstream import file_items

        messages = file_items(path, "messages", diagnostics, NAME)
    yield from _events(session, messages, diagnostics)


def _events(
    session: Session, messages: Iterable[object], diagnostics: Diagnostics
) -> Iterator[Event]:
    event = Emitter(session.id)
    when = session.updated  # the only time kept: every event is dated by it, as a guess
    where = session.path or ""
    tools: dict[str, str | None] = {}
    for raw in messages:
        if not isinstance(raw, dict):
            diagnostics.skip(where, 0, "not an object")
            continue
        role = type_tag(raw.get("role"))
        if role not in _ROLES:
            diagnostics.unknown_type(f"legacy:{role}")
            continue
        content = raw.get("content")
        if role == "user":
            text = _text(content) or ""
            prompt = typed(text)
            if prompt is not None:
                yield event("user", when, estimated=True, text=prompt)
            elif text.strip():
                yield event(
                    "user", when, estimated=True, text=text, extra={"injected": True}
                )
        elif role == "system":
            continue  # the system prompt: no part of the chat
        elif role == "assistant":
            if isinstance(content, str):
                if content.strip():
                    yield event("assistant", when, estimated=True, text=content)
                continue
            for part in (as_dict(p) for p in as_list(content)):
                kind = part.get("type")
                if kind == "text" and (
                    said := shown_text(part.get("text"), keep_empty=False)
                ):
                    yield event("assistant", when, estimated=True, text=said)
                elif kind == "reasoning" and (
                    said := shown_text(part.get("text"), keep_empty=False)
                ):
                    yield event("thinking", when, estimated=True, text=said)
                elif kind == "tool-call":
                    call_id = as_str(part.get("toolCallId"))
                    tool = as_str(part.get("toolName"))
                    if call_id:
                        tools[call_id] = tool
                    yield event(
                        "tool_call",
                        when,
                        estimated=True,
                        tool=tool,
                        call_id=call_id,
                        extra={"input": shown_arguments(part.get("input") or {})},
                    )
                elif kind not in ("text", "reasoning"):
                    diagnostics.unknown_type(f"legacy-part:{type_tag(kind)}")
        else:  # a tool's result
            part = as_dict(content)
            call_id = as_str(part.get("toolCallId"))
            outputs = []
            for output in (as_dict(o) for o in as_list(part.get("output"))):
                if output.get("type") == "json":
                    value = output.get("value")
                    outputs.append(
                        value
                        if isinstance(value, str)
                        else orjson.dumps(shown_json(value)).decode()
                    )
                elif output.get("type") == "media":
                    outputs.append(f"[{as_str(output.get('mediaType')) or 'media'}]")
            failed = any('"errorMessage"' in text for text in outputs)
            yield event(
                "tool_result",
                when,
                estimated=True,
                text="\n".join(outputs),
                tool=as_str(part.get("toolName")) or tools.get(call_id or ""),
                call_id=call_id,
                is_error=failed,
            )
