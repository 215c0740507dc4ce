"""A warm `sessdex list` printed as a table (the commonest command) takes the quick path
without loading `logging`, `dataclasses` and `inspect` (with `ast`, `dis`, `tokenize`:
some 25 ms of a warm list's 100), which `views.text` took in through `diagnostics` for
one small function (`written_out`, now in `cells`), nor `typing`, nor `shutil` (with
`zlib`, `bz2` and `lzma`, some 4 ms, for the terminal's width alone)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATA

DEMO = DATA.parent.parent / "src/sessdex/demo/home"


def test_the_warm_table_listing_loads_no_logging(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    args = ["list", "--home", str(home)]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    cold = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        check=True,
        env=env,
    )
    probe = (
        "import sys; from sessdex.launch import main; main(); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m in "
        "('sessdex.cli', 'click', 'sessdex.diagnostics', 'logging', 'dataclasses', "
        "'inspect', 'typing', 'shutil'))))"
    )
    warm = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, check=True, env=env
    )
    assert warm.stdout == cold.stdout and b"Checkout timeout" in warm.stdout
    assert warm.stderr.decode() == ""
