"""Mistral Vibe's unified session store (3.x), read for `vibe.py`.

Checked with Vibe 3.0.2 (store format minor 9) and 3.0.3 (minor 10), real files; a store
of a newer minor is read as far as it goes and counted for `doctor` (`STORE_MINOR_CHECKED`).
Not a source by itself: `vibe.py` lists and reads through it. One folder per session,
`<save dir>/unified/<id>/`: `CURRENT` names the live generation; its `manifest.json` names the
`projection-state.json` envelope (session facts, latest turn) whose transcript lives in
content-addressed `chunks/<sha256>.json` lists (concatenated in the manifest's order); the
journal segment `journal/<snapshot_sequence + 1>.jsonl` holds what happened since, as
`projection_delta` records (append/replace/remove entry, set history, set envelope) and
`session_relocated` ones (a move to another folder: new metadata, and a delta). Older
segments were folded into the snapshot already and are never replayed. Sub-agents are sibling
folders `unified/child-<hex>/` with no meta.json; their envelope names the parent, and the
parent's spawn effect names the child and its type (listed from the lead's newest journal
and transcript chunks, `SPAWN_SEARCH` bytes at most, as the lead's `spawn_types`: the index
types the child's row from its lead's, so that a lead that grows types its children). A
child store no spawn effect of the lead's transcript names is read after it, announced by
its own task (its envelope's preview) and the name and type the lead's runtime state keeps
for it (`subagents.children`). Vibe 3.0.x nests no deeper: a sub-agent's identity is
depth 1, owned by its root (`SubagentSessionIdentity`); its `parentSessionId` and
`rootSessionId` are kept apart, and the parent is what is read. Checksums are not
verified: we read, we do not restore.
A CURRENT that cannot be read (too long to hold, cut short) is stood in for by the newest
generation whose manifest reads (`newest_generation`), the damage said; one not there
(deleted, or mid-rewrite) too, unsaid: that manifest is listed in its place (`_stand_in`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, JSONValue, Session, Usage
from ._values import (
    Emitter,
    as_dict,
    blob,
    file_size,
    iso_time,
    items,
    json_value,
    ms_time,
    number,
    obj,
    odd_count,
    one_line,
    plain,
    stat_size,
    text_of,
    type_tag,
)

APP = "vibe"
STORE_FORMAT = "mistral.vibe.unified-session-store/v1"
# the newest store format minor whose files were seen (3.0.3's): past it, new records and
# fields are likeliest, so it is counted as an unknown type (`doctor` names it)
STORE_MINOR_CHECKED = 10
SMALL_DOC = 1024 * 1024  # CURRENT, manifest, envelope
# the envelope's cumulative counts that `usage` reads
_TOKEN_USAGE = ("inputTokens", "outputTokens", "cachedInputTokens")
RUNTIME_LIMIT = 16 * 1024 * 1024  # runtime-state.json grows with every action: bounded
CHUNK_CAP = 64 * 1024 * 1024  # a bigger transcript chunk is read one entry at a time
SUBAGENT_DEPTH = 4
# bytes of a lead's newest transcript searched, at listing, for the spawn of a sub-agent
SPAWN_SEARCH = 4 * 1024 * 1024
# Journal records that carry no transcript: engine bookkeeping for crash recovery.
JOURNAL_IGNORED = frozenset(
    {
        "command_reserved",
        "core_input",
        "action_intent",
        "action_result",
        "process_operation_dispatched",
        "process_state_changed",
        "process_notification_submitted",
        "callback_registered",
        "callback_resolved",
        "receipt_succeeded",
        "receipt_failed",
        "receipt_abandoned",
    }
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_SEGMENT = re.compile(r"^journal/[0-9]{16}\.jsonl$")
_GENERATION = re.compile(r"^[0-9]{16}$")
_DONE = ("completed", "failed", "cancelled", "skipped")


# --- the store --------------------------------------------------------------------------


class Store:
    """One session folder, loaded as far as CURRENT, the manifest and the envelope."""

    def __init__(
        self, folder: Path, current: dict[str, object], manifest: dict[str, object]
    ):
        self.folder = folder
        self.current = current
        self.manifest = manifest
        self.generation = folder / "generations" / str(current.get("generation"))
        self.sequence = number(current, "snapshot_sequence")
        self.projection: dict[str, object] = {}
        self.session_id = text_of(current, "session_id") or folder.name

    def part(self, key: str) -> Path | None:
        name = text_of(obj(self.manifest, key), "path")
        return self.generation / name if name and _NAME.match(name) else None

    @property
    def snapshot(self) -> dict[str, object]:
        return obj(self.projection, "snapshot")

    @property
    def segment(self) -> Path | None:
        name = text_of(obj(self.manifest, "recovery_journal_segment"), "path")
        return self.folder / name if name and _SEGMENT.match(name) else None

    def chunk_paths(self) -> list[Path] | None:
        chunks = obj(self.manifest, "projection_state").get("chunks")
        if not isinstance(chunks, list):
            return None
        return [
            self.folder / "chunks" / f"{c}.json"
            for c in chunks
            if isinstance(c, str) and _SHA.match(c)
        ]


def load(
    folder: Path, diagnostics: Diagnostics, *, envelope: bool = True
) -> Store | None:
    """CURRENT, its manifest and (unless not wanted) the projection envelope (without the
    chunked transcript)."""
    current_path = folder / "CURRENT"
    current = files.read_json_file(current_path, limit=SMALL_DOC)
    if not isinstance(current, dict):
        if files.refuses_reading(str(current_path)):  # another user's: not read at all
            diagnostics.refused(str(current_path))
            return None
        size = stat_size(current_path)
        current = newest_generation(folder)
        if size is not None:
            # past SMALL_DOC it is not read at all: its bytes may well be JSON
            reason = "too long" if size > SMALL_DOC else "not JSON"
            diagnostics.skip(str(current_path), 1, reason)
        if current is None:
            return None
        if size is not None:
            diagnostics.problem(
                f"vibe: {current_path} is unreadable ({reason}): its session is read "
                f"from its newest generation, {current['generation']}"
            )
        # else gone, or mid-rewrite (Vibe writes it anew at every turn): read so, unsaid
    if current.get("store_format") != STORE_FORMAT:
        diagnostics.unknown_type(f"store_format:{current.get('store_format')}")
        return None
    if (minor := number(current, "store_format_minor")) > STORE_MINOR_CHECKED:
        diagnostics.unknown_type(f"store_format_minor:{minor}")
    generation = str(current.get("generation"))
    manifest = manifest_path = None
    if generation.isdigit():  # a 16-digit name, never a path
        manifest_path = folder / "generations" / generation / "manifest.json"
        manifest = files.read_json_file(manifest_path, limit=SMALL_DOC)
    if not isinstance(manifest, dict):
        diagnostics.problem(
            (files.refused_problem("vibe", manifest_path) if manifest_path else None)
            or f"vibe: {folder} names a generation whose manifest is missing or broken"
        )
        return None
    store = Store(folder, current, manifest)
    if not envelope:
        return store
    projection_path = store.part("projection_state")
    projection = (
        files.read_json_file(projection_path, diagnostics=diagnostics)
        if projection_path
        else None
    )
    if isinstance(projection, dict):
        store.projection = projection
    else:
        diagnostics.problem(
            (
                files.refused_problem("vibe", projection_path)
                if projection_path
                else None
            )
            or f"vibe: {folder} has no readable projection state"
        )
    return store


def newest_generation(folder: Path) -> dict[str, object] | None:
    """What CURRENT would say, from the newest generation whose manifest reads, for a
    CURRENT that cannot be read (too long to hold, cut short): Vibe writes a generation
    whole before it points CURRENT at it, and keeps the two newest. None where no
    generation's manifest reads. The store format is the manifest's (it does not say it)."""
    names = [
        entry.name
        for entry in folders.entries(folder / "generations")
        if entry.is_dir() and _GENERATION.match(entry.name)
    ]
    for name in reversed(names):
        manifest = _small_json(folder / "generations" / name / "manifest.json")
        if manifest and text_of(manifest, "generation") in (name, None):
            return {
                "store_format": STORE_FORMAT,
                "session_id": text_of(manifest, "session_id") or folder.name,
                "generation": name,
                "snapshot_sequence": number(manifest, "snapshot_sequence"),
            }
    return None


def _pointer(folder: Path) -> dict[str, object]:
    """CURRENT, or where it does not read, what the newest generation says (`load`)."""
    current = _small_json(folder / "CURRENT")
    return current or newest_generation(folder) or {}


def scan_store(folder: Path, root: Path) -> Iterator[Path]:
    """CURRENT, meta.json (titles) and the newest journal segment (what happened since);
    and CURRENT's companions (`companion_of`), the generation files and live transcript
    chunks its listing reads."""
    names = {entry.name for entry in folders.entries(folder, root)}
    if "CURRENT" in names:
        yield folder / "CURRENT"
        yield from _generation_files(folder, root)
    elif "generations" in names and (stand_in := _stand_in(folder)) is not None:
        yield stand_in
    if "meta.json" in names:
        yield folder / "meta.json"
    segments = [
        e
        for e in folders.entries(folder / "journal", root)
        if e.name.endswith(".jsonl")
    ]
    if segments:
        yield Path(segments[-1].path)


GENERATION_FILES = ("manifest.json", "projection-state.json", "runtime-state.json")


def _stand_in(folder: Path) -> Path | None:
    """The newest generation's manifest, listed in the place of a CURRENT not there
    (deleted, or mid-rewrite): its session is read from it (`parse`), not dropped."""
    current = newest_generation(folder)
    if current is None:
        return None
    return folder / "generations" / str(current["generation"]) / "manifest.json"


def stands_in(path: str) -> bool:
    """Whether `path` is a generation's manifest, which `_stand_in` may list in the
    place of its CURRENT (`<id>/generations/<gen>/manifest.json`)."""
    parts = Path(path).parts
    return (
        len(parts) > 3 and parts[-3] == "generations" and parts[-1] == "manifest.json"
    )


def _present(folder: Path) -> bool:
    """Whether the store is there to read: its CURRENT, or where that is gone (deleted,
    or mid-rewrite) the newest generation `load` reads in its place."""
    return (folder / "CURRENT").is_file() or _stand_in(folder) is not None


def _generation_files(folder: Path, root: Path) -> Iterator[Path]:
    """The live generation's manifest, envelope and runtime state, and the transcript
    chunks its manifest names: Vibe writes them before it points CURRENT at them, so only
    damage changes, or deletes, one alone; a stat each on a warm list. Of the chunks only
    the live ones (the manifest read here: content-addressed, the folder keeps every
    generation's)."""
    generation = str(_pointer(folder).get("generation"))
    if not generation.isdigit():  # a 16-digit name, never a path
        return
    live = folder / "generations" / generation
    names = set()
    for entry in folders.entries(
        live, root
    ):  # one folder noted, not three files probed
        if entry.name in GENERATION_FILES and entry.is_file():
            names.add(entry.name)
            yield Path(entry.path)
    if "manifest.json" not in names:
        return
    chunks = obj(_small_json(live / "manifest.json"), "projection_state").get("chunks")
    wanted = (
        {f"{c}.json" for c in chunks or () if isinstance(c, str) and _SHA.match(c)}
        if isinstance(chunks, list)
        else set()
    )
    if wanted:
        for entry in folders.entries(folder / "chunks", root):
            if entry.name in wanted and entry.is_file():
                yield Path(entry.path)


def _small_json(path: Path) -> dict[str, object]:
    data = files.read_small(path, SMALL_DOC)
    try:
        value = orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def companion_of(path: str) -> str | None:
    """The CURRENT whose listing a live generation's file, or a transcript chunk, changes
    (`<id>/generations/<gen>/<file>`, `<id>/chunks/<sha256>.json`)."""
    parts = Path(path).parts
    if len(parts) > 3 and parts[-3] == "generations" and parts[-1] in GENERATION_FILES:
        return str(Path(*parts[:-3], "CURRENT"))
    if len(parts) > 2 and kin_of(path) is not None and parts[-2] == "chunks":
        return str(Path(*parts[:-2], "CURRENT"))
    return None


def kin_of(path: str) -> str | None:
    """The session folder of a transcript chunk or a journal segment: a segment's listing
    says the session's bytes from the chunks' sizes too, so a chunk gone lists it again
    (and a segment grown parses the chunks again: nothing, they are CURRENT's). String
    work alone: a warm list asks it of every file of the app."""
    parent, name = os.path.split(path)
    folder, kind = os.path.split(parent)
    if kind == "journal" and name.endswith(".jsonl"):
        return folder
    # a CURRENT that goes or comes back reads its stand-in again (`_stand_in`)
    if name == "CURRENT":
        return parent
    if name == "manifest.json" and os.path.basename(folder) == "generations":
        return os.path.dirname(folder)
    if kind == "chunks" and name.endswith(".json") and _SHA.match(name[:-5]):
        return folder
    return None


# --- listing ----------------------------------------------------------------------------


def parse(path: Path, diagnostics: Diagnostics) -> list[Session]:
    if companion_of(str(path)) is not None:  # read with its CURRENT
        current = path.parent.parent.parent / "CURRENT"
        if path.name != "manifest.json" or folders.exists(current):
            return []
        return _list_current(current, diagnostics)  # standing in (`_stand_in`)
    if path.name == "CURRENT":
        return _list_current(path, diagnostics)
    if path.name == "meta.json":
        return _list_meta(path, diagnostics)
    return _list_journal(path, diagnostics)


def _pinned_model(store: Store, diagnostics: Diagnostics) -> str | None:
    """The model alias pinned to a session (`session_metadata.active_model` of its
    runtime state), if any."""
    runtime_path = store.part("runtime_state")
    runtime = (
        files.read_json_file(runtime_path, limit=RUNTIME_LIMIT, diagnostics=diagnostics)
        if runtime_path
        else None
    )
    return text_of(obj(runtime, "session_metadata"), "active_model")


def _named_parent(store: Store, runtime: object = None) -> str | None:
    """The session a store names as its parent: its snapshot's, else its runtime
    state's identity (`runtime`: that state, where the caller read it already)."""
    named = text_of(obj(store.snapshot, "session"), "parentSessionId")
    if named or runtime is not None:
        return named or text_of(obj(runtime, "identity"), "parent_session_id")
    runtime_path = store.part("runtime_state")
    if runtime_path is not None:
        runtime = files.read_json_file(
            runtime_path, limit=RUNTIME_LIMIT, diagnostics=Diagnostics()
        )
    return text_of(obj(runtime, "identity"), "parent_session_id")


def _list_current(path: Path, diagnostics: Diagnostics) -> list[Session]:
    store = load(path.parent, diagnostics)
    if store is None:
        return []
    _say_damaged_chunks(store, diagnostics)
    session = obj(store.snapshot, "session")
    runtime_path = store.part("runtime_state")
    runtime = (
        files.read_json_file(runtime_path, limit=RUNTIME_LIMIT, diagnostics=diagnostics)
        if runtime_path
        else None
    )
    metadata, identity = obj(runtime, "session_metadata"), obj(runtime, "identity")
    parent = _named_parent(store, runtime)
    kind = text_of(identity, "kind") or (
        "subagent" if store.folder.name.startswith("child-") else "root"
    )
    alias = text_of(metadata, "active_model")
    # a sub-agent's type is in its lead's spawn (the index looks it up there by its id)
    typed_by_lead = bool(parent and kind == "subagent" and _NAME.match(parent))
    return [
        Session(
            app=APP,
            id=store.session_id,
            path=str(path),
            cwd=text_of(metadata, "cwd"),
            title=one_line(text_of(session, "title") or text_of(session, "preview")),
            created=ms_time(session.get("createdAt")),
            updated=ms_time(session.get("updatedAt")),
            model=alias,
            effort=text_of(metadata, "reasoning_effort"),
            permission_mode=text_of(metadata, "agent_name"),
            bytes=_size(store),
            # a fork (identity kind "fork", depth 0) is the user's own session
            parent_id=parent if kind != "fork" else None,
            precedence=1,  # above a legacy folder of the same id that Vibe 3 imported
            extra={
                "engine": "unified",
                "store_minor": number(store.current, "store_format_minor"),
                "subagent": kind == "subagent",
                **({"model_alias": alias} if alias else {}),
                **({"forked_from_id": parent} if kind == "fork" and parent else {}),
                **({"spawn_key": store.session_id} if typed_by_lead else {}),
                "spawn_types": _chunk_spawns(store),
            },
        )
    ]


CHUNK_GONE = "transcript chunk not found"
CHUNK_CUT = "transcript chunk cut short (not a whole JSON list)"


def _say_damaged_chunks(store: Store, diagnostics: Diagnostics) -> None:
    """Count each transcript chunk the manifest names that is gone, or whose last bytes
    are not a JSON list's end (cut short mid-write or by a full disk), as `read` finds
    it "missing or broken". Only a chunk's last bytes are read: parsing every chunk of
    every session made a cold list a third slower (see `vibe.companion_parsed`)."""
    for chunk in store.chunk_paths() or []:
        damage = _chunk_damage(chunk)
        if damage is not None:
            diagnostics.skip(str(chunk), 0, damage)


def _chunk_damage(chunk: Path) -> str | None:
    """CHUNK_GONE or CHUNK_CUT, as a chunk's last bytes show; None for one whole, one
    refused or not a file (`read` names it so)."""
    try:
        _, end = files.tail_bytes(chunk, 64)
    except FileNotFoundError:
        return CHUNK_GONE
    except OSError:
        return None
    return None if end.rstrip().endswith(b"]") else CHUNK_CUT


def _chunk_spawns(store: Store) -> dict[str, JSONValue]:
    """The agent type each sub-agent's spawn names (what its tree shows; its own files do
    not say it), in the transcript chunks from the newest back, `SPAWN_SEARCH` bytes at
    most (a child spawned long before in a long lead stays untyped); a chunk is parsed
    only when its bytes name a child. The live journal's tail comes first
    (`_list_journal`), and the index types the sub-agents' rows from both."""
    found: dict[str, JSONValue] = {}
    budget = SPAWN_SEARCH
    for chunk in reversed(store.chunk_paths() or []):
        size = file_size(chunk)
        budget -= size
        if budget < 0:
            break
        data = files.read_small(chunk, size + 1)
        if data is None or _CHILD not in data:
            continue
        try:
            _add_spawns(found, files.loads(data), data)
        except orjson.JSONDecodeError:
            continue  # a broken chunk: `read` says so
    return found


_CHILD = b'"childSessionId":"'


def _add_spawns(found: dict[str, JSONValue], value: object, data: bytes) -> None:
    """The type of each child whose first spawn effect in `value` (parsed from `data`,
    which names it) names one, where `found` has none yet."""
    for child, agent in _first_spawns(value).items():
        if agent is not None and child not in found and _CHILD + child.encode() in data:
            found[child] = agent


def _first_spawns(value: object) -> dict[str, str | None]:
    """The agent type of the first spawn effect of each child within a chunk's list of
    entries or a journal record (its delta's entries), as `_Translator._effect` reads
    one."""
    first: dict[str, str | None] = {}
    stack, seen = [value], 0
    while stack and seen < 10_000:  # a record's few levels, never a walk without end
        item = stack.pop()
        seen += 1
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        detail = item.get("detail")
        if isinstance(detail, dict) and detail.get("kind") == "subagent":
            annotation = obj(
                obj(obj(obj(item, "state"), "output"), "_meta"), "mistral.vibe.subagent"
            )
            named = text_of(detail, "childSessionId") or text_of(
                annotation, "childSessionId"
            )
            if named and named not in first:
                agent = text_of(obj(detail, "input"), "agent")
                first[named] = agent or text_of(annotation, "agentType")
            continue
        stack.extend(v for v in item.values() if isinstance(v, dict | list))
    return first


def _list_meta(path: Path, diagnostics: Diagnostics) -> list[Session]:
    meta = files.read_json_file(path, limit=RUNTIME_LIMIT, diagnostics=diagnostics)
    if not isinstance(meta, dict):
        diagnostics.skip(str(path), 1, "not JSON")
        return []
    config = obj(meta, "config")
    return [
        Session(
            app=APP,
            id=text_of(meta, "session_id") or path.parent.name,
            cwd=text_of(obj(meta, "environment"), "working_directory")
            or text_of(meta, "origin_directory"),
            branch=text_of(meta, "git_branch"),
            title=one_line(text_of(meta, "title")),
            created=iso_time(meta.get("start_time"), naive="local"),
            model=text_of(config, "model_name"),
            parent_id=text_of(meta, "parent_session_id"),
            precedence=2,
            listed=False,
            extra={"model_alias": alias}
            if (alias := text_of(config, "active_model"))
            else {},
        )
    ]


def _size(store: Store) -> int:
    """A session's bytes: its transcript chunks and its live journal segment."""
    return sum(
        file_size(part) for part in [*(store.chunk_paths() or []), store.segment]
    )


def _list_journal(path: Path, diagnostics: Diagnostics) -> list[Session]:
    folder = path.parent.parent
    current = _pointer(folder)
    if not current or path.stem != f"{number(current, 'snapshot_sequence') + 1:016d}":
        return []  # an old segment, already folded into the snapshot
    envelope: dict[str, object] = {}
    moved: dict[str, object] = {}
    tail = files.tail_lines(path)
    files.note_unfinished_last(tail, diagnostics, str(path))  # Vibe still writing it
    spawned: dict[str, JSONValue] = {}  # the newest spawns, before the chunks'
    for line in reversed(tail):
        if _CHILD in line.data:
            _add_spawns(spawned, files.parse_json(line), line.data)
    for line in reversed(tail):
        if not moved and b'"session_relocated"' in line.data:
            record = files.parse_json(line)
            if record is not None and record.get("type") == "session_relocated":
                moved = obj(obj(record, "payload"), "metadata")
        if b'"set_envelope"' in line.data:
            record = files.parse_json(line)
            ops = [
                op
                for op in items(obj(record, "payload"), "delta")
                if isinstance(op, dict)
            ]
            envelope = next(
                (
                    obj(op, "state")
                    for op in reversed(ops)
                    if op.get("op") == "set_envelope"
                ),
                {},
            )
            if envelope:
                break
    session = obj(envelope, "session")
    # the size here too: the segment grows at every turn, and CURRENT's listing, which
    # says it as well, is read again only at the next generation (its problems said there)
    store = load(folder, Diagnostics(), envelope=False)
    if not session and not moved and store is None and not spawned:
        return []
    return [
        Session(
            app=APP,
            id=text_of(current, "session_id") or folder.name,
            title=one_line(text_of(session, "title")),
            updated=ms_time(session.get("updatedAt")),
            cwd=text_of(moved, "cwd"),  # newer than the snapshot's runtime state
            bytes=_size(store) if store is not None else None,
            precedence=3,
            listed=False,
            extra={"spawn_types": spawned} if spawned else {},
        )
    ]


# --- reading ----------------------------------------------------------------------------


class _Overlay:
    """What the live journal changes in the snapshot's entries, applied while streaming them."""

    def __init__(self) -> None:
        self.reset = False
        self.replaced: dict[str, dict[str, object]] = {}
        self.removed: set[str] = set()
        self.appended: list[dict[str, object]] = []
        self.envelope: dict[str, object] | None = None

    def apply(self, op: dict[str, object], diagnostics: Diagnostics) -> None:
        kind, entry, entry_id = op.get("op"), obj(op, "entry"), text_of(op, "id")
        if kind == "append_entry" and entry:
            self.appended.append(entry)
        elif kind == "replace_entry" and entry_id and entry:
            for i, old in enumerate(self.appended):
                if old.get("id") == entry_id:
                    self.appended[i] = entry
                    break
            else:
                self.replaced[entry_id] = entry
        elif kind == "remove_entry" and entry_id:
            self.appended = [e for e in self.appended if e.get("id") != entry_id]
            self.removed.add(entry_id)
        elif kind == "set_history_entries":
            self.set_history(items(op, "entries"))
        elif kind == "set_envelope":
            self.envelope = obj(op, "state")
        else:
            diagnostics.unknown_type(f"projection_op:{kind}")

    def set_history(self, entries: list[object]) -> None:
        self.reset, self.replaced, self.removed = True, {}, set()
        self.appended = [e for e in entries if isinstance(e, dict)]

    def entries(self, base: Iterable[dict[str, object]]) -> Iterator[dict[str, object]]:
        if not self.reset:
            for entry in base:
                entry_id = entry.get("id")
                if isinstance(entry_id, str) and entry_id in self.removed:
                    continue
                yield (
                    self.replaced.get(entry_id, entry)
                    if isinstance(entry_id, str)
                    else entry
                )
        yield from self.appended


def _base_entries(
    store: Store, diagnostics: Diagnostics
) -> Iterator[dict[str, object]]:
    """The snapshot's transcript: inline entries, then the chunks one at a time."""
    for entry in items(obj(store.snapshot, "history"), "entries"):
        if isinstance(entry, dict):
            yield entry
    for chunk in store.chunk_paths() or []:
        if file_size(chunk) > CHUNK_CAP:  # too big to parse at once: an entry at a time
            from ..jsonstream import file_items

            entries = file_items(chunk, None, diagnostics, APP)
            yield from (entry for entry in entries if isinstance(entry, dict))
            continue
        data = files.read_json_file(chunk, limit=CHUNK_CAP, diagnostics=diagnostics)
        if not isinstance(data, list):
            _say_broken(chunk, diagnostics)
            continue
        yield from (entry for entry in data if isinstance(entry, dict))


def _say_broken(chunk: Path, diagnostics: Diagnostics) -> None:
    """A chunk the read could not use: skipped as the listing counts it (gone or cut
    short), so `usage -v`, which says both, names it once; else why, as a problem."""
    refused = files.refused_problem("vibe", chunk)
    damage = None if refused else _chunk_damage(chunk)
    if damage is not None:
        diagnostics.skip(str(chunk), 0, damage)
        return
    diagnostics.problem(
        refused or f"vibe: transcript chunk {chunk} is missing or broken"
    )


def read_store(
    folder: Path,
    emit: Emitter,
    diagnostics: Diagnostics,
    *,
    agent_id: str | None = None,
    model: str | None = None,
    full: bool = False,
    depth: int = 0,
    seen: set[str] | None = None,
    families: dict[str, _Family] | None = None,
    spawner: str | None = None,
) -> Iterator[Event]:
    """The session's entries (snapshot, then the live journal), sub-agents after their
    spawn. `seen` and `families` are the read's own, shared by its sub-agents' reads.
    A sub-agent that `spawner`'s spawn names, whose store names another parent (hostile
    or damaged), is read in that parent's read alone, as it is listed: both counted it."""
    store = load(folder, diagnostics)
    if store is None:
        if not _present(folder):
            diagnostics.problem(f"vibe: {folder} vanished before it could be read")
        return
    if spawner is not None and _named_parent(store) not in (None, spawner):
        return
    seen = seen if seen is not None else set()
    seen.add(store.session_id)
    families = families if families is not None else {}
    if (
        depth
    ):  # a sub-agent may run on a model of its own (Vibe 3.0.3's declared routes)
        model = _pinned_model(store, diagnostics) or model
    overlay = _Overlay()
    segment = store.segment
    if segment is not None and segment.is_file():
        for _line, record in files.iter_records(segment, diagnostics, full=full):
            kind, payload = type_tag(record.get("type")), obj(record, "payload")
            if number(record, "sequence") <= store.sequence:
                continue
            # a relocation (the session moved to another folder, or a stored child's
            # settings changed) carries a delta like any other
            if kind in ("projection_delta", "session_relocated"):
                for op in items(payload, "delta"):
                    if isinstance(op, dict):
                        overlay.apply(op, diagnostics)
            elif kind == "projection_advanced":
                snapshot = obj(payload, "snapshot")
                overlay.set_history(items(obj(snapshot, "history"), "entries"))
                overlay.envelope = snapshot
            elif kind not in JOURNAL_IGNORED:
                diagnostics.unknown_type(f"journal:{kind}")
    reader = _EntryReader(
        store,
        emit,
        diagnostics,
        agent_id=agent_id,
        model=model,
        full=full,
        depth=depth,
        seen=seen,
        families=families,
    )
    for entry in overlay.entries(_base_entries(store, diagnostics)):
        yield from reader.entry(entry)
    yield from reader.orphans()
    envelope = overlay.envelope or store.snapshot
    yield from reader.finish(envelope)


# a folder's child stores by the session each names as its parent: (name, its task)
_Family = dict[str, list[tuple[str, str | None]]]


def _children_by_parent(folder: str) -> _Family:
    """The folder's child stores (`child-…`) by the session their snapshot names as
    their parent, in name order, each with its task (its envelope's preview: the first
    message its lead sent it)."""
    found: _Family = {}
    for entry in folders.entries(folder):
        if not entry.name.startswith("child-"):
            continue
        child = load(Path(entry.path), Diagnostics())
        if child is not None:
            session = obj(child.snapshot, "session")
            parent = text_of(session, "parentSessionId")
            task = text_of(session, "preview") or text_of(session, "title")
            if parent:
                found.setdefault(parent, []).append((entry.name, task))
    return found


def _named_children(store: Store) -> dict[str, tuple[str | None, str | None]]:
    """The name and type the lead gave each child store it keeps, by the child's id,
    from its runtime state (`subagents.children`: what a spawn effect gone from its
    transcript named)."""
    path = store.part("runtime_state")
    runtime = (
        files.read_json_file(path, limit=RUNTIME_LIMIT, diagnostics=Diagnostics())
        if path
        else None
    )
    found: dict[str, tuple[str | None, str | None]] = {}
    for key, value in obj(obj(runtime, "subagents"), "children").items():
        record = as_dict(value)
        child = text_of(record, "child_session_id")
        if child:
            name = text_of(record, "agent_name") or (key or None)
            found[child] = (name, text_of(record, "agent_type"))
    return found


class _EntryReader:
    """Translates projection entries (message, reasoning, effect, checkpoint, notice) to events."""

    def __init__(
        self,
        store: Store,
        emit: Emitter,
        diagnostics: Diagnostics,
        *,
        agent_id: str | None,
        model: str | None,
        full: bool,
        depth: int,
        seen: set[str],
        families: dict[str, _Family],
    ) -> None:
        self.store, self.emit, self.diagnostics = store, emit, diagnostics
        self.model = (
            model  # a sub-agent runs on its lead's model unless its own is recorded
        )
        self.agent, self.full, self.depth, self.seen = agent_id, full, depth, seen
        # a folder's child stores by the session they name as their parent (`orphans`)
        self.families = families
        self.turn: str | None = None
        self.last: datetime | None = None

    def entry(self, entry: dict[str, object]) -> Iterator[Event]:
        emit, agent = self.emit, self.agent
        when = ms_time(entry.get("createdAt"))
        turn = text_of(entry, "turnId")
        if turn and self.turn and turn != self.turn:
            yield emit("turn_end", agent_id=agent, time=self.last)
        self.turn = turn or self.turn
        self.last = ms_time(entry.get("updatedAt")) or when or self.last
        kind = type_tag(entry.get("type"))
        if kind == "message":
            text = _blocks_text(entry.get("content"), self.diagnostics)
            role = entry.get("role")
            discarded = obj(entry, "outcome").get("type") == "discarded"
            if role == "user" and text:
                # what the user typed, where Vibe expanded it for the model (a skill's
                # body): the projection keeps it beside the content (vibe/_projection.py)
                shown = _blocks_text(obj(entry, "userDisplayContent").get("content"))
                extra: dict[str, JSONValue] = (
                    {"sent": text} if shown and shown != text else {}
                )  # what the model was sent, for --json
                yield emit(
                    "user", agent_id=agent, time=when, text=shown or text, extra=extra
                )
            elif role == "assistant" and text:
                yield emit(
                    "assistant",
                    agent_id=agent,
                    time=when,
                    text=text,
                    extra={"discarded": True} if discarded else {},
                )
            elif text:
                yield emit(
                    "meta",
                    agent_id=agent,
                    time=when,
                    text=text,
                    extra={"role": str(role)},
                )
        elif kind == "reasoning":
            text = text_of(entry, "text") or "\n".join(
                s for s in items(entry, "summary") if isinstance(s, str)
            )
            if text:
                yield emit("thinking", agent_id=agent, time=when, text=text)
        elif kind == "effect":
            yield from self._effect(entry, when)
        elif kind == "checkpoint":
            details, message = obj(entry, "details"), text_of(entry, "message")
            if (
                entry.get("kind") == "compaction"
                and entry.get("generationStatus") == "completed"
            ):
                if details.get("error") is not None:
                    yield emit(
                        "error",
                        agent_id=agent,
                        time=when,
                        text=message or "Context compaction failed",
                    )
                else:
                    yield emit(
                        "compaction",
                        agent_id=agent,
                        time=when,
                        extra={"trigger": json_value(details.get("trigger"))},
                    )
            elif entry.get("kind") == "model_change":
                yield emit(
                    "meta",
                    agent_id=agent,
                    time=when,
                    text=message,
                    extra={"model": json_value(details.get("model"))},
                )
            elif entry.get("kind") != "compaction":
                yield emit("meta", agent_id=agent, time=when, text=message)
        elif kind == "notice":
            level, message = text_of(entry, "level"), text_of(entry, "message")
            yield emit(
                "error" if level == "error" else "meta",
                agent_id=agent,
                time=when,
                text=message,
            )
        else:
            self.diagnostics.unknown_type(f"entry:{kind}")

    def _effect(
        self, entry: dict[str, object], when: datetime | None
    ) -> Iterator[Event]:
        emit, agent = self.emit, self.agent
        detail, state = obj(entry, "detail"), obj(entry, "state")
        call_id = text_of(entry, "id")
        tool = text_of(detail, "toolName") or text_of(entry, "title") or "tool"
        arguments = detail.get("input")
        yield emit(
            "tool_call",
            agent_id=agent,
            time=when,
            tool=tool,
            call_id=call_id,
            extra={"input": json_value(arguments)},
        )
        if detail.get("kind") == "subagent":
            annotation = obj(
                obj(obj(state, "output"), "_meta"), "mistral.vibe.subagent"
            )
            child = text_of(detail, "childSessionId") or text_of(
                annotation, "childSessionId"
            )
            task = text_of(arguments, "task") or text_of(arguments, "message")
            agent_type = text_of(arguments, "agent") or text_of(annotation, "agentType")
            yield emit(
                "subagent",
                agent_id=agent,
                time=when,
                call_id=call_id,
                text=task,
                extra={
                    "child_id": child,
                    "agent_type": agent_type,
                    "agent_name": text_of(detail, "agentName"),
                },
            )
            if child:
                yield from self._child(child)
        status = text_of(state, "status")
        if status in _DONE:
            # `agents.spawn` returns once the sub-agent has started ("Started greeter"):
            # the sub-agent ends with its own turn, the lead waits on it in `self.wait`
            launched = detail.get("kind") == "subagent" and status == "completed"
            yield emit(
                "tool_result",
                agent_id=agent,
                time=ms_time(entry.get("updatedAt")) or when,
                call_id=call_id,
                text=_effect_output(state, tool, self.diagnostics),
                is_error=status != "completed",
                extra={"launched": True} if launched else {},
            )

    def _child(self, child: str) -> Iterator[Event]:
        folder = self.store.folder.parent / child
        if child in self.seen or self.depth >= SUBAGENT_DEPTH or not _NAME.match(child):
            return
        if not _present(folder):  # the spawn effect named a store
            self.diagnostics.child_missing("vibe", child)
        else:
            yield from read_store(
                folder,
                self.emit,
                self.diagnostics,
                agent_id=child,
                model=self.model,
                full=self.full,
                depth=self.depth + 1,
                seen=self.seen,
                families=self.families,
                spawner=self.store.session_id,
            )

    def orphans(self) -> Iterator[Event]:
        """Sub-agent folders whose spawn effect we never saw, but that name this session."""
        if self.depth >= SUBAGENT_DEPTH:
            return
        # each child's store loaded once a read (once a command, in `folders.one_pass`),
        # not again by each sub-agent's read: a lead with 1,600 of them loaded 1,600
        # squared
        folder = os.fspath(self.store.folder.parent)
        if folder not in self.families:
            self.families[folder] = folders.kept(
                ("vibe-children", folder), lambda: _children_by_parent(folder)
            )
        named: dict[str, tuple[str | None, str | None]] | None = None
        for name, task in self.families[folder].get(self.store.session_id, ()):
            if name in self.seen:
                continue
            if named is None:
                named = _named_children(self.store)
            agent_name, agent_type = named.get(name, (None, None))
            yield self.emit(
                "subagent",
                agent_id=self.agent,
                text=task,
                extra={
                    "child_id": name,
                    "agent_type": agent_type,
                    "agent_name": agent_name,
                },
            )
            yield from self._child(name)

    def finish(self, envelope: dict[str, object]) -> Iterator[Event]:
        emit, agent = self.emit, self.agent
        latest, session = obj(envelope, "latestTurn"), obj(envelope, "session")
        status = text_of(latest, "status")
        if self.turn and status in ("completed", "failed", "interrupted"):
            if status == "failed":
                message = text_of(obj(latest, "error"), "message") or "turn failed"
                yield emit(
                    "error",
                    agent_id=agent,
                    time=ms_time(latest.get("completedAt")),
                    text=message,
                )
            extra: dict[str, JSONValue] = {"reason": status}
            if status == "interrupted":  # the user's abort (or a restart mid-turn)
                extra["interrupted"] = True
            yield emit(
                "turn_end",
                agent_id=agent,
                time=ms_time(latest.get("completedAt")) or self.last,
                extra=extra,
            )
        tokens = obj(session, "tokenUsage")
        if any(odd_count(tokens.get(key)) for key in _TOKEN_USAGE):
            where = self.store.part("projection_state") or self.store.folder
            self.diagnostics.damage(str(where), 0, odd_in("set of totals"))
        # each 0 below 0: less a negative cached count, the input grew by it
        cached = max(0, number(tokens, "cachedInputTokens"))
        usage = Usage(
            input_tokens=max(0, number(tokens, "inputTokens") - cached),
            output_tokens=max(0, number(tokens, "outputTokens")),
            cache_read_tokens=cached,
            model=self.model,
        )
        if usage.total:
            yield emit(
                "usage",
                agent_id=agent,
                time=ms_time(session.get("updatedAt")),
                usage=usage,
                extra={"cumulative": True, "summed": True},
            )


def _blocks_text(content: object, diagnostics: Diagnostics | None = None) -> str | None:
    """A message's or a tool output's content blocks as text; a block of a type not known
    here is named in brackets where it stood, and counted (`diagnostics`)."""
    pieces: list[str] = []
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            pieces.append(plain(block))
        elif isinstance(block, dict):
            kind = type_tag(block.get("type"))
            if kind == "text" and isinstance(block.get("text"), str):
                pieces.append(plain(str(block["text"])))
            elif kind == "image":
                attachment = obj(block, "attachment")
                data = obj(attachment, "source").get("data")
                pieces.append(blob(text_of(attachment, "mimeType") or "image", data))
            elif kind == "resource":
                pieces.append(
                    f"[{text_of(obj(block, 'resource'), 'uri') or 'resource'}]"
                )
            elif kind != "text":  # (a text block without its text says nothing)
                pieces.append(f"[{kind or 'untyped block'}]")
                if diagnostics is not None:
                    diagnostics.unknown_type(f"content:{kind}")
    text = "\n".join(p for p in pieces if p)
    return text or None


def _effect_output(
    state: dict[str, object],
    tool: str | None = None,
    diagnostics: Diagnostics | None = None,
) -> str | None:
    output = obj(state, "output")
    text = text_of(state, "outputText") or _blocks_text(
        output.get("content"), diagnostics
    )
    if text:
        return plain(text)
    structured = output.get("structured_content")
    reason = text_of(structured, "reason") if isinstance(structured, dict) else None
    if tool == "self.wait" and reason:  # why the lead woke (`input_available`)
        return plain(f"stopped waiting: {reason.replace('_', ' ')}")
    if isinstance(structured, dict) and (
        "stdout" in structured or "stderr" in structured
    ):
        return _shell_output(structured)
    if isinstance(structured, dict) and set(structured) != {"type"}:
        return orjson.dumps(structured).decode()
    return text_of(obj(state, "error"), "message") or text_of(state, "reason")


def _shell_output(result: dict[str, object]) -> str | None:
    """A shell tool's result as a terminal shows it: stdout, stderr, a failing exit code."""
    parts = [
        text.rstrip("\n")
        for key in ("stdout", "stderr")
        if (text := text_of(result, key)) and text.strip()
    ]
    code = result.get("returncode")
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        parts.append(f"exit code {code}")
    if result.get("timed_out") is True:
        parts.append("timed out")
    return plain("\n".join(parts)) if parts else None
