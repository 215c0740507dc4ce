"""`resume --print` where the program on PATH is another of the same name (pressly's
`goose`, the SQL migration tool): a script piping the line into a shell ran that program
with the session's words. It refuses as `resume` does: nothing on stdout, exit 1."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "goose" / "home")
TARGET = "goose:20261201_1"


def _go_program(path: Path) -> Path:
    """A 64-bit ELF whose note segment holds Go's build id (pressly/goose's shape)."""
    note = struct.pack("<III", 3, 7, 4) + b"Go\x00\x00" + b"abc/def\x00"
    header = b"\x7fELF\x02\x01\x01" + b"\x00" * 9
    header += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    segment = struct.pack("<IIQQQQQQ", 4, 4, 120, 0, 0, len(note), len(note), 4)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + segment + note + b"\x00" * 4096)
    path.chmod(0o755)
    return path


def test_print_gives_no_line_to_run_another_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = _go_program(tmp_path / "bin" / "goose")
    monkeypatch.setenv("PATH", str(other.parent))
    printed = CliRunner().invoke(main, ["resume", "--home", HOME, "--print", TARGET])
    assert printed.exit_code == 1, printed.output
    assert printed.stdout == ""
    assert f"({other}) is another program" in printed.stderr
    # --force is about a running CLI: it never makes another program the app's
    forced = CliRunner().invoke(
        main, ["resume", "--home", HOME, "--print", "--force", TARGET]
    )
    assert forced.exit_code == 1 and forced.stdout == "", forced.output


def test_json_still_describes_the_plan_with_its_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = _go_program(tmp_path / "bin" / "goose")
    monkeypatch.setenv("PATH", str(other.parent))
    result = CliRunner().invoke(main, ["resume", "--home", HOME, "--json", TARGET])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["cli_path"] is None and record["command"]
    assert any("is another program" in r for r in record["refusals"])


def test_print_still_gives_the_line_where_the_cli_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing else would run: the shell says the program is not found."""
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    printed = CliRunner().invoke(main, ["resume", "--home", HOME, "--print", TARGET])
    assert printed.exit_code == 1, printed.output  # printed; its folder is not here
    assert "goose session --resume" in printed.stdout
    assert "is not on PATH" in printed.stderr
