"""`usage <report> --explain KEY` puts in rows only the buckets of the rows KEY may name,
and says, byte for byte, what it said when it put every row of the report together (the
whole-report pass is kept here as the oracle, as test_usage_explain_one_session does for
sessions)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import audit, usage
from sessdex.cli import main
from sessdex.sources import Home
from sessdex.views.text import short_path

DATA = Path(__file__).parent / "data"
PERIODS = ("daily", "weekly", "monthly")


def explained(home: Path, kind: str, key: str, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["usage", kind, "--home", str(home), "--explain", key, *more]
    )
    return result.exit_code, result.output


def asked(home: Path, kind: str) -> list[tuple[str, ...]]:
    """The keys to explain: each row (text and JSON), another spelling of it, in another
    zone and range, a key no row has."""
    rows = usage.run(Home.at(home), kind).rows
    keys = [row.key for row in rows][:6]
    out: list[tuple[str, ...]] = [(key, "--json") for key in keys]
    out += [(key,) for key in keys[:2]]
    if kind in PERIODS:
        out += [(key, "--tz", "America/Los_Angeles", "--json") for key in keys[:3]]
        out += [(key, "--since", "2026-11-20", "--json") for key in keys[-2:]]
        out += [("(no time)", "--json"), ("1999-01-01",)]
    elif kind == "model":
        raw = {
            b[2]
            for _, b in usage.collect(Home.at(home)).buckets
            if b[2] and usage.plain_name(b[2]) != b[2]
        }
        out += [(name, "--json") for name in sorted(raw)[:4]]  # an app's own spelling
        out += [("no-such-model",)]
    elif kind == "app":
        out += [(key.upper(), "--json") for key in keys[:3]] + [(" Codex ",), ("vim",)]
    elif kind == "project":
        out += [(key + "/", "--json") for key in keys[:2]]
        out += [(short_path(key, str(home)), "--json") for key in keys[:3]]
        out += [("~/code/none",), ("relative/path",)]
    return out


@pytest.mark.parametrize("which", ["mixed", "every-app", "realcli"])
def test_a_rows_explanation_is_what_the_whole_report_pass_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    from tests.conftest import merged_home

    if which == "every-app":
        home = merged_home(tmp_path / "home")
    else:
        home = tmp_path / which
        shutil.copytree(DATA / "usage" / which, home)
    (home / "code" / "shop").mkdir(
        parents=True
    )  # a folder under the home, as ~/code/shop
    kinds = [*PERIODS, "project", "model", "app"]
    questions = [(kind, *key) for kind in kinds for key in asked(home, kind)]
    now = {q: explained(home, *q) for q in questions}
    monkeypatch.setattr(audit, "_maybe_named", lambda *args: [])  # every row, as before
    before = {q: explained(home, *q) for q in questions}
    assert now == before
    found = [q for q, (code, _) in now.items() if code == 0]
    assert len(found) >= len(questions) // 2  # mostly explanations, not errors
    for q in found:  # what is compared is an explanation, with what it counted
        if q[-1] == "--json":
            said = orjson.loads(now[q][1])
            # a day the zone or range leaves empty says so, with nothing counted
            empty = "nothing to explain" in "".join(said["notes"])
            assert said["counted"] or q[1] == "(no time)" or empty
            assert not empty or (said["row"]["responses"], said["counted"]) == (0, [])


def test_explaining_a_day_weighs_only_that_days_sums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "mixed"
    shutil.copytree(DATA / "usage" / "mixed", home)
    days = [row.key for row in usage.run(Home.at(home), "daily").rows]
    assert len(days) >= 3
    added: list[str] = []  # the day of each bucket put into a row
    adding = usage.Row.add

    def counting(self: usage.Row, app: str, bucket: usage.Bucket) -> None:
        added.append(self.key)
        adding(self, app, bucket)

    monkeypatch.setattr(usage.Row, "add", counting)
    code, output = explained(home, "daily", days[1], "--json")
    assert code == 0 and orjson.loads(output)["row"]["key"] == days[1]
    assert set(added) <= {days[1], "more", "total"}  # no other day's row made


def test_a_report_made_to_explain_still_gives_every_row_when_asked(
    tmp_path: Path,
) -> None:
    """`api.usage_report(..., explain=KEY).rows` is the whole report, as without `explain`:
    made when first asked for, not before the audit."""
    from sessdex import api

    home = tmp_path / "mixed"
    shutil.copytree(DATA / "usage" / "mixed", home)
    for kind in ("daily", "session", "model"):
        plain = api.usage_report(Home.at(home), kind)
        first = plain.rows[-1].key
        result = api.usage_report(Home.at(home), kind, explain=first)
        assert result.explained is not None and result.explained.row.key == first
        assert [r.record() for r in result.rows] == [r.record() for r in plain.rows]
        assert result.total.record() == plain.total.record()


def test_a_sessions_explained_row_names_its_title_and_folder_as_json_does(
    tmp_path: Path,
) -> None:
    """`usage session --explain ID --json` gives `row` as `usage session --json` gives it:
    with the session's title and folder (they were left out, though docs/usage.md says
    the row is the one --json prints)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "usage" / "realcli", home)
    listed = CliRunner().invoke(
        main, ["usage", "session", "--home", str(home), "--json"]
    )
    row = orjson.loads(listed.output)[0]
    assert row["title"] and row["cwd"]
    code, out = explained(home, "session", row["key"], "--json")
    assert code == 0, out
    assert orjson.loads(out)["row"] == row
