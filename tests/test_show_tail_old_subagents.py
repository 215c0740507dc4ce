"""`show --tail N` of a Claude Code lead whose sub-agents (files of their own, merged in
by time) all ended before its last N entries reads the lead from its end alone, as a
lead without sub-agents is read: a 200 MB lead's `--tail 5` took 8.5 s as a whole read,
1.1 s so. Where one of them wrote since, it reads the session whole, its events among the
last N. Either way the lines are the whole `show`'s last ones."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sessdex import reading
from sessdex.cli import main
from tests.conftest import DATA
from tests.test_follow_history_every_app import _body, _last_entries

ROOT = DATA.parent.parent


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("corpus")
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "make_corpus.py"), str(out),
         "--real-bytes", "2", "--real-app", "claude", "--subagent-files",
         "--spawn-rate", "0.05", "--seed", "3"],
        check=True, capture_output=True,
    )  # fmt: skip
    return str(out / "home")


def _tail(
    home: str, count: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], int]:
    """The lead's `show --tail count` lines (the whole show's last ones asserted), and
    how many whole reads it made."""
    run = CliRunner()
    listed = json.loads(run.invoke(main, ["list", "--json", "--home", home]).stdout)
    (lead,) = [s["id"] for s in listed]
    whole = _body(run.invoke(main, ["show", lead, "--home", home]).stdout)
    reads = 0
    read_session = reading.read_session

    def counted(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        nonlocal reads
        reads += 1
        return read_session(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "read_session", counted)
    tailed = run.invoke(main, ["show", lead, "--tail", str(count), "--home", home])
    monkeypatch.undo()
    assert tailed.exit_code == 0, tailed.output
    lines = _body(tailed.stdout)
    assert lines == whole[len(whole) - _last_entries(home, lead, count) :]
    return lines, reads


def test_sub_agents_ended_before_the_last_entries_leave_the_lead_read_from_its_end(
    home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, reads = _tail(home, 3, monkeypatch)
    assert reads == 0


def test_a_sub_agent_written_among_the_last_entries_reads_the_session_whole(
    home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines, reads = _tail(home, 400, monkeypatch)
    assert reads == 1
    assert any("↳" in line for line in lines)  # a sub-agent's lines among them
