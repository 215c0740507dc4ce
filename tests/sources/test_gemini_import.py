"""Gemini CLI: a chat imported with `gemini --session-file <file>` holds copies of its source's turns.

tests/data/gemini/imported/ holds what Gemini CLI 0.61.0 itself wrote (resolveSessionId, a
real run with no credentials: the import is written before the auth check) when given the
fixture chat BASIC: a new chat named by the epoch milliseconds, a header with a new session
id and the source's metadata, an `info` note `import-<ms>` "Imported session from <file>",
then the source's user and model messages with their ids, times and tokens. Nothing else
names the source.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent.parent / "data" / "gemini"
IMPORT = DATA / "imported" / "session-1796487537618-67410c7a.jsonl"
SHOP = Path(".gemini") / "tmp" / "shop-api" / "chats"
SOURCE = "91700103-d86c-4b78-a644-1859e018e21c"
SOURCE_FILE = "session-2026-11-30T08-11-91700103.jsonl"
COPY = "67410c7a-1356-4bd0-8e94-270033c9f620"
NAMED = "/home/alex/.gemini/tmp/shop-api/chats/" + SOURCE_FILE


def _home(tmp_path: Path, project: str = "shop-api", named: str = NAMED) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    chats = home / ".gemini" / "tmp" / project / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    (chats / IMPORT.name).write_text(IMPORT.read_text().replace(NAMED, named))
    return home


def _show(run: CliRunner, home: Path, session: str) -> str:
    result = run.invoke(main, ["show", session, "--home", str(home), "--no-pager"])
    assert result.exit_code == 0, result.output
    return result.stdout.split("\n\n", 1)[1]


def _billed(run: CliRunner, home: Path) -> dict[str, int]:
    argv = ["usage", "session", "--json", "--app", "gemini", "--home", str(home)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    return {row["key"]: row["input_tokens"] for row in json.loads(result.stdout)}


def _forked_from(run: CliRunner, home: Path) -> dict[str, str | None]:
    argv = ["list", "--json", "--app", "gemini", "--home", str(home)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    return {row["id"]: row["forked_from"] for row in json.loads(result.stdout)}


def test_the_import_is_listed_as_a_copy_of_its_source(
    tmp_path: Path, run: CliRunner
) -> None:
    """`list --json` names the session an import copied (`forked_from`), as it names a
    fork's source, and `show` says so under the title; the source names none."""
    home = _home(tmp_path)
    listed = _forked_from(run, home)
    assert listed[COPY] == SOURCE and listed[SOURCE] is None
    result = run.invoke(main, ["show", COPY, "--home", str(home), "--no-pager"])
    assert f"forked from {SOURCE}" in result.stdout.split("\n\n", 1)[0]


def test_the_import_shows_its_turns_after_a_note_naming_the_source(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    copy = _show(run, home, COPY)
    assert copy.startswith(f"· started from a copy of {SOURCE}'s conversation\n")
    assert "> SCENARIO=basic Please run the greeting shell command" in copy
    assert "Imported session from" not in copy


def test_the_import_bills_nothing_its_source_billed(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    billed = _billed(run, home)
    assert billed[SOURCE] > 0 and COPY not in billed


def test_a_source_named_in_another_project_is_found_there(
    tmp_path: Path, run: CliRunner
) -> None:
    named = str(tmp_path / "home" / SHOP / SOURCE_FILE)
    home = _home(tmp_path, project="webapp", named=named)
    assert _show(run, home, COPY).startswith(f"· started from a copy of {SOURCE}'s")
    assert COPY not in _billed(run, home)
    assert _forked_from(run, home)[COPY] == SOURCE


def test_an_import_whose_source_is_gone_bills_its_copies(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    kept = _billed(run, _home(tmp_path / "before"))[SOURCE]
    (home / SHOP / SOURCE_FILE).unlink()
    copy = _show(run, home, COPY)
    assert copy.startswith(f"· Imported session from {NAMED}\n")
    billed = _billed(run, home)
    assert SOURCE not in billed and 0 < billed[COPY] <= kept
    assert _forked_from(run, home)[COPY] is None  # no session here to name


def test_a_note_naming_no_file_is_no_source(tmp_path: Path, run: CliRunner) -> None:
    chats = str(tmp_path / "home" / SHOP)
    for named in (chats + "/session-\\u0000.jsonl", chats + "/session-\\ud800.jsonl"):
        home = _home(tmp_path / str(len(named)), named=named)
        shutil.rmtree(tmp_path / "home", ignore_errors=True)
        home.rename(tmp_path / "home")
        copy = _show(run, tmp_path / "home", COPY)
        assert copy.startswith(
            f"· started from a copy of {SOURCE}'s"
        )  # found beside it


@pytest.mark.parametrize("relative", [False, True])
def test_an_exported_file_leads_to_its_session_in_another_project(
    tmp_path: Path, run: CliRunner, relative: bool
) -> None:
    # `/export-session <file>` writes the session (its id first) as indented JSON; it is
    # imported here in another project, from where gemini ran or by an absolute path
    project = tmp_path / "code" / "webapp"
    project.mkdir(parents=True)
    exported = {"sessionId": SOURCE, "projectHash": "…", "messages": []}
    (project / "my-session.json").write_text(json.dumps(exported, indent=2))
    named = "my-session.json" if relative else str(project / "my-session.json")
    home = _home(tmp_path, project="webapp", named=named)
    (home / ".gemini" / "tmp" / "webapp" / ".project_root").write_text(str(project))
    assert _show(run, home, COPY).startswith(f"· started from a copy of {SOURCE}'s")
    assert COPY not in _billed(run, home)
    assert _forked_from(run, home)[COPY] == SOURCE
