"""What scripts read from sessdex when its own cache folder's name is not UTF-8 (a home
named in Latin-1 on an old system): sessions from apps' WAL databases are still listed,
and `doctor --own --json` is one object, not a traceback."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA
from tests.helpers import write_claude_session


@pytest.fixture()
def latin1_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """SESSDEX_HOME in a folder whose name holds a Latin-1 byte (`café`)."""
    state = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    return state


def _json(*args: str, warned: bool = False) -> Any:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert ("warning" in result.stderr) == warned, result.stderr
    return json.loads(result.stdout)


@pytest.mark.usefixtures("latin1_cache")
def test_a_wal_database_is_listed_from_a_cache_folder_named_in_latin1(
    tmp_path: Path,
) -> None:
    home = shutil.copytree(DATA / "opencode" / "home", tmp_path / "home")
    db = next(home.rglob("opencode.db"))
    expected = _json("list", "--json", "--home", str(home))
    with sqlite3.connect(db) as writer:  # the app holds it open in WAL mode
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("UPDATE session SET title = title")
        assert db.with_name("opencode.db-wal").exists()
        listed = _json("list", "--json", "--home", str(home))
    assert expected and listed == expected


def test_doctor_own_json_counts_an_index_in_a_cache_folder_named_in_latin1(
    tmp_path: Path, latin1_cache: Path
) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "dddddddd-0000-4000-8000-000000000001", "/w/shop")
    _json("list", "--json", "--home", str(home))  # builds the index
    own = _json("doctor", "--own", "--json", "--home", str(home))
    assert isinstance(own, dict) and own["index_sessions"] == 1
    assert "café" not in own["cache_folder"]  # the byte shows as U+FFFD, no surrogate


@pytest.mark.parametrize(
    ("command", "option"), [("usage", "--explain"), ("doctor", "--own")]
)
def test_the_json_help_names_the_option_that_prints_one_object(
    tmp_path: Path, command: str, option: str
) -> None:
    """`usage --explain KEY --json` and `doctor --own --json` print one object, not the
    array the other forms print: a script author reading `--help` learns it there."""
    home = shutil.copytree(DATA / "claude" / "home", tmp_path / "home")
    rows = _json("usage", "--json", "--home", str(home))
    key = [rows[-1]["key"]] if command == "usage" else []
    assert isinstance(_json(command, option, *key, "--json", "--home", str(home)), dict)
    params = {p.name: p for p in main.commands[command].params}
    json_help = " ".join(getattr(params["as_json"], "help", "").split())
    assert option in json_help and "object" in json_help, json_help


def _dated_response(uuid: str, stamp: str) -> str:
    message = {"id": uuid, "role": "assistant", "model": "claude-sonnet-4-5"}
    message |= {"content": [{"type": "text", "text": "ok"}]}
    message["usage"] = {"input_tokens": 5, "output_tokens": 5}
    line = {
        "type": "assistant",
        "cwd": "/w/z",
        "sessionId": "eeeeeeee-0000-4000-8000-0",
    }
    line |= {"timestamp": stamp, "uuid": uuid, "requestId": uuid, "message": message}
    return json.dumps(line)


def test_usage_explain_json_of_responses_dated_past_what_a_date_can_hold(
    tmp_path: Path,
) -> None:
    """A response stamped in the year 1 east of UTC, or 9999-12-31 west of it, lies
    outside what a date holds once in UTC: `--explain --json` printed half its object,
    then a traceback. Its time is null, as the table says `(no time)`."""
    folder = tmp_path / "home" / ".claude" / "projects" / "-w-z"
    folder.mkdir(parents=True)
    stamps = ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]
    lines = [_dated_response(f"m{n}", s) for n, s in enumerate(stamps)]
    (folder / "eeeeeeee-0000-4000-8000-0.jsonl").write_text("\n".join(lines) + "\n")
    home = str(tmp_path / "home")
    audit = _json(
        "usage", "--explain", "(no time)", "--json", "--home", home, warned=True
    )
    assert [r["time"] for r in audit["counted"]] == [None, None]
    assert audit["row"]["responses"] == 2


def _shared_id_home(tmp_path: Path) -> str:
    """Roo Code's fixture home and one of its tasks copied into Kilo Code, as Kilo's
    import does: two sessions, one id."""
    home = shutil.copytree(DATA / "roo" / "home", tmp_path / "home")
    storage = home / ".config" / "Code" / "User" / "globalStorage"
    task = storage / "rooveterinaryinc.roo-cline" / "tasks" / SHARED
    shutil.copytree(task, storage / "kilocode.kilo-code" / "tasks" / SHARED)
    return str(home)


SHARED = "2b9d4c1e-7f00-4a53-9d7e-1c2f3a4b5c6d"


@pytest.mark.parametrize("app", ["roo", "kilo"])
def test_usage_explain_of_an_id_two_apps_share_audits_the_named_apps_row(
    tmp_path: Path, app: str
) -> None:
    """`usage session --explain roo:ID --json` is Roo's row and Roo's responses only;
    it was the other app's row, with both apps' responses listed under it."""
    home = _shared_id_home(tmp_path)
    rows = _json("usage", "session", "--json", "--home", home)
    row = next(r for r in rows if r["key"] == f"{app}:{SHARED}" and r["apps"] == [app])
    for key in (f"{app}:{SHARED}", f"{app}:{SHARED[:8]}"):
        audit = _json("usage", "session", "--explain", key, "--json", "--home", home)
        assert audit["row"] == row
        assert {c["app"] for c in audit["counted"]} == {app}
        assert len(audit["counted"]) == row["responses"]


def test_usage_explain_of_an_id_two_apps_share_asks_for_the_app(
    tmp_path: Path,
) -> None:
    """Without its app, such an id is ambiguous, as `show` says it is (exit 1)."""
    home = _shared_id_home(tmp_path)
    for key in (SHARED, SHARED[:8]):
        args = ["usage", "session", "--explain", key, "--json", "--home", home]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1 and result.stdout == ""
        assert "kilo:" in result.stderr or "roo:" in result.stderr
