"""Install the real agent CLIs, unmodified, into a cache dir: npm `--prefix` trees and pip venvs.

Versions come from conformance/versions.toml, or from the registries with `latest=True`.
Each install lands in `<cache>/<target>-<version>/` and is reused while its marker file says
it finished. Nothing here runs a CLI beyond `--version`; see driver.py for that.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "conformance" / "versions.toml"
MARKER = ".sessdex-installed.json"


def cache_dir() -> Path:
    value = os.environ.get("SESSDEX_CONFORMANCE_CACHE")
    return (
        Path(value).expanduser()
        if value
        else Path.home() / ".cache" / "sessdex-conformance"
    )


@dataclass
class Target:
    """One CLI to install and drive, as versions.toml names it."""

    name: str
    app: str
    installer: str
    package: str
    version: str
    bin: str
    latest: str | None = None  # a version constraint that --latest stays within
    python: str | None = None
    # the Node this npm CLI runs on where its `engines.node` wants more than [node]'s
    node: str | None = None
    # {version: requirements}: pins of that release's own dependencies that replace the ones
    # it ships with, for a release that pins something the index no longer has
    overrides: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Installed:
    """Where an install ended up, or why it did not."""

    target: str
    version: str | None = None
    bin_dir: str | None = None  # put first on PATH
    executable: str | None = None
    extra_path: list[str] = field(default_factory=list)  # e.g. a newer node
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.executable is not None


def load_targets(path: Path = VERSIONS) -> tuple[list[Target], str]:
    data = tomllib.loads(path.read_text())
    targets = [Target(name=name, **spec) for name, spec in data["targets"].items()]
    return targets, str(data["node"]["version"])


def unknown_names(targets: list[Target], names: list[str]) -> list[str]:
    return [n for n in names if not any(n in (t.name, t.app) for t in targets)]


def select(targets: list[Target], names: list[str]) -> list[Target]:
    """Targets by target name or by app name ("vibe" is both vibe targets); all when empty."""
    if not names:
        return targets
    return [t for t in targets if t.name in names or t.app in names]


def _run(
    argv: list[str], *, timeout: int = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def _tail(text: str, lines: int = 12) -> str:
    """The installer's own error lines when it marks them (pip, npm), else its last lines."""
    every = text.strip().splitlines()
    marked = [
        line for line in every if line.startswith(("ERROR:", "npm error", "npm ERR!"))
    ]
    return "\n".join((marked or every)[-lines:])


# npm's lines that follow every error and say nothing about this one
_BOILERPLATE = ("A complete log of this run", "In most cases you or one of your")


def skip_reason(error: str | None, limit: int = 600) -> str:
    """An install error as the skip line shows it: its first line (what failed, at which
    version), then as many of its last whole lines as fit, npm's boilerplate left out."""
    first, *rest = ((error or "").strip() or "?").splitlines()
    kept: list[str] = []
    room = limit - len(first)
    for line in reversed([r for r in rest if not any(b in r for b in _BOILERPLATE)]):
        if len(line) + 1 > room:
            break
        kept.insert(0, line)
        room -= len(line) + 1
    return "\n".join([first[:limit], *kept])


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(
        int(p) for p in re.findall(r"\d+", text.split("-")[0].split("+")[0])[:4]
    )


def _satisfies(version: str, constraint: str | None) -> bool:
    if not constraint:
        return True
    for clause in constraint.split(","):
        match = re.fullmatch(r"\s*(<=|>=|<|>|==)\s*([\d.]+)\s*", clause)
        if not match:
            raise SystemExit(
                f"unsupported version constraint {constraint!r} in {VERSIONS}"
            )
        op, bound = match.groups()
        a, b = _version_key(version), _version_key(bound)
        width = max(len(a), len(b))
        a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
        if not {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b}[op]:
            return False
    return True


# --- npm ----------------------------------------------------------------------------------


def npm_latest(package: str, constraint: str | None) -> str:
    if not constraint:
        result = _run(["npm", "view", package, "version"], timeout=120)
        if result.returncode != 0 or not result.stdout.strip():
            raise RuntimeError(f"npm view {package} failed: {_tail(result.stderr)}")
        return result.stdout.strip().splitlines()[-1].strip().strip("'")
    result = _run(["npm", "view", package, "versions", "--json"], timeout=120)
    versions = json.loads(result.stdout or "[]")
    fitting = [
        v for v in versions if re.fullmatch(r"[\d.]+", v) and _satisfies(v, constraint)
    ]
    if not fitting:
        raise RuntimeError(f"npm has no {package} version within {constraint}")
    return max(fitting, key=_version_key)


def npm_install(prefix: Path, spec: str, node_dir: Path | None = None) -> None:
    """`npm install --prefix`; with `node_dir`, that folder's Node first on PATH (a package
    whose install scripts refuse an older Node, as openclaw's preinstall does)."""
    prefix.mkdir(parents=True, exist_ok=True)
    env = None
    if node_dir is not None:
        env = dict(
            os.environ, PATH=f"{node_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        )
    result = _run(
        [
            "npm",
            "install",
            "--prefix",
            str(prefix),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--fetch-retries=2",
            spec,
        ],
        env=env,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"npm install {spec} failed:\n{_tail(result.stdout + result.stderr)}"
        )


def node_major(node: str) -> int | None:
    try:
        result = _run([node, "--version"], timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"v(\d+)", result.stdout.strip())
    return int(match.group(1)) if match else None


def pinned_node(version: str) -> Path:
    """The `node` npm package (a Node binary from the npm registry), installed once."""
    prefix = cache_dir() / f"node-{version}"
    binary = prefix / "node_modules" / ".bin" / "node"
    if not (prefix / MARKER).is_file() or not binary.exists():
        npm_install(prefix, f"node@{version}")
        (prefix / MARKER).write_text(
            json.dumps({"package": "node", "version": version})
        )
    return binary.parent


def _needed_node_major(package_dir: Path) -> int:
    try:
        engines = (
            json.loads((package_dir / "package.json").read_text()).get("engines") or {}
        )
    except (OSError, ValueError):
        return 0
    match = re.search(r"(\d+)", str(engines.get("node", "")))
    return int(match.group(1)) if match else 0


def install_npm(target: Target, version: str, node_version: str) -> Installed:
    prefix = cache_dir() / f"{target.name}-{version}"
    bin_dir = prefix / "node_modules" / ".bin"
    if not (prefix / MARKER).is_file() or not (bin_dir / target.bin).exists():
        if prefix.exists():
            shutil.rmtree(prefix)
        # a target pinned to its own Node installs with it too
        node_dir = pinned_node(target.node) if target.node else None
        npm_install(prefix, f"{target.package}@{version}", node_dir)
        (prefix / MARKER).write_text(
            json.dumps({"package": target.package, "version": version})
        )
    installed = Installed(target.name, version, str(bin_dir), str(bin_dir / target.bin))
    needed = _needed_node_major(
        prefix / "node_modules" / Path(*target.package.split("/"))
    )
    system = node_major(shutil.which("node") or "node") or 0
    if needed > system:
        installed.extra_path.append(str(pinned_node(target.node or node_version)))
    return installed


# --- pip ----------------------------------------------------------------------------------


def find_python(minimum: str) -> str | None:
    """An interpreter at least `minimum` (e.g. "3.12"): SESSDEX_CONFORMANCE_PYTHON, PATH, pyenv, uv."""
    want = _version_key(minimum)
    candidates = [os.environ.get("SESSDEX_CONFORMANCE_PYTHON", ""), sys.executable]
    for minor in range(20, want[1] - 1, -1):
        candidates.append(shutil.which(f"python3.{minor}") or "")
    for root in (
        Path.home() / ".pyenv" / "versions",
        Path("/opt/python"),
        Path("/usr/local/bin"),
    ):
        if root.is_dir():
            candidates.extend(
                str(p) for p in sorted(root.glob("3.*/bin/python3"), reverse=True)
            )
    uv = shutil.which("uv")
    if uv:
        found = _run([uv, "python", "find", f">={minimum}"], timeout=60)
        candidates.append(found.stdout.strip())
    for candidate in candidates:
        if not candidate:
            continue
        try:
            result = _run(
                [
                    candidate,
                    "-c",
                    "import sys, venv; print('%d.%d' % sys.version_info[:2])",
                ],
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0 and _version_key(result.stdout.strip()) >= want:
            return candidate
    return None


def pip_latest(python: str, package: str, constraint: str | None) -> str:
    result = _run([python, "-m", "pip", "index", "versions", package], timeout=180)
    match = re.search(r"Available versions:\s*(.+)", result.stdout)
    if result.returncode != 0 or not match:
        raise RuntimeError(
            f"pip index versions {package} failed: {_tail(result.stdout + result.stderr)}"
        )
    versions = [v.strip() for v in match.group(1).split(",")]
    fitting = [
        v for v in versions if re.fullmatch(r"[\d.]+", v) and _satisfies(v, constraint)
    ]
    if not fitting:
        raise RuntimeError(f"PyPI has no {package} version within {constraint}")
    return max(fitting, key=_version_key)


def install_pip(target: Target, version: str | None) -> Installed:
    python = find_python(target.python or "3.11")
    if python is None:
        return Installed(
            target.name,
            version,
            error=f"no Python {target.python} or newer found (set SESSDEX_CONFORMANCE_PYTHON)",
        )
    if version is None:
        version = pip_latest(python, target.package, target.latest)
    prefix = cache_dir() / f"{target.name}-{version}"
    venv = prefix / "venv"
    executable = venv / "bin" / target.bin
    if not (prefix / MARKER).is_file() or not executable.exists():
        if prefix.exists():
            shutil.rmtree(prefix)
        prefix.mkdir(parents=True)
        made = _run([python, "-m", "venv", str(venv)], timeout=300)
        if made.returncode != 0:
            raise RuntimeError(f"python -m venv failed: {_tail(made.stderr)}")
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        spec = f"{target.package}=={version}"
        overrides = target.overrides.get(version)
        if overrides:
            result = _run([*pip, "--no-deps", spec])
            if result.returncode == 0:
                wanted = _overridden(venv, target.package, overrides)
                (prefix / "requirements.txt").write_text("\n".join(wanted) + "\n")
                result = _run([*pip, "-r", str(prefix / "requirements.txt")])
        else:
            result = _run([*pip, spec])
        if result.returncode != 0 or not executable.exists():
            raise RuntimeError(
                f"pip install {target.package}=={version} failed:\n{_tail(result.stdout + result.stderr)}"
            )
        (prefix / MARKER).write_text(
            json.dumps({"package": target.package, "version": version})
        )
    return Installed(target.name, version, str(executable.parent), str(executable))


def _overridden(venv: Path, package: str, overrides: list[str]) -> list[str]:
    """The installed package's own requirements, with those `overrides` names replaced."""
    done = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, json, sys; print(json.dumps(m.requires(sys.argv[1]) or []))",
            package,
        ],
        timeout=60,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"could not read {package}'s requirements: {_tail(done.stderr)}"
        )

    def name(requirement: str) -> str:
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        return re.sub(r"[-_.]+", "-", found.group(1)).lower() if found else requirement

    replaced = {name(o) for o in overrides}
    own = [
        r
        for r in json.loads(done.stdout)
        if name(r) not in replaced and not re.search(r"\bextra\s*==", r)
    ]
    return [*own, *overrides]


# --- both ---------------------------------------------------------------------------------


def install(target: Target, *, latest: bool, node_version: str) -> Installed:
    """Install one target (or find it cached); never raises, the error is in the result."""
    try:
        if target.installer == "npm":
            version = (
                npm_latest(target.package, target.latest) if latest else target.version
            )
            return install_npm(target, version, node_version)
        if target.installer == "pip":
            return install_pip(target, None if latest else target.version)
        return Installed(target.name, error=f"unknown installer {target.installer!r}")
    except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError) as error:
        return Installed(target.name, error=str(error))


def install_all(
    targets: list[Target], *, latest: bool, node_version: str
) -> dict[str, Installed]:
    """Install in parallel: it is network-bound, and npm and pip keep their own locks."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = pool.map(
            lambda t: install(t, latest=latest, node_version=node_version), targets
        )
        return {r.target: r for r in results}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        description="Install the conformance suite's agent CLIs into the cache."
    )
    parser.add_argument(
        "--latest",
        action="store_true",
        help="the newest versions instead of the pinned ones",
    )
    parser.add_argument(
        "--app",
        action="append",
        default=[],
        help="only this target or app (repeatable)",
    )
    options = parser.parse_args()
    all_targets, node = load_targets()
    if unknown_names(all_targets, options.app):
        parser.error(
            f"unknown target {', '.join(unknown_names(all_targets, options.app))}"
        )
    for result in install_all(
        select(all_targets, options.app), latest=options.latest, node_version=node
    ).values():
        print(json.dumps(asdict(result)))
