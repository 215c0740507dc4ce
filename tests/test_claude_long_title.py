"""A Claude Code title record over the listing's line cap (256 KB): a name pasted into
`/rename` or `claude -n`. The line was passed over and the first prompt listed instead;
its title is now taken from the line's first bytes, never the whole line.

The session is the real `claude -n` run of tests/data/claude (PROVENANCE.md), its
`custom-title` line replaced by a long one, at the top (as `-n` writes it) or at the end
(as `/rename` appends it), in a small file (read whole) or a big one (head and tail apart).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.sources import claude

DATA = Path(__file__).parent / "data" / "claude" / "home"
SESSION = "82d9f90c-3f87-46b4-b09c-58027a5e630c"
PROJECT = Path(".claude") / "projects" / "-home-alex-code-shop-api"
PROMPT = "SCENARIO=subagent"  # how the session's first prompt starts


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":"))  # as Claude Code writes it


def _home(tmp_path: Path, titles: list[str], *, at: str, big: bool) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    path = home / PROJECT / f"{SESSION}.jsonl"
    lines = [
        line for line in path.read_text().splitlines() if '"custom-title"' not in line
    ]
    if big:  # a long line mid-file: the head and the tail are read apart
        middle = _line({"type": "progress", "data": "y" * 900_000})
        lines.insert(len(lines) // 2, middle)
    records = [
        _line({"type": "custom-title", "customTitle": title, "sessionId": SESSION})
        for title in titles
    ]
    lines = records + lines if at == "top" else lines + records
    path.write_text("".join(line + "\n" for line in lines))
    return home


def _title(home: Path) -> str:
    result = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    (session,) = [s for s in json.loads(result.stdout) if s["id"] == SESSION]
    return str(session["title"])


LONG = "Checkout retry plan " + "x" * 300_000


@pytest.mark.parametrize("at", ["top", "end"])
@pytest.mark.parametrize("big", [False, True])
def test_a_title_line_over_the_cap_still_names_the_session(
    tmp_path: Path, at: str, big: bool
) -> None:
    assert len(LONG) > files.LINE_CAP
    title = _title(_home(tmp_path, [LONG], at=at, big=big))
    assert title.startswith("Checkout retry plan xxx"), title
    assert len(title) == 200  # cut as any long title is in the listing


@pytest.mark.parametrize("big", [False, True])
def test_a_short_title_set_after_a_long_one_wins(tmp_path: Path, big: bool) -> None:
    home = _home(tmp_path, [LONG, "Short name"], at="top", big=big)
    assert _title(home) == "Short name"


@pytest.mark.parametrize("big", [False, True])
def test_a_long_title_set_after_a_short_one_wins(tmp_path: Path, big: bool) -> None:
    home = _home(tmp_path, ["Short name", LONG], at="top", big=big)
    assert _title(home).startswith("Checkout retry plan xxx")


def test_a_long_line_that_is_no_title_leaves_the_first_prompt(tmp_path: Path) -> None:
    home = _home(tmp_path, [], at="top", big=True)
    assert _title(home).startswith(PROMPT)


def test_a_read_that_cuts_an_escape_gives_whole_characters_only() -> None:
    """Wherever the bytes read end (inside `\\u00e9`, or inside an emoji's surrogate
    pair), the title is a start of the real one, with no broken character."""
    text = "Caf\u00e9 \U0001f600 plan \u00e9\U0001f600" * 3
    line = json.dumps({"type": "ai-title", "aiTitle": text}).encode()  # escapes all
    start = line.index(b'"aiTitle": "') + len(b'"aiTitle": "')
    titles = []
    for end in range(start, len(line) - 1):
        record = claude._long_title(line[:end])
        assert record is not None and record["type"] == "ai-title", end
        title = record["aiTitle"]
        assert isinstance(title, str) and text.startswith(title), (end, title)
        titles.append(title)
    assert titles[-1] == text  # all but the closing quote: the whole title
    assert titles == sorted(titles, key=len)  # more bytes never give less


def test_only_a_title_record_is_read_from_its_opening() -> None:
    assert claude._long_title(b'{"type":"user","customTitle":"no"') is None
    assert claude._long_title(b'{"type":"custom-title","aiTitle":"mixed"') is None
    assert claude._long_title(b'{"type":"custom-title","customTitle":"ok') == {
        "type": "custom-title",
        "customTitle": "ok",
    }
