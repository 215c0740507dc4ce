"""`usage project` keeps the end of a long folder (the project's own name), as `list`
does: a path cut at its end showed only where it started, the same for every project
under one deep parent."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

DEEP = "/srv/" + "/".join(f"department-number-{n}" for n in range(6))


def _home(tmp_path: Path, *folders: str) -> Path:
    home = tmp_path / "home"
    for n, cwd in enumerate(folders):
        path = write_claude_session(
            home,
            f"c0b1ed00-0000-4000-8000-00000000000{n}",
            cwd,
            title=f"work {n}",
            when="2026-11-20T10:00:00.000Z",
        )
        # a response of its own: one the other file repeats is counted once
        text = path.read_text().replace("msg_1", f"msg_{n}").replace("req_1", f"r{n}")
        path.write_text(text)
    return home


def test_a_long_folder_keeps_its_project_name(tmp_path: Path) -> None:
    home = _home(tmp_path, f"{DEEP}/billing-service", f"{DEEP}/search-service")
    result = CliRunner().invoke(main, ["usage", "project", "--home", str(home)])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if "service" in line]
    assert len(rows) == 2
    assert "billing-service" in rows[0] + rows[1]
    assert "search-service" in rows[0] + rows[1]


def test_a_long_windows_folder_keeps_its_project_name(tmp_path: Path) -> None:
    deep = "C:\\Users\\alex\\" + "\\".join(f"deep-folder-{n}" for n in range(8))
    home = _home(tmp_path, f"{deep}\\winproj")
    result = CliRunner().invoke(main, ["usage", "project", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "\\winproj " in result.stdout
