"""What a warm full command costs to start: CPU time, wall time and modules imported.

On a copy of the demo home (or --home), the index built first and nothing changed since:
`show <id> --json`, `list --json` on the full path (`SESSDEX_NO_QUICK=1`), the same just
after the first folder holding a file was stamped now (a session begun: its app is listed
again), `find` on the full path, `list -v`, `usage`, `doctor` and `export <id> -o FILE` (as from
the user's own home: HOME the copy). Each command runs --runs times,
alternating with the others (and with `--baseline-src`'s, an older checkout's `src/`,
where given), with the bytecode cache on (see `_common`); the figures are medians. A run
of each under a small wrapper counts the modules it imported (`sys.modules` at exit) and
the `sessdex.sources` modules among them (`-X importtime` misses those:
`importlib.import_module` is not timed). With a baseline, each command's stdout must be
the same bytes. Usage:

    .venv/bin/python bench/bench_startup.py [--home DIR] [--runs 7] [--baseline-src OLD/src]
        [--only LABEL ...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, ROOT, Run, environment, median, run

# the wrapper that runs the real entry point and notes, at exit, what it imported
_COUNTED = (
    "import atexit, sys\n"
    "note = sys.argv[1]\n"
    "def _note():\n"
    "    names = [n for n in sys.modules if n.startswith('sessdex.sources.')]\n"
    "    with open(note, 'w') as f:\n"
    "        f.write(f'{len(sys.modules)} {len(names)}')\n"
    "atexit.register(_note)\n"
    "sys.argv = ['sessdex', *sys.argv[2:]]\n"
    "from sessdex.launch import main\n"
    "main()\n"
)


# run on the user's own home (HOME the copy, no --home): an export from another home
# checks the user's own apps' folders too, which an index of that home only knows
OWN = {"export <id> -o FILE"}


def commands(session: str, scratch: Path) -> dict[str, list[str]]:
    return {
        "show <id> --json": ["show", session, "--json"],
        "list --json (full)": ["list", "--json"],
        "find checkout (full)": ["find", "checkout", "--json"],
        "list -v": ["list", "-v"],
        "usage": ["usage"],
        "doctor": ["doctor"],
        "export <id> -o FILE": ["export", session, "-o", str(scratch / "out.md")],
        # the folder of the first app's sessions just written (a session begun): its
        # app is listed again, by either path
        "list --json (touched)": ["list", "--json"],
    }


def touched(home: Path, argv: list[str], env: dict[str, str], **how: bool) -> Run:
    """`argv` run just after the first folder under `home` that holds a file was stamped
    with the time now; then, its stamp put back, the index brought up to date again (the
    stamp was too new to be trusted), so that the next command finds nothing changed."""
    folder = next(folder for folder, _, names in sorted(os.walk(home)) if names)
    before = os.stat(folder)
    os.utime(folder)
    done = run(argv, env, **how)
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    run(argv, env)
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=ROOT / "src/sessdex/demo/home")
    parser.add_argument("--session", default="3f2b9c1e", help="the id `show` reads")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="LABEL",
        help="run only this command (repeatable; a home with no session: "
        "'list --json (full)', 'find checkout (full)', 'list -v', 'doctor')",
    )
    options = parser.parse_args()
    trees = {"this tree": ROOT / "src"}
    if options.baseline_src is not None:
        trees["baseline"] = options.baseline_src.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        shutil.copytree(options.home, home, symlinks=True)
        envs = {}
        for name, src in trees.items():
            env = environment(Path(scratch) / f"state-{len(envs)}")
            env["PYTHONPATH"] = str(src)
            env["SESSDEX_NO_QUICK"] = "1"
            env["COLUMNS"] = "120"
            envs[name] = env
        argvs = {
            label: [PYTHON, "-m", "sessdex", *args]
            + ([] if label in OWN else ["--home", str(home)])
            for label, args in commands(options.session, Path(scratch)).items()
            if not options.only or label in options.only
        }

        def env_of(label: str, env: dict[str, str]) -> dict[str, str]:
            return dict(env, HOME=str(home)) if label in OWN else env

        outputs: dict[tuple[str, str], bytes] = {}
        for tree, env in envs.items():  # the index, and the bytecode cache, built
            for label, argv in argvs.items():
                env = env_of(label, envs[tree])
                run(argv, env)
                if "touched" in label:
                    done = touched(home, argv, env, keep_stdout=True)
                else:
                    done = run(argv, env, keep_stdout=True)
                if done.returncode != 0:
                    raise SystemExit(f"{label} ({tree}) failed: {done.stderr[-500:]}")
                # sessdex's own folder and index (doctor names them) are each tree's own
                # (and its size, which a schema's new column changes)
                state = env["SESSDEX_HOME"].encode()
                outputs[tree, label] = re.sub(
                    rb"index-[0-9a-f-]+\.sqlite",
                    b"<index>",
                    re.sub(
                        rb"(?m)^(  index +)[0-9.]+ [KMGT]?B",
                        rb"\1<size>",
                        done.stdout.replace(state, b"<state>"),
                    ),
                )
        cpu: dict[tuple[str, str], list[float]] = {k: [] for k in outputs}
        wall: dict[tuple[str, str], list[float]] = {k: [] for k in outputs}
        for _ in range(options.runs):
            for label, argv in argvs.items():
                for tree in envs:
                    env = env_of(label, envs[tree])
                    if "touched" in label:
                        done = touched(home, argv, env)
                    else:
                        done = run(argv, env)
                    cpu[tree, label].append(done.cpu)
                    wall[tree, label].append(done.seconds)
        counted: dict[tuple[str, str], str] = {}
        for tree, label in outputs:
            env = env_of(label, envs[tree])
            note = Path(scratch) / "modules"
            counting = [PYTHON, "-c", _COUNTED, str(note), *argvs[label][3:]]
            if "touched" in label:
                touched(home, counting, env)
            else:
                run(counting, env)
            modules, in_sources = note.read_text().split()
            counted[tree, label] = f"{modules} modules, {in_sources} of sources"
    print(f"medians of {options.runs} runs, warm, nothing changed; CPU / wall")
    for label in argvs:
        for tree in trees:
            key = (tree, label)
            print(
                f"  {label:22} {tree:9}  {median(cpu[key]) * 1000:6.1f} ms CPU"
                f"  {median(wall[key]) * 1000:6.1f} ms wall  {counted[key]}"
            )
    differ = [
        label for label in argvs if len({outputs[tree, label] for tree in trees}) > 1
    ]
    if len(trees) > 1:
        print("same stdout:", "no, " + ", ".join(differ) if differ else "yes, each")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
