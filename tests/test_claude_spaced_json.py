"""A Claude Code sub-agent's file beside its lead (2.0's `agent-<id>.jsonl`) is the lead's
whatever the spacing of its JSON: written with a space after each colon (a file a tool
re-wrote), `show` of the lead no longer drew it, and `tree` said "(its spawn is not in
this transcript)" where compact JSON was announced as a sub-agent."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

LEAD = "5a1e0000-0000-4000-8000-000000000001"
CWD = "/home/dev/shop"


def _record(uuid: str, parent: str | None, kind: str, text: str, side: bool) -> dict:
    message: dict[str, object] = {"role": kind, "content": text}
    if kind == "assistant":
        message = {"role": kind, "model": "claude-sonnet-4-5", "content": [
            {"type": "text", "text": text}]}  # fmt: skip
    return {
        "parentUuid": parent, "isSidechain": side, "cwd": CWD, "sessionId": LEAD,
        "version": "2.0.28", "timestamp": f"2026-11-21T09:00:{len(uuid) % 50:02d}.000Z",
        "uuid": uuid, "type": kind, "message": message,
    }  # fmt: skip


def _home(tmp_path: Path, spaced: bool) -> Path:
    """A lead with no Task call, and a sub-agent's file beside it naming the lead."""
    home = tmp_path / ("spaced" if spaced else "compact")
    folder = home / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    lead = [
        _record("a1", None, "user", "Hunt the flaky test", False),
        _record("a1-2", "a1", "assistant", "Looking into it", False),
    ]
    child = [
        _record("c1-0000", None, "user", "Run the suite three times", True),
        _record("c1-00002", "c1-0000", "assistant", "test_orders fails", True),
    ]
    separators = (", ", ": ") if spaced else (",", ":")
    for name, records in ((f"{LEAD}.jsonl", lead), ("agent-b0b0c1c1.jsonl", child)):
        lines = (json.dumps(r, separators=separators) + "\n" for r in records)
        (folder / name).write_text("".join(lines))
    return home


def _run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, [*args, "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_tree_places_a_sub_agent_written_with_spaces_as_a_compact_one(
    tmp_path: Path,
) -> None:
    compact = _run(_home(tmp_path, False), "tree", LEAD)
    spaced = _run(_home(tmp_path, True), "tree", LEAD)
    assert "not in this transcript" not in compact
    assert "not in this transcript" not in spaced, spaced
    assert "b0b0c1c1" in spaced


def test_show_of_the_lead_draws_a_sub_agent_written_with_spaces(
    tmp_path: Path,
) -> None:
    compact = _run(_home(tmp_path, False), "show", LEAD, "--no-pager")
    spaced = _run(_home(tmp_path, True), "show", LEAD, "--no-pager")
    assert "test_orders fails" in compact
    assert "test_orders fails" in spaced, spaced
