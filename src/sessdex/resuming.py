"""Resuming a session: the command its app reopens it with, and the checks run before
it (the folder, the branch, the program on PATH, a CLI that has it open already).

sessdex only builds and checks the command; the CLI's `resume` runs it. Nothing here
names an app: each adapter says what its command is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from . import folders, hints, pathnames, sources
from .errors import BadSetting, NotQuotable, ResumeRefused
from .index import Index, Progress, once_more_if_damaged
from .indexfile import rehomed
from .model import ResumePlan, Session
from .resolving import resolve
from .sources import Home

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess


@dataclass(slots=True)
class ResumeCheck:
    """A resume plan and what its preflight found."""

    session: Session
    plan: ResumePlan
    refusals: list[str] = field(
        default_factory=list
    )  # reasons not to run it (unless forced)
    warnings: list[str] = field(default_factory=list)
    branch_mismatch: tuple[str, str] | None = None  # (recorded, current)
    # where the recorded branch, a local branch of the folder, is checked out: "" in no
    # worktree (the user may switch to it), None where the folder has no such branch
    branch_worktree: str | None = None
    live_pids: list[int] = field(default_factory=list)
    cli_path: str | None = None
    # the program of the plan's name on PATH where it is another (pressly's `goose`)
    other_program: str | None = None
    # why the plan's folder cannot be entered (gone, a file, closed): its `cd` would fail
    folder_refusal: str | None = None

    @property
    def command(self) -> str:
        """The line a person can paste into their shell (`shells.current`): every path
        and id quoted. Raises NotQuotable where that shell cannot be given a word."""
        from . import shells

        if not self.plan.cwd:  # an app that finds the session from any folder
            return shells.run(self.plan.argv)
        return shells.cd_then_run(self.plan.cwd, self.plan.argv)

    def record(self) -> dict[str, object]:
        """The plan as `resume --json` prints it: what to run, where, and what stands in
        the way (`refusals`: reasons `resume` would not run it)."""
        mismatch = self.branch_mismatch
        warnings = list(self.warnings)
        try:
            command: str | None = self.command
        # argv and cwd need no shell: still there, for a script to run
        except (NotQuotable, BadSetting) as why:
            command = None
            warnings.append(str(why))
        return {
            "app": self.session.app,
            "id": self.session.id,
            "cwd": self.plan.cwd or None,  # none: the CLI finds it from any folder
            "argv": list(self.plan.argv),
            "command": command,
            "cli_path": self.cli_path,
            "warnings": warnings,
            "refusals": list(self.refusals),
            "branch_mismatch": {"recorded": mismatch[0], "current": mismatch[1]}
            if mismatch
            else None,
            "live_pids": list(self.live_pids),
        }


def refused_record(session: Session, refusal: str) -> dict[str, object]:
    """`resume --json`'s object for a session resume has no command for at all (a
    sub-agent, an app without one): the keys of `ResumeCheck.record`, `argv` and
    `command` null, and why in `refusals`."""
    return {
        "app": session.app,
        "id": session.id,
        "cwd": session.cwd,
        "argv": None,
        "command": None,
        "cli_path": None,
        "warnings": [],
        "refusals": [refusal],
        "branch_mismatch": None,
        "live_pids": [],
    }


def resumes_anywhere(source: sources.Source) -> bool:
    """Whether the app's CLI finds a session by its id from any folder (one database or
    folder for every project), rather than only from the folder the session ran in (a
    store per project, found from the folder it is started in): an adapter says so with
    `RESUMES_ANYWHERE = True`."""
    return getattr(source, "RESUMES_ANYWHERE", False) is True


def _no_folder(source: sources.Source) -> str:
    """Why a session that recorded no folder is not resumed by an app whose CLI finds a
    session only from the folder it ran in, and what the user can do."""
    return (
        f"{source.TITLE} recorded no folder for this session, and its CLI finds a "
        "session only from the folder the session ran in, which sessdex cannot tell; "
        "go to that folder and resume it there with the app."
    )


def _guessed(plan: ResumePlan) -> str:
    """The folder an adapter guessed for a session that recorded none, offered as a line
    for the user to paste where it is right, never run: "" where it guessed none (or
    that shell cannot be given the words, or is one sessdex does not know, or a word
    holds a NUL)."""
    from .shells import cd_then_run

    if not plan.cwd or not os.path.isabs(plan.cwd):  # "." is no guess, only "here"
        return ""
    if _holds_nul(plan):  # a shell's `cd` would stop at the NUL: another folder
        return ""
    try:
        line = cd_then_run(plan.cwd, plan.argv)
    except (NotQuotable, BadSetting):  # an unknown SESSDEX_SHELL: refused all the same
        return ""
    return (
        " sessdex guessed a folder from what the session holds, and resumes nothing on "
        f"a guess; if it is the right one, this resumes it there: {hints.pasted(line)}"
    )


def _runs_here(source: sources.Source, plan: ResumePlan) -> str:
    """The note on a command for a session that recorded no folder, which the app's CLI
    finds from any folder: it runs where the user is."""
    return (
        f"{source.TITLE} recorded no folder for this session; {plan.program} finds it "
        "from any folder, so the command has no `cd` and runs in the folder you are in"
    )


@once_more_if_damaged
def _root_of(home: Home, session: Session) -> str | None:
    """The id at the top of a sub-agent's chain of parents, as far as the index knows
    them: a sub-agent another sub-agent started names that one as its parent, which
    `resume` refuses as well. The walk is bounded and stops at a loop."""
    parent = session.parent_id
    if parent is None:
        return None
    seen = {session.id}
    index = Index(home)
    try:
        while parent not in seen and len(seen) < 64:
            seen.add(parent)
            rows = [r for r in index.by_prefix(parent, session.app) if r.id == parent]
            above = rows[0].session().parent_id if len(rows) == 1 else None
            if above is None:
                break
            parent = above
    finally:
        index.close()
    return parent


def _why_not_resumable(
    source: sources.Source, session: Session, root: str | None = None
) -> str:
    """Why the app gives no resume command for this session, as far as sessdex can tell:
    a sub-agent (its app resumes the lead: `root`, else its parent), a session whose
    folder was never recorded, or an app with no such command at all. The adapter is
    asked what it would do with a lead session that has a folder, so nothing here knows
    an app by name."""
    from .views.text import one_line

    refusal = getattr(source, "resume_refusal", None)
    if callable(refusal) and (reason := refusal(session)):
        return str(reason)
    lead_like = replace(session, parent_id=None, cwd=session.cwd or os.sep)
    resumable = source.resume(lead_like) is not None
    if not resumable and session.parent_id:
        # an adapter may know a sub-agent by where its file lies (a `subagents/` folder)
        resumable = source.resume(replace(lead_like, path=None)) is not None
    if resumable:
        if session.parent_id:
            lead = root or session.parent_id
            which = "that started it" if lead == session.parent_id else "it ran under"
            told = f"{hints.id_typed(session.id)} is a sub-agent's session; resume the session {which}"
            target = f"{session.app}:{lead}"
            try:
                hints.line("resume", target)
            except NotQuotable:  # cmd.exe: the id alone, to type as the user can
                return f"{told} ({session.app}:{one_line(lead)})."
            return f"{told}: {hints.named('resume', target)}."
        if not session.cwd:
            return _no_folder(source)
    where = f" (it ran in {one_line(session.cwd)})" if session.cwd else ""
    return (
        f"{source.TITLE} has no command to resume a session from the command line; "
        f"open it in the app itself{where}."
    )


def check_resume(
    home: Home,
    prefix: str,
    *,
    keep_permissions: bool = False,
    progress: Progress | None = None,
) -> ResumeCheck:
    """Build the resume command for a session and run every preflight check on it:
    what would stop `sessdex resume` is in `.refusals`. Raises ResumeRefused where the
    app has no command for the session, and what `resolve` raises."""
    session = resolve(home, prefix, progress=progress)
    source = sources.get(session.app)
    if session.id.startswith("-"):
        raise ResumeRefused(
            f"the session's id {session.id!r} would read as an option; resume it in the app.",
            session,
        )
    session, dropped = _argument_safe(session)
    plan = source.resume(session, keep_permissions=keep_permissions)
    if plan is None:
        root = _root_of(home, session)
        lead = f"{session.app}:{root}" if session.parent_id else None
        raise ResumeRefused(_why_not_resumable(source, session, root), session, lead)
    if not session.cwd:
        # one rule for every app: no folder to enter, so either the app's CLI finds the
        # session from wherever the user is (a line with no `cd`) or it is refused
        if not resumes_anywhere(source):
            raise ResumeRefused(_no_folder(source) + _guessed(plan), session)
        plan = replace(plan, cwd="", notes=(*plan.notes, _runs_here(source, plan)))
    if _holds_nul(plan):
        raise ResumeRefused(
            "the session's recorded folder or id holds a NUL byte, which no command "
            "can pass (a shell would cut the folder short and resume elsewhere); "
            "open it in the app.",
            session,
        )
    check = ResumeCheck(session, plan)
    check.warnings.extend(dropped)
    check.warnings.extend(plan.notes)
    keep = hints.flag("keep_permissions")
    check.warnings.extend(
        f"left out {item} (looser than the CLI's default; {keep} keeps it)"
        for item in plan.withheld
    )
    if plan.restores_looser and plan.looser_unsure:
        check.refusals.append(
            f"{plan.program} may reopen this session at the {plan.restores_looser}, "
            f"looser than its default, and no flag lowers it: {plan.looser_unsure}; "
            f"{keep} resumes it as it was left."
        )
    elif plan.restores_looser:
        check.refusals.append(
            f"{plan.program} reopens this session at the {plan.restores_looser} it was "
            f"left at, looser than its default, and no flag lowers it; {keep} resumes "
            "it so (or lower it in the app after a resume of your own)."
        )
    if not plan.cwd:
        pass  # no folder to check: the CLI finds the session from any folder
    elif not os.path.isabs(plan.cwd) or not os.path.isdir(plan.cwd):
        # a file where the folder was is not a folder that "exists", nor is a Windows
        # folder read from a copied home here, nor a relative one (`shop`), which would
        # be looked for below wherever the user is: say which it is
        gone = (
            "is a Windows folder, not on this machine"
            if os.sep == "/" and pathnames.is_windows(plan.cwd)
            else "is no full path (it would be taken from the folder you are in)"
            if plan.cwd and not os.path.isabs(plan.cwd)
            else "is a file now"
            if os.path.lexists(plan.cwd)
            # below a folder closed to the user (chmod 000, left by `sudo`): it may be
            # there, and opening that folder again brings it back
            else "may not be entered (permission denied): a folder above it is closed to you"
            if folders.shut_out(plan.cwd)
            else "no longer exists"
        )
        refusal = f"the session's folder {plan.cwd or '(unknown)'} {gone}; sessdex never resumes elsewhere."  # fmt: skip
        if gone == "no longer exists":
            refusal += _moved_hint(home, session, source, plan) or _gone_hint(
                source, plan
            )
        elif gone == "is a file now":  # what to do is the same, the file moved first
            refusal += _gone_hint(source, plan, put="Move the file away and put")
        check.folder_refusal = refusal
        check.refusals.append(refusal)
    elif not os.access(plan.cwd, os.X_OK):
        check.folder_refusal = (
            f"the session's folder {plan.cwd} cannot be entered (no permission); "
            "sessdex never resumes elsewhere."
        )
        check.refusals.append(check.folder_refusal)
    elif session.branch:
        import time

        deadline = time.monotonic() + GIT_BUDGET_S  # both look-ups' time, together
        current, problem = branch_check(plan.cwd, deadline)
        if current is not None and current != session.branch:
            check.branch_mismatch = (session.branch, current)
            check.branch_worktree = branch_worktree(plan.cwd, session.branch, deadline)
        elif current is None:  # said either way: the branch was recorded, not checked
            check.warnings.append(
                f"could not check that {plan.cwd} is still on branch "
                f"{session.branch!r}: {problem or 'it is no longer a git repository'}"
            )
    find = getattr(source, "resume_program", None)
    if callable(find):
        check.plan, check.cli_path = find(plan)
        # what the adapter found out about the program on PATH, said as the plan's notes are
        check.warnings.extend(n for n in check.plan.notes if n not in plan.notes)
        plan = check.plan
    else:
        check.cli_path = shutil.which(plan.program)
    if check.cli_path is not None:
        # a relative PATH entry (`tools`) names a program below the folder sessdex
        # runs in now: the one checked, not the one below the session's folder
        check.cli_path = os.path.abspath(check.cli_path)
    if check.cli_path is None:
        other = shutil.which(plan.program)
        check.other_program = other
        check.refusals.append(
            f"the '{plan.program}' on PATH ({other}) is another program, not the one "
            f"{source.TITLE} installs. {install_said(plan)}"
            if other
            else f"'{plan.program}' is not on PATH. {install_said(plan)}"
        )
    check.live_pids = live_processes(
        plan.program,
        session.id,
        plan.process_names,
        source,
        lambda start: ids_starting(home, session.app, start),
    ) or _continuing(home, session, plan, source, progress)
    return check


def install_said(plan: ResumePlan, verb: str = "Install") -> str:
    """How to install the plan's program: its command in backticks, so that a narrow
    terminal keeps it one line to paste (`views.text.broken`), and the app's note beside
    it (another way; or, where the app has no command, the note alone)."""
    note = plan.install_note
    if not plan.install_hint:
        return note[:1].upper() + note[1:]
    said = f"{verb} it with: {hints.pasted(plan.install_hint)}"
    return f"{said} ({note})" if note else said


def _moved_hint(
    home: Home, session: Session, source: sources.Source, plan: ResumePlan
) -> str:
    """Where the project of a session whose folder is gone may have moved (`_moved_to`),
    and how to resume it there, for the user to do: the line to paste where the app's CLI
    finds the session from any folder, else that it finds it only from the old folder.
    The branch there is said, never switched; "" when no such folder is known."""
    from .shells import cd_then_run

    moved = _moved_to(home, session, plan.cwd)
    if moved is None:
        return ""
    said = (
        f" A folder of the same name, {moved}, holds newer sessions: the project may "
        "have moved there"
    )
    current = current_branch(moved) if session.branch else None
    if current is not None and current != session.branch:
        said += (
            f" (on branch {current!r} now, the session's was {session.branch!r}: "
            "check it out first to go on with it)"
        )
    if not resumes_anywhere(source):
        return (
            f"{said}. {source.TITLE} finds a session only from the folder it ran in: "
            f"move the project back to {plan.cwd} to resume it."
        )
    if plan.restores_looser:  # the line would reopen it so, unasked
        return f"{said}; {_elsewhere_kept(plan)}."
    try:
        line = cd_then_run(moved, plan.argv)
    except (NotQuotable, BadSetting):  # the folder is said; the user types the rest
        return f"{said}."
    return f"{said}. {plan.program} finds the session from any folder; to resume it there: {hints.pasted(line)}"  # fmt: skip


def _gone_hint(source: sources.Source, plan: ResumePlan, put: str = "Put") -> str:
    """What the user can do about a session whose folder is gone and went nowhere sessdex
    knows of (or a file stands there: `put` says to move it first): put it back, or,
    where the app's CLI finds the session from any folder, run the line without its `cd`
    in a folder of their choosing (never done for them)."""
    from .shells import run

    back = f" {put} the project back at {plan.cwd} (restore or clone it there) to resume it"  # fmt: skip
    if not resumes_anywhere(source):
        return f"{back}: {source.TITLE} finds a session only from the folder it ran in."
    if plan.restores_looser:  # the line would reopen it so, unasked
        return f"{back}, or {_elsewhere_kept(plan)}."
    try:
        line = run(plan.argv)
    except (NotQuotable, BadSetting):  # the way is said; the user types the line
        return f"{back}, or run {plan.program} in the folder you choose."
    return (
        f"{back}, or, to go on with it in another folder, run this there "
        f"({plan.program} finds the session from any folder): {hints.pasted(line)}"
    )


def _elsewhere_kept(plan: ResumePlan) -> str:
    """Where the app would reopen the session looser than its default (refused): the
    line to run elsewhere is given only once the user asks for that, with its flag."""
    keep = hints.flag("keep_permissions")
    return (
        f"add {keep} for the line that resumes it in another folder at the "
        f"{plan.restores_looser} ({plan.program} finds the session from any folder)"
    )


@once_more_if_damaged
def _moved_to(home: Home, session: Session, gone: str) -> str | None:
    """The newest folder that exists, of the same name as the session's gone one, where
    sessions newer than it ran (any app's): a project moved or renamed above its own
    folder (`~/code/shop` to `~/work/shop`) goes on there. None when there is none."""
    name = os.path.basename(gone.rstrip("/"))
    if not name or not gone.startswith("/"):
        return None
    after = session.updated.timestamp() if session.updated else None
    index = Index(home)
    try:
        named = index.folders_named(name)
    finally:
        index.close()
    for folder, updated in named:  # newest first
        if after is not None and updated <= after:
            break
        if folder != gone and os.path.isdir(folder):
            return folder
    return None


def ids_starting(home: Home, app: str, start: str) -> list[str]:
    """The ids of `app`'s sessions in the index (of every age) that start with `start`:
    more than one, and a CLI given that start has none of them open by it."""
    index = Index(home)
    try:
        return [row.id for row in index.by_prefix(start, app, limit=20)]
    finally:
        index.close()


def _continuing(
    home: Home,
    session: Session,
    plan: ResumePlan,
    source: sources.Source,
    progress: Progress | None = None,
) -> list[int]:
    """Processes of the app's CLI in `session`'s folder that continue its latest session
    (`--continue`, as the source reads its words), where that is `session`: the newest
    there when the process started (one begun since is another CLI's). Also those that
    name no session (a plain start, `claude` alone), as `watch` gives them: to the
    folder's most recently written session, unless they started well after it was last
    written (a fresh CLI that has written nothing yet)."""
    from .live import STARTED_AFTER, Processes, existed, opened_by, process_folder

    processes = Processes()
    if not session.cwd or not processes.available:
        return []
    processes.refresh(force=True)
    started: dict[int, float | None] = {}
    plain: dict[int, tuple[float | None, bytes]] = {}
    for pid, args in processes.running(plan.program, plan.process_names):
        opened = opened_by(source, args)
        latest = opened is not None and opened.latest
        if not latest and opened is not None:
            continue  # another session, a picker or a fork: not this one's writer
        cwd = processes.cwd(pid)
        if cwd is None or process_folder(source, cwd, args) != session.cwd:
            continue
        if latest:
            started[pid] = processes.started(pid)
        else:
            plain[pid] = (processes.started(pid), args)
    if not started and not plain:
        return []
    index = Index(home)
    try:
        index.refresh([source], progress)  # a newer session there may not be indexed
        # the folder as the index holds it: `session` is shown under the home as given
        held = session.cwd and rehomed(
            session.cwd, str(index.given.path), str(index.home.path)
        )
        rows = index.rows(apps=[session.app], under=held, limit=200)
        shown = (index.shown(row.session()) for row in rows)
        there = [s for s in shown if s.cwd == session.cwd]
    finally:
        index.close()
    pids = []
    for pid, start in started.items():  # newest first: the first there at its start
        latest_there = next(
            (s for s in there if existed(s, start)), there[0] if there else None
        )
        if latest_there is not None and latest_there.id == session.id:
            pids.append(pid)
    written = session.updated.timestamp() if session.updated else None
    newest = there[0].id if there else session.id
    others = [s.id.encode() for s in there if s.id != session.id]
    for pid, (start, args) in plain.items():
        if newest != session.id or any(other in args for other in others):
            continue  # the folder's newer session is its, or its words name another
        if start is None or written is None or start <= written + STARTED_AFTER:
            pids.append(pid)
    return sorted(pids)


def resume_command(session: Session) -> str | None:
    """The shell line that reopens `session`, quoted as `resume --print` prints it (for
    the user's shell, as its folder is this machine's), or None where its app has none,
    it recorded no folder, its id would read as an option, that shell cannot be given
    one of its words, or the app would reopen it looser than its default (Copilot's Allow
    All), which `resume` refuses and a line pasted from an export could not say. Nothing
    on this machine is checked: an export is read anywhere."""
    if session.id.startswith("-"):
        return None
    session, _ = _argument_safe(session)
    source = sources.get(session.app)
    plan = source.resume(session)
    if plan is None or plan.restores_looser:
        return None
    if not session.cwd and not resumes_anywhere(source):
        return None
    if not session.cwd:  # the CLI finds it from any folder: no `cd`
        plan = replace(plan, cwd="")
        return None if _holds_nul(plan) else _quoted(session, plan)
    if not (
        os.path.isabs(plan.cwd)
        or plan.cwd.startswith("/")
        or pathnames.is_windows(plan.cwd)
    ):
        return None  # `cd shop` would enter a folder below wherever the reader is
    if _holds_nul(plan):
        return None
    return _quoted(session, plan)


def _quoted(session: Session, plan: ResumePlan) -> str | None:
    """The plan's line for the user's shell, or None where that shell cannot be given
    one of its words: no line rather than a wrong one."""
    try:
        return ResumeCheck(session, plan).command
    except NotQuotable:
        return None


def _holds_nul(plan: ResumePlan) -> bool:
    """Whether the plan's folder or a word of it holds a NUL: no argv or path can, and a
    shell ends a `$'…'` word at it (the folder `/` + NUL + `srv` becomes `/`)."""
    return any("\x00" in word for word in (plan.cwd, *plan.argv))


def _argument_safe(session: Session) -> tuple[Session, list[str]]:
    """The session with each recorded value a resume command passes on (model, effort,
    permission mode, an app's own settings in `extra`) left out when the CLI would read
    it as an option or as more than one word (a file that says its model is
    `--dangerously-…`, or its mode `--yolo`, kept by --keep-permissions)."""

    def unsafe(value: object) -> bool:
        return isinstance(value, str) and (
            value.startswith("-")
            or any(c.isspace() or not c.isprintable() for c in value)
        )

    def unsafe_mode(value: object) -> bool:
        # a mode may name several settings, `key=value` one plain word each (Codex's
        # `approval=never sandbox=read-only`), which its adapter takes apart
        words = value.split(" ") if isinstance(value, str) else []
        if len(words) > 1 and all("=" in w and not unsafe(w) for w in words):
            return False
        return unsafe(value)

    dropped = [
        f"left out the recorded {name} {value!r}: not a plain name"
        for name, value, bad in (
            ("model", session.model, unsafe),
            ("effort", session.effort, unsafe),
            ("permission mode", session.permission_mode, unsafe_mode),
        )
        if bad(value)
    ]
    extra = {
        key: value
        for key, value in session.extra.items()
        if not (isinstance(value, str) and value.startswith("-"))
    }
    if not dropped and len(extra) == len(session.extra):
        return session, []
    safe = replace(
        session,
        model=None if unsafe(session.model) else session.model,
        effort=None if unsafe(session.effort) else session.effort,
        permission_mode=None
        if unsafe_mode(session.permission_mode)
        else session.permission_mode,
        extra=extra,
    )
    return safe, dropped


def current_branch(cwd: str) -> str | None:
    """The branch checked out in `cwd` now, or None when it is not a git work tree."""
    return branch_check(cwd)[0]


def branch_worktree(cwd: str, branch: str, deadline: float | None = None) -> str | None:
    """Where `cwd`'s repository has the local branch `branch` checked out: the worktree's
    folder, "" where none has it (the user may switch to it), None where there is no such
    branch or git did not say by `deadline`; "HEAD" (no branch checked out) is none. The
    name, the session file's, is matched whole: never an option or a pattern to git."""
    if branch == "HEAD":
        return None
    # every branch, matched here: for-each-ref takes a name as a pattern (`fix` would
    # match `fix/x` too); each ended by a NUL: a folder's name may hold a newline
    listing = [
        "for-each-ref",
        "--format=%(refname)%00%(worktreepath)%00",
        "refs/heads/",
    ]
    try:
        listed = _git(cwd, listing, deadline)
    except OSError:
        return None
    if listed is None or listed.returncode != 0:
        return None  # not said: the mismatch is, and no switch is named
    for entry in listed.stdout.split("\0\n"):
        ref, _, worktree = entry.partition("\0")
        if ref == f"refs/heads/{branch}":
            return "" if worktree and _bare(worktree, deadline) else worktree
    return None


def _bare(folder: str, deadline: float | None) -> bool:
    """Whether `folder` is a bare repository: for-each-ref names one as where its HEAD's
    branch is, though no work tree has it checked out and git switch takes it (a bare
    clone with worktrees)."""
    try:
        said = _git(folder, ["rev-parse", "--is-bare-repository"], deadline)
    except OSError:
        return False
    return said is not None and said.stdout.strip() == "true"


# How long all the git calls of one resume's branch check may take together: a folder
# on a network file system that does not answer holds `resume` up this long at most
GIT_BUDGET_S = 5.0


def _git(
    cwd: str, args: list[str], deadline: float | None
) -> subprocess.CompletedProcess[str] | None:
    """`git -C cwd ARGS`, read-only and never asking: no stdin, no terminal prompt, no
    optional lock taken (the index's refresh, in the user's repository); None where it
    did not answer by `deadline` (a monotonic time). OSError where it cannot be run."""
    import subprocess  # here: every command loads this module, few run git
    import time

    left = GIT_BUDGET_S if deadline is None else deadline - time.monotonic()
    if left <= 0:
        return None
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.run(
            ["git", "-C", cwd, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            timeout=left,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def branch_check(
    cwd: str, deadline: float | None = None
) -> tuple[str | None, str | None]:
    """(the branch checked out in `cwd` now, or None; why git could not say, or None
    when `cwd` is simply no git work tree). Git refuses a repository another user owns
    ("dubious ownership": a copied home, a container's mount) as it refuses a folder
    outside any: that must not read as "no branch to compare"."""
    import time

    deadline = time.monotonic() + GIT_BUDGET_S if deadline is None else deadline
    problem: str | None = None
    # rev-parse fails on a branch with no commits yet; symbolic-ref still names it.
    for args in (
        ["rev-parse", "--abbrev-ref", "HEAD"],
        ["symbolic-ref", "--short", "-q", "HEAD"],
    ):
        try:
            result = _git(cwd, args, deadline)
        except OSError as error:
            return None, f"git could not be run ({error.strerror or error})"
        if result is None:
            return None, f"git did not answer within {GIT_BUDGET_S:.0f} seconds"
        branch = result.stdout.strip()
        if result.returncode == 0 and branch:
            return branch, None
        said = result.stderr.strip().splitlines()
        if problem is None and said and "not a git repository" not in said[0]:
            problem = "git said: " + said[0].removeprefix("fatal: ")
    return None, problem


def live_processes(
    program: str,
    session_id: str,
    aliases: Sequence[str] = (),
    source: sources.Source | None = None,
    sharing: Callable[[str], Sequence[str]] | None = None,
) -> list[int]:
    """Processes running `program` (or one of `aliases`) whose command line names this
    session: as `source`'s CLI reads it, where it can (a fork names the session it copies,
    and has a new one open), or anywhere in it. One given the start of an id names it
    where no other session `sharing` gives (those whose id starts so) does."""
    from .live import Processes, names

    processes = Processes()
    if not processes.available:
        return []
    processes.refresh(force=True)
    wanted = session_id.encode()
    return sorted(
        pid
        for pid, args in processes.running(program, aliases)
        # an id holds no NUL: the match lies within one argument
        if (
            wanted in args
            if source is None
            else names(source, session_id, args, sharing)
        )
    )
