"""What sessdex writes to a terminal or pipe whose encoding cannot show every character.

A Latin-1 or ASCII terminal (`LANG=de_DE.ISO-8859-1`, `PYTHONIOENCODING=ascii`) gets
readable ASCII for sessdex's own marks (`—` as `-`, `└` as `` ` ``) and `?` for any
other character it cannot show, never a UnicodeEncodeError. Standard library only: the quick
`list` path uses it too.
"""

from __future__ import annotations

import codecs
import io
import sys

# The name of the codec error handler `fit_streams` sets on stdout and stderr.
FALLBACK = "sessdex-fallback"

# sessdex's own marks (and the common typography around them) in ASCII, each as wide
# as the mark, so that a table or a listing cut to the terminal's width stays aligned
_ASCII = {
    "\u2014": "-",  # —
    "\u2013": "-",  # en dash
    "\u2010": "-",
    "\u2011": "-",
    "\u2212": "-",  # minus
    "\u2026": "~",  # … the end of a cut text, as DOS cut long names (its start: `*`)
    "\u00b7": "-",  # ·
    "\u2022": "*",  # •
    "\u00a0": " ",
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2192": ">",  # →
    "\u2190": "<",  # ←
    "\u21b3": ">",  # ↳ a sub-agent
    "\u21e0": "<",  # ⇠ what another agent sent
    "\u23bf": "|",  # ⎿ a tool's result
    "\u2717": "x",  # ✗ a failed tool call
    "\u2713": "v",  # ✓
    "\u2500": "-",  # ─
    "\u2501": "-",
    "\u2502": "|",  # │
    "\u2514": "`",  # └
    "\u251c": "|",  # ├
    "\U0001f527": "=>",  # 🔧 a tool call in an export
    "\U0001f916": "=>",  # 🤖 a sub-agent in an export
}


def _fallback(error: UnicodeError) -> tuple[str | bytes, int]:
    """One character the codec cannot encode: its ASCII form, the byte a file name's
    undecodable byte came from (as `surrogateescape` writes it; but 0x80-0x9f, C1
    controls to a Latin-1 terminal), else `?` for each cell it takes (none for an
    accent that combines with the letter before it, or a joiner), as `views.text.cells`
    measured it for the layout."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    char = error.object[error.start]
    if "\udca0" <= char <= "\udcff":
        return bytes([ord(char) - 0xDC00]), error.start + 1
    if "\udc80" <= char < "\udca0":  # raw, a C1 control to a Latin-1 terminal
        return "?", error.start + 1
    if char == "\u2026" and _opens_a_word(error.object, error.start):
        # a path cut at its start (`…/code/shop`): `~` there would read as a home
        # folder (`~/code/shop`, `~de/shop`: user de's), which it is not
        return "*", error.start + 1
    shown = _ASCII.get(char)
    if shown is not None:
        return shown, error.start + 1
    # the run up to the next mark or byte, as `?` for each cell the layout gave it:
    # an emoji sequence (joined, skin-toned) takes two in all, a joiner none
    text, stop = error.object, error.start + 1
    while stop < error.end and text[stop] not in _ASCII and not _raw(text[stop]):
        stop += 1
    from .views.text import cells

    return "?" * cells(text[error.start : stop]), stop


def _opens_a_word(text: str, at: int) -> bool:
    """Whether `text[at]` starts a word: the text or a space before it, no space after."""
    before = at == 0 or text[at - 1].isspace()
    return before and at + 1 < len(text) and not text[at + 1].isspace()


def _raw(char: str) -> bool:
    """Whether `char` stands for a file name's undecodable byte (surrogateescape)."""
    return "\udc80" <= char <= "\udcff"


def register() -> None:
    """Make FALLBACK known to the codecs (again is harmless)."""
    codecs.register_error(FALLBACK, _fallback)


def fit_streams() -> None:
    """Let stdout and stderr write whatever sessdex prints: a character their encoding
    cannot show becomes FALLBACK's replacement instead of an error. An error handler
    the user chose (`PYTHONIOENCODING=latin-1:xmlcharrefreplace`) is kept; Python's
    defaults (strict, and backslashreplace on stderr) are not."""
    register()
    for stream, defaults in (
        (sys.stdout, ("strict", "surrogateescape")),
        (sys.stderr, ("strict", "surrogateescape", "backslashreplace")),
    ):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in defaults:
            stream.reconfigure(errors=FALLBACK)
