"""Roo Code (VS Code extension `rooveterinaryinc.roo-cline`): tasks as JSON files in globalStorage.

Roo writes each task to `<editor>/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<uuid>/`
(`ui_messages.json`, `api_conversation_history.json`, `task_metadata.json`, and
`history_item.json` with the title, `workspace` folder, `mode` and sub-task links), each
rewritten whole; the Roo CLI writes the same tasks to `~/.vscode-mock/global-storage/tasks/`,
and the editor setting `roo-cline.customStoragePath` moves them to `<that folder>/tasks/`.
The reading is shared with Cline and Kilo Code (see `_vscode_tasks` and the `cline`
module for what is read, ignored, and how usage is counted). Since 3.29.5 `tokensIn`
includes the cache reads and writes, which are taken out.

Sub-tasks: a `newTask` tool call starts a child task in its own folder whose
`history_item.json` names `parentTaskId` (and the parent's its `childIds`, which link it
where its own cannot be read); the child is listed with `parent_id` set, and a
parent's events include a `subagent` event at the spawn followed by the child's events
(matched to the parent's `childIds` in order) with `agent_id` = the child's id. Older Roo
kept its history list in VS Code's `state.vscdb`, which we do not open: such tasks still
list, from their own files. No CLI resume: the extension's History view reopens a task.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session
from ._vscode_tasks import EDITOR_VARIABLES, TaskStore
from .base import Home, Location

NAME = "roo"
TITLE = "Roo Code (VS Code extension)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "a public synthetic ui_messages.json sample and Roo Code's source (history.ts, globalFileNames.ts; "
    "rechecked at v3.52.1: message.ts's says and asks, TaskHistoryStore.ts, Task.ts's tokensIn); "
    "no real task folder seen — Low confidence"
)
ENV_VARS = ("XDG_CONFIG_HOME", *EDITOR_VARIABLES)

_STORE = TaskStore(
    NAME,
    ("rooveterinaryinc.roo-cline",),
    data_dirs=(".vscode-mock/global-storage",),  # the Roo CLI's stand-in for an editor
    storage_setting="roo-cline.customStoragePath",
)


def locate(home: Home) -> Location:
    return _STORE.locate(home)


def found(location: Location) -> bool:
    return _STORE.found(location)


def scan(location: Location) -> Iterator[Path]:
    return _STORE.scan(location)


def companion_of(path: str) -> str | None:
    """A task's file beside its messages whose change changes its listing."""
    return _STORE.companion_of(path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    return _STORE.parse(path, diagnostics)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    return _STORE.read(session, diagnostics, offset)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: Roo Code has no command line; its History view in the editor reopens the task."""
    return None
