"""helpvalues reads the allowed values out of real `--help` texts (tests/data/help); needs no CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import helpvalues

HELP = Path(__file__).resolve().parents[1] / "data" / "help"


def text(name: str) -> str:
    return (HELP / f"{name}.txt").read_text()


def values(name: str, flag: str) -> tuple[str, ...] | None:
    option = helpvalues.find(text(name), flag)
    assert option is not None, f"{name} has no {flag} entry"
    return option.values


def test_clap_long_help_lists_codex_approval_policies_without_the_retired_ones() -> (
    None
):
    # `Possible values:` then `- on-request: ...` lines; -a and --ask-for-approval are one entry
    assert values("codex-0.171.0-resume", "-a") == ("on-request", "never")
    assert values("codex-0.171.0-resume", "--ask-for-approval") == (
        "on-request",
        "never",
    )
    wrong, _ = helpvalues.check(
        ["resume", "019e", "-a", "untrusted", "-s", "workspace-write"],
        text("codex-0.171.0-resume"),
    )
    assert wrong == ["-a untrusted: --help lists only on-request, never"]


def test_clap_short_help_and_its_aliases() -> None:
    assert values("copilot-1.0.102", "--reasoning-effort") == (
        *("none", "minimal", "low", "medium", "high", "xhigh", "max"),
    )
    assert values("vibe-3.0.2", "--output") == ("text", "json", "streaming")
    # `[alias: --yolo]` names the same entry
    yolo = helpvalues.find(text("vibe-3.0.2"), "--yolo")
    assert yolo is not None and "--auto-approve" in yolo.names


def test_vibe_3_agents_are_an_open_list_that_lacks_the_vibe_2_ones() -> None:
    agent = helpvalues.find(text("vibe-3.0.2"), "--agent")
    assert agent is not None and agent.open
    assert agent.values == ("ask", "accept-edits", "smart-approve", "auto-approve")
    wrong, _ = helpvalues.check(
        ["--resume", "s1", "--agent", "plan"], text("vibe-3.0.2")
    )
    assert wrong == [
        "--agent plan: --help lists only ask, accept-edits, smart-approve, "
        "auto-approve (and custom ones)"
    ]
    # Vibe 2's argparse help names no agents: nothing to check, nothing failed
    assert helpvalues.check(["--agent", "plan"], text("vibe-2.26.1")) == (
        [],
        ["--agent"],
    )
    assert values("vibe-2.26.1", "--output") == ("text", "json", "streaming")  # {a,b,c}


def test_yargs_choices() -> None:
    assert values("gemini-0.61.0", "--approval-mode") == (
        *("default", "auto_edit", "yolo", "plan"),
    )
    # qwen spells it auto-edit, gemini auto_edit: the one that slips across is caught
    wrong, _ = helpvalues.check(["--approval-mode", "auto-edit"], text("gemini-0.61.0"))
    assert len(wrong) == 1
    assert "auto" in (values("qwen-0.24.4", "--approval-mode") or ())
    assert values("gemini-0.61.0", "-o") == values("gemini-0.61.0", "--output-format")


def test_commander_choices_wrap_across_lines_and_stop_before_the_preset() -> None:
    assert values("claude-2.1.197", "--permission-mode") == (
        *("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"),
    )
    suggestions = values("claude-2.1.197", "--prompt-suggestions")
    assert suggestions is not None and suggestions[-1] == "off"


def test_lists_written_in_the_description() -> None:
    # Claude: `Effort level for the current session (low, medium, high, xhigh, max)`
    assert values("claude-2.1.197", "--effort") == (
        "low",
        "medium",
        "high",
        "xhigh",
        "max",
    )
    # pi: `Set thinking level: off, minimal, ...`; 1.6 added max
    assert "max" not in (values("pi-0.73.1", "--thinking") or ())
    assert values("pi-1.6.0", "--thinking") == (
        *("off", "minimal", "low", "medium", "high", "xhigh", "max"),
    )
    assert helpvalues.check(["--thinking", "max"], text("pi-0.73.1"))[0]
    assert values("pi-1.6.0", "--mode") == (
        "text",
        "json",
        "rpc",
    )  # `text (default), json, or rpc`


def test_a_comma_list_flag_checks_each_part() -> None:
    option = helpvalues.find(text("claude-2.1.197"), "--setting-sources")
    assert option is not None
    assert option.accepts("user,project")
    assert not option.accepts("user,team")


@pytest.mark.parametrize("name", sorted(p.stem for p in HELP.glob("*.txt")))
def test_free_form_flags_are_not_given_a_list(name: str) -> None:
    """No false failures: models, ids, paths, samples and 'currently' lists are not choices."""
    help_text = text(name)
    for flag in (
        "--model",
        "-m",
        "--resume",
        "--session",
        "--provider",
        "-c",
        "--name",
    ):
        option = helpvalues.find(help_text, flag)
        assert option is None or option.values is None, (
            f"{name} {flag}: {option and option.values}"
        )
    mcps = helpvalues.find(help_text, "--disable-builtin-mcps")  # `(currently: a, b)`
    assert mcps is None or mcps.values is None
    slash = helpvalues.find(
        help_text, "--disabled-slash-commands"
    )  # `(comma-separated or repeated)`
    assert slash is None or slash.values is None


def test_every_stored_help_text_has_options() -> None:
    for path in HELP.glob("*.txt"):
        names = {n for o in helpvalues.options(path.read_text()) for n in o.names}
        assert "--help" in names or "-h" in names, path.name


def test_a_section_heading_ends_the_last_entry() -> None:
    last = helpvalues.find(text("pi-1.6.0"), "--version")
    assert last is not None and "Examples" not in last.text


def test_valued_flags() -> None:
    assert helpvalues.valued_flags(
        ["--resume", "abc", "--model=x", "--allow-all", "-a", "never", "--", "p"]
    ) == [("--resume", "abc"), ("--model", "x"), ("-a", "never")]


@pytest.mark.parametrize("recorded", ["default", "manual"])
def test_claude_default_mode_resumes_with_a_value_old_and_new_releases_take(
    recorded: str,
) -> None:
    # 2.1.332 lists `manual` where 2.1.197 listed `default`; it still takes `default`
    # (UNLISTED), which 2.1.197 takes too, so that is what a resume passes for either
    from sessdex.model import Session
    from sessdex.sources import claude

    plan = claude.resume(
        Session(app="claude", id="x", cwd="/w", permission_mode=recorded)
    )
    assert plan is not None
    for release in ("claude-2.1.197", "claude-2.1.332"):
        wrong, _ = helpvalues.check(list(plan.argv[1:]), text(release), "claude")
        assert not wrong, (release, wrong)
    assert "manual" in (values("claude-2.1.332", "--permission-mode") or ())
    wrong, _ = helpvalues.check(
        ["--permission-mode", "manual"], text("claude-2.1.197"), "claude"
    )
    assert wrong  # why `manual` is not what a resume passes
