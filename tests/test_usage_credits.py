"""Credits, the billing unit some apps write into their sessions, as a usage figure.

Each app's fixture home: `sessdex usage --json` gives its credits per app, the table a
credits column named after the app; two apps' credits in one row stay apart (two units,
never one number); sums an older sessdex stored without credits are counted again.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import msgspec
import orjson
import pytest
from click.testing import CliRunner

from sessdex import usage
from sessdex.cli import main
from sessdex.index import index_file
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"

# what each app's fixtures bill, in its own credits, as the files say (checked by hand)
BILLED = {
    "amp": 22.0,  # usageLedger events: 5 + 3 + 8 + 6
    "codebuff": 49.5,  # two answers: 42 + 7.5
    "warp": 12.5,  # one conversation's credits_spent: once, not per message
    "kiroide": 0.79,  # a turn's usage_summary (0.37) + an older execution's usageSummary (0.42)
    "auggie": 2.0,  # one exchange's billing_metadata.credits_consumed
    "qoder": 2.5,  # five responses' usage.credits of 0.5
}


def home_of(tmp_path: Path, *apps: str) -> Path:
    home = tmp_path / "home"
    for app in apps:
        shutil.copytree(DATA / app / "home", home, dirs_exist_ok=True)
    return home


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["usage", *args, "--home", str(home)], env={"COLUMNS": "220"}
    )
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("app", sorted(BILLED))
def test_each_apps_credits_are_what_usage_shows(tmp_path: Path, app: str) -> None:
    home = home_of(tmp_path, app)
    (row,) = orjson.loads(run(home, "app", "--json", "--app", app))
    assert row["credits"] == {app: BILLED[app]}
    table = run(home, "app", "--app", app)
    assert f"Credits ({app})" in table  # the column names whose unit it is
    total = next(line for line in table.splitlines() if "Total" in line)
    assert f"{BILLED[app]:g}" in total
    # every report has the figure
    for kind in usage.REPORTS:
        rows = orjson.loads(run(home, kind, "--json", "--app", app))
        assert sum(r["credits"].get(app, 0) for r in rows) == pytest.approx(BILLED[app])


def test_no_credits_no_column_and_json_says_none(tmp_path: Path) -> None:
    home = home_of(tmp_path, "kiro")  # the Kiro CLI's sessions: tokens, no credits
    rows = orjson.loads(run(home, "app", "--json"))
    assert rows and all(row["credits"] == {} for row in rows)
    assert "Credits" not in run(home, "app")


def test_two_apps_credits_in_one_row_are_never_added_together(tmp_path: Path) -> None:
    # Codebuff's answers (2026-12-01) and Kiro's turn (2026-12-05): one week
    home = home_of(tmp_path, "codebuff", "kiroide")
    # the older store's execution logs go: their credits are dated by the chat file's
    # last write, which is whenever the fixtures were copied
    for logs in home.rglob("414d1636299d2b9e4ce7e17fb11f63e9"):
        shutil.rmtree(logs)
    (week,) = orjson.loads(run(home, "weekly", "--json", "--since", "2026-11-30"))
    assert week["key"] == "2026-11-30"
    assert week["credits"] == {"codebuff": 49.5, "kiroide": 0.37}
    table = run(home, "weekly", "--since", "2026-11-30")
    # each app's on a line of its own, in the row
    week_lines = [line for line in table.splitlines() if "codebuff" in line or "kiroide" in line]  # fmt: skip
    assert "2026-11-30" in week_lines[0] and "49.5 codebuff" in week_lines[0]
    assert "0.37 kiroide" in week_lines[1]
    assert "49.87" not in table  # no sum of two units
    assert "Credits (" not in table  # the column is no one app's
    # billed in credits alone: no token to price, so no cost, never $0
    assert week["cost_usd"] is None and "$0.00" not in table
    assert "in credits" in table
    result = usage.run(Home.at(home), "weekly")
    assert result.total.record()["credits"] == {"codebuff": 49.5, "kiroide": 0.37}


def test_explain_says_a_rows_credits_and_each_responses(tmp_path: Path) -> None:
    home = home_of(tmp_path, "codebuff")
    said = run(home, "app", "--explain", "codebuff")
    assert "credits 49.5 codebuff" in said.splitlines()[0]
    assert sum("credits 42" in line or "credits 7.5" in line for line in said.splitlines()) == 2  # fmt: skip
    audit = orjson.loads(run(home, "app", "--explain", "codebuff", "--json"))
    assert audit["row"]["credits"] == {"codebuff": 49.5}
    assert sorted(c["credits"] for c in audit["counted"]) == [7.5, 42]


def test_show_and_tree_give_the_credits_with_the_tokens(tmp_path: Path) -> None:
    home = home_of(tmp_path, "amp")
    thread = "amp:test-thread-1"
    shown = CliRunner().invoke(main, ["show", thread, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    document = orjson.loads(shown.output)
    events = document["events"] if isinstance(document, dict) else document
    billed = [e["usage"]["credits"] for e in events if e["kind"] == "usage"]
    assert billed == [3, 5, 8, 6]  # title generation first, as Amp billed it
    full = CliRunner().invoke(
        main, ["show", thread, "--detail", "full", "--home", str(home)]
    )
    assert "credits 8" in full.output
    tree = CliRunner().invoke(main, ["tree", thread, "--home", str(home)])
    assert tree.exit_code == 0, tree.output
    assert "22 credits" in tree.output


def test_sums_stored_before_credits_are_counted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index an older sessdex filled: its stored sums have no credits, and its version
    says so; the next run reads the files again and counts them."""
    home = home_of(tmp_path, "qoder", "amp")  # a file hook's sums and a session's
    now = usage._version
    monkeypatch.setattr(usage, "_version", lambda c: now(c).replace("+credits", ""))
    usage.run(Home.at(home), "app")
    db = sqlite3.connect(index_file(Home.at(home)))
    stored = db.execute("SELECT path, buckets FROM usage_files").fetchall()
    assert stored
    for path, blob in stored:  # as the older sessdex stored them: no credits slot
        old = [bucket[:14] for bucket in msgspec.msgpack.decode(blob)]
        db.execute(
            "UPDATE usage_files SET buckets = ? WHERE path = ?",
            (msgspec.msgpack.encode(old), path),
        )
    db.commit()
    db.close()
    stale = {
        row.key: row.credits_by_app for row in usage.run(Home.at(home), "app").rows
    }
    assert stale == {"amp": {}, "qoder": {}}  # the old sums, read as they are
    monkeypatch.setattr(usage, "_version", now)  # this sessdex
    rows = {row.key: row.credits_by_app for row in usage.run(Home.at(home), "app").rows}
    assert rows == {"amp": {"amp": 22.0}, "qoder": {"qoder": 2.5}}


def test_odd_credits_count_as_none_and_break_nothing(tmp_path: Path) -> None:
    threads = tmp_path / "home" / ".local" / "share" / "amp" / "threads"
    threads.mkdir(parents=True)
    odd: list[object] = ["many", -3, 1e300, True, None, {"n": 1}, 2.5]
    ledger = [
        {"model": "claude-sonnet-4-5", "credits": value, "tokens": {"input": 10, "output": 1},
         "timestamp": "2026-12-01T10:00:00Z", "toMessageId": 0}
        for value in odd
    ]  # fmt: skip
    thread = {"id": "T-odd", "created": 1764583200000, "usageLedger": {"events": ledger},
              "messages": [{"role": "user", "messageId": 0, "content": [{"type": "text", "text": "hi"}]}]}  # fmt: skip
    (threads / "T-odd.json").write_bytes(orjson.dumps(thread))
    (row,) = orjson.loads(run(tmp_path / "home", "app", "--json"))
    assert row["responses"] == len(odd)
    assert row["credits"] == {"amp": 2.5}  # only the plain amount counts
