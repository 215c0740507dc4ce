"""A response whose token count is a value no app writes whole (a fraction, a float past
any count, a bool, a string) still counts in `usage`, as `show` counts it: its broken
count as 0, its other counts kept. The fast usage scans lost the whole response unsaid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CLAUDE = "11111111-1111-4111-8111-111111111111"
CLAUDE_FILE = f".claude/projects/-home-dev-shop/{CLAUDE}.jsonl"
CODEX = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_FILE = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-01a22b81-6e0b-7650-ac72-"
    "188ccaa967c5.jsonl"
)
# each broken count, and what `show` (the reader, `as_int`) counts it as
BROKEN = [(5.5, 5), (1e308, 0), (True, 0), ("thirty", 0)]


def _usage(home: Path, app: str, id_: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["usage", "session", "--json", "--app", app, "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    return next(row for row in json.loads(result.stdout) if row["id"] == id_)


def _rewrite(path: Path, number: int, change: object) -> None:
    lines = path.read_text().split("\n")
    value = json.loads(lines[number - 1])
    change(value)  # type: ignore[operator]
    lines[number - 1] = json.dumps(value)
    path.write_text("\n".join(lines))


@pytest.mark.parametrize(("broken", "counted"), BROKEN)
def test_claude_a_broken_output_count_keeps_its_response(
    broken: object, counted: int, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    before = _usage(home, "claude", CLAUDE)
    # line 8: a response of input 3, output 20, cache read 2,200
    _rewrite(
        home / CLAUDE_FILE,
        8,
        lambda v: v["message"]["usage"].__setitem__("output_tokens", broken),
    )
    after = _usage(tmp_path / "home", "claude", CLAUDE)
    assert after["responses"] == before["responses"]
    assert after["input_tokens"] == before["input_tokens"]
    assert after["cache_read_tokens"] == before["cache_read_tokens"]
    assert after["output_tokens"] == before["output_tokens"] - 20 + counted  # type: ignore[operator]


@pytest.mark.parametrize(("broken", "counted"), BROKEN)
def test_codex_a_broken_output_count_keeps_its_response(
    broken: object, counted: int, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home, symlinks=True)
    before = _usage(home, "codex", CODEX)

    def last_output(value: dict[str, dict[str, dict[str, dict[str, object]]]]) -> None:
        value["payload"]["info"]["last_token_usage"]["output_tokens"] = broken

    _rewrite(home / CODEX_FILE, 18, last_output)  # input 1,200, output 30
    after = _usage(home, "codex", CODEX)
    assert after["responses"] == before["responses"]
    assert after["input_tokens"] == before["input_tokens"]
    assert after["output_tokens"] == before["output_tokens"] - 30 + counted  # type: ignore[operator]


def _set(path: tuple[str, ...], new: object) -> object:
    def change(value: dict[str, object]) -> None:
        for key in path[:-1]:
            value = value[key]  # type: ignore[assignment]
        value[path[-1]] = new

    return change


# a member of a type the app never writes there, beside counts that are whole
CLAUDE_ODD = [
    (("timestamp",), 1764490211371),
    (("message", "model"), 42),
    (("isSidechain",), "no"),
    (("message", "usage", "iterations"), {"a": 1}),
    (("message", "usage", "server_tool_use"), [1]),
]
CODEX_ODD = [
    (("timestamp",), 1764490211371),
    (("ordinal",), "x"),
    (("payload", "info", "model"), 5),
    (("payload", "info", "total_token_usage"), "none"),
]


@pytest.mark.parametrize(("path", "new"), CLAUDE_ODD)
def test_claude_an_odd_member_keeps_its_response(
    path: tuple[str, ...], new: object, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    before = _usage(home, "claude", CLAUDE)
    _rewrite(home / CLAUDE_FILE, 8, _set(path, new))
    after = _usage(home, "claude", CLAUDE)
    for name in ("responses", "input_tokens", "output_tokens", "cache_read_tokens"):
        assert after[name] == before[name], name


@pytest.mark.parametrize(("path", "new"), CODEX_ODD)
def test_codex_an_odd_member_keeps_its_response(
    path: tuple[str, ...], new: object, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home, symlinks=True)
    before = _usage(home, "codex", CODEX)
    _rewrite(home / CODEX_FILE, 18, _set(path, new))
    after = _usage(home, "codex", CODEX)
    for name in ("responses", "input_tokens", "output_tokens"):
        assert after[name] == before[name], name


def test_explain_lines_add_up_to_the_row_where_a_count_is_negative(
    tmp_path: Path,
) -> None:
    # a count below zero is taken as 0 by the row: the explained line said the count
    # itself (in -5000), and its lines no longer added up to the row
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    _rewrite(home / CLAUDE_FILE, 8, _set(("message", "usage", "input_tokens"), -5000))
    args = ["usage", "session", "--explain", CLAUDE, "--home", str(home)]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    explained = json.loads(result.stdout)
    counted = explained["counted"]
    assert sum(c["input_tokens"] for c in counted) == explained["row"]["input_tokens"]
    line = next(c for c in counted if c["line"] == 8)
    assert line["input_tokens"] == 0
    assert "in -5000" in line["note"]
    text = CliRunner().invoke(main, args).stdout
    assert "in -5000" not in text.split("taken as 0")[0]
    assert "counts no response has, taken as 0: in -5000" in text
