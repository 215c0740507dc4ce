"""`export -f md` of adversarial replies: the time to make a reply inert grows with its
size, not faster. Each shape (indented code, fences in quotes and in tab-indented list
items, code in a quote, stray backticks, underlines, late list items) is repeated N and
4 N times in one reply, rendered in this process (`views.markdown.render`), and the CPU
time of the larger is held to at most RATIO times the smaller's (4 for a linear cost).

Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_markdown.py [--repeat 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, median

RATIO = 6.0  # 4 times the text may cost this many times the time: linear, with slack

SHAPES = {
    "indented code": "para\n\n    code <x> `t`\n\n- a\n\n      code\n",
    "fence in a quote": "> ```\n> x ```` <y>\n> ```\n",
    "fence left open in a quote": "> ```\n> x\n",
    "fence in a tabbed item": "-\ta\n\t```\n\tx <b>\n\t```\n",
    "code in a quote": ">\n>     <b>\n> x\n",
    "code after a marker": "-     <b>\n      <i>\n",
    "tabs and headings": "-\ta\n\n\t\tc\n\n\t# h\n",
    "quotes, items, tables": "> - ```\n>\t# x\n    > ```\n|a|\n|-|\n",
    "underlines": "para\n---\n    <b>\n***\n-\n      <s>\n",
    "late items": "para\n2. # x\n\t>\n   2. #\n",
    "stray backticks": "`` ` ``` ",
}


def cpu_time(text: str) -> float:
    from sessdex.model import Event, Session
    from sessdex.views import markdown

    events = [Event("s", 0, "assistant", text=text), Event("s", 1, "user", text="x")]
    started = time.process_time()
    for _ in markdown.render(Session(app="claude", id="s"), events):
        pass
    return time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5000, help="N, the smaller size")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    for name, shape in SHAPES.items():
        small = median([cpu_time(shape * args.repeat) for _ in range(args.runs)])
        large = median([cpu_time(shape * 4 * args.repeat) for _ in range(args.runs)])
        ratio = large / small if small else 0.0
        report.check(
            f"{name}: 4 N <= {RATIO:g} x N",
            ratio <= RATIO,
            f"{small * 1000:.0f} ms, {large * 1000:.0f} ms ({ratio:.1f} x)",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
