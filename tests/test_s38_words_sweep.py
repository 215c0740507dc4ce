"""Hints the command line prints from its own messages (found reading them): each names
its command as it should be typed, with the running --home."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_doctor_names_doctor_deep_with_the_same_home(tmp_path: Path) -> None:
    """A Codex newer than checked: doctor points at `doctor --deep`, which without the
    --home would read the user's own home instead."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    first = next(
        p
        for p in sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        if '"cli_version":"0.171.0"' in p.read_text()
    )
    first.write_text(
        first.read_text().replace(
            '"cli_version":"0.171.0"', '"cli_version":"0.180.2"', 1
        )
    )
    code, out, _ = _invoke("doctor", "--app", "codex", "--home", str(home))
    assert code == 0
    [newer] = [line for line in out.splitlines() if "newer than checked" in line]
    assert newer.endswith(f"('sessdex doctor --deep --home {home}' reads them all)")
