"""Mistral Vibe: two storage engines under one save dir, `$VIBE_HOME/logs/session` by default.

Checked with (`CHECKED_WITH`): Vibe 3.0.2 and 3.0.3's unified store (real files, store
format minors 9 and 10), 2.26.1 `--legacy-harness` (real files) and 2.18's session
folders, and 1.x's one-file sessions from its source alone (no real file).
What the app writes. Vibe 3 writes only the unified session store, `<save dir>/unified/<id>/`
(see `_vibe_unified`: CURRENT -> manifest -> envelope + transcript chunks, then the live journal;
sub-agents are sibling `child-<hex>` folders). Vibe 2 (and 2.26 with `--legacy-harness`) wrote
one folder per session, `<save dir>/session_<UTC yyyymmdd_hhmmss>_<id8>/`: `messages.jsonl`
(appended, one OpenAI-style message per line, no timestamps, no usage) and `meta.json`
(rewritten on every save: ids, start/end, cwd, git branch, title, the model config, the agent
profile, cumulative `stats`). Its sub-agents are `agents/<agent>_<utc>_<id8>/` inside the
parent's folder. A save dir set in config.toml (`[session_logging] save_dir`) is honoured.

Compaction in the legacy engine starts a new folder whose `parent_session_id` is the old one
and whose first message is the injected summary. We show such a chain as one session: the
newest folder is listed, `extra["chain"]` names the folders, and `read` yields the older
folders first with a compaction event between. The newest folder's listing says that each
older folder's id leads to it (`superseded_by`): an older folder's own listing reads no
newer one, so a turn of the newest reads none of the older again, and an older folder
shows again once the folder that continued it is gone. A `/branch` fork also
sets `parent_session_id` but starts with copied messages: a session of the user's own,
`extra["forked_from_id"]` naming where it came from (its agent loop starts its `stats` at
zero: the copied messages bill nothing again).
2.26 compacts in place instead: the summary is a user message marked `context_boundary:
"compaction"` in the same file. A `!` command the user ran (`manual_shell`) is a bash call
and its result.
A legacy folder whose meta.json is unreadable (empty, cut short) is still listed and read
from its messages.jsonl, by the id the meta's head or else the folder's name holds (its
first 8 characters), the damage said; its folder, title, model and token counts are lost.
A sub-agent's folder so damaged (or with a folder in its meta.json's place) is listed by
the id, lead, folder and branch its lead's meta.json gives it.
Legacy messages have no times: events are spread evenly between the folder's start and end
times and marked `time_estimated`.

Usage. Legacy: `meta.json` `stats` are the agent loop's running totals, which compaction
carries into the next folder; each folder gives one `usage` event, its totals minus those
counted before it in the chain (all its own when every counter fell: a loop started again),
at the folder's end time. `session_prompt_tokens` includes `session_cached_tokens`, which we
subtract. A counter damaged (0, null) while others grew adds nothing, and is never the base
the next folder's totals are taken from, so nothing counted is billed again. A folder
whose messages cannot say whether it continues or forks the one it names (refused, empty,
cut) counts from that one's totals, which that one's own listing bills. Unified: the
envelope's `tokenUsage` is cumulative for the session; one `usage` event per session, at its
last update (the per-response usage is pruned from the store). Sub-agents count separately.

What we ignore: `.last_session/`, `.session_index.json` and `unified/.session-index.json` (caches),
`active/`, `scheduled-loops.json`, `checkpoint.json` (the model's context, a copy of what the
transcript shows), `quarantine/`.

Vibe 1.x wrote a session as one file, `<save dir>/session_<local yyyymmdd_hhmmss>_<id8>.json`,
`{metadata, messages}` rewritten whole (its `interaction_logger.py`): the metadata of a
meta.json (`agent_config` for `config`, no title, no parent), the messages of a
messages.jsonl, the system prompt first. Vibe 2 moves each into a folder when it starts, so
such a file is left only where Vibe was not run since; it is read as a folder is.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TypeVar

import orjson

from .. import files, folders, freshness, jsonstream
from ..diagnostics import WIDE_TEXT, Diagnostics, odd_in
from ..model import Event, JSONValue, ResumePlan, Session, Usage, superseded
from . import _vibe_unified as unified
from ._values import (
    Emitter,
    dicts,
    file_size,
    iso_time,
    items,
    json_value,
    line_start,
    number,
    obj,
    odd_count,
    one_line,
    plain,
    text_of,
    type_tag,
)
from .base import Home, Location, Opened, ResumeFlags, opened_by_flags

NAME = "vibe"
TITLE = "Mistral Vibe"
SCAN_NOTED = True  # locate reads the environment (and small files through files.read_small); scan only lists, probes and reads through files
CHECKED_WITH = (
    "vibe 3.0.2 and 3.0.3 (unified store, real files; 3.0.3 writes store format minor 10); "
    "2.26.1 --legacy-harness and 2.18 (session folders); 1.x's one-file sessions from its "
    "interaction_logger.py (v1.0.0-v1.3.5, no real file); resume checked against 3.0.3"
)
ENV_VARS = ("VIBE_HOME",)
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("vibe",)

# how a running vibe says which session it has open (2.26.1's and 3.0.2's --help)
RESUME_FLAGS = ResumeFlags(resume=("--resume",), latest=("-c", "--continue"))

INSTALL_HINT = "uv tool install mistral-vibe"
META_LIMIT = 16 * 1024 * 1024  # meta.json embeds the system prompt and tool schemas
MESSAGES = "messages.jsonl"  # a legacy folder's transcript, appended
HEAD_BYTES = 8192  # session_id and parent_session_id are the first keys of meta.json
# listing: the end of a messages.jsonl looked at for a last line still being written (a
# longer one is said by `show -v`, which reads the file)
TORN_TAIL = 64 * 1024
# Vibe 3's built-in agent at least as strict as its default, accept-edits (ask asks before
# every tool; accept-edits, smart-approve and auto-approve approve some on their own)
SAFE_AGENTS = ("ask",)
# Vibe 2's strict agents, gone in Vibe 3 (`--agent plan`: "Agent 'plan' not found"): ask,
# the one that asks before every tool, stands in for them
RETIRED_AGENTS = ("default", "plan", "chat")
_ID = re.compile(rb'"session_id"\s*:\s*"([^"]+)"')
_PARENT = re.compile(rb'"parent_session_id"\s*:\s*(?:null|"([^"]*)")')
_CAUTION = ("<tool_error>", "<user_cancellation>")
# Vibe 1.x's one-file session, `<prefix>_<yyyymmdd>_<hhmmss>_<id8>.json` in the save dir
_V1_FILE = re.compile(r"_\d{8}_\d{6}_[^_]{1,8}\.json\Z")
_MESSAGES = frozenset({"messages"})
# a legacy folder's name, `<session or agent>_<UTC yyyymmdd_hhmmss>_<id8>`
_FOLDER = re.compile(r"_(\d{8}_\d{6})_([0-9A-Za-z-]{1,8})\Z")
_SHORT_ID = 8
# a legacy meta.json's running totals that `usage` reads
_STATS = ("session_prompt_tokens", "session_completion_tokens", "session_cached_tokens")
_T = TypeVar("_T")


# --- where -----------------------------------------------------------------------------


def locate(home: Home) -> Location:
    """The save dir: `[session_logging] save_dir` of config.toml, else `$VIBE_HOME/logs/session`."""
    base = home.env_dir("VIBE_HOME")
    vibe_home = base if base is not None else home.path / ".vibe"
    root = (
        _configured_save_dir(vibe_home / "config.toml")
        or vibe_home / "logs" / "session"
    )
    return Location(
        root,
        override=f"VIBE_HOME={base}" if base is not None else None,
        keeps=(vibe_home,),  # its settings and prompt history, beside the sessions
    )


def _configured_save_dir(config: Path) -> Path | None:
    data = files.read_small(config, 1024 * 1024)
    if data is None:
        return None
    import tomllib  # here: only a home with Vibe's config pays for the TOML parser

    try:
        settings = tomllib.loads(data.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    save_dir = text_of(obj(settings, "session_logging"), "save_dir")
    return Path(save_dir).expanduser() if save_dir else None


# where `scan` reads a session, a sub-agent or a folder of them (see base.py): any name
# at the top (a folder of any name is a session's), a legacy folder's own files, and
# all of a unified store's; a broken link elsewhere (a note in a session's folder)
# hides none
SESSION_NAMES = (
    "*",
    "*/meta.json",
    "*/messages.jsonl",
    "*/agents",
    "*/agents/*",
    "*/agents/*/meta.json",
    "*/agents/*/messages.jsonl",
    "unified/*",
    "unified/*/*",
    "unified/*/*/*",
    "unified/*/*/*/*",
)


def scan(location: Location) -> Iterator[Path]:
    """Legacy folders' meta.json (sub-agents too) and each unified session's files."""
    if not location.exists:
        return iter(())
    return iter(list(_scan(location.root)))


def _scan(root: Path) -> Iterator[Path]:
    for entry in folders.entries(root, root):
        if entry.is_file() and _V1_FILE.search(entry.name):
            yield Path(entry.path)
        if not entry.is_dir() or entry.name.startswith("."):
            continue
        folder = Path(entry.path)
        if entry.name == "unified":
            for store in folders.entries(folder, root):
                if store.is_dir() and not store.name.startswith("."):
                    yield from unified.scan_store(Path(store.path), root)
            continue
        listed = {e.name: e for e in folders.entries(folder, root)}
        names = listed.keys()
        if "meta.json" in names:
            yield folder / "meta.json"
            # a folder in its place hides the transcript: said
            if MESSAGES in listed and folders.file_entry(listed[MESSAGES]):
                yield folder / MESSAGES
        if "agents" in names:
            for agent in folders.entries(folder / "agents", root):
                # a meta.json that is not a file (a folder in its place) is still the
                # sub-agent's: it is read from its messages, as a lead's is
                if agent.is_dir() and folders.exists(Path(agent.path) / "meta.json"):
                    yield Path(agent.path) / "meta.json"
                    if folders.file_at(Path(agent.path) / MESSAGES):
                        yield Path(agent.path) / MESSAGES


def companion_parsed(path: str) -> bool:
    """Whether a companion is parsed as any file too (see base.py): a unified session's
    generation manifest, which stands in for a CURRENT not there (`unified._stand_in`).
    Its chunks and other files are not: 30 chunks a session, 2,000 sessions, parsed each
    to nothing made a cold list a third slower."""
    return unified.stands_in(path)


def companion_of(path: str) -> str | None:
    """The meta.json whose listing a legacy folder's messages.jsonl changes (its size,
    a title its first prompt gives): Vibe rewrites the meta after appending, but a crash
    between the two, or a cut transcript, changes the messages alone. A unified session's
    live generation files and chunks are its CURRENT's (`unified.companion_of`)."""
    folder, base = os.path.split(path)
    if base == MESSAGES:
        return os.path.join(folder, "meta.json")
    return unified.companion_of(path) if "unified" in Path(path).parts else None


def kin_of(path: str) -> str | None:
    """A unified session's chunks and journal segment, read together (`unified.kin_of`)."""
    return unified.kin_of(path) if f"{os.sep}unified{os.sep}" in path else None


# --- legacy folders ----------------------------------------------------------------------


@dataclass(slots=True)
class _Meta:
    """What `read` and listing need from one legacy meta.json (not the big config dump)."""

    folder: Path
    session_id: str
    parent_id: str | None
    start: datetime | None
    end: datetime | None
    title: str | None
    cwd: str | None
    branch: str | None
    model: str | None
    alias: str | None
    effort: str | None
    agent: str | None
    stats: dict[str, int] = field(default_factory=dict)
    # the spawning tool call id -> the sub-agent's folder, relative to this one
    children: dict[str, str] = field(default_factory=dict)
    # the spawning tool call id -> the sub-agent's session id, where the entry names it
    child_ids: dict[str, str] = field(default_factory=dict)
    damaged: bool = False  # read from its messages: its meta.json unreadable
    # a count of its `stats` is none an app writes (`odd_count`): said by a read
    odd: bool = False


def _meta(folder: Path, diagnostics: Diagnostics | None = None) -> _Meta | None:
    document = files.read_json_file(
        folder / "meta.json", limit=META_LIMIT, diagnostics=diagnostics
    )
    return _meta_of(document, folder)


def _damaged_meta(folder: Path) -> _Meta | None:
    """A folder whose meta.json is unreadable (empty, cut short, not JSON) but whose
    messages.jsonl is there: the facts left, the id from the meta's head else the
    folder's name (the id's first 8 characters), the start from the name, the end from
    the messages' last write; None where neither says the id, or no messages are left."""
    messages = folder / "messages.jsonl"
    named = _FOLDER.search(folder.name)
    try:
        written = messages.stat().st_mtime
    except OSError:
        return None
    session_id, parent_id = _head_ids(folder / "meta.json")
    if session_id is None and named is None:
        return None
    start = None
    if named is not None:
        with contextlib.suppress(ValueError):
            start = datetime.strptime(named.group(1), "%Y%m%d_%H%M%S").replace(
                tzinfo=UTC
            )
    return _Meta(
        folder=folder,
        session_id=session_id or (named.group(2) if named else ""),
        parent_id=parent_id,
        start=start,
        end=datetime.fromtimestamp(written, UTC),
        title=None,
        cwd=None,
        branch=None,
        model=None,
        alias=None,
        effort=None,
        agent=None,
        damaged=True,
    )


def _damaged_subagent(folder: Path) -> _Meta | None:
    """`_damaged_meta` for a sub-agent's folder, with what its lead's meta.json says of
    it: its full id (the folder's name holds only 8 characters), its lead, the lead's
    folder and branch (a sub-agent works where its lead does)."""
    meta = _damaged_meta(folder)
    lead = _meta(folder.parent.parent)
    if meta is None or lead is None:
        return meta
    relative = f"agents/{folder.name}"
    call = next((c for c, path in lead.children.items() if path == relative), None)
    named = lead.child_ids.get(call) if call else None
    if named and (meta.session_id == named or named.startswith(meta.session_id)):
        meta.session_id = named
    meta.parent_id = meta.parent_id or lead.session_id
    meta.cwd, meta.branch = lead.cwd, lead.branch
    return meta


def _damage(path: Path) -> str:
    what = "is a folder, not a file" if path.is_dir() else "is empty or cut short"
    lost = (
        "no model or token counts; its folder and branch as its lead's meta.json says"
        if path.parent.parent.name == "agents"  # a sub-agent's (`_damaged_subagent`)
        else "no folder, title, model or token counts"
    )
    return (
        f"{NAME}: {path} {what}: its session is read from its "
        f"messages.jsonl alone ({lost})"
    )


def _no_meta(path: Path) -> str:
    """Why a session folder's meta.json gave nothing: the system's words where it may
    not be opened (another user's), else missing or broken."""
    return files.refused_problem(NAME, path) or f"{NAME}: {path} is missing or broken"


def _meta_of(document: object, folder: Path) -> _Meta | None:
    """A meta.json's facts; `folder` is the session's folder (Vibe 1.x: its file)."""
    session_id = text_of(document, "session_id")
    if not isinstance(document, dict) or session_id is None:
        return None
    config = obj(document, "config") or obj(document, "agent_config")
    alias = text_of(config, "active_model")
    models = config.get("models")
    entry: object = None
    if isinstance(models, dict):
        entry = models.get(alias)
    elif isinstance(models, list):  # older configs list the models
        entry = next((m for m in models if text_of(m, "alias") == alias), None)
    stats = obj(document, "stats")
    children, child_ids = {}, {}
    for child in items(document, "child_sessions"):
        call, relative = text_of(child, "tool_call_id"), text_of(child, "relative_path")
        if call and relative and ".." not in Path(relative).parts:
            children[call] = relative
            if child_id := text_of(child, "session_id"):
                child_ids[call] = child_id
    return _Meta(
        folder=folder,
        session_id=session_id,
        parent_id=text_of(document, "parent_session_id"),
        start=iso_time(document.get("start_time"), naive="local"),
        end=iso_time(document.get("end_time"), naive="local"),
        title=one_line(text_of(document, "title")),
        cwd=text_of(obj(document, "environment"), "working_directory")
        or text_of(document, "origin_directory"),
        branch=text_of(document, "git_branch"),
        model=text_of(entry, "name")
        or text_of(config, "model_name")
        or text_of(document, "model")
        or alias,
        alias=alias,
        effort=text_of(entry, "thinking"),
        agent=text_of(obj(document, "agent_profile"), "name"),
        stats={key: number(stats, key) for key in _STATS},
        odd=any(odd_count(stats.get(key)) for key in _STATS),
        children=children,
        child_ids=child_ids,
    )


@dataclass(frozen=True, slots=True)
class _Links:
    """Who continues whom among the top-level legacy folders, from the heads of their meta.json."""

    folders: dict[str, str]  # session id -> folder name
    children: dict[str, tuple[str, ...]]  # parent session id -> folder names naming it
    # the meta.json that gave no id (not written yet, cut short), as they looked then
    # (`freshness.settled_look`: one changed in its tick of the read never looks so again)
    unsettled: tuple[tuple[str, str], ...] = ()
    # folder name -> how its meta.json looked (settled so), and the ids its head gave
    # then (None: none)
    ids: dict[str, tuple[str, str | None, str | None]] = field(default_factory=dict)
    # the save folder as these links hold for it (`freshness.read_signature`), looked at
    # before they were read or found kept: a folder made after shows against it
    look: str | None = None

    def note_unsettled(self) -> None:
        """Tie the parse that used these links to the folders that said nothing yet:
        one whose meta.json is written later may continue a session it names."""
        for path, signature in self.unsettled:
            freshness.note_as(path, signature)

    def check(self, root: Path, name: str, now: str | None = None) -> None:
        """Raise `_Stale` where the meta.json of folder `name`, which a parse is about
        to use these links for, now gives other ids: Vibe rewrites it on every save,
        keeping them, so a changed look alone reads only its head again."""
        known = self.ids.get(name)
        if known is None:
            return
        meta = os.path.join(root, name, "meta.json")
        if now is None:
            now = freshness.read_signature(meta)
        if now == known[0]:
            return
        since = time.time_ns()
        with freshness.not_depending():
            found = _head_ids(Path(meta))
        if found != known[1:]:
            raise _Stale(name)
        # (a look in its tick, kept, would hold for a rewrite with other ids in that tick)
        self.ids[name] = (freshness.settled_look(now, since), *found)


class _Stale(Exception):
    """A meta.json the links were read from now gives other ids: read them again."""


# The links of each save folder, kept per process while the folder lists the same
# entries (its mtime), the meta.json that gave no id still look as they did, and those
# a parse uses give the ids they gave (`_Links.check`): Vibe makes a folder, then writes
# its meta.json, whose ids it keeps from then on. None is kept of a folder, nor taken
# for holding on the look of a meta.json, changed within its clock's tick of the read
# (`freshness.racy`): a change in that tick keeps the look, and `watch` runs on
_LINKS: dict[str, tuple[int, _Links]] = {}


def _links(root: Path) -> _Links:
    since = time.time_ns()  # before the look: what it read came after
    look = freshness.read_signature(str(root))
    try:
        stamp = root.stat().st_mtime_ns
    except OSError:
        return _Links({}, {})
    # ids fixed when each folder was made, kept for every parse: not what one parse read
    with freshness.not_depending():
        kept = _LINKS.get(str(root))
        if kept is not None and kept[0] == stamp and _settled(kept[1]):
            return replace(kept[1], look=look)
        links = _links_read(root, since)
        if freshness.settled_look(look, since) != look:
            _LINKS.pop(str(root), None)  # its next listing may differ at this look
            return replace(links, look=look)
        if len(_LINKS) >= 4:
            _LINKS.clear()
        _LINKS[str(root)] = (stamp, links)
        return replace(links, look=look)


def _settled(links: _Links) -> bool:
    return all(
        freshness.read_signature(path) == signature
        for path, signature in links.unsettled
    )


def _links_read(root: Path, since: int | None = None) -> _Links:
    """The links of the save folder `root`, read after `since` (ns; now where None):
    each meta.json's look settled against it (`freshness.settled_look`), so that one
    changed in its tick never holds."""
    since = time.time_ns() if since is None else since
    folder_of: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    unsettled: list[tuple[str, str]] = []
    ids: dict[str, tuple[str, str | None, str | None]] = {}
    for entry in folders.entries(root):
        if (
            entry.is_dir()
            and not entry.name.startswith(".")
            and entry.name != "unified"
        ):
            meta = os.path.join(entry.path, "meta.json")
            # as it looked before the read: a write after it shows
            signature = freshness.settled_look(freshness.read_signature(meta), since)
            session_id, parent = _head_ids(Path(meta))
            ids[entry.name] = (signature, session_id, parent)
            named = _FOLDER.search(entry.name)
            if session_id:
                folder_of[session_id] = entry.name
            else:
                unsettled.append((meta, signature))
                if named is not None:  # its meta.json unreadable: the id its name holds
                    folder_of.setdefault(named.group(2), entry.name)
            if parent:
                children.setdefault(parent, []).append(entry.name)
                if len(parent) > _SHORT_ID:  # ...which its successor names in full
                    children.setdefault(parent[:_SHORT_ID], []).append(entry.name)
    return _Links(
        folder_of,
        {k: tuple(sorted(v)) for k, v in children.items()},
        tuple(unsettled),
        ids,
    )


def _head_ids(path: Path) -> tuple[str | None, str | None]:
    return _head(path)[:2]


def _head(path: Path) -> tuple[str | None, str | None, bytes | None]:
    """A meta.json's session and parent ids, and its first bytes up to them (None where
    they are not in its head: the whole file was read)."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(HEAD_BYTES)
    except OSError:
        return None, None, None
    found, parent = _ID.search(head), _PARENT.search(head)
    if found is None:  # not where Vibe puts it: read the whole (bounded) file
        document = files.read_json_file(path, limit=META_LIMIT)
        ids = text_of(document, "session_id"), text_of(document, "parent_session_id")
        return (*ids, None)
    parent_id = (
        parent.group(1).decode("utf-8", "replace")
        if parent and parent.group(1)
        else None
    )
    # a parent named past the head's end may be cut: the whole head then
    end = max(found.end(), parent.end()) if parent else len(head)
    return found.group(1).decode("utf-8", "replace"), parent_id, head[:end]


# What the listing of a chain's newest folder read of its older folders, kept per
# process by how each file looked (`freshness.read_signature`): every folder of a chain
# is listed as its own chain too, so a cold list of a chain of N folders reads each
# folder once, not N times.
_KEPT: dict[tuple[str, str, str], object] = {}
_KEPT_MAX = 4096


def _kept(
    path: str, make: Callable[[], _T], look: str | None = None, what: str = ""
) -> _T:
    """`make()`, what was read of `path` (`what` of it, where more than one thing is
    read of it), or what it gave while the file looked the same (`look`, where the
    caller has just stat'ed it; never a look of a file changed within its clock's tick
    of the read); the file noted as read either way (`freshness.note_depended`)."""
    if look is None:
        look = freshness.read_signature(path)
    key = (path, look, what)
    if key in _KEPT:
        freshness.note_depended(path, look)
        return _KEPT[key]  # type: ignore[return-value]
    since = time.time_ns()  # before the read
    value = make()
    if freshness.settled_look(look, since) != look:
        return value  # changed in its tick: a change again in it would keep its look
    if len(_KEPT) >= _KEPT_MAX:
        _KEPT.clear()
    _KEPT[key] = value
    return value


def _opens_with_summary(folder: str | Path, look: str | None = None) -> bool:
    """A compaction's new folder starts with the injected summary; a fork with copied turns."""
    return _first_line(folder, look)[0]


def _first_line(folder: str | Path, look: str | None = None) -> tuple[bool, int | None]:
    """Whether a folder's messages open with the summary, and the bytes of their first
    line (None where it has no newline yet); `look`, how they look, where known."""
    path = os.path.join(folder, MESSAGES)
    return _kept(path, partial(_summary_first, folder), look)


def _summary_first(where: str | Path) -> tuple[bool, int | None]:
    opens, end = _opening(where)
    return opens is True, end


def _opening(where: str | Path) -> tuple[bool | None, int | None]:
    """Whether a folder's messages open with the summary (None: unknown, its first line
    not there, not JSON or refused), and the bytes of that line (`_first_line`)."""
    path = Path(where) / MESSAGES
    try:
        lines = files.head_lines(path, 1) if path.is_file() else []
    except OSError:  # refused: its read says so
        return None, None
    for line in lines:
        record = files.parse_json(line)
        if record is None:
            return None, line.end if line.complete else None
        opens = record.get("role") == "user" and record.get("injected") is True
        return opens, line.end if line.complete else None
    return None, None


def _successor(
    session_id: str, links: _Links, root: Path, looked: list[tuple[str, str]]
) -> str | None:
    """The folder that took over after this session was compacted, if any; `looked`
    gains the folders looked at, each with how its messages looked."""
    found = None
    top = os.fspath(root)  # plain strings: a session may have thousands of forks
    for name in links.children.get(session_id, ()):
        folder = os.path.join(top, name)
        look = freshness.read_signature(os.path.join(folder, MESSAGES))
        looked.append((name, look))
        if _opens_with_summary(folder, look):
            found = name
    return found


def _newest(session_id: str, links: _Links, root: Path) -> str:
    """The id the chain holding `session_id` is listed under (its newest folder)."""
    links.note_unsettled()  # a folder not yet written may be the successor
    family = _family(session_id, links, root)
    # a folder made later may continue the newest one (compacted again): the save
    # folder's sub-folders as `_links_read` reads them, which a turn inside a session's
    # own folder leaves as they are, and Vibe's caches beside them (its listing's
    # .session_index.json, .last_session/) or a Vibe 3 store do not change
    freshness.note_folders(root, ("unified",), links.look)
    for folder, head, start, look, meta_look in family.watched:
        meta = os.path.join(folder, "meta.json")
        messages = os.path.join(folder, MESSAGES)
        # its ids, which a turn rewrites as they were (a rewrite with others shows)
        if start is None:
            freshness.note_depended(meta, meta_look)
        else:
            freshness.note_start(meta, start, meta_look)
        if head is None:  # no first line yet: any change may give one
            freshness.note_depended(messages, look)
        else:
            freshness.note_head(messages, head)
    return family.newest


@dataclass(frozen=True, slots=True)
class _Family:
    """What the folders naming one session say of the newest folder of its chain: read
    once for all the forks of that session (each fork's listing names it), not once a fork."""

    children: dict[str, tuple[str, ...]]  # the links it was read from (`_Links`)
    newest: str
    # the folders whose say may still change, as they looked: those that continued
    # the session (the summary first) and those with no first line yet (folder, its
    # first line's bytes, its meta.json's first bytes, how its messages and meta.json
    # looked). A fork, whose first line is a prompt Vibe only appends after, never
    # comes to continue it, whatever its ids: not noted, so that each fork's listing
    # depends on a few folders, not on every other fork (which a parse's notes could
    # not all hold past ~250: `freshness.MAX_DEPENDED`)
    watched: tuple[tuple[str, int | None, bytes | None, str, str], ...]


# Each session's family, kept per process while its links are the same (no folder came
# or went) and the folders whose say may change look as they did
_FAMILIES: dict[tuple[str, str], _Family] = {}


def _family(session_id: str, links: _Links, root: Path) -> _Family:
    key = (os.fspath(root), session_id)
    kept = _FAMILIES.get(key)
    if kept is not None and kept.children is links.children and _unchanged(kept):
        return kept
    family = _family_read(session_id, links, root)
    if len(_FAMILIES) >= _KEPT_MAX:
        _FAMILIES.clear()
    _FAMILIES[key] = family
    return family


def _unchanged(family: _Family) -> bool:
    for folder, _head, _start, look, meta_look in family.watched:
        if freshness.read_signature(os.path.join(folder, MESSAGES)) != look:
            return False
        if freshness.read_signature(os.path.join(folder, "meta.json")) != meta_look:
            return False
    return True


def _family_read(session_id: str, links: _Links, root: Path) -> _Family:
    seen = {session_id}
    looked: list[tuple[str, str]] = []
    # what is read of the newer folders is fixed once written (their ids, their first
    # line): noted as that, so that a turn of the chain's newest folder, which rewrites
    # its meta.json and grows its messages, does not read a fork of an older one again
    with freshness.not_depending():
        while (name := _successor(session_id, links, root, looked)) is not None:
            links.check(root, name)
            found, _parent = _head_ids(root / name / "meta.json")
            if found is None or found in seen:
                break
            seen.add(found)
            session_id = found
        top = os.fspath(root)  # plain strings: a family may hold thousands of forks
        watched: list[tuple[str, int | None, bytes | None, str, str]] = []
        for name, look in looked:
            folder = os.path.join(top, name)
            opens, head = _first_line(folder, look)
            if not opens and head is not None:
                continue  # a fork (its first line written, no summary): it stays one
            meta = os.path.join(folder, "meta.json")
            meta_look = freshness.read_signature(meta)
            links.check(root, name, meta_look)
            watched.append((folder, head, _start(meta, meta_look), look, meta_look))
    return _Family(links.children, session_id, tuple(watched))


def _start(meta: str, look: str) -> bytes | None:
    """A meta.json's first bytes up to its ids (`_head`); `look`, how it looked before
    they were read (a note of them taken after would hold for a rewrite made in
    between). Kept: each fork of a session looks at every folder that names it."""
    return _kept(meta, lambda: _head(Path(meta))[2], look, "start")


def _chain(
    meta: _Meta, links: _Links, root: Path, looks: dict[str, str] | None = None
) -> list[_Meta]:
    """The folders one compacted conversation went through, oldest first; `looks` gains
    how each older folder's messages.jsonl looked (`freshness.read_signature`). Each of
    them is stat'ed once a step: every folder of a chain lists the chain up to it."""
    chain = [meta]  # newest first, turned round at the end
    seen = {meta.session_id}
    # plain strings: this loop runs for every folder of the chain
    top, sep = os.fspath(root), os.sep
    folder = os.fspath(meta.folder)
    look: str | None = None  # the newest folder's messages: not stat'ed yet
    while (
        (parent_id := chain[-1].parent_id)
        and parent_id not in seen
        and _kept(folder + sep + MESSAGES, partial(_summary_first, folder), look)[0]
    ):
        # (a folder whose meta.json is unreadable is known by its name's short id)
        name = links.folders.get(parent_id) or links.folders.get(parent_id[:_SHORT_ID])
        older = None
        if name:
            folder = top + sep + name
            meta_path = folder + sep + "meta.json"
            meta_look = freshness.read_signature(meta_path)
            look = freshness.read_signature(folder + sep + MESSAGES)
            links.check(root, name, meta_look)
            older = _kept(meta_path, partial(_older_meta, folder), meta_look)
        if older is None:
            links.note_unsettled()  # the parent's folder may be one not yet written
            if not name:  # ...or one that comes later (restored, copied newest first)
                freshness.note_folders(root, ("unified",), links.look)
            break
        if looks is not None and look is not None:
            looks[folder] = look
        seen.add(older.session_id)
        chain.append(older)
    chain.reverse()
    return chain


def _older_meta(where: str) -> _Meta | None:
    """An older folder of a chain: its meta.json, else what its messages say."""
    folder = Path(where)
    return _meta(folder) or _damaged_meta(folder)


def _first_prompt(folder: Path) -> str | None:
    path = folder / "messages.jsonl"
    # a first prompt too long to hold (a pasted image or log) still titles it
    try:
        lines = files.head_lines(path, 20, openings=True) if path.is_file() else []
    except OSError:  # refused: untitled, its read says so
        return None
    for line in lines:
        record = files.parse_json(line)
        if record and record.get("role") == "user" and not record.get("injected"):
            text = _message_text(record) or ""
            if text.startswith("Scratchpad directory:") and "\n\n" in text:
                # the preamble Vibe puts before a sub-agent's task
                text = text.split("\n\n", 1)[1]
            return one_line(text)
    return None


def _parse_legacy(path: Path, root: Path, diagnostics: Diagnostics) -> list[Session]:
    folder = path.parent
    meta = _meta(folder, diagnostics)
    subagent = folder.parent.name == "agents"
    if meta is None and not files.refused_problem(NAME, path):
        meta = _damaged_subagent(folder) if subagent else _damaged_meta(folder)
        if meta is not None:
            diagnostics.problem(_damage(path))
    if meta is None:
        diagnostics.skip(str(path), 1, "not JSON")
        return []
    looks: dict[str, str] = {}
    for _attempt in range(2):
        links = _links(root)
        try:
            chain, parent, forked_from = _linked(meta, links, root, subagent, looks)
            break
        except _Stale:  # a meta.json rewritten with other ids since they were read
            _LINKS.pop(str(root), None)
    else:  # rewritten again while read: these links, as they were read, unchecked
        listed = freshness.read_signature(str(root))
        links = replace(_links_read(root), ids={}, look=listed)
        chain, parent, forked_from = _linked(meta, links, root, subagent, looks)
    oldest = chain[0]
    size = 0
    for part in chain:
        look = looks.get(os.fspath(part.folder))
        if look is None:
            messages = part.folder / MESSAGES
            freshness.note_depended(messages)  # its size is the session's too
            size += file_size(messages)
        else:  # an older folder's, as its chain's step looked
            freshness.note_depended(os.path.join(part.folder, MESSAGES), look)
            size += int(look.partition(" ")[0] or 0)
        # an older folder listed on its own says its own unfinished line
        if part is meta or (part.damaged and not (part.folder / "meta.json").is_file()):
            _note_torn(part.folder / MESSAGES, diagnostics)
    extra: dict[str, JSONValue] = {
        "engine": "legacy",
        "chain": [part.folder.name for part in chain],
    }
    if meta.alias:
        extra["model_alias"] = meta.alias
    if subagent:
        extra["subagent"] = True
    if forked_from:
        extra["forked_from_id"] = forked_from
    # the older folders are listed, and read, under this one: said by this folder's
    # listing, not theirs, so that an older folder is never read again for a turn of
    # this one, and shows again once this one goes
    continued = [
        superseded(NAME, part.session_id, meta.session_id) for part in chain[:-1]
    ]
    return [
        *continued,
        Session(
            app=NAME,
            id=meta.session_id,
            path=str(folder / "messages.jsonl"),
            cwd=meta.cwd,
            branch=meta.branch,
            title=next((part.title for part in reversed(chain) if part.title), None)
            or _first_prompt(oldest.folder),
            created=oldest.start,
            updated=meta.end,
            model=meta.model,
            effort=meta.effort,
            permission_mode=meta.agent,
            bytes=size,
            parent_id=parent,
            agent_type=(meta.agent or folder.name.split("_")[0]) if subagent else None,
            extra=extra,
        ),
    ]


def _linked(
    meta: _Meta, links: _Links, root: Path, subagent: bool, looks: dict[str, str]
) -> tuple[list[_Meta], str | None, str | None]:
    """A folder's chain, the lead a sub-agent's listing names and the session a fork's
    names, from `links` (`_Stale` where they no longer hold); `looks`, see `_chain`."""
    folder = meta.folder
    chain = [meta] if subagent else _chain(meta, links, root, looks)
    oldest = chain[0]
    parent = forked_from = None
    if subagent:
        parent = meta.parent_id or _head_ids(folder.parent.parent / "meta.json")[0]
    elif oldest.parent_id and not _opens_with_summary(oldest.folder):
        forked_from = _newest(oldest.parent_id, links, root)  # a /branch fork
    if parent:
        parent = _newest(parent, links, root)
    return chain, parent, forked_from


def _note_torn(path: Path, diagnostics: Diagnostics) -> None:
    """A messages.jsonl whose last line has no newline yet (Vibe still writing it, or a
    crash cut it off): noted as unfinished, as `read` notes it, for --verbose and
    `doctor` (the listing reads meta.json, never that line); one a tool re-saved as
    UTF-16 is said so instead, as `read` says it (its first bytes read)."""
    try:
        offset, tail = files.tail_bytes(path, TORN_TAIL)
    except OSError:  # missing or refused: `read` says so
        return
    if files.wide_text(path):
        diagnostics.skip(str(path), 0, WIDE_TEXT)
        return
    files.note_unfinished(offset, tail, diagnostics, str(path))


def _v1_metadata(path: Path, diagnostics: Diagnostics) -> dict[str, object]:
    """A Vibe 1.x session file's metadata, read past its messages."""
    members = jsonstream.file_members(path, _MESSAGES, diagnostics, NAME)
    return obj(members, "metadata")


def _parse_v1(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """A Vibe 1.x session file, titled by its first prompt (1.x kept no title)."""
    metadata = _v1_metadata(path, diagnostics)
    meta = _meta_of(metadata, path)
    if meta is None:
        if not (diagnostics.problems or diagnostics.skipped):  # (not said already)
            diagnostics.skip(str(path), 1, "bad value")  # no metadata, or no id in it
        return []
    title = None
    for index, message in enumerate(
        jsonstream.file_items(path, "messages", Diagnostics(), NAME)
    ):
        if isinstance(message, dict) and message.get("role") == "user":
            title = one_line(_message_text(message))
            break
        if index >= 20:
            break
    extra: dict[str, JSONValue] = {"engine": "v1"}
    if meta.alias:
        extra["model_alias"] = meta.alias
    return [
        Session(
            app=NAME,
            id=meta.session_id,
            path=str(path),
            cwd=meta.cwd,
            branch=meta.branch,
            title=title,
            created=meta.start,
            updated=meta.end,
            model=meta.model,
            effort=meta.effort,
            # 1.x's `--auto-approve` is Vibe 2's auto-approve agent
            permission_mode="auto-approve" if metadata.get("auto_approve") else None,
            bytes=file_size(path),
            extra=extra,
        )
    ]


def _read_v1(session: Session, diagnostics: Diagnostics, full: bool) -> Iterator[Event]:
    """A Vibe 1.x file's messages as a folder's, then its usage totals."""
    assert session.path is not None
    path = Path(session.path)
    meta = _meta_of(_v1_metadata(path, diagnostics), path)
    if meta is None:
        diagnostics.problem(f"vibe: {path} has no readable metadata")
        return
    # two passes, so that no more than one message is held at a time: the first counts
    # them (times are spread over the session by position), the second reads them
    count = sum(1 for _ in _v1_messages(path, Diagnostics()))
    emit = Emitter(session.id)
    yield from _folder_events(
        meta,
        emit,
        diagnostics,
        agent_id=None,
        continuation=False,
        full=full,
        messages=(count, _v1_messages(path, diagnostics)),
    )
    _say_odd(meta, diagnostics)
    if (usage := _usage(meta, {})[0]) is not None:
        yield emit("usage", time=meta.end, usage=usage, extra={"summed": True})


def _v1_messages(path: Path, diagnostics: Diagnostics) -> Iterator[dict[str, object]]:
    for message in jsonstream.file_items(path, "messages", diagnostics, NAME):
        if isinstance(message, dict):
            yield message


def _message_text(
    record: dict[str, object], diagnostics: Diagnostics | None = None
) -> str | None:
    """A message's text; a part of a type not known here is named in brackets where it
    stood, and counted (`diagnostics`)."""
    content = record.get("content")
    pieces = [plain(content)] if isinstance(content, str) else []
    # content was a list of OpenAI-style parts before 2.0
    for part in dicts(record, "content"):
        kind = type_tag(part.get("type"))
        if isinstance(text := part.get("text"), str):
            pieces.append(plain(text))
        elif kind == "image_url":
            pieces.append("[image]")
        elif kind != "text":
            pieces.append(f"[{kind or 'untyped part'}]")
            if diagnostics is not None:
                diagnostics.unknown_type(f"content:{kind}")
    for image in items(record, "images"):
        pieces.append(
            f"[image {text_of(image, 'mime_type') or text_of(image, 'alias') or ''}]"
        )
    return "\n".join(p for p in pieces if p) or None


def _spread(meta: _Meta, index: int, count: int) -> datetime | None:
    """Message `index` of `count`, placed evenly between the folder's start and end."""
    if meta.start is None or meta.end is None or meta.end < meta.start:
        return meta.start or meta.end
    if count <= 1:
        return meta.start
    return meta.start + (meta.end - meta.start) * (min(index, count - 1) / (count - 1))


def _count_lines(path: Path, stop: int | None = None) -> int:
    count, position, last = 0, 0, b"\n"
    with files.open_regular(path) as stream:
        while True:
            if hole := files.skip_hole(stream):  # NULs: no newline, passed over
                position, last = position + hole, b"\x00"
            chunk = stream.read(files.CHUNK)
            if not chunk:
                break
            if stop is not None:
                chunk = chunk[: max(0, stop - position)]
                if not chunk:
                    break
            count += chunk.count(b"\n")
            position += len(chunk)
            last = chunk[-1:]
    return count + (0 if last == b"\n" or stop is not None else 1)


def _folder_events(
    meta: _Meta,
    emit: Emitter,
    diagnostics: Diagnostics,
    *,
    agent_id: str | None,
    continuation: bool,
    full: bool,
    offset: int = 0,
    depth: int = 0,
    messages: tuple[int, Iterator[dict[str, object]]] | None = None,
) -> Iterator[Event]:
    """A folder's messages.jsonl as events; or `messages`, a Vibe 1.x file's (how
    many, and the messages one at a time)."""
    records: Iterator[dict[str, object]]
    spare: list[Path] = []
    if messages is not None:
        (count, records), index = messages, 0
    else:
        path = meta.folder / "messages.jsonl"
        if not path.is_file():
            diagnostics.problem(f"vibe: {path} is missing")
            return
        try:
            count = _count_lines(path)
            offset = line_start(path, offset)
            index = _count_lines(path, stop=offset) if offset else 0
        except OSError as error:  # refused: the chain's other folders are still read
            diagnostics.problem(files.stopped_problem(NAME, str(path), error))
            return
        records = (
            record
            # the lines before a --tail offset were counted: numbered as in the file
            for _line, record in files.iter_records(
                path, diagnostics, offset=offset, first_number=index + 1, full=full
            )
        )
        # sub-agent folders no `child_sessions` entry names go to `task` calls in order
        named = set(meta.children.values())
        agents = [e for e in folders.entries(meta.folder / "agents") if e.is_dir()]
        spare = [Path(e.path) for e in agents if f"agents/{e.name}" not in named]
    say = partial(emit, agent_id=agent_id, estimated=True)
    for record in records:
        when = _spread(meta, index, count)
        first, index = index == 0, index + 1
        role, text = record.get("role"), _message_text(record, diagnostics)
        shell = record.get("manual_shell")
        if role == "user" and isinstance(shell, dict):  # a `!` command the user ran
            yield from _manual_shell(shell, say, when)
        elif role == "user" and not record.get("injected"):
            if text:
                yield say("user", time=when, text=text)
        elif role == "user" and (
            (continuation and first) or record.get("context_boundary") == "compaction"
        ):  # 2.26 compacts in place: the summary is a marked message of the same file
            yield say("compaction", time=when, text=text)
        elif role == "user" and text:
            yield say("meta", time=when, text=text, extra={"injected": True})
        elif role == "assistant":
            if reasoning := text_of(record, "reasoning_content"):
                yield say("thinking", time=when, text=plain(reasoning))
            if text:
                yield say("assistant", time=when, text=text)
            calls = dicts(record, "tool_calls")
            for call in calls:
                yield from _call_events(
                    call,
                    meta,
                    spare,
                    emit,
                    agent_id,
                    diagnostics,
                    when,
                    full,
                    depth,
                    offset,
                )
            if not calls:
                yield say("turn_end", time=when)
        elif role == "tool":
            result = obj(record, "tool_result")
            shown = obj(obj(result, "presentation"), "display")
            failed = result.get("cancelled") is True or shown.get("success") is False
            failed = failed or bool(text and text.lstrip().startswith(_CAUTION))
            output = obj(result, "output")
            if "stdout" in output or "stderr" in output:
                # a shell call: the model is given its fields as `key: value` lines,
                # the command first; what it printed is the result
                text = _printed(output) or None
                code = output.get("returncode", output.get("exit_code"))
                failed = failed or (isinstance(code, int) and code != 0)
            elif (
                isinstance(lines := output.get("content"), str)
                and "file_path" in output
                and "num_lines" in output
            ):
                text = plain(lines) or None  # `read_file`: the lines read
            elif (
                isinstance(reply := output.get("response"), str)
                and "completed" in output
            ):
                # a `task` call: the sub-agent's response, not the lines around it
                text = plain(reply)
                failed = failed or output.get("completed") is False
            yield say(
                "tool_result",
                time=when,
                call_id=text_of(record, "tool_call_id"),
                text=text,
                is_error=failed,
            )
        elif role not in ("user", "system"):
            diagnostics.unknown_type(f"role:{role}")


def _call_events(
    call: dict[str, object],
    meta: _Meta,
    spare: list[Path],
    emit: Emitter,
    agent_id: str | None,
    diagnostics: Diagnostics,
    when: datetime | None,
    full: bool,
    depth: int,
    offset: int,
) -> Iterator[Event]:
    say = partial(emit, agent_id=agent_id, estimated=True)
    function = obj(call, "function")
    name, call_id, raw = (
        text_of(function, "name") or "",
        text_of(call, "id"),
        function.get("arguments"),
    )
    try:
        arguments = orjson.loads(raw) if isinstance(raw, str) else raw
    except orjson.JSONDecodeError:  # not JSON: shown as the raw text
        yield say("tool_call", time=when, tool=name, call_id=call_id, text=str(raw))
        arguments = None
    else:
        yield say(
            "tool_call",
            time=when,
            tool=name,
            call_id=call_id,
            extra={"input": json_value(arguments)},
        )
    if name != "task" or offset or depth >= unified.SUBAGENT_DEPTH:
        return
    relative = meta.children.get(call_id or "")
    folder = meta.folder / relative if relative else (spare.pop(0) if spare else None)
    child = _meta(folder, diagnostics) if folder is not None else None
    agent_type = text_of(arguments, "agent") or (child.agent if child else None)
    named = meta.child_ids.get(call_id or "") if relative else None
    if child is None and named and folder is not None:  # meta.json lists it
        if folder.is_dir():  # there, but its own meta.json could not be read
            # another user's (refused), or broken
            diagnostics.problem(
                files.refused_problem(NAME, folder / "meta.json")
                or f"{NAME}: sub-agent {named}: meta.json unreadable"
            )
            # its messages still are: what the lead's entry and call say stands in
            child = _Meta(
                folder=folder,
                session_id=named,
                parent_id=meta.session_id,
                start=when,
                end=None,
                title=None,
                cwd=meta.cwd,
                branch=meta.branch,
                model=None,
                alias=None,
                effort=None,
                agent=agent_type,
            )
        else:
            diagnostics.child_missing(NAME, named)
    yield say(
        "subagent",
        time=when,
        call_id=call_id,
        text=text_of(arguments, "task"),
        extra={
            "child_id": child.session_id if child else named,
            "agent_type": agent_type,
        },
    )
    if child is not None:
        yield from _folder_events(
            child,
            emit,
            diagnostics,
            agent_id=child.session_id,
            continuation=False,
            full=full,
            depth=depth + 1,
        )
        _say_odd(child, diagnostics)
        if child.stats and (usage := _usage(child, {})[0]) is not None:
            yield emit(
                "usage",
                agent_id=child.session_id,
                time=child.end,
                usage=usage,
                extra={"summed": True},
            )


def _say_odd(meta: _Meta, diagnostics: Diagnostics) -> None:
    """Say a folder's (or a 1.x file's) running totals holding a count no app writes."""
    if meta.odd:
        where = (
            meta.folder if meta.folder.suffix == ".json" else meta.folder / "meta.json"
        )
        diagnostics.damage(str(where), 1, odd_in("set of totals"))


def _usage(meta: _Meta, counted: dict[str, int]) -> tuple[Usage | None, dict[str, int]]:
    """What a folder adds to the chain's running totals `counted` so far (empty for the
    first), and the totals counted once it is. A counter that fell while another grew is
    damaged (0, null): it adds nothing, so nothing counted already is billed again."""
    stats = dict(meta.stats)
    if not stats:  # its meta.json unreadable: no counts (the next folder's hold them)
        return None, counted
    cached = stats["session_cached_tokens"]
    # the prompt total includes the cached one: less than it, it was damaged
    stats["session_prompt_tokens"] = max(stats["session_prompt_tokens"], cached)
    before = {k: counted.get(k, 0) for k in stats}
    if not any(stats[k] > before[k] for k in stats) and stats != before:
        before = {}  # every counter fell: the app's loop started again at zero
    added = {k: max(0, stats[k] - before.get(k, 0)) for k in stats}
    cached = added["session_cached_tokens"]
    usage = Usage(
        input_tokens=max(0, added["session_prompt_tokens"] - cached),
        output_tokens=added["session_completion_tokens"],
        cache_read_tokens=cached,
        model=meta.model,
    )
    totals = {k: max(stats[k], before.get(k, 0)) for k in stats}
    return (usage if usage.total else None), totals


def _carried(folder: Path, root: Path) -> dict[str, int]:
    """The running totals the oldest folder read starts from: none, unless its messages
    cannot say whether it continues the session it names (compaction, which carries them
    over, and that session's listing bills them) or forks it (its totals start at zero):
    then that session's, so that nothing it billed is billed again, and a fork's totals
    that are all lower than them (`_usage`) count whole."""
    parent_id = _head_ids(folder / "meta.json")[1]
    if not parent_id or _opening(folder)[0] is not None:
        return {}
    links = _links(root)
    name = links.folders.get(parent_id) or links.folders.get(parent_id[:_SHORT_ID])
    older = _meta(root / name) if name else None
    return dict(older.stats) if older is not None else {}


def _read_legacy(
    session: Session, diagnostics: Diagnostics, *, full: bool, offset: int
) -> Iterator[Event]:
    assert session.path is not None
    newest = Path(session.path).parent
    names = session.extra.get("chain")
    chain = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    chained = (
        [newest.parent / name for name in chain]
        if chain and chain[-1] == newest.name
        else [newest]
    )
    emit = Emitter(session.id)
    if offset:
        chained = chained[-1:]
    # the chain's running totals billed so far
    counted = _carried(chained[0], newest.parent) if chained and not offset else {}
    for position, folder in enumerate(chained):
        meta = _meta(folder, diagnostics)
        refused = files.refused_problem(NAME, folder / "meta.json")
        if meta is None and not refused:
            meta = _damaged_meta(folder)
            if meta is not None:
                diagnostics.problem(_damage(folder / "meta.json"))
        if meta is None:
            diagnostics.problem(refused or _no_meta(folder / "meta.json"))
            continue
        yield from _folder_events(
            meta,
            emit,
            diagnostics,
            agent_id=None,
            continuation=position > 0 or len(chain) > len(chained),
            full=full,
            offset=offset,
        )
        usage, counted = _usage(meta, counted)
        if not offset:
            _say_odd(meta, diagnostics)
        if usage is not None and not offset:
            yield emit("usage", time=meta.end, usage=usage, extra={"summed": True})


# --- the source --------------------------------------------------------------------------


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """One legacy meta.json, or one unified session file (CURRENT, meta.json, journal)."""
    try:
        relative = path.relative_to(location.root)
    except ValueError:
        relative = path
    if relative.parts and relative.parts[0] == "unified":
        return unified.parse(path, diagnostics)
    if len(relative.parts) == 1 and _V1_FILE.search(path.name):
        return _parse_v1(path, diagnostics)
    if path.name == MESSAGES:  # a companion (`companion_of`): read with its meta.json
        return []
    return _parse_legacy(path, location.root, diagnostics)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """Events in order; a legacy chain's older folders first; sub-agents after their spawn.

    The unified store is not one file, so it ignores `offset` and reads the whole session.
    """
    if not session.path:
        return
    if session.extra.get("engine") == "unified" or Path(session.path).name == "CURRENT":
        folder = Path(session.path).parent
        yield from unified.read_store(
            folder, Emitter(session.id), diagnostics, model=session.model, full=full
        )
    elif session.extra.get("engine") == "v1":
        yield from _read_v1(session, diagnostics, full)
    else:
        yield from _read_legacy(session, diagnostics, full=full, offset=offset)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`vibe --resume <id>` in the session's folder, with its agent profile when that is safe
    (a Vibe 2 agent that Vibe 3 dropped becomes `ask`).

    None for sub-agents (Vibe resumes only top-level sessions) and when the folder is unknown.
    Vibe 3 resumes legacy sessions too (it imports them). The model is not a CLI flag: Vibe
    takes it from config.toml (`active_model`).
    """
    if (session.extra.get("subagent") and session.parent_id) or not session.cwd:
        return None  # a sub-agent's session (its lead resumes), or no known folder
    argv = ["vibe", "--resume", session.id]
    withheld: list[str] = []
    notes = []
    agent = session.permission_mode
    if agent in RETIRED_AGENTS:
        notes.append(
            f"agent '{agent}' became ask: Vibe 3 has no '{agent}' agent "
            f"(Vibe 2 takes --agent {agent})"
        )
        agent = "ask"
    if agent in SAFE_AGENTS or (agent and keep_permissions):
        argv += ["--agent", agent]
    elif agent:
        withheld.append(f"--agent {agent}")
    if session.extra.get("engine") == "v1":
        notes.append(
            "a Vibe 1.x session file: Vibe 2 moves it into a folder of its own as it "
            "starts, and resumes it from there"
        )
    alias = session.extra.get("model_alias")
    if isinstance(alias, str) and alias:
        notes.append(
            f"recorded model '{alias}' is chosen in config.toml (active_model), not by a flag"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="vibe",
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `vibe` has open, read back from the words `resume` writes:
    `--resume <id>` that session, `--continue` (`-c`) its folder's latest. A picker
    (`--resume` alone): one not known yet."""
    return opened_by_flags(args, RESUME_FLAGS)


def _printed(output: dict[str, object]) -> str:
    """What a shell command printed: its stdout, then its stderr."""
    printed = [
        text.rstrip("\n")
        for key in ("stdout", "stderr")
        if (text := text_of(output, key)) and text.strip()
    ]
    return plain("\n".join(printed))


def _manual_shell(
    shell: dict[str, object], say: Callable[..., Event], when: datetime | None
) -> Iterator[Event]:
    """A `!` command: the call, and what it printed (failed on a non-zero exit code)."""
    call_id = text_of(shell, "operation_id")
    yield say(
        "tool_call",
        time=when,
        tool="bash",
        call_id=call_id,
        extra={"input": {"command": text_of(shell, "command")}, "by_user": True},
    )
    output = text_of(shell, "output_text") or "\n".join(
        text for key in ("stdout", "stderr") if (text := text_of(shell, key))
    )
    code = shell.get("exit_code")
    failed = (isinstance(code, int) and code != 0) or any(
        shell.get(key) is True for key in ("timed_out", "interrupted")
    )
    yield say(
        "tool_result",
        time=when,
        tool="bash",
        call_id=call_id,
        text=plain(output) if output else None,
        is_error=failed,
    )
