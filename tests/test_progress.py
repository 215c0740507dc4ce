"""What a person sees on the terminal while sessdex works: progress on stderr (a terminal
only) for anything slow, nothing in the output, and a quiet stop on Ctrl-C.

Real processes on a pseudo-terminal. SESSDEX_PROGRESS_AFTER=0 stands for work over a
second, so that no test waits on a clock; what is slow is made slow by size (a sparse
transcript of hundreds of MB: read in full, it costs time and no disk).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import merged_home
from tests.helpers import (
    big_claude_session,
    holes_unseen,
    interrupted_on_a_terminal,
    on_a_terminal,
    write_claude_session,
)

BIG = "bbbbbbbb-0000-4000-8000-00000000000b"
MB = 1024 * 1024


def now() -> dict[str, str]:
    """Progress at once, and a big transcript's hole read through, as slowly as a big
    transcript (where holes are seen, it is passed over at once: test_sparse_files.py)."""
    return holes_unseen({**os.environ, "SESSDEX_PROGRESS_AFTER": "0"})


@pytest.mark.parametrize(
    "args",
    [
        ["show", "{id}", "--tail", "5"],
        ["show", "{id}", "--json", "--tail", "5"],
        ["tree", "{id}", "--json"],
        ["export", "{id}", "-f", "json"],
        ["resume", "{id}", "--json"],
        ["follow", "{id}", "--nl", "--duration", "0"],
        ["replay", "{id}", "--nl", "--duration", "0"],
        ["watch", "--json", "--since", "9999d"],
    ],
    ids=lambda args: " ".join(a for a in args if a != "{id}"),
)
def test_a_first_index_shows_progress_for_every_command_that_waits_on_it(
    tmp_path: Path, args: list[str]
) -> None:
    """A session id (or the board) is looked up in the index, which a first run builds
    from every session on the machine: tens of seconds on a big home, which showed a
    silent terminal before the output."""
    home = merged_home(tmp_path / "home")
    write_claude_session(home, BIG, "/w/project")
    argv = [a.replace("{id}", BIG) for a in args] + ["--home", str(home)]
    result, terminal = on_a_terminal(argv, now())
    assert result.returncode == 0, terminal
    assert "Indexing sessions" in terminal or "Reading" in terminal
    assert b"\x1b" not in result.stdout and b"Indexing" not in result.stdout
    if "--json" in args or "-f" in args:
        json.loads(result.stdout)


def test_one_big_file_shows_progress_while_it_is_read(tmp_path: Path) -> None:
    """Progress counted in files showed only once one file of several was done: usage
    over one 300 MB transcript, or doctor --deep, showed nothing until the end."""
    home = tmp_path / "home"
    big_claude_session(home, BIG, 300 * MB)
    for args, label in (
        (["usage", "--json"], "Reading usage"),
        (["doctor", "--deep", "--json"], "Reading transcripts"),
    ):
        result, terminal = on_a_terminal([*args, "--home", str(home)], now())
        assert result.returncode == 0, terminal
        assert label in terminal, args
        json.loads(result.stdout)


def test_show_into_a_file_keeps_its_spinner_to_the_end(tmp_path: Path) -> None:
    """`sessdex show ID > file` writes nothing the person sees: the spinner stays while
    the transcript is read (it stopped at the first event, meant for a pager)."""
    home = tmp_path / "home"
    big_claude_session(home, BIG, 300 * MB)
    on_a_terminal(["list", "--home", str(home)], dict(os.environ))  # indexed
    result, terminal = on_a_terminal(["show", BIG, "--home", str(home)], now())
    assert result.returncode == 0
    assert f"Reading {BIG}" in terminal and "events" in terminal
    assert b"hello there" in result.stdout and b"\x1b" not in result.stdout


def test_progress_never_goes_to_a_pipe(tmp_path: Path) -> None:
    home = tmp_path / "home"
    big_claude_session(home, BIG, 64 * MB)
    for args in (["show", BIG, "--tail", "3"], ["usage", "--json"], ["tree", BIG]):
        piped = subprocess.run(
            [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
            env=now(),
            capture_output=True,
            timeout=60,
        )
        assert piped.returncode == 0
        said = piped.stderr + piped.stdout  # a warning (the NUL line) is no progress
        assert b"\x1b" not in said and b"Indexing" not in said, args
        assert b"Reading" not in said and b"events" not in said, args


@pytest.mark.parametrize(
    ("args", "once"),
    [
        (["show", BIG, "--json"], f"Reading {BIG}"),
        (["export", BIG, "-f", "html"], f"Exporting {BIG}"),
        (["usage", "daily"], "Reading usage"),
    ],
)
def test_ctrl_c_stops_at_once_quietly_as_the_shell_expects(
    tmp_path: Path, args: list[str], once: str
) -> None:
    """Ctrl-C printed click's "Aborted!" and exited 1: a shell loop around sessdex went on
    to its next turn. Now the progress is cleared, nothing else is said, and the process
    ends killed by SIGINT (the shell's $? is 130)."""
    home = tmp_path / "home"
    big_claude_session(home, BIG, 4096 * MB)  # minutes to read whole
    code, terminal = interrupted_on_a_terminal(
        [*args, "--home", str(home)], now(), once=once
    )
    assert code == -signal.SIGINT, terminal
    assert "Traceback" not in terminal and "Aborted" not in terminal
    assert terminal.rfind("\x1b[?25h") > terminal.rfind("\x1b[?25l")  # cursor back
    assert terminal.rstrip("\r\n").endswith("\x1b[2K")  # the bar's line cleared


@pytest.mark.parametrize(
    ("args", "once"),
    [
        (["show", BIG, "--json"], f"Reading {BIG}"),
        (["usage", "daily"], "Reading usage"),
    ],
)
def test_sigterm_gives_the_cursor_back(
    tmp_path: Path, args: list[str], once: str
) -> None:
    """SIGTERM (`kill`, `timeout 60 sessdex …`) ended sessdex at once, leaving the
    terminal's cursor hidden by the progress bar (or the live board) for the next
    command; now the bar is cleared and the cursor shown, as on Ctrl-C, and the
    process still ends killed by SIGTERM."""
    home = tmp_path / "home"
    big_claude_session(home, BIG, 4096 * MB)  # minutes to read whole
    code, terminal = interrupted_on_a_terminal(
        [*args, "--home", str(home)], now(), once=once, sent=signal.SIGTERM
    )
    assert code == -signal.SIGTERM, terminal
    assert "Traceback" not in terminal
    assert terminal.rfind("\x1b[?25h") > terminal.rfind("\x1b[?25l")  # cursor back


@pytest.mark.parametrize(
    ("sent", "code"),
    [(signal.SIGINT, -signal.SIGINT), (signal.SIGTERM, -signal.SIGTERM)],
)
def test_an_export_stopped_half_way_leaves_the_file_as_it_was(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    """Ctrl-C or SIGTERM during `export -o report.md` left report.md cut short, a
    finished export from before lost, without a word. Now the export is written beside
    it and takes its place once whole: stopped, the old file is untouched and nothing
    else is left in the folder."""
    import time

    home = tmp_path / "home"
    big_claude_session(home, BIG, 4096 * MB)  # minutes to read whole
    out = tmp_path / "out"
    out.mkdir()
    report = out / "report.md"
    report.write_text("an export from yesterday\n")
    args = ["export", BIG, "-o", str(report), "--home", str(home)]
    process = subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args],
        env=holes_unseen(dict(os.environ)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        # the export under way: its file made beside, or (as before) the old one cut
        if len(os.listdir(out)) > 1 or report.stat().st_size == 0:
            break
        time.sleep(0.02)
    time.sleep(0.2)  # well into the transcript
    os.killpg(process.pid, sent)
    _, said = process.communicate(timeout=30)
    assert process.returncode == code, said
    assert b"Traceback" not in said
    assert report.read_text() == "an export from yesterday\n"
    assert os.listdir(out) == ["report.md"]
