"""Every app's fixture home, each text field a file holds given hostile text (terminal
escapes, C1 controls, bidi and invisible characters, HTML, a Markdown image, Rich markup,
shell words), and the commands a user runs over it: nothing a terminal, a browser or a
Markdown viewer would act on comes out, whichever app wrote the field."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import merged_home

HOSTILE = (
    "\x1b]8;;http://evil.example/\x07LNK\x1b]8;;\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\x9d0;t\x9c"
    "\x1b[2J\x07\x08\u202eRLO\u202c\u2066I\u2069\u200e\u200bZ\ufeff\u2060"
    "<script>alert(1)</script><img src=x onerror=alert(2)>![x](http://tracker.example/p.png)"
    "[link=http://evil.example/]RICH[/link]\n```\n# H\n$(id)`id`;rm -rf ~ 'q\"\\ \rOVER\x1b"
)
# what no text output may hold raw: C0 controls but tab and newline, DEL, C1, every
# bidi control, what draws nothing
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)
# values a reader dispatches on, left as they are so that the sessions still read
_KEPT = {"type", "role", "kind", "status", "event", "version", "format", "mode"}
_TIME = re.compile(r"\d{4}-\d\d-\d\d")


def _spoiled(value: object, key: object = None) -> object:
    """`value` with HOSTILE after each text that reads as words, a name or a path."""
    if isinstance(value, dict):
        return {k: _spoiled(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_spoiled(v, key) for v in value]
    if not isinstance(value, str) or key in _KEPT or _TIME.match(value):
        return value
    if value[:1] in "{[":  # JSON kept as text (a SQLite column, a tool's arguments)
        try:
            return json.dumps(_spoiled(json.loads(value), key))
        except ValueError:
            pass
    if (
        " " in value
        or "/" in value
        or len(value) > 30
        or key in ("title", "name", "model")
    ):
        return value + HOSTILE
    return value


def _spoil_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        for (table,) in tables.fetchall():
            columns = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]
            try:
                rows = db.execute(f'SELECT rowid, * FROM "{table}"').fetchall()
            except sqlite3.Error:  # WITHOUT ROWID: left as it is
                continue
            sets = ", ".join(f'"{c}" = ?' for c in columns)
            for rowid, *values in rows:
                spoiled = [_spoiled(v, c) for c, v in zip(columns, values, strict=True)]
                if spoiled != values:
                    db.execute(
                        f'UPDATE "{table}" SET {sets} WHERE rowid = ?',
                        (*spoiled, rowid),
                    )


def _spoil(home: Path) -> None:
    for path in sorted(home.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if data.startswith(b"SQLite format 3\x00"):
            _spoil_database(path)
            continue
        try:
            text = data.decode()
        except UnicodeDecodeError:
            continue
        try:
            path.write_text(json.dumps(_spoiled(json.loads(text))))
            continue
        except ValueError:
            pass
        lines = []
        for line in text.splitlines():
            try:
                lines.append(json.dumps(_spoiled(json.loads(line))))
            except ValueError:
                lines.append(line)
        path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = merged_home(tmp_path_factory.mktemp("hostile") / "home")
    _spoil(home)
    return home


def _run(home: Path, *args: str) -> tuple[str, str]:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exception is None or isinstance(result.exception, SystemExit), args
    return result.stdout, result.stderr


def _outside_code(markdown: str) -> str:
    """The Markdown a viewer reads as markup: fenced blocks and code spans left out."""
    kept, fence = [], ""
    for line in markdown.split("\n"):
        opening = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if not fence and opening:
            fence = opening[1]
        elif fence and re.fullmatch(
            rf" {{0,3}}{fence[0]}{{{len(fence)},}}[ \t]*", line
        ):
            fence = ""
        elif not fence:
            kept.append(line)
    return re.sub(r"(`+).+?\1", "", "\n".join(kept))


def test_no_hostile_text_takes_effect_in_any_output(hostile_home: Path) -> None:
    listed = json.loads(_run(hostile_home, "list", "--all", "--json", "-n", "1000")[0])
    titles = "".join(row["title"] or "" for row in listed)
    assert "\x1b]8;;http://evil.example/\x07LNK" in titles  # it reached them
    firsts: dict[str, str] = {}
    for row in listed:
        firsts.setdefault(row["app"], row["id"])
    assert len(firsts) >= 30
    outputs = {}
    for args in (
        ["list", "--all"],
        ["list", "--json"],
        ["find", "LNK"],
        ["usage"],
        ["usage", "model"],
        ["watch", "--once", "--since", "10y"],
        ["doctor"],
    ):
        outputs[" ".join(args)] = _run(hostile_home, *args)
    for app, session_id in firsts.items():
        for args in (
            ["show", "--no-pager", "--detail", "full"],
            ["show", "--json"],
            ["tree"],
            ["resume", "--print"],
            ["export", "-f", "md"],
        ):
            outputs[f"{app} {' '.join(args)}"] = _run(hostile_home, *args, session_id)
        page = _run(hostile_home, "export", "-f", "html", session_id)[0]
        assert "<script>alert" not in page and "<img src=x" not in page, app
    for what, (out, err) in outputs.items():
        for stream in (out, err):
            found = UNSAFE.search(stream)
            assert found is None, (
                what,
                stream[max(0, found.start() - 80) : found.end()],
            )
        if what.endswith("-f md"):
            markup = _outside_code(out)
            assert "![x]" not in markup and "<img" not in markup, what
