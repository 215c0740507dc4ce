"""A Codex sub-agent goes by one name in every command: the task name its lead gave it
(`greeter`), with the nickname Codex gave it where a title is shown; its lead is "the
lead", not `/root` (a path that reads as the root user's folder)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "codex" / "home")
LEAD, AGENT = "01a22b81-666", "01a22b81-66c"


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", HOME])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_list_tree_show_and_usage_call_it_alike() -> None:
    assert "↳ greeter (Kierkegaard)" in _run("list", "--all")
    assert "└── greeter [done]" in _run("tree", LEAD)
    assert _run("show", AGENT).startswith("greeter (Kierkegaard)\n")
    assert "greeter (Kierkegaard)" in _run("usage", "session")
    for said in (_run("list", "--all"), _run("show", AGENT), _run("usage", "session")):
        assert "/root/greeter" not in said


def test_its_encrypted_task_is_said_to_be_one() -> None:
    shown = _run("show", AGENT)
    assert "⇠ the lead: [its task, encrypted by Codex" in shown
    assert "/root" not in shown and "[encrypted]" not in shown
    assert "\n⇠ greeter: Sub-agent report: the command printed" in _run("show", LEAD)
