"""An app's whole folder as a broken link (`~/.claude -> gone`, `~/.codex -> /mnt/gone`,
or a folder above it, `~/.vibe` for `~/.vibe/logs/session`) is named, with where it
leads, by `list`'s warning and empty line and by `doctor`. Before, the app looked not
installed: "No agent sessions in the --home folder yet", the link said nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    ("folder", "target"),
    [(".claude", "gone"), (".codex", "/mnt/gone"), (".vibe", "gone")],
)
def test_an_apps_folder_that_is_a_broken_link_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, target: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    home.mkdir()
    (home / folder).symlink_to(target)
    said = f"{home / folder} is a link to {target!r}, which does not exist"

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warning, empty = listed.stderr.strip().splitlines()
        assert said in warning
        assert said in empty
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert said in doctor.output


def test_an_absent_app_folder_says_nothing_of_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    home.mkdir()
    listed = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert listed.stderr.startswith("No agent sessions")


def test_a_shared_folder_that_is_a_broken_link_is_named_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.config or ~/.local/share linked to a disk not mounted holds the folders of a
    dozen apps: the link is named once, not once for each of them (16 warnings, each
    list, before)."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / ".local").mkdir(parents=True)
    (home / ".local" / "share").symlink_to("/mnt/gone")
    (home / ".config").symlink_to("/mnt/gone2")

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warnings = [x for x in listed.stderr.splitlines() if x.startswith("warning")]
        assert len(warnings) == 2, listed.stderr
        for link in (".local/share", ".config"):
            assert sum(f"{home / link} is a link" in x for x in warnings) == 1


def test_a_shared_folders_broken_link_is_worded_for_the_apps_it_hides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/.config holds the folders of several apps: its one warning names them all, the
    folder first, not as the first app's alone ('claude: ~/.config is a link ...: its
    sessions are not listed', before), in list's warning and in doctor alike."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    home.mkdir()
    (home / ".config").symlink_to("/mnt/gone")
    said = f"{home / '.config'} is a link to '/mnt/gone', which does not exist: the sessions of "

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warning = listed.stderr.splitlines()[0]
        assert warning.startswith(f"warning: {said}"), warning
        assert all(app in warning for app in ("claude", "cline", "roo", "codebuff"))
        assert warning.endswith(" are not listed")
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert said in doctor.output
    assert "its sessions are not listed" not in doctor.output
