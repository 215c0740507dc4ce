"""Gemini CLI's chat messages as events: the shape its JSONL chats and its one-file JSON chats
share, which Qwen Code 0.1.x wrote too (its model's messages typed `qwen`, not `gemini`).

A message is `{id, timestamp, type: user|gemini|info|error|warning, content}`; a model message
adds `thoughts`, `tokens`, `model` and `toolCalls` (whose `result` holds the tool output).
Not a reader of files: the callers find the messages, in their final order, and hand them
here one at a time, with what was already shown of the chat (`Chat`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

import orjson

from ..model import Event, Extra, JSONValue, Usage
from ._values import (
    Emitter,
    blob,
    copied_note,
    dicts,
    iso_time,
    items,
    json_value,
    new_usage,
    number,
    obj,
    odd_count,
    plain,
    text_of,
)

MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")
_CONTEXT = "<session_context>"
_HOOK_CONTEXT = "<hook_context>"
_CANCELLED = "Request cancelled."  # the info message a turn the user stopped ends with
# what `gemini --session-file <file>` writes first into the chat it copies the file into
_IMPORT_ID = re.compile(r"import-[0-9]{1,20}")
_IMPORTED = "Imported session from "
# Qwen Code put its notes to the model (sub-agents on offer, plan mode) before the text of
# a new prompt, in the same string.
_REMINDERS = re.compile(
    r"\A(?:\s*<system-reminder>.*?</system-reminder>)+\s*", re.DOTALL
)


@dataclass(slots=True)
class Item:
    """A message in its final place, or a mark its chat's history left there."""

    kind: str  # "message", "rewind" or "compaction"
    message: dict[str, object] | None = None
    dropped: list[dict[str, object]] = field(default_factory=list)
    count: int = 0
    rewritten: bool = False
    line: int = 0  # the file's line its record was read at (0: none, a JSON document)
    dropped_lines: list[int] = field(default_factory=list)  # ...and each dropped one's


# Reads the chat of the sub-agent a tool call spawned (by its id): its events.
ChildReader = Callable[[str], Iterator[Event]]


@dataclass(slots=True)
class Chat:
    """One chat being read: whose events these are, what was already shown."""

    agent: str | None
    session_id: str | None
    model_type: str = "gemini"  # the type of the model's messages
    turn_ends: bool = True  # a reply with text and no tool calls ends its turn
    # the call that ends the agent's run instead, where a reply with text alone does not
    # (a Gemini sub-agent's `complete_task`: its words may come before its calls, which
    # are written once they have run, and its run goes on until it calls this)
    ends_with: str | None = None
    read_child: ChildReader | None = None
    calls: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)
    children: set[str] = field(default_factory=set)
    # an imported chat (`--session-file`): the file it names, the session this home holds
    # that the copies came from, and the ids of the copies (billed there, not here)
    imported_from: str | None = None
    copied_from: str | None = None
    copied: frozenset[str] = frozenset()
    # says a billed message's count that no app writes (`odd_count`), given the line its
    # record was read at (0 where none)
    odd: Callable[[int], None] | None = None


def item_events(item: Item, chat: Chat, emit: Emitter) -> Iterator[Event]:
    """The events of one message (or mark) of `chat`."""
    agent, message = chat.agent, item.message or {}
    say = partial(emit, agent_id=agent)
    when = iso_time(message.get("timestamp"), naive="local")
    if item.kind == "rewind":
        yield say(
            "meta",
            text=f"rewound: {len(item.dropped)} messages dropped",
            extra={"rewound": len(item.dropped)},
        )
        lines = item.dropped_lines or [0] * len(item.dropped)
        for dropped, line in zip(item.dropped, lines, strict=True):
            # gone from the chat, but billed
            if text_of(dropped, "id") in chat.copied:
                continue  # billed where it was copied from
            if (billed := usage(dropped, chat.model_type)) is not None:
                _say_odd(dropped, chat, line)
                yield say(
                    "usage",
                    time=iso_time(dropped.get("timestamp"), naive="local"),
                    usage=billed,
                    extra={"rewound": True},
                )
    elif item.kind == "compaction":
        extra: dict[str, JSONValue] = {"replaced_messages": item.count}
        if item.rewritten:
            extra["reason"] = "history rewritten"  # old tool output masked or trimmed
        yield say(
            "compaction",
            time=when,
            text=content_text(message.get("content")),
            extra=extra,
        )
    elif message.get("type") == "user":
        for response in (
            obj(part, "functionResponse") for part in items(message, "content")
        ):
            call_id = text_of(response, "id")
            if call_id and call_id not in chat.results:
                chat.results.add(call_id)
                output, failed = _response_text(response)
                yield say(
                    "tool_result",
                    time=when,
                    call_id=call_id,
                    text=output,
                    is_error=failed,
                    extra=shell_report(output, text_of(response, "name")),
                )
        if text := typed_text(message):
            if text.lstrip().startswith(_HOOK_CONTEXT):  # a hook's, not the user's
                yield say("user", time=when, text=text, extra={"injected": True})
            else:
                yield say("user", time=when, text=text)
    elif message.get("type") == chat.model_type:
        yield from _model_events(message, when, chat, emit, item.line)
    elif chat.imported_from is not None and imported_from(message) is not None:
        noted: dict[str, JSONValue] = {"imported_from": chat.imported_from}
        if chat.copied_from is not None:  # the copies follow, billed there
            noted["forked_from"] = chat.copied_from
            text = copied_note(chat.copied_from)
        else:  # the only record of them left here: billed here
            noted["level"] = "info"
            text = content_text(message.get("content")) or ""
        yield say("meta", time=when, text=text, extra=noted)
    elif message.get("type") == "error":
        yield say(
            "error",
            time=when,
            text=content_text(message.get("content")),
        )
        if chat.ends_with is not None:  # a sub-agent stopped by it calls nothing more
            yield say("turn_end", time=when, extra={"reason": "error"})
    elif text := content_text(message.get("content")):  # info, warning
        # (each /compress records an empty info message: the checkpoint says it all)
        yield say(
            "meta", time=when, text=text, extra={"level": str(message.get("type"))}
        )
        if message.get("type") == "info" and text.strip() == _CANCELLED:
            # Esc, or every tool call cancelled (useGeminiStream.ts): the user stopped it
            yield say(
                "turn_end",
                time=when,
                extra={"reason": "cancelled", "interrupted": True},
            )


def _model_events(
    message: dict[str, object],
    when: datetime | None,
    chat: Chat,
    emit: Emitter,
    line: int = 0,
) -> Iterator[Event]:
    agent = chat.agent
    say = partial(emit, agent_id=agent)
    for thought in dicts(message, "thoughts"):
        text = "\n".join(
            t.strip()
            for t in (text_of(thought, "subject"), text_of(thought, "description"))
            if t
        )
        if text:
            yield say(
                "thinking",
                time=iso_time(thought.get("timestamp"), naive="local") or when,
                text=text,
            )
    if said := content_text(message.get("content")):
        yield say("assistant", time=when, text=said)
    parts = [
        obj(part, "functionCall")
        for part in items(message, "content")
        if obj(part, "functionCall")
    ]
    tool_calls = dicts(message, "toolCalls")
    for call in parts + tool_calls:
        call_id = text_of(call, "id") or ""
        if call_id not in chat.calls:
            chat.calls.add(call_id)
            yield say(
                "tool_call",
                time=when,
                tool=text_of(call, "name") or "",
                call_id=call_id or None,
                extra={"input": json_value(call.get("args"))},
            )
    billed = usage(message, chat.model_type)
    if billed is not None and text_of(message, "id") not in chat.copied:
        _say_odd(message, chat, line)
        yield say("usage", time=when, usage=billed)
    for call in tool_calls:
        call_id, done = (
            text_of(call, "id") or "",
            iso_time(call.get("timestamp"), naive="local") or when,
        )
        child = text_of(call, "agentId")
        if child and child not in chat.children:
            chat.children.add(child)
            args, shown = obj(call, "args"), obj(call, "resultDisplay")
            task = (
                text_of(args, "description")
                or text_of(args, "prompt")
                or text_of(call, "description")
            )
            agent_type = text_of(args, "agent_name") or text_of(shown, "agentName")
            yield say(
                "subagent",
                time=done,
                call_id=call_id or None,
                text=task,
                extra={"child_id": child, "agent_type": agent_type},
            )
            if chat.read_child is not None:
                yield from _child_run(chat.read_child, child, call, done, emit)
        result, display = call.get("result"), call.get("resultDisplay")
        if call_id in chat.results or (result is None and not isinstance(display, str)):
            continue
        chat.results.add(call_id)
        output, failed = _result_text(result, display)
        yield say(
            "tool_result",
            time=done,
            call_id=call_id or None,
            text=output,
            is_error=failed or call.get("status") in ("error", "cancelled"),
            extra=shell_report(output, text_of(call, "name")),
        )
    if chat.ends_with is not None and any(
        text_of(call, "name") == chat.ends_with for call in tool_calls
    ):
        yield say("turn_end", time=when)
    elif (
        chat.turn_ends
        and said
        and not parts
        and not tool_calls
        and not _synthetic(message)
    ):
        # (a response with no text is one whose tool calls are not written yet: Gemini
        # records them once they have run, in a second write of the same message; one
        # with text may be too, its calls running: `calls_later` lets the live status ask
        # the CLI's processes)
        yield say("turn_end", time=when, extra={"calls_later": True})


def _say_odd(message: dict[str, object], chat: Chat, line: int) -> None:
    """Say a billed message's count that no app writes, read at `line` (0: none)."""
    tokens = obj(message, "tokens")
    if chat.odd is not None and any(odd_count(tokens.get(k)) for k in _COUNTS):
        chat.odd(line)


def _child_run(
    read_child: ChildReader,
    child: str,
    call: dict[str, object],
    done: datetime | None,
    emit: Emitter,
) -> Iterator[Event]:
    """The events of the sub-agent `child` that `call` spawned, ended where its chat does
    not end its run (one that failed or was cancelled calls no `complete_task`) and the
    call has its result: the lead went on, so the sub-agent is done."""
    said = ended = False
    for event in read_child(child):
        if event.agent_id == child:
            said, ended = True, event.kind == "turn_end"
        yield event
    status = call.get("status")
    if said and not ended and (call.get("result") is not None or status is not None):
        extra: dict[str, JSONValue] = {}
        if status in ("error", "cancelled"):
            extra["reason"] = str(status)
        yield emit("turn_end", agent_id=child, time=done, extra=extra)


# the lines Gemini CLI's (and Qwen Code's) shell tool wraps its output in for the model
# (shell.ts): the command, its folder, the output (older builds: `Stdout:` and
# `Stderr:`), then a trailer of `Key: value` lines; later Gemini builds keep the output
# and the trailer alone, inside `<untrusted_context>` tags
_REPORT_REACH = 64 * 1024  # of a report's head and tail looked at: a huge output is not
_REPORT_OUTPUT = re.compile(r"\nDirectory: [^\n]*\n(Output|Stdout): ")
_REPORT_QUIET = {
    "Error": ("(none)",),
    "Exit Code": ("0", "(none)"),
    "Signal": ("0", "(none)"),
    "Background PIDs": ("(none)",),
    "Process Group PGID": None,  # never worth a line
}
_WRAPPED = ("<untrusted_context>\n", "\n</untrusted_context>")
_NOTES = 4
# the shell tool's name in both apps, in every build seen (ShellTool.Name): another
# tool's text may open with `Output: ` and end with an `Exit Code: 0` line of its own
SHELL_TOOL = "run_shell_command"


def shell_report(text: str | None, tool: str | None) -> Extra:
    """Where `tool`'s result is the shell's report, what a person reads first: the
    span of `text` that is the output itself (`output_span`), and the trailer's lines
    that say something (`output_notes`: a failure, an exit code but 0); {} for any
    other tool or text. The command is on the call's line already; `text` stays whole
    for --json."""
    if not text or tool != SHELL_TOOL:
        return {}
    if not text.startswith("Command: "):
        return _bare_report(text)
    found = _REPORT_OUTPUT.search(text, 0, _REPORT_REACH)
    if found is None:
        return {}
    start = found.end()
    end = text.rfind("\nError: ", max(start, len(text) - _REPORT_REACH))
    if end < 0:
        return {}
    trailer = text[end + 1 :]
    if found.group(1) == "Stdout":  # its stderr shown after it, unless empty
        stderr = text.rfind("\nStderr: ", start, end)
        if stderr >= 0 and text[stderr + 9 : end] == "(empty)":
            end = stderr
    return _report(text, start, end, trailer)


def _bare_report(text: str) -> Extra:
    """The later report: `Output: …` then trailer lines (each a key the report uses),
    maybe inside `<untrusted_context>` tags; {} for any other text."""
    opening, closing = _WRAPPED
    first = len(opening) if text.startswith(opening) else 0
    last = len(text)
    if first and text.endswith(closing):
        last -= len(closing)
    if not text.startswith("Output: ", first):
        return {}
    start, end = first + len("Output: "), last
    floor = max(start, last - _REPORT_REACH)
    while (line := text.rfind("\n", floor, end)) >= 0:
        if text[line + 1 : end].partition(": ")[0] not in _REPORT_QUIET:
            break
        end = line
    if end == last:  # no trailer: some other text that opens so
        return {}
    return _report(text, start, end, text[end + 1 : last])


def _report(text: str, start: int, end: int, trailer: str) -> Extra:
    if end - start == len("(empty)") and text.startswith("(empty)", start):
        start = end  # (no slice of a huge output is made to tell)
    notes: list[JSONValue] = []
    for line in trailer.split("\n"):
        key, _, value = line.partition(": ")
        quiet = _REPORT_QUIET.get(key, "")
        if key in _REPORT_QUIET and (quiet is None or value in quiet):
            continue
        if len(notes) < _NOTES and line.strip():
            notes.append(line[:200])
    return {"output_span": [start, end], "output_notes": notes}


def imported_from(message: dict[str, object]) -> str | None:
    """The file named by the note `gemini --session-file <file>` writes first into the new
    chat it copies that file's user and model messages into (their ids, times and tokens
    kept: 0.61's resolveSessionId); None for any other message."""
    content = message.get("content")
    if (
        message.get("type") != "info"
        or not _IMPORT_ID.fullmatch(text_of(message, "id") or "")
        or not isinstance(content, str)
        or not content.startswith(_IMPORTED)
    ):
        return None
    return content.removeprefix(_IMPORTED) or None


def _synthetic(message: dict[str, object]) -> bool:
    """A model message Gemini made up mid-turn, not a response: with a tool's binary
    output it records a thought-only "Binary content received" note (no model, no
    tokens; geminiChat.ts), and the model's real answer follows."""
    content = message.get("content")
    return (
        not message.get("model")
        and not isinstance(message.get("tokens"), dict)
        and isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and p.get("thought") is True for p in content)
    )


def usage(message: dict[str, object], model_type: str = "gemini") -> Usage | None:
    """A model message's `tokens`: `input_tokens` = `input` - `cached` + `tool` (the API's
    prompt count includes the cached part), `output_tokens` = `output` + `thoughts`
    (thoughts are billed as output), `reasoning_tokens` = `thoughts`."""
    tokens = message.get("tokens")
    if message.get("type") != model_type or not isinstance(tokens, dict):
        return None
    # each part 0 below 0: a broken one takes nothing off the others it is added to
    count = partial(_count, tokens)
    cached, thoughts = count("cached"), count("thoughts")
    return new_usage(
        max(0, count("input") - cached) + count("tool"),
        count("output") + thoughts,
        cached,
        0,
        thoughts,
        text_of(message, "model"),
    )


# a model message's `tokens` that its usage is made of
_COUNTS = ("input", "output", "cached", "thoughts", "tool")


def _count(tokens: dict[str, object], key: str) -> int:
    return max(0, number(tokens, key))


# --- text ------------------------------------------------------------------------------


def typed_text(message: dict[str, object]) -> str | None:
    """What the user typed: `displayContent` if set, else the text parts; None for tool turns."""
    text = content_text(message.get("displayContent")) or content_text(
        message.get("content")
    )
    if text and text.lstrip().startswith("<system-reminder>"):
        text = _REMINDERS.sub("", text, count=1)
    return None if not text or text.lstrip().startswith(_CONTEXT) else text


def title_text(message: dict[str, object]) -> str | None:
    """What may title a chat, as Gemini's session list picks it (`isIgnoredUserContent`):
    typed text, not a slash or `?` command, nor a hook's `<hook_context>` (the
    SessionStart hook's context is recorded as a user message)."""
    text = typed_text(message)
    if text is None or text.lstrip().startswith((_HOOK_CONTEXT, "/", "?")):
        return None
    return text


def content_text(content: object) -> str | None:
    """Text of a PartListUnion: a string, a part, or a list of parts (calls and responses skipped)."""
    pieces: list[str] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            pieces.append(plain(part))
        elif isinstance(part, dict) and part.get("thought") is not True:
            if (text := text_of(part, "text")) is not None:
                pieces.append(plain(text))
            elif inline := obj(part, "inlineData"):
                pieces.append(blob(text_of(inline, "mimeType"), inline.get("data")))
            elif uri := text_of(obj(part, "fileData"), "fileUri"):
                pieces.append(f"[file {uri}]")
    return "\n".join(p for p in pieces if p) or None


def _response_text(response: dict[str, object]) -> tuple[str | None, bool]:
    body = response.get("response")
    if error := text_of(body, "error"):
        return plain(error), True
    if output := text_of(body, "output"):
        return plain(_agent_reply(_unwrapped(output))), False
    if isinstance(body, str):
        return plain(body), False
    return (orjson.dumps(body).decode() if body else None), False


# Gemini CLI wraps a shell command's output in these for the model (0.61): not output
_UNTRUSTED = ("<untrusted_context>\n", "\n</untrusted_context>")


def _unwrapped(output: str) -> str:
    """The output inside the `<untrusted_context>` tags that wrap it whole, if they do."""
    start, end = _UNTRUSTED
    if output.startswith(start) and output.rstrip("\n").endswith(end):
        return output[len(start) : len(output.rstrip("\n")) - len(end)]
    return output


# `invoke_agent`'s frame around a sub-agent's answer, for the model (0.61)
_AGENT_FRAME = re.compile(
    r"Subagent '[^'\n]{1,200}' finished\.\nTermination Reason: (\w{1,40})\nResult:\n"
)


def _agent_reply(output: str) -> str:
    """A sub-agent's answer without its frame: its `response` (the Result's JSON), with
    the termination reason where it is not GOAL; any other output as it is."""
    found = _AGENT_FRAME.match(output)
    if found is None:
        return output
    result = output[found.end() :]
    try:
        value = orjson.loads(result)
    except orjson.JSONDecodeError:
        value = None
    reply = text_of(value, "response") if isinstance(value, dict) else None
    reply = reply if reply is not None and len(value) == 1 else result
    reason = found.group(1)
    return reply if reason == "GOAL" else f"{reply}\n[{reason}]"


def _result_text(result: object, display: object) -> tuple[str | None, bool]:
    pieces, failed = [], False
    for part in result if isinstance(result, list) else [result]:
        response = obj(part, "functionResponse")
        text, error = (
            _response_text(response) if response else (content_text(part), False)
        )
        failed = failed or error
        pieces += [text] if text else []
    if not pieces and isinstance(display, str):
        pieces.append(plain(display))
    return ("\n".join(pieces) or None), failed
