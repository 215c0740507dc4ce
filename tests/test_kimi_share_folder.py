"""kimi-cli 0.32 and 0.33 kept their sessions in `~/.local/share/kimi` (on every OS: the
literal `Path.home() / ".local" / "share" / "kimi"` of their `share.py`, no XDG variable
read); 0.34 moved to `~/.kimi` without taking them along, so no later kimi opens them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, kimi
from tests.test_kimi_flat import PROJECT, SESSION, listed, write_flat


def old_share(home: Path) -> Path:
    return write_flat(home / ".local" / "share" / "kimi")


def test_a_copied_home_lists_the_sessions_kimi_0_33_kept_in_local_share(
    tmp_path: Path,
) -> None:
    path = old_share(tmp_path)
    session = listed(Home.at(tmp_path))[SESSION]
    assert (session.path, session.cwd, session.title) == (
        str(path),
        PROJECT,
        "Add a basket total",
    )
    texts = [e.text for e in kimi.read(session, Diagnostics())]
    assert "Adding it." in texts


def test_kimi_share_dir_does_not_hide_the_old_folder(tmp_path: Path) -> None:
    old_share(tmp_path)
    home = Home(tmp_path, {"KIMI_SHARE_DIR": str(tmp_path / "elsewhere")})
    assert SESSION in listed(home)  # 0.33 read no variable: the folder is the home's


def test_resume_says_today_s_kimi_does_not_look_there(tmp_path: Path) -> None:
    old_share(tmp_path)
    result = CliRunner().invoke(
        main, ["resume", SESSION[:8], "--print", "--home", str(tmp_path)]
    )
    assert result.exit_code != 0
    assert "kimi --session" not in result.stdout
    assert "~/.local/share/kimi" in result.output


def test_a_share_dir_set_to_that_folder_still_resumes(tmp_path: Path) -> None:
    """Today's kimi told to keep its tree there (`KIMI_SHARE_DIR`) opens it there."""
    share = tmp_path / ".local" / "share" / "kimi"
    old_share(tmp_path)
    home = Home(tmp_path, {"KIMI_SHARE_DIR": str(share)})
    session = listed(home)[SESSION]
    plan = kimi.resume(session)
    assert plan is not None and plan.argv[:3] == ("kimi", "--session", SESSION)
    assert kimi.resume_refusal(session) is None
