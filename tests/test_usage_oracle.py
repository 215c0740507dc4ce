"""The oracle: the real ccusage, pinned, over the same homes: per-day, per-model token totals agree.

`scripts/install-tools` installs ccusage into a cache dir (scripts/test runs it). Without it
the test skips with the reason, unless SESSDEX_REQUIRE_TOOLS=1 (CI), where it fails. Every
difference is deliberate and listed in EXPECTED with its reason (docs/usage.md explains them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from sessdex import usage
from sessdex.sources import Home

CCUSAGE_VERSION = "20.0.24"
# resolved at import, before the test fixtures point HOME at an empty folder
TOOLS = Path(
    os.environ.get("SESSDEX_TOOLS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "sessdex-tools"
)
DATA = Path(__file__).parent / "data"
HOMES = {
    "claude-fixtures": DATA
    / "claude"
    / "home",  # real 1.0.98 and 2.1.197 files, synthetic ones
    "public": DATA
    / "usage"
    / "public",  # real 1.0.98/1.0.108 files with inline side chains
    "realcli": DATA
    / "usage"
    / "realcli",  # real Codex 0.171.0 rollouts, a sub-agent among them
    "mixed": DATA / "usage" / "mixed",  # synthetic: every de-duplication rule at once
}
Key = tuple[str, str, str]  # app, day (UTC), model
Tokens = tuple[
    int, int, int, int
]  # input (without cache), output, cache write, cache read
EXPECTED: dict[str, dict[Key, tuple[Tokens | None, Tokens | None]]] = {
    # msg_A1's copies straddle midnight: ccusage dates a response by the copy it keeps (the
    # first largest, 23:59:59.5), sessdex by its last line (00:00:01), as the issue asks.
    "mixed": {
        ("claude", "2026-11-20", "claude-opus-4-5"): ((10, 80, 100, 1000), None),
        ("claude", "2026-11-21", "claude-opus-4-5"): (None, (10, 80, 100, 1000)),
    },
    # the sub-agent 01a22b81-66cf made its two requests within one second: ccusage's guess
    # (the first two counts in one second are a replayed parent) drops them; sessdex follows
    # its `subagent_history_start_ordinal`, which says they are its own.
    "realcli": {
        ("codex", "2026-11-30", "gpt-5.5"): ((10800, 270, 0, 0), (13200, 330, 0, 0)),
    },
}


def ccusage() -> Path | None:
    for binary in sorted(
        TOOLS.glob(
            f"ccusage-{CCUSAGE_VERSION}/node_modules/@ccusage/ccusage-*/bin/ccusage"
        )
    ):
        if os.access(binary, os.X_OK):
            return binary
    return None


@pytest.fixture(scope="module")
def binary() -> Path:
    found = ccusage()
    if found is None:
        reason = f"ccusage {CCUSAGE_VERSION} is not installed in {TOOLS} (scripts/install-tools installs it)"
        if os.environ.get("SESSDEX_REQUIRE_TOOLS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def by_ccusage(binary: Path, home: Path, scratch: Path) -> dict[Key, Tokens]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(scratch),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "NO_COLOR": "1",
    }
    found: dict[Key, Tokens] = {}
    for app in ("claude", "codex"):
        if not (home / f".{app}").is_dir():
            continue
        argv = [str(binary), app, "daily", "--json", "--offline", "--timezone", "UTC"]
        if app == "claude":
            argv.append("--breakdown")
        out = subprocess.run(
            argv, env=env, capture_output=True, check=True, timeout=120
        ).stdout
        for day in orjson.loads(out)["daily"]:
            when = day.get("date") or day.get("period")
            if app == "claude":
                models = {m["modelName"]: m for m in day["modelBreakdowns"]}
            else:
                models = day["models"]
            for name, m in models.items():
                found[(app, when, name)] = (
                    m["inputTokens"], m["outputTokens"], m.get("cacheCreationTokens", 0), m.get("cacheReadTokens", 0),
                )  # fmt: skip
    return found


def by_sessdex(home: Path) -> dict[Key, Tokens]:
    apps = tuple(app for app in ("claude", "codex") if (home / f".{app}").is_dir())
    collected = usage.collect(Home.at(home), apps)
    sums: dict[Key, list[int]] = {}
    for app, bucket in collected.buckets:
        day = usage._local_days([bucket[4]], usage.UTC)[bucket[4]]
        key = (app, str(day), bucket[2])
        total = sums.setdefault(key, [0, 0, 0, 0])
        total[0] += bucket[5]
        total[1] += bucket[6]
        total[2] += bucket[8]
        total[3] += bucket[7]
    return {k: (v[0], v[1], v[2], v[3]) for k, v in sums.items() if any(v)}


@pytest.mark.parametrize("name", sorted(HOMES))
def test_ccusage_and_sessdex_agree_per_day_and_model(
    name: str, binary: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOMES[name], home)
    theirs = by_ccusage(binary, home, tmp_path / "scratch")
    ours = by_sessdex(home)
    assert theirs, "ccusage found no usage: the comparison would prove nothing"
    differences = {
        key: (theirs.get(key), ours.get(key))
        for key in sorted(set(theirs) | set(ours))
        if theirs.get(key) != ours.get(key)
    }
    assert differences == EXPECTED.get(name, {})
