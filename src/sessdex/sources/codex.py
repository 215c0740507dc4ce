"""OpenAI Codex CLI: rollout JSONL files (plain or `.jsonl.zst`), a state SQLite index, a title index.

What Codex writes, under `$CODEX_HOME` (default `~/.codex`): one rollout per thread,
`sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl` (archived ones flat in
`archived_sessions/`; cold ones may be rewritten as `.jsonl.zst`, and where both exist the
plain file wins). Each line is `{timestamp, type, payload}` (+ `ordinal` since 0.17x); the
oldest files (mid-2025) are bare items without that envelope or any per-line time. The
state database `state_<n>.sqlite` (WAL; in `$CODEX_SQLITE_HOME` when set) caches one
`threads` row per thread plus `thread_spawn_edges`; `session_index.jsonl` holds the names
the TUI gives threads (last line per id wins). The TypeScript CLI that came before (2025)
kept a conversation as one JSON document flat in `sessions/` (`_codex_json`): listed and
read, with no resume command (today's `codex resume` cannot open them).

The reader lives in `_codex_read`, shared value readers in `_codex_values`.

What we read, to list: the first `session_meta` (identity, cwd, branch, version, parent),
the newest `turn_context` (model, effort, approval and sandbox; read from the tail, else the
head), the first human prompt (a fallback title), the last line's time; the newest state db
(opened only through `databases.open_sqlite`, tolerant of missing columns); the title index.
The tail is searched unsplit, backwards, for the keys it can answer; head lines are parsed
only where they hold a key, and only until nothing further can change the listing.
Several fragments describe one thread; their precedence gives the merge: `threads.name` >
`session_index.jsonl` > `threads.title` (only the first prompt) > the rollout's first prompt
for the title, and the rollout > the db row for every other field. A `threads.source` (or
`session_meta.source`) that is a JSON object marks a sub-agent: `parent_id` comes from it or
from `thread_spawn_edges`. Forks keep `parent_id` empty (they are the user's own threads)
and name their origin in `extra["forked_from_id"]`. So does a `/side` chat (0.171's TUI: an
attached thread, `session_meta.attached_thread`, the db's `attached_thread_parent_id` and
`thread_source: tui_side_chat`), whose rollout copies nothing of its owner and opens with
Codex's "Side conversation boundary." note: harness text, not the user's words. A side chat
cannot be renamed, and Codex names it first after its owner: its own question titles it,
above any name, and one with no question says so, not its owner's title.

Reading: `event_msg` `user_message` (or paginated `item_completed` `UserMessage`) is the
human's prompt (with its pictures: `images` by URL and `file_ids` uploaded, in the order
`image_order` gives, then `local_images`; its recordings, `audio` and `local_audio`), and
the `response_item` user message carrying the same text is its echo; the assistant's
text, reasoning and compaction are also written twice (a response item and a UI event),
in either order: each is emitted once. A reasoning or message item whose words are only
its `encrypted_content` (kept for the model: `"summary":[]`) reads as a stand-in that
says so, with its size (`[reasoning: encrypted, 1.2 KB]`), unless its twin has the
words; a recording in OpenAI's nested shape (`input_audio: {data, format}`) as its
format and size, never its base64. Harness context (`<environment_context>`,
`# AGENTS.md`, `<permissions instructions>`, developer messages, …) is not a user event.
Forks and sub-agents replay their parent's lines after their own `session_meta`: only the
first `session_meta` defines identity, and the replay is skipped for events and usage. Its
end is `subagent_history_start_ordinal` where lines carry ordinals; `history_base` (0.154+)
means nothing was copied (a thread reverted to an earlier turn goes on in a new rollout
whose base names the older file of the same thread holding the kept turns: the new file
is the one listed, as the state db's `rollout_path` names it, and it is read after the
kept part of the older files, `_codex_lineage`; what the revert undid is one `meta`
event, its spending still billed); otherwise the replay is the run of lines that match the parent's
rollout (by ids, call ids, texts and token totals), or, with the parent gone, the lines
stamped within the replay's first second. Messages between agents (`agent_message` items,
before them top-level `inter_agent_communication` lines) are input to the agent that got
them, marked `from_agent` with their sender, without the "Message Type: … Payload:"
header 0.17x puts before what was said; a voice session's `realtime_item` transcript segments are what was said; a
`model_reroute` (the provider answered with another model) is a model change, for usage too.

Usage: `event_msg` `token_count` holds the thread's cumulative `total_token_usage` and the
last request's `last_token_usage`; one usage event per count whose total moved (Codex often
writes the same count twice), from `last_token_usage`, else the increase of the total.
Codex counts cached (and cache-write) tokens inside `input_tokens`: we subtract them.
`reasoning_output_tokens` becomes `reasoning_tokens`; it is part of `output_tokens` in Codex
and stays there (output is what Codex reports). `token_usage_record` lines (0.17x) repeat
the same numbers per response and are ignored.

Ignored, on purpose: `world_state` (harness context snapshots), retained answers and risk
scores, tool declarations, hooks, tool outcome UI events that
repeat a response item (`exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`, …), turn
starts, settings echoes, review and goal bookkeeping (the lists in `_codex_read`).
`exec_command_end` lines, which repeat the command's output three times, are passed over
before they are parsed, except while a fork's copy of its parent is matched.
Never read: `auth.json`, `history.jsonl` (lags the rollouts), the other SQLite files.
"""

from __future__ import annotations

import bisect
import errno
import functools
import itertools
import os
import re
import sqlite3
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from .. import databases, files, folders, freshness
from ..bytesearch import find, rfind
from ..diagnostics import Diagnostics, read_failed
from ..hints import named
from ..model import Event, JSONValue, ResumePlan, Session
from . import _codex_json
from ._codex_read import read_events
from ._codex_values import (
    EPOCH,
    ROLLOUT_ID,
    TIMERS_SUFFIX,
    agent_named,
    as_dict,
    as_int,
    as_str,
    effort_of,
    envelope,
    epoch,
    event_prompt,
    harness_line,
    has_origin,
    json_text,
    lineage_of,
    message_text,
    one_line,
    parse_time,
    permission_mode,
    read_errors,
    rollout_id,
    rollout_names,
    sandbox_of,
    segment_id,
    tag,
)
from .base import (
    DroppedLine,
    Home,
    Location,
    Opened,
    SessionFollow,
    UsageRecord,
    UsageScan,
    is_uuid,
)

NAME = "codex"
TITLE = "OpenAI Codex CLI"
CHECKED_WITH = (
    "codex-cli 0.146 - 0.171.0; the TypeScript codex-cli's JSON sessions from its source; "
    "resume checked against 0.171.0's --help; 0.171.0's content and response items from "
    "its `app-server generate-ts`, its rollout line and event types from its binary, "
    "checked against the event types openai/codex's rollout policy keeps; 0.171.0 is "
    "still the newest release (npm, 2026-12-07)"
)
NEWEST_CHECKED = "0.171.0"  # doctor names versions past it
# `codex resume <id>` finds the rollout by its id under CODEX_HOME from any folder
# (codex-rs tui: `find_thread_path_by_id_str`; only the picker and `--last` keep to the
# folder, `--all` lifts that), and asks which folder to work in where the two differ
# (`resolve_cwd_for_resume_or_fork`)
RESUMES_ANYWHERE = True
# its sub-agents are merged in among the lead's events by time (`_merge`)
SUBAGENTS_BY_TIME = True
ENV_VARS = ("CODEX_HOME", "CODEX_SQLITE_HOME")
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("codex",)
SCAN_NOTED = True  # locate reads the environment, scan only lists (see base.py)
PROGRAM = "codex"
INSTALL_HINT = "npm install -g @openai/codex"

# Which fragment wins a field when several files describe one thread (higher wins).
# A side chat cannot be renamed: each name Codex gives it is automatic, the first one its
# owner's, copied as it opens, so its own question titles it above them all.
_PRECEDENCE_SIDE_TITLE = 45
_PRECEDENCE_NAME = 40  # threads.name: the user's or the TUI's title
_PRECEDENCE_INDEX = 30  # session_index.jsonl thread_name, thread_name_updated events
_PRECEDENCE_DB_TITLE = 25  # threads.title: only the first prompt
_PRECEDENCE_ROLLOUT = 20  # the rollout itself (+1, +2: the files reverts started)
_PRECEDENCE_DB = 10  # the rest of the threads row (a cache of the rollouts)

_STATE_DB = re.compile(r"state_(\d+)\.sqlite")
_STRICT_APPROVALS = ("on-request",)
_STRICT_SANDBOXES = ("read-only", "workspace-write")
_APPROVALS = (*_STRICT_APPROVALS, "never")  # all `-a` takes since codex-cli 0.149
# Older policies `-a` now rejects ("invalid value"): `untrusted` moved to a folder's
# trust_level, and config reads `on-failure` as `on-request`, which stands in for both.
_RETIRED_APPROVALS = ("untrusted", "on-failure")
# options of `codex`, `codex exec` and `codex resume` that take a value (0.171's --help)
_VALUE_OPTIONS = frozenset(
    {
        *("-c", "--config", "-m", "--model", "-p", "--profile", "-s", "--sandbox"),
        *("-a", "--ask-for-approval", "-C", "--cd", "-i", "--image", "--add-dir"),
        *("--enable", "--disable", "--local-provider", "--remote"),
        *("--remote-auth-token-env", "-o", "--output-last-message", "--output-schema"),
        "--color",
    }
)
# what Codex runs a folder it does not trust with: the read-only preset
_UNTRUSTED_DEFAULTS = ("on-request", "read-only")
_ROLLOUT_DIRS = ("sessions", "archived_sessions")  # under CODEX_HOME
_SANDBOXES = (*_STRICT_SANDBOXES, "danger-full-access")
_CWD_TAG = re.compile(r"<cwd>([^<]+)</cwd>")
_APPROVAL_TAG = re.compile(r"<approval_policy>([^<]+)</approval_policy>")
_SANDBOX_TAG = re.compile(r"<sandbox_mode>([^<]+)</sandbox_mode>")
# Head lines worth parsing while listing (they hold one of these); the rest are passed
# over unparsed. Each is searched for through a stretch of lines at once (`_head_lines`).
_HEAD_KEYS = (
    b'"session_meta"',
    b'"turn_context"',
    b"user_message",
    b"UserMessage",
    b'"user"',
)


@dataclass(frozen=True, slots=True)
class CodexLocation(Location):
    """The Codex home, plus the folder of its state database when `CODEX_SQLITE_HOME` moves it."""

    sqlite_home: Path | None = None


# --- listing ---------------------------------------------------------------------------------


def locate(home: Home) -> Location:
    root_override = home.env_dir("CODEX_HOME")
    sqlite_override = home.env_dir("CODEX_SQLITE_HOME")
    named = [
        f"{name}={value}"
        for name, value in (
            ("CODEX_HOME", root_override),
            ("CODEX_SQLITE_HOME", sqlite_override),
        )
        if value
    ]
    root = root_override if root_override is not None else home.path / ".codex"
    sqlite_home = sqlite_override
    configured = _configured_sqlite_home(root, home)
    if configured is not None:  # the setting beats the variable, as in config_toml.rs
        sqlite_home = configured
        named.append(f"sqlite_home in {root / 'config.toml'}")
    return CodexLocation(root, ", ".join(named) or None, sqlite_home=sqlite_home)


def _configured_sqlite_home(root: Path, home: Home) -> Path | None:
    """`sqlite_home` in Codex's `config.toml`: where its state database lives."""
    data = files.read_small(root / "config.toml", 1 << 20)
    if data is None or b"sqlite_home" not in data:
        return None
    import tomllib  # here: every full list locates Codex; few configs name the folder

    try:
        value = tomllib.loads(data.decode("utf-8", "replace")).get("sqlite_home")
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if value == "~" or value.startswith("~/"):
        return home.path / value[2:]
    return root / value  # an absolute path stays whole


def scan(location: Location) -> Iterator[str | Path]:
    """The newest state database, the title index, and every rollout (as path strings)."""
    if not location.exists:
        return
    root = location.root
    sqlite_home = getattr(location, "sqlite_home", None) or root
    state_dbs = [
        (int(match.group(1)), Path(entry.path))
        for entry in folders.entries(sqlite_home, sqlite_home)
        if (match := _STATE_DB.fullmatch(entry.name)) and entry.is_file()
    ]
    if state_dbs:
        yield max(state_dbs)[1]
    for entry in folders.entries(root, root):
        if entry.name == "session_index.jsonl" and entry.is_file():
            yield Path(entry.path)
    yield from rollout_names(root / "sessions", root, depth=0, timers=True)
    yield from rollout_names(root / "archived_sessions", root, depth=0, timers=True)
    yield from _codex_json.session_files(root / "sessions", root)


def looks_for_others(path: str) -> bool:
    """Whether `path` is a state db, which lists a thread by its rollout while that is
    on disk, else by its row (see base.py): a rollout deleted or archived changes it."""
    return _STATE_DB.fullmatch(os.path.basename(path)) is not None


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    name = str(path)  # a rollout is handled as a plain string: a home holds thousands
    base = os.path.basename(name)
    if base.endswith(TIMERS_SUFFIX):
        return _timer_fragment(base)
    if _codex_json.is_session_file(name):
        return _codex_json.parse(name, diagnostics)
    if base.startswith("rollout-"):
        return _parse_rollout(name, base, location, diagnostics)
    if _STATE_DB.fullmatch(base):
        return _parse_db(path, location, diagnostics)
    if base == "session_index.jsonl":
        return _parse_index(path, diagnostics)
    return []


def _parse_index(path: Path, diagnostics: Diagnostics) -> list[Session]:
    names: dict[str, str] = {}
    try:
        for _, record in files.iter_records(path, diagnostics):
            thread_id, name = (
                as_str(record.get("id")),
                one_line(record.get("thread_name")),
            )
            if thread_id and name:
                names[thread_id] = name
    except OSError:
        diagnostics.skip(
            str(path), 0, "vanished" if not path.exists() else "unreadable"
        )
        return []
    return [
        Session(
            app=NAME,
            id=thread_id,
            title=name,
            precedence=_PRECEDENCE_INDEX,
            listed=False,
        )
        for thread_id, name in names.items()
    ]


@dataclass(slots=True)
class _Head:
    """What the head and tail of a rollout say about its thread."""

    meta: dict[str, object] = field(default_factory=dict)
    created: datetime | None = None
    updated: datetime | None = None
    context: dict[str, object] | None = None
    prompt: str | None = None  # from an event: the human's own words
    echo_prompt: str | None = None  # from a response item: used when no event says it
    env_cwd: str | None = None
    env_approval: str | None = None
    env_sandbox: str | None = None
    # which harness tags can still matter: where the meta and the tail's context lack them
    need_cwd: bool = True
    need_approval: bool = True
    need_sandbox: bool = True
    thread_name: str | None = None
    bare: bool = False
    tail_context: bool = False  # the tail's turn_context, newer than any in the head


def _parse_rollout(
    path: str, name: str, location: Location, diagnostics: Diagnostics
) -> list[Session]:
    """The sessions a rollout at `path` (file name `name`) lists."""
    try:
        size, tail_start, tail, split = _read_ends(path)
        head = _head(path, split, diagnostics)
    except FileNotFoundError:
        diagnostics.skip(path, 0, "vanished")
        return []
    except _read_errors():
        diagnostics.skip(path, 0, "unreadable")
        return []
    if head is None:
        return []  # an empty file: Codex has not written its first line yet
    scan = _Head()
    # the first line says what the tail needs (the era, the sub-agent's start ordinal);
    # what the tail then settles spares the rest of the head
    first = next(head)
    if first.number == 1:
        _read_first_line(first, scan, diagnostics, path)
    else:
        head = itertools.chain((first,), head)
    _read_tail(tail_start, tail, scan)
    _read_head(head, scan, diagnostics, path)
    files.note_unfinished(tail_start, tail, diagnostics, path)
    meta = scan.meta
    thread_id = as_str(meta.get("id"))
    if not thread_id:
        match = ROLLOUT_ID.search(name)
        if match is None:
            return []
        thread_id = match.group(1)
    context = scan.context or {}
    approval = as_str(context.get("approval_policy")) or scan.env_approval
    sandbox = sandbox_of(context.get("sandbox_policy")) or scan.env_sandbox
    parent_id, agent_type = lineage_of(meta)
    version = as_str(meta.get("cli_version"))
    if version:
        diagnostics.versions[version] += 1
    extra: dict[str, JSONValue] = {"home": str(location.root)}
    for key in (
        "originator",
        "agent_nickname",
        "agent_path",
        "forked_from_id",
        "history_mode",
    ):
        if value := as_str(meta.get(key)):
            extra[key] = value
    source = meta.get("source")
    if isinstance(source, str):
        extra["source"] = source
    if approval:
        extra["approval_policy"] = approval
    if sandbox:
        extra["sandbox"] = sandbox
    if "archived_sessions" in path.split(os.sep):
        extra["archived"] = True
    git = as_dict(meta.get("git"))
    session = Session(
        app=NAME,
        id=thread_id,
        path=path,
        cwd=as_str(meta.get("cwd")) or as_str(context.get("cwd")) or scan.env_cwd,
        branch=as_str(git.get("branch")),
        title=scan.prompt or scan.echo_prompt or _agent_title(meta, parent_id),
        created=scan.created,
        updated=scan.updated or scan.created,
        model=as_str(context.get("model"))
        or as_str(
            as_dict(as_dict(meta.get("base_instructions")).get("provenance")).get(
                "model"
            )
        ),
        effort=effort_of(context),
        permission_mode=permission_mode(approval, sandbox),
        cli_version=version,
        bytes=size,
        parent_id=parent_id,
        agent_type=agent_type,
        precedence=_PRECEDENCE_ROLLOUT,
        extra=extra,
    )
    sessions = [session]
    if generation := _revert_generation(meta, thread_id, name):
        # the file a revert started: the thread's current file, its listing wins, but the
        # thread's first prompt and start are in the file it goes on from, listed too
        sessions = [
            replace(
                session,
                title=None,
                created=None,
                precedence=_PRECEDENCE_ROLLOUT + generation,
            ),
            Session(
                app=NAME,
                id=thread_id,
                title=session.title,
                created=session.created,
                precedence=_PRECEDENCE_ROLLOUT - generation,  # the oldest prompt wins
                listed=False,
            ),
        ]
    if meta.get("attached_thread") is True:  # a `/side` chat
        sessions.append(
            Session(
                app=NAME,
                id=thread_id,
                title=scan.prompt or scan.echo_prompt or EMPTY_SIDE_CHAT_TITLE,
                precedence=_PRECEDENCE_SIDE_TITLE,
                listed=False,
            )
        )
    if scan.thread_name:
        sessions.append(
            Session(
                app=NAME,
                id=thread_id,
                title=scan.thread_name,
                precedence=_PRECEDENCE_INDEX,
                listed=False,
            )
        )
    return sessions


TIMER_TITLE = "(timer configured)"  # what Codex lists such a thread as
EMPTY_SIDE_CHAT_TITLE = "(side chat, nothing asked)"


def _timer_fragment(base: str) -> list[Session]:
    """A rollout's timer sidecar: the thread is one the scheduler will wake, which Codex
    lists as TIMER_TITLE while it has no prompt (any other title wins)."""
    thread_id = rollout_id(base.removesuffix(".timers.json"))
    if thread_id is None:
        return []
    return [
        Session(app=NAME, id=thread_id, title=TIMER_TITLE, precedence=0, listed=False)
    ]


def _agent_title(meta: dict[str, object], parent_id: str | None) -> str | None:
    """A sub-agent's name when it has no prompt of its own (its task comes from the lead
    agent, encrypted): the task name its lead gave it, as `tree` and `show` call it,
    and the nickname Codex gave it, "greeter (Kierkegaard)" (its path /root/greeter)."""
    if parent_id is None:
        return None
    path, nickname = as_str(meta.get("agent_path")), as_str(meta.get("agent_nickname"))
    name = agent_named(path) if path else ""
    if name and nickname:
        return one_line(f"{name} ({nickname})")
    return one_line(name or nickname)


def _read_ends(path: str) -> tuple[int, int, bytes, files.Head | None]:
    """(file size, tail offset, tail, head) from one opening of the file.

    The tail is what `files.tail_bytes` returns. The head is `files.split_head`'s, or
    None where `files.head_lines` must read it: a `.zst` head that does not end within
    its first CHUNK. A rollout within the tail's reach is read once, and a `.zst`
    decompressed once (the tail's chunks joined once, at the end).
    """
    if path.endswith(".zst"):
        size = os.stat(path).st_size
        with files.open_binary(path) as stream:
            start = stream.read(files.CHUNK)
            # the last chunks, as many as hold the tail
            chunks, held, length = [start], len(start), len(start)
            while chunk := stream.read(files.CHUNK):
                chunks.append(chunk)
                held += len(chunk)
                length += len(chunk)
                while held - len(chunks[0]) >= files.TAIL_BYTES:
                    held -= len(chunks.pop(0))
        tail = b"".join(chunks)[-files.TAIL_BYTES :]
        return (
            size,
            length - len(tail),
            tail,
            files.split_head(start, None, whole=length == len(start)),
        )
    with files.open_regular(path) as stream:
        files.ends_only(stream)  # no readahead from disk past the head
        size = os.fstat(stream.fileno()).st_size
        tail_start = max(0, size - files.TAIL_BYTES)
        stream.seek(tail_start)
        tail = stream.read(files.TAIL_BYTES)
        if tail_start == 0:
            return size, 0, tail, files.split_head(tail, None, whole=True)
        stream.seek(0)
        head = files.split_head(stream.read(files.HEAD_PROBE), stream, whole=False)
    return size, tail_start, tail, head


def _head(
    path: str, split: files.Head | None, diagnostics: Diagnostics
) -> Iterator[files.Line] | None:
    """The head lines worth parsing, in order: the first, and those holding a `_HEAD_KEYS`.

    The head is what `files.head_lines` reads (the first HEAD_LINES lines, those over
    LINE_CAP skipped and counted): `split`, or where that is None, `files.head_lines`
    itself. None: no line to parse.
    """
    if split is None:
        lines = files.head_lines(path, diagnostics=diagnostics)
        if not lines:
            return None
        return (
            line
            for line in lines
            if line.number == 1 or any(key in line.data for key in _HEAD_KEYS)
        )
    split.count_too_long(diagnostics, path)
    if len(split.too_long) == len(split.ends):
        return None
    return _head_lines(split)


def _head_lines(split: files.Head) -> Iterator[files.Line]:
    """Line 1, then each line holding a key. The keys are searched for through a stretch
    of lines at a time, the stretches growing, so a reader that stops early (most do
    within the first dozen lines) leaves the rest of the head unsearched."""
    data, ends, too_long = split.data, split.ends, set(split.too_long)
    if 0 not in too_long:
        yield split.line(0)
    low, size = 1, 8
    while low < len(ends):
        high = min(len(ends), low + size)
        chosen: set[int] = set()
        bottom, top = ends[low - 1], ends[high - 1]
        for key in _HEAD_KEYS:
            position = bottom
            while (hit := find(data, key, position, top)) >= 0:
                index = bisect.bisect_left(ends, hit, low, high)
                chosen.add(index)
                position = ends[index]  # the rest of that line is chosen already
        yield from map(split.line, sorted(chosen - too_long))
        low, size = high, size * 2


def _read_head(
    head: Iterator[files.Line], scan: _Head, diagnostics: Diagnostics, path: str
) -> None:
    """The head's lines after the first (read by then), until nothing more can change."""
    start_ordinal = as_int(scan.meta.get("subagent_history_start_ordinal"))
    # A fork or sub-agent whose file may replay its parent's lines, and while inside
    # that replay, the second it was stamped in.
    copies_parent = (
        has_origin(scan.meta)
        and start_ordinal is None
        and not isinstance(scan.meta.get("history_base"), dict)
    )
    replay_second: datetime | None = None
    # What the head may still settle: the first prompt always; the newest turn_context
    # when the tail held none; a harness tag only where that context lacks the value.
    # The first prompt, the first tags and a context the tail settled are final, so once
    # these are known, no later line (a replay's included) can change the result; a
    # broken line past that point goes uncounted, as lines holding no key always do.
    context = scan.context or {}
    scan.need_cwd = not (as_str(scan.meta.get("cwd")) or as_str(context.get("cwd")))
    scan.need_approval = not as_str(context.get("approval_policy"))
    scan.need_sandbox = not sandbox_of(context.get("sandbox_policy"))
    while not (
        scan.prompt is not None
        and scan.tail_context
        and not (scan.need_cwd and not scan.env_cwd)
        and not (scan.need_approval and not scan.env_approval)
        and not (scan.need_sandbox and not scan.env_sandbox)
    ):
        line = next(head, None)  # asked for only when needed: the search is lazy
        if line is None:
            return
        record = files.parse_json(line, diagnostics, path)
        if record is None:
            continue
        kind, payload = envelope(record)
        ordinal = as_int(record.get("ordinal"))
        if kind is None or (
            start_ordinal is not None
            and ordinal is not None
            and ordinal < start_ordinal
        ):
            continue
        if kind == "session_meta":
            other = as_str(payload.get("id"))
            if copies_parent and other != as_str(scan.meta.get("id")):
                stamp = parse_time(record.get("timestamp"))
                replay_second = (stamp or EPOCH).replace(microsecond=0)
            continue
        if replay_second is not None:
            # no parent to compare with while listing: the copy is stamped in one burst
            stamp = parse_time(record.get("timestamp"))
            if stamp is None or stamp.replace(microsecond=0) == replay_second:
                continue
            if scan.created is not None and stamp < scan.created:
                continue
            replay_second, copies_parent = None, False
        if harness_line(record):
            continue
        _read_head_record(kind, payload, scan)


def _read_first_line(
    line: files.Line, scan: _Head, diagnostics: Diagnostics, path: str
) -> None:
    record = files.parse_json(line, diagnostics, path)
    if record is None:
        return
    payload = record.get("payload")
    if record.get("type") == "session_meta" and isinstance(payload, dict):
        scan.meta = payload
    elif "id" in record and "type" not in record:
        # the bare era: {id, timestamp, instructions, git}
        scan.meta, scan.bare = record, True
    else:
        return
    scan.created = parse_time(scan.meta.get("timestamp")) or parse_time(
        record.get("timestamp")
    )


def _read_head_record(kind: str, payload: dict[str, object], scan: _Head) -> None:
    if kind == "turn_context":
        if not scan.tail_context:
            scan.context = payload
    elif kind == "event_msg" and scan.prompt is None:
        scan.prompt = one_line(event_prompt(payload))
    elif (
        kind == "response_item"
        and payload.get("type") == "message"
        and payload.get("role") == "user"
    ):
        text, context_text = message_text(payload)
        if scan.echo_prompt is None and text:
            scan.echo_prompt = one_line(text)
        if context_text:  # a tag no longer needed is not searched for
            if scan.need_cwd and not scan.env_cwd:
                scan.env_cwd = tag(_CWD_TAG, context_text)
            if scan.need_approval and not scan.env_approval:
                scan.env_approval = tag(_APPROVAL_TAG, context_text)
            if scan.need_sandbox and not scan.env_sandbox:
                scan.env_sandbox = tag(_SANDBOX_TAG, context_text)


def _read_tail(start: int, data: bytes, scan: _Head) -> None:
    """The newest time, `turn_context` and rename, from the unsplit tail block.

    `data` starts at file offset `start` (the piece before its first newline may be cut
    then), and a last line with no newline may still be being written: only the whole
    lines between count. The time is the newest line's that has one; for the other two,
    each key is searched for backwards and only the line holding a hit is parsed. A hit
    in another record's text, or on a line replayed from the parent (below the
    sub-agent's start ordinal), sends the search further back.
    """
    first = 0
    if start > 0:
        newline = data.find(b"\n")
        first = newline + 1 if newline >= 0 else len(data)
    end = data.rfind(b"\n", first) + 1  # just past the newest whole line, or 0
    if end <= first:
        return
    start_ordinal = as_int(scan.meta.get("subagent_history_start_ordinal"))
    if not scan.bare:
        line_end = end - 1
        while line_end >= first:
            begin = data.rfind(b"\n", first, line_end) + 1 or first
            record = _load(data[begin:line_end])
            if record is not None and (stamp := parse_time(record.get("timestamp"))):
                scan.updated = stamp
                break
            line_end = begin - 1
    # Renames are rare: one forward search (faster than `rfind`) rules most tails out.
    keys = [b'"turn_context"']
    if find(data, b"thread_name_updated", first, end) >= 0:
        keys.append(b"thread_name_updated")
    for key in keys:
        position = end
        while (hit := rfind(data, key, first, position)) >= 0:
            begin = data.rfind(b"\n", first, hit) + 1 or first
            position = begin
            record = _load(data[begin : data.find(b"\n", hit)])
            if record is None:
                continue
            kind, payload = envelope(record)
            ordinal = as_int(record.get("ordinal"))
            if (
                start_ordinal is not None
                and ordinal is not None
                and ordinal < start_ordinal
            ):
                continue
            if key == b'"turn_context"':
                if kind == "turn_context":
                    scan.context, scan.tail_context = payload, True
                    break
            elif (
                kind == "event_msg"
                and payload.get("type") == "thread_name_updated"
                and (name := one_line(payload.get("thread_name")))
            ):
                scan.thread_name = name
                break


@functools.cache
def _read_errors() -> tuple[type[BaseException], ...]:
    """`read_errors()`, made once: it imports zstandard."""
    return read_errors()


def _load(data: bytes) -> dict[str, object] | None:
    """The JSON object in one tail line, or None; a bad line there is not counted."""
    return files.parse_json(files.Line(0, 0, data, 0, True))


# --- the state database ----------------------------------------------------------------------


class _ThreadRow(NamedTuple):
    """The `threads` columns listing reads; one a Codex version lacks reads as NULL."""

    id: object
    rollout_path: object
    created_at: object
    updated_at: object
    created_at_ms: object
    updated_at_ms: object
    source: object
    cwd: object
    title: object
    name: object
    sandbox_policy: object
    approval_mode: object
    git_branch: object
    cli_version: object
    model: object
    reasoning_effort: object
    agent_nickname: object
    agent_role: object
    agent_path: object
    archived: object


def _parse_db(
    path: Path, location: Location, diagnostics: Diagnostics
) -> list[Session]:
    try:
        connection = databases.open_sqlite(path)
    except (sqlite3.Error, OSError) as error:
        diagnostics.problem(
            f"{read_failed('codex', path, error, 'cannot open')}; listing from the "
            "rollout files only"
        )
        return []
    try:
        return _threads(connection, path, location.root)
    except sqlite3.Error as error:
        diagnostics.problem(
            f"{read_failed('codex', path, error, 'cannot read')}; listing from the "
            "rollout files only"
        )
        return []
    finally:
        connection.close()


def _thread_rows(connection: sqlite3.Connection) -> list[_ThreadRow]:
    """The rows with a text id (a state db lists thousands: plain tuples, no dicts)."""
    columns = databases.table_columns(connection, "threads")
    if "id" not in columns:
        return []
    selected = ", ".join(
        databases.quote_identifier(column) if column in columns else "NULL"
        for column in _ThreadRow._fields
    )
    rows = map(_ThreadRow._make, connection.execute(f"SELECT {selected} FROM threads"))
    return [row for row in rows if isinstance(row.id, str)]


def _threads(connection: sqlite3.Connection, path: Path, root: Path) -> list[Session]:
    rows = _thread_rows(connection)
    parents: dict[str, str] = {}
    if {"parent_thread_id", "child_thread_id"} <= databases.table_columns(
        connection, "thread_spawn_edges"
    ):
        for parent, child in connection.execute(
            "SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges"
        ):
            if isinstance(parent, str) and isinstance(child, str):
                parents[child] = parent
    home = str(root)
    rollouts = {row.id: _resolve_rollout(row.rollout_path, home) for row in rows}
    lineage: dict[str, tuple[str | None, str | None]] = {}
    created: dict[str, datetime | None] = {}
    for row in rows:
        thread_id = str(row.id)
        source = json_text(row.source)
        parent_id, agent_type = (
            lineage_of({"source": source, "agent_role": row.agent_role})
            if isinstance(source, dict)  # else not a sub-agent: no lineage
            else (None, None)
        )
        lineage[thread_id] = (parents.get(thread_id) or parent_id, agent_type)
        created[thread_id] = epoch(row.created_at_ms, 1000) or epoch(row.created_at, 1)
    children: dict[str, list[JSONValue]] = {}
    for child_id, (parent_id, _) in lineage.items():
        if parent_id:
            child_path, born = rollouts.get(child_id), created.get(child_id)
            children.setdefault(parent_id, []).append(
                {
                    "id": child_id,
                    "path": child_path,
                    "created": born.isoformat() if born else None,
                }
            )
    state_db = str(path)
    sessions: list[Session] = []
    for row in rows:
        thread_id = str(row.id)
        if not thread_id:
            continue
        parent_id, agent_type = lineage[thread_id]
        approval = as_str(row.approval_mode)
        sandbox = sandbox_of(json_text(row.sandbox_policy))
        extra: dict[str, JSONValue] = {"home": home, "state_db": state_db}
        if value := as_str(row.agent_nickname):
            extra["agent_nickname"] = value
        if value := as_str(row.agent_path):
            extra["agent_path"] = value
        if isinstance(row.source, str) and not row.source.startswith("{"):
            extra["source"] = row.source
        if approval:
            extra["approval_policy"] = approval
        if sandbox:
            extra["sandbox"] = sandbox
        if row.archived:
            extra["archived"] = True
        if thread_id in children:
            extra["children"] = children[thread_id]
        rollout = rollouts[thread_id]
        if rollout is not None:
            extra["rollout_path"] = rollout
        elif (odd := _odd_rollout(row.rollout_path, home)) is not None:
            extra["rollout_unread"] = odd  # named by show and follow, never "gone"
        sessions.append(
            Session(
                app=NAME,
                id=thread_id,
                path=rollout or f"{state_db}#threads/{thread_id}",
                cwd=as_str(row.cwd),
                branch=as_str(row.git_branch),
                created=created[thread_id],
                updated=epoch(row.updated_at_ms, 1000) or epoch(row.updated_at, 1),
                model=as_str(row.model),
                effort=as_str(row.reasoning_effort),
                permission_mode=permission_mode(approval, sandbox),
                cli_version=as_str(row.cli_version),
                parent_id=parent_id,
                agent_type=agent_type,
                precedence=_PRECEDENCE_DB,
                extra=extra,
            )
        )
        if name := one_line(row.name):
            sessions.append(
                Session(
                    app=NAME,
                    id=thread_id,
                    title=name,
                    precedence=_PRECEDENCE_NAME,
                    listed=False,
                )
            )
        if title := one_line(row.title):
            sessions.append(
                Session(
                    app=NAME,
                    id=thread_id,
                    title=title,
                    precedence=_PRECEDENCE_DB_TITLE,
                    listed=False,
                )
            )
    return sessions


def _resolve_rollout(recorded: object, home: str) -> str | None:
    """The rollout a threads row names: under this Codex home first (the db may have moved), then as written."""
    if not isinstance(recorded, str) or not recorded:
        return None
    for candidate in _rollout_candidates(recorded, home):
        for option in (candidate, candidate + ".zst"):
            if _is_file(option):
                if not option.startswith(os.path.join(home, "")):
                    # outside the home the scan lists, where its going says nothing
                    # (`looks_for_others`): the db is parsed again once it goes
                    freshness.note_present(option)
                return option
    return None


def _odd_rollout(recorded: object, home: str) -> str | None:
    """Where the rollout a threads row names is something other than a file (a pipe, a
    folder in its place): what show and follow name, where one gone is said gone."""
    if not isinstance(recorded, str) or not recorded:
        return None
    return next(
        (
            place
            for place in _rollout_candidates(recorded, home)
            if folders.odd_at(place)
        ),
        None,
    )


def _rollout_candidates(recorded: str, home: str) -> Iterator[str]:
    """Where the rollout `recorded` names may be, in the order tried; made only as far as
    tried. Nowhere when its name is no rollout's: a copied or hostile state db may name
    any file (`/etc/passwd`, another app's login), which is no transcript to read."""
    written, parts, name = _written(recorded)
    if not name or rollout_id(name) is None:
        return
    for folder in ("sessions", "archived_sessions"):
        if folder in parts:
            index = len(parts) - 1 - parts[::-1].index(folder)
            # one join: the parts after the root are plain names
            yield os.path.join(home, os.sep.join(parts[index:]))
    yield os.path.join(home, "archived_sessions", name)
    yield written


def _written(recorded: str) -> tuple[str, tuple[str, ...], str]:
    """`str(path)`, `path.parts` and `path.name` of `Path(recorded)`, split by hand where
    that is plainly the same (a POSIX absolute path with no empty or `.` part): a db
    names thousands."""
    if (
        os.sep == "/"
        and recorded.startswith("/")
        and "//" not in recorded
        and "/./" not in recorded
        and not recorded.endswith(("/", "/."))
    ):
        parts = ("/", *recorded[1:].split("/"))
        return recorded, parts, parts[-1]
    path = Path(recorded)
    return str(path), path.parts, path.name


# a rollout these leave unresolved is not there for us; a folder we may not open among
# them is said by the scan's listing, and must not cost the db's other threads
_NOT_THERE = (
    errno.ENOENT,
    errno.ENOTDIR,
    errno.EBADF,
    errno.ELOOP,
    errno.EACCES,
    errno.EPERM,
)


def _is_file(name: str) -> bool:
    """`Path(name).is_file()`, without making the Path, and False where a folder on the
    way may not be opened."""
    try:
        return stat.S_ISREG(os.stat(name).st_mode)
    except OSError as error:
        if error.errno not in _NOT_THERE:
            raise
        return False
    except ValueError:
        return False


# --- reading ---------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path and _codex_json.is_session_file(session.path):
        return _codex_json.read_events(
            session, Path(session.path), diagnostics, full=full
        )
    return read_events(session, diagnostics, full=full, offset=offset)


def follow(session: Session, diagnostics: Diagnostics) -> SessionFollow:
    """Live reading: the rollout and each sub-agent's, only appended lines (`_codex_follow`)."""
    from ._codex_follow import Follow

    return Follow(session, diagnostics)


# --- resume ----------------------------------------------------------------------------------


def _revert_generation(meta: Mapping[str, object], thread_id: str, name: str) -> int:
    """0, or how many reverts made this file: a thread reverted to an earlier turn goes on
    in a new file, `<thread id>_<rollout id>`, whose `history_base` names the older file it
    keeps the start of (`_codex_lineage`): the thread's first file (generation 1), or the
    file an earlier revert started (2; a third revert counts as 2 as well: telling it from
    the second needs the state db, whose `rollout_path` then names the current file). A
    fork's or a sub-agent's base names another thread, in a file of its own id."""
    base = as_dict(meta.get("history_base"))
    if not base:
        return 0
    named, own = as_str(base.get("thread_id")), segment_id(name)
    if named == thread_id:
        return 1
    return 2 if own is not None and own != thread_id else 0


def resume_refusal(session: Session) -> str | None:
    """Why `resume` gives no command for a TypeScript codex-cli document."""
    if not (session.path and _codex_json.is_session_file(session.path)):
        return None
    return (
        "this session was saved by the TypeScript codex-cli (2025), whose one-document "
        f"files today's 'codex resume' cannot open; {named('show', f'{session.app}:{session.id}')} reads it."
    )


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`codex resume <id>` in the thread's folder, keeping its model, effort and safe
    permissions; None for the TypeScript CLI's documents, which `codex resume` cannot open."""
    if session.path and _codex_json.is_session_file(session.path):
        return None
    argv = [PROGRAM, "resume", session.id]
    notes: list[str] = []
    withheld: list[str] = []
    if session.model:
        argv += ["-m", session.model]
    if session.effort:
        if re.fullmatch(r"[A-Za-z0-9_-]+", session.effort):
            # `-c` values are TOML; a quoted string survives whatever the effort is called
            argv += ["-c", f'model_reasoning_effort="{session.effort}"']
        else:
            notes.append(
                f"reasoning effort {session.effort!r} left out: not a plain word"
            )
    approval, sandbox = _recorded_permissions(session)
    if approval in _RETIRED_APPROVALS:
        notes.append(
            f"approval policy {approval!r} became on-request: codex 0.149+ no longer takes it"
        )
        approval = "on-request"
    trusted = _trusted(session)
    if trusted is False and (approval, sandbox) != (None, None):
        notes.append(
            "Codex does not trust this folder (config.toml [projects]): its default "
            "there is read-only, asking before every edit"
        )
    for flag, value, known, strict in (
        ("-a", approval, _APPROVALS, _STRICT_APPROVALS),
        ("-s", sandbox, _SANDBOXES, _STRICT_SANDBOXES),
    ):
        if value is None:
            continue
        if value not in known:
            notes.append(
                f"{'approval policy' if flag == '-a' else 'sandbox'} {value!r} left out: codex resume does not take it"
            )
        elif (
            value in strict and (trusted is not False or value in _UNTRUSTED_DEFAULTS)
        ) or keep_permissions:
            argv += [flag, value]
        else:  # looser than the default (on-request, workspace-write): said once, by api
            withheld.append(f"{flag} {value}")
    if session.parent_id:
        notes.append("a sub-agent thread: it reopens on its own, not inside its parent")
    if session.extra.get("archived") is True:
        # 0.171's TUI asks "Unarchive and resume" first (tui/src/unarchive_prompt.rs)
        notes.append(
            "an archived thread: codex asks to unarchive it before reopening it "
            "(`codex unarchive <id>` does it beforehand)"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program=PROGRAM,
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `codex` has open, read back from the words `resume` writes:
    `codex resume <id>` (and `codex exec resume <id>`) that thread, `resume --last` its
    folder's latest; `codex fork`, a new thread; `codex resume` alone (a picker) or with
    a thread name: none known yet. Any other command says nothing sure: None."""
    command: str | None = None
    given: list[str] = []
    latest = False
    index = 1
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            break
        if word.startswith("-"):
            if word in _VALUE_OPTIONS:
                index += 1  # its value
            latest = latest or (command is not None and word == "--last")
        elif command is not None:
            given.append(word)
        elif word in ("resume", "fork"):
            command = word
        elif word != "exec" and not os.path.basename(word).startswith(PROGRAM):
            return (
                None  # a prompt, or another command (the script a node runs is passed)
            )
    if command == "fork":
        return Opened()  # a new thread, copied from the one it names
    if command is None:
        return None
    if not latest and not given:
        return Opened(chosen=True)  # a picker: nothing open until the user chooses
    if latest:
        return Opened(latest=True)
    # a thread name: which thread it is is not known here
    return Opened(given[0]) if is_uuid(given[0]) else Opened(chosen=True)


def process_folder(args: Sequence[str]) -> str | None:
    """The folder a running `codex` works in where its words name one: `-C <dir>` (`--cd`,
    before or after its command), its working root and its threads' folder, whatever
    folder it was started in; the last one given. None: its working folder."""
    found: str | None = None
    index = 1
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if name in ("-C", "--cd"):
            if not equals:
                if index == len(args):
                    break
                value, index = args[index], index + 1
            found = value or found
        elif word.startswith("-C") and not word.startswith("--"):
            found = word[2:] or found  # `-C/srv/x`: the short form, its value joined
        elif word in _VALUE_OPTIONS:
            index += 1  # its value
    return found


def _trusted(session: Session) -> bool | None:
    """Whether Codex trusts the thread's folder, or a folder above it: its config.toml
    `[projects."<folder>"] trust_level = "trusted"`. Until a folder is trusted, Codex
    runs there read-only, asking for every edit. None when the config is not known."""
    path = Path(session.path.split("#", 1)[0]) if session.path else None
    root = next(
        (p.parent for p in (path.parents if path else ()) if p.name in _ROLLOUT_DIRS),
        None,
    )
    if root is None or not session.cwd:
        return None
    import tomllib

    data = files.read_small(root / "config.toml", 1 << 20)
    try:
        config = tomllib.loads(data.decode("utf-8", "replace")) if data else {}
    except tomllib.TOMLDecodeError:
        return None
    projects = config.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    folder = Path(session.cwd)
    return any(
        isinstance(entry := projects.get(str(place)), dict)
        and entry.get("trust_level") == "trusted"
        for place in (folder, *folder.parents)
    )


def _recorded_permissions(session: Session) -> tuple[str | None, str | None]:
    approval = session.extra.get("approval_policy")
    sandbox = session.extra.get("sandbox")
    if not isinstance(approval, str) or not isinstance(sandbox, str):
        parsed = dict(
            part.split("=", 1)
            for part in (session.permission_mode or "").split()
            if "=" in part
        )
        approval = approval if isinstance(approval, str) else parsed.get("approval")
        sandbox = sandbox if isinstance(sandbox, str) else parsed.get("sandbox")
    return approval, sandbox


def usage_files(location: Location) -> Iterator[str]:
    """The `sessdex usage` hook: `_codex_usage.usage_files`."""
    from ._codex_usage import usage_files as listed

    yield from listed(location)


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
    """The `sessdex usage` hook: `_codex_usage.usage_records`."""
    # here: every full list loads this module, and counts no usage (msgspec's structs)
    from ._codex_usage import usage_records as records

    return records(
        path,
        diagnostics,
        offset=offset,
        state=state,
        explain=explain,
        fold=fold,
        drop=drop,
    )
