"""A --home that is an app's own folder, or a folder in it (`~/.claude`,
`~/.codex/sessions`, the copied `home/.claude`), not the home around it, is answered
with the line that reads the home."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import real_list, write_claude_session

ID = "c0b1ed00-0000-4000-8000-0000000000e1"
CODEX = Path(__file__).parent.parent / "src/sessdex/demo/home/.codex"


def _copied(tmp_path: Path) -> Path:
    home = tmp_path / "copied" / "home"
    write_claude_session(home, ID, "/w/a")
    return home


def test_list_given_the_apps_folder_names_the_home_around_it(tmp_path: Path) -> None:
    # it said "No agent sessions in the --home folder yet. 'sessdex demo' shows what
    # sessdex does" and pointed at doctor, which listed 34 apps not found
    home = _copied(tmp_path)
    result = CliRunner().invoke(main, ["list", "--home", str(home / ".claude")])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "Claude Code's folder" in result.stderr, result.stderr
    assert f"'sessdex list --home {home}' reads them" in result.stderr
    # what it names does list them
    right = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert ID[:8] in right.stdout


def test_a_folder_inside_the_apps_folder_names_the_home_too(tmp_path: Path) -> None:
    home = tmp_path / "copied"
    shutil.copytree(CODEX, home / ".codex")
    sessions = home / ".codex" / "sessions"
    result = CliRunner().invoke(main, ["find", "checkout", "--home", str(sessions)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "OpenAI Codex CLI's folder" in result.stderr, result.stderr
    assert f"'sessdex list --home {home}' reads them" in result.stderr


def test_watch_names_the_home_around_it_too(tmp_path: Path) -> None:
    home = _copied(tmp_path)
    result = CliRunner().invoke(
        main, ["watch", "--once", "--home", str(home / ".claude")]
    )
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"'sessdex watch --home {home}' reads them" in result.stderr


def test_a_plain_empty_home_is_not_sent_upwards(tmp_path: Path) -> None:
    # a home beside an app's folder, not in it, is no app's folder
    write_claude_session(tmp_path, ID, "/w/a")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["list", "--home", str(empty)])
    assert "No agent sessions in the --home folder yet." in result.stderr
    assert "reads them" not in result.stderr


def test_show_and_usage_name_the_home_around_it_too(tmp_path: Path) -> None:
    # show said "sessdex found no sessions at all, of any app: 'sessdex doctor …'",
    # usage "No token usage found in the --home folder"
    home = _copied(tmp_path)
    given = str(home / ".claude")
    shown = CliRunner().invoke(main, ["show", ID[:8], "--home", given])
    assert shown.exit_code == 1
    assert f"'sessdex list --home {home}' reads them" in shown.stderr, shown.stderr
    counted = CliRunner().invoke(main, ["usage", "--home", given])
    assert (counted.exit_code, counted.stdout) == (0, "")
    assert f"'sessdex usage --home {home}' reads them" in counted.stderr
    # a filter that emptied the report is still what is said
    since = CliRunner().invoke(main, ["usage", "--since", "1d", "--home", given])
    assert "No token usage matches --since 1d" in since.stderr


def test_a_warm_run_names_the_home_around_it_too(tmp_path: Path) -> None:
    # the quick path of a warm `usage` said "No token usage found in the --home folder"
    home = _copied(tmp_path)
    given = str(home / ".claude")
    for command in ("list", "usage"):
        for _ in range(2):  # the first run builds the index, the second reads it warm
            done = real_list(home, [command, "--home", given])
        assert done.stdout == ""
        assert f"'sessdex {command} --home {home}' reads them" in done.stderr


def test_a_folder_beside_an_app_in_a_shared_folder_is_not_sent_upwards(
    tmp_path: Path,
) -> None:
    # `~/.local/share/myproject` or `~/.config/foo` is in no app's folder: it was said to
    # be "part of Goose's folder" (or Cline's), its first folder `.local` (`.config`)
    # being the one those apps' folders are in
    home = tmp_path / "copied"
    shutil.copytree(CODEX, home / ".codex")
    goose = home / ".local" / "share" / "goose" / "sessions"
    goose.mkdir(parents=True)
    (goose / "sessions.db").write_bytes(b"")
    for beside in (".local/share/myproject", ".config/foo"):
        (home / beside).mkdir(parents=True, exist_ok=True)
        result = CliRunner().invoke(main, ["list", "--home", str(home / beside)])
        assert "reads them" not in result.stderr, (beside, result.stderr)
    # a folder on the way to the app's own is still part of it
    result = CliRunner().invoke(
        main, ["list", "--home", str(home / ".local/share/goose")]
    )
    assert f"'sessdex list --home {home}' reads them" in result.stderr, result.stderr


def test_a_projects_own_claude_folder_is_no_home_of_sessions(tmp_path: Path) -> None:
    # a project's `.claude/` holds its settings, not sessions: `list --home ~/code` was
    # sent to 'sessdex list --home ~/code/shop', and `--home shop/.claude` to `shop`,
    # each of which lists nothing
    shop = tmp_path / "code" / "shop"
    (shop / ".claude").mkdir(parents=True)
    (shop / ".claude" / "settings.json").write_text("{}")
    for given in (shop.parent, shop / ".claude"):
        for command in ("list", "usage"):
            result = CliRunner().invoke(main, [command, "--home", str(given)])
            assert "reads them" not in result.stderr, (given, result.stderr)


def test_a_home_of_sessions_without_tokens_is_sent_nowhere(tmp_path: Path) -> None:
    # `usage` of a home whose one session counted no token said "No agent sessions in
    # the --home folder yet; its folder 'backup' holds Claude Code's", beside a session
    # `list` shows
    home = tmp_path / "home"
    prompt = home / ".claude" / "projects" / "-w-a" / f"{ID}.jsonl"
    prompt.parent.mkdir(parents=True)
    prompt.write_text(
        '{"type":"user","sessionId":"' + ID + '","cwd":"/w/a","uuid":"u1",'
        '"timestamp":"2026-11-20T10:00:00.000Z",'
        '"message":{"role":"user","content":"hi"}}\n'
    )
    write_claude_session(
        home / "backup", "c0b1ed00-0000-4000-8000-0000000000e2", "/w/b"
    )
    assert ID[:8] in CliRunner().invoke(main, ["list", "--home", str(home)]).stdout
    counted = CliRunner().invoke(main, ["usage", "--home", str(home)])
    assert "reads them" not in counted.stderr, counted.stderr
    for _ in range(2):  # the warm path too
        done = real_list(home, ["usage", "--home", str(home)])
    assert "reads them" not in done.stderr, done.stderr
