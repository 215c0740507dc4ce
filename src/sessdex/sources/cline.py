"""Cline (VS Code extension `saoudrizwan.claude-dev`): tasks as JSON files in globalStorage.

Cline writes each task to `<editor>/User/globalStorage/saoudrizwan.claude-dev/tasks/<id>/`
(`ui_messages.json`, `api_conversation_history.json`, `task_metadata.json`, all rewritten
whole) and its history list to `state/taskHistory.json`; the editor is VS Code or a fork
(Insiders, VSCodium, Cursor, Windsurf, …), also its remote-server installs. The JetBrains
plugin, the standalone build and CLI 1.x write the same tree to `~/.cline/data`
(`$CLINE_DATA_DIR`, else `$CLINE_DIR/data`). The reading is
shared with Roo Code and Kilo Code; see `_vscode_tasks` for what is read and ignored.

We list a task from the head and tail of `ui_messages.json` (first message: time and
title; last `ts`: updated), the model from `task_metadata.json`, the folder from the
history list or the first "Current Working Directory (…)" the extension told the model.
Events come from `ui_messages.json`, which holds what the user saw; tool outputs other
than command, MCP and browser results exist only in `api_conversation_history.json`,
which we do not read. Usage: one `usage` event per `api_req_started` message (Cline
rewrites that one message as the request streams, so it is counted once), plus one per
`deleted_api_reqs` (requests removed by a checkpoint restore, still billed). Claude Dev,
Cline before 2.0, wrote `claude_messages.json` instead (Cline renames it when it opens the
task again) and a request's figures on an `api_req_finished` after its start: the pair
is merged as Cline merges it, counted once. `tokensIn`
is taken as the uncached input, as Cline reports it for Anthropic-style providers, less
the cache when the message says its provider is OpenAI-style (`apiProtocol`). A
`ui_messages.json` over 4 MB (`files.WHOLE_JSON_CAP`) is read one message at a time
(`jsonstream`). Older Cline kept its history list in VS Code's own
`state.vscdb`; we do not open that shared database. No CLI resume for these tasks: the
extension's History view reopens a task, so `resume` returns None.

Cline's SDK session layer (the CLI, and the extension from 4.1 on the SDK) writes
`<data>/sessions/<id>/<id>.json` and `<id>.messages.json` instead (`$CLINE_SESSION_DATA_DIR`
moves that folder); `_cline_sdk` reads them, and a session the CLI started resumes with
`cline --id <id>`.

`show --tail` finds an SDK session's last messages from its file's end (`read_last`); a
task's `ui_messages.json` is read whole, there and in Roo Code and Kilo Code, which share
its reader: Cline writes it with JSON.stringify on one line, and a message's events depend
on those before it (the model the last `modelInfo` named, the command a `command_output`
answers, the sub-task a `newTask` starts, picked by the count of spawns before it, a Claude
Dev request's figures that its `api_req_finished` completes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .. import folders
from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session
from . import _cline_sdk
from ._vscode_tasks import EDITOR_VARIABLES, TaskStore
from .base import Home, Location, WholeRead

NAME = "cline"
TITLE = "Cline (VS Code extension and CLI)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "public synthetic ui_messages.json samples and Cline's source (disk.ts, ExtensionMessage.ts, "
    "combineApiRequests.ts: Claude Dev's file name and request pairs); "
    "no real task folder seen — Low confidence. SDK sessions: from source only (cline/cline "
    "@21cb8d2525bc, 2026-08-22: CLI 3.0.56, extension 4.1.13) and real sessions of CLI 3.0.65 "
    "(conformance suite: headless, TUI resume, sub-agent); CLI resume checked against "
    "cline 3.0.65's --help; the next release's `childSessions` links and `image_ref` "
    "blocks from cline/cline's unreleased source (message-annotations.ts @7d99971b, "
    "session-blob-store.ts @45949489; no real file); CLI 3.0.65 is still the newest "
    "release (npm, 2026-12-07)"
)
ENV_VARS = (
    "XDG_CONFIG_HOME",
    *EDITOR_VARIABLES,
    "CLINE_DATA_DIR",
    "CLINE_DIR",
    "CLINE_SESSION_DATA_DIR",
)

_STORE = TaskStore(
    NAME,
    ("saoudrizwan.claude-dev",),
    data_dirs=(".cline/data",),
    data_env=(("CLINE_DATA_DIR", ""), ("CLINE_DIR", "data")),
)


def locate(home: Home) -> Location:
    """The task store's folders, and last among `also` the SDK sessions folder."""
    tasks = _STORE.locate(home)
    sessions, override = _cline_sdk.sessions_dir(home)
    said = ", ".join(o for o in (tasks.override, override) if o) or None
    owned = (*(tasks.owned or ()), sessions)
    return Location(tasks.root, said, also=(*tasks.also, sessions), owned=owned)


def found(location: Location) -> bool:
    """The extension's task store, or the SDK sessions folder (`locate` puts it last)."""
    return _STORE.found(location) or (
        bool(location.also) and folders.is_dir(location.also[-1])
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    yield from _STORE.scan(location)
    if location.also:  # `locate` puts the SDK sessions folder last
        yield from _cline_sdk.scan(location.also[-1])


def companion_of(path: str) -> str | None:
    """A task's file beside its messages whose change changes its listing."""
    return _STORE.companion_of(path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if _cline_sdk.owns(path):
        return _cline_sdk.parse(path, diagnostics)
    return _STORE.parse(path, diagnostics)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is not None and _cline_sdk.owns(Path(session.path)):
        return _cline_sdk.read(session, diagnostics, offset)
    return _STORE.read(session, diagnostics, offset)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """An SDK session's last `rows` messages, from its messages file's end (see base.py).
    A task's `ui_messages.json` is read whole: JSON.stringify writes it on one line, and
    what a message says depends on those before it (the model the last `modelInfo`
    named, the command a `command_output` answers, the sub-task a `newTask` starts, by
    its count of those before it, a Claude Dev request's figures its `api_req_finished`
    completes)."""
    if session.path is None or not _cline_sdk.owns(Path(session.path)):
        raise WholeRead("a task's ui_messages.json is read whole")
    yield from _cline_sdk.read_last(session, diagnostics, rows)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`cline --id <id>` for an SDK session the CLI started; None for the rest, which the
    History view in the editor reopens."""
    if session.path is not None and _cline_sdk.owns(Path(session.path)):
        return _cline_sdk.resume(session)
    return None
