"""`usage session`: a session's own share, the "lead" row under it, is not drawn as a
child; its sub-agents' rows are (`└`). Every row under a session began with `└`, the
lead's too, which read as one more sub-agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "claude" / "home")


@pytest.mark.parametrize("columns", ["200", "60"])
def test_the_lead_row_is_no_child_of_its_session(columns: str) -> None:
    done = CliRunner(env={"COLUMNS": columns}).invoke(
        main, ["usage", "session", "--app", "claude", "--home", HOME]
    )
    assert done.exit_code == 0, done.output
    rows = [line.split("│")[1].strip() for line in done.stdout.splitlines() if line.startswith("│")]  # fmt: skip
    keys = [
        key for key in rows if key
    ]  # a session's second model has a line of its own
    review = keys.index(next(k for k in keys if "Review the payment" in k))
    lead, *children = keys[review + 1 : review + 4]
    assert lead == "lead"
    assert [child[:12] for child in children] == ["└ a1c1c1c1c1", "└ a2d2d2d2d2"]
    assert not any(key.startswith("└ lead") for key in keys)
