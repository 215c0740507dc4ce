"""`export -f md` of a session whose title, or the name of an agent that sent a message,
ends in `#`s after a blank (`Port the parser to C #`): a CommonMark viewer reads such a
run as a heading's closing sequence and drops it; the export keeps it shown."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from markdown_it import MarkdownIt

from sessdex.cli import main
from sessdex.model import Event, Session
from sessdex.views import markdown
from tests.helpers import write_claude_session


def _headings(page: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(page)
    return [
        tokens[at + 1].content
        for at, token in enumerate(tokens)
        if token.type == "heading_open"
    ]


def test_a_title_ending_in_hashes_keeps_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    session = "15151515-0000-4000-8000-000000000015"
    write_claude_session(home, session, "/w/app", title="Port the parser to C #")
    result = CliRunner().invoke(
        main, ["export", "1515", "-f", "md", "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    assert _headings(result.stdout)[0] == "Port the parser to C \\#"
    assert "<h1>Port the parser to C #</h1>" in MarkdownIt("commonmark").render(
        result.stdout
    )


def test_a_sender_or_a_title_made_of_hashes_is_shown() -> None:
    events = [
        Event("s", 0, "user", text="hi", extra={"from_agent": "team ##"}),
        Event("s", 1, "user", text="go", extra={"from_agent": "#"}),
    ]
    page = "".join(markdown.render(Session(app="claude", id="s", title="##"), events))
    html = MarkdownIt("commonmark").render(page)
    assert "<h1>##</h1>" in html
    assert "<h2>Message from team ##</h2>" in html
    assert "<h2>Message from #</h2>" in html
