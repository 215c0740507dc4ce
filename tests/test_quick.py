"""The quick listing path: a warm `sessdex list --json` answered from the index alone.

It must print exactly what the full command prints, and step aside (return False) whenever
anything it cannot vouch for changed: a file, a folder, an override, the index itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import platformdirs
import pytest
from click.testing import CliRunner

from sessdex import quick, sources
from sessdex.indexfile import cache_folder

from .conftest import merged_home
from .helpers import on_a_terminal, scramble_table, write_claude_session

NOTED = [n for n in sources.BUILTIN if getattr(sources.get(n), "SCAN_NOTED", False)]
SETTLED = 1_767_225_600  # 2026-01-01, long before any test runs


def settled(home: Path) -> Path:
    """Date every folder an hour back: a folder changed just now is never trusted."""
    past = SETTLED  # the same stamp each time: settling again undoes a folder's change
    for folder, _, _ in os.walk(home):
        os.utime(folder, (past, past))
    return home


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return settled(merged_home(tmp_path / "home"))


def full(*args: str, command: str = "list") -> bytes:
    """`sessdex COMMAND ARGS` through the full command (which also refreshes the index)."""
    return full_run(*args, command=command).stdout


def full_run(*args: str, command: str = "list") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", command, *args],
        env={**os.environ, "SESSDEX_NO_QUICK": "1"},
        capture_output=True,
        check=True,
    )


def answered(
    args: list[str], capsysbinary: pytest.CaptureFixture[bytes], command: str = "list"
) -> bytes | None:
    """What the quick path printed, or None when it stepped aside."""
    capsysbinary.readouterr()
    if not quick.answer(command, args):
        assert capsysbinary.readouterr().out == b""
        return None
    return capsysbinary.readouterr().out


def apps(names: list[str]) -> list[str]:
    return [arg for name in names for arg in ("--app", name)]


@pytest.mark.parametrize(
    "options",
    [
        ["--json"],
        ["--nl"],
        ["--json", "--limit", "2"],
        ["--nl", "--all"],
        ["-n", "1", "--json"],
    ],
)
def test_prints_what_the_full_command_prints(
    home: Path, options: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = [*options, "--home", str(home), *apps(NOTED)]
    expected = full(*args)
    assert b'"id"' in expected
    assert answered(args, capsysbinary) == expected


def test_each_app_alone(home: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    for name in NOTED:
        args = ["--json", f"--home={home}", f"--app={name}"]
        expected = full(*args)
        assert answered(args, capsysbinary) == expected, name


@pytest.mark.parametrize(
    "spelling", ["home", "./home/", "home//.", "~/home", "../x/../x/home"]
)
def test_a_home_given_relative_or_unnormalised_is_answered(
    tmp_path: Path,
    spelling: str,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """`--home` as people type it names the same index as the full command's."""
    settled(merged_home(tmp_path / "x" / "home"))
    monkeypatch.chdir(tmp_path / "x")
    monkeypatch.setenv("HOME", str(tmp_path / "x"))
    args = ["--json", "--home", spelling, *apps(NOTED)]
    expected = full(*args)
    assert b'"id"' in expected
    assert answered(args, capsysbinary) == expected


def test_steps_aside_before_the_first_refresh(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert answered(["--json", "--home", str(home)], capsysbinary) is None


@pytest.mark.parametrize(
    "options",
    [
        ["--since", "last tuesday", "--json"],  # unreadable ("yesterday" is read)
        ["--json", "--nl"],
        ["--json", "--app", "no-such-app"],
        ["--json", "--limit", "0"],
        ["--json", "--verbose"],
        ["--json", "--home"],
    ],
)
def test_leaves_other_requests_to_the_full_command(
    home: Path, options: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    full("--json", "--home", str(home))
    assert answered([*options, "--home", str(home)], capsysbinary) is None


def claude_transcripts(home: Path) -> list[Path]:
    return sorted(
        p
        for p in (home / ".claude" / "projects").glob("*/*.jsonl")
        if not p.name.startswith("agent-")
    )


@pytest.mark.parametrize("change", ["new file", "delete", "new project"])
def test_steps_aside_when_a_folder_changed(
    home: Path, change: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = ["--json", "--home", str(home), "--app", "claude"]
    full(*args)
    assert answered(args, capsysbinary) is not None
    transcript = claude_transcripts(home)[0]
    if change == "new file":
        (transcript.parent / "00000000-0000-4000-8000-000000000000.jsonl").write_bytes(
            transcript.read_bytes()
        )
    elif change == "delete":
        transcript.unlink()
    else:
        (home / ".claude" / "projects" / "-home-x").mkdir()
    assert answered(args, capsysbinary) is None
    settled(home)  # a folder changed a moment ago is not trusted: see the next test
    expected = full(*args)  # the full command notes the home as it is now
    assert answered(args, capsysbinary) == expected


@pytest.mark.parametrize("change", ["append", "rename", "rewrite same size"])
def test_a_changed_file_is_read_again_and_the_answer_is_current(
    home: Path, change: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A live session grows between two listings: the quick path re-reads that file."""
    args = ["--nl", "--home", str(home), "--app", "claude"]
    before = full(*args)
    assert answered(args, capsysbinary) == before
    transcript = claude_transcripts(home)[0]
    if change == "append":
        with transcript.open("ab") as f:
            f.write(b'{"type":"user"}\n')
    elif change == "rename":
        with transcript.open("ab") as f:
            f.write(b'{"type":"custom-title","customTitle":"Live rename"}\n')
    else:
        replacement = transcript.with_suffix(".tmp")
        replacement.write_bytes(transcript.read_bytes())
        os.replace(replacement, transcript)  # a new inode
        settled(home)
    now = answered(args, capsysbinary)
    assert now is not None
    assert now == full(*args)
    assert (b"Live rename" in now) == (change == "rename")
    assert answered(args, capsysbinary) == now


def test_many_changed_files_are_left_to_the_full_command(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = ["--json", "--home", str(home)]
    full(*args)
    monkeypatch.setattr(quick, "MAX_REREAD", 1)
    for transcript in claude_transcripts(home)[:2]:
        with transcript.open("ab") as f:
            f.write(b'{"type":"user"}\n')
    assert answered(args, capsysbinary) is None


def test_a_folder_changed_just_before_the_scan_is_not_trusted(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    home = merged_home(tmp_path / "home")
    for folder, _, _ in os.walk(home):
        os.utime(folder)  # modified just now
    args = ["--json", "--home", str(home), "--app", "claude"]
    full(*args)
    assert answered(args, capsysbinary) is None
    settled(home)
    full(*args)
    assert answered(args, capsysbinary) is not None


def test_a_home_stamped_in_the_future_is_answered_and_its_changes_seen(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A home copied from a machine whose clock was a year ahead: each folder looked
    changed "just now" at every listing, so every warm `list` took the full command
    (2.8 s instead of 0.3 s for 3,000 sessions), for as long as that year lasted."""
    ahead = int(datetime.now(UTC).timestamp()) + 365 * 24 * 3600
    for folder, _, _ in os.walk(home):
        os.utime(folder, (ahead, ahead))
    args = ["--json", "--home", str(home), "--app", "claude"]
    expected = full(*args)
    assert answered(args, capsysbinary) == expected
    transcript = claude_transcripts(home)[0]
    (transcript.parent / "00000000-0000-4000-8000-000000000000.jsonl").write_bytes(
        transcript.read_bytes()
    )  # stamps its folder with the time now, a year before what was noted
    assert answered(args, capsysbinary) is None


def test_damage_only_this_path_meets_is_set_aside_for_the_full_command(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A bad page in what only the quick path reads (the generation, the packed
    signatures): it stepped aside without a word, the full command never met the damage,
    and every warm `list` took the full command (1 s instead of 0.15 s), for good."""

    args = ["--json", "--home", str(home), "--app", "claude"]
    expected = full(*args)
    assert answered(args, capsysbinary) == expected
    [path] = Path(cache_folder()).glob("index-*.sqlite")
    scramble_table(path, "generation")
    with caplog.at_level("WARNING"):
        assert answered(args, capsysbinary) is None
    assert caplog.text.count("index was damaged") == 1
    assert path.with_name(path.name + ".damaged").exists()
    assert full(*args) == expected  # built again
    assert answered(args, capsysbinary) == expected


def test_sub_agent_files_matter_only_to_all(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    top = ["--json", "--home", str(home), "--app", "claude"]
    every = [*top, "--all"]
    expected = full(*top)
    agent = next((home / ".claude" / "projects").glob("*/*/subagents/agent-*.jsonl"))
    with agent.open("ab") as f:
        f.write(b'{"type":"user"}\n')
    assert (
        answered(top, capsysbinary) == expected
    )  # the sub-agent is not even looked at
    stats = []
    monkeypatch.setattr(
        quick, "_bring_up_to_date", lambda *a: stats.append(a[2]) or False
    )
    assert answered(every, capsysbinary) is None
    assert stats == [[("claude", str(agent))]]


def test_an_override_change_is_noticed(
    tmp_path: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Without --home the apps' environment counts: a new override means another folder."""
    monkeypatch.setenv("HOME", str(home))
    args = ["--json", "--app", "claude"]
    expected = full(*args)
    assert answered(args, capsysbinary) == expected
    other = tmp_path / "other"
    (other / "projects").mkdir(parents=True)
    settled(other)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(other))
    assert answered(args, capsysbinary) is None


def test_the_command_takes_the_quick_path(home: Path) -> None:
    """Through the real entry point, without importing the CLI, click, any source, or
    `typing` (with `re` and `enum` some 13 ms of a warm list's 100), nor `hashlib`
    (OpenSSL, some 4 ms: the index's name takes Python's own SHA-256)."""
    args = ["list", "--nl", "--home", str(home), *apps(NOTED)]
    expected = full(*args[1:])
    probe = (
        "import sys; from sessdex.launch import main; main(); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules "
        "if m.startswith(('sessdex.cli', 'click', 'sessdex.sources.', 'sessdex.model', 'typing'))"
        " or m in ('re', 'enum', 'hashlib'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.stdout == expected
    assert done.stderr.decode() == ""


def test_a_home_that_is_gone_is_left_to_the_full_command(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """An empty home's index holds nothing that could change: once the folder is gone,
    only the full command says so."""
    gone = tmp_path / "copied-home"
    gone.mkdir()
    settled(gone)
    assert full("--json", "--home", str(gone)) == b"[]\n"
    assert answered(["--json", "--home", str(gone)], capsysbinary) == b"[]\n"
    gone.rmdir()
    assert answered(["--json", "--home", str(gone)], capsysbinary) is None
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--home", str(gone)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert f"the folder '{gone}' does not exist." in done.stderr.decode()


@pytest.mark.parametrize("xdg", [None, "", "  ", "/tmp/some-cache"])
def test_cache_folder_is_platformdirs_one(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SESSDEX_HOME")
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert cache_folder() == platformdirs.user_cache_dir("sessdex", appauthor=False)


def test_a_relative_xdg_cache_home_is_ignored_as_the_spec_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """XDG_CACHE_HOME=.cache (a relative path, which the XDG spec calls invalid) made
    sessdex write an index below whatever folder it ran in: a project, or an agent's
    own folder, each with an index built from nothing."""
    from click.testing import CliRunner

    from sessdex.cli import main

    monkeypatch.delenv("SESSDEX_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CACHE_HOME", ".cache")
    folder = tmp_path / "some-project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    home = merged_home(tmp_path / "home")
    result = CliRunner().invoke(main, ["list", "--home", str(home), "--app", "claude"])
    assert result.exit_code == 0, result.output
    assert list(folder.iterdir()) == []
    assert list((tmp_path / "user" / ".cache" / "sessdex").glob("index-*.sqlite"))


def test_a_repeated_listing_is_served_from_the_index_until_it_changes(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = ["--nl", "--home", str(home), "--app", "claude"]
    before = full(*args)
    assert answered(args, capsysbinary) == before  # built, then kept
    assert answered(args, capsysbinary) == before  # the kept one
    transcript = claude_transcripts(home)[0]
    session_id = transcript.stem
    with transcript.open("ab") as f:
        f.write(
            b'{"type":"custom-title","customTitle":"Renamed by hand","sessionId":"'
            + session_id.encode()
            + b'"}\n'
        )
    after = full(*args)
    assert after != before and b"Renamed by hand" in after
    assert answered(args, capsysbinary) == after


@pytest.mark.parametrize(
    "options",
    [
        ["--json", "--since", "3650d"],
        ["--nl", "--since=2020-01-01"],
        ["--json", "--here"],
    ],
)
def test_since_and_here_as_the_full_command(
    home: Path,
    options: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir("/home" if os.path.isdir("/home") else "/")
    args = [*options, "--home", str(home)]
    expected = full(*args)
    assert answered(args, capsysbinary) == expected


@pytest.mark.parametrize(
    "query",
    [
        ["checkout"],
        ["app:codex", "--json"],
        ["branch:feat", "--all"],
        ["dir:shop", "app:claude"],
        ["c0afe25d"],
        ["no-such-words-anywhere"],
        ["title:fix", "--limit", "1"],
        ["codex:0", "--json"],
        ["id:0", "--json"],
        ["CAFÉ", "\uff21\uff30\uff29"],  # fullwidth API
    ],
)
def test_find_prints_what_the_full_command_prints(
    home: Path, query: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = [*query, "--home", str(home)]
    if "--json" not in args:
        args.append("--nl")
    full("--json", "--home", str(home))  # every app indexed and noted
    expected = full(*args, command="find")
    assert answered(args, capsysbinary, "find") == expected


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("find", ["no-such-words-anywhere"]),
        ("find", ["zzzz", "app:codex", "--app", "codex", "--since", "2030-01-01"]),
        ("list", ["--since", "2030-01-01", "--here"]),
        ("find", ["kierkegaard"]),  # only a Codex sub-agent's name: --all is named
    ],
)
def test_nothing_found_is_answered_with_the_full_commands_hint(
    home: Path,
    command: str,
    options: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A warm `find` of a word in no session answers at once, as one that matches does,
    not after loading the whole CLI to print its hint (1 s instead of 0.1 s)."""
    args = [*options, "--home", str(home)]
    full("--json", "--home", str(home))
    expected = full_run(*args, command=command)
    assert expected.stdout == b"" and b"No session matches" in expected.stderr
    capsysbinary.readouterr()
    assert quick.answer(command, args)
    printed = capsysbinary.readouterr()
    assert (printed.out, printed.err) == (b"", expected.stderr)


def test_words_only_sub_agents_match_name_them_and_all(home: Path) -> None:
    """A sub-agent is left out of a listing, not out of the hint: an empty answer with
    nothing said looked like no session had it."""
    done = full_run("kierkegaard", "--home", str(home), command="find")
    assert done.stdout == b""
    assert done.stderr.decode().strip() == (
        "No session matches 'kierkegaard', but 1 sub-agent does: add --all to list it."
    )
    found = full("kierkegaard", "--all", "--json", "--home", str(home), command="find")
    assert [row["title"] for row in json.loads(found)] == ["greeter (Kierkegaard)"]


def test_a_sub_agent_gone_since_is_not_counted_in_the_hint(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The hint counts sub-agents, whose files a listing without --all never checks: one
    deleted since the index read it was still said to match (and --all showed none)."""
    args = ["a2d2d2d2d2d2d2d2d", "--home", str(home)]
    full("--json", "--home", str(home))
    assert b"1 sub-agent does" in full_run(*args, command="find").stderr
    agent = next((home / ".claude").rglob("subagents/agent-a2d2d2d2d2d2d2d2d.jsonl"))
    agent.unlink()
    settled(home)
    capsysbinary.readouterr()
    said = capsysbinary.readouterr().err if quick.answer("find", args) else None
    expected = full_run(*args, command="find").stderr
    assert b"sub-agent" not in expected
    assert said in (None, expected)


def test_an_app_with_no_sessions_is_left_to_the_full_command(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """No session of the app at all: the full command says its folder is not there."""
    home = tmp_path / "home"
    write_claude_session(home, "11111111-0000-4000-8000-000000000001", "/srv/shop")
    settled(home)
    full("--json", "--home", str(home))
    args = ["nothing", "--app", "codex", "--home", str(home)]
    assert b"No folder of codex" in full_run(*args, command="find").stderr
    assert answered(args, capsysbinary, "find") is None


@pytest.mark.parametrize(
    ("command", "args"),
    [("list", ["--since", ""]), ("list", ["--since="]), ("find", ["", " "])],
)
def test_an_empty_value_is_refused_on_a_warm_index_too(
    home: Path, command: str, args: list[str]
) -> None:
    """The quick path took `--since ""` as no --since, and `find ""` as every session."""
    full("--json", "--home", str(home))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessdex",
            command,
            *args,
            "--json",
            "--home",
            str(home),
        ],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, b""), done.stderr


def test_find_leaves_odd_queries_to_the_full_command(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    full("--json", "--home", str(home))
    for query in (["app:nonesuch"], ["--app", "claude", "app:codex"], []):
        args = [*query, "--json", "--home", str(home)]
        assert answered(args, capsysbinary, "find") is None, query


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("list", []),
        ("list", ["--all"]),
        ("list", ["--limit", "3", "--all"]),
        ("list", ["--app", "codex"]),
        ("find", ["checkout"]),
        ("find", ["branch:feat", "--all"]),
    ],
)
def test_the_table_for_people_is_the_full_commands(
    home: Path,
    command: str,
    options: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    full("--json", "--home", str(home))
    args = [*options, "--home", str(home)]
    expected = full(*args, command=command)
    assert expected.count(b"\n") >= 1 and b"\x1b" not in expected
    got = answered(args, capsysbinary, command)
    if got != expected:  # an age may tick over ("2h" -> "3h") between the two runs
        assert _without_ages(got or b"") == _without_ages(expected)
    if command == "list":  # sub-agents, listed only with --all, are marked as such
        records = json.loads(full(*args, "--json"))
        marked = [line for line in expected.splitlines() if "↳ ".encode() in line]
        assert len(marked) == sum(r["parent_id"] is not None for r in records)
        assert bool(marked) == (options == ["--all"]) or "--limit" in options


def _without_ages(table: bytes) -> bytes:
    """The table with its age column blanked: app, id, then the age."""
    import re

    return re.sub(rb"(?m)^(\S+ +\S+ +)\S+", rb"\1?", table)


def test_a_table_line_is_styled_as_click_styles_it() -> None:
    import click

    from sessdex.views.text import listing_line

    fields = ("2026-11-01T10:00:00Z", None, "main", "/home/dev/x", "A \x1b[31mtitle")
    plain = listing_line(
        "claude", "abcdef1234", fields, width=80, home="/home/dev", styled=False
    )
    styled = listing_line(
        "claude", "abcdef1234", fields, width=80, home="/home/dev", styled=True
    )
    assert styled == click.style(plain[:8], fg="cyan") + plain[8:]
    assert "\x1b[31m" not in plain and plain.endswith("A title")


def test_list_columns_fit_what_they_show_and_leave_the_title_room() -> None:
    from sessdex.views.text import listing_columns, listing_line

    home = "/home/dev"
    rows = [(None, "/home/dev/code/api"), ("fix/x", "/srv/a")]
    # as wide as the longest branch ("fix/x") and folder ("~/code/api"), not 24 and 32
    assert listing_columns(rows, home=home, width=160) == (5, 10)
    long = [
        (
            "feature/a-very-long-branch-name",
            "/home/dev/code/clients/acme-corporation/shop-api",
        )
    ]
    assert listing_columns(long, home=home, width=160) == (24, 32)
    # 80 columns: the folder gives up room first, then the branch, so the title keeps 30
    branch, folder = listing_columns(long, home=home, width=80)
    assert (branch, folder) == (10, 12)
    fields = ("2026-11-01T10:00:00Z", None, long[0][0], long[0][1], "T" * 40)
    line = listing_line(
        "claude", "abcdef1234", fields, width=80, home=home, styled=False,
        now=datetime(2026, 11, 1, 11, 0, tzinfo=UTC),
        branch_column=branch, folder_column=folder,
    )  # fmt: skip
    assert line == "claude   abcdef12   1h  feature/a… …on/shop-api " + "T" * 29 + "…"
    assert len(line) <= 80
    # narrower, the title would get less than 20: the branch goes, then the folder
    assert listing_columns(long, home=home, width=60) == (0, 12)
    assert listing_columns(long, home=home, width=40) == (0, 0)
    line = listing_line(
        "claude", "abcdef1234", fields, width=60, home=home, styled=False,
        now=datetime(2026, 11, 1, 11, 0, tzinfo=UTC), branch_column=0, folder_column=12,
    )  # fmt: skip
    assert line == "claude   abcdef12   1h  …on/shop-api " + "T" * 20 + "…"


@pytest.mark.parametrize("no_color", ["1", "false"])
def test_no_color_leaves_the_table_uncoloured_on_a_terminal(
    home: Path,
    no_color: str,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NO_COLOR set to anything (no-color.org): `list` on a terminal writes no colour,
    through the full command and the quick path alike; unset or empty, the app is cyan."""
    monkeypatch.setenv(
        "TERM", "xterm"
    )  # one that shows colour, whatever runs the tests
    args = ["--home", str(home)]
    full("--json", *args)  # a warm index: the quick path answers
    env = {**os.environ, "SESSDEX_NO_QUICK": "1"}
    for value, colour in ((no_color, False), ("", True)):
        env["NO_COLOR"] = value
        result, shown = on_a_terminal(["list", *args], env, stdout_too=True)
        assert result.returncode == 0 and "claude" in shown
        assert ("\x1b[36m" in shown) is colour, value
        monkeypatch.setenv("NO_COLOR", value)
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        got = answered(args, capsysbinary)
        assert got is not None and b"claude" in got
        assert (b"\x1b[36m" in got) is colour, value


def test_a_dumb_terminal_gets_no_escape_sequences(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TERM=dumb (Emacs' shell, an editor's output pane) shows no colour or bold: `list`,
    `find` and `demo` wrote `\\x1b[36mclaude\\x1b[0m` there, where Rich's tables wrote none."""
    args = ["--home", str(home)]
    full("--json", *args)  # a warm index: the quick path answers
    env = {**os.environ, "SESSDEX_NO_QUICK": "1"}
    env.pop("NO_COLOR", None)
    for command in (["list", *args], ["find", "claude", *args], ["demo"]):
        result, shown = on_a_terminal(command, env, stdout_too=True, term="dumb")
        assert result.returncode == 0 and "claude" in shown, command
        assert "\x1b" not in shown, command
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    got = answered(args, capsysbinary)
    assert got is not None and b"claude" in got and b"\x1b" not in got


def test_a_narrow_terminal_leaves_out_branch_and_folder_for_the_title(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a 40-column terminal each line fits on one line: app, id, age and the title,
    the same through the full command and the quick path."""
    args = ["--home", str(home), *apps(["claude", "codex", "gemini"])]
    records = json.loads(full("--json", *args))
    env = {**os.environ, "SESSDEX_NO_QUICK": "1", "NO_COLOR": "1"}
    result, shown = on_a_terminal(["list", *args], env, stdout_too=True, columns=40)
    assert result.returncode == 0
    lines = shown.replace("\r\n", "\n").splitlines()
    assert len(lines) == len(records) and all(len(line) <= 40 for line in lines)
    first = records[0]
    assert lines[0].startswith(f"{first['app']:<8} ")
    # after app, id and age: the title, no branch or folder
    title = re.fullmatch(r"\S+ +\S+ +\S+  (.+)", lines[0])
    assert title and first["title"].startswith(title[1].rstrip("…"))
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    got = answered(args, capsysbinary)
    assert got is not None
    assert _without_ages(got) == _without_ages("\n".join(lines).encode() + b"\n")


def listing(*args: str) -> bytes:
    """`sessdex list ARGS` as a user runs it: the quick path first, else the full command."""
    return subprocess.run(
        [sys.executable, "-m", "sessdex", "list", *args],
        capture_output=True,
        check=True,
    ).stdout


@pytest.mark.parametrize(
    "change", ["named", "named, with its folder", "renamed in place", "unnamed"]
)
def test_a_rename_that_writes_only_its_sidecar_shows_at_once(
    tmp_path: Path, change: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Claude Code 2.1.3xx's `/rename` may write only `<id>/custom-title.json`, leaving the
    transcript as it was: the next `list` shows the new name all the same."""
    home = tmp_path / "home"
    session_id = "5e55a0e0-0000-4000-8000-000000000001"
    transcript = write_claude_session(home, session_id, "/w/shop", prompt="Fix it")
    folder = transcript.with_suffix("")
    sidecar = folder / "custom-title.json"
    if change != "named, with its folder":
        (folder / "subagents").mkdir(parents=True)  # the session has spawned agents
    if change in ("renamed in place", "unnamed"):
        sidecar.write_text(json.dumps({"customTitle": "Payments retry"}))
    settled(home)
    args = ["--json", "--home", str(home), "--app", "claude"]
    before = json.loads(listing(*args))[0]["title"]
    assert json.loads(listing(*args))[0]["title"] == before  # warm: the quick path
    if change == "unnamed":
        sidecar.unlink()
        expected = "Fix it"
    else:
        folder.mkdir(exist_ok=True)
        with sidecar.open(
            "r+" if sidecar.exists() else "w"
        ) as f:  # same file, new text
            f.write(json.dumps({"customTitle": "Checkout retry, by hand"}))
        expected = "Checkout retry, by hand"
        if change == "named":
            settled(home)  # even with the session folder's time as it was
    assert before != expected
    assert json.loads(listing(*args))[0]["title"] == expected
    assert json.loads(full(*args))[0]["title"] == expected
    if change == "renamed in place":  # nothing but the sidecar's size and time changed
        with sidecar.open("r+") as f:
            f.write(json.dumps({"customTitle": "Checkout retry, by hand again"}))
        got = answered(args, capsysbinary)
        assert got is not None
        assert json.loads(got)[0]["title"] == "Checkout retry, by hand again"


def test_a_changed_file_with_a_broken_line_is_warned_of_as_the_full_command_does(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The re-read of a file that grew says what it skipped, as the full refresh says."""
    args = ["--json", "--home", str(home), "--app", "gemini"]
    full(*args)
    chat = next((home / ".gemini" / "tmp").glob("*/chats/session-*-ae189b69.jsonl"))
    with chat.open("ab") as f:
        f.write(b"garbage{\n")
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    assert b"warning: skipped 1 unreadable line in 1 gemini file" in (
        capsysbinary.readouterr().err
    )


def test_a_name_that_hides_sessions_is_warned_of_on_every_list(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A file name that is not UTF-8 hides its sessions, and the full command says so
    each time; a warm list does not answer without saying it."""
    args = ["--json", "--home", str(home), "--app", "claude"]
    projects = os.fsencode(home / ".claude" / "projects")
    os.mkdir(projects + b"/-srv-caf\xe9")
    settled(home)
    assert b"not valid UTF-8" in full_run(*args).stderr
    assert answered(args, capsysbinary) is None
    assert b"not valid UTF-8" in full_run(*args).stderr


def test_a_transcript_it_may_not_open_is_warned_of_on_every_list(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A transcript of root's (0600, after `sudo claude`): the full command said its
    sessions may be missing once, and a warm list then answered without a word."""
    home = tmp_path / "home"
    write_claude_session(home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/ok")
    shut = write_claude_session(home, "78787878-bbbb-4bbb-8bbb-787878787878", "/w/shut")
    name = str(shut)
    settled(home)
    opener = os.open
    tries: list[str] = []

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path) == name:  # type: ignore[call-overload]
            tries.append(name)
            raise PermissionError(13, "Permission denied", name)
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)  # as the kernel refuses another user
    args = ["--json", "--home", str(home), "--app", "claude"]
    full_command = ["list", *args]
    from sessdex.cli import main

    CliRunner().invoke(main, full_command, catch_exceptions=False)  # warms the index
    for _ in range(2):
        capsysbinary.readouterr()
        tries.clear()
        assert quick.answer("list", args)
        got = capsysbinary.readouterr()
        assert [row["id"] for row in json.loads(got.out)] == [
            "56565656-aaaa-4aaa-8aaa-565656565656"
        ]
        assert f"could not open 1 file, such as {name}".encode() in got.err
        assert tries == []  # said from the index: a warm list stays as fast
    monkeypatch.setattr(os, "open", opener)  # given to the user (`sudo chown`):
    os.chmod(name, 0o644)  # its change time moves, so it is read: listed, not a word
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    got = capsysbinary.readouterr()
    assert len(json.loads(got.out)) == 2 and got.err == b""


def test_a_session_dated_ahead_gets_its_time_when_the_clock_comes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A transcript dated three days ahead (a machine whose clock ran fast) is listed
    without that time; it stayed so once the day came, until the file changed."""
    import time
    from datetime import timedelta

    from sessdex import indexparse

    ahead = datetime.now(UTC) + timedelta(days=3)
    when = ahead.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    home = tmp_path / "home"
    write_claude_session(
        home, "56565656-aaaa-4aaa-8aaa-565656565656", "/w/a", when=when
    )
    settled(home)
    args = ["--json", "--home", str(home), "--app", "claude"]
    assert json.loads(full(*args))[0]["created"] is None  # warms the index
    got = answered(args, capsysbinary)
    assert got is not None and json.loads(got)[0]["created"] is None
    later = time.time() + 4 * 86400  # the file is unchanged
    monkeypatch.setattr(quick, "_clock", lambda: later, raising=False)
    monkeypatch.setattr(indexparse, "_clock", lambda: later)
    got = answered(args, capsysbinary)
    assert got is not None and json.loads(got)[0]["created"] == when


def test_a_file_rewritten_with_its_size_and_mtime_kept_is_read_again(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`cp -p`, `touch -r` or a save within one mtime tick keeps size and mtime: the
    change time still tells the index that the file changed."""
    args = ["--json", "--home", str(home), "--app", "codex"]
    assert b"March export" in full(*args)
    rollout = next((home / ".codex" / "sessions").rglob("*019b2ea4-2222-*.jsonl"))
    before = rollout.stat()
    rollout.write_bytes(rollout.read_bytes().replace(b"March", b"April"))
    os.utime(rollout, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert rollout.stat().st_size == before.st_size
    now = answered(args, capsysbinary)
    assert now is not None and b"April export" in now and b"March export" not in now
    assert full(*args) == now


def test_a_word_that_is_no_utf8_is_left_to_the_full_command(home: Path) -> None:
    """A warm `sessdex find` given a byte that is no UTF-8 (a Latin-1 terminal's `é`) says
    nothing matches (a traceback: SQLite refused the word)."""
    full("--home", str(home))  # the index is warm
    ran = subprocess.run(
        [sys.executable, "-m", "sessdex", "find", "--home", str(home), b"caf\xe9"],
        capture_output=True,
    )
    assert b"Traceback" not in ran.stderr
    assert b"No session matches" in ran.stdout + ran.stderr


def test_the_homes_own_path_is_no_word_find_matches(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`list` shows a folder under the home as `~/code/shop`; find matches what it shows:
    the user's name (or macOS's `Users`) in the home's path found every session below it.
    A folder typed from the home, or as `~/…`, still finds its sessions, on both paths."""
    home = tmp_path / "users-alex"
    inside, outside = (
        "11111111-0000-4000-8000-000000000001",
        "22222222-0000-4000-8000-000000000002",
    )
    write_claude_session(
        home, inside, str(home / "code" / "shop"), title="Fix checkout"
    )
    write_claude_session(home, outside, "/srv/users/api", title="Add login")
    settled(home)
    expectations = {
        ("alex",): [],
        ("users",): [outside],  # in /srv/users, shown as it is
        ("code/shop",): [inside],
        (str(home / "code"),): [inside],
        ("~/code",): [inside],
        ("~",): [inside],
        (f"dir:{home}/code",): [inside],
    }
    _both_find(home, expectations.items(), capsysbinary)


def test_a_folder_that_holds_the_homes_path_further_in_is_found_as_list_shows_it(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Only a folder under the home is written from `~`: a backup of it elsewhere
    (`/mnt/backup/home/alex/app`, shown in full) was found by no word naming its path."""
    home = tmp_path / "home"
    elsewhere = f"/mnt/backup{home}/app"
    session = "11111111-0000-4000-8000-000000000001"
    write_claude_session(home, session, elsewhere, title="Fix checkout")
    settled(home)
    words = (elsewhere, f"{home.name}/app", f"backup{home}")
    _both_find(home, [((word,), [session]) for word in words], capsysbinary)


def test_a_home_with_a_blank_in_its_path_is_found_typed_in_full(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A home such as `C:\\Users\\John Smith`: its folders typed in full are split into two
    words by the blank, and neither matched once the home was shown as `~` (nothing found);
    the user's name alone still finds no session below it."""
    home = tmp_path / "John Smith"
    session = "11111111-0000-4000-8000-000000000001"
    write_claude_session(home, session, str(home / "code" / "shop"), title="Fix it")
    settled(home)
    cases = [
        ((str(home / "code"),), [session]),
        ((str(home),), [session]),
        (("smith",), []),
    ]
    _both_find(home, cases, capsysbinary)


def test_a_windows_folder_typed_as_list_shows_it_is_found(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """On Windows `list` shows `~\\code\\shop` and `C:\\Users\\me\\shop`; find held those
    folders with `/` and matched neither as typed (`dir:` did)."""
    home = tmp_path / "home"
    inside, windows = (
        "11111111-0000-4000-8000-000000000001",
        "22222222-0000-4000-8000-000000000002",
    )
    write_claude_session(home, inside, str(home / "code" / "shop"), title="Fix it")
    write_claude_session(home, windows, "C:\\Users\\me\\shop", title="Add it")
    settled(home)
    cases = [
        (("~\\code\\shop",), [inside]),
        (("C:\\Users\\me\\shop",), [windows]),
        (("c:\\users\\ME",), [windows]),
    ]
    _both_find(home, cases, capsysbinary)


def _both_find(
    home: Path,
    cases: Iterable[tuple[tuple[str, ...], list[str]]],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Each case's words find the sessions it names, in order, through the full command
    and, byte for byte alike, the quick path over the index the first run warmed."""
    full("--json", "--home", str(home))
    for words, found in cases:
        args = [*words, "--json", "--home", str(home)]
        printed = full(*args, command="find")
        assert [row["id"] for row in json.loads(printed)] == found, words
        assert answered(args, capsysbinary, "find") == printed, words
