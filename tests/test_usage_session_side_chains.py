"""A Claude Code 1.0 side chain (`isSidechain` lines in its lead's own file) is a
sub-agent of its `usage session` row with no index row of its own: its type and task were
null in `--json` and the table showed its whole id, where `tree` names it from the Task
call that spawned it. It is named as `tree` names it, under its short id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
PUBLIC = DATA / "usage" / "public"  # the public Claude Code 1.0 fixture
CLAUDE = DATA / "claude" / "home"  # 1.0.98's fe5e1c67


def _usage(home: Path, *args: str) -> str:
    command = ["usage", "session", "--app", "claude", "--home", str(home), *args]
    result = CliRunner().invoke(main, command, env={"COLUMNS": "130"})
    assert result.exit_code == 0, result.output
    return result.output


def _agents(home: Path, lead: str) -> dict[str, tuple[object, object, int]]:
    rows = json.loads(_usage(home, "--json"))
    [row] = [row for row in rows if row["key"] == lead]
    return {
        a["id"]: (a["agent_type"], a["title"], a["input_tokens"]) for a in row["agents"]
    }


@pytest.mark.parametrize("run", ["cold", "warm"])
def test_side_chains_are_named_as_tree_names_them(run: str) -> None:
    if run == "warm":  # the names kept from the run before
        _usage(PUBLIC, "--json")
    agents = _agents(PUBLIC, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")
    assert agents["6340ddef-f656-4b72-a065-82390f637678"] == (
        "general-purpose",
        "Check package configuration",
        18,
    )
    assert agents["83e2917c-8940-4df6-a5a5-f2514f0d08c5"] == (
        "general-purpose",
        "Analyze current project structure",
        47,
    )
    assert _agents(CLAUDE, "fe5e1c67-53e7-4862-81ae-d0e013e3270b")[
        "6690d10e-f521-4ac0-800d-e5eb7a2d8072"
    ] == ("general-purpose", "Build TODO components", 49)


def test_the_table_shows_a_side_chain_by_its_short_id_and_task() -> None:
    table = _usage(PUBLIC)
    assert "└ 6340ddef  general-purpose: Check package" in table
    assert "6340ddef-f656" not in table
    table = _usage(CLAUDE)
    assert "└ 6690d10e-f5  general-purpose: Build TODO" in table
    assert "6690d10e-f521-4ac0" not in table


def test_an_inline_kimi_code_sub_agent_is_named_as_tree_names_it() -> None:
    """Kimi Code's sub-agents are written in the lead's own session folder, with no row
    of their own either: `agent-0` was null as well."""
    home = DATA / "kimi" / "home"
    args = ["usage", "session", "--json", "--app", "kimi", "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.output)}
    agents = {
        a["id"]: a for a in rows["1bcbe023-4f7e-4971-9dc9-43b8756045b0"]["agents"]
    }
    assert (agents["agent-0"]["agent_type"], agents["agent-0"]["title"]) == (
        "explore",
        "Count Swift files in repo",
    )


def test_a_side_chains_long_task_is_a_title_as_a_listed_sub_agents(
    tmp_path: Path,
) -> None:
    """A Task whose description runs to lines and thousands of characters (hostile, or a
    prompt pasted there) names its side chain on one line of at most 200 characters, as
    every session's title is; `--json` gave it whole, and the index kept it whole."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(CLAUDE, home, symlinks=True)
    lead = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
    path = next(home.rglob(f"{lead}.jsonl"))
    long = "Build TODO components\\n\\n" + "and then more " * 500
    path.write_text(
        path.read_text().replace(
            '"description":"Build TODO components"', f'"description":"{long}"'
        )
    )
    kind, title, _ = _agents(home, lead)["6690d10e-f521-4ac0-800d-e5eb7a2d8072"]
    assert kind == "general-purpose"
    assert isinstance(title, str) and title.startswith("Build TODO components and then")
    assert "\n" not in title and len(title) <= 200


LEAD = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
SIDE_CHAIN = "6690d10e-f521-4ac0-800d-e5eb7a2d8072"
NAMED = ("general-purpose", "Build TODO components")


def _retitled_home(tmp_path: Path) -> tuple[Path, Path]:
    """1.0.98's lead without the summary it opens with, and the transcript 1.0 started
    next in its project, opening with that summary of it (its title while it is there):
    the home and that next transcript."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(CLAUDE, home, symlinks=True)
    lead = next(home.rglob(f"{LEAD}.jsonl"))
    lines = lead.read_text().splitlines(keepends=True)
    summary, lines = lines[0], lines[1:]
    assert '"type":"summary"' in summary
    lead.write_text("".join(lines))
    leaf = json.loads(lines[-1])["uuid"]
    after = lead.with_name("0b9c1a2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl")
    first = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "cwd": "/path/to/Demo",
        "sessionId": after.stem,
        "version": "1.0.98",
        "uuid": "5d6e7f80-9a0b-4c1d-8e2f-3a4b5c6d7e8f",
        "timestamp": "2025-09-04T09:00:00.000Z",
        "message": {"role": "user", "content": "go on"},
    }
    opening = {"type": "summary", "summary": "TODO app scaffold", "leafUuid": leaf}
    compact = {"separators": (",", ":")}  # as Claude Code writes its lines
    after.write_text(
        json.dumps(opening, **compact) + "\n" + json.dumps(first, **compact) + "\n"  # type: ignore[arg-type]
    )
    return home, after


def _session(home: Path, key: str) -> dict[str, object]:
    rows = json.loads(_usage(home, "--json"))
    [row] = [row for row in rows if row["key"] == key]
    return row  # type: ignore[no-any-return]


def test_a_side_chains_lead_retitled_by_another_transcript_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its names are kept by how the lead's own file looks: the transcript that titled
    it deleted (Claude Code's clean-up), its listing changes, and the names were read
    again from the whole lead, its file unchanged."""
    from sessdex import usage

    home, after = _retitled_home(tmp_path)
    assert _session(home, LEAD)["title"] == "TODO app scaffold"
    reads: list[str] = []
    named = usage._tree_names
    monkeypatch.setattr(
        usage, "_tree_names", lambda session: reads.append(session.id) or named(session)
    )
    after.unlink()
    row = _session(home, LEAD)
    assert row["title"] != "TODO app scaffold"  # its listing changed
    agents = {a["id"]: (a["agent_type"], a["title"]) for a in row["agents"]}  # type: ignore[attr-defined]
    assert agents[SIDE_CHAIN] == NAMED
    assert reads == []
    # its own file changed: read again
    lead = next(home.rglob(f"{LEAD}.jsonl"))
    lead.write_text(
        lead.read_text().replace("Build TODO components", "Build TODO widgets!!")
    )
    row = _session(home, LEAD)
    agents = {a["id"]: (a["agent_type"], a["title"]) for a in row["agents"]}  # type: ignore[attr-defined]
    assert agents[SIDE_CHAIN] == ("general-purpose", "Build TODO widgets!!")
    assert reads == [LEAD]


def test_the_names_of_a_deleted_lead_are_dropped_from_the_index(tmp_path: Path) -> None:
    import msgspec

    from sessdex.index import Index
    from sessdex.sources import Home

    home, _ = _retitled_home(tmp_path)

    def kept() -> object:
        index = Index(Home.at(home))
        try:
            stored = index.usage_meta("agents:claude")
        finally:
            index.close()
        return msgspec.msgpack.decode(stored) if stored else {}

    _usage(home, "--json")
    assert LEAD in kept()  # type: ignore[operator]
    next(home.rglob(f"{LEAD}.jsonl")).unlink()
    _usage(home, "--json")
    assert LEAD not in kept()  # type: ignore[operator]
