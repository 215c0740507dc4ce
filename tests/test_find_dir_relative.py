"""`find dir:.` (and `dir:./api`, `dir:..`) is the folder you are in, or one reached from
it, as a shell would read the path: it matched the text `.` against every folder and
found nothing ("No session matches 'dir:.' in its folder") where the sessions were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

HERE = "aaaa1111-0000-4000-8000-000000000001"
BESIDE = "bbbb2222-0000-4000-8000-000000000002"


def _found(home: Path, *words: str) -> list[str]:
    result = CliRunner().invoke(main, ["find", *words, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return sorted(row["id"] for row in json.loads(result.stdout))


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """code/shop and code/docs, a session in each, under a copied home."""
    code = tmp_path / "code"
    for name, session in (("shop", HERE), ("docs", BESIDE)):
        (code / name).mkdir(parents=True)
        write_claude_session(tmp_path / "home", session, str(code / name))
    return code


def test_dir_dot_is_the_folder_you_are_in(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(code / "shop")
    home = code.parent / "home"
    assert _found(home, "dir:.") == [HERE]
    assert _found(home, "dir:./") == [HERE]
    assert _found(home, "dir:..") == [HERE, BESIDE]
    assert _found(home, "dir:../docs") == [BESIDE]
    monkeypatch.chdir(code)
    assert _found(home, "dir:./docs") == [BESIDE]
    assert _found(home, "folder:./shop") == [HERE]


def test_dir_dot_with_backslashes_is_read_as_with_slashes(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `dir:code\shop` is `dir:code/shop`; `dir:..\docs` was "/…/shop/../docs": none
    monkeypatch.chdir(code / "shop")
    home = code.parent / "home"
    assert _found(home, "dir:..\\docs") == [BESIDE]
    assert _found(home, "dir:.\\") == [HERE]


def test_dir_dot_in_a_folder_deleted_under_the_shell(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder removed under the shell (a worktree taken away) is the one `$PWD` names,
    as `--here` takes it; with no `$PWD`, a refusal. `.` was matched as text: the
    sessions of every folder whose name holds a dot."""
    dotted = code / "my.site"
    dotted.mkdir()
    home = code.parent / "home"
    write_claude_session(home, "cccc3333-0000-4000-8000-000000000003", str(dotted))
    gone = code / "shop"
    monkeypatch.chdir(gone)
    for entry in gone.iterdir():
        entry.unlink()
    gone.rmdir()
    monkeypatch.setenv("PWD", str(gone))
    assert _found(home, "dir:.") == [HERE]
    assert _found(home, "dir:../docs") == [BESIDE]
    monkeypatch.delenv("PWD")
    result = CliRunner().invoke(main, ["find", "dir:.", "--home", str(home)])
    assert result.exit_code == 2, result.output
    assert "no longer exists" in result.stderr, result.stderr
    assert "cccc3333" not in result.stdout


def test_dir_dot_in_a_folder_reached_through_a_link(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder entered through a link has two names: the system's (links resolved) and
    the shell's (`$PWD`), which an app written in Go records (`os.Getwd`). `dir:.`
    finds the sessions under either, as `--here` does; it took the system's alone."""
    linked = code / "linked"
    linked.symlink_to(code / "shop")
    home = code.parent / "home"
    write_claude_session(home, "dddd4444-0000-4000-8000-000000000004", str(linked))
    monkeypatch.chdir(linked)
    monkeypatch.setenv("PWD", str(linked))
    both = [HERE, "dddd4444-0000-4000-8000-000000000004"]
    assert _found(home, "--here", "claude") == both
    assert _found(home, "dir:.") == both
    assert _found(home, "dir:../docs") == [BESIDE]


def test_dir_dot_matching_nothing_names_the_folder_it_was(
    code: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find dir:.` that matched nothing said "No session matches 'dir:.' in its
    folder", and not which folder `.` was: the one the shell is in may not be the one
    meant."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    home = code.parent / "home"
    result = CliRunner().invoke(main, ["find", "dir:.", "--home", str(home)])
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith(
        f"No session matches 'dir:.' (. is '{elsewhere}') in its folder; "
    ), result.stderr


def test_dir_dot_matching_nothing_through_a_link_names_one_folder(
    code: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entered through a link, `.` has two names, carried joined by a NUL: the message
    names one folder, never the two glued together."""
    empty = tmp_path / "empty"
    empty.mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(empty)
    monkeypatch.chdir(linked)
    monkeypatch.setenv("PWD", str(linked))
    home = code.parent / "home"
    result = CliRunner().invoke(main, ["find", "dir:.", "--home", str(home)])
    assert result.exit_code == 0 and result.stdout == ""
    named = [f"(. is '{folder}') in its folder" for folder in (empty, linked)]
    assert any(one in result.stderr for one in named), result.stderr


def test_dir_under_home_with_dots_is_read_as_a_shell_reads_it(tmp_path: Path) -> None:
    """`dir:~/../home/code/shop`, `dir:~/code/./shop/`: the folder a shell means. They
    were matched as that text, which no folder holds: nothing found."""
    home = tmp_path / "home"
    for name, session in (("shop", HERE), ("shop2", BESIDE)):
        (home / "code" / name).mkdir(parents=True)
        write_claude_session(home, session, str(home / "code" / name))
    assert _found(home, "dir:~/../home/code/shop/") == [HERE]
    assert _found(home, "dir:~/code/./shop/") == [HERE]
    assert _found(home, "dir:~//code/docs/../shop") == [HERE, BESIDE]
    assert _found(home, "dir:~\\code\\..\\code\\shop2") == [BESIDE]


def test_dir_above_a_windows_home_stays_on_its_drive() -> None:
    """`dir:~/../../..` under `C:\\Users\\me` is `C:/`, as a Windows shell reads it (it
    was `.`, matched as text: every folder with a dot in its name); `~\\..\\..\\..\\x` is
    `C:/x`, not the text `x`; a share's root stays that share's."""
    from sessdex.selection import parse_query

    def read(text: str, home: str) -> str:
        return dict(parse_query(text, home=home).scoped)["dir"]

    assert read("dir:~/../../..", "C:\\Users\\me") == "C:/"
    assert read("dir:~\\..\\..\\..\\x", "C:\\Users\\me") == "C:/x"
    assert read("dir:~/code/../docs/", "C:\\Users\\me") == "C:/Users/me/docs/"
    assert read("dir:~/../../../x", "\\\\srv\\share\\me") == "//srv/share/x"
    assert read("dir:~/../../..", "/home/me") == "/"


def test_dir_of_a_full_path_with_dots_is_read_as_a_shell_reads_it(
    tmp_path: Path,
) -> None:
    """`dir:/…/code/docs/../shop`, a full path pasted as a shell takes it, is the folder
    it means, as `dir:~/code/../shop` is; it was matched as that text: nothing found."""
    home = tmp_path / "home"
    for name, session in (("shop", HERE), ("docs", BESIDE)):
        (home / "code" / name).mkdir(parents=True)
        write_claude_session(home, session, str(home / "code" / name))
    code = home / "code"
    assert _found(home, f"dir:{code}/docs/../shop") == [HERE]
    assert _found(home, f"dir:{code}/./docs/") == [BESIDE]
    assert _found(home, f"dir:{code}/shop/..") == [HERE, BESIDE]


def test_dir_of_a_full_windows_path_with_dots_stays_on_its_drive() -> None:
    from sessdex.selection import parse_query

    scoped = parse_query("dir:C:\\Users\\me\\..\\..\\..\\x", home="/home/me").scoped
    assert dict(scoped)["dir"] == "C:/x"


def test_a_relative_path_with_a_separator_naming_a_folder_here_is_that_folder(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dir:shop/../docs` typed without `./` is the folder it names from here, as
    `dir:./shop/../docs` is: it was matched as that text, which no folder holds."""
    monkeypatch.chdir(code)
    home = code.parent / "home"
    assert _found(home, "dir:shop/../docs") == [BESIDE]
    assert _found(home, "dir:shop\\..\\docs") == [BESIDE]
    (code / "shop" / "api").mkdir()
    assert _found(home, "dir:shop/api/..") == [HERE]


def test_a_plain_word_or_a_path_naming_no_folder_here_is_still_text(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a folder `docs` below this one is not the `docs` a word finds in any folder
    (code / "shop" / "docs").mkdir()
    monkeypatch.chdir(code / "shop")
    home = code.parent / "home"
    assert _found(home, "dir:docs") == [BESIDE]
    assert _found(home, "dir:docs/") == [BESIDE]  # a folder named docs, anywhere
    assert _found(home, "dir:code/shop") == [HERE]  # no code/shop below here: text


def test_a_relative_path_through_a_link_is_read_as_a_shell_reads_it(
    code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dir:link/../docs`, a link to a folder elsewhere in it, is `./docs`, as
    `dir:./link/../docs` is (a shell's `..` takes the name off): the folder was looked
    for past the link (`elsewhere/docs`, none), and the path matched as text."""
    elsewhere = code.parent / "elsewhere" / "deep"
    elsewhere.mkdir(parents=True)
    (code / "link").symlink_to(elsewhere)
    monkeypatch.chdir(code)
    home = code.parent / "home"
    assert _found(home, "dir:./link/../docs") == [BESIDE]
    assert _found(home, "dir:link/../docs") == [BESIDE]
