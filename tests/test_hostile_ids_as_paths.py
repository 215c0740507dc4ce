"""An id read from a file's content names a folder only when it is one plain name: an
OpenCode message or session id with a `/`, a `..` or a NUL in it (a hostile or broken
writer; a 30 MB id, which sessdex elides) led `show` out of the app's folder, to read and
show what lay there, or stopped the read as "a sessdex bug" (embedded null byte)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
STORAGE = Path(".local/share/opencode/storage")
OUTSIDE = "SECRET-OUTSIDE-TEXT"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home" / STORAGE, home / STORAGE)
    # text in a folder beside the home, where a climbing id leads
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "001.json").write_text(
        json.dumps({"id": "p_x", "type": "text", "text": OUTSIDE})
    )
    return home


def _show(home: Path, ref: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["show", ref, "--home", str(home)])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "message_id",
    ["../../../../../../beside", "x\x00y", "\x00sessdex-elided:31457280"],
)
def test_a_message_id_never_leads_out_of_its_folder(
    message_id: str, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    message = home / STORAGE / "message" / "s_stage0_small" / "msg_0001.json"
    value = json.loads(message.read_text())
    value["id"] = message_id
    message.write_text(json.dumps(value))
    code, output = _show(home, "opencode:s_stage0_small")
    assert code == 0, output
    assert OUTSIDE not in output
    assert "sessdex bug" not in output
    # the other message, whose id is plain, still shows its parts
    assert "Found 2 files." in output


@pytest.mark.parametrize("session_id", ["../../../../../../beside", "x\x00y"])
def test_a_session_id_never_leads_out_of_its_folder(
    session_id: str, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    info = home / STORAGE / "session" / "proj_test" / "ses_s_stage0_small.json"
    value = json.loads(info.read_text())
    value["id"] = session_id
    info.write_text(json.dumps(value))
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "sessdex bug" not in result.output
    assert session_id in [row["id"] for row in json.loads(result.stdout)]
    code, output = _show(home, f"opencode:{session_id[:1]}")  # (no NUL in a command)
    assert code == 0, output
    assert OUTSIDE not in output
    assert "sessdex bug" not in output


GEMINI_CHATS = Path(".gemini/tmp")
GEMINI_JSON = (
    "2136a2490b0bdc8f317d3e16aecb6c0b6c264127ce17e17345fe6c0dc2ce7069/chats/"
    "session-2025-11-02T10-15-5a1e9c3b.json"
)
GEMINI_JSONL = "shop-api/chats/session-2026-11-30T08-11-b44832f3.jsonl"


@pytest.mark.parametrize("chat", [GEMINI_JSON, GEMINI_JSONL])
def test_a_gemini_session_id_with_a_nul_is_no_bug(chat: str, tmp_path: Path) -> None:
    # its sub-agents' folder is named by the chat's session id
    home = tmp_path / "home"
    shutil.copytree(DATA / "gemini" / "home", home)
    path = home / GEMINI_CHATS / chat
    text = path.read_text()
    head, newline, rest = text.partition("\n") if chat.endswith("l") else (text, "", "")
    value = json.loads(head)
    value["sessionId"] = "x\x00y"
    path.write_text(json.dumps(value) + newline + rest)
    listed = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    assert "sessdex bug" not in listed.output
    # the listing names the session by its file where its id is no name
    ids = [row["id"] for row in json.loads(listed.stdout) if row["path"] == str(path)]
    assert ids, listed.stdout
    code, output = _show(home, f"gemini:{ids[0][:1]}")  # (no NUL in a command line)
    assert "sessdex bug" not in output, output
    assert code == 0, output


def test_an_opencode_session_file_with_a_huge_title_still_lists(tmp_path: Path) -> None:
    # a session file past 4 MB (a pasted prompt kept as its title) was skipped as "not
    # JSON", its session gone from the list; its long strings are elided as a line's are
    home = _home(tmp_path)
    info = home / STORAGE / "session" / "proj_test" / "ses_s_stage0_small.json"
    value = json.loads(info.read_text())
    value["title"] = "\u00e9" * (3 * 1024 * 1024)  # 6 MB
    info.write_text(json.dumps(value, ensure_ascii=False))
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert "s_stage0_small" in rows
    assert len(rows["s_stage0_small"]["title"] or "") < 1000
    assert rows["s_stage0_small"]["cwd"] == "/tmp/repo"


KIMI_SESSION = (
    ".kimi-code/sessions/wd_shop-api_b2108ce9c0f9/"
    "session_6701cc78-5e70-4edf-ae07-2cf66679335e"
)


def test_a_kimi_code_sub_agent_id_with_a_nul_is_no_bug(tmp_path: Path) -> None:
    # the spawn record's sub-agent id names its folder, agents/<id>/wire.jsonl
    home = tmp_path / "home"
    shutil.copytree(DATA / "kimi" / "real-code" / "home", home)
    wire = home / KIMI_SESSION / "agents" / "main" / "wire.jsonl"
    wire.write_text(wire.read_text().replace('"agent-0"', '"x\\u0000y"'))
    code, output = _show(home, "kimi:6701cc78")
    assert code == 0, output
    assert "sessdex bug" not in output
    assert "Greeting sub-agent" in output  # the spawn is still shown


ROO_TASKS = Path(".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")
ROO_LEAD = "7c1a2b3d-0e4f-4a5b-8c6d-7e8f9a0b1c2d"


@pytest.mark.parametrize("child", ["../../../../../../../beside", "x\x00y"])
def test_a_vscode_task_child_id_never_leads_out_of_its_folder(
    child: str, tmp_path: Path
) -> None:
    # Cline, Roo Code and Kilo Code: a history item's childIds name the sub-tasks'
    # folders beside the lead's (tasks/<id>/ui_messages.json)
    home = tmp_path / "home"
    shutil.copytree(DATA / "roo" / "home", home)
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "ui_messages.json").write_text(
        json.dumps([{"ts": 1, "type": "say", "say": "text", "text": OUTSIDE}])
    )
    item = home / ROO_TASKS / ROO_LEAD / "history_item.json"
    value = json.loads(item.read_text())
    value["childIds"] = [child]
    item.write_text(json.dumps(value))
    for command in ("show", "tree"):
        result = CliRunner().invoke(main, [command, ROO_LEAD[:8], "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert OUTSIDE not in result.output
        assert "sessdex bug" not in result.output
        assert "Implement CSV export" in result.output  # the spawn is still shown


def _kiro_team(home: Path) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "kiro_make_databases", DATA / "kiro" / "make_databases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_team(home)  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize("child", ["../../../../beside/x", "x\x00y"])
def test_a_kiro_spawned_session_id_never_leads_out_of_its_folder(
    child: str, tmp_path: Path
) -> None:
    # a spawn_session result's session_id names the child's log beside the lead's
    home = tmp_path / "home"
    make = _kiro_team(home)
    folder = home / ".kiro/sessions/cli"
    beside = tmp_path / "beside"
    beside.mkdir()
    log = (folder / f"{make.CHILD}.jsonl").read_text()  # type: ignore[attr-defined]
    (beside / "x.jsonl").write_text(log.replace("refund() has none", OUTSIDE))
    lead = folder / f"{make.LEAD}.jsonl"  # type: ignore[attr-defined]
    lead.write_text(lead.read_text().replace(make.GONE, json.dumps(child)[1:-1]))  # type: ignore[attr-defined]
    for command in ("show", "tree"):
        result = CliRunner().invoke(
            main,
            [command, make.LEAD[:8], "--home", str(home)],  # type: ignore[attr-defined]
        )
        assert result.exit_code == 0, result.output
        assert OUTSIDE not in result.output
        assert "sessdex bug" not in result.output
        assert command == "tree" or "retries" in result.output  # the spawn is shown


OPENCLAW_SESSIONS = Path(".openclaw/agents/main/sessions")
OPENCLAW_CHILD = "2f033825-d2ce-4a88-ad72-cec5c71bc233"


@pytest.mark.parametrize("child", ["../../../../../beside/x", "x\x00y"])
def test_an_openclaw_child_session_id_never_leads_out_of_its_folder(
    child: str, tmp_path: Path
) -> None:
    # a sessions_spawn result names the child's key; the store (sessions.json) names its
    # sessionId, and <sessionId>.jsonl beside the lead's is the child's transcript
    home = tmp_path / "home"
    shutil.copytree(DATA / "openclaw" / "home", home)
    sessions = home / OPENCLAW_SESSIONS
    beside = tmp_path / "beside"
    beside.mkdir()
    log = (sessions / f"{OPENCLAW_CHILD}.jsonl").read_text()
    (beside / "x.jsonl").write_text(log.replace("41 archives", OUTSIDE))
    store = sessions / "sessions.json"
    value = json.loads(store.read_text())
    for entry in value.values():
        if entry["sessionId"] == OPENCLAW_CHILD:
            entry["sessionId"] = child
    store.write_text(json.dumps(value))
    result = CliRunner().invoke(main, ["show", "a717db17", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert OUTSIDE not in result.output
    assert "sessdex bug" not in result.output
    assert "Spawned sub-agent subagent" in result.output  # the spawn is still shown
