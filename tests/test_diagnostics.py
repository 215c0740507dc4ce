"""Diagnostics cross from the index's worker processes to the main one intact."""

from __future__ import annotations

import pickle
from collections import Counter

from sessdex.diagnostics import Diagnostics


def test_diagnostics_survive_pickling_whole() -> None:
    full = Diagnostics()
    full.skip("/h/a.jsonl", 3, "not JSON")
    full.skip("/h/a.jsonl", 9, "truncated")
    full.unknown_type("frobnicate", "2.1.197")
    full.versions["0.171.0"] += 2
    full.problem("codex: could not read /h/state_5.sqlite: database is locked")
    for diagnostics in (full, Diagnostics()):
        back = pickle.loads(pickle.dumps(diagnostics, pickle.HIGHEST_PROTOCOL))
        assert back == diagnostics
        assert isinstance(back.skipped, Counter)
        back.skip("/h/b.jsonl", 1, "not JSON")  # still counts where it left off
        assert back.skipped["not JSON"] == diagnostics.skipped["not JSON"] + 1
    assert len(pickle.dumps(Diagnostics())) < 80  # an empty one is next to nothing
