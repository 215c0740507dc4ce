"""Commands printed for a person to paste fit the shell they type in: POSIX sh, or on
Windows PowerShell (5.1 and 7) unless a POSIX shell runs there, or cmd.exe when asked;
a word a shell cannot be given is refused, never printed wrongly."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, resuming, shells, sources
from sessdex.cli import main
from sessdex.errors import BadSetting, NotQuotable
from sessdex.model import Session
from sessdex.sources import Home
from tests.helpers import write_claude_session

SESSION = "5e550000-0000-4000-8000-000000000001"
HOSTILE = [
    "it's",
    "\u2018curly\u2019 \u201cquotes\u201d",
    "$(touch pwned)",
    "a; touch pwned",
    "`touch pwned`",
    "$env:PATH",
    "%PATH%",
    "tab\there",
    "esc\x1b]0;title\x07",
    "rlo\u202eexe.txt",
    "zero\u200bwidth\u2060joined\ufeff",
    "back\\slash\\",
    "two\\\\backslashes",
    "-P",
    'model_reasoning_effort="medium"',
    'say "hi" & bye',
    "",
]


@pytest.fixture
def on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows as a PowerShell or cmd.exe user has it: no POSIX shell's variables."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.delenv("MSYSTEM", raising=False)
    monkeypatch.delenv("SHELL", raising=False)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("environ", "platform", "shell"),
    [
        ({"SHELL": "/bin/zsh"}, "darwin", "bash"),  # bash's $'…' form is zsh's too
        ({"SHELL": "/usr/bin/bash"}, "linux", "bash"),
        ({"SHELL": "/bin/sh"}, "linux", "posix"),  # dash on Debian: no $'…'
        ({"SHELL": "/usr/bin/fish"}, "linux", "fish"),  # no POSIX sh: its own form
        ({"SHELL": "/opt/homebrew/bin/fish"}, "darwin", "fish"),
        ({"SESSDEX_SHELL": "fish", "SHELL": "/bin/bash"}, "linux", "fish"),
        ({}, "linux", "posix"),
        ({}, "win32", "powershell"),
        ({"MSYSTEM": "MINGW64"}, "win32", "posix"),  # Git Bash, MSYS2
        ({"SHELL": "/bin/bash"}, "win32", "bash"),  # Cygwin
        ({"SHELL": "C:\\Git\\bin\\bash.exe"}, "win32", "bash"),
        ({"SESSDEX_SHELL": "cmd"}, "win32", "cmd"),
        ({"SESSDEX_SHELL": "PowerShell", "MSYSTEM": "MINGW64"}, "win32", "powershell"),
        ({"SESSDEX_SHELL": "posix"}, "win32", "posix"),
        ({"SESSDEX_SHELL": "pwsh"}, "linux", "powershell"),
        ({"SESSDEX_SHELL": "bash"}, "win32", "bash"),  # named as people know it
        ({"SESSDEX_SHELL": "zsh", "SHELL": "/bin/sh"}, "linux", "bash"),
        ({"SESSDEX_SHELL": "dash", "SHELL": "/bin/bash"}, "linux", "posix"),
        ({"SESSDEX_SHELL": "sh"}, "linux", "posix"),
    ],
)
def test_the_shell_is_the_one_the_user_types_in(
    environ: dict[str, str], platform: str, shell: str
) -> None:
    assert shells.current(environ, platform) == shell


def test_an_unknown_shell_asked_for_is_said() -> None:
    with pytest.raises(BadSetting, match=r"SESSDEX_SHELL is 'tcsh'.* fish, "):
        shells.current({"SESSDEX_SHELL": "tcsh"}, "win32")


def test_powershell_words_are_quoted_as_5_1_reads_them() -> None:
    line = shells.cd_then_run(
        "C:\\Users\\alex\\it's \u2019here\u2019", ["claude", "--resume", "a$(b)`c;d"], "powershell"
    )  # fmt: skip
    assert line == (
        "Set-Location -LiteralPath 'C:\\Users\\alex\\it''s \u2019\u2019here\u2019\u2019'; "
        "if ($?) { & claude --resume 'a$(b)`c;d' }"
    )
    # a control or bidi character cannot be in a single-quoted string: 5.1's own form
    line = shells.cd_then_run('x\x1b[2J$y`"\u201d\u202e', ["claude"], "powershell")
    assert line.startswith(
        'Set-Location -LiteralPath "x$([char]0x1b)[2J`$y```"`\u201d$([char]0x202e)"; '
    )


def test_a_character_that_draws_nothing_is_written_out_not_hidden() -> None:
    """A zero-width space, a word joiner or a BOM in a folder or id was printed raw in
    `resume --print`'s line: two lines looked the same, one not doing what it showed.
    cmd.exe has no escape for one: refused, as a word it would act on is (printed raw,
    it still hid the character)."""
    folder = "C:\\w\u200bork\u2060\ufeff"
    assert shells.word(folder, "powershell") == (
        '"C:\\w$([char]0x200b)ork$([char]0x2060)$([char]0xfeff)"'
    )
    assert shells.word("w\u200bork", "bash") == "$'w\\342\\200\\213ork'"
    assert shells.word("w\u200bork", "posix") == "w\"$(printf '\\342\\200\\213')\"ork"
    with pytest.raises(NotQuotable, match=r"cmd\.exe cannot show .*\\u200b"):
        shells.word(folder, "cmd")
    with pytest.raises(NotQuotable, match="draws nothing"):
        shells.cd_then_run(folder, ["claude"], "cmd")


def test_fish_gets_its_own_quotes_and_escapes() -> None:
    """fish reads `\\\\` and `\\'` inside single quotes: sh's `'a\\\\b'` named `a\\b`
    there, and `'end\\'` left the quote open. A control or invisible character is one
    of fish's escapes between quoted runs, past ASCII its `\\u` form (`\\x` is a byte)."""
    assert shells.cd_then_run("/a\\\\b/it's\\", ["claude", "-r", "%self"], "fish") == (
        "cd '/a\\\\\\\\b/it\\'s\\\\' && claude -r '%self'"
    )
    assert shells.word("t\tn\ne\x1b[2J\x07z\u200bb\u202e\x85", "fish") == (
        "'t'\\t'n'\\n'e'\\e'[2J'\\x07'z'\\u200b'b'\\u202e\\u0085"
    )
    assert shells.word("", "fish") == "''"
    assert shells.set_variable("GOOSE_MODE", "it's", "fish") == (
        "set -gx GOOSE_MODE 'it\\'s'"
    )


def test_a_word_with_paired_double_quotes_reaches_powershell_as_it_is() -> None:
    """Codex's effort: its quotes reach the program in 7.3; 5.1 drops them, one word."""
    line = shells.cd_then_run(
        "C:\\x", ["codex", "-c", 'model_reasoning_effort="medium"'], "powershell"
    )
    assert line.endswith("""& codex -c 'model_reasoning_effort="medium"' }""")


@pytest.mark.parametrize("word", ['say "hi"', 'a"b', "", "C:\\My Dir\\"])
def test_a_word_powershell_5_1_would_pass_wrongly_is_refused(word: str) -> None:
    with pytest.raises(NotQuotable, match=r"PowerShell before 7\.3"):
        shells.cd_then_run("C:\\x", ["claude", "--resume", word], "powershell")


def test_cmd_gets_double_quotes_and_cd_d() -> None:
    line = shells.cd_then_run(
        "D:\\R&D (old)", ["claude", "--resume", "a b&c|d^", "--add-dir", "C:\\a b\\"], "cmd"
    )  # fmt: skip
    assert line == (
        'cd /d "D:\\R&D (old)" && claude --resume "a b&c|d^" --add-dir "C:\\a b\\\\"'
    )


def test_cmd_gets_a_double_quote_as_a_programs_parser_reads_it() -> None:
    line = shells.cd_then_run(
        "C:\\x", ["codex", "-c", 'model_reasoning_effort="medium"', 'say "a b"'], "cmd"
    )
    assert line.endswith(' -c "model_reasoning_effort=\\"medium\\"" "say \\"a b\\""')


@pytest.mark.parametrize(
    "word",
    ["%PATH%", "wow!", 'say "hi & bye"', "two\nlines", "esc\x1b[2J", "rlo\u202e"],
)
def test_a_word_cmd_would_act_on_is_refused(word: str) -> None:
    """`say "hi & bye"` is `"say \\"hi & bye\\""` to a program: cmd.exe, which knows no
    `\\"`, would read `& bye` outside its quotes."""
    for folder, argv in ((word, ["claude"]), ("C:\\x", ["claude", "--resume", word])):
        with pytest.raises(NotQuotable, match=r"cmd\.exe would act on") as refused:
            shells.cd_then_run(folder, argv, "cmd")
        assert "\x1b" not in str(refused.value) and "\u202e" not in str(refused.value)


def echo_script(tmp_path: Path) -> Path:
    """A harmless program: prints the folder it runs in and the words it was given."""
    script = tmp_path / "echo-args.py"
    script.write_text(
        "import json, os, sys\nprint(json.dumps([os.getcwd(), *sys.argv[1:]]))\n"
    )
    return script


def takes(shell: str, word: str) -> bool:
    """Whether a line for `shell` can pass `word` to a program."""
    try:
        shells.cd_then_run("/", ["program", word], shell)
    except NotQuotable:
        return False
    return True


@pytest.mark.parametrize(
    ("shell", "program"),
    [
        ("bash", ["bash", "-c"]),
        ("bash", ["zsh", "-c"]),
        ("bash", ["ksh93", "-c"]),
        ("bash", ["mksh", "-c"]),
        ("posix", ["dash", "-c"]),
        ("posix", ["bash", "--posix", "-c"]),
        ("posix", ["zsh", "-c"]),
        ("posix", ["busybox", "sh", "-c"]),
        ("fish", ["fish", "--no-config", "-c"]),
        ("powershell", ["pwsh", "-NoProfile", "-Command"]),
    ],
)
def test_the_printed_line_passes_every_word_and_folder_exactly(
    tmp_path: Path, shell: str, program: list[str]
) -> None:
    if shutil.which(program[0]) is None:
        pytest.skip(f"{program[0]} is not installed")
    folder = tmp_path / "it's a $(touch pwned) `x` %PATH% \u202e; folder"
    folder.mkdir()
    words = [w for w in HOSTILE if takes(shell, w)]
    assert len(words) >= len(HOSTILE) - 3
    line = shells.cd_then_run(
        str(folder), [sys.executable, str(echo_script(tmp_path)), *words], shell
    )
    assert "\x1b" not in line and "\u202e" not in line  # printing it drives nothing
    assert not re.search("[\u200b\u2060\ufeff]", line)  # nor hides a character
    ran = subprocess.run(
        [*program, line], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert json.loads(ran.stdout) == [str(folder), *words]
    assert not list(tmp_path.rglob("pwned"))


ODD_FOLDERS = [
    "tab\there",
    "two\nlines",
    "a break, then a quote\n'",
    "ends in a break\n",
    "zero\u200bwidth",
    "rlo\u202eexe.txt",
    'it\'s "quoted"',
    "$HOME $(touch pwned)",
    "`touch pwned`",
    "-P",
    "esc\x1b[2J",
    "two\\\\backslashes",
    "a backslash, a quote\\'",
    "ends in a backslash\\",
]


@pytest.mark.parametrize(
    ("shell", "program"),
    [("sh", ["dash"]), ("sh", ["bash"]), ("fish", ["fish", "--no-config"])],
)
def test_resume_print_for_sh_enters_a_folder_holding_any_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str, program: list[str]
) -> None:
    """dash, Debian's /bin/sh, reads no `$'…'`: `cd $'/x/w\\342\\200\\213ork'` printed
    for SESSDEX_SHELL=sh failed there (`can't cd to $/x/w\\342…`); fish, which reads
    `\\\\` and `\\'` inside single quotes, entered another folder than `'a\\\\b'` or none
    (`'end\\'`: quotes not balanced). Each line `resume --print` prints enters the
    folder, and the CLI gets its words."""
    if shutil.which(program[0]) is None:
        pytest.skip(f"{program[0]} is not installed")
    monkeypatch.setenv("SESSDEX_SHELL", shell)
    home, bin_folder = tmp_path / "home", tmp_path / "bin"
    bin_folder.mkdir()
    claude = bin_folder / "claude"  # records where it ran and what it was given
    claude.write_text(f"#!{sys.executable}\n{echo_script(tmp_path).read_text()}")
    claude.chmod(0o755)
    env = {"PATH": f"{bin_folder}:/usr/bin:/bin", "HOME": str(home)}
    for number, name in enumerate(ODD_FOLDERS):
        folder = tmp_path / name
        folder.mkdir()
        session_id = f"5e55{number:04d}-0000-4000-8000-000000000001"
        write_claude_session(home, session_id, str(folder))
        code, out, err = invoke("resume", session_id, "--print", "--home", str(home))
        assert code == 0, err
        assert not re.search("[\x1b\u200b\u202e]", out)
        ran = subprocess.run(
            [*program, "-c", out], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert ran.returncode == 0, (name, out, ran.stderr)
        assert json.loads(ran.stdout)[:3] == [str(folder), "--resume", session_id]
    assert not list(tmp_path.rglob("pwned"))


def test_a_word_sh_cannot_be_given_is_refused_and_bash_gets_it() -> None:
    """`$(…)` drops the line breaks its output ends with: a word ending in one has no
    form for sh (a folder has: `x\\n/` is the same folder)."""
    with pytest.raises(NotQuotable, match="POSIX sh cannot be given 'id\\\\n'"):
        shells.run(["claude", "--resume", "id\n"], "posix")
    assert shells.run(["claude", "--resume", "id\n"], "bash").endswith("$'id\\012'")


def test_resume_print_on_windows_is_a_powershell_line(
    tmp_path: Path, on_windows: None
) -> None:
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\code\\shop-api")
    code, out, _ = invoke("resume", SESSION[:8], "--print", "--home", str(home))
    assert code == 1  # printed; its folder is not on this machine
    assert out == (
        "Set-Location -LiteralPath 'C:\\Users\\alex\\code\\shop-api'; "
        f"if ($?) {{ & claude --resume '{SESSION}' --model claude-sonnet-4-5 "
        "--permission-mode default }\n"
    )


def test_resume_print_in_git_bash_on_windows_stays_posix(
    tmp_path: Path, on_windows: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MSYSTEM", "MINGW64")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\code\\shop-api")
    code, out, _ = invoke("resume", SESSION[:8], "--print", "--home", str(home))
    assert code == 1  # printed; its folder is not on this machine
    assert out.startswith("cd 'C:\\Users\\alex\\code\\shop-api' && claude --resume ")


def test_cmd_refuses_a_folder_it_would_expand_and_json_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\100%PATH%")
    code, out, err = invoke("resume", SESSION[:8], "--print", "--home", str(home))
    assert (code, out) == (1, "")
    assert "cmd.exe would act on '%'" in err and "SESSDEX_SHELL=powershell" in err
    code, out, _ = invoke("resume", SESSION[:8], "--json", "--home", str(home))
    plan = json.loads(out)
    assert code == 0 and plan["command"] is None
    assert plan["argv"][:3] == ["claude", "--resume", SESSION]
    assert any("cmd.exe would act on '%'" in w for w in plan["warnings"])
    session = api.resolve(Home.at(home), SESSION)
    assert api.resume_command(session) is None  # an export has no wrong line either


def test_resume_runs_a_session_cmd_cannot_be_given_and_says_why_no_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is only shown: sessdex runs the CLI itself, with no shell between."""
    from sessdex.cli import sessions

    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    folder = tmp_path / "100%PATH%"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder))
    ran: list[list[str]] = []
    monkeypatch.setattr(
        sessions, "_run_instead", lambda _, argv, *_shown: ran.append(argv)
    )
    monkeypatch.setattr(shutil, "which", lambda name, **_: f"/usr/bin/{name}")
    monkeypatch.chdir(tmp_path)
    code, _, err = invoke(
        "resume", SESSION[:8], "--force", "--yes", "--home", str(home)
    )
    assert code == 0, err
    assert ran and ran[0][:3] == ["claude", "--resume", SESSION]
    assert "note: cmd.exe would act on '%'" in err


def test_export_writes_the_resume_line_for_the_users_shell(
    tmp_path: Path, on_windows: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "C:\\Users\\alex\\code\\shop-api")
    code, out, _ = invoke("export", SESSION[:8], "-f", "md", "--home", str(home))
    assert code == 0
    assert "Set-Location -LiteralPath 'C:\\Users\\alex\\code\\shop-api'; if ($?)" in out
    monkeypatch.setenv("SESSDEX_SHELL", "posix")
    code, out, _ = invoke("export", SESSION[:8], "-f", "md", "--home", str(home))
    assert code == 0
    assert "cd 'C:\\Users\\alex\\code\\shop-api' && claude --resume" in out


@pytest.mark.parametrize(
    ("shell", "lead", "hint"),
    [
        ("posix", "it's", "`sessdex resume 'claude:it'\"'\"'s'`."),
        ("powershell", "it's", "\"sessdex resume 'claude:it''s'\"."),
        ("cmd", "it's", '`sessdex resume "claude:it\'s"`.'),
        ("cmd", "50%off", "resume the session that started it (claude:50%off)."),
    ],
)
def test_a_sub_agents_hint_names_its_lead_in_the_users_shell(
    monkeypatch: pytest.MonkeyPatch, shell: str, lead: str, hint: str
) -> None:
    """The hint `resume` gives for a sub-agent is a command too; where the shell cannot
    be given the id, it is named, not printed as a wrong command."""
    monkeypatch.setenv("SESSDEX_SHELL", shell)
    sub = Session(app="claude", id="agent-1", parent_id=lead, cwd="/x")
    assert resuming._why_not_resumable(sources.get("claude"), sub).endswith(hint)


def crt_words(line: str) -> list[str]:
    """How a Windows program (Microsoft's C runtime) splits its command line: `2n`
    backslashes before a `"` are `n` and the quote opens or closes, `2n+1` are `n` and a
    literal `"`; other backslashes are themselves; blanks outside quotes part words."""
    words: list[str] = []
    word, inside, started, i = "", False, False, 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            run = len(line[i:]) - len(line[i:].lstrip("\\"))
            i += run
            if line[i : i + 1] == '"':
                word += "\\" * (run // 2)
                if run % 2:
                    word, i = word + '"', i + 1
            else:
                word += "\\" * run
            started = True
            continue
        if char == '"':
            inside, started = not inside, True
        elif char in " \t" and not inside:
            if started:
                words.append(word)
            word, started = "", False
        else:
            word, started = word + char, True
        i += 1
    if started:
        words.append(word)
    return words


def test_a_program_run_from_the_cmd_line_gets_every_word_exactly() -> None:
    words = [w for w in HOSTILE if takes("cmd", w)]
    assert 'model_reasoning_effort="medium"' in words and "back\\slash\\" in words
    words += ["a b\\", 'say "a b"', "\\\\server\\share\\", "R&D (old)", "x^y|z"]
    line = shells.cd_then_run("C:\\x", ["program", *words], "cmd")
    assert line.startswith('cd /d "C:\\x" && ')
    assert crt_words(line.split(" && ", 1)[1]) == ["program", *words]


@pytest.mark.parametrize(
    ("shell", "program"),
    [
        ("posix", ["bash", "-c"]),
        ("fish", ["fish", "--no-config", "-c"]),
        ("powershell", ["pwsh", "-NoProfile", "-Command"]),
    ],
)
def test_a_variable_set_by_the_printed_line_reaches_the_program(
    tmp_path: Path, shell: str, program: list[str]
) -> None:
    """A note's `GOOSE_MODE=…` line: the exact value, in the environment the next
    program gets (a POSIX assignment without `export` reached no program)."""
    if shutil.which(program[0]) is None:
        pytest.skip(f"{program[0]} is not installed")
    values = [w for w in HOSTILE if w and w != "%PATH%"] + ["smart_approve"]
    for value in values:
        line = shells.set_variable("SESSDEX_T", value, shell)
        assert "\x1b" not in line and "\u202e" not in line
        run_it = shells.run(
            [sys.executable, "-c", "import os; print(ascii(os.environ['SESSDEX_T']))"],
            shell,
        )
        ran = subprocess.run(
            [*program, f"{line}; {run_it}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        assert ran.stdout.strip() == ascii(value), (value, line)
    assert not list(tmp_path.rglob("pwned"))


def test_a_variable_is_set_as_powershell_and_cmd_write_it() -> None:
    set_variable = shells.set_variable
    assert set_variable("GOOSE_MODE", "approve", "posix") == "export GOOSE_MODE=approve"
    # a bare word after `=` would run as a command in PowerShell: always a string
    assert set_variable("GOOSE_MODE", "approve", "powershell") == (
        "$env:GOOSE_MODE = 'approve'"
    )
    assert set_variable("GOOSE_MODE", "it's $x", "powershell") == (
        "$env:GOOSE_MODE = 'it''s $x'"
    )
    assert set_variable("GOOSE_MODE", "a&b", "cmd") == 'set "GOOSE_MODE=a&b"'
    for word in ("%PATH%", 'say "hi"', "esc\x1b"):
        with pytest.raises(NotQuotable):
            set_variable("GOOSE_MODE", word, "cmd")


def test_the_goose_and_droid_notes_are_written_for_the_users_shell(
    on_windows: None,
) -> None:
    """The lines a resume's notes suggest are pasted into the same shell as its command."""
    from dataclasses import replace

    from sessdex.sources import droid, goose

    base = Session(
        app="goose", id="20260820_1", path="/x", cwd="C:\\Users\\me\\app", title="t"
    )
    plan = goose.resume(replace(base, permission_mode="smart_approve"))
    assert plan is not None
    assert (
        "the session ran in goose mode 'smart_approve'; to keep it, run "
        "$env:GOOSE_MODE = 'smart_approve' first"
    ) in plan.notes
    plan = droid.resume(replace(base, app="droid", id="it's"))
    assert plan is not None
    assert "headless: `& droid exec -s 'it''s'` (needs a Factory login)" in plan.notes
    # a word no cmd.exe line can carry: no line, never a wrong one
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SESSDEX_SHELL", "cmd")
        plan = goose.resume(replace(base, permission_mode="%PATH%"))
        assert plan is not None
        assert (
            "the session ran in goose mode '%PATH%'; to keep it, set the environment "
            "variable GOOSE_MODE to it before resuming"
        ) in plan.notes
        plan = droid.resume(replace(base, app="droid", id="%PATH%"))
        assert plan is not None
        assert not any("droid exec" in note for note in plan.notes)
