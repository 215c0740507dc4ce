"""How many terminal columns one character takes, without `re` (which a tab press and a
warm listing do not load); `views.text` measures whole texts with it."""

from __future__ import annotations

import unicodedata


def char_cells(char: str) -> int:
    """A wide character (CJK, most emoji) two columns, a combining mark or zero-width
    character none, any other one."""
    # a mark drawn on the letter before it takes no column: Thai and Devanagari vowel
    # signs, for which combining() says 0 (their combining class), as much as an accent
    if (
        unicodedata.combining(char)
        or unicodedata.category(char) in ("Mn", "Me")
        or char in "\u200b\u200c\u200d\ufeff"
    ):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
