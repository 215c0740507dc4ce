"""The commands a message names with an id a file gave ("see it with 'sessdex show
ID'") are safe to paste: a sub-agent's file named `agent-x;touch $(echo PW)`id``.jsonl`
(a hostile or copied home) runs no word of it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

LEAD = "33333333-3333-4333-8333-333333333333"
HOSTILE = "a1c1;touch $(echo injected)`touch injected2` 'x y'"


def _home_with_an_orphan(root: Path) -> Path:
    """A Claude Code home whose lead transcript is gone, its sub-agent's file left under
    a hostile name."""
    folder = root / ".claude/projects/-home-dev-shop"
    folder.mkdir(parents=True)
    kept = app_home("claude") / ".claude/projects/-home-dev-shop" / LEAD
    shutil.copytree(kept, folder / LEAD)
    agents = folder / LEAD / "subagents"
    for path in agents.glob("agent-a2d2*"):
        path.unlink()
    (agents / "agent-a1c1c1c1c1c1c1c1c.meta.json").unlink()
    (agents / "agent-a1c1c1c1c1c1c1c1c.jsonl").rename(agents / f"agent-{HOSTILE}.jsonl")
    return root


@pytest.mark.parametrize("given_home", [False, True])
def test_a_hint_naming_a_hostile_id_is_safe_to_paste(
    given_home: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home_with_an_orphan(tmp_path / "home")
    args = ["show", LEAD[:8]]
    if given_home:
        args += ["--home", str(home)]
    else:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    match = re.search(
        r"""see it with (["'`]?)(sessdex .*)\1\.$""", result.stderr.strip()
    )
    assert match, result.stderr
    typed = match[2]
    # a stand-in `sessdex` that writes down the words it was given, one per line
    bin_folder, scratch = tmp_path / "bin", tmp_path / "scratch"
    bin_folder.mkdir()
    scratch.mkdir()
    stand_in = bin_folder / "sessdex"
    stand_in.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$WORDS"\n')
    stand_in.chmod(0o755)
    words = tmp_path / "words"
    for shell in ("bash", "sh"):
        if shutil.which(shell) is None:
            continue
        subprocess.run(
            [shell, "-c", typed],
            cwd=scratch,
            env={
                **os.environ,
                "PATH": f"{bin_folder}:/usr/bin:/bin",
                "WORDS": str(words),
            },
            check=False,
            timeout=30,
        )
        assert os.listdir(scratch) == [], f"{shell} ran a word of the id"
        given = words.read_text().split("\n")
        assert given[:2] == ["show", f"claude:{HOSTILE}"]
