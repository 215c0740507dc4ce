"""Amp (Sourcegraph): one JSON document per thread in ~/.local/share/amp/threads.

Amp rewrites `threads/T-<uuid>.json` whole as a thread changes: `{v, id, created (ms),
title, agentMode, env.initial{trees[{uri, repository}], tags}, messages[], usageLedger}`,
messages being Anthropic-style `{role, content[] (text, thinking, tool_use,
tool_result), state, usage?, meta{sentAt}}`. Many threads live only on Amp's servers; a
local file may be partial. The data folder follows `XDG_DATA_HOME`.

A thread is one JSON value, so listing parses the file (bounded: a file over JSON_CAP is
skipped as "too long"); it is parsed again only when it changes. cwd is the first
tree's `file://` URI; model the first assistant usage's model, else a `model:` tag.
Usage, de-duplicated as Amp's own ledger is: when `usageLedger.events` exist, one
`usage` event per ledger event (title generation included), placed after the message it
billed (`toMessageId`), with the cache split taken from that message's `usage`; without
a ledger, one per assistant message `usage`. Handoff links (`relationships`) go to
`extra`, not `parent_id`: a handoff is a thread of its own, not a sub-agent. Resume:
`amp threads continue <id>` as reader projects report it — not verified against Amp.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlparse

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from .base import Home, Location

NAME = "amp"
TITLE = "Amp"
CHECKED_WITH = "public synthetic thread samples and reader projects (ccusage, txcript); never run — Low confidence"
ENV_VARS = ("XDG_DATA_HOME",)

JSON_CAP = 64 * 1024 * 1024  # a thread file bigger than this is not read
_IGNORED_BLOCKS = frozenset({"provider", "image", "redacted_thinking"})


def locate(home: Home) -> Location:
    value = home.environ.get("XDG_DATA_HOME")
    override = f"XDG_DATA_HOME={value}" if value else None
    return Location(home.xdg("data") / "amp", override=override)


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for entry in files.entries(location.root / "threads", location.root):
        if entry.name.endswith(".json") and entry.is_file():
            yield Path(entry.path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    thread = _load(path, diagnostics)
    if thread is None:
        return []
    messages = _messages(thread)
    env = _dict(_dict(thread.get("env")).get("initial"))
    trees = env.get("trees")
    tree = _dict(trees[0]) if isinstance(trees, list) and trees else {}
    repository = _dict(tree.get("repository"))
    ref = _text(repository.get("ref"))
    times = [t for t in (_message_time(m) for m in messages) if t]
    created = _ms(thread.get("created")) or (times[0] if times else None)
    extra: dict[str, JSONValue] = {}
    for key, name in (
        ("agentMode", "mode"),
        ("v", "revision"),
        ("visibility", "visibility"),
    ):
        if isinstance(thread.get(key), str | int) and not isinstance(
            thread.get(key), bool
        ):
            extra[name] = thread[key]  # type: ignore[assignment]
    if _text(repository.get("url")):
        extra["repository"] = _text(repository.get("url"))
    for relation in _list(thread.get("relationships")):
        relation = _dict(relation)
        if relation.get("type") == "handoff" and relation.get("role") in (
            "parent",
            "child",
        ):
            extra[f"handoff_{relation['role']}"] = _text(relation.get("threadID"))
    return [
        Session(
            app=NAME,
            id=_text(thread.get("id")) or path.stem,
            path=str(path),
            cwd=_path_of(_text(tree.get("uri"))),
            branch=ref.removeprefix("refs/heads/") if ref else None,
            title=_first_line(_text(thread.get("title")) or _first_prompt(messages)),
            created=created,
            updated=max(times) if times else created,
            model=_model(thread, messages),
            bytes=_size(path),
            extra=extra,
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    thread = _load(Path(session.path), diagnostics, vanished=True)
    if thread is None:
        return
    messages = _messages(thread)
    ledger = [
        _dict(e)
        for e in _list(_dict(thread.get("usageLedger")).get("events"))
        if isinstance(e, dict)
    ]
    cache = {
        m.get("messageId"): _dict(m.get("usage"))
        for m in messages
        if m.get("role") == "assistant" and m.get("messageId") is not None
    }
    billed: dict[object, list[dict[str, object]]] = {}
    for entry in ledger:
        billed.setdefault(entry.get("toMessageId"), []).append(entry)
    seq = 0

    def event(kind: EventKind, time: datetime | None, **fields: object) -> Event:
        nonlocal seq
        made = Event(session_id=session.id, seq=seq, kind=kind, time=time, **fields)  # type: ignore[arg-type]
        seq += 1
        return made

    placed: set[object] = set()
    model = session.model
    for message in messages:
        time = _message_time(message)
        role = message.get("role")
        if role not in ("user", "assistant"):
            diagnostics.unknown_type(f"message.{role}")
            continue
        yield from _blocks(message, time, event, diagnostics)
        usage = _dict(message.get("usage"))
        model = _text(usage.get("model")) or model
        if ledger:
            key = message.get("messageId")
            for entry in billed.get(key, []) if key is not None else []:
                yield event(
                    "usage",
                    _iso(entry.get("timestamp")) or time,
                    **_ledger_usage(entry, cache.get(key), model),
                )
            placed.add(key)
        elif role == "assistant" and usage:
            counted = Usage(
                input_tokens=_int(usage.get("inputTokens")),
                output_tokens=_int(usage.get("outputTokens")),
                cache_read_tokens=_int(usage.get("cacheReadInputTokens")),
                cache_write_tokens=_int(usage.get("cacheCreationInputTokens")),
                model=model,
            )
            if counted.total:
                yield event(
                    "usage", _iso(usage.get("timestamp")) or time, usage=counted
                )
        state = _dict(message.get("state"))
        if role == "assistant" and state.get("stopReason") == "end_turn":
            yield event("turn_end", time, extra={"reason": "end_turn"})
    for key, entries in billed.items():
        if key not in placed:  # billed to a message this file does not hold
            for entry in entries:
                yield event(
                    "usage",
                    _iso(entry.get("timestamp")),
                    **_ledger_usage(entry, None, model),
                )


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`amp threads continue <id>` in the thread's first tree (reported; unverified)."""
    if session.cwd is None:
        return None
    return ResumePlan(
        argv=("amp", "threads", "continue", session.id),
        cwd=session.cwd,
        program="amp",
        install_hint="npm install -g @sourcegraph/amp",
        notes=(
            "resume command as reader projects report it; not checked against an Amp install",
        ),
    )


# --- helpers ---------------------------------------------------------------------------


class _Maker(Protocol):
    def __call__(
        self, kind: EventKind, time: datetime | None, **fields: object
    ) -> Event: ...


def _blocks(
    message: dict[str, object],
    time: datetime | None,
    event: _Maker,
    diagnostics: Diagnostics,
) -> Iterator[Event]:
    role = message.get("role")
    content = message.get("content")
    blocks = (
        [{"type": "text", "text": content}] if isinstance(content, str) else content
    )
    if not isinstance(blocks, list):
        return
    for raw in blocks:
        block = _dict(raw)
        kind = block.get("type")
        if kind == "text":
            text = _text(block.get("text"))
            if text:
                yield event("user" if role == "user" else "assistant", time, text=text)
        elif kind == "thinking":
            text = _text(block.get("thinking")) or _text(block.get("text"))
            if text:
                yield event("thinking", time, text=text)
        elif kind == "tool_use":
            value = block.get("input")
            if isinstance(value, dict | list):
                yield event("tool_call", time, tool=_text(block.get("name")), call_id=_text(block.get("id")), extra={"input": value})  # fmt: skip
            else:
                yield event("tool_call", time, tool=_text(block.get("name")), call_id=_text(block.get("id")), text=_text(block.get("text")) or _text(value))  # fmt: skip
        elif kind == "tool_result":
            call = (
                _text(block.get("toolUseID"))
                or _text(block.get("tool_use_id"))
                or _text(block.get("toolUseId"))
            )
            run = _dict(block.get("run"))
            status = run.get("status") or block.get("status")
            output = run.get(
                "result", run.get("error", block.get("output", block.get("content")))
            )
            failed = (
                status in ("error", "failed", "rejected-by-user", "cancelled")
                or block.get("is_error") is True
            )
            yield event(
                "tool_result",
                time,
                call_id=call,
                text=_flatten(output),
                is_error=failed,
            )
        elif kind in _IGNORED_BLOCKS:
            continue
        else:
            diagnostics.unknown_type(f"content.{kind}")


def _ledger_usage(
    entry: dict[str, object], message_usage: dict[str, object] | None, model: str | None
) -> dict[str, object]:
    tokens = _dict(entry.get("tokens"))
    split = message_usage or {}
    usage = Usage(
        input_tokens=_int(tokens.get("input")),
        output_tokens=_int(tokens.get("output")),
        cache_read_tokens=_int(split.get("cacheReadInputTokens")),
        cache_write_tokens=_int(split.get("cacheCreationInputTokens")),
        model=_text(entry.get("model")) or model,
    )
    extra: dict[str, JSONValue] = {}
    if _text(entry.get("operationType")):
        extra["operation"] = _text(entry.get("operationType"))
    if isinstance(entry.get("credits"), int | float):
        extra["credits"] = entry["credits"]  # type: ignore[assignment]
    return {"usage": usage, "extra": extra}


def _load(
    path: Path, diagnostics: Diagnostics, vanished: bool = False
) -> dict[str, object] | None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        diagnostics.problem(f"amp: {path} vanished")
        return None
    if size > JSON_CAP:
        diagnostics.skip(str(path), 1, "too long")
        return None
    value = files.read_json_file(path, limit=JSON_CAP)
    if value is None:
        if path.exists():
            diagnostics.skip(str(path), 1, "not JSON")
        elif vanished:
            diagnostics.problem(f"amp: {path} vanished")
        return None
    if not isinstance(value, dict):
        diagnostics.skip(str(path), 1, "not an object")
        return None
    return value


def _messages(thread: dict[str, object]) -> list[dict[str, object]]:
    messages = thread.get("messages")
    return (
        [m for m in messages if isinstance(m, dict)]
        if isinstance(messages, list)
        else []
    )


def _first_prompt(messages: list[dict[str, object]]) -> str | None:
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return _text(content)
        for block in content if isinstance(content, list) else []:
            if (
                isinstance(block, dict)
                and block.get("type") == "text"
                and _text(block.get("text"))
            ):
                return _text(block.get("text"))
    return None


def _model(thread: dict[str, object], messages: list[dict[str, object]]) -> str | None:
    for message in messages:
        usage = _dict(message.get("usage"))
        if message.get("role") == "assistant" and _text(usage.get("model")):
            return _text(usage.get("model"))
    tags = _dict(_dict(thread.get("env")).get("initial")).get("tags")
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, str) and tag.startswith("model:"):
            return tag.removeprefix("model:") or None
    for entry in _list(_dict(thread.get("usageLedger")).get("events")):
        if isinstance(entry, dict) and _text(entry.get("model")):
            return _text(entry.get("model"))
    return None


def _message_time(message: dict[str, object]) -> datetime | None:
    return _ms(_dict(message.get("meta")).get("sentAt")) or _iso(
        _dict(message.get("usage")).get("timestamp")
    )


def _path_of(uri: str | None) -> str | None:
    if not uri:
        return None
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path) or None
    return None if parsed.scheme else uri


def _flatten(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            p["text"]
            for p in value
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        if parts:
            return "\n".join(parts)
    return json.dumps(value, ensure_ascii=False)


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _first_line(value: str | None) -> str | None:
    if not value:
        return None
    return next((line.strip() for line in value.splitlines() if line.strip()), None)


def _int(value: object) -> int:
    return (
        int(value)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else 0
    )


def _ms(value: object) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _iso(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
