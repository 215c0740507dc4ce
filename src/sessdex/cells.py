"""How many terminal columns one character takes, without `re` (which a tab press and a
warm listing do not load); `views.text` measures whole texts with it."""

from __future__ import annotations

import unicodedata

# What draws nothing and is no joiner (the joiners of scripts and emoji are text), as a
# regular expression's character class: the zero-width space, the word joiner and the
# invisible operators, a BOM, the Mongolian vowel separator, Unicode's own line and
# paragraph separators; the deprecated format controls, the interlinear annotation
# marks, the shorthand and musical format controls; and the tag characters, which spell
# ASCII no terminal shows but a model reads (text hidden in what is pasted into an
# agent). Shown, each makes two texts look the same, or hides text: `views.text` drops
# them (but for the tags of England's, Scotland's and Wales' flags), `shells` writes
# them out as escapes. Variation selectors, the supplement's too,
# are text: a mark that picks its character's glyph (an emoji's, a CJK name's `葛󠄀`).
INVISIBLE = (
    "\u180e\u200b\u2028\u2029\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)


def char_cells(char: str) -> int:
    """A wide character (CJK, most emoji) two columns, a combining mark or zero-width
    character none, any other one."""
    # a mark drawn on the letter before it takes no column: Thai and Devanagari vowel
    # signs, for which combining() says 0 (their combining class), as much as an accent
    if (
        unicodedata.combining(char)
        or unicodedata.category(char) in ("Mn", "Me")
        or char in "\u200b\u200c\u200d\ufeff"
        or "\U000e0000" <= char <= "\U000e007f"  # tags: a flag's letters, else dropped
    ):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def written_out(name: str) -> str:
    """`name` with each character that is not printable written out as its code point
    (`\\x1b`, `\\u202e`, `\\U000e0069`): a file's name as it is, that acts on nothing.
    Here, not in `diagnostics` (which loads `logging` and `dataclasses`), so that the
    warm listing's table does without them."""
    if name.isprintable():
        return name
    return "".join(
        char
        if char.isprintable()
        else f"\\x{ord(char):02x}"
        if ord(char) < 0x100
        else f"\\u{ord(char):04x}"
        if ord(char) <= 0xFFFF
        else f"\\U{ord(char):08x}"
        for char in name
    )
