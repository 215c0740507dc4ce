"""A heavy user's review: notes on stderr at a terminal's width, names that match
between `tree --json` and `list --json`, and messages said as people say them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main, sessions
from sessdex.errors import BadValue

from .helpers import on_a_terminal

DEMO = str(api.demo_home().path)
MIXED = Path(__file__).parent / "data" / "usage" / "mixed"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_note_on_a_terminal_breaks_at_spaces_and_stays_one_line_in_a_pipe(
    tmp_path: Path,
) -> None:
    """`usage`'s unpriced-model note (the full command) and `find`'s hint (the quick
    listing) were one long line the terminal cut mid-word at its edge; a pipe keeps
    one line per note, for grep."""
    home = tmp_path / "mixed"
    shutil.copytree(MIXED, home)
    args = ["usage", "--app", "claude", "--home", str(home)]
    # no progress bar in what is read: a loaded machine may take a second to index
    quiet = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, seen = on_a_terminal(args, quiet, columns=60)
    assert result.returncode == 0
    note = seen[seen.index("note: ") :].replace("\r", "").splitlines()
    assert note == [
        "note: no price for: claude-imaginary-9; their rows say",
        "unpriced, never $0, and a cost with + leaves them out",
    ]
    assert run(*args)[2].splitlines()[-1] == " ".join(note)
    args = ["find", "chekout", "--home", DEMO]
    result, seen = on_a_terminal(args, quiet, columns=60)
    assert result.returncode == 0
    hint = seen.replace("\r", "").splitlines()
    # the prose broken at spaces, the line to paste kept whole, however wide it is
    pasted = f"'sessdex find checkout --home {DEMO}'"
    assert len(hint) > 1, hint
    assert all(len(line) <= 60 or pasted in line for line in hint), hint
    assert any(pasted in line for line in hint), hint
    assert hint[0].startswith("No session matches 'chekout'. Did you mean 'checkout'?")
    assert hint[-1].endswith("')"), hint


def test_tree_json_names_each_agents_app_as_list_json_does(tmp_path: Path) -> None:
    """`tree --json` and `--nl` had no `app`: a script joining them to `list --all
    --json` (which has it) by id could not tell two apps' ids apart."""
    home = tmp_path / "home"
    data = Path(__file__).parent / "data" / "claude" / "live-background-agent"
    shutil.copytree(data, home)
    code, out, _ = run("list", "--all", "--json", "--home", str(home))
    listed = {row["id"]: row["app"] for row in json.loads(out)}
    assert len(listed) == 2 and code == 0
    code, out, _ = run("tree", "856a", "--json", "--home", str(home))
    lead = json.loads(out)
    assert code == 0 and len(lead["children"]) == 1
    assert {lead["id"]: lead["app"]} | {
        child["id"]: child["app"] for child in lead["children"]
    } == listed
    code, out, _ = run("tree", "856a", "--nl", "--home", str(home))
    assert {
        row["id"]: row["app"] for row in map(json.loads, out.splitlines())
    } == listed


def test_tz_given_no_zone_says_what_it_takes() -> None:
    """`usage --tz` said only "Option '--tz' requires an argument."; a zone it does not
    know named UTC but not `local`, which it also takes."""
    code, out, err = run("usage", "--tz")
    assert (code, out) == (2, "")
    said = "Error: --tz needs a time zone, e.g. --tz Europe/Paris or --tz local."
    assert err.rstrip().endswith(said), err
    code, out, err = run("usage", "--tz", "Mars", "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith("such as Europe/Paris, UTC or local."), err
    assert run("usage", "--tz", "local", "--home", DEMO)[0] == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("list", "-n", "-1"), "-1 is not a count: give 0 or more."),
        (("show", "7f3a", "--tail", "-2"), "-2 is not a count: give 0 or more."),
        (("watch", "--duration", "-1"), "-1 is not a number of seconds: give 0 or more."),
        (("replay", "7f3a", "--max-gap", "-2"), "-2 is not a number of seconds: give 0 or more."),
        (("replay", "7f3a", "--speed", "0"), "0 is not a speed: give 0.01 or more."),
    ],
)  # fmt: skip
def test_a_count_or_number_out_of_range_is_refused_as_people_say_it(
    args: tuple[str, ...], said: str
) -> None:
    """click said "-1 is not in the range x>=0.": math notation, not what to type."""
    code, out, err = run(*args, "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(said), err


def test_resume_json_says_its_warnings_once_to_a_script_and_on_stderr_to_a_person(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`resume ID --json` wrote each warning and refusal twice into a script's log: in
    the object and on stderr. A person at a terminal still reads them as lines."""
    code, out, err = run("resume", "3f2b", "--json", "--home", DEMO)
    plan = json.loads(out)
    assert code == 0 and err == ""
    assert any("no longer exists" in refusal for refusal in plan["refusals"])
    assert any("not your own home" in warning for warning in plan["warnings"])
    monkeypatch.setattr(sessions, "stderr_is_terminal", lambda: True)
    code, again, err = run("resume", "3f2b", "--json", "--home", DEMO)
    assert (code, again) == (0, out)
    assert "warning: the session's folder /home/demo/code/shop-api no longer" in err
    assert "note: the session was read from" in err
    code, _, err = run("resume", "3f2b", "--print", "--home", DEMO)
    assert "no longer exists" in err  # --print's line holds none of them: said there


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--explain", "2026-11-31"), "'2026-11-31' is not a date: November 2026 has 30 days."),
        (("--explain", "2026-02-29"), "'2026-02-29' is not a date: February 2026 has 28 days."),
        (("weekly", "--explain", "2026-13-02"), "'2026-13-02' is not a date: a month is 01 to 12."),
        (("monthly", "--explain", "2026-00"), "'2026-00' is not a date: a month is 01 to 12."),
    ],
)  # fmt: skip
def test_usage_explain_of_a_day_no_calendar_has_says_it_is_no_date(
    args: tuple[str, ...], said: str
) -> None:
    """`usage --explain 2026-11-31` said "no daily row is keyed '2026-11-31'", as if
    that day had had no use: a typo is a usage error (2), said as one."""
    code, out, err = run("usage", *args, "--home", DEMO)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(f"Error: --explain {said}"), err
    with pytest.raises(BadValue, match="explain='2026-11-31' is not a date"):
        api.usage_report(api.demo_home(), explain="2026-11-31")
    code, _, err = run("usage", "--explain", "2026-11-30", "--home", DEMO)
    assert code == 0 and err.startswith("No token usage was counted on 2026-11-30")


def test_credits_are_a_number_in_tree_and_an_object_by_app_in_usage(
    tmp_path: Path,
) -> None:
    """Both shapes stay (scripts read them): an agent is one app's, so `tree --json` gives
    its credits as a number, in the unit of the `app` beside it; a usage row may sum
    several apps' (a day, a model), whose credits are different units, so `usage --json`
    keys them by app, a session's row too. They agree on the amount."""
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "amp" / "home", home)
    code, out, _ = run("tree", "test-thread-1", "--json", "--home", str(home))
    lead = json.loads(out)
    assert code == 0 and lead["usage"]["credits"] == 22.0
    code, out, _ = run("usage", "session", "--json", "--home", str(home))
    (row,) = [row for row in json.loads(out) if row["id"] == "test-thread-1"]
    assert code == 0 and row["credits"] == {lead["app"]: 22.0}
