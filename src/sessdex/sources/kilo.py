"""Kilo Code (VS Code extension `kilocode.kilo-code`): tasks as JSON files in globalStorage.

Kilo Code forked Roo Code and keeps the same task folders under
`<editor>/User/globalStorage/kilocode.kilo-code/tasks/<id>/`; the reading is shared with
Cline and Roo Code (see `_vscode_tasks`, `cline` and `roo`). The newer stand-alone Kilo
CLI keeps a SQLite database (`~/.local/share/kilo/kilo.db`) that this source does not
read. No CLI resume for extension tasks: the extension's History view reopens them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session
from ._vscode_tasks import TaskStore
from .base import Home, Location

NAME = "kilo"
TITLE = "Kilo Code (VS Code extension)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = "a public synthetic ui_messages.json sample; layout assumed from Roo Code, which it forked — Low confidence"
ENV_VARS = ("XDG_CONFIG_HOME",)

_STORE = TaskStore(NAME, ("kilocode.kilo-code",))


def locate(home: Home) -> Location:
    return _STORE.locate(home)


def scan(location: Location) -> Iterator[Path]:
    return _STORE.scan(location)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    return _STORE.parse(path, diagnostics)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    return _STORE.read(session, diagnostics, offset)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: Kilo Code's extension has no command line; its History view reopens the task."""
    return None
