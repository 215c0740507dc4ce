"""Markdown export: compact, readable, good to paste into another agent.

Text is cleaned of control characters, and made inert for a viewer that renders the
Markdown: its fenced code is fenced again by us (a fence longer than any backtick run
inside, so nothing in it closes the block early; in a quote or a list item too), its
indented code is kept as written where no paragraph can take it in (a line that may be
text is escaped as text), and outside code nothing can become
HTML (`<` that could open a tag is `&lt;`), an image (fetched on open, with no click:
a way to send out what the transcript holds), a link anywhere but the web, a fence, or
a code span sessdex did not see (stray backticks are escaped).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from html import escape

from ..model import Event, Session
from .diffs import diff_counts, edit_keys, held_diff, patch_text
from .records import forked_from, iso
from .text import (
    APP_SENDER,
    AgentNames,
    Waiting,
    answered_call,
    clean,
    credits_amount,
    error_message,
    one_line,
    pasted_id,
    sender_name,
    shown_whole,
    spawn_name,
    title_line,
    tokens_said,
    tool_detail,
    tool_line,
    visible_head,
    visible_length,
)

_BACKTICKS = re.compile(r"`{3,}")
_TICK_RUNS = re.compile(r"`+")
# What CommonMark reads left to right outside code: a backslash escape (kept as it is),
# or a run of backticks that may open a code span.
_TOKEN = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
# What must not take effect outside code: a backslash escape is matched first, so that
# what it escapes is left alone and no backslash added here pairs with one of the text's.
_ACTIVE = re.compile(
    r"\\[!-/:-@\[-`{-~]"
    r"|`"  # a backtick no code span of ours holds
    r"|<(?=[A-Za-z/!?])"  # a tag, a comment, an autolink
    r"|!\["  # an image
    r"|\][(:](?![ \t]*(?:https?://|mailto:))"  # a link or its definition off the web
    r"|~~~+"  # a fence (not `~{3,}`: each branch opening with a character lets `re`
    # skip ahead to one of them, 3 times faster over a reply)
)
# Blanks a viewer that trims a paragraph as JavaScript does (markdown-it) takes off its
# text's ends, where CommonMark keeps them: the no-break and other Unicode spaces (what
# `clean` leaves of them); a line they start, 3 columns in at most, is text
_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_SPACED = f"(?:[{_SPACES}][ \t{_SPACES}]*)?"
# Also inert in a line that is a name, a path or a command (a title, a tool call, an
# error): emphasis, which ate `__init__.py`'s underscores and the stars of `src/*.py
# tests/*.py`. A `*` always; a run of `_` unless it sits inside a word (`snake_case`),
# where it opens and closes nothing.
_LITERAL = re.compile(_ACTIVE.pattern + r"|\*|(?<!_)(?:(?<![^\W_])_+|_+(?!\w))")
# A heading in a transcript's text: two levels down, under the export's own (the
# title, `## User`), where an assistant's `## User` read as a turn of the user's.
# Also one in a list item or a quote (`- ## User`, `> ## User`: a heading there too).
_CONTAINERS = r"(?:[ \t]*+(?:>|(?:[-+*]|\d{1,9}[.)])(?=[ \t])))+[ \t]*+"
_HEADING = re.compile(rf"^({_CONTAINERS}| {{0,3}})(#{{1,6}})(?=[ \t]|$)", re.MULTILINE)
# What opens the export's own lines, at a line's start in a transcript's text (in a
# quote too): the label of a reply or an error (`**Assistant:**`, `> **Error:**`), the
# item of a tool call or a spawn (`- 🔧`, `- 🤖`, or `-` over `  🔧`), the note of a
# compaction (`*Context compacted.*`), and a line in emphasis alone (`*model: x*`, a sub-agent's name after it:
# the export's note of a change of model, mode or branch, and its totals at the end). Escaped, a user's words read
# as theirs, not as a reply the assistant gave, a call it made, a context it lost or a
# model it changed to. Code indented 4 columns or more is left as written, and bold
# words that only begin so (`**Error handling:**`).
_MARKS = re.compile(
    rf"^((?: {{0,3}}>[ ]?)* {{0,3}}{_SPACED})"
    r"(?:(\*\*)(?=(?:Assistant|Error)(?::?\*\*| \(sub-agent ))"
    # an item's mark, or an empty item's over its text's line (in its quotes)
    r"|([-+*])(?=[ \t]+[🔧🤖]|[ \t]*\n(?: {0,3}>[ ]?)*[ \t]*[🔧🤖])"
    r"|(\*)(?=Context compacted)"
    # up to the first mark like it only, and on to the line's end: linear in the line
    r"|([*_])(?=(?!\5)\S(?:(?!\5)[^\n])*(?<!\s)\5(?: \(sub-agent [^\n]*\))?"
    rf"[ \t{_SPACES}]*$))",
    re.MULTILINE,
)
# The label over a call's output (`  result:`, `  error of sub-agent x:`), which no
# backslash escapes: its first letter is written as a character reference, shown the
# same, where a transcript's line is one
_RESULT = re.compile(
    rf"^( {{0,3}}{_SPACED})"
    r"(r(?=esult(?::| of | \())|e(?=rror(?::| of | \()))"
    # one run to the line's last `:` and back: linear in the line, however it goes on
    rf"(?=[^\n]*:(?:[ \t{_SPACES}]*| its last reply, above\.)$)",
    re.MULTILINE,
)
# a line that may be such a label, found ahead of `_RESULT`'s slow `^` (a pattern
# that opens with a character lets `re` skip ahead to it)
_RESULT_START = re.compile(rf"\n {{0,3}}{_SPACED}(?:result|error)")
# A `>` or a list marker and the blank after it (see `_opens_code`)
_GAP = re.compile(r"(>|[-+*]|\d{1,9}[.)])( *)")
# A line of `=` or `-` under a line of text makes that text a heading (setext: `User`
# over `---` is an `## User`, level with the export's turns): its first mark is escaped.
_UNDERLINE = re.compile(r"^((?:[ \t]*>)*[ \t]*)(=++|-++)[ \t]*+$", re.MULTILINE)
# the end of a line `_UNDERLINE` may find, where blanks follow its run
_UNDERLINE_END = re.compile(r"[=-][ \t]++$", re.MULTILINE)
# one of `-`, under a paragraph's line: text, escaped (no rule)
_UNDERLINE_ONLY = re.compile(r"-+[ \t]*")
_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
# a `>` or a list marker (its number without leading zeros), and the blank after it
_OPENING = re.compile(r"(>|[-+*]|0{0,8}(\d{1,9})[.)])( *)")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
# A heading indented 4 columns or more, which only a list item's content can make one
# (`+ a` over `    # x`: the item's text starts at column 2, so `# x` is 2 in).
_DEEP_HEADING = re.compile(r"^(?: {4}| {0,3}\t)[ \t]*#{1,6}(?:[ \t]|$)", re.MULTILINE)
# A line indented 4 columns or more, or a list marker 5 blanks or a tab before its
# text: indented code, where no paragraph goes on above it
_INDENTED = re.compile(
    r"^(?: {4}| {0,3}\t|[ \t]*(?:[-+*]|\d{1,9}[.)])(?: {5}|[ ]{0,4}\t))", re.MULTILINE
)
_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?: +|$)")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
# A line that starts a paragraph, not a list item, a quote or a heading.
_PARAGRAPH = re.compile(
    r"(?! {0,3}(?:[-+*]|\d{1,9}[.)]|#{1,6})(?:[ \t]|$))(?![ \t]*>)[ \t]*\S"
)
# A line a list marker (`2.`, `3)`) and a `#` after it start, which may go on a paragraph
_LATE_ITEM = re.compile(r"^[ \t>]*\d{1,9}[.)][ \t][^\n]*#", re.MULTILINE)
# A link's definition (one to the web stays one), which no paragraph goes on: where
# one may be, each such heading goes down, as any other
_DEFINITION = re.compile(r"\]:[ \t]*(?:https?://|mailto:)")
# The `>`s a line starts with (a blank after each is theirs)
_QUOTES = re.compile(r"(?: {0,3}>[ \t]?)+")
# What a paragraph's first lines may be that a label before them would spoil: a link's
# definition (`[r]: https://…`), or a table's head over its row of `-`s (`|---|:-:|`)
_DEFINED = re.compile(r" {0,3}\[")
_TABLE_RULE = re.compile(r"(?=[^\n]*-)(?=[^\n]*[|:])[-|: \t]+")
_OPENER = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
# The `>`s a fence in a quote comes after, and the one blank each takes (none a tab)
_QUOTED = re.compile(r"(?: {0,3}>[ ]?)+")
_QUOTE_MARK = re.compile(r" {0,3}>[ ]?")
# A `>` and 5 blanks or a tab after it: maybe code in a quote
_QUOTE_INDENTED = re.compile(r"^[ \t>]*>(?: {5}|[ ]{0,4}\t)", re.MULTILINE)
# A fence past a tab or 4 columns in: in a list item, where one holds it
_DEEP_OPENER = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_LANGUAGE = re.compile(r"[\w.+#-]{1,40}")
# A run of `#` that ends a heading's line after a blank, or is all of it: read as the
# heading's closing sequence, and not shown (`Port the parser to C #` lost its `#`)
_CLOSING = re.compile(r"(?:^|(?<=[ \t]))#+[ \t]*$")


def _defused(found: re.Match[str]) -> str:
    text = found[0]
    if text[0] == "\\":
        return text
    if text == "<":
        return "&lt;"
    if text[0] == "]":
        return "]\\" + text[1]
    if text == "![":
        return "!\\["
    if text[0] == "_":
        return "\\_" * len(text)
    return "\\" + text


def _inline(line: str, *, literal: bool = False) -> str:
    """One line of text as Markdown that shows it: its code spans as written (found as
    CommonMark finds them), every other backtick escaped, so a viewer sees no span that
    sessdex did not, and no tag, image or off-web link outside them; `literal`, no
    emphasis either (a name, a path, a command: not prose)."""
    active = _LITERAL if literal else _ACTIVE
    if "`" not in line:
        return active.sub(_defused, line)
    closers: dict[int, list[int]] = {}  # a run's length -> where such runs start
    for run in _TICK_RUNS.finditer(line):
        closers.setdefault(len(run[0]), []).append(run.start())
    out: list[str] = []
    plain = at = 0
    while (token := _TOKEN.search(line, at)) is not None:
        at = token.end()
        if token[0][0] == "\\":
            continue
        starts = closers.get(len(token[0]), [])
        found = bisect.bisect_left(starts, at)
        if found == len(starts):  # no run of its length closes it: a literal backtick
            continue
        end = starts[found] + len(token[0])
        out.append(active.sub(_defused, line[plain : token.start()]))
        out.append(line[token.start() : end])
        plain = at = end
    out.append(active.sub(_defused, line[plain:]))
    return "".join(out)


def _heading(text: str) -> str:
    """A heading's text (Markdown already), its last `#`s shown, not a closing sequence."""
    return _CLOSING.sub(lambda found: "\\" + found[0], text, count=1)


def _unmarked(found: re.Match[str]) -> str:
    """A mark `_MARKS` found, escaped: `\\*\\*Assistant`, `\\- 🔧`."""
    if found[2]:
        return found[1] + "\\*\\*"
    return found[1] + "\\" + (found[3] or found[4] or found[5])


def _referenced(found: re.Match[str]) -> str:
    """A label `_RESULT` found, its first letter a character reference: `&#114;esult:`."""
    return f"{found[1]}&#{ord(found[2])};"


def _headed_down(prose: str, items: _Items | None = None) -> str:
    """`prose` with each heading two levels lower (at most 6), and no line underlined
    into a heading (shown as written). `items`: the list items the text above left open
    (a fenced block between prose keeps them), where a text has a heading deep in one."""
    if "*" in prose or "_" in prose or "🔧" in prose or "🤖" in prose:
        prose = _MARKS.sub(_unmarked, prose)
    if _RESULT_START.search("\n" + prose):
        prose = _RESULT.sub(_referenced, prose)
    if _may_underline(prose):
        prose = _UNDERLINE.sub(_not_underlined, prose)
    if "#" not in prose and items is None:
        return prose
    if items is None and _match_line(_DEEP_HEADING, prose, "#"):
        items = _Items()
    if items is not None:
        prose = items.headed_down(prose)
    if _match_line(_LATE_ITEM, prose, "#") is None or _DEFINITION.search(prose):
        return _sub_lines(_HEADING, _heading_down, prose, "#")
    text = _paragraph_lines(prose)
    return _sub_lines(
        _HEADING,
        lambda found: found[0] if found.start() in text else _heading_down(found),
        prose,
        "#",
    )


def _may_underline(prose: str) -> bool:
    """Whether a line of `prose` ends in a `=` or a `-` and maybe blanks, as one
    `_UNDERLINE` finds does: found with `in` where no blank follows (its `^` is tried
    at every character of a text, and `=` and `-` are common in code)."""
    if "=\n" in prose or "-\n" in prose or prose.rstrip(" \t").endswith(("=", "-")):
        return True
    if " \n" in prose or "\t\n" in prose:
        return _UNDERLINE_END.search(prose) is not None
    return False


def _lines_holding(text: str, mark: str) -> Iterator[int]:
    """Where each line of `text` that holds `mark` starts, in order."""
    at = text.find(mark)
    while at >= 0:
        yield text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            return
        at = text.find(mark, end)


def _match_line(pattern: re.Pattern[str], text: str, mark: str) -> re.Match[str] | None:
    """`pattern.search(text)`, for a pattern of one line from its start (`^`, a
    multiline one) that holds `mark`: tried at the lines holding it alone, where `re`
    tries a `^` at every character of the text."""
    for start in _lines_holding(text, mark):
        if (found := pattern.match(text, start)) is not None:
            return found
    return None


def _sub_lines(
    pattern: re.Pattern[str],
    shown: Callable[[re.Match[str]], str],
    text: str,
    mark: str,
) -> str:
    """`pattern.sub(shown, text)`, for a pattern as `_match_line`'s."""
    out: list[str] = []
    done = 0
    for start in _lines_holding(text, mark):
        if (found := pattern.match(text, start)) is not None:
            out += (text[done:start], shown(found))
            done = found.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _paragraph_lines(prose: str) -> set[int]:
    """Where the lines start that go on the paragraph above them though they open with
    a list marker a list cannot break into a paragraph at (`2.`, `3)`): `para` over
    `2. # x` is one paragraph, its `#` text. Such a line starts a list where the line
    above ends none (after a blank line, a heading, a rule or code), where it opens or
    leaves a quote the paragraph is not in, or where it falls out of the list item the
    paragraph is in (`1. para` over `2. # x`: a second item)."""
    lines: set[int] = set()
    paragraph: tuple[int, int] | None = None  # its quotes, its text's column in them
    # a line 4 columns in that no paragraph above takes may be one in a list item (an
    # item holding a rule, a heading or nothing above it): a line after it may go on
    # it, in that item, so where a paragraph starts is not known till a blank line
    unsure = False
    start = 0
    for line in prose.split("\n"):
        at, start = start, start + len(line) + 1
        if _blank(line):
            paragraph, unsure = None, False
            continue
        # tab stops are the line's (a tab after a `>` is one blank of it, not all)
        wide = line.expandtabs(4)
        quotes = _QUOTED.match(wide)
        depth = quotes[0].count(">") if quotes else 0
        if depth > 1 and "\t" in line:
            # a tab in a quote in a quote: its columns are one viewer's or another's
            paragraph, unsure = None, True
            continue
        rest = wide[quotes.end() if quotes else 0 :]
        body = rest.lstrip(" ")
        column = len(rest) - len(body)
        if paragraph is not None and depth > paragraph[0]:
            paragraph = None  # a quote starts: no paragraph above goes on in it
        # past the paragraph's text where the line is in its quotes; out of them (a
        # lazy line) its blank is its own: 4 columns is no heading (`>  e` over `    #`)
        inside = (
            column - paragraph[1] if paragraph and depth == paragraph[0] else column
        )
        if inside >= 4 and body.startswith(">"):
            # a quote's `>` to markdown-it however far in (`>b` over `    >1. x`)
            paragraph, unsure = None, True
            continue
        if inside >= 4:  # indented code, or a paragraph's next line
            unsure = unsure or paragraph is None
            continue
        marker = _OPENING.match(body)
        if marker is not None and marker[1] == ">":
            # a quote in a list item (after a tab, or 4 columns in): the paragraph
            # ends, and a line after may go on the quote's
            paragraph, unsure = None, True
            continue
        if marker is not None and not marker[3] and marker.end() < len(body):
            marker = None  # text (`2.x`)
        if "|" in body and _TABLE_RULE.fullmatch(body):
            # a table's row of `-`s (a viewer's tables): no paragraph, and a `2.` after
            # its rows starts a list
            paragraph, unsure = None, True
            continue
        if (
            _BREAK.fullmatch(body)
            or _ATX.match(body)
            or body.startswith(("```", "~~~"))
        ):
            paragraph = None
        elif marker is None:
            # a paragraph's next line (one in fewer quotes too), or a new paragraph
            if paragraph is None or depth > paragraph[0]:
                paragraph = None if unsure else (depth, column)
        elif marker.end() == len(body):
            # an empty item: a paragraph's next line, or an item with no text (out of
            # the item the paragraph is in, in fewer quotes or more)
            if paragraph is not None and (
                depth != paragraph[0] or column < paragraph[1]
            ):
                paragraph = None
        elif (
            paragraph is not None
            and marker[2] not in (None, "1")
            and depth == paragraph[0]
            and column >= paragraph[1]
        ):
            lines.add(at)
        else:  # a list item: its text is a paragraph unless it is a heading
            quoted = False  # a quote in the item: its text's place is not known
            while marker is not None and marker[3] and marker.end() < len(body):
                if _BREAK.fullmatch(body):  # a rule, not an item (`- --`)
                    break
                quoted = quoted or marker[1] == ">"
                column += marker.end()
                body = body[marker.end() :]
                marker = _OPENING.match(body)
            if quoted or body.startswith(">"):
                paragraph, unsure = None, True
                continue
            ends = marker is not None and marker.end() == len(body)  # an empty item
            text = not (ends or _ATX.match(body) or _BREAK.fullmatch(body))
            paragraph = (depth, column) if text else None
    return lines


def _heading_down(found: re.Match[str]) -> str:
    """A heading `_HEADING` found, two levels lower; a `#` in indented code as it is,
    unless a tab is among its blanks in a quote in a quote (read one way by one viewer
    and another by the next: `> > - - ⇥# x`, code to CommonMark, is a heading to
    markdown-it): a heading, maybe, goes down."""
    prefix = found[1]
    doubt = "\t" in prefix and prefix.count(">") > 1
    if (
        ("\t" in prefix or "     " in prefix)
        and not doubt
        and _opens_code(prefix, _after_blank(found))
    ):
        return found[0]
    return prefix + "#" * min(6, len(found[2]) + 2)


def _opens_code(prefix: str, fresh: bool) -> bool:
    """Whether a line's `>`s and list markers (`prefix`) leave indented code after
    them: more than 4 columns of blank after a list marker (a new item's text starts
    there), or after a `>` that opens a quote (`fresh`: no line above it goes on, or a
    list marker before it). A `>` that goes on a quote may go on a list item in it too,
    which takes those columns (`> - a` over `>     # x`: a heading). A `>` past those
    columns is no code's to markdown-it, which takes it for an open quote's however
    far in (`>>` over `>     ># x`: a heading there)."""
    marks = _GAP.findall(prefix.expandtabs(4))
    for at, (marker, gap) in enumerate(marks):
        fresh = fresh or marker != ">"
        if fresh and len(gap) > 4:
            return all(later != ">" for later, _ in marks[at + 1 :])
    return False


def _after_blank(found: re.Match[str]) -> bool:
    """Whether the line `found` starts is its text's first or follows a blank one."""
    end = found.start() - 1  # the newline that ends the line above
    if end < 0:
        return True
    text = found.string
    return not text[text.rfind("\n", 0, end) + 1 : end].strip(" \t")


class _Items:
    """The list items a text may keep open, to find each heading that a list item's
    content makes of a line indented 4 columns or more (as CommonMark does: a line less
    indented than an item's content ends it, unless it goes on the paragraph above; 4
    columns past it is code). Where a line may or may not go on a paragraph (an empty
    `-`, `2.`), the items it would open are kept as well as those it would end: a
    heading any of them may hold goes down. The lines `_HEADING` finds (3 columns in at
    most, or after a marker or a `>`) are left to it."""

    def __init__(self) -> None:
        self.columns: list[int] = []  # the content columns of the items, in order
        # the line above may go on a paragraph, which a "lazy" line may continue
        self.in_text = False
        self.fresh = True  # no paragraph can be open: a line 4 columns in is code
        # the items are those open, not more: no line so far may have gone on a
        # paragraph where it would have ended an item or opened one
        self.sure = True
        # what the last line's list items start, where no paragraph takes it: "code"
        # (5 blanks or more after the marker), "empty" (nothing after it)
        self.started = ""
        self.blank = True  # the line above is blank (or none is): `---` is no text

    def fenced(self, indent: int) -> None:
        """A fenced block `indent` columns in (0 to 3, or in a list item): it ends the
        items deeper than it, and any paragraph."""
        self._end_past(indent)
        self.in_text = False
        self.fresh = True
        self.blank = True

    def code(self, line: str) -> bool:
        """Whether `line` is a line of indented code: 4 columns past the deepest item
        that may hold it (which items hold it is not known where a line may go on a
        paragraph: the deepest is taken), at the text's start or after a blank line,
        a heading no item holds, a fenced block or more code, where no paragraph can
        take it in. A line that may be text is text (escaped)."""
        wide = line.expandtabs(4)
        rest = wide.lstrip(" ")
        column = len(wide) - len(rest)
        held = bisect.bisect_right(self.columns, column)
        inside = column - (self.columns[held - 1] if held else 0)
        code = self.fresh and bool(rest) and inside >= 4
        sure = self.sure
        self._line(line)
        # a list item whose text is code (`-     x`): where its items are known
        code = code or (self.started == "code" and sure)
        self.fresh = (
            not rest
            or code
            or self.started == "empty"  # an item with nothing in it yet
            or (column < 4 and not self.columns and _ATX.match(rest) is not None)
        )
        return code

    def takes_plain(self, line: str) -> bool:
        """Whether `line` and the lines of plain text after it (`_plain_run`) go on a
        paragraph, changing nothing kept here but what `went_on` sets: one open where
        no item is, or which items are is not known already (whatever their indent),
        or one `line` starts less than 4 columns in, no item open."""
        if self.in_text and not self.fresh and (not self.columns or not self.sure):
            return True
        return not self.columns and not line[:4].expandtabs(4).startswith("    ")

    def went_on(self) -> None:
        """Lines of plain text went on a paragraph, as `takes_plain` found they would."""
        self.started = ""
        self.in_text, self.fresh, self.blank = True, False, False

    def holder(self, column: int) -> int | None:
        """The content column of the list item a fence `column` columns in (4 or more,
        past a tab) is in, where that is known and the fence is less than 4 columns
        past it; None where the line may be code or a paragraph's text."""
        if not self.sure:
            return None
        held = bisect.bisect_right(self.columns, column)
        home = self.columns[held - 1] if held else 0
        return home if home > 0 and column - home < 4 else None

    def headed_down(self, prose: str) -> str:
        """`prose` with each such heading two levels lower: one pass."""
        lines = prose.split("\n")
        for number, line in enumerate(lines):
            lines[number] = self._line(line)
        return "\n".join(lines)

    def _end_past(self, column: int) -> None:
        del self.columns[bisect.bisect_right(self.columns, column) :]

    def _line(self, line: str) -> str:
        shown = self._step(line)
        self.blank = not line.strip(" \t")
        return shown

    def _step(self, line: str) -> str:
        self.started = ""
        wide = line.expandtabs(4)  # CommonMark's tab stops
        rest = wide.lstrip(" ")
        column = len(wide) - len(rest)
        if not rest:
            self.in_text = False
            return line
        items = self.columns
        held = bisect.bisect_right(items, column)
        inside = column - (items[held - 1] if held else 0)  # past the item it is in
        # a line that may go on the paragraph above ends no item: one that would start
        # no block under it, or 4 columns in (code cannot break into a paragraph, and
        # which items hold it is not known: one that seems to may have ended)
        lazy = self.in_text and (
            column >= 4
            or not _interrupts(rest)
            or _UNDERLINE_ONLY.fullmatch(rest) is not None  # escaped: text
        )
        if not lazy:
            self._end_past(column)
        elif held < len(items):  # items it may have ended
            self.sure = False
        if inside >= 4:  # code, or a paragraph's next line: no block starts here
            return line
        # a line of `-` under a line (`_not_underlined` escapes it): text, maybe, or
        # a rule or an empty item as written
        maybe = not self.blank and _UNDERLINE_ONLY.fullmatch(rest) is not None
        if maybe:
            self.sure = False
        if _BREAK.fullmatch(wide) and not lazy and not maybe:
            # a rule; a line of `-` may be an underline escaped into text
            self.in_text = _UNDERLINE_ONLY.fullmatch(rest) is not None
            return line
        if rest.startswith("#"):
            heading = _HEADING.match(rest)
            self.in_text = heading is None or lazy  # a paragraph's text, maybe
            if heading is not None and held and column >= 4:
                start, run = line.index("#"), len(heading[2])
                return line[:start] + "#" * min(6, run + 2) + line[start + run :]
            return line
        at = column
        if lazy or _BREAK.fullmatch(rest):  # a paragraph's text, or a rule
            self.sure = self.sure and _MARKER.match(wide, at) is None
        while (marker := _MARKER.match(wide, at)) is not None:
            if _BREAK.fullmatch(wide, at):  # a rule in the item (`1. - - -`): no item
                self.started = ""
                break
            spaces = len(marker[0]) - len(marker[0].rstrip(" "))
            if marker.end() == len(wide):  # an empty item
                self.sure = False
                self.started = "" if lazy or maybe else "empty"
            elif spaces > 4 and not lazy:
                self.started = "code"
            width = len(marker[0]) - spaces
            # 1 to 4 spaces after the marker; more (or none, at the line's end) is 1
            at += width + (
                spaces if 1 <= spaces <= 4 and marker.end() < len(wide) else 1
            )
            place = bisect.bisect_left(items, at)
            if place == len(items) or items[place] != at:
                items.insert(place, at)
        self.in_text = True
        return line


class _Quotes:
    """Where a quote holds indented code: a line 4 columns past its `>`s (each taking
    one blank after it), at the quote's start or after a blank line in it or more
    code, where no paragraph can take it in; not where a list item may be open in the
    quote (a blank line out of any quote ends them). A line that may be text is text."""

    def __init__(self) -> None:
        self.fresh = True  # no paragraph can be open
        self.listed = False  # a list item may be open, in a quote or around it

    def code(self, line: str) -> bool:
        """Whether `line` is a line of code in a quote: shown as written."""
        wide = line.expandtabs(4)
        rest = wide.lstrip(" ")
        if not rest:
            self.fresh, self.listed = True, False
            return False
        marks = _QUOTED.match(wide) if rest[0] == ">" else None
        if marks is not None:
            rest = wide[marks.end() :].lstrip(" ")
            if not rest:  # a blank line in the quote
                self.fresh = True
                return False
            if (
                self.fresh
                and not self.listed
                and len(wide) - len(rest) - marks.end() >= 4
                and rest[0] != ">"  # a quote's `>` to some viewers, however far in
                and ("\t" not in line or marks[0].count(">") < 2)  # see `_heading_down`
            ):
                return True
        self.fresh = False
        self.listed = self.listed or _MARKER.match(rest) is not None
        return False


def _interrupts(rest: str) -> bool:
    """Whether a line (its blank taken off) starts a block under a paragraph's line: a
    quote, a heading, a fence, a rule, or a list item that is a bullet or 1 and holds
    text. Any other line goes on the paragraph (`#foo`, `2.`, an empty `-`), in a list
    item too if the paragraph is its (a "lazy" line: it ends no item)."""
    if rest.startswith(">") or _fences(rest) or _BREAK.fullmatch(rest):
        return True
    if _ATX.match(rest):
        return True
    marker = _OPENING.match(rest)
    return (
        marker is not None
        and marker[1] != ">"
        and marker[2] in (None, "1")
        and bool(marker[3])
        and marker.end() < len(rest)
    )


def _fences(rest: str) -> bool:
    """Whether a line (its blank taken off) opens a fenced block: 3 backticks or tildes,
    and no backtick after backticks (` ```a` ` is a paragraph's text, as `_OPENER`'s
    callers find)."""
    if rest.startswith("~~~"):
        return True
    return rest.startswith("```") and "`" not in rest.lstrip("`")


def _not_underlined(found: re.Match[str]) -> str:
    """An underline kept from heading the line above it (in a list item or a quote
    too): escaped where that line is text (after a blank line, a heading or a list
    item it is no part of, `---` is a rule and stays one)."""
    text = found.string
    end = found.start() - 1  # the newline that ends the line above
    above = text[text.rfind("\n", 0, max(end, 0)) + 1 : end] if end > 0 else ""
    if _blank(above):
        return found[0]
    if (_HEADING.match(above) or (not found[1] and _ITEM.match(above))) and _opens(
        above
    ):  # a heading, or a list item the rule is no part of
        return found[0]
    return f"{found[1]}\\{found[0][len(found[1]) :]}"


def _blank(line: str) -> bool:
    """Whether `line` is blank, or a quote's blank line (only `>`s): 3 columns in at
    most, and 4 at most between them (further in, a `>` is a paragraph's text)."""
    if not line.strip(" \t"):
        return True
    if line.strip(" \t>"):
        return False
    wide = line.expandtabs(4).rstrip(" ")
    return len(wide) - len(wide.lstrip(" ")) <= 3 and all(
        len(gap) <= 4 for _, gap in _GAP.findall(wide)
    )


def _opens(line: str) -> bool:
    """Whether `line` starts a block of its own whatever the line above it (after a
    paragraph too): 3 columns in at most, 4 at most after a `>`, and each list marker a
    bullet or `1.` with text after it. Otherwise it may go on a paragraph above it
    (`2. # x`, `-` or a line 4 columns in): an underline under it heads that."""
    wide = line.expandtabs(4)
    rest = wide.lstrip(" ")
    if len(wide) - len(rest) > 3:
        return False
    while (marker := _OPENING.match(rest)) is not None:
        gap = len(marker[3])
        if gap > 4 or (marker[1] != ">" and (gap == 0 or marker[2] not in (None, "1"))):
            return False
        rest = rest[marker.end() :]
    return bool(rest)


# What a line's text may start with that opens a block, a list item or a fence, or
# ends a paragraph: a line past its blank starting with none of these is plain text
_NOT_PLAIN = frozenset(">#-+*_`~0123456789")


def _plain_run(lines: list[str], at: int) -> int:
    """Where the lines from `at` stop being plain text: not blank, and starting (past
    their blank) with no character in `_NOT_PLAIN`. Such a line goes on an open
    paragraph however far in it is (a lazy line, or 4 columns in), so no code, fence,
    heading or list item is among them."""
    end = at
    while end < len(lines):
        rest = lines[end].lstrip(" \t")
        if not rest or rest[0] in _NOT_PLAIN:
            break
        end += 1
    return end


def _inline_lines(lines: list[str]) -> str:
    """`_inline` of each line, joined: one pass over them where none holds a backtick
    (no match of `_ACTIVE` crosses a line's end, nor looks past one)."""
    text = "\n".join(lines)
    if "`" in text:
        return "\n".join(_inline(line) for line in lines)
    return _ACTIVE.sub(_defused, text)


def _unlisted(text: str) -> dict[int, str]:
    """The lines of `text` (by number) whose list marker `_headed_down` escapes (`- 🔧`,
    an empty `-` over `  🔧`), escaped: text, not an item, to a viewer, so to the walk
    of `_blocks` that finds code after them."""
    if "🔧" not in text and "🤖" not in text:
        return {}
    shown: dict[int, str] = {}
    number = done = 0
    for found in _MARKS.finditer(text):
        if not found[3]:
            continue
        start = found.start()  # a line's start (`^`)
        number += text.count("\n", done, start)
        done = start
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        mark = found.end(1) - start
        shown[number] = line[:mark] + "\\" + line[mark:]
    return shown


def _blocks(text: str) -> list[tuple[bool, str]]:
    """`text` as Markdown blocks: (True, a fenced block fenced anew) or (False, lines of
    inert prose, its headings below the export's). A fence the text leaves open ends
    with the text, as CommonMark ends it with the document: here, it would have
    swallowed the rest of the export."""
    indented = _INDENTED.search(text)
    quoted = _match_line(_QUOTE_INDENTED, text, ">") is not None
    if "`" not in text and "~~~" not in text and not indented and not quoted:
        return [(False, _headed_down(_ACTIVE.sub(_defused, text)))]  # no code
    # a list item goes on past a fenced block in it: a heading deep in it after the
    # block is found only with the items the text above left open
    items = _Items() if _match_line(_DEEP_HEADING, text, "#") else None
    codes = _Items() if indented else None  # the items, to find indented code
    quotes = _Quotes() if quoted else None  # the same in a quote
    blocks: list[tuple[bool, str]] = []
    prose: list[str] = []
    code: list[str] = []  # lines of indented code, as written (the blank ones after)
    unlisted = _unlisted(text) if codes is not None or quotes is not None else {}
    lines = text.split("\n")
    at = 0
    while at < len(lines):
        # the walk's common case: lines of a paragraph's text, taken in one step
        plain = codes is None or codes.takes_plain(lines[at])
        end = _plain_run(lines, at) if plain else at
        if end > at:
            if code:
                blocks.append((True, "\n".join(code)))
                code = []
            prose.append(_inline_lines(lines[at:end]))
            if codes is not None:
                codes.went_on()
            if quotes is not None:
                quotes.fresh = False
            at = end
            continue
        line = lines[at]
        opened = _OPENER.fullmatch(line)
        prefix = ""  # the `>`s a fenced block in a quote is after
        if opened is None and (marks := _QUOTED.match(line)) is not None:
            opened = _OPENER.fullmatch(line, marks.end())
            prefix = marks[0]
        deep = (
            _DEEP_OPENER.fullmatch(line)
            if opened is None and codes is not None and ("```" in line or "~~~" in line)
            else None
        )
        if (
            deep is not None
            and codes is not None
            and not (deep[2][0] == "`" and "`" in deep[3])
        ):
            column = len(deep[1].expandtabs(4))
            holder = codes.holder(column)
            if holder is not None:
                if code:
                    blocks.append((True, "\n".join(code)))
                    code = []
                if prose:
                    blocks.append((False, _headed_down("\n".join(prose), items)))
                    prose = []
                for tracked in (items, codes):
                    if tracked is not None:
                        tracked.fenced(column)
                if quotes is not None:
                    quotes.fresh = True
                block, at = _deep_fence(lines, at, deep, holder)
                blocks.append((True, block))
                continue
        if opened is None or (opened[2][0] == "`" and "`" in opened[3]):
            seen = unlisted.get(at, line)  # as a viewer reads it, its marks escaped
            if (codes is not None and codes.code(seen)) | (
                quotes is not None and quotes.code(seen)
            ):
                if prose:
                    blocks.append((False, _headed_down("\n".join(prose), items)))
                    prose = []
                if items is not None:  # the items it may open, or end
                    items.headed_down(seen)
                code.append(line)
            elif code and not line.strip(" \t"):
                if items is not None:
                    items.headed_down(line)
                code.append(line)  # a blank line after code: in it, if more follows
            else:
                if code:
                    blocks.append((True, "\n".join(code)))
                    code = []
                prose.append(_inline(line))
            at += 1
            continue
        if code:
            blocks.append((True, "\n".join(code)))
            code = []
        if prose:
            blocks.append((False, _headed_down("\n".join(prose), items)))
            prose = []
        indent, fence = opened[1], opened[2]
        if quotes is not None:  # after a block in a quote, its next line is text
            quotes.fresh = not prefix
        for tracked in (items, codes):
            if tracked is None:
                pass
            elif prefix:  # a quote's line, as its prose lines are
                tracked.code(line)
            else:
                tracked.fenced(len(indent))
        body: list[str] = []
        at += 1
        while at < len(lines):
            inner = _unquoted(lines[at], prefix) if prefix else lines[at]
            if inner is None:  # the quote ends, and the block in it
                break
            at += 1
            closed = _CLOSER.fullmatch(inner)
            if closed and closed[1][0] == fence[0] and len(closed[1]) >= len(fence):
                break
            # as CommonMark does, the opener's indentation comes off each line; it goes
            # back on below, with the new fence, to keep the block in its list item
            body.append(inner[min(len(indent), len(inner) - len(inner.lstrip(" "))) :])
        words = opened[3].split(maxsplit=1)
        language = words[0] if words and _LANGUAGE.fullmatch(words[0]) else ""
        block = (
            _quote_block("\n".join(body), language) if body else f"```{language}\n```"
        )
        # and back in its quote: an empty line there is its `>`s alone
        lead, empty = prefix + indent, prefix.rstrip(" ")
        blocks.append(
            (True, "\n".join(lead + x if x else empty for x in block.split("\n")))
        )
    if code:
        blocks.append((True, "\n".join(code)))
    if prose:
        blocks.append((False, _headed_down("\n".join(prose), items)))
    return blocks


def _deep_fence(
    lines: list[str], at: int, opened: re.Match[str], holder: int
) -> tuple[str, int]:
    """The fenced block `opened` starts at `lines[at]` in the list item whose content
    is `holder` columns in, fenced anew, its lines as written (their blank in the item
    as CommonMark takes it off); and the number of the line after it. A line less
    indented than the item's content ends the item, and the block in it."""
    fence = opened[2]
    body: list[str] = []
    at += 1
    while at < len(lines):
        wide = lines[at].expandtabs(4)
        rest = wide.lstrip(" ")
        column = len(wide) - len(rest)
        if rest and column < holder:
            break
        at += 1
        closed = _CLOSER.fullmatch(rest) if column - holder < 4 else None
        if closed and closed[1][0] == fence[0] and len(closed[1]) >= len(fence):
            break
        body.append(lines[at - 1])
    words = opened[3].split(maxsplit=1)
    language = words[0] if words and _LANGUAGE.fullmatch(words[0]) else ""
    new = _fence("\n".join(body))
    lead = opened[1]
    return "\n".join([f"{lead}{new}{language}", *body, f"{lead}{new}"]), at


def _unquoted(line: str, prefix: str) -> str | None:
    """`line` past as many `>`s as `prefix` holds (and the blank after each), the first
    as far in; None where the quote (or its depth) ends there, or a tab follows a `>`
    (its columns split: the line is left to end the block, as text)."""
    lead = len(prefix) - len(prefix.lstrip(" "))
    if not line.startswith(">", lead) or line[:lead].strip(" "):
        return None
    at = 0
    for _ in range(prefix.count(">")):
        mark = _QUOTE_MARK.match(line, at)
        if mark is None:
            return None
        at = mark.end()
    return None if line.startswith("\t", at) else line[at:]


def _no_html(text: str) -> str:
    """`text` as inert Markdown (see `_blocks`): code shows as written, and nothing else
    becomes markup a viewer acts on."""
    return "\n".join(block for _, block in _blocks(text))


def _pasted(session_id: str | None) -> str:
    """An id on one line, quoted for the user's shell where it is no plain word."""
    return pasted_id(session_id) if session_id else ""


def _code(value: str) -> str:
    """`value` as an inline code span that its own backticks cannot close."""
    ticks = "`" * (max((len(r) for r in _TICK_RUNS.findall(value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def _fence(text: str) -> str:
    """Three backticks, or one more than the longest run of them in `text`."""
    if "```" not in text:
        return "```"
    return "`" * (max(len(run) for run in _BACKTICKS.findall(text)) + 1)


def _quote_block(text: str, language: str = "") -> str:
    fence = _fence(text)
    return f"{fence}{language}\n{text}\n{fence}"


def _capped(text: str, limit: int = 2000) -> str:
    """A long output or diff, cut: the export stays something to paste."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters)"


def _arguments(value: object, shown: str) -> str:
    """A tool call's input beyond its diff and what its summary line (`shown`) shows
    whole, as `show --detail full` has it: each argument `key: value`, a text of several
    lines indented under its key, every control character written out (`visible`): a
    `Write`'s content, a long command; cut as `_capped` cuts."""
    from .records import dumps

    if patch_text(value) is not None:  # the diff shows it
        if not isinstance(value, dict) or len(value) == 1:
            return ""
        held = "command" if "command" in value else "cmd"
        value = {k: v for k, v in value.items() if k != held}
    elif isinstance(value, dict):
        edits = edit_keys(value)
        value = {k: v for k, v in value.items() if k not in edits}
    if value is None or value == "" or value == {}:
        return ""
    if not isinstance(value, dict):
        text = value if isinstance(value, str) else dumps(value).decode()
        return (
            ""
            if shown_whole(text, shown)
            else _capped_visible([("", text.rstrip("\n"))])
        )
    return _capped_visible(_argument_lines(value, shown))


def _argument_lines(
    value: dict[object, object], shown: str
) -> Iterator[tuple[str, str]]:
    """(prefix, text) of each line `_arguments` writes, a line at a time."""
    from .records import dumps

    for key, argument in value.items():
        text = argument if isinstance(argument, str) else dumps(argument).decode()
        if shown_whole(text, shown):
            continue
        name = one_line(str(key), 40)
        end = _end(text)
        if text.find("\n", 0, end) >= 0:
            yield f"{name}:", ""
            start = 0
            while (cut := text.find("\n", start, end)) >= 0:
                yield "    ", text[start:cut]
                start = cut + 1
            yield "    ", text[start:end]
        else:
            yield f"{name}: ", text


def _end(text: str) -> int:
    """Where `text.rstrip("\n")` would end, without its copy."""
    end = len(text)
    while end and text[end - 1] == "\n":
        end -= 1
    return end


def _capped_visible(lines: Iterable[tuple[str, str]], limit: int = 2000) -> str:
    """`_capped` of the lines, each its prefix then its text `visible`: each text written
    out only as far as the cut shows, the rest counted (a 20 MB `Write` content was
    written out whole, twice, to show 2,000 characters)."""
    head: list[str] = []
    held = length = 0
    for n, (prefix, text) in enumerate(lines):
        start = f"\n{prefix}" if n else prefix
        length += len(start) + visible_length(text)
        if held < limit + 1:  # one more than shown: whether the whole shows
            piece = (start + visible_head(text, limit + 1 - held))[: limit + 1 - held]
            head.append(piece)
            held += len(piece)
    text = "".join(head)
    if length <= limit:
        return text
    return text[:limit] + f"\n… ({length - limit} more characters)"


def _digest(text: str | None) -> bytes:
    """A reply or a result, compared without holding it: its text, cleaned, trimmed.
    Half an emoji (a lone surrogate, which no reader should pass on) is hashed as it is."""
    data = clean(text).strip().encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def render(
    session: Session,
    events: Iterable[Event],
    resume: str | None = None,
    lead: str | None = None,
    known: Iterable[str] = (),
) -> Iterator[str]:
    """The page: a header of the session's facts (and the shell line that reopens it,
    `resume`; the session a sub-agent's line starts from, `lead`), then its events;
    `known`: the ids of its sub-agents the index lists (`AgentNames`)."""
    yield f"# {_heading(_inline(title_line(session.title), literal=True))}\n\n"
    # the ids as `show`'s header names them, to paste into `sessdex show`
    facts = [
        ("app", one_line(session.app)),
        ("session", _pasted(session.id)),
        ("folder", one_line(session.cwd)),
        ("branch", one_line(session.branch)),
        ("model", one_line(session.model)),
        ("forked from", _pasted(forked_from(session.extra))),
        ("sub-agent of", _pasted(lead)),
        ("started", iso(session.created)),
        ("updated", iso(session.updated)),
        ("resume", one_line(resume)),
    ]
    yield (
        "".join(f"- **{name}**: {_code(value)}\n" for name, value in facts if value)
        + "\n"
    )
    total_in = total_cache = total_out = 0
    credits = 0.0
    names = AgentNames(known)  # what each sub-agent is called, by the one rule
    spawned: dict[str, str] = {}  # spawning call id -> its sub-agent's id
    spawners: dict[str, str | None] = {}  # sub-agent id -> the agent that spawned it
    replies: dict[str, bytes] = {}  # sub-agent id -> a digest of its last reply
    waiting: Waiting = {}  # calls not answered yet: a result of several names its call

    in_list = (
        False  # the last line was a list item ("- 🔧 …"), with no blank line after
    )
    for event in events:
        out = ""
        agent = event.agent_id
        answers = answered_call(waiting, event)
        label = f" (sub-agent {names.called(agent)})" if agent else ""
        who = _inline(label, literal=True) if label else ""
        # in a <summary> line, an HTML block: Markdown is not read there (no code span)
        who_html = escape(label, quote=False) if label else ""
        kind = event.kind
        child = event.extra.get("child_id") if kind == "subagent" else None
        named = spawn_name(event) if kind == "subagent" else None
        if child is not None:  # its type or name, and enough of its id
            names.spawned(str(child), named, agent or event.session_id)
        if child is not None and event.call_id:
            spawned[event.call_id] = str(child)
        if child is not None:
            spawners.setdefault(str(child), agent)
        if kind == "user":
            parent = spawners.get(agent) if agent is not None else None
            told_by = names.called(parent) if parent else None
            sender = sender_name(event, told_by)  # another agent's message: not typed
            heading = (
                _inline(f"Message from {sender}", literal=True) if sender else "User"
            )
            if sender == APP_SENDER:  # a command's expansion, a hook's context: folded
                body = _quote_block(_capped(clean(event.text)))
                out = f"<details><summary>added by the app{who_html}</summary>\n\n{body}\n\n</details>\n\n"
            else:
                out = (
                    f"## {_heading(heading + who)}\n\n{_no_html(clean(event.text))}\n\n"
                )
        elif kind == "assistant":
            blocks = _blocks(clean(event.text))
            # a reply that opens with a paragraph goes on after the label; anything
            # else (a fence, a heading, a list, a quote, a rule, indented code, a blank
            # line) starts a line, where the label's line would have been taken into
            # it or underlined, or the rule or code read as the label's text
            first, _, rest = blocks[0][1].partition("\n") if blocks else ("", "", "")
            joins = (
                blocks
                and not blocks[0][0]
                and _PARAGRAPH.match(first)
                and not _BREAK.fullmatch(first)
                and not first.expandtabs(4).startswith("    ")
                and not _DEFINED.match(first)  # a link's definition, kept one
                and not _TABLE_RULE.fullmatch(rest.partition("\n")[0])  # a table
            )
            gap = " " if joins else "\n\n"
            body = "\n".join(block for _, block in blocks)
            out = f"**Assistant{who}:**{gap}{body}\n\n"
            if agent is not None:
                replies[agent] = _digest(event.text)
        elif kind == "thinking" and event.text:
            out = f"<details><summary>thinking{who_html}</summary>\n\n{_quote_block(clean(event.text))}\n\n</details>\n\n"
        elif kind == "tool_call":
            value = event.extra.get("input", event.text)
            value = value if value is not None else event.text
            # a call a script ran (Claude Code's REPL), not the model: marked, as `show`
            by = "*↳ script:* " if event.extra.get("virtual") is True else ""
            # its summary's parts, each found once: the diff and the detail shown below too
            diff, detail = held_diff(value), tool_detail(value, 200)
            summary = tool_line(event.tool, detail, diff_counts(diff))
            out = f"- 🔧 {by}{_inline(summary, literal=True)}{who}\n"
            if diff:  # what an edit changed: what a reader of the export most needs
                text = _capped_visible(("", line) for line in diff)
                out += f"\n{_quote_block(text, 'diff')}\n\n"
            rest = _arguments(value, detail)
            if rest:  # what else it was given (a file's content): capped as results are
                out += f"\n{_quote_block(rest)}\n\n"
        elif kind == "tool_result":
            label = "error" if event.is_error else "result"
            spawn = spawned.get(event.call_id or "")
            if answers is not None and spawn is None:  # one of calls made together
                label += _inline(f" of {answers}", literal=True)
            if spawn is not None:  # what the sub-agent's block above gave back
                label += _inline(f" of sub-agent {names.called(spawn)}", literal=True)
            label += who  # whose result: in time order, agents' results interleave
            if spawn is not None and replies.get(spawn) == _digest(event.text):
                # its last reply, just read in its block: not written out again
                out = f"\n  {label}: its last reply, above.\n\n"
            else:
                out = f"\n  {label}:\n\n{_quote_block(_capped(clean(event.text)))}\n\n"
        elif kind == "subagent":
            # the name its lines carry, which `show` and `tree` take its id from
            shown = names.called(str(child)) if child is not None else None
            name = _inline(shown or named or "agent", literal=True)
            task = one_line(event.text)  # what it was spawned for, where the spawn says
            said = (
                f"**{name}**: {_inline(task, literal=True)}"
                if task.strip()
                else f"**{name}**"
            )
            out = f"- 🤖 sub-agent {said}\n"
        elif kind == "compaction":
            out = f"\n---\n*Context compacted{who}.*\n\n"
            if event.text:  # the summary the model went on from, folded as in html
                summary = _quote_block(clean(event.text))
                out += f"<details><summary>summary</summary>\n\n{summary}\n\n</details>\n\n"
        elif kind == "error":
            said = error_message(one_line(event.text))
            label = f"**Error{who}:** " if said else f"**Error{who}**"
            out = f"> {label}{_inline(said, literal=True)}\n\n"
        elif kind == "meta" and event.text:  # a model, mode or branch change, a PR
            out = f"*{_inline(one_line(event.text), literal=True)}*{who}\n\n"
        elif kind == "usage" and event.usage is not None:
            # a broken count (negative, absurd) adds nothing
            u = event.usage.plausible()
            total_in += u.input_tokens
            total_cache += u.cache_read_tokens + u.cache_write_tokens
            total_out += u.output_tokens
            credits += u.credits
        if not out:
            continue
        item = out.startswith("- ")
        if in_list and not item and not out.startswith("\n"):
            yield "\n"  # a heading or a paragraph after a list item starts its own block
        in_list = item
        yield out
    if total_in or total_cache or total_out or credits:
        totals = (
            [f"Tokens: {tokens_said(total_in, total_cache, total_out)}"]
            if total_in or total_cache or total_out
            else []
        )
        totals += [f"Credits: {credits_amount(credits)}"] if credits else []
        # in emphasis, as the export's other notes: a line of a transcript's text in
        # emphasis alone shows its marks (`_MARKS`), so none passes for them
        yield "\n---\n*" + ". ".join(totals) + ".*\n"
