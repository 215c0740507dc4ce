"""`usage --explain` says of a cost the app recorded whether it is the one counted: it
said "the app recorded $123.000000 (its cost where no price)" of a response the price
list priced, as though the app's figure were its cost."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main

TASK = ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1790000000000"


def _cline_task(home: Path, model: str, cost: float) -> None:
    """A Cline task of one request to `model` that recorded `cost`."""
    task = home / TASK
    task.mkdir(parents=True)
    request = {"request": "POST", "tokensIn": 200_000, "tokensOut": 10_000,
               "cacheWrites": 0, "cacheReads": 0, "cost": cost}  # fmt: skip
    messages = [
        {"ts": 1790000000000, "type": "say", "say": "task", "text": "hi"},
        {"ts": 1790000001000, "type": "say", "say": "api_req_started",
         "text": orjson.dumps(request).decode()},
    ]  # fmt: skip
    (task / "ui_messages.json").write_bytes(orjson.dumps(messages))
    metadata = {"model_usage": [{"ts": 1790000000000, "model_id": model,
                                 "model_provider_id": "anthropic", "mode": "act"}]}  # fmt: skip
    (task / "task_metadata.json").write_bytes(orjson.dumps(metadata))


def _explained(home: Path, *args: str) -> tuple[str, list[dict[str, object]]]:
    run = CliRunner()
    common = ["usage", "session", "--explain", "1790000000000", "--home", str(home)]
    result = run.invoke(main, [*common, *args])
    assert result.exit_code == 0, result.output
    data = run.invoke(main, [*common, "--json", *args])
    assert data.exit_code == 0, data.output
    return result.stdout, orjson.loads(data.stdout)["counted"]


@pytest.mark.parametrize(
    ("model", "said", "not_said"),
    [
        (  # the price list has it: its price is the cost, not the app's $123
            "claude-sonnet-4-5-20250929",
            "the app recorded $123.000000; the price list's price is used",
            "no price",
        ),
        (  # none: the app's figure is the cost
            "some-house-model-9",
            "its cost as the app recorded it, $123.000000: the price list has no price",
            "price is used",
        ),
    ],
)
def test_explain_says_whether_the_recorded_cost_is_used(
    tmp_path: Path, model: str, said: str, not_said: str
) -> None:
    home = tmp_path / "home"
    _cline_task(home, model, 123.0)
    out, counted = _explained(home)
    [response] = [line for line in out.splitlines() if f"  {model}  " in line]
    note = out.splitlines()[out.splitlines().index(response) + 1]
    assert said in note and not_said not in note, note
    assert ("$123.000000" in response) is (not_said == "price is used"), response
    [record] = counted
    assert said in str(record["note"])
