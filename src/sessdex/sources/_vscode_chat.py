"""One VS Code chat: its state from its file (a JSON document, or the operation log that
replays to one), and the events it makes. Not a source itself: `vscode` lists and reads.

A `.json` chat is `ISerializableChatData` (chatModel.ts), read whole up to
`files.READ_LINE_CAP` and past it with its long strings elided. A `.jsonl` chat is the log
`ObjectMutationLog` writes (objectMutationLog.ts): one entry a line, `{kind: 0, v}` the whole
state, then `{kind: 1, k, v}` sets the value at key path `k`, `{kind: 2, k, v?, i?}` cuts the
array at `k` to `i` items (when given) and appends `v`, `{kind: 3, k}` deletes; VS Code writes
the log again whole, as one `kind: 0` line, once it holds over 1024 entries
(chatSessionOperationLog.ts). A markdown part is kept as its MarkdownString (`{value}`, no
`kind`). Each line is read as a transcript line is (a long one has its long strings
elided), and applied to the one state in memory: what the chat holds now, never its
history. Past WHOLE_BUDGET bytes of long lines, a long line's strings are elided too; a
listing passes over the lines that set a response or a result, and elides from the first
long line. An entry whose path leads nowhere is counted ("bad value"), as is a mutation
before any state. A state (a `.json` chat, a log's first line) still longer than a line
may be once its long strings are elided (a long chat of short texts) is read again with
shorter ones elided (_LIMITS); counted "too long", and not listed, only past the last.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import BinaryIO

import orjson

from .. import files
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, JSONValue, Usage
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    json_value,
    local_path,
    ms_time,
    odd_count,
    one_line,
    stripped,
)

# a key path longer than this is no path VS Code writes (a chat's deepest is a few levels)
_DEPTH = 32
_DELETE = object()
# a log's lines are read whole until they come to this much (a read), or from the first
# (a listing); past it, a line over files.LINE_CAP has its long strings elided, as an
# over-long line's are: the state holds what every line set, and a log is up to 1024
# entries long before VS Code writes it again whole
WHOLE_BUDGET = 64 * 1024 * 1024
# a state (a `.json` chat, a log's first line) still longer than a line may be once its
# strings past KEEP_STRING are elided is read again keeping only shorter ones: a long chat
# of short texts (a few agent turns' tool results) is listed and shown, its longer texts
# as notes of their size
_LIMITS = (files.KEEP_STRING, 4096, 256)
# a line a listing passes over unparsed: what a request's response or result became (the
# bulk of a log; `kind`, then `k`, as ObjectMutationLog writes an entry)
_NOT_LISTED = re.compile(
    rb'\{\s*"kind"\s*:\s*[123]\s*,\s*"k"\s*:\s*\[\s*"requests"\s*,\s*\d+\s*,'
    rb'\s*"(?:response|result)"'
)
# response parts that say nothing a reader of the chat needs (progress, UI state, links
# already in the text); every other unknown kind is counted for doctor
IGNORED = frozenset(
    {
        "codeblockUri", "undoStop", "progressMessage", "progressTaskSerialized",
        "mcpServersStarting", "prepareToolInvocation", "clearToPreviousToolInvocation",
        "codeCitation", "references", "usedContext", "contentReference", "extensions",
        "treeData", "multiDiffData", "notebookEditGroup", "workspaceEdit", "command",
        "pullRequest", "disabledClaudeHooks", "hook", "markdownVuln", "editedFileEvents",
        "autoModeResolution",
    }
)  # fmt: skip
TOOL = frozenset({"toolInvocationSerialized", "toolInvocation"})
EDIT = "textEditGroup"
# ResponseModelState (chatService.ts): Pending 0, Complete 1, Cancelled 2, Failed 3,
# NeedsInput 4; `modelState.value` since 1.109, `isCanceled` before
_OPEN = (0, 4)
_CANCELLED = 2
_IN_BLOCK = ("undoStop", EDIT)  # between an edit's code block's fences
_FENCE = re.compile(r"(`{3,}|~{3,})[\w+-]*")  # a code fence alone, as Copilot writes it
_VENDOR = "copilot/"
_AUTO = "auto"  # the model picker's Auto: the model it picked is kept apart  # VS Code names a Copilot model `copilot/<model>`
# Copilot Chat's own id of a call: the model's id and this suffix with a number; VS Code
# names the call's part by the model's id alone
_SUFFIX = "__vscode-"


def load(
    path: Path, diagnostics: Diagnostics, *, full: bool = False, listing: bool = False
) -> dict[str, object] | None:
    """The chat's state now; None (counted) where the file holds none. For a `listing`,
    a log's long strings are elided from its first long line on."""
    name = os.fspath(path)
    if name.endswith(".jsonl"):
        if listing:
            return _replayed(path, diagnostics, full, 0, _listed_over)
        return _replayed(path, diagnostics, full, WHOLE_BUDGET)
    value = (
        _big_state(path, None, diagnostics)
        if not full and _size(path) > files.READ_LINE_CAP
        else files.read_json_compacted(path, full=full, diagnostics=diagnostics)
    )
    if value is None:
        return None
    if not isinstance(value, dict):
        diagnostics.skip(name, 1, "not an object")
        return None
    return value


def _listed_over(data: bytes) -> bool:
    return _NOT_LISTED.match(data, 0, 160) is not None


def _replayed(
    path: Path,
    diagnostics: Diagnostics,
    full: bool,
    budget: int,
    unread: Callable[[bytes], bool] | None = None,
) -> dict[str, object] | None:
    name = os.fspath(path)
    state: dict[str, object] | None = None
    spent = 0  # bytes of the lines read whole
    start = number = 0
    try:
        end = None if full else _long_first_line(path)
        if end is not None:  # a state too long to read as a line is
            first = as_dict(_big_state(path, end, diagnostics))
            if first.get("kind") == 0 and isinstance(first.get("v"), dict):
                state = first["v"]  # type: ignore[assignment]
            elif first:
                diagnostics.skip(name, 1, "bad value")
            start, number = end + 1, 1
        for line, record in files.iter_records(
            path,
            diagnostics,
            full=full,
            unread=unread,
            offset=start,
            first_number=number + 1,
        ):
            entry: dict[str, object] | None = record
            size = len(line.data)
            if not full and size > files.LINE_CAP:
                spent += size
                if spent > budget:
                    entry = _compacted(line, diagnostics, name)
                    if entry is None:
                        continue
            assert entry is not None
            kind = entry.get("kind")
            if kind == 0:
                value = entry.get("v")
                if isinstance(value, dict):
                    state = value
                else:
                    diagnostics.skip(name, line.number, "bad value")
                continue
            keys = entry.get("k")
            if kind not in (1, 2, 3):
                diagnostics.unknown_type(f"log entry {str(kind)[:20]}")
                continue
            if state is None or not _is_path(keys):
                diagnostics.skip(name, line.number, "bad value")
                continue
            assert isinstance(keys, list)
            if kind == 2:
                done = _push(state, keys, entry.get("v"), entry.get("i"))
            else:
                value = entry.get("v") if kind == 1 else _DELETE
                if not keys:  # the whole state replaced
                    done = isinstance(value, dict)
                    if done:
                        state = value  # type: ignore[assignment]
                else:
                    done = _set(state, keys, value)
            if not done:
                diagnostics.skip(name, line.number, "bad value")
    except PermissionError:  # another user's file: said so
        diagnostics.refused(name)
        return state
    except OSError:  # gone since
        return state
    return state


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _long_first_line(path: Path) -> int | None:
    """Where the log's first line ends when it is longer than files.READ_LINE_CAP (the
    offset of its newline, or the file's end); else None."""
    with files.open_binary(path) as stream:
        data = stream.read(files.READ_LINE_CAP + 1)
        if len(data) <= files.READ_LINE_CAP or b"\n" in data:
            return None
        at = len(data)
        while True:
            at += files.skip_hole(stream)  # NULs: no newline, passed over
            chunk = stream.read(files.CHUNK)
            if not chunk:
                break
            newline = chunk.find(b"\n")
            if newline >= 0:
                return at + newline
            at += len(chunk)
        return at


def _big_state(path: Path, end: int | None, diagnostics: Diagnostics) -> object:
    """The JSON value of the file's first `end` bytes (all of it where None), its long
    strings elided: kept up to the first of _LIMITS that makes it short enough; None
    (counted "too long", or "not JSON") where none does."""
    name = os.fspath(path)
    for limit in _LIMITS:
        try:
            with files.open_binary(path) as stream:
                data = files.compacted(_pieces(stream, end), limit)
        except PermissionError:  # another user's file: said so
            diagnostics.refused(name)
            return None
        except OSError:  # gone since
            return None
        if data is None:
            continue
        try:
            value, damaged = files.loads_checked(data)
        except orjson.JSONDecodeError:
            diagnostics.skip(name, 1, "not JSON")
            return None
        if damaged:
            diagnostics.damage(name, 1, files.damage_of(data))
        return value
    diagnostics.skip(name, 1, "too long")
    return None


def _pieces(stream: BinaryIO, end: int | None) -> Iterator[bytes]:
    return files.chunks(stream, end)  # a hole as one NUL byte, never read


def _compacted(
    line: files.Line, diagnostics: Diagnostics, name: str
) -> dict[str, object] | None:
    """The entry of a line read whole, read again with its long strings elided; None
    (counted "too long") where it is longer than a line may be even so."""
    data = files.compacted((line.data,))
    value = files.loads(data) if data is not None else None
    if not isinstance(value, dict):
        diagnostics.skip(name, line.number, "too long")
        return None
    return value


def _is_path(keys: object) -> bool:
    return (
        isinstance(keys, list)
        and len(keys) <= _DEPTH
        and all(isinstance(k, str) or _is_index(k) for k in keys)
    )


def _is_index(key: object) -> bool:
    return _index(key) is not None


def _index(key: object) -> int | None:
    """A list index a path may hold (an int, not a bool, not negative); else None."""
    if isinstance(key, int) and not isinstance(key, bool) and key >= 0:
        return key
    return None


def _parent(state: object, keys: list[object]) -> object:
    """The container the path's last key is in; None where the path leads nowhere."""
    current = state
    for key in keys[:-1]:
        index = _index(key)
        if isinstance(current, dict) and isinstance(key, str):
            current = current.get(key)
        elif isinstance(current, list) and index is not None and index < len(current):
            current = current[index]
        else:
            return None
    return current


def _set(state: dict[str, object], keys: list[object], value: object) -> bool:
    parent, key = _parent(state, keys), keys[-1]
    index = _index(key)
    if isinstance(parent, dict) and isinstance(key, str):
        if value is _DELETE:
            parent.pop(key, None)
        else:
            parent[key] = value
        return True
    if isinstance(parent, list) and index is not None:
        stored = None if value is _DELETE else value
        if index < len(parent):
            parent[index] = stored
            return True
        if index == len(parent):
            parent.append(stored)
            return True
    return False


def _push(
    state: dict[str, object], keys: list[object], values: object, start: object
) -> bool:
    if not keys:
        return False
    parent, key = _parent(state, keys), keys[-1]
    index = _index(key)
    target: object
    if isinstance(parent, dict) and isinstance(key, str):
        target = parent.get(key)
        if not isinstance(target, list):
            target = parent[key] = []
    elif isinstance(parent, list) and index is not None and index < len(parent):
        target = parent[index]
        if not isinstance(target, list):
            target = parent[index] = []
    else:
        return False
    assert isinstance(target, list)
    if start is not None:
        cut = _index(start)
        if cut is None:
            return False
        del target[cut:]
    if isinstance(values, list):
        target.extend(values)
    return values is None or isinstance(values, list)


# --- what a listing needs ---------------------------------------------------------------


def requests(state: dict[str, object]) -> list[dict[str, object]]:
    return [r for r in as_list(state.get("requests")) if isinstance(r, dict)]


def markdown(value: object) -> str | None:
    """A MarkdownString's text (`{value}`), or a plain string."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        text = value.get("value")
        return text if isinstance(text, str) else None
    return None


def prompt(request: dict[str, object]) -> str | None:
    message = request.get("message")
    if isinstance(message, str):
        return message
    return as_str(as_dict(message).get("text"))


def model_name(request: dict[str, object]) -> str | None:
    """The request's model, without Copilot's `copilot/`; on the picker's Auto
    (`copilot/auto`), the model Auto picked where it is kept: Copilot's `resolvedModel`,
    else VS Code's `autoModeResolution` part (`resolved.id`)."""
    model = stripped(request.get("modelId"))
    if model and model.startswith(_VENDOR):
        model = model[len(_VENDOR) :] or None
    if model == _AUTO:
        metadata = as_dict(as_dict(request.get("result")).get("metadata"))
        return stripped(metadata.get("resolvedModel")) or _picked(request) or model
    return model


def _picked(request: dict[str, object]) -> str | None:
    response = request.get("response")
    for part in response if isinstance(response, list) else []:
        part = as_dict(part)
        if part.get("kind") == "autoModeResolution":
            resolved = as_dict(part.get("resolved"))
            return stripped(resolved.get("id")) or stripped(part.get("resolvedModel"))
    return None


def ended(request: dict[str, object]) -> datetime | None:
    """When the response ended: `modelState.completedAt`, else the request's time plus
    `result.timings.totalElapsed`; None where neither is kept."""
    done = ms_time(as_dict(request.get("modelState")).get("completedAt"))
    if done is not None:
        return done
    start = ms_time(request.get("timestamp"))
    elapsed = as_dict(as_dict(request.get("result")).get("timings")).get("totalElapsed")
    if start is not None and isinstance(elapsed, int | float) and elapsed >= 0:
        try:
            return start + timedelta(milliseconds=elapsed)
        except (OverflowError, ValueError):  # past any date
            return None
    return None


# --- events ------------------------------------------------------------------------------


class Translator:
    """Events of one chat: per request, the prompt, the response's parts in order, its
    error, its usage where recorded, and the end of the turn."""

    def __init__(
        self, session_id: str, diagnostics: Diagnostics, where: str = ""
    ) -> None:
        self.emit = Emitter(session_id)
        self.diagnostics = diagnostics
        self.where = where  # the chat's file, where an odd count is said ("": not)

    def events(self, state: dict[str, object]) -> Iterator[Event]:
        model: str | None = None
        for number, request in enumerate(requests(state)):
            now = model_name(request)
            if now and model and now != model:
                yield self.emit("meta", ms_time(request.get("timestamp")),
                                text=f"model: {now}", extra={"model": now})  # fmt: skip
            model = now or model
            yield from self._request(request, now, number)

    def _request(
        self, request: dict[str, object], model: str | None, number: int
    ) -> Iterator[Event]:
        emit = self.emit
        start = ms_time(request.get("timestamp"))
        text = prompt(request)
        extra: dict[str, JSONValue] = {}
        mode = as_str(as_dict(request.get("modeInfo")).get("kind"))
        if mode:
            extra["mode"] = mode
        if text is not None:
            yield emit("user", start, text=text, extra=extra)
        result = as_dict(request.get("result"))
        metadata = as_dict(result.get("metadata"))
        response = request.get("response")
        # the first stores kept a response as one markdown string
        parts = [response] if isinstance(response, str) else as_list(response)
        parts = [p for p in parts if p is not None]
        prefix = f"{as_str(request.get('requestId')) or number}:"
        state = as_dict(request.get("modelState")).get("value")
        reply = _Response(self, parts, metadata, start, prefix)
        reply.open = state in _OPEN
        yield from reply.events()
        end = ended(request) or start
        for summary in _summaries(metadata):
            yield emit("compaction", end, estimated=True, text=summary)
        error = as_dict(result.get("errorDetails"))
        message = markdown(error.get("message"))
        if message:
            yield emit("error", end, text=message,
                       extra={"code": code} if (code := as_str(error.get("code"))) else {})  # fmt: skip
        counts = metadata
        usage = _usage(counts, model)
        if usage is None:
            counts = {"promptTokens": request.get("promptTokens"),
                      "outputTokens": request.get("completionTokens")}  # fmt: skip
            usage = _usage(counts, model)
        if usage is not None:
            self.say_odd(counts)
            yield emit("usage", end, usage=usage)
        reason: dict[str, JSONValue] = {}
        if state in _OPEN:
            return  # the response goes on, or waits for the user (a log written mid-turn)
        if request.get("isCanceled") is True or state == _CANCELLED:
            reason = {"reason": "cancelled"}
        yield emit("turn_end", end, estimated=end is start, extra=reason)

    def say_odd(self, counts: dict[str, object]) -> None:
        """Say a billed count no app writes (`odd_count`): `_usage` bills it as 0 (or
        its whole part). A chat is one JSON document: the response is counted."""
        odd = any(odd_count(counts.get(k)) for k in ("promptTokens", "outputTokens"))
        if odd and self.where:
            self.diagnostics.damage(self.where, 0, odd_in("response"))


def _summaries(metadata: dict[str, object]) -> list[str]:
    """The texts of the conversation's summaries Copilot Chat made in the turn (it
    summarizes a history grown past the model's window): `summaries`, `summary` before
    them, else a round's own `summary`."""
    kept = metadata.get("summaries")
    found = as_list(kept) if kept is not None else [metadata.get("summary")]
    texts = [t for s in found if (t := as_str(as_dict(s).get("text")))]
    if texts:
        return texts
    rounds = as_list(metadata.get("toolCallRounds"))
    return [t for r in rounds if (t := as_str(as_dict(r).get("summary")))]


def _usage(metadata: dict[str, object], model: str | None) -> Usage | None:
    """Copilot Chat's counts for a response where its metadata keeps them
    (`promptTokens`, `outputTokens`: Anthropic models only, the turn's last model call's;
    the caller falls back to the request's own `promptTokens`/`completionTokens`, which
    VS Code keeps in 2026 whatever the model); None where it keeps none."""
    prompt_tokens = metadata.get("promptTokens")
    output_tokens = metadata.get("outputTokens")
    if not isinstance(prompt_tokens, int | float) and not isinstance(
        output_tokens, int | float
    ):
        return None
    return Usage(
        input_tokens=as_int(prompt_tokens),
        output_tokens=as_int(output_tokens),
        model=model,
    )


class _Response:
    """The parts of one response, in order: markdown pieces joined into one answer until
    something else comes, tool calls once each (VS Code may keep a call's part more than
    once as it updates it: the last copy says how it ended), edits as calls."""

    def __init__(
        self,
        chat: Translator,
        parts: list[object],
        metadata: dict[str, object],
        time: datetime | None,
        prefix: str,
    ) -> None:
        self.chat = chat
        self.prefix = prefix  # made-up call ids: unique in the chat
        self.parts = parts
        self.time = time
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.thought_id: object = None  # the id of the last thinking part
        self.calls: dict[str, dict[str, object]] = {}
        self.spawns: set[str] = set()
        for part in parts:
            if isinstance(part, dict) and as_str(part.get("kind")) in TOOL:
                call_id = as_str(part.get("toolCallId"))
                if call_id:
                    self.calls[call_id] = {**self.calls.get(call_id, {}), **part}
                    if as_dict(part.get("toolSpecificData")).get("kind") == "subagent":
                        self.spawns.add(call_id)
        self.open = False  # the response goes on: a call without its result still runs
        self.arguments = _arguments(metadata)
        self.outputs = _by_call(as_dict(metadata.get("toolCallResults")))
        self.model_ids = _paired(parts, metadata)

    def _emit(self, kind: str, **fields: object) -> Event:
        return self.chat.emit(kind, self.time, estimated=True, **fields)  # type: ignore[arg-type]

    def events(self) -> Iterator[Event]:
        done: set[str] = set()
        # sub-agents' calls, their results said once the sub-agent's own calls are out
        held: list[tuple[str, dict[str, object]]] = []
        last = _last_of_each(self.parts, self.spawns)
        fences = _bare_fences(self.parts)
        for index, part in enumerate(self.parts):
            if index in fences:
                continue
            text = (
                markdown(part)
                if not isinstance(part, dict) or "kind" not in part
                else None
            )
            kind = as_str(part.get("kind")) if isinstance(part, dict) else None
            if text is None and kind == "markdownContent":
                text = markdown(as_dict(part).get("content"))
            if kind == "inlineReference":
                text = _reference(as_dict(part).get("inlineReference"))
            if text is not None:
                yield from self._thought()
                self.text.append(text)
                continue
            if kind == "thinking":
                yield from self._said()
                value = as_dict(part).get("value")
                pieces = [p for p in (value if isinstance(value, list) else [value])
                          if isinstance(p, str) and p]  # fmt: skip
                same = as_dict(part).get("id")
                if (
                    pieces
                    and same is not None
                    and same == self.thought_id
                    and self.thinking
                ):
                    # pieces of one thought, streamed: one text
                    self.thinking[-1] += "".join(pieces)
                else:
                    self.thinking += pieces
                self.thought_id = same
                continue
            yield from self._said()
            yield from self._thought()
            if kind in TOOL:
                call_id = as_str(as_dict(part).get("toolCallId"))
                if (call_id and call_id in done) or _hidden_internal(as_dict(part)):
                    continue
                if call_id:
                    done.add(call_id)
                call = self.calls.get(call_id or "", as_dict(part))
                key = call_id or f"{self.prefix}part-{index}"
                yield from self._call(call, key)
                if call.get("isComplete") is False or (
                    self.open and not self._finished(call, key)
                ):
                    pass  # still running: no result yet
                elif call_id in self.spawns and last.get(call_id, -1) > index:
                    held.append(
                        (key, call)
                    )  # its result once its sub-agent's calls are out
                else:
                    yield self._result(call, key)
            elif kind == EDIT:
                yield from self._edit(as_dict(part), index)
            elif kind in ("warning", "confirmation"):
                message = markdown(as_dict(part).get("content")) or as_str(
                    as_dict(part).get("message")
                )
                if message:
                    yield self._emit("meta", text=message, extra={"part": kind})
            elif kind == "elicitationSerialized" or kind == "questionCarousel":
                title = markdown(as_dict(part).get("title"))
                if title:
                    yield self._emit("meta", text=title, extra={"part": kind})
            elif kind not in IGNORED:
                self.chat.diagnostics.unknown_type(
                    f"response part {(kind or 'without kind')[:40]}"
                )
            for spawn, call in list(held):
                if last.get(spawn, -1) <= index:
                    held.remove((spawn, call))
                    yield self._result(call, spawn)
        yield from self._said()
        yield from self._thought()
        for spawn, call in held:
            yield self._result(call, spawn)

    def _said(self) -> Iterator[Event]:
        text = "".join(self.text)
        self.text = []
        if text.strip():
            yield self._emit("assistant", text=text)

    def _thought(self) -> Iterator[Event]:
        text = "\n\n".join(self.thinking)
        self.thinking = []
        self.thought_id = None
        if text.strip():
            yield self._emit("thinking", text=text)

    def _call(self, call: dict[str, object], call_id: str) -> Iterator[Event]:
        tool = as_str(call.get("toolId")) or "tool"
        agent = as_str(call.get("subAgentInvocationId"))
        agent_id = agent if agent in self.spawns else None
        extra: dict[str, JSONValue] = {}
        given = self.arguments.get(self.model_ids.get(call_id, call_id))
        value = given if given is not None else _input(call)
        if value is not None:
            extra["input"] = value
        said = markdown(call.get("invocationMessage"))
        if said:
            extra["message"] = said
        if agent and agent_id is None:
            extra["subagent_invocation"] = agent
        yield self._emit("tool_call", agent_id=agent_id, tool=tool, call_id=call_id,
                         extra=extra)  # fmt: skip
        data = as_dict(call.get("toolSpecificData"))
        if call_id in self.spawns:
            # its events are in this chat, under the call's id (the request id the
            # sub-agent ran as): no file of its own
            spawn: dict[str, JSONValue] = {"child_id": call_id}
            name = as_str(data.get("agentName"))
            if name:
                spawn["agent_name"] = name
            yield self._emit("subagent", agent_id=agent_id, call_id=call_id,
                             text=one_line(data.get("description"), limit=None), extra=spawn)  # fmt: skip

    def _finished(self, call: dict[str, object], call_id: str) -> bool:
        """Whether the call's part holds its result: VS Code writes a running call's
        part as a finished one's (`isComplete` true), less its result."""
        data = as_dict(call.get("toolSpecificData"))
        return (
            call.get("resultDetails") is not None
            or call.get("resultError") is not None
            or self.model_ids.get(call_id, call_id) in self.outputs
            or data.get("terminalCommandOutput") is not None
            or as_dict(data.get("terminalCommandState")).get("exitCode") is not None
            or (data.get("kind") == "subagent" and data.get("result") is not None)
        )

    def _result(self, call: dict[str, object], call_id: str) -> Event:
        agent = as_str(call.get("subAgentInvocationId"))
        kept = self.outputs.get(self.model_ids.get(call_id, call_id))
        output, failed = _output(call, kept)
        return self._emit("tool_result", agent_id=agent if agent in self.spawns else None,
                          call_id=call_id, text=output, is_error=failed)  # fmt: skip

    def _edit(self, part: dict[str, object], index: int) -> Iterator[Event]:
        uri = as_dict(part.get("uri"))
        where = local_path(
            as_str(uri.get("fsPath")) or as_str(uri.get("path"))
        ) or as_str(uri.get("path"))
        texts: list[str] = []
        for group in as_list(part.get("edits")):
            for edit in as_list(group) if isinstance(group, list) else [group]:
                text = as_str(as_dict(edit).get("text"))
                if text:
                    texts.append(text)
        call_id = f"{self.prefix}edit-{index}"
        value: dict[str, JSONValue] = {"path": where}
        if texts:
            value["newText"] = "\n".join(texts)
        yield self._emit(
            "tool_call", tool=EDIT, call_id=call_id, extra={"input": value}
        )
        yield self._emit("tool_result", call_id=call_id,
                         text=f"edited {where}" if where else "edited")  # fmt: skip


def _hidden_internal(part: dict[str, object]) -> bool:
    """A part VS Code keeps of a tool's own internal step (`vscode_editFile_internal`,
    run by an edit tool), hidden in its view: no call the model made."""
    return part.get("presentation") == "hidden" and (
        as_str(part.get("toolId")) or ""
    ).endswith("_internal")


def _bare_fences(parts: list[object]) -> set[int]:
    """Where the markdown pieces that only open and close the code block of an edit are
    (a fence, `codeblockUri`, a fence: VS Code fills the block with the edited file)."""
    found: set[int] = set()
    for index, part in enumerate(parts):
        if as_str(as_dict(part).get("kind")) != "codeblockUri":
            continue
        before = _beside(parts, index, -1)
        after = _beside(parts, index, 1)
        if before is not None and after is not None:
            found.update((before, after))
    return found


def _beside(parts: list[object], index: int, step: int) -> int | None:
    """The bare fence next to a part, past undo stops and the edit group, if one is
    there."""
    index += step
    while 0 <= index < len(parts) and as_dict(parts[index]).get("kind") in _IN_BLOCK:
        index += step
    if not 0 <= index < len(parts):
        return None
    part = parts[index]
    text = markdown(part) if "kind" not in as_dict(part) else None
    return index if text is not None and _FENCE.fullmatch(text.strip()) else None


def _last_of_each(parts: list[object], spawns: set[str]) -> dict[str, int]:
    """Where the last part a sub-agent made is, per sub-agent."""
    last: dict[str, int] = {}
    for index, part in enumerate(parts):
        agent = as_str(as_dict(part).get("subAgentInvocationId"))
        if agent in spawns:
            last[agent] = index
    return last


def _reference(value: object) -> str | None:
    """An inline file link as its path (VS Code shows the file's name as a chip)."""
    reference = as_dict(value)
    uri = as_dict(reference.get("uri")) or reference
    path = as_str(uri.get("fsPath")) or as_str(uri.get("path"))
    name = as_str(reference.get("name"))
    shown = path or name
    return f"`{shown}`" if shown else None


def _call_id(value: str) -> str:
    """The id VS Code gives the part of a call Copilot Chat keeps as `<id>__vscode-<n>`."""
    return value.split(_SUFFIX, 1)[0] or value


def _by_call(kept: dict[str, object]) -> dict[str, object]:
    """Copilot Chat's values by its own call ids, by the ids of VS Code's parts (the first
    of a model's id used twice)."""
    found: dict[str, object] = {}
    for key, value in kept.items():
        found.setdefault(_call_id(key), value)
    return found


def _paired(parts: list[object], metadata: dict[str, object]) -> dict[str, str]:
    """The model's id of each call whose part VS Code named by an id of its own (a UUID:
    VS Code 1.105 to 1.109 at least), by the part's id: the parts that name no call of the
    rounds pair with the rounds' calls no part names, in order, where there are as many
    of each. A sub-agent's part (its calls are in no round of this request) and a tool's
    own `*_internal` part (an edit tool's `vscode_editFile_internal`) are left out."""
    called = [
        _call_id(call_id)
        for round_ in as_list(metadata.get("toolCallRounds"))
        for call in as_list(as_dict(round_).get("toolCalls"))
        if (call_id := as_str(as_dict(call).get("id")))
    ]
    named = set(called)
    own: list[str] = []
    for part in parts:
        part = as_dict(part)
        call_id = as_str(part.get("toolCallId"))
        if (
            as_str(part.get("kind")) in TOOL
            and call_id
            and call_id not in named
            and call_id not in own
            and not part.get("subAgentInvocationId")
            and not (as_str(part.get("toolId")) or "").endswith("_internal")
        ):
            own.append(call_id)
    seen = {as_str(as_dict(p).get("toolCallId")) for p in parts}
    unnamed = [c for c in called if c not in seen]
    if not own or len(own) != len(unnamed):
        return {}
    return dict(zip(own, unnamed, strict=True))


def _arguments(metadata: dict[str, object]) -> dict[str, JSONValue]:
    """A call's input as Copilot Chat kept it (`toolCallRounds[].toolCalls[]`: `id`,
    `name`, `arguments` as JSON text), by the id of VS Code's part of the call."""
    found: dict[str, JSONValue] = {}
    for round_ in as_list(metadata.get("toolCallRounds")):
        for call in as_list(as_dict(round_).get("toolCalls")):
            call = as_dict(call)
            call_id = as_str(call.get("id"))
            arguments = call.get("arguments")
            if call_id and arguments is not None:
                found.setdefault(_call_id(call_id), _json_or_text(arguments))
    return found


def _json_or_text(value: object) -> JSONValue:
    if isinstance(value, str):
        try:
            return json_value(orjson.loads(value))
        except orjson.JSONDecodeError:
            return value
    return json_value(value)


def _input(call: dict[str, object]) -> JSONValue | None:
    """What the call was given, as far as its part keeps it: a terminal command, a
    sub-agent's task, the raw input of an extension's tool, or the input VS Code keeps
    with its result."""
    data = as_dict(call.get("toolSpecificData"))
    kind = data.get("kind")
    if kind == "terminal":
        line = as_dict(data.get("commandLine"))
        command = next(
            (
                v
                for k in ("userEdited", "toolEdited", "original")
                if (v := as_str(line.get(k)))
            ),
            None,
        ) or as_str(data.get("command"))
        if command:
            value: dict[str, JSONValue] = {"command": command}
            if language := as_str(data.get("language")):
                value["language"] = language
            return value
    if kind == "input" and data.get("rawInput") is not None:
        return json_value(data.get("rawInput"))
    if kind == "subagent":
        task: dict[str, JSONValue] = {}
        for key in ("description", "agentName", "prompt"):
            if isinstance(text := data.get(key), str):
                task[key] = text
        return task or None
    if kind == "todoList" and data.get("todoList") is not None:
        return {"todoList": json_value(data.get("todoList"))}
    given = as_dict(call.get("resultDetails")).get("input")
    if given is not None:
        return _json_or_text(given)
    return None


def _rendered(value: object) -> str | None:
    """A result's text: a string, or the prompt-tsx tree Copilot Chat rendered for the
    model (`{"node": ...}`), as VS Code itself makes it text (`stringifyPromptNodeJSON`,
    chat/common/tools/promptTsxTypes.ts): a text leaf (`type` 2) as its `text`, a line
    break before it where `lineBreakBefore`; an image (`ctor` 3) as `<image>`; the
    children of any other element (`ctor` 1 or 2) in order. The one line break it starts
    with is left out."""
    if isinstance(value, str):
        return value
    root = as_dict(value).get("node")
    if root is None:
        return None
    out: list[str] = []
    stack: list[object] = [root]
    while stack:  # depth first, no recursion: the tree is the file's
        node = as_dict(stack.pop())
        if node.get("type") == 2:
            if node.get("lineBreakBefore") is True:
                out.append("\n")
            if isinstance(text := node.get("text"), str):
                out.append(text)
        elif node.get("ctor") == 3:
            out.append("<image>")
        elif node.get("ctor") in (1, 2):
            stack.extend(reversed(as_list(node.get("children"))))
    text = "".join(out).removeprefix("\n")
    return text or None


def _output(call: dict[str, object], kept: object) -> tuple[str | None, bool]:
    """The call's result as text, and whether it failed."""
    data = as_dict(call.get("toolSpecificData"))
    failed = False
    error = markdown(call.get("resultError"))
    if data.get("kind") == "terminal":
        state = as_dict(data.get("terminalCommandState"))
        code = state.get("exitCode")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        output = data.get("terminalCommandOutput")
        text = (
            output if isinstance(output, str) else as_str(as_dict(output).get("text"))
        )
        if text is not None:
            return text, failed or error is not None
    if data.get("kind") == "subagent" and as_str(data.get("result")):
        return as_str(data.get("result")), error is not None
    content = [
        text
        for item in as_list(as_dict(kept).get("content"))
        if (text := _rendered(as_dict(item).get("value")))
    ]
    details = call.get("resultDetails")
    if isinstance(details, dict):
        failed = failed or details.get("isError") is True
        outputs = details.get("output")
        pieces: list[str] = []
        for item in outputs if isinstance(outputs, list) else [outputs]:
            item = as_dict(item)
            value = item.get("value")
            if isinstance(value, str):
                pieces.append(value)
            elif item.get("type") == "data":
                pieces.append(f"[{as_str(item.get('mimeType')) or 'data'}]")
        if pieces:
            return "\n".join(pieces), failed or error is not None
    elif isinstance(details, list) and not content:  # the files a search found
        paths = [
            p
            for uri in details
            if (p := as_str(as_dict(as_dict(uri).get("uri") or uri).get("path")))
        ]
        if paths:
            return "\n".join(paths), error is not None
    if error:
        return error, True
    if content:  # what the model read: a search's matches, not only its files
        return "\n".join(content), failed
    said = markdown(call.get("pastTenseMessage")) or markdown(
        call.get("invocationMessage")
    )
    return said, failed
