"""`find --all` finds a sub-agent by its type, as `list --all` names it (`↳
general-purpose: …`): the type was in no text `find` searched, and found nothing."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home


def _find(*words: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(
        main, ["find", *words, "--json", "--home", str(app_home("claude"))],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert isinstance(found, list)
    return found


def test_find_all_finds_a_sub_agent_by_its_type() -> None:
    listed = CliRunner().invoke(
        main, ["list", "--all", "--json", "--home", str(app_home("claude"))]
    )
    typed = {
        s["id"] for s in json.loads(listed.stdout) if s.get("agent_type") == "Explore"
    }
    assert typed
    found = {s["id"] for s in _find("explore", "--all")}
    assert typed <= found, found


def test_find_without_all_leaves_sub_agents_out_as_before() -> None:
    assert all(not s.get("parent_id") for s in _find("explore"))
