"""`folders.one_pass` keeps the small files it reads (a sub-agent's meta file) for the
pass over a lead's sub-agents: a folder of thousands of them is not all held at once."""

from __future__ import annotations

from pathlib import Path

from sessdex import files, folders


def test_a_pass_holds_a_bounded_sum_of_small_files(tmp_path: Path) -> None:
    body = b"x" * 60_000  # under the size a pass keeps of one file
    paths = []
    for n in range(400):  # 24 MB of them in all
        path = tmp_path / f"agent-{n}.meta.json"
        path.write_bytes(body)
        paths.append(path)
    with folders.one_pass():
        for path in paths:
            assert files.read_small(path, 1 << 20) == body
        kept = folders.in_pass()
        assert kept is not None
        held = sum(len(v) for v in kept.values() if isinstance(v, bytes))
        assert 0 < held <= 16 * 1024 * 1024
        for path in paths:  # each read again gives the file, held or not
            assert files.read_small(path, 1 << 20) == body
