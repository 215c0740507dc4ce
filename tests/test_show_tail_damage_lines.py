"""Where `show --tail N -v` and `follow -n N -v` say a damaged line is: a read from past the file's start
never counted the lines before it, so it names the line by the byte it starts at, not
by a number counted from where the read began (which named another line); the whole
read's `file:line` stays as it was."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from sessdex import sources
from tests.helpers import cli_over, sessions_of

DATA = Path(__file__).parent / "data"
PAD = 150_000  # bytes a padding line holds: two put the damage past the tail's window

# (app, its session file in the fixture home): a line-based reader each
FILES = [
    ("amp", ".cache/amp/logs/threads/T-019e8cc2-ebc0-7a3c-8e21-5f0d6b9c2a47.log"),
    ("claude", ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"),
    ("codex", ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-01a22b81-6e0b-7650-ac72-188ccaa967c5.jsonl"),
    ("copilot", ".copilot/session-state/52ee9297-7cb3-468f-8ca4-46f6b927c8c7/events.jsonl"),
    ("cursor", ".cursor/projects/home-dev-code-api/agent-transcripts/7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0/7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0.jsonl"),
    ("droid", ".factory/sessions/-tmp/droid_s1.jsonl"),
    ("gemini", ".gemini/tmp/webapp/chats/session-2026-12-01T09-00-c0ffee12.jsonl"),
    ("goose", ".local/share/goose/sessions/refactor-notes.jsonl"),
    ("gptme", ".local/share/gptme/logs/2026-11-30-happy-blue-fish/conversation.jsonl"),
    ("kimi", ".kimi/sessions/83966a3838d499c6ec0c7147091f7d31/3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f/wire.jsonl"),
    ("kiro", ".kiro/sessions/cli/9a0c4e2d-1b3f-4a5c-8d7e-6f1a2b3c4d5e.jsonl"),
    ("kiroide", ".kiro/sessions/bdc0eab0317a54d7/sess_7c1d3e5f-2a4b-4c6d-9e8f-0a1b2c3d4e5f/messages.jsonl"),
    ("openclaw", ".openclaw/agents/main/sessions/a717db17-7bed-408a-8491-a2bb0b190f46.jsonl"),
    ("pi", ".pi/agent/sessions/--home-alex-code-shop-api--/2026-11-30T08-13-16-331Z_01a22b83-eeaa-75d4-a59d-adc5e4fb9817.jsonl"),
    ("qoder", ".qoder/projects/-home-alex-code-shop-api/3b1f6c2e-8a4d-4f0e-9c7b-2d5e8f1a6b90.jsonl"),
    ("qwen", ".qwen/projects/-home-alex-code-shop-api/chats/5d1e0c2a-7b3f-4e8a-9c1d-2f6a8b4e0c11.jsonl"),
    ("vibe", ".vibe/logs/session/session_20261130_081121_ee760971/messages.jsonl"),
]  # fmt: skip
# the readers that count the lines before a --tail offset anyway: the line's number
COUNTED = {"vibe"}
# the sessions with sub-agents kept apart, whose tail is read whole (their blocks placed
# as show places them; those kept in the lead's file are read in its order with it)
WHOLE = {"gptme", "kimi", "openclaw", "qoder"}


def _damaged_home(tmp_path: Path, app: str, name: str) -> tuple[Path, Path, str]:
    """(home, file, its session's id): the app's fixture home, the file given two long
    lines of a record no app writes after its first line, and a line that is no JSON
    before its last one."""
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    path = home / name
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    pad = b'{"type": "sessdex-test-pad", "text": "' + b"x" * PAD + b'"}'
    lines[1:1] = [pad, pad]
    lines.insert(len(lines) - 1, b'{"type": "user", "message": {"content": "cut')
    path.write_bytes(b"\n".join(lines) + b"\n")
    [session] = [
        s
        for s in sessions_of(sources.get(app), home).values()
        if s.path == str(path) and not s.parent_id
    ]
    return home, path, session.id


def _where(stderr: str, path: Path) -> list[str]:
    """What --verbose names of `path`: `:<line>` or ` at byte <n>`, with the reason."""
    named = re.escape(str(path))
    return re.findall(rf"{named}(:\d+| at byte [\d,]+): (not JSON[^\n]*)", stderr)


def _aider_home(tmp_path: Path) -> tuple[Path, Path, str]:
    """An aider chat log with two long replies, then a line holding a NUL byte."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    path = home / ".aider.chat.history.md"
    text = b"x" * PAD
    path.write_bytes(
        b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### first  \n\n"
        + text + b"\n\n#### second  \n\n" + text + b"\n\n#### third  \n\n"
        + b"a reply\x00 with a NUL\n\n#### fourth  \n\ndone\n"
    )  # fmt: skip
    [session] = sessions_of(sources.get("aider"), home).values()
    return home, path, session.id


@pytest.mark.parametrize(("app", "name"), FILES, ids=[app for app, _ in FILES])
def test_show_tail_names_a_damaged_line_by_its_byte(
    tmp_path: Path, app: str, name: str
) -> None:
    home, path, sid = _damaged_home(tmp_path, app, name)
    data = path.read_bytes()
    at = data.index(b'{"type": "user", "message": {"content": "cut')
    number = data.count(b"\n", 0, at) + 1
    whole = cli_over(home, "show", sid, "-v", "--no-pager").stderr
    assert _where(whole, path) == [(f":{number}", "not JSON")], whole
    tail = cli_over(home, "show", sid, "--tail", "1", "-v", "--no-pager").stderr
    # it said the line's number counted from where the tail's read began
    where = f":{number}" if app in COUNTED | WHOLE else f" at byte {at:,}"
    assert _where(tail, path) == [(where, "not JSON")], tail
    # follow reads a big log on from its tail too (a store, or a file it rereads, whole)
    live = cli_over(home, "follow", sid, "-n", "1", "--duration", "0", "-v").stderr
    said = _where(live, path)
    assert said in ([(f" at byte {at:,}", "not JSON")], [(f":{number}", "not JSON")]), (
        live
    )


def test_show_tail_names_a_damaged_aider_line_by_its_byte(tmp_path: Path) -> None:
    home, path, sid = _aider_home(tmp_path)
    data = path.read_bytes()
    at = data.index(b"a reply\x00")
    number = data.count(b"\n", 0, at) + 1
    whole = cli_over(home, "show", sid, "-v", "--no-pager").stderr
    assert f"{path}:{number}: NUL bytes" in whole, whole
    tail = cli_over(home, "show", sid, "--tail", "1", "-v", "--no-pager").stderr
    assert f"{path} at byte {at:,}: NUL bytes" in tail, tail
    assert f"{path}:" not in tail, tail


def test_follow_session_gives_api_users_the_damaged_line_as_doctor_json_does(
    tmp_path: Path,
) -> None:
    from sessdex import api
    from sessdex.diagnostics import AT_BYTE, Diagnostics
    from sessdex.sources import Home

    home, path, sid = _damaged_home(tmp_path, "claude", FILES[1][1])
    at = path.read_bytes().index(b'{"type": "user", "message": {"content": "cut')
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), sid, duration=0, notify=False, history=1, diagnostics=diagnostics
    )
    for _ in batches:
        pass
    # details hold at_byte(at), 2**48 past the byte: places() says the byte itself
    [(_, line, _)] = diagnostics.details
    assert line == AT_BYTE + at
    [named] = diagnostics.places()
    assert named == {"file": str(path), "byte": at, "reason": named["reason"]}
    assert str(named["reason"]).startswith("not JSON")


def test_a_damaged_line_in_a_listed_claude_files_tail_is_named_by_its_byte(
    tmp_path: Path,
) -> None:
    import json

    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    path = home / FILES[1][1]
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    pad = b'{"type": "sessdex-test-pad", "text": "' + b"x" * PAD + b'"}'
    lines[1:1] = [pad] * 5  # the file past what listing reads of it: head, then tail
    lines.append(b'{"type": "user", "timestamp": "2026-12-01T10:00:00Z", "cut')
    path.write_bytes(b"\n".join(lines) + b"\n")  # the damaged line ends the file
    at = path.read_bytes().index(
        b'{"type": "user", "timestamp": "2026-12-01T10:00:00Z", "cut'
    )
    report = json.loads(cli_over(home, "doctor", "--json", "--app", "claude").stdout)
    [claude] = [a for a in report if a["app"] == "claude"]
    named = [p for p in claude["skipped_at"] if p["file"] == str(path)]
    # it said line 0, which doctor --json uses for the whole file
    assert named == [{"file": str(path), "byte": at, "reason": "not JSON"}], named
    listed = cli_over(home, "list", "-v").stderr
    assert f"{path} at byte {at:,}: not JSON" in listed, listed
    # the Python API's listing says it as doctor --json does too
    from sessdex import api
    from sessdex.sources import Home

    listing = api.list_sessions(Home.at(home), apps=["claude"], with_skipped=True)
    assert [p for p in listing.skipped_places() if p["file"] == str(path)] == [
        {"app": "claude", "file": str(path), "byte": at, "reason": "not JSON"}
    ]
