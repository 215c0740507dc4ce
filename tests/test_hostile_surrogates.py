"""A text cut in the middle of an emoji: a JavaScript app that shortens a string
(`slice(0, 80)`) writes the emoji's first half as a lone surrogate escape (`"\\ud83d"`).
That is valid JSON; the line it is on is no damaged line, and no session loses it."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
TEXT_KEYS = {"text", "content", "title", "message", "prompt", "summary", "display"}
CUT = "\ud83d"  # the first half of 😀 (U+1F600), cut off from its second


def _with_cut_emoji(value: object, key: str | None = None) -> object:
    if isinstance(value, dict):
        return {k: _with_cut_emoji(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_cut_emoji(v, key) for v in value]
    if isinstance(value, str) and key in TEXT_KEYS and _prose(value):
        return value + " " + CUT
    return value


def _prose(text: str) -> bool:
    """A text a model or a person wrote at length, as opposed to an empty one (which would
    then show), markup (`<session_context>`) or a short word the app reads as a status
    ("Request cancelled.")."""
    return text[:1].isalpha() and len(text) > 24


def _home(app: str, target: Path, *, cut: bool) -> Path:
    """The app's fixture home, each JSON document and line written again by `json.dumps`
    (as a JavaScript app writes it: a lone surrogate as its escape), its texts ending in
    half an emoji where `cut` says."""
    shutil.copytree(DATA / app / "home", target, symlinks=True)
    for path in sorted(target.rglob("*")):
        if path.is_symlink() or path.suffix not in (".json", ".jsonl"):
            continue
        change = _with_cut_emoji if cut else (lambda value: value)
        if path.suffix == ".jsonl":
            lines = []
            for line in path.read_text().splitlines():
                try:
                    lines.append(json.dumps(change(json.loads(line))))
                except ValueError:
                    lines.append(line)  # a fixture's deliberately broken line
            path.write_text("".join(line + "\n" for line in lines))
        else:
            with contextlib.suppress(ValueError):  # a deliberately broken fixture
                path.write_text(json.dumps(change(json.loads(path.read_text()))))
    return target


def _seen(home: Path) -> tuple[dict[str, int], object, str]:
    """Per session its count of events, the app's skipped lines, and all shown text."""
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(main, [*args, "--home", str(home)])
        assert result.exit_code in (0, 1), result.output
        return result.stdout

    events, shown = {}, ""
    for session in json.loads(run("list", "--all", "--json")):
        key = f"{session['app']}:{session['id']}"
        shown += session["title"] or ""
        out = run("show", key, "--json")
        events[key] = len(json.loads(out)) if out.strip() else 0
        shown += out
    skipped = [app["skipped_lines"] for app in json.loads(run("doctor", "--json"))]
    return events, skipped, shown


@pytest.mark.parametrize(
    "app",
    [
        "claude",
        "codex",
        "copilot",
        "gemini",
        "cursor",
        "pi",
        "opencode",
        "goose",
        "qwen",
    ],
)
def test_half_an_emoji_loses_no_line(app: str, tmp_path: Path) -> None:
    whole = _seen(_home(app, tmp_path / "whole", cut=False))
    cut = _seen(_home(app, tmp_path / "cut", cut=True))
    assert cut[0] == whole[0], "every session is listed with all its events"
    assert cut[1] == whole[1], "no line was counted as damaged"
    assert "\ufffd" in cut[2], "the half emoji shows as the replacement character"


def test_an_emoji_whole_and_an_escaped_backslash_are_kept(tmp_path: Path) -> None:
    """Only the lone half is replaced: a whole emoji on the same line stays, and a
    backslash followed by the letters `ud83d` is text, not an escape."""
    home = _home("pi", tmp_path / "home", cut=False)
    (path,) = home.glob(".pi/agent/sessions/--home-alex-code-shop-api--/*.jsonl")
    text = path.read_text()
    assert "SCENARIO=basic" in text
    path.write_text(
        text.replace(
            "SCENARIO=basic", "SCENARIO=basic \\ud83d\\ude00 \\\\ud83d \\ud83d", 1
        )
    )
    result = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    titles = [s["title"] for s in json.loads(result.stdout)]
    assert "SCENARIO=basic \U0001f600 \\ud83d \ufffd Please" in " ".join(titles)
    assert "skipped" not in result.stderr


def test_half_an_emoji_in_json_an_app_keeps_in_a_string(tmp_path: Path) -> None:
    """Cline keeps a question it puts to the user as JSON inside a message's string: its
    half emoji is an escape in that inner JSON, shown as the replacement character by
    `show` and the exports as in the JSON (it was a lone surrogate: `?` on a terminal,
    in Markdown and HTML, and an error where the output takes UTF-8 only)."""
    home = _home("cline", tmp_path / "home", cut=False)
    (path,) = home.rglob("tasks/1790940000000/ui_messages.json")
    messages = json.loads(path.read_text())
    (asked,) = [m for m in messages if m.get("ask") == "followup"]
    question = json.loads(asked["text"])
    question["question"] += " " + CUT
    asked["text"] = json.dumps(question)  # as JSON.stringify writes it: "\ud83d"
    path.write_text(json.dumps(messages))
    for args in (
        ["show", "--no-pager"],
        ["export", "-f", "md"],
        ["export", "-f", "html"],
    ):
        result = CliRunner().invoke(main, [*args, "1790940000000", "--home", str(home)])
        assert result.exit_code == 0, (args, result.exception)
        assert "web or server? \ufffd" in result.stdout, args


def test_half_an_emoji_in_a_database_row_loses_no_message(tmp_path: Path) -> None:
    """OpenCode keeps each part of a message as JSON in a SQLite row, as JavaScript's
    JSON.stringify writes it: half an emoji there is a lone surrogate escape, which
    orjson refuses. The part is read, its half emoji the replacement character (the
    user's prompt was dropped from `show` and the exports, and counted nowhere)."""
    import sqlite3

    changed = 0
    home = _home("opencode", tmp_path / "home", cut=False)
    with (
        contextlib.closing(
            sqlite3.connect(home / ".local/share/opencode/opencode.db")
        ) as db,
        db,
    ):
        for rowid, data in db.execute("SELECT rowid, data FROM part").fetchall():
            part = json.loads(data)
            if "SCENARIO=basic" in part.get("text", ""):  # the prompt
                part["text"] += " " + CUT
                db.execute(
                    "UPDATE part SET data = ? WHERE rowid = ?",
                    (json.dumps(part), rowid),
                )
                changed = rowid
    assert changed
    session = "ses_dd47cef52ffe38O37iH1Ffe05b"
    for args in (["show", "--no-pager"], ["export", "-f", "md"], ["show", "--json"]):
        result = CliRunner().invoke(main, [*args, session, "--home", str(home)])
        assert result.exit_code == 0, (args, result.exception)
        assert "SCENARIO=basic" in result.stdout, args
        assert "\ufffd" in result.stdout, args


def test_the_markdown_export_takes_half_an_emoji_handed_to_it() -> None:
    """The readers hand on U+FFFD, but the exporter holds on its own: a sub-agent's last
    reply and the result its spawn got back, each ending in a lone surrogate, export (the
    result told once, as the reply above) instead of raising UnicodeEncodeError."""
    from sessdex.model import Event, Session
    from sessdex.views import markdown

    reply = "The parser is ported, every test passes " + CUT
    events = [
        Event("s", 0, "user", text="port it " + CUT),
        Event("s", 1, "tool_call", tool="Task", call_id="c1", extra={"input": {}}),
        Event("s", 2, "subagent", call_id="c1", text="port", extra={"child_id": "a1"}),
        Event("s", 3, "assistant", agent_id="a1", text=reply),
        Event("s", 4, "tool_result", call_id="c1", text=reply),
    ]
    page = "".join(markdown.render(Session(app="claude", id="s", title=CUT), events))
    assert "port it" in page
    assert page.count("The parser is ported") == 1
    assert "its last reply, above." in page
