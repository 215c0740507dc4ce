"""Kilo Code: the VS Code extension's task folders, and the Kilo CLI's SQLite database.

Kilo Code 4.x forked Roo Code and keeps the same task folders under
`<editor>/User/globalStorage/kilocode.kilo-code/tasks/<id>/`; the reading is shared with
Cline and Roo Code (see `_vscode_tasks`, `cline` and `roo`); `kilo-code.customStoragePath`
in the editor's settings moves them. Kilo Code 7.x (the same
extension id) runs on the Kilo CLI, a fork of OpenCode that keeps OpenCode's tables in
`$XDG_DATA_HOME/kilo/kilo.db`: those are listed and read by the `opencode` reader. Builds
of another channel than `latest`, `beta` or `prod` (a dev or preview build) write
`kilo-<channel>.db` there, or go on with the `opencode-<channel>.db` an earlier build of the
channel left in that folder until a `kilo-<channel>.db` exists (Kilo's storage/database.ts
after 7.1.2, which had put every channel in `kilo.db`): all of them are read, and a session
two of them hold (a copy) is listed once, from the Kilo-named one. Kilo Code 7 copies the
older extension's tasks into its database (version "v2", the task's id as `slug`): the
copy is listed, the task folder it came from is not (`superseded_by`). Kilo 4.x/5.x
writes no `history_item.json`: a sub-task is linked to its parent by the line the parent's
model is told when it ends (see `_vscode_tasks`), and the Kilo CLI 0.x's history list is
its `global-state.json`. No CLI
resume for extension tasks (the History view reopens them); a CLI session reopens with
`kilo --session <id>`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from .. import folders
from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session, superseded
from . import opencode
from ._vscode_tasks import EDITOR_VARIABLES, TaskStore
from .base import Home, Location, WholeRead

NAME = "kilo"
TITLE = "Kilo Code (VS Code extension and Kilo CLI)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
READ_LAST_UNSURE = True  # as OpenCode's `read_last`, which reads its sessions
CALLS_END_IN_PLACE = True  # as OpenCode's tool parts
LISTED_TABLES = opencode.LISTED_TABLES  # the Kilo CLI's database: OpenCode's tables
CHECKED_WITH = (
    "a public synthetic ui_messages.json sample; layout assumed from Roo Code, which it forked; "
    "sub-task links and the CLI 0.x global state from kilocode-legacy 5.10.4's source; "
    "kilo.db from the Kilo CLI 7.7.7 (real runs: OpenCode's 1.x tables, sub-agents, resume "
    "checked against its --help and its bundled TUI, agents from its built-in list) "
    "and 7.7.9 (its @kilocode/cli-linux-x64 binary through the same suite: the same tables and migrations); "
    "channel database names from Kilo-Org/kilocode's storage/database.ts (after CLI 7.1.2)"
)
ENV_VARS = ("XDG_CONFIG_HOME", *EDITOR_VARIABLES, "XDG_DATA_HOME", "KILO_DB")
INSTALL_HINT = "npm install -g @kilocode/cli"
# the Kilo CLI's built-in agents that make no edits (7.7.7's agent list: `plan` "disallows
# all edit tools", `ask` answers "without making changes"); `debug` and `orchestrator` edit
# or hand work to agents that do, so a session started in one reopens in the default
READ_ONLY_AGENTS = frozenset({"plan", "ask"})

_STORE = TaskStore(
    NAME,
    ("kilocode.kilo-code",),
    # the Kilo CLI 0.x (2025-10 to 2026-02) kept the extension's task folders here
    data_dirs=(".kilocode/cli/global",),
    storage_setting="kilo-code.customStoragePath",
)


def locate(home: Home) -> Location:
    """The editors' folders for the extension's tasks, and the Kilo CLI's data folder
    (`KILO_DB` names another database, absolute or in that folder)."""
    tasks = _STORE.locate(home)
    data = home.xdg("data") / "kilo"
    also = [*tasks.also, data]
    said = [tasks.override] if tasks.override else []
    database = home.environ.get("KILO_DB", "").strip()
    if database and database != ":memory:":
        also.append(data / Path(database).expanduser())  # an absolute path stays whole
        said.append(f"KILO_DB={database}")
    owned = (*(tasks.owned or ()), *also[len(tasks.also) :])
    return Location(
        tasks.root,
        ", ".join(said) or None,
        also=tuple(also),
        owned=owned,
        # the Kilo CLI's settings and state, as OpenCode's (which it is built from)
        keeps=(home.xdg("config") / "kilo", home.xdg("state") / "kilo"),
    )


def found(location: Location) -> bool:
    """The extension's task store, the Kilo CLI's data folder or the database `KILO_DB`
    names."""
    return _STORE.found(location) or any(
        folders.is_file(p) or (p.name == "kilo" and folders.is_dir(p))
        for p in location.also
    )


def scan(location: Location) -> Iterator[Path]:
    yield from _STORE.scan(location)
    named = [p for p in location.also if folders.is_file(p)]  # KILO_DB
    yield from named
    for folder in location.also:
        if folder.name != "kilo":
            continue
        for entry in folders.entries(folder, folder):
            path = Path(entry.path)
            if (
                _is_database(entry.name)
                and folders.file_entry(entry)
                and path not in named
            ):
                yield path


def _is_database(name: str) -> bool:
    """`kilo.db`, a channel's `kilo-<channel>.db`, or the `opencode-<channel>.db` a channel
    build wrote under OpenCode's name."""
    return name.endswith(".db") and (
        name == "kilo.db" or name.startswith(("kilo-", "opencode-"))
    )


def companion_of(path: str) -> str | None:
    """A task's file beside its messages whose change changes its listing."""
    return _STORE.companion_of(path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".db":
        sessions = opencode.parse_database(path, diagnostics, app=NAME)
        if path.name.startswith("opencode-"):
            # Kilo leaves an OpenCode-named database once a Kilo-named one exists: a
            # session both hold is the Kilo-named one's
            sessions = [replace(s, precedence=s.precedence - 1) for s in sessions]
        # a task Kilo Code 7 copied into its database is that session now: its folder
        # fills in, and is not listed beside it
        return sessions + [
            superseded(NAME, task, session.id)
            for session in sessions
            if isinstance(task := session.extra.get("migrated_from"), str)
        ]
    return _STORE.parse(path, diagnostics)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path and "#session/" in session.path:
        return opencode.read(session, diagnostics, full=full, offset=offset)
    return _STORE.read(session, diagnostics, offset)


def read_last(
    session: Session,
    diagnostics: Diagnostics,
    rows: int,
    *,
    full: bool = False,
    unsure: set[int] | None = None,
    settle: bool = False,
    settles: list[bool] | None = None,
) -> Iterator[Event]:
    """A Kilo CLI session's last `rows` messages, as OpenCode's (see base.py)."""
    if not session.path or "#session/" not in session.path:
        raise WholeRead("a task folder is read whole")
    yield from opencode.read_last(
        session,
        diagnostics,
        rows,
        full=full,
        unsure=unsure,
        settle=settle,
        settles=settles,
    )


def usage_marks(path: Path) -> dict[str, str]:
    """OpenCode's (`opencode.usage_marks`): the same tables."""
    return opencode.usage_marks(path)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`kilo --session <id>` for a CLI session, in its `ask` or `plan` agent where it was
    started in one (see `opencode.resume`); None for an extension task, which Kilo Code's
    History view reopens."""
    if session.path and "#session/" in session.path:
        return opencode.resume(
            session,
            keep_permissions=keep_permissions,
            program="kilo",
            install_hint=INSTALL_HINT,
            install_note="",
            read_only_agents=READ_ONLY_AGENTS,
        )
    return None
