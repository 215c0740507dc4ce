"""A crash's run of NUL bytes with the app's next record written straight after it, on
the same line (the zeros took the newline that ended the record before): that record is
read, and the line said as one holding NUL bytes, not skipped as "not JSON"."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

DATA = Path(__file__).parent / "data"
CODEX_ID = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_ROLLOUT = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-" + CODEX_ID + ".jsonl"
)
SAID = "read 1 line holding NUL bytes"


def invoke(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def zeros_before_line(path: Path, number: int, *, torn: bytes = b"") -> None:
    """Line `number` (from 1) of `path` preceded by 4096 NULs, and by `torn` before
    them: a record the crash cut, whose newline the zeros replaced."""
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = torn + b"\x00" * 4096 + lines[number - 1]
    path.write_bytes(b"\n".join(lines))


def kinds(out: str) -> list[tuple[str, str]]:
    return [(e["kind"], e["text"] or "") for e in json.loads(out)]


def test_claude_record_after_a_nul_run_is_shown(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sid = "dddddddd-0000-4000-8000-0000000000a0"
    path = write_claude_session(home, sid, "/w/crash")
    clean, _ = invoke("show", sid, "--json", "--home", str(home))
    zeros_before_line(path, 2, torn=b'{"type":"assistant","mess')
    out, err = invoke("show", sid, "--json", "--home", str(home))
    assert kinds(out) == kinds(clean)
    assert ("assistant", "hi") in kinds(out)
    assert f"warning: {SAID}; see --verbose" in err
    tail, _ = invoke("show", sid, "--json", "--tail", "5", "--home", str(home))
    assert kinds(tail) == kinds(clean)[-5:]


def test_codex_record_after_a_nul_run_is_shown_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rollout = home / CODEX_ROLLOUT
    rollout.parent.mkdir(parents=True)
    rollout.write_bytes((DATA / "codex/home" / CODEX_ROLLOUT).read_bytes())
    clean, _ = invoke("show", CODEX_ID, "--json", "--home", str(home))
    clean_usage, _ = invoke("usage", "session", "--json", "--home", str(home))
    lines = rollout.read_bytes().split(b"\n")
    number = next(i for i, line in enumerate(lines, 1) if b'"token_count"' in line)
    zeros_before_line(rollout, number)
    out, err = invoke("show", CODEX_ID, "--json", "--home", str(home))
    assert kinds(out) == kinds(clean)
    assert SAID in err
    usage, _ = invoke("usage", "session", "--json", "--home", str(home))
    assert json.loads(usage) == json.loads(clean_usage)
