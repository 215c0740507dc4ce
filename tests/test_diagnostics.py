"""Diagnostics cross from the index's worker processes to the main one intact, and merge
without counting one line twice."""

from __future__ import annotations

import pickle
import sqlite3
from collections import Counter

from sessdex.diagnostics import Diagnostics, why


def test_diagnostics_survive_pickling_whole() -> None:
    full = Diagnostics()
    full.skip("/h/a.jsonl", 3, "not JSON")
    full.skip("/h/a.jsonl", 9, "truncated")
    full.unknown_type("frobnicate", "2.1.197")
    full.versions["0.171.0"] += 2
    full.problem("codex: could not read /h/state_5.sqlite: database is locked")
    full.for_now = True  # kept as it was: said through a worker too
    for diagnostics in (full, Diagnostics()):
        back = pickle.loads(pickle.dumps(diagnostics, pickle.HIGHEST_PROTOCOL))
        assert back == diagnostics
        assert isinstance(back.skipped, Counter)
        back.skip("/h/b.jsonl", 1, "not JSON")  # still counts where it left off
        assert back.skipped["not JSON"] == diagnostics.skipped["not JSON"] + 1
    assert len(pickle.dumps(Diagnostics())) < 80  # an empty one is next to nothing


def test_update_unseen_counts_a_line_two_passes_met_once_and_the_others_all() -> None:
    read = Diagnostics()
    read.skip("/t.json", 0, "truncated")
    read.skip("/a.jsonl", 3, "not JSON")
    listing = Diagnostics()
    listing.skip("/t.json", 0, "truncated")  # the same cut, met by the listing
    listing.skip("/a.jsonl", 1, "not JSON")  # another line of the same file
    listing.skip("/b.jsonl", 3, "not JSON")  # the same line number in another file
    read.update_unseen(listing)
    assert read.skipped == {"truncated": 1, "not JSON": 3}
    assert len(read.details) == 4


def test_update_unseen_takes_one_line_the_listing_met_for_one_of_the_read() -> None:
    """A JSON document's items are all named at line 0: the listing that met one bad
    item and the read that met five (`doctor --deep`, listing first) counted 1, where
    `show -v` and `usage` said 5; each line met stands for one line, not for all alike."""
    listing = Diagnostics()
    listing.skip("/s.json", 0, "not an object")
    read = Diagnostics()
    for _ in range(5):
        read.skip("/s.json", 0, "not an object")
    read.skip("/s.json", 0, "truncated")
    listing.update_unseen(read)
    assert listing.skipped == {"not an object": 5, "truncated": 1}
    assert len(listing.details) == 6
    # either way round
    listing = Diagnostics()
    listing.skip("/s.json", 0, "not an object")
    read.update_unseen(listing)
    assert read.skipped == {"not an object": 5, "truncated": 1}


def test_update_unseen_adds_everything_when_the_lines_are_not_all_named() -> None:
    read = Diagnostics()
    read.skip("/t.json", 0, "truncated")
    listing = Diagnostics()
    listing.skip("/t.json", 0, "truncated")
    listing.skipped["truncated"] += (
        1  # one more than its details name (past MAX_DETAILS)
    )
    read.update_unseen(listing)
    assert read.skipped == {"truncated": 3}


def test_an_os_error_is_said_in_its_words_naming_another_file_only() -> None:
    """A refused read named its file twice ("<path>: [Errno 13] Permission denied:
    '<path>'"); one in another file of the session (vibe's journal) is still named."""
    refused = PermissionError(13, "Permission denied", "/h/s.jsonl")
    assert why(refused, "/h/s.jsonl") == "permission denied"
    assert why(refused, "/h/CURRENT") == "permission denied: /h/s.jsonl"
    assert why(TypeError("unhashable type: 'dict'")) == (
        "TypeError: unhashable type: 'dict'"
    )


def test_a_database_error_is_said_in_sqlites_words_a_misuse_as_a_bug() -> None:
    """A locked or corrupt database of an app's is its store's state, no sessdex bug:
    no type name ("OperationalError: database is locked"); SQL sessdex got wrong is."""
    assert why(sqlite3.OperationalError("database is locked"), "/h/a.db") == (
        "database is locked"
    )
    assert why(sqlite3.DatabaseError("file is not a database")) == (
        "file is not a database"
    )
    assert why(sqlite3.ProgrammingError("Incorrect number of bindings")) == (
        "ProgrammingError: Incorrect number of bindings"
    )


def test_a_line_named_by_its_byte_is_given_as_that_byte_in_json() -> None:
    # a read from past a file's start names a line by where it begins; doctor --json
    # must say that byte, never the internal number that encodes it
    from sessdex.diagnostics import at_byte, place

    assert place("/s.jsonl", at_byte(316_486), "not JSON") == {
        "file": "/s.jsonl",
        "byte": 316_486,
        "reason": "not JSON",
    }
    assert place("/s.jsonl", 11, "not JSON") == {
        "file": "/s.jsonl",
        "line": 11,
        "reason": "not JSON",
    }
