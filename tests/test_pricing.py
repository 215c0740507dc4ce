"""The pinned price catalogue: tiers, cache prices, dated changes, unknown models never $0."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from sessdex.model import Usage
from sessdex.pricing import Catalogue, plain_name

NOV = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue.load()


def test_the_catalogue_records_its_source_and_version(catalogue: Catalogue) -> None:
    from importlib import resources

    data = orjson.loads(
        (resources.files("sessdex") / "data" / "prices.json").read_bytes()
    )
    assert data["catalogue"] == "genai-prices"
    assert data["version"] == catalogue.version
    assert data["source"] == catalogue.source
    assert "MIT" in data["source"]
    assert catalogue.label.startswith("genai-prices ")


def test_a_catalogue_written_in_another_order_names_and_prices_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue
) -> None:
    """The version is read from the file's start as the update script writes it; a file
    another writer ordered (a vendor's repackaging) is read whole, to the same effect."""
    from sessdex import pricing

    data = orjson.loads(Path(pricing._FILE).read_bytes())
    moved = tmp_path / "prices.json"
    moved.write_bytes(orjson.dumps({"providers": data["providers"], **data}))
    monkeypatch.setattr(pricing, "_FILE", str(moved))
    pricing._load.cache_clear()
    try:
        other = Catalogue.load()
        assert (other.label, other.source) == (catalogue.label, catalogue.source)
        usage = Usage(1000, 500, 0, 0, 0, "claude-sonnet-4-5")
        priced = catalogue.cost(usage, NOV)
        assert priced is not None and other.cost(usage, NOV) == priced
    finally:
        pricing._load.cache_clear()


def test_input_output_and_cache_prices(catalogue: Catalogue) -> None:
    # Claude Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
    usage = Usage(1000, 500, 100_000, 10_000, 0, "claude-sonnet-4-5-20250929")
    expected = (1000 * 3 + 500 * 15 + 100_000 * 0.3 + 10_000 * 3.75) / 1e6
    assert catalogue.cost(usage, NOV) == pytest.approx(expected)


def test_a_long_prompt_bills_the_whole_request_at_the_long_context_tier(
    catalogue: Catalogue,
) -> None:
    # over 200k prompt tokens (input + cache), every token of the request bills at the tier
    usage = Usage(150_000, 1000, 60_000, 0, 0, "claude-sonnet-4-5")
    expected = (150_000 * 6 + 1000 * 22.5 + 60_000 * 0.6) / 1e6
    assert catalogue.cost(usage, NOV) == pytest.approx(expected)


def test_one_hour_cache_writes_have_their_own_price(catalogue: Catalogue) -> None:
    five_minutes = catalogue.cost(Usage(0, 0, 0, 1000, 0, "claude-haiku-4-5"), NOV)
    one_hour = catalogue.cost(
        Usage(0, 0, 0, 1000, 0, "claude-haiku-4-5"), NOV, cache_write_1h=1000
    )
    assert five_minutes == pytest.approx(1000 * 1.25 / 1e6)
    assert one_hour == pytest.approx(1000 * 2 / 1e6)


def test_openai_cache_reads_and_provider_prefixes(catalogue: Catalogue) -> None:
    usage = Usage(1000, 100, 9000, 0, 50, "gpt-5.5")
    plain = catalogue.cost(usage, NOV)
    assert plain == pytest.approx((1000 * 5 + 100 * 30 + 9000 * 0.5) / 1e6)
    prefixed = Usage(1000, 100, 9000, 0, 50, "openai/gpt-5.5")
    assert catalogue.cost(prefixed, NOV) == pytest.approx(plain)


def test_cursors_version_first_claude_names_are_priced_as_anthropics(
    catalogue: Catalogue,
) -> None:
    for name, model in (
        ("claude-4.5-sonnet", "claude-sonnet-4-5"),
        ("claude-4.5-sonnet-thinking", "claude-sonnet-4-5"),
        ("claude-4.1-opus", "claude-opus-4-1"),
        ("claude-4.5-haiku", "claude-haiku-4-5"),
    ):
        found = catalogue.lookup(name)
        assert found is not None and found.id == model, name
    assert catalogue.lookup("claude-4.5-sonnet-banana") is None


def test_names_apps_give_models_in_their_own_spellings_are_priced(
    catalogue: Catalogue,
) -> None:
    """Cloud ids (Bedrock, Vertex), a thinking level appended (Antigravity), a display
    name, a provider prefix whose provider lists no such model (GitHub Copilot's
    Claude), a bare name only its maker lists: each is the model it names."""
    for name, model in (
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("gemini-3-pro-high", "gemini-3-pro-preview"),
        ("gemini-3.1-pro-low", "gemini-3.1-pro-preview"),
        ("Gemini 3 Pro (High)", "gemini-3-pro-preview"),
        ("github-copilot/claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("glm-4.6", "GLM-4.6"),
    ):
        found = catalogue.lookup(name)
        assert found is not None and found.id == model, name
    for unknown in ("mock-model", "claude-sonnet-banana-high", "MODEL_PLACEHOLDER_M26"):
        assert catalogue.lookup(unknown) is None, unknown


def test_prices_change_on_their_start_date(catalogue: Catalogue) -> None:
    usage = Usage(0, 0, 1_000_000, 0, 0, "gpt-5.5-cyber")
    before = catalogue.cost(usage, datetime(2026, 10, 18, tzinfo=UTC).timestamp())
    after = catalogue.cost(usage, datetime(2026, 10, 20, tzinfo=UTC).timestamp())
    assert before == pytest.approx(12.5)  # no cached-input price yet: billed as input
    assert after == pytest.approx(1.25)


def test_off_peak_hours(catalogue: Catalogue) -> None:
    usage = Usage(1_000_000, 0, 0, 0, 0, "deepseek-chat")
    peak = catalogue.cost(usage, datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp())
    night = catalogue.cost(usage, datetime(2026, 11, 20, 20, tzinfo=UTC).timestamp())
    assert peak is not None and night is not None and night < peak


def test_an_unknown_model_has_no_price_never_zero(catalogue: Catalogue) -> None:
    assert catalogue.cost(Usage(10, 10, 0, 0, 0, "claude-imaginary-9"), NOV) is None
    assert catalogue.cost(Usage(10, 10, 0, 0, 0, None), NOV) is None


@pytest.mark.parametrize(
    ("spelled", "plain"),
    [
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("openrouter/anthropic/claude-opus-4.5", "claude-opus-4-5"),
        ("claude-sonnet-4.5", "claude-sonnet-4-5"),  # Copilot CLI's spelling
        ("Claude Sonnet 4.5", "claude-sonnet-4-5"),
        ("claude-3.5-sonnet-20241022", "claude-3-5-sonnet-20241022"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
        ("Gemini 3 Pro (High)", "gemini-3-pro-high"),
        ("GPT-5.1-Codex", "gpt-5.1-codex"),
        ("gemini-3-pro-high", "gemini-3-pro-high"),  # a level names what ran: kept
    ],
)
def test_one_model_has_one_plain_name_whatever_the_app_calls_it(
    spelled: str, plain: str
) -> None:
    assert plain_name(spelled) == plain
