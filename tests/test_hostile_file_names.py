"""A transcript's file name is untrusted too: one holding an escape sequence and a
newline is named by --verbose and `doctor -v` with those written out (`\\x1b`, `\\x0a`),
so the name shown is the file's and the terminal acts on none of it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

NAME = "\x1b]0;title\x07odd\nname"


def test_a_file_name_with_control_characters_is_named_as_it_is(tmp_path: Path) -> None:
    folder = tmp_path / "home/.claude/projects/-w"
    folder.mkdir(parents=True)
    line = {
        "type": "user",
        "sessionId": NAME,
        "cwd": "/w",
        "uuid": "u1",
        "parentUuid": None,
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"role": "user", "content": "hi"},
    }
    (folder / f"{NAME}.jsonl").write_text(
        json.dumps(line) + "\nnot json\n" + json.dumps({**line, "uuid": "u2"}) + "\n"
    )
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    shown = f"{folder}/\\x1b]0;title\\x07odd\\x0aname.jsonl:2: not JSON"
    doctor = runner.invoke(main, ["doctor", "--deep", "-v", *home])
    assert shown in doctor.output
    (listed,) = json.loads(runner.invoke(main, ["list", "--json", *home]).stdout)
    show = runner.invoke(main, ["show", listed["id"], "-v", "--no-pager", *home])
    assert shown in show.stderr
    for output in (doctor.output, show.stderr):
        assert "\x1b" not in output and "\x07" not in output
