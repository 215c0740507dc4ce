"""The user's own home (no --home given) whose name is not valid UTF-8 is no usage error:
the user typed nothing wrong. sessdex says which folder and how to read it, and exits 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.skipif(sys.platform != "linux", reason="file names as bytes")
@pytest.mark.parametrize(
    "command", [["list"], ["list", "--json"], ["usage"], ["doctor"], ["show", "c0ffee"]]
)
def test_an_own_home_not_in_utf8_is_said_as_an_error_not_a_usage_error(
    tmp_path: Path, command: list[str]
) -> None:
    home = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(home)
    env = {
        key: value
        for key, value in os.environb.items()
        if not key.startswith((b"XDG_", b"SESSDEX_"))
    }
    env[b"HOME"] = home
    result = subprocess.run(
        [sys.executable, "-m", "sessdex", *command],
        env=env,
        capture_output=True,
        timeout=120,
    )
    said = result.stderr.decode()
    assert result.returncode == 1, said
    assert result.stdout == b""
    assert "Usage:" not in said and "Traceback" not in said
    assert "your home folder" in said and "caf\\xe9' (HOME)" in said, said
    assert "ln -s" in said and "--home" in said
