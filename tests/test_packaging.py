"""sessdex as a user gets it: the wheel built from this checkout, installed with its
dependencies into a fresh virtualenv outside the checkout (the editable install every other
test runs from reads src/ itself, and would hide a data file the wheel left out, a dependency
never declared or an import of tests/)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import sessdex

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "sessdex"


def _user_home() -> str:
    """The real user's home (the fixtures give sessdex an empty one): pip's config and cache."""
    try:
        import pwd
    except ImportError:  # Windows: pip keeps them under %APPDATA% and %LOCALAPPDATA%
        return os.environ.get("HOME", "")
    return pwd.getpwuid(os.getuid()).pw_dir


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (
        f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


@pytest.mark.slow
def test_the_wheel_installed_outside_the_checkout_runs_the_demo(tmp_path: Path) -> None:
    # no PYTHONPATH: what runs is what the wheel installed; sessdex keeps the empty home and
    # state folder the fixtures gave it, and pip the real home's config and cache
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    pip_env = {**env, "HOME": _user_home()}
    quiet = ["-q", "--disable-pip-version-check"]
    build = ["wheel", *quiet, "--no-deps", "-w", "dist", str(ROOT)]
    _run([sys.executable, "-m", "pip", *build], tmp_path, pip_env)
    [wheel] = (tmp_path / "dist").glob("sessdex-*.whl")

    # every file of the package, data included (price catalogue, demo home, py.typed)
    packed = set(zipfile.ZipFile(wheel).namelist())
    mine = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert mine - packed == set()

    _run([sys.executable, "-m", "venv", "venv"], tmp_path, env)
    bin_dir = tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin")
    python = str(bin_dir / "python")
    _run([python, "-m", "pip", "install", *quiet, str(wheel)], tmp_path, pip_env)
    code = "import sessdex; print(sessdex.__file__)"
    where = Path(_run([python, "-c", code], tmp_path, env).strip())
    assert where.is_relative_to(tmp_path / "venv")  # not this checkout's src/

    sessdex_command = str(bin_dir / "sessdex")
    version = _run([sessdex_command, "--version"], tmp_path, env)
    assert version == f"sessdex, version {sessdex.__version__}\n"
    demo = _run([sessdex_command, "demo"], tmp_path, env)
    assert "Retry checkout payments with backoff" in demo
    assert "codex resume 019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f" in demo
    # `python -m sessdex` too, and the shipped price catalogue prices the demo's tokens
    home = str(where.parent / "demo" / "home")
    usage = _run([python, "-m", "sessdex", "usage", "--home", home], tmp_path, env)
    [total] = [line for line in usage.splitlines() if "Total" in line]
    assert "$" in total and "prices: genai-prices" in usage
