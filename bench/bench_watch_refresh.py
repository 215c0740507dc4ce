"""CPU of one `watch` refresh over a home of many idle sessions, in process.

A home of `--sessions` finished sessions (Claude Code, Codex and Gemini CLI transcripts of
the real-CLI fixtures in tests/data, each copied under a new id, their turns ended days
ago) is followed by the board `sessdex watch` draws. After the first read, one refresh is
what the board does at every tick: a poll of every followed session (a stat of each file,
nothing new to read) and the rows (each session's status). A rescan (the index listing
the sessions again, every 10 s when polling) is timed apart. CPU seconds of this process
(`time.process_time`), the median of `--repeats`; the process search (/proc) is left out,
as it does not depend on the sessions.

`--process SECONDS` also runs the real `sessdex watch --nl` over that home (with file-system
notifications where watchfiles is installed, and with `--poll`), and measures its CPU over
SECONDS once it has shown every session and settled: a share of one core. `--terminal`
runs the live board instead, on a pseudo-terminal 160 columns wide (notifications only).

Usage: .venv/bin/python bench/bench_watch_refresh.py [--sessions 1000] [--repeats 15]
       [--process 20] [--terminal]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
DATA = ROOT / "tests" / "data"

# (app, fixture file under tests/data/<app>/home, the session id inside it)
FIXTURES = [
    (
        "claude",
        ".claude/projects/-home-alex-code-shop-api/"
        "a82be759-b0cd-4d2b-9219-abad61d191d4.jsonl",
        "a82be759-b0cd-4d2b-9219-abad61d191d4",
    ),
    (
        "codex",
        ".codex/sessions/2026/11/30/"
        "rollout-2026-11-30T08-10-27-01a22b81-5c00-7801-8b1e-2012418ca986.jsonl",
        "01a22b81-5c00-7801-8b1e-2012418ca986",
    ),
    (
        "gemini",
        ".gemini/tmp/shop-api/chats/session-2026-11-30T08-11-91700103.jsonl",
        "91700103-d86c-4b78-a644-1859e018e21c",
    ),
]


def build(home: Path, count: int) -> None:
    """`count` sessions, the fixtures copied in turn, each under a fresh id (in its name
    and its lines), in folders of up to 100."""
    for n in range(count):
        app, relative, old = FIXTURES[n % len(FIXTURES)]
        data = (DATA / app / "home" / relative).read_bytes()
        new = str(uuid.UUID(int=n + 1, version=4))
        if app == "codex":
            new = "01a22b81-" + new[9:]
        target = home / relative.replace(old[:8] if app == "gemini" else old, new)
        if app == "gemini":
            target = target.with_name(target.name.replace("91700103", new[:8]))
        if app == "claude":
            target = target.parent.parent / f"-home-alex-code-p{n // 100}" / target.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.replace(old.encode(), new.encode()))
        os.utime(target, (time.time() - 3 * 86400,) * 2)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_share(home: Path, sessions: int, seconds: float, poll: bool) -> float:
    """CPU of a real `sessdex watch --nl` over `seconds`, once it showed every session."""
    argv = [sys.executable, "-m", "sessdex", "watch", "--nl", "--home", str(home)]
    argv += ["--since", "100000d", "--limit", str(sessions)]
    argv += ["--duration", str(seconds + 600)] + (["--poll"] if poll else [])
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    try:
        for _ in range(sessions):
            process.stdout.readline()
        time.sleep(5)  # the start settles
        begun, start = cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        assert process.poll() is None, "watch ended before the window did"
        return (cpu_seconds(process.pid) - begun) / (time.monotonic() - start)
    finally:
        process.terminate()
        process.wait()


def terminal_share(home: Path, sessions: int, seconds: float) -> float:
    """CPU of a real `sessdex watch` drawing its live board on a pseudo-terminal over
    `seconds`, once it showed the board and settled; what it writes is read and dropped."""
    import pty
    import threading

    argv = [sys.executable, "-m", "sessdex", "watch", "--home", str(home)]
    argv += ["--since", "100000d", "--limit", str(sessions)]
    argv += ["--duration", str(seconds + 600)]
    master, slave = pty.openpty()
    shown = threading.Event()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            if b"ended (" in chunk:
                shown.set()

    threading.Thread(target=drain, daemon=True).start()
    env = {**os.environ, "COLUMNS": "160", "LINES": "50", "TERM": "xterm"}
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env
    )
    try:
        assert shown.wait(600), "the board never showed"
        time.sleep(5)  # the start settles
        begun, start = cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        assert process.poll() is None, "watch ended before the window did"
        return (cpu_seconds(process.pid) - begun) / (time.monotonic() - start)
    finally:
        process.terminate()
        process.wait()
        os.close(slave)
        os.close(master)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--process", type=float, default=0.0)
    parser.add_argument("--terminal", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SESSDEX_HOME"] = str(Path(tmp) / "state")
        home_path = Path(tmp) / "home"
        shutil.copytree(DATA / "gemini" / "home" / ".gemini", home_path / ".gemini")
        shutil.rmtree(home_path / ".gemini" / "tmp")
        build(home_path, args.sessions)

        from sessdex import api
        from sessdex.live import Board, Processes
        from sessdex.model import Session
        from sessdex.sources import Home

        home = Home.at(home_path)
        apps = [app for app, _, _ in FIXTURES]

        def listed() -> list[Session]:
            return api.list_sessions(home, apps=apps, since="100000d").sessions()

        class NoProcesses(Processes):
            def refresh(self) -> bool:
                return False

        board = Board(listed, processes=NoProcesses())
        started = time.process_time()
        board.rescan()
        board.poll()
        rows = board.rows()
        first = time.process_time() - started
        statuses = {r.status.status for r in rows}
        refresh, rescan = [], []
        for _ in range(args.repeats):
            started = time.process_time()
            board.poll()
            board.rows()
            refresh.append(time.process_time() - started)
            started = time.process_time()
            board.rescan()
            rescan.append(time.process_time() - started)
        print(f"{len(rows)} sessions followed ({', '.join(sorted(statuses))})")
        print(f"first read of them all: {first * 1000:.0f} ms CPU")
        print(
            f"one refresh (poll + rows): median {statistics.median(refresh) * 1000:.1f} ms"
            f" CPU (min {min(refresh) * 1000:.1f}, max {max(refresh) * 1000:.1f})"
        )
        print(
            f"one rescan (warm index list): median {statistics.median(rescan) * 1000:.1f}"
            f" ms CPU (min {min(rescan) * 1000:.1f}, max {max(rescan) * 1000:.1f})"
        )
        if args.process and args.terminal:
            shares = sorted(
                terminal_share(home_path, len(rows), args.process) for _ in range(3)
            )
            print(
                f"sessdex watch on a terminal: median {shares[1] * 100:.2f} % of a"
                f" core over {args.process:.0f} s (runs: "
                + ", ".join(f"{share * 100:.2f}" for share in shares)
                + ")"
            )
        elif args.process:
            for name, poll in (("notifications", False), ("polling", True)):
                shares = sorted(
                    process_share(home_path, len(rows), args.process, poll)
                    for _ in range(3)
                )
                print(
                    f"sessdex watch --nl, {name}: median {shares[1] * 100:.2f} % of a"
                    f" core over {args.process:.0f} s (runs: "
                    + ", ".join(f"{share * 100:.2f}" for share in shares)
                    + ")"
                )


if __name__ == "__main__":
    main()
