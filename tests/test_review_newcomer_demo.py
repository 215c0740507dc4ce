"""What a newcomer met walking the docs on the demo home: a word `usage` does not take, an
`--explain` of a day with nothing in it, `--app` with no name, a bad SESSDEX_SHELL, and
the branch a session was on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from unittest.mock import patch

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main, sessions

from .helpers import write_claude_session

DEMO = str(api.demo_home().path)


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)
    return result.exit_code, result.stdout, result.stderr


def test_a_word_usage_does_not_take_says_the_reports_and_where_an_app_goes() -> None:
    """`sessdex usage hourly` gave click's "'hourly' is not one of 'daily', …", and
    `sessdex usage claude` the same, where `doctor claude` points at `--app claude`."""
    from sessdex.cli.usage import REPORTS
    from sessdex.usage import REPORTS as KNOWN

    assert REPORTS == KNOWN
    reports = (
        "daily, weekly, monthly, session, project, model or app (daily when left out)"
    )
    code, out, err = invoke("usage", "hourly", "--home", DEMO)
    assert (code, out) == (2, "")
    assert f"'hourly' is no usage report; the reports are {reports}." in err
    code, out, err = invoke("usage", "Claude", "--home", DEMO)
    assert (code, out) == (2, "")
    line = f"'sessdex usage --app claude --home {DEMO}' keeps to that app."
    assert f"'Claude' is an app, not a report: {line}" in err
    assert reports in err
    code, out, err = invoke("usage", "session", "codex", "--home", DEMO)
    assert (code, out) == (2, "")
    assert (
        f"'sessdex usage session --app codex --home {DEMO}' keeps to that app." in err
    )
    code, out, _ = invoke("usage", "model", "--home", DEMO)  # a report is still one
    assert code == 0 and "gpt-5.1-codex" in out


def test_app_given_no_name_lists_the_names_it_takes_on_every_command() -> None:
    """`sessdex list --app` gave click's bare "Option '--app' requires an argument.", and
    `sessdex list --app --json` took `--json` for an app's name."""
    from sessdex import sources

    known = f"Known apps: {', '.join(sorted(sources.names()))}."
    takes_app = sorted(
        name
        for name, command in main.commands.items()
        if any("--app" in param.opts for param in command.params)
    )
    assert takes_app == ["doctor", "find", "list", "usage", "watch"]
    for name in takes_app:
        words = ["checkout"] if name == "find" else []
        for given in (["--app"], ["--app", "--json"]):
            code, out, err = invoke(name, *words, "--home", DEMO, *given)
            assert (code, out) == (2, ""), (name, given)
            assert "'--app': give an app's name after it. " + known in err, (name, err)
    code, out, _ = invoke("list", "--app", "codex", "--app", "CLAUDE", "--home", DEMO)
    assert code == 0 and len(out.splitlines()) == 3


def test_resume_says_a_branch_switch_in_one_wording_printed_or_run(
    tmp_path: Path,
) -> None:
    """`resume --print` warned "the session was on branch 'fix'; the folder is on branch
    'main' now.", `resume` itself "… but FOLDER is on branch 'main' now. sessdex never
    switches branches.": one thing said two ways. The second, which names the folder."""
    folder = tmp_path / "project"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    home = tmp_path / "home"
    write_claude_session(home, "7e7e7e7e-0000-4000-8000-000000000001", str(folder), branch="fix")  # fmt: skip
    said = (
        f"the session was on branch 'fix' but {folder} is on branch 'main' now. "
        "sessdex never switches branches."
    )
    claude = tmp_path / "bin" / "claude"  # what resume would run: never reached here
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    path = {"PATH": f"{claude.parent}{os.pathsep}{os.environ['PATH']}"}
    for extra in (["--print"], ["--json"], []):
        # --json says it on stderr where a person reads it, a terminal (a script's log
        # has it once, in the object)
        with patch.object(sessions, "stderr_is_terminal", lambda: True):
            code, _, err = invoke("resume", "7e7e", *extra, "--home", str(home), env=path)  # fmt: skip
        assert code == (1 if not extra else 0), (extra, err)
        assert said in err, (extra, err)


def test_an_unknown_sessdex_shell_is_an_error_of_the_environment_on_every_path(
    tmp_path: Path,
) -> None:
    """SESSDEX_SHELL=tcsh exited 2, a usage error, where the command line was right: the
    README's 2 is for what was typed. A bad environment value is an error sessdex
    explains (1, as a home it cannot find), on each path that writes a command line: the
    printed resume line, an export's header."""
    tcsh = {"SESSDEX_SHELL": "tcsh"}
    said = "Error: SESSDEX_SHELL is 'tcsh'; set it to sh (or dash, posix), bash"
    spaced = str(tmp_path / "demo home")  # a --home named back needs quoting
    shutil.copytree(DEMO, spaced)
    for args in (
        ["resume", "019a", "--print", "--home", DEMO],
        ["export", "019a", "--home", DEMO],
        ["export", "019a", "-o", str(tmp_path / "out.md"), "--home", DEMO],
    ):
        code, out, err = invoke(*args, env=tcsh)
        assert (code, out) == (1, ""), (args, err)
        assert said in err, (args, err)
    assert not (tmp_path / "out.md").exists()
    # --json's plan needs no shell: the object, its command null, the setting warned of
    code, out, err = invoke("resume", "019a", "--json", "--home", DEMO, env=tcsh)
    assert code == 0 and json.loads(out)["command"] is None, err
    assert "SESSDEX_SHELL is 'tcsh'" in err
    code, out, _ = invoke("list", "--home", DEMO, env=tcsh)  # nothing to write for it
    assert code == 0 and len(out.splitlines()) == 3
    from sessdex.errors import BadSetting, BadValue, SessdexError

    assert issubclass(BadSetting, SessdexError) and not issubclass(BadSetting, BadValue)


def test_an_unknown_sessdex_shell_does_not_fail_a_listing_for_its_hint(
    tmp_path: Path,
) -> None:
    """With SESSDEX_SHELL=tcsh, a `find` or `list` that matched nothing exited 1 only
    because its hint line names a command (quoted for the user's shell, for a `--home`
    or an `--app`). The listing is what was asked: it exits 0, its hint names the
    command without the words that need quoting, and says why."""
    tcsh = {"SESSDEX_SHELL": "tcsh"}
    spaced = str(tmp_path / "demo home")  # a --home named back needs quoting
    shutil.copytree(DEMO, spaced)
    empty = tmp_path / "empty home"
    empty.mkdir()
    why = "(SESSDEX_SHELL names a shell sessdex does not know)"
    code, out, err = invoke(
        "find", "no-such-word", "--app", "codex", "--home", spaced, env=tcsh
    )
    assert (code, out) == (0, ""), err
    assert "No session matches 'no-such-word'" in err
    assert f"'sessdex list' with the same --home {why} shows recent sessions." in err
    code, out, err = invoke("list", "--app", "codex", "--since", "2099-01-01", env=tcsh)
    assert code == 0 and "Error" not in err, err
    for args in (["list"], ["find", "anything"]):
        code, out, err = invoke(*args, "--home", str(empty), env=tcsh)
        assert (code, out) == (0, ""), (args, err)
        assert f"'sessdex doctor' with the same --home {why}" in err, args
    code, out, err = invoke(
        "list", "--since", "2099-01-01", "--app", "codex", "--home", spaced, env=tcsh
    )
    assert code == 0 and "No session matches --app codex --since 2099-01-01" in err
    # an error stays an error, its hint without the command line
    code, _, err = invoke("show", "ffff", "--home", spaced, env=tcsh)
    assert code == 1 and f"Run 'sessdex list' with the same --home {why}" in err


def test_explain_of_a_day_with_nothing_in_it_says_so_and_is_no_error() -> None:
    """`sessdex usage --explain 2026-11-20` on the demo home exited 1 ("no daily row is
    keyed"), where a report with no rows exits 0: a day, week or month with nothing in it
    is an empty result, said plainly. A key no such report could have stays an error."""
    import orjson

    code, out, err = invoke("usage", "--explain", "2026-11-20", "--home", DEMO)
    assert (code, out) == (0, "")
    assert err == (
        "No token usage was counted on 2026-11-20: nothing to explain. "
        "Rows: 2026-11-26, 2026-11-28, 2026-11-29.\n"
    )
    code, out, err = invoke("usage", "weekly", "--explain", "2026-11-16", "--app", "codex", "--home", DEMO)  # fmt: skip
    assert (code, out) == (0, "")
    assert "in the week of 2026-11-16 with these filters: nothing" in err
    code, out, _ = invoke("usage", "monthly", "--explain", "2026-10", "--json", "--home", DEMO)  # fmt: skip
    assert code == 0
    said = orjson.loads(out)
    assert said["row"]["key"] == "2026-10" and said["row"]["responses"] == 0
    assert said["counted"] == said["dropped"] == []
    assert said["notes"][0].startswith("no token usage was counted in 2026-10:")
    for kind, key in (
        ("weekly", "x"),  # a day that is no Monday is its week's (below)
        ("daily", "x"),
    ):
        code, out, err = invoke("usage", kind, "--explain", key, "--home", DEMO)
        assert (code, out) == (1, ""), (kind, key)
        assert f"no {kind} row is keyed {key!r}" in err
    code, out, err = invoke("usage", "--explain", "2026-13-01", "--home", DEMO)
    assert (code, out) == (2, "") and "'2026-13-01' is not a date" in err


def _ci_copy(tmp_path: Path, failing: str | None) -> Path:
    """.ci/run and scripts/check beside stand-ins: a .venv whose pip, ruff and mypy note
    each call (`failing` exits 1), and a scripts/test that notes it ran."""
    root = Path(__file__).parent.parent
    copy = tmp_path / "repo"
    for name in (".ci/run", "scripts/check"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, copy / name)
    (copy / "scripts" / "test").write_text('echo "test $*" >> ran\n')
    bin_ = copy / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for tool in ("python", "ruff", "mypy"):
        fail = f'[ "$1" = {failing} ] && exit 1\n' if failing else ""
        (bin_ / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> ran\n{fail}exit 0\n')
        (bin_ / tool).chmod(0o755)
    return copy


def test_ci_runs_the_checks_first_and_stops_where_one_fails(tmp_path: Path) -> None:
    """`.ci/run` ran `scripts/test` alone: a file left unformatted, a lint finding or a
    type error passed CI (scripts/check, which runs them, was run by hand). Now CI runs
    scripts/check: the dev extra installed, the three checks, then the tests; a check
    that fails ends the run before the tests."""
    copy = _ci_copy(tmp_path, None)
    done = subprocess.run(["bash", ".ci/run"], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ran = (copy / "ran").read_text().splitlines()
    assert [line.split()[:2] for line in ran] == [
        ["python", "-m"],  # pip install -e '.[dev]'
        ["ruff", "format"],
        ["ruff", "check"],
        ["mypy", "--strict"],
        ["test", "-q"],
    ]
    assert "-e .[dev]" in ran[0]
    for failing in ("format", "check", "--strict"):
        copy = _ci_copy(tmp_path / failing, failing)
        done = subprocess.run(["bash", ".ci/run"], cwd=copy, capture_output=True)
        assert done.returncode == 1, failing
        assert not any(
            line.startswith("test") for line in (copy / "ran").read_text().splitlines()
        )
    # the releases CI checks with are the dev extra's, not whatever PyPI has newest
    import tomllib

    project = tomllib.loads(
        (Path(__file__).parent.parent / "pyproject.toml").read_text()
    )
    pins = [d for d in project["project"]["optional-dependencies"]["dev"] if d.startswith(("ruff", "mypy"))]  # fmt: skip
    assert len(pins) == 2 and all("==" in pin for pin in pins), pins


def test_a_weeks_day_that_is_no_monday_explains_its_week() -> None:
    """`usage weekly --explain 2026-11-25` said only "no weekly row is keyed" (then
    named the Monday, exit 1); a week is keyed by its Monday, and the day's week is
    the row meant: it is explained, with a note saying which
    (tests/test_usage_explain_week_of_day.py)."""
    code, out, _ = invoke("usage", "weekly", "--explain", "2026-11-25", "--home", DEMO)
    assert code == 0 and out.startswith("row 2026-11-23: 7 responses")
    assert "note: 2026-11-25 is in the week of Monday 2026-11-23" in out


def test_demo_given_a_home_says_it_reads_its_own_and_how_to_read_that_one(
    tmp_path: Path,
) -> None:
    """`sessdex demo --home X` answered click's "No such option '--home'. Did you mean
    '--help'?". It is a usage error still (demo reads only the home shipped with it),
    but one that says so, how to list X, and how to point another command at the demo
    home."""
    folder = tmp_path / "my home"
    folder.mkdir()
    for given in (str(folder), str(tmp_path / "not there")):
        code, out, err = invoke("demo", "--home", given)
        assert (code, out) == (2, ""), err
        assert "No such option" not in err
        assert "demo reads the demo home shipped with sessdex, not a --home" in err
        assert f"'sessdex list --home {given}'" not in err  # quoted for the shell
        assert f"\"sessdex list --home '{given}'\"" in err
        assert f"'sessdex list --home {DEMO}'" in err
    code, out, _ = invoke("demo")
    assert code == 0 and "$ sessdex list --home" in out
