"""A self-contained, offline HTML export of one session.

Everything from the transcript is escaped with `html.escape`, nothing is linkified, and a
Content-Security-Policy forbids scripts altogether: a transcript holding `<script>`,
`<img onerror>` or `javascript:` links renders as inert text. Light and dark follow the
reader's system; tool calls, thinking and sub-agents are collapsible `<details>`.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from html import escape

from ..model import Event, Session
from .diffs import capped_diff, diff_lines, edit_keys, edit_lines, patch_text
from .records import forked_from
from .text import (
    APP_SENDER,
    AgentNames,
    Waiting,
    answered_call,
    clean,
    credits_amount,
    error_message,
    one_line,
    output_first,
    pasted_id,
    sender_name,
    spawn_name,
    title_line,
    tokens_said,
    tool_summary,
    usage_said,
    visible,
)

# The body wraps a long unbroken run (a URL, a token, base64) anywhere: left whole, it ran
# off the page's right edge, and a printed page or PDF cut it off.
_STYLE = """
:root { color-scheme: light dark; --bg:#fff; --fg:#1b1f24; --dim:#6a737d; --user:#0b6e4f; --tool:#005cc5;
        --err:#b31d28; --box:#f6f8fa; --line:#d0d7de; --agent:#8250df; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --dim:#8b949e; --user:#3fb950;
        --tool:#58a6ff; --err:#f85149; --box:#161b22; --line:#30363d; --agent:#bc8cff; } }
body { background:var(--bg); color:var(--fg); font:15px/1.5 system-ui, sans-serif; max-width:960px; margin:2em auto; padding:0 1em;
       overflow-wrap:anywhere; }
h1 { font-size:1.4em; margin-bottom:.2em; } .facts { color:var(--dim); font-size:.9em; }
.ev { margin:.6em 0; } .user { border-left:3px solid var(--user); padding-left:.8em; }
.who { font-size:1em; margin:0; } .user .who { color:var(--user); font-weight:600; } .assistant { padding-left:.8em; }
hr { border:0; border-top:1px solid var(--line); } .assistant .who { color:var(--dim); font-weight:600; }
.user.from-agent { border-left-color:var(--agent); } .user.from-agent .who { color:var(--agent); }
pre { background:var(--box); border:1px solid var(--line); padding:.6em; overflow-x:auto; white-space:pre-wrap; word-break:break-word; }
details { margin:.3em 0; } summary { cursor:pointer; color:var(--tool); }
.thinking summary { color:var(--dim); font-style:italic; } .error { color:var(--err); }
.result > summary { color:var(--dim); } .result.error > summary { color:var(--err); }
.virtual > summary { color:var(--dim); } .virtual .by { font-style:italic; }
.sub { border-left:2px dashed var(--line); margin-left:1em; padding-left:.8em; }
.meta { color:var(--dim); font-size:.85em; } .text { white-space:pre-wrap; }
.diff .add { color:var(--user); } .diff .del { color:var(--err); } .diff .hunk, .diff .ctx { color:var(--dim); }
@media print { :root { color-scheme:light; --bg:#fff; --fg:#000; --dim:#555; --user:#0b6e4f; --tool:#003d82;
        --err:#9b1c24; --box:#fff; --line:#999; --agent:#6a3fc0; }
  body { max-width:none; margin:0; font-size:11pt; } details::details-content { content-visibility:visible; display:block; }
  summary { list-style:none; font-weight:600; } summary::-webkit-details-marker { display:none; }
  pre { overflow:visible; } h1, summary, .who { break-after:avoid; } }
"""

# The page's one style sheet is allowed by its hash, not all inline styles: were any markup
# ever to slip through the escaping, a style attribute or sheet of its own does nothing.
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
_CSP = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src 'none'; "
    "form-action 'none'; base-uri 'none'"
)


def _e(text: str | None) -> str:
    return escape(clean(text), quote=True)


def _shown(text: str | None) -> str:
    """What a tool ran, every control character written out (`visible`), escaped."""
    return escape(visible(text), quote=True)


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
    title = _e(title_line(session.title))
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="referrer" content="no-referrer">'
        f'<meta name="viewport" content="width=device-width"><title>{title}</title><style>{_STYLE}</style></head><body>\n'
    )
    source = forked_from(session.extra)
    # the ids as `show`'s header names them, to paste into `sessdex show`
    facts = " · ".join(
        _e(x)
        for x in (
            one_line(session.app),
            pasted_id(session.id),
            one_line(session.cwd),
            one_line(session.branch),
            one_line(session.model),
            f"forked from {pasted_id(source)}" if source else None,
            f"sub-agent of {pasted_id(lead)}" if lead else None,
            one_line(_when(session.created, session.updated)),
        )
        if x
    )
    yield f'<h1>{title}</h1><div class="facts">{facts}</div>\n'
    if resume:
        yield f'<div class="facts">resume: <code>{_e(resume)}</code></div>\n'
    # A sub-agent's events go inside a <details>, nested in its spawner's: the blocks
    # open (and close) as the agent of the events changes. Grouped by agent
    # (views.grouped), each sub-agent is one block right after its spawn; in time
    # order, a block opens again each time its agent speaks.
    spawner: dict[str, str | None] = {}  # child id -> the agent whose event spawned it
    tasks: dict[str, str] = {}  # child id -> what its spawn said it was for
    calls: dict[str, str] = {}  # spawning call id -> its child's id
    names = AgentNames(
        known
    )  # what each sub-agent is called: as the Markdown export says
    waiting: Waiting = {}  # calls not answered yet: a result of several names its call
    open_blocks: list[str] = []  # the sub-agent blocks open now, outermost first
    total_in = total_cache = total_out = 0
    credits = 0.0
    for event in events:
        if event.kind == "usage" and event.usage is not None:
            # a broken count (negative, absurd) adds nothing
            u = event.usage.plausible()
            total_in += u.input_tokens
            total_cache += u.cache_read_tokens + u.cache_write_tokens
            total_out += u.output_tokens
            credits += u.credits
        agent = event.agent_id
        speaker = names.called(agent) if agent is not None else None
        if agent != (open_blocks[-1] if open_blocks else None):
            path = _lineage(agent, spawner)
            keep = 0
            while keep < min(len(path), len(open_blocks)) and path[keep] == open_blocks[keep]:  # fmt: skip
                keep += 1
            while len(open_blocks) > keep:
                open_blocks.pop()
                yield "</div></details>\n"
            for opened in path[keep:]:
                open_blocks.append(opened)
                # its mark, as its every line and the Markdown export name it
                name = _e(names.called(opened))
                task = f" — {_e(tasks[opened])}" if opened in tasks else ""
                yield f'<details class="sub" open><summary>sub-agent {name}{task}</summary><div>\n'
        parent = spawner.get(agent) if agent is not None else None
        told_by = names.called(parent) if parent else None
        if event.kind == "tool_result":  # what a sub-agent gave back: said whose it is
            answered = calls.get(event.call_id or "")
            told_by = names.called(answered) if answered else None
        child = event.extra.get("child_id") if event.kind == "subagent" else None
        if child is not None:  # named before its spawn's line says the name
            told_by = names.spawned(
                str(child), spawn_name(event), agent or event.session_id
            )
        answers = answered_call(waiting, event)
        piece = _event(event, len(open_blocks), speaker, told_by, answers)
        if piece:
            yield piece
        if child is not None:
            spawner.setdefault(str(child), agent)
            if event.call_id:
                calls[event.call_id] = str(child)
            if event.text:  # its task: blocks of one type told apart, when reopened too
                tasks.setdefault(str(child), one_line(event.text, 80))
    yield "</div></details>\n" * len(open_blocks)
    if (
        total_in or total_cache or total_out or credits
    ):  # sub-agents' responses included, as in Markdown
        said = (
            [f"tokens in all: {tokens_said(total_in, total_cache, total_out)}"]
            if total_in or total_cache or total_out
            else []
        )
        said += [f"credits in all: {credits_amount(credits)}"] if credits else []
        yield f'<hr><div class="meta">{" · ".join(said)}</div>\n'
    yield "</body></html>\n"


def _lineage(agent: str | None, spawner: dict[str, str | None]) -> list[str]:
    """The sub-agents from the lead down to `agent` (its spawner's spawner first); an
    agent no spawn names, or a loop of spawns, starts at the top."""
    path: list[str] = []
    while agent is not None and agent not in path:
        path.append(agent)
        agent = spawner.get(agent)
    path.reverse()
    return path


def _when(start: datetime | None, end: datetime | None = None) -> str | None:
    """When the session ran, for the page's facts, as `show`'s header says it (`… to
    01:02`); in UTC, as the page may be read anywhere."""
    if start is None:
        return None
    first = f"{start.astimezone(UTC):%Y-%m-%d %H:%M}"
    last = f"{end.astimezone(UTC):%Y-%m-%d %H:%M}" if end is not None else first
    if last <= first:
        return f"{first} UTC"
    if last[:10] == first[:10]:
        return f"{first} to {last[11:]} UTC"
    return f"{first} to {last} UTC"


def _tool_input(value: object) -> str:
    """A tool call's input: an edit's before and after as a diff, the rest argument by
    argument (`_arguments`)."""
    diff: list[tuple[str, str]] = []
    more = 0
    if patch_text(value) is not None:  # the rest of a shell call's arguments stay below
        diff, more = capped_diff(diff_lines(value))
        value = value if isinstance(value, dict) and len(value) > 1 else None
    elif isinstance(value, dict):
        diff, more = capped_diff(edit_lines(value))
        keys = edit_keys(value)
        value = {k: v for k, v in value.items() if k not in keys} if keys else value
    out = ""
    if diff:
        lines = "\n".join(
            f'<span class="{kind}">{_shown(line)}</span>' for line, kind in diff
        )
        if more:  # cut as the Markdown export cuts (its cap, far higher)
            lines += f"\n… ({more} more characters)"
        out = f'<pre class="diff">{lines}</pre>'
    if value is None or (diff and value == {}):
        return out
    return out + f"<pre>{_shown(_arguments(value))}</pre>"


def _arguments(value: object) -> str:
    """A tool call's arguments as `show --detail full` and the Markdown export give them:
    `key: value`, a text of several lines (a written file's content) or a nested value
    indented under its key, whole: a file's lines, not one JSON string of `\\n`s."""
    from .records import dumps

    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return dumps(value, indent=True).decode()
    lines: list[str] = []
    for key, argument in value.items():
        name = one_line(str(key), 40)
        if isinstance(argument, str):
            text = argument.rstrip("\n")
        elif isinstance(argument, dict | list) and argument:
            text = dumps(argument, indent=True).decode()
        else:
            text = dumps(argument).decode()
        if "\n" in text:
            lines.append(f"{name}:")
            lines.extend("    " + line for line in text.split("\n"))
        else:
            lines.append(f"{name}: {text}")
    return "\n".join(lines)


def _event(
    event: Event,
    depth: int = 0,
    speaker: str | None = None,
    told_by: str | None = None,
    answers: str | None = None,
) -> str:
    """One event's markup; a message's heading (who speaks: the user, another agent, the
    assistant, or the sub-agent named `speaker` in its block; a sub-agent's task comes
    from the lead, or from `told_by`, the sub-agent that spawned it; a spawn's result
    names `told_by`, the sub-agent it came from, a spawn `told_by`, the one it spawned,
    and one of calls made together `answers`, the call it answers) is an <h2> in the
    lead's part of the page, an <h3> in a sub-agent's block and so on down, so that a
    reader's heading list is the session's turns, each sub-agent's under its spawner's."""
    kind = event.kind
    level = min(2 + depth, 6)
    if kind == "user":
        sender = sender_name(event, told_by)  # another agent's message, not typed
        if sender == APP_SENDER:  # a command's expansion, a hook's context: folded
            return f'<details class="ev meta"><summary>added by the app</summary><pre>{_e(event.text)}</pre></details>\n'
        who = f"Message from {_e(sender)}" if sender else "User"
        css = "ev user from-agent" if sender else "ev user"
        return f'<div class="{css}"><h{level} class="who">{who}</h{level}><div class="text">{_e(event.text)}</div></div>\n'
    if kind == "assistant":
        # named as Markdown names it: the lead's reply, or which sub-agent's
        who = "Assistant"
        if speaker is not None:
            who += f" (sub-agent {_e(speaker)})" if speaker else " (sub-agent)"
        return f'<div class="ev assistant"><h{level} class="who">{who}</h{level}><div class="text">{_e(event.text)}</div></div>\n'
    if kind == "thinking":
        return f'<details class="ev thinking"><summary>thinking</summary><pre>{_e(event.text)}</pre></details>\n'
    if kind == "tool_call":
        value = event.extra.get("input", event.text)
        summary = _e(
            tool_summary(event.tool, value if value is not None else event.text, 120)
        )
        if event.extra.get("virtual") is True:
            # a call a script ran (Claude Code's REPL), not the model: marked and dimmed,
            # as `show` does
            return f'<details class="ev tool virtual"><summary><span class="by">↳ script:</span> {summary}</summary>{_tool_input(value)}</details>\n'
        return f'<details class="ev tool"><summary>{summary}</summary>{_tool_input(value)}</details>\n'
    if kind == "tool_result":
        css = "ev result error" if event.is_error else "ev result"
        label = "error" if event.is_error else "result"
        if told_by is not None:
            label += f" of sub-agent {_e(told_by)}"
        elif answers is not None:  # one of calls made together, answered after them all
            label += f" of {_e(answers)}"
        # its first line, as `show` shows its first lines: folded, a result says something
        shown = output_first(event) or ""
        first = one_line(shown.lstrip()[:400].partition("\n")[0], 100)
        label += f" — {_e(first) if first else '(no output)'}"
        return f'<details class="{css}"><summary>{label}</summary><pre>{_e(event.text)}</pre></details>\n'
    if kind == "subagent":
        # what it was spawned for, where the spawn says (as `show` writes it)
        task = f" — {_e(event.text)}" if clean(event.text).strip() else ""
        # its name as every command says it: with the start of its id `show` takes
        name = told_by or spawn_name(event) or "agent"
        return f'<div class="ev meta">spawned sub-agent <b>{_e(name)}</b>{task}</div>\n'
    if kind == "compaction":
        return f'<details class="ev meta"><summary>context compacted</summary><pre>{_e(event.text)}</pre></details>\n'
    if kind == "error":
        said = error_message(event.text)
        return f'<div class="ev error">error{": " if said else ""}{_e(said)}</div>\n'
    if kind == "usage" and event.usage is not None:
        # as the totals: a broken count says 0, not 100000000.0M
        u = event.usage.plausible()
        return f'<div class="ev meta">{_e(usage_said(u))}</div>\n'
    if kind == "meta" and event.text:
        return f'<div class="ev meta">{_e(event.text)}</div>\n'
    return ""
