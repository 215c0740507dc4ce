"""The HTML export of a session whose texts hold a long unbroken run (a URL, a token,
base64, a minified line): every text wraps within the page, in a real browser, so that
none of it runs off the page's right edge, where a printed page or PDF cuts it off."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "13131313-0000-4000-8000-000000000013"
LONG = "https://example.com/" + "a1B2c3D4" * 300  # 2,420 characters, no blank

# a script in a copy of the page (the export's own forbids every script) names each
# element whose content is wider than its box, and the page's width against the window's
_MEASURE = """<script>
const wide = [...document.querySelectorAll('body *')].filter(
  (el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1);
document.title = JSON.stringify({page: document.documentElement.scrollWidth,
  window: document.documentElement.clientWidth,
  wide: wide.map((el) => el.tagName + '.' + el.className)});
</script></body>"""


@pytest.mark.browser
def test_a_long_unbroken_line_wraps_within_the_page(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("SESSDEX_REQUIRE_TOOLS") == "1":
            pytest.fail("chromium is required here (SESSDEX_REQUIRE_TOOLS=1)")
        pytest.skip("Debian's chromium is not installed")
    home = tmp_path / "home"
    folder = f"/w/{LONG[-200:]}"
    path = write_claude_session(
        home, SESSION, folder, title=f"see {LONG}", prompt=f"fetch {LONG}"
    )
    lines = [
        claude_line(
            SESSION, folder, type="assistant", uuid="a2", parentUuid="a1",
            timestamp="2026-11-20T10:00:06.000Z", requestId="req_2",
            message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": f"it is at {LONG}"},
                                 {"type": "tool_use", "id": "t1", "name": "Bash",
                                  "input": {"command": f"curl {LONG}"}}]},
        ),
        claude_line(
            SESSION, folder, type="user", uuid="u3", parentUuid="a2",
            timestamp="2026-11-20T10:00:07.000Z",
            message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                 "content": f"curl: (6) could not resolve {LONG}"}]},
        ),
    ]  # fmt: skip
    with path.open("a") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(
        main, ["export", SESSION[:8], "-f", "html", "--home", str(home)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count(LONG[-40:]) >= 5  # in the header, the turns, the call
    measured = re.sub(
        r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", result.stdout
    ).replace("</body>", _MEASURE)
    page = tmp_path / "measured.html"
    page.write_text(measured)
    shown = subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
            "--window-size=1000,800", "--virtual-time-budget=2000", "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    title = re.search(r"<title>(.*?)</title>", shown.stdout, re.DOTALL)
    assert title is not None and title[1].startswith("{"), shown.stderr[-2000:]
    widths = json.loads(title[1].replace("&quot;", '"'))
    assert widths["wide"] == []
    assert widths["page"] <= widths["window"]
