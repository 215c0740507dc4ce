"""The Cursor IDE's old Chat panel (`workbench.panel.aichat.view.aichat.chatdata` in a
workspace's `state.vscdb`).

No real store is in the corpus: each test builds one in `tmp_path`, its values shaped as the
public readers named in tests/data/cursor/PROVENANCE.md read them (kennycha/cursor-chat-keeper
and thomas-pedersen/cursor-chat-browser for `chatTitle`, `lastSendTime`, `text`,
`modelType` and the selections; somogyijanos/cursor-chat-export for `rawText`,
`delegate.a` and `initText`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home, cursor

KEY = "workbench.panel.aichat.view.aichat.chatdata"
TAB = "5f0c2a9e-0000-4000-8000-0000000000c1"
OLDER = "5f0c2a9e-0000-4000-8000-0000000000c2"
EMPTY = "5f0c2a9e-0000-4000-8000-0000000000c3"
COMPOSER = "c0a1b2c3-0000-4000-8000-0000000000d1"
SENT = 1_732_000_000_000  # 2024-11-19T07:06:40Z in epoch milliseconds


def lexical(text: str) -> str:
    """A prompt as a Lexical editor state, the way `initText` holds it."""
    paragraph = {"type": "paragraph", "children": [{"type": "text", "text": text}]}
    return json.dumps({"root": {"type": "root", "children": [paragraph]}})


def chatdata() -> dict[str, object]:
    """Two tabs of the late-2024 shape and one of the mid-2024 shape, and an empty tab."""
    return {
        "tabs": [
            {
                "tabId": TAB,
                "chatTitle": "Retry the flaky upload\nwith backoff",
                "tabState": "chat",
                "lastSendTime": SENT,
                "bubbles": [
                    {
                        "id": "u1",
                        "type": "user",
                        "text": "Why does the upload fail on slow networks?",
                        "selections": [
                            {
                                "text": "def upload(blob):\n    return post(blob)\n",
                                "uri": {"path": "/home/dev/shop/upload.py", "scheme": "file"},
                                "range": {"selectionStartLineNumber": 36, "selectionStartColumn": 1,
                                          "positionLineNumber": 38, "positionColumn": 4},
                            }
                        ],
                        "fileSelections": [{"uri": {"path": "/home/dev/shop/net.py", "scheme": "file"}}],
                        "folderSelections": [],
                    },
                    {"id": "a1", "type": "ai", "modelType": "claude-3.5-sonnet",
                     "text": "It gives up after one timeout. Retry with backoff."},
                    {"id": "u2", "type": "user", "text": "Show me the backoff."},
                    {"id": "a2", "type": "ai", "modelType": "gpt-4o",
                     "rawText": "```python:upload.py\nbackoff()\n```", "text": ""},
                ],
            },
            {
                "tabId": OLDER,
                "bubbles": [
                    {"type": "user", "delegate": {"a": "Rename the ledger module"},
                     "selections": []},
                    {"type": "ai", "modelType": "gpt-4", "rawText": "Renamed it to books."},
                    {"type": "user", "initText": lexical("And the tests?"), "text": ""},
                    {"type": "ai", "rawText": "Those too."},
                ],
            },
            {"tabId": EMPTY, "chatTitle": "New Chat", "bubbles": []},
        ]
    }  # fmt: skip


def workspace(
    home: Path,
    name: str,
    folder: str,
    rows: dict[str, object],
    *,
    raw: dict[str, bytes] | None = None,
) -> Path:
    """A workspace's own store, with its `workspace.json`, beside an IDE global folder."""
    user = home / ".config" / "Cursor" / "User"
    (user / "globalStorage").mkdir(parents=True, exist_ok=True)
    root = user / "workspaceStorage" / name
    root.mkdir(parents=True)
    (root / "workspace.json").write_text(json.dumps({"folder": folder}))
    db = sqlite3.connect(root / "state.vscdb")
    db.execute(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    for key, value in rows.items():
        db.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, json.dumps(value)))
    for key, data in (raw or {}).items():
        db.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, data))
    db.commit()
    db.close()
    return root / "state.vscdb"


def listed(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = cursor.locate(Home.at(home))
    found = {}
    for path in cursor.scan(location):
        for session in cursor.parse(Path(path), location, diagnostics or Diagnostics()):
            if session.listed:
                found[session.id] = session
    return found


def run(home: Path, *args: str) -> object:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_each_tab_is_listed_with_its_title_folder_time_and_model(
    tmp_path: Path,
) -> None:
    workspace(tmp_path, "a1", "file:///home/dev/my%20shop", {KEY: chatdata()})
    records = run(tmp_path, "list", "--json")
    assert isinstance(records, list)
    found = {r["id"]: r for r in records}
    assert set(found) == {TAB, OLDER}  # the empty tab holds no chat
    tab = found[TAB]
    assert tab["app"] == "cursor"
    assert tab["title"] == "Retry the flaky upload"  # its first line
    assert tab["cwd"] == "/home/dev/my shop"
    assert tab["updated"].startswith("2024-11-19T07:06:40")
    assert tab["model"] == "gpt-4o"  # the last answer's
    # no title of its own: known by its first prompt, in the older `delegate` shape
    assert found[OLDER]["title"] == "Rename the ledger module"
    assert found[OLDER]["cwd"] == "/home/dev/my shop"


def test_show_prints_the_bubbles_in_order_with_what_was_selected(
    tmp_path: Path,
) -> None:
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: chatdata()})
    events = run(tmp_path, "show", TAB, "--json")
    assert isinstance(events, list)
    said = [(e["kind"], e["text"]) for e in events]
    assert said == [
        ("user", "Why does the upload fail on slow networks?"),
        (
            "meta",
            "context: selection /home/dev/shop/upload.py:36-38, file /home/dev/shop/net.py",
        ),
        ("assistant", "It gives up after one timeout. Retry with backoff."),
        ("user", "Show me the backoff."),
        ("assistant", "```python:upload.py\nbackoff()\n```"),  # `text` blank: `rawText`
    ]
    selection = events[1]["extra"]["context"][0]
    assert selection == {
        "kind": "selection",
        "path": "/home/dev/shop/upload.py",
        "lines": [36, 38],
        "chars": 40,
    }  # a summary: the selected code itself is not repeated
    older = run(tmp_path, "show", OLDER, "--json")
    assert isinstance(older, list)
    assert [(e["kind"], e["text"]) for e in older] == [
        ("user", "Rename the ledger module"),
        ("assistant", "Renamed it to books."),
        ("user", "And the tests?"),  # from the Lexical `initText`
        ("assistant", "Those too."),
    ]


@pytest.mark.parametrize(("user", "assistant"), [("user", "ai"), (1, 2)])
def test_numeric_bubble_types_and_bubble_times_are_read_too(
    tmp_path: Path, user: object, assistant: object
) -> None:
    """What a hedging reader accepts besides: types 1 and 2, a bubble's own time."""
    data = {"tabs": [{"tabId": TAB, "bubbles": [
        {"type": user, "text": "Ping?", "timestamp": SENT - 4000},
        {"type": assistant, "text": "Pong.", "createdAt": SENT}]}]}  # fmt: skip
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: data})
    session = listed(tmp_path)[TAB]
    assert session.created is not None and session.updated is not None
    assert session.updated.timestamp() - session.created.timestamp() == 4
    found = [(e.kind, e.text, e.time) for e in cursor.read(session, Diagnostics())]
    assert found == [
        ("user", "Ping?", session.created),
        ("assistant", "Pong.", session.updated),
    ]


def test_a_malformed_tab_is_skipped_and_counted_never_fatal(tmp_path: Path) -> None:
    data = chatdata()
    tabs = data["tabs"]
    assert isinstance(tabs, list)
    tabs[0]["bubbles"].append({"type": "system", "text": "?"})
    tabs[0]["bubbles"].append({"type": {"secret": "words"}, "text": "?"})
    tabs[0]["bubbles"].append({"type": 7, "text": "?"})
    tabs[1:1] = [
        "not a tab",
        {"chatTitle": "no id", "bubbles": [{"type": "user", "text": "lost"}]},
        {"tabId": "no-bubbles", "bubbles": {"type": "user"}},
    ]
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: data})
    workspace(tmp_path, "b2", "file:///home/dev/web", {}, raw={KEY: b"{not json"})
    diagnostics = Diagnostics()
    found = listed(tmp_path, diagnostics)
    assert set(found) == {TAB, OLDER}
    assert diagnostics.skipped["not a chat tab"] == 3
    assert diagnostics.skipped["not JSON"] == 1
    assert {
        line for _, line, reason in diagnostics.details if reason == "not a chat tab"
    } == {2, 3, 4}
    read = Diagnostics()
    events = list(cursor.read(found[TAB], read))
    assert [e.kind for e in events][-1] == "assistant"  # the unknown bubble left out
    # named by their tag, never by what an odd one holds
    assert read.unknown == {
        "chat/bubble/system": 1,
        "chat/bubble/<object>": 1,
        "chat/bubble/7": 1,
    }


def test_a_workspace_with_composer_and_old_chat_lists_both(tmp_path: Path) -> None:
    """The same workspace store names a Composer conversation (its folder) and holds the
    old Chat panel's tabs: both are listed, each in the workspace's folder."""
    workspace(
        tmp_path, "a1", "file:///home/dev/shop",
        {KEY: chatdata(),
         "composer.composerData": {"allComposers": [
             {"composerId": COMPOSER, "createdOnBranch": "main"}]}},
    )  # fmt: skip
    folder = tmp_path / ".config" / "Cursor" / "User" / "globalStorage"
    db = sqlite3.connect(folder / "state.vscdb")
    db.execute(
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    rows = {
        f"composerData:{COMPOSER}": {"_v": 16, "composerId": COMPOSER, "createdAt": SENT,
            "name": "Add a retry budget",
            "fullConversationHeadersOnly": [{"bubbleId": "b1", "type": 1}]},
        f"bubbleId:{COMPOSER}:b1": {"_v": 3, "type": 1, "text": "Budget the retries"},
    }  # fmt: skip
    for key, value in rows.items():
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, json.dumps(value)))
    db.commit()
    db.close()
    records = run(tmp_path, "list", "--json")
    assert isinstance(records, list)
    found = {r["id"]: (r["title"], r["cwd"]) for r in records}
    assert found == {
        COMPOSER: ("Add a retry budget", "/home/dev/shop"),
        TAB: ("Retry the flaky upload", "/home/dev/shop"),
        OLDER: ("Rename the ledger module", "/home/dev/shop"),
    }


def test_resume_says_no_cursor_command_reopens_a_chat_tab(tmp_path: Path) -> None:
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: chatdata()})
    result = CliRunner().invoke(
        main, ["resume", TAB, "--print", "--home", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert "a tab of the Cursor IDE's old Chat panel" in result.stderr
    assert f"'sessdex show cursor:{TAB} --home {tmp_path}' prints it" in result.stderr


def test_a_huge_chat_value_is_elided_when_listing_and_shown_whole_with_full(
    tmp_path: Path,
) -> None:
    """The panel keeps every tab in one value: past the read cap its long strings are
    elided, as a Composer value's are, and `full` reads it whole."""
    huge = "x" * (6 * 1024 * 1024)
    data = chatdata()
    tabs = data["tabs"]
    assert isinstance(tabs, list)
    tabs[1]["bubbles"][1]["rawText"] = huge
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: data})
    found = listed(tmp_path)
    assert set(found) == {TAB, OLDER}
    answer = [
        e for e in cursor.read(found[OLDER], Diagnostics()) if e.kind == "assistant"
    ]
    assert answer[0].text is not None and len(answer[0].text) < 100_000
    full = cursor.read(found[OLDER], Diagnostics(), full=True)
    assert next(e.text for e in full if e.kind == "assistant") == huge


def test_a_first_prompt_too_long_to_list_leaves_the_title_to_the_next(
    tmp_path: Path,
) -> None:
    """Past the read cap a prompt is elided while listing: it never titles the tab as a
    size note."""
    data = chatdata()
    tabs = data["tabs"]
    assert isinstance(tabs, list)
    tabs[1]["bubbles"][0] = {"type": "user", "text": "y" * (6 * 1024 * 1024)}
    workspace(tmp_path, "a1", "file:///home/dev/shop", {KEY: data})
    assert listed(tmp_path)[OLDER].title == "And the tests?"
