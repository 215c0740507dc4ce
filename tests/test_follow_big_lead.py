"""`follow -n N` of a long Claude Code lead: its first read draws the transcript's end.

It surveyed the whole file first (rewound branches, as `show` folds them), so `follow
-n 3` of a 1.5 GB lead read all of it before its first line: about a minute and 320 MB
(`bench/bench_follow_big.py`). It now surveys only a file whose history is the whole
file, and reads a longer one from its end, as `show --tail` does. What the process read
is measured (`rchar` of /proc/self/io), not its time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA
from tests.helpers import claude_line

DEMO = DATA.parent.parent / "src/sessdex/demo/home"
SESSION = "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"
MB = 1024 * 1024


def _read_so_far() -> int:
    """Bytes this process has read through read calls."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _long_lead(tmp_path: Path, megabytes: int) -> str:
    """The demo home, its Claude Code lead grown by turns of one prompt and one answer,
    each chained to the one before, to `megabytes`."""
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (path,) = home.rglob(f"{SESSION}.jsonl")
    parent, turn = "3f2b9c1e-0000-4000-8000-00000000000c", 0
    with path.open("a", encoding="utf-8") as out:
        while out.tell() < megabytes * MB:
            turn += 1
            asked, said = f"u-{turn:08d}", f"a-{turn:08d}"
            when = f"2026-11-30T12:{turn // 3600 % 60:02d}:{turn % 60:02d}.000Z"
            prompt = {"role": "user", "content": f"step {turn}: " + "go on " * 300}
            answer = {
                "id": f"msg_{turn:08d}",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": f"done {turn}. " + "ok " * 300}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            for line in (
                claude_line(SESSION, "/home/demo/code/shop-api", type="user",
                            uuid=asked, parentUuid=parent, timestamp=when,
                            message=prompt),
                claude_line(SESSION, "/home/demo/code/shop-api", type="assistant",
                            uuid=said, parentUuid=asked, timestamp=when,
                            message=answer),
            ):  # fmt: skip
                out.write(json.dumps(line) + "\n")
            parent = said
    return str(home)


def test_follow_n_of_a_long_lead_reads_its_end_not_the_whole_file(
    tmp_path: Path,
) -> None:
    if not Path("/proc/self/io").exists():
        pytest.skip("no /proc/self/io to count what was read")
    home = _long_lead(tmp_path, 12)
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--home", home])  # the index, made apart
    assert listed.exit_code == 0, listed.output
    before = _read_so_far()
    result = runner.invoke(
        main,
        ["follow", SESSION[:8], "-n", "3", "--nl", "--duration", "0", "--home", home],
    )
    read = _read_so_far() - before
    assert result.exit_code == 0, result.output
    kinds = [json.loads(line)["kind"] for line in result.stdout.splitlines()]
    assert len(kinds) == 3 and kinds[-1] == "assistant", result.stdout[:500]
    assert "done" in result.stdout.splitlines()[-1]
    assert read < 3 * MB, f"follow -n 3 read {read / MB:.1f} MB of a 12 MB transcript"
