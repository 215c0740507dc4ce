"""`visible_head` and `visible_length` against `visible` itself, over hostile texts: a
head that differed from `visible(text)[:n]` could let a raw escape through the 2,000
characters `export -f md` shows of a tool call's arguments (`_capped_visible`)."""

from __future__ import annotations

import random

from sessdex.views import markdown
from sessdex.views.text import visible, visible_head, visible_length

FLAG = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
PIECES = [
    "a", " ", "\t", "\n", "\r", "\r\n", "\r\r\n", "\n\r", "\x00", "\x7f", "\x85",
    "\x9f", "\x1b", "\x1b[31m", "\x1b[", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\",
    "\x9b31m", "\x9d0;t\x9c", "e\u0301", "\u0301", "\ud800", "\udfff", "😀",
    "👨\u200d👩\u200d👧", "\u200d", "\u202e", "\u2066", "\u2069", "\u061c", "\u200e",
    "\u200b", "\ufeff", "\u00a0", "\u00ad", "\u2028", "\u2029", "\ue000",
    "\U000e0067", "\U000e007f", FLAG, FLAG[:3], FLAG[3:], "x" * 40, "\r\n" * 5,
]  # fmt: skip


def hostile(chance: random.Random, most: int) -> str:
    return "".join(chance.choice(PIECES) for _ in range(chance.randint(0, most)))


def test_the_head_and_length_are_those_of_the_whole_written_out() -> None:
    chance = random.Random(65)
    for _ in range(2000):
        text = hostile(chance, chance.choice([4, 20, 80]))
        whole = visible(text)
        assert visible_length(text) == len(whole), ascii(text)
        for count in {0, 1, 2, 3, len(whole) - 1, len(whole), len(whole) + 5}:
            count = max(count, 0)
            assert visible_head(text, count) == whole[:count], (ascii(text), count)
        count = chance.randint(0, len(whole) + 3)
        assert visible_head(text, count) == whole[:count], (ascii(text), count)


def test_a_crlf_or_a_flag_split_where_the_head_is_cut_is_written_as_whole() -> None:
    """`visible_head` writes out only the first characters of `text` (a CRLF, 2 in, is
    the fewest for 1 out): a CRLF, a flag or an escape split where that cut falls
    must not change the first `count` characters out."""
    for count in (0, 1, 2, 5, 9, 16):
        for crlfs in range(count + 12):
            for lead in ("", "a", "\x1b", "\r"):
                for piece in ("\r\n", FLAG, "\x1b[31m", "\x1b]0;t\x07", "\r\r\n"):
                    text = lead + "\r\n" * crlfs + piece * 3
                    assert visible_head(text, count) == visible(text)[:count], (
                        ascii(text),
                        count,
                    )


def test_no_raw_control_passes_the_cut_of_a_tool_calls_arguments() -> None:
    chance = random.Random(11)
    for _ in range(300):
        lines = [hostile(chance, chance.choice([4, 80, 700])) for _ in range(8)]
        page = markdown._capped_visible(("", line) for line in lines)
        assert page == markdown._capped("\n".join(visible(line) for line in lines))
        assert not any(c in page for c in "\x1b\x9b\x9d\r\x00\u202e\u2066")
