"""`sessdex usage`: hand-checked totals, each app's de-duplication rules, prices, --explain, --tz.

The fixture home tests/data/usage/mixed holds (see its PROVENANCE.md):
- Claude session A: response msg_A1 over three lines (output 5, 80, 80) whose last line falls
  just after midnight UTC; msg_A2; a `<synthetic>` line; msg_A3 on a model no catalogue
  prices; a side-chain line replaying msg_A2 under a new request id.
- Claude session B, resumed: a copy of A's msg_A2, then its own msg_B1.
- Codex parent P (a count written twice), its fork F (replays P's lines in its first second)
  and its sub-agent S (replays P's lines before `subagent_history_start_ordinal`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex import usage
from sessdex.cli import main
from sessdex.sources import Home

from .helpers import on_a_terminal

DATA = Path(__file__).parent / "data"
MIXED = DATA / "usage" / "mixed"
CLAUDE_PUBLIC = DATA / "claude" / "home" / ".claude" / "projects" / "-path-to-Demo"


@pytest.fixture
def mixed(tmp_path: Path) -> Home:
    target = tmp_path / "mixed"
    shutil.copytree(MIXED, target)
    return Home.at(target)


def rows(
    home: Home, kind: str, apps: tuple[str, ...], **filters: object
) -> dict[str, dict[str, object]]:
    result = usage.run(home, kind, apps=apps, filters=usage.Filters(**filters))  # type: ignore[arg-type]
    return {row.key: row.record() for row in result.rows}


def tokens(record: dict[str, object]) -> tuple[object, ...]:
    return tuple(
        record[name]
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_write_tokens",
            "cache_read_tokens",
            "reasoning_tokens",
        )
    )


# --- Claude ------------------------------------------------------------------------------


def test_claude_counts_each_response_once_with_its_largest_copy_on_real_files() -> None:
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import _claude_usage

    # public files written by Claude Code 1.0.98: the copies' output_tokens were 3, 172, 172
    # and 1, 1, 1, 598 (fe5e1c67), and 8 then 322 (1af7fc5e); first-wins would count 3, 1 and 8
    found = {}
    for name in (
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
        "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
    ):
        scan = _claude_usage.usage_records(
            CLAUDE_PUBLIC / f"{name}.jsonl", Diagnostics()
        )
        found.update(
            {r.key.split(":")[0]: r.usage.output_tokens for r in scan.records if r.key}
        )
    assert found["msg_0175yHhPUPFGbabUiDkdjvaD"] == 172
    assert found["msg_01PrGGvEvreqPUaqe4qRsCgA"] == 598
    assert found["msg_01TqDZoU6FcpxB4u2AmpgWfZ"] == 322


def test_files_are_matched_for_repeated_responses_without_holding_every_key(
    tmp_path: Path,
) -> None:
    """Finding the responses one file repeats from another holds a number per response,
    not each key as a string: the keys of a home of big transcripts fit in memory."""
    import tracemalloc

    from sessdex import sources
    from sessdex.pricing import Catalogue

    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    count = 20_000

    def line(session: str, n: int) -> bytes:
        message = {
            "id": f"msg_{n:024}",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 1000 + n, "output_tokens": 10},
        }
        return orjson.dumps({"type": "assistant", "timestamp": "2026-11-20T10:00:00Z",
                             "sessionId": session, "requestId": f"req_{n:024}",
                             "message": message}) + b"\n"  # fmt: skip

    a = "aaaaaaaa-0000-4000-8000-0000000000f1"
    b = "aaaaaaaa-0000-4000-8000-0000000000f2"
    (folder / f"{a}.jsonl").write_bytes(b"".join(line(a, n) for n in range(count)))
    (folder / f"{b}.jsonl").write_bytes(
        b"".join(line(b, n) for n in range(count, 2 * count))
    )
    home = Home.at(tmp_path / "home")
    [day] = usage.report(usage.collect(home, ["claude"]).buckets, "daily")
    assert day.responses == 2 * count
    assert day.input_tokens == sum(range(1000, 1000 + 2 * count))
    catalogue = Catalogue.load()
    keys = {
        path: usage._scan(usage._Job("claude", path, "")).keys
        for path in map(str, sorted(folder.glob("*.jsonl")))
    }
    tracemalloc.start()
    try:
        found = usage._cross_file(sources.get("claude"), keys, catalogue)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == []  # nothing repeated: no file is read again
    assert peak < 200 * 2 * count  # keys held as strings cost 500 bytes or more each


def test_files_that_share_a_few_responses_are_settled_holding_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resumed session copies a few responses of a big one: both are read again to settle
    the copies, holding those, not a record per response of either file."""
    import tracemalloc

    from sessdex import sources
    from sessdex.pricing import Catalogue
    from sessdex.sources import _usage_scan

    monkeypatch.setattr(
        _usage_scan, "CHUNK", 256 * 1024
    )  # the file is not what is held

    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    count = 20_000

    def line(session: str, n: int, output: int = 10) -> bytes:
        message = {
            "id": f"msg_{n:024}",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 1000 + n, "output_tokens": output},
        }
        return orjson.dumps({"type": "assistant", "timestamp": "2026-11-20T10:00:00Z",
                             "sessionId": session, "requestId": f"req_{n:024}",
                             "message": message}) + b"\n"  # fmt: skip

    a = "aaaaaaaa-0000-4000-8000-0000000000f5"
    b = "aaaaaaaa-0000-4000-8000-0000000000f6"
    (folder / f"{a}.jsonl").write_bytes(b"".join(line(a, n) for n in range(count)))
    copied = range(
        0, count, 2000
    )  # ten of a's responses, the copies with a larger count
    (folder / f"{b}.jsonl").write_bytes(
        b"".join(line(b, n, output=30) for n in copied)
        + b"".join(line(b, n) for n in range(count, 2 * count))
    )
    home = Home.at(tmp_path / "home")
    [day] = usage.report(usage.collect(home, ["claude"]).buckets, "daily")
    assert day.responses == 2 * count  # each copied response once
    assert day.output_tokens == 10 * 2 * count + 20 * len(copied)  # b's larger copies
    catalogue = Catalogue.load()
    keys = {
        path: usage._scan(usage._Job("claude", path, "")).keys
        for path in map(str, sorted(folder.glob("*.jsonl")))
    }
    tracemalloc.start()
    try:
        found = usage._cross_file(sources.get("claude"), keys, catalogue)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(bucket[11] for bucket in found) == -len(copied)  # a's ten copies lose
    assert peak < 200 * 2 * count  # a record of every response read costs 470 bytes


def test_a_claude_transcript_keeps_one_copy_of_its_session_folder_and_model(
    tmp_path: Path,
) -> None:
    """Every line repeats them: a record per response shares them, so a big transcript
    costs what its responses' own ids and counts need."""
    import tracemalloc

    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import _claude_usage

    session = "aaaaaaaa-0000-4000-8000-0000000000f3"
    count = 20_000
    lines = (
        orjson.dumps({"type": "assistant", "timestamp": "2026-11-20T10:00:00Z",
                      "sessionId": session, "cwd": "/home/dev/code/shop-api",
                      "requestId": f"req_{n:024}",
                      "message": {"id": f"msg_{n:024}", "model": "claude-sonnet-4-5",
                                  "usage": {"input_tokens": 1000 + n}}}) + b"\n"
        for n in range(count)
    )  # fmt: skip
    path = tmp_path / f"{session}.jsonl"
    path.write_bytes(b"".join(lines))
    tracemalloc.start()
    try:
        scan = _claude_usage.usage_records(path, Diagnostics())
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(scan.records) == count
    assert {(r.session_id, r.cwd, r.usage.model) for r in scan.records} == {
        (session, "/home/dev/code/shop-api", "claude-sonnet-4-5")
    }
    assert held < 580 * count  # with a copy of the three each: about 690 bytes


def _claude_response(
    n: int,
    *,
    output: int,
    day: int = 20,
    request: str | None = None,
    sidechain: bool = False,
) -> bytes:
    """One line of response `n` in session f4 (a streamed response writes several)."""
    return orjson.dumps({"type": "assistant", "isSidechain": sidechain,
                         "timestamp": f"2026-11-{day}T{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}Z",
                         "sessionId": "aaaaaaaa-0000-4000-8000-0000000000f4",
                         "cwd": "/home/dev/shop", "requestId": request or f"req_{n:024}",
                         "message": {"id": f"msg_{n:024}", "model": "claude-sonnet-4-5",
                                     "usage": {"input_tokens": 1000 + n, "output_tokens": output,
                                               "cache_read_input_tokens": 7 * n}}}) + b"\n"  # fmt: skip


def _claude_home(tmp_path: Path, lines: Iterable[bytes]) -> Home:
    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    with open(folder / "aaaaaaaa-0000-4000-8000-0000000000f4.jsonl", "wb") as out:
        out.writelines(lines)
    return Home.at(tmp_path / "home")


def test_a_claude_transcript_is_counted_without_holding_a_record_per_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Responses far enough back that no copy of them is still to come are folded into their
    day's sums as the file is read: a huge transcript holds a key per response, no record."""
    import tracemalloc

    from sessdex.pricing import Catalogue
    from sessdex.sources import _usage_scan

    monkeypatch.setattr(
        _usage_scan, "CHUNK", 256 * 1024
    )  # the file is not what is held
    count = 30_000
    home = _claude_home(
        tmp_path,
        (
            _claude_response(n, output=1) + _claude_response(n, output=10 + n % 7)
            for n in range(count)
        ),  # each response streamed: a first copy with a partial count
    )
    Catalogue.load()  # loaded once per process, whatever the file
    # what a first count imports (the source, the index's modules), imported before the
    # count is traced: run alone, the file's test counted them (12.5 MB, the bound 9)
    usage.collect(
        _claude_home(tmp_path / "warm", [_claude_response(0, output=1)]), ["claude"]
    )
    tracemalloc.start()
    try:
        collected = usage.collect(home, ["claude"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [day] = usage.report(collected.buckets, "daily")
    assert (day.key, day.responses) == ("2026-11-20", count)
    assert day.input_tokens == sum(range(1000, 1000 + count))
    assert day.output_tokens == sum(10 + n % 7 for n in range(count))
    assert peak < 300 * count  # a record listed per response costs over 470 bytes


@pytest.mark.parametrize("late", ["copy", "side chain"])
def test_a_response_repeated_long_after_it_was_summed_counts_as_a_whole_read_counts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, late: str
) -> None:
    """A copy of an old response (dated a day later, with the final count) or a side chain
    replaying it under a new request id, read after that response was folded into the sums:
    the response still counts once, with the copy's tokens and date."""
    from sessdex.sources import _claude_usage

    monkeypatch.setattr(_claude_usage, "WINDOW", 16)
    count = 100
    lines = [_claude_response(n, output=10) for n in range(count)]
    if late == "copy":
        lines.append(_claude_response(3, output=500, day=21))
    else:
        lines.append(_claude_response(3, output=500, request="req_btw", sidechain=True))
    daily = {
        row.key: (row.responses, row.output_tokens)
        for row in usage.report(
            usage.collect(_claude_home(tmp_path, lines), ["claude"]).buckets, "daily"
        )
    }
    if late == "copy":
        assert daily == {
            "2026-11-20": (count - 1, 10 * (count - 1)),
            "2026-11-21": (1, 500),
        }
    else:
        assert daily == {
            "2026-11-20": (count, 10 * count)
        }  # the lead agent's copy wins


def _priced(line: bytes, cost: object) -> bytes:
    """A response line as Claude Code before 1.0.9 wrote it: with its own `costUSD`."""
    return orjson.dumps({**orjson.loads(line), "costUSD": cost}) + b"\n"


def test_a_price_claude_code_wrote_on_its_lines_is_the_cost_usage_shows(
    tmp_path: Path,
) -> None:
    """ccusage's default: Claude Code's own `costUSD` where a line has one (the largest
    copy's), the catalogue's price where it is null or zero."""

    def cost(lines: list[bytes], name: str, responses: int) -> float:
        folder = tmp_path / name
        folder.mkdir()
        result = usage.report(
            usage.collect(_claude_home(folder, lines), ["claude"]).buckets, "daily"
        )
        [day] = [row.record() for row in result]
        assert day["responses"] == responses
        return float(day["cost_usd"])  # type: ignore[arg-type]

    streamed = [_priced(_claude_response(1, output=2), 0.001),
                _priced(_claude_response(1, output=400), 0.25)]  # fmt: skip
    others = [_priced(_claude_response(2, output=30), None),
              _priced(_claude_response(3, output=30), 0)]  # fmt: skip
    listed_price = cost([_claude_response(1, output=400)], "first-priced", 1)
    assert listed_price != pytest.approx(0.25)
    unpriced = cost([_claude_response(n, output=30) for n in (2, 3)], "unpriced", 2)
    recorded = cost([*streamed, *others], "recorded", 3)
    assert recorded == pytest.approx(0.25 + unpriced, abs=2e-6)  # rounded to 6 places


def test_a_recorded_price_is_updated_when_the_rest_of_its_response_is_appended(
    tmp_path: Path,
) -> None:
    home = _claude_home(tmp_path, [_priced(_claude_response(1, output=2), 0.001)])
    [path] = (tmp_path / "home" / ".claude" / "projects").glob("*/*.jsonl")

    def daily() -> tuple[object, ...]:
        [day] = usage.report(usage.collect(home, ["claude"]).buckets, "daily")
        return day.responses, day.output_tokens, day.record()["cost_usd"]

    assert daily() == (1, 2, 0.001)
    with open(
        path, "ab"
    ) as out:  # the response's last copy, read from where usage stopped
        out.write(_priced(_claude_response(1, output=400), 0.25))
    assert daily() == (1, 400, 0.25)


def test_claude_daily_totals_are_the_hand_checked_ones(mixed: Home) -> None:
    daily = rows(mixed, "daily", ("claude",))
    assert list(daily) == ["2026-11-21", "2026-11-22"]
    # msg_A1 (10, 80 of 5/80/80, 100, 1000) dated by its last line, just after midnight;
    # msg_A2 (20, 40, 0, 2000) once: not B's copy, not the side chain's replay;
    # msg_A3 (7, 3) unpriced; the synthetic line bills nothing
    assert tokens(daily["2026-11-21"]) == (37, 123, 100, 3000, 0)
    assert daily["2026-11-21"]["responses"] == 3
    assert tokens(daily["2026-11-22"]) == (30, 60, 0, 0, 0)  # msg_B1 only


def test_an_unpriced_model_is_listed_never_zero(mixed: Home) -> None:
    daily = rows(mixed, "daily", ("claude",))
    assert daily["2026-11-21"]["cost_usd"] is None
    assert daily["2026-11-21"]["unpriced_models"] == ["claude-imaginary-9"]
    # claude-sonnet-4-5 at $3 in / $15 out per million: 30 * 3 + 60 * 15 = 990 micro-dollars
    assert daily["2026-11-22"]["cost_usd"] == pytest.approx(0.00099)
    assert daily["2026-11-22"]["unpriced_models"] == []
    # what is priced of the mixed day is still told: msg_A1 on claude-opus-4-5 ($5 in, $25
    # out, $6.25 cache write, $0.50 cache read per million) 50 + 2000 + 625 + 500 = 3175,
    # msg_A2 on claude-sonnet-4-5 ($3, $15, -, $0.30) 60 + 600 + 600 = 1260 micro-dollars
    assert daily["2026-11-21"]["priced_cost_usd"] == pytest.approx(0.004435)
    assert daily["2026-11-22"]["priced_cost_usd"] == daily["2026-11-22"]["cost_usd"]
    by_model = rows(mixed, "model", ("claude",))
    assert by_model["claude-imaginary-9"]["cost_usd"] is None
    assert by_model["claude-sonnet-4-5"]["cost_usd"] is not None


def test_a_copy_counted_in_another_session_leaves_no_model_in_this_ones_row(
    mixed: Home, run: object
) -> None:
    """Session B also copies A's msg_A3, on a model no catalogue prices: the copy counts
    in A, so B's row prices all it counts, and names only the models of what it counts."""
    session_a = next(mixed.path.rglob("aaaaaaaa-*.jsonl"))
    session_b = next(mixed.path.rglob("bbbbbbbb-*.jsonl"))
    [copied] = [line for line in session_a.read_text().splitlines() if "msg_A3" in line]
    with open(session_b, "a") as out:
        out.write(copied.replace(session_a.stem, session_b.stem) + "\n")
    sessions = rows(mixed, "session", ("claude",))
    b = sessions[session_b.stem]
    assert b["responses"] == 1 and b["input_tokens"] == 30  # msg_B1 alone
    assert b["models"] == ["claude-sonnet-4-5"]
    assert b["unpriced_models"] == []
    assert b["cost_usd"] == pytest.approx(0.00099)
    assert sessions[session_a.stem]["unpriced_models"] == ["claude-imaginary-9"]
    table = run.invoke(main, ["usage", "session", "--home", str(mixed.path)]).output  # type: ignore[attr-defined]
    [line] = [line for line in table.splitlines() if "bbbbbbbb" in line]
    assert "$0.00099 " in line and "+" not in line and "imaginary" not in line


def test_one_model_spelled_as_another_app_or_cloud_spells_it_is_one_row(
    mixed: Home, run: object
) -> None:
    before = rows(mixed, "model", ("claude",))
    session_b = next(mixed.path.rglob("bbbbbbbb-*.jsonl"))
    session_b.write_text(
        session_b.read_text().replace(
            '"model":"claude-sonnet-4-5"',
            '"model":"us.anthropic.claude-sonnet-4-5-v1:0"',
        )
    )
    after = rows(mixed, "model", ("claude",))
    assert list(after) == list(before)
    assert tokens(after["claude-sonnet-4-5"]) == tokens(before["claude-sonnet-4-5"])
    assert (
        after["claude-sonnet-4-5"]["cost_usd"]
        == before["claude-sonnet-4-5"]["cost_usd"]
    )
    daily = rows(mixed, "daily", ("claude",))
    assert all("us.anthropic" not in m for r in daily.values() for m in r["models"])  # type: ignore[attr-defined]
    result = run.invoke(
        main,
        ["usage", "model", "--home", str(mixed.path), "--app", "claude",
         "--explain", "us.anthropic.claude-sonnet-4-5-v1:0"],
    )  # type: ignore[attr-defined]  # fmt: skip
    assert result.exit_code == 0 and "bbbbbbbb-" in result.output, result.output


def test_tz_moves_days_and_a_response_is_dated_by_its_last_line(mixed: Home) -> None:
    zone = usage.parse_tz("America/New_York")  # UTC-5 in November
    daily = rows(mixed, "daily", ("claude",), tz=zone)
    assert list(daily) == ["2026-11-20", "2026-11-21", "2026-11-22"]
    assert tokens(daily["2026-11-20"]) == (10, 80, 100, 1000, 0)  # msg_A1, 19:00 local
    assert tokens(daily["2026-11-21"]) == (27, 43, 0, 2000, 0)  # msg_A2 + msg_A3
    utc = rows(mixed, "daily", ("claude",))
    assert "2026-11-20" not in utc  # msg_A1's first copies were before midnight UTC


def test_tz_local_cuts_each_day_at_its_own_offset_summer_and_winter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 00:30 in Paris both times (CET +1, CEST +2): today's offset alone moved one of them
    folder = tmp_path / "home" / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    lines = [
        {"type": "assistant", "timestamp": stamp, "sessionId": "s", "requestId": f"r{n}",
         "message": {"id": f"m{n}", "model": "claude-sonnet-4-5",
                     "usage": {"input_tokens": 10, "output_tokens": 1}}}
        for n, stamp in enumerate(("2026-01-15T23:30:00Z", "2026-07-15T22:30:00Z"))
    ]  # fmt: skip
    (folder / "s.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    monkeypatch.setenv("TZ", "Europe/Paris")
    daily = rows(
        Home.at(tmp_path / "home"), "daily", ("claude",), tz=usage.parse_tz("local")
    )
    assert list(daily) == ["2026-01-16", "2026-07-16"]


def test_since_and_until_are_whole_days_in_the_zone(mixed: Home) -> None:
    zone = usage.parse_tz("UTC")
    only = rows(
        mixed, "daily", ("claude",),
        since=usage.parse_day("2026-11-22", zone), until=usage.parse_day("2026-11-22", zone, end=True),
    )  # fmt: skip
    assert list(only) == ["2026-11-22"]


def test_a_since_after_until_is_an_error_not_an_empty_report(
    mixed: Home, run: CliRunner
) -> None:
    for since, until in (("2026-12-01", "2026-11-01"), ("2026-11-23", "2026-11-22")):
        result = run.invoke(
            main,
            ["usage", "--since", since, "--until", until, "--home", str(mixed.path)],
        )
        assert (result.exit_code, result.stdout) == (2, "")  # a usage error
        assert result.stderr == (
            f"Error: --since {since!r} is not before --until {until!r}, so nothing "
            "can match; swap them.\n"
        )
    same_day = ["--since", "2026-11-22", "--until", "2026-11-22", "--json"]
    result = run.invoke(main, ["usage", *same_day, "--home", str(mixed.path)])
    assert result.exit_code == 0 and orjson.loads(result.stdout)


def test_a_relayed_sub_agent_response_counts_under_its_sub_agent(
    tmp_path: Path,
) -> None:
    # Claude Code 2.x relays a sub-agent's response in the lead file as an agent_progress
    # line whose agentId sits in `data`, beside the message (as real files have it); the
    # same response is in the sub-agent's own file
    session = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    folder = tmp_path / "home" / ".claude" / "projects" / "-p"
    (folder / session / "subagents").mkdir(parents=True)
    sub = {
        "id": "msg_S1",
        "model": "claude-haiku-4-5",
        "usage": {"input_tokens": 500, "output_tokens": 50},
    }
    lead = [
        {
            "type": "assistant",
            "timestamp": "2026-11-20T10:00:00Z",
            "sessionId": session,
            "requestId": "req_L1",
            "message": {
                "id": "msg_L1",
                "model": "claude-sonnet-4-5",
                "usage": {"input_tokens": 100, "output_tokens": 10},
            },
        },
        {
            "type": "progress",
            "timestamp": "2026-11-20T10:00:05Z",
            "sessionId": session,
            "data": {
                "message": {
                    "type": "assistant",
                    "message": sub,
                    "requestId": "req_S1",
                    "timestamp": "2026-11-20T10:00:04Z",
                },
                "normalizedMessages": [],
                "type": "agent_progress",
                "prompt": "look",
                "agentId": "a1234567",
            },
        },
    ]
    own = {
        "type": "assistant",
        "timestamp": "2026-11-20T10:00:04Z",
        "sessionId": session,
        "agentId": "a1234567",
        "isSidechain": True,
        "requestId": "req_S1",
        "message": sub,
    }
    (folder / f"{session}.jsonl").write_bytes(
        b"".join(orjson.dumps(x) + b"\n" for x in lead)
    )
    (folder / session / "subagents" / "agent-a1234567.jsonl").write_bytes(
        orjson.dumps(own) + b"\n"
    )
    [row] = rows(Home.at(tmp_path / "home"), "session", ("claude",)).values()
    agents = {a["key"]: tokens(a) for a in row["agents"]}  # type: ignore[attr-defined]
    assert agents == {"lead": (100, 10, 0, 0, 0), "a1234567": (500, 50, 0, 0, 0)}


# --- Codex -------------------------------------------------------------------------------


def test_codex_counts_repeats_and_replayed_history_once(mixed: Home) -> None:
    daily = rows(mixed, "daily", ("codex",))
    # P: 1000-200 and 1500-1000 fresh input (its second count repeats the first: dropped);
    # F: its own 1500-800 only; S: its own 100 only. Cached input is taken out of input.
    assert tokens(daily["2026-11-20"]) == (
        800 + 500 + 700 + 100,
        50 + 30 + 50 + 10,
        0,
        200 + 1000 + 800,
        10 + 10 + 10,
    )
    assert daily["2026-11-20"]["responses"] == 4


def _codex_rollout(home: Path, count: int) -> None:
    """A Codex rollout in `home` of `count` token counts, one a second."""
    folder = home / ".codex" / "sessions" / "2026" / "11" / "20"
    folder.mkdir(parents=True)
    tid = "01a1f000-0000-7000-8000-0000000000f0"
    head = [
        {"timestamp": "2026-11-20T00:00:00Z", "type": "session_meta",
         "payload": {"id": tid, "cwd": "/home/dev/shop"}},
        {"timestamp": "2026-11-20T00:00:00Z", "type": "turn_context",
         "payload": {"model": "gpt-5.5", "cwd": "/home/dev/shop"}},
    ]  # fmt: skip
    with open(folder / f"rollout-2026-11-20T00-00-00-{tid}.jsonl", "wb") as out:
        out.writelines(orjson.dumps(line) + b"\n" for line in head)
        for n in range(count):
            last = {"input_tokens": 1000 + n, "output_tokens": 300 + n}
            line = {"timestamp": f"2026-11-20T{n // 3600:02}:{n // 60 % 60:02}:{n % 60:02}Z",
                    "type": "event_msg",
                    "payload": {"type": "token_count", "info": {"last_token_usage": last}}}  # fmt: skip
            out.write(orjson.dumps(line) + b"\n")


def test_a_codex_rollout_is_counted_without_holding_a_record_per_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each response is folded into its day's sums as it is read: memory does not grow
    with the number of responses in the file."""
    import tracemalloc

    from sessdex.pricing import Catalogue
    from sessdex.sources import _usage_scan

    monkeypatch.setattr(
        _usage_scan, "CHUNK", 256 * 1024
    )  # the file is not what is held
    count = 30_000
    _codex_rollout(tmp_path / "home", count)
    Catalogue.load()  # loaded once per process, whatever the file
    # what a first count imports, imported before the count is traced: run alone, the
    # test counted them (10 MB, the bound 3)
    _codex_rollout(tmp_path / "warm", 1)
    usage.collect(Home.at(tmp_path / "warm"), ["codex"])
    tracemalloc.start()
    try:
        collected = usage.collect(Home.at(tmp_path / "home"), ["codex"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [day] = usage.report(collected.buckets, "daily")
    assert (day.key, day.responses) == ("2026-11-20", count)
    assert day.input_tokens == sum(range(1000, 1000 + count))
    assert peak < 100 * count  # a record listed per response costs over 300 bytes


def test_a_read_that_fails_halfway_keeps_the_sums_from_before_it(
    mixed: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records are summed as they are read: when the read of appended lines breaks off after
    some, none of them is kept, and the file's sums stay what they were."""
    from sessdex.sources import _codex_usage

    before = rows(mixed, "daily", ("codex",))
    rollout = next(
        (mixed.path / ".codex/sessions/2026/11/20").glob("*0000000000a.jsonl")
    )
    last = orjson.loads(rollout.read_bytes().splitlines()[-1])
    info = last["payload"]["info"]
    with open(rollout, "ab") as handle:
        for n in range(1, 6):  # five more responses of 100 input tokens each
            info["total_token_usage"] = dict(
                info["total_token_usage"],
                input_tokens=info["total_token_usage"]["input_tokens"] + 100,
            )
            info["last_token_usage"] = dict(
                info["last_token_usage"], input_tokens=100, cached_input_tokens=0
            )
            last["timestamp"] = f"2026-11-20T10:0{n + 1}:00.000Z"
            handle.write(orjson.dumps(last) + b"\n")
    counted = _codex_usage._Scan.token_count
    calls = []

    def breaks_on_the_third(self: object, *args: object) -> None:
        calls.append(args[0])
        if len(calls) == 3:
            raise RuntimeError("a reader bug")
        counted(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_codex_usage._Scan, "token_count", breaks_on_the_third)
    collected = usage.collect(mixed, ("codex",))
    assert len(calls) == 3  # two appended responses were summed before the failure
    assert any("a reader bug" in p for p in collected.diagnostics["codex"].problems)
    after = {r.key: r.record() for r in usage.report(collected.buckets, "daily")}
    assert after == before
    # the bug gone (a sessdex upgrade), the next run counts the file again: the partial
    # read was not saved as the file's sums
    monkeypatch.setattr(_codex_usage._Scan, "token_count", counted)
    again = usage.collect(mixed, ("codex",))
    assert not again.diagnostics["codex"].problems
    fixed = {r.key: r.record() for r in usage.report(again.buckets, "daily")}
    assert fixed["2026-11-20"]["input_tokens"] == (
        before["2026-11-20"]["input_tokens"] + 5 * 100
    )


def test_a_sub_agent_of_a_sub_agent_counts_under_the_session_that_began_them(
    tmp_path: Path, run: object
) -> None:
    """The real Codex 0.171 sub-agent spawns one of its own (depth 2, its rollout naming
    the first sub-agent its parent): both count under the lead session, as its agents,
    not as a session row of the first sub-agent's id; the row's audit adds up to it."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "usage" / "realcli", home)
    [day] = home.rglob("30")
    lead, child = (
        "01a22b81-666a-7993-963b-4b7cc4e806e9",
        "01a22b81-66cf-74d0-99b4-ed78fda80cf9",
    )
    grandchild = "01a22b81-7777-74d0-99b4-ed78fda80cf9"
    [spawned] = day.glob(f"rollout-*-{child}.jsonl")
    lines = spawned.read_text().replace(child, grandchild).splitlines()
    lines[0] = lines[0].replace(
        f'"parent_thread_id":"{lead}"', f'"parent_thread_id":"{child}"'
    )
    (day / f"rollout-2026-11-30T08-10-31-{grandchild}.jsonl").write_text(
        "\n".join(lines) + "\n"
    )
    sessions = rows(Home.at(home), "session", ("codex",))
    assert child not in sessions
    agents = {a["key"]: tokens(a) for a in sessions[lead]["agents"]}  # type: ignore[union-attr]
    assert agents == {
        "lead": (3600, 90, 0, 0, 0),
        child: (2400, 60, 0, 0, 0),
        grandchild: (2400, 60, 0, 0, 0),
    }
    result = run.invoke(  # type: ignore[attr-defined]
        main,
        [
            "usage",
            "session",
            "--home",
            str(home),
            "--app",
            "codex",
            "--explain",
            lead,
            "--json",
        ],
    )
    audit = orjson.loads(result.output)
    assert (
        sum(c["input_tokens"] for c in audit["counted"])
        == sessions[lead]["input_tokens"]
        == 8400
    )


def test_session_report_splits_the_lead_and_each_sub_agent(mixed: Home) -> None:
    sessions = rows(mixed, "session", ("codex",))
    parent = sessions["01a1f000-0000-7000-8000-00000000000a"]
    agents = {a["key"]: tokens(a) for a in parent["agents"]}  # type: ignore[union-attr]
    assert agents == {
        "lead": (1300, 80, 0, 1200, 20),
        "01a1f000-0000-7000-8000-00000000000c": (100, 10, 0, 0, 0),
    }
    fork = sessions["01a1f000-0000-7000-8000-00000000000b"]
    assert tokens(fork) == (700, 50, 0, 800, 10)
    assert "agents" not in fork


def test_session_rows_name_their_session_and_take_a_short_id_to_explain(
    mixed: Home, run: object
) -> None:
    """A session row says which session it is (title and folder, as `list` shows them),
    and its short id, as the table prints it, is enough for --explain."""
    listed = {
        s["id"]: s
        for s in orjson.loads(
            run.invoke(
                main, ["list", "--all", "--json", "--home", str(mixed.path)]
            ).output  # type: ignore[attr-defined]
        )
    }
    result = run.invoke(main, ["usage", "session", "--json", "--home", str(mixed.path)])  # type: ignore[attr-defined]
    records = orjson.loads(result.output)
    assert len(records) >= 3
    for record in records:
        session = listed[record["key"]]
        assert (record["title"], record["cwd"]) == (session["title"], session["cwd"])
    table = run.invoke(main, ["usage", "session", "--home", str(mixed.path)]).output  # type: ignore[attr-defined]
    named = set()
    for (
        line
    ) in table.splitlines():  # as much of each id as tells it apart, then the title
        words = line.split()
        if words[:1] != ["│"] or "└" in line or words[1] in ("│", "Total", "lead"):
            continue
        (record,) = [r for r in records if r["key"].startswith(words[1])]
        assert (record["title"] or "")[:5] in line
        named.add(record["key"])
    assert named == {r["key"] for r in records}
    named = next(r for r in records if r["key"].startswith("aaaaaaaa"))
    audit = run.invoke(
        main,
        [
            "usage",
            "session",
            "--home",
            str(mixed.path),
            "--explain",
            named["key"][:8],
            "--json",
        ],
    )  # type: ignore[attr-defined]
    assert orjson.loads(audit.output)["row"]["key"] == named["key"]
    shared = run.invoke(
        main, ["usage", "session", "--home", str(mixed.path), "--explain", "01a1f000"]
    )  # type: ignore[attr-defined]
    assert shared.exit_code == 1 and "type more of the id" in shared.output


def test_explain_takes_a_session_id_as_show_does(mixed: Home, run: object) -> None:
    """`codex:01a1f000…`, an app before the id, an id in capitals, and one pasted as
    `show` takes it (without its dashes, in backticks) name the row as they name the
    session for `show`; an app that has no such session is no match."""
    codex = "01a1f000-0000-7000-8000-00000000000a"
    pasted = (
        codex.replace("-", ""),
        f"`{codex}`",
        f"codex:{codex.replace('-', '')}",
        '"claude:aaaaaaaa"',  # the app's name inside the quotes, as `show` takes it
        "(claude:AAAAAAAA).",
    )
    for given in (f"codex:{codex}", f"CODEX:{codex.upper()}", "AAAAAAAA", *pasted):
        audit = run.invoke(  # type: ignore[attr-defined]
            main,
            [
                "usage",
                "session",
                "--home",
                str(mixed.path),
                "--explain",
                given,
                "--json",
            ],
        )
        assert audit.exit_code == 0, (given, audit.output)
        key = orjson.loads(audit.output)["row"]["key"]
        assert key == (
            codex if "01a1" in given.lower() else "aaaaaaaa-0000-4000-8000-000000000001"
        )
    wrong = run.invoke(  # type: ignore[attr-defined]
        main,
        ["usage", "session", "--home", str(mixed.path), "--explain", "claude:01a1"],
    )
    assert (
        wrong.exit_code == 1 and "no session row is keyed 'claude:01a1'" in wrong.output
    )


# --- the index cache ---------------------------------------------------------------------


def test_a_warm_run_reads_nothing_and_an_append_reads_only_new_bytes(
    mixed: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = usage.collect(mixed, ("claude", "codex"))
    assert first.read_bytes > 0
    assert usage.collect(mixed, ("claude", "codex")).read_bytes == 0
    claude_file = (
        mixed.path
        / ".claude/projects/-home-dev-shop/aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    )
    lines = claude_file.read_bytes().splitlines()
    a3 = orjson.loads(lines[6])
    a3["message"]["usage"]["output_tokens"] = 9  # a later, larger copy of msg_A3
    a3["timestamp"] = "2026-11-21T12:00:02.000Z"
    fresh = dict(a3, timestamp="2026-11-23T09:00:00.000Z")
    fresh["message"] = dict(a3["message"], id="msg_A4", model="claude-sonnet-4-5")
    fresh["requestId"] = "req_A4"
    appended = orjson.dumps(a3) + b"\n" + orjson.dumps(fresh) + b"\n"
    with open(claude_file, "ab") as handle:
        handle.write(appended)
    rollout = next(
        (mixed.path / ".codex/sessions/2026/11/20").glob("*0000000000a.jsonl")
    )
    count = orjson.loads(rollout.read_bytes().splitlines()[-1])
    count["timestamp"] = "2026-11-20T10:02:00.000Z"
    info = count["payload"]["info"]
    info["total_token_usage"] = dict(
        info["total_token_usage"], input_tokens=2600, output_tokens=90
    )
    info["last_token_usage"] = dict(
        info["last_token_usage"],
        input_tokens=100,
        cached_input_tokens=0,
        output_tokens=10,
        reasoning_output_tokens=0,
    )
    with open(rollout, "ab") as handle:
        handle.write(orjson.dumps(count) + b"\n")
    again = usage.collect(mixed, ("claude", "codex"))
    assert 0 < again.read_bytes <= len(appended) + len(orjson.dumps(count)) + 1
    incremental = {r.key: r.record() for r in usage.report(again.buckets, "daily")}
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "fresh-state"))
    cold = usage.collect(mixed, ("claude", "codex"))
    assert cold.read_bytes > again.read_bytes
    assert incremental == {
        r.key: r.record() for r in usage.report(cold.buckets, "daily")
    }
    assert tokens(incremental["2026-11-21"])[:2] == (
        37,
        129,
    )  # msg_A3 now counts 9, once
    assert tokens(incremental["2026-11-23"])[:2] == (7, 9)


# --- explain and the command line ------------------------------------------------------------


def test_explain_names_what_was_counted_and_what_was_dropped_by_which_rule(
    mixed: Home, run: object
) -> None:
    result = run.invoke(
        main,
        [
            "usage",
            "daily",
            "--home",
            str(mixed.path),
            "--app",
            "claude",
            "--explain",
            "2026-11-21",
        ],
    )  # type: ignore[attr-defined]
    assert result.exit_code == 0, result.output
    text = result.output
    assert "counted (3):" in text
    assert (
        "aaaaaaaa-0000-4000-8000-000000000001.jsonl:4" in text
    )  # msg_A1, dated by its last line
    assert "tokens of line 3 (the largest), dated by its last line 4" in text
    assert ":2  copy-of-response: output_tokens 5" in text
    assert ":6  synthetic" in text
    assert ":8  side-chain-replay" in text
    assert (
        "bbbbbbbb-0000-4000-8000-000000000002.jsonl:2  repeated-in-another-file" in text
    )
    codex = run.invoke(
        main,
        [
            "usage",
            "--home",
            str(mixed.path),
            "--app",
            "codex",
            "--explain",
            "2026-11-20",
            "--json",
        ],
    )  # type: ignore[attr-defined]
    audit = orjson.loads(codex.output)
    rules = sorted(
        (d["file"].rsplit("-", 1)[1], d["line"], d["rule"]) for d in audit["dropped"]
    )
    assert rules == [
        ("00000000000a.jsonl", 5, "repeat"),
        ("00000000000b.jsonl", 4, "replayed-parent-history"),
        ("00000000000b.jsonl", 5, "replayed-parent-history"),
        ("00000000000c.jsonl", 3, "replayed-parent-history"),
    ]
    assert len(audit["counted"]) == 4
    # times as every other --json gives them: ISO 8601 in UTC
    assert all(
        re.fullmatch(r"2026-11-20T\d\d:\d\d:\d\d\.\d{3}Z", c["time"])
        for c in audit["counted"]
    )


def test_json_rows_have_the_documented_fields(mixed: Home, run: object) -> None:
    result = run.invoke(main, ["usage", "model", "--home", str(mixed.path), "--json"])  # type: ignore[attr-defined]
    assert result.exit_code == 0, result.output
    records = orjson.loads(result.output)
    assert {r["key"] for r in records} >= {
        "gpt-5.5",
        "claude-sonnet-4-5",
        "claude-imaginary-9",
    }
    for record in records:
        assert {"key", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                "reasoning_tokens", "cost_usd", "unpriced_models"} <= set(record)  # fmt: skip


def test_session_rows_of_two_apps_sharing_an_id_have_keys_of_their_own(
    mixed: Home, run: object
) -> None:
    """A script keys on `key`: where a Claude Code and a Codex session share an id, each
    row's key is `app:id` (what every command takes for it); other rows keep the id."""
    from .helpers import write_claude_session

    shared = "01a1f000-0000-7000-8000-00000000000a"  # a Codex session's id
    write_claude_session(mixed.path, shared, "/tmp/elsewhere")
    result = run.invoke(main, ["usage", "session", "--home", str(mixed.path), "--json"])  # type: ignore[attr-defined]
    assert result.exit_code == 0, result.output
    records = orjson.loads(result.output)
    keys = [r["key"] for r in records]
    assert len(keys) == len(set(keys))
    by_key = {r["key"]: r for r in records}
    assert by_key[f"codex:{shared}"]["id"] == shared
    assert by_key[f"claude:{shared}"]["app"] == "claude"
    assert "01a1f000-0000-7000-8000-00000000000b" in by_key  # no other app has its id
    for key in (f"codex:{shared}", f"claude:{shared}"):  # each key explains its row
        audit = run.invoke(  # type: ignore[attr-defined]
            main,
            ["usage", "session", "--home", str(mixed.path), "--explain", key, "--json"],
        )
        assert audit.exit_code == 0, audit.output
        row = orjson.loads(audit.output)["row"]
        assert row["key"] == key
        assert row["input_tokens"] == by_key[key]["input_tokens"]


def test_the_table_says_unpriced(mixed: Home, run: object) -> None:
    result = run.invoke(main, ["usage", "--home", str(mixed.path), "--app", "claude"])  # type: ignore[attr-defined]
    assert result.exit_code == 0
    mixed_day = result.output.split("2026-11-21", 1)[1].split("\n", 1)[0]
    # the priced part (0.004435), marked as leaving the unpriced model out; never $0
    assert mixed_day.rstrip(" │").endswith(" $0.00443+")
    assert "no price for: claude-imaginary-9" in result.output
    result = run.invoke(
        main, ["usage", "model", "--home", str(mixed.path), "--app", "claude"]
    )  # type: ignore[attr-defined]
    alone = result.output.split("claude-imaginary-9", 1)[1].split("\n", 1)[0]
    assert alone.rstrip(" │").endswith("unpriced")


def test_a_model_name_is_shown_as_written_never_as_rich_markup(
    tmp_path: Path, run: object
) -> None:
    """A model name comes from a file: square brackets and colons in it are text, not
    Rich markup (a colour tag coloured the rest, `:smile:` became an emoji)."""
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    model = "[red]m:smile:"
    write_claude_session(home, "88888888-0000-4000-8000-000000000001", "/w/a", model=model)  # fmt: skip
    for report in ("daily", "session", "project"):
        result = run.invoke(main, ["usage", report, "--home", str(home)])  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        assert f"│ {model} │" in result.stdout


def test_explain_prints_what_it_quotes_from_a_file_cleaned(tmp_path: Path) -> None:
    """A model and a response's ids are the file's: `--explain` printed them raw, an
    OSC 52 (write the clipboard) or a hyperlink in a model name reaching the terminal,
    a newline in an id starting a made-up line."""
    from .helpers import claude_line

    home = tmp_path / "home"
    session_id = "48484848-0000-4000-8000-000000000004"
    model = "claude-sonnet-4-5\x1b]52;c;ZXZpbA==\x07\x9b2J\u202e"
    path = home / ".claude" / "projects" / "-w" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True)
    line = claude_line(
        session_id, "/w", type="assistant", uuid="a1", parentUuid=None,
        timestamp="2026-11-20T10:00:00.000Z", requestId="req\n  made-up line",
        message={"id": "msg\x1b[2J", "role": "assistant", "model": model,
                 "content": [{"type": "text", "text": "hi"}],
                 "usage": {"input_tokens": 3, "output_tokens": 5}},
    )  # fmt: skip
    path.write_text(orjson.dumps(line).decode() + "\n")
    result = CliRunner().invoke(
        main, ["usage", "session", "--home", str(home), "--explain", "48484848"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "in 3 out 5" in out and "claude-sonnet-4-5" in out
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", out), repr(out)
    assert not any(line.startswith("  made-up") for line in out.splitlines())


def test_an_unknown_explain_key_or_zone_is_an_explained_error(
    mixed: Home, run: object, tmp_path: Path
) -> None:
    result = run.invoke(
        main, ["usage", "--home", str(mixed.path), "--explain", "1999-12-01x"]
    )  # type: ignore[attr-defined]
    assert result.exit_code == 1
    assert "no daily row is keyed '1999-12-01x'" in result.output
    # no calendar's day: a typo, a usage error
    result = run.invoke(
        main, ["usage", "--home", str(mixed.path), "--explain", "1999-13-01"]
    )  # type: ignore[attr-defined]
    assert result.exit_code == 2
    assert "--explain '1999-13-01' is not a date: a month is 01 to 12." in result.output
    # a day no response is dated: an empty result, said, no error
    result = run.invoke(
        main, ["usage", "--home", str(mixed.path), "--explain", "1999-01-01"]
    )  # type: ignore[attr-defined]
    assert result.exit_code == 0
    assert (
        "No token usage was counted on 1999-01-01: nothing to explain" in result.output
    )
    result = run.invoke(
        main,
        [
            "usage",
            "--home",
            str(mixed.path),
            "--since",
            "2099-01-01",
            "--explain",
            "2099-01-02",
        ],
    )  # type: ignore[attr-defined]
    assert result.exit_code == 0 and "Rows:" not in result.output  # none to list
    assert (
        "No token usage was counted on 2099-01-02 with these filters: nothing to explain."
        in result.output
    )
    result = run.invoke(
        main,
        ["usage", "--home", str(mixed.path), "--since", "2099-01-01", "--explain", "x"],
    )  # type: ignore[attr-defined]
    assert result.exit_code == 1 and "Rows:" not in result.output  # none to list
    assert "no daily row is keyed 'x': no token usage was found" in result.output
    assert "(with these filters)" in result.output
    # no filter given: none named
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run.invoke(main, ["usage", "--home", str(empty), "--explain", "x"])  # type: ignore[attr-defined]
    assert result.exit_code == 1
    assert "no token usage was found." in result.output
    assert "filters" not in result.output
    result = run.invoke(
        main, ["usage", "--home", str(mixed.path), "--tz", "Mars/Olympus"]
    )  # type: ignore[attr-defined]
    assert result.exit_code == 2  # a value --tz cannot take: a usage error
    assert "unknown time zone" in result.output


def test_no_usage_is_one_line_that_says_so_not_a_table_of_zeros(
    tmp_path: Path, mixed: Home, run: object
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run.invoke(main, ["usage", "--home", str(empty)])  # type: ignore[attr-defined]
    assert result.exit_code == 0 and result.stdout == ""
    assert "No token usage found in the --home folder" in result.stderr
    result = run.invoke(
        main, ["usage", "--home", str(mixed.path), "--since", "2030-01-01"]
    )  # type: ignore[attr-defined]
    assert (
        result.stdout == ""
        and "No token usage matches --since 2030-01-01" in result.stderr
    )
    result = run.invoke(main, ["usage", "--home", str(empty), "--json"])  # type: ignore[attr-defined]
    assert orjson.loads(result.stdout) == []


def test_apps_without_the_hook_count_their_readers_usage_events(home: Home) -> None:
    """Every app with usage in its fixtures shows up in the app report, priced, its
    unpriced models listed, or billed in its own credits (no dollar figure to give)."""
    by_app = rows(home, "app", ())
    assert {"claude", "codex"} <= set(by_app)
    for app, record in by_app.items():
        explained = record["unpriced_models"] or record["credits"].get(app)
        assert record["cost_usd"] is not None or explained, app


def test_a_session_total_is_priced_at_the_base_rate_not_as_one_long_request(
    tmp_path: Path,
) -> None:
    """droid keeps only its session's totals: 3.2 million prompt tokens over many requests
    are not one request past Claude Sonnet 4.5's 200k long-context threshold."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "droid" / "home", home)
    [settings] = home.rglob("droid_large.settings.json")
    values = orjson.loads(settings.read_bytes())
    values["tokenUsage"] = {
        "inputTokens": 40_000,
        "outputTokens": 60_000,
        "cacheCreationTokens": 200_000,
        "cacheReadTokens": 3_000_000,
    }
    settings.write_bytes(orjson.dumps(values))
    session = rows(Home.at(home), "session", ("droid",))["droid_large"]
    assert tokens(session) == (40_000, 60_000, 200_000, 3_000_000, 0)
    # $3 in, $15 out, $3.75 cache write, $0.30 cache read per million: 0.12 + 0.9 +
    # 0.75 + 0.9 (the long-context rates, $6, $22.50, $7.50, $0.60, made it $4.89)
    assert session["cost_usd"] == pytest.approx(2.67)


@pytest.mark.parametrize("kind", ["app", "session"])
def test_every_row_explains_to_its_own_totals_and_names_only_its_apps(
    home: Home, run: object, kind: str
) -> None:
    """Over every app's fixtures: what --explain counts for a row adds up to that row, and
    its notes speak only of apps that fed it (a Codex session's audit says nothing of
    Vibe)."""
    from sessdex.sources import all_sources

    titles = {source.TITLE: source.NAME for source in all_sources()}
    table = rows(home, kind, ())
    assert len(table) > 10
    for key, row in table.items():
        result = run.invoke(  # type: ignore[attr-defined]
            main, ["usage", kind, "--home", str(home.path), "--explain", key, "--json"]
        )
        assert result.exit_code == 0, (key, result.output)
        audit = orjson.loads(result.output)
        counted = audit["counted"]
        for field in ("input_tokens", "output_tokens", "cache_read_tokens"):
            assert sum(c[field] for c in counted) == row[field], (key, field)
        # to the millionth as the rows (it showed 0.006583349999999999)
        costs = [c["cost_usd"] for c in counted if c["cost_usd"] is not None]
        noisy = [cost for cost in costs if cost != round(cost, 6)]
        assert not noisy, (key, noisy)
        fed = {c["app"] for c in counted}
        named = {
            titles[note.split(":", 1)[0]] for note in audit["notes"] if ":" in note
        }
        assert named <= fed, (key, named - fed)


def test_an_appended_side_chain_replaying_an_old_response_is_merged_as_a_full_read_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    transcript = folder / "cccccccc-0000-4000-8000-000000000003.jsonl"

    def response(
        n: int, *, sidechain: bool = False, request: str | None = None
    ) -> bytes:
        line = {
            "isSidechain": sidechain,
            "cwd": "/home/dev/shop",
            "sessionId": "cccccccc-0000-4000-8000-000000000003",
            "message": {
                "id": f"msg_{n}",
                "model": "claude-sonnet-4-5",
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": 5 + n,
                    "cache_read_input_tokens": 100 * (2 if sidechain else 1),
                },
            },
            "requestId": request or f"req_{n}",
            "type": "assistant",
            "timestamp": f"2026-11-21T10:{n:02d}:00.000Z",
        }
        return orjson.dumps(line) + b"\n"

    transcript.write_bytes(
        b"".join(response(n) for n in range(20))
    )  # more than the open window
    home = Home.at(tmp_path / "home")
    usage.collect(home, ("claude",))
    with open(transcript, "ab") as handle:
        handle.write(
            response(0, sidechain=True, request="req_btw")
        )  # /btw replays msg_0
    again = usage.collect(home, ("claude",))
    incremental = [r.record() for r in usage.report(again.buckets, "daily")]
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "fresh-state"))
    cold = [
        r.record()
        for r in usage.report(usage.collect(home, ("claude",)).buckets, "daily")
    ]
    assert incremental == cold
    assert cold[0]["responses"] == 20


def test_a_transcript_written_with_spaces_counts_like_a_compact_one(
    tmp_path: Path,
) -> None:
    """Claude Code writes compact JSON; a copy written by another tool (`"usage": {`)
    must count the same, not drop out of the byte prefilter unnoticed."""
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    path = write_claude_session(home, "66666666-ffff-4fff-8fff-666666666666", "/w/a")
    assert b'"usage": {' in path.read_bytes()  # the helper writes with spaces
    totals = usage.run(Home.at(home), "daily").total
    assert (totals.input_tokens, totals.output_tokens) == (10, 5)


def test_a_codex_rollout_written_with_spaces_counts_like_a_compact_one(
    tmp_path: Path,
) -> None:
    """Codex writes compact JSON; the same rollout re-written with spaces after the
    colons must count the same tokens, not drop out of the byte prefilter."""
    import json

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "codex" / "home", home)
    compact = usage.run(Home.at(home), "daily", apps=["codex"]).total
    assert compact.output_tokens > 0
    for path in (home / ".codex" / "sessions").rglob("rollout-*.jsonl"):
        lines = path.read_text().splitlines()
        path.write_text(
            "".join(json.dumps(json.loads(line)) + "\n" for line in lines if line)
        )
    spaced = usage.run(Home.at(home), "daily", apps=["codex"]).total
    assert (spaced.input_tokens, spaced.output_tokens, spaced.cache_read_tokens) == (
        compact.input_tokens,
        compact.output_tokens,
        compact.cache_read_tokens,
    )


def test_a_transcript_rewritten_in_place_and_longer_is_counted_again_whole(
    tmp_path: Path,
) -> None:
    """Usage reads a grown file on from where it stopped. A file rewritten in place
    (same inode) that came out longer is no append: its old sums must not stay."""
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    path = write_claude_session(home, "77777777-0000-4000-8000-000000000012", "/w/r")
    assert usage.run(Home.at(home), "daily").total.output_tokens == 5
    data = path.read_bytes()
    with path.open("r+b") as stream:  # same inode, new content, longer
        stream.write(data.replace(b'"output_tokens": 5', b'"output_tokens": 500000'))
        stream.truncate()
    assert path.stat().st_size > len(data)
    assert usage.run(Home.at(home), "daily").total.output_tokens == 500000


def test_usage_here_takes_each_name_of_this_folder() -> None:
    """`--here` passes the folder under each name it goes by (selection.here_folders)."""
    from sessdex.usage import _under

    names = ("/disk/code/shop", "/home/me/code/shop")  # resolved, and as the shell says
    assert _under("/home/me/code/shop/api", names)
    assert _under("/disk/code/shop", names)
    assert not _under("/home/me/code/shopping", names)
    assert not _under(None, names)


def test_claude_sessions_in_the_xdg_config_folder_are_found_once(
    tmp_path: Path,
) -> None:
    """Some 2025 Claude Code releases wrote to `~/.config/claude` (XDG) instead of
    `~/.claude`; ccusage reads both, and so does sessdex: listed and counted. A user who
    linked one folder to the other sees each session once, each response billed once."""
    from sessdex import api

    public = DATA / "claude" / "home" / ".claude"
    home = tmp_path / "home"
    shutil.copytree(public, home / ".config" / "claude")
    xdg = Home.at(home)
    listed = {s.id for s in api.list_sessions(xdg, limit=None).sessions()}
    assert listed, "the XDG folder's sessions are listed"
    counted = rows(xdg, "app", ("claude",))["claude"]
    assert counted["output_tokens"]
    # `XDG_CONFIG_HOME` moves it, as Claude Code resolved it
    moved = tmp_path / "moved"
    (home / ".config").rename(moved)
    assert not {s.id for s in api.list_sessions(xdg, limit=None).sessions()}
    elsewhere = Home(home, {"XDG_CONFIG_HOME": str(moved)})
    assert {s.id for s in api.list_sessions(elsewhere, limit=None).sessions()} == listed
    # both folders, one a link to the other: nothing twice
    (moved / "claude").rename(home / ".claude")
    (home / ".config").mkdir()
    (home / ".config" / "claude").symlink_to(home / ".claude")
    sessions = list(api.list_sessions(xdg, limit=None).sessions())
    assert sorted(s.id for s in sessions) == sorted(listed)
    assert rows(xdg, "app", ("claude",))["claude"] == counted


def test_a_count_no_file_can_hold_is_a_broken_value_not_a_crash(mixed: Home) -> None:
    """A token count past 2**64 (a corrupt line) is taken as 0, as everywhere else: it
    broke `usage` for every app (the per-file sums could not be cached)."""
    before = rows(mixed, "app", ("claude", "codex"))
    huge = b"123456789012345678901234567890"
    for path in sorted(mixed.path.rglob("*.jsonl")):
        data = path.read_bytes()
        for field in (b'"cache_read_input_tokens":', b'"cached_input_tokens":'):
            start = data.find(field)
            if start >= 0:
                digits = start + len(field)
                while data[digits : digits + 1] == b" ":
                    digits += 1
                end = digits
                while data[end : end + 1].isdigit():
                    end += 1
                data = data[:digits] + huge + data[end:]
        path.write_bytes(data)
    after = rows(mixed, "app", ("claude", "codex"))
    assert set(after) == set(before) == {"claude", "codex"}  # both still reported
    claude, was = after["claude"], before["claude"]
    assert (claude["responses"], claude["output_tokens"]) == (
        was["responses"],
        was["output_tokens"],
    )


def test_session_rows_print_ids_that_show_takes_too() -> None:
    """A lead's short id must not also start its sub-agent's id (time-ordered ids share
    their start): `show` would find two sessions."""
    from click.testing import CliRunner

    home = str(DATA / "codex" / "home")
    result = CliRunner().invoke(
        main, ["usage", "session", "--since", "3000w", "--home", home]
    )
    assert result.exit_code == 0, result.output
    shown = re.findall(r"│ (01a22b81-[0-9a-f-]+)  ", result.stdout)
    assert shown
    for prefix in shown:
        found = CliRunner().invoke(main, ["show", prefix, "--json", "--home", home])
        assert found.exit_code == 0, (prefix, found.output)


def _table_on_a_terminal(home: Home, columns: int) -> list[str]:
    """`sessdex usage` on a terminal `columns` wide: its lines, without their styles."""
    # no progress bar, however busy the machine: the table alone is looked at
    env = {**os.environ, "NO_COLOR": "1", "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal(
        ["usage", "--home", str(home.path)], env, stdout_too=True, columns=columns
    )
    assert result.returncode == 0, shown
    return re.sub(r"\x1b\[[0-9;]*m", "", shown).replace("\r\n", "\n").splitlines()


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip("┃│").split(line[0])]


@pytest.mark.parametrize(
    ("columns", "header", "total"),
    [
        (80, ["Day", "In", "Out", "Cache w", "Cache r", "Reas.", "Cost"],
         ["Total", "2,167", "323", "100", "5,000", "30", "$0.02+"]),
        (40, ["Day", "Tokens", "Cost"], ["Total", "7,590", "$0.02+"]),
    ],
)  # fmt: skip
def test_a_narrow_terminal_gets_every_number_whole(
    mixed: Home, columns: int, header: list[str], total: list[str]
) -> None:
    """The models list goes and headers shorten first (80 columns), then the counts
    become one total (40): the day, the tokens and the cost are never cut."""
    lines = _table_on_a_terminal(mixed, columns)
    table = [line for line in lines if line[:1] in ("┃", "│")]
    assert _cells(table[0]) == header
    assert _cells(table[-1]) == total
    assert [_cells(line)[0] for line in table[1:-1]] == [
        "2026-11-20",
        "2026-11-21",
        "2026-11-22",
    ]
    assert "…" not in "".join(table)
    assert all(len(line) <= columns for line in lines if not line.startswith("note:"))


def test_a_dated_report_says_the_zone_its_days_are_cut_in(
    mixed: Home, run: object
) -> None:
    """`show` and `list` speak local time, `usage`'s days UTC unless --tz says: a user
    east or west of UTC read the day column as local days; a line under the table names
    the zone (and the option), a report of sessions or models has no days to name."""

    def captions(*args: str) -> list[str]:
        argv = ["usage", *args, "--home", str(mixed.path)]
        result = run.invoke(main, argv, env={"TZ": "Asia/Kolkata"})  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        starts = ("days:", "weeks:", "months:")
        return [line for line in result.stdout.splitlines() if line.startswith(starts)]

    assert captions() == ["days: UTC (--tz sets another)"]
    assert captions("monthly", "--tz", "UTC") == ["months: UTC"]
    assert captions("weekly", "--tz", "Europe/Paris") == ["weeks: Europe/Paris"]
    assert captions("--tz", "local") == ["days: Asia/Kolkata (local)"]
    assert captions("session") == captions("model") == []


def test_the_prices_line_has_no_trailing_spaces(mixed: Home, run: object) -> None:
    result = run.invoke(main, ["usage", "--home", str(mixed.path)])  # type: ignore[attr-defined]
    prices = [line for line in result.stdout.splitlines() if "prices:" in line]
    assert len(prices) == 1 and prices[0].startswith("prices: genai-prices ")
    assert prices[0] == prices[0].rstrip()
    (shown,) = [
        line for line in _table_on_a_terminal(mixed, 80) if line.startswith("prices:")
    ]
    assert shown == prices[0]


def test_a_narrow_session_table_keeps_each_short_id_and_every_count_whole() -> None:
    """40 columns, a long title, counts in the hundreds of millions: the title gives
    way, never the short id `--explain` takes, a count or the cost."""
    import io

    from rich.console import Console

    from sessdex.views.usage import table

    sessions = [
        usage.Row(
            f"{n}f3a9c21-0000-4000-8000-00000000000{n}",
            input_tokens=123_456_789,
            output_tokens=2_345_678,
            cache_read_tokens=987_654_321,
            cost=1234.5,
            models={"claude-opus-4-8"},
            about={"title": "Fix the flaky checkout retry test in CI, again"},
        )
        for n in (1, 2)
    ]
    total = usage.Row("Total", cost=2469.0)
    for row in sessions:
        for name in ("input_tokens", "output_tokens", "cache_read_tokens"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
    console = Console(file=io.StringIO(), width=40, color_system=None)
    console.print(table("session", sessions, total, width=40))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(len(line) <= 40 for line in lines)
    shown = "\n".join(lines)
    assert "1f3a9c21" in shown and "2f3a9c21" in shown
    assert "1,113,456,788" in shown and "2,226,913,576" in shown
    assert "$1,234.50" in shown and "$2,469.00" in shown
    assert "Fix the flaky checkout retry test in CI, again" not in shown


# text a title or an agent's name may hold: wide characters, emoji sequences, combining
# marks, what looks like markup or an escape, a line break, a very long word
_ODD = ["fix", "the", "flaky", "test", "世界", "テスト", "🙂", "👩\u200d💻", "e\u0301", "naïve",
        "\uff46\uff55\uff4c\uff4c", "[bold]", "[/]", ":smile:", "\x1b[31mred", "line\nbreak", "a\tb", "…", "a" * 70,
        "🇫🇷", "\u2028"]  # fmt: skip
_MODELS = ["claude-opus-4-8", "gpt-5.3-codex", "(unknown model)", "模型-1", "m" * 45]


def _generated_report(
    seed: int, count: int | None = None, kind: str | None = None
) -> tuple[str, list[usage.Row], usage.Row, int]:
    """A usage report to draw, made from `seed`: its kind, rows (sub-agents, unpriced
    and partly priced models, counts from none to trillions, odd titles), total, width."""
    import random

    r = random.Random(seed)
    kind = r.choice(
        ["daily", "weekly", "monthly", "session", "project", "model", "app"]
    )
    count = count if count is not None else r.choice([0, 1, 2, 5, 12, r.randint(0, 60)])

    def words(most: int) -> str:
        return " ".join(r.choice(_ODD) for _ in range(r.randint(0, most)))

    def row(key: str) -> usage.Row:
        made = usage.Row(key, cost=r.choice([0.0, 0.000012, r.random() * 9, r.random() * 99_999]))  # fmt: skip
        for name in usage.TOKENS:
            big = r.choice([0, r.randint(1, 999), r.randint(1_000, 10**7), r.randint(10**8, 10**12)])  # fmt: skip
            setattr(made, name, big if r.random() < 0.8 else 0)
        made.models = set(r.sample(_MODELS, r.randint(0, 3)))
        if r.random() < 0.2:
            made.unpriced = set(r.sample(sorted(made.models) or ["x"], 1))
        return made

    prefix = r.choice(
        ["", "0191abcd", "0191abcdef0123456789"]
    )  # ids alike at the start
    keys = {
        "session": lambda n: f"{prefix}{r.getrandbits(24):06x}-7000-8000-{n:012x}",
        "project": lambda n: "/home/u/" + words(5).replace(" ", "/") + f"/{n}",
        "model": lambda n: r.choice([*_MODELS, words(2)]) + f"-{n}",
    }
    rows = []
    for n in range(count):
        made = row(keys.get(kind, lambda n: f"2026-{1 + n % 12:02d}-{n}")(n))
        if kind == "session" and r.random() < 0.8:
            made.about = {"title": words(12)}
        if kind == "session" and r.random() < 0.3:
            for a in range(r.randint(1, 3)):
                name = r.choice([f"agent-{a}", f"{prefix}{a:04x}", words(3), ""])
                made.agents[name] = row("agent")
        rows.append(made)
    total = row("Total")
    if r.random() < 0.8:  # the rows' sums, as a report has them
        for name in usage.TOKENS:
            setattr(total, name, sum(getattr(x, name) for x in rows))
        total.unpriced = set().union(*(x.unpriced for x in rows))
        total.models = set().union(*(x.models for x in rows))
    width = r.randint(40, 250) if r.random() < 0.5 else r.randint(40, 75)
    return kind, rows, total, width


def _console(mode: str, width: int) -> object:
    import io

    from rich.console import Console

    class Ascii(io.StringIO):
        encoding = "ascii"  # a terminal that shows no box characters

    file = Ascii() if mode == "ascii" else io.StringIO()
    if mode in ("pipe", "ascii"):
        return Console(file=file, width=width, highlight=False, soft_wrap=False)
    return Console(
        file=file,
        width=width,
        force_terminal=True,
        color_system="truecolor" if mode == "truecolor" else "standard",
        no_color=mode == "no colour",
        highlight=False,
        soft_wrap=False,
    )


@pytest.mark.parametrize(
    "mode", ["pipe", "terminal", "truecolor", "no colour", "ascii"]
)
def test_the_usage_table_is_written_as_rich_would_draw_it(mode: str) -> None:
    """Every report kind at widths from 40 to 250 columns, with odd titles, sub-agents,
    unpriced costs, keys cut, short counts and no borders: the table written line by
    line is the very bytes Rich's `Table` would write (colour codes included)."""
    from sessdex.views.usage import table

    seen = set()
    for seed in range(80):
        kind, rows, total, width = _generated_report(seed)
        layout = table(kind, rows, total, width)
        fast, drawn = _console(mode, width), _console(mode, width)
        layout.print(fast)  # type: ignore[arg-type]
        drawn.print(layout)  # type: ignore[attr-defined]
        assert fast.file.getvalue() == drawn.file.getvalue(), (seed, kind, width)  # type: ignore[attr-defined]
        seen.add(
            ("boxed" if layout.boxed else "unboxed", layout.lines(fast) is not None)
        )  # type: ignore[arg-type]
    # both forms drawn; the fast way where Rich measures an unboxed table as it draws it
    assert ("boxed", True) in seen and {"unboxed"} <= {form for form, _ in seen}


def test_a_table_of_thousands_of_rows_is_written_as_rich_would_draw_it() -> None:
    from sessdex.views.usage import table

    _, rows, total, width = _generated_report(7, count=1500, kind="session")
    for mode in ("pipe", "terminal"):
        layout = table("session", rows, total, width)
        fast, drawn = _console(mode, width), _console(mode, width)
        assert layout.lines(fast) is not None  # type: ignore[arg-type]
        layout.print(fast)  # type: ignore[arg-type]
        drawn.print(layout)  # type: ignore[attr-defined]
        assert fast.file.getvalue() == drawn.file.getvalue()  # type: ignore[attr-defined]


def test_usage_writes_its_table_without_rich_laying_it_out(
    mixed: Home, run: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rich spends some 2 ms a row laying out a table (seconds for thousands of
    sessions): the report writes the same lines itself."""
    from rich.table import Table

    before = {
        report: run.invoke(main, ["usage", report, "--home", str(mixed.path)]).stdout  # type: ignore[attr-defined]
        for report in ("daily", "session")
    }

    def no_layout(*_: object) -> None:
        raise AssertionError("laid out by Rich")

    monkeypatch.setattr(Table, "__rich_console__", no_layout)
    for report, shown in before.items():
        result = run.invoke(main, ["usage", report, "--home", str(mixed.path)])  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        assert result.stdout == shown and "┃ " in shown


def test_explain_lines_come_one_at_a_time(mixed: Home, run: object) -> None:
    """A big session's audit has a line per response: the lines are made as they are
    written, never held as one list (nor joined into one string)."""
    from sessdex import api
    from sessdex.views import usage as view

    result = api.usage_report(mixed, "session", explain="aaaaaaaa")
    assert result.explained is not None
    lines = view.explain_lines(result.explained)
    assert iter(lines) is lines
    assert next(lines).startswith("row aaaaaaaa")
    text = run.invoke(  # type: ignore[attr-defined]
        main, ["usage", "session", "--home", str(mixed.path), "--explain", "aaaaaaaa"]
    ).output
    # the files under the home named as the CLI names them there (`~/.claude/…`)
    home = str(mixed.path)
    assert text.splitlines() == list(view.explain_lines(result.explained, home=home))


def test_explain_json_comes_in_pieces_and_is_the_whole_record(
    mixed: Home, run: object
) -> None:
    """`--explain --json` has an object per response: it is written in pieces, never
    built as one document, and the bytes are those of the whole record (also with 1,000
    objects and more, where the pieces join)."""
    import dataclasses

    from sessdex import api
    from sessdex.views import usage as view
    from sessdex.views.records import dumps

    result = api.usage_report(mixed, "session", explain="aaaaaaaa")
    assert result.explained is not None
    pieces = view.explain_json(result.explained)
    assert iter(pieces) is pieces
    assert next(pieces).startswith(b'{"row":')
    whole = dumps(view.explain_record(result.explained))
    assert b"".join(view.explain_json(result.explained)) == whole
    for copies in (1000, 2001):
        counted = [result.explained.counted[0]] * copies
        many = dataclasses.replace(result.explained, counted=counted)
        joined = b"".join(view.explain_json(many))
        assert joined == dumps(view.explain_record(many))
        assert len(orjson.loads(joined)["counted"]) == copies
    out = run.invoke(  # type: ignore[attr-defined]
        main,
        [
            *("usage", "session", "--json", "--explain", "aaaaaaaa"),
            *("--home", str(mixed.path)),
        ],
    ).stdout_bytes
    assert out == whole + b"\n"


def test_explaining_a_huge_transcript_lists_the_first_responses_and_sums_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row fed by a transcript of many responses: the audit lists the first `limit`
    responses by time and dropped lines by line, says how many more there were and what
    they add up to (to the row's own figures), and holds no record per response."""
    import tracemalloc

    from sessdex import audit
    from sessdex.pricing import Catalogue
    from sessdex.sources import _usage_scan

    monkeypatch.setattr(_usage_scan, "CHUNK", 256 * 1024)
    count = 30_000
    home = _claude_home(
        tmp_path,
        (
            _claude_response(n, output=1) + _claude_response(n, output=10 + n % 7)
            for n in range(count)
        ),  # each response streamed: the first copy is dropped, its line listed
    )
    collected = usage.collect(home, ["claude"])
    Catalogue.load()
    tracemalloc.start()
    try:
        explained = audit.explain(
            home, collected, "daily", "2026-11-20", usage.Filters(), ["claude"], 50
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    row = explained.row
    assert row.responses == count
    listed = [record for _, _, record, _ in explained.counted]
    assert [r.line for r in listed] == [
        2 * n + 2 for n in range(50)
    ]  # the first, in time
    assert explained.more.responses == count - 50
    for name in usage.TOKENS:  # what is listed and what is not add up to the row
        shown = sum(getattr(r.usage, name) for r in listed)
        assert shown + getattr(explained.more, name) == getattr(row, name), name
    assert round(sum(c for *_, c in explained.counted) + explained.more.cost, 6) == (
        row.cost_usd
    )
    assert [d.line for _, _, d in explained.dropped] == [2 * n + 1 for n in range(50)]
    assert explained.more_dropped == count - 50
    assert explained.rules == {"copy-of-response": count}
    assert peak < 300 * count  # the records and copies kept per response: 1,400 bytes


def test_explain_limit_lists_that_many_and_says_what_it_left_out(
    tmp_path: Path, run: object
) -> None:
    count = 40
    home = _claude_home(
        tmp_path,
        (
            _claude_response(n, output=1) + _claude_response(n, output=20)
            for n in range(count)
        ),
    )
    args = ["usage", "--home", str(home.path), "--explain", "2026-11-20"]
    text = run.invoke(main, [*args, "--limit", "3"]).output  # type: ignore[attr-defined]
    assert "counted (40):" in text and "dropped (40):" in text
    assert text.count("  one line") + text.count(" lines of one response") == 3
    assert (
        f"… and 37 more, not listed (--limit lists more): input {sum(range(1003, 1040)):,}, "
        f"output {37 * 20:,}, cache write 0, cache read {sum(7 * n for n in range(3, 40)):,}"
    ) in text
    assert (
        "… and 37 more, not listed; every line dropped, by rule: copy-of-response 40"
        in text
    )
    audit = orjson.loads(run.invoke(main, [*args, "-n", "3", "--json"]).output)  # type: ignore[attr-defined]
    assert len(audit["counted"]) == len(audit["dropped"]) == 3
    left = audit["counted_not_listed"]
    assert left["responses"] == 37 and audit["dropped_not_listed"] == 37
    for name in ("input_tokens", "output_tokens", "cache_read_tokens"):
        listed = sum(c[name] for c in audit["counted"])
        assert listed + left[name] == audit["row"][name], name
    assert audit["dropped_by_rule"] == {"copy-of-response": 40}
    whole = orjson.loads(run.invoke(main, [*args, "--json"]).output)  # type: ignore[attr-defined]
    assert len(whole["counted"]) == 40 and whole["counted_not_listed"]["responses"] == 0
    alone = run.invoke(main, ["usage", "--home", str(home.path), "--limit", "3"])  # type: ignore[attr-defined]
    assert alone.exit_code == 2 and "--limit goes with" in alone.output
    assert "a daily report's rows are never cut" in alone.output


def test_a_session_row_audit_drops_a_response_another_session_counts(
    mixed: Home, run: object
) -> None:
    """A resumed session copies one of its parent session's responses: the report counts it
    in the first file only, and the audit of the second session's row says so, adding up
    to that row, even though the first file feeds another row."""
    result = run.invoke(  # type: ignore[attr-defined]
        main,
        [
            "usage",
            "session",
            "--home",
            str(mixed.path),
            "--json",
            "--explain",
            "bbbbbbbb",
        ],
    )
    audit = orjson.loads(result.output)
    assert audit["row"]["responses"] == len(audit["counted"]) == 1
    assert audit["row"]["input_tokens"] == sum(
        c["input_tokens"] for c in audit["counted"]
    )
    [repeat] = audit["dropped"]
    assert (repeat["line"], repeat["rule"]) == (2, "repeated-in-another-file")
    assert repeat["note"].endswith(
        "aaaaaaaa-0000-4000-8000-000000000001.jsonl counts it"
    )


@pytest.mark.parametrize("late", ["copy", "side chain"])
def test_an_audit_read_again_after_a_late_copy_lists_each_response_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, late: str
) -> None:
    """A copy (or a side chain's replay) of a response read long after it was tallied:
    the file is read again, and the audit still lists each response once, adding up to
    the row, with the late line dropped by its rule."""
    from sessdex import audit
    from sessdex.sources import _claude_usage

    monkeypatch.setattr(_claude_usage, "WINDOW", 16)
    count = 100
    lines = [_claude_response(n, output=10) for n in range(count)]
    if late == "copy":
        lines.append(_claude_response(3, output=500))
    else:
        lines.append(_claude_response(3, output=500, request="req_btw", sidechain=True))
    home = _claude_home(tmp_path, lines)
    collected = usage.collect(home, ["claude"])
    explained = audit.explain(
        home, collected, "daily", "2026-11-20", usage.Filters(), ["claude"], 10
    )
    assert explained.row.responses == len(explained.counted) + explained.more.responses
    assert explained.row.responses == count
    listed = sum(record.usage.output_tokens for _, _, record, _ in explained.counted)
    assert listed + explained.more.output_tokens == explained.row.output_tokens
    rule = "copy-of-response" if late == "copy" else "side-chain-replay"
    assert explained.rules == {rule: 1}


def test_a_session_id_holding_a_bidi_mark_explains_by_the_id_the_table_printed(
    tmp_path: Path,
) -> None:
    """The table prints an id holding a right-to-left override a file name put there
    with the shell's escape for it, never the override itself: that printed id, as the
    shell takes it, is what `--explain` takes."""
    import subprocess

    from .helpers import write_claude_session

    home = tmp_path / "home"
    raw = "\u202ec0b1ed00-0000-4000-8000-0000000000a1"
    write_claude_session(home, raw, str(tmp_path))
    run = CliRunner(env={"SESSDEX_SHELL": "bash", "COLUMNS": "160"})
    table = run.invoke(main, ["usage", "session", "--home", str(home)])
    assert table.exit_code == 0 and "\u202e" not in table.output
    row = next(line for line in table.output.splitlines() if "hello" in line)
    word = row.strip("│ ").split()[0]
    typed = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, text=True, check=True
    ).stdout
    assert typed and raw.startswith(typed), row
    audit = run.invoke(
        main,
        ["usage", "session", "--home", str(home), "--explain", typed, "--json"],
    )
    assert audit.exit_code == 0, audit.output
    assert orjson.loads(audit.output)["row"]["key"] == raw


def test_explain_of_an_id_prefix_several_sessions_share_names_each(
    mixed: Home, run: object
) -> None:
    """As `show` names the sessions a prefix matches, `usage --explain` does (it said only
    how many there were)."""
    audit = run.invoke(  # type: ignore[attr-defined]
        main, ["usage", "session", "--home", str(mixed.path), "--explain", "01a1"]
    )
    assert audit.exit_code == 1
    assert "'01a1' matches 2 sessions (2 codex); type more of the id." in audit.output
    for row in ("01a1f000-0000-7000-8000-00000000000a  Fix the flaky login test",
                "01a1f000-0000-7000-8000-00000000000b  Try another way"):  # fmt: skip
        assert row in audit.output


def test_a_time_of_day_without_an_offset_is_the_zones_however_written(
    tmp_path: Path,
) -> None:
    # 10:00 in New York is 15:00 UTC, after the response; with a blank for the T, or
    # seconds' fraction, it was read as 10:00 UTC and the response was counted
    folder = tmp_path / "home" / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    line = {"type": "assistant", "timestamp": "2026-11-28T14:30:00Z", "sessionId": "s",
            "requestId": "r1", "message": {"id": "m1", "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 10, "output_tokens": 1}}}  # fmt: skip
    (folder / "s.jsonl").write_bytes(orjson.dumps(line) + b"\n")
    home, zone = Home.at(tmp_path / "home"), usage.parse_tz("America/New_York")
    for text in ("2026-11-28T10:00", "2026-11-28 10:00", "2026-11-28T10:00:00.000"):
        since = usage.parse_day(text, zone)
        assert rows(home, "daily", ("claude",), tz=zone, since=since) == {}, text
    for text in ("2026-11-28 09:00", "2026-11-28T14:00:00Z", "2026-11-28T09:00-05:00"):
        since = usage.parse_day(text, zone)
        assert list(rows(home, "daily", ("claude",), tz=zone, since=since)) == [
            "2026-11-28"
        ], text


def _add_claude_response(home: Home, when: str, name: str) -> None:
    """One more response in Claude session A, a copy of its first, dated `when`."""
    path = home.path / ".claude/projects/-home-dev-shop/aaaaaaaa-0000-4000-8000-000000000001.jsonl"  # fmt: skip
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    record = next(line for line in lines if line.get("type") == "assistant")
    record.update(timestamp=when, uuid=name, requestId=f"req_{name}")
    record["message"]["id"] = f"msg_{name}"
    with path.open("ab") as stream:
        stream.write(orjson.dumps(record) + b"\n")


def test_a_response_dated_2099_or_the_year_1_is_counted_without_a_day(
    mixed: Home, run: object
) -> None:
    _add_claude_response(mixed, "2099-01-01T00:00:00Z", "future")
    _add_claude_response(mixed, "0001-01-01T00:00:00Z", "year1")
    args = ["usage", "--home", str(mixed.path), "--app", "claude", "--tz"]
    for zone in ("UTC", "America/New_York"):  # the year 1 is no day west of UTC
        result = run.invoke(main, [*args, zone, "--json", "--verbose"])  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        days = {row["key"]: row for row in orjson.loads(result.stdout)}
        assert "2099-01-01" not in days and not any(d.startswith("0001") for d in days)
        assert days["(no time)"]["responses"] == 2
        assert "dated in the future" in result.stderr
        assert "dated before 1970" in result.stderr
        # counted, not skipped: it said "skipped 2 unreadable lines"
        assert "unreadable" not in result.stderr
        assert (
            "warning: 2 responses dated in the future or before 1970 are counted "
            "under (no time):\n" in result.stderr
        )
    result = run.invoke(main, [*args, zone, "--explain", "(no time)"])  # type: ignore[attr-defined]
    assert result.exit_code == 0, result.output
    assert "msg_future" in result.stdout and "msg_year1" in result.stdout


def test_a_response_ahead_of_the_clock_gets_its_day_when_the_day_comes(
    mixed: Home, run: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time
    from datetime import UTC, datetime, timedelta

    ahead = datetime.now(UTC) + timedelta(days=3)
    _add_claude_response(mixed, ahead.strftime("%Y-%m-%dT%H:%M:%SZ"), "ahead")
    first = rows(mixed, "daily", ("claude",))
    assert ahead.date().isoformat() not in first and "(no time)" in first
    later = time.time() + 3 * 86400  # the sums are stored now; the file is unchanged
    monkeypatch.setattr(usage.time, "time", lambda: later)
    assert ahead.date().isoformat() in rows(mixed, "daily", ("claude",))


def test_the_unpriced_note_stays_short_whatever_the_files_name() -> None:
    # the model names come from the apps' files: a megabyte name, or hundreds of names,
    # were printed whole on stderr
    from sessdex.views import usage as view

    total = usage.Row("total")
    total.unpriced = {"x" * 200_000, *(f"made-up-{n:03}" for n in range(40))}
    note = view.unpriced_note(total)
    assert note is not None and len(note) < 1_000
    assert "made-up-000, made-up-001" in note
    assert "and 30 more ('usage model' lists them)" in note
    assert "\n" not in note


def test_json_rows_name_the_key_as_list_json_names_it(mixed: Home, run: object) -> None:
    """A session row's `key` is the `id` that `list --json` prints (and its `app`), a
    project's the `cwd`, a model's the `model`, an app's the `app`: a script joins the
    two outputs on one name. The `key` stays."""

    def records(*args: str) -> list[dict[str, object]]:
        result = run.invoke(main, [*args, "--home", str(mixed.path), "--json"])  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        return orjson.loads(result.stdout)  # type: ignore[no-any-return]

    listed = {(r["app"], r["id"]): r for r in records("list", "--all")}
    sessions = records("usage", "session")
    assert sessions
    for row in sessions:
        assert row["id"] == row["key"]
        assert (row["app"], row["id"]) in listed
        assert row["cwd"] == listed[(row["app"], row["id"])]["cwd"]
    for report, name in (("project", "cwd"), ("model", "model"), ("app", "app")):
        rows = records("usage", report)
        assert rows
        assert all(row[name] == row["key"] for row in rows), report


@pytest.mark.parametrize("report", ["session", "project", "model", "app"])
def test_limit_keeps_the_costliest_rows_and_sums_the_rest(
    mixed: Home, run: object, report: str
) -> None:
    """`usage session --limit 1`: the costliest row, then one row that sums the others
    (`"rest": true` in the JSON), so the rows still add up to the whole report."""

    def records(*args: str) -> list[dict[str, object]]:
        given = ["usage", report, "--home", str(mixed.path), "--json", *args]
        result = run.invoke(main, given)  # type: ignore[attr-defined]
        assert result.exit_code == 0, result.output
        return orjson.loads(result.stdout)  # type: ignore[no-any-return]

    whole = records()
    cut = records("--limit", "1")
    if len(whole) == 1:  # nothing left out: no rest row
        assert cut == whole
        return
    assert cut[0] == whole[0] and "rest" not in cut[0]
    rest = cut[1]
    assert (
        len(cut) == 2 and rest["rest"] is True and rest["rest_rows"] == len(whole) - 1
    )
    assert rest["key"] == f"… {len(whole) - 1} more"
    for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "responses"):  # fmt: skip
        assert sum(r[name] for r in cut) == sum(r[name] for r in whole), name  # type: ignore[misc]
    assert rest["priced_cost_usd"] == pytest.approx(
        sum(r["priced_cost_usd"] for r in whole[1:])  # type: ignore[misc]
    )
    assert records("--limit", str(len(whole))) == whole


def test_limit_table_keeps_the_whole_total(mixed: Home, run: object) -> None:
    args = ["usage", "session", "--home", str(mixed.path)]
    wide = {"COLUMNS": "160"}  # room for each title's start beside each row's app
    whole = run.invoke(main, args, env=wide)  # type: ignore[attr-defined]
    cut = run.invoke(main, [*args, "--limit", "2"], env=wide)  # type: ignore[attr-defined]
    assert cut.exit_code == 0, cut.output

    def line(output: str, start: str) -> list[str]:  # its cells, not their widths
        found = next(x for x in output.splitlines() if x.startswith(start))
        return [cell.strip() for cell in found.split("│") if cell.strip()]

    assert line(cut.stdout, "│ Total") == line(whole.stdout, "│ Total")
    assert "│ … 2 more " in cut.stdout
    assert "Fix the checkout" not in cut.stdout  # the third costliest, folded
    assert "Fix the checkout" in whole.stdout
