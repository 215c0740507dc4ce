"""Kiro 1.0's own chat store (`~/.kiro/sessions/<bucket>/<session id>/`), for `kiroide`.

Known from third-party notes only (Low): peasant-labs/peasant @aab00ec4
(`internal/harnesslayout/kiro.go`: `*/*/session.json` and `*/*/messages.jsonl` under
`~/.kiro/sessions`, `cli/` left to the CLI 2.x, `.migrated-*.json` notes `{migratedAt,
v2SessionId}`) and the fixtures of jk-zhang-meta/ags (`tests/fixtures/kiro/
ide_messages.jsonl`, `tests/kiro_resume.rs`) and of another reader's notes on a Kiro 1.0.411
capture. `<bucket>` is 16 hex digits (a hash of the workspace's path; `_global` for a chat
with no workspace), `<session id>` `sess_<uuid>`. `session.json` holds `{id, title,
modelId, workspacePaths[], createdAt, lastModifiedAt}`; `messages.jsonl` one event a line,
`{id, timestamp, payload: {type, …}}`:

- `session_start` (`content`): Kiro's system prompt, written after the turns, in the
  capture, the first prompt, written first, in another reader's fixture: a user event
  only when no prompt came before it and it is no system prompt (`<identity>…`);
- `user` (`content`, text or parts); `assistant` (`content`, `operationType` `Say`, or
  `Reasoning`: thinking, whose text Kiro may elide to "...", then left out);
- `tool_call` (`toolCallId`, `toolName`, `args`) and `tool_result` (`toolCallId`,
  `content`, `success`), paired by `toolCallId`;
- `usage_summary` (`promptTurnSummaries[{unit, usage, usedTools}]`): credits, not tokens:
  the turn's usage event, its credits (`Usage.credits`, Kiro's), its tokens where it has them
  (`inputTokens`, `outputTokens`, …, as Kiro's wire does);
- `turn_end` (`stopReason`) a turn's end; `turn_start`, `session_metadata` (context
  use), `pending_interaction`, `interaction_resolved` carry nothing shown; any other type is
  counted for `doctor`.

The Kiro CLI's own folder there, `cli/`, is the `kiro` source's and never listed here. The
notes say the Kiro CLI 3's new engine (`kiro-cli --v3`) writes this same layout (ids
`cli_<uuid>_<suffix>`): such a session is listed here, as a chat of the IDE, its resume
advice the CLI's (`cd <folder> && kiro-cli --v3 --resume-id <id>`, as
jk-zhang-meta/ags `tests/kiro_resume.rs` found it). The id is the folder's name, the one a migration note's
`v2SessionId` gives. The log is the session's file, `session.json` its companion (a
change to it alone parses the session again). A migration note is read whole (64 KiB at most); `session.json` whole
(1 MiB at most); a chat without a title is named by the first prompt in its log's head.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import orjson

from .. import files, folders
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import Event, JSONValue, Session, superseded
from ._values import (
    as_credits,
    as_dict,
    as_int,
    as_list,
    as_str,
    epoch_or_iso_time,
    epoch_time,
    iso_time,
    json_value,
    local_path,
    new_usage,
    odd_count,
    one_line,
    renumber,
    stat_size,
    stripped,
)

STORE = (".kiro", "sessions")  # under the home
CLI = "cli"  # the Kiro CLI 2.x's folder in the store: the `kiro` source's
META = "session.json"
LOG = "messages.jsonl"
META_CAP = 1024 * 1024  # a session.json bigger than this is not a header
NOTE_CAP = 64 * 1024
NOTE_PREFIXES = (".migrated-", "._migration-")  # Kiro 1.0's notes of a copied chat
SYSTEM_PROMPT = "<identity>"
ELIDED = "..."  # what Kiro keeps of a reasoning's text
# payload types that carry nothing shown
_QUIET = frozenset(
    {"turn_start", "session_metadata", "pending_interaction", "interaction_resolved"}
)
_TOKENS = (
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheWriteInputTokens",
)


def scan(root: Path) -> Iterator[str]:
    """Each session folder's `messages.jsonl` (the session's file, which grows) and its
    `session.json` (a companion: a change to it parses the log's session again); a
    folder without a log holds no chat yet. The CLI's `cli/` folder is passed over."""
    for bucket in folders.entries(root, root):
        if bucket.name == CLI or not bucket.is_dir():
            continue
        for folder in folders.entries(bucket.path, root):
            if not folder.is_dir():
                continue
            names = {entry.name: entry for entry in folders.entries(folder.path, root)}
            log = names.get(LOG)
            if log is None or not log.is_file():
                continue
            yield log.path
            meta = names.get(META)
            if meta is not None and meta.is_file():
                yield meta.path


def companion_of(path: str) -> str | None:
    """The `messages.jsonl` a `session.json` speaks of."""
    if os.path.basename(path) == META:
        return os.path.join(os.path.dirname(path), LOG)
    return None


def is_note(path: Path) -> bool:
    return path.name.startswith(NOTE_PREFIXES) and path.name.endswith(".json")


def parse(path: Path, app: str, diagnostics: Diagnostics) -> list[Session]:
    """A session from its log's size and time and its `session.json` (a bounded read);
    nothing from `session.json` itself, its log's companion."""
    if path.name != LOG:
        return []
    folder = path.parent
    log = path
    meta = folder / META
    value: dict[str, object] = {}
    if folders.is_file(meta):
        read = files.read_json_file(meta, limit=META_CAP, diagnostics=diagnostics)
        if read is not None and not isinstance(read, dict):
            diagnostics.skip(str(meta), 1, "not an object")
        value = as_dict(read)
    size = stat_size(log)
    with contextlib.suppress(OSError):  # a last line Kiro is still writing is said
        files.note_unfinished_last(files.tail_lines(log), diagnostics, str(log))
    workspaces = [w for w in as_list(value.get("workspacePaths")) if isinstance(w, str)]
    extra: dict[str, JSONValue] = {}
    cwd = local_path(workspaces[0]) if workspaces else None
    if workspaces and cwd is None:
        extra["workspace"] = workspaces[0]
    if len(workspaces) > 1:
        extra["workspaces"] = list(workspaces)
    # the later of the header's time and the log's last write (a turn appended since)
    times = [epoch_or_iso_time(value.get("lastModifiedAt"))]
    with contextlib.suppress(OSError):
        times.append(epoch_time(os.stat(log).st_mtime))
    updated = max((t for t in times if t is not None), default=None)
    title = one_line(stripped(value.get("title"))) or (
        _first_prompt(log, diagnostics) if size is not None else None
    )
    return [
        Session(
            app=app,
            id=folder.name,  # the id Kiro names the folder by (`v2SessionId`)
            path=str(log),
            cwd=cwd,
            title=title,
            created=epoch_or_iso_time(value.get("createdAt")),
            updated=updated,
            model=stripped(value.get("modelId")),
            bytes=size or 0,
            extra=extra,
        )
    ]


def _first_prompt(log: Path, diagnostics: Diagnostics) -> str | None:
    """The first prompt in the log's head: the title of a chat with none."""
    try:
        lines = files.head_lines(log)
    except OSError:
        return None
    for line in lines:
        try:
            record = orjson.loads(line.data)
        except orjson.JSONDecodeError:
            continue
        payload = as_dict(as_dict(record).get("payload"))
        text = _prompt(payload)
        if text:
            return one_line(text)
    return None


def _prompt(payload: dict[str, object]) -> str | None:
    if payload.get("type") not in ("user", "session_start"):
        return None
    text = _text(payload.get("content"))
    if not text or text.lstrip().startswith(SYSTEM_PROMPT):
        return None
    return text


def parse_note(
    path: Path, app: str, store: Path | None, diagnostics: Diagnostics
) -> list[Session]:
    """A migration note: the pre-1.0 chat it names is superseded by its 1.0 copy, where
    that copy is listed from the store (its log is there; a store deleted since leaves
    the old chat listed)."""
    value = as_dict(files.read_json_file(path, limit=NOTE_CAP, diagnostics=diagnostics))
    copy = stripped(value.get("v2SessionId"))
    old = stripped(value.get("sessionId")) or stripped(value.get("v1SessionId"))
    if old is None:
        for prefix in NOTE_PREFIXES:
            if path.name.startswith(prefix):
                old = path.name[len(prefix) : -len(".json")] or None
                break
    # the copy's id names its folder: a `../..` one led the is_file check out of the store
    if (
        not copy
        or not old
        or store is None
        or copy == old
        or not folders.plain_name(copy)
    ):
        return []
    if not any(
        bucket.is_dir() and folders.is_file(Path(bucket.path) / copy / LOG)
        for bucket in folders.entries(store, store)
        if bucket.name != CLI
    ):
        return []
    return [superseded(app, old, copy)]


# --- reading ------------------------------------------------------------------------------


def _text(value: object) -> str | None:
    """A payload's content: text, or parts of which the text ones are kept."""
    if isinstance(value, str):
        return value
    parts = [
        text
        for part in as_list(value)
        if (
            text := part if isinstance(part, str) else as_str(as_dict(part).get("text"))
        )
    ]
    return "\n\n".join(parts) if parts else None


def read(
    session: Session,
    app: str,
    diagnostics: Diagnostics,
    *,
    full: bool = False,
    offset: int = 0,
) -> Iterator[Event]:
    """The events of a session's `messages.jsonl`, line by line (see the docstring)."""
    if session.path is None:
        return
    path = Path(session.path)
    if path.name != LOG:
        path = path.parent / LOG
        offset = 0
    if not folders.is_file(path):
        return
    seq = 0
    prompts: set[str] = set()
    for line, record in files.iter_records(path, diagnostics, offset=offset, full=full):
        payload = as_dict(record.get("payload"))
        kind = as_str(payload.get("type"))
        time = iso_time(record.get("timestamp")) or epoch_or_iso_time(
            record.get("timestamp")
        )
        if kind == "usage_summary" and any(odd_count(payload.get(n)) for n in _TOKENS):
            diagnostics.damage(str(path), line.number, ODD_COUNT)  # billed as 0
        for event in _events(session.id, time, kind, payload, prompts, diagnostics):
            yield renumber(event, seq)
            seq += 1


def _events(
    sid: str,
    time: datetime | None,
    kind: str | None,
    payload: dict[str, object],
    prompts: set[str],
    diagnostics: Diagnostics,
) -> Iterator[Event]:
    if kind in ("user", "session_start"):
        text = _prompt(payload)
        # `session_start` after a prompt is Kiro's system prompt (written last)
        if text and (kind == "user" or not prompts):
            prompts.add(text.strip())
            yield Event(sid, 0, "user", time, text=text)
    elif kind == "assistant":
        text = _text(payload.get("content"))
        if stripped(payload.get("operationType")) == "Reasoning":
            if text and text.strip() != ELIDED:
                yield Event(sid, 0, "thinking", time, text=text)
        elif text:
            yield Event(sid, 0, "assistant", time, text=text)
    elif kind == "tool_call":
        args = payload.get("args")
        yield Event(
            sid,
            0,
            "tool_call",
            time,
            tool=as_str(payload.get("toolName")) or "?",
            call_id=as_str(payload.get("toolCallId")),
            extra={"input": json_value(args if args is not None else {})},
        )
    elif kind == "tool_result":
        content = payload.get("content")
        text = (
            _text(content)
            if isinstance(content, (str, list))
            else (orjson.dumps(content).decode() if content is not None else "")
        )
        yield Event(
            sid,
            0,
            "tool_result",
            time,
            call_id=as_str(payload.get("toolCallId")),
            text=text or "",
            is_error=payload.get("success") is False,
        )
    elif kind == "usage_summary":
        yield from _usage(sid, time, payload)
    elif kind == "turn_end":
        reason = as_str(payload.get("stopReason"))
        yield Event(
            sid, 0, "turn_end", time, extra={"reason": reason} if reason else {}
        )
    elif kind in _QUIET:
        return
    else:
        diagnostics.unknown_type(f"payload {one_line(kind, limit=40) or '?'}")


def _usage(
    sid: str, time: datetime | None, payload: dict[str, object]
) -> Iterator[Event]:
    """A turn's usage summary: one usage event, its token counts where it has them and
    the credits Kiro charged for the turn (`promptTurnSummaries`, unit "credit"); a use
    in another unit is noted."""
    counts = [max(0, as_int(payload.get(name))) for name in _TOKENS]
    credits = 0.0
    other: list[str] = []
    for summary in as_list(payload.get("promptTurnSummaries")):
        entry = as_dict(summary)
        usage = entry.get("usage")
        if not isinstance(usage, (int, float)) or isinstance(usage, bool):
            continue
        unit = as_str(entry.get("unit")) or "credit"
        if unit.lower() in ("credit", "credits"):
            credits += as_credits(usage)
        else:
            other.append(f"{usage:g} {unit}")
    if any(isinstance(payload.get(name), int) for name in _TOKENS) or credits:
        tokens = new_usage(counts[0], counts[1], counts[2], counts[3], 0, None, credits)
        yield Event(sid, 0, "usage", time, usage=tokens)
    if other:
        said = ", ".join(other)
        yield Event(
            sid, 0, "meta", time, text=f"turn used {said}", extra={"usage": said}
        )
