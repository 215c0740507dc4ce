"""An id or app name holding a byte that is not UTF-8 (`caf\\xe9` typed under LANG=C)
is shown in the error as that byte written out, `'caf\\xe9'`, as a file name's is; it
was `'caf\\udce9'`, Python's escape for it, which the user never typed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import app_home


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["show", b"caf\xe9"], "no session id starts with 'caf\\xe9'."),
        (["resume", b"caf\xe9", "--print"], "no session id starts with 'caf\\xe9'."),
        (["list", "--app", b"caf\xe9"], "unknown app 'caf\\xe9'."),
        # the words a command echoes when it refuses them
        (["usage", b"caf\xe9"], "'caf\\xe9' is no usage report"),
        ([b"caf\xe9"], "No such command 'caf\\xe9'."),
        (["show", "fe5e1c67", b"caf\xe9"], "and 'caf\\xe9' came after it"),
        (
            ["list", "--home", b"/nowhere/caf\xe9"],
            "the folder '/nowhere/caf\\xe9' does",
        ),
        (
            ["export", "fe5e1c67", "-o", b"/nowhere/caf\xe9/it.md"],
            "the folder '/nowhere/caf\\xe9' does not exist",
        ),
    ],
)
def test_a_byte_not_utf8_is_written_out_in_the_error(
    args: list[str | bytes], said: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG="C", LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    home = [] if "--home" in args else ["--home", str(app_home("claude"))]
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args, *home],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode in (1, 2)
    assert said.encode() in done.stderr, done.stderr
    assert b"udc" not in done.stderr


def test_a_typed_backslash_stays_as_typed() -> None:
    from sessdex.errors import typed

    assert typed("a\\udce9") == repr("a\\udce9")  # the six characters the user typed
    assert typed("it's\udce9") == '"it\'s\\xe9"'
