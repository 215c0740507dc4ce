"""Nanocoder (the Nano Collective's `nanocoder`): its chats, one JSON document each.

Nanocoder keeps a chat in `<app data>/sessions/<uuid>.json` (`$NANOCODER_DATA_DIR`, else
`$XDG_DATA_HOME/nanocoder`, else `~/.local/share/nanocoder`; macOS's `~/Library/Application
Support/nanocoder` and Windows' `%APPDATA%\\nanocoder`), rewritten whole (a temporary file
renamed over it, mode 0600) with JSON.stringify(session, null, 2) at each autosave of the TUI:
`{id, title, createdAt, lastAccessedAt, messageCount, provider, model, workingDirectory,
messages[], titleManuallySet?}` in that order. Beside them `sessions.json` is an index of
the same members less the messages. A message is `{role: user|assistant|tool|system,
content (text), tool_calls?: [{id, function: {name, arguments (an object)}}],
tool_call_id?, name?, reasoning?, structuredContent? (a tool's, beside its text),
images?: [{data (base64), mediaType}]}`: no time per message, no usage (1.30.0's
`usage.json` writer has no caller), no model per response. The title is Nanocoder's own:
the TUI's is its last user message's first 50 characters (`...` past them; a nudge of its
own counts), an editor's ACP session's its first prompt's first line, cut at 50; a title
renamed in the editor (`titleManuallySet`) stays.

A listing reads a session file's first bytes only, where its members stand before its
messages (a pasted image can make the rest of one huge): the index fills in what a head
does not say, and a file not laid out so is parsed whole up to a cap. A sub-agent (the
`agent` tool) runs in memory: only its report, the tool's output, reaches the file.

`nanocoder run`, the TUI and an editor's ACP session (`--acp`, acp-agent.js: the same
document, `titleManuallySet` then before `createdAt`) write chats; `--plain` writes none. Resume:
`nanocoder --resume <id>` in the chat's folder (interactive only; no `--mode` is added), none
for a chat outside the one sessions folder nanocoder would open it from there (a chat left
in the default folder after the preferences moved it: `resume_refusal` says so).
`agents.config.json` (API keys) and the `*-credentials.json` logins beside it are never
opened. Since 1.25 a `nanocoder.sessions.directory` in the config folder's
`nanocoder-preferences.json` (no keys: theme, last model, trusted folders) moves the
sessions folder (`$NANOCODER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/nanocoder`,
`~/Library/Preferences/nanocoder` on macOS, the data folder on Windows): it is listed too
(`~` is the home; a relative one is each run's own, said by doctor, not followed). A
relative `NANOCODER_DATA_DIR` is each run's own too: read against sessdex's working folder,
and said by doctor; the index is kept by the folder it names from there (`indexfile.home_key`
resolves a relative override), so runs from two folders never share records. Not
followed either: a project's own `nanocoder-preferences.json` (read where nanocoder starts),
and 1.24's setting, which stood in `agents.config.json`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics
from ..hints import named
from ..model import Event, JSONValue, ResumePlan, Session
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    iso_time,
    one_line,
    shown_arguments,
    shown_text,
    stat_size,
    stripped,
    type_tag,
    written_time,
)
from .base import Home, Location, Opened, ResumeFlags, WholeRead, opened_by_flags

NAME = "nanocoder"
TITLE = "Nanocoder"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "the real nanocoder 1.30.0 (npm @nanocollective/nanocoder) against a mock model, by "
    "hand and in the conformance suite: `run` in its Ink runtime with a shell call, "
    "`--resume <id>` in the TUI, an `agent` sub-agent call (and one naming an agent it "
    "lacks); its 1.30.0 bundle (session/session-manager.js, hooks/useSessionAutosave.js, "
    "config/paths.js) for the rest"
)
NEWEST_CHECKED = "1.30.0"
ENV_VARS = ("NANOCODER_DATA_DIR", "NANOCODER_CONFIG_DIR")
CLI = ("nanocoder",)
INSTALL_HINT = "npm install -g @nanocollective/nanocoder"

INDEX = "sessions.json"
PREFERENCES = "nanocoder-preferences.json"  # no keys: those are in agents.config.json
# what a chat's `extra["opened_from"]` keeps for `resume`: the home, the default sessions
# folders and the preferences files that may name another
_HOME = "home"
_DEFAULTS = "defaults"
_PREFERENCES = "preferences"
WHOLE_CAP = files.WHOLE_JSON_CAP  # a bigger chat is read a message at a time
_HEAD = 16 * 1024  # bytes of a chat's head its members are read from
_MESSAGES = frozenset({"messages"})
_ROLES = frozenset({"user", "assistant", "tool", "system"})
# the platform folders Nanocoder keeps its data in, where XDG_DATA_HOME is not set
_PLATFORM = (
    ("Library", "Application Support", "nanocoder"),
    ("AppData", "Roaming", "nanocoder"),
)
# A top-level member as JSON.stringify(session, null, 2) writes it: at the start of a line,
# two spaces in (a string's own newlines are escaped, so only structure starts a line).
_TOP_MEMBER = re.compile(
    rb'^  "(id|title|createdAt|lastAccessedAt|messageCount|provider|model|workingDirectory)"'
    rb': ("(?:[^"\\\n]|\\.)*"|-?\d+)',
    re.MULTILINE,
)
# what Nanocoder itself writes as a user message (nudges, notices), not the user
_INJECTED = (
    "Your previous response contained a malformed tool call.",
    "Context has been compacted. Please continue with the task.",
    "Please continue with the task.",
    "Please provide a summary or response based on the tool results above.",
    "You produced reasoning but no final response.",
    "Automatic diagnostics after the recent edits found issues.",
)
_SUMMARY = re.compile(r"\A<conversation-summary>\n(.*)\n</conversation-summary>", re.S)
# a tool's output that says it failed or was refused (tool-executor.js, tool-validation.js;
# an editor's ACP session, acp-conversation.js), as session-history-renderer.js tells them
_FAILED = (
    "Error: ",
    "⚒ Validation failed",
    "Tool execution was cancelled by the user.",
    "Tool call denied by user",
)

# the ids Nanocoder opens (session-manager.js: anything else is refused as a path)
_SESSION_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)

RESUME_FLAGS = ResumeFlags(
    resume=("--resume", "-r"),
    latest=("--continue", "-c"),
    latest_values=("last",),
    bare_latest=False,
)


def locate(home: Home) -> Location:
    """`$NANOCODER_DATA_DIR`, else `$XDG_DATA_HOME/nanocoder`, else `~/.local/share/nanocoder`
    (and the macOS and Windows folders, config/paths.js); a sessions folder the config
    folder's `nanocoder-preferences.json` names is `also`."""
    config = home.env_dir("NANOCODER_CONFIG_DIR")
    configs: tuple[Path, ...] = (
        (config,)
        if config is not None
        else (
            home.xdg("config") / "nanocoder",
            home.path / "Library" / "Preferences" / "nanocoder",
        )
    )
    given = home.env_dir("NANOCODER_DATA_DIR")
    data = home.environ.get("XDG_DATA_HOME")
    notes: list[str] = []
    if given is not None and not given.is_absolute():
        # nanocoder reads it against the folder each run starts in, which sessdex cannot
        # know: read against sessdex's own, and said
        here = Path.cwd()
        notes.append(
            f"NANOCODER_DATA_DIR={given} is relative: nanocoder reads it against the "
            f"folder each run starts in; read here against sessdex's working folder, {here}"
        )
        given = here / given
    root = given if given is not None else home.xdg("data") / "nanocoder"
    override: str | None = None
    platform: tuple[Path, ...] = ()
    if given is not None:
        override = f"NANOCODER_DATA_DIR={home.environ['NANOCODER_DATA_DIR']}"
    elif data:
        override = f"XDG_DATA_HOME={data}"
    else:
        platform = tuple(home.path.joinpath(*p) for p in _PLATFORM)
    if config is None:  # Windows keeps its preferences in its data folder
        configs += platform[1:]
    also: list[Path] = [folder / "sessions" for folder in platform]
    for folder in configs:
        chosen, note = _chosen_folder(home, folder / PREFERENCES)
        if note:
            notes.append(note)
        if chosen is not None and chosen not in (root / "sessions", *also):
            also.append(chosen)
    return Location(
        root,
        override=override,
        also=tuple(also),
        keeps=(*configs, *platform),
        notes=tuple(notes),
        # what `resume` asks which folder nanocoder opens chats in now
        settings=(
            f"{_HOME}={home.path}",
            *(f"{_DEFAULTS}={folder / 'sessions'}" for folder in (root, *platform)),
            *(f"{_PREFERENCES}={folder / PREFERENCES}" for folder in configs),
        ),
    )


def _chosen_folder(home: Home, preferences: Path) -> tuple[Path | None, str | None]:
    """The sessions folder `nanocoder.sessions.directory` of a preferences file names
    (session-manager.js: `~` and `~/…` below the home, an absolute path as it is); a
    relative one is each run's own (resolved where it starts): None, and why."""
    value = _directory_setting(preferences)
    if value is None:
        return None, None
    if value == "~" or value.startswith("~/"):
        return home.path / value[2:], None
    if Path(value).is_absolute():
        return Path(value), None
    return None, (
        f"nanocoder.sessions.directory {value!r} in {preferences} is not followed: "
        "nanocoder resolves a relative folder against the folder each run starts in"
    )


def _directory_setting(preferences: Path) -> str | None:
    """`nanocoder.sessions.directory` in a preferences file, where it is set."""
    value = as_dict(_sessions_setting(preferences)).get("directory")
    return value if isinstance(value, str) and value else None


def _sessions_setting(preferences: Path) -> dict[str, JSONValue] | None:
    """The `nanocoder.sessions` object of a preferences file, where it has one."""
    settings = files.read_json_file(preferences, limit=1024 * 1024)
    found = as_dict(as_dict(settings).get("nanocoder")).get("sessions")
    return found if isinstance(found, dict) else None


# where `scan` reads a chat or the index of them (see base.py), in `sessions/` or a
# sessions folder the preferences name (`also`): a broken link elsewhere hides none
SESSION_NAMES = ("sessions", "sessions/*.json", "*.json")


def scan(location: Location) -> Iterator[str]:
    """The chats and `sessions.json` in each data folder's `sessions/` and in a sessions
    folder the preferences name."""
    for folder in (location.root / "sessions", *location.also):
        if not folders.dir_at(folder):  # a broken link there is named
            continue
        for entry in folders.entries(folder, folder):
            # `<id>.json.<uuid>.tmp` is a write under way; a chosen folder can be the
            # config folder (or a project's), where `.mcp.json` holds MCP servers' tokens
            # and the preferences are no chat: Nanocoder names no chat so
            name = entry.name
            if (
                name.endswith(".json")
                and not name.startswith(".")
                and name != PREFERENCES
                and folders.file_entry(entry)
            ):
                yield entry.path


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == INDEX:
        return _parse_index(path, diagnostics)
    size = stat_size(path)
    if size is None:
        files.say_if_refused(NAME, path, diagnostics)
        return []
    top = _head(path)
    if top is None:  # not laid out as Nanocoder writes it: parsed, up to a cap
        top = _members(path, size, diagnostics)
        if top is None:
            return []
    # the file's name is the id Nanocoder opens it by (`<id>.json`)
    session = _session(path.stem, top, path=str(path), size=size)
    opened_from: dict[str, JSONValue] = {}
    for said in location.settings:
        name, _, value = said.partition("=")
        if name == _HOME:
            opened_from[name] = value
        else:
            listed = opened_from.setdefault(name, [])
            if isinstance(listed, list):
                listed.append(value)
    return [
        dataclasses.replace(
            session, extra={**session.extra, "opened_from": opened_from}
        )
    ]


def _head(path: Path) -> dict[str, object] | None:
    """The chat's members from its first bytes, where it starts as Nanocoder writes it."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_HEAD)
    except OSError:
        return None
    if not head.startswith(b"{\n"):
        return None
    # the members before `messages`: a string member of the messages is deeper in
    cut = head.find(b'\n  "messages": ')
    found: dict[str, object] = {}
    for match in _TOP_MEMBER.finditer(head if cut < 0 else head[:cut]):
        try:
            found[match.group(1).decode()] = orjson.loads(match.group(2))
        except orjson.JSONDecodeError:
            continue
    return found if isinstance(found.get("id"), str) else None


def _members(
    path: Path, size: int, diagnostics: Diagnostics
) -> dict[str, object] | None:
    """The chat's members other than its messages, from the whole document (a piece at
    a time past the cap); None, counted, where it holds none."""
    if size <= WHOLE_CAP:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            return {k: v for k, v in value.items() if k != "messages"}
        if isinstance(value, dict):
            diagnostics.skip(str(path), 1, "bad value")
            return None
        if value is not None:
            diagnostics.skip(str(path), 1, "not an object")
            return None
    from ..jsonstream import file_members

    top = file_members(path, _MESSAGES, diagnostics, NAME, cut=True)
    if top is None:
        if not files.refuses_reading(str(path)):
            diagnostics.skip(str(path), 1, "not JSON")
        return None
    if not isinstance(
        top.get("id"), str
    ):  # cut before its id: nothing says it is a chat
        diagnostics.skip(str(path), 1, "bad value")
        return None
    return top


def _session(
    session_id: str,
    top: dict[str, object],
    *,
    path: str | None = None,
    size: int | None = None,
    precedence: int = 0,
    listed: bool = True,
) -> Session:
    extra: dict[str, JSONValue] = {}
    provider = stripped(top.get("provider"))
    if provider:
        extra["provider"] = provider
    if isinstance(top.get("messageCount"), int):
        extra["message_count"] = as_int(top.get("messageCount"))
    return Session(
        app=NAME,
        id=session_id,
        path=path,
        cwd=stripped(top.get("workingDirectory")),
        title=one_line(top.get("title")),
        created=iso_time(top.get("createdAt")),
        updated=iso_time(top.get("lastAccessedAt"))
        or (written_time(Path(path)) if path else None),
        model=stripped(top.get("model")),
        bytes=size,
        precedence=precedence,
        listed=listed,
        extra=extra,
    )


def _parse_index(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """`sessions.json`: what it says of each chat fills in what the chat's head does not;
    a chat it lists without a file is not listed."""
    entries: Iterable[object]
    if (stat_size(path) or 0) > WHOLE_CAP:  # thousands of chats: an entry at a time
        from ..jsonstream import file_items

        entries = file_items(path, None, diagnostics, NAME)
    else:
        value = files.read_json_file(path, limit=WHOLE_CAP, diagnostics=diagnostics)
        if not isinstance(value, list):
            if value is not None or stat_size(path):
                reason = "not JSON" if value is None else "bad value"
                diagnostics.skip(str(path), 1, reason)
            return []
        entries = value
    found: list[Session] = []
    for entry in entries:
        session_id = as_str(as_dict(entry).get("id"))
        if not session_id:
            diagnostics.skip(str(path), 0, "bad value")
            continue
        found.append(_session(session_id, as_dict(entry), precedence=-1, listed=False))
    return found


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path is None:
        return
    from . import _json_chat

    found = _json_chat.document(
        Path(session.path), NAME, "messages", WHOLE_CAP, diagnostics
    )
    if found is not None:
        yield from _Reader(session, diagnostics).messages(found.items)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the chat's last `rows` messages, found from its end (see base.py);
    the message before them is translated too, unshown, for the calls it made (a result
    names its call's tool)."""
    from . import _json_chat

    # one written on one line (another tool's copy) too: `{id, …, messages: [{role}]}`
    compact = _json_chat.Compact("id", "role")
    found = _json_chat.last_messages(
        Path(session.path or ""), rows + 1, compact=compact
    )
    if found is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    before = _Reader(session, diagnostics)
    for _ in before.messages(iter(found[:1])):
        pass
    reader = _Reader(session, diagnostics)
    reader.tools = before.tools
    yield from reader.messages(iter(found[1:]))


class _Reader:
    """Translates a chat's messages into events; a tool's output follows its call."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.event = Emitter(session.id)
        self.diagnostics = diagnostics
        self.path = session.path or ""
        self.tools: dict[str, str | None] = {}  # call id -> tool name

    def messages(self, messages: Iterator[object]) -> Iterator[Event]:
        for raw in messages:
            if not isinstance(raw, dict):
                self.diagnostics.skip(self.path, 0, "not an object")
                continue
            role = type_tag(raw.get("role"))
            if role not in _ROLES:
                self.diagnostics.unknown_type(f"message:{role}")
                continue
            yield from self.message(raw, str(role))

    def message(self, message: dict[str, object], role: str) -> Iterator[Event]:
        event = self.event
        text = self._text(message)
        if role == "user":
            summary = _SUMMARY.match(text or "")
            if summary:  # what /compact (its LLM summary) left of the chat before
                yield event("compaction", text=summary.group(1).strip())
            elif text and text.startswith(_INJECTED):
                yield event("user", text=text, extra={"injected": True})
            else:
                yield event("user", text=text or "")
        elif role == "assistant":
            reasoning = shown_text(message.get("reasoning"), keep_empty=False)
            if reasoning:
                yield event("thinking", text=reasoning)
            if text:
                yield event("assistant", text=text)
            calls = as_list(message.get("tool_calls"))
            for raw in calls:
                call = as_dict(raw)
                function = as_dict(call.get("function"))
                call_id = as_str(call.get("id"))
                tool = as_str(function.get("name"))
                if call_id is None and tool is None:
                    self.diagnostics.skip(self.path, 0, "bad value")
                    continue
                arguments = function.get("arguments")
                yield event(
                    "tool_call",
                    tool=tool,
                    call_id=call_id,
                    extra={"input": shown_arguments(arguments or {})},
                )
                if call_id:
                    self.tools[call_id] = tool
            if not calls and text:  # an answer that asks for no tool ends the turn
                yield event("turn_end")
        elif role == "tool":
            call_id = as_str(message.get("tool_call_id"))
            output = text or ""
            yield event(
                "tool_result",
                text=output,
                tool=self.tools.get(call_id or "") or as_str(message.get("name")),
                call_id=call_id,
                is_error=output.startswith(_FAILED),
            )
        # a system message (its prompt) is added for each request, not kept: passed over

    def _text(self, message: dict[str, object]) -> str | None:
        """A message's text, a pasted image named after it; content that is not text
        is counted."""
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            self.diagnostics.skip(self.path, 0, "bad value")
        return _text(message)


def _text(message: dict[str, object]) -> str | None:
    """A message's text, a pasted image named after it."""
    text = shown_text(message.get("content"), keep_empty=False)
    images = [
        f"[image: {as_str(as_dict(image).get('mediaType')) or 'image'}]"
        for image in as_list(message.get("images"))
    ]
    if images:
        return "\n".join([text, *images] if text else images)
    return text


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`nanocoder --resume <id>` in the chat's folder (Nanocoder opens `<id>.json` in its
    sessions folder, which a project's own preferences can move: hence that folder); no
    `--mode` is added, so it asks as it does.
    None for a file whose name is no lowercase UUID, which Nanocoder refuses to open, and
    for a chat outside the folder Nanocoder would open it from (`resume_refusal`)."""
    if not session.cwd or not _SESSION_ID.fullmatch(session.id):
        return None
    if resume_refusal(session) is not None:
        return None
    return ResumePlan(
        argv=("nanocoder", "--resume", session.id),
        cwd=session.cwd,
        program="nanocoder",
        install_hint=INSTALL_HINT,
    )


def resume_refusal(session: Session) -> str | None:
    """Why `nanocoder --resume <id>`, run in the chat's folder, would not find this chat:
    Nanocoder opens `<id>.json` only in the sessions folder its preferences name now
    (config/index.js: `nanocoder.sessions` of the folder's own `nanocoder-preferences.json`,
    else of the config folder's; session-manager.js: `~` the home, a relative folder
    against the folder it runs in, none its data folder's `sessions/`)."""
    opened_from = session.extra.get("opened_from")
    if not session.path or not session.cwd or not isinstance(opened_from, dict):
        return None
    home = opened_from.get(_HOME)
    defaults = opened_from.get(_DEFAULTS)
    preferences = opened_from.get(_PREFERENCES)
    if not isinstance(home, str) or not isinstance(defaults, list):
        return None
    candidates = [Path(session.cwd) / PREFERENCES]
    if isinstance(preferences, list):
        candidates += [Path(p) for p in preferences if isinstance(p, str)]
    said = next(
        (
            (where, setting)
            for where in candidates
            if (setting := _sessions_setting(where)) is not None
        ),
        None,
    )
    value = as_dict(said[1]).get("directory") if said is not None else None
    chat_folder = os.path.normpath(Path(session.path).parent)
    if not isinstance(value, str) or not value:
        opened = [os.path.normpath(d) for d in defaults if isinstance(d, str)]
        if chat_folder in opened or not opened:
            return None
        named_by = (
            f"{said[0]} names no sessions folder" if said is not None else
            "no preferences name a sessions folder now"
        )  # fmt: skip
        why = f"{named_by}, so nanocoder opens chats from {opened[0]}"
    else:
        if value == "~" or value.startswith("~/"):
            folder = Path(home) / value[2:]
        else:
            folder = Path(session.cwd) / value  # an absolute one stays whole
        if os.path.normpath(folder) == chat_folder:
            return None
        why = (
            f"nanocoder.sessions.directory in {said[0] if said else '?'} makes nanocoder "
            f"open chats from {folder}"
        )
    return (
        f"this chat is in {Path(session.path).parent}, but {why}: `nanocoder --resume` "
        f"would not find it. {named('show', f'{session.app}:{session.id}')} reads it."
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `nanocoder` has open: `--resume <id>` that chat, `--resume` alone
    a picker (or a number in its list), `--continue` (or `--resume last`) its folder's
    latest."""
    return opened_by_flags(args, RESUME_FLAGS)
