"""An empty `watch` board names a --since that reaches the newest session, not merely
the next rung up (which may still find nothing), or says there is none."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def _watch(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["watch", "--once", *args])
    return result.exit_code, result.stdout, result.stderr


def _suggested(err: str) -> str:
    found = re.search(r"--since (\S+) shows it.\n\Z", err)
    assert found, err
    return found[1]


def test_the_hint_names_a_since_that_shows_the_newest_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    when = datetime.now(UTC) - timedelta(days=5)
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c1", "/w/shop",
                         title="five days old", when=f"{when:%Y-%m-%dT%H:%M:%S}.000Z")  # fmt: skip
    for since in ("3h", "1d"):
        code, out, err = _watch("--since", since, "--home", str(home))
        assert code == 0 and out == ""
        assert err.startswith(f"No session changed in the last {since}; ")
        assert "the newest changed 5d ago" in err
        suggested = _suggested(err)
        # what it suggests does show the session
        code, out, err = _watch("--since", suggested, "--home", str(home))
        assert "five days old" in out and err == "", (suggested, out, err)


def test_a_session_years_old_gets_its_date(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c2", "/w/old",
                         title="from 2020", when="2020-03-04T10:00:00.000Z")  # fmt: skip
    code, out, err = _watch("--since", "1d", "--home", str(home))
    assert _suggested(err) == "2020-03-04"
    code, out, err = _watch("--since", "2020-03-04", "--home", str(home))
    assert code == 0 and "from 2020" in out


def test_no_session_of_the_app_watched_is_said_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c3", "/w/shop",
                         title="a claude one", when="2020-03-04T10:00:00.000Z")  # fmt: skip
    # the claude session indexed: the index is not empty, but holds no codex session
    assert CliRunner().invoke(main, ["list", "--home", str(home)]).exit_code == 0
    code, out, err = _watch("--app", "codex", "--since", "3h", "--home", str(home))
    assert code == 0 and out == ""
    assert err == (
        "No session of codex in the --home folder yet: each shows here as it starts; "
        f"'sessdex doctor --home {home}' shows where sessdex looked.\n"
    )


def test_each_hint_reads_as_a_sentence_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint stands alone on its line, as `list`'s does ("No agent sessions in the
    --home folder yet. …"): a capital first and a full stop last. It began lowercase, a
    fragment from mid-sentence, and stopped short of a full stop."""
    empty = tmp_path / "empty"
    empty.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c4", "/w/shop",
                         title="an old one", when="2020-03-04T10:00:00.000Z")  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    said = [
        _watch("--home", str(empty))[2],
        _watch("--since", "3h", "--home", str(home))[2],
        _watch("--app", "codex", "--home", str(home))[2],
    ]
    monkeypatch.chdir(elsewhere)
    said.append(_watch("--here", "--home", str(home))[2])
    assert said[0].startswith("No agent sessions in the --home folder yet: each shows")
    assert said[1].startswith("No session changed in the last 3h; the newest changed ")
    assert said[2].startswith("No session of codex in the --home folder yet: ")
    assert said[3].startswith(f"No session in {str(elsewhere)!r} or below it yet; ")
    for err in said:
        assert err.endswith(".\n") and err.count("\n") == 1, err


def test_an_app_with_no_session_is_said_so_not_that_there_is_none(
    tmp_path: Path,
) -> None:
    # `watch --app codex` on a home of Claude sessions alone said "No agent sessions in
    # the --home folder yet" before any `list` (the index held none), else "nor before:
    # there is no session to show", as of an empty home; `list --app codex` names the app
    home = tmp_path / "home"
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c5", "/w/shop")
    for _ in range(2):  # the index empty, then holding the claude session
        code, out, err = _watch("--app", "codex", "--since", "4w", "--home", str(home))
        assert (code, out) == (0, "")
        assert err.startswith("No session of codex in the --home folder yet: "), err
        CliRunner().invoke(main, ["list", "--home", str(home)])


def test_an_empty_here_names_a_watch_that_keeps_the_app_and_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it named 'sessdex watch --home …' alone: --app codex dropped, every app's board
    home, empty = tmp_path / "home", tmp_path / "empty"
    empty.mkdir()
    write_claude_session(home, "c0b1ed00-0000-4000-8000-0000000000c4", "/w/shop",
                         title="a claude one", when="2020-03-04T10:00:00.000Z")  # fmt: skip
    monkeypatch.chdir(empty)
    monkeypatch.delenv("PWD", raising=False)
    args = ("--here", "--app", "codex", "--since", "3h", "--home", str(home))
    code, out, err = _watch(*args)
    assert (code, out) == (0, "")
    assert f"'sessdex watch --app codex --since 3h --home {home}' shows" in err, err
    code, out, err = _watch("--here", "--home", str(home))
    assert f"'sessdex watch --home {home}' shows every folder's" in err, err
