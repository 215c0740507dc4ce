"""A tab press answered without click (`quicktab`): byte for byte click's answer, for every
request it takes; click's own answer for every other."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from sessdex import api, quick, quicktab, sources
from sessdex.cli import main as cli
from sessdex.sources import Home
from sessdex.views.text import title_line

from .conftest import merged_home
from .helpers import write_claude_session

TITLES = [
    "Fix the login redirect",
    "a title that runs on and on, well past the sixty columns a completion shows",
    "  spaced   out\tand\nbroken over lines  ",
    "修复登录重定向问题并且添加测试用例以及更新文档说明还有很多很多很多的文字",
    "café crème brûlée, déjà vu, naïve façade, and a few more words to cut",
    "family 👨\u200d👩\u200d👧 emoji that Rich measures, well past the column limit",
    "\x1b[31mred\x1b[0m and a bell\x07",
    "x" * 59 + "é",
    "a NUL \x00 inside, which SQLite's json_extract would cut the title at",
    "",
]
IDS = [f"c{n:07x}-0000-4000-8000-{n:012x}" for n in range(len(TITLES))]
HOSTILE = ["c0$(touch pwned)", "-rf"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every app's fixtures and sessions of many titles, indexed, as the user's home."""
    home = merged_home(tmp_path / "home")
    for n, (session_id, title) in enumerate(zip(IDS, TITLES, strict=True)):
        when = f"2026-11-{10 + n:02d}T10:00:00.000Z"
        write_claude_session(home, session_id, "/w/app", title=title, when=when)
    for session_id in HOSTILE:
        write_claude_session(home, session_id, "/w/app", title="hostile")
    back = 1_767_225_600  # folders long settled: nothing for a tab press to re-read
    for folder, _, _ in os.walk(home):
        os.utime(folder, (back, back))
    monkeypatch.setenv("HOME", str(home))
    api.list_sessions(Home.current())
    return home


def requests(home: Path) -> Iterator[tuple[str, list[str], str]]:
    """(shell, the words before the one typed, the word typed): every command, before and
    after flags, arguments and valued options, with many starts of a word."""
    ids = ["", "c", "C000000", "c0000003", "claude:", "CLAUDE:c0", "zz", "0", "-", "=",
           ":", "c0$", "codex:0"]  # fmt: skip
    apps = ["", "c", "CO", "x", "-", "="]
    for command in [*quicktab.ID_COMMANDS, "usage", "list", "sh", ""]:
        flags = sorted(quicktab.ID_COMMANDS.get(command, ()))
        befores = [[], ["-h"], ["--"], ["--home", str(home)], ["word"],
                   ["--detail", "full"], flags, *([flag] for flag in flags)]  # fmt: skip
        for n, before in enumerate(befores):
            for typed in ids if n == 0 else ids[n % 4 :: 4]:
                yield from _shells([command, *before], typed)
    for command, (flags, _) in quicktab.APP_COMMANDS.items():
        options = sorted(flags)
        befores = [[], options, *([flag] for flag in options), ["daily"], ["a", "b"],
                   ["--app", "codex"], ["--since", "1d"], ["--"]]  # fmt: skip
        for n, before in enumerate(befores):
            for typed in apps if n == 0 else apps[n % 3 :: 3]:
                yield from _shells([command, *before, "--app"], typed)
                yield from _shells([command, *before], typed)
    for line in ["show 'c0", 'show "c0', "show c\\0"]:  # quoting: left to click
        words = line.split(" ")
        yield from _shells(words[:-1], words[-1])


def _shells(before: list[str], typed: str) -> Iterator[tuple[str, list[str], str]]:
    for shell in ("bash", "zsh", "fish"):
        yield shell, before, typed


def environment(shell: str, before: list[str], typed: str) -> dict[str, str]:
    """What the shell's completion script sets for the request."""
    words = ["sessdex", *before]
    if shell == "fish":  # the line up to the cursor, and the word being typed
        return {"COMP_WORDS": " ".join([*words, typed]), "COMP_CWORD": typed}
    return {"COMP_WORDS": "\n".join([*words, typed]), "COMP_CWORD": str(len(words))}


def by_click(capsysbinary: pytest.CaptureFixture[bytes]) -> bytes:
    capsysbinary.readouterr()
    with pytest.raises(SystemExit) as ended:
        cli.main(args=[], prog_name="sessdex")
    assert ended.value.code == 0
    return capsysbinary.readouterr().out


def by_quicktab(capsysbinary: pytest.CaptureFixture[bytes]) -> bytes | None:
    capsysbinary.readouterr()
    answered = quicktab.answer()
    out = capsysbinary.readouterr().out
    if not answered:
        assert out == b""
        return None
    return out


def test_every_request_answered_without_click_is_answered_as_click_answers_it(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    answered = 0
    offered: set[str] = set()
    for shell, before, typed in requests(home):
        variables = {"_SESSDEX_COMPLETE": f"{shell}_complete"}
        variables.update(environment(shell, before, typed))
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        fast = by_quicktab(capsysbinary)
        if fast is None:
            continue
        answered += 1
        assert fast == by_click(capsysbinary), (shell, before, typed)
        if shell == "bash":
            offered.update(line.decode()[6:] for line in fast.splitlines() if line)
    assert answered > 500
    # every session whose id the shell reads back as typed, the hostile ones never
    assert set(IDS) <= offered
    assert not offered & set(HOSTILE)


@pytest.mark.parametrize(
    ("before", "typed"),
    [
        (["show"], ""),
        (["resume", "--yes"], "c0"),
        (["tree", "--json", "-v"], "claude:"),
        (["follow", "--poll"], "C"),
        (["list", "--app"], "c"),
        (["find", "word", "--json", "--app"], ""),
        (["usage", "session", "--app"], "co"),
    ],
)
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_common_requests_are_answered_without_click(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    shell: str,
    before: list[str],
    typed: str,
) -> None:
    for name, value in environment(shell, before, typed).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("_SESSDEX_COMPLETE", f"{shell}_complete")
    assert by_quicktab(capsysbinary) not in (None, b"\n")


def test_a_tab_press_through_the_command_loads_no_click(home: Path) -> None:
    """Through the installed `sessdex` as the shell runs it: neither click nor `re`,
    `enum` or `typing`, and the same bytes as click's answer."""
    sessdex = Path(sys.executable).parent / "sessdex"
    if not sessdex.is_file():
        pytest.skip("needs the installed sessdex command")
    probe = (
        "import sys; sys.argv[0] = 'sessdex'; from sessdex.launch import main; "
        "main(); sys.stderr.write(' '.join(sorted(m for m in sys.modules "
        "if m.startswith(('sessdex.cli', 'click', 'typing')) or m in ('re', 'enum'))))"
    )
    variables = {
        **os.environ,
        "_SESSDEX_COMPLETE": "zsh_complete",
        **environment("zsh", ["show", "--json"], "c0000007"),
        "PYTHONWARNINGS": "ignore",
    }
    fast = subprocess.run(
        [sys.executable, "-c", probe], env=variables, capture_output=True, check=True
    )
    assert fast.stderr == b""
    slow = subprocess.run(
        [str(sessdex)],
        env={**variables, "SESSDEX_NO_QUICK": "1"},
        capture_output=True,
        check=True,
    )
    assert fast.stdout == slow.stdout
    assert fast.stdout.startswith(b"plain\nc0000007-")


def test_the_titles_shown_are_cut_as_the_full_command_cuts_them() -> None:
    texts = [*TITLES, None, " ", "\t\n", "a\u3000b", "\uff57" * 30 + "x", "\uff57" * 31,
             "x" * 60, "x" * 61, "e\u0301" * 40, "😀" * 31, "a\u00a0b"]  # fmt: skip
    for text in texts:
        shown = quicktab.title_line(text)
        assert shown in (None, title_line(text, quicktab.TITLE_COLUMNS)), text
    assert quicktab.title_line(TITLES[1]) == title_line(TITLES[1], 60)


def test_what_the_fast_path_knows_of_the_commands_is_what_they_take() -> None:
    """Its tables of commands and flags are the CLI's: a flag added, or one given a value,
    shows here first."""

    def flags(command: click.Command) -> frozenset[str]:
        return frozenset(
            name
            for param in command.params
            if isinstance(param, click.Option) and param.is_flag
            for name in (*param.opts, *param.secondary_opts)
        )

    def completes(command: click.Command, name: str) -> bool:
        return any(
            getattr(p._custom_shell_complete, "__name__", "") == name
            for p in command.params
        )

    commands = cli.commands
    assert {n for n, c in commands.items() if completes(c, "session_ids")} == set(
        quicktab.ID_COMMANDS
    )
    assert {n for n, c in commands.items() if completes(c, "app_names")} == set(
        quicktab.APP_COMMANDS
    )
    for name, known in quicktab.ID_COMMANDS.items():
        assert flags(commands[name]) == known, name
    for name, (known, most) in quicktab.APP_COMMANDS.items():
        assert flags(commands[name]) == known, name
        arguments = [p for p in commands[name].params if isinstance(p, click.Argument)]
        assert [p.nargs for p in arguments] == ([] if most == 0 else [most or -1])
    for name in sources.BUILTIN:
        assert sources.TITLES[name] == sources.get(name).TITLE


def test_each_sessions_help_is_its_app_and_title_as_listed(home: Path) -> None:
    from sessdex.cli.completion import session_ids

    ctx = click.Context(click.Command("show"))  # no --home: the user's own
    helps = {i.value: i.help for i in session_ids(ctx, click.Argument(["s"]), "c0")}
    for row in api.list_sessions(Home.current()).rows:
        if row.id in IDS:
            title = row.session().title
            assert helps[row.id] == f"claude · {title_line(title, 60)}"
    assert "NUL" in helps[IDS[-2]]


def test_ids_are_matched_as_python_folds_case_whatever_sqlite_prefilters(
    home: Path,
) -> None:
    """SQLite narrows the ids to those of the typed start (ASCII folded): one that Python
    folds into it from outside ASCII (a Kelvin sign for `k`) is offered still."""
    odd = ["\u212aelvin-0001", "\u00c9cole-0002", "KEY-0003", "key-0004"]
    for session_id in odd:
        write_claude_session(home, session_id, "/w/odd", title="odd")
    rows = api.list_sessions(Home.current()).rows
    found = quicktab._home()
    assert found is not None
    for typed in ["k", "KE", "\u00e9", "\u00c9C", "claude:k", "", "x"]:
        for with_app in (False, True):
            typed = f"claude:{typed}" if with_app and ":" not in typed else typed
            offered = [
                v for _, v, _ in quick.session_ids(found, typed, 999, str.isprintable)
            ]
            values = [f"{r.app}:{r.id}" if ":" in typed else r.id for r in rows]
            expected = [v for v in values if v.lower().startswith(typed.lower())]
            assert sorted(offered) == sorted(expected), typed
    assert "\u212aelvin-0001" in [
        v for _, v, _ in quick.session_ids(found, "k", 99, bool)
    ]
