"""Small builders for tests: Claude Code-shaped session files in a temporary fake home,
and what one source finds in a home."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessdex import sources
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session, merge, typed_by_leads
from sessdex.sources import Home, Source

# the lists `opened_files` is filling: one audit hook serves them all (hooks stay for the
# process: one a test would leave every later test calling it at each event)
_OPENING: list[list[str]] = []
_HOOKED = [False]


def _note_open(event: str, args: tuple[object, ...]) -> None:
    if _OPENING and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        path = os.path.realpath(os.fsdecode(args[0]))  # type: ignore[arg-type]
        for opened in _OPENING:
            opened.append(path)


@contextlib.contextmanager
def opened_files() -> Iterator[list[str]]:
    """Every file opened meanwhile (`open`, `os.open`, ...: the `open` audit event), as
    its real path, for a test to assert that an agent's login is not among them."""
    if not _HOOKED[0]:
        sys.addaudithook(_note_open)
        _HOOKED[0] = True
    opened: list[str] = []
    _OPENING.append(opened)
    try:
        yield opened
    finally:
        _OPENING[:] = [other for other in _OPENING if other is not opened]


def claude_line(session_id: str, cwd: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.197",
        "gitBranch": "main",
        "userType": "external",
        "isSidechain": False,
    }
    base.update(fields)
    return base


def write_claude_session(
    home: Path,
    session_id: str,
    cwd: str,
    *,
    title: str | None = None,
    prompt: str = "hello there",
    branch: str = "main",
    model: str = "claude-sonnet-4-5",
    permission_mode: str = "default",
    when: str = "2026-11-20T10:00:00.000Z",
) -> Path:
    """A two-turn Claude Code transcript under home/.claude/projects/<slug>/<id>.jsonl."""
    slug = cwd.replace("/", "-")
    path = home / ".claude" / "projects" / slug / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        claude_line(
            session_id,
            cwd,
            type="user",
            uuid="u1",
            parentUuid=None,
            timestamp=when,
            gitBranch=branch,
            permissionMode=permission_mode,
            message={"role": "user", "content": prompt},
        ),
        claude_line(
            session_id,
            cwd,
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            timestamp=when.replace("00.000Z", "05.000Z"),
            gitBranch=branch,
            requestId="req_1",
            message={
                "id": "msg_1",
                "role": "assistant",
                "model": model,
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "hi"}],
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": 5,
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                },
            },
        ),
    ]
    if title is not None:
        lines.append(
            {"type": "custom-title", "customTitle": title, "sessionId": session_id}
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def on_a_terminal(
    args: list[str],
    env: dict[str, str],
    *,
    stdout_too: bool = False,
    columns: int = 120,
    term: str = "xterm",
) -> tuple[subprocess.CompletedProcess[bytes], str]:
    """Run sessdex with stderr on a pseudo-terminal `columns` wide (stdout a pipe, or the
    terminal too with `stdout_too`) of the kind `term` names: (result, what the terminal
    got)."""
    import pty
    import threading

    master, slave = pty.openpty()
    seen: list[bytes] = []

    def drain() -> None:
        # read as it is written: a terminal holds only so much, and a long run's progress
        # redrawn ten times a second would fill it and block sessdex until the timeout
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all read
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "sessdex", *args],
            env={**env, "COLUMNS": str(columns), "TERM": term},
            stdout=slave if stdout_too else subprocess.PIPE,
            stderr=slave,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
    finally:
        os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    return result, b"".join(seen).decode("utf-8", "replace")


def interrupted_on_a_terminal(
    args: list[str],
    env: dict[str, str],
    *,
    once: str,
    sent: int | None = None,
    at_rest: bool = False,
) -> tuple[int, str]:
    """Run sessdex with stderr on a pseudo-terminal (stdout a pipe) and press Ctrl-C (SIGINT
    to its process group, as a terminal does; or send it the signal `sent`) once the
    terminal shows `once`: (its return code, what the terminal got). `at_rest`: and once
    the process waits (at a question), as a person's key comes: a signal in the instant
    between a prompt's write and `input()`'s wait is not seen by CPython until a key is
    typed, a race a loaded machine made this harness win (and the test hang)."""
    import pty
    import select
    import signal
    import time

    sent = signal.SIGINT if sent is None else sent

    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args],
        env={**env, "TERM": "xterm"},
        stdout=subprocess.DEVNULL,
        stderr=slave,
        stdin=slave,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    pressed = False
    while time.monotonic() < deadline:
        if (
            not pressed
            and once.encode() in seen
            and (not at_rest or _waits(process.pid))
        ):
            os.killpg(process.pid, sent)
            pressed = True
        if not select.select([master], [], [], 0.05)[0]:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    code = process.wait(timeout=30)
    return code, seen.decode("utf-8", "replace")


def _waits(pid: int) -> bool:
    """The process sleeps (blocked in a read: at a question), seen twice 20 ms apart; where
    /proc does not say, after a pause a person's reaction would take anyway."""
    import time

    def state() -> str:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return "?"
        return stat.rsplit(")", 1)[-1].split()[0]

    if state() == "?":
        time.sleep(0.3)
        return True
    if state() != "S":
        return False
    time.sleep(0.02)
    return state() == "S"


def big_claude_session(home: Path, session_id: str, hole: int) -> Path:
    """A Claude Code transcript that is slow to read whole where holes are not seen
    (`holes_unseen`): two turns, then `hole` bytes of NULs (sparse: no disk), then a
    last line; what a big real transcript costs in time."""
    path = write_claude_session(home, session_id, "/w/big")
    first = path.read_bytes().splitlines()[0]
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size + hole)
        f.seek(0, os.SEEK_END)
        f.write(b"\n" + first + b"\n")
    return path


def holes_unseen(env: dict[str, str]) -> dict[str, str]:
    """`env` for a sessdex process that cannot see a sparse file's holes, as on a
    system without SEEK_HOLE: it reads them through (NULs, no disk, and time), which
    a test of what a person sees during a long read needs (`big_claude_session`)."""
    unseen = str(Path(__file__).parent / "holes_unseen")  # its sitecustomize
    paths = [unseen, env.get("PYTHONPATH", "")]
    return {**env, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}


def scramble_table(database: Path, table: str) -> None:
    """Damage a SQLite file past its schema, as a bad sector does: `table`'s first page
    overwritten, so that opening the file passes and a query of the table fails."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(database)) as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
    with database.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(b"\xff" * page_size)


def pretend_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """`sys.platform` as on Windows. From Python 3.12, `shutil.which` there asks
    `_winapi` (absent elsewhere) whether to search the current folder: a stand-in
    answers as Windows does by default."""
    import shutil
    import types

    monkeypatch.setattr(sys, "platform", "win32")
    winapi = types.SimpleNamespace(NeedCurrentDirectoryForExePath=lambda name: True)
    monkeypatch.setattr(shutil, "_winapi", winapi, raising=False)


def refuse_opening(monkeypatch: pytest.MonkeyPatch, *paths: str) -> list[str]:
    """Make `os.open` refuse `paths` as the kernel refuses another user's file (the tests
    may run as root, whom chmod does not stop); the refused tries, in order."""
    shut, tries, opener = set(paths), [], os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        if name in shut:
            tries.append(name)
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    return tries


def sessions_of(source: Source, home: Path) -> dict[str, Session]:
    """Every session `source` finds in `home`, its files' parts merged, by id (sub-agents
    and sessions not listed too), as the index would hold them."""
    location = source.locate(Home.at(home))
    parts: dict[str, list[Session]] = {}
    for path in source.scan(location):
        for session in source.parse(Path(path), location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return typed_by_leads({key: merge(value) for key, value in parts.items()})


def counting_parse(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths Claude Code's `parse` is called on from now on (a refresh that reads
    nothing it need not read parses nothing)."""
    claude = sources.get("claude")
    original = claude.parse
    calls: list[str] = []

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        calls.append(str(path))
        return original(path, location, diagnostics)

    monkeypatch.setattr(claude, "parse", parse)
    return calls


@contextlib.contextmanager
def deadline(seconds: int, label: str) -> Iterator[None]:
    """An endless loop fails the case (TimeoutError) instead of hanging the run."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"{label}: still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


CLAUDE_DATA = (
    Path(__file__).parent / "data" / "claude" / "home" / ".claude" / "projects"
)
SUBAGENT_RUN = "82d9f90c-3f87-46b4-b09c-58027a5e630c"  # the real 2.1.197 `-n` run
SPAWNER = "a199d630441234c05"  # its sub-agent
NESTED = "a5e5e5e5e5e5e5e5e"
NESTED_TASK = "SCENARIO=child You are a nested sub-agent. Run `echo hello-from-nested`."


def _write_lines(path: Path, lines: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def nested_claude_run(home: Path, meta: str = "kept") -> Path:
    """The real 2.1.197 sub-agent run (its lead's path returned) with a nested sub-agent
    added: the sub-agent's Bash call becomes an Agent call whose result names `NESTED`,
    and `NESTED`'s file is the sub-agent's own lines, renamed, opening with that call's
    prompt and timed between the call and its result. `meta`: `NESTED`'s `.meta.json`
    "kept", "missing" or "cut" (its first 40 bytes)."""
    real = CLAUDE_DATA / "-home-alex-code-shop-api"
    project = home / ".claude" / "projects" / real.name
    folder = project / SUBAGENT_RUN / "subagents"
    shutil.copytree(real / SUBAGENT_RUN, project / SUBAGENT_RUN)
    shutil.copy(real / f"{SUBAGENT_RUN}.jsonl", project)
    spawner = folder / f"agent-{SPAWNER}.jsonl"
    child: list[Any] = [json.loads(line) for line in spawner.read_text().splitlines()]
    lines = json.loads(json.dumps(child))
    spec = {"prompt": NESTED_TASK, "description": "Nested greeting"}
    spec["subagent_type"] = "general-purpose"
    lines[2]["message"]["content"] = [
        {"type": "tool_use", "id": "toolu_nested", "name": "Agent", "input": spec}
    ]
    said = [{"type": "text", "text": "hello-from-nested"}]
    lines[3]["message"]["content"] = [
        {"tool_use_id": "toolu_nested", "type": "tool_result", "content": said}
    ]
    lines[3]["toolUseResult"] = {
        "status": "completed", "prompt": NESTED_TASK, "agentId": NESTED,
        "agentType": "general-purpose", "content": said,
    }  # fmt: skip
    _write_lines(spawner, lines)
    for n, line in enumerate(child):
        line["agentId"] = NESTED
        line["timestamp"] = f"2026-11-30T08:10:11.{450 + 8 * n}Z"
        for key in ("uuid", "parentUuid"):
            if line.get(key):
                line[key] = line[key][:-4] + "e5e5"
        if "requestId" in line:
            line["requestId"] += "e5"
            line["message"]["id"] += "e5"
    child[0]["message"]["content"] = NESTED_TASK
    _write_lines(folder / f"agent-{NESTED}.jsonl", child)
    if meta != "missing":
        told = {"agentType": "general-purpose", "description": "Nested greeting"}
        told |= {"toolUseId": "toolu_nested", "spawnDepth": 2, "parentAgentId": SPAWNER}
        text = json.dumps(told)
        (folder / f"agent-{NESTED}.meta.json").write_text(
            text if meta == "kept" else text[:40]
        )
    return project / f"{SUBAGENT_RUN}.jsonl"


OBSERVER = "a0b5e7e0b5e7e0b5e"  # the observer `claude_observer_home` adds


def claude_observer_home(tmp_path: Path) -> Path:
    """A copy of the Claude fixture home whose real 2.1.197 sub-agent run has an observer
    beside its sub-agent (2.1.33x: `isObserver` in its `.meta.json`): `OBSERVER`, the
    sub-agent's own lines renamed, of type `reviewer`, described "Review as it goes"."""
    home = tmp_path / "home"
    shutil.copytree(CLAUDE_DATA.parent.parent, home)
    folder = home / ".claude/projects/-home-alex-code-shop-api" / SUBAGENT_RUN
    folder = folder / "subagents"
    child = (folder / f"agent-{SPAWNER}.jsonl").read_text()
    watcher = child.replace(SPAWNER, OBSERVER)
    watcher = watcher.replace("msg_mock", "msg_obsv").replace(
        "toolu_mock", "toolu_obsv"
    )
    (folder / f"agent-{OBSERVER}.jsonl").write_text(watcher)
    (folder / f"agent-{OBSERVER}.meta.json").write_text(
        json.dumps({"agentType": "reviewer", "description": "Review as it goes",
                    "isObserver": True, "observerTaskId": OBSERVER})
    )  # fmt: skip
    return home


def claude_repl_session(home: Path, session_id: str, cwd: str, path: str) -> Path:
    """A 2.1.332 Claude Code transcript whose model runs a REPL script (`REPL`, call
    `toolu_repl`) that itself reads `path`: that `Read` is written as the model's own call
    on an `isVirtual` line (model `<synthetic>`, `ranByToolUseId` the script's call), its
    result `isVirtual` too; then the script's result and the model's reply."""

    def line(n: int, kind: str, message: dict[str, object], **more: object) -> str:
        value = claude_line(
            session_id, cwd, type=kind, uuid=f"u{n}", parentUuid=f"u{n - 1}" if n > 1 else None,
            timestamp=f"2026-11-24T12:00:{n:02d}.000Z", version="2.1.332", message=message,
            **more,
        )  # fmt: skip
        return json.dumps(value) + "\n"

    def model(n: int, block: dict[str, object], name: str, **more: object) -> str:
        used = 100 if name != "<synthetic>" else 0
        return line(n, "assistant", {
            "id": f"msg_{n}", "role": "assistant", "model": name, "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
            "usage": {"input_tokens": used, "output_tokens": used // 5}},
            requestId=f"req_{n}", **more)  # fmt: skip

    def result(n: int, call: str, text: str, **more: object) -> str:
        said = [{"type": "tool_result", "tool_use_id": call, "content": text}]
        return line(n, "user", {"role": "user", "content": said}, **more)

    script = {"type": "tool_use", "id": "toolu_repl", "name": "REPL",
              "input": {"code": f"await Read({{file_path: {json.dumps(path)}}})"}}  # fmt: skip
    inner = {"type": "tool_use", "id": "toolu_v1", "name": "Read",
             "input": {"file_path": path}}  # fmt: skip
    file = home / ".claude" / "projects" / cwd.replace("/", "-") / f"{session_id}.jsonl"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(
        line(1, "user", {"role": "user", "content": "Look at the file"})
        + model(2, script, "claude-opus-4-6")
        + model(3, inner, "<synthetic>", isVirtual=True, ranByToolUseId="toolu_repl")
        + result(4, "toolu_v1", "print('a')", isVirtual=True)
        + result(5, "toolu_repl", "done")
        + model(6, {"type": "text", "text": "It prints a."}, "claude-opus-4-6")
    )
    return file


# the two ways a `sessdex list` goes: click's command (all CliRunner runs), and the real
# command, whose warm list answers from the index (quick.py), re-reading a changed file
# alone (Index.refresh_file), and hands over to click's only where it cannot
LIST_PATHS = pytest.mark.parametrize("listing", ["cli", "quick"])


def list_rows(
    home: Path,
    state: Path,
    monkeypatch: pytest.MonkeyPatch,
    *options: str,
    listing: str = "cli",
) -> dict[str, dict[str, Any]]:
    """`sessdex list --json` of `home` (`options`: `--all`, …), its rows by id, with
    sessdex's own state (its index) in `state`: the same `state` again lists warm, a
    new one cold. `listing` "quick": a warm list runs the real command (`real_list`);
    "cli": click's, which lists again only the apps whose folders or files changed."""
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    args = ["list", "--json", *options, "--home", str(home)]
    # settled for both: a folder changed just now sends every app to a full listing,
    # where a user's list, a moment after the app wrote, keeps the apps that did not change
    settle(home)
    if listing == "quick" and state.exists():  # no index: the real command is click's
        return {row["id"]: row for row in json.loads(real_list(home, args).stdout)}
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return {row["id"]: row for row in json.loads(result.stdout)}


_settled = iter(range(3600, 10**9))  # seconds back: each settling a stamp never used


def settle(home: Path) -> None:
    """Date back the folders of `home` changed in the last seconds, to a stamp no earlier
    run saw (so a change still shows): a scan never trusts a folder changed just now,
    which would send every warm list of a test's fresh copy to the full command, where
    a user's list, a moment after the app wrote, does not go."""
    import time

    recent, back = time.time() - 5, time.time() - next(_settled)
    for folder, _, _ in os.walk(home):
        with contextlib.suppress(OSError):  # one the test made unreadable, or gone
            if os.stat(folder).st_mtime > recent:
                os.utime(folder, (back, back))


def real_list(home: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """What `python -m sessdex ARGS` printed (the environment's SESSDEX_HOME), run as a
    user runs it: a warm list takes the quick path (`settle`d first)."""
    settle(home)
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done


def tables_as_views(database: Path, *tables: str) -> None:
    """Each of `tables` renamed `<name>_data`, a view of it under its name: rows SQLite
    gives no rowid (NULL), which blob IO cannot open."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as db:
        db.execute("PRAGMA legacy_alter_table = ON")
        for table in tables:
            db.execute(f'ALTER TABLE "{table}" RENAME TO "{table}_data"')
            db.execute(f'CREATE VIEW "{table}" AS SELECT * FROM "{table}_data"')


def cli_over(home: Path, *args: str) -> Any:
    """`sessdex *args --home home`, its result; a traceback or a bug's words fail."""
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception
    )
    # what sessdex says of an error it did not expect (`diagnostics.why`)
    assert not re.search(
        r"a sessdex bug|\b[A-Z]\w*(Error|Exception): ", result.stderr
    ), result.stderr
    return result


# a record's time as the apps write it in JSON: ISO 8601 in UTC, its fraction kept
_RECORD_TIME = re.compile(r'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"')


def dated(paths: list[Path], newest: float) -> None:
    """Every record time in these files moved by one step, the newest of them to `newest`
    (epoch seconds), the spans between them kept: a copied fixture dated as a session
    last written then (`tree` and `watch` go by the records' times, not the files')."""
    from datetime import UTC, datetime

    def when(match: re.Match[str]) -> datetime:
        return datetime.fromisoformat(match[1] + (match[2] or "")).replace(tzinfo=UTC)

    texts = {path: path.read_text() for path in paths}
    times = [when(m) for text in texts.values() for m in _RECORD_TIME.finditer(text)]
    if not times:
        return
    step = datetime.fromtimestamp(newest, UTC) - max(times)

    def moved(match: re.Match[str]) -> str:
        shifted = (when(match) + step).strftime("%Y-%m-%dT%H:%M:%S.%f")
        fraction = len(match[2] or "")  # as many digits as it had, the dot included
        return f'"{shifted[: 19 + fraction]}Z"'

    for path, text in texts.items():
        path.write_text(_RECORD_TIME.sub(moved, text))


def dated_now(*places: Path) -> None:
    """Every record in these files, and in the files under these folders, dated as a
    session written a moment ago."""
    import time

    paths = [p for place in places for p in (place, *sorted(place.rglob("*.json*")))]
    dated([p for p in paths if p.is_file()], time.time() - 1)
