"""Qwen Code: the folder of a project only the prompt log holds, from the files that name it.

Each home is built here in the layout Qwen writes (file shapes from the 0.1.3 to 0.24.4
bundles): a project whose `tmp/<sha256 of its path>/logs.json` no chat under `projects/`
names, and one more file of one kind. A path counts only when its sha256 is the log's
folder name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home, qwen

OLD = "/home/dev/old-app"  # the project only the prompt log holds
OTHER = "/home/dev/old-api"  # another project: its path must never be taken for OLD's
EARLY = "7e2d4c1b-0a9f-4e3d-8c2b-1a0f9e8d7c6b"


def _log(qwen_home: Path, folder: str = OLD) -> Path:
    """`tmp/<sha256 of folder>/` holding a prompt log of one session, no chat anywhere."""
    where = qwen_home / "tmp" / hashlib.sha256(folder.encode()).hexdigest()
    where.mkdir(parents=True)
    entries = [
        {"sessionId": EARLY, "messageId": 0, "type": "user",
         "message": "Where is the retry limit set?", "timestamp": "2025-08-01T10:00:30.000Z"},
    ]  # fmt: skip
    (where / "logs.json").write_text(json.dumps(entries, indent=2))
    return where


def _listed(home: Home) -> list[Session]:
    location = qwen.locate(home)
    return [
        session
        for path in qwen.scan(location)
        for session in qwen.parse(path, location, Diagnostics())
    ]


def _folder(home: Path) -> str | None:
    [session] = _listed(Home.at(home))
    assert session.id == EARLY and session.title == "Where is the retry limit set?"
    return session.cwd


def _trusted(qwen_home: Path, log: Path, folders: list[str]) -> None:
    rules = ",\n".join(f'  "{f}": "TRUST_FOLDER"' for f in folders)
    (qwen_home / "trustedFolders.json").write_text(
        f"{{\n  // written by the trust dialog\n{rules}\n}}"
    )


def _usage(qwen_home: Path, log: Path, folders: list[str]) -> None:
    records = [
        {"version": 1, "sessionId": f"s{n}", "timestamp": 1790000000000 + n,
         "startTime": 1790000000000, "project": folder, "durationMs": 1000,
         "models": {}, "tools": {"totalCalls": 0}}
        for n, folder in enumerate(folders)
    ]  # fmt: skip
    (qwen_home / "usage_record.jsonl").write_text(
        '{"version":1,"sessionId":"torn","proj\n'  # a line cut short is skipped
        + "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    )


def _saved(qwen_home: Path, log: Path, folders: list[str]) -> None:
    for n, folder in enumerate(folders):
        preamble = (
            "This is the Qwen Code. We are setting up the context for our chat.\n"
            "Today's date is Friday, August 1, 2025.\nMy operating system is: linux\n"
            f"I'm currently working in the directory: {folder}\n"
            "Here is the folder structure of the current working directories:\n\n"
            f"Showing up to 200 items (files + folders).\n\n{folder}/\n└───app.py\n"
        )
        conversation = [
            {"role": "user", "parts": [{"text": preamble}]},
            {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
            {"role": "user", "parts": [{"text": "Where is the retry limit set?"}]},
        ]
        (log / f"checkpoint-tag{n}.json").write_text(json.dumps(conversation, indent=2))


def _checkpoints(qwen_home: Path, log: Path, folders: list[str]) -> None:
    (log / "checkpoints").mkdir()
    for n, folder in enumerate(folders):
        checkpoint = {
            "history": [{"id": 1, "type": "user", "text": "Raise the retry limit"}],
            "clientHistory": [{"role": "user", "parts": [{"text": "Raise it"}]}],
            "toolCall": {"name": "edit", "args": {"file_path": f"{folder}/src/app.py"}},
            "commitHash": "0123abcd",
            "filePath": f"{folder}/src/app.py",
        }
        name = f"2025-08-01T10-0{n}-00_000Z-app.py-edit.json"
        (log / "checkpoints" / name).write_text(json.dumps(checkpoint, indent=2))


Writer = Callable[[Path, Path, list[str]], None]
WRITERS: dict[str, Writer] = {
    "trustedFolders.json": _trusted,
    "usage_record.jsonl": _usage,
    "/chat save checkpoint-<tag>.json": _saved,
    "checkpoints/*.json": _checkpoints,
}


@pytest.mark.parametrize("kind", WRITERS)
def test_a_prompt_log_only_project_gets_its_folder_from_what_qwen_wrote(
    tmp_path: Path, kind: str
) -> None:
    """Another project's path is written down beside the right one: only the path whose
    sha256 is the log's folder name is taken, and a log no path hashes to has no folder."""
    home = tmp_path / "home"
    WRITERS[kind](home / ".qwen", _log(home / ".qwen"), [OTHER, OLD])
    assert _folder(home) == OLD

    alone = tmp_path / "alone"
    WRITERS[kind](alone / ".qwen", _log(alone / ".qwen"), [OTHER, OLD + "-2"])
    assert _folder(alone) is None


def test_a_saved_conversation_in_several_folders_names_each(tmp_path: Path) -> None:
    """With `--include-directories` the preamble lists every folder; the project's is the
    one whose sha256 names the log, wherever it stands in the list."""
    home = tmp_path / "home"
    log = _log(home / ".qwen")
    preamble = (
        "This is the Qwen Code. We are setting up the context for our chat.\n"
        "I'm currently working in the following directories:\n"
        f"  - {OTHER}\n  - {OLD}\n"
        "Here is the folder structure of the current working directories:\n"
    )
    conversation = [{"role": "user", "parts": [{"text": preamble}]}]
    (log / "checkpoint-both.json").write_text(json.dumps(conversation, indent=2))
    assert _folder(home) == OLD


def test_a_windows_folder_counts_as_qwen_hashes_it_lower_cased(tmp_path: Path) -> None:
    """On Windows Qwen hashes the project's path lower-cased; the folder keeps its case."""
    home = tmp_path / "home"
    recorded = "C:\\Users\\Dev\\OldApp"
    log = _log(home / ".qwen", recorded.lower())
    _trusted(home / ".qwen", log, [recorded.replace("\\", "\\\\")])
    assert _folder(home) == recorded


def test_settings_beside_a_moved_runtime_folder_still_name_the_folder(
    tmp_path: Path,
) -> None:
    """With `QWEN_RUNTIME_DIR` the logs move, and `trustedFolders.json` stays with the
    settings in `QWEN_HOME`."""
    runtime, settings = tmp_path / "runtime", tmp_path / "qwen-home"
    settings.mkdir()
    _trusted(settings, _log(runtime), [OLD])
    home = Home(
        tmp_path, {"QWEN_RUNTIME_DIR": str(runtime), "QWEN_HOME": str(settings)}
    )
    assert qwen.locate(home).also == (settings,)
    [session] = _listed(home)
    assert session.cwd == OLD
