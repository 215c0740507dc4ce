"""Run the real agent CLIs against the mock model and record what they did, for the tests to check.

`run_suite` installs the targets, then re-runs this module inside a private network namespace
(`unshare --net`, only `lo` up) where each target gets a temporary HOME, a throwaway git repo
on a named branch, its own mock server, and its steps: headless runs, and a TUI run in tmux
where a feature shows only there. Each target's outcome goes to `<work>/<target>/result.json`.
This module asserts nothing about sessdex; test_conformance.py does.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import apps, install, mockllm

ROOT = install.ROOT
Echo = Callable[[str], None]


# --- the outer half: install, isolate, collect ---------------------------------------------


def isolation_prefix() -> tuple[list[str], str]:
    """The command prefix that cuts the network off, and a note saying which one was used."""
    unshare = shutil.which("unshare")
    # A PID namespace too, where it works: when the driver ends, every process the CLIs left
    # behind (daemons, servers) ends with it.
    variants = [
        (user, pid)
        for user in ([], ["--map-root-user"])
        for pid in (["--pid", "--fork", "--kill-child"], [])
    ]
    for user, pid in variants if unshare else []:
        prefix = [str(unshare), *user, "--net", *pid]
        try:
            probe = subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=20, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix, " ".join(["unshare", *user, "--net", *pid])
    return (
        [],
        "NOT ISOLATED: no usable `unshare --net`; relying on each CLI's telemetry and update switches",
    )


def run_suite(
    names: list[str], *, latest: bool, work: Path, echo: Echo, jobs: int | None = None
) -> Path:
    """Install and drive the selected targets; returns `work`, holding one result.json per target."""
    targets, node_version = install.load_targets()
    chosen = install.select(targets, names)
    if install.unknown_names(targets, names):
        echo(
            f"conformance: no target named {', '.join(install.unknown_names(targets, names))}"
        )
    work.mkdir(parents=True, exist_ok=True)
    echo(
        f"conformance: installing {len(chosen)} CLIs into {install.cache_dir()}{' (latest)' if latest else ''}"
    )
    installed = install.install_all(chosen, latest=latest, node_version=node_version)
    plan: dict[str, Any] = {"work": str(work), "latest": latest, "targets": []}
    for target in chosen:
        result = installed[target.name]
        folder = work / target.name
        folder.mkdir(parents=True, exist_ok=True)
        if not result.ok:
            echo(
                f"  {target.name:<12} NOT INSTALLED: {(result.error or '').splitlines()[0] if result.error else '?'}"
            )
            payload = {
                "target": target.name,
                "app": target.app,
                "installed": False,
                "error": result.error,
            }
            (folder / "result.json").write_text(json.dumps(payload, indent=2))
            continue
        echo(f"  {target.name:<12} {result.version}")
        plan["targets"].append(
            {"target": target.name, "app": target.app, **asdict(result)}
        )
    prefix, note = isolation_prefix()
    plan["isolated"] = bool(prefix)
    plan["isolation"] = note
    plan["jobs"] = jobs or int(os.environ.get("SESSDEX_CONFORMANCE_JOBS") or 3)
    (work / "plan.json").write_text(json.dumps(plan, indent=2))
    if not plan["targets"]:
        return work
    echo(
        f"conformance: running {len(plan['targets'])} CLIs, {plan['jobs']} at a time; network: {note}"
    )
    command = [
        *prefix,
        sys.executable,
        "-m",
        "tests.conformance.driver",
        "--inner",
        str(work / "plan.json"),
    ]
    env = dict(
        os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as child:
        assert child.stdout is not None
        with (work / "driver.log").open("w") as log:
            for line in child.stdout:
                log.write(line)
                log.flush()
                echo(line.rstrip("\n"))
    if child.returncode:
        echo(
            f"conformance: the driver exited {child.returncode}; see {work / 'driver.log'}"
        )
    return work


# --- the inner half: runs inside the namespace ---------------------------------------------


def loopback_up() -> None:
    """`ip link set lo up` without needing iproute2: a new network namespace starts with lo down."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, siocgifflags, request))[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


def network_reachable() -> bool:
    """Whether anything beyond loopback answers (it must not, when isolated)."""
    for address in (("1.1.1.1", 443), ("8.8.8.8", 53)):
        try:
            with socket.create_connection(address, timeout=2):
                return True
        except OSError:
            continue
    return False


_print_lock = threading.Lock()


def say(target: str, message: str) -> None:
    with _print_lock:
        print(f"  [{target}] {message}", flush=True)


def base_env(home: Path, path: list[str]) -> dict[str, str]:
    """A small, explicit environment: nothing from the outer one leaks in (no real keys, no CI=…)."""
    return {
        "HOME": str(home),
        "USER": os.environ.get("USER", "root"),
        "LOGNAME": os.environ.get("USER", "root"),
        "PATH": os.pathsep.join(
            [*path, "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        ),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm-256color",
        "SHELL": "/bin/bash",
        "TMPDIR": str(home / "tmp"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "NO_UPDATE_NOTIFIER": "1",
        "DO_NOT_TRACK": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def make_repo(home: Path) -> Path:
    repo = home / "code" / "shop-api"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text(
        "# shop\n\nA throwaway repo for the sessdex conformance suite.\n"
    )
    (repo / "checkout.py").write_text("def checkout():\n    return 'ok'\n")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Conformance\n\temail = conformance@example.invalid\n"
    )
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "."],
        ["git", "commit", "-q", "-m", "Initial commit"],
        ["git", "checkout", "-q", "-b", apps.BRANCH],
    ):
        subprocess.run(argv, cwd=repo, env=env, check=True, capture_output=True)
    return repo


def snapshot(home: Path, skip: Path) -> dict[str, tuple[int, int]]:
    files: dict[str, tuple[int, int]] = {}
    for folder, dirs, names in os.walk(home):
        if Path(folder) == skip.parent:
            dirs[:] = [d for d in dirs if d != skip.name]
        dirs[:] = [d for d in dirs if d not in ("node_modules", ".npm")]
        for name in names:
            path = Path(folder) / name
            try:
                stat = path.lstat()
            except OSError:
                continue
            files[str(path.relative_to(home))] = (stat.st_size, stat.st_mtime_ns)
    return files


def end_group(pid: int) -> None:
    """End what a CLI left running in its own process group (daemons, language servers)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.5)


class TargetRun:
    """One target: its home, repo, mock server and steps."""

    def __init__(self, spec: dict[str, Any], work: Path) -> None:
        self.spec = spec
        self.name: str = spec["target"]
        self.recipe = apps.RECIPES[self.name]
        self.folder = work / self.name
        self.home = self.folder / "home"
        self.result: dict[str, Any] = {
            "target": self.name,
            "app": spec["app"],
            "installed": True,
            "version": spec["version"],
            "bin_dir": spec["bin_dir"],
            "executable": spec["executable"],
            "home": str(self.home),
            "branch": apps.BRANCH,
            "steps": [],
            "help": {},
            "error": None,
        }

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        try:
            self._run()
        # A harness failure must still leave a result to report.
        except Exception as error:
            self.result["error"] = f"{type(error).__name__}: {error}"
            say(self.name, f"HARNESS ERROR {self.result['error']}")
        self.result["seconds"] = round(time.monotonic() - started, 1)
        (self.folder / "result.json").write_text(json.dumps(self.result, indent=2))
        return self.result

    def _run(self) -> None:
        if self.home.exists():
            shutil.rmtree(self.home)
        self.home.mkdir(parents=True)
        (self.home / "tmp").mkdir()
        self.repo = make_repo(self.home)
        self.result["repo"] = str(self.repo)
        bodies = (
            self.folder / "requests.bodies.jsonl"
            if os.environ.get("SESSDEX_CONFORMANCE_BODIES") == "1"
            else None
        )
        with mockllm.MockLLM(
            self.folder / "requests.jsonl", bodies_path=bodies
        ) as mock:
            self.mock = mock
            ctx = apps.Context(self.home, self.repo, mock.base_url)
            self.env = base_env(
                self.home, [self.spec["bin_dir"], *self.spec.get("extra_path", [])]
            )
            self.env.update(self.recipe.env(ctx))
            self.recipe.setup(ctx)
            self._help()
            known: list[str] = []
            for number, step in enumerate(self.recipe.steps(ctx), 1):
                record = self._step(number, step, known)
                self.result["steps"].append(record)
                if record["session_id"] and record["session_id"] not in known:
                    known.append(record["session_id"])
                say(
                    self.name,
                    f"{step.name:<9} rc={record['rc']} {record['seconds']:>5}s session={record['session_id']} "
                    f"requests={len(record['requests'])}{'' if record['ok'] else '  PROBLEM: ' + record['problem']}",
                )
            self.result["requests"] = mock.requests()
        self._finish()

    def _finish(self) -> None:
        """What only the whole run shows: late titles, and session files the CLI deleted itself."""
        steps = self.result["steps"]
        summarized = {
            r["name"]
            for r in steps
            if r["ok"] and any(q.get("kind") == "summary" for q in r["requests"])
        }
        for record in steps:
            title, writer = self.recipe.late_titles.get(record["name"], (None, ""))
            if title and writer not in summarized:
                record.setdefault("notes", []).append(
                    f"{writer}: no summary request reached the mock, so no title went back to {record['name']}"
                )
                title = None
            record["late_title"] = title
        if not self.recipe.session_file.strip("^$"):
            return
        # A session whose file a later step of the CLI deleted cannot be blamed on sessdex.
        pattern = re.compile(self.recipe.session_file)
        for number, record in enumerate(steps):
            mine = [f for f in record.get("new_files", []) if pattern.search(f)]
            for later in steps[number + 1 :]:
                gone = [f for f in mine if f in later.get("deleted_files", [])]
                if gone and record["ok"]:
                    record["ok"] = False
                    record["problem"] = (
                        f"the CLI itself deleted this session's file {gone} during the {later['name']} step"
                    )
                    say(self.name, f"{record['name']:<9} PROBLEM: {record['problem']}")

    def _help(self) -> None:
        executable = self.spec["executable"]
        for sub in ("", *self.recipe.help_subcommands):
            argv = [executable, *([sub] if sub else []), "--help"]
            try:
                done = subprocess.run(
                    argv,
                    cwd=self.repo,
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=60,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    check=False,
                )
                self.result["help"][sub] = (done.stdout + "\n" + done.stderr)[:200_000]
            except subprocess.TimeoutExpired:
                self.result["help"][sub] = ""

    def _step(self, number: int, step: apps.Step, known: list[str]) -> dict[str, Any]:
        if step.interactive and not shutil.which("tmux", path=self.env["PATH"]):
            reason = "tmux is not installed, so the interactive step did not run"
            return {
                "name": step.name,
                "argv": step.argv,
                "interactive": True,
                "rc": None,
                "seconds": 0,
                "session_id": None,
                "title": step.title,
                "requests": [],
                "ok": False,
                "skipped": reason,
                "problem": reason,
            }
        basic = known[0] if known else ""
        argv = [a.replace("{basic}", basic) for a in step.argv]
        if (
            step.name == "basic"
            and self.recipe.same_minute_resume
            and time.time() % 60 > 25
        ):
            time.sleep(60.5 - time.time() % 60)
        before = snapshot(self.home, self.repo)
        listed = self.recipe.database_sessions
        rows_before = listed(self.home) if listed else {}
        log = self.repo / self.recipe.repo_log if self.recipe.repo_log else None
        log_start = log.stat().st_size if log is not None and log.exists() else 0
        first_request = len(self.mock.requests())
        started = time.time()
        stem = self.folder / f"{number:02d}-{step.name}"
        self.probes: list[dict[str, Any]] = []
        if step.interactive:
            rc, stdout, problem = self._tui(stem, argv, step)
        else:
            rc, stdout, problem = self._headless(stem, argv, self._live_trigger(step))
        ended = time.time()
        after = snapshot(self.home, self.repo)
        new = sorted(set(after) - set(before))
        changed = sorted(p for p in after if p in before and after[p] != before[p])
        deleted = sorted(set(before) - set(after))
        requests = self.mock.requests()[first_request:]
        stdout_id = apps.session_id_from_stdout(stdout) or self._stderr_id(stem)
        if stdout_id:
            stdout_id = stdout_id.removeprefix(self.recipe.id_prefix)
        file_ids = [
            i
            for i in apps.session_id_from_files(self.recipe, self.home, new)
            if i not in known
        ]
        if log is not None and log.exists() and self.recipe.log_session_ids:
            file_ids += [
                i for i in self.recipe.log_session_ids(log, log_start) if i not in known
            ]
        if self.recipe.new_session_ids is not None:
            file_ids += [
                i
                for i in self.recipe.new_session_ids(self.home, started)
                if i not in known and i not in file_ids
            ]
        rows = listed(self.home) if listed else {}
        file_ids += [
            i for i in rows if i not in rows_before and i not in known + file_ids
        ]
        session_id = stdout_id or (file_ids[0] if file_ids else None)
        if session_id is None and step.name == "resume":
            # A TUI, or a CLI whose resume takes no id (`cn -p --resume`), prints no id:
            # the session file it grew names it.
            grown = apps.session_id_from_files(self.recipe, self.home, changed)
            session_id = basic if basic in grown else next(iter(grown), None)
        scenario = "basic" if step.name == "tui" else step.name
        agent = [
            r
            for r in requests
            if r.get("kind") == "agent" and r.get("scenario") == scenario
        ]
        served_final = any(r.get("action") == "final" for r in agent)
        # What the recipe expects of the CLI but it no longer does: a change to look at.
        notes = []
        title = step.title.replace("{basic}", basic) if step.title else None
        if title == mockllm.TITLE and not any(
            r.get("kind") in ("title", "json") for r in requests
        ):
            notes.append(
                f"{step.name}: no title request reached the mock, so the CLI wrote no title here"
            )
            title = None
        if step.name == "resume" and file_ids:
            notes.append(
                f"resume: the CLI wrote new sessions {file_ids} instead of growing {basic}"
            )
        if not problem and rc != 0:
            problem = f"exited {rc}"
        if not problem and step.asks_model and not served_final:
            problem = f"the mock never served the final answer of scenario {scenario!r}"
        if (
            not problem
            and step.name == "subagent"
            and not any(r.get("scenario") == "child" for r in requests)
        ):
            problem = "the CLI never started the sub-agent (no SCENARIO=child request reached the mock)"
        if not problem and session_id is None:
            problem = "no session id in the CLI's output or in new session files"
        if not problem and step.name == "resume" and session_id != basic:
            problem = f"resume reported session {session_id}, not {basic}"
        return {
            "name": step.name,
            "argv": argv,
            "interactive": step.interactive,
            "side_chat": step.side_chat,
            "rc": rc,
            "started": started,
            "ended": ended,
            "seconds": round(ended - started, 1),
            "session_id": session_id,
            "stdout_session_id": stdout_id,
            "session_key": (
                apps.session_key_from_stdout(stdout) or rows.get(session_id or "")
                if self.recipe.resumes_by_key
                else None
            ),
            "file_session_ids": file_ids,
            "title": title,
            "late_title": None,  # set by _finish once the step that writes it ran
            "models": sorted({str(r.get("model")) for r in agent}),
            "child_served": any(r.get("scenario") == "child" for r in requests),
            "new_files": new,
            "changed_files": changed,
            "deleted_files": deleted,
            "requests": requests,
            "ok": not problem,
            "problem": problem or "",
            "notes": notes,
            "live": self.probes,
        }

    # --- live states: what `sessdex watch` says while the CLI runs

    def _live_trigger(self, step: apps.Step) -> Callable[[], str | None] | None:
        """For a step whose prompt asks for a slow shell call (SLOW=), a check that names the
        phase to look at once the mock has handed out that shell call: `tool` (the lead's own call,
        in `basic`) or `subagent` (the sub-agent's, in `subagent`)."""
        if not any(mockllm.SLOW.search(a) for a in step.argv):
            return None
        scenario, phase = {
            "basic": ("basic", "tool"),
            "subagent": ("child", "subagent"),
        }.get(step.name, (None, None))
        if scenario is None or phase is None:
            return None
        first = len(self.mock.requests())

        def trigger() -> str | None:
            for r in self.mock.requests()[first:]:
                if (
                    r.get("kind") == "agent"
                    and r.get("scenario") == scenario
                    and r.get("results") == 0
                    and r.get("action") in mockllm.SHELL_TOOLS
                ):
                    return phase
            return None

        return trigger

    def _probe(self, phase: str) -> None:
        """Record what `sessdex watch --json` says about this home now (the tests judge it)."""
        started = time.time()
        argv = [sys.executable, "-m", "sessdex", "watch", "--json", "--since", "1h"]
        try:
            done = subprocess.run(
                [*argv, "--home", str(self.home)],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            rc, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired:
            rc, stdout, stderr = -9, "", "timed out after 60 s"
        try:
            board = json.loads(stdout) if rc == 0 else None
        except ValueError:
            board = None
        self.probes.append(
            {
                "phase": phase,
                "at": started,
                "seconds": round(time.time() - started, 1),
                "rc": rc,
                "board": board,
                "stderr": stderr[-2000:],
            }
        )

    def _stderr_id(self, stem: Path) -> str | None:
        """The session id a headless step named on stderr, where the recipe says how."""
        stderr = Path(f"{stem}.stderr")
        if not self.recipe.stderr_id or not stderr.exists():
            return None
        named = re.search(self.recipe.stderr_id, stderr.read_text(errors="replace"))
        return named.group(1) if named else None

    def _headless(
        self,
        stem: Path,
        argv: list[str],
        trigger: Callable[[], str | None] | None = None,
    ) -> tuple[int, str, str]:
        timeout = int(os.environ.get("SESSDEX_CONFORMANCE_STEP_TIMEOUT") or 240)
        with open(f"{stem}.stdout", "w") as out, open(f"{stem}.stderr", "w") as err:
            process = subprocess.Popen(
                argv,
                cwd=self.repo,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            problem = ""
            deadline = time.monotonic() + timeout
            try:
                # While the slow call the mock handed out runs, ask sessdex once (2 s in: the
                # CLI has written the call and started it).
                while trigger is not None and process.poll() is None:
                    phase = trigger()
                    if phase:
                        time.sleep(2)
                        if process.poll() is None:
                            self._probe(phase)
                        break
                    if time.monotonic() > deadline:
                        raise subprocess.TimeoutExpired(argv, timeout)
                    time.sleep(0.2)
                rc = process.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                rc, problem = -9, f"timed out after {timeout}s"
            end_group(process.pid)
            process.wait()
        (stem.with_suffix(".cmd.json")).write_text(
            json.dumps({"argv": argv, "cwd": str(self.repo), "rc": rc}, indent=2)
        )
        return rc, Path(f"{stem}.stdout").read_text(errors="replace"), problem

    # --- interactive, in tmux

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def _screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "tui").stdout

    def _type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "tui", "-l", text)
        time.sleep(0.8)
        self._tmux("send-keys", "-t", "tui", "Enter")

    def _shows(self, text: str, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self._screen().replace("\n", ""):
                return True
            time.sleep(0.3)
        return False

    def _wait_quiet(self, seconds: float, limit: float) -> None:
        """Wait until the mock has had no request for `seconds` (a late title request lands)."""
        deadline = time.monotonic() + limit
        count, since = len(self.mock.requests()), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = len(self.mock.requests())
            if now != count:
                count, since = now, time.monotonic()
            elif time.monotonic() - since >= seconds:
                return

    def _tui(
        self, stem: Path, argv: list[str], step: apps.Step
    ) -> tuple[int, str, str]:
        self.socket = self.folder / "tmux.sock"
        rc_file = Path(f"{stem}.rc")
        script = Path(f"{stem}.sh")
        exports = "".join(
            f"export {k}={shlex.quote(v)}\n"
            for k, v in sorted(self.env.items())
            if k != "TERM"
        )
        script.write_text(
            f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.repo))}\n{shlex.join(argv)}\necho $? > {shlex.quote(str(rc_file))}\n"
        )
        (stem.with_suffix(".cmd.json")).write_text(
            json.dumps({"argv": argv, "cwd": str(self.repo), "tmux": True}, indent=2)
        )
        created = self._tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "200",
            "-y",
            "50",
            f"sh {shlex.quote(str(script))}",
        )
        if created.returncode != 0:
            return -1, "", f"tmux new-session failed: {created.stderr.strip()}"
        problem = ""
        self.screen_file = Path(f"{stem}.screen.txt")
        try:
            problem = self._drive_tui(step, rc_file)
        finally:
            if not self.screen_file.exists():
                self.screen_file.write_text(self._screen())
            self._tmux("kill-server")
        rc = int(rc_file.read_text().strip() or -1) if rc_file.exists() else -1
        if rc == -1 and not problem:
            problem = "the TUI did not exit after its exit command"
        return rc, "", problem

    def _drive_tui(self, step: apps.Step, rc_file: Path) -> str:
        # Ready: something on screen, unchanged for 2.5 s (first-run work done).
        start, last, since = time.monotonic(), "", time.monotonic()
        while time.monotonic() - start < 60:
            time.sleep(0.5)
            screen = self._screen()
            if rc_file.exists():
                return f"the TUI exited before it was used; screen:\n{screen[-1500:]}"
            if screen != last:
                last, since = screen, time.monotonic()
            elif (
                screen.strip()
                and time.monotonic() - since >= 2.5
                and time.monotonic() - start >= 4
            ):
                break
        if step.tui_ready and not self._shows(step.tui_ready, 90):
            return f"the TUI never showed {step.tui_ready!r}; screen:\n{self._screen()[-1500:]}"
        for command in step.tui_before:  # e.g. a new session first (OpenClaw's /new)
            self._type(command)
            time.sleep(3)
        before = len(self.mock.requests())
        # An interactive resume types the resume prompt; the TUI step, its own.
        prompt = apps.PROMPTS.get(step.name, apps.PROMPTS["tui"])
        for _ in range(
            4
        ):  # a TUI still starting up may drop keys: type until the text shows
            self._tmux("send-keys", "-t", "tui", "-l", prompt)
            if self._shows(prompt[:24], 5):
                break
            self._tmux("send-keys", "-t", "tui", "C-u")
            time.sleep(3)
        time.sleep(0.8)
        self._tmux("send-keys", "-t", "tui", "Enter")
        deadline, nudged = time.monotonic() + 150, time.monotonic() + 20
        while time.monotonic() < deadline:
            time.sleep(0.5)
            fresh = self.mock.requests()[before:]
            if any(
                r.get("kind") == "agent" and r.get("action") == "final" for r in fresh
            ):
                break
            if time.monotonic() > nudged and not any(
                r.get("kind") == "agent" for r in fresh
            ):
                self._tmux(
                    "send-keys", "-t", "tui", "Enter"
                )  # a TUI that took the text as a paste
                nudged = time.monotonic() + 20
        else:
            return f"no final answer within 150 s; screen:\n{self._screen()[-1500:]}"
        self._wait_quiet(4, 40)
        self.screen_file.write_text(self._screen())
        # the turn is over and the TUI still open: it waits for the user
        self._probe("answered")
        for command in step.tui_after:
            if command.startswith("<") and command.endswith(">"):  # a key: <C-c>
                self._tmux("send-keys", "-t", "tui", command[1:-1])
                time.sleep(2)
                continue
            self._type(command)
            self._wait_quiet(3, 30)
        self._type(step.tui_exit)
        for keys in ([], ["C-c"], ["C-c"], ["C-d"]):
            if keys:
                self._tmux("send-keys", "-t", "tui", *keys)
            for _ in range(30):
                if rc_file.exists():
                    return ""
                time.sleep(0.5)
        return ""


def drive(plan_path: Path) -> int:
    plan = json.loads(plan_path.read_text())
    work = Path(plan["work"])
    if plan.get("isolated"):
        loopback_up()
        if network_reachable():
            print(
                "conformance: the network namespace still reaches the internet; stopping",
                flush=True,
            )
            return 1
    runs = [TargetRun(spec, work) for spec in plan["targets"]]
    runs.sort(
        key=lambda r: -r.recipe.weight
    )  # the slowest start first: a shorter run overall
    with ThreadPoolExecutor(max_workers=int(plan.get("jobs") or 3)) as pool:
        results = list(pool.map(lambda r: r.run(), runs))
    bad = [
        r["target"]
        for r in results
        if r.get("error") or not all(s["ok"] for s in r["steps"])
    ]
    print(
        f"conformance: {len(results) - len(bad)} of {len(results)} CLIs ran every step"
        + (f"; problems: {', '.join(bad)}" if bad else ""),
        flush=True,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(
        description="Install and run the real agent CLIs against the mock model."
    )
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--latest", action="store_true")
    parser.add_argument("--app", action="append", default=[])
    parser.add_argument(
        "--work", help="where the homes and results go (default: a new temp folder)"
    )
    options = parser.parse_args(argv)
    if options.inner:
        return drive(Path(options.inner))
    install.cache_dir().mkdir(parents=True, exist_ok=True)
    work = Path(
        options.work or tempfile.mkdtemp(prefix="run-", dir=install.cache_dir())
    )
    run_suite(
        options.app,
        latest=options.latest,
        work=work,
        echo=lambda line: print(line, flush=True),
    )
    print(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
