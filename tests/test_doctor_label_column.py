"""`doctor`'s labelled lines start their values in one column: the versions an app was
checked with started one column right of the folder it looked in."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home


def test_doctor_starts_every_labelled_value_in_one_column() -> None:
    home = app_home("claude")
    result = CliRunner().invoke(
        main, ["doctor", "--app", "claude", "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stdout.splitlines() if x.startswith("  ")]
    looked = next(x for x in lines if x.startswith("  looked in "))
    checked = next(x for x in lines if "Claude Code 1.0.98" in x)
    versions = next(x for x in lines if x.startswith("  versions "))
    columns = {
        looked.index(str(home)[:10]),
        checked.index("Claude Code"),
        len(versions) - len(versions[2:].split(" ", 1)[1].lstrip()),
    }
    assert columns == {14}, lines
