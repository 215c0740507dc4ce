"""What a model response cost: the pinned price catalogue shipped in `data/prices.json`.

The catalogue is a slim copy of pydantic's `genai-prices` data (version in the file; refresh
it with `scripts/update-prices.py`): per provider and model, token prices in USD per million,
long-context tiers, cache read and write prices, dated price changes and the `fast` variant.
A model it cannot match has no price: `cost()` returns None, never 0. No network, ever.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import TypeAlias

import orjson

from .model import Usage

Price: TypeAlias = (
    float | tuple[float, tuple[tuple[int, float], ...]]
)  # flat, or (base, tiers)
_COMPACT_DATE = re.compile(r"-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)")
# "claude-4.5-sonnet" (the version first, as some apps write it) is Anthropic's
# "claude-sonnet-4-5"; a "-thinking" variant is billed as its model
_VERSION_FIRST = re.compile(
    r"^claude-(\d+(?:[.-]\d+)?)-(opus|sonnet|haiku)(?:-thinking)?$"
)
# Cloud ids: Bedrock's "us.anthropic.claude-x-20250929-v1:0", Vertex's "claude-x@20250929"
_CLOUD_ID = re.compile(
    r"^(?:(?:us|eu|apac|global|jp|au|us-gov)\.)?"
    r"(?:anthropic|meta|amazon|mistral|cohere|deepseek|openai|moonshotai)\.(.+?)"
    r"(?:-v\d+(?::\d+)?)?$"
)
# a thinking level an app appends to the model it bills ("gemini-3-pro-high")
_LEVEL = re.compile(r"-(?:minimal|low|medium|high|xhigh)$")  # ("-max" names models)
# the model makers' own price lists, for a bare name no provider's rule claims
# ("glm-4.6" is Z.ai's): searched in this order, never a reseller's
_MAKERS = ("anthropic", "openai", "google", "mistral", "deepseek", "x-ai",
           "moonshotai", "zai", "zhipuai", "minimax", "meta", "cohere")  # fmt: skip
_OPENROUTER = "openrouter"  # whose model ids are "<maker>/<model>"
_FREE = ":free"  # OpenRouter's suffix for a model's free variant


def _unwrapped(ref: str) -> tuple[str, list[str]]:
    """The model a name stands for without a provider's path, a display name's spaces
    and brackets ("Gemini 3 Pro (High)" -> its slug) or a cloud's wrapper (Bedrock's
    "us.anthropic.…-v1:0", Vertex's "…@20250929"), and the forms met on the way."""
    name = ref.rsplit("/", 1)[-1]
    forms = []
    if re.search(r"[\s()]", name):
        name = re.sub(r"[^a-z0-9.]+", "-", name).strip("-")
        forms.append(name)
    if cloud := _CLOUD_ID.match(name.replace("@", "-")):
        name = cloud[1]
        forms.append(name)
    return name, forms


def _other_forms(ref: str) -> list[str]:
    """Spellings of a model name the catalogue may know it by, tried after the name
    itself: `_unwrapped`'s forms, the model without a thinking level, a Gemini model's
    preview."""
    name, forms = _unwrapped(ref)
    if (bare := _LEVEL.sub("", name)) != name:
        name = bare
        forms.append(name)
    if name.startswith("gemini-") and not name.endswith("-preview"):
        forms.append(name + "-preview")
    return [_COMPACT_DATE.sub(lambda m: f"-{m[1]}-{m[2]}-{m[3]}", f) for f in forms]


_VERSION_DOT = re.compile(r"(?<=\d)\.(?=\d)")


@lru_cache(maxsize=4096)
def plain_name(model: str) -> str:
    """One spelling for the names apps give one model, so a report keeps one row for it:
    lower case and `_unwrapped`; a Claude version's dots as Anthropic's ids write them
    (Copilot's and OpenRouter's `claude-sonnet-4.5` is `claude-sonnet-4-5`). The date and
    the thinking level stay: they say what ran."""
    name, _ = _unwrapped(model.strip().lower())
    if name.startswith("claude-"):
        name = _VERSION_DOT.sub("-", name)
    return name.replace("@", "-") or model


def _match(clause: object, text: str) -> bool:
    """genai-prices' model match clauses, on a lower-cased model name."""
    if not isinstance(clause, Mapping):
        return False
    if "or" in clause:
        return any(_match(c, text) for c in clause["or"])
    if "and" in clause:
        return all(_match(c, text) for c in clause["and"])
    if "equals" in clause:
        return text == str(clause["equals"]).lower()
    if "starts_with" in clause:
        return text.startswith(str(clause["starts_with"]).lower())
    if "ends_with" in clause:
        return text.endswith(str(clause["ends_with"]).lower())
    if "contains" in clause:
        return str(clause["contains"]).lower() in text
    if "regex" in clause:
        return re.search(str(clause["regex"]), text) is not None
    return False


def _price(value: object) -> Price | None:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Mapping):
        tiers = tuple(
            (int(start), float(price)) for start, price in value.get("tiers", ())
        )
        return (float(value["base"]), tiers)
    return None


def _rate(price: Price, prompt: int) -> float:
    """Dollars per million tokens for a request whose prompt has `prompt` tokens."""
    if isinstance(price, float):
        return price
    base, tiers = price
    for start, rate in reversed(tiers):
        if prompt > start:
            return rate
    return base


@dataclass(frozen=True, slots=True)
class Prices:
    """One model's token prices for one period (None: the app's tokens of that kind bill as input)."""

    input: Price
    output: Price
    cache_read: Price | None = None
    cache_write: Price | None = None
    cache_write_1h: Price | None = None

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> Prices | None:
        input_price = _price(value.get("input"))
        output = _price(value.get("output"))
        if input_price is None or output is None:
            return None
        return cls(
            input_price,
            output,
            _price(value.get("cache_read")),
            _price(value.get("cache_write")),
            _price(value.get("cache_write_1h")),
        )

    def with_overrides(self, value: Mapping[str, object]) -> Prices:
        return Prices(
            _price(value.get("input")) or self.input,
            _price(value.get("output")) or self.output,
            _price(value.get("cache_read")) or self.cache_read,
            _price(value.get("cache_write")) or self.cache_write,
            _price(value.get("cache_write_1h")) or self.cache_write_1h,
        )

    def cost(
        self, usage: Usage, cache_write_1h: int = 0, summed: bool = False
    ) -> float:
        """USD for one response. The tier is chosen by the whole prompt (input + cache);
        `summed` counts add up several responses, whose prompts are not known: the base
        rates, as no single request is known to have passed a tier."""
        prompt = (
            0
            if summed
            else usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        )
        input_rate = _rate(self.input, prompt)
        read_rate = (
            input_rate if self.cache_read is None else _rate(self.cache_read, prompt)
        )
        write_rate = (
            input_rate if self.cache_write is None else _rate(self.cache_write, prompt)
        )
        long_writes = (
            min(cache_write_1h, usage.cache_write_tokens)
            if self.cache_write_1h is not None
            else 0
        )
        total = (
            usage.input_tokens * input_rate
            + usage.output_tokens * _rate(self.output, prompt)
            + usage.cache_read_tokens * read_rate
            + (usage.cache_write_tokens - long_writes) * write_rate
        )
        if long_writes and self.cache_write_1h is not None:
            total += long_writes * _rate(self.cache_write_1h, prompt)
        return total / 1_000_000


@cache
def _day(days: int) -> str:
    """The UTC date `days` days after the epoch, as "YYYY-MM-DD"."""
    return datetime.fromtimestamp(days * 86400, UTC).date().isoformat()


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _within(clock: str | None, window: tuple[str, str]) -> bool:
    if clock is None:
        return False
    start, end = window
    if end < start:  # the window crosses midnight
        return clock >= start or clock < end
    return start <= clock < end


@dataclass(slots=True)
class Model:
    id: str
    name: str
    match: object
    # (first day "YYYY-MM-DD" or None, daily UTC window ("HH:MM:SS", "HH:MM:SS") or None, prices);
    # the last period that applies wins, as in genai-prices
    periods: list[tuple[str | None, tuple[str, str] | None, Prices]]
    fast: Mapping[str, object] | None = None

    def prices(self, when: float | None, speed: str | None = None) -> Prices | None:
        chosen = self.periods[0][2] if self.periods else None
        if len(self.periods) > 1 or (self.periods and self.periods[0][1] is not None):
            day = _day(int(when // 86400)) if when is not None else "9999-12-31"
            clock = _clock(int(when % 86400)) if when is not None else None
            for start, daily, prices in reversed(self.periods):
                if start is not None and day < start:
                    continue
                if daily is not None and not _within(clock, daily):
                    continue
                chosen = prices
                break
        if chosen is not None and speed == "fast" and self.fast:
            chosen = chosen.with_overrides(self.fast)
        return chosen


@dataclass(slots=True)
class Provider:
    id: str
    match: object
    fallback: tuple[str, ...]
    models: list[Model]

    def find(self, ref: str) -> Model | None:
        for model in self.models:
            if _match(model.match, ref):
                return model
        return None

    def find_unprefixed(self, name: str) -> Model | None:
        """The one model this list keeps as "<maker>/<name>" (a reseller's ids), if one."""
        tail = "/" + name
        found = [m for m in self.models if m.id.lower().endswith(tail)]
        return found[0] if len(found) == 1 else None


@dataclass(slots=True)
class Catalogue:
    """The shipped price catalogue; `lookup` and `cost` cache per model name."""

    version: str
    source: str
    # providers as shipped, built into `Provider`s on first use; None: not read yet (a
    # warm `usage` prices nothing new, and names only the version)
    raw: list[Mapping[str, object]] | None
    _providers: list[Provider] | None = None
    _found: dict[tuple[str, str | None], Model | None] = field(default_factory=dict)

    @property
    def providers(self) -> list[Provider]:
        if self._providers is None:
            self._providers = [_provider(raw) for raw in self.read()]
        return self._providers

    def read(self) -> list[Mapping[str, object]]:
        """The providers as shipped, the whole file read the first time."""
        if self.raw is None:
            self.raw = list(_whole()["providers"])  # type: ignore[call-overload]
        return self.raw

    @classmethod
    def load(cls) -> Catalogue:
        return _load()

    @property
    def label(self) -> str:
        return f"genai-prices {self.version}"

    def lookup(self, model: str | None, provider: str | None = None) -> Model | None:
        """The catalogue's entry for an app's model name ("anthropic/claude-x" works too)."""
        if not model:
            return None
        key = (model, provider)
        if key in self._found:
            return self._found[key]
        found = self._search(model.strip().lower(), provider)
        self._found[key] = found
        return found

    def _search(self, ref: str, provider_id: str | None) -> Model | None:
        if ref.endswith(_FREE) and "/" in ref:
            # OpenRouter's free variant of a model ("qwen/qwen3-coder:free", as OpenCode,
            # Cline, Kilo and pi pass it on): no token billed; the price list keeps token
            # prices only, so it has no entry to say so
            return Model(ref, ref, None, [(None, None, Prices(0.0, 0.0))])
        candidates = [ref]
        if "/" in ref:  # "openrouter/anthropic/claude-x", "anthropic/claude-x"
            prefix, _, rest = ref.partition("/")
            provider_id = provider_id or prefix
            candidates = [ref, rest, ref.rsplit("/", 1)[1]]
        normalized = _COMPACT_DATE.sub(lambda m: f"-{m[1]}-{m[2]}-{m[3]}", ref)
        if normalized != ref:
            candidates.append(normalized)
        if reordered := _VERSION_FIRST.match(ref.rsplit("/", 1)[-1]):
            version, family = reordered[1].replace(".", "-"), reordered[2]
            candidates.append(f"claude-{family}-{version}")
        by_id = {p.id: p for p in self.providers}
        named = by_id.get(provider_id.lower()) if provider_id else None
        candidates = list(dict.fromkeys([*candidates, *_other_forms(ref)]))
        for candidate in candidates:
            providers = [p for p in self.providers if _match(p.match, candidate)]
            if named is not None:  # the provider the name gives first, then any
                providers = [named, *(p for p in providers if p is not named)]
            for provider in providers:
                found = provider.find(candidate)
                for fallback in provider.fallback:
                    if found is None and fallback in by_id:
                        found = by_id[fallback].find(candidate)
                if found is not None:
                    return found
        for candidate in candidates:
            for maker in _MAKERS:
                if maker in by_id and (found := by_id[maker].find(candidate)):
                    return found
        if "/" in ref and _OPENROUTER in by_id:
            # "qwen/qwen3-coder-plus" is OpenRouter's id for a model (OpenCode, Cline,
            # Kilo and pi write it so, the provider apart): where no maker's list has
            # the model, OpenRouter's has it under that very id
            openrouter = by_id[_OPENROUTER]
            for slug in dict.fromkeys((ref, ref.partition("/")[2])):
                if "/" in slug and (found := openrouter.find(slug)):
                    return found
        if named is not None:
            # a bare name that only the provider the app sent it to lists, under its
            # "<maker>/<model>" id (OpenRouter's "qwen/qwen3-coder-plus" for OpenCode's
            # provider "openrouter", model "qwen3-coder-plus"); after the makers' lists,
            # so a provider's name never reprices a model a maker lists
            for candidate in candidates:
                if "/" not in candidate and (found := named.find_unprefixed(candidate)):
                    return found
        return None

    def cost(
        self,
        usage: Usage,
        when: float | None,
        *,
        speed: str | None = None,
        cache_write_1h: int = 0,
        provider: str | None = None,
        summed: bool = False,
    ) -> float | None:
        """USD for one response at time `when` (epoch seconds), or None if its model has no
        price; `summed`: the counts add up several responses (`Prices.cost`)."""
        model = self.lookup(usage.model, provider)
        if model is None:
            return None
        prices = model.prices(when, speed)
        if prices is None:
            return None
        return prices.cost(usage, cache_write_1h, summed)


# beside this module, as the wheel ships it (importlib.resources cost a warm `usage` more
# than its count)
_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "prices.json")
# the file's start as scripts/update-prices.py writes it: what a warm `usage` names
_HEAD = re.compile(rb'\{"catalogue":"genai-prices","version":"([^"\\]*)","source":"([^"\\]*)"')  # fmt: skip


@cache
def _load() -> Catalogue:
    with open(_FILE, "rb") as file:
        head = _HEAD.match(file.read(4096))
    if head is not None:
        return Catalogue(head[1].decode(), head[2].decode(), None)
    data = _whole()  # another writer's order
    return Catalogue(str(data["version"]), str(data["source"]), None)


def _whole() -> dict[str, object]:
    with open(_FILE, "rb") as file:
        data: dict[str, object] = orjson.loads(file.read())
    return data


def _provider(raw: Mapping[str, object]) -> Provider:
    models = []
    for entry in raw.get("models", ()):  # type: ignore[attr-defined]
        periods = []
        for period in entry.get("prices", ()):
            prices = Prices.from_json(period)
            daily = period.get("daily")
            if prices is not None:
                window = (str(daily[0]), str(daily[1])) if daily else None
                periods.append((period.get("start"), window, prices))
        if periods:
            models.append(
                Model(
                    entry["id"],
                    entry.get("name") or entry["id"],
                    entry["match"],
                    periods,
                    entry.get("fast"),
                )
            )
    fallback = raw.get("fallback") or ()
    return Provider(str(raw["id"]), raw.get("match"), tuple(fallback), models)  # type: ignore[arg-type]
