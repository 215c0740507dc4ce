"""`usage session` lists each sub-agent under its lead, by id; `--explain` given that id
(or `list --all`'s, or `tree`'s) explains that sub-agent's own responses and names its
lead's row, instead of "no session row is keyed …" followed by ids that do not include it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "claude" / "home"
LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
SUBAGENT = "a199d630441234c05"
INLINE_LEAD = (
    "fe5e1c67-53e7-4862-81ae-d0e013e3270b"  # Claude Code 1.0.98: side chains inline
)
INLINE = "6690d10e-f521-4ac0-800d-e5eb7a2d8072"  # the side chain `tree` shows


def explain(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["usage", "session", "--explain", *args, "--home", str(HOME)]
    )
    return result.exit_code, result.stdout, result.stderr


def test_explain_given_a_subagent_explains_its_own_responses() -> None:
    table = CliRunner().invoke(main, ["usage", "session", "--home", str(HOME)])
    # the id the user sees: short, as the session rows' and tree's
    assert table.exit_code == 0 and f"└ {SUBAGENT[:8]}" in table.stdout
    for typed in (SUBAGENT, SUBAGENT[:6], f"claude:{SUBAGENT}"):
        code, out, err = explain(typed)
        assert code == 0, err
        assert out.startswith(f"row {SUBAGENT}: 2 responses, input 2,400, output 60")
        counted = [line for line in out.splitlines() if line.startswith("  claude ")]
        assert len(counted) == 2
        assert all(f"agent-{SUBAGENT}.jsonl" in line for line in counted)
        assert f"{SUBAGENT} is a sub-agent of {LEAD}" in out
        assert f"--explain {LEAD}" in out
    # the lead's row, as it points to, explains the whole session, the sub-agent in it
    code, out, _ = explain(LEAD)
    assert code == 0 and out.startswith(f"row {LEAD}: 4 responses") and SUBAGENT in out


def test_explain_given_an_inline_side_chain_explains_its_responses_as_tree_splits() -> (
    None
):
    tree = CliRunner().invoke(
        main, ["tree", INLINE_LEAD, "--json", "--home", str(HOME)]
    )
    (child,) = [c for c in json.loads(tree.stdout)["children"] if c["id"] == INLINE]
    code, out, err = explain(INLINE[:8], "--json")
    assert code == 0, err
    explained = json.loads(out)
    row = explained["row"]
    assert row["key"] == INLINE
    for name in ("input_tokens", "output_tokens", "cache_read_tokens"):
        assert row[name] == child["usage"][name]
    assert {c["agent_id"] for c in explained["counted"]} == {INLINE}
    assert any(INLINE_LEAD in note for note in explained["notes"])


def test_explain_given_a_subagent_whose_id_another_has_in_upper_case(
    tmp_path: Path,
) -> None:
    # a copy beside it with its id in upper case: the id typed whole, as spelt, explains
    # its own sub-agent's row; it said the id "matches 2 sessions; type more of the id"
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    (own,) = home.rglob(f"agent-{SUBAGENT}.jsonl")
    upper = SUBAGENT.upper()
    own.with_name(f"agent-{upper}.jsonl").write_text(
        own.read_text().replace(SUBAGENT, upper)
    )
    for typed in (SUBAGENT, upper):
        result = CliRunner().invoke(
            main, ["usage", "session", "--explain", typed, "--home", str(home)]
        )
        assert result.exit_code == 0, result.stderr
        # (the copy's responses repeat its own: counted once, in one of the two)
        assert result.stdout.startswith(f"row {typed}: ")


def test_the_lead_a_note_names_is_as_the_shell_takes_it(tmp_path: Path) -> None:
    """ "a1c1… is a sub-agent of LEAD" named a lead id a file gave bare: one holding
    `$(…)`, copied from the note, ran it. It is quoted as the command after it is."""
    import re
    import subprocess

    hostile = "3333 $(touch pwned)x"
    kept = Path(__file__).parent / "data/claude/home/.claude/projects/-home-dev-shop"
    folder = tmp_path / "home/.claude/projects/-home-dev-shop"
    shutil.copytree(kept, folder)
    lead = "33333333-3333-4333-8333-333333333333"
    for path in folder.rglob("*.json*"):
        path.write_text(path.read_text().replace(lead, hostile))
    (folder / f"{lead}.jsonl").rename(folder / f"{hostile}.jsonl")
    (folder / lead).rename(folder / hostile)
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main,
        ["usage", "session", "--explain", "a1c1", "--home", str(tmp_path / "home")],
    )
    assert result.exit_code == 0, result.output
    found = re.search(r"is a sub-agent of (.+?): its own responses", result.stdout)
    assert found, result.stdout
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pasted = subprocess.run(
        ["bash", "-c", f"printf %s {found[1]}"],
        cwd=scratch,
        capture_output=True,
        text=True,
        check=True,
    )
    assert pasted.stdout == hostile, found[1]
    assert list(scratch.iterdir()) == [], found[1]
