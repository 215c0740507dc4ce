"""A warm `usage` loads only the sources of apps that may have something to count, and
still counts an app whose first session began since the last run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import sources
from sessdex.cli import main
from tests.conftest import app_home


def test_usage_hooked_names_the_sources_that_count_their_own_files() -> None:
    hooked = {n for n in sources.BUILTIN if hasattr(sources.get(n), "usage_records")}
    assert hooked == sources.USAGE_HOOKED


@pytest.mark.parametrize("app", ["gemini", "opencode"])
def test_a_warm_usage_counts_an_app_begun_since(
    tmp_path: Path, run: CliRunner, monkeypatch: pytest.MonkeyPatch, app: str
) -> None:
    home = shutil.copytree(app_home("claude"), tmp_path / "home")
    args = ["usage", "app", "--json", "--home", str(home)]
    before = json.loads(run.invoke(main, args, catch_exceptions=False).output)
    assert [row["app"] for row in before] == ["claude"]
    shutil.copytree(app_home(app), home, dirs_exist_ok=True, symlinks=True)
    warm = run.invoke(main, args, catch_exceptions=False).output
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "fresh-state"))
    cold = run.invoke(main, args, catch_exceptions=False).output
    assert app in [row["app"] for row in json.loads(warm)]
    assert warm == cold
