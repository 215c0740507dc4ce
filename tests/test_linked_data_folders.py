"""Aider, Crush, Warp and Forge with their data folder linked elsewhere (a home moved
to another disk, a dotfiles manager's links): a link that resolves lists the same
sessions as the folder did, one that leads nowhere is named by `list` and `doctor`,
and one that loops is said so, never followed round."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
# each app's own folder in its fixture home (Crush's projects keep their `.crush` too)
FOLDERS = {
    "aider": ".aider",
    "crush": ".local/share/crush",
    "warp": ".local/state/warp-terminal",
    "forge": ".forge",
}
ALSO = {"crush": ("code/shop-api/.crush",)}


def _home(tmp_path: Path, app: str, name: str = "home") -> Path:
    home = tmp_path / name
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    return home


def _listed(home: Path, app: str) -> tuple[list[tuple[str, str]], str]:
    done = CliRunner().invoke(
        main, ["list", "--json", "--app", app, "--home", str(home)]
    )
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    return sorted(
        (row["title"] or "", row["created"] or "") for row in rows
    ), done.stderr


@pytest.mark.parametrize("app", sorted(FOLDERS))
def test_a_linked_data_folder_lists_the_same_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state-plain"))
    plain, _ = _listed(_home(tmp_path, app, "plain"), app)
    assert plain
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state-linked"))
    home = _home(tmp_path, app)
    for number, folder in enumerate((FOLDERS[app], *ALSO.get(app, ()))):
        moved = tmp_path / f"disk{number}"
        shutil.move(home / folder, moved)
        (home / folder).symlink_to(moved)
    for _ in ("cold", "warm"):
        linked, said = _listed(home, app)
        assert linked == plain
        assert "warning" not in said


@pytest.mark.parametrize("app", sorted(FOLDERS))
@pytest.mark.parametrize(
    ("target", "words"),
    [("/mnt/gone", "is a link to '/mnt/gone', which does not exist"), ("", "loops")],
)
def test_a_broken_or_looping_data_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, target: str, words: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state-plain"))
    plain, _ = _listed(_home(tmp_path, app, "plain"), app)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = _home(tmp_path, app)
    folder = home / FOLDERS[app]
    shutil.rmtree(folder)
    folder.symlink_to(target or folder.name)  # a loop: the link names itself
    said = f"{folder} {words}" if target else f"{folder} is a link that loops"
    if app == "aider":
        # its folder holds its caches alone: its chats, in the projects, are listed
        # still, and doctor names the link it passed over
        for _ in ("cold", "warm"):
            assert _listed(home, app)[0] == plain
        doctor = CliRunner().invoke(
            main, ["doctor", "--app", "aider", "--home", str(home)]
        )
        kind = "broken link" if target else "link that loops"
        assert f"passed over {kind} (1)" in doctor.output
        return
    for _ in ("cold", "warm"):
        listed, stderr = _listed(home, app)
        assert listed == []
        assert said in stderr
    doctor = CliRunner().invoke(main, ["doctor", "--app", app, "--home", str(home)])
    assert said in doctor.output


def test_a_crush_projects_data_folder_as_a_broken_link_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # projects.json names the project; its `.crush` leads nowhere: its sessions are
    # missing from the list, and -v and doctor said nothing of why
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = _home(tmp_path, "crush")
    data = home / "code" / "shop-api" / ".crush"
    shutil.rmtree(data)
    data.symlink_to("/mnt/gone")
    for _ in ("cold", "warm"):
        done = CliRunner().invoke(
            main, ["list", "-v", "--app", "crush", "--home", str(home)]
        )
        assert done.exit_code == 0, done.output
        assert f"crush: {data}:0: broken link" in done.stderr
    doctor = CliRunner().invoke(main, ["doctor", "--app", "crush", "--home", str(home)])
    assert "passed over broken link (1)" in doctor.output
