"""Roo Code quirks: sub-tasks (newTask) are child sessions, inlined in the parent's events."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, roo
from tests.helpers import LIST_PATHS, list_rows

DATA = Path(__file__).parent.parent / "data" / "roo"
PARENT = "7c1a2b3d-0e4f-4a5b-8c6d-7e8f9a0b1c2d"
CHILD = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
SAMPLE = "2b9d4c1e-7f00-4a53-9d7e-1c2f3a4b5c6d"


def sessions() -> dict[str, Session]:
    location = roo.locate(Home.at(DATA / "home"))
    parts: dict[str, list[Session]] = {}
    for path in roo.scan(location):
        for session in roo.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session, offset: int = 0) -> list[Event]:
    return list(roo.read(session, Diagnostics(), offset=offset))


def test_the_child_task_names_its_parent() -> None:
    found = sessions()
    assert found[CHILD].parent_id == PARENT
    assert (
        found[PARENT].extra["mode"] == "architect"
        and found[CHILD].extra["mode"] == "code"
    )
    assert found[PARENT].cwd == "/home/alex/code/reports"  # history_item.json workspace


def test_the_spawn_is_a_subagent_event_followed_by_the_childs_events() -> None:
    got = events(sessions()[PARENT])
    spawn = next(e for e in got if e.kind == "subagent")
    assert spawn.extra == {"child_id": CHILD, "agent_type": "code"}
    assert spawn.text == "Implement CSV export in src/reports/export.ts"
    child = [e for e in got if e.agent_id == CHILD]
    assert [e.kind for e in child] == [
        "user",
        "usage",
        "tool_call",
        "assistant",
        "turn_end",
    ]
    assert got.index(child[0]) == got.index(spawn) + 1
    result = next(e for e in got if e.kind == "tool_result")
    assert result.call_id == spawn.call_id and result.agent_id is None
    assert [e.seq for e in got] == list(range(len(got)))
    compaction = next(e for e in got if e.kind == "compaction")
    assert compaction.text == "User wants CSV export; subtask done."


def test_usage_of_parent_and_child_by_agent() -> None:
    got = events(sessions()[PARENT])
    lead = sum((e.usage for e in got if e.usage and e.agent_id is None), Usage())
    sub = sum((e.usage for e in got if e.usage and e.agent_id == CHILD), Usage())
    # Roo >= 3.29.5 counts the cache inside tokensIn: 4200 with 4100 written is 100
    # uncached; 30 with 4100 read can only be an older message's uncached count
    assert (
        lead.input_tokens,
        lead.output_tokens,
        lead.cache_read_tokens,
        lead.cache_write_tokens,
    ) == (
        130,
        440,
        4100,
        4100,
    )
    assert (sub.input_tokens, sub.output_tokens, sub.cache_write_tokens) == (
        100,
        650,
        2000,
    )


def test_an_openai_style_prompt_count_holds_the_cache_it_read(tmp_path: Path) -> None:
    """An OpenAI-style provider's prompt count includes the cached tokens, in every Roo
    and Cline version; an Anthropic-style one in Cline never does."""
    from sessdex.sources import cline

    for module, ext in (
        (roo, "rooveterinaryinc.roo-cline"),
        (cline, "saoudrizwan.claude-dev"),
    ):
        task = (
            tmp_path
            / module.NAME
            / ".config/Code/User/globalStorage"
            / ext
            / "tasks/t1"
        )
        task.mkdir(parents=True)
        requests = [
            {
                "apiProtocol": "openai",
                "tokensIn": 1500,
                "tokensOut": 20,
                "cacheReads": 1000,
            },
            {
                "apiProtocol": "anthropic",
                "tokensIn": 1500,
                "tokensOut": 20,
                "cacheReads": 1000,
            },
        ]
        messages = [
            {"ts": 1796000000000, "type": "say", "say": "text", "text": "go"}
        ] + [
            {
                "ts": 1796000001000 + n,
                "type": "say",
                "say": "api_req_started",
                "text": json.dumps(r),
            }
            for n, r in enumerate(requests)
        ]
        (task / "ui_messages.json").write_text(json.dumps(messages))
        location = module.locate(Home.at(tmp_path / module.NAME))
        [path] = list(module.scan(location))
        [session] = module.parse(path, location, Diagnostics())
        found = list(module.read(session, Diagnostics()))
        billed = [e.usage.input_tokens for e in found if e.usage]
        assert billed == ([500, 500] if module is roo else [500, 1500]), module.NAME


def test_a_tail_read_leaves_the_children_out() -> None:
    got = events(sessions()[PARENT], offset=1)
    assert not any(e.agent_id for e in got)


def test_a_streamed_message_is_shown_once() -> None:
    got = events(sessions()[SAMPLE])
    # the sample streams "I'll create a GitHub Actions workflow…" twice, the second one longer
    assistant = [e.text for e in got if e.kind == "assistant"]
    assert (
        len(assistant) == 2
        and assistant[0]
        and assistant[0].endswith("on pull requests.")
    )
    assert got[0].kind == "user"  # Roo opens a task with say "text": the user's prompt


def test_no_cli_resume() -> None:
    assert roo.resume(sessions()[PARENT]) is None


def test_the_model_roo_reported_to_the_model_is_the_sessions_model(
    tmp_path: Path,
) -> None:
    """Roo keeps no model in its task files; its environment details name it
    (getEnvironmentDetails.ts: `<model>…</model>` under "# Current Mode")."""
    task = (
        tmp_path / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/t1"
    )
    task.mkdir(parents=True)
    (task / "ui_messages.json").write_text(json.dumps([
        {"ts": 1796000000000, "type": "say", "say": "text", "text": "go"},
        {"ts": 1796000001000, "type": "say", "say": "api_req_started",
         "text": json.dumps({"tokensIn": 100, "tokensOut": 20})},
    ]))  # fmt: skip
    details = "<environment_details>\n# Current Mode\n<slug>code</slug>\n<model>claude-sonnet-4-5</model>\n"
    (task / "api_conversation_history.json").write_text(
        json.dumps([{"role": "user", "content": [{"type": "text", "text": details}]}])
    )
    location = roo.locate(Home.at(tmp_path))
    [path] = [p for p in roo.scan(location) if p.name == "ui_messages.json"]
    [session] = roo.parse(path, location, Diagnostics())
    assert session.model == "claude-sonnet-4-5"
    [usage] = [e.usage for e in roo.read(session, Diagnostics()) if e.usage]
    assert usage.model == "claude-sonnet-4-5"


def test_tasks_moved_by_the_custom_storage_setting_are_listed(tmp_path: Path) -> None:
    """Roo's storage.ts reads `roo-cline.customStoragePath` from the editor's settings
    (JSON with comments) and keeps `tasks/<id>/` there."""
    chosen = tmp_path / "RooTasks"
    task = chosen / "tasks" / "t1"
    task.mkdir(parents=True)
    (task / "ui_messages.json").write_text(
        json.dumps(
            [{"ts": 1796000000000, "type": "say", "say": "text", "text": "moved task"}]
        )
    )
    settings = tmp_path / ".config" / "Code" / "User" / "settings.json"
    settings.parent.mkdir(parents=True)
    location = roo.locate(Home.at(tmp_path))
    assert list(roo.scan(location)) == []
    settings.write_text(
        '{\n  // where Roo keeps its tasks\n  "editor.fontSize": 14,\n'
        f'  "roo-cline.customStoragePath": {json.dumps(str(chosen))},\n}}\n'
    )
    location = roo.locate(Home.at(tmp_path))
    [path] = list(roo.scan(location))
    [session] = roo.parse(path, location, Diagnostics())
    assert session.title == "moved task"
    # a named profile's settings (User/profiles/<id>/settings.json) count as well
    profile = settings.parent / "profiles" / "-5f0e1d2c" / "settings.json"
    profile.parent.mkdir(parents=True)
    settings.rename(profile)
    location = roo.locate(Home.at(tmp_path))
    assert list(roo.scan(location)) == [path]


def test_an_ask_is_not_taken_for_a_pending_approval(tmp_path: Path) -> None:
    """Roo writes every tool's ask before it checks auto-approval (Task.ts `ask()`), and
    nothing when it is approved: while a sub-task runs, its parent's last message is the
    answered newTask ask. The board says the sub-agent works, not "waits for approval"."""
    import shutil
    from dataclasses import replace as with_path

    from sessdex.status import Tracker, decide

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [parent_file] = home.rglob(f"{PARENT}/ui_messages.json")
    messages = json.loads(parent_file.read_text())
    parent_file.write_text(json.dumps(messages[:4]))  # the sub-task still runs
    session = with_path(sessions()[PARENT], path=str(parent_file))
    found = events(session)
    tracker = Tracker()
    for e in found:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    at = max(e.time.timestamp() for e in found if e.time)
    got = decide(tracker, at + 5, at, None)
    assert "approval" not in got.reason
    assert got.status in ("working", "waiting_on_subagent")


def test_a_rate_limit_countdown_is_not_an_unknown_message(tmp_path: Path) -> None:
    """Roo's own name for the wait its rate limit setting imposes (packages/types
    message.ts `api_req_rate_limited`; Cline and Kilo say `api_req_rate_limit_wait`)."""
    folder = (
        tmp_path / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/t1"
    )
    folder.mkdir(parents=True)
    (folder / "ui_messages.json").write_text(
        json.dumps(
            [
                {"ts": 1000, "type": "say", "say": "text", "text": "Fix the test"},
                {"ts": 1001, "type": "say", "say": "api_req_rate_limited", "text": "5"},
                {"ts": 1002, "type": "say", "say": "text", "text": "On it."},
            ]
        )
    )
    location = roo.locate(Home.at(tmp_path))
    [path] = roo.scan(location)
    [session] = roo.parse(path, location, Diagnostics())
    diagnostics = Diagnostics()
    found = list(roo.read(session, diagnostics))
    assert [e.kind for e in found] == ["user", "assistant"]
    assert not diagnostics.unknown


def test_a_broken_history_item_is_counted_not_passed_over_in_silence(
    tmp_path: Path,
) -> None:
    """history_item.json cut short loses the task's folder: the listing says so."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    item = next(home.rglob("7c1a2b3d-*/history_item.json"))
    item.write_bytes(item.read_bytes()[:-7])
    diagnostics = Diagnostics()
    location = roo.locate(Home.at(home))
    for path in roo.scan(location):
        roo.parse(path, location, diagnostics)
    assert diagnostics.skipped == {"not JSON": 1}
    assert diagnostics.details[0][0] == str(item)


def test_list_types_a_sub_task_by_its_mode_as_tree_does() -> None:

    def run(*argv: str) -> object:
        result = CliRunner().invoke(main, [*argv, "--home", str(DATA / "home")])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    rows = run("list", "--all", "--json")
    assert isinstance(rows, list)
    listed = {row["id"]: row for row in rows}
    tree = run("tree", PARENT, "--json")
    assert isinstance(tree, dict)
    [node] = tree["children"]
    assert listed[CHILD]["agent_type"] == node["agent_type"] == "code"
    assert listed[PARENT]["agent_type"] is None  # the user's own task has no type


@LIST_PATHS
def test_a_task_whose_history_item_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the task's folder comes from history_item.json, beside ui_messages.json: a warm
    # `list` kept the folder it said before it was cut (or rewritten), a cold one not
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    item = next(home.rglob(f"tasks/{PARENT}/history_item.json"))

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)[PARENT]

    assert listed("warm")["cwd"] == "/home/alex/code/reports"
    item.write_bytes(item.read_bytes()[:20])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["cwd"] is None
