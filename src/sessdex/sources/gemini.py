"""Gemini CLI: chats under <home>/.gemini/tmp/<project>/chats/, JSONL with patch semantics.

What the app writes: since ~0.40 one `session-<UTC minute>-<id8>.jsonl` per session. Line 1 is
a header (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind` main|subagent); then
message records (`id`, `timestamp`, `type` user|gemini|info|error|warning, `content`, and on
`gemini` lines `thoughts`, `tokens`, `model`, `toolCalls` whose `result` holds the tool output),
`{"$set": {...}}` patches and `{"$rewindTo": id}`. A message is re-appended whenever it changes
(the same id written first without, then with its tool calls): the last write wins and keeps the
first position. `$rewindTo` drops that message and all later ones (an unknown id drops all).
A `$set` carrying `messages` is a checkpoint of the whole list (written at start, on resume,
after compression); `$set.summary` is the generated one-line summary, which the TUI writes into
the *previous* session when it starts. A resume appends a second header to the same file.
Sub-agents get their own file, `chats/<parent session id>/<child id>.jsonl` (`kind: subagent`),
and the spawning tool call carries `agentId`; a sub-agent's turn ends at its `complete_task`
call, never at words written before a call. Before ~0.40 a session was one JSON document
(`session-*.json`, `{sessionId, projectHash, startTime, lastUpdated, messages, summary}`),
rewritten whole; a resume converts it to `.jsonl` beside it, so both can exist (`.jsonl` wins).
`show --tail` finds such a chat's last messages from its end (`read_last`).
`watch` asks the running CLI's processes whether an answer's calls run: not an MCP server
its settings name, nor a `!` command the user typed (`helper_process`).
`gemini --session-file <file>` (since 0.43: a chat or an `/export-session` file) imports into a
new chat, `session-<epoch ms>-<id8>.jsonl`: the header (new id, the source's summary), an
`info` note `import-<ms>` "Imported session from <file>", then the source's user and model
messages with their ids, times and tokens; nothing else names the source. When this home
still holds it (the chat `<file>` names, the chat of the session an exported `<file>` starts
with, or a chat beside the import, holding the first copied model message's id:
`_import_source`), the note becomes a copy note naming it (`extra["forked_from"]`,
`extra["imported_from"]`) and the copies are billed there, not here. The listing names it
too (`forked_from_id`) where the note names its chat (or an exported file of it), from
that chat's first bytes: it searches no chat for the copied messages (`_listed_source`).

The project folder is a short name mapped to its path in `projects.json` (and by a
`.project_root` marker inside it); older folders (before 0.29, and never renamed for a project
not opened since) are the sha256 of the path, mapped back when `projects.json` or
`trustedFolders.json` names that path, or when a path the chat's tools took (file tools take
absolute paths) lies in it; else `cwd` stays None. No branch, approval mode or CLI version is
recorded.

What we read for a listing: the head and a bounded tail of each chat (header, first user
message, last `summary`, last `model`, last update). `read` streams the file once to build the
final message order (holding only line offsets), then re-reads each final record by offset.
Checkpoints add the messages they name that we have not seen (the synthetic `<id>_response`
turns of a resume, a compression summary) but never remove any: a checkpoint that both drops
known messages and brings new ones is shown as a compaction. When Gemini masks old tool output
or trims content it writes the whole history again under new ids (no tokens) and checkpoints
only those copies: the originals stay, the copies are hidden, and one compaction
(`extra["reason"] = "history rewritten"`) marks the place. Known messages keep their own
richer record (the checkpoint copy lacks tokens and tool calls). Tool calls and results are
de-duplicated by call id, since a result is both on the model message and in the next user turn.

What we ignore, and why: the `<session_context>` preamble (boilerplate date/OS/folder listing),
(a hook's `<hook_context>` is shown as injected, never the title, nor are slash commands),
`$set` keys other than `summary`/`lastUpdated`/`messages` (`memoryScratchpad`, `directories`),
`checkpoints/`, `*.unreadable-*` files kept aside by gemini.

`tmp/<project>/logs.json`, the prompt log (`[{sessionId, messageId, timestamp, type: "user",
message}]`, every prompt of every session of the project, for the up-arrow history), is read
for the sessions no chat file holds: those of releases before chats were recorded (mid-2025),
and those whose chat was deleted. Such a session lists from its prompts (title, times) and
shows them; it has no replies, usage or resume. A session a chat file holds takes everything
from the chat (the log's fragment has the lowest precedence).

Usage: one `usage` event per `gemini` message id, from its last write; `input_tokens` = `input`
- `cached` + `tool` (the API's prompt count includes the cached part), `output_tokens` =
`output` + `thoughts` (thoughts are billed as output), `reasoning_tokens` = `thoughts`. Tokens of
a message later dropped by `$rewindTo` were still billed: they are kept, at the rewind.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, partial
from pathlib import Path
from typing import BinaryIO

import orjson

from .. import files, folders
from ..diagnostics import ODD_COUNT, Diagnostics, odd_in
from ..model import Event, JSONValue, ResumePlan, Session
from . import _gemini_messages as messages
from . import _hashed_folders as hashed
from . import _json_chat as json_chat
from . import _prompt_log as prompt_log
from ._values import (
    Emitter,
    dicts,
    iso_time,
    items,
    line_start,
    obj,
    one_line,
    stat_size,
    text_of,
    type_tag,
)
from .base import Home, Location, Opened, ResumeFlags, WholeRead, opened_by_flags

NAME = "gemini"
TITLE = "Gemini CLI"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "gemini 0.61.0 (JSONL chats; the ChatRecordingService of its npm bundle); pre-0.40 one-file JSON chats from public samples"
    "; sha256-named project folders before 0.29 and trustedFolders.json from gemini-cli's source"
    "; resume checked against 0.61.0's --help"
    "; --session-file imports from 0.61.0's resolveSessionId and a real run; 0.61.0 is"
    " still the newest release (npm, 2026-12-05)"
)
ENV_VARS = ("GEMINI_CLI_HOME",)
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("gemini",)

INSTALL_HINT = "npm install -g @google/gemini-cli"
SUBAGENT_DEPTH = 4  # sub-agents of sub-agents are followed this deep
SUBAGENT_ENDS_WITH = "complete_task"  # the call that ends a sub-agent's run
SAFE_MODES = ("default", "plan")  # approval modes at least as strict as the default
# how a running gemini says which session it has open (0.61.0's --help; a session id
# resumes too, checked with the real CLI)
RESUME_FLAGS = ResumeFlags(
    resume=("-r", "--resume"),
    new_id=("--session-id",),
    latest_values=("latest",),
    bare_latest=True,
)
_TAIL_KEYS = (b'"summary"', b'"model"', b'"lastUpdated"', b'"timestamp"')
# where an imported chat's copies are looked for in the chats beside it
SOURCE_FILES = 200
SOURCE_BYTES = 512 * 1024 * 1024
# `--session-file` names the chat it imports into by the epoch milliseconds, not the minute
_IMPORTED_NAME = re.compile(r"session-[0-9]{10,}-")


# --- where -----------------------------------------------------------------------------


def locate(home: Home) -> Location:
    """`$GEMINI_CLI_HOME/.gemini` if set (it names a home, not the .gemini folder), else ~/.gemini."""
    base = home.env_dir("GEMINI_CLI_HOME")
    if base is not None:
        return Location(base / ".gemini", override=f"GEMINI_CLI_HOME={base}")
    return Location(home.path / ".gemini")


# where `scan` reads a chat, a project's prompt log or a folder of them (see base.py):
# a broken link elsewhere (a note in a project's folder) hides none
SESSION_NAMES = (
    "tmp",
    "tmp/*",
    "tmp/*/logs.json",
    "tmp/*/chats",
    "tmp/*/chats/*",  # a chat, or a lead's folder of sub-agents
    "tmp/*/chats/*/*.jsonl",
)


def scan(location: Location) -> Iterator[Path]:
    """Every chat file: tmp/<project>/chats/session-*.json(l) and chats/<parent id>/*.jsonl."""
    if not location.exists:
        return iter(())
    return iter(list(_scan(location.root)))


def _scan(root: Path) -> Iterator[Path]:
    for name in _MAPS:
        if folders.is_file(root / name):
            yield root / name  # a context file (`context_of`)
    for project in folders.entries(root / "tmp", root):
        if not project.is_dir():
            continue
        for item in folders.entries(Path(project.path), root):
            if item.name == prompt_log.FILE_NAME and item.is_file():
                yield Path(item.path)
            elif item.name == _MARKER and item.is_file():
                yield Path(item.path)  # a context file (`context_of`)
            elif item.name == "chats" and item.is_dir():
                yield from _chats(Path(item.path), root)


def _chats(chats: Path, root: Path) -> Iterator[Path]:
    for entry in folders.entries(chats, root):
        if entry.name.startswith("session-") and entry.name.endswith(
            (".json", ".jsonl")
        ):
            if folders.file_entry(entry):  # a folder so named hides a chat: said
                yield Path(entry.path)
        elif entry.is_dir():
            # chats/<parent id>/ holds only sub-agents' files
            for child in folders.entries(Path(entry.path), root, nested=True):
                if child.name.endswith(".jsonl") and folders.file_entry(child):
                    yield Path(child.path)


# what names a project's path (`_project_cwd`): files no chat's listing holds
_MARKER = ".project_root"  # in tmp/<project>/
_MAPS = ("projects.json", "trustedFolders.json")  # beside tmp/


def context_of(path: str, location: Location) -> str | None:
    """The folder whose chats' paths a project's marker or a map of projects names."""
    folder, base = os.path.split(path)
    if base == _MARKER:
        return folder
    return os.path.join(folder, "tmp") if base in _MAPS else None


# --- listing ---------------------------------------------------------------------------


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """What one chat file says about its session, from its head and tail."""
    if path.name == _MARKER or path.name in _MAPS:  # read with chats (`context_of`)
        return []
    try:
        size = path.stat().st_size
    except OSError:
        diagnostics.skip(str(path), 0, "vanished")
        return []
    if path.name == prompt_log.FILE_NAME:
        cwd = _project_cwd(path.parent, None, location.root)
        extra: dict[str, JSONValue] = {"project": path.parent.name}
        return prompt_log.sessions(path, diagnostics, NAME, cwd, extra)
    if path.suffix == ".json":
        return _parse_legacy(path, location, size, diagnostics)
    return _parse_jsonl(path, location, size, diagnostics)


def resume_refusal(session: Session) -> str | None:
    """Why `resume` gives no command for a session only the prompt log holds, or for one
    whose id `gemini --resume` reads as something else."""
    return _read_otherwise(session.id) or prompt_log.refusal(
        session, "gemini", _chat_places(session)
    )


def _chat_places(session: Session) -> Iterator[Path]:
    """The chat files beside a session's prompt log (`chats/session-<time>-<first 8 of
    its id>.json[l]`) that may be its own: named where one could not be read."""
    log = prompt_log.log_of(session)
    start = session.id[:8].lower()
    if log is None or len(start) < 8:
        return
    chats = log.parent / "chats"
    try:  # names only: a pipe among them, which a listing passes over, is one to name
        names = sorted(os.listdir(chats))
    except OSError:
        return
    for name in names:
        if name.lower().startswith("session-") and name.lower().endswith(
            (f"-{start}.json", f"-{start}.jsonl")
        ):
            yield chats / name


def _read_otherwise(session_id: str) -> str | None:
    """Why `gemini --resume <id>` could open another session than this one: it trims
    the value, takes `latest` as the project's newest session before it looks for an
    id, and a number it finds no session by as a place in its list (0.61's
    SessionSelector). None for any other id."""
    value = session_id.strip()
    if value == "latest":
        read_as = "its latest session"
    elif re.fullmatch(r"[1-9][0-9]*", value):
        read_as = "a place in its list"
    elif value != session_id:
        read_as = f"{value!r} (without its blanks)"
    else:
        return None
    return (
        f"gemini --resume would read the id {session_id!r} as {read_as}, not as this "
        "session; open it with /resume in gemini."
    )


@dataclass(slots=True)
class _Listing:
    header: dict[str, object] | None = None
    first_user: str | None = None
    summary: str | None = None
    model: str | None = None
    updated: datetime | None = None
    tool_paths: list[str] = field(default_factory=list)
    # the file `gemini --session-file` imported, named by the chat's first note
    imported_from: str | None = None
    opened: bool = False  # a message was seen in the head
    # the first message's time: the start where a header cut short lost its own
    first_time: datetime | None = None

    def saw(self, record: dict[str, object], *, in_head: bool) -> None:
        patch = obj(record, "$set")
        if "$set" in record or "$rewindTo" in record:
            self.summary = one_line(text_of(patch, "summary")) or self.summary
            self._time(patch.get("lastUpdated"))
        elif text_of(record, "id"):
            self._time(record.get("timestamp"))
            if in_head and not self.opened:  # an import's note comes first
                self.opened = True
                self.imported_from = messages.imported_from(record)
                self.first_time = iso_time(record.get("timestamp"), naive="local")
            if record.get("type") == "gemini":
                self.model = text_of(record, "model") or self.model
                if len(self.tool_paths) < hashed.PATHS_TRIED:  # as many as are tried
                    self.tool_paths += hashed.tool_paths([record])
            elif record.get("type") == "user" and in_head and self.first_user is None:
                self.first_user = one_line(messages.title_text(record))
        elif text_of(record, "sessionId"):
            self.header = self.header or record
            self.summary = one_line(text_of(record, "summary")) or self.summary
            self._time(record.get("lastUpdated"))

    def _time(self, value: object) -> None:
        moment = iso_time(value, naive="local")
        if moment is not None and (self.updated is None or moment > self.updated):
            self.updated = moment


def _parse_jsonl(
    path: Path, location: Location, size: int, diagnostics: Diagnostics
) -> list[Session]:
    name, listing = str(path), _Listing()
    # a first prompt too long to hold (a pasted image or log) still titles it
    head = files.head_lines(path, diagnostics=diagnostics, openings=True)
    head_end = head[-1].end if head else 0
    for line in head:
        if (record := files.parse_json(line, diagnostics, name)) is not None:
            listing.saw(record, in_head=True)
    tail = files.tail_lines(path) if size > head_end else []
    # the summary is written once: after a resume the chat grows past it, mid-file
    tail_start = tail[0].offset if tail else size
    for line in files.lines_with(
        path, b'"summary"', head_end, tail_start, diagnostics=diagnostics
    ):
        record = files.parse_json(line)
        if record is not None and text_of(obj(record, "$set"), "summary"):
            listing.saw(record, in_head=False)
            break
    for line in tail:
        # the tail may overlap the head; a torn last line is not written yet (not counted)
        wanted = line.offset >= head_end and any(k in line.data for k in _TAIL_KEYS)
        if wanted and (record := files.parse_json(line)) is not None:
            listing.saw(record, in_head=False)
    header = listing.header
    if header is None:
        diagnostics.skip(name, 1, "bad value")
        return []
    parent_id = path.parent.name if path.parent.name != "chats" else None
    subagent = header.get("kind") == "subagent" or parent_id is not None
    project = _chats_dir(path).parent
    directories = [d for d in items(header, "directories") if isinstance(d, str)]
    cwd = _project_cwd(
        project, header.get("projectHash"), location.root, listing.tool_paths
    )
    session_id = str(header["sessionId"])
    extra: dict[str, JSONValue] = {
        "project": project.name,
        "kind": text_of(header, "kind") or "main",
    }
    imported = listing.imported_from
    if (
        imported is not None
        and not subagent
        and (source := _listed_source(path, imported))
    ):
        extra["forked_from_id"] = source
    return [
        Session(
            app=NAME,
            id=session_id,
            path=name,
            cwd=cwd or (directories[0] if subagent and directories else None),
            # a sub-agent's `summary` is its final answer, not a title: its task says more
            title=listing.first_user
            if subagent
            else (listing.summary or listing.first_user),
            created=iso_time(header.get("startTime"), naive="local")
            or listing.first_time,
            updated=listing.updated,
            model=listing.model,
            bytes=size,
            parent_id=parent_id if subagent else None,
            precedence=1,
            extra=extra,
        ),
        *_typed_children(path, session_id, size),
    ]


def _typed_children(path: Path, session_id: str, size: int) -> list[Session]:
    """The type of each sub-agent this chat spawned, as fragments of the sub-agents'
    sessions: a sub-agent's own file does not say it, the spawning call does
    (`agentId`, `args.agent_name`). The call may lie mid-chat, so the whole file is
    searched for it (a byte search, as for the summary), only where the chat has a
    folder of sub-agents; past MIDDLE_CAP it is not, and the type stays unknown."""
    spawns = _spawns(path, session_id)
    if spawns is None or not spawns.is_dir():
        return []
    types: dict[str, str] = {}
    for line in files.lines_with(path, b'"agentId"', 0, size):
        record = files.parse_json(line)
        for call in dicts(record, "toolCalls"):
            child = text_of(call, "agentId")
            if child is None or child in types:
                continue  # newest first: a call written again keeps its last word
            kind = text_of(obj(call, "args"), "agent_name") or text_of(
                obj(call, "resultDisplay"), "agentName"
            )
            if kind is not None:
                types[child] = kind
    return [
        Session(app=NAME, id=child, agent_type=kind, precedence=-1, listed=False)
        for child, kind in types.items()
    ]


def _parse_legacy(
    path: Path, location: Location, size: int, diagnostics: Diagnostics
) -> list[Session]:
    found = json_chat.listing(path, size, diagnostics, NAME)
    if found is None:
        return []
    project = _chats_dir(path).parent
    return [
        Session(
            app=NAME,
            id=found.session_id,
            path=str(path),
            cwd=_project_cwd(
                project, found.project_hash, location.root, found.tool_paths
            ),
            title=found.summary or found.prompt,
            created=found.started,
            updated=found.updated,
            model=found.model,
            bytes=size,
            precedence=0,  # a resume converts it to .jsonl beside it, which says more
            extra={"project": project.name, "kind": "main", "format": "json"},
        )
    ]


def _chats_dir(path: Path) -> Path:
    return path.parent if path.parent.name == "chats" else path.parent.parent


def _spawns(path: Path, session_id: str | None) -> Path | None:
    """The folder of the sub-agents' chats of the chat at `path`, named by its session id
    (read from the chat) where that is one plain name: `..` or a NUL led elsewhere."""
    if not session_id or not folders.plain_name(session_id):
        return None
    return _chats_dir(path) / session_id


def _project_cwd(
    project: Path, project_hash: object, root: Path, tool_paths: Iterable[str] = ()
) -> str | None:
    """The project's path: its `.project_root` marker, else `projects.json`; for a folder
    named by the sha256 of the path (before Gemini 0.29's short names, and never renamed if
    the project was not opened since), a folder of `trustedFolders.json` or one holding a
    path the chat's tools took whose sha256 is that name; else None."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    try:
        with files.open_regular(project / ".project_root") as stream:
            marker = stream.read(64 * 1024).decode("utf-8", "replace").strip()
    except OSError:
        marker = ""
    if marker:
        return marker
    projects = hashed.cached_pairs(root / "projects.json", _projects)
    hashes = {project.name} if hashed.HASH_NAME.match(project.name) else set()
    hashes |= {project_hash} if isinstance(project_hash, str) else set()
    for path, slug in projects:
        if slug == project.name or hashlib.sha256(path.encode()).hexdigest() in hashes:
            return path
    if not hashes:
        return None
    trusted = hashed.trusted_folders(root / "trustedFolders.json")
    return hashed.hashed_folder(hashes, trusted) or hashed.hashed_folder(
        hashes, tool_paths, ancestors=True
    )


@lru_cache(maxsize=8)
def _projects(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    projects = obj(files.read_json_file(path, limit=hashed.LIST_CAP), "projects")
    return tuple((str(k), v) for k, v in projects.items() if isinstance(v, str))


# --- the final message order -------------------------------------------------------------

# Where a message's final record is: (line offset, line end, index in a checkpoint or -1,
# line number: what --verbose names of it)
_Ref = tuple[int, int, int, int]


@dataclass(slots=True)
class _Slot:
    # "message"; "past" (a message a re-record replaced: shown, no longer tracked);
    # "copy" (a re-recorded copy of one: tracked, not shown); "rewind" (refs of the
    # dropped messages) or "compaction"
    kind: str
    id: str | None = None
    ref: _Ref | None = None  # compaction: the summary turn, if there is one
    dropped: list[_Ref] = field(default_factory=list)
    count: int = 0  # compaction: how many known messages the checkpoint left out
    rewritten: bool = False  # compaction: the history was written again, not summarised


class _Timeline:
    """The final message order, from one streaming pass that keeps only line offsets."""

    def __init__(self) -> None:
        self.slots: list[_Slot] = []
        self.where: dict[str, int] = {}
        self.session_id: str | None = None
        self.imported_from: str | None = None  # the file `--session-file` named
        self.imported: list[str] = []  # the ids of the messages that import copied
        # the first copied model message's (random) id: a user message's may be a hash of
        # its text, the same in every chat (the `<session_context>` preamble's)
        self.probe: str | None = None
        self.subagent = False  # its header says it is a sub-agent's chat
        self._importing = False

    def _reindex(self) -> None:
        self.where = {
            s.id: i
            for i, s in enumerate(self.slots)
            if s.kind in ("message", "copy") and s.id
        }

    def add(
        self, line: files.Line, record: dict[str, object], diagnostics: Diagnostics
    ) -> None:
        message_id = text_of(record, "id")
        self._importing = self._importing and bool(message_id)
        if "$rewindTo" in record:
            self._rewind(record["$rewindTo"])
        elif "$set" in record:
            if isinstance(obj(record, "$set").get("messages"), list):
                self._checkpoint(line, items(obj(record, "$set"), "messages"))
        elif message_id and type_tag(record.get("type")) not in messages.MESSAGE_TYPES:
            diagnostics.unknown_type(f"message:{record.get('type')}")
        elif message_id:
            if self._importing:
                self.imported.append(message_id)
                if self.probe is None and record.get("type") == "gemini":
                    self.probe = message_id
            elif not self.slots and self.imported_from is None:
                self.imported_from = messages.imported_from(record)
                self._importing = self.imported_from is not None
            ref = (line.offset, line.end, -1, line.number)
            if message_id in self.where:
                self.slots[
                    self.where[message_id]
                ].ref = ref  # last write wins, first place stays
            else:
                self.where[message_id] = len(self.slots)
                self.slots.append(_Slot("message", message_id, ref))
        elif text_of(record, "sessionId"):
            self.session_id = self.session_id or text_of(record, "sessionId")
            self.subagent = self.subagent or record.get("kind") == "subagent"
        else:
            diagnostics.unknown_type("record:" + ",".join(sorted(record)[:3]))

    def _rewind(self, target: object) -> None:
        cut = (
            self.where.get(target, 0) if isinstance(target, str) else 0
        )  # unknown: drop all
        removed, self.slots = self.slots[cut:], self.slots[:cut]
        dropped = [
            r
            for s in removed
            for r in ([s.ref] if s.kind == "message" and s.ref else s.dropped)
        ]
        if dropped:
            self.slots.append(_Slot("rewind", dropped=dropped))
        self._reindex()

    def _checkpoint(self, line: files.Line, messages: list[object]) -> None:
        named: set[str] = set()
        fresh: list[tuple[int, _Slot]] = []  # (insert before this many slots, slot)
        previous: int | None = None
        for position, message in enumerate(messages):
            message_id = text_of(message, "id")
            if not message_id:
                continue
            named.add(message_id)
            ref = (line.offset, line.end, position, line.number)
            if message_id in self.where:
                previous = self.where[message_id]
                slot = self.slots[previous]
                if slot.ref is not None and slot.ref[2] >= 0:
                    slot.ref = ref  # a newer checkpoint copy replaces an older one
            else:
                fresh.append(
                    (
                        len(self.slots) if previous is None else previous + 1,
                        _Slot("message", message_id, ref),
                    )
                )
        left = set(self.where) - named
        left_out = len(left)
        if not fresh and left and self._rerecorded(named, left):
            return
        if fresh and left_out:
            # the history was replaced (compression): a marker carrying the summary turn
            marker, (_at, summary) = _Slot("compaction", count=left_out), fresh[0]
            first = messages[summary.ref[2]] if summary.ref is not None else None
            if (
                summary.ref is not None
                and isinstance(first, dict)
                and first.get("type") == "user"
            ):
                marker.ref, fresh = summary.ref, fresh[1:]
            self.slots += [marker, *(slot for _at, slot in fresh)]
        for shift, (at, slot) in enumerate(fresh if not left_out else []):
            self.slots.insert(at + shift, slot)
        self._reindex()

    def _rerecorded(self, named: set[str], left: set[str]) -> bool:
        """Gemini re-records the whole history when it masks old tool output or trims
        content: each message is written again under a new id, then a checkpoint names
        only the copies. Keep the originals (they hold what was said), mark the rewrite,
        and hide the copies; later checkpoints name the copies, not the originals."""
        kept = [self.where[i] for i in named if i in self.where]
        gone = [self.where[i] for i in left]
        if not kept or min(kept) < max(gone):
            return False  # some message kept its place: not a copy of the whole history
        for position in gone:
            self.slots[position].kind = "past"
        for position in kept:
            self.slots[position].kind = "copy"
        marker = _Slot("compaction", count=len(gone), rewritten=True)
        self.slots.insert(min(kept), marker)
        self._reindex()
        return True

    def resolve(self, path: Path, full: bool) -> Iterator[messages.Item]:
        with _RecordReader(path, full) as reader:
            for slot in self.slots:
                found = reader.get(slot.ref) if slot.ref is not None else None
                if slot.kind in ("message", "past") and found is not None:
                    line = slot.ref[3] if slot.ref is not None else 0
                    yield messages.Item("message", found, line=line)
                elif slot.kind == "rewind":
                    read = [
                        (m, r[3])
                        for r in slot.dropped
                        if (m := reader.get(r)) is not None
                    ]
                    yield messages.Item(
                        "rewind",
                        dropped=[m for m, _ in read],
                        dropped_lines=[line for _, line in read],
                    )
                elif slot.kind == "compaction":
                    yield messages.Item(
                        "compaction",
                        message=found,
                        count=slot.count,
                        rewritten=slot.rewritten,
                    )


class _RecordReader:
    """Re-reads one line (or one message of a checkpoint line) by its offsets."""

    def __init__(self, path: Path, full: bool) -> None:
        self.path, self.full = path, full
        self.stream: BinaryIO | None = None
        self.cached: tuple[int, dict[str, object] | None] = (-1, None)

    def __enter__(self) -> _RecordReader:
        try:
            self.stream = files.open_binary(self.path)
        except OSError:
            self.stream = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream is not None:
            self.stream.close()

    def get(self, ref: _Ref) -> dict[str, object] | None:
        start, end, index, _ = ref
        if self.cached[0] != start and self.stream is not None:
            self.stream.seek(start)
            if self.full or end - start <= files.READ_LINE_CAP:
                line = files.Line(
                    0, start, self.stream.read(end - start).rstrip(b"\n"), end, True
                )
            else:  # an over-long line: read it the way iter_records would, strings elided
                line = next(
                    files.iter_lines(
                        self.stream,
                        offset=start,
                        max_lines=1,
                        oversize="compact",
                        cap=files.READ_LINE_CAP,
                    ),
                    files.Line(0, start, b"", end, True),
                )
            self.cached = (start, files.parse_json(line))
        record = self.cached[1] if self.cached[0] == start else None
        if index < 0 or record is None:
            return record
        messages = items(obj(record, "$set"), "messages")
        found = messages[index] if index < len(messages) else None
        return found if isinstance(found, dict) else None


# --- reading ---------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The chat's final messages in order, sub-agent chats included after their spawn."""
    if not session.path:
        return
    if prompt_log.log_of(session) is not None:  # only the prompt log holds it
        yield from prompt_log.events(session, diagnostics, NAME, _chat_places(session))
        return
    yield from _read_chat(
        Path(session.path), None, Emitter(session.id), diagnostics, full, offset, 0
    )


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the last `rows` messages of a chat kept as one JSON document (see
    base.py), found from its end (`json_chat.last_messages`); the message before them is
    translated too, unshown, for the call ids it answered (a result is given once). A
    chat with a folder of sub-agent chats is read whole: which of them no call named is
    known only at its end."""
    path = Path(session.path or "")
    if path.suffix != ".json" or prompt_log.log_of(session) is not None:
        raise WholeRead("a JSONL chat is read from its end; a prompt log whole")
    session_id = json_chat.first_id(path)
    spawns = _spawns(path, session_id)
    if spawns is not None and any(True for _ in folders.entries(spawns)):
        raise WholeRead("its sub-agents' chats are read with it")
    found = json_chat.last_messages(path, rows + 1, compact=True)
    if found is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    chat = messages.Chat(None, session_id)
    if (
        spawns is not None
    ):  # a spawn's chat, missing (the folder is empty), is said as `read` does
        chat.read_child = partial(
            _child_chat,
            spawns,
            Emitter(""),
            diagnostics,
            full,
            0,
        )
    emit = Emitter(session.id)
    for index, message in enumerate(found):
        if type_tag(message.get("type")) not in messages.MESSAGE_TYPES:
            diagnostics.unknown_type(f"message:{message.get('type')}")
            continue
        item = messages.Item("message", message)
        if index == 0:  # the message before the last rows, unshown: what it answered
            for _ in messages.item_events(item, chat, Emitter(session.id)):
                pass
            continue
        yield from messages.item_events(item, chat, emit)


def _read_chat(
    path: Path,
    agent: str | None,
    emit: Emitter,
    diagnostics: Diagnostics,
    full: bool,
    offset: int,
    depth: int,
) -> Iterator[Event]:
    if not path.is_file():
        diagnostics.problem(f"gemini: {path} vanished before it could be read")
        return
    found: Iterable[messages.Item]
    timeline: _Timeline | None = None
    if path.suffix == ".json":
        # one JSON document the app rewrites whole (read one message at a time when big)
        session_id, listed = json_chat.read(
            path, diagnostics, NAME, messages.MESSAGE_TYPES
        )
        found = (messages.Item("message", m) for m in listed)
    else:
        timeline = _Timeline()
        for line, record in files.iter_records(
            path, diagnostics, offset=line_start(path, offset), full=full
        ):
            timeline.add(line, record, diagnostics)
        found = timeline.resolve(path, full)
        session_id = timeline.session_id
    chat = messages.Chat(agent, session_id)
    chat.odd = partial(_odd_count, diagnostics, str(path))
    if (
        agent is not None
        or path.parent.name != "chats"
        or (timeline and timeline.subagent)
    ):
        # a sub-agent runs until it calls complete_task (its executor asks again after a
        # reply with no call): words before a call, written first, do not end it
        chat.turn_ends, chat.ends_with = False, SUBAGENT_ENDS_WITH
    if timeline is not None and timeline.imported_from is not None:
        chat.imported_from = timeline.imported_from
        chat.copied_from = _import_source(path, timeline.imported_from, timeline.probe)
        chat.copied = frozenset(timeline.imported if chat.copied_from else ())
    spawns = _spawns(path, session_id)
    if spawns is not None and depth < SUBAGENT_DEPTH:
        chat.read_child = partial(_child_chat, spawns, emit, diagnostics, full, depth)
    for item in found:
        yield from messages.item_events(item, chat, emit)
    if offset == 0 and spawns is not None and depth < SUBAGENT_DEPTH:
        # sub-agent chats that no tool call pointed at still belong to this session
        for child in folders.entries(spawns):
            child_id = child.name.removesuffix(".jsonl")
            if child.name.endswith(".jsonl") and child_id not in chat.children:
                chat.children.add(child_id)
                yield emit(
                    "subagent",
                    agent_id=agent,
                    extra={"child_id": child_id, "agent_type": None},
                )
                yield from _read_chat(
                    Path(child.path), child_id, emit, diagnostics, full, 0, depth + 1
                )


def _odd_count(diagnostics: Diagnostics, path: str, line: int) -> None:
    """A billed message's count that no app writes: named by its line, where its record
    was read from one (a chat of JSON lines), else as a message of the document."""
    if line:
        diagnostics.damage(path, line, ODD_COUNT)
    else:
        diagnostics.damage(path, 0, odd_in("message"))


def _import_source(path: Path, named: str, probe: str | None) -> str | None:
    """The session whose messages an imported chat (`gemini --session-file <file>`) copied,
    where this home still holds it: the first of `_import_candidates` holding the id of
    the first model message copied (`probe`), at most SOURCE_FILES of them searched and
    SOURCE_BYTES in all. Other imports (named by epoch milliseconds) hold copies, not
    originals. None when no such chat is left: the copies are billed in the import."""
    if probe is None:
        return None  # no model message copied: nothing billed
    needle = orjson.dumps(probe)
    marker = re.compile(rb'"id"\s*:\s*' + re.escape(needle))
    budget, tried = SOURCE_BYTES, {path}
    for candidate in _import_candidates(path, named)[:SOURCE_FILES]:
        size = stat_size(candidate)
        if candidate in tried or _IMPORTED_NAME.match(candidate.name) or size is None:
            continue
        tried.add(candidate)
        budget -= size
        if budget < 0:
            break
        try:
            found = any(
                marker.search(line.data)
                for line in files.lines_with(candidate, needle, 0, size)
            )
        except OSError:
            continue
        if found and (source := json_chat.first_id(candidate)) is not None:
            return source
    return None


def _listed_source(path: Path, named: str) -> str | None:
    """The session an imported chat copied, for the listing: the first id of the chat
    its note names (`named`), or of a chat named after the session an exported file
    starts with and starting with that session's id; None where this home holds none
    (an import of an import, whose copies `read` traces beside it, included).

    A listing reads no chat whole: the named chats are known by their first bytes
    (`json_chat.first_id`), never searched for the copied messages as `_import_source`
    searches the chats beside the import (a source whose file the note does not name is
    left to `show`). Only an import pays for it, SOURCE_FILES heads at most; a source
    deleted later is still named until the import changes, as a fork names its source."""
    chats, exported = _named_chats(path, named)
    for chat in chats[:SOURCE_FILES]:
        if chat == path or _IMPORTED_NAME.match(chat.name):
            continue  # an import holds copies, not the session copied
        source = json_chat.first_id(chat)
        if source is not None and exported in (None, source):
            return source
    return None


def _import_candidates(path: Path, named: str) -> list[Path]:
    """Where an import's source may be, likeliest first: the chats its note names
    (`_named_chats`); then the chats beside the import, newest first (an exported file is
    mostly imported in its project)."""
    return _named_chats(path, named)[0] + [
        Path(e.path)
        for e in reversed(folders.entries(_chats_dir(path)))
        if e.name.startswith("session-") and e.name.endswith((".json", ".jsonl"))
    ]


def _named_chats(path: Path, named: str) -> tuple[list[Path], str | None]:
    """The chats the note of an import (`path`) names: the chat `<file>` (`named`) when it
    is one of this home's, or this home's chat of its name when it is a chat of a home
    at another path (`_chat_here`); when it is a file `/export-session` wrote (a relative name is
    the project's), the chats of every project named after the session id it starts with
    (`session-<minute>-<id8>`), and that id."""
    chats = _chats_dir(path)
    tmp, found = chats.parent.parent, []
    exported: str | None = None
    # the name comes from the file: one with a NUL or a lone surrogate names no file
    if named.isprintable():
        cwd = _project_cwd(chats.parent, None, tmp.parent)
        file = Path(cwd or "/", named) if cwd or Path(named).is_absolute() else None
        if file is not None and _in_chats(file, tmp):
            found.append(file)
        elif file is not None and (here := _chat_here(file, tmp)) is not None:
            found.append(here)
        elif file is not None and (exported := json_chat.first_id(file)) is not None:
            ending = (f"-{exported[:8]}.jsonl", f"-{exported[:8]}.json")
            for project in folders.entries(tmp, tmp.parent):
                for entry in folders.entries(Path(project.path) / "chats", tmp.parent):
                    if entry.name.startswith("session-") and entry.name.endswith(
                        ending
                    ):
                        found.append(Path(entry.path))
    return found, exported


def _chat_here(path: Path, tmp: Path) -> Path | None:
    """The chat of this home at the place `path` names in a home at another path (this
    one copied or moved there, or the note written on another machine): the same
    `tmp/<project>/chats/session-*` name, where it is a file here."""
    project = path.parent.parent.name
    if (
        path.parent.name != "chats"
        or path.parent.parent.parent.name != "tmp"
        or project in ("", "..")
        or not path.name.startswith("session-")
    ):
        return None
    here = tmp / project / "chats" / path.name
    return here if stat_size(here) is not None else None


def _in_chats(path: Path, tmp: Path) -> bool:
    """Whether `path` is a chat file of this home: tmp/<project>/chats/session-*."""
    return (
        path.is_absolute()
        and path.parent.name == "chats"
        and path.parent.parent.parent == tmp
        and path.name.startswith("session-")
    )


def _child_chat(
    folder: Path,
    emit: Emitter,
    diagnostics: Diagnostics,
    full: bool,
    depth: int,
    child: str,
) -> Iterator[Event]:
    """The chat of the sub-agent `child`, when its file is there."""
    path = folder / f"{child}.jsonl"
    if path.is_file():
        yield from _read_chat(path, child, emit, diagnostics, full, 0, depth + 1)
    else:  # the call is written once it has run, naming the chat its agent wrote
        diagnostics.child_missing(NAME, child)


# --- resume ----------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`gemini --resume <id>` from the project folder, keeping the recorded model.

    None for sub-agent chats (gemini lists only a project's own sessions), when the project
    folder is unknown (gemini finds sessions per project, so it must run there), and for a
    session only the prompt log holds (no chat to resume).
    """
    if session.parent_id is not None or not session.cwd:
        return None
    if prompt_log.log_of(session) is not None:  # only its prompts: no chat to resume
        return None
    if _read_otherwise(session.id):  # it would open another session
        return None
    argv = ["gemini", "--resume", session.id]
    if session.model:
        argv += ["--model", session.model]
    mode, withheld = session.permission_mode, []
    if mode in SAFE_MODES or (mode and keep_permissions):
        argv += ["--approval-mode", str(mode)]
    elif mode:
        withheld.append(f"--approval-mode {mode}")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="gemini",
        install_hint=INSTALL_HINT,
        withheld=tuple(withheld),
    )


# the wrapper Gemini CLI's `!` shell (shellCommandProcessor) puts round what the user typed,
# saving the folder it ended in; its shell tool's saves the process group (`shell_pgrep_`)
_TYPED_SHELL = re.compile(r'; pwd > "[^"]*shell_pwd_[0-9a-f]+\.tmp"; exit \$__code$')
SETTINGS_CAP = 1024 * 1024  # bytes of a settings file read for its MCP servers
EXTENSIONS = 64  # extensions whose MCP servers are looked at


def helper_process(session: Session, args: Sequence[str]) -> bool:
    """Whether a process the running gemini of `session` started (`args`) runs no tool
    call: a `!` command the user typed (in its wrapper), or an MCP server that the user's
    or the project's settings.json (or an installed extension) names, started with the
    session or again (`/mcp refresh`). A server's process is its program (the `command`'s
    name, run or as an interpreter's script) followed by its `args` and nothing else;
    anything less sure is a tool's. Only `command` and `args` are read of a server (its
    `env` may hold a token)."""
    if any(_TYPED_SHELL.search(word) for word in args[1:4]):
        return True
    shown = _shown(args)
    return any(
        _runs(words, program, server_args)
        for program, server_args in _mcp_servers(session)
        for words in shown
    )


# a program that shows as others once it runs: npx is npm's `exec`, and npm sets its title
# to its positional words alone (`npm exec <package> <arg>…`, no options)
_SHOWN_AS = {"npx": ("npm", "exec")}


def _shown(args: Sequence[str]) -> list[list[str]]:
    """The words a process shows: its own, and where it set its title (node's
    `process.title` writes one text over its arguments, padded with NULs), that title's."""
    words = list(args)
    while words and not words[-1]:
        words.pop()
    if len(words) == 1 and " " in words[0]:
        return [words, words[0].split()]
    return [words]


def _runs(words: list[str], program: str, args: tuple[str, ...]) -> bool:
    """Whether `words` are those of `program` run with `args`: the program first, or as
    the script of an interpreter (`node /usr/bin/npx`, at most one option between: a `#!`
    line gives one), then exactly `args`."""
    for at, word in enumerate(words[:3]):
        if at and word.startswith("-"):
            continue
        rest = words[at + 1 :]
        if os.path.basename(word) == program and rest == list(args):
            return True
        shown = _SHOWN_AS.get(program)
        if shown and os.path.basename(word) == shown[0] and rest[:1] == list(shown[1:]):
            positional = [a for a in args if not a.startswith("-")]
            if rest[1:] in (list(args), positional):
                return True
        if at:  # the first word past the interpreter and its option is its script
            break
    return False


# an MCP server: its program's name, its arguments
_Server = tuple[str, tuple[str, ...]]


def _mcp_servers(session: Session) -> list[_Server]:
    gemini: Path | None = None
    if session.path:
        chats = _chats_dir(Path(session.path))
        if chats.name == "chats" and chats.parent.parent.name == "tmp":
            gemini = chats.parent.parent.parent
    found: list[Path] = []
    if gemini is not None:
        found.append(gemini / "settings.json")
        found.extend(_extensions(gemini / "extensions"))
    if session.cwd:
        found.append(Path(session.cwd) / ".gemini" / "settings.json")
    servers: list[_Server] = []
    for path in found:
        try:
            stat = path.stat()
        except (OSError, ValueError):  # ValueError: a NUL in a folder a file gave
            continue
        servers.extend(_servers_in(str(path), stat.st_mtime_ns, stat.st_size))
    return servers


def _extensions(folder: Path) -> list[Path]:
    """The manifests of the extensions installed in `folder` (the first EXTENSIONS)."""
    try:
        with os.scandir(folder) as listing:
            names = sorted(e.name for e in listing if e.is_dir(follow_symlinks=False))
    except (OSError, ValueError):
        return []
    return [folder / name / "gemini-extension.json" for name in names[:EXTENSIONS]]


# every file a check looks at (an extension's, the two settings) and a few projects'
@lru_cache(maxsize=2 * EXTENSIONS + 16)
def _servers_in(path: str, mtime_ns: int, size: int) -> tuple[_Server, ...]:
    """The program (its command's name) and the arguments of each MCP server a settings
    file names."""
    settings = files.read_json_file(path, limit=SETTINGS_CAP, comments=True)
    # an extension's manifest names its files from its folder, as gemini fills them in
    filled = {"${extensionPath}": os.path.dirname(path), "${/}": os.sep}
    filled["${pathSeparator}"] = os.sep
    found = []
    for server in obj(settings, "mcpServers").values():
        # a command ending in a slash names no program: no process is its server's
        command = _filled(text_of(server, "command") or "", filled)
        program = os.path.basename(command)
        args = [_filled(a, filled) for a in items(server, "args") if isinstance(a, str)]
        if program:
            found.append((program, tuple(args)))
    return tuple(found)


def _filled(word: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        word = word.replace(name, value)
    return word


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `gemini` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`) that session, `--resume` alone or `--resume latest` its
    project's latest; an index (`--resume 5`): one not known here."""
    return opened_by_flags(args, RESUME_FLAGS)
