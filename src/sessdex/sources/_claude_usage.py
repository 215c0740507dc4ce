"""Claude Code's billed responses, read fast for `sessdex usage` (the `usage_records` hook).

Only lines holding `"usage":{` are decoded, by a msgspec type that names the few fields
needed. The rules are those of the reader (`_claude_stream`) and of ccusage:

- One API response is written as one `assistant` line per content block, each repeating
  `message.id`, `requestId` and a copy of `usage`; early copies can carry a partial
  `output_tokens`. The copies make one record, keyed `message.id:requestId` (`message.id`
  alone without a request id), with the **largest** copy's tokens, dated by its **last** line.
- A side-chain line (`/btw` questions, sub-agents) that repeats a lead-agent message id, even
  under a new request id, is the same response: the lead-agent copy wins.
- `<synthetic>` and `isApiErrorMessage` lines bill nothing; a line without `message.id`
  is counted as it is (there is nothing to merge it by).
- The advisor's calls (`usage.iterations` of type `advisor_message`) are left out of the
  top-level counts by the API: each advisor model's make one more record, keyed
  `<key>+advisor:<model>`, merged across copies as the response is.
- A response that ran on US-only inference (`usage.inference_geo: "us"`) is billed 1.1 times
  the catalogue's price (`UsageRecord.price_factor`), its advisor's calls too.
- Web searches (`usage.server_tool_use.web_search_requests`) are billed $0.01 each beside the
  tokens (`UsageRecord.fee_usd`), not times that factor, as Claude Code counts them; a
  response's copies repeat the count, which counts once (the largest). Web fetches
  (`web_fetch_requests`) cost only their tokens.
- Agent-progress lines (2.0) nest a sub-agent's response under `data.message`, its agent
  in `data.agentId`; they share its ids, so they merge with the sub-agent file's own lines.
- 1.0 wrote its sub-agents inline, in the lead's file (`isSidechain` lines): each counts as
  the agent `tree` names, the first line of its side chain (or the `agentId` that line
  names), so the side-chain lines without usage are read too, for their `parentUuid`. A 2.0
  `agent-<id>.jsonl` whose lines name no `agentId` counts as the agent its name says.
Across files the same keys merge again (resumed sessions copied their history); `usage`
does that with the same rules, and a line a fork copied (`forkedFrom` naming another
session), or a transcript's line naming another session (1.0's resume kept the id of the
lines it copied), makes a record marked `copied`, which loses to its original. Responses more than WINDOW back are handed to `fold` as the
file is read, so a huge transcript holds no record per response, only a hash of each; to
explain, each goes with its note, and its copies' lines go to `drop`.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import orjson

from .. import files
from ..diagnostics import ODD_COUNT, Diagnostics
from ..idtable import HashSet
from ..model import JSONValue, Usage
from ._claude_records import ADVISOR, recorded_cost
from ._usage_scan import MarkedLines, converted
from ._values import _EXACT_LIMIT, as_credits, as_int, odd_count
from .base import DroppedLine, FoldedTooSoon, UsageRecord, UsageScan

# Claude Code writes compact JSON; the marker stops at the colon so that a line written
# with a space after it (another writer, a hand-edited copy) is still found.
MARKER = b'"usage":'
SYNTHETIC = "<synthetic>"
OPEN_KEYS = 16  # responses near the end of a file whose copies may still be appended
# Responses kept whole behind the newest: the copies of a streamed response come together, so
# older ones go to `fold`. A copy that comes later anyway makes the read start again (unfolded).
WINDOW = 4096
# 1.0 wrote its sub-agents inline, every line marked so (Claude Code writes compact JSON:
# one marker, as each costs a search of every byte); a chunk with the key but never its
# compact form (a file re-written with spaces) is searched for the key alone, each line
# then decoded
SIDE_CHAIN = b'"isSidechain":true'
SIDE_CHAIN_SPACED = ((b'"isSidechain":false', SIDE_CHAIN), b'"isSidechain"')
# side-chain lines whose sub-agent a read knows (the newest; a read from the offset on too)
CHAINS_KEPT = 1024
CHAIN_ID_MAX = 256  # a uuid is 36 characters: a longer one is kept in no chain
# Anthropic bills a response that ran on US-only inference (`usage.inference_geo: "us"`,
# Claude 4.6 and later) 1.1 times every rate, as Claude Code 2.1.239+ prices it too
US_ONLY = 1.1
# Anthropic bills each web search $10 per 1,000 beside its tokens (Claude Code 2.1.332's
# cost: `web_search_requests` times its price list's 0.01, for every model)
WEB_SEARCH_USD = 0.01
# a million searches, $10,000: far past what one response's tool budget lets it run
MAX_RESPONSE_SEARCHES = 10**6


# The counts are any JSON, taken by `as_int` as the reader takes them: a count of another
# type (a fraction, a float past any count, a bool, a string) is that count broken, 0,
# not the whole response gone from `usage` while `show` counts it.


class _CacheCreation(msgspec.Struct):
    ephemeral_1h_input_tokens: Any = None


class _Iteration(msgspec.Struct):
    type: str | None = None
    model: str | None = None
    input_tokens: Any = None
    output_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None


class _ServerTools(msgspec.Struct):
    web_search_requests: Any = None


class _Tokens(msgspec.Struct):
    input_tokens: Any = None
    output_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None
    cache_creation: _CacheCreation | None = None
    speed: str | None = None
    iterations: list[_Iteration] | None = None
    inference_geo: str | None = None
    server_tool_use: _ServerTools | None = None
    credits: Any = None  # an app's own billing unit (Qoder's), any JSON: checked on use


class _Message(msgspec.Struct):
    id: str | None = None
    model: str | None = None
    usage: _Tokens | None = None


class _Progress(msgspec.Struct):
    timestamp: str | None = None
    requestId: str | None = None
    isSidechain: bool | None = None
    agentId: str | None = None
    message: _Message | None = None


class _ProgressData(msgspec.Struct):
    message: _Progress | None = None
    agentId: str | None = None  # the sub-agent's id sits beside the message it relays


class _Fork(msgspec.Struct):
    sessionId: str | None = None


class _Line(msgspec.Struct):
    type: str | None = None
    timestamp: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    sessionId: str | None = None
    forkedFrom: _Fork | None = None  # a fork's copy of its source's line
    agentId: str | None = None
    isSidechain: bool | None = None
    isApiErrorMessage: bool | None = None
    requestId: str | None = None
    cwd: str | None = None
    message: _Message | None = None
    # Claude Code's own price before 1.0.9, left undecoded (`_cost` says which count): an
    # odd value never costs the line its tokens
    costUSD: msgspec.Raw = msgspec.Raw()
    data: msgspec.Raw = msgspec.Raw()  # decoded only on progress lines


class _Link(msgspec.Struct):
    """A side-chain line without usage: only where it sits in its chain."""

    uuid: str | None = None
    parentUuid: str | None = None
    isSidechain: bool | None = None
    agentId: str | None = None


_decode_line = msgspec.json.Decoder(_Line).decode
_decode_link = msgspec.json.Decoder(_Link).decode
_decode_progress = msgspec.json.Decoder(_ProgressData).decode


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _loose(data: bytes) -> tuple[_Line | None, bool]:
    """A line the strict types refuse (a member of another type, bytes that are not
    UTF-8): converted leniently, such a member left out, and whether it was read over
    such bytes (as U+FFFD)."""
    try:
        value, damaged = files.loads_checked(data)
    except orjson.JSONDecodeError:
        return None, False
    if not isinstance(value, dict):
        return None, False
    line = converted(
        {
            k: value.get(k)
            for k in _Line.__struct_fields__
            if k not in _RAW and value.get(k) is not None
        },
        _Line,
    )
    if line is None:
        return None, damaged  # read, if to no use
    if "costUSD" in value:
        line.costUSD = msgspec.Raw(orjson.dumps(value["costUSD"]))
    return line, damaged


_RAW = ("data", "costUSD")  # `_Line`'s fields left undecoded


def _cost(raw: msgspec.Raw) -> float | None:
    """A line's `costUSD` as `recorded_cost` takes it; None where it is absent or odd."""
    if not len(raw):
        return None
    try:
        return recorded_cost(msgspec.json.decode(raw))
    except msgspec.DecodeError:  # a number past a float's range
        return None


def _odd(tokens: Any) -> bool:
    """Whether a response's usage holds a count no app writes (`odd_count`)."""
    # spelled out, not a generator: called for every usage line of a huge transcript
    return (
        odd_count(tokens.input_tokens)
        or odd_count(tokens.output_tokens)
        or odd_count(tokens.cache_read_input_tokens)
        or odd_count(tokens.cache_creation_input_tokens)
    )


def _int(value: object) -> int:
    return max(as_int(value), 0)


# `Usage` is a frozen dataclass: its __init__ sets each field through object.__setattr__,
# by name. A response's is made here with each field's own setter, in half the time (it is
# made for every response of a huge transcript); the same value (the tests compare them;
# a field added to `Usage` fails the unpacking below at import).
_new_usage = Usage.__new__
(
    _SET_INPUT,
    _SET_OUTPUT,
    _SET_READ,
    _SET_WRITE,
    _SET_REASONING,
    _SET_MODEL,
    _SET_CREDITS,
) = (getattr(Usage, name).__set__ for name in Usage.__slots__)


def _usage(i: int, o: int, r: int, w: int, model: str | None, credits: float) -> Usage:
    """`Usage(i, o, r, w, 0, model, credits)`, made faster."""
    usage = _new_usage(Usage)
    _SET_INPUT(usage, i)
    _SET_OUTPUT(usage, o)
    _SET_READ(usage, r)
    _SET_WRITE(usage, w)
    _SET_REASONING(usage, 0)
    _SET_MODEL(usage, model)
    _SET_CREDITS(usage, credits)
    return usage


def _one_hour(creation: _CacheCreation) -> int:
    """Of a response's cache writes, those cached for an hour (`_int`'s count)."""
    value = creation.ephemeral_1h_input_tokens
    if type(value) is int and 0 <= value <= _EXACT_LIMIT:
        return value  # as nearly every response writes it
    return _int(value)


class _Scan:
    """One file's records, merged per response key as lines arrive."""

    def __init__(
        self,
        path: Path,
        explain: bool,
        state: dict[str, JSONValue] | None,
        fold: Callable[[UsageRecord], None] | None = None,
        drop: Callable[[DroppedLine], None] | None = None,
        damaged: Callable[[int, bytes, str], None] | None = None,
    ) -> None:
        self.path = path
        # takes a line read with damage (number, bytes, why): bytes not UTF-8, a count
        self.damaged = damaged
        self.stem = path.name.removesuffix(".jsonl")
        # a transcript of its own, where 1.0 wrote its sub-agents inline; it counts in the
        # session its name is, as `list` names it (a copy's lines may keep the id of the
        # session they were copied from), a sub-agent's file in the lead its lines name
        self.lead_file = is_lead_file(path)
        # inline side chains (1.0): a line's uuid -> its sub-agent, the chain's first uuid
        # (as `tree` names it), so that the lead and each sub-agent have their own sums
        self.chains: dict[str, str] = {}
        self.explain = explain or drop is not None
        self.records: deque[UsageRecord] = deque()  # in order; the oldest may be folded
        self.fold = fold
        self.window = max(WINDOW, OPEN_KEYS)  # `state` lists the last OPEN_KEYS
        self.keyed = 0  # records with a key in `records`
        # the message-id part of folded records' keys: a line sharing one may merge with a
        # folded record (a false match, two hashes alike, only makes the read start again)
        self.folded = HashSet()
        self.dropped: list[DroppedLine] = []
        self.drop = drop or self.dropped.append
        self.by_key: dict[str, UsageRecord] = {}
        self.by_message: dict[str, UsageRecord] = {}
        self.copies: dict[
            str, list[tuple[int, Usage]]
        ] = {}  # explain: each copy's line, tokens
        self.token_line: dict[str, int] = {}  # explain: the copy whose tokens count
        # every line repeats its session, folder and model: one copy each, not one a record
        self.strings: dict[str, str] = {}
        self.open: dict[str, UsageRecord] = {}
        for pair in (state or {}).get("chains", []) or []:  # type: ignore[union-attr]
            if isinstance(pair, list) and len(pair) == 2:
                uuid, agent = pair
                if isinstance(uuid, str) and isinstance(agent, str):
                    self.chains[uuid] = agent
        for item in (state or {}).get("open", []) or []:  # type: ignore[union-attr]
            record = _record_from_state(item)
            if record is not None and record.key:
                self.open[record.key] = record
                self.by_key[record.key] = record
                if record.alias:
                    self.by_message.setdefault(record.alias, record)

    def line(
        self,
        number: int,
        data: bytes,
        complete: bool = True,
        marked: bool | None = None,
    ) -> None:
        """One marked line; an unfinished last line is read again, whole, next time, so it
        counts now only if its key will merge it then. `marked`: whether it holds MARKER,
        where the search that found it knows (None: looked for here)."""
        if marked is None and self.lead_file:
            marked = MARKER in data
        if self.lead_file and not marked:
            self._link(data)  # a side-chain line without usage: its place in its chain
            return
        try:
            line = _decode_line(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            # RecursionError: nested too deep for msgspec
            decoded, not_utf8 = _loose(data)
            if not_utf8 and self.damaged is not None:
                self.damaged(number, data, files.damage_of(data))
            if decoded is None:
                return
            line = decoded
        stamp = line.timestamp
        request = line.requestId
        sidechain = bool(line.isSidechain)
        agent = line.agentId
        if sidechain and self.lead_file and line.uuid:
            agent = self._chain(line.uuid, line.parentUuid, agent)
        elif sidechain and agent is None and self.stem.startswith("agent-"):
            agent = self.stem[len("agent-") :]  # 2.0's file names it where no line does
        if line.type == "assistant":
            message = line.message
        elif line.type == "progress" and len(line.data):
            try:
                relayed = _decode_progress(line.data)
            except (msgspec.ValidationError, msgspec.DecodeError):
                return
            progress = relayed.message
            if progress is None:
                return
            message = progress.message
            stamp = progress.timestamp or stamp
            request = progress.requestId
            sidechain = True  # a sub-agent's work, relayed
            agent = relayed.agentId or progress.agentId or agent
        else:
            return
        if message is None or message.usage is None:
            return
        time = _epoch(stamp)
        if message.model == SYNTHETIC or line.isApiErrorMessage:
            if self.explain:
                rule = "synthetic" if message.model == SYNTHETIC else "api-error"
                self.drop(
                    DroppedLine(
                        number, rule, "written by Claude Code itself, not billed", time
                    )
                )
            return
        tokens = message.usage
        same = self.strings.setdefault
        counts = self._plain_counts(tokens)
        if counts is None:  # a count missing or odd: said, and taken as the reader does
            if self.damaged is not None and _odd(tokens):
                self.damaged(number, data, ODD_COUNT)
            counts = (
                as_int(tokens.input_tokens),  # (past 2**53: a broken value, 0)
                as_int(tokens.output_tokens),
                as_int(tokens.cache_read_input_tokens),
                as_int(tokens.cache_creation_input_tokens),
            )
        usage = _usage(
            *counts,
            message.model and same(message.model, message.model),
            0.0 if tokens.credits is None else as_credits(tokens.credits),
        )
        one_hour = (
            0 if tokens.cache_creation is None else _one_hour(tokens.cache_creation)
        )
        message_id = message.id or None
        key = (
            None
            if message_id is None
            else (f"{message_id}:{request}" if request else message_id)
        )
        session = line.sessionId
        record = UsageRecord(
            time,
            usage,
            same(session, session) if session and not self.lead_file else self.stem,
            (agent and same(agent, agent)) if (sidechain or agent) else None,
            line.cwd and same(line.cwd, line.cwd),
            key,
            message_id,
            sidechain,
            "fast" if tokens.speed == "fast" else None,
            one_hour,
            number,
            _cost(line.costUSD) if len(line.costUSD) else None,
            price_factor=US_ONLY if tokens.inference_geo == "us" else 1.0,
            fee_usd=_searches(tokens) * WEB_SEARCH_USD,
        )
        fork = line.forkedFrom
        record.copied = bool(
            fork and fork.sessionId and fork.sessionId != record.session_id
        ) or bool(session and session != record.session_id)  # another's, copied here
        self._take(record, number, complete, message_id, sidechain)
        if not tokens.iterations:
            return
        for model, used in _advisors(tokens.iterations, message.model):
            # the advisor's calls: a response of their own, at the advisor model's rates
            self._take(
                UsageRecord(
                    time,
                    used,
                    record.session_id,
                    record.agent_id,
                    record.cwd,
                    key and f"{key}+advisor:{model}",
                    message_id and f"{message_id}+advisor:{model}",
                    sidechain,
                    None,
                    0,
                    number,
                    price_factor=record.price_factor,  # it ran where the response did
                ),
                number,
                complete,
                message_id and f"{message_id}+advisor:{model}",
                sidechain,
            )

    @staticmethod
    def _plain_counts(tokens: _Tokens) -> tuple[int, int, int, int] | None:
        """The four counts where each is an int from 0 to 2**53, as nearly every response
        writes them (`as_int` would give each back, `odd_count` find none odd); else None,
        for the checks made one by one."""
        # spelled out: one call for what takes nine a response otherwise
        i, o = tokens.input_tokens, tokens.output_tokens
        r, w = tokens.cache_read_input_tokens, tokens.cache_creation_input_tokens
        if (
            type(i) is int
            and type(o) is int
            and type(r) is int
            and type(w) is int
            and 0 <= i <= _EXACT_LIMIT
            and 0 <= o <= _EXACT_LIMIT
            and 0 <= r <= _EXACT_LIMIT
            and 0 <= w <= _EXACT_LIMIT
        ):
            return i, o, r, w
        return None

    def _link(self, data: bytes) -> None:
        try:
            link = _decode_link(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return  # a broken line: the reader says so
        if link.isSidechain is True and link.uuid:
            self._chain(link.uuid, link.parentUuid, link.agentId)

    def _chain(self, uuid: str, parent: str | None, agent: str | None) -> str:
        """The sub-agent of a side-chain line: its parent's, else (a chain's first line,
        under no side-chain line) the agent it names, else itself."""
        found = self.chains.get(parent) if parent else None
        if found is None:
            found = agent or uuid
        if len(uuid) > CHAIN_ID_MAX or len(found) > CHAIN_ID_MAX:
            return (
                found  # no id Claude Code writes: not kept (1024 of them, in the index)
            )
        self.chains[uuid] = found
        if len(self.chains) > CHAINS_KEPT:  # the newest, as the state keeps them: a
            del self.chains[
                next(iter(self.chains))
            ]  # warm read knows what a cold one does
        return found

    def _take(
        self,
        record: UsageRecord,
        number: int,
        complete: bool,
        message_id: str | None,
        sidechain: bool,
    ) -> None:
        """A line's record: listed, or merged with the same response's earlier copy."""
        key = record.key
        if key is None:
            if not complete:
                return
            if self.explain:
                record.note = "no message id: counted as it is"
            self._list(record)
            return
        existing = self.by_key.get(key)
        if existing is None and self.folded and key.partition(":")[0] in self.folded:
            # it may merge with a folded response (or only share its message id)
            raise FoldedTooSoon(f"{self.path}: line {number}")
        if existing is None and message_id is not None:
            other = self.by_message.get(message_id)
            if other is not None and (sidechain or other.sidechain):
                existing = other
        if existing is None:
            self.by_key[key] = record
            self.by_message.setdefault(message_id or key, record)
            if self.explain:
                self._remember(record, number)
                self.token_line[key] = number
            self._list(record)
            return
        self._merge(existing, record, number)

    def _list(self, record: UsageRecord) -> None:
        """List a record; with `fold`, hand it the oldest while more than `window` have keys."""
        records = self.records
        records.append(record)
        if record.key:
            self.keyed += 1
        if self.fold is None:
            return
        while records and (not records[0].key or self.keyed > self.window):
            old = records.popleft()
            if old.key:
                self.keyed -= 1
                self._forget(old, old.key)
            if self.explain:
                self._explain(old)
            self.fold(old)

    def _forget(self, record: UsageRecord, key: str) -> None:
        if self.by_key.get(key) is record:
            del self.by_key[key]
        message = record.alias or key
        if self.by_message.get(message) is record:
            del self.by_message[message]
        self.folded.add(_head(key))

    def _remember(
        self, record: UsageRecord, number: int, usage: Usage | None = None
    ) -> None:
        if self.explain and record.key:
            self.copies.setdefault(record.key, []).append(
                (number, usage or record.usage)
            )

    def _merge(self, kept: UsageRecord, new: UsageRecord, number: int) -> None:
        same_response = kept.key == new.key
        replace = False
        if kept.sidechain != new.sidechain:
            replace = kept.sidechain  # the lead agent's copy wins
        elif new.usage.total > kept.usage.total:
            replace = True
        if self.explain and not same_response:
            loser = kept.line if replace else number
            self.drop(
                DroppedLine(loser, "side-chain-replay", f"a side chain repeating lead-agent message {kept.alias}; line {number if replace else kept.line} counted", new.time)
            )  # fmt: skip
        previous = _snapshot(kept) if kept.key in self.open else None
        if replace:
            kept.usage = new.usage
            kept.sidechain = new.sidechain
            kept.cache_write_1h = new.cache_write_1h
            kept.speed = new.speed
            kept.price_factor = new.price_factor
            if not same_response:
                kept.fee_usd = new.fee_usd
            kept.app_cost_usd = new.app_cost_usd
            kept.session_id = new.session_id
            kept.agent_id = new.agent_id
            kept.cwd = new.cwd or kept.cwd
            if self.explain and kept.key:
                self.token_line[kept.key] = number
            if not same_response:
                kept.time, kept.line = new.time, number
        if (
            same_response
            and new.time is not None
            and (kept.time is None or new.time >= kept.time)
        ):
            kept.time, kept.line = new.time, number
        if same_response:
            # every copy repeats the response's searches: counted once, the most said
            kept.fee_usd = max(kept.fee_usd, new.fee_usd)
            self._remember(kept, number, new.usage)
        if previous is not None and kept.key is not None:
            # a response begun before `offset`: count the update, not a second response
            self.open.pop(kept.key)
            kept.replaces = previous
            self._list(kept)

    def state(self) -> dict[str, JSONValue]:
        keyed = [r for r in self.records if r.key][-OPEN_KEYS:]
        keep = {r.key: r for r in self.open.values()}
        keep.update({r.key: r for r in keyed})
        state: dict[str, JSONValue] = {
            "open": [_record_state(r) for r in list(keep.values())[-OPEN_KEYS:]]
        }
        if self.chains:
            chains = list(self.chains.items())[-CHAINS_KEPT:]
            state["chains"] = [[uuid, agent] for uuid, agent in chains]
        return state

    def finish(self) -> None:
        if not self.explain:
            return
        for record in self.records:
            self._explain(record)
        # a line's copy-of-response comes after what was said of it as it was read
        self.dropped.sort(key=lambda d: (d.line, d.rule == "copy-of-response"))

    def _explain(self, record: UsageRecord) -> None:
        """A finished record's note, and its other copies dropped; what was kept of them
        to say so is let go."""
        key = record.key or ""
        copies = self.copies.pop(key, [])
        counted = self.token_line.pop(key, record.line)
        priced = "" if record.app_cost_usd is None else ", its costUSD as the price"
        if record.price_factor == US_ONLY and record.app_cost_usd is None:
            priced += ", run on US-only inference: 1.1 times the price"
        if record.fee_usd and record.app_cost_usd is None:
            searches = round(record.fee_usd / WEB_SEARCH_USD)
            priced += (
                f", {searches} web search{'es' if searches != 1 else ''} at $0.01 each"
            )
        if len(copies) < 2:
            record.note = f"one line ({record.key})" if record.key else record.note
            record.note += priced
            return
        record.note = (
            f"{len(copies)} lines of one response ({record.key}): tokens of line {counted} "
            f"(the largest), dated by its last line {record.line}{priced}"
        )
        for number, usage in copies:
            if number != counted:
                self.drop(
                    DroppedLine(number, "copy-of-response", f"output_tokens {usage.output_tokens} of {record.key}; line {counted} counted ({record.usage.output_tokens})", record.time)
                )  # fmt: skip


def is_lead_file(path: Path) -> bool:
    """Whether `path` is a transcript of its own, `projects/<slug>/<id>.jsonl` (not a
    sub-agent's `agent-<id>.jsonl`, nor a file in a session's own folder)."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.dirname(name))
    return os.path.basename(folder) == "projects" and not os.path.basename(
        name
    ).startswith("agent-")


def _advisors(
    iterations: list[_Iteration] | None, model: str | None
) -> list[tuple[str | None, Usage]]:
    """(advisor model, its calls' tokens) from a response's `usage.iterations`: the
    `advisor_message` ones, which Anthropic leaves out of the top-level (executor) counts.
    An iteration naming no model is the response's own (`_claude_records.advisor_usage`)."""
    if not iterations:
        return []
    by_model: dict[str | None, Usage] = {}
    for iteration in iterations:
        if iteration.type != ADVISOR:
            continue
        name = iteration.model or model
        used = Usage(
            _int(iteration.input_tokens),
            _int(iteration.output_tokens),
            _int(iteration.cache_read_input_tokens),
            _int(iteration.cache_creation_input_tokens),
            0,
            name,
        )
        if used.total:
            known = by_model.get(name)
            by_model[name] = used if known is None else known + used
    return list(by_model.items())


def _searches(tokens: _Tokens) -> int:
    """The web searches a response ran (`usage.server_tool_use.web_search_requests`)."""
    tools = tokens.server_tool_use
    if tools is None:
        return 0
    searches = tools.web_search_requests
    if type(searches) is int and 0 <= searches <= MAX_RESPONSE_SEARCHES:
        return searches  # as every 2.x response writes it (0 nearly always)
    searches = _int(searches)
    # a count no response can have (a broken file) is none, as a token count past
    # MAX_RESPONSE_TOKENS is: one value cannot make a row of billions of dollars
    return searches if searches <= MAX_RESPONSE_SEARCHES else 0


def _head(key: str) -> str:
    """A key's part before its first colon: the message id, for every key it may merge with."""
    return key.partition(":")[0]


def _snapshot(record: UsageRecord) -> UsageRecord:
    return UsageRecord(
        record.time, record.usage, record.session_id, record.agent_id, record.cwd, record.key,
        record.alias, record.sidechain, record.speed, record.cache_write_1h, record.line,
        record.app_cost_usd, copied=record.copied, price_factor=record.price_factor,
        fee_usd=record.fee_usd,
    )  # fmt: skip


def _record_state(record: UsageRecord) -> JSONValue:
    u = record.usage
    return [
        record.time, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens,
        u.model, record.session_id, record.agent_id, record.cwd, record.key, record.alias,
        record.sidechain, record.speed, record.cache_write_1h, record.line, record.app_cost_usd,
        record.price_factor, record.fee_usd, u.credits,
    ]  # fmt: skip


def _record_from_state(item: JSONValue) -> UsageRecord | None:
    if not isinstance(item, list) or len(item) not in (16, 17, 18, 19):
        return None
    # a state kept before the factor: 1; before the fee (web searches): none; before
    # credits: none
    factor, fee, credits = (item[16:] + [1.0, 0.0, 0.0][len(item) - 16 :])[:3]
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        factor = 1.0
    if isinstance(fee, bool) or not isinstance(fee, int | float) or not fee > 0:
        fee = 0.0
    item = item[:16]
    (
        t,
        i,
        o,
        r,
        w,
        model,
        session,
        agent,
        cwd,
        key,
        alias,
        side,
        speed,
        hour,
        line,
        cost,
    ) = item
    counts = (i, o, r, w, hour, line)
    if not all(isinstance(n, int) for n in counts):
        return None
    i, o, r, w, hour, line = (int(n) for n in counts)  # type: ignore[arg-type]
    named = model if isinstance(model, str) else None
    usage = Usage(i, o, r, w, 0, named, as_credits(credits))
    return UsageRecord(
        float(t) if isinstance(t, int | float) else None, usage, str(session),
        agent if isinstance(agent, str) else None, cwd if isinstance(cwd, str) else None,
        key if isinstance(key, str) else None, alias if isinstance(alias, str) else None,
        bool(side), speed if isinstance(speed, str) else None, hour, line, recorded_cost(cost),
        price_factor=float(factor), fee_usd=float(fee),
    )  # fmt: skip


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
    """The billed responses in one Claude Code transcript, from `offset` on. Those more than
    WINDOW responses back go to `fold`, if given; a line that changes one of them (a late copy,
    a side chain's replay) raises FoldedTooSoon. `drop` (explain) takes each line not
    counted, as it is known, instead of a list of them."""
    line = state.get("line", 1) if state and offset else 1
    explain = explain or drop is not None
    # a transcript's side-chain lines too, for the chains they make
    lead = is_lead_file(path)
    markers = (MARKER, SIDE_CHAIN) if lead else (MARKER,)
    spaced = SIDE_CHAIN_SPACED if lead else None
    lines = MarkedLines(path, markers, offset=offset, line=int(line) if isinstance(line, int) else 1, diagnostics=diagnostics, numbered=explain, spaced=spaced)  # fmt: skip
    name = os.fspath(path)

    def damaged(number: int, data: bytes, why: str) -> None:
        diagnostics.damage(name, lines.number(number, data), why)

    scan = _Scan(path, explain, state if offset else None, fold, drop, damaged)
    try:
        for number, data, complete in lines:
            scan.line(number, data, complete, lines.first_marked)
    except FileNotFoundError:
        diagnostics.skip(os.fspath(path), 0, "vanished")
    scan.finish()
    result = scan.state()
    result["line"] = lines.line
    return UsageScan(list(scan.records), lines.offset, result, scan.dropped)
