"""How long `sessdex usage session` takes to print its table: the line-by-line `Layout`
against Rich laying out the same table, in one process; then the whole command.

(a) in process, for N = 100, 1000 and 5000 sessions (a fifth with a sub-agent, a tenth
    unpriced, titles with wide characters now and then): `table()` and `Layout.print`
    against `table()` and `console.print` of the same layout as a Rich `Table` (the path
    before), piped (160 columns, no colour) and on a terminal (120 columns, colour);
    the two outputs must be the same bytes. Target: at least 5 x faster at N = 1000.
(b) the whole `sessdex usage session` against `usage session --json` (warm index) on a
    generated home of --sessions Claude Code sessions. Target: the table costs at most
    1.5 x the JSON.

Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_usage_table.py [--sessions 2300] [--runs 5]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, environment, median, ms, run, sessdex

FAST_RATIO = 5.0  # at least this many times faster in process, N = 1000
COMMAND_RATIO = 1.5  # the table command against --json, at most
MODELS = [
    "claude-opus-4-8",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-imaginary-9",
]
# titles: mostly plain words, wide characters and emoji now and then
WORDS = ["fix", "the", "flaky", "checkout", "retry", "test", "in", "CI", "again", "add",
         "a", "page", "for", "设置", "日本語", "🙂", "naïve", "café"]  # fmt: skip


def title(r: random.Random) -> str:
    return " ".join(r.choice(WORDS) for _ in range(r.randint(2, 12)))


def rows(n: int, seed: int = 1) -> tuple[list, object]:
    from sessdex.usage import TOKENS, Row

    r = random.Random(seed)
    out = []
    total = Row("Total")

    def fill(row: Row) -> None:
        for name in TOKENS:
            setattr(row, name, r.randint(0, 10**8))
        row.models = set(r.sample(MODELS[:3], r.randint(1, 2)))
        row.cost = r.random() * 50
        if r.random() < 0.1:
            row.unpriced = {MODELS[3]}
            row.models.add(MODELS[3])
        for name in TOKENS:
            setattr(total, name, getattr(total, name) + getattr(row, name))
        total.cost += row.cost
        total.unpriced |= row.unpriced
        total.models |= row.models

    for k in range(n):
        row = Row(f"0191{r.getrandbits(32):08x}-{k:04x}-7000-8000-000000000000")
        row.about = {"title": title(r)}
        fill(row)
        if r.random() < 0.2:
            sub = Row("agent")
            fill(sub)
            row.agents[f"agent-{r.getrandbits(40):010x}"] = sub
        out.append(row)
    return out, total


def console(terminal: bool):
    from rich.console import Console

    if terminal:
        return Console(file=io.StringIO(), width=120, force_terminal=True, color_system="256", highlight=False, soft_wrap=False)  # fmt: skip
    return Console(file=io.StringIO(), width=160, highlight=False, soft_wrap=False)


def in_process(report: Report, runs: int) -> None:
    from sessdex.views.usage import table

    for n in (100, 1000, 5000):
        data, total = rows(n)
        for terminal in (False, True):
            fast, rich, build = [], [], []
            for _ in range(runs if n < 5000 else max(1, runs // 2)):
                out = console(terminal)
                started = time.perf_counter()
                layout = table("session", data, total, out.width)
                built = time.perf_counter()
                layout.print(out)
                fast.append(time.perf_counter() - started)
                build.append(built - started)
                reference = console(terminal)
                started = time.perf_counter()
                reference.print(table("session", data, total, reference.width))
                rich.append(time.perf_counter() - started)
                same = out.file.getvalue() == reference.file.getvalue()  # type: ignore[attr-defined]
                if not same:
                    report.check(f"same bytes, N={n}", False, "the outputs differ")
                    return
            where = "terminal 120" if terminal else "pipe 160"
            ratio = median(rich) / median(fast)
            detail = (
                f"Layout {ms(median(fast))} (table() {ms(median(build))}), Rich {ms(median(rich))}: "
                f"{ratio:.1f} x faster, same bytes"
            )
            if n == 1000:
                report.check(f"N={n}, {where}", ratio >= FAST_RATIO, detail + f" (target >= {FAST_RATIO})")  # fmt: skip
            else:
                report.note(f"  N={n}, {where}: {detail}")


def write_home(root: Path, sessions: int, seed: int = 1) -> None:
    """Claude Code sessions of a few responses each, a custom title on most, a sub-agent
    on every fifth."""
    r = random.Random(seed)
    for k in range(sessions):
        folder = root / ".claude" / "projects" / f"-w-project-{k % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        session = f"0191{r.getrandbits(32):08x}-{k:04x}-7000-8000-000000000000"
        day = f"2026-{1 + k % 12:02d}-{1 + k % 28:02d}T10:00:00.000Z"
        lines = [_response(session, f"{k}-{n}", r, day) for n in range(r.randint(1, 6))]
        if r.random() < 0.9:
            lines.append({"type": "custom-title", "customTitle": title(r), "sessionId": session})  # fmt: skip
        (folder / f"{session}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))  # fmt: skip
        if k % 5 == 0:
            agent = f"a{r.getrandbits(60):015x}"
            subagents = folder / session / "subagents"
            subagents.mkdir(parents=True)
            lines = [_response(session, f"{k}-s{n}", r, day, agent) for n in range(3)]
            (subagents / f"agent-{agent}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))  # fmt: skip


def _response(
    session: str, key: str, r: random.Random, day: str, agent: str | None = None
) -> dict[str, object]:
    line: dict[str, object] = {
        "type": "assistant",
        "uuid": f"u{key}",
        "parentUuid": None,
        "sessionId": session,
        "cwd": "/w/project",
        "timestamp": day,
        "requestId": f"r{key}",
        "isSidechain": agent is not None,
        "message": {
            "id": f"m{key}",
            "role": "assistant",
            "model": r.choice(MODELS),
            "content": [{"type": "text", "text": "done"}],
            "usage": {
                "input_tokens": r.randint(1, 10**5),
                "output_tokens": r.randint(1, 10**4),
                "cache_read_input_tokens": r.randint(0, 10**6),
                "cache_creation_input_tokens": r.randint(0, 10**5),
            },
        },
    }
    if agent is not None:
        line["agentId"] = agent
    return line


def whole_command(report: Report, sessions: int, runs: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-usage-table-"))
    try:
        home = work / "home"
        write_home(home, sessions)
        env = environment(work / "state")
        argv = sessdex("usage", "session", "--home", str(home), "--since", "3000w")
        first = run(argv, env, keep_stdout=True)  # the index, made once
        if first.returncode != 0:
            report.check("usage session ran", False, first.stderr[-500:])
            return
        lines = first.stdout.count(b"\n")
        table, as_json = [], []
        for _ in range(runs):
            table.append(run(argv, env).seconds)
            as_json.append(run([*argv, "--json"], env).seconds)
        ratio = median(table) / median(as_json)
        report.check(
            f"usage session, {sessions} sessions ({lines} lines), piped",
            ratio <= COMMAND_RATIO,
            f"table {ms(median(table))}, --json {ms(median(as_json))}: {ratio:.2f} x (target <= {COMMAND_RATIO})",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=2300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    in_process(report, args.runs)
    whole_command(report, args.sessions, args.runs)
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
