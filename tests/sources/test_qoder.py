"""Qoder CLI: Claude-Code-shaped transcripts under ~/.qoder/projects, read by the claude reader."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import Home, qoder

DATA = Path(__file__).parent.parent / "data" / "qoder"
PROJECT = Path(".qoder") / "projects" / "-home-alex-code-shop-api"
LEAD = "3b1f6c2e-8a4d-4f0e-9c7b-2d5e8f1a6b90"
OTHER = "7c2a9e41-5d3b-4a6f-8e1c-0b9d7f3a2e58"
AGENT = "a4f2c9e1b7d3"


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = qoder.locate(home)
    found: dict[str, Session] = {}
    for path in qoder.scan(location):
        for session in qoder.parse(Path(path), location, diagnostics or Diagnostics()):
            found[session.id] = session
    return found


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(qoder.read(session, diagnostics or Diagnostics()))


def test_sessions_are_listed_as_qoder_with_title_folder_branch_model_and_sub_agent() -> (
    None
):
    found = sessions(Home.at(DATA / "home"))
    assert sorted(found) == sorted([LEAD, OTHER, AGENT])
    assert {session.app for session in found.values()} == {"qoder"}
    lead = found[LEAD]
    assert lead.title == "Health endpoint for the API"  # its ai-title
    assert (lead.cwd, lead.branch, lead.model) == (
        "/home/alex/code/shop-api",
        "feature/health",
        "Qoder performance tier",
    )
    assert found[OTHER].title == "Build failure"  # a custom title beats all
    agent = found[AGENT]
    assert (agent.parent_id, agent.agent_type, agent.title) == (
        LEAD,
        "explorer",
        "Find the tests",
    )


def test_the_config_folder_follows_qoders_variables(tmp_path: Path) -> None:
    home = tmp_path / "user"
    assert qoder.locate(Home(home, {})).root == home / ".qoder"
    moved = qoder.locate(Home(home, {"QODER_CONFIG_DIR": str(tmp_path / "cfg")}))
    assert moved.root == tmp_path / "cfg"
    assert moved.override == f"QODER_CONFIG_DIR={tmp_path / 'cfg'}"
    cli_home = {"QODER_CLI_HOME": str(tmp_path / "q"), "GEMINI_CLI_HOME": "/elsewhere"}
    assert qoder.locate(Home(home, cli_home)).root == tmp_path / "q" / ".qoder"
    gemini = {"GEMINI_CLI_HOME": str(tmp_path / "g")}
    assert qoder.locate(Home(home, gemini)).root == tmp_path / "g" / ".qoder"
    renamed = {"QODER_CONFIG_DIR_NAME": ".qoder-work"}
    assert qoder.locate(Home(home, renamed)).root == home / ".qoder-work"
    # a name with a separator Qoder refuses (and stops): its default is where sessions are
    assert qoder.locate(Home(home, {"QODER_CONFIG_DIR_NAME": "../x"})).root == (
        home / ".qoder"
    )


def test_a_turn_reads_with_thinking_paired_calls_usage_and_the_sub_agent_inline() -> (
    None
):
    found = sessions(Home.at(DATA / "home"))
    diagnostics = Diagnostics()
    read = events(found[LEAD], diagnostics)
    kinds = [event.kind for event in read]
    assert kinds[0] == "user" and read[0].text == "Add a /health endpoint to the API"
    assert "thinking" in kinds and "subagent" in kinds and "turn_end" in kinds
    calls = {e.call_id: e for e in read if e.kind == "tool_call"}
    results = {e.call_id: e for e in read if e.kind == "tool_result"}
    assert set(calls) == set(results) == {"call_read", "call_task"}
    assert calls["call_read"].extra["input"] == {
        "file_path": "/home/alex/code/shop-api/app.py"
    }
    spawn = next(e for e in read if e.kind == "subagent")
    assert spawn.extra["child_id"] == AGENT
    assert any(e.agent_id == AGENT and e.kind == "assistant" for e in read)
    usage = [e for e in read if e.kind == "usage"]
    assert len(usage) == 4  # three lead responses and the sub-agent's, each once
    assert all(
        e.usage is not None and e.usage.model == "Qoder performance tier" for e in usage
    )
    # Qoder's own bookkeeping (mode, workspace-directories, runtime-config, token-stats,
    # active-leaf) is no unknown record type
    assert not diagnostics.unknown


def test_a_transcript_whose_lines_name_no_folder_takes_its_workspace(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    transcript = home / PROJECT / f"{LEAD}.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    for line in lines:
        line.pop("cwd", None)
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = sessions(Home.at(home))[LEAD]
    assert found.cwd == "/home/alex/code/shop-api"  # its workspace-directories record
    plan = qoder.resume(found)
    assert plan is not None and plan.cwd == "/home/alex/code/shop-api"


def test_a_compaction_is_one_event() -> None:
    read = events(sessions(Home.at(DATA / "home"))[OTHER])
    assert [e.kind for e in read].count("compaction") == 1


def test_an_unknown_record_type_is_counted_not_raised(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    transcript = home / PROJECT / f"{OTHER}.jsonl"
    with transcript.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "qoder-future-thing", "sessionId": OTHER}) + "\n")
    diagnostics = Diagnostics()
    assert events(sessions(Home.at(home))[OTHER], diagnostics)
    assert sum(diagnostics.unknown.values()) == 1
    assert next(iter(diagnostics.unknown)).startswith("qoder-future-thing")


def test_resume_is_qodercli_resume_in_its_folder_never_loosened() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = qoder.resume(found[LEAD])
    assert plan is not None
    assert plan.argv == ("qodercli", "--resume", LEAD, "--permission-mode", "default")
    assert plan.cwd == "/home/alex/code/shop-api"
    loose = qoder.resume(found[OTHER])  # recorded bypass_permissions
    assert loose is not None
    assert loose.argv == ("qodercli", "--resume", OTHER)
    assert loose.withheld == ("--permission-mode bypass_permissions",)
    kept = qoder.resume(found[OTHER], keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == (
        "--permission-mode",
        "bypass_permissions",
    )
    assert "--dangerously-skip-permissions" not in kept.argv
    strict = qoder.resume(dataclasses.replace(found[LEAD], permission_mode="dontAsk"))
    assert strict is not None and strict.argv[-1] == "dont_ask"  # Qoder's spelling
    odd = qoder.resume(dataclasses.replace(found[LEAD], permission_mode="plan"))
    assert odd is not None and "--permission-mode" not in odd.argv and odd.notes
    assert qoder.resume(found[AGENT]) is None  # its lead is the one to reopen


def test_resume_prints_a_quoted_command() -> None:
    result = CliRunner().invoke(
        main, ["resume", "--home", str(DATA / "home"), "--print", LEAD[:8]]
    )
    assert f"cd /home/alex/code/shop-api && qodercli --resume {LEAD}" in result.output


def test_a_running_qodercli_names_the_session_it_has_open() -> None:
    opened = qoder.process_session(["qodercli", "--resume", LEAD])
    assert opened is not None and opened.session_id == LEAD
    latest = qoder.process_session(["qodercli", "-c"])
    assert latest is not None and latest.latest
    assert qoder.process_session(["qodercli"]) is None


def test_files_beside_the_transcripts_are_never_listed() -> None:
    listed = list(qoder.scan(qoder.locate(Home.at(DATA / "home"))))
    assert all("/projects/" in path for path in listed)
    assert not any(path.endswith(("settings.json", "4242.json")) for path in listed)


def test_malformed_transcripts_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(Home.at(DATA / "malformed" / "home"), diagnostics)
    for session in found.values():
        list(qoder.read(session, diagnostics))
    assert "9d0e1f2a-0000-4000-8000-000000000001" in found
    assert found["9d0e1f2a-0000-4000-8000-000000000001"].title == "Fix the login page"


def _credits_only(home: Path) -> Path:
    """A Qoder session as Qoder writes it by default: every token count 0, credits set
    (its transcript writer zeroes the counts unless QODER_EXPOSE_TOKEN_USAGE is on)."""
    zero = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 0,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": 0,
            "ephemeral_5m_input_tokens": 0,
        },
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
        "credits": 1.25,
        "original_credits": 1.5,
        "billable": True,
    }
    common = {
        "isSidechain": False,
        "cwd": "/home/alex/code/shop-api",
        "sessionId": LEAD,
    }
    common |= {"userType": "external", "entrypoint": "cli", "version": "1.1.52"}
    prompt = {"parentUuid": None, "type": "user", "uuid": "u1", **common}
    prompt |= {"timestamp": "2026-12-03T10:00:00.000Z", "permissionMode": "default"}
    prompt["message"] = {"role": "user", "content": "Rename the health route"}
    message = {"id": "msg_c1", "type": "message", "role": "assistant"}
    message |= {"model": "efficient", "stop_reason": "end_turn", "stop_sequence": None}
    message |= {"usage": zero, "content": [{"type": "text", "text": "Renamed."}]}
    answer = {"parentUuid": "u1", "type": "assistant", "uuid": "a1", **common}
    answer |= {"timestamp": "2026-12-03T10:00:04.000Z", "message": message}
    transcript = home / PROJECT / f"{LEAD}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(
        "".join(
            json.dumps(line, separators=(",", ":")) + "\n" for line in (prompt, answer)
        )
    )
    return transcript


def test_a_response_qoder_wrote_no_token_count_for_counts_its_credits_never_at_zero(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    transcript = _credits_only(home)
    scan = qoder.usage_records(transcript, Diagnostics(), explain=True)
    # its credits (what Qoder billed, not `original_credits`) are its measure
    assert [(r.usage.total, r.usage.credits) for r in scan.records] == [(0, 1.25)]
    assert scan.dropped == []
    result = CliRunner().invoke(main, ["usage", "--home", str(home), "--json"])
    (row,) = json.loads(result.output)
    assert (row["credits"], row["cost_usd"]) == ({"qoder": 1.25}, None)
    result = CliRunner().invoke(main, ["usage", "--home", str(home)])
    day = next(line for line in result.output.splitlines() if "2026-12-03" in line)
    assert "in credits" in day and "$0.00" not in day and "1.25" in day
    assert "Credits (qoder)" in result.output  # the column names whose credits
    billed = [e.usage for e in events(sessions(Home.at(home))[LEAD]) if e.usage]
    assert [(u.total, u.credits) for u in billed] == [(0, 1.25)]


def test_a_qoder_tier_is_named_as_a_tier_and_a_users_own_model_as_written(
    tmp_path: Path,
) -> None:
    """Qoder writes the tier picked (`performance`, `auto`, …) where a model would be:
    `list`, `show`, `usage` and `usage --json` name it as Qoder's tier, not as a model; a
    model of the user's own keeps its name."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    result = CliRunner().invoke(main, ["usage", "model", "--json", "--home", str(home)])
    [row] = json.loads(result.stdout)
    # usage spells a display name as every report does (lower case, dashes for spaces)
    assert row["key"] == "qoder-performance-tier"
    assert row["models"] == row["unpriced_models"] == ["qoder-performance-tier"]
    listed = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    assert {s["model"] for s in json.loads(listed.stdout)} == {"Qoder performance tier"}
    transcript = home / PROJECT / f"{OTHER}.jsonl"
    transcript.write_text(
        transcript.read_text().replace('"performance"', '"qwen3-coder-plus"')
    )
    (other,) = [s for s in sessions(Home.at(home)).values() if s.id == OTHER]
    assert other.model == "qwen3-coder-plus"
    usage = [e for e in events(other) if e.kind == "usage"]
    assert usage and all(e.usage and e.usage.model == "qwen3-coder-plus" for e in usage)
    assert qoder.shown_model("auto") == "Qoder auto tier"
    # watch reads the tier the same way
    (lead,) = [s for s in sessions(Home.at(home)).values() if s.id == LEAD]
    follow = qoder.follow(lead, Diagnostics())
    first = follow.files(set())[0]
    reader = follow.reader(first, 0)
    with open(first.path, "rb") as stream:
        live = [e for line in files.iter_lines(stream) for e in reader(line) if e.usage]
    assert live and {e.usage.model for e in live if e.usage} == {
        "Qoder performance tier"
    }


def test_a_summary_another_transcript_opens_with_is_no_title(tmp_path: Path) -> None:
    """Claude Code 1.0 wrote a conversation's summary at the head of the next transcript,
    and the claude reader looks for one for a 1.x file; Qoder's 1.1.x versions are no
    Claude 1.0, and write a summary in the session's own file."""
    home = tmp_path / "home"
    _credits_only(home)
    other = home / PROJECT / "5e1f0c2a-1111-4222-8333-944455556666.jsonl"
    summary = {"type": "summary", "leafUuid": "a1", "summary": "Some other chat"}
    other.write_text(json.dumps(summary, separators=(",", ":")) + "\n")
    assert sessions(Home.at(home))[LEAD].title == "Rename the health route"


def test_the_china_editions_folder_is_read_and_resumes_with_its_own_program(
    tmp_path: Path,
) -> None:
    """Qoder's China build keeps `~/.qoder-cn` (its `QODERCN_` variables) and runs as
    `qoderclicn`; the global build's folder beside it is read as before."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home" / ".qoder", home / ".qoder-cn")
    shutil.copytree(DATA / "home" / ".qoder" / "projects", home / ".qoder" / "projects")
    moved = home / ".qoder" / "projects" / PROJECT.name / f"{OTHER}.jsonl"
    moved.unlink()
    found = sessions(Home(home, {}))
    assert sorted(found) == sorted([LEAD, OTHER, AGENT])
    plan = qoder.resume(found[OTHER])  # only in the China edition's folder
    assert plan is not None and plan.argv[:2] == ("qoderclicn", "--resume")
    assert "qodercn-ai" in plan.install_hint
    lead = qoder.resume(found[LEAD])
    assert lead is not None and lead.program in ("qodercli", "qoderclicn")
    china = {"QODERCN_CONFIG_DIR": str(tmp_path / "cn")}
    assert qoder.locate(Home(home, china)).also == (tmp_path / "cn",)
    assert qoder.locate(Home(home, {})).also == (home / ".qoder-cn",)


def test_a_qodercli_the_qoder_dispatcher_started_is_known_as_running() -> None:
    """`qoder` (the npm package's dispatcher) runs `node <package>/bundle/qodercli.js`."""
    from sessdex.live_session import _runs

    args = b"node\0/usr/lib/node_modules/@qoder-ai/qodercli/bundle/qodercli.js\0-c"
    assert _runs(args, qoder.CLI)
    assert _runs(b"node\0/usr/bin/qodercli\0--resume\0x", qoder.CLI)
    plan = qoder.resume(sessions(Home.at(DATA / "home"))[LEAD])
    assert plan is not None and "qodercli.js" in plan.process_names


def test_a_rewind_with_nothing_after_it_leaves_the_rewound_turns_out(
    tmp_path: Path,
) -> None:
    """A rewind writes `active-leaf` (`explicit`, `rewound`) naming the kept leaf, and
    Qoder resumes there; quit before a new prompt, the file ends on the rewound turns."""
    home = tmp_path / "home"
    transcript = _credits_only(home)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    prompt, answer = lines
    again = prompt | {"uuid": "u2", "parentUuid": "a1"}
    again |= {"message": {"role": "user", "content": "Now delete the old route"}}
    again["timestamp"] = "2026-12-03T10:01:00.000Z"
    done = answer | {"uuid": "a2", "parentUuid": "u2"}
    done["timestamp"] = "2026-12-03T10:01:05.000Z"
    done["message"] = answer["message"] | {"id": "msg_c2"}
    leaf = {"type": "active-leaf", "sessionId": LEAD, "leafUuid": "a1"}
    leaf |= {"explicit": True, "rewound": True, "timestamp": 1764756070000}
    lines += [again, done, leaf]
    transcript.write_text(
        "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    )
    read = events(sessions(Home.at(home))[LEAD])
    prompts = [e.text for e in read if e.kind == "user"]
    assert prompts == ["Rename the health route"]
    assert any("abandoned_branch" in e.extra for e in read if e.kind == "meta")
    # a prompt after the rewind: the chain that ends at the last line, as before
    after = again | {"uuid": "u3", "parentUuid": "a1"}
    after["message"] = {"role": "user", "content": "Add a test instead"}
    after["timestamp"] = "2026-12-03T10:02:00.000Z"
    with transcript.open("a") as out:
        out.write(json.dumps(after, separators=(",", ":")) + "\n")
    read = events(sessions(Home.at(home))[LEAD])
    prompts = [e.text for e in read if e.kind == "user"]
    assert prompts == ["Rename the health route", "Add a test instead"]


def test_a_response_written_again_counts_warm_under_its_tier_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A response a transcript holds again, appended while sessdex last counted it (as
    Qoder writes a response twice: scripts/fuzz-homes.py --writing 90100), replaces the
    first under the tier's shown name: a warm `usage model` took the first back from a
    row of the bare tier, and said "performance" beside "Qoder performance tier"."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    transcript = home / PROJECT / f"{OTHER}.jsonl"
    last = [
        line
        for line in transcript.read_bytes().splitlines(keepends=True)
        if b'"assistant"' in line
    ][-1]

    def usage(state: str) -> list[dict[str, object]]:
        monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / state))
        result = CliRunner().invoke(
            main, ["usage", "model", "--json", "--home", str(home)]
        )
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)  # type: ignore[no-any-return]

    usage("warm")
    with transcript.open("ab") as writer:
        writer.write(last)
    warm = usage("warm")
    assert warm == usage("cold")
    assert [row["key"] for row in warm] == ["qoder-performance-tier"]
