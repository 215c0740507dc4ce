"""What a daily user reads across apps: the same thing written the same way."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

REAL_GPTME = Path(__file__).parent / "data" / "gptme" / "real" / "home"


def test_show_writes_a_folder_in_the_home_as_list_does() -> None:
    """gptme's real run worked in a folder of its home: `list` showed `~/code/shop-api`,
    `show`'s header the whole path; both say `~/code/shop-api` now."""
    home = str(REAL_GPTME)
    listed = CliRunner().invoke(main, ["list", "--home", home])
    assert listed.exit_code == 0, listed.output
    assert "~/code/shop-api" in listed.stdout
    shown = CliRunner().invoke(main, ["show", "checkout-tui", "--home", home])
    assert shown.exit_code == 0, shown.output
    facts = shown.stdout.splitlines()[2]
    assert facts.startswith("~/code/shop-api · "), facts
    assert home not in facts


def test_an_openclaw_reset_says_which_command_once() -> None:
    """The TUI's /reset was shown '· reset (reset)'; it is '· reset by /reset'."""
    home = str(Path(__file__).parent / "data" / "openclaw" / "real" / "home")
    shown = CliRunner().invoke(main, ["show", "86301032", "--home", home])
    assert shown.exit_code == 0, shown.output
    assert "reset (reset)" not in shown.stdout
    assert shown.stdout.rstrip().endswith("· reset by /reset")


def test_a_hand_off_to_a_sub_agent_is_summed_up_by_its_task_not_its_json() -> None:
    """Forge's `sage` (a `tasks` list) and Hermes' `delegate_task` (a `goal`) were shown
    as their raw JSON input, where every other app's spawn shows its task."""
    data = Path(__file__).parent / "data"
    forge = CliRunner().invoke(
        main, ["show", "3f2a1b0c", "--home", str(data / "forge" / "home")]
    )
    assert "Using sage — Find every caller of checkout()\n" in forge.stdout
    hermes = CliRunner().invoke(
        main,
        ["show", "20261205_191422", "--home", str(data / "hermes" / "real" / "home")],
    )
    assert hermes.exit_code == 0, hermes.output
    assert "Using delegate_task — SCENARIO=child You are a sub-agent." in hermes.stdout
    assert '{"goal"' not in hermes.stdout


def test_a_cline_sub_agent_id_from_tree_is_traced_to_its_lead() -> None:
    """`tree` names a Cline CLI sub-agent `<lead>__agent_…`; `show` of that id said only
    that no session starts with it, where other apps' say whose sub-agent it is."""
    home = str(Path(__file__).parent / "data" / "cline" / "real" / "home")
    child = "1796199559317_1pfyv__agent_1796199559984_wufjri"
    tree = CliRunner().invoke(main, ["tree", "1796199559317", "--home", home])
    assert child in tree.stdout
    shown = CliRunner().invoke(main, ["show", child, "--home", home])
    assert shown.exit_code == 1
    assert "that is a sub-agent inside the cline session '1796199559317_1pfyv'" in (
        shown.stderr
    )
