"""A line read with damage (bytes that are not UTF-8, shown as U+FFFD) is said as such:
counted apart from the lines skipped, named by --verbose and doctor, kept by the index."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics

NOT_UTF8 = "not UTF-8 (shown as \ufffd)"  # the reason --verbose and doctor give
SAID = "read 1 line with bytes that are not UTF-8 (shown as \ufffd)"


def invoke(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def test_the_diagnostics_of_damage_travel_and_keep(tmp_path: Path) -> None:
    """Counted apart from skipped lines through a worker's pickle, a sum over files and
    the index's JSON; an index written before damage was counted reads as none."""
    one = Diagnostics()
    one.damage("a.jsonl", 3, NOT_UTF8)
    one.skip("a.jsonl", 4, "not JSON")
    sent = pickle.loads(pickle.dumps(one))
    assert sent.damaged == {NOT_UTF8: 1} and sent.skipped == {"not JSON": 1}
    assert sent.details == [("a.jsonl", 3, NOT_UTF8), ("a.jsonl", 4, "not JSON")]
    total = Diagnostics()
    total.update(sent)
    total.update(sent)
    assert total.damaged_total == 2 and total.skipped_total == 2
    kept = Diagnostics.from_json(json.loads(json.dumps(one.to_json())))
    assert kept.damaged == {NOT_UTF8: 1} and kept.skipped == {"not JSON": 1}
    old = Diagnostics.from_json({"skipped": {"not JSON": 1}, "unknown": {}})
    assert old.damaged_total == 0 and old.skipped_total == 1
    assert "damaged" not in Diagnostics().to_json()  # as older versions wrote it


def test_a_line_both_a_listing_and_a_read_met_is_one_line() -> None:
    """`usage` adds what the refresh's listings met to what its reads met: the same
    damaged line met by both is counted once."""
    read = Diagnostics()
    read.damage("a.jsonl", 3, NOT_UTF8)
    listed = Diagnostics()
    listed.damage("a.jsonl", 3, NOT_UTF8)
    listed.damage("b.jsonl", 1, NOT_UTF8)
    read.update_unseen(listed)
    assert read.damaged_total == 2 and len(read.details) == 2


def test_a_warm_listing_still_names_the_damaged_lines(tmp_path: Path) -> None:
    """The index keeps what a file's listing met: a later `list -v`, which reads nothing
    again, names the damaged lines under their own heading, not as skipped."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    log = home / ".aider.chat.history.md"
    log.write_bytes(
        b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### r\xe9sum\xe9  \n\nok\n"
    )
    _, err = invoke("list", "--home", str(home))
    assert f"warning: {SAID} in 1 aider file; see --verbose" in err
    _, err = invoke("list", "-v", "--home", str(home))
    assert "shown with damage when these files were read (unchanged since):" in err
    assert f"  aider: {log}:4: {NOT_UTF8}" in err
    assert "skipped" not in err
