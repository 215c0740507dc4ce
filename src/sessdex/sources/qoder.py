"""Qoder CLI: Claude-Code-shaped JSONL transcripts under `~/.qoder/projects/<cwd slug>/<id>.jsonl`.

Qoder CLI (Alibaba's agentic coding CLI, npm `@qoder-ai/qodercli`, closed source) keeps its
user folder at `$QODER_CONFIG_DIR`, else `<home>/.qoder`, where `<home>` is
`$QODER_CLI_HOME`, else `$GEMINI_CLI_HOME` (it began as a Gemini CLI fork), else the user's
home; `$QODER_CONFIG_DIR_NAME` renames the `.qoder` part (checked in 1.1.52's bundle:
`getGlobalConfigDir`, the `Rr("CONFIG_DIR")`/`Rr("CLI_HOME")` lookups). The China edition's
build (npm `@qodercn-ai/qoderclicn`, program `qoderclicn`) uses `.qoder-cn` and
`QODERCN_` variables the same way: read too (`Location.also`), its sessions marked
`extra["edition"] = "cn"` and resumed with `qoderclicn`.

Its transcripts are Claude Code's format, written again: `projects/<slug>/<session id>.jsonl`
(the slug is the working folder with every character outside `[A-Za-z0-9]` made `-`, cut at
200 with a hash), one JSON record a line: `user`, `assistant` (Anthropic messages with
`message.model`, `message.usage`, `requestId`), `system` (`compact_boundary` …),
`attachment`, chained by `uuid`/`parentUuid`, and bookkeeping (`summary`, `custom-title`,
`ai-title`, `last-prompt`, `tag`, `file-history-snapshot`, `relocated`, `worktree-state`
and Qoder's own `workspace-directories`, `runtime-config`, `mode`, `token-stats`,
`active-leaf`: its record-type table `Rel`). Sub-agents live in
`<session>/subagents/agent-<id>.jsonl` with a `.meta.json` (`agentType`, `description`),
as Claude Code 2.1 keeps them. So this module is sessdex's Claude Code reader (`claude`)
under Qoder's folder, name and command: listing, reading, sub-agents, usage, live
following and the unknown-type count are the same code. The claude reader's two version
tests read Qoder's 1.1.x as Claude's 1.x: the summaries Claude Code 1.0 wrote into the
next transcript are not looked for (Qoder writes `summary` into the session's own file);
`effort` is not waited for on assistant lines, rightly: Qoder keeps its reasoning effort
(and chosen model) in `runtime-config`, which a resume restores. Qoder's own bookkeeping records are
noted once, not counted as unknown. Usage is Anthropic-shaped; Qoder writes the tier picked
(`auto`, `ultimate`, `performance`, `efficient`, `lite`: tiers of its own, served by
models it does not name) where a model would be, shown as "Qoder performance tier"
(`shown_model`; a model of the user's own keeps its name) and never priced, so tokens are
counted and the cost is left unknown. Qoder bills platform credits, and its transcript writer
(1.1.52) writes `message.usage` only where it carries `credits` / `original_credits` /
`billable` (or the model is the user's own), with every token count set to 0 unless
`QODER_EXPOSE_TOKEN_USAGE` is on (the same in its `-o json` result; third-party readers
of real files see the same): such a 0 is no measure of tokens, so a response is billed
by its `credits` (what Qoder charged; `original_credits` is the price before a discount),
its cost unknown, never $0; one with neither is dropped (`--explain` says so). Qoder
strips `requestId` from the lines it writes: copies merge by `message.id`. Credits are no
currency sessdex prices: they are counted as Qoder's own. `token-stats` (`promptTokenCount`: one
prompt's size, no bill) has a writer that 1.1.52 never calls: usage cannot come from it.
That the Qoder IDE writes chats here with an `<id>-session.json` beside is unconfirmed
(neither the CLI's bundle nor a public reader names such a file); only `.jsonl` is listed.

Branches: Qoder names the leaf it continues from in `active-leaf` (one after each batch
of lines; a rewind writes one with `explicit: true, rewound: true` naming the kept leaf,
and the next prompt is written under that leaf). The claude reader follows the chain
ending at the last line, which is the same once a prompt follows a rewind; where the
newest line of the file's last 64 KiB is such a rewind (rewound, then quit), the chain
ends at its leaf and the rewound turns are an abandoned branch (`_claude_read`). A
compaction Qoder never committed (`requiresActiveLeafCommit` with no `active-leaf`
naming it) is still shown as one.

Not read: `logs/sessions/<project>/<id>/segments/<run>.jsonl` (debug logs),
`sessions/<pid>.json` (running processes), `tasks/`, `plans/`, `memory/`,
`<session>/subagents/task-<id>.json` (a sub-agent task's state). Never opened: `.auth/`
(login state, `machine_id`, `.credential-transaction`), `mcp-oauth-tokens.json`,
`oauth_creds.json`, `google_accounts.json`, `installation_id`, `settings.json`.

Resume: `qodercli --resume <id>` (`qoderclicn` for the China edition's) in the session's folder (1.1.52's `--help`: `-r, --resume
[id]`, `-c, --continue`, `--fork-session`, `--session-id`), with `--permission-mode` only
for a recorded mode at least as strict as the default (`default`, `dont_ask`); a looser one
(`accept_edits`, `bypass_permissions`/yolo, `auto`) is withheld, never
`--dangerously-skip-permissions`. The recorded model is not passed: `--model` takes Qoder's
tier names and a transcript records the backend's. Checked against the 1.1.52 bundle only;
synthetic fixtures, no real capture (Low).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue, ResumePlan, Session
from . import claude
from ._values import as_str
from .base import (
    DroppedLine,
    FollowFile,
    Home,
    LineReader,
    Location,
    Opened,
    SessionFollow,
    UsageRecord,
    UsageScan,
    opened_by_flags,
)

NAME = "qoder"
TITLE = "Qoder CLI"
# its sub-agents are merged in by time, as Claude Code's are (its reader)
SUBAGENTS_BY_TIME = True
CHECKED_WITH = (
    "Qoder CLI 1.1.52 (npm @qoder-ai/qodercli, its bundle's config folder, transcript "
    "writer and record-type table, and its --help); no real capture; resume checked "
    "against 1.1.52's bundle (`-r, --resume [id]`, `--permission-mode` of default, "
    "accept_edits, bypass_permissions, dont_ask, auto)"
)
NEWEST_CHECKED = "1.1.52"
ENV_VARS = (
    "QODER_CONFIG_DIR",
    "QODER_CLI_HOME",
    "GEMINI_CLI_HOME",
    "QODER_CONFIG_DIR_NAME",
    "QODERCN_CONFIG_DIR",
    "QODERCN_CLI_HOME",
    "QODERCN_CONFIG_DIR_NAME",
)
# its programs; the npm package's `qoder` dispatcher runs `node <package>/bundle/qodercli.js`
SCRIPT = "qodercli.js"
CLI = ("qodercli", "qoderclicn", SCRIPT)
SCAN_NOTED = True  # locate reads the environment, scan only lists (claude's scan)

PROGRAM = "qodercli"
INSTALL_HINT = "npm install -g @qoder-ai/qodercli"
RESUME_FLAGS = claude.RESUME_FLAGS  # the same four words (1.1.52's --help)
DIR_NAME = ".qoder"
# the China edition's build (the same bundle built with "cn"): its own folder, variables,
# program and package (1.1.52's constants `PH`, `q9`, `lr`, `rbt`)
CN_DIR_NAME = ".qoder-cn"
CN_PROGRAM = "qoderclicn"
CN_INSTALL_HINT = "npm install -g @qodercn-ai/qoderclicn"
WORKSPACE = b'"workspace-directories"'
NO_TOKENS = "Qoder wrote its token counts as 0 and no credits"
# the model names Qoder offers (1.1.52's STANDARD_MODEL_KEYS): tiers of its own, each
# served by a model it does not name, written into a transcript as the model
TIERS = frozenset({"auto", "ultimate", "performance", "efficient", "lite"})
HEAD_RECORDS = 8  # Qoder opens a transcript with its bookkeeping, then the first prompt
# a recorded mode, folded as Qoder folds `--permission-mode` (lower case, letters and
# digits); "Don't Ask" refuses instead of prompting (its mode table), so it is strict
STRICT_MODES = {"default": "default", "dontask": "dont_ask"}
LOOSE_MODES = {
    "acceptedits": "accept_edits",
    "acceptingedits": "accept_edits",
    "bypasspermissions": "bypass_permissions",
    "yolo": "bypass_permissions",
    "auto": "auto",
}


def locate(home: Home) -> Location:
    """`$QODER_CONFIG_DIR`, else `<$QODER_CLI_HOME or $GEMINI_CLI_HOME or home>/.qoder`;
    and the China edition's folder, found the same way by its `QODERCN_` variables
    (`.qoder-cn`)."""
    root, override = _config_dir(home, "QODER_", DIR_NAME)
    china, _ = _config_dir(home, "QODERCN_", CN_DIR_NAME)
    return Location(root, override, also=(china,) if china != root else ())


def _config_dir(home: Home, prefix: str, default: str) -> tuple[Path, str | None]:
    """One build's user folder, and the variable that moved it."""
    override = home.env_dir(f"{prefix}CONFIG_DIR")
    if override is not None:
        return override, f"{prefix}CONFIG_DIR={override}"
    name = home.environ.get(f"{prefix}CONFIG_DIR_NAME") or default
    if "/" in name or "\\" in name or name in (".", ".."):
        name = default  # Qoder refuses such a name and stops
    for variable in (f"{prefix}CLI_HOME", "GEMINI_CLI_HOME"):
        base = home.env_dir(variable)
        if base is not None:
            return base / name, f"{variable}={base}"
    return home.path / name, None


scan = claude.scan
companion_of = claude.companion_of
usage_files = claude.usage_files


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    """Claude Code's listing of the transcript, as a Qoder session; where no line of its
    ends names a `cwd`, the first folder its `workspace-directories` record names. Claude
    Code 1.0's summaries at the head of the next transcript are not looked for: Qoder's
    version numbers (1.1.x) are no Claude 1.x, and it writes a summary in its own file."""
    found = claude.parse(path, location, diagnostics, summaries_beside=False)
    china = bool(location.also) and path.is_relative_to(location.also[0])
    return [
        dataclasses.replace(
            session,
            app=NAME,
            model=shown_model(session.model),
            cwd=session.cwd or _workspace(session.path),
            extra={**session.extra, "edition": "cn"} if china else session.extra,
        )
        for session in found
    ]


def shown_model(model: str | None) -> str | None:
    """A model as a user knows it: one of Qoder's tiers named as such ("Qoder performance
    tier": `performance` is no model anyone could look up or price), any other name (a
    model of the user's own) as written."""
    return f"Qoder {model} tier" if model in TIERS else model


def _tiered(event: Event) -> Event:
    """The event with its usage's model shown as `shown_model` shows it."""
    if event.usage is None or event.usage.model not in TIERS:
        return event
    usage = dataclasses.replace(event.usage, model=shown_model(event.usage.model))
    return dataclasses.replace(event, usage=usage)


def _workspace(path: str | None) -> str | None:
    """The first folder of the head's `workspace-directories` record (Qoder writes it
    first), else None."""
    if path is None:
        return None
    try:
        lines = files.head_lines(path, HEAD_RECORDS)
    except OSError:
        return None
    for line in lines:
        if WORKSPACE not in line.data:
            continue
        try:
            record = files.loads(line.data)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("type") == "workspace-directories":
            named = record.get("directories")
            if isinstance(named, list) and named:
                return as_str(named[0])
    return None


def usage_records(
    path: Path,
    diagnostics: Diagnostics,
    *,
    offset: int = 0,
    state: dict[str, JSONValue] | None = None,
    explain: bool = False,
    fold: Callable[[UsageRecord], None] | None = None,
    drop: Callable[[DroppedLine], None] | None = None,
) -> UsageScan:
    """Claude Code's billed responses, less those with neither a token nor a credit
    counted: Qoder writes every count as 0 (credits only) unless told to expose them, and
    a 0 there is no measure (`sessdex usage` showed such a day at $0.00): such a response
    is counted by its credits alone, its cost unknown."""

    def counted(record: UsageRecord) -> bool:
        if record.usage.total or record.usage.credits:  # credits: Qoder's own measure
            return True
        if explain:
            dropped = DroppedLine(record.line, "no-tokens", NO_TOKENS, record.time)
            if drop is not None:
                drop(dropped)
            else:
                result.dropped.append(dropped)
        return False

    def folded(record: UsageRecord) -> None:
        if fold is not None and counted(record):
            fold(_tier_record(record))

    from . import (
        _claude_usage,
    )  # here: a full list loads this module, and counts no usage

    result = _claude_usage.usage_records(
        path,
        diagnostics,
        offset=offset,
        state=state,
        explain=explain,
        fold=folded if fold is not None else None,
        drop=drop,
    )
    result.records = [_tier_record(r) for r in result.records if counted(r)]
    return result


def _tier_record(record: UsageRecord) -> UsageRecord:
    """The record with its model shown as `shown_model` shows it, and the record it
    replaces so too (taken back from the bucket of the model as shown, not from one of
    the tier's bare name, which a warm `usage` made of an appended copy of a response)."""
    replaces = record.replaces and _tier_record(record.replaces)
    if record.usage.model not in TIERS and replaces is record.replaces:
        return record
    usage = dataclasses.replace(record.usage, model=shown_model(record.usage.model))
    return dataclasses.replace(record, usage=usage, replaces=replaces)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The session's events, sub-agents merged in by time (Claude Code's reader), a tier
    named as such."""
    return map(_tiered, claude.read(session, diagnostics, full=full, offset=offset))


def follow(session: Session, diagnostics: Diagnostics) -> SessionFollow:
    """Live reading: only appended lines of the transcript and its sub-agent files."""
    return _TieredFollow(claude.follow(session, diagnostics))


@dataclasses.dataclass(frozen=True, slots=True)
class _TieredFollow:
    """Claude Code's live reading, a tier named as such."""

    inner: SessionFollow

    def files(self, children: Collection[str]) -> list[FollowFile]:
        return self.inner.files(children)

    def reader(self, file: FollowFile, offset: int) -> LineReader:
        return _TieredReader(self.inner.reader(file, offset))


@dataclasses.dataclass(frozen=True, slots=True)
class _TieredReader:
    """Claude Code's line reader, a tier named as such; what it settles too."""

    inner: LineReader

    def __call__(self, line: files.Line) -> Iterator[Event]:
        return map(_tiered, self.inner(line))

    def settle(self, quiet: bool) -> Iterator[Event]:
        settle = getattr(self.inner, "settle", None)
        return map(_tiered, settle(quiet)) if callable(settle) else iter(())


def _folded(mode: str) -> str:
    return "".join(character for character in mode.lower() if character.isalnum())


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`qodercli --resume <id>` in the session's folder, with a mode no looser than the
    default. A sub-agent has no resume of its own (its lead is the one to reopen)."""
    if session.parent_id is not None:
        return None
    china = session.extra.get("edition") == "cn"
    program = CN_PROGRAM if china else PROGRAM
    argv = [program, "--resume", session.id]
    notes: list[str] = []
    withheld: list[str] = []
    mode = session.permission_mode
    folded = _folded(mode) if mode else ""
    if folded in STRICT_MODES:
        argv += ["--permission-mode", STRICT_MODES[folded]]
    elif folded in LOOSE_MODES:
        flag = f"--permission-mode {LOOSE_MODES[folded]}"
        if keep_permissions:
            argv += flag.split()
        else:
            withheld.append(flag)
    elif mode:
        notes.append(f"permission mode {mode!r} left out (Qoder takes no such flag)")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program=program,
        install_hint=CN_INSTALL_HINT if china else INSTALL_HINT,
        process_names=(SCRIPT,),
        notes=tuple(notes),
        withheld=tuple(withheld),
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `qodercli` has open: `--resume <id>`, `--continue`'s latest, a fork's
    new id, as Claude Code's flags read (the same words)."""
    return opened_by_flags(args, RESUME_FLAGS)
