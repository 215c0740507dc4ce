"""The docs keep up with the code: every command has help with an example, every app a README line."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from sessdex import sources
from sessdex.cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_has_help_with_an_example(name: str) -> None:
    command = main.commands[name]
    assert isinstance(command, click.Command)
    assert command.help and "Example" in command.help, name
    assert f"sessdex {name}" in README, f"README does not mention `sessdex {name}`"


@pytest.mark.parametrize("app", sources.names())
def test_every_source_is_in_the_readme(app: str) -> None:
    assert f"(`{app}`)" in README


def test_quick_start_has_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = quick.split("```sh\n")[1:]
    assert len(blocks) == 2
    assert all(len(b.split("```")[0].strip().splitlines()) == 1 for b in blocks)
    assert "scripts/test" in blocks[1]
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_the_python_example_runs_as_the_readme_shows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's Python snippet, on the demo home instead of this machine's."""
    from sessdex import api

    snippet = README.split("```python\n", 1)[1].split("```", 1)[0]
    demo = str(api.demo_home().path)
    code = snippet.replace("Home.current()", f"Home.at({demo!r})")
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Checkout timeout under load" in out  # a listed session
    assert "lead " in out  # a tool call of the transcript
