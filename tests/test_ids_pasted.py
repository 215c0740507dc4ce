"""An id as people paste it into `show`, `resume`, `tree` and `export`: without a UUID's
dashes, in a chat message's quotes, inside an app's file name or command line. Each
form finds the session it names, and none finds another one."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from sessdex.errors import AmbiguousId, SessionNotFound
from sessdex.sources import Home

CLAUDE = "c0afe25d-a3f3-42d0-a05d-b89a69889156"  # tests/data/claude, real CLI's
CODEX = "01a22b81-6e0b-7650-ac72-188ccaa967c5"  # tests/data/codex; 3 more 01a22b81-…
CLAUDE_LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"  # has sub-agent a199d630441234c05


@pytest.mark.parametrize(
    "typed",
    [
        CLAUDE.replace("-", ""),  # as some tools and URLs print a UUID
        CLAUDE.replace("-", "").upper(),
        CLAUDE.replace("-", "")[:12],  # its start, past the first group
    ],
)
def test_a_uuid_without_its_dashes_finds_its_session(home: Home, typed: str) -> None:
    assert api.resolve(home, typed).id == CLAUDE


@pytest.mark.parametrize(
    "typed",
    [
        f'"{CLAUDE}"',
        f"'{CLAUDE[:8]}'",
        f"`{CLAUDE[:8]}`",
        f"<{CLAUDE}>",
        f"({CLAUDE}).",
        f"[{CLAUDE}]",
        f"{{{CLAUDE.upper()}}}",  # a GUID as Windows writes one
        f"{CLAUDE},",
        f"\u201c{CLAUDE[:8]}\u201d?",  # a chat app's quotes, a question's end
        f'"claude:{CLAUDE[:8]}"',
        f'claude:"{CLAUDE[:8]}"',
    ],
)
def test_an_id_in_quotes_brackets_or_a_sentence_finds_its_session(
    home: Home, typed: str
) -> None:
    assert api.resolve(home, typed).id == CLAUDE


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        (f"rollout-2026-11-30T08-10-32-{CODEX}.jsonl", CODEX),  # a file's name
        (f"codex resume {CODEX}", CODEX),  # the app's own command, pasted whole
        (f"claude --resume {CLAUDE}", CLAUDE),
        (f"{CLAUDE}.jsonl", CLAUDE),
        (f"urn:uuid:{CLAUDE}", CLAUDE),
    ],
)
def test_a_file_name_or_command_holding_one_uuid_finds_its_session(
    home: Home, typed: str, meant: str
) -> None:
    assert api.resolve(home, typed).id == meant


def test_a_pasted_form_still_says_an_ambiguous_prefix_is_one(home: Home) -> None:
    with pytest.raises(AmbiguousId) as told:
        api.resolve(home, f'"{CODEX[:8]}".')
    assert "matches 4 sessions" in str(told.value)


def test_loose_forms_never_pick_another_session_than_the_one_named(
    home: Home,
) -> None:
    # an app put in front still narrows: no codex session has this id
    with pytest.raises(SessionNotFound):
        api.resolve(home, "codex:" + CLAUDE.replace("-", ""))
    # a path that is not there names its lead's folder, not the sub-agent asked for
    missing = f"gone/{CLAUDE_LEAD}/subagents/agent-ffffffffffffffff.jsonl"
    with pytest.raises(SessionNotFound):
        api.resolve(home, missing)
    # two UUIDs in one text: which one was meant is not ours to guess
    with pytest.raises(SessionNotFound):
        api.resolve(home, f"{CLAUDE} {CODEX}")


def test_show_takes_a_uuid_pasted_without_dashes(home: Home) -> None:
    result = CliRunner().invoke(
        main,
        ["tree", CLAUDE.replace("-", ""), "--home", str(home.path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    assert CLAUDE in result.stdout


@pytest.mark.parametrize(
    "query",
    [
        [CLAUDE.replace("-", "")],
        [CLAUDE.replace("-", "").upper(), "shop"],
        ["id:" + CLAUDE.replace("-", "")],
        ["claude:" + CLAUDE.replace("-", "")],
    ],
)
def test_find_takes_a_whole_uuid_without_its_dashes(
    home: Home, query: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """In the full command and the quick path alike (a warm index answers `find`)."""
    args = [*query, "--home", str(home.path), "--nl"]
    full = CliRunner().invoke(main, ["find", *args], catch_exceptions=False)
    assert full.exit_code == 0, full.stderr
    assert [json.loads(line)["id"] for line in full.stdout.splitlines()] == [CLAUDE]
    capsysbinary.readouterr()
    assert quick.answer("find", args)
    assert capsysbinary.readouterr().out.decode() == full.stdout


def test_find_takes_no_uuid_without_dashes_for_another_app(home: Home) -> None:
    args = ["codex:" + CLAUDE.replace("-", ""), "--home", str(home.path), "--nl"]
    result = CliRunner().invoke(main, ["find", *args], catch_exceptions=False)
    assert (result.exit_code, result.stdout) == (0, "")


def test_a_transcripts_path_given_for_the_id_shows_its_session(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `list --json` prints it, from `~`, in quotes, or relative in its folder."""
    folder = home.path / ".claude" / "projects" / "-home-alex-code-shop-api"
    transcript = folder / f"{CLAUDE}.jsonl"
    monkeypatch.setenv("HOME", str(home.path))
    for typed in (
        str(transcript),
        f"~/{transcript.relative_to(home.path)}",
        f"'{transcript}'",
    ):
        assert api.resolve(home, typed).id == CLAUDE, typed
    monkeypatch.chdir(folder)
    assert api.resolve(home, f"./{CLAUDE}.jsonl").id == CLAUDE
    # a sub-agent's own file is that sub-agent's, not its lead's (whose id its path holds)
    agent = folder / CLAUDE_LEAD / "subagents" / "agent-a199d630441234c05.jsonl"
    assert api.resolve(home, str(agent)).id == "a199d630441234c05"


def test_a_path_list_json_shows_finds_that_session(home: Home) -> None:
    """The `path` of every session `list --json` prints, given back for its id: a
    transcript beside its metadata, one session of a database (`…db#session/<id>`)."""
    for session in api.list_sessions(home, include_subagents=True).sessions():
        if session.path and not session.path.endswith(".md"):  # one history, many
            found = api.resolve(home, session.path)
            assert (found.app, found.id) == (session.app, session.id), session.path


def test_a_file_of_several_sessions_is_still_no_id(home: Home) -> None:
    database = home.path / ".local" / "share" / "opencode" / "opencode.db"
    with pytest.raises(SessionNotFound) as told:
        api.resolve(home, str(database))
    assert "that is a file, not an id: give the id of the session it holds" in str(
        told.value
    )
    transcript = home.path / ".claude" / "projects" / "-home-alex-code-shop-api"
    with pytest.raises(SessionNotFound):  # an app named in front that is not its own
        api.resolve(home, f"codex:{transcript / (CLAUDE + '.jsonl')}")


def test_another_apps_uuid_without_dashes_names_the_app_that_has_it(
    home: Home,
) -> None:
    """`codex:` in front of a Claude Code session's dashless id: found nowhere, and
    the error names the form that works, as it does for the id with its dashes."""
    with pytest.raises(SessionNotFound) as told:
        api.resolve(home, "codex:" + CLAUDE.replace("-", ""))
    assert f"a claude session's does: 'claude:{CLAUDE}'" in str(told.value)
