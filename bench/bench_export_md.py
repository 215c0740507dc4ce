"""`export -f md` against `-f html` of one big Claude Code lead (`make_corpus.py
--real-bytes`: real replies, many with inline and indented code), CPU time, medians of
`--runs`, the formats and trees in turn; with `--baseline-src OLD/src`, that build's too,
and its Markdown compared byte for byte with this tree's.

Target: md ≤ 1.3x html; with a baseline, md's output the same bytes.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import ROOT, Report, environment, make_real, median, run, sessdex


def _export(env: dict[str, str], home: Path, sid: str, form: str, out: Path) -> float:
    argv = sessdex("export", "-f", form, "--home", str(home), sid, "-o", str(out))
    done = run(argv, env)
    if done.returncode != 0:
        raise SystemExit(f"export -f {form} failed: {done.stderr[-500:]}")
    return done.cpu  # CPU: wall time on 2 shared cores moved 40 %


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=60, help="the lead's size")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, help="an older tree's src/")
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-export-md-"))
    manifest = make_real(work / "lead", args.mb)
    home, sid = work / "lead/home", manifest["sessions"][0]["id"]
    trees = {"this tree": ROOT / "src"}
    if args.baseline_src is not None:
        trees["baseline"] = args.baseline_src.resolve()
    envs = {}
    for name, src in trees.items():
        env = environment(work / f"state-{len(envs)}")
        env["PYTHONPATH"] = str(src)
        envs[name] = env
        _export(env, home, sid, "md", work / "warm.md")  # the cache, the bytecode
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for name, env in envs.items():
            for form in ("md", "html"):
                out = work / f"{len(times)}-{form}"
                seconds = _export(env, home, sid, form, out)
                times.setdefault((name, form), []).append(seconds)
                (work / f"{name}.{form}").write_bytes(out.read_bytes())
                out.unlink()
    for (name, form), values in times.items():
        shown = ", ".join(f"{v:.2f}" for v in sorted(values))
        report.note(f"{name} {form}: median {median(values):.2f} s ({shown})")
    for name in envs:
        ratio = median(times[name, "md"]) / median(times[name, "html"])
        report.check(f"{name}: md / html", ratio <= 1.3, f"{ratio:.2f}x")
    if "baseline" in envs:
        same = (work / "this tree.md").read_bytes() == (
            work / "baseline.md"
        ).read_bytes()
        report.check(
            "md output as the baseline's", same, "same bytes" if same else "differs"
        )
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
