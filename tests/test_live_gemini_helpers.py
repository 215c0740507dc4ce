"""`watch`: what a running Gemini CLI started since an answer says of that answer.

Gemini CLI writes a response's tool calls only once they have run, so an answer followed by
silence may have a tool running: a process the CLI started since says so. Not every one
does: an MCP server it keeps running (started with the session, or again by `/mcp refresh`)
and a `!` command the user typed run no tool call. Their words, as gemini-cli writes them:
the shell tool wraps a command so that it saves its process group (`shell_pgrep_<hex>.tmp`),
the `!` shell so that it saves the folder it ended in (`shell_pwd_<hex>.tmp`); an MCP server
runs its settings' `command` and `args` (`npx -y <package>` shows as npm's title, `npm
exec <package>`, one text padded with NULs, as node 20 and npm 10 write it). The processes
are a fake /proc, as in tests/test_live_resumed.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessdex.live import LiveSession, Processes
from sessdex.model import Session
from sessdex.sources import gemini

from .test_live_resumed import BOOT, HOUR, event, fake_process, proc_root

SID = "b44832f3-f4fa-4a19-8699-656bec90e64d"
ANSWERED = BOOT + HOUR  # when the answer that may have calls to come was written
NOW = ANSWERED + 20
TOOL = [
    "bash",
    "-c",
    "{ make test; }; __code=$?; pgrep -g 0 >/tmp/shell_pgrep_3f9a1c2b7d4e.tmp 2>&1;"
    " exit $__code;",
]
TYPED = [
    "bash",
    "-c",
    '{ git status; }; __code=$?; pwd > "/tmp/shell_pwd_8c1d2e3f4a5b.tmp"; exit $__code',
]
NPX_SERVER = ["npm", "exec", "-y", "@modelcontextprotocol/server-github"]
PROJECT_SERVER = ["python3", "tools/mcp_server.py", "--port", "8080"]
EXTENSION_SERVER = ["node", "{gemini}/extensions/lint/dist/server.js"]
UNKNOWN_SERVER = ["npm", "exec", "-y", "some-other-package"]
# as npm really shows it: node writes its title (positional words only) over the arguments
TITLED_SERVER = ["npm exec @modelcontextprotocol/server-github" + "\0" * 40]
# npx as the script of node, where nothing set a title (the kernel's `#!` line)
SCRIPT_SERVER = ["node", "/usr/bin/npx", "-y", "@modelcontextprotocol/server-github"]


def _home(tmp_path: Path) -> tuple[Path, Path]:
    """A Gemini home whose settings name MCP servers (one with a token in its env), a
    project whose own settings name another, and an extension naming a third."""
    gemini, work = tmp_path / ".gemini", tmp_path / "code" / "shop-api"
    chats = gemini / "tmp" / "shop-api" / "chats"
    chats.mkdir(parents=True)
    (work / ".gemini").mkdir(parents=True)
    github = {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_not-a-real-token"},
    }
    (gemini / "settings.json").write_text(
        '{\n  // comments are allowed here\n  "mcpServers": '
        + json.dumps({"github": github})
        + "\n}\n"
    )
    local = {"command": "python3", "args": ["tools/mcp_server.py", "--port", "8080"]}
    (work / ".gemini" / "settings.json").write_text(
        json.dumps({"mcpServers": {"local": local}})
    )
    extension = gemini / "extensions" / "lint"
    extension.mkdir(parents=True)
    lint = {"command": "node", "args": ["${extensionPath}/dist/server.js"]}
    (extension / "gemini-extension.json").write_text(
        json.dumps({"name": "lint", "mcpServers": {"lint": lint}})
    )
    chat = chats / "session-2026-11-30T08-11-b44832f3.jsonl"
    chat.write_text("")
    return chat, work


def _answered(chat: Path, work: Path) -> LiveSession:
    """A session whose last record is an answer whose calls may come later."""
    live = LiveSession(Session("gemini", SID, path=str(chat), cwd=str(work)))
    live.since = NOW
    for item in (
        event("user", ANSWERED - 10, text="run the tests"),
        event("assistant", ANSWERED, text="I'll run the tests."),
        event("turn_end", ANSWERED, extra={"calls_later": True}),
    ):
        live.tracker.add(item, NOW)
    live.alive, live.pids = True, [100]
    return live


def _status(tmp_path: Path, started: list[str]) -> tuple[str, str]:
    """The status at NOW while the CLI (pid 100) runs `started`, begun after the answer."""
    chat, work = _home(tmp_path)
    root = proc_root(tmp_path)
    fake_process(root, 100, ["node", "/usr/bin/gemini"], work, started=BOOT + 60)
    words = [w.replace("{gemini}", str(tmp_path / ".gemini")) for w in started]
    fake_process(root, 101, words, work, started=ANSWERED + 2)
    (root / "100" / "task" / "100" / "children").write_text("101")
    processes = Processes(root=root)
    processes.refresh(force=True)
    found = _answered(chat, work).status(NOW, processes)
    return found.status, found.reason


def test_a_tool_the_cli_runs_since_the_answer_is_work(tmp_path: Path) -> None:
    assert _status(tmp_path, TOOL) == (
        "working",
        "a tool running 20s (not written yet)",
    )


@pytest.mark.parametrize(
    "started",
    [TYPED, NPX_SERVER, TITLED_SERVER, SCRIPT_SERVER, PROJECT_SERVER, EXTENSION_SERVER],
    ids=[
        "typed-shell",
        "user-mcp-server",
        "npm-title",
        "npx-script",
        "project-mcp-server",
        "extension-server",
    ],
)
def test_a_helper_the_cli_started_since_the_answer_is_no_work(
    tmp_path: Path, started: list[str]
) -> None:
    assert _status(tmp_path, started) == ("waiting_for_user", "turn ended 20s ago")


def test_a_server_no_settings_name_may_be_a_tool(tmp_path: Path) -> None:
    # an MCP server of a settings file not read here, or a tool that is one: a tool run
    assert _status(tmp_path, UNKNOWN_SERVER)[0] == "working"


def test_a_helper_running_at_the_prompt_started_again_is_no_work(
    tmp_path: Path,
) -> None:
    """An MCP server no settings read here name (a system-wide one), running when the
    prompt came, restarted after the answer (`/mcp refresh`): the same words again."""
    chat, work = _home(tmp_path)
    root = proc_root(tmp_path)
    fake_process(root, 100, ["node", "/usr/bin/gemini"], work, started=BOOT + 60)
    fake_process(root, 101, UNKNOWN_SERVER, work, started=BOOT + 61)
    children = root / "100" / "task" / "100" / "children"
    children.write_text("101")
    processes = Processes(root=root)
    processes.refresh(force=True)
    live = _answered(chat, work)
    # started with the session, before the answer: no tool of it
    assert live.status(NOW - 10, processes).status == "waiting_for_user"
    (root / "101" / "cmdline").write_bytes(b"")  # gone: restarted as 102
    fake_process(root, 102, UNKNOWN_SERVER, work, started=ANSWERED + 2)
    children.write_text("102")
    processes.refresh(force=True)
    assert live.status(NOW, processes).status == "waiting_for_user"
    # a tool started since, beside it, is work
    fake_process(root, 103, TOOL, work, started=ANSWERED + 3)
    children.write_text("102 103")
    assert live.status(NOW, processes).status == "working"


def test_a_server_command_ending_in_a_slash_names_no_tool(tmp_path: Path) -> None:
    """A settings.json whose server's command ends in `/` (no program's name): a tool
    whose words end in one (`ls src/`) is no helper of it."""
    chat, work = _home(tmp_path)
    odd = {"mcpServers": {"odd": {"command": "/opt/mcp/bin/", "args": ["-v"]}}}
    (work / ".gemini" / "settings.json").write_text(json.dumps(odd))
    session = Session("gemini", SID, path=str(chat), cwd=str(work))
    assert not gemini.helper_process(session, ["ls", "-l", "src/"])


def test_many_extensions_are_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every extension's manifest is read once, not again at each process looked at
    (a watch asks at each poll, for each process the CLI started)."""
    chat, work = _home(tmp_path)
    for n in range(gemini.EXTENSIONS):
        extension = tmp_path / ".gemini" / "extensions" / f"tool-{n:02}"
        extension.mkdir()
        server = {"command": "node", "args": [f"${{extensionPath}}/s{n}.js"]}
        (extension / "gemini-extension.json").write_text(
            json.dumps({"mcpServers": {f"s{n}": server}})
        )
    session = Session("gemini", SID, path=str(chat), cwd=str(work))
    gemini._servers_in.cache_clear()
    reads: list[str] = []
    read = gemini.files.read_json_file

    def counted(path: str, *args: Any, **kwargs: Any) -> object:
        reads.append(path)
        return read(path, *args, **kwargs)

    monkeypatch.setattr(gemini.files, "read_json_file", counted)
    assert not gemini.helper_process(session, TOOL)
    first = len(reads)
    assert first == gemini.EXTENSIONS + 2  # theirs, and the two settings files
    assert not gemini.helper_process(session, TOOL)
    assert len(reads) == first


def test_a_folder_no_file_can_have_is_passed_over(tmp_path: Path) -> None:
    """A session whose folder holds a NUL (read from a `.project_root` marker: any
    bytes) names no project settings: the board goes on, and the tool is work."""
    chat, work = _home(tmp_path)
    root = proc_root(tmp_path)
    fake_process(root, 100, ["node", "/usr/bin/gemini"], work, started=BOOT + 60)
    fake_process(root, 101, TOOL, work, started=ANSWERED + 2)
    (root / "100" / "task" / "100" / "children").write_text("101")
    processes = Processes(root=root)
    processes.refresh(force=True)
    live = _answered(chat, work)
    live.session = Session("gemini", SID, path=str(chat), cwd=f"{work}\0x")
    assert live.status(NOW, processes).status == "working"


def _with_servers(tmp_path: Path, servers: dict[str, object]) -> Session:
    """A session whose project's settings name `servers` (beside the home's)."""
    chat, work = _home(tmp_path)
    (work / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    return Session("gemini", SID, path=str(chat), cwd=str(work))


def test_a_tool_sharing_a_servers_argument_is_work(tmp_path: Path) -> None:
    """A server given `.` (its folder): `ls .` or `git add .` the model runs is no
    helper of it; a helper's process is its program, then its arguments."""
    session = _with_servers(
        tmp_path, {"files": {"command": "mcp-files", "args": ["."]}}
    )
    assert gemini.helper_process(session, ["/usr/local/bin/mcp-files", "."])
    assert not gemini.helper_process(session, ["ls", "."])
    assert not gemini.helper_process(session, ["git", "add", "."])
    assert not gemini.helper_process(session, ["mcp-files", ".", "--help"])
    local = [
        "cat",
        "tools/mcp_server.py",
        "--port",
        "8080",
    ]  # the project's words, in cat
    assert not gemini.helper_process(session, local)
    chat, work = Path(session.path or ""), Path(session.cwd or "")
    root = proc_root(tmp_path)
    fake_process(root, 100, ["node", "/usr/bin/gemini"], work, started=BOOT + 60)
    fake_process(root, 101, ["ls", "."], work, started=ANSWERED + 2)
    (root / "100" / "task" / "100" / "children").write_text("101")
    processes = Processes(root=root)
    processes.refresh(force=True)
    assert _answered(chat, work).status(NOW, processes).status == "working"


def test_a_server_of_options_alone_is_not_every_run_of_its_program(
    tmp_path: Path,
) -> None:
    """`node --experimental-mcp`: a `node build.js` the model runs is a tool."""
    server = {"command": "node", "args": ["--experimental-mcp"]}
    session = _with_servers(tmp_path, {"inline": server})
    assert gemini.helper_process(session, ["node", "--experimental-mcp"])
    assert not gemini.helper_process(session, ["node", "build.js"])
    assert not gemini.helper_process(session, ["node"])
