"""Augment Code's CLI, Auggie (`auggie`, npm `@augmentcode/auggie`).

What the 0.36.0 bundle confirms (read for its session store; no real capture was made):
a session is one JSON document, `<cache>/sessions/<session id>.json`, the cache folder
`--augment-cache-dir <dir>` for one run, else `~/.augment` (Node's `os.homedir()`, `$HOME`;
no variable moves it). Every save rewrites it whole, JSON.stringify(session, null, 2) to a
`<id>.json.<ms>.tmp` renamed over it: after each exchange is committed (before its calls
run), when a turn ends, is interrupted or fails, and on exit. Its members, in that order:
`sessionId`, `created`, `modified` (ISO times), `chatHistory[]`, `agentState
{userGuidelines, workspaceGuidelines, modelId, userEmail, agentPersonaId}`, then as set
`rootTaskUuid`, `workspaceId`, `remoteCreatedAt`, `title`, `customTitle`, `terminalId`,
`subAgentCreditsUsed`, `subAgentCostUsd`, `summarizations[]`, `subAgents[]`,
`poseidonAgentId`, `parentConversationId`, `isCloudAgent`, `queue`. Auggie shows
`customTitle` (its own from the first prompt, or the user's; a guess which) else `title`;
`/fork` sets the copy's `title` to "<title> (fork)" and copies the items with their
`finishedAt`, nothing naming its source: the copied responses are billed in the source
only. `<id>-backup<N>.json` beside them are copies Auggie keeps of a session (same id):
never listed.

Sub-agents: a run the lead started is kept, behind a flag of Augment's service
(`cliRecordSummarizationsAndSubagents`), in the lead's `subAgents[]` (`{name, model,
finishedAt, chatHistory, tool_call_request_id}`, the last the request id of the lead's
exchange that started it): shown inline after that exchange, the spawn of the call of
its tool there (`sub-agent-<name>`, as the bundle names sub-agent tools; which call is a
guess where one exchange ran the same agent twice), its events under its name (`explore`,
then `explore-2` for a second run). Behind the same flag,
`summarizations[]` keeps what each summary cost (`{request_id, model, finishedAt,
input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens,
cost_usd, credits_consumed}`): billed beside its compaction, its credits too. Auggie's own listing takes a
session with `parentConversationId` for a sub-agent's; nothing in its lead names it, so it
is listed as a session of its own, its lead named (`extra["lead_id"]`).
`subAgentCreditsUsed` is the sum of each sub-agent run's own credits (the bundle adds up
the `billing_metadata` of the run's history, by transaction, the history `subAgents[]`
keeps, and shows the session's cost as its own exchanges' plus this; 0.36.0, confirmed,
High): a kept run's credits are billed by the run, and only what no kept run bills (runs
that ended while `subAgents[]` was not kept) by the session, once (`subAgentCostUsd`, the
same in dollars for a key billed so). `subAgentCostUsd` is the same sum for runs billed in
dollars (a history whose `billing_metadata` has `usage_unit` 2 and a `cost_usd` string, by
transaction: the bundle adds a run to one sum or the other): a kept run's dollars are its
tokens, priced as any others, and only the dollars no kept run bills are the session's,
once, as Auggie's own figure (`app_cost_usd`, no tokens known).

A chat item is `{exchange, completed, sequenceId, finishedAt, changedFiles…, source}`
(`isHistorySummary`, `historySummaryVersion` once restored; 0.36.0 never marks one a
summary); its exchange `{request_message, response_text, request_id, request_nodes,
response_nodes, model_id?}`; `completed` false is an exchange the user interrupted (what it
had so far is kept). Nodes are typed by number. Request nodes: 0 text (`text_node.content`;
a prompt of ask mode, /btw or plan mode is saved inside Auggie's instructions for it,
taken out here), 1 a tool's output (`tool_result_node
{tool_use_id, content, is_error, request_id, duration_ms, start_time_ms, content_nodes?}`,
answering the calls of the exchange before), 2 an image, 4 the IDE state
(`ide_state_node.workspace_folders[0].repository_root`/`folder_root`: the session's folder,
as Auggie's own listing takes it from the first exchange that has one), 8 an attached file
(`file_node {file_data, media_type, file_name}`), 10 a compaction (`history_summary_node
{summary_text, summarization_request_id}`), added to the exchange under way, which goes
on as any other. Response nodes as saved (0, 5, 8, 9, 10 only): 0 a piece of the answer's
text (the whole is `response_text`), 5 a call (`tool_use {tool_use_id, tool_name,
input_json}`, its `started_at_ms`/`completed_at_ms` stamped while it runs, so after the
save that first shows it: its time is the node's), 8 thinking (`thinking {content,
summary, encrypted_content}`), 9 what was billed (`billing_metadata {transaction_id,
credits_consumed}`: the exchange's credits, on its first counted response; with
`usage_unit` 2, `cost_usd`, a string: the dollars billed, which Auggie's own session cost
adds up once per transaction (0.36.0's bundle, confirmed): the recorded cost of that
response, used where the catalogue has no price, or the cost where no token is counted), 10 token usage
(`token_usage {input_tokens, output_tokens, cache_read_input_tokens,
cache_creation_input_tokens, …}`, input without the cache: Auggie's own totals add the
three); each carries `timestamp_ms`. Other node types are counted.

Guesses, from Auggie's own readers rather than its writers: an item that is a bare exchange,
an exchange's tokens kept on it (`token_usage`, one fetched from Augment's service), a
thinking node's text in its `content`.

`show --tail` finds the last chat items from the file's end (`read_last`): the history
closes right before `agentState`; one written on one line (another tool's copy) is read
back from its history's close, the members after it parsed from its last 256 KB; a kept
sub-agent run or summary cost that no item read names, or an item that needs an earlier
one, has it read whole.

The login (`~/.augment/session.json`, `oauth-state.json`) is beside `sessions/` and never
opened: only `sessions/` is listed.

Resume: `auggie --resume <id>` (`-r`; an exact id, else a start of one that names one
session) in the session's folder: Auggie takes the folder it runs in for the workspace (and
warns where the session's `workspaceId` differs), brings back `agentState.modelId` itself,
and takes its tool permissions from its settings and `--permission` rules (none added
here; whether it asks before every tool by default is not checked).
`-c/--continue` opens this terminal's last session in the workspace, else its newest;
`auggie session resume [<id>]` and `auggie session continue` do as those flags.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from io import BytesIO
from pathlib import Path
from typing import Unpack, overload

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    EventFields,
    as_credits,
    as_dict,
    as_int,
    as_list,
    as_str,
    iso_time,
    ms_time,
    odd_count,
    one_line,
    shown_arguments,
    shown_text,
    stat_size,
    stripped,
)
from .base import Home, Location, Opened, ResumeFlags, opened_by_flags

NAME = "auggie"
TITLE = "Augment Auggie CLI"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "the @augmentcode/auggie 0.36.0 bundle (npm), read for its session store and node "
    "types, and its --help (run offline in a scratch home, never logged in); synthetic "
    "fixtures made to match, one in the shape of a real January 2026 session quoted in "
    "a public transcript; never a real capture (Low); resume checked against 0.36.0's "
    "bundle (`-r, --resume [sessionId]`, an id or its start)"
)
ENV_VARS = ("HOME",)
CLI = ("auggie",)
RESUME_FLAGS = ResumeFlags(resume=("-r", "--resume"), latest=("-c", "--continue"))

WHOLE_CAP = files.WHOLE_JSON_CAP  # a bigger session is listed from its ends
_ENDS = 256 * 1024  # bytes read at either end of a session too big to list whole
_HISTORY = frozenset({"chatHistory"})
_FORKED = " (fork)"  # how `/fork` ends the title of the copy it makes
_BACKUP = re.compile(r".+-backup\d+\.json")
_ID_START = re.compile(
    r"[A-Za-z0-9_-]{4,}"
)  # what `--resume` takes as a start of an id

# A top-level member as JSON.stringify(session, null, 2) writes it: two spaces in at the
# start of a line (a string's own newlines are escaped, so only structure starts a line).
_TOP_MEMBER = re.compile(
    rb'^  "(sessionId|created|modified|title|customTitle|workspaceId|parentConversationId)"'
    rb': ("(?:[^"\\\n]|\\.)*")',
    re.MULTILINE,
)
_STATE = b'\n  "agentState": '  # the member Auggie writes right after the history
# agentState's model (its members four spaces in; a chat item's are six and more)
_STATE_MODEL = re.compile(rb'^    "modelId": ("(?:[^"\\\n]|\\.)*")', re.MULTILINE)
# an exchange's model: top, chatHistory, item, exchange, member
_EXCHANGE_MODEL = re.compile(rb'^ {8}"model_id": ("(?:[^"\\\n]|\\.)*")', re.MULTILINE)

# node types (numbers in the file)
_TEXT, _TOOL_RESULT, _IMAGE, _IDE_STATE, _FILE, _SUMMARY = 0, 1, 2, 4, 8, 10
_ANSWER, _MAIN_TEXT, _TOOL_USE, _THINKING, _BILLING, _TOKENS = 0, 2, 5, 8, 9, 10
_IN_DOLLARS = 2  # a billing node's `usage_unit` for an exchange billed in dollars


def locate(home: Home) -> Location:
    """`$HOME/.augment` (Node's `os.homedir()`); `--augment-cache-dir` is per run."""
    value = home.env_dir("HOME")
    if value is not None and value != home.path:
        return Location(value / ".augment", override=f"HOME={home.environ['HOME']}")
    return Location(home.path / ".augment")


# where `scan` reads a session (see base.py): a broken link elsewhere hides none
SESSION_NAMES = ("sessions", "sessions/*.json")


def scan(location: Location) -> Iterator[str]:
    """The session files in `sessions/`, its backups aside."""
    if not location.exists:
        return
    for entry in folders.entries(location.root / "sessions", location.root):
        name = entry.name
        if (
            name.endswith(".json")
            and not _BACKUP.fullmatch(name)
            and folders.file_entry(entry)
        ):
            yield entry.path


@dataclass(frozen=True, slots=True)
class _Facts:
    """What a listing takes from one session file."""

    top: dict[str, object]  # the members other than `chatHistory`
    prompt: str | None = None  # the first typed prompt
    folder: str | None = None  # the workspace the first IDE state names
    model: str | None = None  # the last exchange's
    exchanges: int | None = None  # how many chat items (a whole read only)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    size = stat_size(path)
    if size is None:
        files.say_if_refused(NAME, path, diagnostics)
        return []
    facts: _Facts | None
    if size > WHOLE_CAP:
        facts = _ends(path) or _in_pieces(path, diagnostics)
    else:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if value is not None and not isinstance(value, dict):
            diagnostics.skip(str(path), 1, "not an object")
            return []
        facts = _whole(value) if value is not None else _in_pieces(path, diagnostics)
    if facts is None:
        return []
    top = facts.top
    if as_str(top.get("sessionId")) is None:
        diagnostics.skip(str(path), 1, "bad value")
        return []
    title = stripped(top.get("customTitle")) or stripped(top.get("title"))
    model = facts.model or stripped(as_dict(top.get("agentState")).get("modelId"))
    extra: dict[str, JSONValue] = {}
    if facts.exchanges is not None:
        extra["exchanges"] = facts.exchanges
    # the lead of a session Auggie marks as a sub-agent's: named, not made its parent,
    # since nothing in the lead's file names this one, and a lead's read must bring its
    # sub-agents' events (`show`, `usage`)
    lead = as_str(top.get("parentConversationId"))
    if lead:
        extra["lead_id"] = lead
    if (stripped(top.get("title")) or "").endswith(_FORKED):
        extra["fork"] = True  # its copied responses are billed in its source
    return [
        Session(
            app=NAME,
            # the file's name is the id Auggie opens it by (`<id>.json`)
            id=path.stem,
            path=str(path),
            cwd=facts.folder,
            title=one_line(title) or one_line(facts.prompt),
            created=iso_time(top.get("created")),
            updated=iso_time(top.get("modified")),
            model=model,
            bytes=size,
            extra=extra,
        )
    ]


def _whole(value: dict[str, object]) -> _Facts:
    """A session small enough to parse at once."""
    history = as_list(value.get("chatHistory"))
    prompt, folder = _first_prompt_and_folder(history)
    model = None
    for item in history:
        model = stripped(_exchange(as_dict(item)).get("model_id")) or model
    top = {k: v for k, v in value.items() if k != "chatHistory"}
    return _Facts(top, prompt, folder, model, len(history))


def _exchange(item: dict[str, object]) -> dict[str, object]:
    """A history item's exchange: its `exchange`, or the item itself where it is a bare
    exchange (Auggie's own session viewer reads either)."""
    exchange = item.get("exchange")
    if isinstance(exchange, dict):
        return exchange
    if "request_message" in item or "response_text" in item:
        return item
    return {}


def _first_prompt_and_folder(items: Iterable[object]) -> tuple[str | None, str | None]:
    prompt = folder = None
    for item in items:
        entry = as_dict(item)
        exchange = _exchange(entry)
        nodes = [as_dict(node) for node in as_list(exchange.get("request_nodes"))]
        if prompt is None and not entry.get("isHistorySummary"):
            prompt = _typed(exchange, nodes)
        if folder is None:
            folder = _workspace(nodes)
        if prompt is not None and folder is not None:
            break
    return prompt, folder


def _typed(exchange: dict[str, object], nodes: list[dict[str, object]]) -> str | None:
    """What the user typed: the request's text nodes, else its `request_message`, out of
    the instructions Auggie wraps a prompt of a mode in."""
    texts = [
        text
        for node in nodes
        if node.get("type") == _TEXT
        and (
            text := shown_text(
                as_dict(node.get("text_node")).get("content"), keep_empty=False
            )
        )
    ]
    typed = "\n".join(texts) or shown_text(
        exchange.get("request_message"), keep_empty=False
    )
    return _unwrapped(typed) if typed else None


# How Auggie wraps a prompt (ask mode, /btw, plan mode, its plan's feedback; the next prompt
# after ask mode): its instructions' first words, and the words that end them. A prompt
# may be wrapped twice (ask mode inside plan mode).
_WRAPPERS = (
    ("# For this specific question, follow these ", "\n\nUser message:\n"),
    ("# Ask mode is now disabled\n", "\n\nUser message:\n"),
    ("# Plan Mode Instructions\n", "\n\n User's planning request: "),
    ("# Plan Iteration Instructions\n", "\n\nUser's feedback on the plan:\n"),
)
_PLAN_FILE = re.compile(r"\s*The current plan file is at: [^\n]*\n\n")


def _unwrapped(text: str) -> str | None:
    """`text` without the instructions Auggie put around it; None if nothing is left."""
    for _ in range(len(_WRAPPERS)):
        for start, end in _WRAPPERS:
            if text.startswith(start) and end in text:
                text = text.split(end, 1)[1]
                plan_file = _PLAN_FILE.match(text)
                if plan_file and start.startswith("# Plan Iteration"):
                    text = text[plan_file.end() :]
                text = text.lstrip()
                break
        else:
            break
    return text or None


def _workspace(nodes: list[dict[str, object]]) -> str | None:
    for node in nodes:
        if node.get("type") == _IDE_STATE:
            state = as_dict(node.get("ide_state_node"))
            first = as_dict(next(iter(as_list(state.get("workspace_folders"))), None))
            found = as_str(first.get("repository_root")) or as_str(
                first.get("folder_root")
            )
            if found:
                return found
    return None


def _ends(path: Path) -> _Facts | None:
    """A session too big to parse: its members from its first and last bytes, its first
    prompt and folder from the chat items its head holds whole, its model from the last
    exchange in its tail; None where it is not laid out as Auggie writes it."""
    from . import _json_chat

    blocks = _json_chat.end_bytes(path, _ENDS)
    if blocks is None:
        return None
    head, tail = blocks
    if _STATE not in tail:
        # the members after the history (long sub-agents' runs) fill the end read: the
        # title and model, written before them, are further back (4 MiB at most)
        try:
            tail = files.tail_bytes(path, files.READ_LINE_CAP)[1]
        except OSError:
            return None
        blocks = (head, tail)
    top = _json_chat.top_members(blocks, _TOP_MEMBER)
    if not isinstance(top.get("sessionId"), str):
        return None
    model = _last_string(_EXCHANGE_MODEL, tail)
    state_model = _last_string(_STATE_MODEL, tail)
    if state_model:
        top["agentState"] = {"modelId": state_model}
    prompt, folder = _first_prompt_and_folder(_head_items(head))
    return _Facts(top, prompt, folder, model)


def _last_string(pattern: re.Pattern[bytes], block: bytes) -> str | None:
    for match in reversed(list(pattern.finditer(block))):
        try:
            value = orjson.loads(match.group(1))
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _head_items(head: bytes) -> Iterator[object]:
    """The chat items the head holds whole."""
    from ..jsonstream import NotThisShape, array_items

    try:
        yield from array_items(BytesIO(head), "chatHistory")
    except NotThisShape:  # the head ends inside an item
        return


def _in_pieces(path: Path, diagnostics: Diagnostics) -> _Facts | None:
    """A session that does not parse whole (cut short by a write stopped half way, or
    a copy taken during one): the members read before its cut; None (counted) where
    none names it."""
    from ..jsonstream import file_items, file_members

    top = file_members(path, _HISTORY, diagnostics, NAME, cut=True)
    if top is None:
        if not files.refuses_reading(str(path)):
            diagnostics.skip(str(path), 1, "not JSON")
        return None
    quiet = Diagnostics()  # reading the session counts what is wrong in it
    prompt, folder = _first_prompt_and_folder(
        file_items(path, "chatHistory", quiet, NAME)
    )
    return _Facts(top, prompt, folder)


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    from . import _json_chat

    path = Path(session.path)
    found = _json_chat.document(path, NAME, "chatHistory", WHOLE_CAP, diagnostics)
    if found is None:
        return
    reader = _Reader(session, diagnostics)
    # the sub-agents and summaries' costs, kept before the history is read so that a
    # sub-agent is given where it ran: from the file's end where it is too big to parse,
    # and from its members read one at a time where it is broken, what broke them
    # counted as its listing counts it (a member after the history, out of the items)
    top = found.top
    if top is None:
        small = (stat_size(path) or 0) <= WHOLE_CAP
        top = found.members(diagnostics) if small else _after_history(path)
    reader.keep(top)
    yield from reader.items(found.items)
    yield from reader.left()


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the last `rows` chat items, found from the file's end (see
    base.py): the history closes right before `agentState`, and what follows it (the
    sub-agents kept, the summaries' costs) is read from the end as a big file's is. The
    item before them is read first, unshown, for the calls its outputs answer and its
    model. A whole read serves where the tail cannot give what it would: a kept sub-agent
    run or summary cost that no item read names (given where an earlier item ran it, or
    at the end where none does), an output of a call made before them, a model that
    only an earlier exchange names. (A dollar transaction repeated before them is counted
    again: Auggie writes one per exchange.)"""
    from . import _json_chat
    from .base import WholeRead

    path = Path(session.path or "")
    # one written on one line (another tool's copy) too: `{sessionId, …, chatHistory:
    # [{exchange}], agentState, …}`
    compact = _json_chat.Compact("sessionId", "exchange")
    found = _json_chat.last_messages(
        path, rows + 1, "chatHistory", then=_STATE[3:], compact=compact
    )
    after = _after_history(path, whole=True) if found is not None else None
    if found is not None and after is None:  # not laid out so: on one line?
        after = _compact_after_history(path)
    if found is None or after is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    primer, items = found[0], found[1:]
    exchanges = [_exchange(item) for item in found]
    models = [stripped(exchange.get("model_id")) for exchange in exchanges]
    if not models[0] and not all(models[1:]):
        raise WholeRead("an exchange's model is named before the items read")
    named = {as_str(exchange.get("request_id")) for exchange in exchanges}
    made = {
        _summary([as_dict(node) for node in as_list(e.get("request_nodes"))])[1]
        for e in exchanges
    }
    runs = (
        as_str(as_dict(r).get("tool_call_request_id"))
        for r in as_list(after.get("subAgents"))
    )
    costs = (
        as_str(as_dict(r).get("request_id"))
        for r in as_list(after.get("summarizations"))
    )
    if any(not run or run not in named for run in runs) or any(
        not cost or cost not in made for cost in costs
    ):
        raise WholeRead("a sub-agent run or summary cost of an earlier item")
    called = {call for exchange in exchanges for call, _ in _calls(exchange)}
    for exchange in exchanges[1:]:
        for raw in as_list(exchange.get("request_nodes")):
            node = as_dict(raw)
            if node.get("type") == _TOOL_RESULT:
                answers = as_str(
                    as_dict(node.get("tool_result_node")).get("tool_use_id")
                )
                if answers and answers not in called:
                    raise WholeRead("an output of a call made before the items read")
    reader = _Reader(session, Diagnostics())
    reader.keep(after)
    for _ in reader.items([primer]):  # its calls, model and sub-agents: not shown
        pass
    reader.event, reader.diagnostics = Emitter(session.id), diagnostics
    yield from reader.items(items)
    yield from reader.left()


# a top-level member's start as JSON.stringify(session, null, 2) writes it (a newline in a
# string is escaped, so only structure starts a line)
_MEMBER_START = re.compile(rb'\n  "([A-Za-z]+)": ')


_AFTER_HISTORY = (
    "subAgents",
    "summarizations",
    "subAgentCreditsUsed",
    "subAgentCostUsd",
)


def _compact_after_history(path: Path) -> dict[str, object] | None:
    """`_after_history(path, whole=True)` of a session written on one line: the members
    after its history, where all of them, `agentState` first, lie in its last bytes."""
    from . import _json_chat

    members = _json_chat.compact_after(path)
    if members is None or "agentState" not in members:
        return None
    return {name: members[name] for name in _AFTER_HISTORY if name in members}


@overload
def _after_history(path: Path) -> dict[str, object]: ...
@overload
def _after_history(path: Path, *, whole: bool) -> dict[str, object] | None: ...


def _after_history(path: Path, *, whole: bool = False) -> dict[str, object] | None:
    """`subAgents`, `summarizations`, `subAgentCreditsUsed` and `subAgentCostUsd` of a
    session too big to parse whole, from its last READ_LINE_CAP bytes (where Auggie
    writes them, after the history): one that starts before them, or does not decode, is
    left out; with `whole`, None where they do not all lie there (`agentState`, written
    before them, does not) or a member there does not decode."""
    try:
        _, block = files.tail_bytes(path, files.READ_LINE_CAP)
    except OSError:
        return None if whole else {}
    if whole and _STATE not in block:
        return None
    starts = list(_MEMBER_START.finditer(block))
    found: dict[str, object] = {}
    for index, match in enumerate(starts):
        name = match.group(1).decode()
        if name not in _AFTER_HISTORY:
            continue
        end = starts[index + 1].start() if index + 1 < len(starts) else None
        value = block[match.end() : end].rstrip()
        value = value.removesuffix(b"}").rstrip() if end is None else value
        try:
            found[name] = orjson.loads(value.removesuffix(b","))
        except orjson.JSONDecodeError:
            if whole:
                return None
            continue
    return found


class _Reader:
    """Translates chat items into events; a call's output comes in the next exchange's
    request nodes, paired by its `tool_use_id`."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.event = Emitter(session.id)
        self.diagnostics = diagnostics
        self.path = session.path or ""
        self.model = session.model
        self.tools: dict[str, str | None] = {}  # call id -> tool name
        self.done: dict[str, datetime] = {}  # call id -> when the call completed
        # a fork: the exchanges finished before it was made are copies of its source's
        self.forked = session.created if session.extra.get("fork") is True else None
        self.agent: str | None = None  # the embedded sub-agent being read
        self.runs: Counter[str] = Counter()  # the runs read of each sub-agent's name
        self.children: set[str] = set()  # the ids given the runs read: each its own
        # embedded sub-agents by the request id of the exchange that started them
        self.subagents: dict[str, list[object]] = {}
        # what each summary cost, by the request id its summary node names
        self.summaries: dict[str, list[object]] = {}
        self.updated = session.updated
        # the credits Auggie says its sub-agents spent, and those their kept runs bill
        self.subagent_credits = 0.0
        self.subagent_billed = 0.0
        # the same in dollars (runs billed in dollars), by the kept runs' transactions
        self.subagent_usd = 0.0
        self.subagent_billed_usd: dict[str, float] = {}
        self.billed_usd: set[str] = set()  # the dollar transactions counted so far

    def keep(self, top: dict[str, object]) -> None:
        """The session's sub-agents and summaries' costs, to give where they belong."""
        self.subagent_credits = as_credits(top.get("subAgentCreditsUsed"))
        self.subagent_usd = _dollars(top.get("subAgentCostUsd"))
        for raw in as_list(top.get("subAgents")):
            started_by = as_str(as_dict(raw).get("tool_call_request_id")) or ""
            self.subagents.setdefault(started_by, []).append(raw)
        for raw in as_list(top.get("summarizations")):
            made_by = as_str(as_dict(raw).get("request_id")) or ""
            self.summaries.setdefault(made_by, []).append(raw)

    def left(self) -> Iterator[Event]:
        """What no exchange kept names: sub-agents, then summaries' costs."""
        for runs in self.subagents.values():
            for raw in runs:
                yield from self.subagent(raw)
        self.subagents.clear()
        for costs in self.summaries.values():
            for raw in costs:
                yield from self.summarized(raw)
        self.summaries.clear()
        # `subAgentCreditsUsed` adds up each sub-agent run's own credits (its history's
        # `billing_metadata`, as `subAgents[]` keeps it): what no kept run bills (one
        # finished while the service kept no `subAgents[]`) is billed here, once
        unkept = as_credits(self.subagent_credits - self.subagent_billed)
        if unkept > 0.0001:
            alone: dict[str, JSONValue] = {"scope": "session", "summed": True}
            billed = Usage(credits=unkept)
            when = self.updated
            yield self.event("usage", when, estimated=True, usage=billed, extra=alone)
        self.subagent_credits = 0.0
        # `subAgentCostUsd`, the same for runs billed in dollars: what no kept run bills
        unkept_usd = self.subagent_usd - sum(self.subagent_billed_usd.values())
        if unkept_usd > 0.000001:
            extra: dict[str, JSONValue] = {
                "scope": "session",
                "summed": True,
                "app_cost_usd": unkept_usd,
            }
            yield self.event(
                "usage", self.updated, estimated=True, usage=Usage(), extra=extra
            )
        self.subagent_usd = 0.0
        self.subagent_billed_usd.clear()

    def summarized(self, raw: object) -> Iterator[Event]:
        """The tokens one summary cost (`summarizations[]`): billed by no exchange."""
        entry = as_dict(raw)
        if not entry:
            self.diagnostics.skip(self.path, 0, "not an object")
            return
        counted = _usage(entry, stripped(entry.get("model")) or self.model)
        credits = as_credits(entry.get("credits_consumed"))
        if credits:  # what the summary cost in Augment's credits
            counted = replace(counted, credits=credits)
        if counted.total or counted.credits:
            self.say_odd(entry)
            when = iso_time(entry.get("finishedAt"))  # when the summary was made
            yield self.emit("usage", when, estimated=when is None, usage=counted)

    def say_odd(self, usage: dict[str, object]) -> None:
        """Say a billed count no app writes (`odd_count`): `_usage` bills it as 0 (or
        its whole part). A session is one JSON document: the response is counted."""
        if any(odd_count(usage.get(key)) for key in _COUNTS):
            self.diagnostics.damage(self.path, 0, odd_in("response"))

    def items(self, items: Iterable[object]) -> Iterator[Event]:
        for raw in items:
            if not isinstance(raw, dict):
                self.diagnostics.skip(self.path, 0, "not an object")
                continue
            yield from self.item(raw)
            exchange = _exchange(raw)
            started_by = as_str(exchange.get("request_id"))
            if started_by and self.agent is None:
                calls = _calls(exchange)
                for child in self.subagents.pop(started_by, []):
                    yield from self.subagent(child, calls)

    def subagent(
        self, raw: object, calls: list[tuple[str, str | None]] | None = None
    ) -> Iterator[Event]:
        """A sub-agent's run that Auggie keeps inside its parent (`subAgents[]`), the
        spawn told by the call that started it: among `calls` (id, tool) of the exchange
        that did, the first left of the tool `sub-agent-<name>` (a guess: the bundle
        names its sub-agent tools so, and keeps the run by the exchange alone)."""
        entry = as_dict(raw)
        if not entry:
            self.diagnostics.skip(self.path, 0, "not an object")
            return
        name = stripped(entry.get("name")) or "sub-agent"
        call_id = None
        pending = calls if calls is not None else []
        for index, (called, tool) in enumerate(pending):
            if tool == f"sub-agent-{name}":
                call_id = called
                del pending[index]  # a second run of the same agent: the next call
                break
        child = self.child_id(name)
        extra: dict[str, JSONValue] = {"agent_name": name, "child_id": child}
        model = stripped(entry.get("model"))
        if model:
            extra["model"] = model
        history = as_list(entry.get("chatHistory"))
        task, _ = _first_prompt_and_folder(history)  # what the lead asked of it
        yield self.event(
            "subagent",
            iso_time(entry.get("finishedAt")),
            estimated=True,
            text=task or name,
            call_id=call_id,
            extra=extra,
        )
        self.agent = child
        try:
            yield from self.items(history)
        finally:
            self.agent = None

    def child_id(self, name: str) -> str:
        """A run's events' agent id, which its spawn names: its name, numbered from its
        second run (`explore-2`), each run a sub-agent of its own; past any number an
        agent really named so holds already (`explore-2` run before the second
        `explore`: that one is `explore-3`), the same on every read."""
        self.runs[name] += 1
        child = name if self.runs[name] == 1 else f"{name}-{self.runs[name]}"
        while child in self.children:
            self.runs[name] += 1
            child = f"{name}-{self.runs[name]}"
        self.children.add(child)
        return child

    def emit(
        self,
        kind: EventKind,
        time: datetime | None,
        *,
        estimated: bool = False,
        **fields: Unpack[EventFields],
    ) -> Event:
        """The next event, the embedded sub-agent's while one is read."""
        if self.agent is not None:
            fields["agent_id"] = self.agent
            counted = fields.get("usage")
            if counted is not None:
                self.subagent_billed += counted.credits
        return self.event(kind, time, estimated=estimated, **fields)

    def item(self, item: dict[str, object]) -> Iterator[Event]:
        exchange = _exchange(item)
        finished = iso_time(item.get("finishedAt"))
        requests = [as_dict(node) for node in as_list(exchange.get("request_nodes"))]
        responses = [as_dict(node) for node in as_list(exchange.get("response_nodes"))]
        started = _first_time(responses) or finished
        summary, made_by = _summary(requests)
        if item.get("isHistorySummary") or summary is not None:
            yield self.emit(
                "compaction", started, estimated=True, text=summary or "(summary)"
            )
            if self.agent is None:
                for raw in self.summaries.pop(made_by or "", []) if made_by else ():
                    yield from self.summarized(raw)
        if item.get("isHistorySummary"):
            return  # an item that is the summary alone, never sent as an exchange
        # 0.36.0 adds its summary as one more request node of the exchange under way,
        # whose prompt or tool output, answer and tokens are as any other's
        yield from self.request(exchange, requests, started)
        yield from self.response(exchange, responses, finished)
        if item.get("completed") is False:
            yield self.emit(
                "meta",
                finished,
                estimated=True,
                text="interrupted",
                extra={"interrupted": True},
            )

    def request(
        self,
        exchange: dict[str, object],
        nodes: list[dict[str, object]],
        time: datetime | None,
    ) -> Iterator[Event]:
        images = 0
        attached: list[str] = []
        for node in nodes:
            kind = node.get("type")
            if kind == _TOOL_RESULT:
                result = as_dict(node.get("tool_result_node"))
                call_id = as_str(result.get("tool_use_id"))
                done = self.done.pop(call_id or "", None)
                yield self.emit(
                    "tool_result",
                    done or time,
                    estimated=done is None,
                    text=_result_text(result),
                    tool=self.tools.get(call_id or ""),
                    call_id=call_id,
                    is_error=result.get("is_error") is True,
                )
            elif kind == _IMAGE:
                images += 1
            elif kind == _FILE:  # an attachment (a PDF), the file itself inside
                name = one_line(as_dict(node.get("file_node")).get("file_name"))
                attached.append(f"[file {name}]" if name else "[file]")
            elif kind not in (_TEXT, _IDE_STATE, _SUMMARY):
                self.diagnostics.unknown_type(f"request_node:{kind}")
        typed = _typed(exchange, nodes)
        text = "\n".join(([typed] if typed else []) + ["[image]"] * images + attached)
        if text:
            yield self.emit("user", time, estimated=True, text=text)

    def response(
        self,
        exchange: dict[str, object],
        nodes: list[dict[str, object]],
        finished: datetime | None,
    ) -> Iterator[Event]:
        pieces: list[str] = []
        thoughts: list[str] = []
        calls: list[dict[str, object]] = []
        usages: list[tuple[dict[str, object], datetime | None]] = []
        credits = dollars = 0.0
        answered = thought_at = None
        for node in nodes:
            kind = node.get("type")
            when = ms_time(node.get("timestamp_ms"))
            if kind == _ANSWER:
                piece = as_str(node.get("content"))
                if piece:
                    pieces.append(piece)
                    answered = answered or when
            elif kind == _THINKING:
                thinking = as_dict(node.get("thinking"))
                thought = (
                    stripped(thinking.get("content"))
                    or stripped(thinking.get("summary"))
                    or stripped(node.get("content"))
                )
                if thought:
                    thoughts.append(thought)
                    thought_at = thought_at or when
            elif kind == _TOOL_USE:
                calls.append(node)
            elif kind == _TOKENS:
                usages.append((as_dict(node.get("token_usage")), when))
            elif kind == _BILLING:  # what Augment charged for the exchange
                billing = as_dict(node.get("billing_metadata"))
                credits += as_credits(billing.get("credits_consumed"))
                transaction = as_str(billing.get("transaction_id"))
                if transaction and billing.get("usage_unit") == _IN_DOLLARS:
                    # billed in dollars: Auggie's own cost adds `cost_usd` up once
                    # per transaction
                    cost = _dollars(billing.get("cost_usd"))
                    if transaction not in self.billed_usd:
                        self.billed_usd.add(transaction)
                        dollars += cost
                    if self.agent is not None:  # a kept sub-agent run's dollars
                        self.subagent_billed_usd[transaction] = cost
            elif kind != _MAIN_TEXT:
                self.diagnostics.unknown_type(f"response_node:{kind}")
        if not usages and isinstance(exchange.get("token_usage"), dict):
            # an exchange that keeps its tokens on itself (one from Augment's service)
            usages.append((as_dict(exchange.get("token_usage")), None))
        model = stripped(exchange.get("model_id")) or self.model
        self.model = model
        if thoughts:
            yield self.emit(
                "thinking",
                thought_at or finished,
                estimated=thought_at is None,
                text="\n".join(thoughts),
            )
        # the whole answer; a blank one (Auggie writes "\n" before its calls) is none
        text = _said(exchange.get("response_text")) or _said("".join(pieces))
        if text:
            yield self.emit(
                "assistant", answered or finished, estimated=answered is None, text=text
            )
        for node in calls:
            use = as_dict(node.get("tool_use"))
            call_id = as_str(use.get("tool_use_id"))
            tool = as_str(use.get("tool_name"))
            if call_id is None and tool is None:
                self.diagnostics.skip(self.path, 0, "bad value")
                continue
            # when the model asked for it: Auggie saves the exchange before it runs its
            # calls, and stamps `started_at_ms` on the node later (a live view that took
            # that time would give the call again)
            when = ms_time(node.get("timestamp_ms")) or ms_time(
                use.get("started_at_ms")
            )
            yield self.emit(
                "tool_call",
                when or finished,
                estimated=when is None,
                tool=tool,
                call_id=call_id,
                extra={"input": shown_arguments(use.get("input_json") or {})},
            )
            if call_id:
                self.tools[call_id] = tool
                completed = ms_time(use.get("completed_at_ms"))
                if completed is not None:
                    self.done[call_id] = completed
        copied = (
            self.forked is not None and finished is not None and finished < self.forked
        )
        for usage, when in usages if not copied else ():
            counted = _usage(usage, model)
            if counted.total:
                self.say_odd(usage)
                if credits:  # the exchange's credits, on its first counted response
                    counted, credits = replace(counted, credits=credits), 0.0
                # ...and its dollars: the cost Augment billed, taken where the
                # catalogue has no price for the model
                extra: dict[str, JSONValue] = {"cost_usd": dollars} if dollars else {}
                dollars = 0.0
                yield self.emit(
                    "usage",
                    when or finished,
                    estimated=when is None,
                    usage=counted,
                    extra=extra,
                )
        if (credits or dollars) and not copied:  # billed, no token counted
            billed = Usage(model=model, credits=credits)
            # dollars with no tokens to price: Auggie's own figure is the cost
            extra = {"app_cost_usd": dollars} if dollars else {}
            yield self.emit(
                "usage", finished, estimated=True, usage=billed, extra=extra
            )
        if not calls and text:  # an answer that asks for no tool ends the turn
            yield self.emit("turn_end", finished, estimated=True)


def _calls(exchange: dict[str, object]) -> list[tuple[str, str | None]]:
    """The calls an exchange asked for: (id, tool)."""
    found = []
    for raw in as_list(exchange.get("response_nodes")):
        node = as_dict(raw)
        if node.get("type") == _TOOL_USE:
            use = as_dict(node.get("tool_use"))
            call_id = as_str(use.get("tool_use_id"))
            if call_id:
                found.append((call_id, as_str(use.get("tool_name"))))
    return found


def _said(value: object) -> str | None:
    """Text with something in it, as `shown_text` shows it; None for blank text."""
    return shown_text(value) if stripped(value) else None


def _first_time(nodes: list[dict[str, object]]) -> datetime | None:
    for node in nodes:
        when = ms_time(node.get("timestamp_ms"))
        if when is not None:
            return when
    return None


def _summary(nodes: list[dict[str, object]]) -> tuple[str | None, str | None]:
    """A compaction's summary, from the exchange that carries it, and the request id
    of the call that wrote it."""
    for node in nodes:
        if node.get("type") == _SUMMARY:
            summary = as_dict(node.get("history_summary_node"))
            text = shown_text(summary.get("summary_text"), keep_empty=False) or (
                shown_text(as_dict(node.get("text_node")).get("content"))
            )
            return text, as_str(summary.get("summarization_request_id"))
    return None, None


def _result_text(result: dict[str, object]) -> str:
    """A tool's output: its text, or its content nodes (1 text, 2 an image)."""
    text = shown_text(result.get("content"), keep_empty=False)
    if text:
        return text
    parts: list[str] = []
    for raw in as_list(result.get("content_nodes")):
        node = as_dict(raw)
        if node.get("type") == 1:
            part = shown_text(node.get("text_content"), keep_empty=False)
            if part:
                parts.append(part)
        elif node.get("type") == 2:
            parts.append("[image]")
    return "\n".join(parts)


def _dollars(value: object) -> float:
    """An amount in dollars as Auggie writes it (a number, or a `cost_usd` string a
    billing node carries); 0.0 for anything not a plain non-negative amount."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if math.isfinite(value) and value >= 0 else 0.0


# a response's counts, in `Usage`'s order
_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _usage(usage: dict[str, object], model: str | None) -> Usage:
    """One response's tokens; input without the cache, as Anthropic counts it (Auggie's
    own totals add the three)."""
    given, output, cache_read, cache_write = (as_int(usage.get(k)) for k in _COUNTS)
    return Usage(given, output, cache_read, cache_write, model=model).plausible()


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`auggie --resume <id>` in the session's folder: Auggie restores the session's
    model itself. No approval flag: Auggie keeps none in the session. None for an id
    Auggie would read as an option (`-p`) or refuses (a path separator in it)."""
    if not session.cwd or session.id.startswith("-") or re.search(r"[/\\]", session.id):
        return None
    return ResumePlan(
        argv=("auggie", "--resume", session.id),
        cwd=session.cwd,
        program="auggie",
        install_hint="npm install -g @augmentcode/auggie",
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `auggie` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`; or a start of one) that session, `--continue` (`-c`) the
    newest, a bare `--resume` a picker; `auggie session resume [<id>]` and `auggie session
    continue` (`sessions` its alias) as those flags."""
    for index in range(1, len(args) - 1):
        if args[index] in ("session", "sessions") and args[index - 1] not in _VALUED:
            command, rest = args[index + 1], list(args[index + 2 : index + 3])
            if command == "resume":
                flags = ["--resume", *[word for word in rest if word[:1] != "-"]]
                return opened_by_flags(
                    [args[0], *flags], RESUME_FLAGS, is_prefix=_is_id_start
                )
            if command == "continue":
                return Opened(latest=True)
            return None  # another of its subcommands (list, share, delete…)
    return opened_by_flags(args, RESUME_FLAGS, is_prefix=_is_id_start)


# options that take the next word as their value (as the bundle's own argv scan lists them)
_VALUED = frozenset(
    {
        "--log-file",
        "--log-level",
        "--augment-cache-dir",
        "--workspace-root",
        "--session-name",
        "--workspace",
        "-w",
        "-m",
        "--message",
        "--instruction-file",
        "--model",
    }
)


def _is_id_start(word: str) -> bool:
    return _ID_START.fullmatch(word) is not None
