"""A Claude Code transcript counts in the session its file is, as `list` and `show` name
it, whatever `sessionId` its lines carry (a renamed file; a 1.0 resume's copy of the lines
of the session it went on from), where the row was keyed by that id, which `show` and
`usage --explain` refused. A copied response still counts in its original's row while
the original is there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

CATALOGUE = Path(__file__).parent / "data" / "claude" / "catalogue" / "small.jsonl"
OLD = "0b5e1a2c-0000-4000-8000-000000000001"
NEW = "0b5e1a2c-0000-4000-8000-000000000002"


def run(home: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    return result.exit_code, result.stdout, result.stderr


def usage_rows(home: Path) -> dict[str, dict[str, object]]:
    code, out, err = run(home, "usage", "session", "--json")
    assert code == 0, err
    return {row["key"]: row for row in json.loads(out)}


def test_a_renamed_transcript_is_one_row_that_show_and_explain_take(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".claude" / "projects" / "-tmp"
    folder.mkdir(parents=True)
    shutil.copy(CATALOGUE, folder / "small.jsonl")  # its lines say `ses_stage0_small`
    code, listed, _ = run(tmp_path, "list", "--json", "--all")
    assert [s["id"] for s in json.loads(listed)] == ["small"]
    rows = usage_rows(tmp_path)
    assert list(rows) == ["small"]
    assert rows["small"]["output_tokens"] == 5
    assert run(tmp_path, "show", "small")[0] == 0
    code, out, err = run(tmp_path, "usage", "session", "--explain", "small")
    assert code == 0, err
    assert out.startswith("row small: 2 responses, input 10, output 5")


def line(session: str, uuid: str, message: str, output: int) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": uuid,
            "parentUuid": None,
            "timestamp": "2025-08-01T10:00:00.000Z",
            "cwd": "/tmp",
            "requestId": f"req_{message}",
            "message": {
                "id": f"msg_{message}",
                "role": "assistant",
                "model": "claude-sonnet-4-20250514",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 10, "output_tokens": output},
            },
        }
    )


def prompt(session: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "sessionId": session,
            "uuid": f"u-{session}",
            "parentUuid": None,
            "timestamp": "2025-08-01T09:59:00.000Z",
            "cwd": "/tmp",
            "message": {"role": "user", "content": "go on"},
        }
    )


def test_a_resumed_copy_counts_in_its_file_once_the_original_is_gone(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".claude" / "projects" / "-tmp"
    folder.mkdir(parents=True)
    (folder / f"{OLD}.jsonl").write_text(
        prompt(OLD) + "\n" + line(OLD, "a1", "first", 7) + "\n"
    )
    # 1.0's resume: the new file opens with the old lines, their sessionId kept
    (folder / f"{NEW}.jsonl").write_text(
        line(OLD, "a1", "first", 7)
        + "\n"
        + prompt(NEW)
        + "\n"
        + line(NEW, "b1", "second", 3)
        + "\n"
    )
    rows = usage_rows(tmp_path)
    assert {key: row["output_tokens"] for key, row in rows.items()} == {OLD: 7, NEW: 3}
    (folder / f"{OLD}.jsonl").unlink()
    rows = usage_rows(tmp_path)
    assert {key: row["output_tokens"] for key, row in rows.items()} == {NEW: 10}
    assert run(tmp_path, "show", NEW[:13])[0] == 0
