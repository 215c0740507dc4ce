"""The `sessdex` command: a thin click layer over `api`.

stdout carries only results; progress, warnings and hints go to stderr. Exit codes: 0 on
success (an empty result too), 1 for an error we explain, 2 for a usage error.
Heavy imports (Rich, the MCP SDK, Starlette) happen inside the commands that need them.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import click

from . import __version__, api
from .diagnostics import Diagnostics
from .errors import AmbiguousId, SessdexError
from .index import Progress, RefreshReport, Row
from .model import Event
from .sources import Home

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# --- shared options ------------------------------------------------------------------------


def home_option(f: F) -> F:
    return click.option(
        "--home",
        "home_dir",
        type=click.Path(file_okay=False, path_type=str),
        help="Read this folder as the home (a copied home); the apps' env overrides are then ignored.",
    )(f)


def output_options(f: F) -> F:
    """--json, --nl and --verbose, shared by every list-like command."""
    f = click.option(
        "--verbose",
        "-v",
        is_flag=True,
        help="Name each unreadable file and line (never its content).",
    )(f)
    f = click.option("--nl", "as_nl", is_flag=True, help="One JSON object per line.")(f)
    f = click.option("--json", "as_json", is_flag=True, help="One JSON array.")(f)
    return f


def filter_options(f: F) -> F:
    f = click.option(
        "--limit", "-n", type=click.IntRange(min=1), help="Show at most N sessions."
    )(f)
    f = click.option(
        "--since",
        help="Only sessions updated since: 3d, 12h, 2w or a date (2026-11-01).",
    )(f)
    f = click.option(
        "--here",
        is_flag=True,
        help="Only sessions whose folder is this one or below it.",
    )(f)
    f = click.option(
        "--app",
        "apps",
        multiple=True,
        metavar="NAME",
        help="Only this app (repeatable).",
    )(f)
    f = click.option(
        "--all", "include_subagents", is_flag=True, help="Include sub-agent sessions."
    )(f)
    return f


def resolve_home(home_dir: str | None) -> Home:
    return Home.at(home_dir) if home_dir else Home.current()


def fail_nicely(f: F) -> F:
    """Map SessdexError to a one-line message and exit 1 (SESSDEX_DEBUG=1 shows the traceback)."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except SessdexError as error:
            if os.environ.get("SESSDEX_DEBUG"):
                raise
            err(f"Error: {error}")
            if isinstance(error, AmbiguousId):
                from .views.text import one_line

                for app, session_id, title in error.candidates[:10]:
                    err(f"  {app:<8} {session_id}  {one_line(title, 60)}")
            sys.exit(1)
        except BrokenPipeError:
            sys.stderr.close()
            sys.exit(0)

    return wrapper  # type: ignore[return-value]


def err(message: str) -> None:
    click.echo(message, err=True)


def stdout_bytes(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


@contextmanager
def progress_bar(label: str) -> Iterator[Progress]:
    """A progress callback that shows a Rich bar on stderr after one second, on a terminal only."""
    started = time.monotonic()
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            if (
                not sys.stderr.isatty()
                or time.monotonic() - started < 1.0
                or done >= total
            ):
                return
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TimeRemainingColumn,
            )

            bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            bar.start()
            state["bar"] = bar
            state["task"] = bar.add_task(label, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()


def report_skipped(report: RefreshReport, verbose: bool) -> None:
    for app, message in sorted(report.failures.items()):
        err(f"warning: {app}: {message}")
    for diagnostics in report.diagnostics.values():
        for problem in diagnostics.problems:
            err(f"warning: {problem}")
    summary = api.skipped_summary(report)
    if summary:
        err(f"warning: {summary}")
    if verbose:
        for app, diagnostics in sorted(report.diagnostics.items()):
            for path, line, reason in diagnostics.details:
                err(f"  {app}: {path}:{line}: {reason}")


def print_rows(rows: Sequence[Row], as_json: bool, as_nl: bool, home: Home) -> None:
    if as_json:
        stdout_bytes(b"[" + b",".join(row.record for row in rows) + b"]\n")
        return
    if as_nl:
        stdout_bytes(b"".join(row.record + b"\n" for row in rows))
        return
    import orjson

    from .views.text import age, one_line, short_path

    width = _terminal_width()
    home_text = str(home.path)
    styled = sys.stdout.isatty()
    for row in rows:
        record = orjson.loads(row.record)
        updated = record.get("updated") or record.get("created")
        when = (
            datetime.fromisoformat(updated.replace("Z", "+00:00")) if updated else None
        )
        branch = one_line(record.get("branch") or "-", 24)
        folder = one_line(short_path(record.get("cwd"), home_text), 32)
        head = f"{row.app:<8} {row.id[:8]:<8} {age(when):>4}  {branch:<24.24} {folder:<32.32} "
        title = one_line(
            record.get("title") or "(untitled)", max(10, width - len(head))
        )
        if styled:
            head = click.style(f"{row.app:<8}", fg="cyan") + head[8:]
        click.echo(head + title)


def _terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 160


# --- commands ------------------------------------------------------------------------------


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", "-V", prog_name="sessdex")
def main() -> None:
    """Find, resume, read and count every AI coding agent session on this machine.

    \b
    Examples:
      sessdex list --limit 20
      sessdex find checkout branch:fix/
      sessdex resume 7f3a --print
    """


@main.command("list", context_settings=CONTEXT)
@filter_options
@output_options
@home_option
@fail_nicely
def list_command(
    apps: tuple[str, ...],
    here: bool,
    since: str | None,
    limit: int | None,
    include_subagents: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """List sessions of every app, newest first.

    \b
    Example: sessdex list --app claude --since 3d
    """
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        listing = api.list_sessions(
            home,
            apps=apps,
            since=api.parse_since(since) if since else None,
            here=os.getcwd() if here else None,
            limit=limit,
            include_subagents=include_subagents,
            progress=progress,
        )
    report_skipped(listing.report, verbose)
    print_rows(listing.rows, as_json, as_nl, home)
    if not listing.rows and not (as_json or as_nl) and not any(loc.exists for loc in listing.report.locations.values()):
        err("No agent sessions on this machine yet. 'sessdex demo' shows what sessdex does; 'sessdex doctor' shows where it looked.")


@main.command("find", context_settings=CONTEXT)
@click.argument("query", nargs=-1, required=True)
@filter_options
@output_options
@home_option
@fail_nicely
def find_command(
    query: tuple[str, ...],
    apps: tuple[str, ...],
    here: bool,
    since: str | None,
    limit: int | None,
    include_subagents: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Find sessions whose title, folder, branch, app or id contain every word.

    \b
    app:codex, branch:fix/, dir:shop-api and id:7f3a narrow the search.
    Example: sessdex find checkout retry app:claude
    """
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        listing = api.find_sessions(
            home,
            " ".join(query),
            apps=apps,
            since=api.parse_since(since) if since else None,
            here=os.getcwd() if here else None,
            limit=limit,
            include_subagents=include_subagents,
            progress=progress,
        )
    report_skipped(listing.report, verbose)
    print_rows(listing.rows, as_json, as_nl, home)


@main.command("resume", context_settings=CONTEXT)
@click.argument("session_id")
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the shell command instead of running it.",
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Resume even if the folder is on another branch now.",
)
@click.option(
    "--force", is_flag=True, help="Resume even if a running CLI has this session open."
)
@click.option(
    "--keep-permissions",
    is_flag=True,
    help="Keep a recorded approval mode looser than the CLI's default.",
)
@home_option
@fail_nicely
def resume_command(
    session_id: str,
    print_only: bool,
    yes: bool,
    force: bool,
    keep_permissions: bool,
    home_dir: str | None,
) -> None:
    """Reopen a session in its app, in its folder, with its model and effort.

    \b
    A unique id prefix is enough. Checks first: the folder still exists, the branch
    matches (asks if not), the CLI is installed, no running CLI has it open.
    Example: sessdex resume 7f3a --print
    """
    from .views.text import one_line

    check = api.check_resume(
        resolve_home(home_dir), session_id, keep_permissions=keep_permissions
    )
    for warning in check.warnings:
        err(f"note: {one_line(warning)}")
    if print_only:
        for refusal in check.refusals:
            err(f"warning: {one_line(refusal)}")
        if check.branch_mismatch:
            recorded, current = check.branch_mismatch
            err(
                f"warning: the session was on branch {one_line(recorded)!r}; the folder is on {one_line(current)!r} now."
            )
        if check.live_pids:
            err(
                f"warning: a running {check.plan.program} (pid {', '.join(map(str, check.live_pids))}) has this session open."
            )
        click.echo(check.command)
        return
    if check.refusals:
        raise SessdexError(" ".join(check.refusals))
    if check.live_pids and not force:
        pids = ", ".join(map(str, check.live_pids))
        raise SessdexError(
            f"a running {check.plan.program} (pid {pids}) already has this session open; "
            "close it first, or use --force."
        )
    if check.branch_mismatch:
        recorded, current = check.branch_mismatch
        message = (
            f"the session was on branch {one_line(recorded)!r} but {one_line(check.plan.cwd)} is on "
            f"{one_line(current)!r} now. sessdex never switches branches."
        )
        if not yes:
            if not sys.stdin.isatty():
                raise SessdexError(message + " Use --yes to resume anyway.")
            err(f"warning: {message}")
            if not click.confirm(
                "Resume on the current branch?", default=False, err=True
            ):
                raise SessdexError("resume cancelled.")
        else:
            err(f"warning: {message}")
    err(f"$ {check.command}")
    os.chdir(check.plan.cwd)
    os.execvp(check.cli_path or check.plan.argv[0], list(check.plan.argv))


@main.command("doctor", context_settings=CONTEXT)
@click.option(
    "--app", "apps", multiple=True, metavar="NAME", help="Only this app (repeatable)."
)
@output_options
@home_option
@fail_nicely
def doctor_command(
    apps: tuple[str, ...],
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Show, per app, where sessdex looked, what it found and what it could not read.

    \b
    Example: sessdex doctor --json
    """
    from .views.records import dumps

    with progress_bar("Indexing sessions") as progress:
        reports = api.doctor(resolve_home(home_dir), apps, progress)
    if as_json:
        stdout_bytes(dumps([r.record() for r in reports]) + b"\n")
        return
    if as_nl:
        stdout_bytes(b"".join(dumps(r.record()) + b"\n" for r in reports))
        return
    for r in reports:
        state = f"{r.sessions} sessions" if r.exists else "not found"
        click.echo(f"{r.title} ({r.app}): {state}")
        click.echo(
            f"  looked in   {r.root}" + (f"  (from {r.override})" if r.override else "")
        )
        click.echo(f"  checked with {r.checked_with}")
        if r.versions:
            seen = ", ".join(f"{v} ({n})" for v, n in sorted(r.versions.items()))
            click.echo(f"  versions    {seen}")
        if r.diagnostics.skipped:
            click.echo(
                "  skipped     "
                + ", ".join(
                    f"{n} {why}" for why, n in sorted(r.diagnostics.skipped.items())
                )
            )
        if r.diagnostics.unknown:
            click.echo(
                "  unknown     "
                + ", ".join(
                    f"{t} ({n})" for t, n in sorted(r.diagnostics.unknown.items())
                )
            )
        for problem in r.diagnostics.problems:
            click.echo(f"  problem     {problem}")
        if verbose:
            for path, line, reason in r.diagnostics.details:
                click.echo(f"    {path}:{line}: {reason}")


@main.command("demo", context_settings=CONTEXT)
@fail_nicely
def demo_command() -> None:
    """Show what sessdex does, on a small demo home shipped with it.

    \b
    Runs `list`, `find` and `resume --print` against the demo home.
    Example: sessdex demo
    """
    home = api.demo_home()
    listing = api.list_sessions(home)
    click.secho("$ sessdex list", bold=True, err=False)
    print_rows(listing.rows, False, False, home)
    click.echo()
    click.secho("$ sessdex find checkout", bold=True)
    print_rows(api.find_sessions(home, "checkout").rows, False, False, home)
    if listing.rows:
        first = listing.rows[0]
        click.echo()
        click.secho(f"$ sessdex resume {first.id[:8]} --print", bold=True)
        check = api.check_resume(home, first.id)
        for warning in check.warnings:
            err(f"note: {warning}")
        click.echo(check.command)
    click.echo()
    click.echo(f"(demo home: {home.path}; run 'sessdex list' for your own sessions)")


@main.command("show", context_settings=CONTEXT)
@click.argument("session_id")
@click.option(
    "--detail",
    type=click.Choice(["full", "normal", "user"]),
    default="normal",
    show_default=True,
    help="full: everything; normal: results folded; user: only what was typed and said.",
)
@click.option(
    "--subagents",
    type=click.Choice(["inline", "tree", "none"]),
    default="inline",
    show_default=True,
    help="Interleave sub-agent events, group them under their spawn, or leave them out.",
)
@click.option(
    "--tail",
    type=click.IntRange(min=1),
    help="Only the last N events, read from the end of the file.",
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
    found = api.transcript(
        resolve_home(home_dir),
        session_id,
        subagents=subagents,
        tail=tail,
        full=full_payloads,
    )
    if as_json or as_nl:
        write_events(found.events, as_nl)
    else:
        from .views import terminal

        events: Iterable[Event] = found.events
        if subagents == "tree":
            events = grouped_by_agent(found.events)
        out = terminal.console()
        use_pager = sys.stdout.isatty() and not no_pager and tail is None

        def body() -> None:
            out.print(terminal.session_header(found.session))
            out.print()
            for renderable in terminal.render_events(events, detail):
                out.print(renderable)

        if use_pager:
            with out.pager(styles=True):
                body()
        else:
            body()
    report_diagnostics(found.diagnostics, verbose)


def write_events(events: Iterable[Event], as_nl: bool) -> None:
    """Stream events as a JSON array (or lines) without holding them all."""
    from .views.records import dumps, event_record

    out = sys.stdout.buffer
    sys.stdout.flush()
    if as_nl:
        for event in events:
            out.write(dumps(event_record(event)) + b"\n")
    else:
        out.write(b"[")
        for n, event in enumerate(events):
            out.write((b",\n" if n else b"\n") + dumps(event_record(event)))
        out.write(b"\n]\n")
    out.flush()


def grouped_by_agent(events: Iterable[Event]) -> Iterator[Event]:
    """Lead events in order, each sub-agent's events right after its spawn (nested)."""
    by_agent: dict[str | None, list[Event]] = {}
    for event in events:
        by_agent.setdefault(event.agent_id, []).append(event)

    def emit(agent: str | None, seen: set[str | None]) -> Iterator[Event]:
        seen.add(agent)
        for event in by_agent.get(agent, []):
            yield event
            child = event.extra.get("child_id") if event.kind == "subagent" else None
            if child is not None and str(child) not in seen:
                yield from emit(str(child), seen)

    seen: set[str | None] = set()
    yield from emit(None, seen)
    for agent in list(by_agent):
        if agent not in seen:
            yield from emit(agent, seen)


def report_diagnostics(diagnostics: Diagnostics, verbose: bool) -> None:
    for problem in diagnostics.problems:
        err(f"warning: {problem}")
    if diagnostics.skipped_total:
        err(
            f"warning: skipped {diagnostics.skipped_total} unreadable lines; see --verbose or 'sessdex doctor'"
        )
    if diagnostics.unknown and verbose:
        err(
            "note: record types not recognised: "
            + ", ".join(f"{t} ({n})" for t, n in sorted(diagnostics.unknown.items()))
        )
    if verbose:
        for path, line, reason in diagnostics.details:
            err(f"  {path}:{line}: {reason}")


@main.command("tree", context_settings=CONTEXT)
@click.argument("session_id")
@output_options
@home_option
@fail_nicely
def tree_command(
    session_id: str, as_json: bool, as_nl: bool, verbose: bool, home_dir: str | None
) -> None:
    """Show a session's sub-agents as a tree: type, status, tokens, tool calls, duration.

    \b
    Example: sessdex tree 7f3a --json
    """
    _session, root = api.agent_tree(resolve_home(home_dir), session_id)
    if as_json or as_nl:
        from .views.records import dumps

        stdout_bytes(dumps(root.record()) + b"\n")
        return
    from .views import terminal

    terminal.console().print(terminal.render_tree(root))


@main.command("export", context_settings=CONTEXT)
@click.argument("session_id")
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["md", "html", "json"]),
    default="md",
    show_default=True,
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="Write to FILE (default: stdout).",
)
@click.option(
    "--subagents",
    type=click.Choice(["inline", "none"]),
    default="inline",
    show_default=True,
)
@home_option
@fail_nicely
def export_command(
    session_id: str, fmt: str, output: str | None, subagents: str, home_dir: str | None
) -> None:
    """Export a session as Markdown, one offline HTML file, or JSON events.

    \b
    Example: sessdex export 7f3a --format html -o session.html
    """
    home = resolve_home(home_dir)
    found = api.transcript(home, session_id, subagents=subagents)
    if output is not None:
        api.refuse_agent_folder(home, output)
    if fmt == "json":
        from .views.records import dumps, event_record

        chunks: Iterable[str] = (
            part
            for part in _json_chunks(
                dumps(event_record(e)).decode() for e in found.events
            )
        )
    elif fmt == "md":
        from .views import markdown

        chunks = markdown.render(found.session, found.events)
    else:
        from .views import html

        chunks = html.render(found.session, found.events)
    if output is None:
        for chunk in chunks:
            click.echo(chunk, nl=False)
    else:
        with open(output, "w", encoding="utf-8") as handle:
            for chunk in chunks:
                handle.write(chunk)
        err(f"wrote {output}")
    report_diagnostics(found.diagnostics, False)


def _json_chunks(items: Iterable[str]) -> Iterator[str]:
    yield "["
    for n, item in enumerate(items):
        yield (",\n" if n else "\n") + item
    yield "\n]\n"


# --- live sessions ---------------------------------------------------------------------------


def live_options(f: F) -> F:
    f = click.option(
        "--poll",
        "force_poll",
        is_flag=True,
        help="Poll the files instead of using file-system notifications.",
    )(f)
    f = click.option(
        "--duration",
        type=click.FloatRange(min=0),
        metavar="SECONDS",
        help="Stop after SECONDS (default: until Ctrl-C).",
    )(f)
    return f


@main.command("watch", context_settings=CONTEXT)
@click.option(
    "--app", "apps", multiple=True, metavar="NAME", help="Only this app (repeatable)."
)
@click.option(
    "--since",
    default="1d",
    show_default=True,
    help="Only sessions updated since: 3d, 12h, 2w or a date.",
)
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Follow at most N sessions.",
)
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="Stream status changes as JSON lines (id, app, title, cwd, status, reason, updated).",
)
@click.option("--once", is_flag=True, help="Print the board once and exit.")
@live_options
@home_option
@fail_nicely
def watch_command(
    apps: tuple[str, ...],
    since: str,
    limit: int,
    as_nl: bool,
    once: bool,
    duration: float | None,
    force_poll: bool,
    home_dir: str | None,
) -> None:
    """A live board of recent sessions: who works, who waits for you, who waits on a sub-agent.

    \b
    Sessions waiting for you come first. --nl prints every session's status, then each
    change, one JSON object per line.
    Example: sessdex watch --since 3h
    """
    home = resolve_home(home_dir)
    boards = api.watch_sessions(
        home,
        apps=apps,
        since=api.parse_since(since),
        limit=limit,
        duration=0 if once else duration,
        notify=False if force_poll else None,
    )
    try:
        if as_nl:
            _watch_lines(boards, once)
        elif once or not sys.stdout.isatty():
            _watch_plain(boards, str(home.path), once)
        else:
            _watch_live(boards, str(home.path))
    except KeyboardInterrupt:
        pass


def _watch_lines(boards: Iterable[Sequence[Any]], once: bool) -> None:
    import re

    from .views.board import status_record
    from .views.records import dumps

    shown: dict[tuple[str, str], tuple[str, str]] = {}
    for rows in boards:
        out = []
        for row in rows:
            key = (row.session.app, row.session.id)
            # a reason whose only change is a counting duration is no change
            state = (row.status.status, re.sub(r"\d+", "#", row.status.reason))
            if shown.get(key) != state:
                shown[key] = state
                out.append(dumps(status_record(row)) + b"\n")
        if out:
            stdout_bytes(b"".join(out))
        if once:
            return


def _watch_plain(boards: Iterable[Sequence[Any]], home: str, once: bool) -> None:
    from .views.board import plain

    last = None
    for rows in boards:
        states = [(r.session.id, r.status.status) for r in rows]
        if states != last:
            if last is not None:
                click.echo()
            click.echo(plain(rows, home), nl=False)
            last = states
        if once:
            return


def _watch_live(boards: Iterable[Sequence[Any]], home: str) -> None:
    from rich.live import Live

    from .views import terminal
    from .views.board import render

    out = terminal.console()
    with Live(console=out, auto_refresh=False, transient=False) as screen:
        for rows in boards:
            screen.update(render(rows, home), refresh=True)  # type: ignore[arg-type]


DETAIL = click.option(
    "--detail",
    type=click.Choice(["full", "normal", "user"]),
    default="normal",
    show_default=True,
    help="full: everything; normal: results folded; user: only what was typed and said.",
)


@main.command("follow", context_settings=CONTEXT)
@click.argument("session_id")
@click.option(
    "--lines",
    "-n",
    "history",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Show the last N events first.",
)
@DETAIL
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="One JSON event per line (the show --json shape).",
)
@live_options
@home_option
@fail_nicely
def follow_command(
    session_id: str,
    history: int,
    detail: str,
    as_nl: bool,
    duration: float | None,
    force_poll: bool,
    home_dir: str | None,
) -> None:
    """Stream a session's events as they are written (tail -f), sub-agents labelled.

    \b
    Example: sessdex follow 7f3a -n 20
    """
    from .live import renumber
    from .views.text import one_line

    session, batches = api.follow_session(
        resolve_home(home_dir),
        session_id,
        duration=duration,
        notify=False if force_poll else None,
    )

    labels: dict[str, str] = {}  # sub-agent labels, from spawns in the unshown history too

    def shown() -> Iterator[list[Event]]:
        first = True
        for batch in batches:
            if first:
                first = False
                for event in batch:
                    child, kind = event.extra.get("child_id"), event.extra.get("agent_type")
                    if event.kind == "subagent" and child is not None:
                        labels[str(child)] = one_line(str(kind or child)[:24], 24)
                batch = batch[len(batch) - history :] if history else []
            yield batch

    try:
        if as_nl:
            from .views.records import dumps, event_record

            for event in renumber(shown()):
                stdout_bytes(dumps(event_record(event)) + b"\n")
            return
        from .views import terminal

        out = terminal.console()
        if sys.stdout.isatty():
            out.print(terminal.session_header(session))
            out.print()
        for batch in shown():
            for renderable in terminal.render_events(batch, detail, labels):
                out.print(renderable)
            out.file.flush()
    except KeyboardInterrupt:
        pass


@main.command("replay", context_settings=CONTEXT)
@click.argument("session_id")
@click.option(
    "--speed",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    help="How many times faster than it happened.",
)
@click.option(
    "--max-gap",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="The longest pause, in seconds.",
)
@DETAIL
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="One JSON event per line (the show --json shape).",
)
@home_option
@fail_nicely
def replay_command(
    session_id: str,
    speed: float,
    max_gap: float,
    detail: str,
    as_nl: bool,
    home_dir: str | None,
) -> None:
    """Play a session back with its original pacing, sped up, sub-agents interleaved.

    \b
    Example: sessdex replay 7f3a --speed 20
    """
    found = api.replay_session(
        resolve_home(home_dir), session_id, speed=speed, max_gap=max_gap
    )
    try:
        if as_nl:
            from .views.records import dumps, event_record

            for event in found.events:
                stdout_bytes(dumps(event_record(event)) + b"\n")
        else:
            from .views import terminal

            out = terminal.console()
            out.print(terminal.session_header(found.session))
            out.print()
            for renderable in terminal.render_events(found.events, detail):
                out.print(renderable)
                out.file.flush()
    except KeyboardInterrupt:
        pass
    report_diagnostics(found.diagnostics, False)



@main.command("usage", context_settings=CONTEXT)
@click.argument(
    "report",
    required=False,
    default="daily",
    type=click.Choice(
        ["daily", "weekly", "monthly", "session", "project", "model", "app"]
    ),
)
@click.option("--since", help="From this day (2026-11-01) or this long ago (3d, 2w).")
@click.option("--until", help="Up to and including this day (2026-11-30).")
@click.option(
    "--app", "apps", multiple=True, metavar="NAME", help="Only this app (repeatable)."
)
@click.option(
    "--here", is_flag=True, help="Only sessions whose folder is this one or below it."
)
@click.option(
    "--tz",
    metavar="ZONE",
    help="Days in this time zone (IANA name or 'local'; default UTC).",
)
@click.option(
    "--explain",
    metavar="KEY",
    help="Audit one row (a day, model, session…): every response counted and every line dropped, with the rule.",
)
@output_options
@home_option
@fail_nicely
def usage_command(
    report: str,
    since: str | None,
    until: str | None,
    apps: tuple[str, ...],
    here: bool,
    tz: str | None,
    explain: str | None,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Count tokens and cost per day, week, month, session, project, model or app.

    \b
    Each response is counted once, by each app's de-duplication rules (docs/usage.md);
    prices come from the catalogue shipped with sessdex, and a model it cannot price
    shows "unpriced", never $0.
    Example: sessdex usage daily --since 2026-11-01 --app claude
    """
    from .views import usage as view

    with progress_bar("Reading usage") as progress:
        result = api.usage_report(
            resolve_home(home_dir),
            report,
            apps=apps,
            since=since,
            until=until,
            here=os.getcwd() if here else None,
            tz=tz,
            explain=explain,
            progress=progress,
        )
    for _app, diagnostics in sorted(result.collected.diagnostics.items()):
        report_diagnostics(diagnostics, verbose)
    from .views.records import dumps

    if result.explained is not None:
        if as_json or as_nl:
            stdout_bytes(dumps(view.explain_record(result.explained)) + b"\n")
        else:
            from .usage import parse_tz

            click.echo("\n".join(view.explain_lines(result.explained, parse_tz(tz))))
        return
    if as_json:
        stdout_bytes(dumps(view.row_records(result.rows)) + b"\n")
        return
    if as_nl:
        stdout_bytes(b"".join(dumps(r) + b"\n" for r in view.row_records(result.rows)))
        return
    from .views import terminal

    out = terminal.console()
    if not out.is_terminal:
        out.width = max(
            out.width, 160
        )  # a pipe gets whole numbers and names, not folds
    out.print(view.table(report, result.rows, result.total, result.collected.catalogue))
    note = view.unpriced_note(result.total)
    if note:
        err(f"note: {note}")

if __name__ == "__main__":  # pragma: no cover
    main()
