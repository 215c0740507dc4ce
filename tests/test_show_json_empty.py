"""A transcript with no event to give: `show --json` and `export -f json` print `[]`, as
`list --json` prints an empty list and the README says an empty result is; `--nl` no
line."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main


def test_a_session_with_no_events_is_an_empty_json_array(tmp_path: Path) -> None:
    home = shutil.copytree(api.demo_home().path, tmp_path / "home", symlinks=True)
    [rollout] = (home / ".codex" / "sessions").rglob("*.jsonl")
    rollout.write_bytes(rollout.read_bytes().splitlines(keepends=True)[0])  # its meta
    runner = CliRunner()
    for args, printed in (
        (["show", "019a", "--json"], "[]\n"),
        (["show", "019a", "--tail", "3", "--json"], "[]\n"),
        (["export", "019a", "-f", "json"], "[]\n"),
        (["show", "019a", "--nl"], ""),
    ):
        result = runner.invoke(main, [*args, "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert result.stdout == printed, args
    written = tmp_path / "events.json"
    runner.invoke(main, ["export", "019a", "-o", str(written), "--home", str(home)])
    assert written.read_text() == "[]\n"
