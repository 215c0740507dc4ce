"""A table of no-wrap text columns, drawn line by line as Rich draws its `Table`.

Rich lays a table out by rendering each cell as a renderable (measuring, wrapping,
padding and styling it one segment at a time): some 2 ms a row, seconds for a report
of thousands of rows. A `Layout` writes the same bytes from the column widths alone:
the same box characters, padding, ellipses and colour codes, one string a line. Where
the columns do not fit the console whole (Rich would shrink them all evenly), it
prints Rich's own table. Cells hold clean text (no tabs or control characters), each
line of a cell apart with "\n"; a style is a Rich style name ("dim", "bold yellow").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

from rich.cells import cell_len, set_cell_size

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    # Rich's console and table load only where a table is drawn: `usage --json` imports
    # this module for its columns, and loading them cost it about a tenth of its run
    from rich.console import Console
    from rich.table import Table

BATCH = 1000  # lines written at a time: few writes, and never the whole table held


@dataclass(slots=True)
class Column:
    """A header (one line) and a cell per row, each in its row's style ("" for none)."""

    header: str
    cells: Sequence[str]
    styles: Sequence[str] | None = None  # one per row; None: every cell plain
    right: bool = False  # justified to the right (numbers), else to the left
    max_width: int | None = None  # longer cells are cut with "…"


@dataclass(slots=True)
class Layout:
    """Columns side by side under a header line, in a heavy-headed box (`boxed`) or two
    spaces apart; a line across after each row in `sections`."""

    columns: list[Column]
    boxed: bool = True
    sections: frozenset[int] = field(default_factory=frozenset)

    def __rich__(self) -> Table:
        """The same table as a Rich `Table`: what `print` falls back to, and the
        reference its lines are checked against."""
        from rich.table import Table
        from rich.text import Text

        if self.boxed:
            out = Table()
        else:
            out = Table(box=None, pad_edge=False, show_edge=False)
        for column in self.columns:
            out.add_column(
                Text(column.header),
                justify="right" if column.right else "left",
                no_wrap=True,
                max_width=column.max_width,
            )
        rows = len(self.columns[0].cells) if self.columns else 0
        for n in range(rows):
            out.add_row(
                *(
                    Text(c.cells[n], style=c.styles[n] if c.styles else "")
                    for c in self.columns
                ),  # Text, never str: Rich would read brackets in a cell as markup
                end_section=n in self.sections,
            )
        return out

    def print(self, console: Console) -> None:
        """Write the table to `console`'s file as `console.print(self)` would (never
        recorded or captured: the CLI's console does neither)."""
        if console.quiet:
            return
        lines = self.lines(console)
        if lines is None:
            console.print(self)
            return
        file = console.file
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) == BATCH:
                file.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            file.write("\n".join(batch) + "\n")
        file.flush()

    def widths(self, room: int) -> list[int] | None:
        """Each column's width, its padding included, as Rich sets it on a console `room`
        cells wide; None where they do not fit whole (Rich would shrink them all)."""
        count = len(self.columns)
        if not count:
            return None
        room -= count + 1 if self.boxed else 0  # the borders
        out = []
        for n, column in enumerate(self.columns):
            pad = _pads(n, count, self.boxed)
            widest = max(
                cell_width(line)
                for text in (column.header, *column.cells)
                for line in text.split("\n")
            )
            if column.max_width is not None:
                widest = min(widest, column.max_width)
            out.append(widest + sum(pad) or 1)
        if sum(out) > room or any(w - sum(_pads(n, count, self.boxed)) < 1 for n, w in enumerate(out)):  # fmt: skip
            return None
        return out

    def lines(self, console: Console) -> Iterator[str] | None:
        """The table's lines as Rich writes them to `console` (colour codes where it
        would colour), without their line ends; None where Rich would shrink columns."""
        if not self.boxed and not _edges_measured():
            return None
        widths = self.widths(console.width)
        if widths is None:
            return None
        return self._lines(console, widths)

    def _lines(self, console: Console, widths: list[int]) -> Iterator[str]:
        from rich import box

        from .terminal import LineWriter

        writer = LineWriter(console)
        known: dict[str, tuple[str, str]] = {}

        def codes(style: str) -> tuple[str, str]:
            """The codes around a piece in `style` (a theme's name, as Rich takes it)."""
            if style not in known:
                known[style] = writer.codes(str(console.get_style(style)))
            return known[style]

        count = len(self.columns)
        pads = [_pads(n, count, self.boxed) for n in range(count)]
        content = [w - left - right for w, (left, right) in zip(widths, pads, strict=True)]  # fmt: skip
        frame = box.HEAVY_HEAD.substitute(console.options, safe=console.safe_box) if self.boxed else None  # fmt: skip
        rows = len(self.columns[0].cells)
        if frame is not None:
            yield frame.get_top(widths)
        for n in range(-1, rows):  # the header first
            if n < 0:
                texts = [c.header for c in self.columns]
                styles = ["table.header"] * count
                ends = (frame.head_left, frame.head_vertical, frame.head_right) if frame else None  # fmt: skip
            else:
                texts = [c.cells[n] for c in self.columns]
                styles = [c.styles[n] if c.styles else "" for c in self.columns]
                last = n == rows - 1
                ends = (
                    (frame.foot_left, frame.foot_vertical, frame.foot_right)
                    if frame and last
                    else (frame.mid_left, frame.mid_vertical, frame.mid_right)
                    if frame
                    else None
                )
            split = [text.split("\n") for text in texts]
            for line in range(max(len(parts) for parts in split)):
                pieces: list[str] = [ends[0]] if ends else []
                for m, parts in enumerate(split):
                    if m and ends:
                        pieces.append(ends[1])
                    left, right = pads[m]
                    if line >= len(parts):  # under a shorter cell: blank, unstyled
                        pieces.append(" " * widths[m])
                        continue
                    text = _fit(parts[line], content[m], self.columns[m].right)
                    style = styles[m]
                    if not style:
                        pieces.append(" " * left + text + " " * right)
                        continue
                    start, end = codes(style)
                    # the header's padding is in its style; a row's is plain
                    edge_start, edge_end = (start, end) if n < 0 else ("", "")
                    if left:
                        pieces.append(edge_start + " " * left + edge_end)
                    pieces.append(start + text + end)
                    if right:
                        pieces.append(edge_start + " " * right + edge_end)
                if ends:
                    pieces.append(ends[2])
                yield "".join(pieces)
            if frame is not None and n < 0:
                yield frame.get_row(widths, "head")
            elif frame is not None and n in self.sections and n < rows - 1:
                yield frame.get_row(widths, "row")
        if frame is not None:
            yield frame.get_bottom(widths)


@cache
def _edges_measured() -> bool:
    """Whether this Rich measures an unboxed table's edge columns without the padding
    they do not get (14.3 on); before, each was a cell wider than its text."""
    from rich.table import Table

    probe = Table("a", "b", box=None, pad_edge=False)
    try:
        return probe._get_padding_width(0) == 1
    except (
        AttributeError,
        TypeError,
    ):  # a private method: a Rich without it draws itself
        return False


def _pads(n: int, count: int, boxed: bool) -> tuple[int, int]:
    """The spaces before and after column `n`'s text: one each, none at the table's
    edges when it has no box."""
    if boxed:
        return 1, 1
    return (1 if n else 0), (1 if n < count - 1 else 0)


def cell_width(text: str) -> int:
    """`text`'s width in terminal cells, as Rich counts them (`cell_len`); printable
    ASCII, most cells, without its function calls."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def _fit(text: str, width: int, right: bool) -> str:
    """One line of a cell in exactly `width` cells, as Rich's `Text` justifies it: cut
    with "…" when too long, padded with spaces on its left or its right."""
    if right:
        text = text.rstrip()
    size = cell_width(text)
    if size > width:
        return set_cell_size(text, width - 1) + "…"
    if size == width:
        return text
    return " " * (width - size) + text if right else text + " " * (width - size)
