"""Rich renderings for the terminal: a transcript, a sub-agent tree.

Every string from a transcript goes through `text.clean` and into a Rich `Text` (never
into markup), so neither escape sequences nor Rich markup in it can take effect.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Console, RenderableType
from rich.text import Text
from rich.tree import Tree

from ..model import Event, Session
from ..tree import AgentNode
from .text import clean, duration, fold, one_line, tokens, tool_summary

DETAILS = ("full", "normal", "user")


def session_header(session: Session) -> Text:
    header = Text()
    header.append(one_line(session.title or "(untitled)"), style="bold")
    header.append(f"\n{session.app} · {one_line(session.id)}", style="dim")
    facts = [one_line(x) for x in (session.cwd, session.branch, session.model) if x]
    if facts:
        header.append("\n" + " · ".join(facts), style="dim")
    return header


def render_events(
    events: Iterable[Event],
    detail: str = "normal",
    labels: dict[str, str] | None = None,
) -> Iterator[RenderableType]:
    """One renderable per shown event; sub-agent events are indented and labelled."""
    labels = labels if labels is not None else {}
    for event in events:
        prefix = ""
        if event.agent_id is not None:
            label = labels.get(event.agent_id) or one_line(event.agent_id)[:8]
            prefix = f"  ↳ {label} "
        line = _render(event, detail, prefix)
        if line is not None:
            yield line
        if event.kind == "subagent" and event.extra.get("child_id") is not None:
            agent = event.extra.get("agent_type")
            labels[str(event.extra["child_id"])] = one_line(
                str(agent) if agent else str(event.extra["child_id"])[:8], 24
            )


def _render(event: Event, detail: str, prefix: str) -> Text | None:
    kind = event.kind
    if detail == "user" and kind not in ("user", "assistant"):
        return None
    out = Text(prefix, style="magenta") if prefix else Text()
    if kind == "user":
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
        out.append("Using ", style="cyan")
        out.append(tool_summary(event.tool, value if value is not None else event.text))
    elif kind == "tool_result":
        style = "red" if event.is_error else "dim"
        body = clean(event.text) if detail == "full" else fold(event.text, 3)
        out.append(
            ("  ✗ " if event.is_error else "  ⎿ ") + (body or "(no output)"),
            style=style,
        )
    elif kind == "usage":
        if detail != "full" or event.usage is None:
            return None
        u = event.usage
        out.append(
            f"  tokens: in {tokens(u.input_tokens)} · out {tokens(u.output_tokens)} · cache read "
            f"{tokens(u.cache_read_tokens)} · cache write {tokens(u.cache_write_tokens)}"
            + (f" · {one_line(u.model)}" if u.model else ""),
            style="dim",
        )
    elif kind == "turn_end":
        if detail != "full":
            return None
        out.append("  — end of turn —", style="dim")
    elif kind == "compaction":
        out.append("── context compacted ──", style="yellow")
        if event.text and detail == "full":
            out.append("\n" + clean(event.text), style="dim")
    elif kind == "subagent":
        out.append("Spawned sub-agent ", style="magenta")
        agent = event.extra.get("agent_type")
        out.append(one_line(str(agent) if agent else "agent"), style="bold magenta")
        if event.text:
            out.append(" — " + one_line(event.text, 100))
    elif kind == "error":
        out.append("error: " + clean(event.text), style="bold red")
    elif kind == "meta":
        if detail != "full" and not event.text:
            return None
        out.append("· " + one_line(event.text or "settings changed"), style="dim")
    return out


def render_tree(node: AgentNode) -> Tree:
    tree = Tree(_node_label(node))
    _add_children(tree, node)
    return tree


def _add_children(tree: Tree, node: AgentNode) -> None:
    for child in node.children:
        _add_children(tree.add(_node_label(child)), child)


def _node_label(node: AgentNode) -> Text:
    colours = {"running": "yellow", "done": "green", "failed": "red"}
    label = Text()
    label.append(one_line(node.agent_type or "agent", 30), style="bold")
    label.append(f" [{node.status}]", style=colours.get(node.status, ""))
    if node.description:
        label.append(" " + one_line(node.description, 70))
    u = node.usage
    label.append(
        f"\n{one_line(node.id)} · {tokens(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens)} in, "
        f"{tokens(u.output_tokens)} out · {node.tool_calls} tool calls · {duration(node.duration_seconds)}",
        style="dim",
    )
    return label


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader left (`| head`): the command decides what that means (Rich's own
        answer exits 1, which would read as a failure)."""
        self.quiet = True
        raise BrokenPipeError


def console(stderr: bool = False) -> Console:
    return _Console(stderr=stderr, highlight=False, soft_wrap=False)
