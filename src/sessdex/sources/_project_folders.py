"""The project folders other agents have written down: where per-repository logs live.

Aider keeps its chat log in each repository and no list of them; older Crush kept its
database there too. Both are looked for only in folders something cheap already names,
never by crawling the disk:

- Claude Code: the `cwd` on the first lines of one transcript per project folder
  (`~/.claude/projects/<slug>/`, and the XDG `~/.config/claude`); the slug alone is lossy.
  Never `~/.claude.json`, which can hold the account's API key;
- Gemini CLI: `~/.gemini/projects.json` (`projects`: folder -> short id);
- Codex: `~/.codex/config.toml` `[projects."<folder>"]` (trust levels).

A folder recorded on Windows (`C:\\Users\\me\\code\\shop`) and read elsewhere, in a
Windows home copied to Linux or macOS, is looked for below the copy (`below_copy`), as
Crush's registry is. Every read goes through `files`/`folders`, so the index notes it
(a `SCAN_NOTED` source may use this).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

import orjson

from .. import files, folders, pathnames

MAX_FOLDERS = 500  # recorded project folders returned per scan
PROJECT_LIST_CAP = 16 * 1024 * 1024  # bytes read from another agent's project list
TRANSCRIPT_START = 64 * 1024  # bytes read from a transcript for its `cwd`
COPY_LEVELS = 2  # the home and the folder above it: where a copied home's folders are
_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')

log = logging.getLogger(__name__)


def recorded_folders(home: Path) -> list[Path]:
    """Absolute project folders other agents recorded, in a stable order, at most MAX_FOLDERS."""
    names: list[str] = []
    gemini = files.read_json_file(
        home / ".gemini" / "projects.json", limit=PROJECT_LIST_CAP
    )
    if isinstance(gemini, dict) and isinstance(gemini.get("projects"), dict):
        names += sorted(gemini["projects"])
    projects = _read_toml(home / ".codex" / "config.toml").get("projects")
    if isinstance(projects, dict):
        names += sorted(projects)
    with folders.unreported():  # Claude Code's own scan reports its odd names
        names += _claude_folders(home, MAX_FOLDERS)
    found: list[Path] = []
    seen: set[str] = set()
    anchors = [home, *home.parents][:COPY_LEVELS]
    for name in names:
        if not isinstance(name, str) or pathnames.comparable(name) in seen:
            continue
        seen.add(pathnames.comparable(name))
        if os.path.isabs(name):
            found.append(Path(name))
        elif pathnames.is_windows(name) and (copied := below_copy(name, anchors)):
            found.append(copied)  # written on Windows, read where it is no path
        if len(found) >= MAX_FOLDERS:
            break
    return found


def as_written(recorded: str) -> PurePath:
    """A recorded path as the system that wrote it reads it, so that a Windows home
    copied to Linux (or a Linux one to Windows) is found again below the copy."""
    if pathnames.is_windows(recorded):
        return PureWindowsPath(recorded)
    return PurePosixPath(recorded)


def below_copy(recorded: str, anchors: Sequence[Path]) -> Path | None:
    """The folder an absolute `recorded` path names, found below one of `anchors` (where
    a copy of the home that wrote it now lies): the longest tail of it, at least two
    folders, that is a folder there; None where none is."""
    parts = as_written(recorded).parts[1:]
    for start in range(1, len(parts) - 1):
        for anchor in anchors:
            candidate = anchor.joinpath(*parts[start:])
            if folders.is_dir(candidate):
                return candidate
    return None


def _claude_folders(home: Path, cap: int) -> list[str]:
    """The folder each Claude Code project folder is for, read from one transcript's start."""
    found: list[str] = []
    for config in (home / ".claude", home / ".config" / "claude"):
        projects = config / "projects"
        for project in sorted(folders.entries(projects, config), key=lambda e: e.name):
            if len(found) >= cap:
                return found
            if not project.is_dir():
                continue
            transcripts = sorted(
                entry.path
                for entry in folders.entries(Path(project.path), config)
                if entry.name.endswith(".jsonl")
            )
            if transcripts and (cwd := _cwd(transcripts[0])):
                found.append(cwd)
    return found


def _cwd(path: str) -> str | None:
    data = files.read_start(path, TRANSCRIPT_START)
    match = _CWD.search(data) if data else None
    if match is None:
        return None
    try:
        value = orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def _read_toml(path: Path) -> dict[str, object]:
    data = files.read_small(path, PROJECT_LIST_CAP)
    if data is None:
        return {}
    import tomllib  # here: most homes hold no such file, and every full list loads us

    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        log.debug("%s is not valid TOML", path)
        return {}
