"""The registry of sources: one module per agent app, all behind `base.Source`."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .base import Home, Location, Source

__all__ = ["Home", "Location", "Source", "all_sources", "get", "names"]

# Built-in apps, in the order `doctor` shows them. A third-party adapter would take the
# same path through an entry point.
BUILTIN: tuple[str, ...] = (
    "claude",
    "codex",
    "vibe",
    "gemini",
    "aider",
    "cline",
    "roo",
    "kilo",
    "droid",
    "amp",
    "antigravity",
    "copilot",
    "pi",
    "kimi",
    "cursor",
    "opencode",
    "crush",
    "goose",
    "qwen",
)


def __getattr__(name: str) -> object:
    # `Home`, `Location` and `Source` load on first use: the quick listing path reads
    # BUILTIN without paying for the model and dataclasses behind them.
    if name in ("Home", "Location", "Source"):
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> tuple[str, ...]:
    return BUILTIN


def get(name: str) -> Source:
    if name not in BUILTIN:
        from ..errors import UnknownApp

        raise UnknownApp(name, BUILTIN)
    module: Source = importlib.import_module(f"{__name__}.{name}")
    return module


def all_sources(selected: Sequence[str] = ()) -> list[Source]:
    """The sources to use: all of them, or those named (each checked)."""
    return [get(name) for name in (selected or BUILTIN)]
