"""Real agent CLIs, run against the mock model: does sessdex understand every session they wrote?

Off unless SESSDEX_CONFORMANCE=1 (CI and scripts/conformance set it). The session fixture
installs the pinned CLIs (or the newest, with SESSDEX_CONFORMANCE_LATEST=1), runs them
(driver.py) and then each test asks the `sessdex` CLI about one target's HOME. A CLI that
cannot be installed is skipped with the reason; a CLI that installed but did not run its
steps fails `test_cli_ran_every_step` (a harness or CLI problem, not a sessdex one).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from . import apps, driver, helpvalues, install, mockllm

pytestmark = pytest.mark.conformance

ENABLED = os.environ.get("SESSDEX_CONFORMANCE") == "1"
SELECTED = [
    n
    for n in os.environ.get("SESSDEX_CONFORMANCE_APPS", "").replace(",", " ").split()
    if n
]
TARGETS = [t.name for t in install.select(install.load_targets()[0], SELECTED)]


@pytest.fixture(scope="session")
def runs(request: pytest.FixtureRequest) -> Iterator[dict[str, dict[str, Any]]]:
    """Every selected target's result.json, after installing and running them (once per session)."""
    if not ENABLED:
        pytest.skip(
            "real-CLI conformance is off: set SESSDEX_CONFORMANCE=1, or run scripts/conformance"
        )
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def echo(line: str) -> None:
        with capture.global_and_fixture_disabled():
            print(line, flush=True)

    given = os.environ.get("SESSDEX_CONFORMANCE_RESULTS")
    keep = os.environ.get("SESSDEX_CONFORMANCE_KEEP") == "1"
    if given:
        work = Path(given)
    else:
        (install.cache_dir() / "runs").mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="run-", dir=install.cache_dir() / "runs"))
        echo("")
        driver.run_suite(
            SELECTED,
            latest=os.environ.get("SESSDEX_CONFORMANCE_LATEST") == "1",
            work=work,
            echo=echo,
        )
    results = {}
    for path in sorted(work.glob("*/result.json")):
        result = json.loads(path.read_text())
        results[result["target"]] = result
    yield results
    if keep or given:
        echo(f"\nconformance: homes and logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(params=TARGETS)
def run(
    request: pytest.FixtureRequest, runs: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """One target's result; skipped when it could not be installed."""
    result = runs.get(request.param)
    if result is None:
        pytest.skip(f"{request.param}: not run in this session")
    if not result.get("installed"):
        pytest.skip(
            f"{request.param}: could not be installed: {install.skip_reason(result.get('error'))}"
        )
    return result


# --- helpers ------------------------------------------------------------------------------


def sessdex(run: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = (
        run["bin_dir"] + os.pathsep + env.get("PATH", "")
    )  # so resume finds the CLI
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", run["home"]],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def sessdex_json(run: dict[str, Any], *args: str) -> Any:
    done = sessdex(run, *args, "--json")
    assert done.returncode == 0, (
        f"sessdex {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    )
    return json.loads(done.stdout)


def recipe(run: dict[str, Any]) -> apps.Recipe:
    return apps.RECIPES[run["target"]]


def step(run: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((s for s in run["steps"] if s["name"] == name), None)


def good_step(run: dict[str, Any], name: str) -> dict[str, Any]:
    found = step(run, name)
    if found is None:
        pytest.skip(f"{run['target']} has no {name} step")
    if not found["ok"]:
        pytest.skip(
            f"{run['target']}: the {name} step did not run: {found['problem'][:300]}"
        )
    return found


def main_sessions(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The sessions the CLI's steps made, by id, from the steps that ran (a resume adds none)."""
    expected: dict[str, dict[str, Any]] = {}
    for s in run["steps"]:
        if s["ok"] and s["name"] != "resume" and s["session_id"]:
            expected[s["session_id"]] = s
        # A CLI that forks on resume makes a session too (test_cli_ran_every_step says so).
        if s["ok"] and s["name"] == "resume":
            expected.update((i, s) for i in s.get("file_session_ids", []))
        expected.update((i, s) for i in side_chats(s))
    return expected


def side_chats(made: dict[str, Any]) -> list[str]:
    """The side chats a step opened beside its own session (`Step.side_chat`)."""
    if not (made["ok"] and made.get("side_chat")):
        return []
    return [i for i in made.get("file_session_ids", []) if i != made["session_id"]]


def listed(run: dict[str, Any], *extra: str) -> list[dict[str, Any]]:
    records = sessdex_json(run, "list", "--app", run["app"], *extra)
    assert isinstance(records, list)
    return records


def _same_model(listed: str | None, asked: list[str]) -> bool:
    """The model the CLI asked the mock for, perhaps with the provider prefix the CLI names it
    by (aider's `openai/<model>`, as litellm routes it)."""
    return listed in asked or (listed or "").rpartition("/")[2] in asked


def when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def same_path(a: str | None, b: str) -> bool:
    return bool(a) and os.path.realpath(str(a)) == os.path.realpath(b)


# --- the tests ----------------------------------------------------------------------------


def test_cli_ran_every_step(run: dict[str, Any]) -> None:
    """Harness check: every step exited 0, the mock served its answer, and a session id came back."""
    problems = [
        f"{s['name']}: {s['problem']}"
        for s in run["steps"]
        if not s["ok"] and not s.get("skipped")
    ]
    skipped = [f"{s['name']}: {s['skipped']}" for s in run["steps"] if s.get("skipped")]
    problems += [note for s in run["steps"] for note in s.get("notes", [])]
    if run.get("error"):
        problems.insert(0, f"harness: {run['error']}")
    folder = Path(run["home"]).parent
    where = (
        f"logs in {folder}"
        if os.environ.get("SESSDEX_CONFORMANCE_KEEP") == "1"
        or os.environ.get("SESSDEX_CONFORMANCE_RESULTS")
        else f"scripts/conformance --app {run['target']} --keep keeps the logs"
    )
    assert not problems, f"{run['target']} {run['version']} ({where}):\n" + "\n".join(
        problems
    )
    if skipped:
        pytest.skip(f"{run['target']}: " + "; ".join(skipped))


def test_every_session_found_with_its_facts(run: dict[str, Any]) -> None:
    expected = main_sessions(run)
    if not expected:
        pytest.skip(f"{run['target']}: no step made a session")
    records = listed(run)
    by_id = {r["id"]: r for r in records}
    assert set(by_id) == set(expected), (
        f"sessdex listed {sorted(by_id)}; the CLI made {sorted(expected)} "
        f"(steps: {', '.join(s['name'] + '=' + str(s['session_id']) for s in expected.values())})"
    )
    problems = []
    for session_id, made in expected.items():
        record = by_id[session_id]
        where = f"{made['name']} session {session_id}"
        if record["app"] != run["app"]:
            problems.append(f"{where}: app {record['app']!r}, not {run['app']!r}")
        if not same_path(record["cwd"], run["repo"]):
            problems.append(f"{where}: folder {record['cwd']!r}, not {run['repo']!r}")
        branch_ok = (
            record["branch"] == run["branch"]
            if recipe(run).records_branch
            else record["branch"] in (None, run["branch"])
        )
        if not branch_ok:
            problems.append(
                f"{where}: branch {record['branch']!r}, not {run['branch']!r}"
            )
        models = [*made["models"], *filter(None, [recipe(run).recorded_model])]
        model_ok = (
            not made["models"]
            or _same_model(record["model"], models)
            or (not recipe(run).records_model and record["model"] is None)
        )
        if not model_ok:
            problems.append(
                f"{where}: model {record['model']!r}; the CLI asked the mock for {made['models']}"
            )
        if not record["created"] or not record["updated"]:
            problems.append(
                f"{where}: created {record['created']!r}, updated {record['updated']!r}"
            )
        if record["parent_id"]:
            problems.append(
                f"{where}: listed without --all but has parent_id {record['parent_id']!r}"
            )
        # A session inside a database has a path like `opencode.db#session/<id>`.
        if (
            not record["path"]
            or not Path(str(record["path"]).split("#", 1)[0]).exists()
        ):
            problems.append(f"{where}: path {record['path']!r} does not exist")
    assert not problems, "\n".join(problems)


def test_titles(run: dict[str, Any]) -> None:
    wanted = {}
    for s in run["steps"]:
        for title in (s["title"], s.get("late_title")):
            if title and s["ok"] and s["session_id"]:
                wanted[s["session_id"]] = (s["name"], title)
    if not wanted:
        pytest.skip(f"{run['target']} writes no title in these steps")
    by_id = {r["id"]: r for r in listed(run)}
    problems = [
        f"{name} session {session_id}: title {by_id.get(session_id, {}).get('title')!r}, not {title!r}"
        for session_id, (name, title) in wanted.items()
        if by_id.get(session_id, {}).get("title") != title
    ]
    assert not problems, "\n".join(problems)


def test_resume_grew_the_same_session(run: dict[str, Any]) -> None:
    basic, resumed = good_step(run, "basic"), good_step(run, "resume")
    records = [r for r in listed(run) if r["id"] == basic["session_id"]]
    assert len(records) == 1, (
        f"session {basic['session_id']} listed {len(records)} times"
    )
    updated = when(records[0]["updated"])
    started = datetime.fromtimestamp(resumed["started"]).astimezone()
    assert updated is not None and updated >= started - timedelta(seconds=2), (
        f"session {basic['session_id']} was updated {records[0]['updated']}, before the resume ran at {started.isoformat()}: "
        "sessdex did not see what the resume appended"
    )


def test_subagents_linked_to_their_parent(run: dict[str, Any]) -> None:
    everything = listed(run, "--all")
    ids = {r["id"] for r in everything}
    orphans = [
        f"{r['id']} -> {r['parent_id']}"
        for r in everything
        if r["parent_id"] and r["parent_id"] not in ids
    ]
    assert not orphans, f"sub-agent sessions whose parent is not listed: {orphans}"
    if recipe(run).subagents == "agent":
        _subagent_nested_in_its_lead(run)
        return
    if recipe(run).subagents != "linked":
        pytest.skip(recipe(run).subagent_note)
    parent = good_step(run, "subagent")
    assert parent["child_served"], (
        "the CLI never started the sub-agent (no SCENARIO=child request)"
    )
    children = [r for r in everything if r["parent_id"] == parent["session_id"]]
    assert children, (
        f"no session in `list --all` has parent_id {parent['session_id']} (listed: {sorted(ids)})"
    )
    for child in children:
        assert child["app"] == run["app"]
        assert same_path(child["cwd"], run["repo"]), (
            f"sub-agent {child['id']}: folder {child['cwd']!r}"
        )


def _subagent_nested_in_its_lead(run: dict[str, Any]) -> None:
    """A sub-agent kept as an agent of its lead's session: `show --subagents tree` puts its
    own shell call's result under the spawn that started it."""
    parent = good_step(run, "subagent")
    assert parent["child_served"], (
        "the CLI never started the sub-agent (no SCENARIO=child request)"
    )
    events = sessdex_json(
        run, "show", parent["session_id"], "--subagents", "tree", "--detail", "full"
    )
    spawns = [e for e in events if e["kind"] == "subagent"]
    assert spawns, f"session {parent['session_id']} shows no sub-agent spawn"
    child = (spawns[0].get("extra") or {}).get("child_id")
    assert child, f"the spawn names no sub-agent: {spawns[0]}"
    mine = [e for e in events if e.get("agent_id") == child]
    said = " ".join(str(e.get("text") or "") for e in mine)
    assert "hello-from-subagent" in said, (
        f"sub-agent {child}'s own events ({len(mine)}) lack its shell call's output"
    )
    first = events.index(spawns[0])
    assert all(events.index(e) > first for e in mine), (
        f"sub-agent {child}'s events are not under its spawn"
    )


def test_fork_names_its_source(run: dict[str, Any]) -> None:
    """A session the CLI forked from the basic one is listed as that session's fork."""
    basic, fork = good_step(run, "basic"), good_step(run, "fork")
    records = {r["id"]: r for r in listed(run, "--all")}
    assert fork["session_id"] in records, (
        f"the fork {fork['session_id']} is not listed ({sorted(records)})"
    )
    assert records[fork["session_id"]]["forked_from"] == basic["session_id"], (
        f"fork {fork['session_id']}: forked_from "
        f"{records[fork['session_id']]['forked_from']!r}, not {basic['session_id']!r}"
    )


def test_tokens_counted_once(run: dict[str, Any]) -> None:
    """Every response the mock served is counted once: not twice through a resume, a
    sub-agent's copy in its lead or a fork's copy of its source, and none left out."""
    totals_only = recipe(run).records_session_totals
    if not (recipe(run).records_every_response or totals_only):
        pytest.skip(
            f"{run['target']}: not every response's usage is in its files (its recipe says which)"
        )
    unrecorded = recipe(run).unrecorded_kinds
    served = [
        r
        for r in run.get("requests", [])
        if r.get("api") and r.get("status") == 200 and r.get("kind") not in unrecorded
    ]
    rows = sessdex_json(run, "usage", "app", "--app", run["app"])
    served_usage = {
        "responses": len(served),
        "input_tokens": len(served) * mockllm.USAGE[0],
        "output_tokens": len(served) * mockllm.USAGE[1],
    }
    # Session totals give one summed response per session, whatever the number of calls.
    keys = list(served_usage)[1:] if totals_only else list(served_usage)
    counted = {key: sum(int(row[key]) for row in rows) for key in keys}
    wanted = {key: served_usage[key] for key in keys}
    assert counted == wanted, (
        f"{run['target']} {run['version']}: sessdex usage counted {counted}; "
        f"the mock served {len(served)} responses of {mockllm.USAGE} tokens"
        + (f" (besides its {', '.join(unrecorded)} requests)" if unrecorded else "")
    )


def test_side_chats_listed_as_forks_of_their_thread(run: dict[str, Any]) -> None:
    """A side chat (Codex's /side) is the user's own: listed without --all, naming the
    thread it came from, titled by its question (Codex names it after that thread first)."""
    made = [(s, i) for s in run["steps"] for i in side_chats(s)]
    if not made:
        pytest.skip(f"{run['target']}: no step opened a side chat")
    by_id = {r["id"]: r for r in listed(run)}
    problems = []
    for s, side_id in made:
        record = by_id.get(side_id)
        if record is None:
            problems.append(f"side chat {side_id} of {s['session_id']} is not listed")
            continue
        if record["forked_from"] != s["session_id"] or record["parent_id"]:
            problems.append(
                f"side chat {side_id}: forked_from {record['forked_from']!r}, parent_id "
                f"{record['parent_id']!r}; it came from {s['session_id']}"
            )
        if record["title"] != apps.PROMPTS["side"]:
            problems.append(f"side chat {side_id}: title {record['title']!r}")
    assert not problems, "\n".join(problems)


def test_doctor_reports_nothing_unread(run: dict[str, Any]) -> None:
    expected = main_sessions(run)
    reports = {r["app"]: r for r in sessdex_json(run, "doctor")}
    report = reports.get(run["app"])
    assert report is not None, f"doctor has no entry for {run['app']}"
    problems = []
    if report["unknown_record_types"]:
        problems.append(f"unrecognised record types: {report['unknown_record_types']}")
    if report["skipped_lines"]:
        problems.append(f"skipped lines: {report['skipped_lines']}")
    if report["sessions"] < len(expected):
        problems.append(f"{report['sessions']} sessions, the CLI made {len(expected)}")
    others = {
        app: r["sessions"]
        for app, r in reports.items()
        if app != run["app"] and r["sessions"]
    }
    if others:
        problems.append(
            f"other apps claim sessions in a {run['app']}-only home: {others}"
        )
    if problems and report.get("problems"):
        problems.append(f"doctor's problems: {report['problems']}")
    assert not problems, f"{run['target']} {run['version']}: " + "; ".join(problems)


def test_cli_version_recorded(run: dict[str, Any]) -> None:
    if not recipe(run).records_cli_version:
        pytest.skip(f"{run['target']} does not write its version into the session")
    expected = main_sessions(run)
    records = {r["id"]: r for r in listed(run)}
    wrong = {
        i: records[i]["cli_version"]
        for i in expected
        if i in records and records[i]["cli_version"] != run["version"]
    }
    assert not wrong, f"cli_version should be {run['version']}: {wrong}"
    report = next(r for r in sessdex_json(run, "doctor") if r["app"] == run["app"])
    assert run["version"] in report["versions"], (
        f"doctor versions {report['versions']} lack {run['version']}"
    )


def _flags(argv: list[str]) -> list[str]:
    return [
        a.split("=", 1)[0] for a in argv if a.startswith("-") and a not in ("-", "--")
    ]


def test_resume_print_gives_a_command_the_cli_accepts(
    run: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    """Every flag the printed command uses is in the installed CLI's --help, and every value
    is one that help lists for its flag, where it lists any (helpvalues.py reads the lists)."""
    expected = main_sessions(run)
    if not expected:
        pytest.skip(f"{run['target']}: no step made a session")
    problems: list[str] = []
    unlisted: set[str] = set()
    # With --keep-permissions too: the looser flags it restores must exist as well.
    cases = [
        (i, m, extra)
        for i, m in expected.items()
        for extra in ((), ("--keep-permissions",))
    ]
    for session_id, made, extra in cases:
        done = sessdex(run, "resume", session_id, "--print", *extra)
        if done.returncode != 0:
            problems.append(
                f"{made['name']} {session_id}: exited {done.returncode}: {done.stderr.strip()[-400:]}"
            )
            continue
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        match = re.fullmatch(r"cd (.+?) && (.+)", line)
        if not match:
            problems.append(
                f"{made['name']} {session_id}: not `cd <folder> && <command>`: {line!r}"
            )
            continue
        folder, argv = shlex.split(match.group(1)), shlex.split(match.group(2))
        if len(folder) != 1 or not same_path(folder[0], run["repo"]):
            problems.append(
                f"{made['name']} {session_id}: cd {folder}, not {run['repo']}"
            )
        if not argv or os.path.basename(argv[0]) != recipe_bin(run):
            problems.append(
                f"{made['name']} {session_id}: runs {argv[:1]}, not {recipe_bin(run)}"
            )
            continue
        # a CLI that resumes by its own key: the key its output named for this session
        named = made.get("session_key") if recipe(run).resumes_by_key else session_id
        if recipe(run).resume_names_session and not (
            named and any(named in a for a in argv)
        ):
            problems.append(
                f"{made['name']} {session_id}: the command does not name the session"
                f"{f' (its key {named})' if named != session_id else ''}: {argv}"
            )
        help_text = run["help"].get("", "")
        if len(argv) > 1 and not argv[1].startswith("-") and session_id not in argv[1]:
            sub = argv[1]
            if sub not in run["help"]:
                problems.append(
                    f"{made['name']}: subcommand {sub!r} (add it to help_subcommands in apps.py to check it)"
                )
                continue
            help_text = run["help"][sub]
        if not help_text.strip():
            problems.append(
                f"{made['name']}: `{recipe_bin(run)} --help` printed nothing"
            )
        for flag in _flags(argv[1:]):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text):
                problems.append(
                    f"{made['name']} {session_id}: flag {flag} is not in the installed CLI's --help ({argv})"
                )
        wrong, unchecked = helpvalues.check(argv[1:], help_text, recipe_bin(run))
        problems += [f"{made['name']} {session_id}: {w} ({argv})" for w in wrong]
        unlisted.update(unchecked)
    if unlisted and not problems:
        capture = request.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled():
            print(
                f"\n{run['target']} {run['version']}: values not checked, --help lists none for "
                + ", ".join(sorted(unlisted)),
                flush=True,
            )
    assert not problems, f"{run['target']} {run['version']}:\n" + "\n".join(problems)


def recipe_bin(run: dict[str, Any]) -> str:
    return Path(run["executable"]).name


# What `sessdex watch` must say at each moment the driver looked (driver.py `_probe`): while
# the lead's slow shell call runs, while its sub-agent's does, and after an interactive turn.
LIVE_SLOW_STEPS = {"basic": ("tool", "basic"), "subagent": ("subagent", "child")}
LIVE_WANTED = {
    "tool": "working",
    "subagent": "waiting_on_subagent",
    "answered": "waiting_for_user",
}


def test_live_states(run: dict[str, Any]) -> None:
    """`sessdex watch --json`, asked while the real CLI ran, told its session's state right."""
    problems, looked, unknown = [], 0, []
    for s in run["steps"]:
        if not s["ok"] or not s["session_id"]:
            continue
        phase, scenario = LIVE_SLOW_STEPS.get(s["name"], (None, None))
        slow = [
            r
            for r in s["requests"]
            if r.get("scenario") == scenario
            and r.get("results") == 0
            and r.get("action") in mockllm.SHELL_TOOLS
        ]
        asked = any(mockllm.SLOW.search(a) for a in s["argv"])
        if (
            asked
            and slow
            and phase not in recipe(run).live_unknown
            and not any(p["phase"] == phase for p in s.get("live", []))
        ):
            problems.append(
                f"{s['name']} step: the CLI was done within 2 s of its slow shell call, "
                "so `watch` was not asked (did the sleep run?)"
            )
        for probe in s.get("live", []):
            phase = probe["phase"]
            if phase in recipe(run).live_unknown:
                unknown.append(f"{phase}: {recipe(run).live_unknown[phase]}")
                continue
            looked += 1
            where = f"{s['name']} step, {phase} ({probe['at'] - s['started']:.0f} s in)"
            if probe["board"] is None:
                problems.append(
                    f"{where}: `sessdex watch --json` exited {probe['rc']}: {probe['stderr'][-600:]}"
                )
                continue
            entry = next(
                (e for e in probe["board"] if e.get("id") == s["session_id"]), None
            )
            wanted = LIVE_WANTED[phase]
            if entry is None:
                seen = [(e.get("id"), e.get("status")) for e in probe["board"]]
                problems.append(
                    f"{where}: session {s['session_id']} not on the board {seen}"
                )
            elif entry["status"] != wanted:
                problems.append(
                    f"{where}: session {s['session_id']} {entry['status']!r} "
                    f"({entry.get('reason')}), not {wanted!r}"
                )
            elif not same_path(entry.get("cwd"), run["repo"]):
                problems.append(f"{where}: folder {entry.get('cwd')!r}")
    assert not problems, f"{run['target']} {run['version']}:\n" + "\n".join(problems)
    if not looked:
        pytest.skip(
            f"{run['target']}: no live state to check; "
            + "; ".join(sorted(set(unknown)))
        )
