"""`follow --tail N`, as `show --tail N` is typed, shows the last N events first, as
`follow -n N` does: it was refused ("No such option")."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

DEMO = str(DATA.parent.parent / "src/sessdex/demo/home")


def follow(*args: str) -> str:
    result = CliRunner().invoke(
        main, ["follow", "3f2b", "--duration", "0", "--nl", "--home", DEMO, *args]
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_follow_takes_tail_as_show_does() -> None:
    tail = follow("--tail", "2")
    assert tail == follow("-n", "2")
    assert len(tail.splitlines()) == 2
