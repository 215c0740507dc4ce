"""Cursor: the CLI's (`agent`) JSONL transcripts under `$CURSOR_CONFIG_DIR/projects/`, plus a
chat store, and the IDE's own conversation store (`_cursor_ide`).

What it writes: `projects/<slug>/agent-transcripts/<id>/<id>.jsonl` (before about February
2026 a plain-text `agent-transcripts/<id>.txt`, read by `_cursor_text`) (slug: the workspace
path without its leading `/`, other `/` as `-`; the IDE's agent writes here too), records
`{role, message: {content: [text | tool_use | …]}}` and `{type: "turn_ended", status}`, with
no tool results, no usage and no model; a prompt's time only in the `<timestamp>` tag its
text opens with in newer files (the user's local time, to the minute: the events after it
are dated by it, as a guess), and a `[REDACTED]` mark ending the answer's text where its
thinking was withheld (dropped). The CLI rewrites the file whole on resume.
Sub-agents: `…/<id>/subagents/<sub id>.jsonl`. The CLI also keeps
`chats/<md5(workspace)>/<id>/store.db` (SQLite: a `meta` row of hex-encoded JSON with
`name`, `mode`, `isRunEverything`, `lastUsedModel`, `createdAt`; content-addressed blobs
ordered only by a protobuf tree) and a `meta.json` beside it (`createdAtMs`, `updatedAtMs`,
sometimes `cwd`). That store is `~/.cursor/chats` or, on Linux, `~/.config/cursor/chats`;
with `CURSOR_CONFIG_DIR` set, everything is under it.

What we read: the transcripts (first query as fallback title, events), the store's `meta`
row (title, model, mode) through databases.open_sqlite, and `meta.json` (times, cwd). When no
`cwd` is recorded, the slug's dashes are resolved by matching md5 of each candidate path
against the chat folder's name. A chat no transcript holds (run in a dev container or over
SSH: the host keeps only the store) is listed and read from the store's blobs, in the order
its protobuf root gives (`_cursor_store`); a transcript stays the file read where there is
one. Without a chat store a session's cwd is unknown and its time is the file's mtime.

Usage: none is recorded in the transcripts, so no usage events. Sub-agent transcripts carry
no link to the spawning call: their events follow the parent's, each introduced by a
`subagent` event. So a sub-agent whose transcript is gone cannot be told from none spawned,
and no warning names it (as Claude Code's would).

The IDE keeps every conversation (agent, ask and plan modes, and those from before the
mirror) in `Cursor/User/globalStorage/state.vscdb` under the editors' config folder; it is
looked for whatever `CURSOR_CONFIG_DIR` says (that moves only the CLI's files). Its
conversations are read by `_cursor_ide`, with titles, times, folder, branch, model, tool
results and token counts, and open in the IDE, not through `agent --resume`. The tabs of its
old Chat panel (to early 2025), kept in each workspace's `workspaceStorage/*/state.vscdb`,
are read by `_cursor_chat`; nothing reopens those.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Unpack

import orjson

from .. import databases, files, folders
from ..diagnostics import Diagnostics, read_failed
from ..hints import named
from ..model import Event, EventKind, ResumePlan, Session
from . import _cursor_chat, _cursor_ide, _cursor_store, _cursor_text
from ._values import (
    Emitter,
    EventFields,
    as_str,
    epoch_time,
    line_start,
    one_line,
    shown_json,
    shown_text,
    type_tag,
)
from .base import Home, Location, WholeRead

NAME = "cursor"
TITLE = "Cursor (CLI and IDE)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "Cursor CLI 2026.06-2026.08 (per public readers); IDE store of Cursor 3.x (composerData "
    "_v 16, bubbles _v 3, per a public reader's notes); no real capture"
    "; the old Chat panel's tabs (Cursor 2024 to early 2025) per five public readers"
    "; resume flags from Cursor's CLI docs (not run), `--mode plan|ask` too"
)
ENV_VARS = ("CURSOR_CONFIG_DIR", "XDG_CONFIG_HOME", "VSCODE_APPDATA")


_DEFAULT_NAMES = frozenset({"", "New Agent", "New Chat"})
# the modes the CLI's `--mode` takes, both read-only (Cursor's CLI docs); the store's
# `meta.mode` says `plan` for a chat in plan mode (public readers' notes)
_READ_ONLY_MODES = frozenset({"plan", "ask"})
_REDACTED = "[REDACTED]"  # ends the answer's text where its thinking was withheld
# its end tag may be missing: the query of a line too long to hold is its first bytes.
# No \s* around the lazy group (stripped after): that made long blank runs quadratic.
_USER_QUERY = re.compile(r"<user_query>(.*?)(?:</user_query>|\Z)", re.DOTALL)
_MAX_DASHES = 14  # resolving a slug tries 2**dashes paths


def locate(home: Home) -> Location:
    """`$CURSOR_CONFIG_DIR`, else `~/.cursor`; beside it the CLI's chats in its XDG config
    folder on Linux (`$XDG_CONFIG_HOME/cursor/chats`) and the IDE's stores."""
    ide = tuple(d for d in _cursor_ide.store_dirs(home) if folders.is_dir(d))
    override = home.env_dir("CURSOR_CONFIG_DIR")
    if override is not None:
        return Location(override, f"CURSOR_CONFIG_DIR={override}", also=ide)
    chats = home.xdg("config") / "cursor" / "chats"
    return Location(home.path / ".cursor", also=(chats, *ide))


def _chat_roots(location: Location) -> list[Path]:
    return [location.root / "chats"] + [p for p in location.also if p.name == "chats"]


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    root = location.root
    for project in folders.entries(root / "projects", root):
        transcripts = Path(project.path) / "agent-transcripts"
        for entry in folders.entries(transcripts, root):
            if entry.name.endswith(".txt") and folders.file_entry(entry):
                yield Path(entry.path)  # an older plain-text transcript
                continue
            if not entry.is_dir():
                continue
            folder = Path(entry.path)
            listed = {e.name: e for e in folders.entries(folder, root)}
            transcript = listed.get(f"{entry.name}.jsonl")
            if transcript is not None and folders.file_entry(transcript):
                yield folder / f"{entry.name}.jsonl"
            if "subagents" in listed:
                for child in folders.entries(folder / "subagents", root, nested=True):
                    if child.name.endswith(".jsonl") and folders.file_entry(child):
                        yield Path(child.path)
    for chats in _chat_roots(location):
        for workspace in folders.entries(chats, chats.parent):
            for chat in folders.entries(Path(workspace.path), chats.parent):
                if not chat.is_dir():
                    continue
                names = {e.name for e in folders.entries(Path(chat.path), chats.parent)}
                for name in ("store.db", "meta.json"):
                    if name in names:
                        yield Path(chat.path) / name
    for storage in location.also:  # the IDE's own stores: global, then per workspace
        if folders.is_file(storage / _cursor_ide.STORE):
            yield storage / _cursor_ide.STORE
        yield from _cursor_ide.workspace_stores(storage)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == _cursor_ide.STORE:
        if path.parent.parent.name == "workspaceStorage":
            return _cursor_ide.parse_workspace(path, NAME, diagnostics)
        return _cursor_ide.parse(path, NAME, diagnostics)
    if path.name == "store.db":
        return _parse_store(path, diagnostics)
    if path.name == "meta.json":
        return _parse_chat_meta(path, diagnostics)
    if path.suffix == ".txt":
        return _parse_text(path, location)
    try:
        stat = path.stat()
        # a first prompt too long to hold (a pasted image or log) still titles it
        head = files.head_lines(path, diagnostics=diagnostics, openings=True)
    except FileNotFoundError:
        return []
    child = path.parent.name == "subagents"
    session_dir = path.parent.parent if child else path.parent
    slug = session_dir.parent.parent.name
    first_query: str | None = None
    created: datetime | None = None
    roles = 0
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is None or record.get("role") not in ("user", "assistant"):
            continue
        roles += 1
        if record.get("role") == "user" and first_query is None:
            first_query = one_line(_user_text(_blocks(record)), limit=None)
            created = _stamp(_blocks(record))
    if roles == 0:
        return []
    return [
        Session(
            app=NAME,
            id=path.stem,
            path=str(path),
            cwd=_resolve_slug(slug, session_dir.name, _chat_roots(location)),
            title=first_query,
            created=created,
            updated=datetime.fromtimestamp(stat.st_mtime, UTC),
            bytes=stat.st_size,
            parent_id=session_dir.name if child else None,
            precedence=1,
        )
    ]


def _parse_text(path: Path, location: Location) -> list[Session]:
    """An older plain-text transcript (`agent-transcripts/<id>.txt`)."""
    try:
        stat = path.stat()
        query, started, spoken = _cursor_text.first_query(path)
    except FileNotFoundError:
        return []
    if not spoken:
        return []
    return [
        Session(
            app=NAME,
            id=path.stem,
            path=str(path),
            cwd=_resolve_slug(
                path.parent.parent.name, path.stem, _chat_roots(location)
            ),
            title=query,
            created=started,
            updated=datetime.fromtimestamp(stat.st_mtime, UTC),
            bytes=stat.st_size,
            precedence=1,
            extra={"format": "text"},
        )
    ]


def _parse_store(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """The chat store's `meta` (title, model, mode: they fill in what the transcript lacks),
    and, where the store holds a conversation, the store itself as a session listed in its
    own right: a chat run in a dev container or over SSH has no transcript here."""
    connection = databases.open_or_say(path, "cursor", diagnostics)
    if connection is None:
        return []
    try:
        meta = _cursor_store.meta(connection)
        talk = _store_talk(connection, meta, path, diagnostics)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("cursor", path, error))
        return []
    finally:
        connection.close()
    if not meta:
        return []
    name = as_str(meta.get("name"))
    mode = (
        "run-everything"
        if meta.get("isRunEverything") is True
        else as_str(meta.get("mode"))
    )
    session_id = as_str(meta.get("agentId")) or path.parent.name
    found = [
        Session(
            app=NAME,
            id=session_id,
            title=None
            if name is None or name in _DEFAULT_NAMES
            else one_line(name, limit=None),
            created=epoch_time(meta.get("createdAt")),
            model=as_str(meta.get("lastUsedModel")),
            permission_mode=mode,
            precedence=2,
            listed=False,
        )
    ]
    if talk is not None:
        # the store as the session's file, for a chat no transcript holds: below the
        # transcript's precedence, so that one stays the file read where it exists
        workspace, prompt = talk
        stat = path.stat()
        found.append(
            Session(
                app=NAME,
                id=session_id,
                path=str(path),
                cwd=workspace,
                title=prompt,
                updated=datetime.fromtimestamp(stat.st_mtime, UTC),
                bytes=stat.st_size,
                precedence=0,
                extra={"store": "chat"},
            )
        )
    return found


_PROMPT_PROBE = 50  # messages looked through for the first prompt when listing


def _store_talk(
    connection: sqlite3.Connection,
    meta: dict[str, object],
    path: Path,
    diagnostics: Diagnostics,
) -> tuple[str | None, str | None] | None:
    """(workspace, first prompt) of the conversation the store holds, or None when it
    holds none (a chat opened and left)."""
    root_id = as_str(meta.get("latestRootBlobId"))
    tree = _cursor_store.root(connection, root_id) if root_id else None
    if tree is None:
        return None
    ids, workspace = tree
    for message in _cursor_store.messages(
        connection, ids[:_PROMPT_PROBE], diagnostics, str(path)
    ):
        if message.get("role") == "user":
            prompt = _user_text(_blocks({"message": message}))
            if prompt:
                return workspace, one_line(prompt, limit=None)
    return None


def _parse_chat_meta(path: Path, diagnostics: Diagnostics) -> list[Session]:
    meta = files.read_json_file(path, limit=1024 * 1024, diagnostics=diagnostics)
    if not isinstance(meta, dict):
        return []
    return [
        Session(
            app=NAME,
            id=path.parent.name,
            cwd=as_str(meta.get("cwd")),
            created=epoch_time(meta.get("createdAtMs")),
            updated=epoch_time(meta.get("updatedAtMs")),
            precedence=3,
            listed=False,
        )
    ]


def _resolve_slug(slug: str, session_id: str, chat_roots: list[Path]) -> str | None:
    """The workspace path whose md5 names the chat folder holding this session, if any."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    digests = {
        workspace.name
        for chats in chat_roots
        for workspace in folders.entries(chats)
        if (Path(workspace.path) / session_id).is_dir()
    }
    if not digests or not slug:
        return None
    pieces = slug.split("-")
    if len(pieces) - 1 > _MAX_DASHES:
        return None
    for joins in itertools.product(("/", "-"), repeat=len(pieces) - 1):
        candidate = "/" + "".join(
            p + j for p, j in zip(pieces, (*joins, ""), strict=True)
        )
        if hashlib.md5(candidate.encode("utf-8")).hexdigest() in digests:
            return candidate
    return None


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    if session.path.rpartition("#")[0].endswith(_cursor_ide.STORE):
        yield from _cursor_ide.read(session, diagnostics, full=full)
        return
    path = Path(session.path)
    if path.suffix == ".txt":
        try:
            yield from _cursor_text.read(path, session.id, diagnostics)
        except FileNotFoundError:
            diagnostics.problem(f"{path}: vanished while reading")
        return
    reader = _Reader(session, diagnostics)
    if path.name == "store.db":  # a chat no transcript holds
        yield from reader.store(path, full=full)
        return
    try:
        yield from reader.transcript(
            path, full=full, offset=line_start(path, offset), agent=None
        )
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")
        return
    if offset or path.parent.name == "subagents":
        return
    for child in folders.entries(path.parent / "subagents"):
        if not child.name.endswith(".jsonl"):
            continue
        child_id = child.name.removesuffix(".jsonl")
        yield reader.event(
            "subagent",
            None,
            text=_child_query(Path(child.path)),
            extra={"child_id": child_id, "agent_type": None},
        )
        try:
            yield from reader.transcript(
                Path(child.path), full=full, offset=0, agent=child_id
            )
        except FileNotFoundError:
            diagnostics.problem(f"{child.path}: vanished while reading")


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only a store's last `rows` messages (see base.py): each message's events
    are its own alone, so those of the last ones are what the whole read ends with."""
    path = session.path or ""
    if path.rpartition("#")[0].endswith(_cursor_ide.STORE):
        yield from _cursor_ide.read(session, diagnostics, full=full, last=rows)
    elif Path(path).name == "store.db":
        yield from _Reader(session, diagnostics).store(Path(path), full=full, last=rows)
    else:
        raise WholeRead("a transcript file is read from its end")


def _child_query(path: Path) -> str | None:
    try:
        head = files.head_lines(path, 5)
    except FileNotFoundError:
        return None
    for line in head:
        record = files.parse_json(line)
        if record is not None and record.get("role") == "user":
            return one_line(_user_text(_blocks(record)), limit=None)
    return None


class _Reader:
    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.emit = Emitter(session.id)
        self.time: datetime | None = None  # the last prompt's `<timestamp>`

    def event(
        self, kind: EventKind, agent: str | None, **fields: Unpack[EventFields]
    ) -> Event:
        fields["agent_id"] = agent
        # the time of the prompt these events answer: a guess for all but the prompt
        return self.emit(kind, self.time, estimated=kind != "user", **fields)

    def transcript(
        self, path: Path, *, full: bool, offset: int, agent: str | None
    ) -> Iterator[Event]:
        self.time = None  # a sub-agent's own prompts date its events
        for _line, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=full
        ):
            role = record.get("role")
            if role == "user":
                self.time = _stamp(_blocks(record)) or self.time
                text = _user_text(_blocks(record))
                if text:
                    yield self.event("user", agent, text=text)
                yield from self.blocks(record, agent, user=True)
            elif role == "assistant":
                yield from self.blocks(record, agent, user=False)
            elif record.get("type") == "turn_ended":
                yield self.event(
                    "turn_end", agent, extra={"reason": as_str(record.get("status"))}
                )
            elif role == "system":
                continue
            else:
                kind = (
                    record.get("type")
                    if isinstance(record.get("type"), str)
                    else f"role/{role}"
                )
                self.diagnostics.unknown_type(str(kind))

    def store(
        self, path: Path, *, full: bool, last: int | None = None
    ) -> Iterator[Event]:
        """A chat store's conversation: its messages in the root blob's order (`last`:
        only the last ones)."""
        connection = databases.open_or_say(path, "cursor", self.diagnostics)
        if connection is None:
            return
        try:
            root_id = as_str(_cursor_store.meta(connection).get("latestRootBlobId"))
            tree = _cursor_store.root(connection, root_id) if root_id else None
            if tree is None:
                self.diagnostics.problem(
                    f"cursor: {path} holds no conversation we know"
                )
                return
            ids = tree[0]
            if last is not None:
                if len(ids) <= last:
                    raise WholeRead("no more messages than asked for")
                ids = ids[-last:]
            for message in _cursor_store.messages(
                connection, ids, self.diagnostics, str(path), full=full
            ):
                role = message.get("role")
                record = {"role": role, "message": message}
                if role == "user":
                    text = _user_text(_blocks(record))
                    if text:
                        yield self.event("user", None, text=text)
                    yield from self.blocks(record, None, user=True)
                elif role in ("assistant", "tool"):  # a tool message holds results
                    yield from self.blocks(record, None, user=False)
                elif role != "system":  # the system prompt: not the conversation
                    self.diagnostics.unknown_type(f"store/role/{role}")
        except sqlite3.Error as error:
            self.diagnostics.problem(
                read_failed("cursor", path, error, "stopped reading")
            )
        finally:
            connection.close()

    def blocks(
        self, record: Mapping[str, object], agent: str | None, *, user: bool
    ) -> Iterator[Event]:
        texts: list[str] = []

        def flush() -> Iterator[Event]:
            if texts:
                yield self.event("assistant", agent, text="\n".join(texts))
                texts.clear()

        for block in _blocks(record):
            kind = type_tag(block.get("type"))
            if kind == "text":
                value = shown_text(block.get("text"))
                if value and not user:
                    value = _unredacted(value)
                if value and not user:
                    texts.append(value)
            elif kind in ("thinking", "reasoning"):
                yield from flush()
                value = shown_text(block.get("thinking")) or shown_text(
                    block.get("text")
                )
                if value and value.strip():
                    yield self.event("thinking", agent, text=value)
            elif kind in ("tool_use", "tool_call", "tool-call"):
                yield from flush()
                yield self.event(
                    "tool_call",
                    agent,
                    # the transcript's `name`/`id`; the chat store's AI SDK parts say
                    # `toolName`/`toolCallId`
                    tool=as_str(block.get("name")) or as_str(block.get("toolName")),
                    call_id=as_str(block.get("id")) or as_str(block.get("toolCallId")),
                    extra={"input": shown_json(block.get("input", block.get("args")))},
                )
            elif kind in ("tool_result", "tool-result"):
                yield from flush()
                result = block.get("content", block.get("result"))
                yield self.event(
                    "tool_result",
                    agent,
                    call_id=as_str(block.get("tool_use_id"))
                    or as_str(block.get("toolCallId"))
                    or as_str(block.get("id")),
                    text=_content_text(result)
                    or (
                        orjson.dumps(shown_json(result)).decode()
                        if isinstance(result, dict | list)
                        else None
                    ),
                    is_error=block.get("is_error") is True
                    or block.get("isError") is True,
                )
            elif kind == "image":
                if not user:
                    texts.append("[image]")
            elif kind not in _UNREADABLE_BLOCKS:  # e.g. command_output, reported by
                # third-party readers of real files: what it holds is not known yet
                self.diagnostics.unknown_type(
                    f"{'user' if user else 'assistant'}/{kind}"
                )
        yield from flush()


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`agent --resume <id>` in the workspace (the CLI finds chats by md5 of the cwd); an
    IDE conversation opens in the IDE only. A chat the store records in plan or ask mode
    (`meta.mode`) reopens in it with `--mode` (the CLI's two read-only modes): never in
    the default agent mode, which edits files. Another mode adds nothing."""
    if session.parent_id or not session.cwd or session.extra.get("store") == "ide":
        return None
    argv = ["agent", "--resume", session.id]
    if session.model:
        argv += ["--model", session.model]
    if session.permission_mode in _READ_ONLY_MODES:
        argv += ["--mode", session.permission_mode]
    withheld: list[str] = []
    if session.permission_mode == "run-everything":
        if keep_permissions:
            argv.append("--force")
        else:
            withheld.append("--force")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="agent",
        install_hint="curl https://cursor.com/install -fsS | bash",
        notes=("older installs name the program cursor-agent",),
        withheld=tuple(withheld),
        process_names=("cursor-agent",),  # its launcher runs node as `exec -a "$0"`
    )


# the installer's folder (`~/.local/share/cursor-agent/versions/<v>/cursor-agent`), which
# its `agent` and `cursor-agent` links on PATH point into
_CLI_FOLDER = "cursor-agent"


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The Cursor CLI on PATH: `agent` where it is Cursor's, else an older install's
    `cursor-agent`. `agent` is a common name: one that neither lies in Cursor's install
    folder nor is the same file as `cursor-agent` is another program, never run."""
    other = shutil.which(_CLI_FOLDER)
    agent = shutil.which(plan.program)
    if agent is not None:
        real = os.path.realpath(agent)
        if _CLI_FOLDER in Path(real).parts or (
            other is not None and os.path.realpath(other) == real
        ):
            return plan, agent
    if other is None:
        return plan, None
    return replace(
        plan,
        argv=(_CLI_FOLDER, *plan.argv[1:]),
        program=_CLI_FOLDER,
        notes=tuple(n for n in plan.notes if _CLI_FOLDER not in n),
        process_names=("agent",),
    ), other


def resume_refusal(session: Session) -> str | None:
    """Why a tab of the IDE's old Chat panel has no resume command."""
    if session.extra.get("panel") != _cursor_chat.PANEL:
        return None
    return (
        "this is a tab of the Cursor IDE's old Chat panel: no Cursor command reopens one "
        "(the CLI resumes only its own chats, and today's IDE keeps chats elsewhere); "
        f"{named('show', f'{session.app}:{session.id}')} prints it."
    )


# --- small helpers ----------------------------------------------------------------------

# blocks that hold nothing readable (redacted thinking), passed over without a count
_UNREADABLE_BLOCKS = frozenset({"redacted", "redacted-reasoning", "redacted_thinking"})


def _blocks(record: Mapping[str, object]) -> list[dict[str, object]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return (
        [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    )


def _user_text(blocks: list[dict[str, object]]) -> str | None:
    """What the user typed: the text blocks, with Cursor's <user_query> wrapper taken off."""
    texts = [
        t
        for b in blocks
        if b.get("type") == "text" and (t := shown_text(b.get("text")))
    ]
    if not texts:
        return None
    joined = "\n".join(texts)
    queries = [query.strip() for query in _USER_QUERY.findall(joined)]
    return "\n".join(queries) if queries else _cursor_text.unstamped(joined).strip()


def _unredacted(text: str) -> str:
    """An answer's text without the mark withheld thinking leaves at its end."""
    kept = text.rstrip()
    return kept[: -len(_REDACTED)].rstrip() if kept.endswith(_REDACTED) else text


def _stamp(blocks: list[dict[str, object]]) -> datetime | None:
    """The time a prompt's `<timestamp>` gives (the user's local time, to the minute)."""
    for block in blocks:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            found = _cursor_text.stamp(text)
            if found is not None:
                return found
    return None


def _content_text(value: object) -> str | None:
    if isinstance(value, str):
        return shown_text(value)
    if isinstance(value, list):
        texts = [
            t for b in value if isinstance(b, dict) and (t := shown_text(b.get("text")))
        ]
        return "\n".join(texts) if texts else None
    return None
