"""`sessdex list` starts fast: the heavy libraries load only in the commands that need them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("rich", "starlette", "mcp", "uvicorn", "zstandard", "watchfiles")


def test_cli_import_does_not_load_heavy_libraries() -> None:
    code = "import sys, sessdex.cli, sessdex.api, sessdex.index; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert not [name for name in HEAVY if name in loaded]


def test_public_names_are_pinned() -> None:
    import sessdex

    assert sessdex.__all__ == ["__version__"]
