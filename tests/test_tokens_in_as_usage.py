"""`tree`, `show` and `export` say "in" for the input `usage` counts, the cache apart: the
demo's claude session said `28.2k in, 420 out` in `tree` and `*Tokens: 28.2k in, …*` in
its export, where `usage` gave it input 1,800 (26,000 cache read, 400 cache write)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)
CLAUDE = "3f2b9c1e"


def _run(tmp_path: Path, *args: str) -> str:
    env = {"SESSDEX_HOME": str(tmp_path / "s"), "COLUMNS": "200"}
    result = CliRunner().invoke(main, [*args, "--home", DEMO], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_tree_and_exports_count_input_as_usage_does(tmp_path: Path) -> None:
    (row,) = [
        r
        for r in json.loads(_run(tmp_path, "usage", "session", "--json"))
        if r["id"].startswith(CLAUDE)
    ]
    assert (row["input_tokens"], row["output_tokens"]) == (1800, 420)
    assert row["cache_read_tokens"] + row["cache_write_tokens"] == 26_400
    said = "1.8k in, 26.4k cache, 420 out"
    assert f"· {said} ·" in _run(tmp_path, "tree", CLAUDE)
    assert _run(tmp_path, "export", CLAUDE).endswith(f"*Tokens: {said}.*\n")
    page = _run(tmp_path, "export", CLAUDE, "-f", "html")
    assert f"tokens in all: {said}</div>" in page


def test_show_full_says_each_response_so_too(tmp_path: Path) -> None:
    shown = _run(tmp_path, "show", CLAUDE, "--detail", "full", "--no-pager")
    # first response: 1,200 input, 400 cache write, 8,000 cache read, 60 output
    assert "tokens: in 1,200 · out 60 · cache write 400 · cache read 8,000" in shown
    page = _run(tmp_path, "export", CLAUDE, "-f", "html")
    assert "tokens: 1.2k in, 8.4k cache, 60 out" in page
