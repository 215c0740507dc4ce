"""Counts said as people write them: "1 file", "2 files", never "1 file(s)"."""

from __future__ import annotations

from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.wording import count_of


def test_a_count_takes_the_noun_it_needs() -> None:
    assert count_of(1, "file") == "1 file"
    assert count_of(0, "file") == "0 files"
    assert count_of(2, "file name") == "2 file names"
    assert count_of(3, "index", "indexes") == "3 indexes"
    assert count_of(1, "index", "indexes") == "1 index"


def test_folders_not_opened_are_counted_with_their_noun(tmp_path: Path) -> None:
    from sessdex.diagnostics import FOLDER_UNREADABLE

    for count, said in (
        (1, "could not open 1 folder,"),
        (2, "could not open 2 folders,"),
    ):
        diagnostics = Diagnostics()
        shut = [(str(tmp_path / f"f{n}"), FOLDER_UNREADABLE) for n in range(count)]
        diagnostics.names_passed_over("claude", shut)
        (problem,) = diagnostics.problems
        assert said in problem and "(s)" not in problem
