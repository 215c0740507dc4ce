"""OpenHands CLI (OpenHands/OpenHands-CLI 1.x on the agent SDK): a folder per conversation.

The CLI keeps conversations in `~/.openhands/conversations/<id>/`
(`$OPENHANDS_CONVERSATIONS_DIR` moves that folder; else
`$OPENHANDS_PERSISTENCE_DIR/conversations`: openhands_cli/locations.py). The id is the
conversation UUID as 32 hex digits without dashes (the SDK's `get_persistence_dir` appends
`conversation_id.hex`). A folder holds `base_state.json` (the SDK's `ConversationState`
without events, rewritten whole: `agent.llm.model`, `workspace.working_dir`,
`execution_status`, `stats.usage_to_metrics`) and `events/`, one file per event,
`event-<index, 5 digits or more>-<event id>.json` (the SDK's first weeks wrote
`event-<index>.json`), and a `.eventlog.lock`. Each event is the pydantic model dumped with
its class name in `kind`: `MessageEvent`, `ActionEvent`, `ObservationEvent`,
`UserRejectObservation`, `AgentErrorEvent`, `ConversationErrorEvent`, `PauseEvent`,
`InterruptEvent`, `Condensation`, `CondensationSummaryEvent`, `SystemPromptEvent`,
`ConversationStateUpdateEvent`, … Times are `datetime.now().isoformat()`: local, naive.

Listing reads `base_state.json` and the events folder's names, then opens only the first
`_HEAD_FILES` event files (the created time; the title: OpenHands keeps none, its own list
shows the first user message, as we do) and the last `_TAIL_FILES` (the updated time): a
conversation of thousands of events costs the same. Its `bytes` is `base_state.json`'s size
(the file `path` names, which grows with the usage list), not the events': a stat of each
event file cost 0.17 s a listing at 50,000 files, paid at every `list` while a conversation
runs (the index parses it again at each event); the index's change detection stats
`base_state.json` alone, and nothing else uses the figure. Reading goes through the event files in
index order. An `ActionEvent`'s `action` (its `kind` dropped) is the tool call's `input`
(the file editor's `old_str`/`new_str` show as a diff); its `thought`, `reasoning_content`
and `thinking_blocks` come before it. An observation is an error where it says `is_error`
or, the terminal's, its `exit_code` is above 0 (-1: still running). The SDK writes no usage
on its events: `base_state.json` keeps, per LLM (`stats.usage_to_metrics[<usage id>]`, a
`Metrics` persisted whole), each response's usage in `token_usages` (`response_id`, the id
an `ActionEvent`, `MessageEvent` or `Condensation` carries as `llm_response_id`; the calls
of one response share it) and the sum in `accumulated_token_usage` (llm/utils/metrics.py,
conversation_stats.py). The list is in the order the responses came, as the events are (a
guess from the SDK's code, not seen in a real file). Each response's usage is given, dated,
after the first event that names it; a response no event names (a retry's, a title's) just
before the next one named, its time marked estimated; at the end those after the last one
named and what the total holds beyond the list (all of it where the SDK kept none, and a
response whose counts cannot be read: billed in the total once), one
summed `usage` event per LLM dated at the last event, its time marked estimated, with the
cost OpenHands recorded (`costs` names no response). litellm's `prompt_tokens` count the
cache reads in (the SDK's metrics.py says so; the writes too, a guess from litellm's
Anthropic usage), so they are taken out of `input`; where they exceed it they were counted
beside it (an ACP agent's, as metrics.py says) and stay apart. A `MessageEvent` from the
environment (the SDK's nudge to a stuck model, a stop hook's feedback) is input the app
injected; one from the user with a `sender` came from another agent. A reply in a
`MessageEvent` from the agent, or the `finish` tool's observation (`FinishObservation`),
ends a turn. `SystemPromptEvent`, `ConversationStateUpdateEvent` (but for a changed model: a
`meta` event), `CondensationRequest`, `TokenEvent` and hook logs are known and skipped
(`TokenEvent` holds token ids, not counts); other kinds (`ACPToolCallEvent`, an external
agent's call) are counted for doctor. A tool output the SDK cut short keeps its whole text
in a file of `observations/` beside `events/` (state.py), which is not read.

The listing watches `base_state.json`: the SDK rewrites it (whole, in place) at every field
change, since July 2026 (`leaf_event_id`, software-agent-sdk 657553455) at every event it
appends; an older SDK's listing is brought up to date at its next status change (a run's
start or end). The live view also watches the `events/` folder, whose mtime each new event
file changes. A read that meets `base_state.json` half-written reads it once more.
`show --tail` reads only the last event files (`read_last`), and before them as few as place
the usage (the nearest event naming each LLM's responses, but for a sub-agent's copied
metrics, which only its own events name); a window that changes the model, or whose usage's
place is further back than `_BACK_MIN` files, is read whole (50,000 event files:
`--tail 50 --nl` in 0.6 s instead of 5.3 s). Events are read in file order, every branch of
the SDK's event tree (`parent_id`) with them: a branch the conversation moved away from is
not told apart.

Never opened: `agent_settings.json` (the LLM's API key), `cli_config.json`, `mcp.json`,
`cloud/api_key.txt` and whatever else sits beside `conversations/`. OpenHands 0.x's own CLI
(`~/.openhands/sessions/<sid>/events/<n>.json`, the V0 server's layout) is not read. Nor are
sub-agents: the delegate tool's keep their own conversation folders in
`<conversation>/subagents/<id>/`, the task tool's (the CLI's default) too, deleted when the
task closes (openhands-tools delegate/impl.py, task/manager.py); their events are not shown
(a gap: no such folder has been seen). Their tokens count with the lead: the SDK copies each
one's metrics into the lead's `usage_to_metrics` as `task:<id>` or `delegate:<id>`, whose
responses no event of the lead names (given at the end, their times a guess); a reader of
those folders must not count them twice.

Resume: `openhands --resume <id>` in the conversation's working folder (the CLI takes its
workspace from `$OPENHANDS_WORK_DIR` or where it runs: locations.py, setup.py; it parses the
id with `uuid.UUID`, dashed or not: tui/textual_app.py); it has no model option, asks before
each action by default (`always-ask`), and `--always-approve` (`--yolo`) or `--llm-approve`
are never added; `--headless` approves everything, so it is never given.

Confirmed by the source (@611629e6 unless said): the folder and its env vars, the file
names, `base_state.json`'s fields, `token_usages` kept per response with its `response_id`
(the full `Metrics` is persisted; only a websocket update uses the snapshot without the
lists), the events' fields, naive local times (`datetime.now().isoformat()`), files written
in place, not atomically (io/local.py: a read can meet the newest event file empty; it is
counted as unreadable for that read), ACP agents counting cache reads beside the prompt
(metrics.py), the terminal's `exit_code` (tools/terminal/definition.py). Guesses: litellm's
`prompt_tokens` holding the cache writes too; the list order matching the events'; that the
CLI (whose agent is the SDK's `Agent`, not `ACPAgent`) writes no `ACPToolCallEvent`; no real
conversation was seen.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from .. import files, folders, freshness
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    iso_time,
    json_copy,
    new_usage,
    one_line,
    shown_arguments,
    shown_text,
    stripped,
)
from .base import Home, Location, Opened, ResumeFlags, WholeRead, opened_by_flags

NAME = "openhands"
TITLE = "OpenHands CLI"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "from source only: OpenHands/OpenHands-CLI @6b3838ce (locations.py, setup.py, "
    "conversations/store/local.py, argparsers/util.py, entrypoint.py, tui/textual_app.py, "
    "stores/agent_store.py: usage ids agent and condenser) and OpenHands/software-agent-sdk "
    "@611629e6 (conversation/persistence_const.py, event_store.py, state.py, "
    "conversation_stats.py, event/*, llm/utils/metrics.py, llm/utils/telemetry.py, "
    "io/local.py, agent/acp_agent.py, tools/terminal/definition.py); "
    "synthetic samples made by tests/data/openhands/make_fixtures.py; no real file seen"
)
ENV_VARS = ("OPENHANDS_CONVERSATIONS_DIR", "OPENHANDS_PERSISTENCE_DIR")
CLI = ("openhands",)
INSTALL_HINT = "uv tool install openhands --python 3.12"

BASE_STATE = "base_state.json"
EVENTS = "events"
# an id the CLI's `uuid.UUID(id)` takes: the folder's 32 hex digits, or dashed
_UUID = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
)
# how a running CLI names what it opens (openhands_cli/argparsers/util.py, entrypoint.py)
RESUME_FLAGS = ResumeFlags(resume=("--resume",))
_EVENT_NAME = re.compile(r"event-(\d{5,})(?:-[0-9a-fA-F-]{8,})?\.json")
_BASE_CAP = 32 * 1024 * 1024  # base_state.json keeps one line of metrics per response
_EVENT_CAP = 4 * 1024 * 1024  # a listing skips an event file bigger than this
_HEAD_FILES = 20  # event files a listing opens from the start, for the title
_TAIL_FILES = 5  # and from the end, for the last time
# read_last looks back at most this many files, or this many times the rows asked for
_BACK_MIN, _BACK_FILES = 512, 4
_BILLED = frozenset(
    {"MessageEvent", "ActionEvent", "Condensation", "CondensationSummaryEvent"}
)
_SKIPPED = frozenset(
    {
        "SystemPromptEvent",
        "ConversationStateUpdateEvent",
        "CondensationRequest",
        "TokenEvent",
        "LLMCompletionLogEvent",
        "HookExecutionEvent",
        "StreamingDeltaEvent",
    }
)


def locate(home: Home) -> Location:
    """`$OPENHANDS_CONVERSATIONS_DIR`, else `conversations/` in `$OPENHANDS_PERSISTENCE_DIR`
    or `~/.openhands`: the folder beside it holds the CLI's settings and keys."""
    persistence = home.env_dir("OPENHANDS_PERSISTENCE_DIR") or home.path / ".openhands"
    root = persistence / "conversations"
    said: str | None = None
    for variable in ("OPENHANDS_CONVERSATIONS_DIR", "OPENHANDS_PERSISTENCE_DIR"):
        value = home.env_dir(variable)
        if value is not None:
            said = f"{variable}={home.environ[variable]}"
            root = value if variable == "OPENHANDS_CONVERSATIONS_DIR" else root
            break
    return Location(root, said, keeps=(persistence,))


def scan(location: Location) -> Iterator[str]:
    """Each conversation's `base_state.json`: the events are read with it."""
    for entry in folders.entries(location.root, location.root):
        if entry.is_dir():
            state = os.path.join(entry.path, BASE_STATE)
            if folders.file_at(state):  # a folder so named hides it: said
                yield state


def event_files(folder: Path, diagnostics: Diagnostics | None = None) -> list[str]:
    """The conversation's event files in index order (a listing, nothing opened); a
    folder named as one (its event hidden) noted in `diagnostics`, as a scan notes one
    in a session's file's place."""
    found: list[tuple[int, str, str]] = []
    hidden: list[tuple[str, str]] = []
    for entry in folders.listing(folder / EVENTS):
        match = _EVENT_NAME.fullmatch(entry.name)
        if match is None:
            continue
        if entry.is_file():
            found.append((int(match.group(1)), entry.name, entry.path))
        elif entry.is_dir():
            hidden.append((folders.shown(entry.path), folders.FOLDER_NOT_FILE))
    found.sort()
    if diagnostics is not None:
        diagnostics.names_passed_over(NAME, hidden)
    return [path for _, _, path in found]


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    state = _state(path, diagnostics)
    if not state:
        return []
    names = event_files(path.parent, diagnostics)
    # a new event file (its time the updated one) changes the folder, not base_state.json
    # where an older SDK wrote it: the listing depends on the folder too
    freshness.note_depended(path.parent / EVENTS)
    head = names[:_HEAD_FILES]
    tail = names[max(len(head), len(names) - _TAIL_FILES) :]
    created = updated = None
    title = None
    for name in head:
        record = as_dict(files.read_json_file(name, _EVENT_CAP))
        moment = _time(record)
        created = created or moment
        updated = moment or updated
        if title is None and _is_user_message(record):
            title = one_line(_content_text(as_dict(record.get("llm_message"))))
    for name in reversed(tail):
        moment = _time(as_dict(files.read_json_file(name, _EVENT_CAP)))
        if moment is not None:
            updated = moment
            break
    agent = as_dict(state.get("agent"))
    extra: dict[str, JSONValue] = {}
    status = as_str(state.get("execution_status"))
    if status:
        extra["status"] = status
    try:
        size = path.stat().st_size  # not the event files': see the docstring
    except OSError:
        size = None
    return [
        Session(
            app=NAME,
            id=path.parent.name,
            path=str(path),
            cwd=stripped(as_dict(state.get("workspace")).get("working_dir")),
            title=title,
            created=created,
            updated=updated or created,
            model=stripped(as_dict(agent.get("llm")).get("model")),
            bytes=size,
            extra=extra,
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    state_path = Path(session.path)
    bills = _Bills(_metrics(state_path, diagnostics))
    names = event_files(state_path.parent, diagnostics)
    yield from _events(session, names, bills, None, diagnostics, full)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the last `rows` event files (see base.py), for `show --tail`: what
    the whole read carries into them is found in as few files before them as say it (the
    usage list's place, from the nearest events naming each LLM's responses; the time of
    the nearest dated event), at most `_BACK_MIN` files or `_BACK_FILES` times `rows`; past that, or where
    the rows change the model (the model before them is not known), the whole is read."""
    if session.path is None:
        raise WholeRead("no conversation")
    state_path = Path(session.path)
    names = event_files(state_path.parent, diagnostics)
    start = len(names) - rows
    if start <= 0:
        raise WholeRead("no more event files than asked for")
    window = names[start:]
    first_time: datetime | None = None
    for index, name in enumerate(window):
        record = as_dict(files.read_json_compacted(name, full=False))
        if index == 0:
            first_time = _time(record)
        if record.get("kind") == "ConversationStateUpdateEvent" and _model_change(
            record, None
        ):
            raise WholeRead("the model changes in the rows: the one before is unknown")
    bills = _Bills(_metrics(state_path, diagnostics))
    wanted = {n for n, llm in enumerate(bills.llms) if llm.responses and llm.led}
    before: datetime | None = None
    timed = first_time is not None
    back = max(_BACK_MIN, _BACK_FILES * rows)
    for name in reversed(names[max(start - back, 0) : start]):
        if not wanted and timed:
            break
        record = as_dict(files.read_json_compacted(name, full=False))
        if not timed and _time(record) is not None:
            before, timed = _time(record), True
        for number, past in bills.named(as_str(record.get("llm_response_id"))):
            if number in wanted:
                bills.given[number] = past
                wanted.discard(number)
    if (wanted or not timed) and start > back:
        raise WholeRead("what the rows carry over is further back")
    yield from _events(session, window, bills, before, diagnostics, full)


def _events(
    session: Session,
    names: list[str],
    bills: _Bills,
    last: datetime | None,
    diagnostics: Diagnostics,
    full: bool,
) -> Iterator[Event]:
    """The events of the event files `names`, usage placed by `bills`; `last`: the time
    of the nearest dated event before them."""
    emit = Emitter(session.id)
    model = session.model
    for name in names:
        record = as_dict(
            files.read_json_compacted(name, full=full, diagnostics=diagnostics)
        )
        if not record:
            continue
        moment = _time(record) or last
        last = moment
        kind = as_str(record.get("kind")) or "?"
        bill = bills.at(as_str(record.get("llm_response_id")), moment, emit)
        if kind == "MessageEvent":
            yield from _message(record, moment, emit, bill)
        elif kind == "ActionEvent":
            yield from _action(record, moment, emit)
            yield from bill
        elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
            yield from _observation(kind, record, moment, emit)
        elif kind == "ConversationErrorEvent":
            text = " ".join(
                filter(None, (as_str(record.get("code")), as_str(record.get("detail"))))
            )
            yield emit("error", moment, text=text or "conversation error")
        elif kind in ("PauseEvent", "InterruptEvent"):
            words = "paused" if kind == "PauseEvent" else "interrupted"
            yield emit("meta", moment, text=f"the user {words} the agent",
                       extra={"interrupted": True})  # fmt: skip
        elif kind in ("Condensation", "CondensationSummaryEvent"):
            summary = shown_text(record.get("summary"), keep_empty=False)
            extra: dict[str, JSONValue] = {}
            forgotten = as_list(record.get("forgotten_event_ids"))
            if forgotten:
                extra["forgotten"] = len(forgotten)
            yield emit("compaction", moment, text=summary, extra=extra)
            yield from bill
        elif kind == "ConversationStateUpdateEvent":
            changed = _model_change(record, model)
            if changed is not None:
                model = changed
                yield emit("meta", moment, text=f"model: {changed}",
                           extra={"model": changed})  # fmt: skip
        elif kind not in _SKIPPED:
            diagnostics.unknown_type(kind)
        if kind not in _BILLED:
            yield from bill  # a response another kind names: its usage still counts
    yield from bills.rest(last, emit)


def _message(
    record: dict[str, object],
    moment: datetime | None,
    emit: Emitter,
    bill: Iterator[Event],
) -> Iterator[Event]:
    message = as_dict(record.get("llm_message"))
    text = _content_text(message)
    source = record.get("source")
    if source in ("user", "environment"):
        # the environment's: the SDK's own words to the model (a nudge, a stop hook's
        # feedback: agent.py, local_conversation.py), in the user's role
        extra: dict[str, JSONValue] = {}
        sender = stripped(record.get("sender"))
        if source == "environment":
            extra["injected"] = True
        elif sender:
            extra["from_agent"] = sender  # a task another agent handed down
        if text:
            yield emit("user", moment, text=text, extra=extra)
        yield from bill
        return
    yield from _thinking(message, moment, emit)
    if text:
        yield emit("assistant", moment, text=text)
    yield from bill
    yield emit("turn_end", moment)


def _action(
    record: dict[str, object], moment: datetime | None, emit: Emitter
) -> Iterator[Event]:
    yield from _thinking(record, moment, emit)
    thought = _texts(record.get("thought"))
    if thought:
        yield emit("assistant", moment, text=thought)
    action = as_dict(record.get("action"))
    call = as_dict(record.get("tool_call"))
    tool = as_str(record.get("tool_name")) or as_str(call.get("name")) or "?"
    call_id = as_str(record.get("tool_call_id")) or as_str(call.get("id"))
    if action:
        arguments = json_copy({k: v for k, v in action.items() if k != "kind"})
    else:
        arguments = shown_arguments(call.get("arguments") or {})
    yield emit("tool_call", moment, tool=tool, call_id=call_id,
               extra={"input": arguments})  # fmt: skip


def _observation(
    kind: str, record: dict[str, object], moment: datetime | None, emit: Emitter
) -> Iterator[Event]:
    call_id = as_str(record.get("tool_call_id"))
    tool = as_str(record.get("tool_name"))
    extra: dict[str, JSONValue] = {}
    if kind == "AgentErrorEvent":
        text, error = as_str(record.get("error")) or "", True
    elif kind == "UserRejectObservation":
        reason = as_str(record.get("rejection_reason")) or ""
        text, error = f"rejected: {reason}".rstrip(": "), True
        extra["rejected"] = True
    else:
        observation = as_dict(record.get("observation"))
        text = _texts(observation.get("content"))
        # the terminal's `is_error` says it could not run the command; a command that
        # ran and failed says so by its exit code (-1: still running, a soft timeout)
        code = observation.get("exit_code")
        failed = isinstance(code, int) and not isinstance(code, bool) and code > 0
        error = observation.get("is_error") is True or failed
    yield emit("tool_result", moment, tool=tool, call_id=call_id, text=text,
               is_error=error, extra=extra)  # fmt: skip
    # the finish tool's own result (builtins/finish.py), known without its call
    if kind == "ObservationEvent" and (
        as_dict(record.get("observation")).get("kind") == "FinishObservation"
        or tool == "finish"
    ):
        yield emit("turn_end", moment, extra={"reason": "finish"})


def _thinking(
    record: dict[str, object], moment: datetime | None, emit: Emitter
) -> Iterator[Event]:
    reasoning = shown_text(record.get("reasoning_content"), keep_empty=False)
    if reasoning and reasoning.strip():
        yield emit("thinking", moment, text=reasoning)
    for block in as_list(record.get("thinking_blocks")):
        thought = shown_text(as_dict(block).get("thinking"), keep_empty=False)
        if thought and thought.strip() and thought != reasoning:
            yield emit("thinking", moment, text=thought)


_Tokens = tuple[
    int, int, int, int, int
]  # prompt, output, cache read, cache write, reasoning
_NONE: _Tokens = (0, 0, 0, 0, 0)
_COUNTS = (  # a `TokenUsage`'s counts, in `_Tokens`' order
    "prompt_tokens",
    "completion_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


class _Llm:
    """One LLM's metrics in base_state.json (`usage_to_metrics[<usage id>]`)."""

    __slots__ = (
        "cost",
        "led",
        "model",
        "odd",
        "odd_total",
        "responses",
        "total",
        "usage_id",
    )

    def __init__(self, usage_id: str, item: dict[str, object]) -> None:
        self.usage_id = usage_id
        # a sub-agent's metrics the task or delegate tool copied in (task/manager.py,
        # delegate/impl.py): its responses are named by the sub-agent's events only
        self.led = not usage_id.startswith(("task:", "delegate:"))
        total = as_dict(item.get("accumulated_token_usage"))
        self.model = _named(item.get("model_name")) or _named(total.get("model"))
        self.total = _tokens(total)
        # its total and its responses holding a count that is no count (`_damaged`):
        # said by a read
        self.odd_total = _damaged(total)
        self.odd = 0
        cost = item.get("accumulated_cost")
        self.cost: float | None = None
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost > 0:
            self.cost = float(cost)
        # each response's usage, in order: (response id, tokens, model)
        self.responses: list[tuple[str, _Tokens, str | None]] = []
        for entry in as_list(item.get("token_usages")):
            usage = as_dict(entry)
            response = as_str(usage.get("response_id"))
            tokens = _tokens(usage)
            # one count unreadable (NaN, 1e999: null): its bill would move tokens between
            # kinds and the rest bill them again; left out, the total bills it once
            if not response:
                continue
            if _damaged(usage):
                self.odd += 1
                continue
            if tokens == _NONE:
                continue
            model = _named(usage.get("model")) or self.model
            self.responses.append((response, tokens, model))
        if self.model is None and self.responses:
            # a sub-agent's metrics the SDK combined into a `Metrics()` ("default"):
            # billed to the model its responses name
            self.model = self.responses[-1][2]


def _named(value: object) -> str | None:
    """A model name, but for the SDK's placeholder of metrics no LLM made ("default")."""
    name = stripped(value)
    return None if name == "default" else name


def _metrics(state_path: Path, diagnostics: Diagnostics) -> list[_Llm]:
    state = _state(state_path, diagnostics)
    metrics = as_dict(as_dict(state.get("stats")).get("usage_to_metrics"))
    llms = [_Llm(str(key), as_dict(value)) for key, value in metrics.items()]
    for llm in llms:
        # left out of the bills, or billed as 0: said
        if llm.odd_total:
            diagnostics.damage(str(state_path), 0, odd_in("set of totals"))
        for _ in range(llm.odd):
            diagnostics.damage(str(state_path), 0, odd_in("response"))
    return llms


class _Bills:
    """The usage events of the responses `token_usages` lists, given in the list's order
    (the order the responses came in, as the events did): a response at the first event
    naming it (`llm_response_id`); the responses before it that no event named (a retry's,
    a title's) just before it, their times marked estimated; at the end, those after the
    last one named and what the total holds beyond the list (where the SDK kept none:
    all of it), with the LLM's recorded cost (`costs` names no response)."""

    def __init__(self, llms: list[_Llm]) -> None:
        self.llms = llms
        # per LLM: the list index of the responses given so far (read_last sets it)
        self.given = [0] * len(llms)
        # per LLM: response id -> the indexes it holds (an id listed twice: both)
        self.where: list[dict[str, list[int]]] = []
        for llm in llms:
            where: dict[str, list[int]] = {}
            for index, (response, _tokens, _model) in enumerate(llm.responses):
                where.setdefault(response, []).append(index)
            self.where.append(where)

    def named(self, response: str | None) -> list[tuple[int, int]]:
        """(LLM, index past the response's last entry) of each LLM that lists it."""
        if not response:
            return []
        return [
            (number, where[response][-1] + 1)
            for number, where in enumerate(self.where)
            if response in where and self.llms[number].led
        ]

    def at(
        self, response: str | None, moment: datetime | None, emit: Emitter
    ) -> Iterator[Event]:
        """The usage events of the first event naming `response`: made as they are
        given, after that event's own (numbered after them)."""
        bill = self._due(response)
        return (emit("usage", moment, estimated=guess, usage=u) for u, guess in bill)

    def _due(self, response: str | None) -> list[tuple[Usage, bool]]:
        bill: list[tuple[Usage, bool]] = []
        for number, past in self.named(response):
            if past <= self.given[number]:
                continue  # given at an earlier event of the response (parallel calls)
            llm = self.llms[number]
            tokens, named_model = _NONE, llm.model
            for index in range(self.given[number], past):
                entry, counts, model = llm.responses[index]
                if entry != response:
                    bill.append((_usage(counts, model), True))
                else:
                    tokens, named_model = _plus(tokens, counts), model
            bill.append((_usage(tokens, named_model), False))
            self.given[number] = past
        return bill

    def rest(self, last: datetime | None, emit: Emitter) -> Iterator[Event]:
        for number, llm in enumerate(self.llms):
            listed = _NONE
            for index, (_response, tokens, model) in enumerate(llm.responses):
                listed = _plus(listed, tokens)
                if index >= self.given[number]:
                    usage = _usage(tokens, model)
                    yield emit("usage", last, estimated=True, usage=usage)
            rest = _minus(llm.total, listed)
            if rest == _NONE and llm.cost is None:
                continue
            extra: dict[str, JSONValue] = {"summed": True, "usage_id": llm.usage_id}
            if llm.cost is not None:
                extra["cost_usd"] = llm.cost
            usage = _usage(rest, llm.model)
            yield emit("usage", last, estimated=True, usage=usage, extra=extra)


def _tokens(usage: dict[str, object]) -> _Tokens:
    """The counts of a `TokenUsage`; one below 0 (the SDK's model refuses them: a
    damaged or hostile file) is 0."""
    prompt, output, read_, write, reasoning = (
        max(as_int(usage.get(key)), 0) for key in _COUNTS
    )
    return (prompt, output, read_, write, reasoning)


def _damaged(usage: dict[str, object]) -> bool:
    """Whether a `TokenUsage` holds a count that is no count (null, a string, a float
    past an int, below 0): the SDK writes each as a plain int."""
    return any(
        key in usage and (as_int(usage[key]) != usage[key] or as_int(usage[key]) < 0)
        for key in _COUNTS
    )


def _plus(a: _Tokens, b: _Tokens) -> _Tokens:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])


def _minus(a: _Tokens, b: _Tokens) -> _Tokens:
    """What `a` holds beyond `b`, never below 0 (a total the SDK restored short)."""
    return (
        max(a[0] - b[0], 0),
        max(a[1] - b[1], 0),
        max(a[2] - b[2], 0),
        max(a[3] - b[3], 0),
        max(a[4] - b[4], 0),
    )


def _usage(tokens: _Tokens, model: str | None) -> Usage:
    """litellm's `prompt_tokens` count the cache reads (and, as taken here, the writes) in:
    they are taken out of input. Where the reads and writes exceed the prompt, they were
    counted beside it (an ACP agent's usage: the SDK's metrics.py `cache_hit_rate` takes
    them so): input is the whole prompt, not 0."""
    prompt, output, read_, write, reasoning = tokens
    cached = read_ + write
    fresh = prompt - cached if cached <= prompt else prompt
    return new_usage(fresh, output, read_, write, reasoning, model)


def _state(path: Path, diagnostics: Diagnostics) -> dict[str, object]:
    """base_state.json: read once more where the first read found no JSON object, as the
    SDK rewrites it in place (truncated, then written) at every event; a second failure
    is counted."""
    first = files.read_json_counted(path, _BASE_CAP, Diagnostics())
    if isinstance(first, dict):
        return first
    return as_dict(files.read_json_counted(path, _BASE_CAP, diagnostics))


def _model_change(record: dict[str, object], model: str | None) -> str | None:
    if record.get("key") != "agent":
        return None
    changed = stripped(as_dict(as_dict(record.get("value")).get("llm")).get("model"))
    return changed if changed and changed != model else None


def _is_user_message(record: dict[str, object]) -> bool:
    return record.get("kind") == "MessageEvent" and record.get("source") == "user"


def _time(record: dict[str, object]) -> datetime | None:
    return iso_time(record.get("timestamp"), naive="local")


def _content_text(message: dict[str, object]) -> str:
    return _texts(message.get("content"))


def _texts(content: object) -> str:
    """The text items of a content list, joined; an image is named, not shown. Plain text
    (not a list, as the SDK writes it) is taken as it is, rather than lost."""
    if isinstance(content, str):
        return shown_text(content) or ""
    parts: list[str] = []
    for item in as_list(content):
        block = as_dict(item)
        if block.get("type") == "image":
            parts.append("[image]")
            continue
        text = shown_text(block.get("text"))
        if text:
            parts.append(text)
    return "\n".join(parts)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`openhands --resume <id>` in the conversation's working folder: the CLI takes its
    workspace from the folder it runs in. No model option exists; the approval flags
    (`--always-approve`, `--llm-approve`) are never added, so it asks as it does by default."""
    if not session.cwd or _UUID.fullmatch(session.id) is None:
        return (
            None  # the CLI resumes a UUID only (`uuid.UUID(id).hex` names the folder)
        )
    return ResumePlan(
        argv=("openhands", "--resume", session.id),
        cwd=session.cwd,
        program="openhands",
        install_hint=INSTALL_HINT,
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `openhands` has open: `--resume <id>` (a UUID, dashed or not: the
    folder is its hex), `--resume --last` its latest, a bare `--resume` a list to pick from."""
    if "--last" in args[1:] and any(
        word == "--resume" or word.startswith("--resume=") for word in args[1:]
    ):
        return Opened(latest=True)
    opened = opened_by_flags(args, RESUME_FLAGS, _is_conversation_id)
    if opened is not None and opened.session_id is not None:
        return Opened(uuid.UUID(opened.session_id).hex)
    return opened


def _is_conversation_id(word: str) -> bool:
    try:
        uuid.UUID(word)
    except ValueError:
        return False
    return True
