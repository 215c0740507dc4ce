"""A warm `usage project` looks at each file of an app the index reads for usage no more
than a warm daily `usage` does: the folder step takes the folders that run's refresh just
brought up to date, and stats none of those files again."""

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
        result = usage.run(home, kind, apps=APPS)
    assert result  # a report was made
    return seen


def test_a_warm_project_report_stats_no_file_again(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage.run(home, "project", apps=APPS)  # cold: the index and the sums are made
    daily = _stats(monkeypatch, home, "daily")
    project = _stats(monkeypatch, home, "project")
    assert daily  # the fixtures' files were looked at
    again = {path: n for path, n in project.items() if n > daily[path]}
    assert again == {}
