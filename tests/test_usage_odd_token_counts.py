"""A token count an app never writes (text "12", a negative, a fraction, a bool) is
damage that `usage` says, as it says a line with bytes that are not UTF-8: a warning,
the file and line under --verbose. It was counted as 0 (or its whole part) unsaid, the
tokens it stood for gone from the totals without a word."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
ODD = ["12", -5, 1.5, True]
CLAUDE = "11111111-1111-4111-8111-111111111111"
CLAUDE_FILE = f".claude/projects/-home-dev-shop/{CLAUDE}.jsonl"
VIBE = "9e8d7c6b-5a4f-4e3d-9c2b-5d6e7f8a9b0c"
VIBE_FILE = ".vibe/logs/session/session_20261201_103000_9e8d7c6b/meta.json"
CONTINUE = "4f5fc9a5-a39f-4520-a3f4-893c822b4150"
CONTINUE_FILE = f".continue/sessions/{CONTINUE}.json"


def _usage(
    home: Path, app: str, state: Path
) -> tuple[dict[str, dict[str, object]], str]:
    """Each session's row, and what was said on stderr, with --verbose."""
    argv = ["usage", "session", "--json", "--verbose", "--app", app]
    result = CliRunner().invoke(
        main, [*argv, "--home", str(home)], env={"SESSDEX_HOME": str(state)}
    )
    assert result.exit_code == 0, result.output
    return {row["id"]: row for row in json.loads(result.stdout)}, result.stderr


def _copy(tmp_path: Path, app: str) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    return home


def _said(stderr: str, path: Path, counted: str = "line") -> None:
    # `counted`: what the count counts, where the app's file has no line per response
    assert f"warning: read 1 {counted} with an odd token count" in stderr, stderr
    assert f"{path}" in stderr and "odd token count" in stderr.split(f"{path}")[1]


@pytest.mark.parametrize("odd", ODD)
def test_claude_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "claude")
    _, before = _usage(home, "claude", tmp_path / "whole")
    assert "odd token count" not in before
    path = home / CLAUDE_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[7])  # line 8: a response of input 3, output 20
    value["message"]["usage"]["output_tokens"] = odd
    lines[7] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "claude", tmp_path / "odd")
    _said(said, path)
    assert rows[CLAUDE]["input_tokens"]  # the response's other counts still count


def test_a_count_too_large_to_hold_is_said_as_such(tmp_path: Path) -> None:
    """A count past 2**53 (no float holds it exactly; no response uses so many) is odd
    too: the warning names it among what it calls odd, where it listed text, a bool, a
    fraction and below 0 alone, as if the count were none of them."""
    home = _copy(tmp_path, "claude")
    path = home / CLAUDE_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[7])
    value["message"]["usage"]["output_tokens"] = 2**60
    lines[7] = json.dumps(value)
    path.write_text("\n".join(lines))
    _, said = _usage(home, "claude", tmp_path / "odd")
    _said(said, path)
    assert "below 0 or too large: not counted as written" in said, said


@pytest.mark.parametrize("odd", ODD)
def test_vibe_an_odd_running_total_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "vibe")
    path = home / VIBE_FILE
    document = json.loads(path.read_text())
    document["stats"]["session_completion_tokens"] = odd
    path.write_text(json.dumps(document))
    rows, said = _usage(home, "vibe", tmp_path / "odd")
    assert "warning: read 1 set of totals with an odd token count" in said, said
    assert f"{path}" in said
    assert rows[VIBE]["input_tokens"] == 1_200


@pytest.mark.parametrize("odd", ODD)
def test_continue_an_odd_response_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "continue")
    path = home / CONTINUE_FILE
    data = path.read_text()
    assert data.count('"completion_tokens": 25') == 4
    path.write_text(
        data.replace(
            '"completion_tokens": 25', f'"completion_tokens": {json.dumps(odd)}', 1
        )
    )
    rows, said = _usage(home, "continue", tmp_path / "odd")
    assert "warning: read 1 response with an odd token count" in said, said
    assert f"{path}" in said
    assert rows[CONTINUE]["input_tokens"] == 4_000


CODEX = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_FILE = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-01a22b81-6e0b-7650-ac72-"
    "188ccaa967c5.jsonl"
)


def test_gemini_a_checkpoint_message_is_named_by_its_line(tmp_path: Path) -> None:
    # a message a /compress checkpoint (`$set`) holds is named by the checkpoint's line
    home = _copy(tmp_path, "gemini")
    path = home / GEMINI_FILE
    lines = path.read_text().split("\n")
    held = [json.loads(lines[n]) for n in (1, 3, 4)]
    value = held[-1] | {"id": "g-assistant-9"}  # a message only the checkpoint holds
    value["tokens"] = value["tokens"] | {"thoughts": -5}
    lines.insert(5, json.dumps({"$set": {"messages": [*held, value]}}))
    path.write_text("\n".join(lines))
    _, said = _usage(home, "gemini", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:6: odd token count\n" in said, said


def test_gemini_a_rewound_message_is_named_by_its_line(tmp_path: Path) -> None:
    # a message a rewind dropped is still billed: its odd count was counted unsaid
    home = _copy(tmp_path, "gemini")
    path = home / GEMINI_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[4])
    value["tokens"]["thoughts"] = -5
    lines[4] = json.dumps(value)
    lines.insert(5, json.dumps({"$rewindTo": value["id"]}))
    path.write_text("\n".join(lines))
    _, said = _usage(home, "gemini", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:5: odd token count\n" in said, said


@pytest.mark.parametrize("odd", ODD)
def test_codex_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "codex")
    path = home / CODEX_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[17])  # line 18: a response of input 1,200, output 30
    value["payload"]["info"]["last_token_usage"]["output_tokens"] = odd
    lines[17] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "codex", tmp_path / "odd")
    _said(said, path)
    assert rows[CODEX]["input_tokens"]


UNIFIED = "fdf5294e-9715-7217-12e1-46cae3e60fe9"  # Vibe 3's store: 2,400 in, 60 out
UNIFIED_ENVELOPE = (
    f".vibe/logs/session/unified/{UNIFIED}/generations/0000000000000022/"
    "projection-state.json"
)


@pytest.mark.parametrize("odd", ODD)
def test_vibe_an_odd_cumulative_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "vibe")
    path = home / UNIFIED_ENVELOPE
    data = path.read_text()
    assert data.count('"outputTokens":60') == 1
    path.write_text(
        data.replace('"outputTokens":60', f'"outputTokens":{json.dumps(odd)}')
    )
    rows, said = _usage(home, "vibe", tmp_path / "odd")
    assert "warning: read 1 set of totals with an odd token count" in said, said
    assert f"{path}" in said
    assert rows[UNIFIED]["input_tokens"] == 2_400


GEMINI_FILE = (
    ".gemini/tmp/5a10d8807875fc31103328bd50abe5e83eec14d0a3b7e754d671eaebb080c176/chats/"
    "session-2026-04-29T21-39-5e55a0f1.jsonl"
)


def _output(rows: dict[str, dict[str, object]]) -> int:
    return sum(int(row["output_tokens"]) for row in rows.values())  # type: ignore[call-overload]


@pytest.mark.parametrize("odd", ODD)
def test_gemini_an_odd_thoughts_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "gemini")
    before, _ = _usage(home, "gemini", tmp_path / "whole")
    path = home / GEMINI_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[4])  # line 5: output 147, no thoughts
    value["tokens"]["thoughts"] = odd
    lines[4] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "gemini", tmp_path / "odd")
    # its line named, where the chat's order, resolved after reading, named `:0`
    _said(said, path)
    assert f"{path}:5: odd token count\n" in said, said
    # (-5 taken off the output it is added to, unsaid)
    assert _output(rows) >= _output(before)


def test_codex_a_negative_cached_count_adds_no_input(tmp_path: Path) -> None:
    # the input is the prompt less what it cached: less a negative, 5,000,000 more
    home = _copy(tmp_path, "codex")
    before, _ = _usage(home, "codex", tmp_path / "whole")
    path = home / CODEX_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[17])  # line 18: a response of input 1,200, none cached
    value["payload"]["info"]["last_token_usage"]["cached_input_tokens"] = -5_000_000
    lines[17] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "codex", tmp_path / "odd")
    _said(said, path)
    assert rows[CODEX]["input_tokens"] == before[CODEX]["input_tokens"]


def test_continue_a_negative_cached_count_adds_no_input(tmp_path: Path) -> None:
    home = _copy(tmp_path, "continue")
    before, _ = _usage(home, "continue", tmp_path / "whole")
    path = home / CONTINUE_FILE
    document = json.loads(path.read_text())
    usage = next(
        item["message"]["usage"]
        for item in document["history"]
        if item["message"].get("usage")
    )
    usage["prompt_tokens_details"] = {"cached_tokens": -5_000_000}
    path.write_text(json.dumps(document, indent=2))
    rows, said = _usage(home, "continue", tmp_path / "odd")
    assert "odd token count" in said
    assert rows[CONTINUE]["input_tokens"] == before[CONTINUE]["input_tokens"]


def test_vibe_a_negative_cached_count_adds_no_input(tmp_path: Path) -> None:
    home = _copy(tmp_path, "vibe")
    before, _ = _usage(home, "vibe", tmp_path / "whole")
    path = home / UNIFIED_ENVELOPE
    data = path.read_text()
    cumulative = '"tokenUsage":{"cachedInputTokens":0'
    assert data.count(cumulative) == 1
    path.write_text(data.replace(cumulative, cumulative[:-1] + "-5000000"))
    rows, said = _usage(home, "vibe", tmp_path / "odd")
    assert "odd token count" in said
    assert rows[UNIFIED]["input_tokens"] == before[UNIFIED]["input_tokens"]


# (app, its fixture home, a file in it, a billed output count as written, what a
# count of damage counts there)
COUNTED = [
    (
        "qwen",
        "qwen/home",
        ".qwen/projects/-home-alex-code-shop-api/chats/"
        "5d1e0c2a-7b3f-4e8a-9c1d-2f6a8b4e0c11.jsonl",
        '"candidatesTokenCount":20',  # (12, 40: one response's copies; 40 billed)
        "line",
    ),
    (
        "copilot",
        "copilot/forks/home",
        ".copilot/session-state/73e1708c-4b03-42d3-8fab-cf6207709959/events.jsonl",
        '"outputTokens":25',
        "line",
    ),
    (
        "cline",
        "cline/real/home",
        ".cline/data/sessions/1796199537105_fpxn5/1796199537105_fpxn5.messages.json",
        '"outputTokens": 25',
        "message",
    ),
]


@pytest.mark.parametrize("odd", ["12", -5, 1.5])
@pytest.mark.parametrize(("app", "fixture", "name", "written", "counted"), COUNTED)
def test_an_odd_output_count_is_said(
    tmp_path: Path,
    app: str,
    fixture: str,
    name: str,
    written: str,
    counted: str,
    odd: object,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / fixture, home, symlinks=True)
    before, said = _usage(home, app, tmp_path / "whole")
    assert "odd token count" not in said
    path = home / name
    key = written.rstrip("0123456789")
    path.write_text(path.read_text().replace(written, key + json.dumps(odd), 1))
    rows, said = _usage(home, app, tmp_path / "odd")
    assert f"warning: read 1 {counted} with an odd token count" in said, said
    assert f"{path}" in said
    # the response's other counts still count; the odd one takes nothing off the rest
    assert _input(rows) == _input(before)
    billed = int(written.rsplit(":", 1)[1])
    assert _output(before) - billed <= _output(rows) <= _output(before)


def _input(rows: dict[str, dict[str, object]]) -> int:
    return sum(int(row["input_tokens"]) for row in rows.values())  # type: ignore[call-overload]


OPENCODE = "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n"
OPENCODE_MESSAGE = (
    f".local/share/opencode/project/global/storage/session/message/{OPENCODE}/"
    "msg_75d0e3f6a002Tn4Wp9LsXcJd3e.json"
)
OPENCODE_DB = ".local/share/opencode/opencode.db"


@pytest.mark.parametrize("odd", ODD)
def test_opencode_an_odd_count_in_a_message_file_is_said(
    odd: object, tmp_path: Path
) -> None:
    home = _copy(tmp_path, "opencode")
    before, said = _usage(home, "opencode", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / OPENCODE_MESSAGE
    document = json.loads(path.read_text())
    document["tokens"]["output"] = odd
    path.write_text(json.dumps(document))
    rows, said = _usage(home, "opencode", tmp_path / "odd")
    _said(said, path, "response")
    assert _input(rows) == _input(before)


def test_opencode_an_odd_count_in_a_database_row_is_said(tmp_path: Path) -> None:
    home = _copy(tmp_path, "opencode")
    before, _ = _usage(home, "opencode", tmp_path / "whole")
    path = home / OPENCODE_DB
    with sqlite3.connect(path) as db:
        (rowid,) = db.execute(
            "SELECT rowid FROM message WHERE data LIKE '%\"output\":30%' LIMIT 1"
        ).fetchone()
        db.execute(
            "UPDATE message SET data = json_set(data, '$.tokens.output', '30') "
            "WHERE rowid = ?",
            (rowid,),
        )
    db.close()
    rows, said = _usage(home, "opencode", tmp_path / "odd")
    _said(said, Path(f"{path}#message/{rowid}"), "response")
    assert _input(rows) == _input(before)


@pytest.mark.parametrize("odd", [-5_000, 1.5])
def test_codex_show_bills_an_odd_count_as_usage_does(
    odd: object, tmp_path: Path
) -> None:
    # `show` (and `tree`, which sums its events) read the rollout with another reader:
    # it kept a negative count (-5,000 output tokens shown) and dropped a fraction's
    # whole part, where `usage` counts 0 and 1
    home = _copy(tmp_path, "codex")
    path = home / CODEX_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[17])  # line 18: a response of input 1,200, output 30
    value["payload"]["info"]["last_token_usage"]["output_tokens"] = odd
    lines[17] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, _ = _usage(home, "codex", tmp_path / "odd")
    argv = ["show", CODEX, "--json", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(tmp_path / "s")})
    assert result.exit_code == 0, result.output
    shown = [e["usage"] for e in json.loads(result.stdout) if e["usage"]]
    assert all(
        count >= 0
        for usage in shown
        for count in usage.values()
        if isinstance(count, int)
    )
    assert (
        sum(usage["output_tokens"] for usage in shown) == rows[CODEX]["output_tokens"]
    )


OPENHANDS_STATE = (
    ".openhands/conversations/5f0c3e2a9b8d4c7ea1f2b3c4d5e6f708/base_state.json"
)


@pytest.mark.parametrize("odd", [*ODD, None])
def test_openhands_a_response_left_out_for_an_odd_count_is_said(
    odd: object, tmp_path: Path
) -> None:
    # a response whose count is no count is left out of the per-response bills (its
    # tokens billed once, by the total): it was left out without a word
    home = _copy(tmp_path, "openhands")
    before, _ = _usage(home, "openhands", tmp_path / "whole")
    path = home / OPENHANDS_STATE
    state = json.loads(path.read_text())
    agent = state["stats"]["usage_to_metrics"]["agent"]
    agent["token_usages"] = [
        {"response_id": "resp-1", "prompt_tokens": 4000, "completion_tokens": odd}
    ]
    path.write_text(json.dumps(state))
    rows, said = _usage(home, "openhands", tmp_path / "odd")
    _said(said, path, "response")
    assert _input(rows) == _input(before)


COPILOT_OLD = ".copilot/session-state/7e1d0c2a-5b3f-4c8e-9a61-2f0b4d6e8a10/events.jsonl"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_copilot_an_odd_count_in_shutdown_token_details_is_said(
    odd: object, tmp_path: Path
) -> None:
    # a shutdown with no per-model metrics bills its `tokenDetails`: an odd count there
    # was counted as 0 without a word, where one in `modelMetrics` is said
    home = _copy(tmp_path, "copilot")
    path = home / COPILOT_OLD
    lines = path.read_text().split("\n")
    value = json.loads(lines[14])  # line 15: the first shutdown's totals
    del value["data"]["modelMetrics"]
    value["data"]["tokenDetails"] = {
        "input": {"tokenCount": 12_000},
        "output": {"tokenCount": odd},
        "cache_read": {"tokenCount": 9_000},
        "cache_write": {"tokenCount": 1_000},
    }
    lines[14] = json.dumps(value)
    path.write_text("\n".join(lines))
    _, said = _usage(home, "copilot", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:15: odd token count" in said


def _odd_line(home: Path, app: str, odd: object) -> tuple[str, Path, int]:
    """The session, its file and the line whose output count is made `odd`."""
    if app == "codex":
        session, path, number = CODEX, home / CODEX_FILE, 18
    else:
        session, path, number = CLAUDE, home / CLAUDE_FILE, 8
    lines = path.read_text().split("\n")
    value = json.loads(lines[number - 1])
    usage = (
        value["payload"]["info"]["last_token_usage"]
        if app == "codex"
        else value["message"]["usage"]
    )
    usage["output_tokens"] = odd
    lines[number - 1] = json.dumps(value)
    path.write_text("\n".join(lines))
    return session, path, number


@pytest.mark.parametrize("odd", ["12", -5, 2**60])
@pytest.mark.parametrize("command", ["show", "tree", "doctor"])
@pytest.mark.parametrize("app", ["codex", "claude"])
def test_show_and_tree_say_an_odd_count_as_usage_does(
    app: str, command: str, odd: object, tmp_path: Path
) -> None:
    # `show`, `tree` and `doctor --deep` read a transcript with another reader than
    # `usage`'s: the count they billed as 0 went unsaid
    home = _copy(tmp_path, app)
    session, path, number = _odd_line(home, app, odd)
    argv = (
        ["doctor", "--deep", "--verbose"]
        if command == "doctor"
        else [command, session, "--verbose"]
    )
    result = CliRunner().invoke(
        main, [*argv, "--home", str(home)], env={"SESSDEX_HOME": str(tmp_path / "s")}
    )
    assert result.exit_code == 0, result.output
    said = result.stderr if command != "doctor" else result.output
    assert f"{path}:{number}: odd token count" in said, said
    if command != "doctor":
        assert "warning: read 1 line with an odd token count" in said, said


@pytest.mark.parametrize("odd", [2**60, 1.5])
def test_claude_show_bills_an_odd_count_as_usage_does(
    odd: object, tmp_path: Path
) -> None:
    # `show` kept a count past 2**53 (1,152,921,504,606,846,976 output tokens) and
    # dropped a fraction's whole part, where `usage` counts 0 and 1
    home = _copy(tmp_path, "claude")
    _odd_line(home, "claude", odd)
    rows, _ = _usage(home, "claude", tmp_path / "odd")
    argv = ["show", CLAUDE, "--json", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(tmp_path / "s")})
    assert result.exit_code == 0, result.output
    shown = [e["usage"] for e in json.loads(result.stdout) if e["usage"]]
    assert (
        sum(usage["output_tokens"] for usage in shown) == rows[CLAUDE]["output_tokens"]
    )


PI_FILE = (
    ".pi/agent/sessions/--home-dev-code-ledger--/"
    "2026-11-21T09-00-00-000Z_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
)


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_pi_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # pi's counts were taken as written, a negative one too (taking 5 off the output
    # of the rest), and never said
    home = _copy(tmp_path, "pi")
    before, said = _usage(home, "pi", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / PI_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[6])  # line 7: a response of input 12, output 30
    assert value["message"]["usage"]["output"] == 30
    value["message"]["usage"]["output"] = odd
    lines[6] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "pi", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:7: odd token count" in said
    assert _input(rows) == _input(before)
    assert _output(before) - 30 <= _output(rows) <= _output(before)


KIMI_WIRE = (
    ".kimi/sessions/54a67b3dc711941b4653c448cf4d35b0/"
    "4126cee7-7a8d-40e9-b56e-546048ada69f/wire.jsonl"
)


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_kimi_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # Kimi CLI's counts were taken as written, a negative one too, and never said
    home = tmp_path / "home"
    shutil.copytree(DATA / "kimi" / "real" / "home", home, symlinks=True)
    before, said = _usage(home, "kimi", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / KIMI_WIRE
    lines = path.read_text().split("\n")
    value = json.loads(lines[5])  # line 6: a response of input 1,000, output 25
    assert value["message"]["payload"]["token_usage"]["output"] == 25
    value["message"]["payload"]["token_usage"]["output"] = odd
    lines[5] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "kimi", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:6: odd token count" in said
    assert _input(rows) == _input(before)
    assert _output(before) - 25 <= _output(rows) <= _output(before)


DROID = ".factory/sessions/-tmp"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_droid_an_odd_count_is_said(odd: object, tmp_path: Path) -> None:
    # Droid's counts (a message's `usage`, a settings file's `tokenUsage`) were taken
    # as written, a negative one too, and never said
    home = _copy(tmp_path, "droid")
    path = home / DROID / "droid_s1.jsonl"
    lines = path.read_text().split("\n")
    value = json.loads(lines[2])  # line 3: an answer, with no usage of its own
    value["message"]["usage"] = {"input_tokens": 100, "output_tokens": odd}
    lines[2] = json.dumps(value)
    path.write_text("\n".join(lines))
    settings = home / f"{DROID}-large" / "droid_large.settings.json"
    document = json.loads(settings.read_text())
    document["tokenUsage"]["outputTokens"] = odd
    settings.write_text(json.dumps(document))
    rows, said = _usage(home, "droid", tmp_path / "odd")
    assert "warning: read 1 line and 1 set of totals with an odd token count" in said
    assert f"{path}:3: odd token count" in said
    assert f"{settings}:0: odd token count in a set of totals" in said
    assert all(int(row["output_tokens"]) >= 0 for row in rows.values())  # type: ignore[call-overload]


GPTME_FILE = ".local/share/gptme/logs/2026-11-30-happy-blue-fish/conversation.jsonl"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_gptme_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    home = _copy(tmp_path, "gptme")
    before, said = _usage(home, "gptme", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / GPTME_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[2])  # line 3: a response of input 1,200, output 80
    assert value["metadata"]["usage"]["output_tokens"] == 80
    value["metadata"]["usage"]["output_tokens"] = odd
    lines[2] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "gptme", tmp_path / "odd")
    _said(said, path)
    assert f"{path}:3: odd token count" in said
    assert _input(rows) == _input(before)


AMP = ".local/share/amp/threads"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_amp_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # Amp's counts (a response's `usage`, a ledger entry's `tokens`) were taken as
    # written, a negative one too (taking 5 off the rest), and never said
    home = _copy(tmp_path, "amp")
    before, said = _usage(home, "amp", tmp_path / "whole")
    assert "odd token count" not in said
    own = home / AMP / "T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a.json"
    document = json.loads(own.read_text())
    assert document["messages"][3]["usage"]["outputTokens"] == 95
    document["messages"][3]["usage"]["outputTokens"] = odd
    own.write_text(json.dumps(document))
    ledger = home / AMP / "T-test-thread-1.json"
    document = json.loads(ledger.read_text())
    assert document["usageLedger"]["events"][1]["tokens"]["output"] == 15
    document["usageLedger"]["events"][1]["tokens"]["output"] = odd
    ledger.write_text(json.dumps(document))
    rows, said = _usage(home, "amp", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 95 - 15 <= _output(rows) <= _output(before)
    assert "warning: read 2 responses with an odd token count" in said, said
    assert f"{own}:0: odd token count in a response" in said
    assert f"{ledger}:0: odd token count in a response" in said


@pytest.mark.parametrize("odd", [-5, "12"])
def test_amp_an_odd_cache_count_of_a_message_billed_twice_is_said_once(
    odd: object, tmp_path: Path
) -> None:
    """A message the ledger bills in two entries gives its `usage`'s cache split to
    each: an odd cache count in it was said once per entry, `read 2 responses` for
    the one response's one count."""
    home = _copy(tmp_path, "amp")
    ledger = home / AMP / "T-test-thread-1.json"
    document = json.loads(ledger.read_text())
    entries = document["usageLedger"]["events"]
    assert entries[0]["toMessageId"] == document["messages"][1]["messageId"] == 2
    entries.insert(1, {**entries[0], "tokens": {"input": 10, "output": 20}})
    document["messages"][1]["usage"] = {"cacheReadInputTokens": odd}
    ledger.write_text(json.dumps(document))
    _, said = _usage(home, "amp", tmp_path / "odd")
    assert "warning: read 1 response with an odd token count" in said, said
    assert said.count(f"{ledger}:0: odd token count in a response") == 1, said


@pytest.mark.parametrize("odd", ["a dozen", -5, 1.5, 2**60])  # SQLite keeps "12" as 12
def test_goose_an_odd_count_in_a_ledger_row_or_a_session_row_is_said(
    odd: object, tmp_path: Path
) -> None:
    """Goose's ledger rows and its sessions' counters were floored to 0 (a fraction cut,
    text dropped) without a word: each is said, a ledger row as a response and a
    session's counters as a set of totals."""
    from tests.sources.test_goose import SONNET, add_call, add_session, v16_home

    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (100, 20, 0, 0), name="Ledgered")
    add_call(db, "20260820_1", 100, SONNET, (100, 20, 0, 0), total=120)
    add_call(db, "20260820_1", 101, SONNET, (50, 0, 0, 0), total=50)
    db.execute("UPDATE usage_ledger SET output_tokens = ? WHERE id = 2", (odd,))
    add_session(db, "20260820_2", (700, 70, 0, 0), name="Counters alone")
    db.execute(
        "UPDATE sessions SET accumulated_output_tokens = ? WHERE id = '20260820_2'",
        (odd,),
    )
    db.commit()
    db.close()
    rows, said = _usage(home, "goose", tmp_path / "state")
    where = home / ".local/share/goose/sessions/sessions.db"
    assert "read 1 response and 1 set of totals with an odd token count" in said, said
    assert f"{where}#usage_ledger:0: odd token count in a response" in said
    assert f"{where}#sessions:0: odd token count in a set of totals" in said
    assert rows["20260820_1"]["input_tokens"] == 150  # the row's other counts count


@pytest.mark.parametrize("odd", ["200", -5, 1.5, True])
def test_goose_an_odd_count_in_a_legacy_files_metadata_is_said(
    odd: object, tmp_path: Path
) -> None:
    home = _copy(tmp_path, "goose")
    path = home / ".local/share/goose/sessions/refactor-notes.jsonl"
    lines = path.read_text().split("\n")
    meta = json.loads(lines[0])
    meta["accumulated_output_tokens"] = meta["output_tokens"] = odd
    lines[0] = json.dumps(meta)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "goose", tmp_path / "state")
    _said(said, path, "set of totals")
    assert f"{path}:1: odd token count in a set of totals" in said
    assert rows["refactor-notes"]["input_tokens"] == 700


@pytest.mark.parametrize("odd", ["12", -5, 1.5, True])
def test_zed_an_odd_count_in_a_threads_usage_is_said(
    odd: object, tmp_path: Path
) -> None:
    """Zed's TokenUsage counts were taken as 0 unsaid: an odd one in a turn's request
    usage is said as a response's, in the running sum as a set of totals."""
    home = _copy(tmp_path, "zed")
    turns = {
        "a": {"input_tokens": 100, "output_tokens": odd},
        "b": {"input_tokens": 400, "output_tokens": 40},
    }
    thread = {"title": "Odd", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}},
                           {"Agent": {"content": [{"Text": "1"}], "tool_results": {}}},
                           {"User": {"id": "b", "content": [{"Text": "two"}]}},
                           {"Agent": {"content": [{"Text": "2"}], "tool_results": {}}}],
              "request_token_usage": turns,
              "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"}}  # fmt: skip
    running = {**thread, "title": "Summed", "request_token_usage": {},
               "cumulative_token_usage": {"input_tokens": 500, "output_tokens": odd}}  # fmt: skip
    where = home / ".local/share/zed/threads/threads.db"
    db = sqlite3.connect(where)
    for key, value in (("odd", thread), ("summed", running)):
        db.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
            "(?, ?, '2026-12-04T09:00:00Z', 'json', ?)",
            (key, value["title"], json.dumps(value).encode()),
        )
    db.commit()
    db.close()
    rows, said = _usage(home, "zed", tmp_path / "state")
    assert "read 1 response and 1 set of totals with an odd token count" in said, said
    assert f"{where}#threads/odd:0: odd token count in a response" in said
    assert f"{where}#threads/summed:0: odd token count in a set of totals" in said
    assert rows["odd"]["input_tokens"] == 500  # the other counts count


HERMES_DB = ".hermes/state.db"


@pytest.mark.parametrize("odd", ["12", -5, 1.5, 2**60])  # SQLite keeps True as 1
def test_hermes_an_odd_count_in_a_database_row_is_said(
    odd: object, tmp_path: Path
) -> None:
    # Hermes' counters were taken as written and never said; a per-model row's negative
    # one grew what the session's counters left unsplit by as much: 5 tokens more
    home = _copy(tmp_path, "hermes")
    before, said = _usage(home, "hermes", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / HERMES_DB
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE session_model_usage SET output_tokens = ? "
            "WHERE session_id = '20261201_101500_0a0b0c' AND output_tokens = 280",
            (json.dumps(odd) if isinstance(odd, str) else odd,),
        )
        db.execute(
            "UPDATE sessions SET output_tokens = ? WHERE id = '20261202_080000_77aa88'",
            (json.dumps(odd) if isinstance(odd, str) else odd,),
        )
    db.close()
    rows, said = _usage(home, "hermes", tmp_path / "odd")
    assert _input(rows) == _input(before)
    split = "20261201_101500_0a0b0c"  # the counters bill what the row does not
    assert rows[split]["output_tokens"] == before[split]["output_tokens"]
    assert _output(before) - 40 <= _output(rows) <= _output(before)
    assert "warning: read 2 sets of totals with an odd token count" in said, said
    assert f"{path}#session_model_usage:0: odd token count in a set of totals" in said
    assert f"{path}#sessions:0: odd token count in a set of totals" in said


CRUSH_DB = "code/shop-api/.crush/crush.db"


# SQLite keeps True as 1; Crush's schema refuses a negative (CHECK ... >= 0)
@pytest.mark.parametrize("odd", ["12", 1.5, 2**60])
def test_crush_an_odd_count_in_a_session_row_is_said(
    odd: object, tmp_path: Path
) -> None:
    # a Crush session row's counts were billed without a word
    home = _copy(tmp_path, "crush")
    before, said = _usage(home, "crush", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / CRUSH_DB
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE sessions SET completion_tokens = ? WHERE completion_tokens = 310",
            (json.dumps(odd) if isinstance(odd, str) else odd,),
        )
    db.close()
    rows, said = _usage(home, "crush", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 310 <= _output(rows) <= _output(before)
    _said(said, Path(f"{path}#sessions"), "set of totals")


AUGGIE = ".augment/sessions/5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d.json"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_auggie_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # an Auggie response's counts were billed without a word
    home = _copy(tmp_path, "auggie")
    before, said = _usage(home, "auggie", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / AUGGIE
    text = path.read_text()
    assert text.count('"output_tokens": 40') == 1
    path.write_text(
        text.replace('"output_tokens": 40', f'"output_tokens": {json.dumps(odd)}')
    )
    rows, said = _usage(home, "auggie", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 40 <= _output(rows) <= _output(before)
    _said(said, path, "response")


FORGE_DB = ".forge/.forge.db"


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_forge_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # a Forge response's counts were billed without a word
    home = _copy(tmp_path, "forge")
    before, said = _usage(home, "forge", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / FORGE_DB
    conversation = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE conversations SET context = replace(context, "
            '\'"completion_tokens":{"actual":80}\', ?) WHERE conversation_id = ?',
            (f'"completion_tokens":{{"actual":{json.dumps(odd)}}}', conversation),
        )
    db.close()
    rows, said = _usage(home, "forge", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 80 <= _output(rows) <= _output(before)
    _said(said, Path(f"{path}#conversations/{conversation}"), "response")


KIMI_CODE_WIRE = (
    ".kimi-code/sessions/wd_project_ac3bb318f98e/"
    "session_1bcbe023-4f7e-4971-9dc9-43b8756045b0/agents/main/wire.jsonl"
)


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_kimi_code_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # a Kimi Code `usage.record`'s counts were billed without a word
    home = _copy(tmp_path, "kimi")
    before, said = _usage(home, "kimi", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / KIMI_CODE_WIRE
    lines = path.read_text().split("\n")
    value = json.loads(lines[30])  # line 31: a usage record of output 42
    assert value["usage"]["output"] == 42
    value["usage"]["output"] = odd
    lines[30] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "kimi", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 42 <= _output(rows) <= _output(before)
    _said(said, path)
    assert f"{path}:31: odd token count" in said


@pytest.mark.parametrize("command", ["usage", "show", "tree", "doctor"])
def test_claude_an_odd_count_relayed_by_a_progress_line_is_said(
    command: str, tmp_path: Path
) -> None:
    # a 2.0 progress line relays a sub-agent's response (`data.message`): `usage` bills
    # it and said its odd count; `show`, `tree` and `doctor --deep` passed it unsaid
    home = _copy(tmp_path, "claude")
    path = home / CLAUDE_FILE
    relayed = {
        "type": "assistant",
        "timestamp": "2026-11-20T10:00:08.000Z",
        "requestId": "req_relayed",
        "message": {
            "id": "msg_relayed",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "checked"}],
            "usage": {"input_tokens": 3, "output_tokens": -5},
        },
    }
    line = {
        "type": "progress",
        "sessionId": CLAUDE,
        "uuid": "11111111-0000-4000-8000-0000000000f0",
        "timestamp": "2026-11-20T10:00:08.000Z",
        "data": {"type": "agent_progress", "agentId": "a1b2c3", "message": relayed},
    }
    lines = path.read_text().rstrip("\n").split("\n")
    path.write_text("\n".join([*lines, json.dumps(line)]) + "\n")
    number = len(lines) + 1
    if command == "usage":
        _, said = _usage(home, "claude", tmp_path / "odd")
    else:
        argv = (
            ["doctor", "--deep", "--verbose"]
            if command == "doctor"
            else [command, CLAUDE, "--verbose"]
        )
        result = CliRunner().invoke(
            main,
            [*argv, "--home", str(home)],
            env={"SESSDEX_HOME": str(tmp_path / "s")},
        )
        assert result.exit_code == 0, result.output
        said = result.stderr if command != "doctor" else result.output
    assert f"{path}:{number}: odd token count" in said, said


VSCODE_CHAT = (
    ".config/Code/User/workspaceStorage/5d1e0c8b2a4f6e8d0c2b4a6f8e0d2c4b/"
    "chatSessions/3f1c9a52-7d4e-4b6a-9c21-5e8f7a6b4d30.json"
)


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_vscode_an_odd_output_count_is_said(odd: object, tmp_path: Path) -> None:
    # a Copilot Chat response's counts were billed without a word
    home = _copy(tmp_path, "vscode")
    before, said = _usage(home, "vscode", tmp_path / "whole")
    assert "odd token count" not in said
    path = home / VSCODE_CHAT
    document = json.loads(path.read_text())
    metadata = document["requests"][0]["result"]["metadata"]
    assert metadata["outputTokens"] == 640
    metadata["outputTokens"] = odd
    path.write_text(json.dumps(document))
    rows, said = _usage(home, "vscode", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 640 <= _output(rows) <= _output(before)
    _said(said, path, "response")


CLINE_TASK = (
    ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1790931121000/"
    "ui_messages.json"
)


def _cline_request(home: Path, **counts: object) -> Path:
    """The task's first request (3,100 in, 240 out) with `counts` written over its own."""
    path = home / CLINE_TASK
    messages = json.loads(path.read_text())
    request = json.loads(messages[1]["text"])
    assert (request["tokensIn"], request["tokensOut"]) == (3100, 240)
    messages[1]["text"] = json.dumps({**request, **counts})
    path.write_text(json.dumps(messages))
    return path


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_cline_an_odd_request_count_is_said(odd: object, tmp_path: Path) -> None:
    # a Cline request's counts were billed without a word
    home = _copy(tmp_path, "cline")
    before, said = _usage(home, "cline", tmp_path / "whole")
    assert "odd token count" not in said
    path = _cline_request(home, tokensOut=odd)
    rows, said = _usage(home, "cline", tmp_path / "odd")
    assert _input(rows) == _input(before)
    assert _output(before) - 240 <= _output(rows) <= _output(before)
    _said(said, path, "message")


def test_cline_a_negative_start_adds_nothing_to_its_finish(tmp_path: Path) -> None:
    # Claude Dev's finish counts what it adds to its start: a start's -5 made it 5 more
    home = _copy(tmp_path, "cline")
    before, _ = _usage(home, "cline", tmp_path / "whole")
    path = _cline_request(home, tokensOut=-5)
    messages = json.loads(path.read_text())
    finish = {**messages[1], "say": "api_req_finished"}
    finish["text"] = json.dumps({"tokensOut": 240})
    messages.insert(2, finish)
    path.write_text(json.dumps(messages))
    rows, said = _usage(home, "cline", tmp_path / "odd")
    assert _output(rows) == _output(before)
    _said(said, path, "message")


KIROIDE_FILE = (
    ".kiro/sessions/dc04e9ad19b4b75f/"
    "sess_4f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8/messages.jsonl"
)


@pytest.mark.parametrize("odd", [*ODD, 2**60])
def test_kiroide_an_odd_turn_count_is_said(odd: object, tmp_path: Path) -> None:
    # a Kiro IDE turn's `usage_summary` counts were billed without a word
    home = _copy(tmp_path, "kiroide")
    path = home / KIROIDE_FILE
    lines = path.read_text().split("\n")
    value = json.loads(lines[11])  # line 12: a turn's usage summary (credits alone)
    assert value["payload"]["type"] == "usage_summary"
    value["payload"].update({"inputTokens": 900, "outputTokens": odd})
    lines[11] = json.dumps(value)
    path.write_text("\n".join(lines))
    rows, said = _usage(home, "kiroide", tmp_path / "odd")
    assert all(int(row["output_tokens"]) >= 0 for row in rows.values())  # type: ignore[call-overload]
    _said(said, path)
    assert f"{path}:12: odd token count" in said
