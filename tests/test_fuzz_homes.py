"""Every fixture home, damaged one file at a time, through the commands a user runs.

Formats drift and disks fail, in homes nobody here has seen. Each case copies a home
(tests/data/<app>/home, the real CLIs' homes the fixtures keep in tests/data/<app>/real/,
and those of the shared corpus where it sits beside the checkout), damages one file one way drawn from a fixed seed (see tests/fuzzing.py),
and runs list, show --json, tree, export md, usage daily, watch --once and doctor --deep
over it. None may end in a traceback or say "a sessdex bug"; a file that still holds its
sessions still lists them; and a session gone is never gone unsaid (doctor counts what was
skipped). A failure names its home and case: `scripts/fuzz-homes.py NAME --first N
--cases 1` (with `--tree` or `--odd` for a tree or odd-file case) runs that case again, and more cases than these.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import fuzzing

CASES_PER_HOME = 5  # the whole module in well under a minute on two cores
HOMES = fuzzing.homes()


@pytest.mark.parametrize("name", sorted(HOMES))
def test_a_damaged_home_is_never_a_crash_and_loses_no_session_unsaid(
    name: str, tmp_path: Path
) -> None:
    failures: list[str] = []
    for case in range(CASES_PER_HOME):
        failures += fuzzing.run_case(name, HOMES[name], case, tmp_path)
    assert not failures, "\n".join(failures)


def test_every_way_of_damage_applies_to_some_home(tmp_path: Path) -> None:
    # a way that never applies would test nothing, unseen: each changes some fixture
    import random

    applied = set()
    for name, original in sorted(HOMES.items()):
        for way in fuzzing.VALUE_WAYS + fuzzing.BYTE_WAYS + fuzzing.SQL_WAYS:
            if way in applied:
                continue
            home = tmp_path / name / way.replace(" ", "-")
            fuzzing.copy_home(original, home)
            for path in sorted(home.rglob("*")):
                if path.is_file() and fuzzing.mutate(path, way, random.Random(0)):
                    applied.add(way)
                    break
    assert applied == set(fuzzing.VALUE_WAYS + fuzzing.BYTE_WAYS + fuzzing.SQL_WAYS)


TREE_CASES_PER_HOME = 3  # every way applies to any file: a few cases reach most


@pytest.mark.parametrize("name", sorted(HOMES))
def test_a_file_gone_odd_in_its_folder_is_never_a_hang_and_never_unsaid(
    name: str, tmp_path: Path
) -> None:
    # a pipe (opening one waits for a writer), a link that loops or leads nowhere, a name
    # that is not UTF-8: what a listing passes over, and a file looked up by name too
    failures: list[str] = []
    for case in range(TREE_CASES_PER_HOME):
        failures += fuzzing.run_case(name, HOMES[name], case, tmp_path, tree=True)
    assert not failures, "\n".join(failures)


def test_every_odd_way_applies_to_some_home(tmp_path: Path) -> None:
    assert _ways_applied(tmp_path, fuzzing.ODD_WAYS, fuzzing.mutate_odd) == set(
        fuzzing.ODD_WAYS
    )


ODD_CASES_PER_HOME = 2


@pytest.mark.parametrize("name", sorted(HOMES))
def test_an_odd_file_is_never_a_crash_and_never_unsaid(
    name: str, tmp_path: Path
) -> None:
    # UTF-16, Latin-1 bytes, a NUL run, a -wal and a stale -shm, a database a writer
    # holds locked, a file that shrinks as it is opened: none a crash, none unsaid
    failures: list[str] = []
    for case in range(ODD_CASES_PER_HOME):
        failures += fuzzing.run_case(name, HOMES[name], case, tmp_path, odd=True)
    assert not failures, "\n".join(failures)


WARM_COLD_FILES = 4  # files changed per home: a second or so each
# homes whose listings depend on no file the index does not watch (see the known gaps
# in scripts/fuzz-homes.py --warm-cold's runs): a regression there fails here
WARM_COLD_HOMES = ("claude", "codex", "gemini", "opencode")


@pytest.mark.parametrize("name", WARM_COLD_HOMES)
def test_a_file_changed_alone_lists_warm_as_cold(name: str, tmp_path: Path) -> None:
    # one file cut to half, its last line added again, or deleted: a warm list --json
    # (which re-reads only what changed) says what a cold one does
    failures = fuzzing.warm_cold(name, HOMES[name], tmp_path, WARM_COLD_FILES)
    assert not failures, "\n".join(failures)


def test_every_hostile_way_applies_to_some_home(tmp_path: Path) -> None:
    assert _ways_applied(tmp_path, fuzzing.HOSTILE_WAYS, fuzzing.mutate_hostile) == set(
        fuzzing.HOSTILE_WAYS
    )


def _ways_applied(
    tmp_path: Path, ways: tuple[str, ...], mutate: Callable[..., object]
) -> set[str]:
    """The ways `mutate` could apply to some file of a home with databases (OpenCode's)
    or of one with JSON lines (Claude Code's): between them they hold a file for each."""
    import random

    applied = set()
    for name in ("opencode", "claude"):
        for way in ways:
            home = tmp_path / name / way.replace(" ", "-")
            fuzzing.copy_home(HOMES[name], home)
            for path in sorted(home.rglob("*")):
                if not path.is_file() or path.is_symlink():
                    continue
                if mutate(path, way, random.Random(0)):
                    applied.add(way)
                    break
    return applied


HOSTILE_CASES_PER_HOME = 2
# the homes of the apps most people have; a 30 MB string costs seconds a case: the
# script runs it (scripts/fuzz-homes.py --hostile)
HOSTILE_HOMES = ("claude", "codex", "gemini", "opencode", "copilot", "cursor", "pi")
HOSTILE_IN_SUITE = tuple(w for w in fuzzing.HOSTILE_WAYS if w != "huge string")


@pytest.mark.parametrize("name", HOSTILE_HOMES)
def test_a_hostile_value_is_never_a_crash_and_never_unsaid(
    name: str, tmp_path: Path
) -> None:
    # a token count or a time no app writes, an id with a path in it, a -wal without its
    # -shm or of another database, a page of junk
    failures: list[str] = []
    for case in range(HOSTILE_CASES_PER_HOME):
        failures += fuzzing.run_case(
            name, HOMES[name], case, tmp_path, hostile=HOSTILE_IN_SUITE
        )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["claude", "opencode"])
def test_a_file_changed_alone_lists_warm_as_cold_on_the_quick_path(
    name: str, tmp_path: Path
) -> None:
    # the same through the real command too, whose warm list re-reads a changed file
    # alone (quick.py, Index.refresh_file): a few files, for its subprocesses' cost
    failures = fuzzing.warm_cold(name, HOMES[name], tmp_path, 2, seed=83000, quick=True)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["crush", "kiro", "zed", "warp", "opencode"])
def test_every_table_made_a_view_is_never_a_crash(name: str, tmp_path: Path) -> None:
    # a view's rows have no rowid (NULL): the readers that open a value by its rowid
    # (SQLite's blob IO) count it unread instead of stopping on a TypeError
    import random

    home = tmp_path / "home"
    fuzzing.copy_home(HOMES[name], home)
    made = [
        mutant
        for path in sorted(home.rglob("*"))
        if path.is_file()
        and not path.is_symlink()
        and (
            mutant := fuzzing.mutate_hostile(path, "tables as views", random.Random(0))
        )
    ]
    assert made
    outcome = fuzzing.check(home, tmp_path / "state", more=True)
    assert not outcome.failures, "\n".join(outcome.failures)


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "opencode", "copilot"])
def test_a_session_file_linked_to_dev_zero_is_never_read_forever(
    name: str, tmp_path: Path
) -> None:
    # every file of the home a link to /dev/zero, whose read never ends: each is passed
    # over (a link out of the home) or read to a bound, never to the end
    home = tmp_path / "home"
    fuzzing.copy_home(HOMES[name], home)
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.is_symlink():
            fuzzing.mutate_tree(path, "endless link")
    outcome = fuzzing.check(home, tmp_path / "state", seconds=60)
    assert not outcome.failures, "\n".join(outcome.failures)


LATE_HOMES = ("claude", "codex", "opencode")
REAL_OPENCODE = "realcli-opencode-1.18.33"  # where the shared corpus sits beside


@pytest.mark.parametrize("name", LATE_HOMES)
def test_a_file_swapped_after_the_list_is_never_a_crash_nor_a_hang(
    name: str, tmp_path: Path
) -> None:
    # between a list and the show that follows it, the session's file became a folder,
    # a pipe, a loop, a link to /dev/zero, nothing, or was renamed with a newline or an
    # escape: show, tree, export, resume and the rest answer, none with a control shown
    failures: list[str] = []
    for case in range(2):
        failures += fuzzing.run_late_case(name, HOMES[name], case, tmp_path)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("ways", ["skew", "schema"])
def test_a_file_whose_stamps_lie_or_a_migrated_database_lists_warm_as_cold(
    ways: str, tmp_path: Path
) -> None:
    # a same-size rewrite whose mtime was kept, a file stamped 1970 or 2100; a column or
    # table added, dropped or renamed: the warm list says what a fresh one does. Seed
    # 85109 rewrites the real OpenCode's database (its -wal beside it) so: a warm list
    # read the copy taken before, named by size and mtime alone
    chosen = fuzzing.SKEW_CHANGES if ways == "skew" else fuzzing.SCHEMA_CHANGES
    name = REAL_OPENCODE if ways == "skew" and REAL_OPENCODE in HOMES else "opencode"
    failures = fuzzing.warm_cold(
        name, HOMES[name], tmp_path, 3, seed=85109, ways=chosen
    )
    assert not failures, "\n".join(failures)


@pytest.mark.skipif(not fuzzing.can_deny(), reason="root, and no setpriv")
def test_a_folder_its_user_may_not_enter_is_never_a_crash_and_never_unsaid() -> None:
    # Amp's home; case 6 denies .cache/amp, above the logs folder doctor looked in
    # with Path.is_dir (which raises where it may not enter)
    failures: list[str] = []
    for case in (1, 6):
        failures += fuzzing.run_denied_case("amp", HOMES["amp"], case)
    assert not failures, "\n".join(failures)


def test_every_escape_way_applies_to_some_home(tmp_path: Path) -> None:
    assert _ways_applied(tmp_path, fuzzing.ESCAPE_WAYS, fuzzing.mutate_escaped) == set(
        fuzzing.ESCAPE_WAYS
    )


@pytest.mark.parametrize("name", ["claude", "codex", "crush", "opencode"])
def test_a_text_given_an_odd_escape_is_never_a_crash_and_never_unsaid(
    name: str, tmp_path: Path
) -> None:
    # half an emoji, a swapped pair, a NUL, U+2028, a bidi override, in an id, a folder
    # or a title: none a crash, none shown, no session lost unsaid
    failures: list[str] = []
    for case in range(2):
        failures += fuzzing.run_case(name, HOMES[name], case, tmp_path, escapes=True)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["claude", "opencode"])
def test_a_file_written_while_it_is_read_shows_what_it_shows_after(
    name: str, tmp_path: Path
) -> None:
    # a thread appends lines (cut anywhere) to a session's file, or inserts rows into
    # its database (WAL or journalled), while list, show, tree and usage run: none
    # fails, show said a beginning of what it says after, and warm lists as cold after
    failures = fuzzing.run_writing_case(name, HOMES[name], 0, tmp_path)
    failures += fuzzing.run_writing_case(name, HOMES[name], 1, tmp_path)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["claude", "opencode"])
def test_a_home_or_its_folder_reached_through_a_link_lists_as_unlinked(
    name: str, tmp_path: Path
) -> None:
    # the home, an app's folder or one deeper moved to another disk and linked back
    # (absolute, relative, in the home as stow does, a link to a link; with the index
    # warm before the move): every command answers, the list is the unlinked home's,
    # and nothing is written where the links lead
    failures: list[str] = []
    for case in range(3):
        failures += fuzzing.run_linked_case(name, HOMES[name], case, tmp_path)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["claude", "codex"])
def test_an_id_beside_its_twin_in_the_other_case_names_its_own_session(
    name: str, tmp_path: Path
) -> None:
    # a session's file copied beside it with its id in the other case (a sub-agent's,
    # in Claude's case 1): show, tree, export and usage --explain of either id typed
    # whole name that session; they said it matched 2 sessions
    failures: list[str] = []
    for case in range(2):
        failures += fuzzing.run_cased_case(name, HOMES[name], case, tmp_path)
    assert not failures, "\n".join(failures)


def test_every_strange_way_applies_to_some_home(tmp_path: Path) -> None:
    assert _ways_applied(tmp_path, fuzzing.STRANGE_WAYS, fuzzing.mutate_strange) == set(
        fuzzing.STRANGE_WAYS
    )


# a 2 GB hole too: passed over unread (a second a case), where the system says where
# holes are; where it does not, it is read through (about 12 s), as was everywhere
STRANGE_IN_SUITE = tuple(
    w
    for w in fuzzing.STRANGE_WAYS
    if not w.startswith("sparse") or hasattr(os, "SEEK_HOLE")
)


@pytest.mark.parametrize("name", ["claude", "opencode"])
def test_a_strange_file_is_never_a_crash_a_hang_or_a_write(
    name: str, tmp_path: Path
) -> None:
    # a socket, a device or /dev/tty in a file's place, its folder a link to itself, a
    # database emptied, cut or left with a crashed writer's hot journal, a count NaN or
    # 5000 digits long, 1 MB of zero-width joiners: none a crash or a hang, no session
    # lost unsaid, and nothing in the home changed
    failures: list[str] = []
    for way in STRANGE_IN_SUITE:
        failures += fuzzing.run_case(
            name, HOMES[name], 0, tmp_path, more=True, strange=(way,)
        )
    assert not failures, "\n".join(failures)


def test_a_roo_sub_task_whose_history_item_is_a_device_is_counted_once(
    tmp_path: Path,
) -> None:
    # its history item (which names its parent) unreadable, the sub-task still lies
    # in its parent's read (the parent's history names it): it is not listed, nor
    # counted, a second time on its own
    import json
    import random

    from click.testing import CliRunner

    from sessdex.cli import main

    def run(home: Path, *args: str) -> str:
        state = {"SESSDEX_HOME": str(tmp_path / f"state-{home.name}")}
        result = CliRunner().invoke(main, [*args, "--home", str(home)], env=state)
        assert result.exit_code == 0, result.output
        return result.stdout

    def tokens(home: Path) -> int:
        rows = json.loads(run(home, "usage", "app", "--json"))
        return sum(int(r["input_tokens"]) + int(r["output_tokens"]) for r in rows)

    child = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
    home = tmp_path / "damaged"
    fuzzing.copy_home(HOMES["roo"], home)
    (item,) = home.rglob(f"tasks/{child}/history_item.json")
    assert fuzzing.mutate_strange(item, "device", random.Random(0))
    listed = {s["id"] for s in json.loads(run(home, "list", "--json"))}
    assert child not in listed and "7c1a2b3d-0e4f-4a5b-8c6d-7e8f9a0b1c2d" in listed
    assert tokens(home) == tokens(HOMES["roo"]) == 2940
