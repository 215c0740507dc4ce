"""Within `folders.one_pass` a small file read again is what the first read found; the
pass held every small file it read, so `doctor --deep`, one pass over all of an app's
sessions, held all of a home's small session files at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessdex import files, folders


def test_a_pass_holds_small_files_up_to_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "_PASS_HELD", 10 * 1024)
    paths = []
    for n in range(20):
        path = tmp_path / f"s{n}.json"
        path.write_bytes(b"x" * 1024)
        paths.append(path)
    with folders.one_pass():
        for path in paths:
            assert files.read_small(path, 1 << 20) == b"x" * 1024
        kept = folders.in_pass()
        assert kept is not None
        held = sum(len(v) for v in kept.values() if isinstance(v, bytes))
        assert held <= 10 * 1024
        # the first ones are still read from what the pass kept
        paths[0].write_bytes(b"changed")
        assert files.read_small(paths[0], 1 << 20) == b"x" * 1024
        paths[-1].write_bytes(b"changed")  # past the bound: read again
        assert files.read_small(paths[-1], 1 << 20) == b"changed"
