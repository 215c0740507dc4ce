"""JSON printed as it is stays inert: every character `show` and `list` leave out of
what a person reads (each bidi control, what draws nothing) is a `\\u` escape in
`--json`, `--nl` and `export -f json`, and the value decodes exactly as the file holds it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

# Unicode's Bidi_Control (the Arabic letter mark, the marks, embeddings, overrides and
# isolates), and what draws nothing: the zero-width space, the word joiner, a BOM, a
# tag character (ASCII no terminal shows)
HIDDEN = (
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u200b\u2060\ufeff\U000e0041"
)
# a zero-width joiner is text: it joins an emoji (a family), kept as written
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_json_writes_hidden_characters_as_escapes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    text = "".join(f"{n}{char}" for n, char in enumerate(HIDDEN)) + FAMILY
    session_id = "52525252-0000-4000-8000-000000000001"
    write_claude_session(home, session_id, "/w/shop", title=text, prompt=text)
    for args in (["list", "--json"], ["list", "--nl"], ["find", "shop", "--json"]):
        out = _run(*args, "--home", str(home))
        assert not set(out) & set(HIDDEN), args
        assert "\\u200f" in out and "\\u2060" in out and FAMILY in out, args
        record = json.loads(out.splitlines()[0] if "--nl" in args else out)
        assert (record if "--nl" in args else record[0])["title"] == text
    for args in (["show", "5252", "--json"], ["export", "5252", "-f", "json"]):
        out = _run(*args, "--home", str(home))
        assert not set(out) & set(HIDDEN), args
        assert any(event.get("text") == text for event in json.loads(out)), args


def test_json_escapes_every_character_the_text_views_drop() -> None:
    """The two lists stay one: a character `views.text.clean` drops past ASCII (a control,
    a bidi control, what draws nothing) is never written raw into JSON."""
    from sessdex.views.records import dumps
    from sessdex.views.text import clean

    every = "".join(chr(n) for n in range(0x80, 0x110000) if not 0xD800 <= n <= 0xDFFF)
    dropped = sorted(set(every) - set(clean(every)))
    assert "\u200e" in dropped and "\U000e0041" in dropped
    out = dumps(dropped).decode()
    assert not set(out) & set(dropped)
    assert json.loads(out) == dropped
