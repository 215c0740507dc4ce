"""A small JSON document read whole (`files.read_json_file`: a Gemini chat, an Amp thread,
a Cline task, Kimi Code's state.json, OpenCode's storage files) over bytes that are not
UTF-8: shown with U+FFFD, and counted as damaged under line 1, as a document read in
pieces is; no longer repaired without a word."""

from __future__ import annotations

from pathlib import Path

from sessdex import files
from sessdex.diagnostics import Diagnostics

DATA = Path(__file__).parent / "data"
NOT_UTF8 = "not UTF-8 (shown as \ufffd)"  # the reason --verbose and doctor give


def test_read_json_file_counts_what_it_repaired(tmp_path: Path) -> None:
    """Once per reader however often it reads the file; a byte order mark or a lone
    surrogate escape (what an app wrote, in UTF-8) is no damage; without diagnostics
    nothing is counted, as before."""
    path = tmp_path / "meta.json"
    path.write_bytes(b'{"title": "caf\xe9"}')
    diagnostics = Diagnostics()
    for _ in range(2):
        value = files.read_json_file(path, diagnostics=diagnostics)
        assert value == {"title": "caf\ufffd"}
    assert diagnostics.damaged == {NOT_UTF8: 1} and diagnostics.skipped_total == 0
    assert diagnostics.details == [(str(path), 1, NOT_UTF8)]
    assert files.read_json_file(path) == {"title": "caf\ufffd"}
    path.write_bytes(b'\xef\xbb\xbf{"title": "cut \\ud83d"}')
    clean = Diagnostics()
    assert files.read_json_file(path, diagnostics=clean) == {"title": "cut \ufffd"}
    path.write_bytes(b'{"title": "caf\xe9" // a comment\n}')
    value = files.read_json_file(path, comments=True, diagnostics=clean)
    assert value == {"title": "caf\ufffd"}
    assert clean.damaged == {NOT_UTF8: 1} and clean.details == [
        (str(path), 1, NOT_UTF8)
    ]
