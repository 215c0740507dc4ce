"""Write sessdex's pinned price catalogue from the `genai-prices` package, and check it.

sessdex never fetches prices at run time: `src/sessdex/data/prices.json` is a slim copy of
pydantic's genai-prices data (token prices, long-context tiers, cache prices, start dates,
the `speed: fast` variant), with its version recorded. Refresh it on purpose:

    python3 -m venv /tmp/gp && /tmp/gp/bin/pip install genai-prices==X.Y.Z
    /tmp/gp/bin/python scripts/update-prices.py            # writes the file
    /tmp/gp/bin/python scripts/update-prices.py --check    # compares sessdex's prices with the library's

The check prices a spread of usages with `genai_prices.calc_price` and with
`sessdex.pricing`, for every model of the providers sessdex's apps use, and fails on any
difference (sessdex's `src/` is put on the path; it needs no other package but orjson).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, date, datetime, time
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "sessdex" / "data" / "prices.json"
KEYS = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write",
    "cache_write_1h_mtok": "cache_write_1h",
}


def _number(value: Decimal) -> float | int:
    return int(value) if value == value.to_integral_value() else float(value)


def _price(value: object) -> object:
    from genai_prices.types import TieredPrices

    if isinstance(value, TieredPrices):
        return {
            "base": _number(value.base),
            "tiers": [[t.start, _number(t.price)] for t in value.tiers],
        }
    assert isinstance(value, Decimal)
    return _number(value)


def _prices(model_price: object) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, name in KEYS.items():
        value = getattr(model_price, key, None)
        if value is not None:
            out[name] = _price(value)
    return out


def _clause(clause: object) -> dict[str, object]:
    from genai_prices import types as t

    if isinstance(clause, t.ClauseOr):
        return {"or": [_clause(c) for c in clause.or_]}
    if isinstance(clause, t.ClauseAnd):
        return {"and": [_clause(c) for c in clause.and_]}
    for kind in ("equals", "starts_with", "ends_with", "contains", "regex"):
        if hasattr(clause, kind):
            return {kind: getattr(clause, kind)}
    raise TypeError(f"unknown clause {clause!r}")


def _utc_time(value: time) -> str:
    if value.tzinfo is not None:
        value = datetime.combine(date(1970, 1, 1), value).astimezone(UTC).time()
    return value.strftime("%H:%M:%S")


def _model(model: object) -> dict[str, object]:
    from genai_prices import types as t

    assert isinstance(model, t.ModelInfo)
    entry: dict[str, object] = {"id": model.id, "match": _clause(model.match)}
    if model.name:
        entry["name"] = model.name
    periods = []
    if isinstance(model.prices, t.ModelPrice):
        periods.append({"start": None, **_prices(model.prices)})
    else:
        for conditional in model.prices:
            constraint = conditional.constraint
            period: dict[str, object] = {"start": None}
            if isinstance(constraint, t.StartDateConstraint):
                period["start"] = constraint.start_date.isoformat()
            elif isinstance(constraint, t.TimeOfDateConstraint):  # daily windows, UTC
                period["daily"] = [
                    _utc_time(constraint.start_time),
                    _utc_time(constraint.end_time),
                ]
            periods.append({**period, **_prices(conditional.prices)})
    entry["prices"] = periods
    for variant in model.price_variants or ():
        if variant.when == {"speed": "fast"} and variant.constraint is None:
            entry["fast"] = _prices(variant.prices)
    return entry


def build() -> dict[str, object]:
    from genai_prices import data

    providers = []
    for provider in data.providers:
        providers.append(
            {
                "id": provider.id,
                "match": _clause(provider.model_match)
                if provider.model_match
                else None,
                "fallback": list(provider.fallback_model_providers or []),
                "models": [_model(m) for m in provider.models],
            }
        )
    return {
        "catalogue": "genai-prices",
        "version": version("genai-prices"),
        "source": "https://github.com/pydantic/genai-prices (PyPI genai-prices), MIT licence",
        "written_by": "scripts/update-prices.py",
        "written": date.today().isoformat(),
        "units": "USD per million tokens; a tier applies to the whole request once its prompt exceeds `start` tokens",
        "providers": providers,
    }


CHECK_PROVIDERS = (
    "anthropic",
    "openai",
    "google",
    "mistral",
    "deepseek",
    "moonshotai",
    "x-ai",
    "zai",
    "minimax",
)
USAGES = (
    # (input excluding cache, cache read, cache write, output)
    (1000, 0, 0, 500),
    (3000, 150_000, 8000, 2000),
    (10_000, 250_000, 30_000, 4000),
    (400_000, 0, 0, 100),
)


def model_has_tokens(model: object) -> bool:
    prices = getattr(model, "prices", None)
    first = prices[0].prices if isinstance(prices, list) else prices
    return (
        getattr(first, "input_mtok", None) is not None
        and getattr(first, "output_mtok", None) is not None
    )


def check() -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from genai_prices import calc_price
    from genai_prices import data as gp_data
    from genai_prices.types import Usage as GPUsage

    from sessdex import pricing
    from sessdex.model import Usage

    catalogue = pricing.Catalogue.load()
    when = datetime(2026, 11, 20, 12, tzinfo=UTC)
    failures = 0
    checked = 0
    for provider in gp_data.providers:
        if provider.id not in CHECK_PROVIDERS:
            continue
        for model in provider.models:
            ref = model.id
            for fresh, read, write, output in USAGES:
                try:
                    expected = calc_price(
                        GPUsage(
                            input_tokens=fresh + read + write,
                            cache_read_tokens=read,
                            cache_write_tokens=write,
                            output_tokens=output,
                        ),
                        model_ref=ref,
                        provider_id=provider.id,
                        genai_request_timestamp=when,
                    ).total_price
                except (LookupError, ValueError):
                    continue
                got = catalogue.cost(
                    Usage(fresh, output, read, write, 0, ref),
                    when.timestamp(),
                    provider=provider.id,
                )
                checked += 1
                if got is None and not model_has_tokens(model):
                    continue  # embeddings and audio: no input and output token price, unpriced in sessdex
                if got is None or abs(got - float(expected)) > 1e-9 * max(
                    1.0, float(expected)
                ):
                    failures += 1
                    print(
                        f"DIFF {provider.id}/{ref} {(fresh, read, write, output)}: genai-prices {expected} sessdex {got}"
                    )
    print(f"checked {checked} prices, {failures} differences")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare sessdex's prices with the library's",
    )
    args = parser.parse_args()
    if args.check:
        return check()
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(
        json.dumps(build(), separators=(",", ":"), sort_keys=False) + "\n"
    )
    print(f"wrote {TARGET} ({TARGET.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
