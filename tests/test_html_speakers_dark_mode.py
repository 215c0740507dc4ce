"""The HTML export as a reader meets it: who speaks is said for every reply, and the rule
over the totals is as quiet in dark mode as in light."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "claude" / "home"


def _page(session: str) -> str:
    result = CliRunner().invoke(
        main, ["export", session, "-f", "html", "--home", str(HOME)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_each_reply_is_headed_with_who_speaks() -> None:
    """A screen reader or a reader jumping by headings meets the assistant's replies as it
    meets the user's prompts: the lead's as 'Assistant', a sub-agent's one level down
    in its block, named as every command names it (its type and id start)."""
    page = _page("82d9f90c")
    headings = re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", page)
    assert headings[1:] == [
        ("2", "User"),
        ("3", "Message from the lead"),
        ("3", "Assistant (sub-agent general-purpose a199d630)"),
        ("2", "Assistant"),
    ]
    reply = re.search(r'<div class="ev assistant"><h2 class="who">Assistant</h2>'
                      r'<div class="text">([^<]*)</div>', page)  # fmt: skip
    assert reply is not None and reply.group(1).startswith("The sub-agent finished")


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB bytes of an 8-bit RGB or RGBA PNG (as chromium
    writes its screenshots)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data, header = 8, b"", b""
    while at < len(png):
        (size,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + size]
        header = body if kind == b"IHDR" else header
        data += body if kind == b"IDAT" else b""
        at += 12 + size
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6)
    step = 3 if color == 2 else 4
    raw, stride = zlib.decompress(data), width * step
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            left = line[x - step] if x >= step else 0
            up, corner = previous[x], previous[x - step] if x >= step else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                a, b, c = abs(p - left), abs(p - up), abs(p - corner)
                near = left if a <= b and a <= c else up if b <= c else corner
                line[x] = (line[x] + near) & 255
        previous = line
        rows.append(bytes(b for i, b in enumerate(line) if i % step < 3))
    return width, height, rows


@pytest.mark.browser
def test_the_rule_over_the_totals_is_dim_in_dark_mode(tmp_path: Path) -> None:
    """In dark mode the page's one rule (over 'tokens in all') is drawn in the page's line
    colour, as the code blocks' borders are, not the browser's light grey: a bright bar
    across the page's width."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("SESSDEX_REQUIRE_TOOLS") == "1":
            pytest.fail("chromium is required here (SESSDEX_REQUIRE_TOOLS=1)")
        pytest.skip("Debian's chromium is not installed")
    page = tmp_path / "session.html"
    page.write_text(_page("82d9f90c"))
    shot = tmp_path / "dark.png"
    subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
            "--force-dark-mode", "--blink-settings=preferredColorScheme=0",
            "--window-size=800,900", f"--screenshot={shot}", page.as_uri(),
        ],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    width, _, rows = _pixels(shot.read_bytes())
    background = rows[2][:3]
    assert max(background) < 40  # dark mode it is: the page's dark background

    def run(row: bytes) -> tuple[int, int]:
        """The longest run of one colour other than the background, and its brightness."""
        best, at = (0, 0), 0
        while at < width:
            colour, end = row[at * 3 : at * 3 + 3], at + 1
            while end < width and row[end * 3 : end * 3 + 3] == colour:
                end += 1
            if colour != background and end - at > best[0]:
                best = (end - at, max(colour))
            at = end
        return best

    rules = [found for row in rows if (found := run(row))[0] > width // 2]
    assert rules, "no rule across the page"
    assert max(bright for _, bright in rules) < 96, rules  # --line, #30363d
