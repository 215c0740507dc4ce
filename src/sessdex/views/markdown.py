"""Markdown export: compact, readable, good to paste into another agent.

Text is cleaned of control characters; code fences grow longer than any fence inside
the text, so transcript content cannot close them early; outside code, a `<` that could
open an HTML tag is written `&lt;`, so a viewer that renders HTML runs none of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..model import Event, Session
from .diffs import input_diff
from .records import iso
from .text import (
    APP_SENDER,
    clean,
    one_line,
    sender_name,
    spawn_name,
    tokens,
    tool_summary,
)

_BACKTICKS = re.compile(r"`{3,}")
_TICK_RUNS = re.compile(r"`+")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _no_html(text: str) -> str:
    """`text` as Markdown with every `<` that could open an HTML tag (`<img`, `</`,
    `<!--`) outside code spans and fenced blocks escaped; code shows as written."""
    if "<" not in text:
        return text
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE_LINE.match(line)
        if fence is not None:
            if (
                opened
                and opened.group(1)[0] == fence[0]
                and len(opened.group(1)) >= len(fence)
            ):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        pieces, at = [], 0
        for span in _CODE_SPAN.finditer(line):
            pieces.append(_TAG_START.sub("&lt;", line[at : span.start()]))
            pieces.append(span.group(0))
            at = span.end()
        pieces.append(_TAG_START.sub("&lt;", line[at:]))
        out.append("".join(pieces))
    return "\n".join(out)


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


def render(session: Session, events: Iterable[Event]) -> Iterator[str]:
    yield f"# {_no_html(one_line(session.title or '(untitled)') or '')}\n\n"
    facts = [
        ("app", session.app),
        ("session", session.id),
        ("folder", session.cwd),
        ("branch", session.branch),
        ("model", session.model),
        ("started", iso(session.created)),
        ("updated", iso(session.updated)),
    ]
    yield (
        "".join(
            f"- **{name}**: {_code(one_line(value) or '')}\n"
            for name, value in facts
            if value
        )
        + "\n"
    )
    total_in = total_out = 0
    names: dict[str, str] = {}  # sub-agent id -> what its spawn calls it
    in_list = (
        False  # the last line was a list item ("- 🔧 …"), with no blank line after
    )
    for event in events:
        out = ""
        agent = event.agent_id
        who = (
            _no_html(f" (sub-agent {names.get(agent) or one_line(agent, 12)})")
            if agent
            else ""
        )
        kind = event.kind
        child = event.extra.get("child_id") if kind == "subagent" else None
        named = spawn_name(event) if kind == "subagent" else None
        if child is not None and named:  # its type or name, and enough of its id
            names[str(child)] = f"{one_line(named, 30)} {one_line(str(child))[:8]}"
        if kind == "user":
            sender = sender_name(event)  # another agent's message: not typed
            heading = _no_html(f"Message from {sender}") if sender else "User"
            if sender == APP_SENDER:  # a command's expansion, a hook's context: folded
                body = _quote_block(_capped(clean(event.text)))
                out = f"<details><summary>added by the app{who}</summary>\n\n{body}\n\n</details>\n\n"
            else:
                out = f"## {heading}{who}\n\n{_no_html(clean(event.text))}\n\n"
        elif kind == "assistant":
            out = f"**Assistant{who}:** {_no_html(clean(event.text))}\n\n"
        elif kind == "thinking" and event.text:
            out = f"<details><summary>thinking{who}</summary>\n\n{_quote_block(clean(event.text))}\n\n</details>\n\n"
        elif kind == "tool_call":
            value = event.extra.get("input", event.text)
            value = value if value is not None else event.text
            out = f"- 🔧 {_no_html(tool_summary(event.tool, value, 200))}{who}\n"
            diff = input_diff(value)
            if diff:  # what an edit changed: what a reader of the export most needs
                text = _capped("\n".join(clean(line) for line in diff))
                out += f"\n{_quote_block(text, 'diff')}\n\n"
        elif kind == "tool_result":
            label = "error" if event.is_error else "result"
            out = f"\n  {label}:\n\n{_quote_block(_capped(clean(event.text)))}\n\n"
        elif kind == "subagent":
            said = _no_html(f"**{named or 'agent'}**: {one_line(event.text)}")
            out = f"- 🤖 sub-agent {said}\n"
        elif kind == "compaction":
            out = "\n---\n*Context compacted.*\n\n"
        elif kind == "error":
            out = f"> **Error{who}:** {_no_html(one_line(event.text) or '')}\n\n"
        elif kind == "usage" and event.usage is not None:
            total_in += (
                event.usage.input_tokens
                + event.usage.cache_read_tokens
                + event.usage.cache_write_tokens
            )
            total_out += event.usage.output_tokens
        if not out:
            continue
        item = out.startswith("- ")
        if in_list and not item and not out.startswith("\n"):
            yield "\n"  # a heading or a paragraph after a list item starts its own block
        in_list = item
        yield out
    if total_in or total_out:
        yield f"\n---\nTokens: {tokens(total_in)} in, {tokens(total_out)} out.\n"
