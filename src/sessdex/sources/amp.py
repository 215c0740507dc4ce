"""Amp (Sourcegraph): one JSON document per thread in ~/.local/share/amp/threads.

Amp rewrites `threads/T-<uuid>.json` whole as a thread changes: `{v, id, created (ms),
title, agentMode, env.initial{trees[{uri, repository}], tags}, messages[], usageLedger}`,
messages being Anthropic-style `{role, content[] (text, thinking, tool_use,
tool_result), state, usage?, meta{sentAt}}`. Many threads live only on Amp's servers; a
local file may be partial. The data folder follows `XDG_DATA_HOME`. Before the CLI's store,
the VS Code extension kept the same thread files in its editor's globalStorage
(`sourcegraph.amp/threads3/`); those are listed too. An `info` message's `summary` is a
compaction; a text block marked `hidden` is context Amp added, shown as `meta`.

A tool result's `run.status` says where the run is (a deobfuscated Amp CLI bundle, read by
a third-party project): `queued`, `in-progress` and `cancellation-requested` runs are not
over (no tool_result: the call stays open), a `blocked-on-user` one waits for the user to
allow it (`reason`, `toAllow`: a meta event that asks for approval), `done`, `error`,
`cancelled` and `rejected-by-user` end it (the last three as failures, with the error's
message or the reason). `Task` runs a sub-agent in Amp's own process, with no thread of its
own: its progress (`run.progress[]`: a message and the tools it used) is replayed as the
sub-agent's events, under the call's id.

A thread is one JSON value, so listing parses the file; it is parsed again only when it
changes. A file over WHOLE_CAP (4 MB) is read in pieces (`jsonstream`): its other members
past the message array, then the messages one at a time, so memory stays bounded and a
pasted image is its note. So is a file that does not parse whole: a thread cut short (a
crash or a full disk mid-write, a copy taken during one) is listed from the members before
its cut and shows the messages before it, the cut counted ("truncated") and said. cwd is the first
tree's `file://` URI; model the first assistant usage's model, else a `model:` tag.
Usage, de-duplicated as Amp's own ledger is: when `usageLedger.events` exist, one
`usage` event per ledger event (title generation included), placed after the message it
billed (`toMessageId`), with the cache split taken from that message's `usage` (by
the first of several entries that bill one message, so counted once) and the
credits Amp charged for the call (`credits`, counted as Amp's credits); without
a ledger, or for a response a partial ledger left out, one per assistant message
`usage`. `created` is epoch ms, or ISO text in newer (`"v": 2`) threads. Handoff links (`relationships`) go to
`extra`, not `parent_id`: a handoff is a thread of its own, not a sub-agent. Resume:
`amp threads continue <id>` as reader projects report it — not verified against Amp.
`show --tail` reads a thread whole: a ledger entry billed to a message the file does not
hold is placed at the read's end, which only every message's id says (Amp's ids are not
known to be in order), and a response whose usage names no model is billed to the model
named last before it.

Amp has since moved its threads to its server and writes no thread file (none after
2026-03-31, users report). What it keeps here is a log per thread it works on,
`$XDG_CACHE_HOME/amp/logs/threads/T-<id>.log` (it deletes one unwritten for a week): those
are listed and read as far as they go (`_amp_logs`: title, mode, times, the tools run and
their input; no message, output or usage), below a thread file of the same id, which is
read instead. When no thread file is newer than the move though Amp ran since,
`doctor_notes` says where the rest is.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from .. import files, folders, programs
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ..wording import count_of
from . import _amp_logs
from ._values import (
    Emitter,
    EventFields,
    as_credits,
    as_dict,
    as_int,
    as_list,
    first_line,
    iso_time,
    local_path,
    ms_time,
    odd_count,
    stat_size,
    stripped,
    type_tag,
)
from ._vscode_tasks import EDITOR_VARIABLES, SERVER_DIRS, config_bases
from .base import Home, Location

NAME = "amp"
# `amp threads continue <id>` finds a thread by its id from any folder
RESUMES_ANYWHERE = True
TITLE = "Amp"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "public synthetic thread samples and reader projects (ccusage, txcript); tool run "
    "states from a deobfuscated CLI bundle (flitter); never run — Low confidence; "
    "resume checked against amp 0.0.1790142911's `threads continue --help`; the "
    "per-thread logs and their folders against the @ampcode/cli-linux-x64 "
    "0.0.1790142911 bundle's log writer and a reader's captures at 0.0.1785170481 "
    "(toolpath), never a real log (Low)"
)
ENV_VARS = ("XDG_DATA_HOME", "XDG_CACHE_HOME", *EDITOR_VARIABLES)

WHOLE_CAP = files.WHOLE_JSON_CAP  # a bigger thread file is read in pieces
_IGNORED_BLOCKS = frozenset({"provider", "image", "redacted_thinking"})
_RUNNING = frozenset({"queued", "in-progress", "cancellation-requested"})
_SUB_AGENT_TOOLS = frozenset({"Task"})  # a sub-agent Amp runs in its own process
# No thread file was written after 2026-03-31: Amp keeps threads on its server since.
SERVER_SINCE = datetime(2026, 4, 1, tzinfo=UTC).timestamp()


# The VS Code extension's store before the CLI's (through 0.0.1750505632), per editor.
_EXTENSION_STORES = tuple(
    f"{editor}/User/globalStorage/sourcegraph.amp/{name}"
    for editor in ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
    for name in ("threads3", "threads3-development")
)


def locate(home: Home) -> Location:
    """`$XDG_DATA_HOME/amp`, Amp's per-thread logs in `$XDG_CACHE_HOME/amp/logs/threads`,
    and the threads the VS Code extension kept in its editors' globalStorage (where the
    editors put their user folders: `$VSCODE_APPDATA`, a portable editor's, remote
    servers') before Amp moved them."""
    said = [f"{name}={value}" for name in ENV_VARS if (value := home.environ.get(name))]
    override = ", ".join(said) or None
    also = [home.xdg("cache") / "amp" / Path(*_amp_logs.FOLDER)]
    also += [base / store for base in config_bases(home) for store in _EXTENSION_STORES]
    portable = home.env_dir("VSCODE_PORTABLE")
    if portable is not None:  # the user folder itself, as a server install's
        also += [
            portable / "user-data" / "User" / "globalStorage" / "sourcegraph.amp" / name
            for name in ("threads3", "threads3-development")
        ]
    also += [  # the extension in a remote editor's server install (SSH, containers)
        home.path / server / "User" / "globalStorage" / "sourcegraph.amp" / name
        for server in SERVER_DIRS
        for name in ("threads3", "threads3-development")
    ]
    return Location(
        home.xdg("data") / "amp",
        override=override,
        also=tuple(also),
        keeps=(home.xdg("config") / "amp",),  # its settings.json
    )


# where `scan` reads a thread (see base.py): `threads/` of Amp's folder, and the
# extension's and the log folders it lists (`also`); a broken link elsewhere hides none
SESSION_NAMES = ("threads", "threads/*.json", "*.json", f"*{_amp_logs.SUFFIX}")


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    stores = [(location.root / "threads", location.root)]
    stores += [(folder, folder) for folder in location.also]
    for folder, root in stores:
        suffix = _amp_logs.SUFFIX if _amp_logs.is_log_folder(folder) else ".json"
        for entry in folders.entries(folder, root):
            if entry.name.endswith(suffix) and folders.file_entry(entry):
                yield Path(entry.path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if _amp_logs.is_log_folder(path.parent):
        return _amp_logs.parse(path, diagnostics)
    loaded = _load(path, diagnostics)
    if loaded is None:
        return []
    thread = loaded.top
    first = last = None
    prompt = model = None
    for message in loaded.messages():  # one pass: a big thread is streamed
        time = _message_time(message)
        if time is not None:
            first = time if first is None else min(first, time)
            last = time if last is None else max(last, time)
        prompt = prompt or _prompt(message)
        model = model or _usage_model(message)
    env = as_dict(as_dict(thread.get("env")).get("initial"))
    trees = env.get("trees")
    tree = as_dict(trees[0]) if isinstance(trees, list) and trees else {}
    repository = as_dict(tree.get("repository"))
    ref = stripped(repository.get("ref"))
    # epoch ms; ISO text in newer threads (`"v": 2`)
    created = ms_time(thread.get("created")) or iso_time(thread.get("created")) or first
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
    if stripped(repository.get("url")):
        extra["repository"] = stripped(repository.get("url"))
    for relation in as_list(thread.get("relationships")):
        relation = as_dict(relation)
        if relation.get("type") == "handoff" and relation.get("role") in (
            "parent",
            "child",
        ):
            extra[f"handoff_{relation['role']}"] = stripped(relation.get("threadID"))
    return [
        Session(
            app=NAME,
            id=stripped(thread.get("id")) or path.stem,
            path=str(path),
            cwd=local_path(stripped(tree.get("uri"))),
            branch=ref.removeprefix("refs/heads/") if ref else None,
            title=first_line(stripped(thread.get("title")) or prompt),
            created=created,
            updated=last or created,
            model=model or _thread_model(thread),
            bytes=stat_size(path),
            extra=extra,
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    if _amp_logs.is_log_folder(Path(session.path).parent):
        yield from _amp_logs.read(session, diagnostics, full=full, offset=offset)
        return
    path = session.path
    loaded = _load(Path(path), diagnostics, vanished=True)
    if loaded is None:
        return
    ledger = [
        as_dict(e)
        for e in as_list(as_dict(loaded.top.get("usageLedger")).get("events"))
        if isinstance(e, dict)
    ]
    billed: dict[str | int | None, list[dict[str, object]]] = {}
    for entry in ledger:
        billed.setdefault(_message_key(entry.get("toMessageId")), []).append(entry)
    event = Emitter(session.id)

    placed: set[str | int | None] = set()
    model = session.model
    calls: dict[str, str | None] = {}  # call id -> its tool's name
    for message in loaded.messages():
        time = _message_time(message)
        role = message.get("role")
        if role == "info":  # compaction in the thread: a summary, or a handoff's thread
            yield from _info(message, time, event)
            continue
        if role not in ("user", "assistant"):
            diagnostics.unknown_type(f"message.{role}")
            continue
        yield from _blocks(message, time, event, diagnostics, calls)
        usage = as_dict(message.get("usage"))
        model = stripped(usage.get("model")) or model
        key = _message_key(message.get("messageId")) if ledger else None
        if ledger and key in billed:
            split = (
                usage if role == "assistant" else None
            )  # the ledger has no cache split
            # the message's cache split goes with its first entry alone (billed and
            # said once): it is one response's count, however many entries bill it
            cache = [(split or {}).get(k) for k in _CACHE]
            for entry in billed.get(key, []) if key is not None else []:
                tokens = as_dict(entry.get("tokens"))
                _say_odd(diagnostics, path, [*(tokens.get(k) for k in _LEDGER), *cache])
                cache = []
                yield event(
                    "usage",
                    iso_time(entry.get("timestamp")) or time,
                    **_ledger_usage(entry, split, model),
                )
                split = None
            if key is not None:  # entries billed to no id are placed at the end
                placed.add(key)
        elif role == "assistant" and usage:
            # no ledger, or one that left this response out (a ledger can be partial):
            # the response's own usage
            _say_odd(diagnostics, path, [usage.get(k) for k in (*_COUNTS, *_CACHE)])
            counted = Usage(
                input_tokens=as_int(usage.get("inputTokens")),
                output_tokens=as_int(usage.get("outputTokens")),
                cache_read_tokens=as_int(usage.get("cacheReadInputTokens")),
                cache_write_tokens=as_int(usage.get("cacheCreationInputTokens")),
                model=model,
            )
            if counted.total:
                yield event(
                    "usage", iso_time(usage.get("timestamp")) or time, usage=counted
                )
        state = as_dict(message.get("state"))
        if role == "assistant" and state.get("stopReason") == "end_turn":
            yield event("turn_end", time, extra={"reason": "end_turn"})
    for key, entries in billed.items():
        if key not in placed:  # billed to a message this file does not hold
            for entry in entries:
                tokens = as_dict(entry.get("tokens"))
                _say_odd(diagnostics, path, [tokens.get(k) for k in _LEDGER])
                yield event(
                    "usage",
                    iso_time(entry.get("timestamp")),
                    **_ledger_usage(entry, None, model),
                )


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`amp threads continue <id>` in the thread's first tree (Amp keeps threads by id,
    for every folder: one that names none is continued from any)."""
    return ResumePlan(
        argv=("amp", "threads", "continue", session.id),
        cwd=session.cwd or "",
        program="amp",
        # the CLI's own package: @sourcegraph/amp is now a wrapper that pulls it in
        install_hint="npm install -g @ampcode/cli",
    )


# where Amp's CLI lies: its npm packages, and the folder its installer fills (`~/.amp`,
# linked or shimmed from `~/.local/bin/amp`)
_INSTALLS = ("@ampcode", "@sourcegraph", ".amp")
# the same, as a launcher's text names them: the installer's folder only as a folder
# (`.ampplayerrc` is another program's), Sourcegraph's package by its name
_NAMED = ("@ampcode", "@sourcegraph/amp", "/.amp/", "\\.amp\\", "ampcode")


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `amp` on PATH where it is Amp's own: one lying in (or a launcher naming) its
    npm package or its installer's folder, or a Bun-compiled program (Amp's release).
    `amp` is a common name (the amp editor's): any other is never run. A wrapper (Nix's,
    a Homebrew exec script) is judged by what it starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    judged = programs.wrapped(found) or found
    if (
        programs.lies_in(judged, _INSTALLS)
        or programs.launcher_names(judged, _NAMED)
        or programs.is_bun(judged)
    ):
        return plan, found
    return plan, None


def doctor_notes(location: Location) -> list[str]:
    """Why Amp's newer threads are missing, when no thread file was written since Amp
    moved them to its server but Amp ran here since: its logs or its own state say so."""
    threads = location.root / "threads"
    logs = next((f for f in location.also if _amp_logs.is_log_folder(f)), None)
    documents = [
        _mtime(e) for e in folders.listing(threads) if e.name.endswith(".json")
    ]
    if any(time >= SERVER_SINCE for time in documents):
        return []
    thread_logs = (
        [e for e in folders.listing(logs) if e.name.endswith(_amp_logs.SUFFIX)]
        if logs is not None
        else []
    )
    ran = [(_mtime(e), e.path) for e in thread_logs]
    for path in (
        *((logs.parent / "cli.log",) if logs is not None else ()),
        location.root / "session.json",
        location.root / "history.jsonl",
    ):
        try:
            ran.append((path.stat().st_mtime, str(path)))
        except OSError:
            continue
    since = [(time, path) for time, path in ran if time >= SERVER_SINCE]
    if not since:
        return []
    time, path = max(since)
    older = (
        f"{len(documents)} older, the newest of {_day(max(documents))}"
        if documents
        else "none at all"
    )
    read = (
        f"the {count_of(len(documents), 'thread file')} there"
        if documents
        else "no thread file"
    )
    read += (
        f" and {count_of(len(thread_logs), 'per-thread log')} in {logs}"
        if thread_logs
        else f" and no per-thread log in {logs}"
    )
    return [
        f"Amp keeps newer threads on its server: {threads} holds no thread file written "
        f"since {_day(SERVER_SINCE - 1)} ({older}), though Amp ran here on {_day(time)} "
        f"({path}). sessdex read {read} (Amp keeps a log a week; it names a thread's "
        "tools, not its messages); `amp threads list` and `amp threads export <id>` "
        "reach the rest."
    ]


# --- helpers ---------------------------------------------------------------------------


def _mtime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d")


def _message_key(value: object) -> str | int | None:
    """A message id as a lookup key: a string or a number; anything else is no id."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value


def _blocks(
    message: dict[str, object],
    time: datetime | None,
    event: Emitter,
    diagnostics: Diagnostics,
    calls: dict[str, str | None],
) -> Iterator[Event]:
    role = message.get("role")
    content = message.get("content")
    blocks = (
        [{"type": "text", "text": content}] if isinstance(content, str) else content
    )
    if not isinstance(blocks, list):
        return
    for raw in blocks:
        block = as_dict(raw)
        kind = type_tag(block.get("type"))
        if kind == "text":
            text = stripped(block.get("text"))
            if text and block.get("hidden") is True:  # context Amp added, not said
                yield event("meta", time, text=text, extra={"hidden": True})
            elif text:
                yield event("user" if role == "user" else "assistant", time, text=text)
        elif kind == "thinking":
            text = stripped(block.get("thinking")) or stripped(block.get("text"))
            if text:
                yield event("thinking", time, text=text)
        elif kind == "tool_use":
            value = block.get("input")
            name, call_id = stripped(block.get("name")), stripped(block.get("id"))
            if call_id:
                calls[call_id] = name
            if isinstance(value, dict | list):
                yield event("tool_call", time, tool=name, call_id=call_id, extra={"input": value})  # fmt: skip
            else:
                yield event("tool_call", time, tool=name, call_id=call_id, text=stripped(block.get("text")) or stripped(value))  # fmt: skip
            if name in _SUB_AGENT_TOOLS and call_id:
                task = as_dict(value)
                description = stripped(task.get("description")) or stripped(
                    task.get("prompt")
                )
                yield event("subagent", time, call_id=call_id, text=description,
                            extra={"child_id": call_id, "agent_type": name.lower()})  # fmt: skip
        elif kind == "tool_result":
            yield from _tool_result(block, time, event, calls)
        elif kind in _IGNORED_BLOCKS:
            continue
        else:
            diagnostics.unknown_type(f"content.{kind}")


# a response's `usage` counts, in `Usage`'s order (its cache split also completes a
# ledger entry's `tokens`)
_COUNTS = ("inputTokens", "outputTokens")
_CACHE = ("cacheReadInputTokens", "cacheCreationInputTokens")
_LEDGER = ("input", "output")


def _say_odd(diagnostics: Diagnostics, path: str, counts: Iterable[object]) -> None:
    """Say a billed count no app writes (`odd_count`): `Usage.plausible` bills a negative
    one as 0, `as_int` text or a bool as 0, a fraction as its whole part. A thread is one
    JSON document: the response is counted, with no line."""
    if any(odd_count(count) for count in counts):
        diagnostics.damage(path, 0, odd_in("response"))


def _ledger_usage(
    entry: dict[str, object], message_usage: dict[str, object] | None, model: str | None
) -> EventFields:
    tokens = as_dict(entry.get("tokens"))
    split = message_usage or {}
    usage = Usage(
        input_tokens=as_int(tokens.get("input")),
        output_tokens=as_int(tokens.get("output")),
        cache_read_tokens=as_int(split.get("cacheReadInputTokens")),
        cache_write_tokens=as_int(split.get("cacheCreationInputTokens")),
        model=stripped(entry.get("model")) or model,
        # what Amp billed for this call, in its own credits
        credits=as_credits(entry.get("credits")),
    )
    extra: dict[str, JSONValue] = {}
    if stripped(entry.get("operationType")):
        extra["operation"] = stripped(entry.get("operationType"))
    return {"usage": usage, "extra": extra}


class _Thread(NamedTuple):
    top: dict[str, object]  # every member but the messages
    messages: Callable[[], Iterator[dict[str, object]]]  # each call reads them anew


def _load(
    path: Path, diagnostics: Diagnostics, vanished: bool = False
) -> _Thread | None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        diagnostics.problem(f"amp: {path} vanished")
        return None
    if size > WHOLE_CAP:
        return _load_in_pieces(path, diagnostics)
    value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
    if value is None and files.say_if_refused(NAME, path, diagnostics):
        # another user's: unread
        return None
    if value is None and size and path.exists():
        # broken: in pieces, so that a thread cut short (a write stopped half way, a
        # copy taken during one) keeps its members and messages before the cut
        return _load_in_pieces(path, diagnostics)
    if value is None:
        if path.exists():
            diagnostics.skip(str(path), 1, "not JSON")
        elif vanished:
            diagnostics.problem(f"amp: {path} vanished")
        return None
    if not isinstance(value, dict):
        diagnostics.skip(str(path), 1, "not an object")
        return None
    messages = value.get("messages")
    held = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []  # fmt: skip
    return _Thread(value, lambda: iter(held))


def _load_in_pieces(path: Path, diagnostics: Diagnostics) -> _Thread | None:
    """A thread too big to parse whole, or broken: its other members now, its messages
    as read, each up to where a cut stops them (the cut counted and said once)."""
    from ..jsonstream import file_items, file_members

    top = file_members(path, _MESSAGES, diagnostics, NAME, cut=True)
    if top is None:
        if not files.refuses_reading(str(path)):  # refused: file_members said so
            diagnostics.skip(str(path), 1, "not JSON")
        return None

    def messages() -> Iterator[dict[str, object]]:
        for message in file_items(path, "messages", diagnostics, NAME):
            if isinstance(message, dict):
                yield message
            else:
                diagnostics.skip(str(path), 0, "not an object")

    return _Thread(top, messages)


_MESSAGES = frozenset({"messages"})


def _prompt(message: dict[str, object]) -> str | None:
    """A user message's first text, else None."""
    if message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return stripped(content)
    for block in content if isinstance(content, list) else []:
        if (
            isinstance(block, dict)
            and block.get("type") == "text"
            and block.get("hidden") is not True
            and stripped(block.get("text"))
        ):
            return stripped(block.get("text"))
    return None


def _info(
    message: dict[str, object], time: datetime | None, event: Emitter
) -> Iterator[Event]:
    """An `info` message: older turns summarised (`summary`), or handed to another thread."""
    content = message.get("content")
    for raw in content if isinstance(content, list) else []:
        block = as_dict(raw)
        if block.get("type") == "summary":
            summary = block.get("summary")
            text = stripped(summary) or stripped(as_dict(summary).get("summary"))
            thread = stripped(as_dict(summary).get("thread"))
            if text is None and thread:
                text = f"[summary in thread {thread}]"
            yield event("compaction", time, text=text, extra={"reason": "summary"})


def _usage_model(message: dict[str, object]) -> str | None:
    """The model an assistant message's usage names, else None."""
    if message.get("role") != "assistant":
        return None
    return stripped(as_dict(message.get("usage")).get("model"))


def _thread_model(thread: dict[str, object]) -> str | None:
    """The model a thread's tags or ledger name, for threads whose messages name none."""
    tags = as_dict(as_dict(thread.get("env")).get("initial")).get("tags")
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, str) and tag.startswith("model:"):
            return tag.removeprefix("model:") or None
    for entry in as_list(as_dict(thread.get("usageLedger")).get("events")):
        if isinstance(entry, dict) and stripped(entry.get("model")):
            return stripped(entry.get("model"))
    return None


def _tool_result(
    block: dict[str, object],
    time: datetime | None,
    event: Emitter,
    calls: dict[str, str | None],
) -> Iterator[Event]:
    """A tool's result block: its end, or where its run stands while not over."""
    call = (
        stripped(block.get("toolUseID"))
        or stripped(block.get("tool_use_id"))
        or stripped(block.get("toolUseId"))
    )
    run = as_dict(block.get("run"))
    status = run.get("status") or block.get("status")
    tool = calls.get(call) if call else None
    if tool in _SUB_AGENT_TOOLS and call:
        yield from _progress(run, time, event, call)
    if status in _RUNNING:
        return  # not over: the call stays open
    reason = stripped(run.get("reason"))
    if status == "blocked-on-user":
        allow = run.get("toAllow")
        extra: dict[str, JSONValue] = {"asks": "approval"}
        if isinstance(allow, list):
            extra["to_allow"] = [str(item) for item in allow]
        yield event("meta", time, call_id=call, tool=tool, extra=extra,
                    text=reason or f"{tool or 'a tool'} waits for approval")  # fmt: skip
        return
    output = run.get(
        "result", run.get("error", block.get("output", block.get("content")))
    )
    if status == "error" and isinstance(stripped(as_dict(output).get("message")), str):
        output = as_dict(output)["message"]
    if output is None and status in ("cancelled", "rejected-by-user"):
        output = reason or status
    exit_code = as_dict(output).get("exitCode")
    failed = (
        status in ("error", "failed", "rejected-by-user", "cancelled")
        or block.get("is_error") is True
        or (isinstance(exit_code, int) and exit_code != 0)
    )
    yield event(
        "tool_result", time, call_id=call, text=_flatten(output), is_error=failed
    )


def _progress(
    run: dict[str, object], time: datetime | None, event: Emitter, child: str
) -> Iterator[Event]:
    """What a Task sub-agent did so far (`run.progress[]`), as its own events."""
    for step in as_list(run.get("progress")):
        step = as_dict(step)
        if said := stripped(step.get("message")):
            yield event("assistant", time, agent_id=child, text=said)
        for used in as_list(step.get("tool_uses")):
            used = as_dict(used)
            call_id = stripped(used.get("id"))
            value = used.get("input")
            yield event("tool_call", time, agent_id=child, call_id=call_id,
                        tool=stripped(used.get("tool_name")),
                        extra={"input": value if isinstance(value, dict | list) else None})  # fmt: skip
            status = used.get("status")
            if status in _RUNNING or status == "blocked-on-user":
                continue
            yield event("tool_result", time, agent_id=child, call_id=call_id,
                        text=_flatten(used.get("result")),
                        is_error=status in ("error", "rejected-by-user", "cancelled"))  # fmt: skip


def _message_time(message: dict[str, object]) -> datetime | None:
    return ms_time(as_dict(message.get("meta")).get("sentAt")) or iso_time(
        as_dict(message.get("usage")).get("timestamp")
    )


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
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        code = value.get("exitCode")  # a shell run: what it printed, and how it ended
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        return str(value["output"]) + (f"\nexit code {code}" if failed else "")
    return json.dumps(value, ensure_ascii=False)
