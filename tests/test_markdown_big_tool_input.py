"""A tool call of a 20 MB input in `export -f md`: its summary line is written out from
the input's head (`visible_line`), not the whole, and says the same."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from sessdex.model import Event, Session
from sessdex.views import markdown, text

LINE = "line \x1b[31m of text\r\n"  # a colour code and a CRLF: written out, not kept
PIECES = ["a", " ", "\n", "\r", "\r\n", "\t", "\x1b", "\x00", "\u202e", "\u200b", "\u0301",
          "\u3164", "é", "😀", "中", "\U000e007f", "\x9b", "\u2028", "x" * 300, "\n" * 5,
          " " * 40, "\u00a0", "\U000e0067", "\U0001f3f4", "👨\u200d👩", "\ufe0f",
          "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"]  # fmt: skip


def page(value: object) -> str:
    call = Event("s", 1, "tool_call", tool="Bash", call_id="c", extra={"input": value})
    return "".join(markdown.render(Session(app="claude", id="s", title="t"), [call]))


def test_a_20_mb_command_is_cut_before_it_is_written_out() -> None:
    command = LINE * (20 * 1024 * 1024 // len(LINE))
    value = {"command": command}
    page({"command": LINE})  # imports warmed
    tracemalloc.start()
    try:
        shown = page(value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # the summary line, then the input capped at 2,000 characters
    assert shown.count("line \\x1b[31m of text") > 10
    assert "more characters)" in shown
    # it was 16 times the input: each step of `visible` a copy, a CRLF written out
    assert peak < len(command) / 10


def test_the_line_from_the_head_is_the_line_from_the_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(text, "_LINE_HEAD", 0)  # every text read from its head
    chance = random.Random(5)
    for _ in range(4000):
        width = chance.choice([1, 2, 3, 5, 10, 40, 200])
        weights = [chance.random() for _ in PIECES]
        size = chance.randint(0, chance.choice([10, 100, 1000, 3000]))
        one = "".join(chance.choices(PIECES, weights, k=size))
        whole = text.cut(text.visible(one, keep_newlines=False), width)
        assert text.visible_line(one, width) == whole
