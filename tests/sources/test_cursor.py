"""Cursor CLI quirks: titles from the chat store (also in its WAL), cwd from md5 folders, sub-agents."""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, cursor

DATA = Path(__file__).parent.parent / "data" / "cursor"
SHOP = "4c8f2a1e-6b3d-4e5f-9a0b-1c2d3e4f5a6b"
SUB = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a"
NOTES = "a1b2c3d4-e5f6-7890-abcd-ef1234567890"
BARE = "7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0"


def sessions(home: Home) -> dict[str, Session]:
    location = cursor.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in cursor.scan(location):
        for session in cursor.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session) -> list[Event]:
    return list(cursor.read(session, Diagnostics()))


def write_store(folder: Path, meta: dict[str, object]) -> sqlite3.Connection:
    """A chat store in WAL mode whose meta row stays in the WAL while the connection is open."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "store.db")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.commit()
    db.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    db.commit()
    return db


def test_titles_come_from_the_store_else_the_first_query() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[SHOP].title == "List files and git status"
    assert found[NOTES].title == "Test Session"
    assert found[BARE].title == "Add a health check route"  # <user_query> taken off
    assert found[SHOP].path and found[SHOP].path.endswith(f"{SHOP}.jsonl")


def test_cwd_from_meta_json_or_from_the_md5_of_the_slug() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[NOTES].cwd == "/home/dev/code/notes"  # meta.json says so
    assert (
        found[SHOP].cwd == "/home/dev/code/shop-web"
    )  # "home-dev-code-shop-web": the dash that stays
    assert found[SUB].cwd == "/home/dev/code/shop-web"
    assert found[BARE].cwd is None  # no chat store: the slug alone is ambiguous


def test_store_rows_still_in_the_wal_are_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    digest = hashlib.md5(b"/home/dev/code/api").hexdigest()
    folder = home / ".cursor" / "chats" / digest / BARE
    db = write_store(
        folder,
        {
            "agentId": BARE,
            "name": "Health check",
            "mode": "default",
            "isRunEverything": False,
            "lastUsedModel": "gpt-5",
            "createdAt": 1795255200000,
        },
    )
    try:
        assert (folder / "store.db-wal").stat().st_size > 0
        before = sorted(p.name for p in folder.iterdir())
        found = sessions(Home.at(home))[BARE]
        assert (found.title, found.model, found.permission_mode, found.cwd) == (
            "Health check",
            "gpt-5",
            "default",
            "/home/dev/code/api",
        )
        assert (
            sorted(p.name for p in folder.iterdir()) == before
        )  # read from a copy in sessdex's cache
    finally:
        db.close()


def test_the_default_name_is_not_a_title(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    digest = hashlib.md5(b"/home/dev/code/api").hexdigest()
    db = write_store(
        home / ".cursor" / "chats" / digest / BARE,
        {"agentId": BARE, "name": "New Agent"},
    )
    db.close()
    assert sessions(Home.at(home))[BARE].title == "Add a health check route"


def test_sub_agent_follows_its_parent() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[SUB].parent_id == SHOP
    got = events(found[SHOP])
    spawn = [e for e in got if e.kind == "subagent"]
    assert len(spawn) == 1 and spawn[0].extra == {"child_id": SUB, "agent_type": None}
    assert (
        spawn[0].text == "Run ls -la in the workspace directory and return the output."
    )
    assert [e.kind for e in got[spawn[0].seq + 1 :]] == [
        "user",
        "tool_call",
        "assistant",
    ]
    assert all(e.agent_id == SUB for e in got[spawn[0].seq + 1 :])
    assert all(e.agent_id is None for e in got[: spawn[0].seq])


def test_events_of_a_transcript() -> None:
    got = events(sessions(Home.at(DATA / "home"))[SHOP])
    main = [e for e in got if e.agent_id is None and e.kind != "subagent"]
    assert [e.kind for e in main] == [
        "user",
        "assistant",
        "tool_call",
        "assistant",
        "turn_end",
        "user",
        "tool_call",  # its "[REDACTED]" marks withheld thinking, not words said
        "assistant",
        "turn_end",
    ]
    assert main[0].text == "run ls command"
    assert main[2].tool == "Shell" and main[2].extra["input"] == {
        "command": "ls -la /tmp",
        "description": "List directory contents",
    }
    assert all(e.time is None and e.usage is None for e in got)  # Cursor writes neither


def test_a_block_of_an_unknown_type_is_counted_not_dropped_unsaid(
    tmp_path: Path,
) -> None:
    """Third-party readers of real transcripts report `command_output` and `redacted`
    blocks: the one whose content is unknown is counted for `doctor` (by role), the
    redacted thinking, which holds nothing readable, is passed over; the text around both
    still shows."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = next(home.rglob(f"{NOTES}.jsonl"))
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}},
        {
            "role": "assistant",
            "message": {
                "content": [
                    {"type": "redacted", "data": "opaque"},
                    {"type": "command_output", "output": "total 0"},
                    {"type": "text", "text": "Listed."},
                ]
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    diagnostics = Diagnostics()
    got = list(cursor.read(sessions(Home.at(home))[NOTES], diagnostics))
    assert [(e.kind, e.text) for e in got] == [("user", "hi"), ("assistant", "Listed.")]
    assert dict(diagnostics.unknown) == {"assistant/command_output": 1}


def test_resume_withholds_run_everything() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = cursor.resume(found[SHOP])
    assert plan is not None
    assert plan.argv == ("agent", "--resume", SHOP, "--model", "claude-4-sonnet")
    assert (plan.cwd, plan.program, plan.withheld) == (
        "/home/dev/code/shop-web",
        "agent",
        ("--force",),
    )
    kept = cursor.resume(found[SHOP], keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--force" and kept.withheld == ()
    notes = cursor.resume(found[NOTES])
    assert notes is not None and notes.withheld == ()
    assert (
        cursor.resume(found[BARE]) is None
    )  # the CLI finds chats by their cwd, which is unknown
    assert cursor.resume(found[SUB]) is None
    assert cursor.resume(replace(found[BARE], cwd="/home/dev/code/api")) is not None


def test_an_older_plain_text_transcript_is_listed_and_read(tmp_path: Path) -> None:
    """Before the JSONL layout Cursor wrote `agent-transcripts/<id>.txt`; the markers are
    the ones several public readers parse (user:/A:, <user_query>, [Thinking],
    [Tool call] with indented arguments, [Tool result])."""
    folder = tmp_path / ".cursor" / "projects" / "home-dev-app" / "agent-transcripts"
    folder.mkdir(parents=True)
    text = (
        "user:\n<timestamp>Thursday, Jul 2, 2026, 11:11 AM (UTC-4)</timestamp>\n"
        "<user_query>\nWhy does the build fail?\n</user_query>\n\n"
        "A:\n[Thinking] Read the log first.\nLet me look.\n"
        "[Tool call] Shell\n  command: npm run build\n  description: build it\n\n"
        "[Tool result] Shell\nerror TS2304: Cannot find name 'x'\n\n"
        "A:\nA missing import of x in src/a.ts.\n"
        "user:\n<user_query>fix it</user_query>\nassistant:\nDone.\n"
    )
    (folder / "1111aaaa-0000-4000-8000-000000000001.txt").write_text(text)
    location = cursor.locate(Home.at(tmp_path))
    [path] = [p for p in cursor.scan(location) if p.suffix == ".txt"]
    [session] = cursor.parse(path, location, Diagnostics())
    assert session.title == "Why does the build fail?"
    assert (
        session.created is not None
        and session.created.isoformat() == "2026-07-02T11:11:00-04:00"
    )
    got = list(cursor.read(session, Diagnostics()))
    assert [
        (e.kind, e.text) for e in got if e.kind in ("user", "assistant", "thinking")
    ] == [
        ("user", "Why does the build fail?"),
        ("thinking", "Read the log first."),
        ("assistant", "Let me look."),
        ("assistant", "A missing import of x in src/a.ts."),
        ("user", "fix it"),
        ("assistant", "Done."),
    ]
    call, result = [e for e in got if e.kind in ("tool_call", "tool_result")]
    assert call.tool == "Shell" and call.extra["input"] == {
        "command": "npm run build",
        "description": "build it",
    }
    assert (
        result.call_id == call.call_id
        and result.text == "error TS2304: Cannot find name 'x'"
    )


def store_with_messages(
    folder: Path, messages: list[dict[str, object]], workspace: str, **meta: object
) -> Path:
    """A chat store as the CLI leaves it: message blobs (JSON, id = sha256), a protobuf
    root naming them in order (field 1) and the workspace (field 9), meta pointing at it."""

    def field(number: int, value: bytes) -> bytes:
        size, encoded = len(value), b""
        while True:  # varint length
            byte, size = size & 0x7F, size >> 7
            encoded += bytes([byte | (0x80 if size else 0)])
            if not size:
                break
        return bytes([number << 3 | 2]) + encoded + value

    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "store.db")
    db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    root = b""
    for message in messages:
        data = json.dumps(message).encode()
        digest = hashlib.sha256(data).digest()
        db.execute("INSERT INTO blobs VALUES (?, ?)", (digest.hex(), data))
        root += field(1, digest)
    root += field(9, workspace.encode())
    root_id = hashlib.sha256(root).hexdigest()
    db.execute("INSERT INTO blobs VALUES (?, ?)", (root_id, root))
    payload = {"agentId": folder.name, "latestRootBlobId": root_id, **meta}
    db.execute(
        "INSERT INTO meta VALUES ('0', ?)", (json.dumps(payload).encode().hex(),)
    )
    db.commit()
    db.close()
    return folder / "store.db"


def test_a_chat_only_its_store_holds_is_listed_and_read(tmp_path: Path) -> None:
    """A chat run in a dev container or over SSH writes no transcript on the host: its
    store is all there is (third-party readers of real stores: AI SDK messages in blobs,
    their order in a protobuf root). It is listed, titled by its first prompt, in the
    workspace the root names, and read from the store; a store with no conversation is
    not listed, and a chat with a transcript is still read from the transcript."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    chats = home / ".cursor" / "chats" / "0123456789abcdef0123456789abcdef"
    remote = "5e5e5e5e-0000-4000-8000-000000000001"
    store_with_messages(
        chats / remote,
        [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": [{"type": "text", "text":
                "<user_info>OS linux</user_info>\n<user_query>\nWhy does the build fail?\n</user_query>"}]},
            {"role": "assistant", "content": [
                {"type": "reasoning", "text": "Check the log."},
                {"type": "tool-call", "toolCallId": "t1", "toolName": "Shell",
                 "args": {"command": "make"}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "t1",
                                          "toolName": "Shell", "result": "missing header"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "A header is missing."}]},
        ],
        "/workspaces/app",
        name="New Agent", createdAt=1781256145540, lastUsedModel="gpt-5",
    )  # fmt: skip
    store_with_messages(chats / "5e5e5e5e-0000-4000-8000-000000000002", [], "/w")
    found = sessions(Home.at(home))
    session = found[remote]
    assert session.listed and session.title == "Why does the build fail?"
    assert (session.cwd, session.model) == ("/workspaces/app", "gpt-5")
    assert session.path and session.path.endswith("store.db")
    assert "5e5e5e5e-0000-4000-8000-000000000002" not in {
        key for key, s in found.items() if s.listed
    }
    assert found[SHOP].path and found[SHOP].path.endswith(".jsonl")  # its transcript
    diagnostics = Diagnostics()
    got = list(cursor.read(session, diagnostics))
    assert not diagnostics.unknown and not diagnostics.problems
    assert [(e.kind, e.text) for e in got] == [
        ("user", "Why does the build fail?"),
        ("thinking", "Check the log."),
        ("tool_call", None),
        ("tool_result", "missing header"),
        ("assistant", "A header is missing."),
    ]
    assert (got[2].tool, got[2].call_id, got[2].extra["input"]) == (
        "Shell",
        "t1",
        {"command": "make"},
    )
    assert got[3].call_id == "t1"


def test_the_clis_chats_are_found_in_its_xdg_config_folder(tmp_path: Path) -> None:
    """On Linux the CLI keeps its chat stores in `$XDG_CONFIG_HOME/cursor/chats` (else
    `~/.config/cursor/chats`), even with no `~/.cursor` at all."""
    home = tmp_path / "home"
    config = tmp_path / "config"
    remote = "5e5e5e5e-0000-4000-8000-000000000003"
    store_with_messages(
        config / "cursor" / "chats" / "0123456789abcdef0123456789abcdef" / remote,
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Where is the config?"}],
            }
        ],
        "/w",
    )
    assert remote not in sessions(Home.at(home))
    moved = Home(Home.at(home).path, {"XDG_CONFIG_HOME": str(config)})
    assert sessions(moved)[remote].title == "Where is the config?"
    (home / ".config").parent.mkdir(parents=True, exist_ok=True)
    config.rename(home / ".config")
    assert sessions(Home.at(home))[remote].title == "Where is the config?"


def _program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_resume_runs_cursors_own_cli_by_either_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only `agent` was looked up: an older install with only `cursor-agent` was refused,
    and any other program called `agent` on PATH would have been run."""
    from sessdex import api

    home = Home.at(DATA / "home")
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", str(bin_dir))
    older = _program(bin_dir, "cursor-agent")  # an older install: that name only
    check = api.check_resume(home, SHOP)
    assert check.cli_path == str(older) and check.plan.argv[:2] == ("cursor-agent", "--resume")  # fmt: skip
    assert shlex.split(check.command)[3] == "cursor-agent"
    older.unlink()
    _program(bin_dir, "agent")  # someone else's `agent`
    check = api.check_resume(home, SHOP)
    assert check.cli_path is None and check.plan.argv[0] == "agent"
    assert any("another program" in r for r in check.refusals)
    (bin_dir / "agent").unlink()  # Cursor's installer: links into its own folder
    real = _program(
        tmp_path / "share" / "cursor-agent" / "versions" / "1", "cursor-agent"
    )
    (bin_dir / "agent").symlink_to(real)
    check = api.check_resume(home, SHOP)
    assert check.cli_path == str(bin_dir / "agent") and check.plan.argv[0] == "agent"
    assert not any("PATH" in r for r in check.refusals)


def test_resume_keeps_plan_or_ask_mode() -> None:
    """A chat the store records in plan mode (`meta.mode`) reopens in it with
    `--mode plan`, not in the default agent mode that edits files; a mode the CLI's
    `--mode` does not take (`search`, `default`) adds nothing."""
    from dataclasses import replace

    found = sessions(Home.at(DATA / "home"))
    for mode in ("plan", "ask"):
        plan = cursor.resume(replace(found[NOTES], permission_mode=mode))
        assert plan is not None and plan.argv[-2:] == ("--mode", mode)
    for mode in ("search", "default", None):
        plain = cursor.resume(replace(found[NOTES], permission_mode=mode))
        assert plain is not None and "--mode" not in plain.argv


def test_a_transcripts_stamps_date_its_turns_and_its_redacted_marks_are_not_said(
    tmp_path: Path,
) -> None:
    """Real transcripts (2026-07, per public readers of them) open each prompt with a
    `<timestamp>` in the user's local time and end the assistant's text with a
    `[REDACTED]` marker where its thinking was withheld (a turn of thinking alone holds
    only the marker): the prompt and what follows it are dated, and the marker is not
    shown as something the agent said."""
    from click.testing import CliRunner

    from sessdex.cli import main

    folder = (
        tmp_path / ".cursor" / "projects" / "home-dev-app" / "agent-transcripts" / BARE
    )
    folder.mkdir(parents=True)
    stamp = "<timestamp>Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)</timestamp>\n"
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text":
            stamp + "<user_query>\nrun ls\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "text", "text": "[REDACTED]"},
            {"type": "tool_use", "name": "Shell", "input": {"command": "ls"}}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "text", "text": "Two files.\n\n[REDACTED]"}]}},
        {"type": "turn_ended", "status": "success"},
    ]  # fmt: skip
    (folder / f"{BARE}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    shown = CliRunner().invoke(main, ["show", BARE, "--json", "--home", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    got = json.loads(shown.stdout)
    assert [(e["kind"], e["text"]) for e in got if e["kind"] != "tool_call"] == [
        ("user", "run ls"),
        ("assistant", "Two files."),
        ("turn_end", None),
    ]
    assert [(e["time"], e["time_estimated"]) for e in got] == [
        ("2026-07-21T10:11:00.000Z", False)
    ] + [("2026-07-21T10:11:00.000Z", True)] * 3
    text = CliRunner().invoke(main, ["show", BARE, "--home", str(tmp_path)]).stdout
    assert "REDACTED" not in text and "<timestamp>" not in text
    assert "2026-07-21 10:11" in text  # the header's start, no longer the file's mtime
