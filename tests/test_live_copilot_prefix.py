"""A Copilot CLI reopened on a session by the start of its id (`copilot --resume=7d1c2a4`,
which the CLI takes for the session whose id alone starts so, from 7 characters on) is
that session's process; a start two sessions share, or a shorter one, names none."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessdex.live import Processes, attach_processes
from sessdex.sources import get

from .test_live_resumed import BOOT, HOUR, OLD, fake_process, idle, proc_root

TWIN = OLD[:8] + "-0000-4000-8000-000000000000"  # shares OLD's first 8 characters


@pytest.mark.parametrize(
    "words",
    [
        ["--resume=" + OLD[:7]],
        ["--resume", OLD[:13]],
        ["-r", OLD[:8]],
        ["--model", "gpt-5", "--resume=" + OLD[:10]],
    ],
)
def test_a_copilot_resumed_by_an_id_prefix_is_that_sessions(
    tmp_path: Path, words: list[str]
) -> None:
    root, work, elsewhere = proc_root(tmp_path), tmp_path / "work", tmp_path / "b"
    work.mkdir()
    elsewhere.mkdir()
    now = BOOT + 4 * HOUR
    fake_process(root, 11, ["copilot", *words], elsewhere, started=now - 60)
    processes = Processes(root=root)
    processes.refresh(force=True)
    reopened = idle("copilot", OLD, work, now, BOOT + HOUR)
    attach_processes([reopened], processes)
    assert (reopened.alive, reopened.pids) == (True, [11])
    assert reopened.status(now, processes).reason == "waiting for you for 3h"


@pytest.mark.parametrize("prefix", [OLD[:8], OLD[:6]])
def test_an_ambiguous_or_short_prefix_names_no_session(
    tmp_path: Path, prefix: str
) -> None:
    """Two sessions start with those 8 characters, and 6 are fewer than the CLI takes
    for an id: the CLI has no session of these open."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + 4 * HOUR
    fake_process(root, 11, ["copilot", "--resume=" + prefix], work, started=now - 60)
    processes = Processes(root=root)
    processes.refresh(force=True)
    first = idle("copilot", OLD, work, now, BOOT + HOUR)
    second = idle("copilot", TWIN, work, now, BOOT + HOUR)
    attach_processes([first, second], processes)
    assert (first.pids, second.pids) == ([], [])
    assert first.status(now, processes).reason == "exited after its turn, 3h ago"


def test_the_copilot_reader_says_what_a_prefix_is() -> None:
    source = get("copilot")
    opened = source.process_session(["copilot", "--resume=" + OLD[:7]])  # type: ignore[attr-defined]
    assert opened is not None and opened.chosen and opened.prefix == OLD[:7]
    named = source.process_session(["copilot", "--resume", "checkout-retry"])  # type: ignore[attr-defined]
    assert named is not None and named.chosen and named.prefix is None
