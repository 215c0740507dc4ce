"""`sessdex demo` says that its `resume --print` line, run as printed, exits 1 here: it
showed the line alone, and the same command typed by hand said `Error: the session's
folder /home/demo/code/shop-api no longer exists` with exit 1, which the tour never told."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main


def test_the_demo_says_why_its_resume_line_exits_1_here(tmp_path: Path) -> None:
    runner = CliRunner(env={"HOME": str(tmp_path), "PATH": str(tmp_path)})
    demo = runner.invoke(main, ["demo"], catch_exceptions=False)
    assert demo.exit_code == 0
    line = next(x for x in demo.stdout.splitlines() if x.startswith("$ sessdex resume"))
    said = " ".join(demo.stderr.split())
    assert "run as printed, it exits 1 on this machine" in said, said
    assert "the session's folder /home/demo/code/shop-api no longer exists" in said, (
        said
    )
    # and so it does: the same refusal, with exit 1
    run = runner.invoke(main, shlex.split(line[2:])[1:], catch_exceptions=False)
    assert run.exit_code == 1
    assert (
        "the session's folder /home/demo/code/shop-api no longer exists" in run.stderr
    )
