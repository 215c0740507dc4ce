"""Consistency across commands: options alike where commands share them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_follow_verbose_names_the_lines_it_skipped(tmp_path: Path) -> None:
    """`follow` took no -v/--verbose, where show, export, tree and replay name each
    broken line with it: it could only send the user to `doctor --deep`."""
    home = tmp_path / "home"
    path = write_claude_session(home, "56565656-0000-4000-8000-000000000005", "/w/a")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    follow = ("follow", "5656", "--duration", "0", "--home", str(home))
    code, _, err = invoke(*follow, "-v")
    assert code == 0
    assert "warning: skipped 1 unreadable line:\n" in err
    assert f"{path}:2" in err and "not JSON" in err
    code, _, err = invoke(*follow)
    assert code == 0 and "skipped 1 unreadable line; see --verbose" in err
    assert str(path) not in err


def _choices(command: str, option: str) -> str:
    _, out, _ = invoke(command, "--help")
    line = next(x for x in out.splitlines() if x.strip().startswith(option))
    return line.split("[", 1)[1].split("]", 1)[0]


def test_a_choice_two_commands_share_lists_its_values_in_one_order() -> None:
    """`export --help` said `--subagents [tree|inline|none]`, `show --help`
    `[inline|tree|none]`: the same option read as two."""
    assert _choices("export", "--subagents") == "inline|tree|none"
    assert _choices("show", "--subagents") == "inline|tree|none"
    detail = {_choices(c, "--detail") for c in ("show", "follow", "replay")}
    assert detail == {"full|normal|user"}


def test_help_says_a_numbers_bound_in_words_not_click_notation() -> None:
    """`--help` showed `[x>=0]` beside each count and `[default: 10.0; x>=0.01]` beside
    `replay --speed`: math notation, where the refusal already says "give 0 or more"."""
    from sessdex.cli import main as group

    for name in sorted(group.commands):
        code, out, _ = invoke(name, "--help")
        assert code == 0 and "x>=" not in out and "x<" not in out, name
    _, out, _ = invoke("replay", "--help")
    assert "[default: 10.0; 0.01 or more]" in " ".join(out.split())
    _, out, _ = invoke("list", "--help")
    assert "Show at most N sessions. 0 shows none.\n" in out
