"""A warm `sessdex usage session --json` of a Claude Code 1.0 project whose --leads leads
each hold side chains (`isSidechain` lines, named by reading the whole lead), after the
project folder changed around them, this tree against --baseline-src (an older checkout's
src/).

The leads are copies of the 1.0.98 fixture's (ids, message ids and line uuids made their
own), without the summary each opens with: as 1.0 left them, that summary is at the head of
the transcript it started next, one more file of the folder, which titles them all.
Timed, the CPU time (user + system) of the process, medians of --runs, each run after:
(a) one new file in the folder (a 1.0 transcript without summaries);
(b) the file that titles them deleted (Claude Code's clean-up of old transcripts): the
    leads' listings change (their titles), their files do not.
The names are checked the same in both trees.

    .venv/bin/python bench/bench_usage_side_chains.py --baseline-src /path/to/old/src
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, environment, median, ms, run, sessdex

FIXTURE = (
    ROOT
    / "tests/data/claude/home/.claude/projects/-path-to-Demo"
    / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
COMPACT = {"separators": (",", ":")}  # as Claude Code writes its lines


def build(folder: Path, leads: int) -> Path:
    """The leads, and the transcript that opens with their summaries (returned)."""
    folder.mkdir(parents=True)
    lines = FIXTURE.read_text().splitlines(keepends=True)[
        1:
    ]  # its own summary left out
    text = "".join(lines)
    summaries = []
    for n in range(leads):
        space = uuid.UUID(int=n + 1)
        own = _UUID.sub(lambda m, s=space: str(uuid.uuid5(s, m[0])), text)  # type: ignore[misc]
        own = own.replace('"msg_', f'"msg_{n}x').replace('"req_', f'"req_{n}x')
        first = json.loads(own.partition("\n")[0])
        (folder / f"{first['sessionId']}.jsonl").write_text(own)
        leaf = json.loads(own.rstrip("\n").rpartition("\n")[2])["uuid"]
        summaries.append({"type": "summary", "summary": f"Lead {n}", "leafUuid": leaf})
    return write_next(folder, "0" * 8 + "-0000-4000-8000-000000000000", summaries)


def write_next(folder: Path, session: str, summaries: list[dict[str, str]]) -> Path:
    """A 1.0 transcript of one prompt, opening with `summaries`."""
    first = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "cwd": "/path/to/Demo",
        "sessionId": session,
        "version": "1.0.98",
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, session)),
        "timestamp": "2025-09-05T09:00:00.000Z",
        "message": {"role": "user", "content": "go on"},
    }
    path = folder / f"{session}.jsonl"
    lines = [*summaries, first]
    path.write_text("".join(json.dumps(x, **COMPACT) + "\n" for x in lines))  # type: ignore[arg-type]
    return path


def names(output: bytes) -> list[tuple[str, object, object]]:
    return sorted(
        (row["key"], agent["agent_type"], agent["title"])
        for row in json.loads(output)
        for agent in row["agents"]
        if agent["id"] != row["key"]  # the lead, by its session's title
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--leads", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        folder = home / ".claude/projects/-path-to-Demo"
        titling = build(folder, options.leads)
        kept = titling.read_bytes()
        argv = [*sessdex("usage", "session", "--json"), "--home", str(home)]
        trees = {
            "this tree": environment(Path(tmp) / "state-new"),
            "baseline": dict(
                environment(Path(tmp) / "state-old"),
                PYTHONPATH=str(options.baseline_src.resolve()),
            ),
        }
        said = {}
        for tree, env in trees.items():  # the index built, the names read once
            said[tree] = names(run(argv, env, keep_stdout=True).stdout)
        assert said["this tree"] == said["baseline"], "the trees name them apart"
        cpu: dict[tuple[str, str], list[float]] = {}
        for n in range(options.runs):
            order = list(trees.items())[:: 1 if n % 2 == 0 else -1]
            write_next(folder, str(uuid.UUID(int=n + 1)), [])  # (a)
            for tree, env in order:
                done = run(argv, env, keep_stdout=True)
                cpu.setdefault(("new file", tree), []).append(done.cpu)
                assert names(done.stdout) == said[tree]
            # the titling file back, and the leads listed again with it: a file of the
            # project deleted lists them again (one coming back does not)
            titling.write_bytes(kept)
            passing = write_next(folder, str(uuid.UUID(int=10_000 + n)), [])
            for _, env in order:
                run(argv, env)
            passing.unlink()
            for _, env in order:
                run(argv, env)
            titling.unlink()  # (b)
            for tree, env in order:
                done = run(argv, env, keep_stdout=True)
                cpu.setdefault(("titling file deleted", tree), []).append(done.cpu)
                assert names(done.stdout) == said[tree]
        print(f"{options.leads} leads with side chains, CPU medians of {options.runs}:")
        for case in ("new file", "titling file deleted"):
            new, old = (median(cpu[case, tree]) for tree in trees)
            print(
                f"  warm usage session --json after the {case}: this tree {ms(new)}, "
                f"baseline {ms(old)} ({new / old:.2f}x)"
            )


if __name__ == "__main__":
    main()
