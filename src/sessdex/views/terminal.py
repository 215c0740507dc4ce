"""Terminal renderings: a transcript's lines, a sub-agent tree (Rich).

Every string from a transcript goes through `text.clean` before it is shown, and into
a `Line` piece or a Rich `Text` (never into markup), so neither escape sequences nor
Rich markup in it can take effect. A transcript's lines are `Line`s written by
`LineWriter`, not Rich renderables: Rich's layout (wrapping, measuring every cell,
sanitising again) cost about 0.3 ms a line, most of a long `show`.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text

from ..model import Event, Session
from .diffs import capped_diff, diff_kinds, edit_keys, edit_lines, patch_text
from .records import forked_from
from .text import (
    APP_SENDER,
    KIND_COLUMNS,
    MARK_MOST,
    SiblingIds,
    Waiting,
    agent_name,
    answered_call,
    clean,
    credits_amount,
    duration,
    error_message,
    fold,
    id_start,
    one_line,
    output_first,
    pasted_id,
    sender_name,
    short_path,
    shown_whole,
    spawn_name,
    title_line,
    tokens_said,
    tool_detail,
    tool_summary,
    visible,
)

if TYPE_CHECKING:  # a usage table draws no tree: neither is loaded for it
    from rich.tree import Tree

    from ..tree import AgentNode

DETAILS = ("full", "normal", "user")


@dataclass(slots=True)
class Line:
    """One shown event: pieces of clean text, each with a Rich style, over a base style
    (a sub-agent's lines are magenta). What `LineWriter` writes; `text()` is the same
    as a Rich `Text`."""

    base: str = ""
    pieces: list[tuple[str, str]] = field(default_factory=list)

    def append(self, text: str, style: str = "") -> None:
        self.pieces.append((text, style))

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.pieces)

    def text(self) -> Text:
        out = Text(style=self.base)
        for text, style in self.pieces:
            out.append(text, style=style)
        return out


def session_header(
    session: Session, lead: str | None = None, home: str | None = None
) -> Line:
    """The title, app, id, times and facts above a transcript; `lead` names the session a
    sub-agent's line starts from. A folder in `home` is written `~/…`, as `list` shows it."""
    header = Line()
    header.append(title_line(session.title), style="bold")
    header.append(f"\n{session.app} · {pasted_id(session.id)}", style="dim")
    span = time_span(session.created, session.updated)
    if span:
        header.append(f" · {span}", style="dim")
    folder = short_path(session.cwd, home) if session.cwd else None
    facts = [one_line(x) for x in (folder, session.branch, session.model) if x]
    if facts:
        header.append("\n" + " · ".join(facts), style="dim")
    if source := forked_from(session.extra):
        header.append(f"\nforked from {pasted_id(source)}", style="dim")
    if lead:
        header.append(f"\nsub-agent of {pasted_id(lead)}", style="dim")
    return header


def _local(moment: datetime) -> datetime:
    """`moment` in the local zone; as it is where that zone would take it past the year 1
    or 9999 (the zero time some apps write, 0001-01-01T00:00:00Z, west of UTC)."""
    try:
        return moment.astimezone()
    except (OverflowError, OSError, ValueError):
        return moment


def time_span(start: datetime | None, end: datetime | None) -> str:
    """When a session ran, in local time, its zone named: "2026-11-30 08:10 to 09:42 CET"
    (the day again only when it ended on another one)."""
    first, last = start or end, end or start
    if first is None or last is None:
        return ""
    first, last = _local(first), _local(last)
    zone = f" {last.tzname()}" if last.tzname() else ""
    shown = first.strftime("%Y-%m-%d %H:%M")
    if last.strftime("%Y-%m-%d %H:%M") == shown:
        return shown + zone
    if last.date() == first.date():
        return f"{shown} to {last:%H:%M}{zone}"
    return f"{shown} to {last:%Y-%m-%d %H:%M}{zone}"


def render_events(
    events: Iterable[Event],
    detail: str = "normal",
    labels: dict[str, str] | None = None,
    unnamed: set[str] | None = None,
    spawners: dict[str, str | None] | None = None,
    waiting: Waiting | None = None,
    uncalled: set[str] | None = None,
    siblings: SiblingIds | None = None,
) -> Iterator[Line]:
    """One line per shown event; sub-agent events are indented and labelled.

    `labels` (sub-agent id -> label), `unnamed` (the calls of spawns shown before their
    child was known), `uncalled` (the sub-agents whose spawn was shown before its call
    was read: announced by their own files) and `spawners` (sub-agent id -> the agent
    that spawned it) carry over between calls, for a transcript rendered as it comes: a
    spawn said again naming its child, or once its call comes, is not shown twice, and
    labels that child. `waiting` (agent -> its calls
    not answered yet: call id -> the call's summary, and whether another was made while
    it waited) too: a result of calls made together names its call, as it comes after
    them all, not under it. `siblings` too: the ids of the sub-agents named so far (and
    of their spawners), so that one spawned in a later call is named apart from them.
    """
    waiting = waiting if waiting is not None else {}
    labels = labels if labels is not None else {}
    unnamed = unnamed if unnamed is not None else set()
    spawners = spawners if spawners is not None else {}
    uncalled = uncalled if uncalled is not None else set()
    taken = _Marks(labels.values())  # sets: thousands of sub-agents stay quick
    if siblings is not None:  # the ids an earlier call named (`follow`'s reads)
        taken.siblings = siblings
    for event in events:
        named_child = event.extra.get("child_id") if event.kind == "subagent" else None
        if event.kind == "subagent" and event.call_id is not None:
            if named_child is None:
                unnamed.add(event.call_id)
            elif event.call_id in unnamed or named_child in uncalled:
                # a spawn said again: naming its child, or by its call once written
                unnamed.discard(event.call_id)
                uncalled.discard(str(named_child))
                _relabel(str(named_child), event, labels, taken)
                # its lines say who told it, as for a spawn that named it at once: a
                # sub-agent's own, started after `follow` began, was "the lead"
                spawners.setdefault(str(named_child), event.agent_id)
                continue
        elif named_child is not None:
            uncalled.add(str(named_child))
        spawned = None  # a spawn's child marked apart from another of its type
        if event.kind == "subagent" and event.extra.get("child_id") is not None:
            child = str(event.extra["child_id"])
            _relabel(child, event, labels, taken)
            spawners.setdefault(child, event.agent_id)
            # its name where it starts (its lines' mark where that holds its id): the
            # start of its id that `show` and `tree` take, as every command says it
            named = spawn_name(event)
            held = id_start(child, named) in labels[child]
            size = taken.sizes.get(child)
            spawned = labels[child] if held else agent_name(child, named, size)
        prefix = ""
        spawner = None  # a sub-agent another sub-agent spawned: that one told it
        if event.agent_id is not None:
            label = labels.get(event.agent_id) or _unspawned(event.agent_id, labels, taken)  # fmt: skip
            prefix = f"  ↳ {label} "
            if (parent := spawners.get(event.agent_id)) is not None:
                spawner = labels.get(parent) or _unspawned(parent, labels, taken)
        answers = answered_call(waiting, event)
        line = _render(event, detail, prefix, spawned, spawner, answers)
        if line is not None and prefix:  # a sub-agent's further lines stay under it
            pad = "\n" + " " * len(prefix)
            line.pieces = [(text.replace("\n", pad), style) for text, style in line.pieces]  # fmt: skip
        if line is not None:
            yield line


def spawn_labels(
    events: Iterable[Event], labels: dict[str, str], siblings: SiblingIds | None = None
) -> None:
    """Put in `labels` the mark each spawn among `events` gives its sub-agent, as
    `render_events` marks it (given the same `siblings`): `follow` marks the sub-agents
    whose spawns its history leaves unshown so (it marked each by its type alone,
    siblings of a type alike), and those a later read gives before their spawn (a Gemini
    CLI sub-agent started while followed was marked by its id)."""
    taken = _Marks(labels.values())
    if siblings is not None:
        taken.siblings = siblings
    for event in events:
        child = event.extra.get("child_id") if event.kind == "subagent" else None
        if child is not None:
            _relabel(str(child), event, labels, taken)


def _relabel(
    child: str, spawn: Event | None, labels: dict[str, str], taken: _Marks
) -> None:
    taken.discard(labels.get(child, ""))  # its own mark, if said before, is free
    labels[child] = _label(child, spawn, taken)
    taken.add(labels[child])


def _unspawned(child: str, labels: dict[str, str], taken: _Marks) -> str:
    """The mark of a sub-agent whose spawn is not read (cut off, or not written yet):
    the start of its id that `show` takes, as much as tells it from its siblings' (two
    Crush calls of one message shared their first 8 characters and were one mark),
    kept for its every line; its spawn, once read, marks it anew."""
    _relabel(child, None, labels, taken)
    return labels[child]


class _Marks:
    """The marks other sub-agents' lines carry, and every start of each: a mark that
    starts another (`subagent` of `subagent tester-x`, an id's `a1b2c3d4` of
    `a1b2c3d4e`) would leave a reader unsure which agent a line is of."""

    def __init__(self, marks: Iterable[str]) -> None:
        self.marks: set[str] = set()
        self.starts: Counter[str] = Counter()
        self.siblings = SiblingIds()  # their ids, as named: each by a start its own
        self.sizes: dict[str, int] = {}  # sub-agent id -> how much of it tells it apart
        for mark in marks:
            self.add(mark)

    def add(self, mark: str) -> None:
        self.marks.add(mark)
        self.starts.update(mark[:size] for size in range(1, len(mark)))

    def discard(self, mark: str) -> None:
        if mark in self.marks:
            self.marks.discard(mark)
            self.starts.subtract(mark[:size] for size in range(1, len(mark)))

    def free(self, mark: str) -> bool:
        """Whether `mark` is no other's, starts none and is started by none."""
        if mark in self.marks or self.starts[mark] > 0:
            return False
        return not any(mark[:size] in self.marks for size in range(1, len(mark)))


def _label(child: str, spawn: Event | None, taken: _Marks) -> str:
    """What a sub-agent's lines are marked with: its type or name, else its name with
    its id (`agent_name`) where another sub-agent is marked so already (three
    `general-purpose` agents at work at once, their lines interleaved); `taken`: the
    other sub-agents' marks. One that another mark starts, or that starts another, is
    put in brackets (`[subagent tester-x]` beside `subagent`): the mark ends where its
    bracket does. Ids alike for all a mark says of them are numbered (`#2`)."""
    named = spawn_name(spawn) if spawn is not None else None
    if spawn is not None:
        taken.siblings.add(spawn.agent_id or spawn.session_id)  # what spawned it
    least = taken.siblings.size(child, named)  # counted whether its id is said or not
    taken.sizes[child] = least
    if named:
        label = one_line(named, KIND_COLUMNS)
        if taken.free(label):
            return label
        if label not in taken.marks and taken.free(f"[{label}]"):
            return f"[{label}]"  # a type that starts another's, or that another starts
    said = ""
    for size in range(least, least + MARK_MOST + 1):
        label = agent_name(child, named, size)
        if label == said:
            break  # the whole id said: no more of it tells it apart
        said = label
        if label in taken.marks:
            continue  # another's already: more of the id tells them apart
        if taken.free(label):
            return label
        if taken.free(f"[{label}]"):
            return f"[{label}]"
    number = 2
    while not taken.free(f"[{said} #{number}]"):
        number += 1
    return f"[{said} #{number}]"


def shows(event: Event, detail: str = "normal") -> bool:
    """Whether a line of the lead agent's is shown for `event` in `detail`."""
    return _render(event, detail, "") is not None


def _render(
    event: Event,
    detail: str,
    prefix: str,
    spawned: str | None = None,
    spawner: str | None = None,
    answers: str | None = None,
) -> Line | None:
    kind = event.kind
    if detail == "user" and kind not in ("user", "assistant"):
        return None
    out = Line("magenta", [(prefix, "")]) if prefix else Line()
    if kind == "user":
        sender = sender_name(event, spawner)
        if sender == APP_SENDER:  # the app's own words (a command's expansion): folded
            if detail == "user":
                return None
            out.append(f"⇠ {sender}: ", style="dim magenta")
            text = clean(event.text) if detail == "full" else fold(event.text, 2)
            out.append(text, style="dim")
            return out
        if sender is not None:  # another agent's message: not typed by a person
            out.append(f"⇠ {sender}: ", style="bold magenta")
        else:
            out.append("> ", style="bold green")
        out.append(clean(event.text), style="bold")
    elif kind == "assistant":
        out.append(clean(event.text))
    elif kind == "thinking":
        out.append(
            "thinking: "
            + (clean(event.text) if detail == "full" else fold(event.text, 2)),
            style="dim italic",
        )
    elif kind == "tool_call":
        value = event.extra.get("input", event.text)
        value = value if value is not None else event.text
        summary = tool_summary(event.tool, value)
        if event.extra.get("virtual") is True:
            # a call a script ran (Claude Code's REPL), not the model: dimmed, marked
            out.append("↳ script: Using ", style="dim cyan")
            out.append(summary, style="dim")
        else:
            out.append("Using ", style="cyan")
            out.append(summary)
        if detail == "full":
            for text, style in tool_input(value):
                out.append(text, style=style)
    elif kind == "tool_result":
        style = "red" if event.is_error else "dim"
        body = clean(event.text) if detail == "full" else fold(output_first(event), 3)
        # its lines under the first, as the agents' own terminals show an output
        body = body.replace("\n", "\n    ")
        out.append("  ✗ " if event.is_error else "  ⎿ ", style=style)
        if answers is not None:  # one of calls made together: which one
            out.append(f"[{answers}] ", style="cyan")
        out.append(body or "(no output)", style=style)
    elif kind == "usage":
        if detail != "full" or event.usage is None:
            return None
        # as every sum: a broken count (negative, absurd) says 0
        u = event.usage.plausible()
        said = (
            # the counts whole, in the order `usage` has its columns
            f"  tokens: in {u.input_tokens:,} · out {u.output_tokens:,} · cache write "
            f"{u.cache_write_tokens:,} · cache read {u.cache_read_tokens:,}"
        )
        if u.credits:  # the app's own unit; alone where it kept no token count
            billed = f"credits {credits_amount(u.credits)}"
            said = f"{said} · {billed}" if u.total else f"  {billed}"
        out.append(said + (f" · {one_line(u.model)}" if u.model else ""), style="dim")
    elif kind == "turn_end":
        if detail != "full":
            return None
        out.append("  — end of turn —", style="dim")
    elif kind == "compaction":
        out.append("── context compacted ──", style="yellow")
        if event.text and detail == "full":
            out.append("\n" + clean(event.text), style="dim")
    elif kind == "subagent":
        # an observer (Claude Code's): started beside an agent to watch it, not given work
        observer = event.extra.get("observer") is True
        out.append(
            "Started observer " if observer else "Spawned sub-agent ", style="magenta"
        )
        # a type or name is the app's or the model's words: one short line, as `tree`
        named = spawned or one_line(spawn_name(event), KIND_COLUMNS)
        out.append(named or "agent", style="bold magenta")
        if event.text:
            out.append(" — " + one_line(event.text, 100))
    elif kind == "error":
        if detail != "full" and _retried(event):  # the app tried again: no failure yet
            return None
        said = error_message(clean(event.text))
        out.append(f"error: {said}" if said else "error", style="bold red")
    elif kind == "meta":
        # bookkeeping the tree and the board read (a sub-agent's end noted), and a
        # system prompt an app keeps in its transcript (gptme's): not a line, as no
        # other app's transcript opens with its system prompt, unless `--detail full`
        if detail != "full" and (
            not event.text
            or "subagent_status" in event.extra
            or event.extra.get("system_prompt") is True
        ):
            return None
        said = event.text or "settings changed"
        if detail != "full":  # a note of a model's whole answer (a fusion phase's) too
            said = one_line(
                said[: _NOTE * 8], _NOTE - 2
            )  # no clean of megabytes unseen
        out.append("· " + one_line(said), style="dim")
    return out


def _retried(event: Event) -> bool:
    """An error the app said it retries (`retrying`), or one it retried (`retry`)."""
    return event.extra.get("retrying") is True or event.extra.get("retry") is True


_INDENT = "\n    "
_NOTE = 200  # the columns of a note's line in `show`; --detail full draws it whole


def tool_input(value: object) -> list[tuple[str, str]]:
    """A tool call's whole input, under its one-line summary, as (text, style) pieces.

    Each argument on its own line (`key: value`), a text of several lines indented under
    its key, an edit's before and after as a diff of the lines that changed. An argument
    the summary already shows whole (`Bash — npm test`) is not repeated."""
    if value is None or value == "" or value == {}:
        return []
    shown = tool_detail(value)  # what the summary line shows of it
    if not isinstance(value, dict):
        text = value if isinstance(value, str) else _compact(value)
        return [] if shown_whole(text, shown) else _block(text)
    diff, more = capped_diff(edit_lines(value))
    done = edit_keys(value)
    pieces = [(_INDENT + visible(line), _DIFF_STYLES[kind]) for line, kind in diff]
    if more:  # cut as the Markdown export cuts (its cap, far higher)
        pieces.append((f"{_INDENT}… ({more} more characters)", "dim"))
    for key, argument in value.items():
        if key in done:
            continue
        text = argument if isinstance(argument, str) else _compact(argument)
        if shown_whole(text, shown):
            continue
        pieces.append((f"{_INDENT}{one_line(str(key), 40)}:", "dim"))
        if "\n" in text.rstrip("\n"):
            pieces.extend(_block(text, "    "))
        else:
            pieces.append((" " + visible(text), ""))
    return pieces


def _compact(value: object) -> str:
    from .records import dumps

    return dumps(value).decode()


def _block(text: str, indent: str = "") -> list[tuple[str, str]]:
    """A text's lines, each indented under the line above, every control character
    written out (`visible`): a tool's input is shown as it ran."""
    pad = _INDENT + indent
    lines = text.rstrip("\n").split("\n")
    styles = (
        [_DIFF_STYLES[kind] for kind in diff_kinds(lines)]
        if patch_text(text) is not None
        else [""] * len(lines)
    )
    return [
        (pad + visible(line), style) for line, style in zip(lines, styles, strict=True)
    ]


_DIFF_STYLES = {"add": "green", "del": "red", "hunk": "cyan", "ctx": "dim"}


def render_tree(
    node: AgentNode, width: int | None = None, title: str | None = None
) -> Tree:
    """The agents as a tree; with `width`, each description cut to the room its line
    has (the terminal would wrap it onto a line of its own, without the guides). The
    top agent with no task of its own (a lead) is described by the session's `title`:
    its line said "lead [done]" alone, not which session it was."""
    from rich.tree import Tree

    tree = Tree(_node_label(node, width, title))
    stack = [(tree, node, 0)]  # not recursive: a chain of nested spawns may be deep
    while stack:
        branch, parent, depth = stack.pop()
        # each level of the tree indents its labels by a guide of 4 columns
        room = None if width is None else width - _GUIDE * (depth + 1)
        stack.extend(
            (branch.add(_node_label(c, room)), c, depth + 1) for c in parent.children
        )
    return tree


_GUIDE = 4
_DESCRIPTION = 70  # the most of a description a line shows, however wide
_SOME_DESCRIPTION = 12  # the least: past this a line wraps rather than say nothing


def _node_label(
    node: AgentNode, room: int | None = None, title: str | None = None
) -> Text:
    colours = {
        "running": "yellow",
        "done": "green",
        "failed": "red",
        "stopped": "magenta",
    }
    label = Text()
    label.append(
        one_line(node.agent_type or node.agent_name or "agent", 30), style="bold"
    )
    # a name that is its task again (Forge titles a sub-agent's conversation by it) is
    # said once, by the description
    if (
        node.agent_type
        and node.agent_name
        and node.agent_name not in (node.agent_type, node.description)
    ):
        label.append(f" {one_line(node.agent_name, 30)}")
    if node.observer:  # watches another agent: not work the lead gave out
        label.append(" (observer)", style="dim")
    if node.unplaced:  # listed under this lead, its spawn not in the events shown
        label.append(" (its spawn is not in this transcript)", style="dim")
    label.append(f" [{node.status}]", style=colours.get(node.status, ""))
    if described := node.description or title:
        fits = _DESCRIPTION if room is None else room - label.cell_len - 1
        shown = max(min(fits, _DESCRIPTION), _SOME_DESCRIPTION)
        label.append(" " + one_line(described, shown))
    u = node.usage
    calls = "1 tool call" if node.tool_calls == 1 else f"{node.tool_calls} tool calls"
    cache = u.cache_read_tokens + u.cache_write_tokens
    # an app that records no counts (or none yet): "0 in, 0 out" would claim free work
    counts = (
        tokens_said(u.input_tokens, cache, u.output_tokens)
        if u.input_tokens or cache or u.output_tokens
        else "no token counts"
    )
    billed = [f"{credits_amount(u.credits)} credits"] if u.credits else []
    figures = [
        pasted_id(node.id),  # to paste into `show`
        counts,
        *billed,
        calls,
        duration(node.duration_seconds),
    ]
    label.append("\n" + "\n".join(_packed(figures, room)), style="dim")
    return label


def _packed(pieces: list[str], room: int | None) -> list[str]:
    """`pieces` joined by " · " into lines of at most `room` cells, broken only between
    pieces: a narrow terminal wrapped "2 tool calls" after its "2"."""
    lines: list[str] = []
    for piece in pieces:
        joined = f"{lines[-1]} · {piece}" if lines else piece
        if lines and (room is None or cell_len(joined) <= room):
            lines[-1] = joined
        else:
            lines.append(piece)
    return lines


class LineWriter:
    """Writes `Line`s to a console's file as they come: the text, with SGR codes for its
    styles where the console would colour, and no wrapping (the terminal or the pager
    wraps; a file or a pipe gets whole lines). Tabs become spaces as Rich shows them."""

    def __init__(self, console: Console) -> None:
        from rich.color import ColorSystem

        systems = {
            "standard": ColorSystem.STANDARD,
            "256": ColorSystem.EIGHT_BIT,
            "truecolor": ColorSystem.TRUECOLOR,
            "windows": ColorSystem.WINDOWS,
        }
        name = console.color_system if console.is_terminal else None
        self.file = console.file
        self.system = systems.get(name) if name else None
        self.no_color = console.no_color
        self._cache: dict[tuple[str, str], tuple[str, str]] = {}

    def line(self, line: Line | None = None) -> None:
        self.file.write(self.ansi(line) + "\n" if line is not None else "\n")

    def ansi(self, line: Line) -> str:
        tabs = any("\t" in text for text, _ in line.pieces)
        out, column = [], 0
        for text, style in line.pieces:
            if tabs:  # a tab stop counts from the start of its line, across pieces
                text, column = _expand_tabs(text, column)
            if not text:
                continue
            if self.system is None:
                out.append(text)
                continue
            start, end = self.codes(style, line.base)
            if not start:
                out.append(text)
            elif "\n" in text:  # each line closes its styles, as Rich writes them
                out.append(start + text.replace("\n", end + "\n" + start) + end)
            else:
                out.append(start + text + end)
        return "".join(out)

    def codes(self, style: str, base: str = "") -> tuple[str, str]:
        """The SGR codes that open and close a piece in `style` over `base`, as Rich
        writes them ("" where this console has no colour)."""
        key = (base, style)
        found = self._cache.get(key)
        if found is None:
            combined = Style.combine([Style.parse(base), Style.parse(style)])
            if self.no_color:
                combined = combined.without_color
            start, _, end = combined.render("\0", color_system=self.system).partition("\0")  # fmt: skip
            found = self._cache[key] = (start, end)
        return found


def _expand_tabs(text: str, column: int) -> tuple[str, int]:
    """`text` with each tab made spaces up to the next multiple of 8 cells, counting
    from `column` cells into its first line; and the column it ends at."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        start = column if n == 0 else 0
        if "\t" not in line:
            continue
        if line.isascii():  # one cell a character: str.expandtabs, offset by `start`
            lines[n] = (" " * start + line).expandtabs(8)[start:]
            continue
        pieces, at = [], start
        for m, piece in enumerate(line.split("\t")):
            if m:
                pieces.append(" " * (8 - at % 8))
                at += 8 - at % 8
            pieces.append(piece)
            at += cell_len(piece)
        lines[n] = "".join(pieces)
    last = lines[-1]
    width = len(last) if last.isascii() else cell_len(last)
    return "\n".join(lines), (column if len(lines) == 1 else 0) + width


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader left (`| head`): the command decides what that means (Rich's own
        answer exits 1, which would read as a failure)."""
        self.quiet = True
        raise BrokenPipeError


def console(
    stderr: bool = False, file: TextIO | None = None, width: int | None = None
) -> Console:
    """A console on stdout (or stderr); on `file`, a pager's pipe, coloured as the
    terminal behind it would be; `width` wide, else as wide as Rich finds it."""
    if file is not None:
        return _Console(
            file=file, force_terminal=True, highlight=False, soft_wrap=False
        )
    height = None
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        # Rich takes a dumb terminal (Emacs' shell) for 80 columns, even given a width
        # alone: the terminal's own size, and a height, keep what it says
        size = shutil.get_terminal_size()
        width, height = width or size.columns, size.lines
    return _Console(
        stderr=stderr,
        highlight=False,
        soft_wrap=False,
        width=width,
        height=height,
        _environ=_colour_environ(),
    )


def _colour_environ() -> dict[str, str] | None:
    """The environment Rich decides colour by, FORCE_COLOR taken as unset where it is
    empty (force-color.org, as `text.coloured` reads it; Rich takes it for "not a
    terminal": a terminal lost its colour) or where NO_COLOR is set: Rich would still
    style a pipe bold and dim, where `list` writes it plain. None (the live environment)
    otherwise."""
    forced = os.environ.get("FORCE_COLOR")
    if forced is None or (forced and not os.environ.get("NO_COLOR")):
        return None
    return {name: value for name, value in os.environ.items() if name != "FORCE_COLOR"}
