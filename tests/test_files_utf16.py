"""A session file a Windows tool re-saved as UTF-16 (PowerShell's `Out-File`, an editor's
"Unicode" encoding) holds nothing any app's reader can take: it is said so, once, by name,
not as a "last line unfinished (1 byte)" that sends the user looking at the wrong cause,
and the app's other sessions stay listed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("app", "pattern"),
    [
        ("claude", "c0afe25d-*.jsonl"),
        ("pi", "*0190a1c7-0000-7aaa-8bbb-ccccdddd0001.jsonl"),
    ],
)
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_session_file_saved_as_utf16_is_named_as_such(
    tmp_path: Path, app: str, pattern: str, encoding: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    runner = CliRunner()
    args = ["list", "--json", "--all", "--app", app, "--home", str(home)]
    before = json.loads(runner.invoke(main, args, catch_exceptions=False).stdout)
    (target,) = home.rglob(pattern)
    text = target.read_text(encoding="utf-8")
    bom = {"utf-16-be": "\ufeff"}.get(encoding, "")  # the codec writes none itself
    target.write_text(bom + text, encoding=encoding)
    result = runner.invoke(main, [*args, "-v"], catch_exceptions=False)
    after = json.loads(result.stdout)
    lost = {s["id"] for s in before} - {s["id"] for s in after}
    assert len(lost) == 1 and str(target) in [s["path"] for s in before]
    assert f"{target}:0: not UTF-8 (UTF-16 or UTF-32 text): not read" in result.stderr
    assert "unfinished" not in result.stderr and "not JSON" not in result.stderr
    doctor = runner.invoke(main, ["doctor", "--home", str(home)])
    assert "not UTF-8 (UTF-16 or UTF-32 text)" in doctor.stdout + doctor.stderr
