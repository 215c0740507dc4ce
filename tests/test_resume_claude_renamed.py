"""A Claude Code transcript the user renamed or copied: Claude Code finds a session by its
file name, `<session id>.jsonl`, and reads any other `--resume` value as a title to search
for (2.1.332: an exact title match opens that session, else its picker opens pre-filled;
`-p` fails). Checked against the real CLI: a copy under another UUID name resumes under
that name, and a file renamed to `backup.jsonl` is not found by `--resume backup`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

FIXTURE = (
    Path(__file__).parent
    / "data/claude/home/.claude/projects/-tmp/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"
)
RECORDED = FIXTURE.stem  # the `sessionId` its lines carry
COPY = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"


def home_with(tmp_path: Path, *names: str) -> tuple[Path, Path]:
    """A home whose one project folder holds the fixture under each of `names`."""
    folder = tmp_path / "home/.claude/projects/-tmp"
    folder.mkdir(parents=True)
    for name in names:
        shutil.copyfile(FIXTURE, folder / name)
    return tmp_path / "home", folder


def plan(home: Path, session: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["resume", f"claude:{session}", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def test_a_renamed_transcript_gets_no_title_search_but_the_way_back(
    tmp_path: Path,
) -> None:
    """`claude --resume backup` searched for a session titled "backup": the picker, or
    another conversation that bears that title."""
    home, _ = home_with(tmp_path, "backup.jsonl")
    document = plan(home, "backup")
    assert document["argv"] is None and document["command"] is None
    refusals = document["refusals"]
    assert isinstance(refusals, list)
    assert any(
        "backup.jsonl" in refusal and f"{RECORDED}.jsonl" in refusal
        for refusal in refusals
    ), refusals


def test_a_renamed_copy_beside_its_original_is_told_apart(tmp_path: Path) -> None:
    """Renaming the copy back would overwrite the original: `claude --resume <id>` opens
    the original, so the copy needs a name of its own."""
    home, _ = home_with(tmp_path, "my-session.jsonl", FIXTURE.name)
    document = plan(home, "my-session")
    assert document["argv"] is None
    refusals = document["refusals"]
    assert isinstance(refusals, list)
    assert any(
        f"claude --resume {RECORDED}" in refusal and "new UUID" in refusal
        for refusal in refusals
    ), refusals
    original = plan(home, RECORDED)  # the original itself still resumes
    assert original["argv"] == ["claude", "--resume", RECORDED]


def test_a_copy_under_another_uuid_resumes_by_its_own_name(tmp_path: Path) -> None:
    """Claude Code 2.1.332 opens `<copy>.jsonl` for `--resume <copy>` and goes on under
    that id, its lines' `sessionId` notwithstanding: the file name is the one to pass."""
    home, _ = home_with(tmp_path, f"{COPY}.jsonl")
    document = plan(home, COPY)
    assert document["argv"] == ["claude", "--resume", COPY]


def test_a_renamed_transcripts_name_in_the_line_it_names_is_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The `claude --resume <name>` the refusal says was the file's name bare: pasted,
    bash read `copy$$` as `copy` and its own process id."""
    monkeypatch.setenv("SESSDEX_SHELL", "bash")
    home, _ = home_with(tmp_path, "copy$$.jsonl")
    refusals = plan(home, "copy$$")["refusals"]
    assert isinstance(refusals, list)
    assert any("`claude --resume 'copy$$'`" in refusal for refusal in refusals), (
        refusals
    )
