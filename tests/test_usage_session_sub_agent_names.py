"""A Qwen Code sub-agent (written in its lead's own file, `general-purpose-eh56xt`) and a
Copilot CLI one (its own file, a bare uuid) are named in `usage session` as `tree` names
them: their type and task in `--json` and in the table, cold and from the index warm
(the real CLIs' files, tests/data from shared/corpus/realcli)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CASES = {  # app: lead, sub-agent id, its short id in the table
    "qwen": (
        "51ca07c5-86d5-4e2f-bd10-43feff49e3db",
        "general-purpose-eh56xt",
        "general-purpose-eh56xt",  # past its type, as `list --all` prints it
    ),
    "copilot": (
        "52ee9297-7cb3-468f-8ca4-46f6b927c8c7",
        "875a1830-7b81-4bd1-acd7-7c1f0f2bd5b1",
        "875a1830",
    ),
}


def _usage(app: str, *args: str) -> str:
    command = [
        "usage",
        "session",
        "--app",
        app,
        "--home",
        str(DATA / app / "home"),
        *args,
    ]
    result = CliRunner().invoke(
        main, command, env={"COLUMNS": "160"}
    )  # the id past its type: room for the task
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("run", ["cold", "warm"])
@pytest.mark.parametrize("app", sorted(CASES))
def test_a_sub_agent_has_its_type_and_task(app: str, run: str) -> None:
    lead, child, short = CASES[app]
    if run == "warm":  # the names kept in the index by the run before
        _usage(app, "--json")
    [row] = [row for row in json.loads(_usage(app, "--json")) if row["key"] == lead]
    agents = {agent["id"]: agent for agent in row["agents"]}
    assert (agents[child]["agent_type"], agents[child]["title"]) == (
        "general-purpose",
        "Greeting sub-agent",
    )
    assert f"└ {short}  general-purpose: Greeting sub-agent" in _usage(app)
