"""CPU of `export -f md` of one tool call of a --mb (20) MB edit or patch, in process:
this tree against the shared lines found a line at a time and `if diff:` making the
diff's first line (the reference kept in tests/test_diffs_shared_ends.py), alternating,
the same Markdown checked. Medians of --runs.

Shapes: `same` (old and new the same), `middle` (one line changed in the middle),
`start` (a line added at the start), `whole` (every line replaced), `patch` (an
`apply_patch` of added lines). Usage:

    .venv/bin/python bench/bench_diffs.py [--mb 20] [--runs 5] [SHAPE ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sessdex.model import Event, Session
from sessdex.views import diffs, markdown

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_diffs_shared_ends import reference


def shapes(size: int) -> dict[str, object]:
    lines = size // 2 // 20
    base = "".join(f"line {n:>9} of it\n" for n in range(lines))  # 20 characters
    return {
        "same": {"file_path": "a", "old_string": base, "new_string": base},
        "middle": {
            "file_path": "a",
            "old_string": base,
            "new_string": base.replace(f"line {lines // 2:>9}", "line changed", 1),
        },
        "start": {"file_path": "a", "old_string": base, "new_string": "new\n" + base},
        "whole": {
            "file_path": "a",
            "old_string": "old\n" * (size // 8),
            "new_string": "new\n" * (size // 8),
        },
        "patch": "*** Begin Patch\n*** Update File: a.py\n@@\n"
        + "+added line\n" * (size // 12)
        + "*** End Patch\n",
    }


def render(value: object) -> str:
    call = Event("s", 1, "tool_call", tool="Edit", call_id="c", extra={"input": value})
    return "".join(markdown.render(Session(app="codex", id="s", title="t"), [call]))


def as_before() -> Callable[[], None]:
    """The reference's line-at-a-time ends and `bool`; undone by what it returns."""
    hunks_of, has = diffs._hunks_of, diffs._Remade.__bool__
    diffs._hunks_of = reference  # type: ignore[assignment]
    diffs._Remade.__bool__ = (  # type: ignore[method-assign]
        lambda self: next(diffs.diff_lines(self.value), None) is not None
    )

    def undo() -> None:
        diffs._hunks_of = hunks_of  # type: ignore[method-assign]
        diffs._Remade.__bool__ = has  # type: ignore[method-assign]

    return undo


def timed(value: object) -> tuple[float, str]:
    start = time.process_time()
    shown = render(value)
    return time.process_time() - start, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("shape", nargs="*")
    args = parser.parse_args()
    made = shapes(int(args.mb * 1024 * 1024))
    for value in shapes(4096).values():
        render(value)  # imports warmed
    for name in args.shape or made:
        now: list[float] = []
        before: list[float] = []
        for _ in range(args.runs):
            took, shown = timed(made[name])
            now.append(took)
            undo = as_before()
            try:
                took, was = timed(made[name])
            finally:
                undo()
            before.append(took)
            assert shown == was, name
        old, new = statistics.median(before), statistics.median(now)
        print(f"{name:7} before {old:6.3f} s, now {new:6.3f} s ({new / old:.2f}x)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
