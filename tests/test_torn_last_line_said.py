"""A session file whose last line has no newline yet (the app still writing it, or a
crash cut it off) is said by `list -v`, `find -v`, `doctor` and `usage -v` as by `show -v`:
once, in the same words, for every app (Vibe's listings and usage's own readers too)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
TORN = b'{"role":"user","content":"hal'  # 29 bytes, no newline: mid-write
SAID = (
    "its last line is unfinished (29 bytes): the app may still be writing it, "
    "or it was cut off"
)
VIBE = ".vibe/logs/session"
LEGACY = f"{VIBE}/session_20261130_081121_ee760971/messages.jsonl"
CHAINED = f"{VIBE}/session_20261201_100000_3f1c2a9e/messages.jsonl"  # compacted since
JOURNAL = f"{VIBE}/unified/a63ab208-5aab-fb2c-9a25-672f66edb7ae/journal/0000000000000043.jsonl"


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _torn(tmp_path: Path, app: str, relative: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    path = home / relative
    assert path.read_bytes()[-1:] in (b"", b"\n")  # whole lines, or none yet
    with path.open("ab") as out:
        out.write(TORN)
    return home, path


@pytest.mark.parametrize("relative", [LEGACY, CHAINED, JOURNAL])
def test_a_vibe_listing_says_the_unfinished_line_once(
    relative: str, tmp_path: Path
) -> None:
    home, path = _torn(tmp_path, "vibe", relative)
    for _ in range(2):  # as the listing reads it, and from the index the next time
        code, _, err = _invoke("list", "-v", "--home", str(home))
        assert code == 0 and "unreadable" not in err
        said = [line for line in err.splitlines() if "unfinished" in line]
        assert said == [f"note: vibe: {path}: {SAID}"], err
    code, out, _ = _invoke("doctor", "--app", "vibe", "--home", str(home))
    assert code == 0 and "skipped" not in out
    said = [line for line in out.splitlines() if "unfinished" in line]
    assert said == [f"  note        {path}: {SAID}"]
    code, _, err = _invoke("list", "--home", str(home))  # without -v: nothing
    assert code == 0 and "unfinished" not in err and "unreadable" not in err


@pytest.mark.parametrize(
    ("app", "relative"),
    [
        (
            "claude",
            ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl",
        ),
        (
            "codex",
            ".codex/archived_sessions/rollout-2026-01-06T10-00-00-"
            "019bd5f2-4444-7000-8000-0000000000d4.jsonl",
        ),
        ("vibe", LEGACY),
    ],
)
def test_usage_verbose_says_the_unfinished_line_once(
    app: str, relative: str, tmp_path: Path
) -> None:
    home, path = _torn(tmp_path, app, relative)
    for _ in range(2):  # read, then counted from the index (the file unchanged)
        code, _, err = _invoke("usage", "-v", "--app", app, "--home", str(home))
        assert code == 0 and "unreadable" not in err
        said = [line for line in err.splitlines() if "unfinished" in line]
        assert said == [f"note: {path}: {SAID}"], err
    code, _, err = _invoke("usage", "--app", app, "--home", str(home))
    assert code == 0 and "unfinished" not in err and "unreadable" not in err


def test_usage_says_nothing_of_a_whole_last_line_without_its_newline(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    path = (
        home
        / ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"
    )
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    code, _, err = _invoke("usage", "-v", "--app", "claude", "--home", str(home))
    assert code == 0 and "unfinished" not in err and "unreadable" not in err
