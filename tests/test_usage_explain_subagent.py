"""`usage session` lists each sub-agent under its lead, by id; `--explain` given that id
(or `list --all`'s) says whose row holds its responses, instead of "no session row is
keyed …" followed by ids that do not include it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "claude" / "home"
LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
SUBAGENT = "a199d630441234c05"


def test_explain_given_a_subagent_names_its_lead_row() -> None:
    runner = CliRunner()
    table = runner.invoke(main, ["usage", "session", "--home", str(HOME)])
    # the id the user sees: short, as the session rows' and tree's
    assert table.exit_code == 0 and f"└ {SUBAGENT[:8]}" in table.stdout
    for typed in (SUBAGENT, SUBAGENT[:6], f"claude:{SUBAGENT}"):
        result = runner.invoke(
            main, ["usage", "session", "--explain", typed, "--home", str(HOME)]
        )
        assert result.exit_code == 1
        assert result.stdout == ""
        assert f"'{typed}' is a sub-agent of {LEAD}" in result.stderr
        assert f"--explain {LEAD}" in result.stderr
    # and the lead's row, as it points to, explains
    result = runner.invoke(
        main, ["usage", "session", "--explain", LEAD, "--home", str(HOME)]
    )
    assert result.exit_code == 0 and SUBAGENT in result.stdout
