"""Messages on a 40-column terminal: a line broken to its width keeps a quoted command
(a line to copy) whole, where a break inside it left a newline in what was pasted."""

from __future__ import annotations

import os

import pytest

from sessdex import api

from .helpers import on_a_terminal

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["find", "zzzqqq"], "'sessdex list --home {}'"),
        (["show", "zzzqqq"], "'sessdex list --home {}'"),
        (["find", "chekout"], "('sessdex find checkout --home {}')"),
    ],
)
def test_a_not_found_message_keeps_its_command_on_one_line(
    args: list[str], hint: str
) -> None:
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal([*args, "--home", DEMO], env, columns=40)
    assert result.returncode == (1 if args[0] == "show" else 0), shown
    lines = shown.replace("\r\n", "\n").splitlines()
    assert any(hint.format(DEMO) in line for line in lines), shown
    # each other line still fits the terminal, broken at a space
    others = [line for line in lines if hint.format(DEMO) not in line]
    assert others and all(len(line) <= 40 for line in others), shown
