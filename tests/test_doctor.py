"""What `sessdex doctor` tells the user who comes with "my session isn't listed": a
variable that sends sessdex to a folder that is not there is a problem said first, with
the step to take, and long lines stay readable on a narrow terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import merged_home
from tests.helpers import write_claude_session


def doctor(*args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    result = CliRunner(env=env).invoke(main, ["doctor", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def test_a_variable_naming_a_missing_folder_is_a_problem_said_first(
    tmp_path: Path,
) -> None:
    """CODEX_HOME left pointing at a folder that is gone (an old experiment in a shell
    profile) hid every Codex session: doctor said "not found", last of all apps, below
    pages of the others, as if Codex was not installed."""
    home = merged_home(tmp_path / "home")
    env = {"HOME": str(home), "CODEX_HOME": "/nowhere/codex"}
    out, _ = doctor(env=env)
    lines = out.splitlines()
    end = next(i for i, line in enumerate(lines[1:], 1) if not line.startswith(" "))
    first = lines[:end]  # the first app's block
    assert first[0] == "OpenAI Codex CLI (codex): not found", out
    problem = next(line for line in first if line.startswith("  problem "))
    assert "CODEX_HOME=/nowhere/codex" in problem
    assert "does not exist" in problem and "unset it" in problem
    (codex,) = json.loads(doctor("--json", "--app", "codex", env=env)[0])
    assert any("CODEX_HOME=/nowhere/codex" in p for p in codex["problems"])


def test_a_variable_naming_a_folder_that_is_there_is_no_problem(
    tmp_path: Path,
) -> None:
    """XDG_DATA_HOME set (as many desktops do) where an app is not installed: that app
    is simply not found, nothing for the user to fix."""
    home = merged_home(tmp_path / "home")
    data = tmp_path / "data"
    data.mkdir()
    env = {"HOME": str(home), "XDG_DATA_HOME": str(data)}
    reports = json.loads(doctor("--json", "--app", "opencode", env=env)[0])
    assert reports[0]["problems"] == []
    out, _ = doctor("--app", "opencode", "--app", "claude", env=env)
    assert "problem" not in out


def test_doctor_fits_the_width_with_each_value_under_its_column(tmp_path: Path) -> None:
    """An app's "checked with" ran to 500 characters and a problem or a note to 200: an
    80-column terminal broke them at column 0, so the labels (looked in, problem, note)
    no longer stood out; the apps not found ran past the width too."""
    home = merged_home(tmp_path / "home")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"COLUMNS": "80", "CODEX_HOME": "/nowhere/codex"}
    for where in (home, empty):
        out, _ = doctor("--home", str(where), env=env)
        # only a word with no space to break at (a long path) may pass the width; it
        # stays on its label's line
        long = [line for line in out.splitlines() if len(line) > 80]
        assert all(" " not in line[14:].strip() for line in long), long
    # -v: "checked with" in full (plain doctor names only the versions)
    out, _ = doctor("--home", str(home), "--app", "claude", "-v", env=env)
    checked = out.split("  checked     ")[1].split("\n  versions")[0].splitlines()
    assert len(checked) > 3 and all(line.startswith(" " * 14) for line in checked[1:])
    # piped with no COLUMNS, as scripts and grep read it: every fact on one line
    out, _ = doctor("--home", str(home), "--app", "claude", "-v")
    assert max(map(len, out.splitlines())) > 200


def test_doctor_json_names_the_files_and_lines_the_text_names(tmp_path: Path) -> None:
    """`doctor -v` named each skipped line's file and line; `doctor --json` gave only
    the counts, so a script (or the user reading it) could not find the file."""
    home = merged_home(tmp_path / "home")
    (session,) = home.rglob("c0afe25d-*.jsonl")
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(2, '{"type": "user", "message": "secret wor\n')  # cut by a crash
    session.write_text("".join(lines), encoding="utf-8")
    args = ("--deep", "--app", "claude", "--home", str(home))
    text, _ = doctor(*args, "-v")
    assert f"    {session}:3: not JSON" in text
    (claude,) = json.loads(doctor(*args, "--json")[0])
    assert claude["skipped_lines"] == {"not JSON": 1}
    assert claude["skipped_at"] == [
        {"file": str(session), "line": 3, "reason": "not JSON"}
    ]
    assert "secret" not in text + json.dumps(claude)


def test_doctor_fits_the_width_in_columns_where_names_are_wide(tmp_path: Path) -> None:
    """A CJK character takes two columns: lines measured in characters ran past an
    80-column terminal where a home's folder names were Japanese."""
    from sessdex.views.text import cells

    home = merged_home(tmp_path / "作業 用の ホーム ディレクトリ の 写し です")
    out, _ = doctor("--home", str(home), env={"COLUMNS": "80"})
    wide = [line for line in out.splitlines() if "作業" in line]
    assert wide, out
    long = [line for line in out.splitlines() if cells(line) > 80]

    # only a word with no space to break at (a long path) may pass the width
    assert [line for line in long if " " in line[14:].strip()] == []


def test_doctor_deep_counts_a_line_its_listing_also_met_once(tmp_path: Path) -> None:
    """A broken line the listing reads (a Claude Code reply it looks at for the model)
    is met again by `--deep`'s read of the whole file: one line, said once, where doctor
    said `2 not JSON` and named the same file:line twice."""
    home = tmp_path / "home"
    path = write_claude_session(home, "dddddddd-0000-4000-8000-0000000000fd", "/w/x")
    data = path.read_bytes()
    assert data.count(b'"text": "hi"') == 1  # on line 2, the reply
    path.write_bytes(data.replace(b'"text": "hi"', b'"text": hi"'))
    args = ("--deep", "--app", "claude", "--home", str(home), "--json")
    (claude,) = json.loads(doctor(*args)[0])
    assert claude["skipped_lines"] == {"not JSON": 1}
    assert claude["skipped_at"] == [
        {"file": str(path), "line": 2, "reason": "not JSON"}
    ]


def test_a_warm_doctor_names_what_it_skipped_in_a_cold_ones_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auggie sessions that could not be read, one of them written again since: a warm
    doctor names the files and their problems in the order a cold one does (before:
    the one read again last, as the index had stored it last)."""
    from tests.conftest import app_home

    home = tmp_path / "home"
    shutil.copytree(app_home("auggie").parent / "malformed" / "home", home)
    args = ("--json", "--app", "auggie", "--home", str(home))
    doctor(*args)
    session = (
        home / ".augment" / "sessions" / f"{'2' * 8}-2222-4222-8222-{'2' * 12}.json"
    )
    session.write_bytes(session.read_bytes() + b"\n")
    warm = json.loads(doctor(*args)[0])
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "cold"))
    cold = json.loads(doctor(*args)[0])
    assert len(cold[0]["problems"]) >= 2
    assert warm == cold


def test_each_heading_names_the_app_in_one_parenthesis(tmp_path: Path) -> None:
    """An app whose name has a parenthesis of its own read "Cline (VS Code extension and
    CLI) (cline): not found", two in a row; its heading reads as Claude Code's does, the
    app's `--app` name first in the one parenthesis."""
    out, _ = doctor("-v", "--home", str(tmp_path))
    headings = [line for line in out.splitlines() if line.endswith(": not found")]
    assert len(headings) > 20, out
    assert "Claude Code (claude): not found" in headings
    assert "Cline (cline, VS Code extension and CLI): not found" in headings
    for heading in headings:
        assert ") (" not in heading and heading.count("(") == 1, heading
