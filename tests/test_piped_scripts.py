"""What a script sees of sessdex through a pipe: each command run as a real process
(`python -m sessdex`), its stdout read as bytes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import write_claude_session

CAFE = "c0b1ed00-0000-4000-8000-000000000055"


def _sessdex(
    home: Path, state: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env={**os.environ, "SESSDEX_HOME": str(state), **env},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


# an ASCII locale with Python's UTF-8 mode off: what sessdex prints is ASCII
_ASCII = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


@pytest.mark.parametrize("shell", ["bash", "dash", "fish"])
def test_resume_print_in_an_ascii_locale_enters_a_folder_named_past_ascii(
    tmp_path: Path, shell: str
) -> None:
    """It printed `cd '/…/caf?'`: a `?` for each letter ASCII has not, a folder that is
    not there. Now each such letter is its UTF-8 bytes' escape, as a control is."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    folder = tmp_path / "café ☕ 日本"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, CAFE, str(folder), title="Menu du jour")
    kind = {"bash": "bash", "dash": "sh", "fish": "fish"}[shell]
    printed = _sessdex(
        home, tmp_path / "state", "resume", CAFE[:8], "--print",
        SESSDEX_SHELL=kind, **_ASCII,
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr.decode()
    line = printed.stdout.decode("ascii").strip()
    assert "?" not in line
    # the line's `cd` part, run by that shell in the same locale, enters the folder
    cd = line.split(" && ")[0]
    entered = subprocess.run(
        [shell, "-c", f"{cd} && pwd"],
        env={**os.environ, "LC_ALL": "C"},
        capture_output=True,
        check=False,
    )
    assert entered.returncode == 0, entered.stderr.decode()
    assert entered.stdout.strip() == os.fsencode(folder)


def test_every_watch_json_row_has_the_same_keys_pid_included(tmp_path: Path) -> None:
    """A session's row had no `pid` key, where a CLI with no session yet has one: a
    script reading `row["pid"]` failed. Every row has it now, null for a session."""
    home = tmp_path / "home"
    write_claude_session(home, CAFE, "/srv/shop", title="Menu du jour")
    state = tmp_path / "state"
    for mode in ("--json", "--nl"):
        done = _sessdex(home, state, "watch", mode, "--once", "--since", "3000w")
        assert done.returncode == 0, done.stderr.decode()
        text = done.stdout.decode()
        rows = (
            json.loads(text)
            if mode == "--json"
            else list(map(json.loads, text.splitlines()))
        )
        assert [row["id"] for row in rows] == [CAFE]
        assert rows[0]["pid"] is None


def test_export_html_to_stdout_in_an_ascii_locale_writes_the_pages_utf8(
    tmp_path: Path,
) -> None:
    """`export -f html > page.html` under an ASCII locale wrote `?` for every letter
    past ASCII into a page whose charset says UTF-8; `-o` wrote them. Now stdout gets
    the bytes `-o` writes, as `export -f json` did."""
    home = tmp_path / "home"
    write_claude_session(
        home, CAFE, "/srv/shop", title="Menu du café", prompt="Menu du café 日本"
    )
    state = tmp_path / "state"
    piped = _sessdex(home, state, "export", CAFE[:8], "-f", "html", **_ASCII)
    assert piped.returncode == 0, piped.stderr.decode()
    assert "Menu du café 日本".encode() in piped.stdout
    written = tmp_path / "page.html"
    done = _sessdex(home, state, "export", CAFE[:8], "-o", str(written), **_ASCII)
    assert done.returncode == 0, done.stderr.decode()
    assert piped.stdout == written.read_bytes()


def test_export_md_to_a_pipe_in_an_ascii_locale_writes_utf8_and_ascii_on_a_terminal(
    tmp_path: Path,
) -> None:
    """`export -f md > notes.md` under an ASCII locale wrote `?` for every letter past
    ASCII, where `-o notes.md` (and html, json to stdout) wrote UTF-8. A file or a pipe
    now gets the bytes `-o` writes; a terminal still gets what it can show, as `show`."""
    from tests.helpers import on_a_terminal

    home = tmp_path / "home"
    write_claude_session(
        home, CAFE, "/srv/shop", title="Menu du café", prompt="Menu du café 日本"
    )
    state = tmp_path / "state"
    piped = _sessdex(home, state, "export", CAFE[:8], "-f", "md", **_ASCII)
    assert piped.returncode == 0, piped.stderr.decode()
    assert "Menu du café 日本".encode() in piped.stdout
    written = tmp_path / "notes.md"
    done = _sessdex(home, state, "export", CAFE[:8], "-o", str(written), **_ASCII)
    assert done.returncode == 0, done.stderr.decode()
    assert piped.stdout == written.read_bytes()
    args = ["export", CAFE[:8], "-f", "md", "--home", str(home)]
    env = {**os.environ, "SESSDEX_HOME": str(state), **_ASCII}
    result, seen = on_a_terminal(args, env, stdout_too=True)
    assert result.returncode == 0
    assert "Menu du caf" in seen and "é" not in seen and "日" not in seen
