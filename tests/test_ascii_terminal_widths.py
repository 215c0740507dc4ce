"""On a terminal that shows ASCII alone, a character drawn in no column (a zero-width
non-joiner, a joiner) prints nothing and an emoji sequence `?` for each column it takes,
so that the columns measured for the terminal's cells still line up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import write_claude_session

TITLES = {
    # a zero-width non-joiner, as Persian writes it inside a word
    "1c0b1ed0-0000-4000-8000-000000000001": "zero\u200cwidth non\u200cjoiner",
    "2c0b1ed0-0000-4000-8000-000000000002": "family \U0001f468\u200d\U0001f469\u200d\U0001f467 trip",
    "3c0b1ed0-0000-4000-8000-000000000003": "plain ascii title",
}


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for n, (session_id, title) in enumerate(TITLES.items()):
        path = write_claude_session(home, session_id, "/srv/shop", title=title)
        text = path.read_text().replace("msg_1", f"msg_{n}").replace("req_1", f"r{n}")
        path.write_text(text)
    return home


def _ascii(args: list[str], home: Path, state: Path) -> list[str]:
    env = {
        **os.environ,
        "PYTHONIOENCODING": "ascii",
        "COLUMNS": "60",
        "SESSDEX_HOME": str(state),
    }
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode("ascii").splitlines()


def test_list_lines_keep_their_columns(tmp_path: Path) -> None:
    lines = _ascii(["list"], _home(tmp_path), tmp_path / "state")
    assert len(lines) == 3
    assert any(line.endswith(" zerowidth nonjoiner") for line in lines)
    assert any(line.endswith(" family ?? trip") for line in lines)
    assert len({line.index("/srv/shop") for line in lines}) == 1


def test_a_usage_table_keeps_its_borders(tmp_path: Path) -> None:
    lines = _ascii(["usage", "session"], _home(tmp_path), tmp_path / "state")
    rows = [line for line in lines if line.startswith("|")]
    assert len(rows) >= 4  # header, three sessions, total
    assert len({len(line) for line in rows}) == 1, rows
