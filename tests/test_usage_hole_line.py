"""A line `usage` passes over unread (a hole of NULs in a sparse file) is named by its
own number, cold or read on from where the last run stopped. Before, usage, which does
not number lines as it goes, named line 1 (where its read began counting) for both."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.test_sparse_files import sparse_ok  # noqa: F401 (a fixture)

DATA = Path(__file__).parent / "data" / "claude" / "home" / ".claude" / "projects"
FILE = "-home-alex-code-shop-api/c0afe25d-a3f3-42d0-a05d-b89a69889156.jsonl"


def _usage(home: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    counted = CliRunner().invoke(main, ["usage", "-v", "--home", str(home)])
    assert counted.exit_code == 0, counted.output
    return counted.stderr


@pytest.mark.usefixtures("sparse_ok")
def test_a_hole_is_named_by_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / FILE
    path.parent.mkdir(parents=True)
    lines = (DATA / FILE).read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]))
    assert ":6:" not in _usage(home, tmp_path / "state", monkeypatch)
    with open(path, "r+b") as stream:  # line 6 runs into 16 MB never written
        stream.seek(0, 2)
        stream.write(b'{"type":"assistant","message":{"usage":{"x":"')
        stream.seek(stream.tell() + 16 * 1024 * 1024)
        stream.write(b'"}}}\n' + b"".join(lines[5:]))
    named = f"{path}:6: a hole of NUL bytes"

    assert named in _usage(home, tmp_path / "state", monkeypatch)  # read on
    assert named in _usage(home, tmp_path / "cold", monkeypatch)
