"""`sessdex usage` prices a model from the list of the provider the app sent it to."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from importlib import resources
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Usage
from sessdex.pricing import Catalogue

DATA = Path(__file__).parent / "data"
BARE = "qwen3-coder-plus"  # only OpenRouter lists it, as "qwen/qwen3-coder-plus"


def _rates(provider_id: str, model_id: str, day: str) -> tuple[float, float]:
    """The provider's base input and output prices of `model_id` on `day`, per token."""
    data = orjson.loads(
        (resources.files("sessdex") / "data" / "prices.json").read_bytes()
    )
    [provider] = [p for p in data["providers"] if p["id"] == provider_id]
    [entry] = [m for m in provider["models"] if m["id"] == model_id]
    period = [p for p in entry["prices"] if (p["start"] or "") <= day][-1]
    base = [v if isinstance(v, int | float) else v["base"] for v in (period["input"], period["output"])]  # fmt: skip
    return base[0] / 1e6, base[1] / 1e6


def _usage(run: CliRunner, home: Path, *args: str) -> list[dict[str, object]]:
    result = run.invoke(main, ["usage", *args, "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)  # type: ignore[no-any-return]


def _priced_from_openrouter(row: dict[str, object], day: str) -> None:
    assert row["unpriced_models"] == []
    assert row["app_recorded_cost_usd"] == 0
    given, made = _rates("openrouter", "qwen/" + BARE, day)
    expected = row["input_tokens"] * given + row["output_tokens"] * made  # type: ignore[operator]
    assert row["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert expected > 0


def test_the_catalogue_never_lets_a_provider_reprice_a_makers_model() -> None:
    catalogue = Catalogue.load()
    usage = Usage(10_000, 1_000, model=BARE)
    assert catalogue.cost(usage, None) is None
    assert catalogue.cost(usage, None, provider="no-such-provider") is None
    assert catalogue.cost(usage, None, provider="openrouter") is not None
    for model in ("gpt-4o", "claude-sonnet-4-5", "deepseek-chat", "glm-4.6"):
        priced = Usage(10_000, 1_000, model=model)
        alone = catalogue.cost(priced, None)
        assert alone is not None
        assert catalogue.cost(priced, None, provider="no-such-provider") == alone


def _opencode_home(tmp_path: Path, provider: str, model: str) -> Path:
    home = tmp_path / "home"
    storage = home / ".local/share/opencode/storage"
    session = {"id": "ses_prv1", "version": "1.3.17", "projectID": "proj_prv",
               "directory": "/tmp/prv", "parentID": None, "title": "provider",
               "time": {"created": 1790000000000, "updated": 1790000009000}}  # fmt: skip
    answer = {"id": "msg_prv2", "sessionID": "ses_prv1", "role": "assistant",
              "time": {"created": 1790000001000, "completed": 1790000009000},
              "providerID": provider, "modelID": model, "cost": 0,
              "tokens": {"input": 40_000, "output": 2_000, "reasoning": 0,
                         "cache": {"read": 0, "write": 0}}}  # fmt: skip
    for path, value in (
        (storage / "session/proj_prv/ses_prv1.json", session),
        (storage / "message/ses_prv1/msg_prv2.json", answer),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(value))
    return home


def test_opencode_a_bare_model_is_priced_from_its_providers_list(
    tmp_path: Path, run: CliRunner
) -> None:
    [row] = _usage(run, _opencode_home(tmp_path, "openrouter", BARE), "model")
    _priced_from_openrouter(row, "2026-09-20")


def test_opencode_an_unknown_provider_leaves_it_unpriced(
    tmp_path: Path, run: CliRunner
) -> None:
    [row] = _usage(run, _opencode_home(tmp_path, "my-proxy", BARE), "model")
    assert row["cost_usd"] is None and row["unpriced_models"] == [BARE]


def _pi_home(tmp_path: Path, provider: str) -> Path:
    home = tmp_path / "home"
    folder = home / ".pi" / "agent" / "sessions" / "--home-dev-app--"
    folder.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 3, "id": "0190a1c7-0000-7aaa-8bbb-ccccdddd0012",
         "timestamp": "2026-11-21T10:00:00.000Z", "cwd": "/home/dev/app"},
        {"type": "message", "id": "m2", "parentId": None,
         "timestamp": "2026-11-21T10:00:09.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                     "api": "openai-completions", "provider": provider, "model": BARE,
                     "stopReason": "stop",
                     "usage": {"input": 40_000, "output": 2_000, "cacheRead": 0,
                               "cacheWrite": 0, "totalTokens": 42_000}}},
    ]  # fmt: skip
    name = "2026-11-21T10-00-00-000Z_0190a1c7-0000-7aaa-8bbb-ccccdddd0012.jsonl"
    (folder / name).write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return home


def test_pi_a_bare_model_is_priced_from_its_providers_list(
    tmp_path: Path, run: CliRunner
) -> None:
    [row] = _usage(run, _pi_home(tmp_path, "openrouter"), "model")
    _priced_from_openrouter(row, "2026-11-21")
    [row] = _usage(run, _pi_home(tmp_path / "other", "my-proxy"), "model")
    assert row["cost_usd"] is None


def test_crush_a_bare_model_is_priced_from_its_providers_list(
    tmp_path: Path, run: CliRunner
) -> None:
    """Crush recorded no cost (0): its tokens are priced, from OpenRouter's list."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "crush" / "home", home)
    db = home / "code/dbos-transact-golang/.crush/crush.db"
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE sessions SET cost = 0")
        connection.execute(
            "UPDATE messages SET model = ?, provider = 'openrouter'", (BARE,)
        )
    rows = _usage(run, home, "session", "--app", "crush")
    changed = [r for r in rows if "dbos" in str(r["cwd"]) and r["input_tokens"]]
    assert changed
    for row in changed:
        _priced_from_openrouter(row, "2026-09-20")


def test_goose_a_bare_model_is_priced_from_its_providers_list(
    tmp_path: Path, run: CliRunner
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "goose" / "home", home)
    db = home / ".local/share/goose/sessions/sessions.db"
    config = orjson.dumps({"model_name": BARE}).decode()
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "UPDATE sessions SET provider_name = 'openrouter', model_config_json = ?",
            (config,),
        )
    rows = _usage(run, home, "model", "--app", "goose")
    [row] = [r for r in rows if r["key"] == BARE]
    _priced_from_openrouter(row, "2026-09-20")
