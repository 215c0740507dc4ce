"""install.py's pip overrides, on this checkout's own venv (sessdex is installed in it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from . import install


def test_an_override_replaces_the_package_pin_by_name_and_extras_stay_out() -> None:
    venv = Path(sys.executable).parent.parent
    wanted = install._overridden(venv, "sessdex", ["Rich==13.0.0.post1"])
    assert "Rich==13.0.0.post1" in wanted
    assert not any(
        r.startswith("rich>=") for r in wanted
    )  # the package's own pin is gone
    assert "orjson>=3.9" in wanted  # the rest as the package asks
    assert not any(
        "extra" in r for r in wanted
    )  # `pytest; extra == 'dev'` is not installed


# What `npm install @kilocode/cli@7.8.1` said (2026-12): its Linux binaries are not on npm.
_KILO_781 = (
    "npm install @kilocode/cli@7.8.1 failed:\n"
    + "npm error npm error code ETARGET\n"
    + "".join(
        "npm error npm error notarget No matching version found for "
        f"@kilocode/cli-{platform}@7.8.1.\n"
        "npm error npm error notarget In most cases you or one of your dependencies are "
        "requesting a package version that doesn't exist.\n"
        "npm error npm error A complete log of this run can be found in: "
        "/root/.npm/_logs/2026-12-04T18_20_44_251Z-debug-0.log\n"
        for platform in ("linux-x64", "linux-x64-baseline", "linux-x64-musl")
    )
    + "npm error Failed to setup kilo binary: It seems your package manager failed to "
    'install the right Kilo CLI package. Try manually installing "@kilocode/cli-linux-x64" '
    'or "@kilocode/cli-linux-x64-baseline".\n'
    "npm error A complete log of this run can be found in: "
    "/root/.npm/_logs/2026-12-04T18_20_40_239Z-debug-0.log"
)


def test_a_skipped_install_says_what_failed_and_what_the_registry_lacks() -> None:
    reason = install.skip_reason(_KILO_781)
    assert reason.startswith("npm install @kilocode/cli@7.8.1 failed:")
    assert "No matching version found for @kilocode/cli-linux-x64-musl@7.8.1." in reason
    assert "Failed to setup kilo binary" in reason
    assert set(reason.splitlines()) <= set(_KILO_781.splitlines())  # whole lines only
    assert len(reason) <= 600


def test_a_target_pinned_to_its_own_node_installs_and_runs_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """openclaw 2026.9.6's preinstall refuses a Node older than 24.16, so its own pinned
    Node is first on PATH while npm installs it, and in the runs after."""
    seen: list[dict[str, str] | None] = []

    def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        env = kwargs.get("env")
        seen.append(env if isinstance(env, dict) else None)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(install, "_run", run)
    monkeypatch.setattr(install, "cache_dir", lambda: tmp_path)
    node = tmp_path / "node-24.21.0" / "node_modules" / ".bin"
    node.mkdir(parents=True)
    (node / "node").write_text("")
    (tmp_path / "node-24.21.0" / install.MARKER).write_text("{}")
    targets, pinned = install.load_targets()
    target = next(t for t in targets if t.name == "openclaw")
    assert target.node == "24.21.0" and pinned != target.node
    (tmp_path / f"openclaw-{target.version}" / "node_modules" / ".bin").mkdir(
        parents=True
    )
    install.install_npm(target, target.version, pinned)
    assert seen and seen[0] is not None
    assert seen[0]["PATH"].split(os.pathsep)[0] == str(node)
