"""A sub-agent listed (`list --all`, `find --all`, `--json`) is titled by its task, as
the apps whose children have real titles are: not by its lead's name, which a gptme
sub-agent's config.toml copies, nor by "New Agent Session", Crush's placeholder for
every child session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"

GPTME_CHILD = "subagent-greeter-be5v"
GPTME_TASK = "SCENARIO=child You are a sub-agent. Run the shell command"
CRUSH_CHILD = "m-assistant-1$$call_agent_1"
CRUSH_TASK = "Find every caller of checkout()"


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def titles(home: Path, *args: str) -> dict[str, str | None]:
    return {row["id"]: row["title"] for row in json.loads(run(home, *args, "--json"))}


def test_gptme_lists_a_sub_agent_by_its_task_not_its_leads_name(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "gptme" / "real" / "home", home)
    listed = titles(home, "list", "--all")
    # the lead's name, copied into the sub-agent's config.toml, told it from nothing
    assert listed["checkout-subagent"] == "Checkout retry smoke test"
    assert listed[GPTME_CHILD] is not None
    assert listed[GPTME_CHILD].startswith(GPTME_TASK)
    assert f"↳ subagent: {GPTME_TASK[:20]}" in run(home, "list", "--all")
    assert titles(home, "find", "--all", "echo", "hello-from-subagent") == {
        GPTME_CHILD: listed[GPTME_CHILD]
    }


def test_gptme_lists_a_sub_agent_by_its_registry_entrys_task(tmp_path: Path) -> None:
    """The task the lead gave it (the entry's `prompt`), over its first typed message,
    which gptme may add to (a subprocess sub-agent's completion instructions)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "gptme" / "real" / "home", home)
    meta = home / ".local/share/gptme/logs" / GPTME_CHILD / "subagent-meta.json"
    entry = json.loads(meta.read_text())
    entry["prompt"] = "Greet the user\nthen report back"
    meta.write_text(json.dumps(entry))
    assert titles(home, "list", "--all")[GPTME_CHILD] == "Greet the user"


def test_crush_lists_a_child_session_by_its_first_prompt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "crush" / "home", home)
    listed = titles(home, "list", "--all")
    assert listed[CRUSH_CHILD] == CRUSH_TASK  # was "New Agent Session"
    assert f"↳ agent: {CRUSH_TASK}" in run(home, "list", "--all")
    assert CRUSH_CHILD in titles(home, "find", "--all", "caller", "checkout")


def test_crush_keeps_a_child_sessions_own_title(tmp_path: Path) -> None:
    """Only Crush's placeholder gives way: a title the child session was given stays."""
    import sqlite3

    home = tmp_path / "home"
    shutil.copytree(DATA / "crush" / "home", home)
    db = sqlite3.connect(home / "code/shop-api/.crush/crush.db")
    db.execute(
        "UPDATE sessions SET title = 'Fetch analysis' WHERE id = ?", (CRUSH_CHILD,)
    )
    db.commit()
    db.close()
    assert titles(home, "list", "--all")[CRUSH_CHILD] == "Fetch analysis"
