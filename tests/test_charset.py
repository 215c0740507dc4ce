"""A terminal that cannot show every character (Latin-1, ASCII) gets readable text, never
a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api, charset

DEMO = str(api.demo_home().path)
CLAUDE_A = "3f2b9c1e"

COMMANDS = [
    ["show", CLAUDE_A, "--no-pager"],
    ["show", CLAUDE_A, "--no-pager", "--detail", "full"],
    ["export", CLAUDE_A],
    ["doctor"],
    ["watch", "--once", "--since", "3000d"],
    ["follow", CLAUDE_A, "--duration", "0"],
    ["replay", CLAUDE_A, "--speed", "1000", "--max-gap", "0"],
    ["usage", "session"],
    ["tree", CLAUDE_A],
    ["list", "--all"],
]


def _sessdex(
    args: list[str], encoding: str, state: Path
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "SESSDEX_HOME": str(state)}
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", DEMO],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_every_command_prints_in_the_terminals_encoding(
    encoding: str, tmp_path: Path
) -> None:
    for args in COMMANDS:
        done = _sessdex(args, encoding, tmp_path)
        shown = " ".join(args)
        assert b"Traceback" not in done.stderr, (shown, done.stderr.decode())
        assert done.returncode == 0, (shown, done.stderr.decode())
        # what was written is text in that encoding (not UTF-8 behind its back), but
        # an export to a pipe: the file `-o` writes, UTF-8 in any locale
        done.stdout.decode("utf-8" if args[0] == "export" else encoding)
        done.stderr.decode(encoding)
        assert done.stdout.strip(), shown
    # click's own help: it writes UTF-8 to an ASCII stream (taking it for a broken
    # locale), the rest as sessdex does
    done = _sessdex(["usage", "--help"], encoding, tmp_path)
    assert done.returncode == 0 and not done.stderr
    if encoding != "ascii":
        done.stdout.decode(encoding)


def test_sessdex_marks_read_as_ascii(tmp_path: Path) -> None:
    show = _sessdex(["show", CLAUDE_A, "--no-pager"], "ascii", tmp_path)
    out = show.stdout.decode("ascii")
    assert "\nclaude - 3f2b9c1e" in out  # the header's "·"
    assert "Using Bash - pytest" in out  # "Using Bash — pytest"
    assert "  | ......" in out and "    42 passed in 2.84s" in out  # "  ⎿ ..."
    assert "?" not in out.splitlines()[1]
    doctor = _sessdex(["doctor"], "ascii", tmp_path).stdout.decode("ascii")
    assert "Claude Code (claude): " in doctor and " - " in doctor
    latin = _sessdex(["show", CLAUDE_A, "--no-pager"], "latin-1", tmp_path)
    assert "claude · 3f2b9c1e" in latin.stdout.decode("latin-1")  # Latin-1 has "·"


def test_fallback_keeps_widths_and_file_name_bytes() -> None:
    charset.register()
    text = "a—b…c 日本 e\u0301 \udcff ⎿ └"
    assert text.encode("ascii", charset.FALLBACK) == b"a-b~c ???? e \xff | `"
    assert "é—".encode("latin-1", charset.FALLBACK) == "é-".encode("latin-1")
    # UTF-8 stays UTF-8; only a lone surrogate needs the fallback there
    assert "—\udcff".encode("utf-8", charset.FALLBACK) == "—".encode() + b"\xff"
    # a name's byte that a Latin-1 terminal reads as a C1 control (0x9b: CSI) is not
    assert "a\udc9b[2J".encode("latin-1", charset.FALLBACK) == b"a?[2J"


def test_an_error_handler_the_user_chose_is_kept(tmp_path: Path) -> None:
    done = _sessdex(
        ["show", CLAUDE_A, "--no-pager"], "ascii:xmlcharrefreplace", tmp_path
    )
    assert done.returncode == 0
    assert b"&#183;" in done.stdout  # "·"


def test_a_folder_cut_at_its_start_reads_as_no_home_folder(tmp_path: Path) -> None:
    """A folder too long for its column loses its start to `…`, which an ASCII terminal
    got as `~`: `~de/shop-api` read as user de's home, `~/alex/code` as the reader's."""
    env = {
        **os.environ,
        "PYTHONIOENCODING": "ascii",
        "COLUMNS": "70",
        "SESSDEX_HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--home", DEMO],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=True,
    )
    rows = done.stdout.decode("ascii").splitlines()
    assert [row.split()[4] for row in rows] == [
        "*de/shop-api",
        "*de/shop-api",
        "*e/docs-site",
    ]
    assert rows[0].endswith("Checkout timeout unde~")  # a text's cut end stays `~`
    charset.register()
    assert "a …/code b…".encode("ascii", charset.FALLBACK) == b"a */code b~"
    assert "…".encode("ascii", charset.FALLBACK) == b"~"
