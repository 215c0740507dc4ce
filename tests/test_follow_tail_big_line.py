"""`follow -n N` whose session ends in a line longer than its first read's window (a
pasted image, a big tool result): it showed nothing, and said nothing, where `show --tail
N` showed the last N events. It now reads from further back, as `show --tail` does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

DEMO = DATA.parent.parent / "src/sessdex/demo/home"
GEMINI = DATA / "gemini" / "home"
# 1.5 MB of base64: past the 256 KB follow reads first, and the 1 MB under which a
# file without a follow hook is read whole
_IMAGE = "A" * (1536 * 1024)
_CLAUDE_LINE = {
    "type": "user",
    "uuid": "big-image-1",
    "sessionId": "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90",
    "timestamp": "2026-11-30T12:00:00.000Z",
    "message": {
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": _IMAGE},
            }
        ],
    },
}
_GEMINI_LINE = {"$set": {"note": _IMAGE}}


def _home(tmp_path: Path, source: Path, name: str, line: dict[str, object]) -> str:
    home = tmp_path / "home"
    shutil.copytree(source, home)
    (path,) = home.rglob(name)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
    return str(home)


def _run(home: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", home])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    ("source", "name", "session", "line"),
    [
        (DEMO, "3f2b9c1e-*.jsonl", "3f2b", _CLAUDE_LINE),  # a follow hook's read
        (GEMINI, "session-*-91700103.jsonl", "91700103", _GEMINI_LINE),  # no hook
    ],
)
def test_follow_n_shows_the_last_events_before_a_line_past_its_window(
    tmp_path: Path, source: Path, name: str, session: str, line: dict[str, object]
) -> None:
    home = _home(tmp_path, source, name, line)
    shown = json.loads(_run(home, "show", session, "--json"))
    followed = _run(home, "follow", session, "-n", "3", "--nl", "--duration", "0")
    kinds = [json.loads(each)["kind"] for each in followed.splitlines()]
    assert kinds == [event["kind"] for event in shown][-3:], followed[:500]
    # in text too: the last entries drawn, not an empty history
    assert _run(home, "follow", session, "-n", "3", "--duration", "0").strip()
