"""Follow-ups found by reviews: what a user meets where sessdex's words disagreed."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from sessdex import api, resolving
from sessdex.cli import main
from sessdex.errors import SessionNotFound
from sessdex.sources import Home

from .conftest import app_home


def _home_of(tmp_path: Path, *apps: str) -> Home:
    home = tmp_path / "home"
    for app in apps:
        shutil.copytree(app_home(app), home, dirs_exist_ok=True)
    return Home.at(home)


@pytest.mark.parametrize(
    ("app", "lead", "child"),
    [
        ("copilot", "52ee9297-7cb3-468f-8ca4-46f6b927c8c7", "875a1830"),
        ("qwen", "51ca07c5-86d5-4e2f-bd10-43feff49e3db", "general-purpose-eh56xt"),
    ],
)
def test_an_inline_sub_agents_id_from_tree_points_at_its_lead(
    tmp_path: Path, app: str, lead: str, child: str
) -> None:
    """`tree` prints a sub-agent's id that its app keeps inside the lead's file; `show`
    of that id names the session holding it and how to see it, not just 'no session'."""
    home = _home_of(tmp_path, app)
    _, root = api.agent_tree(home, lead)
    assert any(node.id.startswith(child) for _, node in root.walk())
    with pytest.raises(SessionNotFound) as raised:
        api.resolve(home, child)
    said = str(raised.value)
    assert "sub-agent" in said
    assert f"sessdex tree {app}:{lead}" in said


def test_an_id_no_file_holds_is_still_simply_not_found(tmp_path: Path) -> None:
    home = _home_of(tmp_path, "copilot")
    with pytest.raises(SessionNotFound) as raised:
        api.resolve(home, "0123456789abcdef")
    assert "sub-agent" not in str(raised.value)


def test_a_lead_usage_lists_whose_transcript_is_gone_names_its_sub_agents(
    tmp_path: Path,
) -> None:
    """`usage session` lists a lead whose transcript is gone (its sub-agents' files are
    left); `show` of that id says so and how to see what is left."""
    lead = "33333333-3333-4333-8333-333333333333"
    folder = tmp_path / "home/.claude/projects/-home-dev-shop"
    folder.mkdir(parents=True)
    kept = app_home("claude") / ".claude/projects/-home-dev-shop" / lead
    shutil.copytree(kept, folder / lead)
    runner = CliRunner()
    args = ["--home", str(tmp_path / "home")]
    usage = runner.invoke(main, ["usage", "session", "--since", "2000-01-01", *args])
    assert lead in usage.stdout
    shown = runner.invoke(main, ["show", lead[:8], *args])
    assert shown.exit_code != 0
    assert "no transcript left" in shown.stderr
    assert "sessdex show claude:a1c1c1c1c1c1c1c1c" in shown.stderr
    child = runner.invoke(main, ["show", "claude:a1c1c1c1c1c1c1c1c", *args])
    assert child.exit_code == 0, child.stderr


def _kinds(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("["):
        return [e["kind"] for e in json.loads(text)]
    return [json.loads(line)["kind"] for line in text.splitlines()]


@pytest.mark.parametrize(
    "args",
    [
        ["show", "52ee", "--json"],
        ["show", "52ee", "--nl"],
        ["show", "52ee", "--nl", "--tail", "2"],
        ["replay", "52ee", "--nl", "--speed", "1000"],
        ["follow", "52ee", "--nl", "-n", "100", "--duration", "0.2", "--poll"],
    ],
)
def test_detail_user_keeps_only_what_was_typed_and_said_as_json_too(
    tmp_path: Path, args: list[str]
) -> None:
    """`--detail user` means only what was typed and said: as JSON as in the text."""
    home = ["--home", str(_home_of(tmp_path, "copilot").path)]
    runner = CliRunner()
    every = runner.invoke(main, [*args, *home])
    user = runner.invoke(main, [*args, "--detail", "user", *home])
    assert every.exit_code == 0 and user.exit_code == 0, user.output
    assert set(_kinds(every.stdout)) - {"user", "assistant"}  # more than was said
    kept = _kinds(user.stdout)
    assert kept and set(kept) <= {"user", "assistant"}
    text = runner.invoke(
        main, ["show", "52ee", "--detail", "user", "--no-pager", *home]
    )
    if "--tail" not in args and "follow" not in args:
        said = [line for line in text.stdout.splitlines()[4:] if line.strip()]
        assert len(kept) == len(said)


def test_a_big_legacy_gemini_chat_not_laid_out_as_gemini_writes_it_is_listed_and_shown(
    tmp_path: Path,
) -> None:
    """A legacy chat JSON past the listing's whole-parse size, written compact (another
    tool's copy, not Gemini's own two-space layout), is listed and its replies shown; it
    was skipped as "too long", and `show` said only its prompts were left."""
    home = _home_of(tmp_path, "gemini")
    chat = next(home.path.glob(".gemini/tmp/*/chats/session-*.json"))
    document = json.loads(chat.read_text())
    pad = {**document["messages"][0], "type": "info", "content": "x" * 1000}
    padding = [{**pad, "id": f"pad{n}"} for n in range(17_500)]
    document["messages"] = padding + document["messages"]
    chat.write_text(json.dumps(document, separators=(",", ":")))
    assert chat.stat().st_size > 16 * 1024 * 1024
    args = ["--home", str(home.path)]
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--app", "gemini", "--json", *args])
    ids = [s["id"] for s in json.loads(listed.stdout)]
    assert document["sessionId"] in ids
    shown = runner.invoke(main, ["show", document["sessionId"], "--json", *args])
    kinds = _kinds(shown.stdout)
    assert "assistant" in kinds and "user" in kinds


@pytest.mark.parametrize("name", [".aider.input.history", ".aider.chat.history.md"])
def test_export_never_replaces_a_file_aider_keeps_in_a_project(
    tmp_path: Path, name: str
) -> None:
    """Aider's prompt history (never indexed) and a chat log in a folder no agent
    recorded (not found either) are aider's files all the same: an export refuses them."""
    home = _home_of(tmp_path, "gemini")
    project = tmp_path / "project"
    project.mkdir()
    kept = project / name
    kept.write_text("\n# 2026-11-30 08:00:00.000000\n+fix the login redirect\n")
    before = kept.read_bytes()
    args = ["--home", str(home.path)]
    result = CliRunner().invoke(main, ["export", "5a1e", "-o", str(kept), *args])
    assert result.exit_code != 0
    assert "refusing" in result.stderr
    assert kept.read_bytes() == before
    beside = project / "notes.md"
    result = CliRunner().invoke(main, ["export", "5a1e", "-o", str(beside), *args])
    assert result.exit_code == 0 and beside.stat().st_size > 0


def _demo_script() -> ModuleType:
    script = Path(__file__).resolve().parent.parent / "scripts" / "make-demo-home.py"
    spec = importlib.util.spec_from_file_location("make_demo_home", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_demo_home_is_what_its_script_writes(tmp_path: Path) -> None:
    """The shipped demo home is the script's output, file for file: regenerating it as
    the script says loses nothing (a file added by hand went on the next run)."""
    script = _demo_script()
    shipped = Path(api.demo_home().path)
    script.ROOT = tmp_path / "home"
    script.main()
    written = sorted(p.relative_to(script.ROOT) for p in script.ROOT.rglob("*"))
    assert written == sorted(p.relative_to(shipped) for p in shipped.rglob("*"))
    for name in written:
        if (shipped / name).is_file():
            assert (shipped / name).read_bytes() == (script.ROOT / name).read_bytes()


def test_the_demos_tool_outputs_fit_their_calls() -> None:
    """What each demo command printed is what such a command prints: a grep's lines
    hold what it searched for, a test run counts its tests (no `ok: 42 passed` for a
    grep)."""
    home = ["--home", str(api.demo_home().path)]
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--json", *home])
    pairs = 0
    for session in json.loads(listed.stdout):
        shown = runner.invoke(main, ["show", session["id"], "--json", *home])
        events = json.loads(shown.stdout)
        calls = {e["call_id"]: e for e in events if e["kind"] == "tool_call"}
        for result in (e for e in events if e["kind"] == "tool_result"):
            command = str(calls[result["call_id"]]["extra"]["input"]["command"])
            output = result["text"]
            pairs += 1
            if command.startswith("grep "):
                searched = shlex.split(command)[2]
                lines = output.splitlines()
                assert lines and all(searched in line for line in lines), output
            elif command.startswith("pytest "):
                assert re.search(r"^\d+ passed.* in [\d.]+s$", output, re.M), output
    assert pairs >= 3


VIBE_SESSIONS = ".vibe/logs/session"


@pytest.mark.parametrize("damage", [b"", b'{\n  "session_id": "5b5b5b5b-0000-4000-8'])
def test_a_vibe_session_whose_meta_json_is_unreadable_is_listed_from_its_messages(
    tmp_path: Path, damage: bytes
) -> None:
    """A legacy Vibe folder whose meta.json is empty or cut short, its messages.jsonl
    whole, is listed (by the id its folder's name holds) and shown, the damage said; it
    was not listed at all."""
    home = _home_of(tmp_path, "vibe")
    sessions = home.path / VIBE_SESSIONS
    kept = sessions / "session_20261201_100000_3f1c2a9e" / "messages.jsonl"
    folder = sessions / "session_20261203_120000_5b5b5b5b"
    folder.mkdir()
    shutil.copy(kept, folder / "messages.jsonl")
    (folder / "meta.json").write_bytes(damage)
    args = ["--home", str(home.path)]
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--app", "vibe", "--json", *args])
    [found] = [s for s in json.loads(listed.stdout) if s["id"].startswith("5b5b5b5b")]
    assert found["title"] == "Refactor the payment client to retry failed charges"
    assert "meta.json is empty or cut short" in listed.stderr
    shown = runner.invoke(main, ["show", found["id"], "--json", *args])
    assert shown.exit_code == 0, shown.stderr
    assert "tool_call" in _kinds(shown.stdout)
    assert "meta.json is empty or cut short" in shown.stderr


def test_a_compacted_vibe_chain_keeps_a_folder_whose_meta_json_is_unreadable(
    tmp_path: Path,
) -> None:
    """The older folder of a compacted Vibe session, its meta.json emptied, still gives
    its messages to the session that continues it (they went missing)."""
    home = _home_of(tmp_path, "vibe")
    older = home.path / VIBE_SESSIONS / "session_20261201_100000_3f1c2a9e"
    (older / "meta.json").write_bytes(b"")
    args = ["--home", str(home.path)]
    shown = CliRunner().invoke(main, ["show", "7a8b", "--json", *args])
    assert shown.exit_code == 0, shown.stderr
    texts = [e["text"] for e in json.loads(shown.stdout) if e["kind"] == "user"]
    assert "Refactor the payment client to retry failed charges" in texts
    assert "bug" not in shown.stderr


def test_the_search_for_a_sub_agents_lead_stops_at_its_byte_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every byte searched counts, in files that do not hold the id too: past the
    budget nothing more is read (the newest file alone is more than it here)."""
    home = _home_of(tmp_path, "copilot")
    monkeypatch.setattr(resolving, "SUBAGENT_SEARCH_BYTES", 1)
    with pytest.raises(SessionNotFound) as raised:
        api.resolve(home, "875a1830")
    assert "sub-agent" not in str(raised.value)


def test_the_search_for_a_sub_agents_lead_never_waits_on_a_pipe(tmp_path: Path) -> None:
    """A session's file replaced by a named pipe after it was listed: the search for
    the lead of an unknown id passes over it (opening it would wait for a writer)."""
    import os
    import threading

    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    found: list[tuple[bool, int]] = []
    worker = threading.Thread(
        target=lambda: found.append(
            resolving._file_holds(str(fifo), {b"abcdef"}, 1 << 20)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    if worker.is_alive():  # free the thread, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("the search waited on a named pipe")
    assert found == [(False, 0)]
