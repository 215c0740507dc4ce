"""kimi-cli up to 0.58 wrote a session as one `sessions/<md5(work dir)>/<id>.jsonl`;
today's kimi still opens one (`kimi --session <id>` moves it into `<id>/context.jsonl`,
kimi-cli's `_migrate_session_context_file`), so its project must come from kimi.json."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home, kimi

SESSION = "0c9a3e52-7d41-4f0b-9b8e-2f3a4b5c6d7e"
PROJECT = "/Users/ana/code/shop"


def write_flat(share: Path) -> Path:
    """`kimi.json` and `sessions/<md5(cwd)>/<id>.jsonl`, as kimi-cli 0.32-0.58 left them."""
    folder = share / "sessions" / hashlib.md5(PROJECT.encode()).hexdigest()
    folder.mkdir(parents=True)
    lines = [
        {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": "Add a basket total"},
        {"role": "assistant", "content": [{"type": "text", "text": "Adding it."}]},
    ]
    (folder / f"{SESSION}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    (share / "kimi.json").write_text(
        json.dumps({"work_dirs": [{"path": PROJECT, "last_session_id": SESSION}]})
    )
    return folder / f"{SESSION}.jsonl"


def listed(home: Home) -> dict[str, Session]:
    location = kimi.locate(home)
    found = {}
    for path in kimi.scan(location):
        for session in kimi.parse(path, location, Diagnostics()):
            found[session.id] = session
    return found


def test_a_one_file_session_gets_its_project_and_a_resume(tmp_path: Path) -> None:
    write_flat(tmp_path / ".kimi")
    session = listed(Home.at(tmp_path))[SESSION]
    assert (session.cwd, session.title) == (PROJECT, "Add a basket total")
    result = CliRunner().invoke(
        main, ["resume", SESSION[:8], "--print", "--home", str(tmp_path)]
    )
    assert result.exit_code == 1, result.output  # printed; its folder is not here
    assert f"kimi --session {SESSION}" in result.stdout
    assert PROJECT in result.stdout
