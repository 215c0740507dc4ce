"""`sessdex usage` prices what a user ran, however the app spelled the model."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main


def _openrouter_price(model_id: str, day: str) -> dict[str, float]:
    """OpenRouter's prices of `model_id` on `day` (the last period begun by then)."""
    data = orjson.loads(
        (resources.files("sessdex") / "data" / "prices.json").read_bytes()
    )
    [provider] = [p for p in data["providers"] if p["id"] == "openrouter"]
    [entry] = [m for m in provider["models"] if m["id"] == model_id]
    periods = [p for p in entry["prices"] if (p["start"] or "") <= day]
    return periods[-1]  # type: ignore[no-any-return]


def _pi_session(home: Path, provider: str, model: str) -> None:
    """A pi session of one response, billed through `provider` as `model`."""
    folder = home / ".pi" / "agent" / "sessions" / "--home-dev-app--"
    folder.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 3, "id": "0190a1c7-0000-7aaa-8bbb-ccccdddd0009",
         "timestamp": "2026-11-21T10:00:00.000Z", "cwd": "/home/dev/app"},
        {"type": "message", "id": "m1", "parentId": None,
         "timestamp": "2026-11-21T10:00:05.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "message", "id": "m2", "parentId": "m1",
         "timestamp": "2026-11-21T10:00:09.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                     "api": "openai-completions", "provider": provider, "model": model,
                     "usage": {"input": 200_000, "output": 10_000, "cacheRead": 0,
                               "cacheWrite": 0, "totalTokens": 210_000},
                     "stopReason": "stop"}},
    ]  # fmt: skip
    name = "2026-11-21T10-00-00-000Z_0190a1c7-0000-7aaa-8bbb-ccccdddd0009.jsonl"
    (folder / name).write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


@pytest.mark.parametrize(
    "model", ["qwen/qwen3-coder-plus", "meta-llama/llama-4-maverick"]
)
def test_a_model_named_by_its_openrouter_id_is_priced_not_unpriced(
    tmp_path: Path, run: CliRunner, model: str
) -> None:
    """OpenCode, Cline, Kilo and pi name an OpenRouter model by OpenRouter's id
    (`qwen/qwen3-coder-plus`, no `openrouter/` in front): the catalogue lists that id
    under OpenRouter, so the response has a cost, as `openrouter/qwen/...` has."""
    home = tmp_path / "home"
    _pi_session(home, "openrouter", model)
    result = run.invoke(main, ["usage", "model", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    [row] = orjson.loads(result.stdout)
    price = _openrouter_price(model, "2026-11-21")
    expected = (200_000 * price["input"] + 10_000 * price["output"]) / 1e6
    assert row["unpriced_models"] == []
    assert row["cost_usd"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("openrouter", "qwen/qwen3-coder:free"),
        ("openrouter", "openrouter/meta-llama/llama-4-maverick:free"),
        ("kilocode", "x-ai/grok-code-fast-1:free"),
    ],
)
def test_an_openrouter_free_variant_costs_nothing_not_unpriced(
    tmp_path: Path, run: CliRunner, provider: str, model: str
) -> None:
    """OpenRouter's `:free` variants bill no token: the price list leaves them out (it
    keeps token prices only), so they showed "unpriced", as if the cost were unknown."""
    home = tmp_path / "home"
    _pi_session(home, provider, model)
    result = run.invoke(main, ["usage", "model", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    [row] = orjson.loads(result.stdout)
    assert row["unpriced_models"] == []
    assert row["cost_usd"] == 0
    assert row["input_tokens"] == 200_000


def test_a_name_merely_ending_in_free_is_not_free(
    tmp_path: Path, run: CliRunner
) -> None:
    """Only OpenRouter's `:free` suffix says so: a model whose name ends in "free" some
    other way is looked up as ever (here: unknown, so unpriced)."""
    home = tmp_path / "home"
    _pi_session(home, "openrouter", "acme/tollfree")
    result = run.invoke(main, ["usage", "model", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    [row] = orjson.loads(result.stdout)
    assert [name.rsplit("/", 1)[-1] for name in row["unpriced_models"]] == ["tollfree"]
