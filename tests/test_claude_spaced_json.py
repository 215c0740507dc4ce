"""A Claude Code transcript written with a space after each colon (a file a tool re-wrote)
reads as its compact JSON does. A sub-agent's file beside its lead (2.0's
`agent-<id>.jsonl`) is the lead's: `show` of the lead no longer drew it, and `tree` said
"(its spawn is not in this transcript)". A 1.0 summary titles it in `list` (the first
prompt showed), and `usage` keeps a 1.0 side chain one sub-agent (one a response)."""

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


CLAUDE = Path(__file__).parent / "data" / "claude" / "home" / ".claude" / "projects"
# real Claude Code 1.0.98 (an inline side chain), and a 2.0 file titled by a summary
REAL = CLAUDE / "-path-to-Demo" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
TITLED = CLAUDE / "-home-dev-shop" / "22222222-2222-4222-8222-222222222222.jsonl"


def _copy(tmp_path: Path, source: Path, spaced: bool) -> Path:
    """A home holding `source` alone, as it is or re-written with a space after each
    colon and comma (the same records, as a tool that re-writes JSON leaves them)."""
    home = tmp_path / ("spaced" if spaced else "compact")
    folder = home / ".claude" / "projects" / source.parent.name
    folder.mkdir(parents=True)
    text = source.read_text()
    if spaced:
        records = (json.loads(line) for line in text.splitlines())
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (folder / source.name).write_text(text)
    return home


def _titles(home: Path) -> dict[str, str]:
    rows = json.loads(_run(home, "list", "--json", "--all"))
    return {row["id"]: row["title"] for row in rows}


def test_list_titles_a_spaced_file_by_its_summary_as_a_compact_one(
    tmp_path: Path,
) -> None:
    compact = _titles(_copy(tmp_path, TITLED, False))
    spaced = _titles(_copy(tmp_path, TITLED, True))
    assert compact == {TITLED.stem: "Flaky test hunt"}
    assert spaced == compact


def test_list_titles_a_spaced_file_by_the_summary_its_next_one_holds(
    tmp_path: Path,
) -> None:
    """1.0 wrote a conversation's summary at the head of the next transcript of its
    project, naming the conversation's last line by its uuid."""
    titles = {}
    for spaced in (False, True):
        home = _copy(tmp_path, REAL, spaced)
        [last] = REAL.read_text().splitlines()[-1:]
        summary = {"type": "summary", "summary": "Scaffold the TODO app",
                   "leafUuid": json.loads(last)["uuid"]}  # fmt: skip
        nxt = home / ".claude" / "projects" / REAL.parent.name / "0e0e0e0e.jsonl"
        nxt.write_text(json.dumps(summary, separators=(",", ":")) + "\n")
        titles[spaced] = _titles(home)[REAL.stem]
    assert titles == {False: "Scaffold the TODO app", True: "Scaffold the TODO app"}


def test_usage_keeps_a_spaced_side_chain_one_sub_agent(tmp_path: Path) -> None:
    """1.0's side chain, written with spaces: its lines without usage link its responses
    into one sub-agent, typed by its Task call, as in the compact file (it was nine
    untyped agents, one a response)."""
    agents = {}
    for spaced in (False, True):
        home = _copy(tmp_path, REAL, spaced)
        args = ("usage", "session", "--json", "--app", "claude")
        [row] = json.loads(_run(home, *args))
        agents[spaced] = [
            (a["id"], a["agent_type"], a["input_tokens"]) for a in row["agents"]
        ]
    assert agents[False] == [
        (REAL.stem, "lead", 16),
        ("6690d10e-f521-4ac0-800d-e5eb7a2d8072", "general-purpose", 49),
    ]
    assert agents[True] == agents[False]


def test_list_titles_a_file_by_a_spaced_summary_in_its_next_one(
    tmp_path: Path,
) -> None:
    """The next transcript re-written with spaces: its opening summary still names the
    conversation before it."""
    home = _copy(tmp_path, REAL, False)
    [last] = REAL.read_text().splitlines()[-1:]
    summary = {"type": "summary", "summary": "Scaffold the TODO app",
               "leafUuid": json.loads(last)["uuid"]}  # fmt: skip
    nxt = home / ".claude" / "projects" / REAL.parent.name / "0e0e0e0e.jsonl"
    nxt.write_text(json.dumps(summary) + "\n")
    assert _titles(home)[REAL.stem] == "Scaffold the TODO app"
