"""`tree` in a copied home (`cp -r`: every file's mtime is now): a sub-agent the transcripts
show finished is done, whatever its file's time says; a spawn and the sub-agent it started
are one node, not two."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).parents[2] / "shared" / "corpus"


def _tree(home: Path, session_id: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["tree", session_id, "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)
    assert isinstance(value, dict)
    return value


def test_a_sub_agent_that_ended_its_turn_is_done_in_a_fresh_copy(
    tmp_path: Path,
) -> None:
    """The lead's file stops at the spawn (its result not written yet, or cut), the child's
    transcript ends with its final answer and end of turn: done, not running, though
    every file was written a moment ago."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)  # fresh mtimes, as cp -r gives
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [n for n, line in enumerate(lines) if '"tool_use"' in line]
    lead.write_text("".join(lines[: spawn + 1]))
    [child] = _tree(home, "82d9f90c")["children"]  # type: ignore[misc]
    assert (child["id"], child["status"]) == ("a199d630441234c05", "done")
    shown = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    assert "general-purpose [done] Greeting sub-agent" in shown.output, shown.output
    # mid tool call, nothing says it finished: still running while its file is fresh
    transcript = project / lead.stem / "subagents" / "agent-a199d630441234c05.jsonl"
    transcript.write_text("".join(transcript.read_text().splitlines(True)[:3]))
    [child] = _tree(home, "82d9f90c")["children"]  # type: ignore[misc]
    assert child["status"] == "running"
