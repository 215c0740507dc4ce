"""Reading a chat an app keeps as one JSON document (Cline's tasks, Amp's threads, Gemini's
and Qwen's first chats, Copilot's old history) in pieces, against parsing it whole.

Past 4 MB such a document is read one message at a time (`jsonstream`), so memory stays
with one message and a pasted image is its note. This prints what that costs and saves,
each in its own process, against `orjson.loads` of the whole file in the same run:

(a) CPU time of `jsonstream.file_items` over a document of ordinary messages vs one parse;
(b) peak RSS of the same two, and of both over a document holding one 50 MB string;
(c) CPU time over a chat laid out as Gemini CLI and Qwen Code write it (JSON.stringify
    indented, messages under "messages"), against reading its bytes and one parse.

(d) CPU time of `show --tail 50` (the api's `transcript(tail=50)`) over (c)'s chat, in one
    process: now, with events made as before (the frozen dataclass's __init__ in
    `Emitter`), and decoding its messages alone, the tail read whole as a chat that cannot
    be read from its end is (`gemini.read_last` taken away: `bench_document_tail.py`
    measures that hook): every message translated, so only the decoding is a floor the
    translating adds to.

In (a) and (c) the walk before elements were found by how they are parted (the scanner
alone, a few bytes at a time) is measured too, in the same run: the gain is its ratio.
Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_documents.py [--mb 32] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, Report, environment, median

PIECES_RATIO = 1.5  # the piece reader may cost this many whole parses, not more
GAIN_RATIO = 0.6  # and at most this share of the scanner's walk alone
RSS_RATIO = 0.25  # and must hold at most this share of what a whole parse holds
EMIT_RATIO = 0.97  # a tail's read, its events made as now, vs as before

MEASURE = r"""
import resource, sys, time
how, path, key = sys.argv[1], sys.argv[2], sys.argv[3] or None
started = time.process_time()
if how == "bytes":
    with open(path, "rb") as f:
        count = len(f.read())
elif how == "whole":
    import orjson
    with open(path, "rb") as f:
        value = orjson.loads(f.read())
    count = len(value[key] if key else value)
else:
    from sessdex import jsonstream
    from sessdex.diagnostics import Diagnostics
    if how == "scanner":  # as before elements were found by how they are parted
        jsonstream._Parting.element = lambda self, scanner, first: jsonstream._MISSED
    count = sum(1 for _ in jsonstream.file_items(path, key, Diagnostics(), "bench"))
cpu = time.process_time() - started
print(cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, count)
"""


TAIL = r"""
import statistics, sys, time
from pathlib import Path
from sessdex import files, jsonstream
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.resolving import resolve
from sessdex.sources import Home, gemini
from sessdex.sources._values import Emitter, _noted, plain
from sessdex.transcripts import transcript

del gemini.read_last  # the whole read, every message translated

home, path, runs = Home.at(Path(sys.argv[1])), sys.argv[2], int(sys.argv[3])
now = Emitter.__call__


def before(self, kind, time=None, *, estimated=False, **fields):  # as it was
    text = fields.get("text")
    if text is not None and text.startswith(files.ELIDED_PREFIX):
        fields["text"] = plain(text)
    extra = fields.get("extra")
    if extra and "input" in extra:
        noted = _noted(extra["input"])
        if noted is not extra["input"]:
            fields["extra"] = {**extra, "input": noted}
    event = Event(self.session_id, self.seq, kind, time,
                  time_estimated=estimated and time is not None, **fields)
    self.seq += 1
    return event


def tail():
    return [(e.seq, e.kind) for e in transcript(home, "5a1e9c3b", tail=50).events]


def decode():
    return sum(1 for _ in jsonstream.file_items(path, "messages", Diagnostics(), "b"))


resolve(home, "5a1e9c3b")  # the index made, as a warm `show` finds it
times = {"now": [], "before": [], "decode": []}
shown = {}
for _ in range(runs):
    for how, call in (("now", now), ("before", before), ("decode", None)):
        Emitter.__call__ = call or now
        started = time.process_time()
        shown[how] = tail() if call else decode()
        times[how].append(time.process_time() - started)
Emitter.__call__ = now
assert shown["now"] == shown["before"], "the tails differ"
print(*(statistics.median(times[how]) for how in ("now", "before", "decode")))
"""


def write_messages(path: Path, megabytes: int) -> int:
    """A Cline-like `ui_messages.json`: many messages, nested values, escaped text."""
    messages = []
    size = n = 0
    while size < megabytes * 1024 * 1024:
        text = json.dumps({"tool": "readFile", "path": f"src/m{n}.py",
                           "content": "x = 1\n" * (1 + n % 60)})  # fmt: skip
        message = {"ts": 1740470406000 + n, "type": "say", "say": "tool", "text": text,
                   "partial": False, "meta": {"a": [1, 2, {"b": "c"}]}}  # fmt: skip
        size += len(json.dumps(message)) + 2
        messages.append(message)
        n += 1
    path.write_text(json.dumps(messages))
    return n


def write_chat(path: Path, megabytes: int) -> int:
    """A Gemini CLI chat as it writes one: prompts, and answers running a tool each."""
    rng = random.Random(3)
    words = ["the", "to", "def", "return", "self", "if", '"quoted"', "[0]", "{x}", "\\"]
    messages: list[dict[str, object]] = []
    size = n = 0
    while size < megabytes * 1024 * 1024:
        stamp = f"2025-11-02T10:{n // 60 % 60:02}:{n % 60:02}.000Z"
        if n % 2 == 0:
            message: dict[str, object] = {"id": f"m{n}", "timestamp": stamp,
                "type": "user", "content": " ".join(rng.choices(words, k=40))}  # fmt: skip
        else:
            output = " ".join(rng.choices(words, k=rng.randint(200, 2000)))
            call = {"id": f"run_shell_command-{n}", "name": "run_shell_command",
                    "args": {"command": "pytest -q"}, "status": "success",
                    "result": [{"functionResponse": {"id": f"run_shell_command-{n}",
                        "name": "run_shell_command", "response": {"output": output}}}]}  # fmt: skip
            message = {"id": f"m{n}", "timestamp": stamp, "type": "gemini",
                       "content": "Ran the tests.", "model": "gemini-2.5-pro",
                       "tokens": {"input": 1000, "output": 50}, "toolCalls": [call]}  # fmt: skip
        size += len(json.dumps(message, indent=2)) + 8
        messages.append(message)
        n += 1
    chat = {"sessionId": "5a1e9c3b", "projectHash": "0" * 64,
            "startTime": "2025-11-02T10:15:00.000Z", "messages": messages}  # fmt: skip
    path.write_text(json.dumps(chat, indent=2))
    return n


def write_pasted(path: Path) -> None:
    """Three messages, one of them a 50 MB pasted image."""
    image = "iVBORw0KGgo" + "A" * (50 * 1024 * 1024)
    messages = [{"ts": 1, "type": "say", "say": "task", "text": "look"},
                {"ts": 2, "type": "say", "say": "text", "text": image},
                {"ts": 3, "type": "say", "say": "text", "text": "done"}]  # fmt: skip
    path.write_text(json.dumps(messages))


def measure(how: str, path: Path, runs: int, key: str = "") -> tuple[float, float]:
    """(median CPU seconds, median peak RSS bytes) of reading `path` `how`."""
    cpu, rss = [], []
    for _ in range(runs):
        done = subprocess.run(
            [PYTHON, "-c", MEASURE, how, str(path), key],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, peak, _ = done.stdout.split()
        cpu.append(float(seconds))
        rss.append(float(peak))
    return median(cpu), median(rss)


def write(kind: str, path: Path, megabytes: int) -> int:
    """Write the document of `kind` in a process of its own (a child's peak RSS starts
    at its parent's); how many messages it holds."""
    argv = [PYTHON, __file__, "--mb", str(megabytes), "--write", kind, str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return int(done.stdout or 0)


def against_the_scanner(
    report: Report, path: Path, runs: int, key: str, whole_cpu: float
) -> tuple[float, float]:
    """CPU and RSS of reading in pieces, its ratios to a whole parse and to the
    scanner's walk alone noted and checked."""
    piece_cpu, piece_rss = measure("pieces", path, runs, key)
    scanner_cpu, _ = measure("scanner", path, runs, key)
    report.note(f"  scanner alone:      {scanner_cpu:.2f} s CPU")
    report.note(
        f"  jsonstream pieces:  {piece_cpu:.2f} s CPU, {piece_rss / 2**20:.0f} MB"
    )
    ratio = piece_cpu / whole_cpu
    report.check(
        f"pieces <= {PIECES_RATIO:g}x a whole parse",
        ratio <= PIECES_RATIO,
        f"{ratio:.2f}x",
    )
    gain = piece_cpu / scanner_cpu
    report.check(
        f"pieces <= {GAIN_RATIO:g}x the scanner alone",
        gain <= GAIN_RATIO,
        f"{gain:.2f}x",
    )
    return piece_cpu, piece_rss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=32)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        kind, path = args.write
        if kind == "pasted":
            write_pasted(Path(path))
        else:
            writer = write_chat if kind == "chat" else write_messages
            print(writer(Path(path), args.mb))
        return 0
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-documents-") as folder:
        ordinary, pasted = Path(folder) / "ordinary.json", Path(folder) / "pasted.json"
        chat = Path(folder) / "chat.json"
        count = write("ordinary", ordinary, args.mb)
        write("pasted", pasted, args.mb)
        report.note(
            f"(a) {args.mb} MB of {count} messages, read in pieces vs parsed whole"
        )
        whole_cpu, whole_rss = measure("whole", ordinary, args.runs)
        report.note(
            f"  orjson.loads whole: {whole_cpu:.2f} s CPU, {whole_rss / 2**20:.0f} MB"
        )
        _, piece_rss = against_the_scanner(report, ordinary, args.runs, "", whole_cpu)
        report.note("(b) one 50 MB pasted string, peak RSS")
        _, whole_big = measure("whole", pasted, args.runs)
        _, piece_big = measure("pieces", pasted, args.runs)
        report.note(
            f"  whole: {whole_big / 2**20:.0f} MB, pieces: {piece_big / 2**20:.0f} MB"
        )
        for name, piece, whole in (
            ("ordinary messages", piece_rss, whole_rss),
            ("a 50 MB string", piece_big, whole_big),
        ):
            report.check(
                f"RSS in pieces <= {RSS_RATIO:g}x whole ({name})",
                piece <= RSS_RATIO * whole,
                f"{piece / whole:.2f}x",
            )
        pasted.unlink()
        count = write("chat", chat, args.mb)
        report.note(f"(c) a {args.mb} MB Gemini-like chat of {count} messages")
        read_cpu, _ = measure("bytes", chat, args.runs)
        whole_cpu, _ = measure("whole", chat, args.runs, "messages")
        report.note(f"  reading its bytes:  {read_cpu:.2f} s CPU")
        report.note(f"  orjson.loads whole: {whole_cpu:.2f} s CPU")
        against_the_scanner(report, chat, args.runs, "messages", whole_cpu)
        tail_of_a_chat(report, chat, args.runs)
    return report.summary()


def tail_of_a_chat(report: Report, chat: Path, runs: int) -> None:
    """(d): the chat's last 50 events, now and with events made as before."""
    home = chat.parent / "home"
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    placed = chats / "session-2025-11-02T10-15-5a1e9c3b.json"
    chat.rename(placed)
    argv = [PYTHON, "-c", TAIL, str(home), str(placed), str(runs)]
    env = environment(chat.parent / "state")
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    now, before, decode = (float(x) for x in done.stdout.split())
    report.note("(d) show --tail 50 of (c)'s chat, in one process")
    report.note(f"  decoding its messages alone: {decode:.2f} s CPU")
    report.note(f"  events made as before:       {before:.2f} s CPU")
    report.note(f"  now:                         {now:.2f} s CPU")
    report.check(
        f"tail now <= {EMIT_RATIO:g}x as before",
        now <= EMIT_RATIO * before,
        f"{now / before:.2f}x",
    )


if __name__ == "__main__":
    sys.exit(main())
