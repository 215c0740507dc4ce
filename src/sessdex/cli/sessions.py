"""Finding and reopening sessions: list, find, resume, doctor, demo."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Sequence

import click

from .. import api, hints
from ..diagnostics import detail, unfinished_files
from ..errors import NotQuotable, ResumeRefused, SessdexError
from ..index import RefreshReport
from ..selection import here_folders, kept_options, project_folders
from ..sources import Home
from ..views.text import stderr_is_terminal
from ..wording import count_of
from . import main
from ._common import (
    CONTEXT,
    TakesNoWords,
    TakesOneId,
    apps_option,
    echo,
    err,
    fail_nicely,
    filter_options,
    flags_as_words,
    home_below,
    home_option,
    option_meant,
    options_at_end,
    output_options,
    output_options_or_object,
    print_rows,
    progress_bar,
    report_diagnostics,
    report_skipped,
    resolve_home,
    session_id_argument,
    stdout_bytes,
    verbose_option,
)


class _TakesNoWords(TakesNoWords):
    """`list` given words (`sessdex list checkout`, as other tools list with a filter):
    the usage error names the `find` line that looks for them."""

    def other_words(self, ctx: click.Context) -> str:
        dashed = any(word.startswith("-") for word in ctx.args)
        words = ("--", *ctx.args) if dashed else ctx.args
        return f"{hints.named('find', *words)} finds the sessions they name."


@main.command("list", cls=_TakesNoWords, context_settings=CONTEXT)
@filter_options
@output_options
@home_option
@fail_nicely
def list_command(
    apps: tuple[str, ...],
    here: bool,
    since: str | None,
    until: str | None,
    limit: int | None,
    include_subagents: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """List sessions of every app, newest first.

    \b
    Examples:
      sessdex list --app claude --since 3d
      sessdex list --since 2026-11-01 --until 2026-11-30
    """
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        listing = api.list_sessions(
            home,
            apps=apps,
            since=since,
            until=until,
            here=here_folders() if here else None,
            limit=limit,
            include_subagents=include_subagents,
            progress=progress,
            with_skipped=verbose,
        )
    report_skipped(listing.report, verbose, listing.skipped, listing.unfinished)
    print_rows(listing, as_json, as_nl, home, grouped=include_subagents)
    if not listing.rows and _hint_read(as_json or as_nl, limit):
        _say_why_empty(
            home,
            listing.report,
            apps,
            here,
            since,
            hidden=listing.hidden,
            empty=listing.empty,
            output="--json" if as_json else "--nl" if as_nl else None,
            kept=kept_options(limit, include_subagents),
            until=until,
            above=listing.above,
            include_subagents=include_subagents,
        )


DASHED = "sessdex.find.dashed"  # ctx.meta: find's words past `--`, as typed
GIVEN = "sessdex.find.given"  # ctx.meta: find's arguments, as typed


class _FindsWords(click.Command):
    """`find`, given a word click reads as an unknown option (`find pytest -x`): the
    line that finds it names the other words and options typed, which only the
    arguments as given still hold; and the words typed past `--` are kept apart
    (`DASHED`), which WORDS no longer tells."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # the parser takes words off the list it is given
        try:
            rest = super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            raise option_meant(self, error, given) or error from None
        if "--" in given:
            ctx.meta[DASHED] = tuple(given[given.index("--") + 1 :])
        ctx.meta[GIVEN] = tuple(given)
        return rest


@main.command(
    "find",
    cls=_FindsWords,
    context_settings=CONTEXT,
    short_help="Find sessions by words in title, folder, branch, app or id.",
)
# not required: no word at all is refused below as an empty one is, with the way on
@click.argument("query", nargs=-1, metavar="WORDS...")
@filter_options
@output_options
@home_option
@fail_nicely
def find_command(
    query: tuple[str, ...],
    apps: tuple[str, ...],
    here: bool,
    since: str | None,
    until: str | None,
    limit: int | None,
    include_subagents: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Find sessions whose title, folder, branch, app or id contain every word.

    app:codex, branch:fix/, dir:shop-api, title:retry and id:7f3a narrow the
    search; codex:7f3a is an id of one app, as show and resume take it. Every
    word must match, but several app: words (or --app options) take a session
    of any of those apps; with both, an app both name. A word that starts
    with - goes after -- (the second example), where every word is one to
    find but --json, --nl or an option with its value that ends the line.

    Words match in any case and with or without accents (cafe finds a cafe
    written with an accent), inside longer words too. A session whose id
    starts with the only word comes first, then the sessions of the folder
    you are in (or below it); the rest are newest first.

    \b
    Examples:
      sessdex find checkout retry app:claude
      sessdex find -- --dry-run
    """
    if not "".join(query).strip():  # every session matches no word: 'list' says that
        kept = [word for app in apps for word in ("--app", app)]
        kept += ["--since", since] if since else []
        kept += ["--until", until] if until else []
        kept += ["--here"] * here + kept_options(limit, include_subagents)
        kept += ["--json"] * as_json + ["--nl"] * as_nl
        said = (
            "lists the sessions those options keep" if kept else "shows every session"
        )
        raise click.UsageError(
            f"give a word to find; {hints.named('list', *kept)} {said}."
        )
    ctx = click.get_current_context()
    dashed: tuple[str, ...] = ctx.meta.get(DASHED, ())
    # only past words typed after `--`: `find checkout -- --json` put it there for it
    at = options_at_end(ctx.command, dashed)
    if at is not None:  # `find -- --dry-run --json`: the --json was a word to find
        from ..errors import typed

        cut = len(query) - len(dashed) + at
        options, words = query[cut:], query[:cut]
        line = hints.named("find", *options, "--", *words)
        raise click.UsageError(
            f"{typed(' '.join(options))} came after '--', where an option is a word "
            f"to find too; {line} gives them as options."
        )
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        listing = api.find_sessions(
            home,
            " ".join(query),
            apps=apps,
            since=since,
            until=until,
            here=here_folders() if here else None,
            near=None if here else project_folders(),
            limit=limit,
            include_subagents=include_subagents,
            progress=progress,
            with_skipped=verbose,
        )
    report_skipped(listing.report, verbose, listing.skipped, listing.unfinished)
    print_rows(listing, as_json, as_nl, home, grouped=include_subagents)
    if not listing.rows and _hint_read(as_json or as_nl, limit):
        _say_why_empty(
            home,
            listing.report,
            apps,
            here,
            since,
            " ".join(query),
            hidden=listing.hidden,
            empty=listing.empty,
            wider=listing.wider,
            instead=listing.instead,
            output="--json" if as_json else "--nl" if as_nl else None,
            kept=kept_options(limit, include_subagents),
            until=until,
        )
        # `find pytest -v`: the -v was --verbose, not a word, and nothing said so
        as_words = flags_as_words(ctx.command, ctx.meta.get(GIVEN, ()))
        if as_words is not None:
            err(as_words)


def _hint_read(as_data: bool, limit: int | None) -> bool:
    """Whether an empty listing's hint (a word misspelt, `--all`, …) would be read: after a
    table always (on stderr), after `--json`/`--nl` only where stderr is a terminal, a
    person trying the command; a script's log gets the empty list alone. `--limit 0`
    asked for nothing."""
    return limit != 0 and (not as_data or stderr_is_terminal())


def _say_why_empty(
    home: Home,
    report: RefreshReport,
    apps: tuple[str, ...],
    here: bool,
    since: str | None,
    query: str | None = None,
    *,
    hidden: int = 0,
    empty: bool = False,
    wider: int = 0,
    instead: Sequence[str] = (),
    output: str | None = None,
    kept: Sequence[str] = (),
    until: str | None = None,
    above: tuple[str, int] | None = None,
    include_subagents: bool = False,
) -> None:
    """A line on stderr saying why a list came out empty, and what to try next: an
    empty table alone looks like a hang or a bug. `include_subagents`: `--all`, whose
    newest session may be a sub-agent. `hidden`: the sub-agents `--all`
    would list; `empty`: the apps read hold no session at all, whatever the filters."""
    from .. import sources
    from ..checkup import kept_app_found
    from ..selection import nothing_matches, parse_query

    # no app read at all: `--app` and `app:` words that exclude each other
    read = bool(report.locations or report.kept)
    # whether each app is there; one the refresh left as it was is said from its noted
    # scan (its source not loaded), only while no app before it was found
    found = itertools.chain(
        (
            api.app_found(sources.get(app), location)
            for app, location in report.locations.items()
        ),
        (kept_app_found(home, app, report) for app in report.kept),
    )
    # the apps asked for, with --app or in the query (`app:gemini`, `gemini:3f2b`)
    named = [*apps, *(a for a in parse_query(query or "").apps if a not in apps)]
    # `--since` alone left every session out: the newest's age says how far to reach
    newest = None
    if since and not (query or until or hidden or empty):
        folders = here_folders() if here else None
        newest = api.newest_change(home, apps, folders, include_subagents)
    hint = nothing_matches(
        query,
        apps,
        since,
        here,
        hidden,
        wider,
        instead,
        output,
        kept,
        until,
        above,
        newest,
    )
    # a broken link where an app's folder, store or files would be: what hides them
    links = [words for said in report.hiding_links.values() for words in said]
    if read and not any(found):  # a shared folder (~/.config) is no app's own
        if named:
            hiding = f": {links[0]}" if links else ""
            err(
                f"No folder of {', '.join(named)} {hints.where()}{hiding}. {hints.named('doctor')} shows where sessdex looked."
            )
        elif (below := home_below(home, "list")) is not None:
            err(below)
        elif links:
            err(
                f"No sessions found {hints.where()}: {links[0]}. {hints.named('doctor')} shows where sessdex looked and what it skipped."
            )
        else:
            err(
                f"No agent sessions {hints.where()} yet. {hints.named('demo')} shows what sessdex does; {hints.named('doctor')} shows where it looked."
            )
    elif empty and named:  # no filter emptied it: fewer words or options find nothing
        where = "its folder" if len(named) == 1 else "their folders"
        err(
            f"No session of {', '.join(named)} in {where} yet. {hints.named('doctor')} shows where sessdex looked and what it skipped."
        )
    elif hint and not empty:
        err(hint)
    elif links:  # a store or a file that is a broken link: what hides the sessions
        err(
            f"No sessions found in the agents' folders: {links[0]}. {hints.named('doctor')} shows where sessdex looked and what it skipped."
        )
    else:
        err(
            f"No sessions found in the agents' folders. {hints.named('doctor')} shows where sessdex looked and what it skipped."
        )


@main.command(
    "resume",
    cls=TakesOneId,
    context_settings=CONTEXT,
    short_help="Reopen a session in its app, folder, model and effort.",
)
@session_id_argument
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the command for your shell instead of running it (SESSDEX_SHELL="
    "sh, bash, fish, powershell or cmd picks another).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the plan as one JSON object (app, id, cwd, argv, command, cli_path, "
    "warnings, refusals, branch_mismatch, live_pids) instead of running it.",
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Resume even if the folder is on another branch now, or, where the session's "
    "folder is unknown, in the folder you are in.",
)
@click.option(
    "--force", is_flag=True, help="Resume even if a running CLI has this session open."
)
@click.option(
    "--keep-permissions",
    is_flag=True,
    help="Keep a recorded approval mode looser than the CLI's default, and resume a "
    "session its app reopens looser by itself (Copilot's Allow All, droid's autonomy, "
    "Kimi's yolo, gptme's no-confirm), refused without it.",
)
@verbose_option
@home_option
@fail_nicely
def resume_command(
    session_id: str,
    print_only: bool,
    as_json: bool,
    yes: bool,
    force: bool,
    keep_permissions: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Reopen a session in its app, in its folder, with its model and effort.

    A unique id prefix is enough. Checks first: the folder still exists, the branch
    matches (asks if not), the CLI is installed, no running CLI has it open.

    \b
    Examples:
      sessdex resume 7f3a --print
      sessdex resume 7f3a --json | jq -r .command
    """
    from ..views.text import one_line

    # --json holds every warning and refusal: said on stderr too for a person at a
    # terminal (the object is one long line), not into a script's log a second time
    said = err if not as_json or stderr_is_terminal() else _unsaid
    with progress_bar("Indexing sessions") as progress:
        try:
            check = api.check_resume(
                resolve_home(home_dir),
                session_id,
                keep_permissions=keep_permissions,
                progress=progress,
            )
        except ResumeRefused as refused:
            if verbose and refused.session is not None:
                # a line the app could not read may be why there is no plan at all
                progress.close()  # (its line gone before these are said)
                problems = api.read_problems(refused.session)
                report_diagnostics(problems, True, refused.session.app)
            if print_only and not as_json and refused.lead is not None:
                # the lead's line a --print asked for prints too: pasted, it runs nothing
                running = hints.named("resume", refused.lead)
                printing = hints.named("resume", refused.lead, "--print")
                told = str(refused).replace(running, printing)
                raise ResumeRefused(told, refused.session, refused.lead) from None
            if not as_json or refused.session is None:
                raise
            # the plan a script asked for, with why there is none: as for any other
            # refusal, an object on stdout and 0 (an error prints nothing there)
            from ..views.records import dumps

            said(f"warning: {one_line(str(refused))}")
            record = api.refused_record(refused.session, str(refused))
            stdout_bytes(dumps(record) + b"\n")
            return
    if home_dir is not None and not _own_home(home_dir):
        if check.plan.opens_file:  # given the file itself: it opens the copy
            check.warnings.append(
                f"the session was read from {home_dir}, not your own home: "
                f"{check.plan.program} opens its file there and goes on writing "
                "into it."
            )
        else:  # the app's CLI knows nothing of that folder: it reads the user's own
            check.warnings.append(
                f"the session was read from {home_dir}, not your own home: "
                f"{check.plan.program} looks it up in your own home, where a session "
                "of another (copied) home is not."
            )
    for warning in check.warnings:
        said(f"note: {one_line(warning)}")
    if verbose:  # a line the app could not read may be what the plan lacks
        problems = api.read_problems(check.session)
        report_diagnostics(problems, True, check.session.app)
    if print_only and not as_json and check.other_program is not None:
        # a line a script pipes into its shell would run that other program with the
        # session's words: refused, as `resume` refuses it (--json still describes it)
        other = next(r for r in check.refusals if check.other_program in r)
        end = "" if other.endswith(".") else "."
        raise SessdexError(
            f"{other}{end} No line is printed that would run it; "
            "--json still describes the plan, with this refusal."
        )
    if print_only or as_json:
        for refusal in check.refusals:
            if not as_json and refusal == check.folder_refusal:
                continue  # the error below
            said(f"warning: {one_line(refusal)}")
        if check.branch_mismatch:
            said(f"warning: {_branch_moved(check.branch_mismatch, check)}")
        if check.live_pids:
            said(
                f"warning: a running {check.plan.program} (pid {', '.join(map(str, check.live_pids))}) has this session open."
            )
        if as_json:
            from .. import shells
            from ..errors import BadSetting
            from ..views.records import dumps

            try:
                shells.current()
            except BadSetting as bad:  # the user's own setting: said even to a log
                err(f"warning: {one_line(str(bad))} The plan's command is null.")
            record = check.record()
            if isinstance(warnings := record["warnings"], list):  # as --print says it
                record["warnings"] = [_with_id(str(w), session_id) for w in warnings]
            stdout_bytes(dumps(record) + b"\n")
        else:
            echo(_printable(check, session_id))
        if not as_json and check.folder_refusal is not None:
            # printed for a person to see, but its `cd` fails: 1, as `resume` refuses it,
            # so that a script stops before running the line
            # said first: the refusal may end with a line to run elsewhere, copied to
            # its end
            raise SessdexError(
                f"the printed line's cd would fail: {one_line(check.folder_refusal)}"
            )
        return
    if check.refusals:
        raise SessdexError(_refusals_said(check.refusals))
    if check.live_pids and not force:
        pids = ", ".join(map(str, check.live_pids))
        raise SessdexError(
            f"a running {check.plan.program} (pid {pids}) already has this session open; "
            "close it first, or use --force."
        )
    if check.branch_mismatch:
        message = _branch_moved(check.branch_mismatch, check)
        _warned_or_asked(message, "Resume on the current branch?", "anyway", yes)
    if not check.plan.cwd:  # a CLI that finds the session from any folder: it runs here
        # the agent will read and write in whatever folder the user is in: asked, as a
        # branch switch is, never done unsaid
        try:
            here = one_line(os.getcwd())
        except OSError:
            here = "the folder you are in"
        message = (
            f"the session's folder is unknown: {check.plan.program} would resume it "
            f"here, in {here}."
        )
        _warned_or_asked(message, "Resume it here?", "it here anyway", yes)
    try:  # the checks above may pass and the folder still refuse (gone since, no access)
        if check.plan.cwd:
            os.chdir(check.plan.cwd)
    except OSError as error:
        raise SessdexError(
            f"cannot enter the session's folder {one_line(check.plan.cwd)}: "
            f"{error.strerror or error}; sessdex never resumes elsewhere."
        ) from None
    shown = True  # the line, for the user to check (and run, if sessdex will not)
    try:
        err(f"$ {check.command}")
    except NotQuotable as why:  # sessdex runs it without a shell: only the echo goes
        from ..shells import run_here

        err(f"note: {run_here(str(why))}")
        shown = False
    program = check.cli_path or check.plan.argv[0]
    try:
        _run_instead(program, list(check.plan.argv), shown)
    except OSError as error:  # a broken install: not a program, or gone since the check
        from ..resuming import install_said

        raise SessdexError(
            f"could not run {one_line(program)}: {error.strerror or error}. "
            f"{install_said(check.plan, 'Reinstall')}"
        ) from None


def _printable(check: api.ResumeCheck, session_id: str) -> str:
    """The line `--print` writes; where the user's shell cannot be given it, the refusal
    names the `resume` that runs it without a shell with this session's id (the quoting
    rules, which raise it, know no session: they said a bare `sessdex resume`)."""
    try:
        return check.command
    except NotQuotable as why:
        raise NotQuotable(_with_id(str(why), session_id)) from None


def _with_id(said: str, session_id: str) -> str:
    """A refusal to quote the line with the `resume` it names given the session's id:
    the quoting rules know no session, and a bare `sessdex resume` is a usage error."""
    return said.replace(hints.named("resume"), hints.named("resume", session_id))


def _unsaid(_message: str) -> None:
    """Nothing said: what `--json` already holds, for a script."""


def _refusals_said(refusals: list[str]) -> str:
    """The refusals as sentences: one may end with a line to paste in backticks, which
    run into the next refusal's words read as one line. Only that one is ended: a dot
    after a bare command (an install hint's) would be copied with it."""
    return " ".join(f"{r}." if r.endswith("`") else r for r in refusals)


def _branch_moved(mismatch: tuple[str, str], check: api.ResumeCheck) -> str:
    """What `resume` says, run or printed, of a folder now on another branch than the
    session's: which branch each is on, the folder named, and that none is switched;
    where the session's branch is a local one there, the `git switch` the user may run,
    or where another worktree has it checked out, that worktree."""
    from .. import shells
    from ..errors import BadSetting
    from ..views.text import one_line

    recorded, current = mismatch
    folder = check.plan.cwd
    where = one_line(folder) if folder else "the folder"
    said = (
        f"the session was on {_on(recorded)} but {where} is on {_on(current)} now. "
        "sessdex never switches branches."
    )
    worktree = check.branch_worktree
    if worktree:  # git switch refuses a branch another worktree has checked out
        session = f"The session's branch {one_line(recorded)!r}"
        return f"{said} {session} is checked out in {one_line(worktree)}."
    if worktree is None or not folder:
        return said
    try:
        # a name the session file gave: one that starts with `-` (a ref `git update-ref`
        # made) would be read as an option, after `--` it is the branch
        dashes = ["--"] if recorded.startswith("-") else []
        switch = shells.run(["git", "-C", folder, "switch", *dashes, recorded])
    except (NotQuotable, BadSetting):  # the branch is named above; the user types it
        return said
    return f"{said} To go on with it there: {hints.pasted(switch)}"


def _on(branch: str) -> str:
    """`branch 'main'`, or what git's `HEAD` there stands for: no branch checked out (a
    commit checked out by itself: a bisect, a CI checkout), as apps record it too."""
    from ..views.text import one_line

    if branch == "HEAD":
        return "a detached HEAD (no branch)"
    return f"branch {one_line(branch)!r}"


def _warned_or_asked(message: str, question: str, anyway: str, yes: bool) -> None:
    """Say `message` on stderr; without --yes, ask `question` first on a terminal, and
    refuse where nobody can answer (piped)."""
    if not yes:
        if not sys.stdin.isatty():
            # a line to paste in backticks is ended, as `_refusals_said` ends one
            ended = f"{message}." if message.endswith("`") else message
            raise SessdexError(f"{ended} Use --yes to resume {anyway}.")
        err(f"warning: {message}")
        if not _confirmed(question):
            raise SessdexError("resume cancelled.")
    else:
        err(f"warning: {message}")


def _confirmed(question: str) -> bool:
    """`click.confirm` on stderr, whose Abort is told apart: Ctrl-C goes on to
    `fail_nicely` (killed by SIGINT, quietly, as at any other moment) and the end of
    the input (Ctrl-D) is a no. click said "Aborted!" and exited 1 for both, so a
    shell loop around sessdex went on after a Ctrl-C."""
    try:
        return click.confirm(question, default=False, err=True)
    except click.Abort as abort:
        # raised "from None": what it stands for is its context
        if isinstance(abort.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        err("")  # the prompt's line ended
        return False


def _own_home(folder: str) -> bool:
    """Whether `--home` names the user's own home, the one the apps' CLIs read."""
    try:
        return os.path.samefile(os.path.expanduser(folder), os.path.expanduser("~"))
    except OSError:
        return False


# what cmd.exe acts on in a batch file's command line, whatever quotes Python puts round
# a word (`&` starts another command, `%` expands a variable)
# `doctor` names up to this many files whose last line is unfinished; more, -v names them
UNFINISHED_NAMED = 3
_CMD_SPECIAL = frozenset('"%!^&|<>()\r\n')


def _refuse_cmd_words(program: str, words: list[str], shown: bool) -> None:
    """A word from the session's files that cmd.exe would act on is no argument: refuse.
    `shown`: the line was printed above (`$ …`), for the user to check and run."""
    from ..views.text import one_line

    for word in words:
        if not _CMD_SPECIAL.isdisjoint(word):
            raise SessdexError(
                f"not running {os.path.basename(program)}: cmd.exe, which runs it, would "
                f"act on a character in {one_line(word)!r}, taken from the session's "
                "files. "
                + (
                    "Check the line shown above ($ ...) and run it yourself."
                    if shown
                    else "No line typed into a shell can run it either (the note above)."
                )
            )


def _run_instead(program: str, argv: list[str], shown: bool = True) -> None:
    """Become `program`: exec it on POSIX. Windows has no exec: os.execvp starts the
    program and exits at once, so the shell prompts again while the CLI reads the same
    console (python/cpython#101191); there sessdex waits for it and exits with its status."""
    if sys.platform != "win32":
        os.execvp(program, argv)
    if program.lower().endswith((".cmd", ".bat")):  # npm's shims: cmd.exe runs them
        _refuse_cmd_words(program, argv[1:], shown)
    import subprocess

    process = subprocess.Popen([program, *argv[1:]])
    while True:
        try:
            raise SystemExit(process.wait())
        except KeyboardInterrupt:  # Ctrl-C reaches both; the CLI decides
            continue


def _refuse_app_options(apps: tuple[str, ...], deep: bool) -> None:
    """`doctor --own` with `--app` or `--deep`, which only a reading of the apps uses:
    refused (exit 2), an unknown app said as `doctor` alone says it, rather than left
    out of a report that then reads as their check."""
    from .. import sources

    for app in apps:
        sources.get(app)  # UnknownApp, with the name meant
    given = ["--deep"] * deep + [word for app in apps for word in ("--app", app)]
    if given:
        said = " and ".join(dict.fromkeys(w for w in given if w.startswith("--")))
        does = "do" if " and " in said else "does"
        raise click.UsageError(
            f"--own reads no app, so {said} {does} not apply; "
            f"{hints.named('doctor', *given)} reads the apps."
        )


@main.command(
    "doctor",
    cls=TakesNoWords,
    context_settings=CONTEXT,
    short_help="Show where sessdex looked per app, what it found and skipped.",
)
@apps_option
@click.option(
    "--deep",
    is_flag=True,
    help="Also read every transcript, counting the record types and lines it could not "
    "read anywhere in them (listing reads only their ends). Slower.",
)
@click.option(
    "--own",
    is_flag=True,
    help="Show only sessdex's own files (where its index and snapshots are, what they "
    "weigh, how many sessions the index holds), as they are: no app is read.",
)
@output_options_or_object("--own")
@home_option
@fail_nicely
def doctor_command(
    apps: tuple[str, ...],
    deep: bool,
    own: bool,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Show, per app, where sessdex looked, what it found and what it could not read.

    \b
    Examples:
      sessdex doctor --json
      sessdex doctor --deep --app claude --verbose
      sessdex doctor --own --json
    """
    from ..views.records import dumps

    if own:
        _refuse_app_options(apps, deep)
        files = api.own_files(resolve_home(home_dir))
        if as_json or as_nl:  # one object either way
            stdout_bytes(dumps(files.record()) + b"\n")
        else:
            _say_own_files(files)
        return
    with progress_bar("Indexing sessions") as progress:  # one bar: two would fight
        reports = api.doctor(
            resolve_home(home_dir),
            apps,
            progress,
            read_all=deep,
            read_progress=progress.phase("Reading transcripts"),
        )
    if as_json:
        stdout_bytes(dumps([r.record() for r in reports]) + b"\n")
        return
    if as_nl:
        stdout_bytes(b"".join(dumps(r.record()) + b"\n" for r in reports))
        return
    from ..checkup import checked_briefly
    from ..views.text import flat, terminal_width

    width = terminal_width()

    def say(line: str, hang: int | None = None) -> None:
        # versions, types, paths and problems come from files: a newline in them
        # starts no line
        for part in _fitted(flat(line), width, hang):
            echo(part)

    # an app not found, with nothing more to say, takes one line of a list at the end: a
    # first run read ~60 lines of folders and versions checked for apps not installed
    folded = [] if verbose else [r for r in reports if _nothing_to_say(r)]
    for r in reports:
        if r in folded:
            continue
        state = (
            ("1 session" if r.sessions == 1 else f"{r.sessions} sessions")
            + (
                f" ({r.sessions - r.subagents} lead{_s(r.sessions - r.subagents)}, "
                f"{r.subagents} sub-agent{_s(r.subagents)})"
                if r.subagents
                else ""
            )
            if r.exists
            else "not found"
        )
        say(f"{_heading(r.title, r.app)}: {state}")
        looked = r.looked or (r.root or "?",)
        say(
            f"  looked in   {looked[0]}"
            + (f"  (from {r.override})" if r.override else "")
        )
        for place in looked[1:]:
            say(f"  and in      {place}")
        for folder in r.also:
            say(f"  and in      {folder}")
        if not r.exists and home_dir is None and (named := _variables(r)):
            say(f"  variables   {', '.join(named)} (for a folder kept elsewhere)")
        checked = r.checked_with
        if not verbose and (brief := checked_briefly(r)) != checked:
            checked = f"{brief} (-v: in full)"  # the provenance ran to 700 characters
        say(f"  checked     {checked}")
        if r.versions:
            seen = ", ".join(f"{v} ({n})" for v, n in r.versions.items())
            say(f"  versions    {seen}")
        if r.newer:
            newer = ", ".join(f"{v} ({n})" for v, n in r.newer.items())
            say(
                f"  newer than checked: {newer}: what sessdex does not know of them is "
                f"under `unknown` ({hints.named('doctor', '--deep')} reads them all)"
            )
        if r.diagnostics.skipped:
            say(
                "  skipped     "
                + ", ".join(
                    f"{n} {why}" for why, n in sorted(r.diagnostics.skipped.items())
                )
                + " (-v names the files and lines)" * (not verbose)
            )
        if r.diagnostics.damaged:  # read and shown: no line of them was lost
            say(
                "  damaged     "
                + ", ".join(
                    f"{n} {why}" for why, n in sorted(r.diagnostics.damaged.items())
                )
                + " (-v names the files and lines)" * (not verbose)
            )
        if r.diagnostics.unknown:
            say(
                "  unknown     "
                + ", ".join(
                    f"{t} ({n})" for t, n in sorted(r.diagnostics.unknown.items())
                )
            )
        if r.diagnostics.passed_over:
            say(
                "  passed over "
                + ", ".join(
                    f"{what} ({n})"
                    for what, n in sorted(r.diagnostics.passed_over.items())
                )
                + " (-v names them)" * (not verbose)
            )
        for problem in r.diagnostics.problems:
            say(f"  problem     {problem}")
        for note in r.notes:
            say(f"  note        {note}")
        cut = r.diagnostics.unfinished_notes()
        if len(cut) > UNFINISHED_NAMED and not verbose:  # crashes leave them for good
            said = unfinished_files(len(cut))
            say(f"  note        {said} (-v names them)")
        else:
            for note in cut:
                say(f"  note        {note}")
        if verbose:
            for path, line, reason in r.diagnostics.details:
                say(f"    {detail(path, line, reason)}")
    if folded:
        _say_not_found(say, folded, with_variables=home_dir is None, terminal=width)
    _say_own_files(api.own_files(resolve_home(home_dir)))


def _say_own_files(own: api.OwnFiles) -> None:
    """doctor's last section: where sessdex's own files are and what they weigh."""
    from ..files import human_bytes
    from ..views.text import flat, terminal_width

    width = terminal_width()

    def say(line: str) -> None:
        for part in _fitted(flat(line), width, None):
            echo(part)

    say(f"sessdex's own files (rebuildable; delete them any time): {own.folder}")
    if own.problem is not None:
        kept = (
            f"the index is kept in {os.path.dirname(own.index)}, which the system may "
            "clear; the rest lasts this run only"
            if own.index_kept
            else "a temporary index and the rest last this run only"
        )
        say(
            f"  problem     it cannot be written ({own.problem}): {kept}; set "
            "SESSDEX_HOME to a writable folder"
        )
    held = "1 session" if own.index_sessions == 1 else f"{own.index_sessions} sessions"
    say(f"  index       {human_bytes(own.index_bytes)}, {held}  {own.index}")
    also = []
    if own.other_indexes:
        also.append(
            f"the indexes of {count_of(own.other_indexes, 'other home')} (--home, other folder "
            "overrides), removed after four weeks unused"
        )
    if own.other_builds:  # an upgrade's index of this home too: not another home
        also.append(
            f"{count_of(own.other_builds, 'index', 'indexes')} other builds of sessdex wrote, removed after "
            "a week unused"
        )
    if also:
        say(f"  also        {human_bytes(own.other_index_bytes)}  {'; '.join(also)}")
    if own.snapshots:
        say(
            f"  snapshots   {human_bytes(own.snapshot_bytes)}  copies of "
            f"{count_of(own.snapshots, 'database')} apps keep in WAL mode, removed after a "
            "week unused"
        )
    if own.passes:
        say(
            f"  passes      {human_bytes(own.pass_bytes)}  what a first read of "
            f"{count_of(own.passes, 'big transcript')} found, so that the next reads only what "
            "was added; removed after a week unused"
        )


# where a doctor line's value starts: after "  looked in   ", "  problem     " and the like
VALUE_COLUMN = 14
# the least room a value wraps in under its start; with less, it wraps 4 columns in
NARROW_VALUE = 30


def _fitted(line: str, width: int, hang: int | None = None) -> list[str]:
    """`line` broken at spaces to fit `width`, each further part starting `hang` columns
    in (by default under the value of a labelled line), so the labels still stand out
    on a narrow terminal; where that leaves under NARROW_VALUE columns (40 in all), 4
    columns in. A path longer than the width stays whole, on the label's line
    where it starts there: cut, it would not be copied right. Measured in terminal
    columns (a CJK character takes two)."""
    from ..views.text import cells

    if cells(line) <= width:
        return [line]
    if hang is None:
        hang = VALUE_COLUMN if line.startswith("  ") else 4
    label = hang  # a word is never put under its label alone: a path stays beside it
    if width - hang < NARROW_VALUE:  # 40 columns: a value 26 wide took a line a word
        hang = min(hang, 4)
    parts: list[str] = []
    current, *words = line.split(" ")  # "" for each space past the first: alignment
    for word in words:
        if word and cells(current) + 1 + cells(word) > width and len(current) > label:
            head, _, last = current.rpartition(" ")
            # "9 leads", "2.1.220 (4)": a count stays on one line with what it counts
            if (_count(last) or _counted(word)) and len(head.rstrip()) > label:
                parts.append(head.rstrip())
                current = " " * hang + f"{last} {word}"
                continue
            parts.append(current.rstrip())
            current = " " * hang + word
        else:
            current = f"{current} {word}"
    return [*parts, current.rstrip()]


def _count(word: str) -> bool:
    """Whether `word` is a count ("153", "(9"), which a wrapped line keeps with the word
    after it, its noun."""
    number = word.lstrip("(")
    return number.isascii() and number.isdigit()


def _counted(word: str) -> bool:
    """Whether `word` is a count in brackets ("(4)", "(4),"), which a wrapped line keeps
    with the word before it, what it counts."""
    inner = word.rstrip(",;")
    return inner.startswith("(") and inner.endswith(")") and _count(inner[:-1])


def _s(count: int) -> str:
    """The plural's `s`, for a count other than one."""
    return "" if count == 1 else "s"


def _heading(title: str, app: str) -> str:
    """An app's doctor heading, 'Claude Code (claude)': a title with a parenthesis of
    its own takes the app's name into it, 'Cline (cline, VS Code extension and CLI)',
    rather than a second one beside it."""
    name, bracket, said = title.partition(" (")
    if bracket and said.endswith(")") and "(" not in said:
        return f"{name} ({app}, {said}"
    return f"{title} ({app})"


def _nothing_to_say(report: api.AppReport) -> bool:
    """An app whose folder is not there and that left nothing to report (a folder a
    variable named is shown in full, with the variable)."""
    d = report.diagnostics
    return not (
        report.exists
        or report.override
        or report.sessions
        or report.root is None
        or report.also
        or report.versions
        or report.notes
        or d.skipped
        or d.damaged
        or d.unknown
        or d.passed_over
        or d.problems
    )


def _variables(report: api.AppReport) -> list[str]:
    """The variables that point the app, and sessdex, at a folder kept elsewhere (HOME
    aside: another home is `--home`)."""
    return [name for name in report.env_vars if name != "HOME"]


def _say_not_found(
    say: Callable[[str, int | None], None],
    reports: list[api.AppReport],
    with_variables: bool,
    terminal: int,
) -> None:
    """The apps not found, one line each: where sessdex looked and, as the apps' own
    variables are read from the environment (not with --home), which of them point it
    at a folder kept elsewhere."""
    apps = "1 app" if len(reports) == 1 else f"{len(reports)} apps"
    say(
        f"Not found ({apps}; -v shows each in full): where sessdex looked"
        + (", and the variables for a folder kept elsewhere" if with_variables else ""),
        2,
    )
    width = max(len(r.app) for r in reports)
    places = [(r.looked or (r.root or "?",))[0] for r in reports]
    room = min(max(len(p) for p in places), 48)
    column = width + room + 6
    roomy = column + 24 <= terminal
    for r, place in zip(reports, places, strict=True):
        named = _variables(r)
        line = f"  {r.app.ljust(width)}  {place}"
        if with_variables and named and not roomy:
            # a narrow terminal (80 columns): the variables on a line of their own under
            # the path; after it, its padding wrapped them anywhere, a ragged column
            say(line, width + 4)
            say(" " * (width + 4) + ", ".join(named), width + 4)
            continue
        if with_variables and named:
            line = f"{line.ljust(width + room + 4)}  {', '.join(named)}"
        # more variables go under the first, or under the path where that leaves
        # too little room
        say(line, column if roomy else width + 4)


@main.command("demo", context_settings=CONTEXT)
# taken only to say what to do instead: a newcomer gives demo the --home every other
# command takes, and click's "No such option '--home'. Did you mean '--help'?" helps no one
@click.option("--home", "given_home", hidden=True, metavar="DIR")
@fail_nicely
def demo_command(given_home: str | None) -> None:
    """Show what sessdex does, on a small demo home shipped with it.

    Runs `list`, `find` and `resume --print` against the demo home; each command
    is printed with the --home that reads it, so that it runs as printed.

    \b
    Example: sessdex demo
    """
    from ..views.text import coloured

    home = api.demo_home()
    if given_home is not None:
        raise click.UsageError(
            "demo reads the demo home shipped with sessdex, not a --home: "
            f"{hints.named('list', '--home', given_home)} lists that folder's sessions, "
            f"and {hints.named('list', '--home', str(home.path))} (or any other command "
            "given that --home) reads the demo home."
        )
    listing = api.list_sessions(home)
    styled = coloured(sys.stdout)
    program = hints.run_as()

    def command(*args: str) -> None:
        # with the demo's --home: copied without it, a line read the user's own home
        line = "$ " + _demo_line(program, [*args, "--home", str(home.path)])
        echo(click.style(line, bold=True) if styled else line, styled=styled)

    command("list")
    print_rows(listing, False, False, home)
    echo()
    command("find", "checkout")
    print_rows(api.find_sessions(home, "checkout"), False, False, home)
    if listing.rows:
        first = listing.rows[0]
        echo()
        command("resume", first.id[:8], "--print")
        check = api.check_resume(home, first.id)
        for warning in check.warnings:
            err(f"note: {warning}")
        echo(check.command)
        if check.refusals:  # the demo's folders are not on this machine: said, not met
            err(
                "note: run as printed, it exits 1 on this machine, where resume would "
                f"refuse it: {_refusals_said(check.refusals)}"
            )
    echo()
    own = _demo_line(program, ["list"])
    # in backticks where the line quotes the path it names: quotes in quotes misread
    said = f"'{own}'" if "'" not in own else hints.pasted(own)
    echo(f"(the demo home, read with --home; run {said} for your own sessions)")


def _demo_line(program: list[str], words: list[str]) -> str:
    """The line that runs sessdex (`program`, as `_as_run` names it) with `words` in the
    user's shell, each word quoted for it (an escape in the path it was run by written
    as the shell reads it, never raw; a quoted program run by PowerShell's `&`);
    `sessdex` named where that shell cannot be given the path, or is one sessdex does
    not know."""
    from ..errors import BadSetting, NotQuotable
    from ..shells import run
    from ..views.text import one_line

    try:
        return run([*program, *words])
    except (NotQuotable, BadSetting):
        import shlex

        return one_line(shlex.join(["sessdex", *words]))
