"""`doctor --own` reads no app: an `--app` or `--deep` given with it is refused, as
other options that cannot apply are, not silently dropped (exit 0 read as "checked")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main


def test_own_with_an_unknown_app_says_so_as_without_own(tmp_path: Path) -> None:
    home = str(tmp_path)
    alone = CliRunner().invoke(main, ["doctor", "--app", "codx", "--home", home])
    own = CliRunner().invoke(main, ["doctor", "--own", "--app", "codx", "--home", home])
    assert (own.exit_code, alone.exit_code) == (2, 2)
    assert "unknown app 'codx' (did you mean 'codex'?)" in own.output


@pytest.mark.parametrize(
    ("given", "said"), [(["--deep"], "--deep"), (["--app", "codex"], "--app")]
)
def test_own_refuses_what_reads_the_apps(
    given: list[str], said: str, tmp_path: Path
) -> None:
    home = str(tmp_path)
    result = CliRunner().invoke(main, ["doctor", "--own", *given, "--home", home])
    assert result.exit_code == 2, result.output
    assert f"--own reads no app, so {said} does not apply" in result.output
    assert f"sessdex doctor {' '.join(given)} --home {home}" in result.output
