"""A small JSON document read whole (`files.read_json_file`: a Gemini chat, an Amp thread,
a Cline task, Kimi Code's state.json, OpenCode's storage files) over bytes that are not
UTF-8: shown with U+FFFD, and counted as damaged under line 1, as a document read in
pieces is; no longer repaired without a word."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics

DATA = Path(__file__).parent / "data"
NOT_UTF8 = "not UTF-8 (shown as \ufffd)"  # the reason --verbose and doctor give
SAID = "read 1 line with bytes that are not UTF-8 (shown as \ufffd)"

GEMINI_CHAT = (
    ".gemini/tmp/2136a2490b0bdc8f317d3e16aecb6c0b6c264127ce17e17345fe6c0dc2ce7069"
    "/chats/session-2025-11-02T10-15-5a1e9c3b.json"
)
AMP_THREAD = ".local/share/amp/threads/T-test-thread-1.json"
CLINE_TASK = (
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1790931121000"
    "/ui_messages.json"
)
KIMI_STATE = (
    ".kimi-code/sessions/wd_project_ac3bb318f98e"
    "/session_9eb1bf57-c1af-48a5-b658-0e8d9fe794f5/state.json"
)
OPENCODE_STORE = ".local/share/opencode/project/global/storage/session"
OPENCODE_ID = "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n"
OPENCODE_INFO = f"{OPENCODE_STORE}/info/{OPENCODE_ID}.json"
OPENCODE_MESSAGE = (
    f"{OPENCODE_STORE}/message/{OPENCODE_ID}/msg_75d0e3f6a002Tn4Wp9LsXcJd3e.json"
)


def invoke(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def damaged(tmp_path: Path, app: str, name: str, clean: bytes, bad: bytes) -> Path:
    """A copy of `app`'s fixture home whose file `name` holds `bad` where it held `clean`
    (once): a writer that copied latin-1 bytes into a string."""
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home)
    path = home / name
    data = path.read_bytes()
    assert data.count(clean) == 1
    path.write_bytes(data.replace(clean, bad))
    return home


def doctor(home: Path, app: str, *options: str) -> dict[str, object]:
    out, _ = invoke("doctor", *options, "--app", app, "--json", "--home", str(home))
    [report] = json.loads(out)
    assert isinstance(report, dict)
    return report


def listed(home: Path, app: str) -> dict[str, dict[str, object]]:
    out, _ = invoke("list", "--app", app, "--json", "--home", str(home))
    return {row["id"]: row for row in json.loads(out)}


def test_a_small_gemini_chat_s_prompt(tmp_path: Path) -> None:
    """A chat small enough to be read whole: its summary (the title) and first prompt
    are shown with U+FFFD, one damaged line, said by doctor and `show`."""
    home = damaged(tmp_path, "gemini", GEMINI_CHAT, b'"content": "Run the', b'"content": "R\xfcn the')  # fmt: skip
    chat = home / GEMINI_CHAT
    data = chat.read_bytes()
    chat.write_bytes(data.replace(b'"summary": "Run', b'"summary": "R\xfcn'))
    sid = "5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"
    title = listed(home, "gemini")[sid]["title"]
    assert title == "R\ufffdn the test suite and report failures"
    report = doctor(home, "gemini")
    assert report["damaged_lines"] == {NOT_UTF8: 1}
    assert report["damaged_at"] == [{"file": str(chat), "line": 1, "reason": NOT_UTF8}]
    out, err = invoke("show", sid, "--json", "-v", "--home", str(home))
    said = [e["text"] for e in json.loads(out) if e["kind"] == "user"]
    assert said[0] == "R\ufffdn the test suite"
    assert f"warning: {SAID}:" in err and err.count(f"  {chat}:1: {NOT_UTF8}") == 1


def test_an_amp_thread_s_title(tmp_path: Path) -> None:
    home = damaged(tmp_path, "amp", AMP_THREAD, b"Create a login form component\"", b"Cr\xe9ate a login form component\"")  # fmt: skip
    assert listed(home, "amp")["test-thread-1"]["title"] == (
        "Cr\ufffdate a login form component"
    )
    _, err = invoke("list", "--app", "amp", "-v", "--home", str(home))
    assert f"{home / AMP_THREAD}:1: {NOT_UTF8}" in err
    report = doctor(home, "amp")
    assert report["damaged_at"] == [
        {"file": str(home / AMP_THREAD), "line": 1, "reason": NOT_UTF8}
    ]


def test_a_cline_task_s_messages(tmp_path: Path) -> None:
    """The listing finds the task's words in the file's head; `show` reads it whole, and
    now says what it repaired, as doctor --deep does."""
    home = damaged(tmp_path, "cline", CLINE_TASK, b"Let me read the router.", b"Let me r\xe9ad the router.")  # fmt: skip
    out, err = invoke("show", "1790931121000", "--json", "-v", "--home", str(home))
    said = [e["text"] for e in json.loads(out) if e["kind"] == "assistant"]
    assert "Let me r\ufffdad the router." in said
    assert f"warning: {SAID}:" in err
    assert err.count(f"  {home / CLINE_TASK}:1: {NOT_UTF8}") == 1
    report = doctor(home, "cline", "--deep")
    assert report["damaged_at"] == [
        {"file": str(home / CLINE_TASK), "line": 1, "reason": NOT_UTF8}
    ]


def test_kimi_code_s_state_title(tmp_path: Path) -> None:
    home = damaged(tmp_path, "kimi", KIMI_STATE, b'"title": "hi"', b'"title": "h\xe9i"')
    sid = "9eb1bf57-c1af-48a5-b658-0e8d9fe794f5"
    assert listed(home, "kimi")[sid]["title"] == "h\ufffdi"
    report = doctor(home, "kimi")
    assert report["damaged_at"] == [
        {"file": str(home / KIMI_STATE), "line": 1, "reason": NOT_UTF8}
    ]


def test_opencode_s_session_file_title(tmp_path: Path) -> None:
    home = damaged(tmp_path, "opencode", OPENCODE_INFO, b"Rename loadConfig", b"R\xe9name loadConfig")  # fmt: skip
    assert listed(home, "opencode")[OPENCODE_ID]["title"] == (
        "R\ufffdname loadConfig to readConfig"
    )
    report = doctor(home, "opencode")
    assert report["damaged_at"] == [
        {"file": str(home / OPENCODE_INFO), "line": 1, "reason": NOT_UTF8}
    ]


def test_opencode_s_message_read_twice_by_its_listing_is_one_line(
    tmp_path: Path,
) -> None:
    """The listing reads the newest message file for its model and the first ones for
    the folder (an early session file names none): the same file, counted once."""
    home = damaged(tmp_path, "opencode", OPENCODE_MESSAGE, b'"cwd": "/home/dev/notes"', b'"cwd": "/home/dev/n\xf6tes"')  # fmt: skip
    row = listed(home, "opencode")[OPENCODE_ID]
    assert row["cwd"] == "/home/dev/n\ufffdtes"
    assert row["model"] == "claude-sonnet-4-20250514"
    report = doctor(home, "opencode")
    assert report["damaged_lines"] == {NOT_UTF8: 1}
    assert report["damaged_at"] == [
        {"file": str(home / OPENCODE_MESSAGE), "line": 1, "reason": NOT_UTF8}
    ]


@pytest.mark.parametrize("app", ["gemini", "amp", "cline", "kimi", "opencode"])
def test_clean_documents_count_no_damage(tmp_path: Path, app: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home)
    report = doctor(home, app, "--deep")
    assert report["damaged_lines"] == {} and report["damaged_at"] == []


def test_read_json_file_counts_what_it_repaired(tmp_path: Path) -> None:
    """Once per reader however often it reads the file; a byte order mark or a lone
    surrogate escape (what an app wrote, in UTF-8) is no damage; without diagnostics
    nothing is counted, as before."""
    path = tmp_path / "meta.json"
    path.write_bytes(b'{"title": "caf\xe9"}')
    diagnostics = Diagnostics()
    for _ in range(2):
        value = files.read_json_file(path, diagnostics=diagnostics)
        assert value == {"title": "caf\ufffd"}
    assert diagnostics.damaged == {NOT_UTF8: 1} and diagnostics.skipped_total == 0
    assert diagnostics.details == [(str(path), 1, NOT_UTF8)]
    assert files.read_json_file(path) == {"title": "caf\ufffd"}
    path.write_bytes(b'\xef\xbb\xbf{"title": "cut \\ud83d"}')
    clean = Diagnostics()
    assert files.read_json_file(path, diagnostics=clean) == {"title": "cut \ufffd"}
    path.write_bytes(b'{"title": "caf\xe9" // a comment\n}')
    value = files.read_json_file(path, comments=True, diagnostics=clean)
    assert value == {"title": "caf\ufffd"}
    assert clean.damaged == {NOT_UTF8: 1} and clean.details == [
        (str(path), 1, NOT_UTF8)
    ]


def test_follow_says_a_damaged_chat_was_shown_not_skipped(tmp_path: Path) -> None:
    """`follow` reads a chat kept as one JSON document again at each change: its line
    read over bytes that are not UTF-8 was shown, with U+FFFD, yet the warning as it
    ended said `skipped 1 unreadable line`, where `show` and `replay` say it was read."""
    home = damaged(tmp_path, "gemini", GEMINI_CHAT, b'"content": "Run the', b'"content": "R\xfcn the')  # fmt: skip
    sid = "5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"
    out, err = invoke("follow", sid, "--duration", "0", "--home", str(home))
    assert "R\ufffdn the test suite" in out
    assert f"warning: {SAID};" in err and "unreadable" not in err
