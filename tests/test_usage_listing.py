"""A warm `usage` takes the usage files of Claude Code, Codex and Qoder from the listing
it kept, without loading their sources, and still sees a file that changed alone, one
added or one whose twin grew: warm and cold print the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex import freshness, sources
from sessdex.sources import Home
from tests.conftest import app_home

HOOKED = ("claude", "codex", "qoder")
PAST = 1_700_000_000  # 2023: no folder is "racy" (just written), so a listing is kept

RUN = """
import sys
from click.testing import CliRunner
from sessdex.cli import main
result = CliRunner().invoke(main, ["usage", *sys.argv[2:], "--home", sys.argv[1]])
assert result.exit_code == 0, result.output
sys.stdout.write(result.output)
loaded = sorted(m for m in sys.modules if m.rsplit(".", 1)[-1] in ("claude", "codex", "qoder"))
sys.stderr.write(" ".join(loaded))
"""


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for app in HOOKED:
        shutil.copytree(app_home(app), home, dirs_exist_ok=True, symlinks=True)
    _age(home)
    return home


def _age(home: Path) -> None:
    for folder, _, names in os.walk(home):
        for name in [*names, "."]:
            os.utime(os.path.join(folder, name), (PAST, PAST), follow_symlinks=False)


def _usage(home: Path, *args: str, state: Path | None = None) -> tuple[str, set[str]]:
    """What `usage ARGS` prints, in a process of its own, and the sources it loaded."""
    env = dict(os.environ)
    if state is not None:
        env["SESSDEX_HOME"] = str(state)
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(home), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, set(done.stderr.split())


def _cold(home: Path, tmp_path: Path, *args: str) -> str:
    state = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    return _usage(home, *args, state=state)[0]


def test_a_warm_usage_loads_no_source_of_the_apps_that_count_their_own_files(
    tmp_path: Path,
) -> None:
    home = _home(tmp_path)
    cold, loaded = _usage(home, "--json")
    assert {"sessdex.sources.claude", "sessdex.sources.codex"} <= loaded
    warm, loaded = _usage(home, "--json")
    assert loaded == set()
    assert warm == cold
    assert {row["key"] for row in json.loads(warm)}  # there is something to count
    for report in ("session", "app", "model"):
        assert _usage(home, report, "--json")[0] == _cold(
            home, tmp_path, report, "--json"
        )


@pytest.mark.parametrize("app", sorted(sources.USAGE_HOOKED))
def test_every_usage_files_walk_notes_each_folder_it_lists(app: str) -> None:
    """A file added beside one the walk lists changes a folder the kept listing noted:
    each listed file's folder is noted as listed (what a new adapter must keep)."""
    source = sources.get(app)
    with freshness.recording() as notes:
        found = [
            os.fspath(p)
            for p in source.usage_files(source.locate(Home.at(app_home(app))))
        ]  # type: ignore[attr-defined]
    assert found
    listed = {path for path, noted in notes.items() if noted[0] == freshness.LISTED}
    for path in found:
        assert os.path.dirname(path) in listed, path


def _billed(line: bytes) -> bool:
    return (b'"assistant"' in line and b'"usage"' in line) or (
        b'"token_count"' in line and b'"info":{' in line
    )


def _grown(path: Path) -> None:
    """One response more, appended as the app writes it: its folder is left as it was."""
    billed = next(
        line for line in reversed(path.read_bytes().splitlines()) if _billed(line)
    )
    record = json.loads(billed)
    if "message" in record:  # Claude Code's, Qoder's: a response of its own ids
        record.update(
            uuid="added-since", requestId="req_added_since", parentUuid=record["uuid"]
        )
        record["message"]["id"] = "msg_added_since"
        record["message"]["usage"]["output_tokens"] = 12345
    else:  # Codex's: the thread's total moves on
        info = record["payload"]["info"]
        for counts in ("total_token_usage", "last_token_usage"):
            info[counts]["output_tokens"] += 12345
    with path.open("ab") as out:
        out.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")


def _transcript(home: Path, app: str) -> Path:
    """The first of the app's session files (not a sub-agent's) that bills a response."""
    top = {
        "claude": ".claude/projects",
        "codex": ".codex/sessions",
        "qoder": ".qoder/projects",
    }
    pattern = "**/rollout-*.jsonl" if app == "codex" else "*/*.jsonl"
    for path in sorted((home / top[app]).glob(pattern)):
        if "agent-" not in path.name and any(
            map(_billed, path.read_bytes().splitlines())
        ):
            return path
    raise AssertionError(app)


def _grow_one(app: str) -> Callable[[Path], None]:
    def change(home: Path) -> None:
        _grown(_transcript(home, app))

    return change


def _add_beside(app: str) -> Callable[[Path], None]:
    """A session begun since, in a folder that holds one already: a copy of that one
    under a new id, with a response of its own."""

    def change(home: Path) -> None:
        first = _transcript(home, app)
        old = first.stem[-36:]  # the session's id ends the name
        new = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
        added = first.parent / first.name.replace(old, new)
        added.write_text(first.read_text().replace(old, new))
        _grown(added)

    return change


@pytest.mark.parametrize(
    "change",
    [
        *(pytest.param(_grow_one(app), id=f"{app}-grown") for app in HOOKED),
        *(pytest.param(_add_beside(app), id=f"{app}-added") for app in HOOKED),
    ],
)
def test_a_warm_usage_sees_a_file_changed_or_added_alone(
    tmp_path: Path, change: Callable[[Path], None]
) -> None:
    home = _home(tmp_path)
    before, _ = _usage(home, "--json")
    assert _usage(home, "--json")[1] == set()  # the kept listing answered
    change(home)
    warm, _ = _usage(home, "--json")
    assert warm == _cold(home, tmp_path, "--json")
    assert warm != before


def test_a_warm_usage_counts_the_codex_copy_that_grew_past_its_twin(
    tmp_path: Path,
) -> None:
    """A rollout kept in `sessions/` and in `archived_sessions/` counts once, the longer
    copy: the other one growing past it changes which, its folder unchanged."""
    home = _home(tmp_path)
    live = _transcript(home, "codex")
    archived = home / ".codex/archived_sessions" / live.name
    archived.parent.mkdir(exist_ok=True)
    shutil.copy2(live, archived)
    _grown(live)
    _age(home)
    before, _ = _usage(home, "--json")
    assert _usage(home, "--json")[1] == set()
    for _ in range(2):
        _grown(archived)
    os.utime(archived.parent, (PAST, PAST))
    warm, _ = _usage(home, "--json")
    assert warm == _cold(home, tmp_path, "--json")
    assert warm != before


def test_a_warm_session_report_loads_no_source_and_sees_a_title_given_since(
    tmp_path: Path,
) -> None:
    """The session report's titles come from the index, brought up to date only for an
    app whose files changed: a `/rename` written since is shown, warm as cold."""
    home = _home(tmp_path)
    before, _ = _usage(home, "session", "--json")
    warm, loaded = _usage(home, "session", "--json")
    assert (warm, loaded) == (before, set())
    transcript = _transcript(home, "claude")
    renamed = {
        "type": "custom-title",
        "customTitle": "Renamed since",
        "sessionId": transcript.stem,
    }
    with transcript.open("a") as out:
        out.write(json.dumps(renamed) + "\n")
    warm, _ = _usage(home, "session", "--json")
    assert warm == _cold(home, tmp_path, "session", "--json")
    assert "Renamed since" in warm and "Renamed since" not in before
