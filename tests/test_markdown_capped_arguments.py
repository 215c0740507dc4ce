"""A tool call's arguments and diff in `export -f md`, capped at 2,000 characters: only
what shows is written out (`visible_head`), the rest counted (`visible_length`), the
page the same as when the whole was written out and then cut."""

from __future__ import annotations

import random

from sessdex.views import markdown
from sessdex.views.text import shown_whole, visible, visible_head, visible_length

PIECES = ["a", " ", "\n", "\r", "\r\n", "\t", "\x1b", "\x00", "\u202e", "\u200b",
          "\u3164", "é", "😀", "\U000e007f", "\x9b", "\u2028", "x" * 300, "\n" * 5,
          "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"]  # fmt: skip


def whole_then_cut(value: dict[str, object], shown: str) -> str:
    """`_arguments` as it was: every line written out, joined, then `_capped`."""
    lines: list[str] = []
    for key, argument in value.items():
        text = argument if isinstance(argument, str) else str(argument)
        line = visible(text, keep_newlines=False)
        if line and line == text.strip() and line == shown:
            continue
        name = markdown.one_line(key, 40)
        if "\n" in text.rstrip("\n"):
            lines.append(f"{name}:")
            lines.extend("    " + visible(x) for x in text.rstrip("\n").split("\n"))
        else:
            lines.append(f"{name}: {visible(text)}")
    return markdown._capped("\n".join(lines)) if lines else ""


def test_the_cut_arguments_are_those_of_the_whole_written_out() -> None:
    chance = random.Random(11)

    def text() -> str:
        size = chance.randint(0, chance.choice([5, 50, 400]))
        return "".join(chance.choice(PIECES) for _ in range(size))

    for _ in range(600):
        value = {f"k{n}": text() for n in range(chance.randint(1, 5))}
        shown = chance.choice(["", "a", *value.values()]).strip()
        assert markdown._arguments(value, shown) == whole_then_cut(value, shown)
        diff = [text() for _ in range(chance.randint(0, 20))]
        lines = "\n".join(visible(line) for line in diff)
        assert markdown._capped_visible(("", x) for x in diff) == markdown._capped(
            lines
        )
        one = text()
        assert visible_length(one) == len(visible(one))
        assert visible_head(one, 7) == visible(one)[:7]
        assert shown_whole(one, shown) == (
            bool(shown) and visible(one, keep_newlines=False) == one.strip() == shown
        )


def test_a_big_write_is_written_out_only_as_far_as_the_page_shows() -> None:
    """A `Write` of 5 MB (a CRLF and a colour code a line): its content was written out
    whole, line by line, twice, to show 2,000 characters (peak ~14 times the content)."""
    import tracemalloc

    content = "line \x1b[31m of text\r\n" * 200_000
    value = {"file_path": "/src/big.txt", "content": content}
    small = {"file_path": "/src/big.txt", "content": content[:2000]}
    markdown._arguments(small, "")  # imports warmed
    tracemalloc.start()
    try:
        page = markdown._arguments(value, "")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert page == whole_then_cut(value, "")
    assert page.endswith(" more characters)")
    assert peak < len(content) / 10
