"""How the bytes of an Aider chat log become text: in the encoding aider was told to
write it in (`--encoding`, io.py appends with `errors="ignore"`), else UTF-8. Not where
that encoding is said (aider.py reads the config files and the environment)."""

from __future__ import annotations

import codecs

from ..diagnostics import NOT_UTF8

# what aider writes that sessdex finds by its bytes: an encoding that writes these
# otherwise is not read (UTF-16, EBCDIC), rather than its run starts guessed at
_MARKUP = "\n# aider chat started at 2026-11-20 10:00:00\n#### > `-_.:,()[]/*"
_UTF8_NAMES = frozenset({"utf-8", "utf-8-sig"})  # the second: a BOM on the first line


class Text:
    """The decoding of a log's lines. A line past ASCII that is valid UTF-8 reads as
    UTF-8 in any encoding: the runs aider wrote before the setting (latin-1 would read
    `é` as `Ã©`); text in a one-byte encoding that is also valid UTF-8 is mojibake
    itself, all but never typed."""

    __slots__ = ("every_line", "name")

    def __init__(self, name: str | None, every_line: bool = False) -> None:
        self.name = name  # a Python codec's name; None for UTF-8
        # the encoding writes text past ASCII in ASCII bytes (UTF-7's `+AOk-`,
        # ISO-2022-JP's escapes): each line is decoded, not only those past ASCII
        self.every_line = every_line

    @property
    def damage(self) -> str:
        """What a line neither this encoding nor UTF-8 reads is said to be."""
        return NOT_UTF8 if self.name is None else f"{NOT_UTF8}, nor {self.name}"

    def decode(self, data: bytes) -> str:
        """The line's text, with U+FFFD for what does not decode."""
        if self.name is None:
            return data.decode("utf-8", "replace")
        if data.isascii():
            return (
                data.decode(self.name, "replace") if self.every_line else data.decode()
            )
        try:
            return data.decode()
        except UnicodeDecodeError:
            return data.decode(self.name, "replace")

    def error(self, data: bytes) -> UnicodeDecodeError | None:
        """Why a line past ASCII does not decode, or None when it does."""
        if data.isascii():
            return None
        try:
            data.decode()
        except UnicodeDecodeError as error:
            if self.name is None:
                return error
        else:
            return None
        try:
            data.decode(self.name)
        except UnicodeDecodeError as error:
            return error
        return None


UTF8 = Text(None)
UNKNOWN = "unknown"  # no text codec Python knows (`klingon`, `base64`)
NOT_ASCII = "not ASCII"  # aider's markup is other bytes in it (`utf-16`)


def text_in(encoding: str) -> Text | str:
    """How a log aider wrote in `encoding` reads, or why it is not read so (UNKNOWN: as
    UTF-8; NOT_ASCII: not at all)."""
    try:
        name = codecs.lookup(encoding).name
        markup = _MARKUP.encode(name)  # LookupError too for a codec not of text
    except LookupError:
        return UNKNOWN
    if name in _UTF8_NAMES:
        return UTF8
    if markup != _MARKUP.encode("ascii"):
        return NOT_ASCII
    past = "é€日".encode(name, "ignore")
    return Text(name, every_line=bool(past) and past.isascii())
