"""The peak of Python memory (tracemalloc) `export -f md` takes for one tool call of a
huge input, as a multiple of the input's size, in process, imports warmed first.

Shapes, each of --mb MB: `command` a shell command of colour codes and CRLFs (its
summary line), `text` the same as a plain string input, `patch` an `apply_patch` of
added lines, `edit` an edit past `_DIFF_LINES` (old and new texts of short lines, --mb
in all). Target: each ≤ 0.1 times its input (a `text` ≤ 1.1: its one copy, the input
without its last newline). Usage:

    .venv/bin/python bench/bench_export_md_memory.py [--mb 20] [SHAPE ...]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from sessdex.model import Event, Session
from sessdex.views import markdown

LINE = "line \x1b[31m of text\r\n"


def shapes(size: int) -> dict[str, object]:
    return {
        "command": {"command": LINE * (size // len(LINE))},
        "text": LINE * (size // len(LINE)),
        "patch": "*** Begin Patch\n*** Update File: a.py\n@@\n"
        + "+added line\n" * (size // 12)
        + "*** End Patch\n",
        "edit": {
            "file_path": "a.py",
            "old_string": "old\n" * (size // 8),
            "new_string": "new\n" * (size // 8),
        },
    }


def render(value: object) -> str:
    call = Event("s", 1, "tool_call", tool="Edit", call_id="c", extra={"input": value})
    return "".join(markdown.render(Session(app="codex", id="s", title="t"), [call]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("shape", nargs="*")
    args = parser.parse_args()
    made = shapes(int(args.mb * 1024 * 1024))
    for value in shapes(4096).values():
        render(value)  # imports warmed
    for name in args.shape or made:
        value = made[name]
        values = value.values() if isinstance(value, dict) else [value]
        size = sum(len(v) for v in values if isinstance(v, str))
        start = time.process_time()
        tracemalloc.start()
        render(value)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        cpu = time.process_time() - start
        print(f"{name:8} {size / 1e6:6.1f} MB: peak {peak / 1e6:8.1f} MB, "
              f"{peak / size:6.2f} times; CPU {cpu:.1f} s", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
