"""pi quirks: the active branch of the entry tree, session_info titles, forks, resume by file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, pi

DATA = Path(__file__).parent.parent / "data" / "pi"
REAL = "01a22b83-eeaa-75d4-a59d-adc5e4fb9817"
PUBLIC = "019e19b4-eb48-746a-aa6b-8dfcfa37954b"
LEDGER = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
FORK = "0190a1c7-0000-7aaa-8bbb-ccccdddd0001"


def sessions(home: Home) -> dict[str, Session]:
    location = pi.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in pi.scan(location):
        for session in pi.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(pi.read(session, diagnostics or Diagnostics()))


def test_only_the_active_branch_is_read() -> None:
    got = events(sessions(Home.at(DATA / "home"))[LEDGER])
    texts = [e.text for e in got if e.text]
    assert (
        "Option A done." not in texts and "I'll try option A." not in texts
    )  # the abandoned branch
    assert not [e for e in got if e.call_id == "toolu_01"]
    assert [e.text for e in got if e.kind == "user"] == [
        "Rename the ledger module",
        "Use option B instead\n[image/png, 72 B]",
        "Again please, the file is books.py now",
    ]
    summary = next(e for e in got if e.kind == "compaction")
    assert (
        summary.extra == {"reason": "branch"}
        and summary.text
        and summary.text.startswith("Tried option A")
    )
    assert [e.seq for e in got] == list(range(len(got)))


def test_usage_counts_every_branch_as_pi_does() -> None:
    """pi's footer sums the usage of every entry in the file (getEntries): a turn `/tree`
    moved away from was paid for. Its responses are billed, marked as the abandoned
    branch's, and nothing else of it is shown."""
    got = events(sessions(Home.at(DATA / "home"))[LEDGER])
    kept = [e.usage for e in got if e.usage and "branch" not in e.extra]
    left = [e for e in got if e.usage and e.extra.get("branch") == "abandoned"]
    # option B's three responses; option A's two on the branch left behind
    assert sum(kept, start=Usage()) == Usage(40, 65, 700, 10, 0, "claude-sonnet-4-5")
    assert [(e.usage.input_tokens, e.usage.output_tokens) for e in left if e.usage] == [
        (10, 20),
        (12, 30),
    ]
    assert [e.seq for e in got] == list(range(len(got)))
    real = [e.usage for e in events(sessions(Home.at(DATA / "home"))[REAL]) if e.usage]
    assert (
        sum(real, start=Usage()) == Usage(4800, 120, 0, 0, 0, "mock-model")
        and len(real) == 4
    )


def test_errors_tool_failures_and_user_shell_commands() -> None:
    got = events(sessions(Home.at(DATA / "home"))[LEDGER])
    assert [e.text for e in got if e.kind == "error"] == [
        "error: overloaded_error: Overloaded"
    ]
    failed = next(e for e in got if e.kind == "tool_result" and e.call_id == "toolu_02")
    assert failed.is_error and failed.text == "File not found: ledger.py"
    bash = [e for e in got if e.call_id == "b1000006"]
    assert [(e.kind, e.tool) for e in bash] == [
        ("tool_call", "bash"),
        ("tool_result", None),
    ]
    assert bash[0].extra == {"input": {"command": "ls"}, "by_user": True}
    assert [e.extra.get("reason") for e in got if e.kind == "turn_end"] == ["stop"]


def test_titles_models_and_effort() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[LEDGER].title == "Ledger rename, option B"  # session_info.name
    assert (
        found[REAL].title
        == "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
    )
    assert (
        found[LEDGER].model,
        found[LEDGER].effort,
        found[LEDGER].extra["provider"],
    ) == (
        "claude-sonnet-4-5",
        "high",
        "anthropic",
    )
    assert found[REAL].branch is None and found[REAL].cli_version is None


def test_a_fork_is_the_users_own_session_naming_where_it_came_from() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[FORK].parent_id is None  # not a sub-agent: listed, counted
    assert found[FORK].extra["forked_from_id"] == LEDGER
    assert "forked_from_id" not in found[PUBLIC].extra


def test_a_fork_shows_the_entries_it_copied_and_bills_only_its_own(
    tmp_path: Path, run: CliRunner
) -> None:
    """pi's `forkFrom` (1.6.0 session-manager.js) writes a new header naming the source
    file, then the source's entries verbatim, times and usage included: the fork's own
    work comes after. `list` shows the fork, and `usage` counts each response once."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    for old in home.rglob(f"*_{FORK}.jsonl"):
        old.unlink()
    source = next(home.rglob(f"*_{LEDGER}.jsonl"))
    lines = source.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(id=FORK, timestamp="2026-11-22T08:00:00.000Z",
                  parentSession=str(source))  # fmt: skip
    last = json.loads(lines[-1])
    asked = {
        "type": "message",
        "id": "f0000001",
        "parentId": last["id"],
        "timestamp": "2026-11-22T08:00:05.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "Now on the fork"}],
        },
    }
    answer = {"type": "message", "id": "f0000002", "parentId": "f0000001",
              "timestamp": "2026-11-22T08:00:09.000Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": "Forked."}],
                          "provider": "openai", "model": "gpt-5.1-codex", "stopReason": "stop",
                          "usage": {"input": 700, "output": 70, "cacheRead": 0, "cacheWrite": 0}}}  # fmt: skip
    fork = source.with_name(f"2026-11-22T08-00-00-000Z_{FORK}.jsonl")
    fork.write_text(
        "\n".join(
            [json.dumps(header), *lines[1:], json.dumps(asked), json.dumps(answer)]
        )
        + "\n"
    )
    found = sessions(Home.at(home))
    assert found[FORK].parent_id is None and found[FORK].title == found[LEDGER].title
    copied = [e for e in events(found[LEDGER]) if e.kind == "assistant"]
    shown = [e.text for e in events(found[FORK]) if e.kind == "assistant"]
    assert shown == [e.text for e in copied] + ["Forked."]
    billed = [e.usage for e in events(found[FORK]) if e.kind == "usage"]
    assert [(u.input_tokens, u.model) for u in billed if u] == [(700, "gpt-5.1-codex")]
    listed = run.invoke(main, ["list", "--json", "--app", "pi", "--home", str(home)])
    assert FORK in {row["id"] for row in json.loads(listed.output)}
    counted = run.invoke(
        main, ["usage", "session", "--json", "--app", "pi", "--home", str(home)]
    )
    by_session = {row["key"]: row["input_tokens"] for row in json.loads(counted.output)}
    lead = sum(e.usage.input_tokens for e in events(found[LEDGER]) if e.usage)
    assert (by_session[LEDGER], by_session[FORK]) == (lead, 700)


def test_the_thinking_level_a_response_ran_at_is_the_sessions_effort(
    tmp_path: Path,
) -> None:
    """pi 1.x writes `thinkingLevel` on each assistant message (docs/message-types.md):
    the last response's level is what resume passes on, even with no
    `thinking_level_change` after it."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = next(home.rglob(f"*_{LEDGER}.jsonl"))
    last = [
        json.loads(line)
        for line in path.read_text().splitlines()
        if '"role":"assistant"' in line.replace(" ", "")
    ][-1]
    last["id"], last["parentId"] = "fffffff1", last["id"]
    last["message"]["thinkingLevel"] = "minimal"
    with path.open("a") as out:
        out.write(json.dumps(last) + "\n")
    assert sessions(Home.at(home))[LEDGER].effort == "minimal"


def test_a_fork_of_a_session_whose_id_holds_an_underscore_names_it_whole(
    tmp_path: Path,
) -> None:
    """`pi --session-id fix_login` (pi 1.x docs/cli.md allows `_` in an id): a fork of
    it names `fix_login`, not `login`."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    fork = next(home.rglob(f"*_{FORK}.jsonl"))
    lines = fork.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["parentSession"] = header["parentSession"].replace(
        f"_{LEDGER}.jsonl", "_fix_login.jsonl"
    )
    fork.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    assert sessions(Home.at(home))[FORK].extra["forked_from_id"] == "fix_login"


def test_compaction_keeps_its_summary() -> None:
    got = events(sessions(Home.at(DATA / "home"))[PUBLIC])
    compactions = [e for e in got if e.kind == "compaction"]
    assert [e.text for e in compactions] == ["hello.py prints a fixture greeting."] * 2
    assert compactions[0].extra == {"reason": "compaction", "tokens_before": 19}


def test_resume_opens_the_file_with_the_recorded_model() -> None:
    ledger = sessions(Home.at(DATA / "home"))[LEDGER]
    plan = pi.resume(ledger)
    assert plan is not None and ledger.path
    assert plan.argv == (
        "pi",
        "--session",
        ledger.path,
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-5",
        "--thinking",
        "high",
    )
    assert (plan.cwd, plan.program, plan.withheld) == (
        "/home/dev/code/ledger",
        "pi",
        (),
    )
    assert pi.resume(ledger, keep_permissions=True) == plan  # pi has no approval flags
    # the npm package pi 0.74 and later ship as (pi 1.6.0's README)
    assert plan.install_hint == "npm install -g @earendil-works/pi-coding-agent"


def test_a_linear_file_without_ids_is_read_whole(tmp_path: Path) -> None:
    path = (
        tmp_path
        / ".pi"
        / "agent"
        / "sessions"
        / "--tmp--"
        / "2025-01-01T00-00-00-000Z_v1.jsonl"
    )
    path.parent.mkdir(parents=True)
    lines = [
        {
            "type": "session",
            "id": "v1",
            "timestamp": "2025-01-01T00:00:00.000Z",
            "cwd": "/tmp",
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
                "stopReason": "stop",
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (session,) = pi.parse(path, pi.locate(Home.at(tmp_path)), Diagnostics())
    assert [e.kind for e in events(session)] == ["user", "assistant", "turn_end"]
    assert session.extra["format_version"] == 1


def test_a_format_2_hook_message_is_an_extensions_message(tmp_path: Path) -> None:
    """Format 2 named an extension's message `hookMessage`; format 3 renamed it `custom`
    (session-manager.ts migrateV2ToV3), but pi rewrites a file only when it opens it."""
    path = tmp_path / ".pi/agent/sessions/--tmp--/2025-12-28T00-00-00-000Z_v2.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 2, "id": "v2", "timestamp": "2025-12-28T00:00:00.000Z", "cwd": "/tmp"},
        {"type": "message", "id": "a1b2c3d4", "parentId": None, "timestamp": "2025-12-28T00:00:01.000Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1766880001000}},
        {"type": "message", "id": "b2c3d4e5", "parentId": "a1b2c3d4", "timestamp": "2025-12-28T00:00:02.000Z",
         "message": {"role": "hookMessage", "customType": "todo", "content": "2 todos open",
                     "display": True, "timestamp": 1766880002000}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    diagnostics = Diagnostics()
    (session,) = pi.parse(path, pi.locate(Home.at(tmp_path)), diagnostics)
    found = list(pi.read(session, diagnostics))
    assert [(e.kind, e.text) for e in found] == [
        ("user", "hi"),
        ("meta", "2 todos open"),
    ]
    assert found[1].extra["custom_type"] == "todo"
    assert not diagnostics.unknown


REAL_FILE = (
    DATA / "home/.pi/agent/sessions/--home-alex-code-shop-api--"
    / "2026-11-30T08-13-16-331Z_01a22b83-eeaa-75d4-a59d-adc5e4fb9817.jsonl"
)  # fmt: skip


def test_a_session_folder_of_the_users_choice_is_listed(tmp_path: Path) -> None:
    """pi 0.73 writes session files flat into `PI_CODING_AGENT_SESSION_DIR`, else into the
    `sessionDir` setting of ~/.pi/agent/settings.json (`~` is the home)."""
    home = tmp_path / "home"
    chosen = home / "pi-sessions"
    chosen.mkdir(parents=True)
    (chosen / REAL_FILE.name).write_bytes(REAL_FILE.read_bytes())
    assert sessions(Home.at(home)) == {}
    settings = home / ".pi" / "agent" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"sessionDir": "~/pi-sessions", "theme": "dark"}))
    assert list(sessions(Home.at(home))) == [REAL]
    settings.unlink()
    elsewhere = tmp_path / "elsewhere"
    chosen.rename(elsewhere)
    moved = Home(Home.at(home).path, {"PI_CODING_AGENT_SESSION_DIR": str(elsewhere)})
    assert list(sessions(moved)) == [REAL]
    assert "PI_CODING_AGENT_SESSION_DIR" in (pi.locate(moved).override or "")


def test_an_empty_name_clears_the_title_and_the_routed_model_is_billed(
    tmp_path: Path,
) -> None:
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    named = {"type": "session_info", "id": "n1", "parentId": last,
             "timestamp": lines[-1]["timestamp"], "name": "Checkout retry work"}  # fmt: skip
    cleared = dict(named, id="n2", parentId="n1", name="")
    for line in lines:
        message = line.get("message", {})
        if message.get("role") == "assistant":
            message.update(
                model="openrouter/auto", responseModel="anthropic/claude-sonnet-4.5"
            )
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    path = folder / REAL_FILE.name
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, named]))
    assert sessions(Home.at(tmp_path))[REAL].title == "Checkout retry work"
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, named, cleared])
    )
    session = sessions(Home.at(tmp_path))[REAL]
    assert session.title and session.title.startswith("SCENARIO=basic")
    models = {e.usage.model for e in events(session) if e.usage}
    assert models == {"anthropic/claude-sonnet-4.5"}


def test_model_work_outside_assistant_messages_is_billed(tmp_path: Path) -> None:
    """pi's session-format.md (earendil-works/pi): a tool result may carry the `usage` of
    model work the tool did, and a compaction or branch summary the `usage` of writing
    the summary; `retainedTail` repeats messages already counted."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    spend = {"input": 5000, "output": 800, "cacheRead": 0, "cacheWrite": 0}
    compaction = {"type": "compaction", "id": "c1", "parentId": last, "timestamp": stamp,
                  "summary": "Ran the greeting twice.", "tokensBefore": 50000, "usage": spend,
                  "retainedTail": [{"role": "assistant", "content": [], "usage": spend}]}  # fmt: skip
    tool = {"type": "message", "id": "t1", "parentId": "c1", "timestamp": stamp,
            "message": {"role": "toolResult", "toolCallId": "x", "content": [{"type": "text", "text": "ok"}],
                        "usage": {"input": 300, "output": 40}}}  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    (folder / REAL_FILE.name).write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, compaction, tool])
    )
    before = sum(
        (e.usage for e in events(sessions(Home.at(DATA / "home"))[REAL]) if e.usage),
        Usage(),
    )
    found = events(sessions(Home.at(tmp_path))[REAL])
    after = sum((e.usage for e in found if e.usage), Usage())
    assert (
        after.input_tokens - before.input_tokens,
        after.output_tokens - before.output_tokens,
    ) == (5300, 840)
    assert {e.usage.model for e in found if e.usage} == {"mock-model"}


def test_newer_pi_instructions_thinking_max_and_reasoning_tokens(
    tmp_path: Path,
) -> None:
    """pi-ai (earendil-works/pi, 2026): a `developer` (or `system`) message holds
    instructions the harness gave the model, not the user's words; thinking goes up to
    `max`, which resume passes on; `usage.reasoning` is the part of `output` spent
    thinking."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    level = {"type": "thinking_level_change", "id": "k1", "parentId": last,
             "timestamp": stamp, "thinkingLevel": "max"}  # fmt: skip
    told = {"type": "message", "id": "d1", "parentId": "k1", "timestamp": stamp,
            "message": {"role": "developer", "content": "Answer in French.", "timestamp": 1}}  # fmt: skip
    answer = {"type": "message", "id": "a1", "parentId": "d1", "timestamp": stamp,
              "message": {"role": "assistant", "content": [{"type": "text", "text": "Oui."}],
                          "model": "mock-model", "provider": "mock", "stopReason": "stop",
                          "usage": {"input": 10, "output": 90, "reasoning": 80,
                                    "cacheRead": 0, "cacheWrite": 0}}}  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    (folder / REAL_FILE.name).write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, level, told, answer])
    )
    session = sessions(Home.at(tmp_path))[REAL]
    diagnostics = Diagnostics()
    found = events(session, diagnostics)
    assert not diagnostics.unknown
    said = next(e for e in found if e.text == "Answer in French.")
    assert said.kind == "meta" and said.extra["injected"] is True
    assert "Answer in French." not in [e.text for e in found if e.kind == "user"]
    spent = [e.usage for e in found if e.usage and e.usage.output_tokens == 90]
    assert [u.reasoning_tokens for u in spent] == [80]
    plan = pi.resume(session)
    assert plan is not None and plan.argv[-2:] == ("--thinking", "max")


def format_4(tmp_path: Path, *, records: bool) -> tuple[Path, str]:
    """A format 4 change log as pi-agent-core's codec writes it (jsonl/codec.ts): a first
    answer abandoned for a second (the main lane's leaf moved), a name, and, with
    `records`, usage records (one per billed call, a tool's included)."""
    sid = "019a0000-0000-7000-8000-000000000001"
    ms = 1790000000000
    usage = {
        "input": 100,
        "output": 20,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 120,
    }

    def entry(
        eid: str, parent: str | None, seq: int, **fields: object
    ) -> dict[str, object]:
        return {
            "kind": "entry",
            "lane": "main",
            "type": "message",
            "id": eid,
            "parentId": parent,
            "seq": seq,
            "timestamp": ms + seq * 1000,
            **fields,
        }

    def said(role: str, text: str, **more: object) -> dict[str, object]:
        return {
            "role": role,
            "content": [{"type": "text", "text": text}],
            "timestamp": ms,
            **more,
        }

    assistant = {
        "model": "claude-sonnet-4-5",
        "provider": "anthropic",
        "usage": usage,
        "stopReason": "stop",
    }
    lines: list[dict[str, object]] = [
        {"kind": "header", "version": 4, "id": sid, "createdAt": ms, "cwd": "/home/dev/api"},
        entry("u1", None, 1, message=said("user", "Add a health route")),
        entry("a1", "u1", 2, message=said("assistant", "First try", **assistant)),
        entry("a2", "u1", 4, message=said("assistant", "Done: GET /health", **assistant)),
        {"kind": "lane", "seq": 5, "lane": "main", "leafId": "a2"},
        {"kind": "fact", "seq": 6, "fact": "name", "name": "Health route"},
        {"kind": "entry", "lane": "main", "type": "active_tools_change", "id": "t1",
         "parentId": "a2", "seq": 7, "timestamp": ms + 7000, "activeToolNames": ["read"]},
    ]  # fmt: skip
    if records:
        lines += [
            {"kind": "record", "id": "r1", "lane": "main", "type": "usage", "seq": 8,
             "timestamp": ms + 8000, "cause": "assistant", "runId": "run1",
             "entryId": "a2", "attempt": 1, "stopReason": "stop", "usage": usage},
            {"kind": "record", "id": "r2", "lane": "main", "type": "usage", "seq": 9,
             "timestamp": ms + 9000, "cause": "tool", "runId": "run1", "entryId": "a2",
             "toolCallId": "c1", "usage": {"input": 50, "output": 5}},
            {"kind": "record", "id": "r3", "lane": "main", "type": "operation_finished",
             "seq": 10, "timestamp": ms + 9500, "runId": "run1", "outcome": "completed"},
        ]  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-dev-api--"
    folder.mkdir(parents=True)
    path = folder / f"2026-09-21T10-00-00-000Z_{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, sid


def test_a_format_4_file_is_listed_and_read(tmp_path: Path) -> None:
    """pi-agent-core's harness (the SDK) writes format 4 into the same folders: listed
    (its name, folder, start and model), read along the main lane's leaf, billed by its
    usage records (a tool's model call too), and not resumed by the CLI, which opens
    format 3 only."""
    _path, sid = format_4(tmp_path, records=True)
    session = sessions(Home.at(tmp_path))[sid]
    assert (session.title, session.cwd, session.model) == (
        "Health route",
        "/home/dev/api",
        "claude-sonnet-4-5",
    )
    assert session.created is not None and session.created.year == 2026
    diagnostics = Diagnostics()
    found = events(session, diagnostics)
    assert not diagnostics.unknown and not diagnostics.skipped
    assert [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")] == [
        ("user", "Add a health route"),
        ("assistant", "Done: GET /health"),
    ]
    billed = [e.usage for e in found if e.usage]
    assert [(u.input_tokens, u.output_tokens, u.model) for u in billed] == [
        (100, 20, "claude-sonnet-4-5"),
        (50, 5, "claude-sonnet-4-5"),
    ]
    assert pi.resume(session) is None


def test_a_format_4_file_without_usage_records_bills_its_messages(
    tmp_path: Path,
) -> None:
    _path, sid = format_4(tmp_path, records=False)
    found = events(sessions(Home.at(tmp_path))[sid])
    assert [
        (u.input_tokens, u.output_tokens) for u in (e.usage for e in found) if u
    ] == [(100, 20), (100, 20)]  # the first answer, left behind, was billed too


def test_a_name_given_mid_session_is_found_between_the_ends(tmp_path: Path) -> None:
    """pi writes a session's name once (`session_info`, `/name`) and its list shows the
    newest; in a long session it can sit between the first lines and the last 512 KiB
    that listing reads: it is searched for there, newest first."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    head_padding = [
        {"type": "custom", "customType": "note", "id": f"h{n}", "parentId": last,
         "timestamp": stamp, "data": {}}
        for n in range(100)
    ]  # fmt: skip
    older = {"type": "session_info", "id": "n0", "parentId": last, "timestamp": stamp,
             "name": "An older name"}  # fmt: skip
    named = dict(older, id="n1", name="Checkout retry work")
    later = [
        {"type": "message", "id": f"p{n}", "parentId": "n1", "timestamp": stamp,
         "message": {"role": "user", "content": [{"type": "text", "text": "x" * 8000}]}}
        for n in range(100)
    ]  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    path = folder / REAL_FILE.name
    records = [*lines, *head_padding, older, named, *later]
    path.write_text("".join(json.dumps(line) + "\n" for line in records))
    assert path.stat().st_size > 700_000
    assert sessions(Home.at(tmp_path))[REAL].title == "Checkout retry work"
    # a long session's middle is searched whole: pi's own list reads the whole file
    with path.open("a") as out:
        for n in range(4_500):
            out.write(json.dumps(dict(later[0], id=f"q{n}")) + "\n")
    assert path.stat().st_size > 34 * 1024 * 1024  # a middle past 32 MiB
    assert sessions(Home.at(tmp_path))[REAL].title == "Checkout retry work"


def test_a_turn_the_user_aborted_is_an_interruption_not_a_failure(
    tmp_path: Path,
) -> None:
    """On Esc pi records the cut answer with `stopReason: "aborted"` (agent.ts); only
    "error" is a failure (and what its auto-retry retries)."""
    import json
    import shutil

    from sessdex.status import Tracker, decide
    from sessdex.tree import build_tree

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [path] = home.rglob(f"*_{REAL}.jsonl")
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    last["message"].update(
        content=[{"type": "text", "text": "Let me"}],
        stopReason="aborted",
        errorMessage="Request was aborted",
    )
    path.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    got = events(sessions(Home.at(home))[REAL])
    assert [(e.kind, e.extra.get("interrupted")) for e in got[-2:]] == [
        ("meta", None),
        ("turn_end", True),
    ]
    assert not [e for e in got if e.kind == "error"]
    tracker = Tracker()
    for e in got:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    at = max(e.time.timestamp() for e in got if e.time)
    assert decide(tracker, at + 5, at, True).status == "waiting_for_user"
    assert build_tree(REAL, got).status == "done"


def test_usage_entries_are_billed(tmp_path: Path) -> None:
    """pi 1.x (@earendil-works/pi-coding-agent 1.6.0, docs/session-format.md and
    dist/core/session-manager.d.ts `UsageEntry`): a `usage` entry records model work that
    is no message, such as `cache_warm` keeping the prompt cache alive; pi counts it in
    the session's totals, on any branch."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    warm = {"type": "usage", "id": "w1", "parentId": last, "timestamp": stamp,
            "kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 0, "output": 0, "cacheRead": 50000, "cacheWrite": 0,
                      "totalTokens": 50000}}  # fmt: skip
    # the same, on a branch `/tree` moved away from (its parent is the first entry)
    left = {**warm, "id": "w2", "parentId": lines[1]["id"],
            "usage": {"input": 0, "output": 0, "cacheRead": 700, "cacheWrite": 0}}  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    leaf = {
        **lines[-1],
        "id": "z9",
        "parentId": "w1",
    }  # the conversation goes on after it
    (folder / REAL_FILE.name).write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, warm, left, leaf])
    )
    diagnostics = Diagnostics()
    found = events(sessions(Home.at(tmp_path))[REAL], diagnostics)
    assert not diagnostics.unknown
    warmed = [e for e in found if e.usage and e.usage.cache_read_tokens in (50000, 700)]
    assert [(e.usage.cache_read_tokens, e.usage.model) for e in warmed if e.usage] == [
        (50000, "claude-sonnet-4-5"),
        (700, "claude-sonnet-4-5"),
    ]
    assert warmed[0].extra["usage_kind"] == "cache_warm"
    assert warmed[1].extra["branch"] == "abandoned"


def test_a_context_edit_is_a_note_and_the_entry_stays(tmp_path: Path) -> None:
    """pi 1.x (@earendil-works/pi-coding-agent 1.6.0, docs/session-format.md
    `ContextEditEntry`): `context_edit` hides (`replacement: null`) or rewrites an earlier
    entry for the model's later requests; the raw entry is unchanged."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    user = next(line for line in lines if line.get("message", {}).get("role") == "user")
    hide = {"type": "context_edit", "id": "e1", "parentId": last, "timestamp": stamp,
            "targetId": user["id"], "replacement": None}  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    (folder / REAL_FILE.name).write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, hide])
    )
    diagnostics = Diagnostics()
    found = events(sessions(Home.at(tmp_path))[REAL], diagnostics)
    assert not diagnostics.unknown
    note = found[-1]
    assert note.kind == "meta"
    assert note.extra == {"context_edit": user["id"], "omitted": True}
    assert [e.kind for e in found].count("user") == [
        e.kind for e in events(sessions(Home.at(DATA / "home"))[REAL])
    ].count("user")


def test_a_system_message_names_the_prompt_sections_and_tools_it_sets(
    tmp_path: Path,
) -> None:
    """pi 1.x (@earendil-works/pi-coding-agent 1.6.0, docs/session-format.md and
    docs/message-types.md `SystemMessage`): the first request persists a `system` message
    with empty `content`, the prompt in named `sections` and the tools in `toolsAdded`;
    later ones patch sections and list `toolsRemoved`."""
    lines = [json.loads(line) for line in REAL_FILE.read_text().splitlines()]
    last = lines[-1]["id"]
    stamp = lines[-1]["timestamp"]
    loadout = {"type": "message", "id": "s1", "parentId": last, "timestamp": stamp,
               "message": {"role": "system", "content": "", "timestamp": 1,
                           "sections": {"preamble": "You are an expert coding assistant.",
                                        "cwd": "/project", "skills": None},
                           "toolsAdded": [{"name": "read", "description": "...",
                                           "parameters": {}}],
                           "toolsRemoved": [{"name": "write"}]}}  # fmt: skip
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-alex-code-shop-api--"
    folder.mkdir(parents=True)
    (folder / REAL_FILE.name).write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines, loadout])
    )
    note = events(sessions(Home.at(tmp_path))[REAL])[-1]
    assert (note.kind, note.extra["injected"]) == ("meta", True)
    assert note.text == (
        "prompt sections: cwd, preamble, skills; tools added: read; removed: write"
    )


def _append_turn(path: Path, entries: list[dict[str, object]]) -> None:
    """Entries chained after the file's last one, one second apart from a minute later."""
    from datetime import datetime, timedelta

    last = json.loads(path.read_text().splitlines()[-1])
    parent, at = last["id"], datetime.fromisoformat(last["timestamp"])
    with path.open("a") as out:
        for n, entry in enumerate(entries):
            when = at + timedelta(seconds=60 + n)
            stamp = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            line = {"type": "message", "id": f"d{n:07x}", "parentId": parent}
            line.update(timestamp=stamp, **entry)
            out.write(json.dumps(line) + "\n")
            parent = line["id"]


def _assistant(stop: str, content: list[object], **more: object) -> dict[str, object]:
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    message = {
        "role": "assistant",
        "content": content,
        "api": "openai-responses",
        "provider": "openai",
        "model": "gpt-5.5",
        "usage": dict(zero, cost=dict.fromkeys(("input", "output", "total"), 0)),
        "stopReason": stop,
        "timestamp": 0,
    }
    return {"message": dict(message, **more)}


def _statuses(got: list[Event], *checks: tuple[float, bool | None]) -> list[str]:
    from sessdex.status import Tracker, decide

    tracker = Tracker()
    for e in got:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    at = max(e.time.timestamp() for e in got if e.time)
    return [decide(tracker, at + after, at, alive).status for after, alive in checks]


def test_a_deferred_answer_keeps_the_turn_open(tmp_path: Path) -> None:
    """pi-ai 0.85's `stopReason: "deferred"`: the provider took the request to answer later
    and left a handle (`deferred`) to poll; pi-agent-core's harness suspends the run and
    polls, writing a poll that finds no answer yet as another deferred message (empty
    content, no usage) and the answer as a later message. No turn ends, nothing waits on
    the user: the session works while pi runs, and is idle, not ended, when pi is gone."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [path] = home.rglob(f"*_{REAL}.jsonl")
    handle = {"provider": "openai", "modelId": "gpt-5.5", "api": "openai-responses"}
    handle.update(id="resp_0a1b2c", pollAfterMs=5000)
    prompt = {"role": "user", "content": "Summarise the failing checkout tests"}
    _append_turn(
        path,
        [
            {"message": dict(prompt, timestamp=0)},
            _assistant("deferred", [], deferred=handle),
            _assistant("deferred", [], deferred=handle),  # polled: not ready yet
        ],
    )
    got = events(sessions(Home.at(home))[REAL])
    kinds = [e.kind for e in got]
    turn = got[len(kinds) - 1 - kinds[::-1].index("user") :]
    assert [(e.kind, e.extra.get("deferred")) for e in turn if e.kind != "usage"] == [
        ("user", None),
        ("meta", True),
        ("meta", True),
    ]
    assert "deferred" in (turn[-1].text or "")
    # just written; pi runs 20 minutes on; pi gone 5 minutes; no process information
    assert _statuses(got, (2, None), (1200, True), (300, False), (600, None)) == [
        "working",
        "working",
        "idle",
        "idle",
    ]
    # the poll that brings the answer ends the turn
    _append_turn(
        path, [_assistant("stop", [{"type": "text", "text": "Two tests fail."}])]
    )
    got = events(sessions(Home.at(home))[REAL])
    assert [e.kind for e in got[-3:]] == ["assistant", "usage", "turn_end"]
    assert _statuses(got, (5, True)) == ["waiting_for_user"]


def test_a_response_cut_at_the_output_limit_with_tool_calls_goes_on(
    tmp_path: Path,
) -> None:
    """pi's agent loop runs none of the tool calls of a response cut at the output limit
    (`stopReason: "length"`): it returns each as an error result and asks the model again.
    The turn goes on, so the session is working, not waiting for the user."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [path] = home.rglob(f"*_{REAL}.jsonl")
    call = {"type": "toolCall", "id": "call_7", "name": "write"}
    call["arguments"] = {"path": "notes.md", "content": "Two tests fa"}
    refused = (
        'Tool call "write" was not executed: the response hit the output token limit'
    )
    _append_turn(
        path,
        [
            {"message": {"role": "user", "content": "Write it down", "timestamp": 0}},
            _assistant("length", [call]),
            {
                "message": {
                    "role": "toolResult",
                    "toolCallId": "call_7",
                    "toolName": "write",
                    "content": [{"type": "text", "text": refused}],
                    "isError": True,
                    "timestamp": 0,
                }
            },
        ],
    )
    got = events(sessions(Home.at(home))[REAL])
    assert [e.kind for e in got[-4:]] == ["user", "tool_call", "usage", "tool_result"]
    assert _statuses(got, (5, True)) == ["working"]
    # cut short with no tool call, the answer is all there is: the turn ended
    _append_turn(path, [_assistant("length", [{"type": "text", "text": "Two tests"}])])
    got = events(sessions(Home.at(home))[REAL])
    assert got[-1].kind == "turn_end" and got[-1].extra["reason"] == "length"


def test_a_stop_reason_of_a_newer_pi_is_shown_and_counted(tmp_path: Path) -> None:
    """A stopReason sessdex does not know (a newer pi's, or a value of the wrong type)
    keeps the response's text and is counted for `doctor`, never a crash."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [path] = home.rglob(f"*_{REAL}.jsonl")
    said = [{"type": "text", "text": "Parked until the batch runs."}]
    _append_turn(
        path,
        [
            {"message": {"role": "user", "content": "Run it later", "timestamp": 0}},
            _assistant("scheduled", said),
            _assistant(["odd"], said),  # type: ignore[arg-type]
        ],
    )
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(home))[REAL], diagnostics)
    assert [e.text for e in got if e.kind == "assistant"][-2:] == [said[0]["text"]] * 2
    assert diagnostics.unknown == {"stopReason:scheduled": 1, "stopReason:<array>": 1}


def test_a_format_4_entry_appended_to_a_lane_moves_its_leaf(tmp_path: Path) -> None:
    """pi-agent-core appends an entry to a lane (`appendEntry`: `{"kind": "entry", "lane",
    …}`, its parent the lane's leaf) and the lane's leaf is then that entry: no `lane`
    record follows. Entries appended after an explicit pointer (`moveLane`, a fork's
    `appendForkLane`) are on the conversation, not left out as another branch."""
    path, sid = format_4(tmp_path, records=False)
    more = [
        {"kind": "entry", "lane": "main", "type": "message", "id": "u2", "parentId": "t1",
         "seq": 11, "timestamp": 1790000011000,
         "message": {"role": "user", "content": [{"type": "text", "text": "And a test"}],
                     "timestamp": 1790000011000}},
        {"kind": "entry", "lane": "main", "type": "message", "id": "a3", "parentId": "u2",
         "seq": 12, "timestamp": 1790000012000,
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Test added"}],
                     "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": 1790000012000}},
    ]  # fmt: skip
    with path.open("a") as out:
        out.write("".join(json.dumps(line) + "\n" for line in more))
    found = events(sessions(Home.at(tmp_path))[sid])
    said = [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")]
    assert said[-2:] == [("user", "And a test"), ("assistant", "Test added")]
    assert ("assistant", "Done: GET /health") in said
