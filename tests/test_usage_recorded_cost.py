"""`sessdex usage` takes the cost an app recorded where the price list has no price."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
# the public cli-continues tasks (tests/data/<app>/PROVENANCE.md): no model named
TASKS = {
    "cline": ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1740470400000",
    "roo": ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
    "2b9d4c1e-7f00-4a53-9d7e-1c2f3a4b5c6d",
    "kilo": ".config/Code/User/globalStorage/kilocode.kilo-code/tasks/"
    "5f0e1d2c-3b4a-4958-8776-655443322110",
}


def _task_home(tmp_path: Path, app: str) -> tuple[Path, list[float]]:
    """A home holding only the app's public task, and the costs its requests recorded."""
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home" / TASKS[app], home / TASKS[app])
    messages = orjson.loads((home / TASKS[app] / "ui_messages.json").read_bytes())
    costs = [
        orjson.loads(m["text"]).get("cost", 0)
        for m in messages
        if m.get("say") == "api_req_started"
    ]
    return home, costs


def _usage(run: CliRunner, home: Path, *args: str) -> list[dict[str, object]]:
    result = run.invoke(main, ["usage", *args, "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("app", sorted(TASKS))
def test_a_task_naming_no_model_costs_what_the_app_recorded(
    tmp_path: Path, run: CliRunner, app: str
) -> None:
    home, costs = _task_home(tmp_path, app)
    recorded = sum(c for c in costs if c > 0)
    assert recorded > 0
    [row] = _usage(run, home, "session")
    assert row["priced_cost_usd"] == pytest.approx(recorded)
    assert row["app_recorded_cost_usd"] == pytest.approx(recorded)
    if 0 in costs:  # a request whose cost the app wrote as 0 is not free: unknown
        assert row["cost_usd"] is None
        assert row["unpriced_models"] == ["(unknown model)"]
    else:
        assert row["cost_usd"] == pytest.approx(recorded)
        assert row["unpriced_models"] == []
    # the totals of every grouping agree
    for report in ("daily", "model", "app", "project"):
        rows = _usage(run, home, report)
        assert sum(r["priced_cost_usd"] for r in rows) == pytest.approx(recorded)


@pytest.mark.parametrize("app", sorted(TASKS))
def test_the_table_marks_the_apps_own_figure_and_says_so(
    tmp_path: Path, run: CliRunner, app: str
) -> None:
    home, costs = _task_home(tmp_path, app)
    result = run.invoke(main, ["usage", "app", "--home", str(home)])
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.stdout.splitlines() if f" {app} " in x]
    figure = f"${sum(c for c in costs if c > 0):.5f}"
    assert line.rstrip(" │").endswith(figure + ("+*" if 0 in costs else "*"))
    assert "* includes costs the apps recorded themselves" in result.stdout


def _cline_task(home: Path, model: str, cost: float) -> Path:
    """A Cline task of one request to `model` that recorded `cost`."""
    task = home / TASKS["cline"].replace("1740470400000", "1790000000000")
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
    return task


def test_the_price_list_comes_first_where_it_has_the_model(
    tmp_path: Path, run: CliRunner
) -> None:
    home = tmp_path / "home"
    _cline_task(home, "claude-sonnet-4-5-20250929", 123.0)
    [row] = _usage(run, home, "session")
    assert row["models"] == ["claude-sonnet-4-5-20250929"]
    assert row["cost_usd"] is not None and row["cost_usd"] != pytest.approx(123.0)
    assert row["app_recorded_cost_usd"] == 0
    result = run.invoke(main, ["usage", "app", "--home", str(home)])
    assert "*" not in result.stdout


def _opencode_home(tmp_path: Path, model: str, cost: object) -> Path:
    """OpenCode's JSON storage: one session of one answer by `model` that cost `cost`."""
    home = tmp_path / "home"
    storage = home / ".local/share/opencode/storage"
    session = {"id": "ses_rec1", "version": "1.3.17", "projectID": "proj_rec",
               "directory": "/tmp/rec", "parentID": None, "title": "recorded",
               "time": {"created": 1790000000000, "updated": 1790000009000}}  # fmt: skip
    user = {"id": "msg_rec1", "sessionID": "ses_rec1", "role": "user",
            "time": {"created": 1790000000000}}  # fmt: skip
    answer = {"id": "msg_rec2", "sessionID": "ses_rec1", "role": "assistant",
              "time": {"created": 1790000001000, "completed": 1790000009000},
              "providerID": "local", "modelID": model, "cost": cost,
              "tokens": {"input": 1000, "output": 200, "reasoning": 0,
                         "cache": {"read": 0, "write": 0}}}  # fmt: skip
    for path, value in (
        (storage / "session/proj_rec/ses_rec1.json", session),
        (storage / "message/ses_rec1/msg_rec1.json", user),
        (storage / "message/ses_rec1/msg_rec2.json", answer),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(value))
    return home


def test_opencode_an_unlisted_model_costs_what_opencode_recorded(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _opencode_home(tmp_path, "my-finetune-7b", 0.0421)
    [row] = _usage(run, home, "model")
    assert row["cost_usd"] == pytest.approx(0.0421)
    assert row["app_recorded_cost_usd"] == pytest.approx(0.0421)


@pytest.mark.parametrize("cost", [0, None, "0.5"])
def test_opencode_a_zero_or_odd_cost_stays_unpriced(
    tmp_path: Path, run: CliRunner, cost: object
) -> None:
    home = _opencode_home(tmp_path, "my-finetune-7b", cost)
    [row] = _usage(run, home, "model")
    assert row["cost_usd"] is None
    assert row["unpriced_models"] == ["my-finetune-7b"]


def _pi_home(tmp_path: Path, total: float) -> Path:
    """A pi session of one answer by a model no price list has, costing `total`."""
    home = tmp_path / "home"
    folder = home / ".pi" / "agent" / "sessions" / "--home-dev-app--"
    folder.mkdir(parents=True)
    cost = {"input": total / 2, "output": total / 2, "cacheRead": 0, "cacheWrite": 0,
            "total": total}  # fmt: skip
    lines = [
        {"type": "session", "version": 3, "id": "0190a1c7-0000-7aaa-8bbb-ccccdddd0011",
         "timestamp": "2026-11-21T10:00:00.000Z", "cwd": "/home/dev/app"},
        {"type": "message", "id": "m1", "parentId": None,
         "timestamp": "2026-11-21T10:00:05.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "message", "id": "m2", "parentId": "m1",
         "timestamp": "2026-11-21T10:00:09.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                     "api": "openai-completions", "provider": "my-lab",
                     "model": "lab-model-9", "stopReason": "stop",
                     "usage": {"input": 5000, "output": 300, "cacheRead": 0,
                               "cacheWrite": 0, "totalTokens": 5300, "cost": cost}}},
    ]  # fmt: skip
    name = "2026-11-21T10-00-00-000Z_0190a1c7-0000-7aaa-8bbb-ccccdddd0011.jsonl"
    (folder / name).write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return home


def test_pi_an_unlisted_model_costs_what_pi_recorded(
    tmp_path: Path, run: CliRunner
) -> None:
    [row] = _usage(run, _pi_home(tmp_path, 0.0375), "model")
    assert row["cost_usd"] == pytest.approx(0.0375)
    assert row["app_recorded_cost_usd"] == pytest.approx(0.0375)


def test_pi_a_zero_cost_stays_unpriced(tmp_path: Path, run: CliRunner) -> None:
    [row] = _usage(run, _pi_home(tmp_path, 0), "model")
    assert row["cost_usd"] is None
    assert row["unpriced_models"] == ["lab-model-9"]
