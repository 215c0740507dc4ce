"""How quickly and how cheaply sessdex follows live sessions.

(a) latency: a writer appends a Claude Code line every 50-150 ms to a transcript that a
    `sessdex follow --nl` process follows; the time from each write to its event on the
    follower's stdout, p50 and p95 (with file-system notifications, and with polling);
(b) CPU per append: a 2 GB sparse transcript whose last 2 MB are real lines is followed in
    this process; each 1 KB line appended then costs one poll: CPU time and bytes read;
(c) idle CPU: `sessdex watch --nl` over a home of 100 quiet sessions, CPU time of that
    process over a window after its start, as a share of one core.

Usage: .venv/bin/python bench/bench_live.py [--appends 100] [--idle-seconds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

SESSION = "0b0b0b0b-1111-4222-8333-444444444444"
CWD = "/home/dev/live-bench"
TARGETS = {"latency_p95": 0.5, "append_cpu": 0.005, "idle_share": 0.01}
_LAST: dict[str, str] = {}  # session -> uuid of its last line, to chain the next one


def line(n: int, *, kind: str = "user", pad: int = 0, session: str = SESSION) -> bytes:
    """One real-shaped Claude Code line: a typed prompt or an answer, `pad` bytes longer."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000Z"
    this = str(uuid.uuid4())
    base: dict[str, object] = {
        "parentUuid": _LAST.get(session),
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": session,
        "version": "2.1.197",
        "gitBranch": "main",
        "type": kind,
        "uuid": this,
        "timestamp": stamp,
    }
    _LAST[session] = this
    text = f"bench-{n} " + "x" * pad
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {
            "id": f"msg_{n}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        base["requestId"] = f"req_{n}"
    return json.dumps(base).encode() + b"\n"


def transcript(home: Path, session: str = SESSION) -> Path:
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def environment(state: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["SESSDEX_HOME"] = str(state)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SESSDEX_DEBUG", None)
    return env


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# --- (a) latency ---------------------------------------------------------------------------------


def latency(appends: int, poll: bool) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        home, state = Path(tmp) / "home", Path(tmp) / "state"
        path = transcript(home)
        path.write_bytes(line(0) + line(0, kind="assistant"))
        argv = [sys.executable, "-m", "sessdex", "follow", SESSION, "--nl", "-n", "0"]
        argv += ["--home", str(home), "--duration", str(appends * 0.15 + 10)]
        if poll:
            argv.append("--poll")
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, env=environment(state), bufsize=0
        )
        assert process.stdout is not None
        written: dict[int, float] = {}
        seen: dict[int, float] = {}
        ready = threading.Event()

        def reader() -> None:
            assert process.stdout is not None
            for raw in process.stdout:
                record = json.loads(raw)
                text = record.get("text") or ""
                if text.startswith("bench-"):
                    number = int(text.split()[0].split("-")[1])
                    seen.setdefault(number, time.monotonic())
                    if number == 0:
                        ready.set()
                    if len(seen) > appends:
                        return

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        # wait until the follower runs: its first event comes from a probe line
        deadline = time.monotonic() + 20
        while not ready.is_set() and time.monotonic() < deadline:
            with path.open("ab") as handle:
                handle.write(line(0))
            ready.wait(0.5)
        for n in range(1, appends + 1):
            time.sleep(random.uniform(0.05, 0.15))
            data = line(n)
            with path.open("ab") as handle:
                handle.write(data)
            written[n] = time.monotonic()
        thread.join(timeout=5)
        process.terminate()
        process.wait()
    delays = [seen[n] - written[n] for n in written if n in seen]
    missing = appends - len(delays)
    return statistics.median(delays), percentile(delays, 0.95), missing


# --- (b) CPU per 1 KB append on a 2 GB transcript ---------------------------------------------------


def append_cost(appends: int, size: int) -> tuple[float, float, int, int]:
    from sessdex.live import LiveSession
    from sessdex.model import Session
    from sessdex.sources import get

    with tempfile.TemporaryDirectory() as tmp:
        path = transcript(Path(tmp) / "home")
        tail = b"".join(
            line(n, kind="user" if n % 2 else "assistant", pad=900) for n in range(2000)
        )
        with path.open("wb") as handle:
            handle.truncate(size - len(tail))  # sparse: no disk used, never read
            handle.seek(size - len(tail))
            handle.write(b"\n" + tail[1:])
        session = Session("claude", SESSION, path=str(path), cwd=CWD)
        follower = LiveSession(session, get("claude"))
        first = follower.poll()
        quiet_before = follower.bytes_read()
        for _ in range(10):
            follower.poll()
        quiet_read = follower.bytes_read() - quiet_before
        costs = []
        read = []
        for n in range(appends):
            data = line(10_000 + n, pad=1024 - 450)
            with path.open("ab") as handle:
                handle.write(data)
            before_bytes = follower.bytes_read()
            started = time.thread_time()
            events = follower.poll()
            costs.append(time.thread_time() - started)
            read.append(follower.bytes_read() - before_bytes)
            assert events, "an appended line gave no event"
        assert first
    return (
        statistics.median(costs),
        percentile(costs, 0.95),
        int(statistics.median(read)),
        quiet_read,
    )


# --- (c) idle CPU over 100 quiet sessions ---------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle(sessions: int, seconds: float, poll: bool) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        home, state = Path(tmp) / "home", Path(tmp) / "state"
        for n in range(sessions):
            session = str(uuid.UUID(int=n + 1))
            path = transcript(home, session)
            path.write_bytes(
                b"".join(
                    line(k, kind="user" if k % 2 == 0 else "assistant", session=session)
                    for k in range(20)
                )
            )
        argv = [sys.executable, "-m", "sessdex", "watch", "--nl", "--home", str(home)]
        argv += ["--duration", str(seconds + 15), "--limit", str(sessions)]
        if poll:
            argv.append("--poll")
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, env=environment(state))
        assert process.stdout is not None
        shown = 0
        for _ in range(sessions):  # the board's first state: one line per session
            if process.stdout.readline():
                shown += 1
        time.sleep(5)  # let the start settle
        start_cpu, start = cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        used = cpu_seconds(process.pid) - start_cpu
        elapsed = time.monotonic() - start
        process.terminate()
        process.wait()
    return used / elapsed, shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=100)
    parser.add_argument("--size-gb", type=float, default=2.0)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    options = parser.parse_args()
    try:
        import watchfiles  # noqa: F401

        backends = [("notifications", False), ("polling", True)]
    except ImportError:
        backends = [("polling", True)]
    failed = False
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    for name, poll in backends:
        p50, p95, missing = latency(options.appends, poll)
        ok = p95 <= TARGETS["latency_p95"] and not missing
        failed |= not ok
        print(
            f"(a) latency, {name}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
            f"{f', {missing} missed' if missing else ''}  [{'PASS' if ok else 'FAIL'} <= 500 ms]"
        )
    median, p95, read, quiet = append_cost(
        options.appends, int(options.size_gb * 1024**3)
    )
    ok = median <= TARGETS["append_cpu"]
    failed |= not ok
    print(
        f"(b) 1 KB append to a {options.size_gb:g} GB transcript: CPU median {median * 1000:.2f} ms, "
        f"p95 {p95 * 1000:.2f} ms, {read} bytes read per append; 10 polls with no change read "
        f"{quiet} bytes  [{'PASS' if ok else 'FAIL'} <= 5 ms]"
    )
    for name, poll in backends:
        share, shown = idle(options.sessions, options.idle_seconds, poll)
        ok = share <= TARGETS["idle_share"] and shown == options.sessions
        failed |= not ok
        print(
            f"(c) idle, {options.sessions} quiet sessions ({shown} on the board), {name}: "
            f"{share * 100:.2f}% of a core  [{'PASS' if ok else 'FAIL'} <= 1%]"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
