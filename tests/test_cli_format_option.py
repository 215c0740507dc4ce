"""`--format json` (or `-f json`, `-o json`), as other tools and sessdex's own `export`
ask for JSON, given to a command that prints JSON with `--json` or `--nl`, names that
option; it said only "No such option '--format'.", and `export --nl` named nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

HOME = str(app_home("claude"))
ID = "c0afe25d"


def _error(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--home", HOME], prog_name="sessdex")
    assert result.stdout == ""
    return result.exit_code, result.stderr.splitlines()[-1]


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--format", "json"),
        ("list", "--format=json"),
        ("find", "retry", "-f", "json"),
        ("usage", "--format", "json"),
        ("doctor", "-o", "json"),
        ("show", ID, "--output", "json"),
    ],
)
def test_a_format_option_names_json_and_nl(args: tuple[str, ...]) -> None:
    code, said = _error(*args)
    option = args[-1].partition("=")[0] if "=" in args[-1] else args[-2]
    assert code == 2
    assert said == (
        f"Error: No such option '{option}'. Did you mean '--json' (or '--nl', one "
        "object a line)?"
    )


def test_a_command_with_only_one_of_them_names_that_one() -> None:
    assert _error("resume", ID, "--format", "json") == (
        2,
        "Error: No such option '--format'. Did you mean '--json'?",
    )
    assert _error("follow", ID, "--format", "json") == (
        2,
        "Error: No such option '--format'. Did you mean '--nl' (one JSON object a "
        "line)?",
    )


def test_export_given_nl_names_its_format_option() -> None:
    assert _error("export", ID, "--nl") == (
        2,
        "Error: No such option '--nl'. Did you mean '-f json'?",
    )


@pytest.mark.parametrize(
    ("args", "line", "kind"),
    [
        (("show", ID, "-f", "md"), f"export {ID} -f md", "Markdown"),
        (("show", ID, "--format=html"), f"export {ID} -f html", "HTML"),
        (
            ("show", "--detail", "full", ID, "-o", "notes.md"),
            f"export {ID} -o notes.md",
            "Markdown",
        ),
        (("follow", ID, "--output", "s.html"), f"export {ID} --output s.html", "HTML"),
        (("tree", ID, "-f", "markdown"), f"export {ID} -f markdown", "Markdown"),
    ],
)
def test_markdown_or_html_asked_of_a_command_that_prints_names_export(
    args: tuple[str, ...],
    line: str,
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`show 7f3a -f md` (or `-o notes.html`) named `--json`, which writes neither: the
    `export` line that does, with the same --home, runs as pasted."""
    code, said = _error(*args)
    option = args[-1].partition("=")[0] if "=" in args[-1] else args[-2]
    assert code == 2
    assert said == (
        f"Error: No such option '{option}'. 'sessdex {line} --home {HOME}' writes the "
        f"session as {kind}."
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*line.split(), "--home", HOME])
    assert result.exit_code == 0
    written = [p.read_text() for p in tmp_path.iterdir()] or [result.stdout]
    assert written[0].startswith("# " if kind == "Markdown" else "<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("flag", "kind"),
    [("--html", "html"), ("--md", "md"), ("--markdown", "md"), ("--HTML", "html")],
)
def test_export_given_a_format_as_a_flag_names_its_format_option(
    flag: str, kind: str
) -> None:
    """`export 7f3a --html`, as `--json` is a flag elsewhere: click said only "No such
    option '--html'." (`--json` named `-f json`)."""
    assert _error("export", ID, flag) == (
        2,
        f"Error: No such option '{flag}'. Did you mean '-f {kind}'?",
    )


@pytest.mark.parametrize(
    ("flag", "kind"),
    [("--html", "HTML"), ("--md", "Markdown"), ("--markdown", "Markdown")],
)
def test_show_given_html_or_md_as_a_flag_names_the_export_that_writes_it(
    flag: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, said = _error("show", ID, flag)
    line = f"export {ID} -f {flag.lstrip('-').lower()}"
    assert code == 2
    assert said == (
        f"Error: No such option '{flag}'. 'sessdex {line} --home {HOME}' writes the "
        f"session as {kind}."
    )
    result = CliRunner().invoke(main, [*line.split(), "--home", HOME])
    assert result.exit_code == 0
    assert result.stdout.startswith("# " if kind == "Markdown" else "<!DOCTYPE html>")
