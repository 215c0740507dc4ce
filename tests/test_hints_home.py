"""Messages that name a `sessdex` command carry the running command's --home (hints.py),
those about a line a shell cannot be given included, and the session it was given: the
`resume` a refused --print names said `sessdex resume --home DIR`, with no id, which
run as said fails with a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "5e550000-0000-4000-8000-000000000001"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_line_no_shell_can_take_names_resume_with_the_same_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\100%PATH%")
    code, out, err = invoke("resume", SESSION[:8], "--print", "--home", str(home))
    assert (code, out) == (1, ""), err
    said = " ".join(err.split())  # the error may be wrapped
    assert "cmd.exe would act on '%'" in said
    line = f"'sessdex resume {SESSION[:8]} --home {home}'"
    assert f"{line} without --print runs it itself" in said


def test_a_home_no_shell_can_take_is_named_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The --home itself is what cmd.exe cannot be given: the hint says so in words
    (naming it would need the line that cannot be written)."""
    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    home = tmp_path / "100%home%"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\100%PATH%")
    code, out, err = invoke("resume", SESSION[:8], "--print", "--home", str(home))
    assert (code, out) == (1, ""), err
    said = " ".join(err.split())
    assert "cmd.exe would act on '%'" in said
    assert (
        f"'sessdex resume {SESSION[:8]}' with the same --home without --print runs "
        "it itself" in said
    )


def test_a_line_no_shell_can_take_names_resume_with_the_id_in_json_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--json`'s warnings said 'sessdex resume --home DIR' without --print, a usage
    error, where the text said the same with the session's id."""
    import json

    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\100%PATH%")
    _code, out, err = invoke(
        "resume", SESSION[:8], "--print", "--json", "--home", str(home)
    )
    plan = json.loads(out)
    assert plan["command"] is None, err
    said = " ".join(" ".join(plan["warnings"]).split())
    line = f"'sessdex resume {SESSION[:8]} --home {home}'"
    assert f"{line} without --print runs it itself" in said
