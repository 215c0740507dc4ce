"""A warm `usage project` (or `usage session`) looks at each file of an app the index
reads for usage no more than a warm daily `usage` does: the folder (title) step takes the
sessions that run's refresh just brought up to date, and stats none of those files again."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from sessdex import usage
from sessdex.sources.base import Home

# apps whose usage comes through the index (a refresh), and whose sessions have folders
APPS = ("gemini", "opencode", "vibe", "pi", "kimi")


def _stats(monkeypatch: pytest.MonkeyPatch, home: Home, kind: str) -> Counter[str]:
    """The stats of each path under the home by one `usage <kind>` of APPS."""
    seen: Counter[str] = Counter()
    real: Callable[..., os.stat_result] = os.stat
    below = str(home.path) + os.sep

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        name = os.fspath(path) if not isinstance(path, int) else ""
        if isinstance(name, str) and name.startswith(below):
            seen[name] += 1
        return real(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "stat", counted)
        rows = usage.run(home, kind, apps=APPS).rows
    assert rows  # a report was made
    return seen


@pytest.mark.parametrize("kind", ["project", "session"])
def test_a_warm_report_of_folders_stats_no_file_again(
    home: Home, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    assert usage.run(home, kind, apps=APPS).rows  # cold: the index and sums are made
    daily = _stats(monkeypatch, home, "daily")
    made = _stats(monkeypatch, home, kind)
    assert daily  # the fixtures' files were looked at
    again = {path: n for path, n in made.items() if n > daily[path]}
    assert again == {}
