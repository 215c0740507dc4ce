"""The project folders other agents have written down: where per-repository logs live.

Aider keeps its chat log in each repository and no list of them; older Crush kept its
database there too. Both are looked for only in folders something cheap already names,
never by crawling the disk:

- Claude Code: the `cwd` on the first lines of one transcript per project folder
  (`~/.claude/projects/<slug>/`, and the XDG `~/.config/claude`); the slug alone is lossy.
  Never `~/.claude.json`, which can hold the account's API key;
- Gemini CLI: `~/.gemini/projects.json` (`projects`: folder -> short id);
- Codex: `~/.codex/config.toml` `[projects."<folder>"]` (trust levels).

Every read goes through `files`/`folders`, so the index notes it (a `SCAN_NOTED` source
may use this).
"""

from __future__ import annotations

import logging
import os
import re
import tomllib
from pathlib import Path

import orjson

from .. import files, folders

MAX_FOLDERS = 500  # recorded project folders returned per scan
PROJECT_LIST_CAP = 16 * 1024 * 1024  # bytes read from another agent's project list
TRANSCRIPT_START = 64 * 1024  # bytes read from a transcript for its `cwd`
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
    for name in names:
        if not isinstance(name, str) or not os.path.isabs(name) or name in seen:
            continue
        seen.add(name)
        found.append(Path(name))
        if len(found) >= MAX_FOLDERS:
            break
    return found


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
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        log.debug("%s is not valid TOML", path)
        return {}
