"""Consistency across commands: options alike where commands share them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from sessdex.selection import did_you_mean, parse_query
from tests.helpers import write_claude_session
from tests.test_quick import full, full_run, settled


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


DEMO = str(api.demo_home().path)


def test_a_misspelt_scoped_word_is_mended_within_its_field() -> None:
    """`find branch:featrue` and `find cwd:shop-apu` got no suggestion, where a plain
    `find chekout` got one: a word narrowed to a field is mended from that field's
    words, its prefix kept as typed."""
    for typed, meant in [
        ("branch:featrue", "branch:feature"),
        ("cwd:shop-apu", "cwd:shop-api"),
        ("folder:code/shop-apu", "folder:code/shop-api"),
        ("title:chekout", "title:checkout"),
    ]:
        code, out, err = invoke("find", typed, "--home", DEMO)
        assert (code, out) == (0, ""), typed
        assert f"Did you mean '{meant}'? ('sessdex find {meant} --home " in err, err
    # a branch word is not mended from a title's: `payments` is in a title alone
    _, _, err = invoke("find", "branch:paymnets", "--home", DEMO)
    assert "Did you mean" not in err, err


def test_scoped_words_mend_only_into_a_value_that_matches() -> None:
    searches = ["claude\x00zebra-1234\x00fix the checkout\x00/home/u/shop-api\x00main"]
    assert did_you_mean(parse_query("dir:shop-apu"), searches) == ["dir:shop-api"]
    assert did_you_mean(parse_query("branch:mian"), searches) == ["branch:main"]
    # each word mended, but not into one value any folder holds: nothing to suggest
    assert did_you_mean(parse_query("dir:apu/shpo"), searches) is None
    assert did_you_mean(parse_query("branch:checkuot"), searches) is None
    assert did_you_mean(parse_query("id:zebar"), searches) is None
    # the user's own words (a `~` folder) stay as typed
    query = parse_query("dir:~/shop-apu", home="/home/u")
    assert did_you_mean(query, searches) == ["dir:~/shop-api"]


def test_the_suggested_command_keeps_limit_and_all() -> None:
    """`find --limit 5 chekout` suggested `sessdex find checkout`: the --limit (and
    --all) given were dropped."""
    _, _, err = invoke("find", "--limit", "5", "chekout", "--home", DEMO)
    assert f"('sessdex find --limit 5 checkout --home {DEMO}')" in err, err
    _, _, err = invoke("find", "--all", "-n", "3", "--app", "codex", "chekout", "--home", DEMO)  # fmt: skip
    assert f"('sessdex find --app codex --all --limit 3 checkout --home {DEMO}')" in err


def test_the_warm_quick_path_keeps_them_too(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    for args in (
        ["--limit", "5", "chekout", "--home", str(home)],
        ["branch:featrue", "--home", str(home)],
    ):
        expected = full_run(*args, command="find")
        assert b"Did you mean" in expected.stderr
        capsysbinary.readouterr()
        assert quick.answer("find", args)
        printed = capsysbinary.readouterr()
        assert (printed.out, printed.err) == (b"", expected.stderr)
