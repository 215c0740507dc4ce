"""The values every source translates into: Session, Event, Usage.

Frozen, IO-free values. Identity, merging and de-duplication belong to the index and
to `api`; a source only says what one file told it. Nothing here is shaped after one
app's format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
Extra: TypeAlias = Mapping[str, JSONValue]

EventKind = Literal[
    "user",  # typed input
    "assistant",  # what the model said
    "thinking",
    "tool_call",
    "tool_result",
    "usage",
    "turn_end",
    "compaction",
    "subagent",  # a spawn: the child session id, agent type, description
    "error",  # API or tool failure
    "meta",  # model, mode or branch changes
]
EVENT_KINDS: tuple[EventKind, ...] = (
    "user",
    "assistant",
    "thinking",
    "tool_call",
    "tool_result",
    "usage",
    "turn_end",
    "compaction",
    "subagent",
    "error",
    "meta",
)


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one model response (or a sum of them).

    `input_tokens` excludes cache reads and writes, whatever the app's own convention:
    sources convert, so sums across apps mean the same thing.

    `credits`: what the app billed in its own credits, where it writes them (a unit of
    that app alone: never in `total`, never priced, and never added to another app's).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    model: str | None = None
    credits: float = 0.0

    @property
    def total(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.model if self.model == other.model else (self.model or other.model),
            self.credits + other.credits,
        )

    def plausible(self) -> Usage:
        """This response's usage with each count that no response can have (negative,
        or over MAX_RESPONSE_TOKENS: a broken file) taken as 0, so that one broken value
        cannot swamp, or overflow, a sum; credits too (negative, not finite, or over
        MAX_RESPONSE_CREDITS)."""
        credits = self.credits
        if not 0 <= credits <= MAX_RESPONSE_CREDITS:  # NaN fails both
            return replace(self, credits=0.0).plausible()
        most = MAX_RESPONSE_TOKENS
        # spelled out, not a generator: `usage` asks twice for every response it counts
        if (
            0 <= self.input_tokens <= most
            and 0 <= self.output_tokens <= most
            and 0 <= self.cache_read_tokens <= most
            and 0 <= self.cache_write_tokens <= most
            and 0 <= self.reasoning_tokens <= most
        ):
            return self
        counts = (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.reasoning_tokens,
        )
        given, made, read, written, reasoning = (
            count if 0 <= count <= MAX_RESPONSE_TOKENS else 0 for count in counts
        )
        return Usage(given, made, read, written, reasoning, self.model, credits)


# Ten billion: a thousand times the largest context window of 2026; one model response
# never reports more, in any of its counts.
MAX_RESPONSE_TOKENS = 10**10
# A million: no app bills one response (or one session's total) anywhere near as many credits
MAX_RESPONSE_CREDITS = 10**6


@dataclass(frozen=True, slots=True)
class Session:
    """What one file (or one database row) says about one session.

    Every field but `app` and `id` may be unknown (None). Several files can speak of
    the same session (a transcript, a title index, a state database); the index merges
    them field by field, higher `precedence` first.
    """

    app: str
    id: str
    path: str | None = None  # the file, or "<db path>#<table>/<id>", it came from
    cwd: str | None = None
    branch: str | None = None
    title: str | None = None
    created: datetime | None = None
    updated: datetime | None = None
    model: str | None = None
    effort: str | None = None
    permission_mode: str | None = None
    cli_version: str | None = None
    bytes: int | None = None
    parent_id: str | None = (
        None  # set for sub-agents; a fork is the user's own session (extra names its origin)
    )
    agent_type: str | None = None
    precedence: int = 0
    listed: bool = True  # False: only fills in fields of a session another file lists
    extra: Extra = field(default_factory=dict)


# the fields a lower-precedence fragment fills in where a higher one says nothing; the
# others are merged by rule (identity, precedence, `listed`, `extra`)
FILLED_FIELDS = tuple(
    f.name
    for f in fields(Session)
    if f.name not in ("app", "id", "precedence", "listed", "extra")
)


def superseded(app: str, old_id: str, by: str) -> Session:
    """A fragment saying that session `old_id` is `by` now (a copy the app made of it
    replaced it): `merge` then keeps the old one out of the listing."""
    return Session(
        app=app, id=old_id, precedence=-10, listed=False, extra={"superseded_by": by}
    )


def merge(fragments: list[Session]) -> Session:
    """One session from everything several files say of it: higher precedence (among
    equals the newer, `_standing`) wins per field and per `extra` key; listed if any
    fragment is, unless one says another session supersedes it
    (`extra["superseded_by"]`). (The index does the same on the stored encodings:
    `views.records.merge_states`.)"""
    if len(fragments) == 1:
        return fragments[0]
    ordered = sorted(fragments, key=_standing, reverse=True)
    values = {
        name: next((v for s in ordered if (v := getattr(s, name)) is not None), None)
        for name in FILLED_FIELDS
    }
    extra: dict[str, JSONValue] = {}
    for fragment in reversed(ordered):
        extra.update(fragment.extra)
    spawns = [s.extra.get(SPAWN_TYPES) for s in reversed(ordered)]
    if sum(isinstance(types, dict) for types in spawns) > 1:
        extra[SPAWN_TYPES] = joined_spawns(spawns)
    first = ordered[0]
    return Session(
        app=first.app,
        id=first.id,
        precedence=first.precedence,
        # a session another replaced (a copy the app made of it) is not listed beside it
        listed=any(s.listed for s in ordered) and "superseded_by" not in extra,
        extra=extra,
        **values,
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _standing(session: Session) -> tuple[int, bool, int, str]:
    """Which fragment speaks first (highest first): the higher precedence; among equals
    the one written last (to the millisecond, as the index stores it), then the path: one
    order whatever order the files were read in (a warm refresh gives the file read
    again first, a cold one the scan's order)."""
    moment = session.updated
    written = 0
    if moment is not None:
        written = (moment.astimezone(UTC) - _EPOCH) // timedelta(milliseconds=1)
    return (session.precedence, moment is not None, written, session.path or "")


# what a lead's spawn calls asked for, key -> type (see `typed_by_leads`); where several
# of its files say, each adds what it alone holds (a newer journal, older chunks)
SPAWN_TYPES = "spawn_types"


def joined_spawns(maps: Sequence[object]) -> dict[str, JSONValue]:
    """The spawn types of several fragments, lowest precedence first: a key the higher
    names wins."""
    joined: dict[str, JSONValue] = {}
    for types in maps:
        if isinstance(types, dict):
            joined.update(types)
    return joined


def typed_by_leads(sessions: Mapping[str, Session]) -> dict[str, Session]:
    """One app's merged sessions by id, each sub-agent whose files name no type but say
    which of its lead's calls started it (`extra["spawn_key"]`) typed as that lead (its
    `parent_id`) says its calls asked (`extra["spawn_types"]`: key -> type): a lead that
    grows types its sub-agents, none of their files read again. (The index does the same
    on the stored rows: `indexrows`.)"""
    typed = dict(sessions)
    for key, session in sessions.items():
        spawn = session.extra.get("spawn_key")
        if not isinstance(spawn, str) or session.parent_id is None:
            continue
        lead = sessions.get(session.parent_id)
        types = lead.extra.get("spawn_types") if lead is not None else None
        found = types.get(spawn) if isinstance(types, dict) else None
        typed[key] = replace(
            session, agent_type=found if isinstance(found, str) else None
        )
    return typed


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a session, in the one closed set of kinds.

    What each kind carries (sources fill these the same way, whatever the app):

    - user / assistant / thinking: `text`. Input that another agent sent (a task handed
      down, a report sent up) rather than a person typed is a user event with
      `extra["from_agent"]`, the sender's name (a sub-agent's session read on its own:
      "the lead", for each prompt its file holds).
    - tool_call: `tool` (the app's tool name), `call_id`, `extra["input"]` (the arguments as
      parsed JSON, or a string); `text` only when the input is not JSON (a raw patch).
      Arguments keep the app's own names: views/diffs.py knows the names edits go by.
      `extra["virtual"]` True for a call a script ran rather than the model (Claude
      Code's REPL), `extra["ran_by"]` the script's own call where the app names it; its
      result carries `extra["virtual"]` too. `extra["waits"]` True for a lead's call
      that waits for its sub-agents launched in the background (Codex's `wait_agent`):
      the live status takes the lead as waiting on every one not done while it is open.
    - tool_result: `call_id`, `text` (the output flattened to text), `is_error`;
      `extra["launched"]` when it only says a sub-agent started in the background (the
      spawning call returned at once; the sub-agent ends later). `extra["output_span"]`
      ([start, end], character offsets into `text`) where the app wrapped the output in
      lines for the model (the command again, its folder): the views show that span
      first, then `extra["output_notes"]` (the wrapping's lines that say something).
      `extra["model_text"]`: what the model was given, where the app shows the person
      another text (Copilot's diff beside "File … updated"); absent where they are equal.
    - usage: `usage`, one event per billed model response after the app's de-duplication;
      its `time` is the response's last line. `extra["app_cost_usd"]`: what the app itself
      recorded as the cost of what the event counts, where its token counts cannot be
      priced (rough counters beside an exact running cost); `usage` takes it over a price.
      `extra["cost_usd"]`: what the app recorded as the cost (from its own prices), which
      `usage` takes only where its catalogue has no price, and only above 0.
      `extra["summed"]`: True where the app keeps only totals and the event adds up
      several responses (a session's counters): priced with no long-context tier, as no
      single request's prompt is known.
      `extra["unfinished"]`: True on the usage a read ended on whose response may still
      be written on (Qwen Code's fragments of one uuid, nothing after it that ends it):
      `follow` holds it back until a read finds it ended, or following ends.
    - turn_end: the model finished its turn (`extra["reason"]` if the app says why).
      `extra["calls_later"]` True where it is read from an answer whose app writes a
      response's tool calls only once they have run (Gemini CLI): the live status asks
      the CLI's processes whether a tool runs.
    - compaction: `text` is the summary when the app keeps one.
    - subagent: a spawn. `call_id` of the spawning tool call, `text` the description,
      `extra["child_id"]` the child session id, `extra["agent_type"]`, and
      `extra["agent_name"]` where the app names its sub-agents (a task name);
      `extra["observer"]` True for an agent the app starts beside another to watch it
      (Claude Code's observers), not one given work. `extra["wait_unwritten"]` True where
      the spawn returns at once and the lead's app writes its later calls (a wait on the
      sub-agent among them) only once they have run (gptme): the live status then takes
      the lead, mid-turn, as waiting on it. A live
      follow that read the spawn before the child's file appeared gives it again, the
      same `call_id`, once the file names the child: the views print it once.
    - error: `text` says what failed (API error, crash, aborted turn).
    - meta: `text` says what changed; `extra` holds it ("model", "permission_mode", "branch", "cwd").
      A background sub-agent's end, as the app notes it to the lead: `extra["subagent_status"]`
      ("done" or "failed"), the spawning call's `call_id` and/or `extra["child_id"]`.
    - any kind: `extra["asks"]` "approval" (the app waits for the user to allow the call;
      `tool` names it) or "answer" (it put a question to the user) when the app records
      the request; a meta event with `extra["answered"]`, or anything the agent does
      next, settles it. A sub-agent's request its lead's file records carries the
      sub-agent's `extra["agent_type"]` and, where the file says it, `extra["asker_id"]`.

    Events of a sub-agent carry its id in `agent_id` (None for the lead agent); a big
    payload elided by files.py is summarised in `text` ("image, 3.1 MB").
    """

    session_id: str
    seq: int
    kind: EventKind
    time: datetime | None = None
    time_estimated: bool = False
    agent_id: str | None = None  # None for the lead agent
    text: str | None = None
    tool: str | None = None
    call_id: str | None = None
    is_error: bool = False
    usage: Usage | None = None
    extra: Extra = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ResumePlan:
    """How to reopen a session: the argv to run, where, and what was held back."""

    argv: tuple[str, ...]
    cwd: str
    program: str  # the executable that must be on PATH
    # the command that installs it, one line to paste ("" where the app has none), and
    # what to say beside it: another way (in backticks), or how to get it without one
    install_hint: str
    notes: tuple[str, ...] = ()
    withheld: tuple[
        str, ...
    ] = ()  # permission flags left out because they loosen the default
    # other names a running copy of the program shows (an older name a command kept)
    process_names: tuple[str, ...] = ()
    # the argv names the session's file itself: the app opens it where it lies (in a
    # copied home too), where an id is looked up in the app's folder of the user's home
    opens_file: bool = False
    # a recorded mode looser than the CLI's default that the app restores itself and no
    # flag lowers (`autonomy level high`): `resume` refuses it unless --keep-permissions
    restores_looser: str = ""
    install_note: str = ""
    # why sessdex cannot tell whether the app restores `restores_looser` (a file it
    # saves it in could not be read): refused all the same, said so
    looser_unsure: str = ""
