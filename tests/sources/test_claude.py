"""Claude Code quirks: titles from head and tail, merged usage, sub-agents, rewinds, resume."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex import api, files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage
from sessdex.sources import Home, claude
from tests.helpers import LIST_PATHS, NESTED, SPAWNER, list_rows, nested_claude_run

DATA = Path(__file__).parent.parent / "data" / "claude"
PROJECTS = DATA / "home" / ".claude" / "projects"
REALCLI = PROJECTS / "-home-alex-code-shop-api"
SUBAGENT_RUN = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
VIEWER = PROJECTS / "-path-to-Demo"
SYNTHETIC = PROJECTS / "-home-dev-shop"


def listed(path: Path, diagnostics: Diagnostics | None = None) -> Session:
    location = claude.locate(Home.at(DATA / "home"))
    sessions = claude.parse(path, location, diagnostics or Diagnostics())
    assert len(sessions) == 1
    return sessions[0]


def events(
    path: Path, diagnostics: Diagnostics | None = None, **options: int
) -> list[Event]:
    session = Session(app="claude", id=path.stem, path=str(path))
    return list(claude.read(session, diagnostics or Diagnostics(), **options))  # type: ignore[arg-type]


def total(found: list[Event]) -> tuple[int, int, int, int]:
    """(input, output, cache read, cache write) over the usage events."""
    result = Usage()
    for event in found:
        if event.kind == "usage" and event.usage is not None:
            result = result + event.usage
    return (
        result.input_tokens,
        result.output_tokens,
        result.cache_read_tokens,
        result.cache_write_tokens,
    )


def record(kind: str, n: int, **fields: object) -> dict[str, object]:
    """A conversation line of session `s` at second `n`."""
    return {
        "type": kind,
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n > 1 else None,
        "isSidechain": False,
        "timestamp": f"2026-11-24T12:00:{n % 60:02d}.000Z",
        "cwd": "/home/dev/app",
        "gitBranch": "main",
        "sessionId": "s",
        "version": "2.1.220",
        **fields,
    }


def prompt(n: int, text: object, **fields: object) -> dict[str, object]:
    return record("user", n, message={"role": "user", "content": text}, **fields)


def reply(n: int, text: str, **fields: object) -> dict[str, object]:
    message = {
        "id": f"msg_{n}",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    return record("assistant", n, message=message, requestId=f"req_{n}", **fields)


def write(path: Path, lines: list[dict[str, object]], tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for line in lines:
            out.write(json.dumps(line).encode() + b"\n")
        out.write(tail)
    return path


def padding(start: int, count: int) -> list[dict[str, object]]:
    """Enough ordinary turns to push the head out of the tail window."""
    filler = "x" * 2000
    return [reply(start + i, filler) for i in range(count)]


PADDED = (
    files.TAIL_BYTES // 2000 + 50
)  # lines of padding: the file outgrows the tail read


# --- titles ---------------------------------------------------------------------------


def test_custom_title_only_in_the_head_of_a_big_file(tmp_path: Path) -> None:
    # `claude -n NAME` writes custom-title as line 1 and never again
    lines = [
        {"type": "custom-title", "customTitle": "Named at start", "sessionId": "s"},
        prompt(1, "Do the thing"),
        *padding(2, PADDED),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    assert path.stat().st_size > files.TAIL_BYTES
    assert listed(path).title == "Named at start"


def test_custom_title_only_in_the_tail(tmp_path: Path) -> None:
    lines = [
        {"type": "ai-title", "aiTitle": "Generated early", "sessionId": "s"},
        prompt(1, "Do the thing"),
        *padding(2, PADDED),
        {"type": "custom-title", "customTitle": "Renamed later", "sessionId": "s"},
    ]
    assert listed(write(tmp_path / "s.jsonl", lines)).title == "Renamed later"


def test_newest_custom_title_wins_when_head_and_tail_both_have_one(
    tmp_path: Path,
) -> None:
    lines = [
        {"type": "custom-title", "customTitle": "Old name", "sessionId": "s"},
        prompt(1, "Do the thing"),
        *padding(2, PADDED),
        {"type": "custom-title", "customTitle": "New name", "sessionId": "s"},
    ]
    assert listed(write(tmp_path / "s.jsonl", lines)).title == "New name"


def test_a_head_custom_title_beats_a_tail_ai_title(tmp_path: Path) -> None:
    lines = [
        {"type": "custom-title", "customTitle": "Mine", "sessionId": "s"},
        prompt(1, "Do the thing"),
        *padding(2, PADDED),
        {"type": "ai-title", "aiTitle": "The model's", "sessionId": "s"},
    ]
    assert listed(write(tmp_path / "s.jsonl", lines)).title == "Mine"


def test_a_title_key_inside_a_line_of_another_kind_is_not_a_title(
    tmp_path: Path,
) -> None:
    # the key is searched for as bytes; the line's own type decides
    renamed = {"customTitle": "Not this", "aiTitle": "Nor this", "docTitle": "x"}
    lines = [
        prompt(1, "Do the thing", toolUseResult=renamed),
        {"type": "ai-title", "aiTitle": "Generated", "sessionId": "s"},
        *padding(3, PADDED),
        prompt(PADDED + 3, "And this", toolUseResult=renamed),
        record("system", PADDED + 4, subtype="note", content='a "docTitle"'),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    assert path.stat().st_size > files.TAIL_BYTES
    assert listed(path).title == "Generated"


def test_a_custom_title_further_down_the_head_beats_a_tail_ai_title(
    tmp_path: Path,
) -> None:
    lines = [
        prompt(1, "Do the thing"),
        reply(2, "Done."),
        {"type": "custom-title", "customTitle": "First name", "sessionId": "s"},
        reply(3, "More."),
        {"type": "custom-title", "customTitle": "Second name", "sessionId": "s"},
        *padding(4, PADDED),
        {"type": "ai-title", "aiTitle": "The model's", "sessionId": "s"},
    ]
    assert listed(write(tmp_path / "s.jsonl", lines)).title == "Second name"


def test_the_newest_of_two_tail_custom_titles_wins(tmp_path: Path) -> None:
    lines = [
        prompt(1, "Do the thing"),
        *padding(2, PADDED),
        {"type": "custom-title", "customTitle": "First name", "sessionId": "s"},
        {"type": "ai-title", "aiTitle": "The model's", "sessionId": "s"},
        reply(PADDED + 2, "More."),
        {"type": "custom-title", "customTitle": "Second name", "sessionId": "s"},
    ]
    assert listed(write(tmp_path / "s.jsonl", lines)).title == "Second name"


def test_a_rename_mid_file_is_read_from_the_name_kept_beside_the_transcript(
    tmp_path: Path,
) -> None:
    """2.1.3xx also keeps `/rename`'s name in `<id>/custom-title.json`, and its list takes
    it when the tail names nothing: the record itself may sit past the head, unread."""
    lines = [
        {"type": "ai-title", "aiTitle": "Fix checkout retry", "sessionId": "s"},
        prompt(1, "Do the thing"),
        *padding(2, 100),
        {"type": "custom-title", "customTitle": "Payments retry", "sessionId": "s"},
        *padding(102, PADDED),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    assert listed(path).title == "Fix checkout retry"  # the record is out of reach
    (tmp_path / "s").mkdir()
    sidecar = {"customTitle": "Payments retry", "by": "user", "at": 1764000000000}
    (tmp_path / "s" / "custom-title.json").write_text(json.dumps(sidecar))
    assert listed(path).title == "Payments retry"
    # a newer rename the tail records still wins, as in Claude Code's list
    lines.append({"type": "custom-title", "customTitle": "Newest", "sessionId": "s"})
    assert listed(write(path, lines)).title == "Newest"


@pytest.mark.parametrize(("at", "title"), [(80, "Line 80"), (81, "Do the thing")])
def test_the_head_ends_at_line_80_even_past_one_read(
    tmp_path: Path, at: int, title: str
) -> None:
    big = "x" * 6000  # 80 such lines outgrow the first read of the head
    head = [prompt(1, "Do the thing"), *[reply(n, big) for n in range(2, 90)]]
    head[at - 1] = {"type": "custom-title", "customTitle": f"Line {at}"}
    path = write(tmp_path / "s.jsonl", [*head, *padding(90, PADDED)])
    assert sum(len(json.dumps(line)) for line in head[:80]) > claude.HEAD_PROBE
    assert listed(path).title == title


def test_a_head_line_after_a_skipped_long_one_keeps_its_number(
    tmp_path: Path,
) -> None:
    lines = [
        {"type": "queue-operation", "timestamp": "2026-11-24T11:59:59.000Z"},
        reply(1, "x" * (files.LINE_CAP + 10)),  # skipped: over the cap
        prompt(2, "Fix it please"),
        {"type": "custom-title", "customTitle": "Named", "sessionId": "s"},
        *padding(3, PADDED),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    with open(path, "r+b") as out:  # break line 3, keeping its size
        out.seek(len(json.dumps(lines[0])) + len(json.dumps(lines[1])) + 2)
        out.write(b"{{")
    diagnostics = Diagnostics()
    session = listed(path, diagnostics)
    assert session.title == "Named"
    assert diagnostics.details == [(str(path), 3, "not JSON")]


def test_a_sub_agent_s_description_wins_over_its_title_records(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".claude" / "projects" / "-p" / "parent"
    lines = [
        prompt(1, "Look around", isSidechain=True),
        {"type": "custom-title", "customTitle": "Named", "sessionId": "s"},
        reply(2, "Looked.", isSidechain=True),
    ]
    path = write(folder / "subagents" / "agent-a1.jsonl", lines)
    assert listed(path).title == "Named"
    meta = {"agentType": "Explore", "description": "Survey the code"}
    path.with_name("agent-a1.meta.json").write_text(json.dumps(meta))
    session = listed(path)
    assert (session.title, session.agent_type, session.parent_id) == (
        "Survey the code",
        "Explore",
        "parent",
    )
    assert (session.cwd, session.branch, session.model) == (
        "/home/dev/app",
        "main",
        "claude-sonnet-4-5",
    )


def test_effort_comes_from_the_newest_response_that_has_one(tmp_path: Path) -> None:
    lines = [
        prompt(1, "Do the thing"),
        reply(2, "Thinking hard.", effort="high"),
        reply(3, "Done."),  # no effort on this one
    ]
    session = listed(write(tmp_path / "s.jsonl", lines))
    assert (session.model, session.effort) == ("claude-sonnet-4-5", "high")


def test_ai_title_when_no_custom_title() -> None:
    assert listed(REALCLI / "a82be759-b0cd-4d2b-9219-abad61d191d4.jsonl").title == (
        "Checkout retry smoke test"
    )


def test_first_prompt_fallback_skips_commands_meta_and_tool_results(
    tmp_path: Path,
) -> None:
    lines = [
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-11-24T11:59:59.000Z",
        },
        prompt(
            1, "<command-name>/model</command-name>\n<command-args>opus</command-args>"
        ),
        prompt(
            2,
            "Caveat: the messages below were generated by local commands",
            isMeta=True,
        ),
        prompt(3, [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
        prompt(4, "Reply from a sub-agent", isSidechain=True),
        prompt(5, [{"type": "text", "text": "  Fix the login bug\n  on Safari  "}]),
        reply(6, "Fixed."),
    ]
    session = listed(write(tmp_path / "s.jsonl", lines))
    assert session.title == "Fix the login bug on Safari"
    assert (
        session.created is not None
        and session.created.isoformat() == "2026-11-24T12:00:01+00:00"
    )


def test_a_slash_command_is_the_last_resort_title() -> None:
    # a real 1.0.98 file whose only prompt is `/orchestrator …` (plus isMeta expansions)
    fe5e = listed(VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    # its leading `summary` names a leaf of another file, so it is not this session's title
    assert fe5e.title == "/orchestrator create TODO app by Next.js"


def test_a_1_0_conversation_is_titled_by_the_summary_the_next_transcript_opens_with() -> (
    None
):
    """1.0 wrote a conversation's summary at the head of the project's next transcript,
    never into its own file; Claude Code's picker showed it as the title. Real 1.0.98
    files: fe5e1c67 opens with the summary of 1af7fc5e's last line (its only prompt
    is `/init`)."""
    init = listed(VIEWER / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    assert init.title == "Empty Repo Setup: CLAUDE.md Foundation Created"


@pytest.mark.parametrize("big", [False, True], ids=["read whole", "head and tail"])
def test_the_summary_naming_a_1_0_conversations_newest_line_titles_it(
    tmp_path: Path, big: bool
) -> None:
    """Summaries in two later transcripts name lines of one conversation: the one naming
    its newest line wins, and a conversation no summary names keeps its prompt."""
    old = [
        prompt(1, "Refactor the billing module", version="1.0.51"),
        reply(2, "Done.", version="1.0.51"),
        *(
            [reply(3 + i, "x" * 2000, version="1.0.51") for i in range(PADDED)]
            if big
            else []
        ),
    ]
    last = len(old)

    def compact(name: str, lines: list[dict[str, object]]) -> None:
        with open(tmp_path / f"{name}.jsonl", "wb") as out:  # as Claude Code writes
            for line in lines:
                out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")

    compact("a", old)

    def opening(name: str, leaf: str, text: str) -> None:
        summary = {"type": "summary", "summary": text, "leafUuid": leaf}
        task = prompt(1, f"Another task {name}", version="1.0.51", uuid=f"{name}1")
        compact(name, [summary, task])

    opening("b", f"u{last}", "Billing module refactor")
    opening("c", "u1", "Billing refactor started")
    assert listed(tmp_path / "a.jsonl").title == "Billing module refactor"
    assert listed(tmp_path / "b.jsonl").title == "Another task b"


def test_a_summary_names_the_session_when_its_leaf_is_in_the_file() -> None:
    assert (
        listed(SYNTHETIC / "22222222-2222-4222-8222-222222222222.jsonl").title
        == "Flaky test hunt"
    )


@pytest.mark.parametrize("big", [False, True], ids=["read whole", "head and tail"])
def test_summaries_of_other_files_opening_a_transcript_do_not_hide_its_head(
    tmp_path: Path, big: bool
) -> None:
    # 1.0 opened a new transcript with a summary of each earlier conversation of the
    # project still lacking one (anthropics/claude-code#2597): more than the head's lines
    summaries = [
        {"type": "summary", "summary": f"Old topic {i}", "leafUuid": f"other-{i}"}
        for i in range(files.HEAD_LINES + 20)
    ]
    conversation = [
        prompt(1, "Refactor the billing module"),
        reply(2, "Done."),
        *(padding(3, PADDED) if big else []),
    ]
    path = tmp_path / "s.jsonl"
    with open(path, "wb") as out:
        for line in summaries:  # written compactly, as Claude Code writes them
            out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
        for line in conversation:
            out.write(json.dumps(line).encode() + b"\n")
    assert (path.stat().st_size > files.TAIL_BYTES) is big
    session = listed(path)
    assert session.title == "Refactor the billing module"
    assert session.created is not None
    assert session.created.isoformat().startswith("2026-11-24T12:00:01")


def test_listing_takes_cwd_from_records_and_settings_from_the_tail() -> None:
    session = listed(SYNTHETIC / "11111111-1111-4111-8111-111111111111.jsonl")
    assert session.cwd == "/home/dev/shop"  # not decoded from the lossy folder name
    assert (session.branch, session.model, session.effort) == (
        "fix/error-screen",
        "claude-opus-4-5",
        "high",
    )
    assert session.permission_mode == "plan"


def test_sub_agent_files_are_indexed_under_their_parent_not_listed() -> None:
    found = {
        os.path.basename(path)
        for path in claude.scan(claude.locate(Home.at(DATA / "home")))
    }
    assert "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl" in found
    assert "agent-a199d630441234c05.jsonl" in found  # 2.1: <session>/subagents/
    assert "agent-b0b0b0b0.jsonl" in found  # 2.0: beside the parent
    sessions = {
        s.id: s
        for s in api.list_sessions(Home.at(DATA / "home"), apps=["claude"]).sessions()
    }
    assert "a199d630441234c05" not in sessions  # not a top-level session
    everything = api.list_sessions(
        Home.at(DATA / "home"), apps=["claude"], include_subagents=True
    ).sessions()
    child = {s.id: s for s in everything}["a199d630441234c05"]
    assert child.parent_id == "82d9f90c-3f87-46b4-b09c-58027a5e630c"
    assert (child.agent_type, child.title) == ("general-purpose", "Greeting sub-agent")
    nested = {s.id: s for s in everything}["a2d2d2d2d2d2d2d2d"]
    assert nested.parent_id == "a1c1c1c1c1c1c1c1c"  # a sub-agent's own sub-agent
    assert claude.resume(child) is None


# --- usage ----------------------------------------------------------------------------


def test_one_usage_event_per_response_in_a_real_file() -> None:
    # fe5e1c67 (1.0.98), first 37 lines: 12 responses over 20 assistant lines. msg_0175…
    # is written three times with output 3, 172, 172; msg_01PrGG… four times with 1, 1, 1, 598.
    found = events(VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    usage = [e for e in found if e.kind == "usage"]
    assert len(usage) == 12
    lead = [e.usage.output_tokens for e in usage if e.agent_id is None and e.usage]
    assert lead == [172, 1, 598]
    # by hand: input 3+7+6 | 3+6+7+6+6+6+5+5+5; output 172+1+598 | 108+74+476+349+488+550+173+78+303
    assert total(found) == (65, 3370, 150762, 16519)
    # summing every line instead would count the copies: 3+172+172 alone is 347
    big = next(
        e for e in usage if e.extra["message_id"] == "msg_01PrGGvEvreqPUaqe4qRsCgA"
    )
    assert (
        big.time is not None
        and big.time.isoformat() == "2025-09-03T00:52:54.128000+00:00"
    )


ADVISED = {
    # the API's usage of a response that consulted the advisor (`/advisor`): the top-level
    # counts are the executor's; each `advisor_message` iteration is billed apart, at the
    # advisor model's rates
    "input_tokens": 4,
    "output_tokens": 946,
    "cache_creation_input_tokens": 4814,
    "cache_read_input_tokens": 173_469,
    "iterations": [
        {
            "type": "message",
            "input_tokens": 2,
            "output_tokens": 833,
            "cache_read_input_tokens": 85_338,
            "cache_creation_input_tokens": 2793,
        },
        {
            "type": "advisor_message",
            "model": "claude-opus-4-7",
            "input_tokens": 90_314,
            "output_tokens": 5644,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        },
        {
            "type": "message",
            "input_tokens": 2,
            "output_tokens": 113,
            "cache_read_input_tokens": 88_131,
            "cache_creation_input_tokens": 2021,
        },
    ],
}


def advised_session(tmp_path: Path) -> Path:
    """One response that consulted the advisor, written as two lines (thinking, text)."""
    lines = [prompt(1, "Plan the migration")]
    for block in ({"type": "thinking", "thinking": "", "signature": "s"}, None):
        message = {
            "id": "msg_adv",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [block or {"type": "text", "text": "Here is the plan."}],
            "stop_reason": None if block else "end_turn",
            "usage": ADVISED,
        }
        lines.append(record("assistant", 2, message=message, requestId="req_adv"))
    return write(tmp_path / "s.jsonl", lines)


def test_the_advisors_calls_are_billed_at_the_advisor_model(tmp_path: Path) -> None:
    path = advised_session(tmp_path)
    spent = [
        (
            e.usage.model,
            e.usage.input_tokens,
            e.usage.output_tokens,
            e.extra.get("advisor"),
        )
        for e in events(path)
        if e.kind == "usage" and e.usage is not None
    ]
    assert spent == [
        ("claude-sonnet-4-6", 4, 946, None),
        ("claude-opus-4-7", 90_314, 5644, True),
    ]
    # `sessdex usage` counts them the same way
    scan = claude.usage_records(path, Diagnostics())
    assert [
        (
            r.usage.model,
            r.usage.input_tokens,
            r.usage.output_tokens,
            r.usage.cache_read_tokens,
        )
        for r in scan.records
    ] == [("claude-sonnet-4-6", 4, 946, 173_469), ("claude-opus-4-7", 90_314, 5644, 0)]


def early_priced_session(tmp_path: Path) -> Path:
    """A 1.0.8 transcript: every assistant line carries Claude Code's own `costUSD`; the
    first response streamed as two lines (a partial copy first), the second with a null
    price, the third with a zero one beside its tokens."""
    lines = [prompt(1, "Add a health check", version="1.0.8")]
    for n, output, cost in ((2, 1, 0.002), (3, 90, 0.0412)):
        message = {"id": "msg_a", "role": "assistant", "model": "claude-sonnet-4-5",
                   "content": [{"type": "text", "text": "Done."}],
                   "stop_reason": "end_turn" if n == 3 else None,
                   "usage": {"input_tokens": 12, "output_tokens": output}}  # fmt: skip
        lines.append(record("assistant", n, message=message, requestId="req_a",
                            costUSD=cost, version="1.0.8"))  # fmt: skip
    lines.append(prompt(4, "And a readiness one", version="1.0.8"))
    lines.append(reply(5, "Added.", costUSD=None, version="1.0.8"))
    lines.append(prompt(6, "Thanks", version="1.0.8"))
    lines.append(reply(7, "You're welcome.", costUSD=0, version="1.0.8"))
    return write(tmp_path / "s.jsonl", lines)


def test_claude_codes_own_price_of_a_response_is_kept_where_it_wrote_one(
    tmp_path: Path,
) -> None:
    path = early_priced_session(tmp_path)
    spent = [
        (e.extra["message_id"], e.usage.output_tokens, e.extra.get("app_cost_usd"))
        for e in events(path)
        if e.kind == "usage" and e.usage is not None
    ]
    # the largest copy's price with its tokens; no price where it wrote null or zero
    assert spent == [("msg_a", 90, 0.0412), ("msg_5", 2, None), ("msg_7", 2, None)]
    scan = claude.usage_records(path, Diagnostics())
    assert [(r.usage.output_tokens, r.app_cost_usd) for r in scan.records] == [
        (90, 0.0412),
        (2, None),
        (2, None),
    ]
    explained = claude.usage_records(path, Diagnostics(), explain=True).records
    assert explained[0].note.endswith(
        "dated by its last line 3, its costUSD as the price"
    )
    assert "costUSD" not in explained[1].note


@pytest.mark.parametrize("odd", ["n/a", "0.01", True, {}, [1], -2.5])
def test_an_odd_recorded_price_costs_a_response_nothing_of_its_tokens(
    tmp_path: Path, odd: object
) -> None:
    path = write(
        tmp_path / "s.jsonl", [prompt(1, "hi"), reply(2, "hello", costUSD=odd)]
    )
    shown = [
        (e.usage, e.extra.get("app_cost_usd"))
        for e in events(path)
        if e.kind == "usage"
    ]
    counted = [
        (r.usage, r.app_cost_usd)
        for r in claude.usage_records(path, Diagnostics()).records
    ]
    assert shown == counted == [(Usage(1, 2, 0, 0, 0, "claude-sonnet-4-5"), None)]


def test_synthetic_and_api_error_lines_bill_nothing() -> None:
    found = events(SYNTHETIC / "11111111-1111-4111-8111-111111111111.jsonl")
    errors = [e.text for e in found if e.kind == "error"]
    assert errors == [
        "API Error: 529 Overloaded",
        "API error 529: Overloaded (retry 1 of 10)",
    ]
    # by hand: msg_s1_a (largest of 5, 5, 80) + b + c (abandoned, still billed) + d + e + f
    assert total(found) == (29, 245, 11800, 2500)
    assert sum(1 for e in found if e.kind == "usage") == 6


def test_a_side_chain_replaying_an_early_response_far_later_bills_it_once(
    tmp_path: Path,
) -> None:
    """A `/btw` side question replays the lead's message ids, however long ago they were
    written: the keys billed are all kept, not only the recent ones."""
    early = reply(2, "first answer")
    turns = [
        line
        for n in range(3, 2003, 2)
        for line in (prompt(n, f"go {n}"), reply(n + 1, "ok"))
    ]
    replayed = {**early, "uuid": "side-1", "parentUuid": None, "isSidechain": True}
    path = write(tmp_path / "s.jsonl", [prompt(1, "hi"), early, *turns, replayed])
    billed = [e.extra["message_id"] for e in events(path) if e.kind == "usage"]
    assert len(billed) == 1 + len(turns) // 2
    assert billed.count("msg_2") == 1


def conversation(path: Path, turns: int) -> Path:
    """A transcript shaped like a real one: a prompt, three tool rounds and an answer a
    turn, every line with its own uuid4 and every response with its own ids."""
    import random
    import uuid

    draw = random.Random(turns)
    lines: list[dict[str, object]] = []

    def add(kind: str, message: dict[str, object], **more: object) -> None:
        up = lines[-1]["uuid"] if lines else None
        own = str(uuid.UUID(int=draw.getrandbits(128), version=4))
        lines.append({"type": kind, "uuid": own, "parentUuid": up, "sessionId": "s",
                      "timestamp": "2026-11-24T12:00:00.000Z", "message": message,
                      **more})  # fmt: skip

    def answer(block: dict[str, object], stop: str) -> None:
        ids = f"{draw.getrandbits(128):032x}"
        message = {"id": f"msg_01{ids[:22]}", "role": "assistant", "content": [block],
                   "model": "claude-sonnet-4-5", "stop_reason": stop,
                   "usage": {"input_tokens": 1, "output_tokens": 2}}  # fmt: skip
        add("assistant", message, requestId=f"req_011C{ids[10:30]}")

    for n in range(turns):
        add("user", {"role": "user", "content": f"prompt {n}"})
        for k in range(3):
            call = f"toolu_{n}_{k}"
            answer(
                {"type": "tool_use", "id": call, "name": "Bash", "input": {}},
                "tool_use",
            )
            result = {"type": "tool_result", "tool_use_id": call, "content": "ok"}
            add("user", {"role": "user", "content": [result]})
        answer({"type": "text", "text": "done"}, "end_turn")
    return write(path, lines)


def test_reading_a_long_transcript_holds_little_per_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a read keeps per line (its uuid for the branch survey, its response's key so
    that a replay is billed once) grows with the file: a 2 GB transcript has a million
    lines. Held as a dict of strings, that was some 165 bytes a line (45 MB a GB). The
    first `idtable._FRONT` entries of each table do sit in a dict (a few MB at most);
    none here, so that these small files show what grows past them."""
    import tracemalloc

    from sessdex import idtable

    monkeypatch.setattr(idtable, "_FRONT", 0)

    def peak(turns: int) -> int:
        path = conversation(tmp_path / f"{turns}.jsonl", turns)
        session = Session(app="claude", id=path.stem, path=str(path))
        tracemalloc.start()
        try:  # the events are counted as they come, not held
            read = claude.read(session, Diagnostics())  # type: ignore[arg-type]
            billed = sum(e.kind == "usage" for e in read)
            held = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert billed == 4 * turns  # every response, once
        return held

    small, large = 1000, 3000  # 8 lines a turn; 3 MB at least: past the read buffers
    per_line = (peak(large) - peak(small)) / (8 * (large - small))
    assert per_line < 128


# --- turns, compaction, branches ------------------------------------------------------


def test_one_turn_end_per_turn() -> None:
    # the TUI writes both stop_reason end_turn and a system/turn_duration line
    found = events(REALCLI / "c0afe25d-a3f3-42d0-a05d-b89a69889156.jsonl")
    assert [e.kind for e in found].count("turn_end") == 1


def test_a_rewind_follows_the_active_branch_and_reports_the_abandoned_one() -> None:
    found = events(SYNTHETIC / "11111111-1111-4111-8111-111111111111.jsonl")
    prompts = [e.text for e in found if e.kind == "user"]
    assert "Now write tests for it" not in prompts
    assert prompts[:2] == [
        "Add a retry to the checkout call",
        "Actually, add logging instead",
    ]
    rewound = [e for e in found if e.kind == "meta" and "abandoned_branch" in e.extra]
    assert len(rewound) == 1
    assert rewound[0].extra["abandoned_branch"] == {
        "uuid": "11111111-0000-4000-8000-000000000008",
        "lines": 2,
        "subagents": 0,
    }
    billed = [
        e for e in found if e.kind == "usage" and e.extra.get("branch") == "abandoned"
    ]
    assert [e.extra["message_id"] for e in billed] == ["msg_s1_c"]


def test_compaction_carries_its_summary_and_modes_show_as_meta() -> None:
    found = events(SYNTHETIC / "11111111-1111-4111-8111-111111111111.jsonl")
    (compaction,) = [e for e in found if e.kind == "compaction"]
    assert compaction.text and compaction.text.startswith(
        "This session is being continued"
    )
    assert compaction.extra == {"trigger": "manual", "pre_tokens": 4321}
    metas = [
        dict(e.extra)
        for e in found
        if e.kind == "meta" and "abandoned_branch" not in e.extra
    ]
    assert {"permission_mode": "plan"} in metas
    assert {"model": "claude-opus-4-5"} in metas
    assert {"branch": "fix/error-screen"} in metas
    (image,) = [
        e.text
        for e in found
        if e.kind == "user" and e.text and e.text.startswith("[image")
    ]
    assert image == "[image, 2.9 KB]\nPlan a fix for this error screen"


def test_every_record_type_in_the_catalogues_is_known() -> None:
    for name in ("small.jsonl", "schema_drift.jsonl", "metadata_2_1.jsonl"):
        diagnostics = Diagnostics()
        found = events(DATA / "catalogue" / name, diagnostics)
        assert found
        assert not diagnostics.unknown, (name, diagnostics.unknown)
        assert diagnostics.skipped_total == 0
    # a remote MCP server's call and result, run by the API (mcp_tool_use / _result)
    found = events(DATA / "catalogue" / "metadata_2_1.jsonl", Diagnostics())
    call, result = [e for e in found if e.call_id == "mcptoolu_1"]
    assert (call.kind, call.tool, result.kind, result.text) == (
        "tool_call",
        "search_issues",
        "tool_result",
        "2 open issues",
    )


# --- sub-agents -----------------------------------------------------------------------


def test_a_real_sub_agent_is_linked_through_its_meta_file() -> None:
    found = events(REALCLI / f"{SUBAGENT_RUN}.jsonl")
    (spawn,) = [e for e in found if e.kind == "subagent"]
    assert spawn.call_id == "toolu_mock01c0264401044de2a66f5c77"
    assert spawn.text == "Greeting sub-agent"
    assert spawn.extra == {
        "child_id": "a199d630441234c05",
        "agent_type": "general-purpose",
    }
    assert spawn.agent_id is None
    child = [e for e in found if e.agent_id == "a199d630441234c05"]
    assert [e.kind for e in child] == [
        "user",
        "tool_call",
        "usage",
        "tool_result",
        "assistant",
        "usage",
        "turn_end",
    ]
    assert child[3].text == "hello-from-subagent"
    # interleaved by time: after the spawn, before the parent reads the result
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == spawn.call_id
    )
    assert spawn.seq < child[0].seq and child[-1].seq < result.seq
    assert result.extra["result"]["agentId"] == "a199d630441234c05"  # type: ignore[index]


def test_lead_and_sub_agent_events_at_one_time_take_turns(tmp_path: Path) -> None:
    """At a tie in time the merge gives first the event it queued first: from the spawn
    on, the lead and its sub-agent take turns, each in its own order (its fast path, a
    stream's next event taken without the heap, must not let one run on)."""
    shutil.copy(REALCLI / f"{SUBAGENT_RUN}.jsonl", tmp_path)
    shutil.copytree(REALCLI / SUBAGENT_RUN, tmp_path / SUBAGENT_RUN)
    for path in tmp_path.rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            if "timestamp" in line:
                line["timestamp"] = "2026-01-01T00:00:00.000Z"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = events(tmp_path / f"{SUBAGENT_RUN}.jsonl")
    order = [("child" if e.agent_id else "lead", e.kind) for e in found]
    assert order == [
        ("lead", "user"),
        ("lead", "tool_call"),
        ("lead", "subagent"),
        ("child", "user"),
        ("lead", "usage"),
        ("child", "tool_call"),
        ("lead", "tool_result"),
        ("child", "usage"),
        ("lead", "assistant"),
        ("child", "tool_result"),
        ("lead", "usage"),
        ("child", "assistant"),
        ("lead", "turn_end"),
        ("child", "usage"),
        ("child", "turn_end"),
    ]


def test_nested_sub_agents_link_at_any_depth() -> None:
    found = events(SYNTHETIC / "33333333-3333-4333-8333-333333333333.jsonl")
    spawns = [
        (e.agent_id, e.call_id, e.extra["child_id"], e.text)
        for e in found
        if e.kind == "subagent"
    ]
    assert spawns == [
        (None, "toolu_s3_review", "a1c1c1c1c1c1c1c1c", "Review payments"),
        ("a1c1c1c1c1c1c1c1c", "toolu_c1_lint", "a2d2d2d2d2d2d2d2d", "Lint payments"),
    ]
    linter = [e for e in found if e.agent_id == "a2d2d2d2d2d2d2d2d"]
    assert linter[0].text == "Run the linter on payments.py."
    times = [e.time for e in found if e.time is not None]
    assert times == sorted(times)
    assert total(found) == (193, 89, 1100, 1000)


@pytest.mark.parametrize("meta", ["missing", "cut"])
def test_a_nested_sub_agent_whose_meta_file_is_lost_sits_under_its_spawner(
    tmp_path: Path, meta: str
) -> None:
    """Without `agent-<id>.meta.json` (deleted, or cut mid-write) nothing in the lead's
    file names a nested sub-agent: its first line, the prompt of its spawner's call,
    links it; the tree is the one the meta file gives."""
    from sessdex.tree import build_tree

    project = tmp_path / "project"
    shutil.copytree(SYNTHETIC, project)
    lead = project / "33333333-3333-4333-8333-333333333333.jsonl"
    lost = lead.with_suffix("") / "subagents" / "agent-a2d2d2d2d2d2d2d2d.meta.json"
    if meta == "missing":
        lost.unlink()
    else:
        lost.write_bytes(lost.read_bytes()[:40])
    whole = build_tree(lead.stem, events(SYNTHETIC / lead.name))
    found = events(lead)
    assert build_tree(lead.stem, found).record() == whole.record()
    [reviewer] = whole.children
    [linter] = reviewer.children
    assert (linter.id, linter.usage.output_tokens) == ("a2d2d2d2d2d2d2d2d", 12)
    spawns = [(e.agent_id, e.extra["child_id"]) for e in found if e.kind == "subagent"]
    assert spawns == [
        (None, "a1c1c1c1c1c1c1c1c"),
        ("a1c1c1c1c1c1c1c1c", "a2d2d2d2d2d2d2d2d"),
    ]


@pytest.mark.parametrize("meta", ["missing", "cut"])
def test_a_nested_sub_agent_whose_meta_file_is_lost_is_listed_under_its_spawner(
    tmp_path: Path, meta: str
) -> None:
    """`list --all`, `find` and `usage` take a sub-agent's parent from its index row:
    without its meta file, a nested sub-agent of the real 2.1.197 run was listed under
    the lead while `tree` put it under its spawner. Its spawner's file holds the call
    whose prompt it opens with; the row names the spawner, type and description."""
    from sessdex.tree import build_tree

    def rows(home: Path) -> dict[str, tuple[str | None, str | None, str | None]]:
        found = api.list_sessions(
            Home.at(home), apps=["claude"], include_subagents=True
        )
        return {s.id: (s.parent_id, s.agent_type, s.title) for s in found.sessions()}

    nested_claude_run(tmp_path / "kept")
    lead = nested_claude_run(tmp_path / "lost", meta)
    assert rows(tmp_path / "lost") == rows(tmp_path / "kept")
    assert rows(tmp_path / "lost")[NESTED] == (
        SPAWNER,
        "general-purpose",
        "Nested greeting",
    )
    [child] = build_tree(SUBAGENT_RUN, events(lead)).children
    assert [(child.id, [n.id for n in child.children])] == [(SPAWNER, [NESTED])]


def test_sub_agents_without_meta_in_one_folder_have_their_siblings_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session whose sub-agents all lost their meta files, each spawned by the lead:
    listing them listed and stat'ed the whole folder again for each one (a cold `list`
    of a folder of 1,000 took seconds, of thousands minutes). Read once, each is under
    the lead; one written after that read is still placed under its spawner."""
    from sessdex import folders
    from sessdex.sources import _claude_spawns

    lead = write(tmp_path / "p" / "s.jsonl", [prompt(1, "go"), reply(2, "ok")])
    folder = lead.with_suffix("") / "subagents"
    for n in range(30):
        asked = prompt(3, f"Job {n}.", isSidechain=True, agentId=f"a{n}")
        write(folder / f"agent-a{n}.jsonl", [asked, reply(4, "done", agentId=f"a{n}")])
    listings: list[str] = []
    listing = folders.listing

    def counted(path: str) -> object:
        listings.append(str(path))
        return listing(path)

    monkeypatch.setattr(folders, "listing", counted)
    monkeypatch.setattr(_claude_spawns, "_kept", {})
    location = claude.locate(Home.at(tmp_path))
    parse = lambda path: claude.parse(path, location, Diagnostics())  # noqa: E731
    rows = [s for path in sorted(folder.glob("*.jsonl")) for s in parse(path)]
    assert {row.parent_id for row in rows} == {"s"}
    assert listings.count(str(folder)) == 1
    # a spawner and its child written since: the child is not the lead's
    call = {"type": "tool_use", "id": "toolu_9", "name": "Agent",
            "input": {"prompt": "Nested job.", "subagent_type": "x"}}  # fmt: skip
    spawn = reply(5, "", agentId="a0")
    spawn["message"]["content"] = [call]  # type: ignore[index]
    asked = prompt(3, "Job 0.", isSidechain=True, agentId="a0")
    write(folder / "agent-a0.jsonl", [asked, spawn])
    nested = prompt(6, "Nested job.", isSidechain=True, agentId="b1")
    write(folder / "agent-b1.jsonl", [nested, reply(7, "done", agentId="b1")])
    [row] = parse(folder / "agent-b1.jsonl")
    assert (row.parent_id, row.agent_type) == ("a0", "x")


def test_parallel_sub_agents_without_meta_or_result_match_their_call_by_prompt(
    tmp_path: Path,
) -> None:
    """Agent calls in one response, the lead stopped before their results, no meta
    files: each call gets a file that opens with its prompt, whichever started first;
    of two alike, the first call gets the first started."""
    calls = [
        {"type": "tool_use", "id": call, "name": "Agent",
         "input": {"description": name, "prompt": f"Check {name}.", "subagent_type": "x"}}
        for call, name in (("toolu_1", "docs"), ("toolu_2", "tests"), ("toolu_3", "docs"))
    ]  # fmt: skip
    spawn = reply(2, "")
    spawn["message"]["content"] = calls  # type: ignore[index]
    lead = write(tmp_path / "p" / "s.jsonl", [prompt(1, "check all"), spawn])
    for agent, name, second in (
        ("a1", "tests", 3),
        ("a2", "docs", 5),
        ("a3", "docs", 4),
    ):
        asked = prompt(second, f"Check {name}.", isSidechain=True, agentId=agent)
        said = reply(second + 3, f"{name} fine", isSidechain=True, agentId=agent)
        said["parentUuid"] = asked["uuid"]
        write(
            lead.with_suffix("") / "subagents" / f"agent-{agent}.jsonl", [asked, said]
        )
    found = events(lead)
    spawns = {e.call_id: e.extra["child_id"] for e in found if e.kind == "subagent"}
    assert spawns == {"toolu_1": "a3", "toolu_2": "a1", "toolu_3": "a2"}


def test_a_sub_agent_shown_on_its_own_is_the_lead_of_its_transcript() -> None:
    """`sessdex show <sub-agent id>`: its lines (all marked isSidechain) are its own
    conversation, not an inline side chain spawned by nobody; the sub-agents it spawned
    (2.1: beside it, naming it their parentAgentId) nest under it."""

    def own(path: Path) -> list[Event]:
        session = Session(app="claude", id=path.stem.removeprefix("agent-"), path=str(path))  # fmt: skip
        return list(claude.read(session, Diagnostics()))

    child = REALCLI / SUBAGENT_RUN / "subagents" / "agent-a199d630441234c05.jsonl"
    found = own(child)
    assert [(e.kind, e.agent_id) for e in found] == [
        ("user", None), ("tool_call", None), ("usage", None), ("tool_result", None),
        ("assistant", None), ("usage", None), ("turn_end", None),
    ]  # fmt: skip
    as_child = [
        e for e in events(REALCLI / f"{SUBAGENT_RUN}.jsonl")
        if e.agent_id == "a199d630441234c05"
    ]  # fmt: skip
    assert [e.text for e in found] == [e.text for e in as_child]
    reviewer = own(
        SYNTHETIC
        / "33333333-3333-4333-8333-333333333333"
        / "subagents"
        / "agent-a1c1c1c1c1c1c1c1c.jsonl"
    )
    (spawn,) = [e for e in reviewer if e.kind == "subagent"]
    assert (spawn.agent_id, spawn.extra["child_id"], spawn.text) == (
        None,
        "a2d2d2d2d2d2d2d2d",
        "Lint payments",
    )
    linter = [e for e in reviewer if e.agent_id == "a2d2d2d2d2d2d2d2d"]
    assert linter[0].text == "Run the linter on payments.py."
    assert {e.agent_id for e in reviewer} == {None, "a2d2d2d2d2d2d2d2d"}


def test_a_2_0_sub_agent_beside_its_parent_is_linked_by_the_result_agent_id() -> None:
    found = events(SYNTHETIC / "22222222-2222-4222-8222-222222222222.jsonl")
    (spawn,) = [e for e in found if e.kind == "subagent"]
    assert spawn.extra == {"child_id": "b0b0b0b0", "agent_type": "Explore"}
    failed = [e for e in found if e.agent_id == "b0b0b0b0" and e.kind == "tool_result"]
    assert [(e.text, e.is_error) for e in failed] == [("FAILED test_refund", True)]


def test_inline_1_0_side_chains_are_matched_to_their_task_by_prompt() -> None:
    found = events(VIEWER / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    spawns = {e.text: e.extra["child_id"] for e in found if e.kind == "subagent"}
    root = "6690d10e-f521-4ac0-800d-e5eb7a2d8072"
    assert spawns["Build TODO components"] == root
    # the other two Task calls ran side chains that lie beyond the fixture's 37 lines
    assert spawns["Setup Next.js project"] is None
    side = [e for e in found if e.agent_id == root]
    assert (
        side[0].kind == "user"
        and side[0].text
        and side[0].text.startswith("Create React components")
    )
    assert sum(1 for e in side if e.kind == "tool_call") == 8


# --- huge, torn and partial reads -----------------------------------------------------


def test_a_50_mb_line_in_the_head_is_skipped_for_listing_and_summarised_for_reading(
    tmp_path: Path,
) -> None:
    image = {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": "A" * (50 * 1024 * 1024),
        },
    }
    lines = [
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "timestamp": "2026-11-24T11:59:59.000Z",
        },
        prompt(1, [image, {"type": "text", "text": "What is wrong on this screen?"}]),
        reply(2, "The button overlaps the label."),
        prompt(3, "Fix it please"),
        reply(4, "Fixed."),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    diagnostics = Diagnostics()
    session = listed(path, diagnostics)
    assert session.title == "Fix it please"  # the first prompt sat in the skipped line
    assert session.cwd == "/home/dev/app"
    assert (
        session.created is not None
        and session.created.isoformat() == "2026-11-24T12:00:02+00:00"
    )
    found = events(path, diagnostics)
    first = next(e for e in found if e.kind == "user")
    assert first.text == "[image, 37.5 MB]\nWhat is wrong on this screen?"
    assert diagnostics.skipped_total == 0


def test_a_torn_last_line_is_noted_not_counted_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    lines = [prompt(1, "Start"), reply(2, "Working on it.")]
    path = write(
        tmp_path / "s.jsonl",
        lines,
        tail=(torn := b'{"type":"assistant","message":{"id":"msg_3","content":[{"ty'),
    )
    diagnostics = Diagnostics()
    session = listed(path, diagnostics)
    assert (
        session.updated is not None
        and session.updated.isoformat() == "2026-11-24T12:00:02+00:00"
    )
    found = events(path, diagnostics)
    assert [e.kind for e in found] == ["user", "assistant", "usage", "turn_end"]
    # the app may still be writing it: no unreadable line, said once for the file
    assert diagnostics.skipped_total == 0
    assert diagnostics.unfinished == {str(path): len(torn)}


def test_reading_from_an_offset_reads_the_tail_of_the_main_file_only() -> None:
    path = REALCLI / f"{SUBAGENT_RUN}.jsonl"
    data = path.read_bytes()
    middle = data.index(
        b'"type":"tool_result"'
    )  # inside the line with the sub-agent's result
    found = events(path, offset=middle)
    assert [e.kind for e in found] == ["assistant", "usage", "turn_end"]
    assert found[0].text == "The sub-agent finished and reported hello-from-subagent."
    assert [e.seq for e in found] == [0, 1, 2]
    line_start = data.index(b"\n", middle) + 1
    assert [e.kind for e in events(path, offset=line_start)] == [
        "assistant",
        "usage",
        "turn_end",
    ]
    assert not any(
        e.agent_id for e in events(path, offset=1)
    )  # no sub-agent file is opened


def test_a_failed_server_side_tool_result_is_an_error(tmp_path: Path) -> None:
    # server tools (advisor, web search) answer inside the assistant message; a failure
    # is the content's `…_error` type (advisor blocks as real 2.1 transcripts hold them)
    blocks = [
        {"type": "server_tool_use", "id": "srv1", "name": "advisor", "input": {}},
        {
            "type": "advisor_tool_result",
            "tool_use_id": "srv1",
            "content": {
                "type": "advisor_tool_result_error",
                "error_code": "unavailable",
            },
        },
        {"type": "server_tool_use", "id": "srv2", "name": "advisor", "input": {}},
        {
            "type": "advisor_tool_result",
            "tool_use_id": "srv2",
            "content": {"type": "advisor_result", "text": "Check the empty input."},
        },
        {"type": "text", "text": "Done."},
    ]
    message = {"id": "m", "role": "assistant", "content": blocks}
    lines = [prompt(1, "Ask the advisor"), record("assistant", 2, message=message)]
    found = events(write(tmp_path / "s.jsonl", lines))
    results = [(e.text, e.is_error) for e in found if e.kind == "tool_result"]
    assert results == [
        ("[advisor_tool_result_error: unavailable]", True),
        ("Check the empty input.", False),
    ]


def test_tool_results_keep_a_bounded_copy_of_the_structured_result(
    tmp_path: Path,
) -> None:
    call = {
        "type": "tool_use",
        "id": "t1",
        "name": "Bash",
        "input": {"command": "cat big.log"},
    }
    lines = [
        prompt(1, "Show the log"),
        record(
            "assistant", 2, message={"id": "m", "role": "assistant", "content": [call]}
        ),
        prompt(
            3,
            [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            toolUseResult={"stdout": "y" * 500_000, "stderr": ""},
        ),
    ]
    found = events(write(tmp_path / "s.jsonl", lines))
    result = next(e for e in found if e.kind == "tool_result")
    kept = result.extra["result"]
    assert isinstance(kept, dict) and len(json.dumps(kept)) < 20_000
    assert kept["stderr"] == ""


def test_a_lone_surrogate_does_not_lose_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        json.dumps(prompt(1, "x")).replace('"x"', '"half \\ud83d emoji"').encode()
        + b"\n"
    )
    diagnostics = Diagnostics()
    (event,) = events(path, diagnostics)
    assert event.text is not None and event.text.startswith("half")
    assert diagnostics.skipped_total == 0


# --- resume ---------------------------------------------------------------------------


def test_resume_keeps_model_and_effort_and_withholds_bypass_permissions() -> None:
    session = Session(
        app="claude",
        id="a82be759-b0cd-4d2b-9219-abad61d191d4",
        cwd="/home/alex/code/shop-api",
        model="claude-opus-4-8",
        effort="high",
        permission_mode="bypassPermissions",
    )
    plan = claude.resume(session)
    assert plan is not None
    assert plan.argv == (
        "claude",
        "--resume",
        "a82be759-b0cd-4d2b-9219-abad61d191d4",
        "--model",
        "claude-opus-4-8",
        "--effort",
        "high",
    )
    assert plan.cwd == "/home/alex/code/shop-api"
    assert plan.withheld == ("--permission-mode bypassPermissions",)
    assert (plan.program, plan.install_hint) == (
        "claude",
        "npm install -g @anthropic-ai/claude-code",
    )
    kept = claude.resume(session, keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == (
        "--permission-mode",
        "bypassPermissions",
    )
    assert not kept.withheld


@pytest.mark.parametrize(
    ("mode", "given"),
    # `manual` (2.1.3xx's name for the default) as `default`, which older releases take too
    [("default",) * 2, ("manual", "default"), ("plan",) * 2, ("dontAsk",) * 2],
)
def test_resume_passes_modes_at_least_as_strict_as_the_default(
    mode: str, given: str
) -> None:
    plan = claude.resume(Session(app="claude", id="x", cwd="/w", permission_mode=mode))
    assert plan is not None and plan.argv == (
        "claude",
        "--resume",
        "x",
        "--permission-mode",
        given,
    )
    assert not plan.withheld


def test_resume_skips_the_synthetic_model() -> None:
    plan = claude.resume(Session(app="claude", id="x", cwd="/w", model="<synthetic>"))
    assert plan is not None and plan.argv == ("claude", "--resume", "x")


def test_forks_that_are_not_rewinds_are_kept(tmp_path: Path) -> None:
    # parallel tool calls: a result and the response's next line share a parent
    first = {
        "type": "tool_use",
        "id": "t1",
        "name": "Read",
        "input": {"file_path": "a"},
    }
    second = {
        "type": "tool_use",
        "id": "t2",
        "name": "Read",
        "input": {"file_path": "b"},
    }
    lines = [
        prompt(1, "Read a and b"),
        record(
            "assistant", 2, message={"id": "m", "role": "assistant", "content": [first]}
        ),
        prompt(
            3,
            [{"type": "tool_result", "tool_use_id": "t1", "content": "A"}],
            parentUuid="u2",
        ),
        record(
            "assistant",
            4,
            parentUuid="u2",
            message={"id": "m", "role": "assistant", "content": [second]},
        ),
        prompt(
            5,
            [{"type": "tool_result", "tool_use_id": "t2", "content": "B"}],
            parentUuid="u4",
        ),
        reply(6, "Both read.", parentUuid="u5"),
    ]
    found = events(write(tmp_path / "s.jsonl", lines))
    assert [e.text for e in found if e.kind == "tool_result"] == ["A", "B"]
    assert not any("abandoned_branch" in e.extra for e in found)


def test_editing_the_first_prompt_abandons_the_old_first_turn(tmp_path: Path) -> None:
    lines = [
        prompt(1, "Wrong question"),
        reply(2, "An answer to the wrong question."),
        prompt(3, "Right question", parentUuid=None),
        reply(4, "The right answer.", parentUuid="u3"),
    ]
    found = events(write(tmp_path / "s.jsonl", lines))
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "Right question",
        "The right answer.",
    ]
    (rewound,) = [
        e.extra["abandoned_branch"] for e in found if "abandoned_branch" in e.extra
    ]
    assert rewound == {"uuid": "u1", "lines": 2, "subagents": 0}


def test_a_line_of_an_odd_shape_still_joins_its_abandoned_branch(
    tmp_path: Path,
) -> None:
    # a value of another type than the survey's typed decode takes (`isMeta` as text):
    # the line is placed from its bytes, which the survey reads as a view of its read
    lines = [
        prompt(1, "Wrong question"),
        reply(2, "An answer to the wrong question.", isMeta="no"),
        prompt(3, "Right question", parentUuid=None),
        reply(4, "The right answer.", parentUuid="u3"),
    ]
    found = events(write(tmp_path / "s.jsonl", lines))
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "Right question",
        "The right answer.",
    ]
    (rewound,) = [
        e.extra["abandoned_branch"] for e in found if "abandoned_branch" in e.extra
    ]
    assert rewound == {"uuid": "u1", "lines": 2, "subagents": 0}


def test_a_sub_agent_nothing_links_to_is_announced() -> None:
    # the agent-sessions sample: its Task call has no id and its meta.json no toolUseId;
    # the one spawn of its type and description names it (not a second, bare announce)
    found = events(PROJECTS / "-tmp" / "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")
    spawns = [(e.call_id, e.extra["child_id"]) for e in found if e.kind == "subagent"]
    assert spawns == [(None, "a0ad4f44468bdf20d")]
    child = [e.kind for e in found if e.agent_id == "a0ad4f44468bdf20d"]
    # its last line, a SubagentStop hook that let it stop, ends its turn
    assert child == ["user", "assistant", "tool_call", "tool_result", "turn_end"]


def test_records_parse_odd_lines_as_before(tmp_path: Path) -> None:
    # the inline orjson path hands every line it cannot take whole to `load`
    from sessdex.sources import _claude_records as rec

    path = tmp_path / "odd.jsonl"
    path.write_bytes(
        b'{"type":"user","n":1}\n'
        b"\n"
        b"   \n"
        b"[1, 2]\n"
        b'{"type":"user","text":"\\ud83d cut"}\n'  # a lone surrogate: U+FFFD
        b'{"type": broken\n'
        b'{"type":"assistant"'  # an unfinished last line: noted, not skipped
    )
    diagnostics = Diagnostics()
    found = list(rec.records(path, diagnostics, full=False))
    assert [(number, record) for number, _, record in found] == [
        (1, {"type": "user", "n": 1}),
        (5, {"type": "user", "text": "\ufffd cut"}),
    ]
    assert diagnostics.details == [
        (str(path), 4, "not an object"),
        (str(path), 6, "not JSON"),
    ]
    assert diagnostics.unfinished == {str(path): 19}


# --- what newer 2.1 builds write --------------------------------------------------------


def test_a_background_tasks_notification_is_not_a_prompt(tmp_path: Path) -> None:
    """A finished background task's `<task-notification>` comes as a queued command with
    `commandMode: task-notification`, or a user line whose `origin.kind` says so (both from
    Claude Code's bundle); the person typed neither."""
    note = "<task-notification>\n<task-id>bx1</task-id>\n<status>completed</status>\n</task-notification>"
    lines = [
        prompt(1, "start the build in the background"),
        reply(2, "Started."),
        record("attachment", 3, attachment={"type": "queued_command", "commandMode": "task-notification", "prompt": note}),
        prompt(4, note, origin={"kind": "task-notification"}),
        record("attachment", 5, attachment={"type": "queued_command", "prompt": "and run the tests"}),
    ]  # fmt: skip
    path = write(tmp_path / "s.jsonl", lines)
    found = events(path)
    said = [(e.text, e.extra) for e in found if e.kind == "user"]
    assert said == [
        ("start the build in the background", {}),
        (note, {"injected": True}),
        (note, {"injected": True}),
        ("and run the tests", {"queued": True}),
    ]
    lines = [
        prompt(1, note, origin={"kind": "task-notification"}),
        prompt(2, "the real ask"),
    ]
    assert listed(write(tmp_path / "t.jsonl", lines)).title == "the real ask"


def test_hook_stops_limits_goals_microcompactions_and_search_results(
    tmp_path: Path,
) -> None:
    search = {"type": "tool_result", "tool_use_id": "t1", "content": [
        {"type": "search_result", "source": "https://docs.example/x", "title": "Retries",
         "content": [{"type": "text", "text": "Use exponential backoff."}]}]}  # fmt: skip
    lines = [
        prompt(1, "go"),
        record("attachment", 2, attachment={"type": "hook_stopped_continuation", "hookName": "Stop", "message": "tests fail"}),
        record("attachment", 3, attachment={"type": "max_turns_reached", "maxTurns": 5}),
        record("attachment", 4, attachment={"type": "goal_status", "met": False, "reason": "2 tests fail"}),
        record("attachment", 5, attachment={"type": "relevant_memories", "memories": []}),
        record("system", 6, subtype="microcompact_boundary", microcompactMetadata={"trigger": "auto", "preTokens": 90000, "tokensSaved": 30000}),
        record("system", 7, subtype="memory_saved", writtenPaths=["/m.md"]),
        record("user", 8, message={"role": "user", "content": [search]}),
        record("tool_use_summary", 9, summary="Read 2 files"),
    ]  # fmt: skip
    diagnostics = Diagnostics()
    found = events(write(tmp_path / "s.jsonl", lines), diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    assert [e.text for e in found if e.kind == "error"] == [
        "Stop stopped the agent: tests fail",
        "stopped: the limit of 5 turns was reached",
    ]
    assert "goal not met: 2 tests fail" in [e.text for e in found if e.kind == "meta"]
    [micro] = [e for e in found if e.kind == "compaction"]
    assert (
        micro.extra["reason"] == "microcompact" and micro.extra["tokens_saved"] == 30000
    )
    [result] = [e for e in found if e.kind == "tool_result"]
    assert result.text == "[Retries — https://docs.example/x]\nUse exponential backoff."


def test_agents_a_workflow_launched_are_read_with_their_session(tmp_path: Path) -> None:
    """Agents a `Workflow` run launches write `subagents/workflows/<run>/agent-*.jsonl`,
    one level below Agent-tool sub-agents: `usage` counted them, `show` and `tree` now
    include them too."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    project = home / ".claude" / "projects" / "-home-alex-code-shop-api"
    child = project / SUBAGENT_RUN / "subagents" / "agent-a199d630441234c05.jsonl"
    run = project / SUBAGENT_RUN / "subagents" / "workflows" / "wf_8ca2332b-21c"
    run.mkdir(parents=True)
    text = child.read_text().replace("a199d630441234c05", "aw00000000000001")
    (run / "agent-aw00000000000001.jsonl").write_text(text.replace('"msg_', '"msgwf_'))
    found = events(project / f"{SUBAGENT_RUN}.jsonl")
    spawns = {e.extra.get("child_id"): e for e in found if e.kind == "subagent"}
    assert set(spawns) == {"a199d630441234c05", "aw00000000000001"}
    assert spawns["aw00000000000001"].extra["agent_type"] == "workflow"
    workflow = [e for e in found if e.agent_id == "aw00000000000001"]
    assert [e.kind for e in workflow if e.kind in ("user", "assistant")] == [
        "user",
        "assistant",
    ]
    before = total(events(REALCLI / f"{SUBAGENT_RUN}.jsonl"))
    assert total(found)[0] == before[0] + 2400  # its two requests of 1,200 input each


# --- agent teams ------------------------------------------------------------------------


def test_teammate_messages_are_input_from_their_sender(tmp_path: Path) -> None:
    """An agent-team lead receives what teammates send as a user line of envelopes
    (shape from public 2.1.x transcripts): each is input from its sender, a JSON protocol
    note a meta line, and neither is a title nor something the person typed."""
    envelopes = (
        "Another Claude session sent a message:\n"
        '<teammate-message teammate_id="researcher" color="blue" summary="found it">\n'
        "The flaky test waits on a real clock.\n"
        "</teammate-message>\n"
        '<teammate-message teammate_id="researcher" color="blue">'
        '{"type":"idle_notification","from":"researcher","idleReason":"available"}'
        "</teammate-message>"
    )
    quoted = 'Why does <teammate-message teammate_id="x"> show up in my log?'
    path = write(
        tmp_path / "p" / "s.jsonl",
        [
            prompt(1, "Find why checkout is flaky"),
            reply(2, "Asking the team."),
            prompt(3, envelopes),
            reply(4, "Fixing the clock."),
            prompt(5, quoted),
        ],
    )
    diagnostics = Diagnostics()
    found = events(path, diagnostics)
    assert not diagnostics.unknown
    inputs = [
        (e.kind, e.text, e.extra.get("from_agent"))
        for e in found
        if e.kind in ("user", "meta")
    ]
    assert inputs == [
        ("user", "Find why checkout is flaky", None),
        ("user", "The flaky test waits on a real clock.", "researcher"),
        ("meta", "researcher: idle notification: available", "researcher"),
        ("user", quoted, None),  # a prompt that mentions an envelope is a prompt
    ]
    # each message starts a turn: the lead's reply to it is billed on its own
    assert [e.kind for e in found].count("usage") == 2
    assert listed(path).title == "Find why checkout is flaky"


def test_a_teammate_envelope_only_counts_when_it_is_the_whole_line() -> None:
    from sessdex.sources import _claude_records as rec

    one = '<teammate-message teammate_id="a">hi</teammate-message>'
    assert rec.teammate_messages(one) == [("a", "hi")]
    assert rec.teammate_messages(one + " and more") is None
    assert rec.teammate_messages("see " + one) is None
    assert rec.teammate_messages('<teammate-message teammate_id="a">cut') is None
    assert rec.teammate_note("{not json") is None and rec.teammate_note("plain") is None
    assert rec.teammate_note('{"type": "shutdown_request"}') == "shutdown request"


def test_a_teammate_mailbox_and_a_queued_envelope_are_messages_from_teammates(
    tmp_path: Path,
) -> None:
    """Messages that arrive while the agent is busy are written as a `teammate_mailbox`
    attachment (or a queued prompt holding the envelope): the same events as a user line
    of envelopes."""
    mailbox = {
        "type": "teammate_mailbox",
        "messages": [
            {"from": "team-lead", "text": "ping from the lead", "color": "cyan",
             "timestamp": "2026-11-24T12:00:03.000Z"},
            {"from": "scribe", "text": json.dumps({"type": "teammate_terminated",
                                                     "message": "scribe has been terminated"})},
            {"from": "ghost", "text": ""},
            "not a message",
        ],
    }  # fmt: skip
    queued = {
        "type": "queued_command",
        "commandMode": "prompt",
        "prompt": '<teammate-message teammate_id="delta" color="blue" summary="READY">\n'
        "READY delta\n</teammate-message>",
    }
    path = write(
        tmp_path / "p" / "s.jsonl",
        [
            prompt(1, "hello crew"),
            record("attachment", 2, attachment=mailbox),
            reply(3, "on it"),
            record("attachment", 4, attachment=queued),
        ],
    )
    diagnostics = Diagnostics()
    found = events(path, diagnostics)
    assert not diagnostics.unknown
    said = [
        (e.kind, e.text, e.extra.get("from_agent"))
        for e in found
        if e.extra.get("from_agent")
    ]
    assert said == [
        ("user", "ping from the lead", "team-lead"),
        ("meta", "scribe: teammate terminated: scribe has been terminated", "scribe"),
        ("user", "READY delta", "delta"),
    ]


def test_a_teammate_spawn_carries_the_name_the_lead_gave_it(tmp_path: Path) -> None:
    from sessdex.tree import build_tree

    call = {"type": "tool_use", "id": "toolu_spawn", "name": "Agent",
            "input": {"name": "water", "team_name": "party", "description": "water the plants",
                      "prompt": "work"}}  # fmt: skip
    spawn = reply(2, "")
    spawn["message"]["content"] = [call]  # type: ignore[index]
    path = write(tmp_path / "p" / "s.jsonl", [prompt(1, "start the crew"), spawn])
    found = events(path)
    [event] = [e for e in found if e.kind == "subagent"]
    assert event.extra["agent_name"] == "water" and event.text == "water the plants"
    [child] = build_tree("s", found).children
    assert child.agent_name == "water"


def test_newer_session_state_is_known_a_pr_link_shows_once_and_a_move_is_followed(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1.26x-2.1.29x (third-party readers of real files): a conversation
    sent to the background ends with `continued-in`, naming the session it goes on in;
    `ended-by-model` says the model closed it; session state (`pr-link` among it) is
    written again at each save, and new state records and harness attachments carry no
    conversation. None of it is unknown; one link shows once; the move is listed and
    said on resume."""
    from tests.helpers import claude_line, write_claude_session

    sid, moved = (
        "c1a2b3c4-0000-4000-8000-000000000001",
        "c1a2b3c4-0000-4000-8000-0000000000ff",
    )
    path = write_claude_session(tmp_path, sid, "/home/dev/shop")
    link = {"type": "pr-link", "sessionId": sid, "prNumber": 7,
            "prUrl": "https://github.com/dev/shop/pull/7", "timestamp": "2026-11-20T10:01:00.000Z"}  # fmt: skip
    state = [
        link, link, link,
        {"type": "history-suppression", "cause": "fork_inherit", "sessionId": sid},
        {"type": "artifact-comment-monitor", "sessionId": sid},
        {"type": "dev-mods", "sessionId": sid},
        claude_line(sid, "/home/dev/shop", type="attachment", uuid="a9", parentUuid="a1",
                    attachment={"type": "environment", "snapshot": {"workingDirectory": "/x"}}),
        claude_line(sid, "/home/dev/shop", type="attachment", uuid="a10", parentUuid="a9",
                    attachment={"type": "session_context", "context": {"userEmail": "dev@example.com"}}),
        claude_line(sid, "/home/dev/shop", type="system", subtype="cloud_session_status",
                    uuid="s1", parentUuid="a10", content=""),
        {"type": "ended-by-model", "sessionId": sid, "timestamp": "2026-11-20T10:02:00.000Z"},
        {"type": "continued-in", "sessionId": sid, "continuedInSessionId": moved},
    ]  # fmt: skip
    with path.open("a") as file:
        file.writelines(json.dumps(line) + "\n" for line in state)
    diagnostics = Diagnostics()
    found = events(path, diagnostics)
    assert not diagnostics.unknown and not diagnostics.skipped
    said = [e.text for e in found if e.kind == "meta"]
    assert said.count("pull request: https://github.com/dev/shop/pull/7") == 1
    assert "the model ended the conversation" in said
    assert f"continued in session {moved} (sent to the background)" in said
    assert "dev@example.com" not in json.dumps([e.text for e in found])
    session = claude.parse(path, claude.locate(Home.at(tmp_path)), Diagnostics())[0]
    assert session.extra["continued_in"] == moved
    plan = claude.resume(session)
    assert plan is not None and any(moved in note for note in plan.notes)
    with path.open("a") as file:  # an id no one could type: not offered
        file.write(
            json.dumps({"type": "continued-in", "continuedInSessionId": "x; rm -rf ~"})
            + "\n"
        )
    again = claude.parse(path, claude.locate(Home.at(tmp_path)), Diagnostics())[0]
    assert "continued_in" not in again.extra


def test_a_prompt_that_starts_with_markup_is_still_what_the_person_typed(
    tmp_path: Path,
) -> None:
    """Claude Code's own wrappers have dashed or underscored tag names (`<command-name>`,
    `<local-command-stdout>`); a prompt opening with HTML is the person's question."""
    question = "<div> is not centered in my flexbox, why?"
    path = write(
        tmp_path / "s.jsonl",
        [
            prompt(1, "<local-command-stdout>(no content)</local-command-stdout>"),
            prompt(2, question),
            reply(3, "Use align-items."),
        ],
    )
    assert listed(path).title == question
    path = write(
        tmp_path / "t.jsonl",
        [prompt(1, "<command-name>/clear</command-name>"), prompt(2, question)],
    )
    assert listed(path).title == question


def test_a_sub_agents_report_is_shown_without_the_note_for_the_model() -> None:
    """Claude Code appends to a sub-agent's report how the model may continue it
    (`agentId: … (use SendMessage …)`) and what it spent: the report is the result."""
    found = events(REALCLI / f"{SUBAGENT_RUN}.jsonl")
    [report] = [e for e in found if e.kind == "tool_result" and e.agent_id is None]
    assert report.text == "Sub-agent report: the command printed hello-from-subagent."
    assert report.extra["result"]["agentId"] == "a199d630441234c05"  # type: ignore[index,call-overload]


def test_an_api_error_says_whether_claude_code_tries_again(tmp_path: Path) -> None:
    lines = [
        prompt(1, "go"),
        record("system", 2, subtype="api_error", retryAttempt=2, maxRetries=10,
               error={"message": "Overloaded"}),
        record("system", 3, subtype="api_error", retryAttempt=10, maxRetries=10,
               error={"message": "Overloaded"}),
    ]  # fmt: skip
    errors = [
        e.extra for e in events(write(tmp_path / "s.jsonl", lines)) if e.kind == "error"
    ]
    assert errors == [{"retrying": True}, {"final": True}]


def test_a_line_nested_too_deep_for_any_parser_is_one_skipped_line(
    tmp_path: Path,
) -> None:
    """orjson refuses a line nested 200,000 deep, and so does the fallback json (its
    recursion limit): that line is skipped and counted, and the read goes on."""
    path = write(tmp_path / "s.jsonl", [prompt(1, "before"), reply(2, "ok")])
    with open(path, "ab") as out:
        out.write(b"[" * 200_000 + b"\n")
        out.write(json.dumps(reply(3, "after")).encode() + b"\n")
    diagnostics = Diagnostics()
    said = [e.text for e in events(path, diagnostics) if e.kind == "assistant"]
    assert said == ["ok", "after"]
    assert diagnostics.skipped_total == 1 and not diagnostics.problems


def test_the_reader_cuts_lines_as_the_line_rules_do_for_any_lengths_and_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both passes of a read (the survey, then the events) cut the file into the lines
    `files.iter_lines` gives, whatever the lengths (empty, at the cap, over it: long
    strings elided) and wherever a read ends, a line begun in one read included; the
    second pass takes the long lines the first compacted and gives the same."""
    import random

    from sessdex.sources import _claude_records as rec

    cap = 60
    monkeypatch.setattr(files, "READ_LINE_CAP", cap)
    monkeypatch.setattr(files, "KEEP_STRING", 8)
    draw = random.Random(11)
    path = tmp_path / "a.jsonl"
    for trial in range(400):
        monkeypatch.setattr(files, "CHUNK", draw.choice([3, 16, 64, 4096]))
        lines = []
        for _ in range(draw.choice([0, 1, 2, 5, 30])):
            size = draw.choice([0, 1, cap - 9, cap - 8, cap - 7, 2 * cap, 9 * cap])
            size = size if draw.random() < 0.4 else draw.randint(0, cap)
            lines.append(b'{"a":"' + b"x" * size + b'"}' if size else b"")
        content = b"\n".join(lines) + (b"\n" if draw.random() < 0.5 else b"")
        path.write_bytes(content)
        with path.open("rb") as stream:
            expected = [
                (line.number, line.data, line.complete, line.compacted, line.offset)
                for line in files.iter_lines(stream, cap=cap, oversize="compact")
            ]
        kept = rec.LongLines()
        for _ in range(2):  # compacting, then taking what the first pass kept
            with path.open("rb") as stream:
                assert list(rec.split(stream, str(path), 0, kept)) == expected, trial


def test_a_long_line_the_survey_found_unfinished_ends_the_event_pass_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer finished the line between the two passes: its rest is not a line of
    its own (a broken one, counted), and the event pass stops where the survey did."""
    from sessdex.sources import _claude_records as rec

    monkeypatch.setattr(files, "READ_LINE_CAP", 64)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":"' + b"x" * 1000)  # its first bytes as they will stay
    kept = rec.LongLines()
    with path.open("rb") as stream:
        (survey,) = list(rec.split(stream, str(path), 0, kept))
    assert survey[2] is False and survey[3] is True  # unfinished, compacted
    with path.open("ab") as grow:
        grow.write(b'"}\n{"b":1}\n')
    with path.open("rb") as stream:
        assert list(rec.split(stream, str(path), 0, kept)) == [survey]


def test_the_entries_2_1_332_writes_beside_the_conversation_are_known(
    tmp_path: Path,
) -> None:
    """Shapes from the 2.1.332 program's transcript tables and writers: bookkeeping is
    passed over without a word (no "unknown record type" in doctor), the account that
    owns the session is never shown, and each session a `derived-from` entry names is
    one meta event however often the entry is written again."""
    origin = "0b9c5f1e-4c3a-4d2b-9e8f-7a6b5c4d3e2f"
    derived = {
        "type": "derived-from", "v": 1, "sessionId": "s",
        "sessions": [
            {"type": "claude_code_session", "id": origin, "via": "branch"},
            {"type": "claude_code_session", "id": "s", "via": "compact"},  # itself
            {"type": "web_page", "id": "https://example.com"},
        ],
    }  # fmt: skip
    lines = [
        prompt(1, "Carry on from the branch"),
        derived,
        {"type": "api-request-resumed", "sessionId": "s", "messageId": "m",
         "pausedRequestId": "r1", "resumedRequestId": "r2",
         "timestamp": "2026-11-24T12:00:02.000Z", "version": "2.1.332"},
        {"type": "data-flow-records", "v": 1, "sessionId": "s", "records": []},
        {"type": "data-flow-incomplete", "v": 1, "sessionId": "s", "codes": ["x"]},
        {"type": "resume-head-vouch", "sessionId": "s", "sum": "abc"},
        {"type": "session-owner", "accountUuid": "acct-secret-1",
         "organizationUuid": "org-secret-2", "sessionId": "s"},
        {"type": "hybrid-organization", "organizationUuid": "org-secret-3",
         "sessionId": "s"},
        {"type": "tools-used", "tools": ["Bash", "Read"], "sessionId": "s"},
        {"type": "repl-mode", "replMode": "code", "sessionId": "s"},
        reply(3, "Carried on."),
        derived,  # the session state written again at the next save
    ]  # fmt: skip
    diagnostics = Diagnostics()
    found = events(write(tmp_path / "s.jsonl", lines), diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    origins = [e for e in found if "derived_from" in e.extra]
    assert [(e.extra["derived_from"], e.extra["via"]) for e in origins] == [
        (origin, "branch")
    ]
    assert origins[0].text == f"derived from session {origin} (branch)"
    shown = json.dumps([[e.text, e.extra] for e in found], default=str)
    assert "secret" not in shown
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "Carry on from the branch",
        "Carried on.",
    ]


def test_a_sub_agent_whose_transcript_is_gone_is_named(tmp_path: Path) -> None:
    # the Task's result came back naming the agent, and its file went (cleaned up, or
    # copied without it): the tree shows it empty, and the read says why
    project = tmp_path / "project"
    shutil.copytree(SYNTHETIC, project)
    lead = project / "33333333-3333-4333-8333-333333333333.jsonl"
    for path in (lead.with_suffix("") / "subagents").glob("agent-a1c1c1c1c1c1c1c1c*"):
        path.unlink()
    kept = Diagnostics()
    assert any(e.kind == "subagent" for e in events(lead, kept))
    assert kept.problems == [
        "claude: sub-agent a1c1c1c1c1c1c1c1c: transcript not found"
    ]
    whole = Diagnostics()
    events(SYNTHETIC / lead.name, whole)
    assert whole.problems == []


def test_a_sub_agent_whose_transcript_is_a_pipe_is_said_so(tmp_path: Path) -> None:
    # its file's place holds a pipe (never opened): the transcript is there, not a file
    project = tmp_path / "project"
    shutil.copytree(SYNTHETIC, project)
    lead = project / "33333333-3333-4333-8333-333333333333.jsonl"
    folder = lead.with_suffix("") / "subagents"
    for path in folder.glob("agent-a1c1c1c1c1c1c1c1c*"):
        path.unlink()
    os.mkfifo(folder / "agent-a1c1c1c1c1c1c1c1c.jsonl")
    kept = Diagnostics()
    assert any(e.kind == "subagent" for e in events(lead, kept))
    assert len(kept.problems) == 1, kept.problems
    assert "not a regular file" in kept.problems[0]
    assert "a1c1c1c1c1c1c1c1c" in kept.problems[0]
    assert "not found" not in kept.problems[0]


def test_usage_passes_over_a_line_nested_past_the_decoders_depth(
    tmp_path: Path,
) -> None:
    # a value nested thousands deep raised RecursionError out of the strict decoder:
    # the file's every response went uncounted, "a sessdex bug"
    original = next(DATA.glob("home/.claude/projects/-home-alex-code-shop-api/*.jsonl"))
    path = tmp_path / original.name
    lines = original.read_bytes().splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if b'"stop_reason":' in line)
    record = json.loads(lines[at])
    record["message"]["stop_reason"] = "DEEP"  # in a response counted on its own line
    lines[at] = json.dumps(record).replace('"DEEP"', "[" * 5000 + "]" * 5000).encode()
    path.write_bytes(
        b"".join(lines[:at]) + lines[at] + b"\n" + b"".join(lines[at + 1 :])
    )
    counted = [r.usage for r in claude.usage_records(original, Diagnostics()).records]
    others = [r.usage for r in claude.usage_records(path, Diagnostics()).records]
    assert len(counted) > 1 and others  # the deep line's response alone is passed over
    assert all(usage in counted for usage in others)


def test_a_live_sub_agent_without_meta_reads_only_siblings_written_since_its_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm `list` reparses the one sub-agent still writing; without its meta file it
    looked for its spawner in every sibling's head and tail, each run anew (a folder of
    2,000 finished sub-agents tripled the run). A spawner's call is written just before
    its child starts, and its result after: a sibling last written long before the
    child started holds neither, and is not read."""
    from sessdex.sources import _claude_spawns

    lead = write(tmp_path / "p" / "s.jsonl", [prompt(1, "go"), reply(2, "ok")])
    folder = lead.with_suffix("") / "subagents"
    old = datetime(2026, 11, 1, tzinfo=UTC).timestamp()
    for n in range(40):
        asked = prompt(3, f"Job {n}.", isSidechain=True, agentId=f"a{n}")
        done = write(folder / f"agent-a{n}.jsonl", [asked, reply(4, "done")])
        os.utime(done, (old, old))
    call = {"type": "tool_use", "id": "toolu_9", "name": "Agent",
            "input": {"prompt": "Nested job.", "subagent_type": "x"}}  # fmt: skip
    spawn = reply(5, "", agentId="s1")
    spawn["message"]["content"] = [call]  # type: ignore[index]
    asked = prompt(3, "Job s.", isSidechain=True, agentId="s1")
    write(folder / "agent-s1.jsonl", [asked, spawn])
    nested = prompt(6, "Nested job.", isSidechain=True, agentId="b1")
    write(folder / "agent-b1.jsonl", [nested])
    scanned: list[str] = []
    scan = _claude_spawns._scan

    def counted(path: str, agent: str, size: int) -> object:
        scanned.append(os.path.basename(path))
        return scan(path, agent, size)

    monkeypatch.setattr(_claude_spawns, "_scan", counted)
    monkeypatch.setattr(_claude_spawns, "_kept", {})  # a new process: nothing kept
    location = claude.locate(Home.at(tmp_path))
    [row] = claude.parse(folder / "agent-b1.jsonl", location, Diagnostics())
    assert (row.parent_id, row.agent_type) == ("s1", "x")
    assert sorted(scanned) == ["agent-b1.jsonl", "agent-s1.jsonl"]
    # one of the old ones, listed in the same process, still finds its spawner's call
    # (none here: it is the lead's) and every sibling is then read, once; the lead's
    # call is looked up by the index, in what the lead's own listing found
    [first] = claude.parse(folder / "agent-a0.jsonl", location, Diagnostics())
    assert first.parent_id == "s"
    assert len(scanned) == 42 and "s.jsonl" not in scanned


def test_a_sub_agent_without_meta_has_one_spawner_whatever_was_listed_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sub-agents asked for the same job, one a month before the other: the child
    started just after the recent call is placed under that caller when listed alone.
    Listed after a younger sibling without meta (a warm `list` of a busy folder), the
    whole folder was read for it and the month-old call counted too: two callers, so
    the child went under the lead instead, as a later `list` could not explain."""
    from sessdex.sources import _claude_spawns

    def stamp(path: Path, when: str) -> None:
        moment = datetime.fromisoformat(when).timestamp()
        os.utime(path, (moment, moment))

    def spawning(agent: str, n: int, **fields: object) -> dict[str, object]:
        call = {"type": "tool_use", "id": f"toolu_{agent}", "name": "Agent",
                "input": {"prompt": "Nested job.", "subagent_type": agent}}  # fmt: skip
        spawn = reply(n, "", isSidechain=True, agentId=agent, **fields)
        spawn["message"]["content"] = [call]  # type: ignore[index]
        return spawn

    lead = write(tmp_path / "p" / "s.jsonl", [prompt(1, "go"), reply(2, "ok")])
    folder = lead.with_suffix("") / "subagents"
    month_ago = "2026-10-24T12:00:00+00:00"
    asked = prompt(1, "Job 1.", isSidechain=True, agentId="s1", timestamp=month_ago)
    old = write(
        folder / "agent-s1.jsonl", [asked, spawning("s1", 2, timestamp=month_ago)]
    )
    stamp(old, month_ago)
    asked = prompt(3, "Job 2.", isSidechain=True, agentId="s2")
    stamp(
        write(folder / "agent-s2.jsonl", [asked, spawning("s2", 5)]),
        "2026-11-24T12:00:10+00:00",
    )
    nested = prompt(6, "Nested job.", isSidechain=True, agentId="b1")
    stamp(write(folder / "agent-b1.jsonl", [nested]), "2026-11-24T12:00:07+00:00")
    later = "2026-11-30T12:00:00+00:00"
    asked = prompt(1, "Other job.", isSidechain=True, agentId="y1", timestamp=later)
    stamp(write(folder / "agent-y1.jsonl", [asked]), later)
    location = claude.locate(Home.at(tmp_path))

    def parent(name: str) -> str | None:
        [row] = claude.parse(folder / f"agent-{name}.jsonl", location, Diagnostics())
        return row.parent_id

    monkeypatch.setattr(_claude_spawns, "_kept", {})  # a new process: nothing kept
    alone = parent("b1")
    monkeypatch.setattr(_claude_spawns, "_kept", {})
    assert parent("y1") == "s"
    assert (alone, parent("b1")) == ("s2", "s2")


def test_what_2_1_332_writes_of_repl_scripts_fallbacks_and_cut_tool_results(
    tmp_path: Path,
) -> None:
    """Shapes from the 2.1.332 program's writers: a REPL script's `host-row`, the
    attachments in its own set of context for the model, the plan's `file_snapshot` are
    passed over without a word (no "unknown record type" in doctor); a model that fell
    back (`model_fallback`, `model_consent_fallback`) is a meta event naming both models,
    and tool outputs cut for the model (`tool_results_cut`) a compaction."""
    opus, sonnet = "claude-opus-4-5", "claude-sonnet-4-5"
    lines = [
        prompt(1, "Refactor the parser"),
        {"type": "host-row", "sessionId": "s", "timestamp": "2026-11-24T12:00:02.000Z",
         "ranByToolUseId": "toolu_1"},
        {"type": "data-flow-handover", "v": 1, "sessionId": "s"},
        record("attachment", 3, attachment={"type": "at_mention_reference", "filename": "/a.py"}),
        record("attachment", 4, attachment={"type": "prompt_as_file", "promptUuid": "u1",
               "path": "/tmp/p.txt", "characters": 40000}),
        record("attachment", 5, attachment={"type": "session_cron_carry", "tasks": []}),
        record("attachment", 6, attachment={"type": "elapsed_time_reminder"}),
        record("system", 7, subtype="file_snapshot", content="File snapshot", level="info",
               isMeta=True, snapshotFiles=[{"key": "plan", "path": "/p.md", "content": "x"}]),
        record("system", 8, subtype="model_fallback", content="Opus is overloaded",
               level="warning", trigger="overloaded", originalModel=opus,
               fallbackModel=sonnet, isMeta=False),
        reply(9, "Done."),
        record("attachment", 10, attachment={"type": "tool_results_cut",
               "callIds": ["toolu_1", "toolu_2"], "standIn": "[cut]",
               "roughTokens": 12000, "cause": "return_after_idle"}),
        record("system", 11, subtype="model_consent_fallback", content="Switched",
               level="warning", choice="consent", originalModel=opus,
               fallbackModel=sonnet, persistedAsDefault=False, isMeta=False),
    ]  # fmt: skip
    diagnostics = Diagnostics()
    found = events(write(tmp_path / "s.jsonl", lines), diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    fell = [e for e in found if e.kind == "meta" and "fell back" in (e.text or "")]
    assert [(e.text, e.extra["model"]) for e in fell] == [
        (f"model fell back from {opus} to {sonnet}", sonnet)
    ] * 2
    [cut] = [e for e in found if e.kind == "compaction"]
    assert (cut.extra["reason"], cut.extra["calls"], cut.extra["tokens_saved"]) == (
        "tool_results_cut",
        2,
        12000,
    )
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "Refactor the parser",
        "Done.",
    ]


def test_what_2_1_337_writes_of_denials_routes_and_files_changed_by_sub_agents(
    tmp_path: Path,
) -> None:
    """Shapes from the 2.1.337 program (npm @anthropic-ai/claude-code-linux-x64 2.1.337,
    GIT_SHA 880a43ce831a, its transcript tables and writers): auto mode's saved
    `denial-counts`, the `api-request-route` a session ran through and the new
    attachments of context for the model are passed over without a word (no "unknown
    record type" in doctor); the files sub-agents and Stop hooks changed in a turn
    (`system`/`subagent_file_changes`, its `bashEditDiff`) are a meta event naming them."""
    lines = [
        prompt(1, "Fix the tests with a sub-agent"),
        {"type": "denial-counts", "sessionId": "s", "consecutive": 1, "total": 3},
        {"type": "api-request-route", "provider": "firstParty", "credential": "login",
         "sessionId": "s"},
        record("attachment", 2, attachment={"type": "auto_mode_rules", "text": "rules"}),
        record("attachment", 3, attachment={"type": "plugin_rules", "names": ["p"],
               "rules": ["r"]}),
        record("attachment", 4, attachment={"type": "projects_instructions",
               "blocks": ["b"], "changed": False}),
        record("attachment", 5, attachment={"type": "attached_file_names",
               "names": ["a.png"]}),
        record("attachment", 6, attachment={"type": "attachment_answer",
               "rowUuid": "u5", "leftOut": True}),
        record("attachment", 7, attachment={"type": "blocked_prompts_withdrawn",
               "prompts": [], "rest": [], "standIn": "[withdrawn]"}),
        record("attachment", 8, attachment={"type": "web_fetch_scope_notice",
               "scope": "may_open"}),
        record("attachment", 8, attachment={"type": "routine_fire",
               "firedAt": "Dec 4, 2026, 9:00 AM UTC", "name": "nightly"}),
        reply(9, "Fixed."),
        record("system", 10, subtype="subagent_file_changes", isMeta=False,
               bashEditDiff={"files": [], "moreFiles": 2,
                             "changedFiles": ["/home/dev/app/a.py", "/home/dev/app/b.py"],
                             "changedLines": [{"added": 4, "removed": 1}, None],
                             "createdFiles": ["/home/dev/app/b.py"], "deletedFiles": []}),
        record("system", 11, subtype="subagent_file_changes", isMeta=False,
               bashEditDiff={"files": [], "moreFiles": 0, "changedFiles": [],
                             "changedLines": [], "createdFiles": [], "deletedFiles": [],
                             "unavailable": True}),
    ]  # fmt: skip
    diagnostics = Diagnostics()
    found = events(write(tmp_path / "s.jsonl", lines), diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    changed = [e for e in found if e.kind == "meta" and "changed" in (e.text or "")]
    assert [e.text for e in changed] == [
        "sub-agents or hooks changed 2 files: /home/dev/app/a.py, /home/dev/app/b.py",
        "sub-agents or hooks changed files Claude Code could not list",
    ]
    assert changed[0].extra["changed_files"] == 2
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "Fix the tests with a sub-agent",
        "Fixed.",
    ]


def test_prompts_a_safety_check_blocked_and_claude_code_withdrew_are_said(
    tmp_path: Path,
) -> None:
    """2.1.337 (npm @anthropic-ai/claude-code-linux-x64 2.1.337, its query loop): after
    a refusal, the next turn writes a `blocked_prompts_withdrawn` attachment naming the
    blocked prompts (`prompts`) and the refused turn's rows (`rest`), which the model
    then sees as `standIn`; the person is told "Claude no longer sees the earlier
    message that was flagged". The prompt still shows as typed, and a meta event at
    that point says Claude no longer sees it."""
    stand_in = "A message from the user stood here. A safety check blocked it ..."
    lines = [
        prompt(1, "the blocked question"),
        record("assistant", 2, message={"id": "msg_2", "role": "assistant",
               "model": "claude-opus-4-6", "content": [], "stop_reason": "refusal"},
               requestId="req_2"),
        prompt(3, "another try"),
        record("attachment", 4, attachment={"type": "blocked_prompts_withdrawn",
               "prompts": ["u1"], "rest": ["u2"], "standIn": stand_in}),
        reply(5, "Sure."),
        record("attachment", 6, attachment={"type": "blocked_prompts_withdrawn",
               "prompts": ["u7", "u8"], "rest": [], "standIn": stand_in}),
    ]  # fmt: skip
    diagnostics = Diagnostics()
    found = events(write(tmp_path / "s.jsonl", lines), diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    withdrawn = [e for e in found if e.extra.get("withdrawn_prompts")]
    assert [(e.kind, e.text) for e in withdrawn] == [
        ("meta", "a safety check blocked 1 earlier prompt: Claude no longer sees it"),
        (
            "meta",
            "a safety check blocked 2 earlier prompts: Claude no longer sees them",
        ),
    ]
    assert [e.text for e in found if e.kind == "user"] == [
        "the blocked question",
        "another try",
    ]


def test_a_response_run_on_us_only_inference_costs_a_tenth_more(
    tmp_path: Path,
) -> None:
    """Anthropic bills US-only inference (`usage.inference_geo: "us"`, Claude 4.6 and later)
    1.1 times every rate, and Claude Code 2.1.239+ counts it so in its cost; `usage` does
    too, the advisor's calls of such a response included, and still after a read that
    carries on from where the last one stopped."""
    from sessdex import usage

    def response(n: int, geo: str | None) -> dict[str, object]:
        tokens: dict[str, object] = {
            "input_tokens": 1000, "output_tokens": 400, "cache_read_input_tokens": 5000,
            "cache_creation_input_tokens": 2000, "service_tier": "standard",
            "iterations": [{"type": "message", "input_tokens": 1000, "output_tokens": 400},
                           {"type": "advisor_message", "model": "claude-opus-4-6",
                            "input_tokens": 3000, "output_tokens": 200}],
        }  # fmt: skip
        if geo is not None:
            tokens["inference_geo"] = geo
        return record("assistant", n, requestId=f"req_{n}", message={
            "id": f"msg_{n}", "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
            "usage": tokens}, version="2.1.332")  # fmt: skip

    def cost(name: str, geo: str | None) -> float:
        home = tmp_path / name
        write(home / ".claude" / "projects" / "-home-dev-app" / f"{name}.jsonl",
              [prompt(1, "go"), response(2, geo)])  # fmt: skip
        found = usage.collect(Home.at(home), ["claude"]).buckets
        [day] = [row.record() for row in usage.report(found, "daily")]
        assert day["responses"] == 2  # the response and its advisor's calls
        return float(day["cost_usd"])  # type: ignore[arg-type]

    worldwide = cost("global", "global")
    assert cost("unsaid", None) == pytest.approx(worldwide)
    assert cost("us", "us") == pytest.approx(1.1 * worldwide)
    # the file grows: a read that carries on from where the last one stopped (as `usage`
    # does with a big transcript) keeps the factor of a response it dates again
    path = write(tmp_path / "s.jsonl", [prompt(1, "go"), response(2, "us")])
    first = claude.usage_records(path, Diagnostics())
    with path.open("ab") as more:  # the response's next block, then a worldwide one
        for line in (response(2, "us") | {"uuid": "u2b"}, response(4, None)):
            more.write(json.dumps(line).encode() + b"\n")
    then = claude.usage_records(
        path, Diagnostics(), offset=first.offset, state=first.state
    )
    explained = claude.usage_records(path, Diagnostics(), explain=True).records
    notes = {r.key: r.note for r in explained}
    assert notes["msg_2:req_2"].endswith(
        ", run on US-only inference: 1.1 times the price"
    )
    assert "US-only" not in notes["msg_4:req_4"]
    assert [(r.key, r.price_factor) for r in first.records] == [
        ("msg_2:req_2", 1.1), ("msg_2:req_2+advisor:claude-opus-4-6", 1.1)
    ]  # fmt: skip
    assert sorted((r.key, r.price_factor) for r in then.records) == [
        ("msg_2:req_2", 1.1), ("msg_2:req_2+advisor:claude-opus-4-6", 1.1),
        ("msg_4:req_4", 1.0), ("msg_4:req_4+advisor:claude-opus-4-6", 1.0),
    ]  # fmt: skip


def test_web_searches_are_billed_a_cent_each_once_per_response(tmp_path: Path) -> None:
    """Anthropic bills each web search $0.01 beside its tokens, and Claude Code 2.1.332
    counts `usage.server_tool_use.web_search_requests` so in its cost (not times the
    US-only factor; web fetches cost only their tokens). A response written as several
    lines, each repeating the count, pays for its searches once; `--explain` says so, and a
    read that carries on from where the last one stopped keeps them."""
    from sessdex import usage

    def response(
        n: int, searches: int, block: str = "a", **more: object
    ) -> dict[str, object]:
        tokens: dict[str, object] = {
            "input_tokens": 1000, "output_tokens": 400, "cache_read_input_tokens": 5000,
            "cache_creation_input_tokens": 2000, "service_tier": "standard",
            "server_tool_use": {"web_search_requests": searches, "web_fetch_requests": 2},
        } | more  # fmt: skip
        return record("assistant", n, uuid=f"u{n}{block}", requestId=f"req_{n}", message={
            "id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "Found it."}], "stop_reason": "end_turn",
            "usage": tokens}, version="2.1.332")  # fmt: skip

    def cost(name: str, lines: list[dict[str, object]]) -> float:
        home = tmp_path / name
        write(home / ".claude" / "projects" / "-home-dev-app" / f"{name}.jsonl",
              [prompt(1, "look it up"), *lines])  # fmt: skip
        found = usage.collect(Home.at(home), ["claude"]).buckets
        [day] = [row.record() for row in usage.report(found, "daily")]
        return float(day["cost_usd"])  # type: ignore[arg-type]

    tokens_only = cost("none", [response(2, 0)])
    # three lines of one response (text, tool use, text), each with its count of 3
    three = [response(2, 3, block) for block in "abc"]
    assert cost("searched", three) == pytest.approx(tokens_only + 0.03)
    us = cost("us", [response(2, 3, inference_geo="us")])
    assert us == pytest.approx(1.1 * tokens_only + 0.03)
    path = write(tmp_path / "s.jsonl", [prompt(1, "go"), response(2, 3)])
    notes = {r.key: r.note for r in claude.usage_records(path, Diagnostics(), explain=True).records}  # fmt: skip
    assert (
        notes["msg_2:req_2"] == "one line (msg_2:req_2), 3 web searches at $0.01 each"
    )
    first = claude.usage_records(path, Diagnostics())
    with path.open(
        "ab"
    ) as more:  # the response's next block, then one without searches
        for line in (response(2, 3, "b"), response(4, 0)):
            more.write(json.dumps(line).encode() + b"\n")
    then = claude.usage_records(
        path, Diagnostics(), offset=first.offset, state=first.state
    )
    assert sorted((r.key, r.fee_usd) for r in then.records) == [
        ("msg_2:req_2", pytest.approx(0.03)), ("msg_4:req_4", 0.0)
    ]  # fmt: skip
    assert [r.replaces.fee_usd for r in then.records if r.replaces] == [
        pytest.approx(0.03)
    ]  # the response counted before is taken back whole, its searches with it


def test_a_repl_scripts_calls_are_marked_virtual_and_bill_nothing(
    tmp_path: Path,
) -> None:
    """2.1.33x's REPL tool runs a script whose own tool calls are written as `isVirtual`
    lines (model `<synthetic>`, no tokens, `ranByToolUseId` naming the script's call):
    they are the script's, not the model's. Their events say so (`virtual`, `ran_by`),
    `show` marks them apart, dimmed, and nothing of theirs is billed."""
    from click.testing import CliRunner

    from sessdex.cli import main

    def model(n: int, block: dict[str, object], **more: object) -> dict[str, object]:
        return record("assistant", n, requestId=f"req_{n}", version="2.1.332", message={
            "id": f"msg_{n}", "role": "assistant", "model": "claude-opus-4-6",
            "content": [block], "stop_reason": "tool_use",
            "usage": {"input_tokens": 100, "output_tokens": 20}}, **more)  # fmt: skip

    def result(n: int, call: str, text: str, **more: object) -> dict[str, object]:
        return prompt(n, [{"type": "tool_result", "tool_use_id": call, "content": text}],
                      version="2.1.332", **more)  # fmt: skip

    script = {"type": "tool_use", "id": "toolu_repl", "name": "REPL",
              "input": {"code": "await Read({file_path: '/app/a.py'})"}}  # fmt: skip
    inner = {"type": "tool_use", "id": "toolu_v1", "name": "Read",
             "input": {"file_path": "/app/a.py"}}  # fmt: skip
    virtual = record("assistant", 3, isVirtual=True, ranByToolUseId="toolu_repl",
                     version="2.1.332", message={
        "id": "msg_v1", "role": "assistant", "model": "<synthetic>", "content": [inner],
        "stop_reason": "stop_sequence", "usage": {"input_tokens": 0, "output_tokens": 0,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}}})  # fmt: skip
    lines = [
        prompt(1, "Look at a.py", version="2.1.332"),
        model(2, script),
        virtual,
        result(4, "toolu_v1", "print('a')", isVirtual=True),
        result(5, "toolu_repl", "done"),
        reply(6, "a.py prints a.", version="2.1.332"),
    ]
    home = tmp_path / "home"
    session = "0b5e7e00-1111-4222-8333-444455556666"
    path = write(home / ".claude/projects/-app" / f"{session}.jsonl", lines)
    found = events(path)
    calls = [(e.tool, e.extra.get("virtual"), e.extra.get("ran_by")) for e in found if e.kind == "tool_call"]  # fmt: skip
    assert calls == [("REPL", None, None), ("Read", True, "toolu_repl")]
    results = [(e.call_id, e.extra.get("virtual")) for e in found if e.kind == "tool_result"]  # fmt: skip
    assert results == [("toolu_v1", True), ("toolu_repl", None)]
    assert total(found) == (101, 22, 0, 0)  # the model's two responses only
    assert [r.key for r in claude.usage_records(path, Diagnostics()).records] == [
        "msg_2:req_2", "msg_6:req_6"
    ]  # fmt: skip
    shown = CliRunner().invoke(main, ["show", session, "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    script_line, read_line = (x for x in shown.output.splitlines() if "Using" in x)
    assert "↳" not in script_line and "REPL" in script_line
    assert "↳ script: Using Read" in read_line, shown.output


def test_list_all_marks_an_observer_apart_from_the_sub_agents(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """`list --all` shows sub-agents among the sessions (`↳`); an observer (2.1.33x,
    `isObserver` in its meta: a background agent watching another, not work the lead gave
    out) is said to be one there and in `--json` (`observer`), as `tree` says, by the full
    command and by a warm listing alike."""
    from click.testing import CliRunner

    from sessdex import quick
    from sessdex.cli import main
    from tests.helpers import OBSERVER, claude_observer_home

    home = claude_observer_home(tmp_path)
    for folder, _, _ in os.walk(home):  # a folder changed just now is never trusted
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    monkeypatch.setenv("COLUMNS", "200")
    args = ["--all", "--app", "claude", "--home", str(home)]
    listed = CliRunner().invoke(main, ["list", "--json", *args])
    assert listed.exit_code == 0, listed.output
    records = {r["id"]: r for r in json.loads(listed.stdout)}
    assert records[OBSERVER]["observer"] is True
    assert records[OBSERVER]["parent_id"] == SUBAGENT_RUN
    assert records[SPAWNER]["observer"] is False
    assert records[SUBAGENT_RUN]["observer"] is False
    shown = CliRunner().invoke(main, ["list", *args])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    [watching] = [x for x in lines if f" {OBSERVER[:8]}" in x]
    assert "↳ (observer) reviewer: Review as it goes" in watching, shown.stdout
    [working] = [x for x in lines if f" {SPAWNER[:8]}" in x]
    assert "↳ " in working and "observer" not in working
    capsysbinary.readouterr()
    assert quick.answer("list", args)  # the warm listing reads the index alone
    assert capsysbinary.readouterr().out.decode() == shown.stdout


@LIST_PATHS
def test_a_sub_agents_meta_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a sub-agent's type and title come from its .meta.json beside its transcript: a
    # warm `list` kept what the meta said before it was rewritten, a cold one not
    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent.parent / "data" / "claude" / "home", home)
    meta = next(home.rglob("subagents/agent-a1c1c1c1c1c1c1c1c.meta.json"))

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)[
            "a1c1c1c1c1c1c1c1c"
        ]

    assert listed("warm")["agent_type"] == "code-reviewer"
    meta.write_text(json.dumps({"agentType": "auditor", "description": "Audit"}))
    warm = listed("warm")
    assert warm == listed("cold")
    assert (warm["agent_type"], warm["title"]) == ("auditor", "Audit")


def test_a_sub_agent_typed_by_its_leads_call_lists_warm_as_cold_when_the_lead_alone_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-agent without a meta file takes its type from its lead's call: a warm `list`
    read it again only when its own file changed, so a call the lead wrote after the
    child's file was listed typed it in a cold list alone."""
    home = tmp_path / "home"
    lead = "6f1e2d3c-0000-4000-8000-000000000001"
    project = home / ".claude" / "projects" / "-home-dev-app"
    opening = [prompt(1, "go", sessionId=lead), reply(2, "ok", sessionId=lead)]
    write(project / f"{lead}.jsonl", opening)
    task = prompt(3, "Review the diff.", isSidechain=True, agentId="b1", sessionId=lead)
    child = [task, reply(4, "done", isSidechain=True, agentId="b1", sessionId=lead)]
    write(project / lead / "subagents" / "agent-b1.jsonl", child)

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all")["b1"]

    assert listed("warm")["agent_type"] is None
    call = {"type": "tool_use", "id": "toolu_7", "name": "Agent",
            "input": {"prompt": "Review the diff.", "subagent_type": "reviewer",
                      "description": "Review"}}  # fmt: skip
    spawn = reply(5, "", sessionId=lead)
    spawn["message"]["content"] = [call]  # type: ignore[index]
    write(project / f"{lead}.jsonl", [*opening, spawn])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["agent_type"] == "reviewer"
    # a sub-agent written after its lead's call: typed by the lead's row as it stands
    asked = {**task, "agentId": "b2", "message": {"role": "user", "content": "Fix it."}}
    write(project / lead / "subagents" / "agent-b2.jsonl", [asked])
    fixing = {
        **call,
        "id": "toolu_8",
        "input": {"prompt": "Fix it.", "subagent_type": "fixer"},
    }
    write(project / f"{lead}.jsonl", [*opening, spawn, {**spawn, "uuid": "u6",
          "message": {**spawn["message"], "content": [fixing]}}])  # fmt: skip
    rows = list_rows(home, tmp_path / "warm", monkeypatch, "--all")
    assert rows == list_rows(home, tmp_path / "cold2", monkeypatch, "--all")
    assert (rows["b1"]["agent_type"], rows["b2"]["agent_type"]) == ("reviewer", "fixer")
    # the call gone again (the lead rewound and rewritten): untyped, warm as cold
    write(project / f"{lead}.jsonl", [*opening, reply(5, "no", sessionId=lead)])
    warm = listed("warm")
    assert warm == listed("cold3")
    assert warm["agent_type"] is None
    # the lead gone: its sub-agents name no type, warm as cold
    write(project / f"{lead}.jsonl", [*opening, spawn])
    assert listed("warm")["agent_type"] == "reviewer"
    (project / f"{lead}.jsonl").unlink()
    rows = list_rows(home, tmp_path / "warm", monkeypatch, "--all")
    assert rows == list_rows(home, tmp_path / "cold4", monkeypatch, "--all")
    assert rows["b1"]["agent_type"] is None


@LIST_PATHS
def test_a_sub_agent_beside_its_gone_lead_names_no_type_warm_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str
) -> None:
    """2.0's layout (`agent-<id>.jsonl` beside the lead, no subagents/ folder): a
    sub-agent typed by its lead's call names no type once the lead is deleted, as a
    cold list says."""
    home = tmp_path / "home"
    lead = "6f1e2d3c-0000-4000-8000-000000000002"
    project = home / ".claude" / "projects" / "-home-dev-app"
    call = {"type": "tool_use", "id": "toolu_7", "name": "Task",
            "input": {"prompt": "Review the diff.", "subagent_type": "reviewer",
                      "description": "Review"}}  # fmt: skip
    spawn = reply(2, "", sessionId=lead)
    spawn["message"]["content"] = [call]  # type: ignore[index]
    write(project / f"{lead}.jsonl", [prompt(1, "go", sessionId=lead), spawn])
    task = prompt(3, "Review the diff.", isSidechain=True, agentId="b1", sessionId=lead)
    write(project / "agent-b1.jsonl", [task, reply(4, "done", isSidechain=True,
          agentId="b1", sessionId=lead)])  # fmt: skip

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return rows["b1"]

    assert listed("warm")["agent_type"] == "reviewer"
    (project / f"{lead}.jsonl").unlink()
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["agent_type"] is None


@LIST_PATHS
def test_a_title_from_a_summary_beside_goes_with_its_file_warm_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str
) -> None:
    """1.0 wrote a conversation's summary at the head of the project's next transcript:
    that transcript deleted, a warm list kept the summary as the other's title, a cold
    one showed its first command."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    project = home / ".claude" / "projects" / "-path-to-Demo"
    titled = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"

    def title(state: str) -> object:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return rows[titled]["title"]

    assert title("warm") == "Empty Repo Setup: CLAUDE.md Foundation Created"
    summarizing = project / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    summarizing.unlink()
    assert title("warm") == title("cold") == "/init"


@LIST_PATHS
def test_a_nested_sub_agent_titled_by_its_spawners_call_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a nested sub-agent whose meta file is lost takes its lead and title from its
    # spawner's call, in a sibling's file: that file rewritten alone (the call's
    # description changed), a cold `list` titles it anew, where a warm one kept the
    # title it had read before
    home = tmp_path / "home"
    lead = nested_claude_run(home, "missing")
    spawner = lead.with_suffix("") / "subagents" / f"agent-{SPAWNER}.jsonl"

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)[
            NESTED
        ]

    assert listed("warm")["title"] == "Nested greeting"
    spawner.write_text(spawner.read_text().replace("Nested greeting", "Nested hello"))
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["title"] == "Nested hello"


def test_a_response_left_unfinished_is_billed_before_the_next_one(
    tmp_path: Path,
) -> None:
    """A response whose last line never came (no stop_reason) bills when the next one
    starts, before that one's own events: one usage event each, in order."""
    first = {
        "id": "msg_a",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
        "stop_reason": None,
        "usage": {"input_tokens": 5, "output_tokens": 7},
    }
    lines = [
        prompt(1, "Run it"),
        record("assistant", 2, message=first, requestId="req_a"),
        reply(3, "Done."),
    ]
    found = events(write(tmp_path / "s.jsonl", lines))
    assert [
        (e.kind, e.extra.get("message_id") if e.kind == "usage" else e.text)
        for e in found
        if e.kind != "meta"
    ] == [
        ("user", "Run it"),
        ("tool_call", None),
        ("usage", "msg_a"),
        ("assistant", "Done."),
        ("usage", "msg_3"),
        ("turn_end", None),
    ]
