"""gptme: one folder per conversation under `~/.local/share/gptme/logs/<name>/`.

gptme (github.com/gptme/gptme, read at v0.33.0, commit d27f98d3 of 2026-08-22:
`dirs.py`, `message.py`, `logmanager/manager.py`, `logmanager/conversations.py`,
`config/chat.py`, `tools/base.py`, `llm/openai_responses.py`, `cli/main.py`; 0.35.1's
`tools/subagent/persistence.py`, `tools/complete.py` and `prompts/templates.py`, and its
conversations written in the conformance suite) keeps each
conversation in a folder named after it (`2026-12-01-happy-blue-fish`, or the
`--name` the user gave) in its logs folder: `$GPTME_LOGS_HOME`, else
`$XDG_DATA_HOME/gptme/logs`, else `~/.local/share/gptme/logs` where that folder
exists, else platformdirs' data folder (`~/Library/Application Support/gptme/logs` on
macOS, `%LOCALAPPDATA%\\gptme\\gptme\\logs` on Windows, read below the home). In it:

- `conversation.jsonl`: the main branch, one message a line: `role` (`user`,
  `assistant`, `system`), `content` (text), `timestamp` (ISO: the CLI's local time
  without an offset, read as this machine's local time; one the server took from a
  client may carry its offset; none in early logs, then the file's time, as gptme takes
  it), and only where set `files` (attached paths), `pinned`, `hide`, `call_id`
  (a native tool call's result) and `metadata` (`model`, `cost` in USD, `usage` with
  `input_tokens` (without the cache), `output_tokens`, `cache_read_tokens`,
  `cache_creation_tokens`; before 0.31.1, March 2026, the counts sat beside `model`). gptme
  writes the whole file again at every message (`Log.write_jsonl`): it grows, but an
  undo or edit shortens it. An answer is written with its calls only once they have run.
  The first line is the system prompt, which names the gptme version that began the
  conversation (`You are gptme v0.35.1, …`, or an agent's name then `…, an agent running
  in gptme v…`): the listing's `cli_version` (a later resume by a newer gptme keeps it).
- `config.toml`: `[chat]` holds `name` (the title gptme generates or the user set),
  `model`, `workspace` (written with `~`) and more; `[env]` may hold the conversation's
  environment variables (keys among them): only the `[chat]` table is parsed.
- `subagent-meta.json` (0.35 on, a sub-agent's): its registry entry, with
  `parent_logdir` (its lead's folder: its `parent_id`) and `workdir` (where it worked:
  its folder, over config.toml's `workspace`, which for a thread sub-agent names an
  empty `workspace` folder in its own log folder) and `prompt` (its task: its title, as
  its config.toml's `name` is its lead's). gptme writes these paths whole; its
  own `logdir` (the folder read) tells the home it ran in, and a `workdir` under that home
  is read under the home read, as its lead's `~/…` workspace is (a copied home shows
  both in the copy); one outside it stays as written.
- `branches/<name>.jsonl` (copies of the main branch and `/fork`-less branches),
  `views/compacted-NNN.jsonl` (what the model reads after an auto-compaction), `events.jsonl`, `.lock`, `workspace` (a link): not read.

Tool calls live in the assistant's text, in the format the conversation used:
markdown code blocks whose language is a tool's (```` ```shell ````, ```` ```save
path ````), `<tool-use><shell>…</shell></tool-use>` (xml), or lines
`@shell(call_id): {json}` (native tool calling; Python's repr of the arguments where
gptme's non-streaming Anthropic path wrote them; one inside a code block is an example,
passed over as gptme does). The xml body and args are read unescaped (`&lt;` is `<`),
as gptme's parsers read them. Every format is looked for whatever the conversation's
`tool_format` (a resume may change it). A native call's result is the
system message carrying its `call_id`; a markdown or xml call's results are the system
messages after it, paired in order (the ids are made up: `md-<offset>-<n>`). Other
system messages (the system prompt, context, hook notes) are `meta`, a long one
shortened unless `full`; the system prompt's is marked `system_prompt`, which `show`
draws only at `--detail full`. Thinking is the text in `<think>`/`<thinking>` tags (the
signature gptme keeps in it is dropped). Auto-compaction's note ("🔄 Auto-compacted
conversation to view branch", "✅ LLM-powered resume completed") is a `compaction`
(the main log keeps every message; the view is not read). "Interrupted by user" ends a turn as an
interruption, "Execution declined by user" is the result of the call it refused.
An answer with no tool call ends the turn, and so does the result of the `complete` tool
(a run with `--non-interactive`, and a sub-agent, end with it; gptme asks the model
nothing more).

Sub-agents (the `subagent` tool's functions, `tools/subagent/`, called in `ipython`) write
conversations beside the others: an executor `subagent-<agent id>-<4 random characters>`,
a planner `subagent-<agent id>` (reused when the id comes again). A lead's `subagent`
call (native, or in an ipython block: its literal id, task and profile read from the
code, never run) gives a `subagent` event naming the conversation of that agent id that
began first at or after the call (the logs folder listed once a read; one whose
`subagent-meta.json` names another lead passed over). One whose `subagent-meta.json`
names its lead (0.35 on) is listed under it and read into the lead's events, after the
message that started it (tagged with its id; its usage counted there once), or, where
the lead's file holds no such call (cut before it), after the lead's messages, announced
by its entry (its profile, its agent id as its name, its prompt as its task). An older
one (no entry: gptme before 0.35) is its caller's: the lead's listing finds its calls
(`files.lines_with`) and lists the conversation each names under it (`_claimed`, kept in
the lead's `extra`), which its read reads in as it does a registered one.
`watch` follows the lead's file and each such sub-agent's on its own (`_gptme_follow`),
reading the lines each gains: the lead writes nothing while it waits on one.
`subagent()` returns at once: the call's result says `launched`, and the completion
hook's note to the lead ("✅ Subagent 'x' completed: …", "❌ … failed", "⏱️ … timed
out") is a `meta` event with `subagent_status`. As the lead's `subagent_wait` is written
only once it has returned, the spawn carries `wait_unwritten` (status.py: mid-turn, the
lead waits on the running sub-agent).
Forks copy messages with their usage and cost: `/fork <name>` copies the folder (the
command's own user message last) and goes on in the copy; `gptme-util chats fork` writes
a copy named `<source>-fork-<UTC time>` unless told a name. Where the source is still
beside it (the conversation holding the same `/fork <name>` line, written since; the
folder the name gives), the copied responses are billed there only: the fork's read opens
with a `meta` note (`extra["forked_from"]`) and gives no `usage` for them (a copy given
another name by `chats fork` is not recognised: billed twice).
Resume: `gptme --name <name>` in the conversation's workspace (gptme's own exit hint;
no `-y`/`--no-confirm` added, and a conversation whose config.toml saved `no_confirm`,
which gptme restores, refused unless `--keep-permissions`; none for a name `--name`
refuses). The user's
`~/.config/gptme/config.toml` and `config.local.toml` (API keys) and `oauth/` are never
opened (`folders.CREDENTIALS_IN`; a `config.toml` beside a `conversation.jsonl` is a
conversation's, so one named `gptme` keeps its own).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import json
import os
import re
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .. import files, folders, freshness
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    as_int,
    as_list,
    epoch_time,
    first_line,
    iso_time,
    json_copy,
    odd_count,
    one_line,
    stripped,
)
from .base import (
    Home,
    Location,
    Opened,
    ResumeFlags,
    SessionFollow,
    opened_by_flags,
)

NAME = "gptme"
TITLE = "gptme"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "gptme 0.33.0's source (gptme/gptme@d27f98d3, 2026-08-22): message.py, "
    "logmanager/, config/chat.py, tools/base.py; gptme 0.35.1 (PyPI) run in the "
    "conformance suite: headless runs (`--non-interactive`, native tool calls, `complete`), "
    "a resume by `--name`, a thread sub-agent started in `ipython`, a TUI turn; 0.35.1 "
    "is still the newest release (PyPI, 2026-12-07)"
)
NEWEST_CHECKED = "0.35.1"  # doctor names versions past it
ENV_VARS = ("GPTME_LOGS_HOME", "XDG_DATA_HOME")
CLI = ("gptme",)
INSTALL_HINT = "pipx install gptme"
RESUME_FLAGS = ResumeFlags(resume=("--name",), latest=("-r", "--resume"))

CONVERSATION = "conversation.jsonl"
CONFIG = "config.toml"
META = "subagent-meta.json"  # a sub-agent's registry entry (0.35: `subagent/persistence.py`)
_CONFIG_CAP = 256 * 1024
_META_CAP = 1024 * 1024  # it holds the sub-agent's task: a long one is read up to this
_DEPTH = 8  # sub-agents of sub-agents read in, at most this deep (a loop ends)
_REPR_CAP = 256 * 1024  # a Python repr of arguments read back, at most
_SHOWN = 200  # characters of a long system message a `meta` event quotes
_INTERRUPTED = "Interrupted by user"
# what the `complete` tool answers (`tools/complete.py`): the session ends there
_COMPLETE = "complete"
# the system prompt's opening (`prompts/templates.py`): gptme's version, or an agent's
# name and then it
_VERSION = re.compile(
    r"You are (?:gptme v|[^\n]{1,200}?, an agent running in gptme v)(\d+\.\d+[\w.+-]*)"
)
_DECLINED = "Execution declined by user"
_INTERRUPT_SUFFIX = "^C Interrupted"
# what gptme answers a native call it never ran (`tools/__init__.py`: `execute_msg`)
_NOT_RUN = re.compile(
    r"Tool '[^'\n]*' (?:was not executed|is not available for execution)"
)
# the notes auto-compaction leaves in the main log (`tools/autocompact/`): rule-based, or
# an LLM's resume of the conversation
_COMPACTED = ("🔄 Auto-compacted conversation", "✅ LLM-powered resume completed")
# the languages of code blocks gptme runs as tools (each tool's `block_types`; `youtube`,
# `todoread` and `todowrite` those of 0.20 to 0.31)
_TOOL_LANGS = frozenset(
    {
        "append",
        "choice",
        "clarify",
        "complete",
        "elicit",
        "form",
        "gh",
        "hashline_edit",
        "ipython",
        "mcp",
        "morph",
        "patch",
        "patch_anchored",
        "patch_many",
        "progress",
        "py",
        "read",
        "restart",
        "save",
        "shell",
        "tmux",
        "todo",
        "todoread",
        "todowrite",
        "vent",
        "view_anchored",
        "youtube",
    }
)
# the parameters a markdown block's words and body fill, in order (each tool's own)
_PARAMETERS = {
    "shell": ("command",),
    "ipython": ("code",),
    "py": ("code",),
    "save": ("path", "content"),
    "append": ("path", "content"),
    "patch": ("path", "patch"),
    "read": ("path",),
}
# the completion hook's note to the lead (`tools/subagent/hooks.py`): done, failed, or
# timed out
_SUBAGENT_END = re.compile(
    r"(✅|❌|⏱️) Subagent '([^'\n]+)' (?:completed|failed|timed out):"
)
# `gptme-util chats fork`'s name for a copy it makes, unless told one
_FORK_NAME = re.compile(r"(.+)-fork-(\d{8}-\d{6})")
# an executor's conversation: `subagent-<agent id>-<4 random letters or digits>`
_SUFFIX = re.compile(r"[a-z0-9]{4}")
_SUBAGENT_CALL = re.compile(r"\bsubagent\(\s*(?:agent_id\s*=\s*)?[\"']([^\"'\n]+)[\"']")
# the lead's own extra: the sub-agents with no registry entry it lists (`_claimed`)
CLAIMED = "claimed_subagents"
_THINK = re.compile(r"<(think|thinking)>(.*?)(?:</\1>|\Z)", re.DOTALL)
_SIGNATURE = re.compile(r"<!-- think-sig: .*? -->", re.DOTALL)
_FENCE = re.compile(r"^(`{3,})(.*)$")
_FENCE_AT = re.compile(r"^(`{3,})(.*)$", re.MULTILINE)
_XML_CALL = re.compile(
    r"<tool-use>\s*<([\w.-]+)((?:\s+[\w-]+=(?:\"[^\"]*\"|'[^']*'))*)\s*>\n?(.*?)\n?</\1>\s*</tool-use>",
    re.DOTALL,
)
_XML_ARGS = re.compile(r"args=(?:\"([^\"]*)\"|'([^']*)')")
# platformdirs' `user_data_dir("gptme")` on macOS and Windows (`%LOCALAPPDATA%`, below the
# home by default), with gptme's `logs`
_PLATFORM_LOGS = (
    ("Library", "Application Support", "gptme", "logs"),
    ("AppData", "Local", "gptme", "gptme", "logs"),
)
_NATIVE_CALL = re.compile(r"^@([\w.]+)\(([\w\-:.]+)\):[ \t]*(?={)", re.MULTILINE)


def locate(home: Home) -> Location:
    """`$GPTME_LOGS_HOME`, else `$XDG_DATA_HOME/gptme/logs` (~/.local/share by default;
    platformdirs' macOS and Windows folders too)."""
    # its settings (API keys in config.toml) and, beside its logs, its prompt history and
    # state; on macOS and Windows platformdirs gives settings and data one folder
    keeps = (
        home.xdg("config") / "gptme",
        home.xdg("data") / "gptme",
        *(home.path.joinpath(*p[:-1]) for p in _PLATFORM_LOGS),
    )
    override = home.env_dir("GPTME_LOGS_HOME")
    if override is not None:
        return Location(
            override,
            override=f"GPTME_LOGS_HOME={home.environ['GPTME_LOGS_HOME']}",
            keeps=keeps,
            settings=(f"HOME={home.path}",),
        )
    data = home.environ.get("XDG_DATA_HOME")
    # platformdirs' data folders, which gptme uses where `~/.local/share/gptme` is not
    also = () if data else tuple(home.path.joinpath(*p) for p in _PLATFORM_LOGS)
    return Location(
        home.xdg("data") / "gptme" / "logs",
        override=f"XDG_DATA_HOME={data}" if data else None,
        also=also,
        keeps=keeps,
        settings=(f"HOME={home.path}",),  # what `~` in a workspace stands for
    )


def scan(location: Location) -> Iterator[str]:
    """Each conversation folder's `conversation.jsonl`, and its `config.toml` and a
    sub-agent's `subagent-meta.json` (companions: the title, workspace and model, and the
    lead and folder, its listing takes)."""
    for root in (location.root, *location.also):
        for entry in folders.entries(root, location.root):
            if not entry.is_dir():
                continue
            folder = entry.path
            conversation = os.path.join(folder, CONVERSATION)
            if folders.is_file(conversation):
                yield conversation
                for name in (CONFIG, META):
                    companion = os.path.join(folder, name)
                    if folders.is_file(companion):
                        yield companion


def companion_of(path: str) -> str | None:
    """The conversation whose listing a folder's `config.toml` or
    `subagent-meta.json` changes."""
    folder, name = os.path.split(path)
    return os.path.join(folder, CONVERSATION) if name in (CONFIG, META) else None


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name != CONVERSATION:
        return []  # a companion: read with its conversation
    name = str(path)
    try:
        stat = path.stat()
        size = stat.st_size
        head = files.head_lines(path, diagnostics=diagnostics)
        tail = files.tail_lines(path)
    except FileNotFoundError:
        diagnostics.problem(f"gptme: {name} vanished while it was read")
        return []
    chat = _chat_config(path.parent / CONFIG, diagnostics)
    meta = _subagent_meta(path.parent / META)
    created: datetime | None = None
    prompt: str | None = None
    model: str | None = None
    version: str | None = None
    system_seen = False
    for line in head:
        record = files.parse_json(line, diagnostics, name)
        if record is None:
            continue
        created = created or _time(record)
        role = record.get("role")
        if role == "system" and not system_seen:
            system_seen = True  # the system prompt comes first
            content = record.get("content")
            found = _VERSION.match(content) if isinstance(content, str) else None
            version = found.group(1) if found else None
        if prompt is None and role == "user" and not record.get("hide"):
            prompt = stripped(record.get("content"))
    updated: datetime | None = None
    for line in reversed(tail):
        record = files.parse_json(line)
        if record is None:
            continue
        updated = updated or _time(record)
        if model is None:
            model = stripped(_metadata(record).get("model"))
        if updated is not None and model is not None:
            break
    if created is None and updated is None and size:
        # messages of an early gptme carry no time: the file's, as gptme itself takes
        created = updated = datetime.fromtimestamp(stat.st_mtime, UTC)
    folder = path.parent.name
    kind = stripped(meta.get("profile")) or stripped(meta.get("role"))
    subagent = bool(meta) or folder.startswith("subagent-")
    # a sub-agent's config.toml names its lead's conversation (a thread's config is its
    # lead's), or its own folder (a subprocess's `--name`): its task tells it apart
    named = stripped(chat.get("name"))
    task = one_line(first_line(meta.get("prompt")))  # the entry holds it whole
    title = (task or prompt or named) if subagent else (named or prompt)
    claimed = _claimed(path, size, folder)
    return [
        Session(
            app=NAME,
            id=folder,
            path=name,
            # a thread sub-agent's config.toml names a `workspace` folder in its log
            # folder; it works where its registry entry says (its lead's, by default)
            cwd=_workdir(meta, path.parent, location)
            or _workspace(chat.get("workspace"), location),
            title=first_line(title),
            created=created,
            updated=updated or created,
            model=stripped(chat.get("model")) or model,
            cli_version=version,
            bytes=size,
            parent_id=_folder_name(meta.get("parent_logdir")),
            agent_type=(kind or "subagent") if subagent else None,
            extra={CLAIMED: list(claimed)} if claimed else {},
        ),
        # a sub-agent no registry entry names (gptme before 0.35) is its caller's
        *(
            Session(app=NAME, id=child, parent_id=folder, listed=False)
            for child in claimed
        ),
    ]


def _claimed(path: Path, size: int, lead: str) -> list[str]:
    """The conversations with no registry entry (gptme before 0.35 wrote none) that this
    one's `subagent` calls started, as its read names them: listed under it and read into
    its events. A middle too large to search (`files.lines_with`) claims none, and its read
    then reads none in."""
    spawns = _Spawns(path.parent.parent, lead)
    claimed: list[str] = []
    unfound = False
    for line in files.lines_with(path, b"subagent", 0, size):
        record = files.parse_json(line)
        content = record.get("content") if record is not None else None
        if record is None or record.get("role") != "assistant":
            continue
        if not isinstance(content, str):
            continue
        calls, _ = _calls(_THINK.sub("", content), line.offset)
        for _, tool, arguments, _ in calls:
            for agent, _, _ in _spawned(tool, arguments):
                child = spawns._child(agent, _time(record))
                unfound = unfound or child is None
                if (
                    child
                    and child not in claimed
                    and _lead_of(spawns.logs / child) is None
                ):
                    claimed.append(child)
    if unfound:  # a conversation begun later may be the one a call started
        freshness.note_depended(spawns.logs)
    return sorted(claimed)


def _subagent_meta(path: Path) -> dict[str, object]:
    """A sub-agent's registry entry (`subagent-meta.json`, gptme 0.35 on): its lead's
    log folder (`parent_logdir`), the folder it works in (`workdir`), its profile."""
    data = files.read_small(path, _META_CAP)
    if data is None:
        return {}
    try:
        value = files.loads(data)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _lead_of(folder: Path) -> str | None:
    """The conversation a sub-agent's registry entry names as its lead, if any."""
    return _folder_name(_subagent_meta(folder / META).get("parent_logdir"))


def _folder_name(value: object) -> str | None:
    """The last part of a folder's path, written on any system: a conversation's id."""
    text = stripped(value)
    if text is None:
        return None
    return stripped(re.split(r"[\\/]", text.rstrip("\\/"))[-1])


def _chat_config(path: Path, diagnostics: Diagnostics) -> dict[str, object]:
    """The `[chat]` table of a conversation's config.toml; nothing else of the file
    (its `[env]` may hold keys) is parsed. Empty where it cannot be read."""
    return _chat_table(path, diagnostics) or {}


def _chat_table(path: Path, diagnostics: Diagnostics) -> dict[str, object] | None:
    """`_chat_config`, None where the file is there but cannot be read (over its size
    limit, unreadable, not TOML): what it holds is not known."""
    data = files.read_small(path, _CONFIG_CAP)
    if data is None:
        return None if os.path.lexists(path) else {}
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    kept: list[str] = []
    inside = False
    for line in text.splitlines():
        header = line.strip()
        if header.startswith("["):
            inside = header.replace(" ", "") == "[chat]"
            continue
        if inside:
            kept.append(line)
    import tomllib  # here: only a home with gptme's config pays for the TOML parser

    try:
        table = tomllib.loads("\n".join(kept))
    except tomllib.TOMLDecodeError:
        diagnostics.problem(f"gptme: {path}: its [chat] table is not TOML")
        return None
    return table


def _workspace(value: object, location: Location) -> str | None:
    """The workspace as config.toml names it: gptme writes a path that starts with the
    home's as `~` and the rest (`util.path_with_tilde`: `~/code`, `~\\code` on Windows,
    `~2/code` for `/home/alex2/code` under `/home/alex`), here the home read's."""
    text = stripped(value)
    if text is None or text == "@log":
        return None
    if text.startswith("~"):
        home = _home_of(location)
        return str(home) + text[1:] if home is not None else None
    return text


def _workdir(meta: dict[str, object], folder: Path, location: Location) -> str | None:
    """The folder a sub-agent worked in, as its registry entry writes it (whole), read in
    this home where it lies under the home gptme ran in: the one its own `logdir` (this
    very folder, as gptme wrote it) tells. So a copied home shows it where its lead's
    `~/…` workspace is shown; a folder outside that home stays as written."""
    text = stripped(meta.get("workdir"))
    written = stripped(meta.get("logdir"))
    home = _home_of(location)
    if text is None or written is None or home is None:
        return text
    try:
        inside = folder.relative_to(home).as_posix()
    except ValueError:
        return text
    logdir = written.replace("\\", "/").rstrip("/")
    if inside == "." or not logdir.endswith("/" + inside):
        return text
    was = logdir[: -len(inside) - 1]  # the home gptme ran in
    rest = text.replace("\\", "/")
    if not was or (rest != was and not rest.startswith(was + "/")):
        return text
    return str(home) + text[len(was) :]


def _home_of(location: Location) -> Path | None:
    for setting in location.settings:
        name, _, value = setting.partition("=")
        if name == "HOME" and value:
            return Path(value)
    return None


def _time(record: dict[str, object]) -> datetime | None:
    return iso_time(record.get("timestamp"), naive="local")


def _metadata(record: dict[str, object]) -> dict[str, object]:
    value = record.get("metadata")
    return value if isinstance(value, dict) else {}


# --- reading --------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    event = Emitter(session.id)
    path = Path(session.path)
    # a follow's read from an offset reads no sub-agent in: the first read did
    spawns = _Spawns(path.parent.parent, session.id, read_in=not offset)
    claimed = session.extra.get(CLAIMED)
    if isinstance(claimed, list):  # those the index lists under it (`_claimed`)
        spawns.claimed = {child for child in claimed if isinstance(child, str)}
    # (a read from an offset, a live follow's, comes after the copied lines: the file is
    # not searched again at each)
    copy = _copy_of(path, search=not offset)
    if copy is not None and not offset:
        yield event(
            "meta",
            None,
            text=f"forked from {copy.source}: the responses copied from it are "
            "billed there",
            extra={"forked_from": copy.source},
        )
    yield from _conversation(path, event, diagnostics, full, offset, spawns, copy)


def follow(session: Session, diagnostics: Diagnostics) -> SessionFollow:
    """Live reading: the conversation and each sub-agent's, only appended lines
    (`_gptme_follow`)."""
    from ._gptme_follow import Follow

    return Follow(session, diagnostics)


def _conversation(
    path: Path,
    event: Emitter,
    diagnostics: Diagnostics,
    full: bool,
    offset: int,
    spawns: _Spawns,
    copy: _Copy | None = None,
    agent: str | None = None,
) -> Iterator[Event]:
    """One conversation's events (`agent` tags a sub-agent's), each sub-agent that names
    it as its lead read in after the call that started it."""
    # the markdown and xml calls of the last answer still awaiting their results
    pending: deque[tuple[str, str | None]] = deque()

    def tagged(made: Iterator[Event]) -> Iterator[Event]:
        """A message's events, then those of the sub-agents it started (after its usage)."""
        started: list[str] = []
        for one in made:
            yield one if agent is None else replace(one, agent_id=agent)
            child = one.extra.get("child_id") if one.kind == "subagent" else None
            if isinstance(child, str) and spawns.reads_in(child):
                started.append(child)
        for child in started:
            yield from _conversation(
                spawns.logs / child / CONVERSATION,
                event,
                diagnostics,
                full,
                0,
                spawns.below(child),
                agent=child,
            )

    try:
        for line, record in files.iter_records(
            path, diagnostics, offset=offset, full=full
        ):
            if offset and line.offset == offset:
                continue  # the partial line at a --tail offset
            yield from tagged(
                line_events(
                    str(path), line, record, event, diagnostics, full, pending,
                    spawns, copy,
                )
            )  # fmt: skip
    except FileNotFoundError:
        if agent is None:
            diagnostics.problem(f"gptme: {path} vanished")
        else:
            diagnostics.problem(f"gptme: sub-agent {agent}'s {path} vanished")
        return
    if offset:
        return
    # the sub-agents naming it as their lead whose spawn was not read (cut from the
    # file, or in a part gptme had not written): announced by their own registry entry
    for child, meta in spawns.orphans():
        yield from tagged(iter((announced(event, child, meta, spawns.started(child)),)))


def announced(
    event: Emitter, child: str, meta: dict[str, object], started: datetime | None
) -> Event:
    """The `subagent` event of a sub-agent no spawn read names, made from its registry
    entry: its profile, its agent id as its name, its prompt as its task. It is dated when
    the entry says the sub-agent started, where that is earlier than its first line:
    gptme dates its conversation's first messages out of order, and a live view puts
    events by their times (the spawn among its sub-agent's lines)."""
    kind = stripped(meta.get("profile")) or stripped(meta.get("role"))
    entered = epoch_time(meta.get("started_at"))
    if entered is not None and (started is None or entered < started):
        started = entered
    return event(
        "subagent",
        started,
        text=stripped(meta.get("prompt")),
        extra={
            "child_id": child,
            "agent_type": kind or "subagent",
            "agent_name": stripped(meta.get("agent_id")),
        },
    )


def line_events(
    path: str,
    line: files.Line,
    record: dict[str, object],
    event: Emitter,
    diagnostics: Diagnostics,
    full: bool,
    pending: deque[tuple[str, str | None]],
    spawns: _Spawns,
    copy: _Copy | None = None,
) -> Iterator[Event]:
    """One line's events (the `pending` markdown and xml calls carry over to the next);
    the sub-agents it starts are not read in here."""
    time = _time(record)
    billed = copy is None or not copy.holds(line.offset, time)
    role = record.get("role")
    content = record.get("content")
    text = content if isinstance(content, str) else None
    if content is not None and text is None:
        diagnostics.skip(path, line.number, "bad value")
        return
    if role == "user":
        pending.clear()
        yield from _user(record, text, time, event, full)
    elif role == "assistant":
        pending.clear()
        if billed and _odd(_metadata(record)):
            diagnostics.damage(path, line.number, ODD_COUNT)
        yield from _assistant(
            record, text or "", time, line.offset, event, pending, spawns, billed
        )
    elif role == "system":
        made = _system(record, text or "", time, event, pending, full, spawns)
        if line.offset == 0:  # the first line: gptme's system prompt
            made = (_system_prompt(one) for one in made)
        yield from made
    else:
        diagnostics.unknown_type(f"role {role}" if isinstance(role, str) else "role")


def _user(
    record: dict[str, object],
    text: str | None,
    time: datetime | None,
    event: Emitter,
    full: bool,
) -> Iterator[Event]:
    if record.get("hide") is True:  # context gptme added for the model, not typed
        yield _meta(text or "", time, event, full, {"hidden": True})
        return
    attached = [f for f in as_list(record.get("files")) if isinstance(f, str)]
    words = (text or "").strip()
    if attached:
        named = ", ".join(os.path.basename(f) or f for f in attached)
        words = f"{words}\n[attached: {named}]".strip()
    extra: dict[str, JSONValue] = {"files": list(attached)} if attached else {}
    yield event("user", time, text=words, extra=extra)


def _assistant(
    record: dict[str, object],
    content: str,
    time: datetime | None,
    offset: int,
    event: Emitter,
    pending: deque[tuple[str, str | None]],
    spawns: _Spawns,
    billed: bool = True,
) -> Iterator[Event]:
    thoughts: list[str] = []

    def thought(match: re.Match[str]) -> str:
        thoughts.append(_SIGNATURE.sub("", match.group(2)).strip())
        return ""

    rest = _THINK.sub(thought, content)
    for text in thoughts:
        if text:
            yield event("thinking", time, text=text)
    calls, said = _calls(rest, offset)
    interrupted = said.rstrip().endswith(_INTERRUPT_SUFFIX)
    if said.strip():
        extra: dict[str, JSONValue] = {"interrupted": True} if interrupted else {}
        yield event("assistant", time, text=said.strip(), extra=extra)
    for call_id, tool, arguments, native in calls:
        yield event(
            "tool_call", time, tool=tool, call_id=call_id, extra={"input": arguments}
        )
        if not native:
            pending.append((call_id, tool))
        for agent, task, kind in _spawned(tool, arguments):
            child = spawns.spawned(call_id, agent, time)
            named: dict[str, JSONValue] = {"child_id": child} if child else {}
            yield event(
                "subagent",
                time,
                call_id=call_id,
                text=task,
                # subagent() returns at once, and gptme writes an answer's calls only
                # once they have run: a `subagent_wait` is not on disk while it waits
                extra={
                    **named,
                    "agent_type": kind,
                    "agent_name": agent,
                    "wait_unwritten": True,
                },
            )
    usage = _usage(_metadata(record)) if billed else None
    if usage is not None:
        cost = _metadata(record).get("cost")
        extra = {"cost_usd": cost} if isinstance(cost, int | float) and cost > 0 else {}
        yield event("usage", time, usage=usage, extra=extra)
    if not calls and not interrupted:
        yield event("turn_end", time)


def _spawned(tool: str, arguments: JSONValue) -> list[tuple[str, str | None, str]]:
    """The agent ids a call starts, each with its task and its profile or role: a native
    `subagent` call's, or each `subagent(...)` of an ipython block's code."""
    if not isinstance(arguments, dict):
        return []
    if tool == "subagent":
        agent = stripped(arguments.get("agent_id"))
        task = stripped(arguments.get("prompt"))
        kind = stripped(arguments.get("profile")) or stripped(arguments.get("role"))
        found = [(agent, task, kind or "subagent")] if agent else []
    elif tool in ("ipython", "py") and isinstance(code := arguments.get("code"), str):
        found = _python_spawns(code)
    else:
        return []
    return [
        spawn
        for spawn in found
        if not ("/" in spawn[0] or "\\" in spawn[0] or spawn[0].startswith("."))
    ]


def _python_spawns(code: str) -> list[tuple[str, str | None, str]]:
    """Each `subagent(...)` an ipython block calls, with its task and its profile where
    they are written as plain strings (`subagent("impl", "Write the tests")`, gptme's own
    examples); the agent ids alone, found by their text, where the code does not parse."""
    tree = None
    if len(code) <= _REPR_CAP:
        try:
            with warnings.catch_warnings():  # an invalid escape in the code: no noise
                warnings.simplefilter("ignore")
                tree = ast.parse(code)  # parsed, never run
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            tree = None
    if tree is None:
        return [(m.group(1), None, "subagent") for m in _SUBAGENT_CALL.finditer(code)]
    found: list[tuple[int, int, tuple[str, str | None, str]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name != "subagent":
            continue
        given = dict(zip(("agent_id", "prompt"), node.args, strict=False))
        given.update((k.arg, k.value) for k in node.keywords if k.arg)
        words = {
            key: value.value
            for key, value in given.items()
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
        }
        agent = stripped(words.get("agent_id"))
        if agent:
            kind = stripped(words.get("profile")) or stripped(words.get("role"))
            spawn = (agent, stripped(words.get("prompt")), kind or "subagent")
            found.append((node.lineno, node.col_offset, spawn))
    return [spawn for _, _, spawn in sorted(found)]  # as written (ast.walk is by depth)


@dataclass(frozen=True, slots=True)
class _Copy:
    """What a fork copied from its source, still beside it: the lines up to `until`
    (in-chat `/fork`), or the messages dated up to `before` (`gptme-util chats fork`)."""

    source: str
    until: int | None = None
    before: datetime | None = None

    def holds(self, offset: int, time: datetime | None) -> bool:
        if self.until is not None:
            return offset <= self.until
        return self.before is not None and time is not None and time <= self.before


def _copy_of(path: Path, *, search: bool = True) -> _Copy | None:
    """Where the conversation at `path` is a fork whose source is still beside it: gptme
    copies every message, usage and cost included, so the copied ones are the source's.
    `/fork <name>` copies the folder, the command's own message last; `gptme-util chats
    fork` names a copy `<source>-fork-<UTC time>` unless told a name."""
    folder = path.parent
    named = _FORK_NAME.fullmatch(folder.name)
    if named is not None and folders.is_file(
        os.path.join(folder.parent, named.group(1), CONVERSATION)
    ):
        when = datetime.strptime(named.group(2), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        return _Copy(named.group(1), before=when)
    if not search:
        return None
    command = json.dumps(f"/fork {folder.name}")
    at = _find(path, f'{{"role": "user", "content": {command}, '.encode())
    if at is None:
        return None
    try:
        with files.open_binary(path) as stream:
            stream.seek(at)
            line = stream.readline(64 * 1024)
    except OSError:
        return None
    try:
        record = files.loads(line)
    except orjson.JSONDecodeError:
        record = None
    forked = _time(record) if isinstance(record, dict) else None
    for entry in folders.listing(folder.parent):
        if entry.name == folder.name or not entry.is_dir():
            continue
        source = os.path.join(entry.path, CONVERSATION)
        try:
            stat = os.stat(source)
        except OSError:
            continue
        if stat.st_size < len(line) or (
            forked is not None and stat.st_mtime < forked.timestamp() - 2
        ):
            continue  # last written before the fork: not its source
        if _find(Path(source), line) is not None:
            return _Copy(entry.name, until=at)
    return None


def _find(path: Path, needle: bytes) -> int | None:
    """Where `needle` first is in the file at `path` (read a chunk at a time)."""
    kept = b""
    position = 0  # the file offset of `kept`'s first byte
    try:
        with files.open_binary(path) as stream:
            while True:
                if hole := files.skip_hole(stream):  # NULs: no needle in them
                    position, kept = position + len(kept) + hole, b""
                chunk = stream.read(files.CHUNK)
                if not chunk:
                    break
                block = kept + chunk
                found = block.find(needle)
                if found >= 0:
                    return position + found
                keep = min(len(block), len(needle) - 1)
                position += len(block) - keep
                kept = block[len(block) - keep :] if keep else b""
    except OSError:
        return None
    return None


class _Spawns:
    """The sub-agents a lead started: the calls that started them, and the conversation
    each one writes (found beside the lead's, once); those whose registry entry names the
    lead (gptme 0.35 on) are read into its events and listed under it."""

    def __init__(
        self, logs: Path, lead: str, *, read_in: bool = True, depth: int = 0
    ) -> None:
        self.logs = logs
        self.lead = lead
        self.read_in = read_in and depth < _DEPTH
        self.depth = depth
        self.calls: set[str] = set()
        self.agents: dict[str, tuple[str, str | None]] = {}
        self._names: list[str] | None = None
        # the conversations read in already, shared with the sub-agents' own: none twice
        self.done: set[str] = {lead}
        # the conversations with no registry entry listed under this lead (`_claimed`)
        self.claimed: set[str] = set()
        # the sub-agents beside by the lead their registry entry names, oldest first:
        # each entry read once a read (shared with the sub-agents' reads)
        self._by_lead: dict[str | None, list[str]] = {}

    def below(self, child: str) -> _Spawns:
        """What a sub-agent read in starts itself: those with no registry entry too, as
        its own listing claims them (`_claimed`), the index listing them under it."""
        spawns = _Spawns(self.logs, child, depth=self.depth + 1)
        spawns._names = self._names
        spawns.done = self.done
        spawns._by_lead = self._by_lead
        if spawns.read_in:
            path = self.logs / child / CONVERSATION
            with contextlib.suppress(OSError):
                spawns.claimed = set(_claimed(path, path.stat().st_size, child))
        return spawns

    def reads_in(self, child: str) -> bool:
        """Whether the conversation `child` is read into this one's (once): its registry
        entry names this one as its lead, or it has none and this one's listing claimed it."""
        if not self.read_in or child in self.done:
            return False
        lead = _lead_of(self.logs / child)
        if lead != self.lead and not (lead is None and child in self.claimed):
            return False
        if not folders.is_file(os.path.join(self.logs, child, CONVERSATION)):
            return False  # registered, its conversation not begun yet
        self.done.add(child)
        return True

    def orphans(self) -> list[tuple[str, dict[str, object]]]:
        """The conversations whose registry entry names this lead that no spawn read in
        (oldest first), each with its entry; each is then read in."""
        if not self.read_in:
            return []
        if not self._by_lead:
            found: list[tuple[float, str, str | None]] = []
            for name in self._subagents():
                meta = _subagent_meta(self.logs / name / META)
                started = meta.get("started_at")
                at = float(started) if isinstance(started, int | float) else 0.0
                found.append((at, name, _folder_name(meta.get("parent_logdir"))))
            for _, name, lead in sorted(found, key=lambda one: (one[0], one[1])):
                self._by_lead.setdefault(lead, []).append(name)
        return [
            (name, _subagent_meta(self.logs / name / META))
            for name in self._by_lead.get(self.lead, ())
            if name not in self.done
        ]

    def started(self, child: str) -> datetime | None:
        """When the conversation `child` began, by its first dated line."""
        return self._started(self.logs / child / CONVERSATION, None)

    def _subagents(self) -> list[str]:
        """The sub-agents' conversations beside the lead's (the folder listed once)."""
        if self._names is None:
            self._names = [
                entry.name
                for entry in folders.listing(self.logs)
                if entry.name.startswith("subagent-")
            ]
        return self._names

    def spawned(self, call_id: str, agent: str, time: datetime | None) -> str | None:
        """Note a spawn; the conversation it writes, if there is one yet."""
        child = self._child(agent, time)
        self.calls.add(call_id)
        self.agents[agent] = (call_id, child)
        return child

    def of(self, agent: str) -> tuple[str | None, str | None]:
        """The call that started `agent` last, and its conversation."""
        return self.agents.get(agent, (None, None))

    def _child(self, agent: str, time: datetime | None) -> str | None:
        """The conversation a spawn at `time` writes: `subagent-<id>-<xxxx>` (an
        executor's; the `subagent-<id>` of a planner, reused), the first one started at
        or after the call (an agent id comes again, in this conversation or another)."""
        stem = f"subagent-{agent}"
        best: tuple[datetime, str] | None = None
        for name in self._subagents():
            if name != stem and not (
                name.startswith(stem + "-") and _SUFFIX.fullmatch(name[len(stem) + 1 :])
            ):
                continue
            lead = _lead_of(self.logs / name)
            if lead is not None and lead != self.lead:
                continue  # another conversation's sub-agent, of the same id
            started = self._started(self.logs / name / CONVERSATION, time)
            if started is None and time is None:
                return name
            if started is not None and (best is None or started < best[0]):
                best = (started, name)
        return best[1] if best else None

    @staticmethod
    def _started(path: Path, after: datetime | None) -> datetime | None:
        """When the conversation at `path` began, if not before `after` (nor last
        written before it)."""
        try:
            if after is not None and path.stat().st_mtime < after.timestamp() - 1:
                return None
            head = files.head_lines(path, 4)
        except OSError:
            return None
        for line in head:
            record = files.parse_json(line)
            started = _time(record) if record is not None else None
            if started is not None:
                return started if after is None or started >= after else None
        return None


def _calls(
    content: str, offset: int
) -> tuple[list[tuple[str, str, JSONValue, bool]], str]:
    """The tool calls in an answer (id, tool, input, whether native) and its text
    without them."""
    import html  # here: every full list loads this source, and reads no answer

    found: list[tuple[int, str, str, JSONValue, bool]] = []
    kept: list[str] = []
    lines = content.split("\n")
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            kept.append(lines[index])
            index += 1
            continue
        end = _block_end(lines, index)
        if end is None:  # never closed (cut by an interrupt): gptme runs none of it
            kept.extend(lines[index:])
            break
        tool, _, args = fence.group(2).strip().partition(" ")
        if tool in _TOOL_LANGS:
            body = "\n".join(lines[index + 1 : end])
            found.append((index, "", tool, _arguments(tool, args, body), False))
        else:  # an example, output: text, and no call inside it is run
            kept.extend(lines[index : end + 1])
        index = end + 1
    position = len(lines)
    text = "\n".join(kept)
    for match in _XML_CALL.finditer(text):
        given = _XML_ARGS.search(match.group(2))
        args = (given.group(1) or given.group(2) or "") if given else ""
        tool = match.group(1)
        # gptme escapes what it writes (`_to_xml`: quoteattr, xml_escape) and reads the
        # text of the elements: `&lt;` is `<`
        body = html.unescape(match.group(3))
        found.append(
            (
                position + match.start(),
                "",
                tool,
                _arguments(tool, html.unescape(args), body),
                False,
            )
        )
    text = _XML_CALL.sub("", text)
    cut: list[tuple[int, int]] = []
    fenced = _fenced(text)
    starts = [start for start, _ in fenced]
    after = 0
    for match in _NATIVE_CALL.finditer(text):
        block = bisect.bisect_right(starts, match.start()) - 1
        if match.start() < after or (block >= 0 and match.start() < fenced[block][1]):
            continue  # inside the last call's JSON, or in a code block (an example)
        close = _json_end(text, match.end())
        if close is None:
            break  # cut short (gptme stops there too): no later call can close
        after = close
        found.append(
            (
                position + len(text) + match.start(),
                match.group(2),
                match.group(1),
                _native_arguments(text[match.end() : close]),
                True,
            )
        )
        cut.append((match.start(), close))
    for start, stop in reversed(cut):
        text = text[:start] + text[stop:]
    found.sort(key=lambda call: call[0])
    calls = [
        (call_id or f"md-{offset}-{n}", tool, arguments, native)
        for n, (_, call_id, tool, arguments, native) in enumerate(found)
    ]
    return calls, text


def _native_arguments(raw: str) -> JSONValue:
    """A native call's arguments: JSON as the API streamed them, or Python's repr of
    them (gptme's non-streaming Anthropic path writes `{block.input}`, read back with
    json_repair); the text itself when it is neither."""
    try:
        value, _ = files.loads_checked(raw.encode())
    except orjson.JSONDecodeError:
        value = None
        if len(raw) <= _REPR_CAP:
            try:
                value = ast.literal_eval(raw)  # literals only: nothing is run
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                value = None
    return json_copy(value) if isinstance(value, dict) else raw


def _arguments(tool: str, args: str, body: str) -> dict[str, JSONValue]:
    """A block's words and body under the tool's own parameter names (`save path`:
    `path`, then `content`); `args` and `content` for a tool not known here."""
    names = _PARAMETERS.get(tool)
    args = args.strip()
    if names is None:
        return {"args": args, "content": body} if args else {"content": body}
    if len(names) == 1:  # `read path`, or the body alone
        return {names[0]: args or body.strip()} if tool == "read" else {names[0]: body}
    return {names[0]: args, names[1]: body} if args else {names[1]: body}


def _block_end(lines: list[str], start: int) -> int | None:
    """The line that closes the code block opened at `start` (gptme nests blocks: a
    fence with a language opens one, a bare fence closes one); None if none does."""
    depth = 1
    for index in range(start + 1, len(lines)):
        fence = _FENCE.match(lines[index].strip())
        if fence is None:
            continue
        if fence.group(2).strip():
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return index
    return None


def _fenced(text: str) -> list[tuple[int, int]]:
    """The spans of the code blocks in `text`, in order, as gptme finds them to pass over
    native calls in them (`_codeblock_char_ranges`): a fence opens one that the next bare
    fence of as many backticks closes; an opening fence never closed is passed by."""
    fences = [
        (match.start(), len(match.group(1)), not match.group(2).strip(), match.end())
        for match in _FENCE_AT.finditer(text)
    ]
    bare: dict[int, list[int]] = {}
    for index, (_, width, plain, _) in enumerate(fences):
        if plain:
            bare.setdefault(width, []).append(index)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(fences):
        start, width, _, _ = fences[index]
        closers = bare.get(width, [])
        at = bisect.bisect_right(closers, index)
        if at == len(closers):
            index += 1
            continue
        close = closers[at]
        spans.append((start, fences[close][3]))
        index = close + 1
    return spans


def _json_end(text: str, start: int) -> int | None:
    """Where the JSON object at `start` ends (its closing brace + 1), strings minded."""
    depth = 0
    quoted = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_creation_tokens",
)


def _counts(metadata: dict[str, object]) -> dict[str, object]:
    """Where a response's tokens are: `usage` (0.31.1 on), or beside `model` before."""
    counts = metadata.get("usage")
    return counts if isinstance(counts, dict) else metadata


def _odd(metadata: dict[str, object]) -> bool:
    """Whether a response's tokens hold a count no app writes (`odd_count`): `_usage`
    bills it as 0 (or its whole part), said."""
    source = _counts(metadata)
    return any(odd_count(source.get(key)) for key in _COUNTS)


def _usage(metadata: dict[str, object]) -> Usage | None:
    """A response's tokens (`_counts`)."""
    source = _counts(metadata)
    usage = Usage(
        input_tokens=max(0, as_int(source.get("input_tokens"))),
        output_tokens=max(0, as_int(source.get("output_tokens"))),
        cache_read_tokens=max(0, as_int(source.get("cache_read_tokens"))),
        cache_write_tokens=max(0, as_int(source.get("cache_creation_tokens"))),
        model=stripped(metadata.get("model")),
    )
    return usage if usage.total else None


def _system(
    record: dict[str, object],
    text: str,
    time: datetime | None,
    event: Emitter,
    pending: deque[tuple[str, str | None]],
    full: bool,
    spawns: _Spawns,
) -> Iterator[Event]:
    if text == _INTERRUPTED:
        pending.clear()
        call_id = stripped(record.get("call_id"))
        if (
            call_id is not None
        ):  # a native call cut short: its result, then the turn's end
            yield event(
                "tool_result",
                time,
                tool=stripped(_metadata(record).get("tool")),
                call_id=call_id,
                text=text,
                is_error=True,
                extra={"interrupted": True},
            )
        yield event("turn_end", time, text=text, extra={"interrupted": True})
        return
    if text.startswith(_COMPACTED):  # what the model reads now is a view: this says so
        yield event("compaction", time, text=text)
        return
    ended = _SUBAGENT_END.match(text) if record.get("call_id") is None else None
    if ended is not None:  # the completion hook's note of a sub-agent's end
        spawn_call, child = spawns.of(ended.group(2))
        noted: dict[str, JSONValue] = {
            "subagent_status": "done" if ended.group(1) == "✅" else "failed"
        }
        if child:
            noted["child_id"] = child
        yield event("meta", time, call_id=spawn_call, text=text, extra=noted)
        return
    call_id = stripped(record.get("call_id"))
    tool = stripped(_metadata(record).get("tool"))
    if call_id is None and pending and record.get("hide") is not True:
        call_id, tool = pending.popleft()
    elif call_id is not None:
        for waiting in list(pending):
            if waiting[0] == call_id:
                pending.remove(waiting)
    if call_id is None:
        yield _meta(
            text, time, event, full, {"pinned": True} if record.get("pinned") else {}
        )
        return
    declined = text == _DECLINED
    failed = (
        declined
        or text.startswith(("Error executing tool", "Error during execution"))
        or _NOT_RUN.match(text) is not None
    )
    extra: dict[str, JSONValue] = {"declined": True} if declined else {}
    if call_id in spawns.calls and not failed:
        extra["launched"] = True  # subagent() returns at once; the hook notes its end
    yield event(
        "tool_result",
        time,
        tool=tool,
        call_id=call_id,
        text=text,
        is_error=failed,
        extra=extra,
    )
    if tool == _COMPLETE and not failed:
        # the model said it is done: gptme asks it nothing more (an autonomous run, or a
        # sub-agent, ends there)
        yield event("turn_end", time, extra={"reason": _COMPLETE})


def _system_prompt(event: Event) -> Event:
    """The system prompt's `meta` event, marked so: `show` draws it only at `--detail
    full`, as other apps' transcripts start with the user's prompt."""
    if event.kind != "meta":
        return event
    return replace(event, extra={**event.extra, "system_prompt": True})


def _meta(
    text: str,
    time: datetime | None,
    event: Emitter,
    full: bool,
    extra: dict[str, JSONValue],
) -> Event:
    """A message the model read that nobody typed (the system prompt, context gptme
    added): shortened past a few lines unless `full`."""
    if len(text) > _SHOWN * 2 and not full:
        start = " ".join(text[: _SHOWN * 2].split())[:_SHOWN]
        extra = {**extra, "characters": len(text)}
        text = f"context gptme gave the model ({len(text):,} characters): {start}…"
    return event("meta", time, text=text or None, extra=extra)


# --- resuming -------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`gptme --name <name>` (the hint gptme prints on exit) in the conversation's
    workspace; no `--no-confirm` is added, and one its config.toml saved, which gptme
    restores, is refused (`restores_looser`) unless `keep_permissions`. None for a name gptme would read otherwise
    (`random` starts a new one; one starting with `-`) or refuses
    (`util/conversation_ids.py`: `..`, a slash, a control character, space at an end)."""
    if not session.cwd or not _resumable(session.id):
        return None
    notes: tuple[str, ...] = ()
    if session.agent_type == "subagent":
        notes = ("a sub-agent's conversation: it reopens on its own, not in its lead",)
    argv: tuple[str, ...] = ("gptme", "--name", session.id)
    saved = _saved_no_confirm(session)
    unsure = "" if saved is not None else _UNREAD
    looser = "" if saved is False else "no-confirm setting (tools run without asking)"
    if keep_permissions:  # as saved: gptme restores it whatever the flags
        argv += ("--no-confirm",) if saved else ()
        looser = unsure = ""
    return ResumePlan(
        argv=argv,
        cwd=session.cwd,
        program="gptme",
        install_hint=INSTALL_HINT,
        notes=notes,
        restores_looser=looser,
        looser_unsure=unsure,
    )


_UNREAD = (
    "its config.toml could not be read (over 256 KB, unreadable or not TOML), so "
    "sessdex cannot tell whether it saved no_confirm"
)


def _saved_no_confirm(session: Session) -> bool | None:
    """Whether the conversation's config.toml saved `no_confirm = true` (a run with `-y`
    or `--non-interactive`), which gptme 0.35.1 keeps on a resume by name whatever its
    flags (`ChatConfig.load_or_create`: an unset flag overrides nothing) and none lowers.
    Read at resume time, not from the index: a small file, once. None where the file
    cannot be read: it may say so, and a line that reopens it unsaid is not given."""
    if not session.path:
        return False
    chat = _chat_table(Path(session.path).parent / CONFIG, Diagnostics())
    return None if chat is None else chat.get("no_confirm") is True


def _resumable(name: str) -> bool:
    """Whether `gptme --name <name>` reopens the conversation `name`."""
    return not (
        name in ("random", "", ".")
        or name.startswith("-")
        or name != name.strip()
        or ".." in name
        or "/" in name
        or "\\" in name
        or not name.isprintable()
        or len(name.encode("utf-8", "surrogateescape")) > 255
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `gptme` has open: `--name <name>` that conversation (a new one if
    none has the name), `-r`/`--resume` alone its latest."""
    return opened_by_flags(
        args, RESUME_FLAGS, lambda word: bool(word) and word != "random"
    )
