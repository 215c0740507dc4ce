"""Cline quirks: tasks in any VS Code-family editor, usage from api_req_started, no CLI resume."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, _vscode_tasks, cline

DATA = Path(__file__).parent.parent / "data" / "cline"
EXTENSION = "saoudrizwan.claude-dev"


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = cline.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in cline.scan(location):
        for session in cline.parse(path, location, diagnostics or Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(cline.read(session, diagnostics or Diagnostics()))


def total(found: list[Event]) -> tuple[Usage, float]:
    usage = sum((e.usage for e in found if e.usage), Usage())
    cost = sum(float(e.extra.get("cost_usd") or 0) for e in found if e.kind == "usage")  # type: ignore[arg-type]
    return usage, round(cost, 6)


def task(
    home: Path, task_id: str, messages: list[object], user_dir: str = ".config/Code"
) -> Path:
    folder = home / user_dir / "User" / "globalStorage" / EXTENSION / "tasks" / task_id
    folder.mkdir(parents=True)
    path = folder / "ui_messages.json"
    path.write_text(json.dumps(messages))
    return path


def api_req(ts: int, **fields: object) -> dict[str, object]:
    return {
        "ts": ts,
        "type": "say",
        "say": "api_req_started",
        "text": json.dumps(fields),
    }


def test_usage_totals_match_the_history_list_figures() -> None:
    found = sessions(Home.at(DATA / "home"))
    # figures Cline itself keeps per task in state/taskHistory.json, checked by hand
    usage, cost = total(events(found["1790931121000"]))
    assert (usage.input_tokens, usage.output_tokens) == (3120, 645)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (6210, 3660)
    assert cost == 0.0312
    assert usage.model == "claude-sonnet-4-5"
    usage, cost = total(events(found["1740470400000"]))
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    ) == (
        750,
        800,
        110,
        70,
    )
    assert cost == 0.006


def test_events_of_a_current_task() -> None:
    got = events(sessions(Home.at(DATA / "home"))["1790931121000"])
    assert [e.kind for e in got] == [
        "user", "usage", "thinking", "assistant", "tool_call", "usage", "assistant",
        "tool_call", "tool_call", "tool_result", "usage", "assistant", "turn_end",
    ]  # fmt: skip
    read_file, edit, command, output = got[4], got[7], got[8], got[9]
    assert (
        read_file.tool == "readFile"
        and read_file.extra["input"]["path"] == "src/router.ts"
    )  # type: ignore[index]
    assert edit.tool == "editedExistingFile"
    assert command.tool == "execute_command" and command.extra["input"] == {
        "command": "npm test -- --silent"
    }
    assert (
        output.call_id == command.call_id and output.text and "4 passed" in output.text
    )
    assert (
        got[0].text
        == "Add a /health endpoint to the API\nIt should return the git sha."
    )
    assert (
        got[0].time is not None
        and got[0].time.isoformat() == "2026-10-02T08:52:01+00:00"
    )


def test_listing_reads_only_heads_tails_and_small_files() -> None:
    found = sessions(Home.at(DATA / "home"))
    current = found["1790931121000"]
    assert current.title == "Add a /health endpoint to the API"  # first line only
    assert current.cwd == "/home/alex/code/shop-api"  # from the environment details
    assert (
        found["1740470400000"].cwd == "/home/alex/code/dashboard"
    )  # only the history list knows it
    assert (
        found["1790940000000"].model == "gpt-5"
    )  # from modelInfo in the first messages


def test_every_editor_and_remote_server_is_looked_at(tmp_path: Path) -> None:
    home = tmp_path / "home"
    task(
        home,
        "1",
        [{"ts": 1, "type": "say", "say": "task", "text": "in vscodium"}],
        ".config/VSCodium",
    )
    task(
        home,
        "2",
        [{"ts": 2, "type": "say", "say": "task", "text": "over ssh"}],
        ".vscode-server/data",
    )
    task(
        home,
        "3",
        [{"ts": 3, "type": "say", "say": "task", "text": "not cline"}],
        ".config/Code/../Zed",
    )
    found = sessions(Home.at(home))
    assert {s.title for s in found.values()} == {"in vscodium", "over ssh"}
    # a config folder set by XDG_CONFIG_HOME moves the editors, not the server installs
    moved = Home(Home.at(home).path, {"XDG_CONFIG_HOME": str(home / ".config")})
    assert {s.title for s in sessions(moved).values()} == {"in vscodium", "over ssh"}


def test_a_macs_editors_are_looked_at_though_it_has_a_dot_config(
    tmp_path: Path,
) -> None:
    """On macOS the editors keep their user folders in ~/Library/Application Support,
    whatever else writes to ~/.config (gh, git, fish): both are looked in, as are the
    other editors built on VS Code and a code-server install."""
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    say = "say"
    task(home, "1", [{"ts": 1, "type": say, "say": "task", "text": "on a mac"}],
         "Library/Application Support/Code")  # fmt: skip
    task(home, "2", [{"ts": 2, "type": say, "say": "task", "text": "in kiro"}],
         "Library/Application Support/Kiro")  # fmt: skip
    task(home, "3", [{"ts": 3, "type": say, "say": "task", "text": "on linux"}],
         ".config/Code")  # fmt: skip
    task(home, "4", [{"ts": 4, "type": say, "say": "task", "text": "code-server"}],
         ".local/share/code-server")  # fmt: skip
    expected = {"on a mac", "in kiro", "on linux", "code-server"}
    assert {s.title for s in sessions(Home.at(home)).values()} == expected
    # XDG_CONFIG_HOME moves the Linux folder; a Mac's editors stay where they are
    moved = Home(Home.at(home).path, {"XDG_CONFIG_HOME": str(tmp_path / "elsewhere")})
    assert {s.title for s in sessions(moved).values()} == expected - {"on linux"}


def test_tasks_the_jetbrains_plugin_and_the_cli_keep_under_dot_cline_are_listed(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    folder = home / ".cline" / "data" / "tasks" / "1760000000000"
    folder.mkdir(parents=True)
    (folder / "ui_messages.json").write_text(
        json.dumps(
            [
                {
                    "ts": 1760000000000,
                    "type": "say",
                    "say": "task",
                    "text": "from JetBrains",
                }
            ]
        )
    )
    assert [s.title for s in sessions(Home.at(home)).values()] == ["from JetBrains"]
    elsewhere = tmp_path / "moved"
    (home / ".cline").rename(elsewhere)
    assert sessions(Home.at(home)) == {}
    moved = Home(Home.at(home).path, {"CLINE_DIR": str(elsewhere)})
    assert [s.title for s in sessions(moved).values()] == ["from JetBrains"]
    moved = Home(Home.at(home).path, {"CLINE_DATA_DIR": str(elsewhere / "data")})
    assert [s.title for s in sessions(moved).values()] == ["from JetBrains"]


def test_only_this_extensions_tasks_are_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    task(home, "1", [{"ts": 1, "type": "say", "say": "task", "text": "mine"}])
    other = home / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/2"
    other.mkdir(parents=True)
    (other / "ui_messages.json").write_text(
        '[{"ts": 2, "type": "say", "say": "text", "text": "roo"}]'
    )
    assert [s.title for s in sessions(Home.at(home)).values()] == ["mine"]


def test_deleted_requests_count_and_cancelled_ones_are_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    task(
        home,
        "7",
        [
            {"ts": 7, "type": "say", "say": "task", "text": "t"},
            {
                "ts": 8,
                "type": "say",
                "say": "deleted_api_reqs",
                "text": json.dumps({"tokensIn": 10, "tokensOut": 5}),
            },
            api_req(
                9,
                tokensIn=4,
                tokensOut=0,
                cancelReason="streaming_failed",
                streamingFailedMessage="overloaded",
            ),
            api_req(10),  # a request still in flight: nothing billed yet
        ],
    )
    got = events(sessions(Home.at(home))["7"])
    assert [e.kind for e in got] == ["user", "usage", "usage", "error"]
    assert got[1].extra["deleted"] is True and got[3].text == "overloaded"
    assert total(got)[0].input_tokens == 14


def test_a_claude_dev_task_is_listed_and_its_finished_requests_billed(
    tmp_path: Path,
) -> None:
    """Claude Dev (Cline before 2.0) named the file claude_messages.json, which Cline
    renames only when it opens the task again (disk.ts getSavedClineMessages), and wrote a
    request's figures on an `api_req_finished` after its `api_req_started`, the pair
    Cline merges (combineApiRequests.ts): counted once, what the finish adds."""
    path = task(
        tmp_path,
        "1725000000000",
        [
            {"ts": 1725000000000, "type": "say", "say": "task", "text": "Add a retry"},
            api_req(1725000000100, request="<task>Add a retry</task>"),
            {"ts": 1725000004000, "type": "say", "say": "api_req_finished",
             "text": json.dumps({"tokensIn": 1523, "tokensOut": 210, "cacheWrites": 1200,
                                 "cacheReads": 0, "cost": 0.0123})},
            {"ts": 1725000004100, "type": "say", "say": "text", "text": "Reading it."},
            api_req(1725000005000, request="<tool_result>", tokensIn=40),
            {"ts": 1725000008000, "type": "say", "say": "api_req_finished",
             "text": json.dumps({"tokensIn": 40, "tokensOut": 12, "cost": 0.001})},
            {"ts": 1725000009000, "type": "say", "say": "completion_result", "text": "Done."},
        ],
    )  # fmt: skip
    path.rename(path.with_name("claude_messages.json"))
    found = sessions(Home.at(tmp_path))
    assert list(found) == ["1725000000000"]
    session = found["1725000000000"]
    assert session.title == "Add a retry"
    assert session.path is not None and session.path.endswith("claude_messages.json")
    diagnostics = Diagnostics()
    read = events(session, diagnostics)
    assert [e.usage for e in read if e.kind == "usage"] == [
        Usage(1523, 210, 0, 1200),
        Usage(40, 0),
        Usage(0, 12),
    ]
    assert total(read)[1] == 0.0133
    assert not diagnostics.unknown


def test_claude_devs_own_message_kinds(tmp_path: Path) -> None:
    """Claude Dev 1.x asked `request_limit_reached` at its max requests per task, and its
    inspectSite tool answered with `inspect_site_result` (an empty one while it ran)."""
    task(
        tmp_path,
        "1724000000000",
        [
            {"ts": 1724000000000, "type": "say", "say": "task", "text": "Check the page"},
            {"ts": 1724000001000, "type": "say", "say": "tool",
             "text": json.dumps({"tool": "inspectSite", "path": "http://localhost:3000"})},
            {"ts": 1724000002000, "type": "say", "say": "inspect_site_result", "text": ""},
            {"ts": 1724000003000, "type": "say", "say": "inspect_site_result",
             "text": "console: ready", "images": ["data:image/webp;base64,AAAA"]},
            {"ts": 1724000004000, "type": "ask", "ask": "request_limit_reached",
             "text": "Claude Dev has reached the maximum number of requests for this task."},
        ],
    )  # fmt: skip
    diagnostics = Diagnostics()
    read = events(sessions(Home.at(tmp_path))["1724000000000"], diagnostics)
    assert [(e.kind, e.tool, e.call_id, e.text) for e in read[1:]] == [
        ("tool_call", "inspectSite", "1724000000000:1724000001000", None),
        ("tool_result", None, "1724000000000:1724000001000", "console: ready"),
        ("error", None, None,
         "Claude Dev has reached the maximum number of requests for this task."),
    ]  # fmt: skip
    assert not diagnostics.unknown


def test_a_huge_task_file_is_listed_from_its_head_and_read_in_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    task(home, "5", [{"ts": 5, "type": "say", "say": "task", "text": "x" * 5000}])
    monkeypatch.setattr(_vscode_tasks, "WHOLE_CAP", 1000)
    diagnostics = Diagnostics()
    found = sessions(Home.at(home))
    assert found["5"].title == "x" * 5000  # listing reads the head only
    assert [(e.kind, e.text) for e in events(found["5"], diagnostics)] == [
        ("user", "x" * 5000)
    ]
    assert diagnostics.skipped_total == 0


def test_a_pasted_image_is_summarised_not_shown_whole(tmp_path: Path) -> None:
    """A task file holding a payload longer than a line sessdex parses whole: the
    payload is its note, however small the file around it (parsed whole, a 50 MB one
    was printed whole and held three times over)."""
    home = tmp_path / "home"
    big = "iVBORw0KGgo" + "A" * (files.READ_LINE_CAP + 1000)
    task(home, "6", [
        {"ts": 6, "type": "say", "say": "task", "text": "look"},
        {"ts": 7, "type": "say", "say": "text", "text": big},
        {"ts": 8, "type": "ask", "ask": "command", "text": big},
    ])  # fmt: skip
    found = events(sessions(Home.at(home))["6"])
    note = f"[text, {files.human_bytes(len(big))}]"
    assert [(e.kind, e.text) for e in found[:2]] == [
        ("user", "look"),
        ("assistant", note),
    ]
    assert found[2].extra["input"] == {"command": note}
    assert max(len(orjson.dumps(e.extra)) + len(e.text or "") for e in found) < 1000


def test_no_cli_resume() -> None:
    for session in sessions(Home.at(DATA / "home")).values():
        assert cline.resume(session) is None


def test_a_task_file_too_big_to_parse_is_read_one_message_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ui_messages.json over the size parsed at once: the same events, from a read
    that holds one message at a time."""
    home = Home.at(DATA / "home")
    found = sessions(home)
    whole = {key: events(session) for key, session in found.items()}
    assert sum(len(v) for v in whole.values()) > 10
    monkeypatch.setattr(_vscode_tasks, "WHOLE_CAP", 100)
    diagnostics = Diagnostics()
    streamed = {key: events(session, diagnostics) for key, session in found.items()}
    assert streamed == whole
    assert not diagnostics.problems


def test_sub_agents_usage_counts_and_older_message_names_are_known(
    tmp_path: Path,
) -> None:
    """Cline 3.5x runs sub-agents that write no files: their requests reach the task as
    `subagent_usage` messages, which Cline's getApiMetrics adds to the task's totals
    (apps/vscode/src/shared/getApiMetrics.ts). Cline 3.2-3.8 named a plan answer
    `plan_mode_response`; 3.36-3.4x wrote `hook` and `hook_output` status lines."""
    home = tmp_path / "home"
    task(
        home,
        "8",
        [
            {"ts": 7, "type": "say", "say": "task", "text": "t"},
            api_req(8, tokensIn=100, tokensOut=10),
            {"ts": 9, "type": "say", "say": "subagent_usage",
             "text": json.dumps({"source": "subagents", "tokensIn": 1200, "tokensOut": 300,
                                 "cacheWrites": 0, "cacheReads": 800, "cost": 0.01})},
            {"ts": 10, "type": "ask", "ask": "plan_mode_response",
             "text": json.dumps({"response": "First read the tests."})},
            {"ts": 11, "type": "say", "say": "hook",
             "text": json.dumps({"hookName": "PreToolUse", "status": "completed"})},
            {"ts": 12, "type": "say", "say": "hook_output", "text": "ok"},
        ],
    )  # fmt: skip
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(home))["8"], diagnostics)
    assert not diagnostics.unknown
    usage, _ = total(got)
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (
        1300,
        310,
        800,
    )
    assert [e.extra for e in got if e.kind == "usage"][1] == {
        "cost_usd": 0.01,
        "subagents": True,
        "summed": True,
    }
    assert "First read the tests." in [e.text for e in got if e.kind == "assistant"]


@pytest.mark.parametrize("kind", ["subagent_usage", "deleted_api_reqs"])
def test_a_batch_of_requests_is_priced_at_the_base_rates(
    tmp_path: Path, kind: str
) -> None:
    """A `subagent_usage` or `deleted_api_reqs` message sums several requests: 300k
    prompt tokens of them are not one request past Sonnet 4.5's 200k threshold."""
    from sessdex import usage

    home = tmp_path / "home"
    model = {"providerId": "anthropic", "modelId": "claude-sonnet-4-5"}
    task(
        home,
        "9",
        [
            {"ts": 7, "type": "say", "say": "task", "text": "t"},
            {**api_req(8, tokensIn=100, tokensOut=10), "modelInfo": model},
            {"ts": 9, "type": "say", "say": kind,
             "text": json.dumps({"tokensIn": 300_000, "tokensOut": 10_000,
                                 "cacheWrites": 0, "cacheReads": 0})},
        ],
    )  # fmt: skip
    [row] = usage.run(Home.at(home), "app", apps=["cline"]).rows
    assert (row.input_tokens, row.output_tokens) == (300_100, 10_010)
    # $3 in, $15 out per million (the long-context $6 and $22.50 made it $2.03)
    assert row.cost_usd == pytest.approx(0.90030 + 0.15015)


def test_an_ask_waits_for_the_user_until_something_follows(tmp_path: Path) -> None:
    """Cline writes a tool it may not run unasked as an `ask` (an auto-approved one is a
    `say`), and a question as an `ask: followup`: the last message being one means the
    task waits for the user (the extension has no process to look for)."""
    from sessdex.status import Tracker, decide

    source = (
        DATA
        / "home/.config/Code/User/globalStorage"
        / EXTENSION
        / "tasks/1790931121000"
    )
    messages = json.loads((source / "ui_messages.json").read_text())
    command = next(i for i, m in enumerate(messages) if m.get("ask") == "command")

    def status(shown: list[dict[str, object]]) -> tuple[str, str]:
        home = tmp_path / str(len(list(tmp_path.iterdir())))
        task(home, "1790931121000", shown)
        found = events(sessions(Home.at(home))["1790931121000"])
        tracker = Tracker()
        for e in found:
            tracker.add(e, e.time.timestamp() if e.time else 0.0)
        at = int(shown[-1]["ts"]) / 1000  # type: ignore[call-overload]
        got = decide(tracker, at + 20, at, None)
        return got.status, got.reason

    asking = messages[: command + 1]
    assert status(asking) == (
        "waiting_for_user",
        "execute_command waits for approval (20s)",
    )
    streaming = [*asking[:-1], {**asking[-1], "partial": True}]
    assert status(streaming)[0] == "working"  # still being written: no request yet
    assert status(messages[: command + 2])[0] == "working"  # approved: the tests run
    question = {"ts": asking[-1]["ts"], "type": "ask", "ask": "followup",
                "text": json.dumps({"question": "Run the slow tests too?"})}  # fmt: skip
    assert status([*asking[:-1], question])[1].startswith("turn ended")


def test_cline_4_1_plan_answers_and_compactions(tmp_path: Path) -> None:
    """Cline 4.1 retags a plan-mode turn's final text `plan_completion_result`, and notes
    each compaction as `say: compaction` with its outcome (ExtensionMessage.ts)."""
    messages = [
        {"ts": 1790931121000, "type": "say", "say": "task", "text": "Plan the /health endpoint"},
        {"ts": 1790931122000, "type": "say", "say": "compaction",
         "text": json.dumps({"status": "started", "mode": "auto"})},
        {"ts": 1790931123000, "type": "say", "say": "compaction",
         "text": json.dumps({"status": "completed", "mode": "auto", "tokensBefore": 150000, "tokensAfter": 12000})},
        {"ts": 1790931124000, "type": "say", "say": "plan_completion_result",
         "text": "Add GET /health in src/router.ts returning the git sha.", "partial": False},
    ]  # fmt: skip
    task(tmp_path, "1790931121000", messages)
    diagnostics = Diagnostics()
    found = events(sessions(Home.at(tmp_path))["1790931121000"], diagnostics)
    assert [e.kind for e in found] == ["user", "compaction", "assistant", "turn_end"]
    assert found[1].extra == {
        "mode": "auto",
        "tokensBefore": 150000,
        "tokensAfter": 12000,
    }
    assert found[2].text == "Add GET /health in src/router.ts returning the git sha."
    assert not diagnostics.unknown


def test_use_subagents_shows_each_sub_agent_and_how_it_ended(tmp_path: Path) -> None:
    """Cline 3.x's `use_subagents` runs its sub-agents inside the extension: one `say:
    subagent` message, rewritten while partial, holds each one's prompt and status
    (SubagentToolHandler.ts); the final one answers the call."""
    from sessdex.status import Tracker, decide
    from sessdex.tree import build_tree

    def progress(
        status: str, first: str, second: str, partial: bool
    ) -> dict[str, object]:
        items = [
            {
                "index": 1,
                "prompt": "Find the callers",
                "status": first,
                "result": "api.py:12",
            },
            {
                "index": 2,
                "prompt": "Read the tests",
                "status": second,
                "error": "timed out",
            },
        ]
        body = {"status": status, "total": 2, "items": items}
        return {"ts": 1790931125000, "type": "say", "say": "subagent",
                "text": json.dumps(body), "partial": partial}  # fmt: skip

    start = [
        {"ts": 1790931121000, "type": "say", "say": "task", "text": "Look around"},
        {"ts": 1790931124000, "type": "ask", "ask": "use_subagents",
         "text": json.dumps({"prompts": ["Find the callers", "Read the tests"]})},
    ]  # fmt: skip

    def read(messages: list[dict[str, object]]) -> list[Event]:
        home = tmp_path / str(len(list(tmp_path.iterdir())))
        task(home, "1790931121000", messages)
        return events(sessions(Home.at(home))["1790931121000"])

    asked = read(start)
    tracker = Tracker()
    for e in asked:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    at = 1790931124
    assert decide(tracker, at + 5, at, None).reason.startswith(
        "use_subagents waits for approval"
    )
    running = build_tree(
        "1790931121000", read([*start, progress("running", "running", "pending", True)])
    )
    assert [(c.description, c.status) for c in running.children] == [
        ("Find the callers", "running"),
        ("Read the tests", "running"),
    ]
    found = read([*start, progress("failed", "completed", "failed", False)])
    done = build_tree("1790931121000", found)
    assert [c.status for c in done.children] == ["done", "failed"]
    [answer] = [e for e in found if e.kind == "tool_result"]
    assert answer.is_error and answer.text == "api.py:12\n\ntimed out"


def three_messages(home: Path) -> Path:
    """A task of three messages, the last stamped 1740470406000."""
    return task(home, "1740470400000", [
        {"ts": 1740470400000, "type": "say", "say": "task", "text": "Build it"},
        {"ts": 1740470405000, "type": "say", "say": "text", "text": "Done."},
        {"ts": 1740470406000, "type": "say", "say": "text", "text": "More."},
    ])  # fmt: skip


def test_a_task_file_cut_inside_its_last_time_is_listed_at_the_time_before(
    tmp_path: Path,
) -> None:
    """The file's end cuts 1740470406000 to 1740470406: no date in 1970."""
    home = tmp_path / "home"
    path = three_messages(home)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"1740470406000") + 10])
    found = sessions(Home.at(home))["1740470400000"]
    assert found.updated is not None and found.updated.isoformat().startswith(
        "2025-02-25T08:00:05"
    )


def test_a_task_file_cut_short_keeps_the_messages_before_its_cut(
    tmp_path: Path,
) -> None:
    """A ui_messages.json the editor stopped writing half way (a crash, a full disk)
    shows its first messages and says where it stopped, instead of nothing."""
    home = tmp_path / "home"
    path = three_messages(home)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"More")])
    diagnostics = Diagnostics()
    found = events(sessions(Home.at(home))["1740470400000"], diagnostics)
    assert [(e.kind, e.text) for e in found] == [
        ("user", "Build it"),
        ("assistant", "Done."),
    ]
    assert "stopped reading" in diagnostics.problems[0]
    assert diagnostics.skipped == {"truncated": 1}  # a cut, not a file of other JSON


def test_a_task_whose_first_message_is_nested_past_the_decoders_depth_still_lists(
    tmp_path: Path,
) -> None:
    # the head's messages were decoded with the standard library, whose RecursionError
    # escaped: the task was not listed at all, "a sessdex bug"
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    task = "1790931121000"
    [ui] = home.glob(f".config/Code/User/globalStorage/{EXTENSION}/tasks/{task}/ui_*")
    messages = json.loads(ui.read_text())
    messages[0]["drift"] = "DEEP"
    ui.write_text(json.dumps(messages).replace('"DEEP"', "[" * 5000 + "]" * 5000))
    diagnostics = Diagnostics()
    assert task in sessions(Home.at(home), diagnostics)
    assert diagnostics.problems == []
