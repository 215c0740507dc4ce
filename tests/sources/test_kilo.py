"""Kilo Code quirks: Roo Code's task layout under its own extension id."""

from __future__ import annotations

from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Usage
from sessdex.sources import Home, kilo

DATA = Path(__file__).parent.parent / "data" / "kilo"


def test_usage_totals_of_the_sample_task() -> None:
    location = kilo.locate(Home.at(DATA / "home"))
    [path] = list(kilo.scan(location))
    [session] = kilo.parse(path, location, Diagnostics())
    got = list(kilo.read(session, Diagnostics()))
    usage = sum((e.usage for e in got if e.usage), Usage())
    assert (usage.input_tokens, usage.output_tokens) == (90 + 200 + 350, 0 + 250 + 400)
    assert [e.kind for e in got if e.kind in ("user", "thinking")] == [
        "user",
        "user",
        "thinking",
    ]
    assert kilo.resume(session) is None


def test_kilo_reads_only_its_own_extension(tmp_path: Path) -> None:
    home = tmp_path / "home"
    other = home / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/x"
    other.mkdir(parents=True)
    (other / "ui_messages.json").write_text("[]")
    assert list(kilo.scan(kilo.locate(Home.at(home)))) == []
