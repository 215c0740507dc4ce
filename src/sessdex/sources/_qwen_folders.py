"""The project folder of a Qwen Code prompt log, `tmp/<sha256 of the folder>/logs.json`.

The hash cannot be undone: the folder is a path Qwen wrote down elsewhere whose sha256, as
Qwen hashes a project's path (newer releases lower-case it on Windows: 0.15.10 does, 0.5.0
did not), is the log folder's name (`_hashed_folders`). Tried in turn:

- beside the settings (read once for all logs): `trustedFolders.json` (folder trust, off by
  default: each folder the trust dialog was answered in) and `usage_record.jsonl` (0.21 and
  later: each session's `project`);
- the `cwd` on the first records of a chat, `projects/<folder>/chats/*.jsonl` (0.5 and
  later; the folder's name, `-home-a-b`, is lossy);
- beside the log: file checkpointing's `checkpoints/*.json` (off by default; `filePath`, the
  file an edit was about to change; each start removes its project's), then what releases
  before 0.5 (0.1.x) left there: the conversations `/chat save` kept (`checkpoint-<tag>.json`,
  whose first turn says "I'm currently working in the directory: ...").

Not read: `shell_history` (commands only), `history/<sha256>/`, the checkpoints' git store,
and 0.1.x's one-file chats (`chats/session-*.json`), which record no tool calls: no path in
them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import takewhile
from pathlib import Path

import orjson

from .. import files, folders, freshness
from . import _hashed_folders as hashed
from ._values import as_str, text_of

TRUSTED = "trustedFolders.json"
USAGE = "usage_record.jsonl"
LISTED_TRIED = 1000  # folders tried from a list beside the settings (read once, cached)
PROJECTS_TRIED = 200  # project folders whose first chat's `cwd` is tried
FILES_TRIED = 16  # files of each kind beside the log that are read, newest first
HEAD = 256 * 1024  # bytes read from the start of a `/chat save` conversation
TAIL = 64 * 1024  # bytes read from the end of a file checkpoint
_ONE = "I'm currently working in the directory: "
_MANY = "I'm currently working in the following directories:"
# A part's text in a conversation written with JSON.stringify(history, null, 2).
_TEXT = re.compile(rb'"text": ("(?:[^"\\\n]|\\.)*")')
# A top-level member of a file checkpoint (JSON.stringify(checkpoint, null, 2)).
_FILE_PATH = re.compile(rb'^  "filePath": ("(?:[^"\\\n]|\\.)*")', re.MULTILINE)


def folder(root: Path, log_folder: Path, config: Path) -> str | None:
    """The folder whose sha256 names `log_folder` (`tmp/<sha256>/`), else None.

    `root` holds `projects/` and `tmp/`; `config` is where Qwen keeps its settings."""
    name = log_folder.name
    if not hashed.HASH_NAME.match(name):
        return None
    hashes = {name}
    return (
        hashed.hashed_folder(
            hashes,
            hashed.trusted_folders(config / TRUSTED),
            fold_case=True,
            tried=LISTED_TRIED,
        )
        or hashed.hashed_folder(
            hashes,
            (project for project, _ in hashed.cached_pairs(config / USAGE, _usage)),
            fold_case=True,
            tried=LISTED_TRIED,
        )
        or hashed.hashed_folder(
            hashes, _chat_cwds_unnoted(root), fold_case=True, tried=PROJECTS_TRIED
        )
        or hashed.hashed_folder(
            hashes, _checkpoint_files(log_folder, root), ancestors=True, fold_case=True
        )
        or hashed.hashed_folder(
            hashes, _saved_directories(log_folder, root), fold_case=True
        )
    )


def _chat_cwds_unnoted(root: Path) -> Iterator[str]:
    """`_chat_cwds`, their reads not noted as the parse's (`freshness.depending`): the
    chats grow at every turn, and the `cwd` their first lines hold does not change, so a
    warm listing would read each prompt log again at every turn of any chat."""
    found = iter(_chat_cwds(root))
    while True:
        with freshness.not_depending():
            cwd = next(found, None)
        if cwd is None:
            return
        yield cwd


def _chat_cwds(root: Path) -> Iterator[str]:
    """The `cwd` the first chat of each project recorded (one per project)."""
    for project in folders.entries(root / "projects", root):
        chats = [
            e
            for e in folders.entries(Path(project.path) / "chats", root)
            if e.name.endswith(".jsonl") and folders.file_entry(e)
        ]
        try:
            head = files.head_lines(chats[0].path, 8) if chats else []
        except OSError:
            continue  # gone or unreadable: the next project may still name it
        for line in head:
            record = files.parse_json(line)
            cwd = as_str(record.get("cwd")) if record is not None else None
            if cwd:
                yield cwd
                break


@lru_cache(maxsize=4)
def _usage(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    """`usage_record.jsonl`: (project, session id) per project, newest first, from its
    last LIST_CAP bytes (appended one line per session)."""
    try:
        _, data = files.tail_bytes(path, hashed.LIST_CAP)
    except OSError:
        return ()
    found: dict[str, str] = {}
    for line in reversed(data.splitlines()):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # the cut first line, or a torn last one
        project = text_of(record, "project")
        if project and project not in found:
            found[project] = text_of(record, "sessionId") or ""
    return tuple(found.items())


def _newest(folder: Path, prefix: str, root: Path) -> list[Path]:
    """The FILES_TRIED last `<prefix>*.json` files of a folder by name, newest first (their
    names start with the time or a tag)."""
    named = [
        Path(e.path)
        for e in folders.entries(folder, root)
        if e.name.startswith(prefix)
        and e.name.endswith(".json")
        and folders.file_entry(e)
    ]
    return named[-FILES_TRIED:][::-1]


def _saved_directories(log_folder: Path, root: Path) -> Iterator[str]:
    """The working folders the first turn of each `/chat save` conversation names."""
    for path in _newest(log_folder, "checkpoint-", root):
        data = files.read_start(path, HEAD) or b""
        for match in _TEXT.finditer(data):
            text = _string(match.group(1))
            if text and (_ONE in text or _MANY in text):
                yield from _working_directories(text)
                break


def _working_directories(text: str) -> list[str]:
    """The folders Qwen's context preamble says it works in: one, or a list of them."""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        if line.startswith(_ONE):
            return [line[len(_ONE) :]]
        if line.startswith(_MANY):
            listed = takewhile(lambda item: item.startswith("  - "), lines[at + 1 :])
            return [item[4:] for item in listed]
    return []


def _checkpoint_files(log_folder: Path, root: Path) -> Iterator[str]:
    """The file each file checkpoint was taken for (`filePath`, its last member)."""
    for path in _newest(log_folder / "checkpoints", "", root):
        try:
            _, data = files.tail_bytes(path, TAIL)
        except OSError:
            continue
        members = _FILE_PATH.findall(data)
        value = _string(members[-1]) if members else None
        if value and hashed.is_absolute(value):
            yield value


def _string(token: bytes) -> str | None:
    """A JSON string token's text, else None."""
    try:
        value = orjson.loads(token)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None
