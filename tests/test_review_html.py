"""The HTML export as a reader of the page meets it: what is folded, what is shown."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "21212121-0000-4000-8000-000000000001"


def _export(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["export", "2121", "--home", str(home), *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_html_export_folds_what_the_app_added_to_a_prompt(tmp_path: Path) -> None:
    """A slash command's expansion (a long prompt the app wrote, not the person) is
    folded under 'added by the app', as `show` and the Markdown export fold it: the
    page opens on what was typed, not on eighty lines of a command's template."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path), prompt="/orchestrate go")
    expansion = "\n".join(f"Step {n} of the orchestrate template" for n in range(80))
    line = claude_line(
        SESSION, str(tmp_path), type="user", uuid="u2", parentUuid="u1", isMeta=True,
        timestamp="2026-11-20T10:00:01.000Z",
        message={"role": "user", "content": [{"type": "text", "text": expansion}]},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(line) + "\n")
    page = _export(home, "-f", "html")
    assert "Step 79 of the orchestrate template" in page  # kept, whole
    folded = re.search(
        r"<details[^>]*><summary>added by the app</summary><pre>(.*?)</pre></details>",
        page,
        re.S,
    )
    assert folded is not None, page
    assert "Step 0 of the orchestrate template" in folded.group(1)
    assert "Message from the app" not in page
    assert '<h2 class="who">User</h2><div class="text">/orchestrate go' in page


@pytest.mark.browser
def test_a_printed_html_export_shows_tool_calls_and_results_unfolded(
    tmp_path: Path,
) -> None:
    """Printed (or saved as PDF), the page holds what its folded blocks hold: a long
    output fills pages, where only its 'result' line was printed."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("SESSDEX_REQUIRE_TOOLS") == "1":
            pytest.fail("chromium is required here (SESSDEX_REQUIRE_TOOLS=1)")
        pytest.skip("Debian's chromium is not installed")
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    output = "\n".join(f"line {n} of the test run" for n in range(400))
    lines = [
        claude_line(
            SESSION, str(tmp_path), type="assistant", uuid="a2", parentUuid="a1",
            timestamp="2026-11-20T10:00:06.000Z",
            message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                  "input": {"command": "pytest"}}]},
        ),
        claude_line(
            SESSION, str(tmp_path), type="user", uuid="u3", parentUuid="a2",
            timestamp="2026-11-20T10:00:07.000Z",
            message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": output}]},
        ),
    ]  # fmt: skip
    with path.open("a") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    page = tmp_path / "session.html"
    _export(home, "-o", str(page))
    pdf = tmp_path / "session.pdf"
    subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
            "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri(),
        ],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))
    assert pages >= 4  # 400 lines of output: one page held only its summary


def test_html_export_heads_each_turn_for_a_reader_that_lists_headings() -> None:
    """A screen reader's list of headings is the page's turns: the title, each message
    to the lead (h2) and each reply, and a sub-agent's task and replies one level down
    (h3) in its block."""
    home = Path(__file__).parent / "data" / "claude" / "home"
    result = CliRunner().invoke(
        main, ["export", "82d9f90c", "-f", "html", "--home", str(home)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    headings = re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", result.stdout)
    assert [(level, text[:20]) for level, text in headings] == [
        ("1", "Sub-agent smoke test"),
        ("2", "User"),
        ("3", "Message from the lea"),
        ("3", "Assistant (sub-agent"),
        ("2", "Assistant"),
    ]
    sub_block = result.stdout.index('<details class="sub"')
    assert result.stdout.index("<h3") > sub_block  # inside the sub-agent's block


def test_a_folded_result_says_how_it_begins(tmp_path: Path) -> None:
    """Folded, each result shows its first line (as `show` shows its first lines), or
    that there was none: a page of tool calls read 'result', 'result', 'result'."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    calls = [{"type": "tool_use", "id": f"t{n}", "name": "Bash",
              "input": {"command": f"step {n}"}} for n in range(3)]  # fmt: skip
    results = [
        {"type": "tool_result", "tool_use_id": "t0", "content": "\n3 passed, 1 failed\nmore"},
        {"type": "tool_result", "tool_use_id": "t1", "content": ""},
        {"type": "tool_result", "tool_use_id": "t2", "content": "boom", "is_error": True},
    ]  # fmt: skip
    lines = [
        claude_line(
            SESSION, str(tmp_path), type="assistant", uuid="a2", parentUuid="a1",
            timestamp="2026-11-20T10:00:06.000Z",
            message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": calls},
        ),
        claude_line(
            SESSION, str(tmp_path), type="user", uuid="u3", parentUuid="a2",
            timestamp="2026-11-20T10:00:07.000Z",
            message={"role": "user", "content": results},
        ),
    ]  # fmt: skip
    with path.open("a") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    page = _export(home, "-f", "html")
    summaries = re.findall(
        r'<details class="ev result[^"]*"><summary>(.*?)</summary>', page
    )
    assert summaries == [  # three calls made together: each result names its own
        "result of Bash — step 0 — 3 passed, 1 failed",
        "result of Bash — step 1 — (no output)",
        "error of Bash — step 2 — boom",
    ]


def test_html_export_says_when_the_session_ran_from_and_to(tmp_path: Path) -> None:
    """The page's facts give the session's span, as `show`'s header and the Markdown
    export do (started, updated): it gave only the start."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    later = claude_line(
        SESSION, str(tmp_path), type="user", uuid="u9", parentUuid="a1",
        timestamp="2026-11-20T11:42:00.000Z",
        message={"role": "user", "content": "one more thing"},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(later) + "\n")
    page = _export(home, "-f", "html")
    assert " · 2026-11-20 10:00 to 11:42 UTC</div>" in page
    days = claude_line(
        SESSION, str(tmp_path), type="user", uuid="u10", parentUuid="u9",
        timestamp="2026-11-23T08:05:00.000Z",
        message={"role": "user", "content": "back after the weekend"},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(days) + "\n")
    page = _export(home, "-f", "html")
    assert " · 2026-11-20 10:00 to 2026-11-23 08:05 UTC</div>" in page


def test_html_export_shows_a_written_file_as_its_lines(tmp_path: Path) -> None:
    """A Write's content reads as the file it wrote, line under line (as in `show
    --detail full` and the Markdown export), not one JSON string full of `\\n`."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    content = "export interface Todo {\n  id: string;\n}\n"
    call = claude_line(
        SESSION, str(tmp_path), type="assistant", uuid="a2", parentUuid="a1",
        timestamp="2026-11-20T10:00:06.000Z",
        message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "tool_use", "id": "t1", "name": "Write",
                              "input": {"file_path": "/w/todo.ts", "content": content,
                                        "options": {"mode": 420}}}]},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(call) + "\n")
    page = _export(home, "-f", "html")
    shown = re.search(
        r"<summary>Write — /w/todo.ts</summary><pre>(.*?)</pre>", page, re.S
    )
    assert shown is not None, page
    assert shown.group(1).split("\n") == [
        "file_path: /w/todo.ts",
        "content:",
        "    export interface Todo {",
        "      id: string;",
        "    }",
        "options:",
        "    {",
        "      &quot;mode&quot;: 420",
        "    }",
    ]


def test_each_sub_agent_block_says_what_its_agent_was_spawned_for() -> None:
    """Two `general-purpose` agents at work at once, in time order: each block, opened
    again whenever its agent speaks, names its task beside its mark (its type and id start)."""
    from sessdex.model import Event, Session
    from sessdex.views import html

    def spawn(n: int, child: str, task: str) -> Event:
        return Event("s", n, "subagent", text=task, call_id=f"c{n}",
                     extra={"child_id": child, "agent_type": "general-purpose"})  # fmt: skip

    events = [
        spawn(0, "aaaa1111", "Setup the project"),
        spawn(1, "bbbb2222", "Create data models"),
        Event("s", 2, "assistant", text="a0", agent_id="aaaa1111"),
        Event("s", 3, "assistant", text="b0", agent_id="bbbb2222"),
        Event("s", 4, "assistant", text="a1", agent_id="aaaa1111"),
    ]
    page = "".join(html.render(Session(app="claude", id="s"), events))
    summaries = re.findall(r'<details class="sub" open><summary>(.*?)</summary>', page)
    assert summaries == [
        "sub-agent general-purpose aaaa1111 — Setup the project",
        "sub-agent general-purpose bbbb2222 — Create data models",
        "sub-agent general-purpose aaaa1111 — Setup the project",
    ]


def test_a_call_a_repl_script_ran_is_marked_as_the_scripts(tmp_path: Path) -> None:
    """Claude Code's REPL (2.1.33x) writes the tool calls a script ran as if the model
    made them (`isVirtual` lines): the page marks such a call `↳ script:`, dimmed, as
    `show` does, and leaves the model's own calls as they were; the call's own text is
    escaped as all text is."""
    from tests.helpers import claude_repl_session

    home = tmp_path / "home"
    claude_repl_session(home, SESSION, str(tmp_path), "/work/<i>a</i>.py")
    page = _export(home, "-f", "html")
    calls = re.findall(
        r'<details class="(ev tool[^"]*)"><summary>(.*?)</summary>', page
    )
    assert calls[1] == (
        "ev tool virtual",
        '<span class="by">↳ script:</span> Read — /work/&lt;i&gt;a&lt;/i&gt;.py',
    ), page
    assert calls[0][0] == "ev tool" and calls[0][1].startswith("REPL — ")
    assert "<i>a</i>" not in page
