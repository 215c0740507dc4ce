"""Quotes that reach `find` (the library's text, a shell word escaped) keep words together
as the shell's do: they are not letters a title must hold."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = api.demo_home()
CLAUDE_A = (
    "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90"  # "Retry checkout payments with backoff"
)


def found(text: str) -> list[str]:
    return [session.id for session in api.find_sessions(DEMO, text).sessions()]


def test_a_quoted_phrase_in_the_librarys_text_finds_its_words() -> None:
    assert found('"retry checkout payments"') == [CLAUDE_A]
    assert found("'retry checkout' payments") == [CLAUDE_A]
    assert found('title:"retry checkout"') == [CLAUDE_A]
    assert found('"payments"') == [CLAUDE_A]


def test_a_quoted_phrase_escaped_for_the_shell_finds_its_words() -> None:
    result = CliRunner().invoke(
        main, ["find", '"retry checkout"', "--home", str(DEMO.path)]
    )
    assert result.exit_code == 0 and CLAUDE_A[:8] in result.stdout, result.output


def test_quotes_inside_a_word_and_alone_stay_letters() -> None:
    """An apostrophe in a word is part of it, and a word that is only quotes is a word."""
    assert found("payments'") == []  # a quote with no pair is a letter: no title has it
    assert found('"payments') == []
    assert found("don't") == []
    assert found('""') == []
