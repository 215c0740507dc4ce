"""A session file an app rewrites in place at the same size (a Gemini CLI chat kept as one
JSON document, retitled) within one tick of its file system's clock (two seconds on FAT,
one on ext3, HFS+ and many network mounts): its stat looks as it did when the index read
it, and a warm listing showed the old title (a warm `usage` the old counts) until the file
changed again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api, freshness, quick
from sessdex.sources import Home

from .conftest import app_home

TICK_NS = 2 * 10**9  # FAT's: every stamp a whole, even second
CHAT = "session-2025-11-02T10-15-5a1e9c3b.json"
OLD, NEW = b"and report failures", b"AND REPORT FAILURES"
SETTLED = 1_767_225_600  # 2026-01-01, long before any test runs


@pytest.fixture()
def coarse_clock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Every path under `tmp_path / "app"` stamped as a FAT drive stamps it: its change
    and modification times cut to the two seconds they fall in (ctime included, which no
    test can set otherwise)."""
    real = os.stat
    app = str(tmp_path / "app")

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        st = real(path, *args, **kwargs)  # type: ignore[arg-type]
        if not isinstance(path, str | os.PathLike) or not os.fspath(path).startswith(
            app
        ):
            return st
        mtime = st.st_mtime_ns - st.st_mtime_ns % TICK_NS
        ctime = st.st_ctime_ns - st.st_ctime_ns % TICK_NS
        return os.stat_result(
            (*st[:7], mtime // 10**9, mtime // 10**9, ctime // 10**9),
            {"st_atime_ns": mtime, "st_mtime_ns": mtime, "st_ctime_ns": ctime},
        )

    monkeypatch.setattr(os, "stat", stat)
    yield


def _rewritten_in_one_tick(
    tmp_path: Path,
    listed: object,
    old: bytes = OLD,
    new: bytes = NEW,
    app: str = "gemini",
    name: str = CHAT,
) -> Path:
    """`app`'s fixture home copied, listed by `listed(home)`, and its file `name`
    rewritten at the same size (`old` made `new`), all within one tick of the clock
    (tried again in the next tick when a busy machine let one pass)."""
    home = tmp_path / "app" / "home"
    for _ in range(5):
        time.sleep((TICK_NS - time.time_ns() % TICK_NS) / 10**9 + 0.01)
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(app_home(app), home)
        # folders long settled: the file alone is new
        for folder, _, _ in os.walk(home):
            os.utime(folder, (SETTLED, SETTLED))
        chat = next(home.rglob(name))
        before = os.stat(chat)
        listed(home)  # type: ignore[operator]
        data = chat.read_bytes()
        chat.write_bytes(data.replace(old, new))
        after = os.stat(chat)
        if (after.st_ctime_ns, after.st_size) == (before.st_ctime_ns, before.st_size):
            return home
    pytest.fail("no tick of two seconds held a listing")


def _titles(home: Path) -> set[str]:
    return {s.title for s in api.list_sessions(Home.at(home)).sessions()}


@pytest.mark.usefixtures("coarse_clock")
def test_a_chat_retitled_in_the_tick_it_was_listed_in_is_listed_with_its_new_title(
    tmp_path: Path,
) -> None:
    _titles(app_home("gemini"))  # the modules loaded: the tick is spent on the listing
    home = _rewritten_in_one_tick(tmp_path, _titles)
    titles = _titles(home)
    assert "Run the test suite AND REPORT FAILURES" in titles
    assert "Run the test suite and report failures" not in titles


@pytest.mark.usefixtures("coarse_clock")
def test_the_quick_path_lists_a_chat_retitled_in_that_tick_with_its_new_title(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _titles(app_home("gemini"))
    home = _rewritten_in_one_tick(tmp_path, _titles)
    capsysbinary.readouterr()
    args = ["--json", "--home", str(home), "--app", "gemini"]
    if quick.answer("list", args):
        titles = {row["title"] for row in json.loads(capsysbinary.readouterr().out)}
    else:  # it stepped aside (every file of the home is new): the full command answers
        titles = _titles(home)
    assert "Run the test suite AND REPORT FAILURES" in titles
    assert "Run the test suite and report failures" not in titles


def _output_tokens(home: Path, app: str = "gemini") -> int:
    report = api.usage_report(Home.at(home), "daily", apps=[app])
    return report.total.output_tokens


@pytest.mark.usefixtures("coarse_clock")
def test_usage_counts_a_chat_rewritten_in_the_tick_it_was_counted_in(
    tmp_path: Path,
) -> None:
    before = _output_tokens(app_home("gemini"))
    home = _rewritten_in_one_tick(
        tmp_path, _output_tokens, b'"output": 10,', b'"output": 90,'
    )
    assert _output_tokens(home) == before + 80


@pytest.mark.usefixtures("coarse_clock")
def test_usage_counts_a_transcript_rewritten_in_the_tick_it_was_counted_in(
    tmp_path: Path,
) -> None:
    """A Claude Code transcript, whose sums are kept by its file's stat (`usage`'s own)."""
    before = _output_tokens(app_home("claude"), "claude")
    home = _rewritten_in_one_tick(
        tmp_path,
        lambda home: _output_tokens(home, "claude"),
        b'"output_tokens":80',
        b'"output_tokens":90',
        "claude",
        "11111111-1111-4111-8111-111111111111.jsonl",
    )
    assert _output_tokens(home, "claude") == before + 10


def test_usage_counts_a_chat_rewritten_at_its_size(tmp_path: Path) -> None:
    """On any clock: a chat's counts rewritten in place, its size and listing (title,
    times) as they were, were summed as before: its sums were kept by its listing alone."""
    home = tmp_path / "home"
    shutil.copytree(app_home("gemini"), home)
    command = [sys.executable, "-m", "sessdex", "usage", "--json", "--home", str(home)]

    def output_tokens() -> int:
        done = subprocess.run(command, capture_output=True, check=True)
        return sum(row["output_tokens"] for row in json.loads(done.stdout))

    before = output_tokens()
    chat = next(home.rglob(CHAT))
    chat.write_bytes(chat.read_bytes().replace(b'"output": 10,', b'"output": 90,'))
    assert output_tokens() == before + 80


# A fine clock's stamp (not of whole seconds) ahead of the machine's (a file server's
# clock, a few seconds fast): a rewrite at the same size in the writer's tick keeps it,
# as any stamp set back with `os.utime` does here, the change time before it.
def _ahead_ns() -> int:
    return (time.time_ns() // 10**9 + 60) * 10**9 + 123_456_789


def _stamped(path: Path, stamp: int) -> None:
    os.utime(path, ns=(stamp, stamp))


def _rewritten_keeping_its_stat(path: Path, old: bytes, new: bytes, stamp: int) -> None:
    """`path` rewritten in place at its size (`old` made `new`), its stamp put back: its
    stat, change time included (behind the stamp), looks as it did."""
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(old, new))
    _stamped(path, stamp)
    after = os.stat(path)
    assert (after.st_size, after.st_ino) == (before.st_size, before.st_ino)
    assert max(after.st_mtime_ns, after.st_ctime_ns) == stamp


def test_a_fine_stamp_changed_in_the_tick_before_a_read_is_read_again(
    fine_tick: int,
) -> None:
    since = time.time_ns()
    tick = fine_tick
    assert 2_000_000 <= tick <= 32_000_000  # twice a tick of 1 to 16 ms
    racy = (10, since - tick // 2, 7, "")
    if racy[1] % 10**9 == 0:  # a whole second: the coarse rule's
        racy = (10, racy[1] - 1, 7, "")
    assert freshness.settled(racy, since)[1] == freshness.UNKNOWN
    older = (10, since - 2 * tick - 1, 7, "")
    assert freshness.settled(older, since) == older
    ahead = (10, since + 60 * 10**9 + 1, 7, "")
    assert freshness.settled(ahead, since)[1] == freshness.UNKNOWN
    far_ahead = (10, since + freshness.SKEW_NS + 10**9 + 1, 7, "")
    assert freshness.settled(far_ahead, since) == far_ahead


def test_a_chat_stamped_ahead_of_the_clock_and_rewritten_in_its_tick_lists_its_new_title(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("gemini"), home)
    chat = next(home.rglob(CHAT))
    stamp = _ahead_ns()
    _stamped(chat, stamp)
    assert "Run the test suite and report failures" in _titles(home)
    _rewritten_keeping_its_stat(chat, OLD, NEW, stamp)
    titles = _titles(home)
    assert "Run the test suite AND REPORT FAILURES" in titles
    assert "Run the test suite and report failures" not in titles


OPENHANDS_EVENT = "event-00000.json"
ASKED, ASKED_AGAIN = b"Why does the build fail?", b"WHY DOES THE BUILD FAIL?"


def test_a_side_file_rewritten_in_the_tick_of_its_read_lists_its_new_title(
    tmp_path: Path,
) -> None:
    """An OpenHands conversation's first event (its title: the first prompt), a file its
    listing read beside base_state.json, rewritten at its size in its clock's tick."""
    home = tmp_path / "home"
    shutil.copytree(app_home("openhands"), home)
    event = next(p for p in home.rglob(OPENHANDS_EVENT) if ASKED in p.read_bytes())
    stamp = _ahead_ns()
    _stamped(event, stamp)
    assert "Why does the build fail?" in _titles(home)
    _rewritten_keeping_its_stat(event, ASKED, ASKED_AGAIN, stamp)
    titles = _titles(home)
    assert "WHY DOES THE BUILD FAIL?" in titles
    assert "Why does the build fail?" not in titles
