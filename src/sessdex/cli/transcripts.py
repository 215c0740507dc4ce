"""Reading one session: show, tree, export."""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import click

from .. import api, hints
from ..errors import typed
from ..model import Event

if TYPE_CHECKING:
    from ..tree import AgentNode
from ..views.text import one_line, stderr_is_terminal
from . import main
from ._common import (
    CONTEXT,
    TakesOneId,
    count_option,
    counted_events,
    detail_option,
    echo,
    err,
    event_chunks,
    fail_nicely,
    home_option,
    json_array,
    not_blank,
    output_options,
    progress_bar,
    report_diagnostics,
    resolve_home,
    session_id_argument,
    stdout_bytes,
    verbose_option,
    write_events,
)


@main.command("show", cls=TakesOneId, context_settings=CONTEXT)
@session_id_argument
@detail_option
@click.option(
    "--subagents",
    type=click.Choice(["inline", "tree", "none"]),
    default="inline",
    show_default=True,
    help="Interleave sub-agent events, group them under their spawn, or leave them out.",
)
@count_option(
    "--tail",
    "-n",  # as `follow -n N` takes it
    help="Only the session's end as the whole show draws it, sub-agents too (read "
    "from the end of its file where it has none): the last N entries it draws; with "
    "--json or --nl, its last N events, token usage and turn ends among them "
    "(--detail user: those it draws).",
)
@click.option(
    "--full-payloads",
    is_flag=True,
    help="Keep huge payloads (pasted images, giant outputs) instead of summarising them.",
)
@click.option("--no-pager", is_flag=True, help="Print straight to the terminal.")
@output_options
@home_option
@fail_nicely
def show_command(
    session_id: str,
    detail: str,
    subagents: str,
    tail: int | None,
    full_payloads: bool,
    no_pager: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Show a session's transcript: what was typed, said and run.

    \b
    Example: sessdex show 7f3a --tail 50
    """
    shown_tail = tail if tail is not None and not (as_json or as_nl) else None
    # as JSON, every event goes whole, but `user` keeps only what was typed and said,
    # as the text shows it (normal and full differ only in how a line is drawn)
    picked = detail == "user" and (as_json or as_nl)
    shows = None
    if shown_tail is not None or picked:  # the last N: of the events this detail shows
        from ..views import terminal

        shows = functools.partial(terminal.shows, detail=detail)
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        found = api.transcript(
            home,
            session_id,
            subagents=subagents,
            tail=tail,
            full=full_payloads,
            progress=progress,
            shown=shows,
            as_shown=True,  # its end, sub-agents too
            # the text draws each entry from those before it (a call, a spawn)
            drawn=not (as_json or as_nl),
        )
    reading = f"Reading {one_line(found.session.id, 40)}"
    blank = False  # the text drew no line under its header
    drawn: list[Event] = []  # an event `--detail normal` draws, where user drew none
    if as_json or as_nl:
        # to a file or a pipe, a spinner on the terminal says it is working
        counted = counted_events(found.events, reading, show=not sys.stdout.isatty())
        ordered: Iterable[Event] = counted
        if subagents == "tree":  # as export -f json --subagents tree orders them
            from ..views.grouped import grouped_by_agent

            ordered = grouped_by_agent(counted)
        if picked and shows is not None:  # after grouping: it places by spawns
            ordered = filter(shows, ordered)
        with contextlib.closing(counted):
            write_events(ordered, as_nl, found.seq_relative)
    else:
        from ..views import terminal
        from ..views.text import SiblingIds
        from .pager import paged, pager_command

        pager = (
            pager_command()
            if sys.stdout.isatty() and not no_pager and tail is None
            else None
        )
        # the pager, or the terminal, shows the first event; until then (a big
        # transcript is surveyed first), a spinner. To a file or a pipe, the spinner
        # stays to the end: nothing else shows on the terminal
        counted = counted_events(
            found.events, reading, show=True, until_first=sys.stdout.isatty()
        )
        events: Iterable[Event] = counted
        if subagents == "tree":
            from ..views.grouped import grouped_by_agent

            events = grouped_by_agent(events)
        if detail == "user":  # what it leaves out is no unknown record
            events = _noting_drawn(events, drawn)
        blank = True
        with contextlib.closing(counted):
            rest = iter(events)
            first = next(rest, None)
            with paged(pager) if pager else contextlib.nullcontext() as stream:
                out = terminal.LineWriter(terminal.console(file=stream))
                lead = api.lead_of(home, found.session)
                out.line(terminal.session_header(found.session, lead, str(home.path)))
                out.line()
                shown = itertools.chain([first], rest) if first is not None else ()
                # its sub-agents named apart from all the others, later ones too
                known = SiblingIds(
                    api.sub_agent_ids(
                        home, found.session, from_end=shown_tail is not None
                    )
                )
                lines: Iterable[terminal.Line] = terminal.render_events(
                    shown, detail, siblings=known
                )
                if shown_tail is not None:
                    lines = collections.deque(lines, maxlen=shown_tail)
                for line in lines:
                    out.line(line)
                    blank = False
    report_diagnostics(found.diagnostics, verbose, found.session.app)
    if blank and not drawn and tail != 0 and not verbose:  # -v named them just now
        _say_none_recognised(found.diagnostics.unknown)


def _noting_drawn(events: Iterable[Event], drawn: list[Event]) -> Iterator[Event]:
    """`events` as they come, the first that `--detail normal` draws put in `drawn`: a
    body `--detail user` left empty (tool calls alone) is not for want of a record
    sessdex recognises."""
    from ..views import terminal

    for event in events:
        if not drawn and terminal.shows(event):
            drawn.append(event)
        yield event


def _say_none_recognised(unknown: Mapping[str, int]) -> None:
    """Where a transcript drew nothing and records of types sessdex does not recognise
    were passed over, say so: an empty body looked like an empty session."""
    records = sum(unknown.values())
    if records:
        err(
            f"note: nothing to show: {records} record{'s' if records != 1 else ''} "
            "of types not recognised (-v names them; "
            f"{hints.named('doctor', '--deep')} counts them in every session)"
        )


@main.command(
    "tree",
    cls=TakesOneId,
    context_settings=CONTEXT,
    short_help="Show a session's sub-agents: type, status, tokens, duration.",
)
@session_id_argument
@click.option(
    "--json", "as_json", is_flag=True, help="The tree as one nested JSON object."
)
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="One JSON object per agent, lead first, with its parent's id and depth.",
)
@verbose_option
@home_option
@fail_nicely
def tree_command(
    session_id: str, as_json: bool, as_nl: bool, verbose: bool, home_dir: str | None
) -> None:
    """Show a session's sub-agents as a tree: type, status, tokens, tool calls, duration.

    \b
    Example: sessdex tree 7f3a --json
    """
    from ..diagnostics import Diagnostics

    diagnostics = Diagnostics()
    home = resolve_home(home_dir)
    # the bar covers the index's refresh; the whole session's read then counts its
    # events, as export's does (the bar, counting nothing, stood still at 0/?)
    label = f"Reading {one_line(session_id, 40)}"
    with progress_bar(label) as progress, contextlib.ExitStack() as stack:

        def reading(events: Iterable[Event]) -> Iterable[Event]:
            progress.close()  # one display at a time on the terminal
            counted = counted_events(events, label, show=True)
            return stack.enter_context(contextlib.closing(counted))

        session, root = api.agent_tree(
            home, session_id, diagnostics, progress=progress, reading=reading
        )
    try:
        _print_tree(root, json_array(as_json, as_nl), as_nl, session.title)
        from ..views.records import forked_from
        from ..views.text import pasted_id

        # each id as pasted into `show` (`'m-1$$call_1'`: bare, `$$` was bash's pid)
        if not (as_json or as_nl) and (source := forked_from(session.extra)):
            click.echo(f"forked from {pasted_id(source)}")
        if not (as_json or as_nl) and (lead := api.lead_of(home, session)):
            click.echo(f"sub-agent of {pasted_id(lead)}")
    finally:
        report_diagnostics(diagnostics, verbose, session.app)


def _print_tree(
    root: AgentNode, as_json: bool, as_nl: bool, title: str | None = None
) -> None:
    if as_json or as_nl:
        from ..views.records import dumps

        if as_json:
            stdout_bytes(root.json() + b"\n")
            return
        stack: list[tuple[str | None, int, AgentNode]] = [(None, 0, root)]
        seen: set[int] = set()
        while stack:
            parent, depth, node = stack.pop()
            if id(node) in seen:  # never twice, whatever the events claimed
                continue
            seen.add(id(node))
            record = node.fields()
            record.update(parent_id=parent, depth=depth)
            stdout_bytes(dumps(record) + b"\n")
            stack.extend((node.id, depth + 1, c) for c in reversed(node.children))
        return
    from ..views import terminal
    from ..views.text import terminal_width

    # piped, an agent's lines whole (as `list` writes them), not wrapped at 80 columns
    width = terminal_width()
    terminal.console(width=width).print(terminal.render_tree(root, width, title))


# a format's names, as `--format` and an `--output` file's extension give it
FORMAT_NAMES = {
    "md": "md",
    "markdown": "md",
    "html": "html",
    "htm": "html",
    "json": "json",
}


class _FormatName(click.Choice):  # type: ignore[type-arg]
    """`--format`'s choice, in any case and by each of its names (`JSON`, `markdown`,
    `htm`), as an `--output` file's extension names it."""

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> object:
        if isinstance(value, str):
            value = FORMAT_NAMES.get(value.strip().lower(), value)
        return super().convert(value, param, ctx)


def _output_file(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | None:
    """--output, not blank ('' would be found unwritable only after the whole read), a
    `~` the shell left (quoted, or `--output=~/x.md`) read as `--home` reads it: the
    home, not a folder named `~` to create."""
    value = not_blank(ctx, param, value)
    return os.path.expanduser(value) if value and value.startswith("~") else value


@main.command(
    "export",
    cls=TakesOneId,
    context_settings=CONTEXT,
    short_help="Export a session as Markdown, an HTML file or JSON events.",
)
@session_id_argument
@click.option(
    "--format",
    "-f",
    "fmt",
    type=_FormatName(["md", "html", "json"]),
    help="md, html or json (default: the --output file's extension, else md).",
)
@click.option(
    "--output",
    "-o",
    # a folder is said by `_export_format`, with a file name in it to give instead
    type=click.Path(writable=True, allow_dash=True),
    metavar="FILE",
    callback=_output_file,
    help="Write to FILE (- for stdout, the default).",
)
@click.option(
    "--subagents",
    type=click.Choice(["inline", "tree", "none"]),  # show's order
    help="Sub-agents' events in time order (inline: json's default), under their spawn "
    "(tree: md and html's default), or left out.",
)
@verbose_option
@home_option
@fail_nicely
def export_command(
    session_id: str,
    fmt: str | None,
    output: str | None,
    subagents: str | None,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Export a session as Markdown, one offline HTML file, or JSON events.

    \b
    Example: sessdex export 7f3a -o session.html
    """
    from ..errors import BadValue

    if output == "-":
        output = None
    home = resolve_home(home_dir)
    try:
        fmt, note = _export_format(fmt, output, session_id)
    except BadValue:
        if output is not None:  # a path refused is said as such, not as misnamed
            api.refuse_agent_folder(home, output)
        raise
    subagents = subagents or ("inline" if fmt == "json" else "tree")
    with progress_bar("Indexing sessions") as progress:
        found = api.transcript(home, session_id, subagents=subagents, progress=progress)
    if output is not None:
        api.refuse_agent_folder(home, output, found.session)
    if note:  # after every refusal: a refused path gets the refusal alone
        err(note)
    events = counted_events(
        found.events,
        f"Exporting {one_line(found.session.id, 40)}",
        show=output is not None or not sys.stdout.isatty(),
    )
    ordered: Iterable[Event] = events
    if subagents == "tree":
        from ..views.grouped import grouped_by_agent

        ordered = grouped_by_agent(events)
    chunks: Iterable[str] = ()
    # md and html name the session a sub-agent's line starts from; json's events are
    # left as they are (`list --json` has the parent)
    lead = api.lead_of(home, found.session) if fmt != "json" else None
    # its sub-agents' names tell each from all the others, later ones too
    known = api.sub_agent_ids(home, found.session) if fmt != "json" else []
    if fmt == "md":
        from ..views import markdown

        resume = api.resume_command(found.session)
        chunks = markdown.render(found.session, ordered, resume, lead, known)
    elif fmt == "html":
        from ..views import html

        resume = api.resume_command(found.session)
        chunks = html.render(found.session, ordered, resume, lead, known)
    from .outfile import write_file

    replaced = 0  # the size of the file -o replaced: what a mistyped name lost
    with contextlib.closing(events):
        if fmt == "json":  # bytes as orjson writes them, as show --json does
            if output is None:
                write_events(ordered, False)
            else:
                replaced = write_file(output, event_chunks(ordered, False), binary=True)
        elif output is None and (fmt == "html" or not sys.stdout.isatty()):
            # the bytes `-o` writes, UTF-8 (as the page says it is, as json's) in any
            # locale: an ASCII one wrote `?` for every other letter into the file. Only
            # Markdown on a terminal is text in its encoding, as `show` is.
            sys.stdout.flush()
            for chunk in chunks:
                sys.stdout.buffer.write(chunk.encode("utf-8", "replace"))
            sys.stdout.buffer.flush()
        elif output is None:
            for chunk in chunks:
                echo(chunk, nl=False)
        else:
            replaced = write_file(output, chunks, binary=False)
    if output is not None and replaced:
        from ..files import human_bytes

        size = human_bytes(replaced)
        err(f"wrote {typed(output)}, replacing the {size} file that was there")
    elif output is not None:
        err(f"wrote {typed(output)}")
    elif fmt == "html" and _to_a_terminal():
        # a page's source scrolled past: what was wanted was a file to open
        named = hints.named(*hints.with_id("export", session_id, "-o", "session.html"))
        err(f"note: that was the page's HTML source; {named} writes a file a browser opens.")  # fmt: skip
    report_diagnostics(found.diagnostics, verbose, found.session.app)


def _to_a_terminal() -> bool:
    """Whether stdout and stderr are a terminal: a person reads what `export` wrote."""
    return sys.stdout.isatty() and stderr_is_terminal()


def _export_format(
    fmt: str | None, output: str | None, session_id: str
) -> tuple[str, str]:
    """The format asked for, else the one the output file's name says; and a folder for
    the file that exists, and is no folder itself (said before any reading, not as a
    traceback after it: a folder, with a file in it named for `session_id`). With
    it, a note on a name that says no format, for the caller to say once the path has
    passed every check."""
    from ..errors import BadValue

    suffix = os.path.splitext(output or "")[1].lower().lstrip(".")
    named = FORMAT_NAMES
    note = ""
    if fmt is None:
        fmt = named.get(suffix, "md")
        if suffix not in named and suffix not in ("", "txt"):  # report.pdf: not a PDF
            note = (
                f"note: {typed(output or '')} names no format sessdex writes (md, html or json): "
                "writing Markdown; --format picks another."
            )
    elif suffix in named and named[suffix] != fmt:
        raise BadValue(
            f"--format {fmt} and the file name {typed(output or '')} disagree: drop one of them."
        )
    if output is not None and os.path.isdir(output):
        name = os.path.join(output, f"{session_id.replace(os.sep, '-')}.{fmt}")
        raise BadValue(
            f"{typed(output)} is a directory: name a file in it, "
            f"e.g. {hints.named(*hints.with_id('export', session_id, '-o', name))}."
        )
    folder = os.path.dirname(output or "")
    if folder and not os.path.isdir(folder):  # a usage error, as an -o that is a folder
        from .. import folders

        if folders.shut_out(folder):
            raise BadValue(
                f"the folder {typed(folder)} may not be entered (permission denied): "
                "name a file in a folder open to you."
            )
        raise BadValue(f"the folder {typed(folder)} does not exist: create it first.")
    return fmt, note


# --- live sessions ---------------------------------------------------------------------------
