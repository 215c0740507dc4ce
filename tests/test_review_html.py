"""The HTML export as a reader of the page meets it: what is folded, what is shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "21212121-0000-4000-8000-000000000001"


def _export(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["export", "2121", "--home", str(home), *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_html_export_folds_what_the_app_added_to_a_prompt(tmp_path: Path) -> None:
    """A slash command's expansion (a long prompt the app wrote, not the person) is
    folded under 'added by the app', as `show` and the Markdown export fold it: the
    page opens on what was typed, not on eighty lines of a command's template."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path), prompt="/orchestrate go")
    expansion = "\n".join(f"Step {n} of the orchestrate template" for n in range(80))
    line = claude_line(
        SESSION, str(tmp_path), type="user", uuid="u2", parentUuid="u1", isMeta=True,
        timestamp="2026-11-20T10:00:01.000Z",
        message={"role": "user", "content": [{"type": "text", "text": expansion}]},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(line) + "\n")
    page = _export(home, "-f", "html")
    assert "Step 79 of the orchestrate template" in page  # kept, whole
    folded = re.search(
        r"<details[^>]*><summary>added by the app</summary><pre>(.*?)</pre></details>",
        page,
        re.S,
    )
    assert folded is not None, page
    assert "Step 0 of the orchestrate template" in folded.group(1)
    assert "Message from the app" not in page
    assert '<div class="who">User</div><div class="text">/orchestrate go' in page
