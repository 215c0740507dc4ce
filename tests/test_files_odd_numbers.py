"""A number JSON cannot hold, as Python's json.dumps writes one (NaN, Infinity) or as
no float holds (1e999, 400 digits), is read as null where it stands: the document or
line around it was refused whole. A Continue fork whose running totals held one billed
every response it copied from its source a second time."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main

CONTINUE = Path(__file__).parent / "data" / "continue" / "home"
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # a fork: its first responses are copies


@pytest.mark.parametrize("number", [b"NaN", b"-Infinity", b"1e999", b"-" + b"9" * 401])
def test_a_fork_whose_totals_hold_an_odd_number_bills_its_copies_once(
    tmp_path: Path, number: bytes
) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    path = home / ".continue" / "sessions" / f"{FORK}.json"
    data = path.read_bytes()
    assert data.count(b'"cacheWriteTokens": 0') >= 1
    at = data.rindex(b'"cacheWriteTokens": 0')  # in the running totals, last
    path.write_bytes(data[:at] + b'"cacheWriteTokens": ' + number + data[at + 21 :])
    argv = ["usage", "session", "--json", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(tmp_path / "s")})
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in orjson.loads(result.stdout)}
    assert rows[FORK]["input_tokens"] == 2000  # 6,000: its copies billed again


def test_an_odd_number_in_a_string_is_left_as_it_is() -> None:
    line = b'{"text": "NaN Infinity 1e999", "n": NaN, "m": 1e100}'
    assert files.loads(line) == {"text": "NaN Infinity 1e999", "n": None, "m": 1e100}


def test_a_torn_line_of_quoted_json_and_a_nan_is_refused_at_once() -> None:
    # a crash cut the line inside a tool's output that quotes JSON: each escaped quote
    # after the cut string's opening began a fresh scan to the line's end (100 KB: 27 s)
    line = b'{"n": NaN, "out": "' + b'{\\"key\\": \\"v\\"} ' * 6000
    started = time.perf_counter()
    with pytest.raises(orjson.JSONDecodeError):
        files.loads(line)
    assert time.perf_counter() - started < 2.0
    # the same line whole still reads, its NaN as null and its text as written
    whole = files.loads(line + b'"}')
    assert isinstance(whole, dict) and whole["n"] is None
    assert whole["out"].count('{"key": "v"} ') == 6000
