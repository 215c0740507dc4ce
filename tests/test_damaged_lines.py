"""A line read with damage (bytes that are not UTF-8, shown as U+FFFD) is said as such:
counted apart from the lines skipped, named by --verbose and doctor, kept by the index."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

from sessdex.diagnostics import Diagnostics

NOT_UTF8 = "not UTF-8 (shown as \ufffd)"  # the reason --verbose and doctor give


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
