"""A Continue fork (`cn --fork`) whose file is cut inside its running totals (`usage`,
last in the document: a copy taken while it was written): those totals were never read,
so every response it copied from its source was billed again (6,000 input tokens for
2,000). The totals read so far count: a count read whole is kept, one cut or not reached
is taken as 0, so no copy is billed twice (its own responses may then go uncounted)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main

CONTINUE = Path(__file__).parent / "data" / "continue" / "home"
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # 6 responses, the first 4 copies
# where the copy ends, after the first of these bytes in the totals: (mark, bytes of it
# kept); a fork's totals as cn writes them (JSON.stringify(session, null, 2))
CUTS = [
    (b'\n  "usage"', 10),
    (b'\n  "usage": {', 10),
    (b'\n  "usage": {', 13),
    (b'"totalCost": 0.0021', 16),
    (b'"promptTokens": 2000', 18),
    (b'"promptTokens": 2000,', 21),
    (b'"completionTokens": 50', 21),
    (b'"completionTokens": 50,', 23),
    (b'"cachedTokens": 0', 17),
]


def _rows(home: Path, state: Path) -> dict[str, tuple[int, int]]:
    argv = ["usage", "session", "--json", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    rows = orjson.loads(result.stdout)
    return {row["key"]: (row["input_tokens"], row["output_tokens"]) for row in rows}


@pytest.mark.parametrize(("mark", "kept"), CUTS)
def test_a_fork_cut_in_its_totals_bills_its_copies_once(
    tmp_path: Path, mark: bytes, kept: int
) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    whole = _rows(home, tmp_path / "whole")
    assert whole[FORK] == (2_000, 50)
    path = home / ".continue" / "sessions" / f"{FORK}.json"
    data = path.read_bytes()
    at = data.index(mark, data.index(b'\n  "usage"'))
    path.write_bytes(data[: at + kept])
    rows = _rows(home, tmp_path / "cut")
    fork = rows.get(FORK, (0, 0))
    assert fork[0] <= 2_000 and fork[1] <= 50  # 6,000 and 150: the copies again
    if kept == len(mark) and b"completionTokens" in mark:  # both counts read whole
        assert fork == (2_000, 50)
    assert {key: row for key, row in rows.items() if key != FORK} == {
        key: row for key, row in whole.items() if key != FORK
    }


PLAIN = "4f5fc9a5-a39f-4520-a3f4-893c822b4150"  # no fork: its totals are its responses'


def test_a_session_whose_prompt_total_is_damaged_bills_its_own_responses(
    tmp_path: Path,
) -> None:
    # a total that cannot be read (NaN: null) says nothing of copies: taken as 0, it
    # called every response of a session that is no fork a copy, and billed none
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    path = home / ".continue" / "sessions" / f"{PLAIN}.json"
    data = path.read_bytes()
    assert data.count(b'"promptTokens": 4000') == 1
    path.write_bytes(data.replace(b'"promptTokens": 4000', b'"promptTokens": NaN'))
    assert _rows(home, tmp_path / "s")[PLAIN] == (4_000, 100)


# cut before the totals' name is read: at the history's last item, after its close, at
# the comma before the totals
BEFORE = [(b"\n    {", -1, 0), (b"\n  ]", 0, 4), (b"\n  ],", 0, 5)]


@pytest.mark.parametrize(("mark", "nth", "kept"), BEFORE)
def test_a_fork_cut_before_its_totals_bills_its_copies_once(
    tmp_path: Path, mark: bytes, nth: int, kept: int
) -> None:
    # its source, beside it, holds the responses it copied, which that one bills
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    whole = _rows(home, tmp_path / "whole")
    path = home / ".continue" / "sessions" / f"{FORK}.json"
    data = path.read_bytes()
    at = [n for n in range(len(data)) if data.startswith(mark, n)][nth]
    path.write_bytes(data[: at + kept])
    rows = _rows(home, tmp_path / "cut")
    # 6,000 and 150: the copies again; the last response of its own cut off, or not
    assert rows[FORK] == ((1_000, 25) if kept == 0 else (2_000, 50))
    assert {key: row for key, row in rows.items() if key != FORK} == {
        key: row for key, row in whole.items() if key != FORK
    }
    assert rows[PLAIN] == (4_000, 100)


def test_a_source_cut_before_its_totals_bills_its_own_responses(tmp_path: Path) -> None:
    # its fork, made after it, opens with the same responses: copies of its, not its
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    path = home / ".continue" / "sessions" / f"{PLAIN}.json"
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b'\n  "usage"')])
    rows = _rows(home, tmp_path / "cut")
    assert rows[PLAIN] == (4_000, 100) and rows[FORK] == (2_000, 50)


@pytest.mark.parametrize("both", [False, True])
@pytest.mark.parametrize("unlisted", [PLAIN, FORK])
def test_a_source_cut_before_its_totals_bills_its_own_when_one_is_not_listed(
    tmp_path: Path, unlisted: str, both: bool
) -> None:
    # sessions.json without the source or without its fork (a copy of the folder taken
    # between their writes): the fork, whose totals say its first responses are copies,
    # was taken for the source of the responses it copied, and they went unbilled
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    sessions = home / ".continue" / "sessions"
    listed = orjson.loads((sessions / "sessions.json").read_bytes())
    kept = [entry for entry in listed if entry["sessionId"] != unlisted]
    (sessions / "sessions.json").write_bytes(orjson.dumps(kept))
    # `both`: the fork cut too; which came first is then when each was made, for the
    # one not listed when its file was last written (here after both were made)
    for session_id in (PLAIN, FORK) if both else (PLAIN,):
        path = sessions / f"{session_id}.json"
        data = path.read_bytes()
        path.write_bytes(data[: data.index(b'\n  "usage"')])
    rows = _rows(home, tmp_path / "cut")
    if both and unlisted == PLAIN:  # taken for the later: each response billed once
        billed = [rows.get(key, (0, 0)) for key in (PLAIN, FORK)]
        assert tuple(map(sum, zip(*billed, strict=True))) == (6_000, 150)
    else:
        assert rows[PLAIN] == (4_000, 100) and rows[FORK] == (2_000, 50)
