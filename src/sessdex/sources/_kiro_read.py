"""One Kiro CLI / Amazon Q Developer CLI conversation (a serde `ConversationState` JSON
document), summarised for the listing and translated into events (see kiro.py for where
it is kept).

A conversation is `{conversation_id, next_message, history, valid_history_range,
transcript, tools, context_manager, context_message_length, latest_summary, model?,
model_info?, file_line_tracker, checkpoint_manager, mcp_enabled, tangent_state?,
user_turn_metadata?, …}`. A history entry is `{user, assistant, request_metadata}` (since
Q 1.13, 2025-07; before, a `[user, assistant]` pair). serde tags its enums externally: a
user message's `content` is `{"Prompt": {prompt}}`, `{"ToolUseResults":
{tool_use_results}}` or `{"CancelledToolUses": {prompt, tool_use_results}}`, with an RFC 3339
`timestamp` (since 2025-08); an assistant message is `{"Response": {message_id, content}}` or
`{"ToolUse": {message_id, content, tool_uses}}`, each with the model's reasoning in
`thinking: {text, signature, redacted_content}` in the Kiro CLI 1.x; a result's `content`
is a list of `{"Text": …}` or `{"Json": …}` and its `status` "Success" or "Error".
`request_metadata` dates a response (`request_start_timestamp_ms`,
`stream_end_timestamp_ms`) and names its `model_id`; no token count is kept. `user_turn_metadata
{continuation_id, requests, usage_info[{value, unit, unit_plural}]}` is the last user turn's
(the CLI's turn summary): its credits are counted (`Reader.turn_credits`). `latest_summary` is `[summary, request_metadata]`, the
text `/compact` replaced the earlier history with. Anything else is counted, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from ..diagnostics import Diagnostics
from ..model import Event, JSONValue, Usage
from ._values import (
    Emitter,
    as_credits,
    as_dict,
    as_list,
    as_str,
    db_time,
    ms_time,
    one_line,
    shown_arguments,
    shown_json,
    shown_text,
)

# the fields the CLI's source serializes (Q 1.19.7 and Kiro CLI 2.2.1): any other is
# counted, so that `doctor` shows what a newer release added
FIELDS = frozenset({
    "conversation_id", "next_message", "history", "valid_history_range", "transcript",
    "tools", "context_manager", "context_message_length", "latest_summary", "model",
    "model_info", "file_line_tracker", "checkpoint_manager", "mcp_enabled",
    "mcp_last_checked", "mcp_registry_url", "mcp_registry_cache", "mcp_server_versions",
    "mcp_registry_error_type", "mcp_disabled_due_to_api_failure", "tangent_state",
    "user_turn_metadata",
})  # fmt: skip


def variant(value: object) -> tuple[str | None, dict[str, object]]:
    """serde's external tagging: `{"Variant": {fields}}` as (name, fields)."""
    if isinstance(value, dict) and len(value) == 1:
        [(key, fields)] = value.items()
        return str(key), as_dict(fields)
    return None, {}


@dataclass(frozen=True, slots=True)
class StreamedHistory:
    """The history of a conversation too big to parse whole: its entries, read one at a
    time each time it is iterated (kiro.py reads such a row so)."""

    read: Callable[[], Iterator[object]]


Entry = tuple[dict[str, object], dict[str, object], dict[str, object]]


def entries(conversation: dict[str, object]) -> Iterator[Entry]:
    """The history as (user, assistant, request_metadata), whichever of its two shapes."""
    history = conversation.get("history")
    raw = history.read() if isinstance(history, StreamedHistory) else as_list(history)
    for entry in raw:
        if isinstance(entry, dict):
            user, assistant = (
                as_dict(entry.get("user")),
                as_dict(entry.get("assistant")),
            )
            metadata = as_dict(entry.get("request_metadata"))
        elif isinstance(entry, list) and len(entry) == 2:  # before request metadata
            user, assistant, metadata = as_dict(entry[0]), as_dict(entry[1]), {}
        else:
            user, assistant, metadata = {}, {}, {}
        yield user, assistant, metadata


def metered_credits(metering: object) -> float:
    """What requests were billed in Kiro's credits: a list of `{value, unit:
    "credit"}`, one per request (`metering_usage` of a 2.x turn, `usage_info` of a
    database chat's turn); another unit is no credit, and not added."""
    total = 0.0
    for raw in as_list(metering):
        entry = as_dict(raw)
        unit = (as_str(entry.get("unit")) or "credit").lower()
        if unit in ("credit", "credits"):
            total += as_credits(entry.get("value"))
    return as_credits(total)


def prompt_of(user: dict[str, object]) -> str | None:
    """The text a user typed in this message, if it holds any."""
    kind, fields = variant(user.get("content"))
    if kind in ("Prompt", "CancelledToolUses"):
        return as_str(fields.get("prompt"))
    return None


def model_of(conversation: dict[str, object], last: str | None) -> str | None:
    """The model of the conversation's last response (`last`), else the one chosen with
    `/model`."""
    if last:
        return last
    info = as_dict(conversation.get("model_info"))
    return as_str(info.get("model_id")) or as_str(conversation.get("model"))


def _times(user: dict[str, object], metadata: dict[str, object]) -> list[datetime]:
    """The times one history entry holds: its prompt's, its request's start and end."""
    moments = (
        db_time(user.get("timestamp")),
        ms_time(metadata.get("request_start_timestamp_ms")),
        ms_time(metadata.get("stream_end_timestamp_ms")),
    )
    return [moment for moment in moments if moment is not None]


@dataclass(frozen=True, slots=True)
class Summary:
    """What the listing shows of a conversation."""

    conversation_id: str | None
    title: str | None
    first: datetime | None  # the first prompt's or request's time
    last: datetime | None  # the last response's end (or prompt)
    model: str | None
    entries: int
    # the last user turn's id (`continuation_id`), where the row keeps credits of it
    turn: str | None = None


def summary(conversation: dict[str, object]) -> Summary:
    """The listing's fields, in one pass over the history that holds no more than one
    entry; times from the first and the last entry only (the history is in the order it
    was said), so a long chat costs no parse of every time in it."""
    title: str | None = None
    model: str | None = None
    first: Entry | None = None
    last: Entry | None = None
    count = 0
    for entry in entries(conversation):
        count += 1
        first = first or entry
        last = entry
        user, _, metadata = entry
        if title is None and (text := prompt_of(user)):
            title = one_line(text)
        model = as_str(metadata.get("model_id")) or model
    if title is None:  # compacted away: the summary's first line
        summarised = as_list(conversation.get("latest_summary"))
        title = one_line(summarised[0]) if summarised else None
    start = _times(first[0], first[2]) if first else []
    end = _times(last[0], last[2]) if last else []
    return Summary(
        conversation_id=as_str(conversation.get("conversation_id")),
        title=title,
        first=min(start) if start else None,
        last=max(end) if end else None,
        model=model_of(conversation, model),
        entries=count,
        turn=metered_turn(conversation),
    )


def metered_turn(conversation: dict[str, object]) -> str | None:
    """The id of the last user turn (`user_turn_metadata.continuation_id`) where the
    conversation keeps credits of it; else None."""
    turn = as_dict(conversation.get("user_turn_metadata"))
    if not metered_credits(turn.get("usage_info")):
        return None
    return as_str(turn.get("continuation_id"))


def result_text(blocks: object, diagnostics: Diagnostics) -> str:
    """A tool result's content blocks (`{"Text": …}`, `{"Json": …}`) as text."""
    import orjson

    texts = []
    for block in as_list(blocks):
        if isinstance(block, dict) and len(block) == 1:
            [(kind, value)] = block.items()
            if kind == "Text" and isinstance(value, str):
                texts.append(value)
                continue
            if kind == "Json":
                texts.append(orjson.dumps(shown_json(value)).decode())
                continue
        diagnostics.unknown_type("tool result block")
    return "\n".join(texts)


class Reader:
    """Translates one conversation into events."""

    def __init__(
        self,
        session_id: str,
        where: str,
        diagnostics: Diagnostics,
        *,
        updated: datetime | None = None,
        turn_billed_elsewhere: bool = False,
    ) -> None:
        self.where = where
        self.diagnostics = diagnostics
        self.updated = updated
        # the last turn's credits counted in a newer row that goes on with the same turn
        self.turn_billed_elsewhere = turn_billed_elsewhere
        self.emit = Emitter(session_id)
        self.tools: dict[str, str] = {}  # call id: tool name
        self.open_calls: set[str] = set()

    def conversation(self, value: dict[str, object]) -> Iterator[Event]:
        for field in value.keys() - FIELDS:
            self.diagnostics.unknown_type(
                f"conversation field {one_line(field, limit=40)}"
            )
        summarised = value.get("latest_summary")
        if summarised is not None:
            yield from self.compaction(summarised)
        # one entry ahead, so that the last is known without holding the history
        ahead: tuple[int, Entry] | None = None
        for numbered in enumerate(entries(value)):
            if ahead is not None:
                yield from self.entry(*ahead, last=False)
            ahead = numbered
        if ahead is not None:
            yield from self.entry(*ahead, last=True)
        yield from self.turn_credits(value, ahead[1][2] if ahead else {})

    def turn_credits(
        self, value: dict[str, object], metadata: dict[str, object]
    ) -> Iterator[Event]:
        """The credits of the conversation's last user turn (`user_turn_metadata
        .usage_info`, one `{value, unit, unit_plural}` a request since the prompt, the
        CLI's own turn summary): one event, dated by the last response (`metadata`, its
        request's). The CLI starts it afresh at each prompt and saves the conversation
        over its row, so an earlier turn's credits are kept nowhere (not counted). A
        compaction in the middle of a turn forks the conversation (a new id, the old row
        kept as it was last saved) and goes on with the same turn in the new row: the
        turn's credits are the newer row's alone (`turn_billed_elsewhere` in the older)."""
        turn = as_dict(value.get("user_turn_metadata"))
        credits = metered_credits(turn.get("usage_info"))
        if not credits or self.turn_billed_elsewhere:
            return
        time = ms_time(metadata.get("stream_end_timestamp_ms"))
        billed = Usage(model=as_str(metadata.get("model_id")), credits=credits)
        extra: dict[str, JSONValue] = {"summed": True}
        yield self.emit(
            "usage",
            time or self.updated,
            estimated=time is None,
            usage=billed,
            extra=extra,
        )

    def entry(self, index: int, entry: Entry, *, last: bool) -> Iterator[Event]:
        user, assistant, metadata = entry
        if not user and not assistant:
            self.diagnostics.skip(f"{self.where}/history", index, "bad value")
            return
        yield from self.user(user)
        yield from self.assistant(assistant, metadata, last=last)

    def compaction(self, value: object) -> Iterator[Event]:
        parts = as_list(value)
        text = as_str(parts[0]) if parts else None
        if text is None:
            self.diagnostics.unknown_type("latest_summary")
            return
        metadata = as_dict(parts[1]) if len(parts) > 1 else {}
        yield self.emit(
            "compaction",
            ms_time(metadata.get("stream_end_timestamp_ms")),
            text=shown_text(text),
            extra={"summary": True},
        )

    def user(self, user: dict[str, object]) -> Iterator[Event]:
        if not user:
            return
        time = db_time(user.get("timestamp"))
        kind, fields = variant(user.get("content"))
        if kind not in ("Prompt", "ToolUseResults", "CancelledToolUses"):
            self.diagnostics.unknown_type(
                f"user content {one_line(kind, limit=40) or '?'}"
            )
            return
        cancelled = kind == "CancelledToolUses"
        for raw in as_list(fields.get("tool_use_results")):
            result = as_dict(raw)
            call_id = as_str(result.get("tool_use_id"))
            status = result.get("status")
            if status not in ("Success", "Error"):
                self.diagnostics.unknown_type(f"tool status {one_line(status, limit=40) or '?'}")  # fmt: skip
            extra: dict[str, JSONValue] = {"interrupted": True} if cancelled else {}
            if call_id:
                self.open_calls.discard(call_id)
            yield self.emit(
                "tool_result",
                time,
                text=result_text(result.get("content"), self.diagnostics),
                tool=self.tools.get(call_id or ""),
                call_id=call_id,
                is_error=status == "Error" or cancelled,
                extra=extra,
            )
        prompt = as_str(fields.get("prompt"))
        if prompt is not None:
            images = as_list(user.get("images"))
            text = shown_text(prompt) or ""
            if images:
                text += f"\n[{len(images)} image{'s' if len(images) > 1 else ''}]"
            yield self.emit("user", time, text=text)

    def assistant(
        self, assistant: dict[str, object], metadata: dict[str, object], *, last: bool
    ) -> Iterator[Event]:
        if not assistant:
            return
        kind, fields = variant(assistant)
        if kind not in ("Response", "ToolUse"):
            self.diagnostics.unknown_type(f"assistant message {one_line(kind, limit=40) or '?'}")  # fmt: skip
            return
        time = ms_time(metadata.get("stream_end_timestamp_ms"))
        model = as_str(metadata.get("model_id"))
        extra: dict[str, JSONValue] = {"model": model} if model else {}
        message_id = as_str(fields.get("message_id"))
        if message_id:
            extra["message_id"] = message_id
        request_id = as_str(metadata.get("request_id"))
        if request_id:
            extra["request_id"] = request_id
        # Kiro CLI 1.x keeps the model's reasoning beside its answer (absent in Q)
        thinking = shown_text(
            as_dict(fields.get("thinking")).get("text"), keep_empty=False
        )
        if thinking:
            yield self.emit("thinking", time, text=thinking)
        content = shown_text(fields.get("content"), keep_empty=False)
        if content:
            yield self.emit("assistant", time, text=content, extra=extra)
        for raw in as_list(fields.get("tool_uses")):
            use = as_dict(raw)
            call_id = as_str(use.get("id"))
            tool = as_str(use.get("name")) or as_str(use.get("orig_name")) or "?"
            if call_id:
                self.tools[call_id] = tool
                self.open_calls.add(call_id)
            yield self.emit(
                "tool_call",
                time,
                tool=tool,
                call_id=call_id,
                extra={"input": shown_arguments(use.get("args", {}))},
            )
        if kind == "Response":
            yield self.emit("turn_end", time or (self.updated if last else None),
                            estimated=time is None)  # fmt: skip
