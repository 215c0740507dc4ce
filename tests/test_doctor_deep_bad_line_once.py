"""`doctor --deep` counts a bad line in a big transcript's tail once: the listing names
it by the byte it starts at (it read the tail only), the full read by its number, and
the two are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SID = "dddddddd-0000-4000-8000-0000000000b1"
BAD = b'{"type":"custom-title","customTitle":"cut", broken'


def big_with_bad_tail_line(home: Path) -> tuple[Path, int]:
    """A transcript over the listing's tail read (512 KB) whose fourth line from the
    end is no JSON: (its path, that line's number)."""
    path = write_claude_session(home, SID, "/w/big")
    first, second = path.read_bytes().rstrip(b"\n").split(b"\n")
    record = json.loads(first)
    lines = [first]
    for n in range(4000):  # about 1.3 MB of prompts
        lines.append(
            json.dumps({**record, "uuid": f"u{n}", "parentUuid": None}).encode()
        )
    lines += [BAD, second, second, second]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, len(lines) - 3


def test_a_bad_line_in_a_big_transcripts_tail_is_counted_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path, number = big_with_bad_tail_line(home)
    result = CliRunner().invoke(
        main,
        ["doctor", "--deep", "--app", "claude", "--json", "--home", str(home)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    [app] = [a for a in json.loads(result.stdout) if a.get("app") == "claude"]
    assert app["skipped_lines"] == {"not JSON": 1}
    assert app["skipped_at"] == [
        {"file": str(path), "line": number, "reason": "not JSON"}
    ]


def test_the_bad_line_is_numbered_without_reading_the_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full read said where the bad line starts: `doctor --deep` names the line the
    listing named by its byte by the number the read gave it, in the one pass the read
    made; it read the file again up to that line to count its lines."""
    from sessdex import files

    def again(*args: object) -> None:
        raise AssertionError("the file was read again to number a line")

    monkeypatch.setattr(files, "line_numbers", again)
    test_a_bad_line_in_a_big_transcripts_tail_is_counted_once(tmp_path)
