"""sessdex as a user gets it: the wheel built from this checkout, installed into a fresh
virtualenv outside the checkout (the editable install every other test runs from reads src/
itself, and would hide a data file the wheel left out, a dependency never declared or an
import of tests/), with the newest dependencies and with the oldest pyproject.toml allows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import sessdex

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "sessdex"
QUIET = ["-q", "--disable-pip-version-check"]


def _user_home() -> str:
    """The real user's home (the fixtures give sessdex an empty one): pip's config and cache."""
    try:
        import pwd
    except ImportError:  # Windows: pip keeps them under %APPDATA% and %LOCALAPPDATA%
        return os.environ.get("HOME", "")
    return pwd.getpwuid(os.getuid()).pw_dir


def _env(**changes: str) -> dict[str, str]:
    """No PYTHONPATH: what runs is what the wheel installed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return {**env, **changes}


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (
        f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    build = ["wheel", *QUIET, "--no-deps", "-w", str(out), str(ROOT)]
    _run([sys.executable, "-m", "pip", *build], out, _env(HOME=_user_home()))
    [built] = out.glob("sessdex-*.whl")
    return built


def _venv(folder: Path) -> Path:
    """A fresh virtualenv's bin folder."""
    _run([sys.executable, "-m", "venv", "venv"], folder, _env())
    return folder / "venv" / ("Scripts" if os.name == "nt" else "bin")


def _pip(bin_dir: Path, *args: str) -> None:
    argv = [str(bin_dir / "python"), "-m", "pip", "install", *QUIET, *args]
    _run(argv, bin_dir, _env(HOME=_user_home()))


def _floors() -> list[str]:
    """Each dependency pinned to the oldest version pyproject.toml allows."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = []
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement)
        assert match, f"{requirement}: not name>=version"
        pins.append(f"{match[1]}=={match[2]}")
    return pins


@pytest.mark.slow
def test_the_wheel_installed_outside_the_checkout_runs_the_demo(
    wheel: Path, tmp_path: Path
) -> None:
    # every file of the package, data included (price catalogue, demo home, py.typed)
    packed = set(zipfile.ZipFile(wheel).namelist())
    mine = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert mine - packed == set()

    bin_dir = _venv(tmp_path)
    _pip(bin_dir, str(wheel))  # with the newest dependencies, from PyPI
    python = str(bin_dir / "python")
    # sessdex keeps the empty home and state folder the fixtures gave it
    env = _env()
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


@pytest.mark.slow
@pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="the floors are checked on Python 3.11, the oldest supported: orjson 3.9 has "
    "no wheel for 3.12, nor watchfiles 0.21 and zstandard 0.22 for 3.13 (pip would "
    "build them from source)",
)
def test_the_oldest_dependencies_allowed_run_the_demo_and_resume_a_big_file(
    wheel: Path, tmp_path: Path
) -> None:
    """msgspec before 0.18.6 decodes no memoryview, and before 0.20 gives one the length
    of the whole message: a big Claude transcript that only grew was surveyed again from
    its first line on every run, the survey kept for it refused."""
    bin_dir = _venv(tmp_path)
    _pip(bin_dir, "--no-deps", str(wheel))
    _pip(bin_dir, *_floors(), "pytest")
    demo = _run([str(bin_dir / "sessdex"), "demo"], tmp_path, _env())
    assert "Retry checkout payments with backoff" in demo
    # the survey cache's own tests, on the wheel (the checkout's root holds no sessdex)
    tests = [
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/sources/test_claude_survey_cache.py",
    ]
    _run([str(bin_dir / "python"), "-m", "pytest", *tests], ROOT, _env())
