"""VS Code's built-in Chat (GitHub Copilot Chat: ask, edit and agent mode): its chats.

The chat service (`ChatSessionStore`, src/vs/workbench/contrib/chat/common/model/ in
microsoft/vscode) writes one file per chat, named by its session id, in
`<user data>/User/workspaceStorage/<workspace id>/chatSessions/` for a window with a
folder or workspace, and in `User/globalStorage/emptyWindowChatSessions/` for one without
(before that, `workspaceStorage/no-workspace/chatSessions/`, still read by VS Code where
the new folder has no copy). Before 1.109 a chat is `<id>.json`, `ISerializableChatData`
v3 rewritten whole; since, `<id>.jsonl`, an operation log (see `_vscode_chat`), which VS Code
reads in preference to a `.json` of the same id it left behind: so does sessdex.
`workspaceStorage/<id>/workspace.json` names the window's `folder` (a URI) or `workspace`
(a `.code-workspace` file's URI: the folder it is in is the chat's). A remote folder
(`vscode-remote://…`) has no local path: it is kept in `extra["workspace"]`.
`globalStorage/transferredChatSessions/` holds a chat handed to another window for five
minutes: listed only where no other file has its id. A chat with no request (a chat
view opened and left empty) is not listed.

User data folders: Code, Code - Insiders, Code - OSS, VSCodium (and its Insiders) in
`~/.config` (`$XDG_CONFIG_HOME`), `~/Library/Application Support` and `AppData/Roaming`;
`$VSCODE_APPDATA/<product>` and `$VSCODE_PORTABLE/user-data` before them; VS Code Server's
`~/.vscode-server/data` (`$VSCODE_AGENT_FOLDER/data` where that is set; and Insiders',
VSCodium's, OpenVSCode's, code-server's and the Flatpaks') on a remote host. Forks
(Cursor, Windsurf, …) are not looked in: their agents keep their own stores (Cursor's is
the cursor reader's), and a chat listed from both would be listed twice.

The title is the chat's `customTitle`, else the title VS Code's index keeps for it
(`chat.ChatSessionStore.index` in ItemTable of the workspace's state.vscdb, the user data's
`globalStorage/state.vscdb` for an empty window; read through a snapshot while VS Code
holds its WAL): a chat renamed from the history list while it was not open has its new
title there only; else its first prompt. A rename alone changes no chat file: the listing
shows it once the chat is written again. VS Code has no command to reopen a given chat:
`resume` says to open the folder and pick the chat in the Chat view's history.

What a request's `result.metadata` holds is Copilot Chat's (microsoft/vscode-copilot-chat,
`IResultMetadata`), read from its source: `toolCallRounds` (`id`, `response`,
`toolInputRetry`, `toolCalls[{name, arguments as JSON text, id}]`, `thinking?`, `summary?`)
and `toolCallResults` (by call id, `{content: [{value}]}`), a call's id there being the
model's with `__vscode-<n>` after it, where VS Code names the call's part by the model's
id alone (the source) or by a UUID of its own (real chats of 1.105 to 1.109: those parts
pair with the rounds' calls in order); `summaries` (`summary` before them): the
conversation summarized, a compaction; `promptTokens`/`outputTokens` for Anthropic models
only, the counts of the turn's last model call (a turn of several rounds used more): read
as the turn's usage, else the request's own `promptTokens`/`completionTokens` (VS Code
keeps them in 2026, whatever the model).
Tools' arguments keep Copilot's names (`run_in_terminal` `command`, `replace_string_in_file`
`filePath`/`oldString`/`newString`, `multi_replace_string_in_file` `replacements`,
`create_file` `filePath`/`content`, `apply_patch` `input`, `read_file` `filePath`). A
running call's part is written as a finished one's (`isComplete` true) less its result.
Checked against real chats too: a `.json` of October 2025 and a `.jsonl` of February 2026
(tests/data/vscode/real), and the shapes of an exported chat of September 2026 (request
counts, Auto's pick): what other extensions' participants write stays read from the source
alone. An exported chat (Chat: Export Chat…) is no chat of the store and is not listed; one
imported again is stored as any other chat.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .. import databases, files, folders, freshness, shells
from ..diagnostics import Diagnostics
from ..errors import NotQuotable
from ..model import Event, JSONValue, ResumePlan, Session
from . import _vscode_chat as chat
from ._values import as_dict, as_str, local_path, ms_time, one_line, stat_size
from ._vscode_tasks import config_bases
from .base import Home, Location

NAME = "vscode"
TITLE = "VS Code Chat (Copilot)"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
REPLAYED_LOGS = True  # a .jsonl chat's lines set what earlier ones wrote: read it whole
CHECKED_WITH = (
    "VS Code's and Copilot Chat's source, and real chats of 2025-10 (.json) and 2026-02 "
    "(.jsonl, Copilot Chat 0.37.1) from git-ai-project/git-ai's fixtures (Medium confidence): "
    "microsoft/vscode src/vs/workbench/contrib/chat/common/model/chatSessionStore.ts and "
    "objectMutationLog.ts @047238f9, chatSessionOperationLog.ts @03d43368 (the 1.109+ "
    ".jsonl log, rewritten whole past 1024 entries, and the older .json v3), "
    "chatProgressTypes/chatToolInvocation.ts @06419c3c (toJSON), "
    "languageModelToolsService.ts (a part's toolCallId), "
    "builtinTools/runSubagentTool.ts @31759a52; microsoft/vscode-copilot-chat @31acd00a: "
    "prompt/common/conversation.ts and intents.ts (IResultMetadata, IToolCallRound), "
    "intents/node/toolCallingLoop.ts (call ids, token counts), "
    "prompt/node/defaultIntentRequestHandler.ts, tools/common/toolNames.ts and the "
    "tools' parameters; synthetic files beside the real ones"
)
ENV_VARS = (
    "VSCODE_APPDATA",
    "VSCODE_PORTABLE",
    "XDG_CONFIG_HOME",
    "VSCODE_AGENT_FOLDER",
)

EDITORS = ("Code", "Code - Insiders", "Code - OSS", "VSCodium", "VSCodium - Insiders")
# a server install keeps the same User/ tree under the home
SERVER_DIRS = (
    ".vscode-server/data",
    ".vscode-server-insiders/data",
    ".vscode-remote/data",
    ".vscodium-server/data",
    ".vscodium-server-insiders/data",
    ".openvscode-server/data",
    ".local/share/code-server",
    ".var/app/com.visualstudio.code/config/Code",
    ".var/app/com.vscodium.codium/config/VSCodium",
)
CHATS = "chatSessions"
EMPTY_WINDOW = ("globalStorage", "emptyWindowChatSessions")
TRANSFERRED = ("globalStorage", "transferredChatSessions")
OLD_EMPTY_WINDOW = "no-workspace"
_WORKSPACE_CAP = 64 * 1024
_STATE = "state.vscdb"
INDEX_KEY = "chat.ChatSessionStore.index"  # ChatSessionStore's, in ItemTable
_INDEX_CAP = 16 * 1024 * 1024  # VS Code keeps 400 chats' entries: a few hundred KB
_INDEXES: dict[str, tuple[str, dict[str, object]]] = {}  # path -> (its look, entries)


def locate(home: Home) -> Location:
    users = [base / editor for base in config_bases(home) for editor in EDITORS]
    portable = home.env_dir("VSCODE_PORTABLE")
    if portable is not None:
        users.insert(0, portable / "user-data")
    agent = home.env_dir("VSCODE_AGENT_FOLDER")  # where VS Code Server was put instead
    if agent is not None:
        users.append(agent / "data")
    users += [home.path / server for server in SERVER_DIRS]
    users = list(dict.fromkeys(users))
    said = [
        f"{name}={home.environ[name]}"
        for name in ENV_VARS
        if home.env_dir(name) is not None
    ]
    return Location(
        users[0],
        override=", ".join(said) or None,
        also=tuple(users[1:]),
        owned=tuple(users),
    )


def _users(location: Location) -> list[Path]:
    return list(dict.fromkeys((location.root, *location.also)))


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for user in _users(location):
        base = user / "User"
        if not folders.is_dir(base):
            continue
        seen: set[str] = set()
        yield from _chats(base.joinpath(*EMPTY_WINDOW), seen, user)
        storage = base / "workspaceStorage"
        for entry in folders.entries(storage, user):
            folder = Path(entry.path) / CHATS
            if folders.is_dir(folder):
                # the old empty-window folder: only what VS Code did not copy on
                yield from _chats(folder, seen, user, entry.name == OLD_EMPTY_WINDOW)
                if folders.is_file(named := Path(entry.path) / _WORKSPACE):
                    yield named  # a context file (`context_of`)
        yield from _chats(base.joinpath(*TRANSFERRED), seen, user, True)


def _chats(
    folder: Path, seen: set[str], root: Path, only_new: bool = False
) -> Iterator[Path]:
    found = [
        e for e in folders.entries(folder, root) if e.name.endswith((".json", ".jsonl"))
    ]
    names = {e.name for e in found}
    for entry in found:
        stem, _, suffix = entry.name.rpartition(".")
        if suffix == "json" and f"{stem}.jsonl" in names:
            continue  # VS Code reads the log, not the file it wrote before
        if not stem or (only_new and stem in seen) or not folders.file_entry(entry):
            continue  # a folder so named hides a chat: noted by `file_entry`
        seen.add(stem)
        yield Path(entry.path)


_WORKSPACE = "workspace.json"  # the folder of a workspace's chats (`_folder`)


def context_of(path: str, location: Location) -> str | None:
    """A workspace's `workspace.json`, for its chats: their folder comes from it."""
    folder, base = os.path.split(path)
    return folder if base == _WORKSPACE else None


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == _WORKSPACE:  # read with the workspace's chats (`context_of`)
        return []
    state = chat.load(path, diagnostics, listing=True)
    if state is None:
        return []
    if not isinstance(state.get("requests"), list):
        # every chat VS Code writes has the list, empty or not: this one is damaged
        diagnostics.skip(str(path), 1, "no requests")
        return []
    requests = chat.requests(state)
    if not requests:
        return []
    session_id = path.name.rpartition(".")[0]
    extra: dict[str, JSONValue] = {"store": path.name.rpartition(".")[2]}
    cwd, workspace = _folder(path)
    if workspace:
        extra["workspace"] = workspace
    where = as_str(state.get("initialLocation"))
    if where:
        # the editing session's old location is the Chat view's (ChatAgentLocation.Chat)
        extra["location"] = "panel" if where == "editing-session" else where
    # a version 2 chat's `computedTitle` is its title (normalizeSerializableChatData)
    own = state.get("computedTitle" if state.get("version") == 2 else "customTitle")
    title = (
        one_line(own)
        or one_line(_indexed_title(path, session_id))
        or one_line(chat.prompt(requests[0]))
    )
    times = [ms_time(r.get("timestamp")) for r in requests] + [
        chat.ended(r) for r in requests
    ]
    created = ms_time(state.get("creationDate")) or next((t for t in times if t), None)
    updated = max(
        [t for t in (*times, ms_time(state.get("lastMessageDate"))) if t is not None],
        default=created,
    )
    model = next((m for r in reversed(requests) if (m := chat.model_name(r))), None)
    return [
        Session(
            app=NAME,
            id=session_id,
            path=str(path),
            cwd=cwd,
            title=title,
            created=created,
            updated=updated,
            model=model,
            bytes=stat_size(path),
            extra=extra,
        )
    ]


def _indexed_title(path: Path, session_id: str) -> str | None:
    """The title VS Code's index keeps for the chat: a chat renamed from the history list
    while it was not open has its new title there only. The index is in the workspace's
    state.vscdb (the user data's `globalStorage/state.vscdb` for an empty window's)."""
    if path.parent.name not in (CHATS, EMPTY_WINDOW[1]):
        return None  # a transferred chat: no index keeps it
    entry = as_dict(_index(path.parent.parent / _STATE).get(session_id))
    return as_str(entry.get("title"))


def _index(database: Path) -> dict[str, object]:
    """The index's entries by session id; empty where there is no index. Kept for the
    last few databases read: a workspace's chats are listed one after another. Each
    call reads the database for the parse it serves (`freshness.depending`), from the
    cache or not: a chat's title follows what the index holds now."""
    freshness.note_depended(database)
    freshness.note_depended(f"{database}-wal")
    key = os.fspath(database)
    # its header's change counter, or its WAL's state, which every commit moves: a
    # commit in the tick of the last read keeps the mtime, and often the size
    look = freshness.read_signature(key)
    if look == freshness.ABSENT:
        return {}
    held = _INDEXES.get(key)
    if held is not None and held[0] == look:
        return held[1]
    entries: dict[str, object] = {}
    # the user data's global store also keeps what extensions store as secrets
    # (`secret://` keys: logins, encrypted with a key the OS keyring or a fixed one
    # holds), never read
    global_store = Path(database).parent.name == "globalStorage"
    try:
        connection = databases.open_sqlite(database, login=global_store)
    except (OSError, sqlite3.Error):
        return {}
    try:
        row = connection.execute(
            "SELECT rowid FROM ItemTable WHERE key = ?", (INDEX_KEY,)
        ).fetchone()
        value = (
            databases.bounded_value(connection, "ItemTable", "value", row[0])
            if row
            else None
        )
        if value is not None and len(value) <= _INDEX_CAP:
            entries = as_dict(as_dict(files.loads(_bytes(value))).get("entries"))
    except (sqlite3.Error, ValueError):
        entries = {}
    finally:
        connection.close()
    if len(_INDEXES) >= 8:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[key] = (look, entries)
    return entries


def _bytes(value: bytes | str) -> bytes:
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value


def _folder(path: Path) -> tuple[str | None, str | None]:
    """(the local folder, the remote workspace's URI) of a chat kept for a workspace."""
    if path.parent.name != CHATS:
        return None, None
    data = files.read_json_file(path.parent.parent / _WORKSPACE, _WORKSPACE_CAP)
    found = as_dict(data)
    folder = as_str(found.get("folder"))
    if folder:
        local = local_path(folder)
        return (local, None) if local else (None, folder)
    workspace = as_str(found.get("workspace"))
    if workspace:
        local = local_path(workspace)
        if local:
            return os.path.dirname(local.rstrip("/\\")) or None, None
        return None, workspace
    return None, None


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    state = chat.load(Path(session.path), diagnostics, full=full)
    if state is not None:
        translator = chat.Translator(session.id, diagnostics, session.path)
        yield from translator.events(state)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: VS Code opens a chat only from its Chat view (see `resume_refusal`)."""
    return None


def resume_refusal(session: Session) -> str | None:
    """How to reopen a chat in VS Code, which has no command for it."""
    title = one_line(session.title) if session.title else None
    which = f'"{title}"' if title else "it"
    where = "open VS Code (an empty window for a chat without a folder), then"
    if session.cwd:
        with contextlib.suppress(NotQuotable):  # no line that shell could take
            where = f"run `{shells.run(('code', session.cwd))}`, then"
    return (
        "VS Code has no command to reopen a chat from the command line; "
        f"{where} pick {which} in the Chat view's history."
    )
