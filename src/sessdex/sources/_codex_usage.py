"""Codex's billed responses, read fast for `sessdex usage` (the `usage_records` hook).

Only `session_meta`, `turn_context` and `token_count` lines are decoded (a byte prefilter
finds them), by msgspec types naming the few fields needed. The rules are the reader's
(`_codex_read`):

- `token_count` carries the thread's cumulative `total_token_usage` and the last request's
  `last_token_usage`. A count whose total did not move is the same count written again
  (rule `repeat`); otherwise the response is `last_token_usage`, else the increase of the
  total. A count of nothing bills nothing.
- Forks and sub-agents replay their parent's lines after their own `session_meta`
  (rule `replayed-parent-history`): lines before `subagent_history_start_ordinal`, or, in
  files without it, the run of lines after the parent's copied `session_meta` stamped in
  the copy's first second (or older than the child itself). `history_base` means nothing
  was copied.
- Codex counts cached and cache-write tokens inside `input_tokens`: they are taken out.
  Reasoning tokens are part of `output_tokens` and stay there (shown apart as well).
- The model is the newest `turn_context.model` or `model_reroute.to_model` (or the
  count's own `info.model`). A sub-agent
  thread counts under its parent's session, as its agent.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import orjson

from .. import files, folders, freshness
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import JSONValue, Usage
from ._usage_scan import MarkedLines, converted
from ._values import as_int, odd_count
from .base import DroppedLine, Location, UsageRecord, UsageScan

# The type values alone, quoted: Codex writes compact JSON, and a copy written with a space
# after the colon ('"type": "token_count"') is still found. Inside a string a quote is
# escaped, so text that mentions a type does not match.
MARKERS = (
    b'"token_count"',
    b'"turn_context"',
    b'"session_meta"',
    b'"model_reroute"',
)


class _Tokens(msgspec.Struct):
    # any JSON, taken by `as_int` as the reader takes it: a count of another type (a
    # fraction, a float past any count, a bool, a string) is that count broken, not the
    # response gone
    input_tokens: Any = 0
    cached_input_tokens: Any = 0
    cache_write_input_tokens: Any = 0
    output_tokens: Any = 0
    reasoning_output_tokens: Any = 0


class _Info(msgspec.Struct):
    total_token_usage: _Tokens | None = None
    last_token_usage: _Tokens | None = None
    model: str | None = None


class _Payload(msgspec.Struct):
    type: str | None = None
    info: _Info | None = None
    model: str | None = None
    cwd: str | None = None
    to_model: str | None = None  # model_reroute: the model that answered instead


class _Line(msgspec.Struct):
    timestamp: str | None = None
    type: str | None = None
    ordinal: int | None = None
    payload: msgspec.Raw = msgspec.Raw()


_decode_line = msgspec.json.Decoder(_Line).decode
_decode_payload = msgspec.json.Decoder(_Payload).decode


def usage_files(location: Location) -> Iterator[str]:
    """Every rollout, live and archived, each once: a rollout name found in `sessions/`
    and again in `archived_sessions/` (an archive copied back, a sync) is one thread, as
    the listing shows it. A plain file wins over its `.zst` twin; of two plain copies,
    the longer (the rollout grows by appending)."""
    if not location.exists:
        return
    chosen: dict[str, str] = {}
    for top in ("sessions", "archived_sessions"):
        stack = [os.path.join(location.root, top)]
        while stack:
            folder = stack.pop()
            subfolders = []
            # noted (`entries`): a warm `usage` trusts the listing while these hold
            for entry in folders.entries(folder, location.root):  # no link out of it
                if entry.is_dir():
                    subfolders.append(entry.path)
                elif entry.name.startswith("rollout-") and entry.name.endswith(
                    (".jsonl", ".jsonl.zst")
                ):
                    name = entry.name.removesuffix(".zst")
                    held = chosen.get(name)
                    if held is None or _rather(entry.path, held):
                        chosen[name] = entry.path
            stack.extend(reversed(subfolders))
    yield from chosen.values()


def _rather(path: str, held: str) -> bool:
    """Whether `path` is the copy of a rollout to count rather than `held`."""
    packed, held_packed = path.endswith(".zst"), held.endswith(".zst")
    if packed != held_packed:
        return held_packed
    # the longer wins: either growing may change which, and a file that grows is written
    # (a warm `usage` trusts the listing while both are as they were)
    freshness.note_read(path)
    freshness.note_read(held)
    try:
        return os.stat(path).st_size > os.stat(held).st_size
    except OSError:
        return False


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _odd(info: _Info) -> bool:
    """Whether a counted line's usage holds a count no app writes (`odd_count`)."""
    return any(
        odd_count(count)
        for tokens in (info.last_token_usage, info.total_token_usage)
        if tokens is not None
        for count in (
            tokens.input_tokens,
            tokens.cached_input_tokens,
            tokens.cache_write_input_tokens,
            tokens.output_tokens,
            tokens.reasoning_output_tokens,
        )
    )


def _tuple(tokens: _Tokens | None) -> list[int] | None:
    if tokens is None:
        return None
    # a count no file can hold exactly (past 2**53) is a broken value: 0, as `as_int`
    # takes it everywhere, so that it can neither swamp a sum nor break the cache
    # (below 0, a broken value too: less a negative cached count, the input grew by it)
    return [
        max(0, as_int(count))
        for count in (
            tokens.input_tokens,
            tokens.cached_input_tokens,
            tokens.cache_write_input_tokens,
            tokens.output_tokens,
            tokens.reasoning_output_tokens,
        )
    ]


def _as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _identity(meta: dict[str, object], stamp: str | None) -> dict[str, JSONValue]:
    """What the first `session_meta` says: who this thread is, and what it replays."""
    source = meta.get("source")
    spawn: dict[str, object] = {}
    if isinstance(source, dict):
        subagent = source.get("subagent")
        if isinstance(subagent, dict) and isinstance(
            subagent.get("thread_spawn"), dict
        ):
            spawn = subagent["thread_spawn"]
    parent = _as_str(spawn.get("parent_thread_id")) or (
        _as_str(meta.get("parent_thread_id")) if isinstance(source, dict) else None
    )
    origin = (
        parent
        or _as_str(meta.get("forked_from_id"))
        or _as_str(meta.get("parent_thread_id"))
    )
    start = meta.get("subagent_history_start_ordinal")
    return {
        "own": _as_str(meta.get("id")),
        "parent": parent,  # a sub-agent counts under its parent's session
        "origin": origin is not None,  # forks and sub-agents may replay their parent
        "start_ordinal": start if isinstance(start, int) else None,
        "history_base": isinstance(meta.get("history_base"), dict),
        "created": _epoch(_as_str(meta.get("timestamp")) or stamp),
        "cwd": _as_str(meta.get("cwd")),
    }


class _Scan:
    def __init__(
        self,
        path: Path,
        state: dict[str, JSONValue] | None,
        explain: bool,
        fold: Callable[[UsageRecord], None] | None,
        drop: Callable[[DroppedLine], None] | None = None,
        damaged: Callable[[int, bytes, str], None] | None = None,
    ) -> None:
        self.path = path
        self.explain = explain or drop is not None
        # takes a line read with damage (number, bytes, why): bytes not UTF-8, a count
        self.damaged = damaged
        self.state: dict[str, JSONValue] = dict(state or {})
        self.records: list[UsageRecord] = []
        # no later line changes a record: each is folded as it is read, none is kept
        self.keep = fold or self.records.append
        self.dropped: list[DroppedLine] = []
        self.dropped_to = drop or self.dropped.append

    def drop(self, number: int, rule: str, note: str, time: float | None) -> None:
        if self.explain:
            self.dropped_to(DroppedLine(number, rule, note, time))

    def line(self, number: int, data: bytes) -> None:
        try:
            line = _decode_line(data)
        except RecursionError:  # nested too deep for msgspec: passed over
            return
        except (msgspec.ValidationError, msgspec.DecodeError):
            repaired = self._lenient(number, data, data, _Line)
            if not isinstance(repaired, _Line):
                return
            line = repaired
        kind = line.type
        state = self.state
        if kind == "session_meta":
            try:
                meta = msgspec.json.decode(line.payload) if len(line.payload) else {}
            except msgspec.DecodeError:
                meta = self._repaired(number, data, line.payload, msgspec.json.decode)
            if not isinstance(meta, dict):
                return
            if "own" not in state:
                state.update(_identity(meta, line.timestamp))
            elif (
                state.get("origin")
                and not state.get("replay_started")
                and state.get("start_ordinal") is None
                and not state.get("history_base")
                and _as_str(meta.get("id")) not in (None, state.get("own"))
            ):
                time = _epoch(line.timestamp)
                state["replaying"] = state["replay_started"] = True
                state["replay_second"] = int(time) if time is not None else None
            return
        if kind not in ("turn_context", "event_msg") or not len(line.payload):
            return
        try:
            payload = _decode_payload(line.payload)
        except (msgspec.ValidationError, msgspec.DecodeError):
            repaired = self._lenient(number, data, line.payload, _Payload)
            if not isinstance(repaired, _Payload):
                return
            payload = repaired
        if kind == "turn_context":
            if payload.model:
                state["model"] = payload.model
            if payload.cwd:
                state["cwd"] = payload.cwd
            return
        if payload.type == "model_reroute" and payload.to_model:
            state["model"] = payload.to_model
            return
        if payload.type != "token_count" or payload.info is None:
            return
        self.token_count(number, line, payload.info, data)

    def _repaired(
        self,
        number: int,
        line: bytes,
        data: bytes | msgspec.Raw,
        decode: Callable[[bytes], object],
    ) -> object:
        """What `decode` makes of `data` (the line or its part) where it refused it, once
        repaired (a byte order mark, bytes that are not UTF-8: the line then counted as
        damaged), or None. A payload kept raw is checked only when decoded: its damage
        is met there."""
        fixed, not_utf8 = files.repair(bytes(data))
        if fixed is None:
            return None
        try:
            value = decode(fixed)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return None
        if not_utf8 and self.damaged is not None:
            self.damaged(number, line, files.damage_of(line))
        return value

    def _lenient(
        self,
        number: int,
        line: bytes,
        data: bytes | msgspec.Raw,
        kind: type[_Line] | type[_Payload],
    ) -> _Line | _Payload | None:
        """`data` (the line or its payload) as `kind` where the strict decoder refused it:
        repaired as `_repaired` does, each member of a type `kind` does not take left out
        (a time written as a number, a count as a fraction), as the reader passes over
        it and keeps the record; None where it is no JSON object."""
        try:
            value, not_utf8 = files.loads_checked(bytes(data))
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, dict):
            return None
        payload = value.pop("payload", None) if kind is _Line else None
        decoded = converted(value, kind)
        if decoded is None:
            return None
        if isinstance(decoded, _Line) and payload is not None:
            with contextlib.suppress(TypeError):  # a number past 64 bits: no payload
                decoded.payload = msgspec.Raw(orjson.dumps(payload))
        if not_utf8 and self.damaged is not None:
            self.damaged(number, line, files.damage_of(line))
        return decoded

    def _replayed(self, line: _Line, time: float | None) -> bool:
        state = self.state
        start = state.get("start_ordinal")
        if isinstance(start, int):
            return line.ordinal is not None and line.ordinal < start
        if not state.get("replaying"):
            return False
        second = state.get("replay_second")
        created = state.get("created")
        if time is not None and (
            (isinstance(second, int) and int(time) == second)
            or (isinstance(created, float) and time < created)
        ):
            return True
        state["replaying"] = False
        return False

    def token_count(self, number: int, line: _Line, info: _Info, data: bytes) -> None:
        state = self.state
        time = _epoch(line.timestamp)
        total = _tuple(info.total_token_usage)
        if self._replayed(line, time):
            if total is not None:
                state["total"] = list(
                    total
                )  # later counts are measured against the copy
            self.drop(
                number,
                "replayed-parent-history",
                "a fork or sub-agent's copy of its parent's lines",
                time,
            )
            return
        last = _tuple(info.last_token_usage)
        if total is not None:
            previous = state.get("total")
            if total == previous:
                self.drop(
                    number, "repeat", "the same cumulative total written again", time
                )
                return
            state["total"] = list(total)
            if last is None:
                if not isinstance(previous, list):
                    self.drop(
                        number,
                        "no-baseline",
                        "read from an offset with no total before it",
                        time,
                    )
                    return
                last = [
                    max(0, now - before) if isinstance(before, int) else now
                    for now, before in zip(total, previous, strict=False)
                ]
        if last is None or not any(last):
            self.drop(number, "zero", "a count of no tokens", time)
            return
        if self.damaged is not None and _odd(info):
            self.damaged(number, data, ODD_COUNT)
        fresh, cached, written, output, reasoning = last
        model = info.model or _as_str(state.get("model"))
        usage = Usage(
            max(0, fresh - cached - written), output, cached, written, reasoning, model
        )
        own = _as_str(state.get("own")) or self.path.name
        parent = _as_str(state.get("parent"))
        note = ""
        if self.explain:
            source = (
                "last_token_usage"
                if info.last_token_usage is not None
                else "the increase of total_token_usage"
            )
            note = f"token_count: {source}; input {fresh:,} includes cached {cached:,} and cache writes {written:,}"
        self.keep(
            UsageRecord(
                time,
                usage,
                parent or own,
                own if parent else None,
                _as_str(state.get("cwd")),
                line=number,
                note=note,
            )
        )


def usage_records(
    path: Path,
    diagnostics: Diagnostics,
    *,
    offset: int = 0,
    state: dict[str, JSONValue] | None = None,
    explain: bool = False,
    fold: Callable[[UsageRecord], None] | None = None,
    drop: Callable[[DroppedLine], None] | None = None,
) -> UsageScan:
    """The billed responses in one Codex rollout, from `offset` on (handed to `fold`, if
    given, instead of listed); `drop` (explain) takes each line not counted instead of a
    list of them."""
    carried = state if offset and state else None
    start_line = carried.get("line", 1) if carried else 1
    explain = explain or drop is not None
    lines = MarkedLines(path, MARKERS, offset=offset, line=start_line if isinstance(start_line, int) else 1, diagnostics=diagnostics, numbered=explain)  # fmt: skip
    name = os.fspath(path)

    def damaged(number: int, data: bytes, why: str) -> None:
        diagnostics.damage(name, lines.number(number, data), why)

    scan = _Scan(path, carried, explain, fold, drop, damaged)
    if (
        not offset
    ):  # from the start, the first cumulative total is measured from nothing
        scan.state.setdefault("total", [0, 0, 0, 0, 0])
    try:
        for number, data, complete in lines:
            if complete:
                scan.line(number, data)
            # an unfinished last line is read again, whole, next time
    except FileNotFoundError:
        diagnostics.skip(os.fspath(path), 0, "vanished")
    scan.state["line"] = lines.line
    return UsageScan(scan.records, lines.offset, scan.state, scan.dropped)
