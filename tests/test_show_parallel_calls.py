"""`show`: results of calls made together say which call they answer.

An agent that runs two tools at once (two Globs) gets both results after both calls:
"⎿ No files found" twice, under the second call, said nothing of which was which."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

CLAUDE = Path(__file__).parent / "data" / "claude" / "home"


def _run(*args: str) -> str:
    result = CliRunner().invoke(
        main, [*args, "--home", str(CLAUDE)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_results_of_calls_made_together_name_their_call() -> None:
    events = json.loads(_run("show", "fe5e1c67", "--json", "--subagents", "none"))
    calls = {e["call_id"]: e for e in events if e["kind"] == "tool_call"}
    globs = [e for e in events if e["kind"] == "tool_call" and e["tool"] == "Glob"]
    assert len(globs) == 2  # made together, answered after both
    answered = [
        calls[e["call_id"]]["extra"]["input"]["path"]
        for e in events
        if e["kind"] == "tool_result" and e["call_id"] in {g["call_id"] for g in globs}
    ]
    lines = _run("show", "fe5e1c67", "--subagents", "none", "--no-pager").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Using Glob"))
    results = [line for line in lines[first:] if line.startswith("  ⎿")][:2]
    assert len(results) == 2
    assert len(set(answered)) == 2
    for line, path in zip(results, answered, strict=True):
        assert f" in {path}" in line, (line, path)  # as its call's line names it


def test_markdown_results_of_calls_made_together_name_their_call() -> None:
    events = json.loads(_run("show", "fe5e1c67", "--json", "--subagents", "none"))
    calls = {e["call_id"]: e for e in events if e["kind"] == "tool_call"}
    globs = {
        e["call_id"] for e in events if e["kind"] == "tool_call" and e["tool"] == "Glob"
    }
    answered = [
        calls[e["call_id"]]["extra"]["input"]["path"]
        for e in events
        if e["kind"] == "tool_result" and e["call_id"] in globs
    ]
    text = _run("export", "fe5e1c67", "-f", "md", "--subagents", "none")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- 🔧 Glob"))
    labels = [line.strip() for line in lines[first:] if line.startswith("  result")][:2]
    assert len(labels) == 2 and len(set(answered)) == 2
    for label, path in zip(labels, answered, strict=True):
        assert f" in {path}" in label.replace("\\", ""), (label, path)


def test_html_results_of_calls_made_together_name_their_call() -> None:
    from html.parser import HTMLParser

    events = json.loads(_run("show", "fe5e1c67", "--json", "--subagents", "none"))
    calls = {e["call_id"]: e for e in events if e["kind"] == "tool_call"}
    globs = {
        e["call_id"] for e in events if e["kind"] == "tool_call" and e["tool"] == "Glob"
    }
    answered = [
        calls[e["call_id"]]["extra"]["input"]["path"]
        for e in events
        if e["kind"] == "tool_result" and e["call_id"] in globs
    ]

    class Summaries(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[str] = []
            self.inside = False

        def handle_starttag(self, tag: str, attrs: object) -> None:
            if tag == "summary":
                self.inside = True
                self.found.append("")

        def handle_endtag(self, tag: str) -> None:
            self.inside = self.inside and tag != "summary"

        def handle_data(self, data: str) -> None:
            if self.inside:
                self.found[-1] += data

    page = Summaries()
    page.feed(_run("export", "fe5e1c67", "-f", "html", "--subagents", "none"))
    first = next(i for i, s in enumerate(page.found) if s.startswith("Glob"))
    labels = [s for s in page.found[first:] if s.startswith("result")][:2]
    assert len(labels) == 2 and len(set(answered)) == 2
    for label, path in zip(labels, answered, strict=True):
        assert f" in {path}" in label, (label, path)
