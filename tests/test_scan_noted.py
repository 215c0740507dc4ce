"""Sources that mark their scan `SCAN_NOTED` keep the promise the quick listing relies on.

For each such source, over its fixture home: the scan, recorded as the index records it,
finds the fixture's files; nothing changed means every noted path still holds; a new
session file in the app's layout breaks at least one of them (a new sub-agent file only
a nested one). And the scan asks the file system nothing except through `folders.entries`,
`folders.is_dir`/`is_file`/`exists` and `files.read_small`: no other listing, `stat` or open.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType

import orjson
import pytest

from sessdex import files, folders, freshness, sources
from sessdex.sources import Home, Source

DATA = Path(__file__).parent / "data"
NOTED = [
    name for name in sources.names() if getattr(sources.get(name), "SCAN_NOTED", False)
]

# New files in each app's layout, relative to its home: "top" adds a session the top-level
# listing must notice; "sub" adds a sub-agent file, which only a nested listing notices.
ID = "0b0b0b0b-1111-4222-8333-444455556666"
ADDED: dict[str, list[tuple[str, str]]] = {
    "gemini": [
        ("top", ".gemini/tmp/webapp/chats/session-2026-12-05T09-00-0b0b0b0b.jsonl"),
        (
            "top",
            ".gemini/tmp/new-project/chats/session-2026-12-05T09-00-0b0b0b0b.jsonl",
        ),
        (
            "sub",
            f".gemini/tmp/shop-api/chats/b44832f3-f4fa-4a19-8699-656bec90e64d/{ID}.jsonl",
        ),
    ],
    "cline": [
        (
            "top",
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1790999999000/ui_messages.json",
        ),
        (
            "top",
            ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks/1790999999000/ui_messages.json",
        ),
        (
            "top",
            ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/state/taskHistory.json",
        ),
    ],
    "roo": [
        (
            "top",
            f".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/{ID}/ui_messages.json",
        ),
    ],
    "kilo": [
        (
            "top",
            f".config/Code/User/globalStorage/kilocode.kilo-code/tasks/{ID}/ui_messages.json",
        ),
        (
            "top",
            f".config/Windsurf/User/globalStorage/kilocode.kilo-code/tasks/{ID}/ui_messages.json",
        ),
    ],
    "droid": [
        ("top", f".factory/sessions/-tmp/{ID}.jsonl"),
        ("top", f".factory/sessions/-home-dev-new/{ID}.jsonl"),
        ("top", f".factory/sessions/-tmp/{ID}.settings.json"),
    ],
    "amp": [
        ("top", f".local/share/amp/threads/T-{ID}.json"),
        ("top", f".cache/amp/logs/threads/T-{ID}.log"),
    ],
    "antigravity": [
        ("top", f".gemini/antigravity/conversations/{ID}.pb"),
        ("top", f".gemini/antigravity-cli/conversations/{ID}.db"),
        (
            "top",
            ".gemini/antigravity/brain/c0ffee00-1234-4567-89ab-cdef01234567"
            "/.system_generated/logs/transcript.jsonl",
        ),
        ("top", f".gemini/antigravity-ide/brain/{ID}/task.md"),
        (
            "top",
            "Library/Application Support/Antigravity/User/globalStorage/state.vscdb",
        ),
    ],
    "copilot": [
        ("top", f".copilot/session-state/{ID}/events.jsonl"),
        ("top", f".copilot/session-state/{ID}.jsonl"),
    ],
    "pi": [
        (
            "top",
            f".pi/agent/sessions/--home-dev-code-ledger--/2026-12-01T09-00-00-000Z_{ID}.jsonl",
        ),
        (
            "top",
            f".pi/agent/sessions/--home-dev-new--/2026-12-01T09-00-00-000Z_{ID}.jsonl",
        ),
    ],
    "kimi": [
        ("top", f".kimi/sessions/e32247ebaf80119f9feb17957c5ede2c/{ID}/context.jsonl"),
        ("top", f".kimi/sessions/0123456789abcdef0123456789abcdef/{ID}/wire.jsonl"),
        (
            "sub",
            ".kimi/sessions/83966a3838d499c6ec0c7147091f7d31/3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f"
            f"/subagents/{ID}/wire.jsonl",
        ),
    ],
    "cursor": [
        (
            "top",
            f".cursor/projects/home-dev-code-notes/agent-transcripts/{ID}/{ID}.jsonl",
        ),
        (
            "sub",
            ".cursor/projects/home-dev-code-shop-web/agent-transcripts"
            f"/4c8f2a1e-6b3d-4e5f-9a0b-1c2d3e4f5a6b/subagents/{ID}.jsonl",
        ),
        ("top", f".cursor/chats/42ec1761d75d288521a64ade65d398dd/{ID}/meta.json"),
        (
            "top",
            f".config/cursor/chats/42ec1761d75d288521a64ade65d398dd/{ID}/store.db",
        ),
    ],
    "opencode": [
        ("top", ".local/share/opencode/storage/session/proj_test/ses_0b0b0b0b.json"),
        ("top", ".local/share/opencode/storage/session/proj_new/ses_0b0b0b0b.json"),
        ("top", ".local/share/opencode/opencode-beta.db"),
    ],
    "goose": [("top", ".local/share/goose/sessions/20261201_1.jsonl")],
    "vibe": [
        ("top", ".vibe/logs/session/session_20261202_100000_0b0b0b0b/meta.json"),
    ],
    "crush": [("top", "code/noora/.crush/crush.db")],
    "zed": [
        ("top", "Library/Application Support/Zed/threads/threads.db"),
        ("top", ".var/app/dev.zed.Zed/data/zed/threads/threads.db"),
    ],
    "aider": [],  # its repositories come from other agents' lists: see below
    "qwen": [
        ("top", f".qwen/projects/-home-alex-code-shop-api/chats/{ID}.jsonl"),
        ("top", f".qwen/projects/-home-alex-code-shop-api/chats/archive/{ID}.jsonl"),
        ("top", f".qwen/projects/-home-dev-new/chats/{ID}.jsonl"),
        (
            "top",
            ".qwen/tmp/1f5374d540a2971b67f21072a77fdfe529ecec71e6579e61bda90a285322e2ef"
            "/chats/session-2025-10-21T08-00-0b0b0b0b.json",
        ),
        ("top", f".qwen/tmp/{'0b' * 32}/chats/session-2025-10-21T08-00-0b0b0b0b.json"),
    ],
    "continue": [("top", f".continue/sessions/{ID}.json")],
    "auggie": [("top", f".augment/sessions/{ID}.json")],
    "openhands": [("top", f".openhands/conversations/{'0b' * 16}/base_state.json")],
    "qoder": [
        ("top", f".qoder/projects/-home-alex-code-shop-api/{ID}.jsonl"),
        ("top", f".qoder/projects/-home-dev-new/{ID}.jsonl"),
        (
            "sub",
            ".qoder/projects/-home-alex-code-shop-api/3b1f6c2e-8a4d-4f0e-9c7b-2d5e8f1a6b90"
            "/subagents/agent-0b0b0b0b0b0b.jsonl",
        ),
    ],
    # forge's legacy folder, beside the fixture's .forge
    "forge": [("top", "forge/.forge.db")],
    "gptme": [
        ("top", ".local/share/gptme/logs/2026-12-05-new-talk/conversation.jsonl"),
        ("top", "Library/Application Support/gptme/logs/new-talk/conversation.jsonl"),
        ("top", "AppData/Local/gptme/gptme/logs/new-talk/conversation.jsonl"),
    ],
    "openclaw": [
        ("top", f".openclaw/agents/main/sessions/{ID}.jsonl"),
        ("top", f".openclaw/agents/work/sessions/{ID}.jsonl"),
        ("top", ".openclaw/agents/work/sessions/sessions.json"),
        ("top", f".clawdbot/agents/main/sessions/{ID}.jsonl"),
        ("top", f".moltbot/agents/main/sessions/{ID}.jsonl"),
        ("top", f".openclaw-dev/agents/main/sessions/{ID}.jsonl"),
    ],
    "hermes": [("top", ".hermes/profiles/personal/state.db")],
    "nanocoder": [
        ("top", f".local/share/nanocoder/sessions/{ID}.json"),
        ("top", f"Library/Application Support/nanocoder/sessions/{ID}.json"),
    ],
    "codebuff": [
        (
            "top",
            ".config/manicode/projects/shop-api/chats/2026-12-05T10-00-00.000Z/chat-messages.json",
        ),
        (
            "top",
            ".config/manicode/projects/new-project/chats/2026-12-05T11-00-00.000Z/chat-messages.json",
        ),
        (
            "top",
            ".config/manicode/projects/old/chats/2025-08-20T14-05-00.000Z/messages.json",
        ),
    ],
    "kiroide": [
        (
            "top",
            "Library/Application Support/Kiro/User/globalStorage/kiro.kiroagent"
            f"/workspace-sessions/L2hvbWUvYWxleC9uZXc/{ID}.json",
        ),
        (
            "top",
            ".config/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions"
            f"/L2hvbWUvYWxleC9jb2RlL3Nob3AtYXBp/{ID}.json",
        ),
    ],
    "kiro": [
        ("top", "Library/Application Support/kiro-cli/data.sqlite3"),
        ("top", "AppData/Local/amazon-q/data.sqlite3"),
    ],
    "vscode": [
        (
            "top",
            ".config/Code/User/workspaceStorage/5d1e0c8b2a4f6e8d0c2b4a6f8e0d2c4b"
            f"/chatSessions/{ID}.jsonl",
        ),
        (
            "top",
            f".config/Code/User/workspaceStorage/{'0b' * 16}/chatSessions/{ID}.json",
        ),
        ("top", f".config/Code/User/globalStorage/emptyWindowChatSessions/{ID}.json"),
        ("top", f".config/Code/User/globalStorage/transferredChatSessions/{ID}.json"),
        (
            "top",
            f".vscode-server/data/User/workspaceStorage/{'0b' * 16}/chatSessions/{ID}.json",
        ),
        (
            "top",
            f"Library/Application Support/Code - Insiders/User/globalStorage/emptyWindowChatSessions/{ID}.json",
        ),
    ],
    "warp": [
        (
            "top",
            "Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support"
            "/dev.warp.Warp-Stable/warp.sqlite",
        ),
        ("top", ".local/state/warp-terminal-preview/warp.sqlite"),
        ("top", "AppData/Local/warp/Warp/data/warp.sqlite"),
        ("top", "AppData/Local/warp/WarpDev/data/warp.sqlite"),
        ("top", "Library/Application Support/dev.warp.Warp-Stable/warp.sqlite"),
        ("top", ".local/state/warp-terminal/tui/warp.sqlite"),
    ],
}
CASES = [
    pytest.param(app, kind, relative, id=f"{app}-{index}-{kind}")
    for app in NOTED
    for index, (kind, relative) in enumerate(ADDED.get(app, []))
]
# a marked app without a layout above: a new file beside the first one its scan found
CASES += [
    pytest.param(app, "top", None, id=f"{app}-beside")
    for app in NOTED
    if app not in ADDED
]


def fixture_copy(app: str, target: Path) -> Path:
    """The app's fixture home copied to `target`, every time stamp well in the past.

    A folder modified within freshness.RACY_NS of its listing is noted as unknown; old
    stamps keep the notes exact, so that "nothing changed" can be asserted.
    """
    shutil.copytree(DATA / app / "home", target, symlinks=True)
    old = time.time_ns() - 3600 * 10**9
    for dirpath, _, filenames in os.walk(target):
        for name in filenames:
            os.utime(Path(dirpath) / name, ns=(old, old), follow_symlinks=False)
    for dirpath, _, _ in sorted(os.walk(target), reverse=True):
        os.utime(dirpath, ns=(old, old))
    return target


def recorded_scan(
    source: Source, home_path: Path, environ: dict[str, str] | None = None
) -> tuple[list[str], dict[str, freshness.Noted], dict[str, str | None]]:
    """(scanned paths, noted paths, environment read) as `Index.refresh` records them."""
    recording_environ = freshness.RecordingEnviron(environ or {})
    home = Home(home_path, recording_environ)
    with freshness.recording() as paths:
        location = source.locate(home)
        found = [os.fspath(p) for p in source.scan(location)] if location.exists else []
    return found, dict(paths), dict(recording_environ.read)


def changed(notes: dict[str, freshness.Noted]) -> dict[str, freshness.Noted]:
    return {
        path: noted
        for path, noted in notes.items()
        if not freshness.still_holds(path, noted[0], noted[1], noted[2])
    }


def relative(paths: list[str], root: Path) -> list[str]:
    return [os.path.relpath(p, root) for p in paths]


def test_the_sources_that_only_list_are_marked() -> None:
    assert set(ADDED) <= set(NOTED)
    assert set(NOTED) == set(sources.BUILTIN)  # every source can skip its scan


def test_a_small_file_a_scan_reads_is_noted(tmp_path: Path) -> None:
    """aider finds repositories through other agents' project lists: a new entry there is
    a change, and so is a history file in the newly listed repository."""
    from tests.helpers import write_claude_session

    source = sources.get("aider")
    home = fixture_copy("aider", tmp_path / "home")
    project = home / "code" / "app"
    _, notes, _ = recorded_scan(source, home)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "projects.json").write_bytes(
        orjson.dumps({"projects": {str(project): "app"}})
    )
    assert os.fspath(home / ".gemini" / "projects.json") in changed(notes)
    _, notes, _ = recorded_scan(source, home)
    write_claude_session(home, "c1aude00-0000-4000-8000-000000000003", str(project))
    assert changed(notes)  # a new Claude Code project folder
    _, notes, _ = recorded_scan(source, home)
    project.mkdir(parents=True)
    (project / ".aider.chat.history.md").write_bytes(b"# aider chat started at x\n")
    assert changed(notes)
    assert (
        os.fspath(project / ".aider.chat.history.md") in recorded_scan(source, home)[0]
    )


@pytest.mark.parametrize("app", NOTED)
def test_a_recorded_scan_finds_the_fixture_files_and_holds_while_nothing_changes(
    app: str, tmp_path: Path
) -> None:
    source = sources.get(app)
    home = fixture_copy(app, tmp_path / "home")
    found, notes, _ = recorded_scan(source, home)
    plain = source.locate(Home.at(DATA / app / "home"))
    wanted = [os.fspath(p) for p in source.scan(plain)]
    assert found and relative(found, home) == relative(wanted, DATA / app / "home")
    assert notes
    assert not [
        p
        for p, n in notes.items()
        if n[0] == freshness.LISTED and n[1] == freshness.UNKNOWN
    ]
    # every file found was in a listed folder, or asked about by name
    for path in found:
        assert (
            os.path.dirname(path) in notes
            and notes[os.path.dirname(path)][0] == freshness.LISTED
        ) or path in notes, path
    assert changed(notes) == {}
    assert recorded_scan(source, home)[1] == notes


@pytest.mark.parametrize(("app", "kind", "added"), CASES)
def test_a_new_session_file_breaks_a_noted_path(
    app: str, kind: str, added: str | None, tmp_path: Path
) -> None:
    source = sources.get(app)
    home = fixture_copy(app, tmp_path / "home")
    found, notes, _ = recorded_scan(source, home)
    assert changed(notes) == {}
    if added is None:
        beside = next(
            Path(path)
            for path in found
            if notes.get(os.path.dirname(path), (-1,))[0] == freshness.LISTED
            and not notes[os.path.dirname(path)][3]
        )
        new = beside.with_name(ID + "".join(beside.suffixes))
    else:
        new = home / added
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_bytes(b"{}\n")
    if added is not None:
        assert os.fspath(new) in recorded_scan(source, home)[0], "not in the layout"
    broken = changed(notes)
    assert broken, f"no noted path notices {added}"
    if kind == "top":
        assert any(not noted[3] for noted in broken.values()), broken
    else:  # only the listings that look for sub-agents notice it
        assert all(noted[3] for noted in broken.values()), broken


@pytest.mark.parametrize("app", NOTED)
def test_the_override_is_read_from_the_environment_and_noted(
    app: str, tmp_path: Path
) -> None:
    source = sources.get(app)
    home = fixture_copy(app, tmp_path / "home")
    override = orjson_load(DATA / app / "expected.json").get("override")
    assert isinstance(override, dict) and override
    environ = {name: str(home / rel) for name, rel in override.items()}
    found, notes, read = recorded_scan(source, tmp_path / "nobody", environ)
    assert found and changed(notes) == {}
    assert {name: read.get(name) for name in environ} == environ
    key = freshness.environ_key(read)
    assert freshness.environ_holds(key, environ)
    moved = {name: value + "-elsewhere" for name, value in environ.items()}
    assert not freshness.environ_holds(key, moved)


def orjson_load(path: Path) -> dict[str, object]:
    value = orjson.loads(path.read_bytes())
    assert isinstance(value, dict)
    return value


# --- the scan asks the file system only through folders.py and files.read_small ---------

_ALLOWED = {
    function.__code__
    for function in (
        folders.entries,
        folders.is_dir,
        folders.is_file,
        folders.exists,
        # its lstat of a folder `is_dir` found missing (noted there) only asks whether
        # a broken link stands in its place, to say so
        folders.dir_at,
        # its stat of a file `is_file` found missing (noted there) only asks whether a
        # folder stands in its place, to say so
        folders.file_at,
        files.read_small,
    )
}
_WATCHED: list[tuple[ModuleType, str]] = [
    (os, "stat"),
    (os, "lstat"),
    (os, "scandir"),
    (os, "listdir"),
    (os, "open"),
    (builtins, "open"),
    (io, "open"),
]


def _allowed(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code in _ALLOWED or frame.f_globals.get("__name__") == (
            freshness.__name__
        ):
            return True
        frame = frame.f_back
    return False


def _where(frame: FrameType | None) -> str:
    """The innermost sessdex source line on the stack (where the call was made)."""
    while frame is not None:
        name = frame.f_code.co_filename
        if f"{os.sep}sessdex{os.sep}" in name:
            return f"{Path(name).name}:{frame.f_lineno} in {frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


@contextmanager
def only_through_files(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Collect every stat, listing or open made outside folders.entries/is_dir/is_file/exists
    and files.read_small."""
    calls: list[str] = []
    with monkeypatch.context() as patch:
        for module, name in _WATCHED:
            patch.setattr(module, name, _guard(getattr(module, name), name, calls))
        yield calls


def _guard(
    original: Callable[..., object], name: str, calls: list[str]
) -> Callable[..., object]:
    def guarded(*args: object, **kwargs: object) -> object:
        caller = sys._getframe(1)
        if not _allowed(caller):
            calls.append(f"{name}({args[0] if args else ''!r}) at {_where(caller)}")
        return original(*args, **kwargs)

    return guarded


def test_the_guard_catches_probes_made_any_other_way(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "a").write_text("x")
    with only_through_files(monkeypatch) as calls:
        assert folders.is_dir(tmp_path) and folders.entries(tmp_path)
        assert calls == []
        tmp_path.exists()
        os.path.isfile(tmp_path / "a")
        list(tmp_path.iterdir())
        list(tmp_path.glob("*"))
        list(os.walk(tmp_path))
        (tmp_path / "a").read_text()
    assert len(calls) >= 6, calls


@pytest.mark.parametrize("app", NOTED)
def test_a_noted_scan_asks_the_file_system_only_through_files(
    app: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = sources.get(app)
    home = fixture_copy(app, tmp_path / "home")
    with only_through_files(monkeypatch) as calls:
        found, _, _ = recorded_scan(source, home)
    assert found
    assert calls == []
