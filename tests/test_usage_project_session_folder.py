"""`usage project` and `usage --here` count a response under its session's folder, as
`list` shows it, where it ran there or below (a `cd` into a subfolder); one that ran
outside it (a Codex thread resumed in another project) keeps its own folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA
from tests.helpers import claude_line


def _json(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _demo_home(tmp_path: Path) -> Path:
    """The three public Claude sessions of /path/to/Demo, one of which `cd`s into
    Demo/todo-app and Demo/todo-app/types."""
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-path-to-Demo"
    project.mkdir(parents=True)
    for folder in (
        DATA / "usage" / "public" / ".claude" / "projects" / "sample-project",
        DATA / "claude" / "home" / ".claude" / "projects" / "-path-to-Demo",
    ):
        for path in folder.iterdir():
            shutil.copyfile(path, project / path.name)
    return home


def test_the_demo_sessions_are_one_project_row(tmp_path: Path) -> None:
    home = _demo_home(tmp_path)
    listed = _json("list", "--home", str(home))
    assert {s["cwd"] for s in listed} == {"/path/to/Demo"} and len(listed) == 3
    sessions = _json("usage", "session", "--home", str(home))
    [row] = _json("usage", "project", "--home", str(home))
    assert row["key"] == "/path/to/Demo"
    spent = sum(float(str(s["cost_usd"])) for s in sessions)
    assert float(str(row["cost_usd"])) == pytest.approx(spent)
    assert row["responses"] == sum(int(str(s["responses"])) for s in sessions)
    # --explain of that row lists every response the row counts
    result = CliRunner().invoke(
        main,
        [
            "usage",
            "project",
            "--home",
            str(home),
            "--json",
            "--limit",
            "1000",
            "--explain",
            "/path/to/Demo",
        ],
    )
    assert result.exit_code == 0, result.output
    explained = json.loads(result.stdout)
    assert len(explained["counted"]) == row["responses"]
    assert explained["row"]["cost_usd"] == row["cost_usd"]


THREAD = "019bd5f2-5555-7000-8000-0000000000e1"


def _count(n: int) -> dict[str, int]:
    return {"input_tokens": 1000 * n, "cached_input_tokens": 0, "output_tokens": 10 * n,
            "reasoning_output_tokens": 0, "total_tokens": 1010 * n}  # fmt: skip


def _moved_codex_home(tmp_path: Path) -> Path:
    """A Codex thread begun in ~/code/shop that answers once there, once in its web/
    subfolder, then is resumed in ~/code/blog and answers there."""
    home = tmp_path / "home"
    shop, blog = str(home / "code" / "shop"), str(home / "code" / "blog")
    lines: list[dict[str, object]] = [
        {"timestamp": "2026-01-06T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": THREAD, "timestamp": "2026-01-06T10:00:00.000Z",
                     "cwd": shop, "originator": "codex_cli_rs",
                     "cli_version": "0.80.0", "source": "cli"}},
    ]  # fmt: skip
    for n, cwd in enumerate((shop, shop + "/web", blog), 1):
        lines += [
            {"timestamp": f"2026-01-06T1{n}:00:01.000Z", "type": "turn_context",
             "payload": {"cwd": cwd, "model": "gpt-5.1"}},
            {"timestamp": f"2026-01-06T1{n}:00:02.000Z", "type": "event_msg",
             "payload": {"type": "token_count",
                         "info": {"total_token_usage": _count(n),
                                  "last_token_usage": _count(1)}}},
        ]  # fmt: skip
    folder = home / ".codex" / "sessions" / "2026" / "01" / "06"
    folder.mkdir(parents=True)
    (folder / f"rollout-2026-01-06T10-00-00-{THREAD}.jsonl").write_bytes(
        b"".join(orjson.dumps(line) + b"\n" for line in lines)
    )
    return home


def test_a_codex_thread_resumed_elsewhere_is_two_project_rows(tmp_path: Path) -> None:
    home = _moved_codex_home(tmp_path)
    shop, blog = str(home / "code" / "shop"), str(home / "code" / "blog")
    assert [s["cwd"] for s in _json("list", "--home", str(home))] == [shop]
    rows = _json("usage", "project", "--home", str(home))
    assert {r["key"]: r["responses"] for r in rows} == {shop: 2, blog: 1}
    result = CliRunner().invoke(
        main, ["usage", "project", "--home", str(home), "--explain", shop, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["counted"]) == 2


def _claude_session(home: Path, session_id: str, cwds: list[str]) -> None:
    """A Claude session begun in `cwds[0]`, one response in each of `cwds`."""
    path = home / ".claude" / "projects" / cwds[0].replace("/", "-") / session_id
    path = path.with_suffix(".jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, cwd in enumerate(cwds):
        when = f"2026-11-20T1{n}:00:00.000Z"
        lines.append(
            claude_line(session_id, cwd, type="user", uuid=f"u{n}", timestamp=when,
                        message={"role": "user", "content": f"step {n}"})
        )  # fmt: skip
        lines.append(
            claude_line(
                session_id, cwd, type="assistant", uuid=f"a{n}", parentUuid=f"u{n}",
                timestamp=when.replace("00.000Z", "05.000Z"), requestId=f"req_{n}",
                message={"id": f"msg_{session_id[-2:]}{n}", "role": "assistant",
                         "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                         "content": [{"type": "text", "text": "done"}],
                         "usage": {"input_tokens": 10, "output_tokens": 5}},
            )
        )  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


FIRST = "c0b1ed00-0000-4000-8000-0000000000a1"
SECOND = "c0b1ed00-0000-4000-8000-0000000000a2"


def _here_home(tmp_path: Path) -> tuple[Path, Path]:
    """~/code/app: one session begun there that `cd`s into web/, one begun in web/."""
    home = tmp_path / "home"
    app = home / "code" / "app"
    (app / "web").mkdir(parents=True)
    _claude_session(home, FIRST, [str(app), str(app / "web"), str(app / "web")])
    _claude_session(home, SECOND, [str(app / "web")])
    return home, app


def test_usage_here_in_a_subfolder_counts_the_sessions_list_here_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, app = _here_home(tmp_path)
    monkeypatch.chdir(app / "web")
    listed = _json("list", "--here", "--home", str(home))
    assert [s["id"] for s in listed] == [SECOND]
    rows = _json("usage", "session", "--here", "--home", str(home))
    assert {r["key"]: r["responses"] for r in rows} == {SECOND: 1}
    [row] = _json("usage", "project", "--here", "--home", str(home))
    assert (row["key"], row["responses"]) == (str(app / "web"), 1)
    monkeypatch.chdir(app)  # the folder both began in or below: every response
    rows = _json("usage", "session", "--here", "--home", str(home))
    assert {r["key"]: r["responses"] for r in rows} == {FIRST: 3, SECOND: 1}


def _sessdex(home: Path, state: Path, args: list[str], quick: bool) -> bytes:
    env = {**os.environ, "SESSDEX_HOME": str(state), "COLUMNS": "200"}
    env.pop("SESSDEX_NO_QUICK", None)
    if not quick:
        env["SESSDEX_NO_QUICK"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_warm_report_on_sums_kept_before_is_the_cold_one(tmp_path: Path) -> None:
    """Sums an earlier run kept (a daily report, which keys no folder, leaves the
    sessions unlisted) give the project report a cold run gives; the quick path's
    bytes are the full command's."""
    home, app = _here_home(tmp_path)
    warm = tmp_path / "warm"
    _sessdex(home, warm, ["usage", "--json"], quick=True)
    for args in (["usage", "project", "--json"], ["usage", "project"]):
        cold = _sessdex(home, tmp_path / f"cold{len(args)}", args, quick=False)
        assert _sessdex(home, warm, args, quick=True) == cold
    rows = json.loads(_sessdex(home, warm, ["usage", "project", "--json"], True))
    assert {r["key"]: r["responses"] for r in rows} == {
        str(app): 3,
        str(app / "web"): 1,
    }


def test_a_home_given_by_a_link_keeps_a_session_one_row(tmp_path: Path) -> None:
    """The index reads the home by its real path; the session's folder and its
    responses' are each named under the home as given: still one row."""
    real, _ = _here_home(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(real)
    app = f"{link}/code/app"
    for home in (real, link):  # the index built by the first, then reused
        state = tmp_path / "state"
        rows = json.loads(_sessdex(home, state, ["usage", "project", "--json"], True))
        named = str(home / "code" / "app")
        assert {r["key"]: r["responses"] for r in rows} == {named: 3, named + "/web": 1}
    args = ["usage", "project", "--json", "--explain", app]
    explained = json.loads(_sessdex(link, state, args, True))
    assert len(explained["counted"]) == 3


def test_a_warm_usage_project_looks_at_each_indexed_file_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whether each app's files are as the index holds them is asked once for all the
    apps: asked once per app, a home of k apps had every file stat'ed k times."""
    from sessdex import freshness

    home = Path(__file__).parents[1] / "src" / "sessdex" / "demo" / "home"
    _json("usage", "project", "--home", str(home))  # the index made
    looked: list[str] = []
    signature = freshness.file_signature

    def counted(path: str) -> object:
        looked.append(path)
        return signature(path)

    monkeypatch.setattr(freshness, "file_signature", counted)
    assert _json("usage", "project", "--home", str(home))  # Claude Code's and Codex's
    assert looked and len(looked) == len(set(looked))
