"""`usage session --explain ID` weighs only that session's sums, and says what it said
when it weighed every session's (the whole-home pass is kept here as the oracle)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import audit, usage
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.index import Index
from sessdex.sources import Home, Source
from tests.helpers import write_claude_session

DATA = Path(__file__).parent / "data"


def _whole_in_row(self: audit._Reader, app: str, bucket: usage.Bucket) -> bool:
    """`_Reader.in_row` as it was: every bucket taken through the filters and dated."""
    top = self.lifted.get((app, bucket[0]))
    if top is not None:
        bucket = [top, *bucket[1:]]
    kept = usage.keep([(app, bucket)], self.filters)
    if not kept:
        return False
    bucket = kept[0][1]
    days = usage._local_days([bucket[4]], self.filters.tz)
    return usage._key_for(self.kind, app, bucket, days).rpartition("\0")[2] == self.key


def _whole_sessions(self: audit._Reader, source: Source) -> bool:
    """`_Reader.sessions` as it was: every session of the app decoded first."""
    index = Index(self.home)
    try:
        session_rows = index.rows(
            apps=[source.NAME], include_subagents=True, with_state=True
        )
    finally:
        index.close()
    decoded = [(r, r.session()) for r in session_rows]
    tops = usage._tops(decoded, {(r.app, r.id) for r in session_rows})
    kin = usage._descendant_states(decoded, tops)
    fed = False
    for row, session in decoded:
        if (row.app, row.id) in tops:
            continue
        if self.kind == "session" and session.id != self.key:
            continue
        path = session.path or row.id
        descendants = kin.get((row.app, row.id), [])
        for record in usage.lead_records(source, session, descendants, Diagnostics()):
            if self.record_in_row(source.NAME, record):
                fed = True
                at = (record.time or 0, str(path), record.line, next(self.order))
                counted = audit._counted(self.catalogue, source.NAME, str(path), record)
                self.tally.count(at, counted)
    return fed


def explained(home: Path, key: str, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        ["usage", "session", "--home", str(home), "--explain", key, "--json", *more],
    )
    return result.exit_code, result.output


def whole_home_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every session's rows reported and every stored bucket weighed, as before."""
    monkeypatch.setattr(audit, "_maybe_named", lambda *args: [])
    monkeypatch.setattr(audit._Reader, "in_row", _whole_in_row)
    monkeypatch.setattr(audit._Reader, "sessions", _whole_sessions)


def realcli_with_a_grandchild(tmp_path: Path) -> Path:
    """A Codex sub-agent's own sub-agent: its buckets are lifted to the lead session."""
    home = tmp_path / "realcli"
    shutil.copytree(DATA / "usage" / "realcli", home)
    [day] = home.rglob("30")
    lead = "01a22b81-666a-7993-963b-4b7cc4e806e9"
    child = "01a22b81-66cf-74d0-99b4-ed78fda80cf9"
    grandchild = "01a22b81-7777-74d0-99b4-ed78fda80cf9"
    [spawned] = day.glob(f"rollout-*-{child}.jsonl")
    lines = spawned.read_text().replace(child, grandchild).splitlines()
    lines[0] = lines[0].replace(
        f'"parent_thread_id":"{lead}"', f'"parent_thread_id":"{child}"'
    )
    (day / f"rollout-2026-11-30T08-10-31-{grandchild}.jsonl").write_text(
        "\n".join(lines) + "\n"
    )
    return home


@pytest.mark.parametrize("which", ["mixed", "every-app", "realcli"])
def test_a_sessions_explanation_is_what_the_whole_home_pass_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    from tests.conftest import merged_home

    if which == "mixed":
        home = tmp_path / "mixed"
        shutil.copytree(DATA / "usage" / "mixed", home)
    elif which == "every-app":
        home = merged_home(tmp_path / "home")
    else:
        home = realcli_with_a_grandchild(tmp_path)
    keys = [row.key for row in usage.run(Home.at(home), "session").rows]
    assert len(keys) >= 3
    # each row whole, a short id, an app's own prefix, an ambiguous and an unknown key
    asked = [*keys, keys[0][:8], f"codex:{keys[-1][:6]}", "0", "ffffffff-none"]
    asked += [f"{key}\t--since\t2026-11-20" for key in keys[:3]]
    now = {key: explained(home, *key.split("\t")) for key in asked}
    whole_home_pass(monkeypatch)
    before = {key: explained(home, *key.split("\t")) for key in asked}
    assert now == before
    assert sum(code == 0 for code, _ in now.values()) >= len(keys)
    for key in keys:  # what is compared is an explanation, with what it counted
        assert orjson.loads(now[key][1])["row"]["key"] == key


def test_explaining_one_session_weighs_only_its_own_sums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    ids = [f"{n:08x}-0000-4000-8000-{n:012x}" for n in range(40)]
    for n, session_id in enumerate(ids):
        path = write_claude_session(home, session_id, f"/work/p{n % 5}", title=f"s{n}")
        # each its own response (one id in every file: one response, counted once)
        path.write_text(path.read_text().replace("msg_1", f"msg_{n}"))
    code, output = explained(home, ids[7])  # the index and the sums, as a warm run
    assert code == 0
    own = len(orjson.loads(output)["counted"])
    assert own >= 1
    weighed: list[str] = []  # the session of each bucket the audit weighed
    reported: list[str] = []  # ... and of each the report put in a row
    in_audit, in_report = audit._key_for, usage._key_for

    def weighing(kind: str, app: str, bucket: usage.Bucket, days: object) -> str:
        weighed.append(bucket[0])
        return in_audit(kind, app, bucket, days)  # type: ignore[arg-type]

    def reporting(kind: str, app: str, bucket: usage.Bucket, days: object) -> str:
        reported.append(bucket[0])
        return in_report(kind, app, bucket, days)  # type: ignore[arg-type]

    monkeypatch.setattr(audit, "_key_for", weighing)
    monkeypatch.setattr(usage, "_key_for", reporting)
    usage.run(Home.at(home), "session")  # the whole report puts every session in rows
    assert len({session for session in reported if session != ids[7]}) == 39
    reported.clear()
    assert explained(home, ids[7]) == (code, output)
    assert set(weighed) == {ids[7]}  # no other session's sums weighed again
    # ... nor put in rows: the report of every row is not made to explain one
    assert set(reported) <= {ids[7]}
