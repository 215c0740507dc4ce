"""The contract every source module fulfils, and the small values it speaks in.

A source is one module per agent app. It knows where the app keeps its sessions, how to
list them cheaply, how to translate one session into events, and how to reopen it.
Nothing outside `sources/` knows any app by name.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..diagnostics import Diagnostics
from ..model import Event, ResumePlan, Session


@dataclass(frozen=True, slots=True)
class Home:
    """Whose sessions to read: a home folder and the environment its apps would see.

    `Home.current()` is the user's own; `Home.at(dir)` reads a copied or fake home and
    ignores the apps' environment overrides, so everything comes from that folder.
    """

    path: Path
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> Home:
        return cls(Path.home(), dict(os.environ))

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> Home:
        return cls(Path(path).expanduser().absolute(), {})

    def env_dir(self, name: str) -> Path | None:
        """The folder an app's override variable names, if it is set and not empty."""
        value = self.environ.get(name)
        return Path(value).expanduser() if value else None

    def xdg(self, kind: str) -> Path:
        """An XDG base folder ("data", "config", "state", "cache") as the app would resolve it."""
        defaults = {
            "data": ".local/share",
            "config": ".config",
            "state": ".local/state",
            "cache": ".cache",
        }
        return self.env_dir(f"XDG_{kind.upper()}_HOME") or self.path / defaults[kind]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a source looked for its app's files, and which override sent it there."""

    root: Path
    override: str | None = None  # e.g. "CODEX_HOME=/tmp/x", or None for the default

    @property
    def exists(self) -> bool:
        return self.root.is_dir()


class Source(Protocol):
    """One agent app. Built-in sources are modules; see sources/claude.py for an example."""

    NAME: str  # the --app value, the `app` field in JSON, tests/data/<NAME>/
    TITLE: str  # for people: "Claude Code"
    CHECKED_WITH: str  # versions whose files we have seen
    ENV_VARS: tuple[str, ...]  # overrides the app honours (reported by doctor)

    def locate(self, home: Home) -> Location:
        """Where this app keeps its files for `home` (which may not exist)."""
        ...

    def scan(self, location: Location) -> Iterator[Path]:
        """Every file `parse` should see. Cheap: list directories, open nothing."""
        ...

    def parse(
        self, path: Path, location: Location, diagnostics: Diagnostics
    ) -> list[Session]:
        """What one file says about the sessions in it: head and tail reads, or indexed SQL."""
        ...

    def read(
        self,
        session: Session,
        diagnostics: Diagnostics,
        *,
        full: bool = False,
        offset: int = 0,
    ) -> Iterator[Event]:
        """The session's events in order, sub-agents included with their `agent_id`.

        `full` keeps over-long payloads instead of eliding them. A non-zero `offset` starts
        at that byte of the session's main file (the partial line there is dropped) and
        reads no sub-agent files: it serves `show --tail`; stores that are not one file
        ignore it. Unknown record types go to `diagnostics.unknown_type`, never an error.
        """
        ...

    def resume(
        self, session: Session, *, keep_permissions: bool = False
    ) -> ResumePlan | None:
        """How to reopen `session` with the app's own CLI, or None if it has no resume."""
        ...
