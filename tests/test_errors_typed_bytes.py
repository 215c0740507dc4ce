"""An id or app name holding a byte that is not UTF-8 (`caf\\xe9` typed under LANG=C)
is shown in the error as that byte written out, `'caf\\xe9'`, as a file name's is; it
was `'caf\\udce9'`, Python's escape for it, which the user never typed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def _show_with_a_byte_typed(
    tmp_path: Path, shell: str
) -> tuple[dict[str, str], subprocess.CompletedProcess[bytes]]:
    """`sessdex show fe5e1c67 caf<0xe9>` under the C locale and SESSDEX_SHELL=`shell`:
    its environment and what it did."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG="C", LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    env["SESSDEX_SHELL"] = shell
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "show", "fe5e1c67", b"caf\xe9"],
        env={**env, "HOME": str(tmp_path)},
        capture_output=True,
        timeout=60,
    )
    return env, done


@pytest.mark.parametrize(("shell", "program"), [("bash", "bash"), ("sh", "dash")])
def test_the_find_hint_after_an_id_gives_back_a_byte_not_utf8(
    tmp_path: Path, shell: str, program: str
) -> None:
    """The `find` line the error names, pasted, passes the byte typed: it printed `?`."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    env, done = _show_with_a_byte_typed(tmp_path, shell)
    said = done.stderr.decode("ascii")  # nothing raw: every byte written out
    assert done.returncode == 2 and "?" not in said.split("came after it")[1], said
    # the line between the marks that quote it, its `sessdex` run as a program that
    # writes its words back
    hint = re.search(r"came after it; (.)(sessdex find .*?)\1 finds", said)
    assert hint is not None, said
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    echo = bin_dir / "sessdex"
    echo.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        "sys.stdout.buffer.write(b'|'.join(map(os.fsencode, sys.argv[1:])))\n"
    )
    echo.chmod(0o755)
    ran = subprocess.run(
        [program, "-c", hint.group(2)],
        env={**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"},
        capture_output=True,
        timeout=60,
    )
    assert ran.stdout == b"find|fe5e1c67|caf\xe9", ran.stderr


@pytest.mark.parametrize("shell", ["powershell", "cmd"])
def test_the_find_hint_names_the_word_a_shell_cannot_be_given(
    tmp_path: Path, shell: str
) -> None:
    """PowerShell and cmd cannot be given a byte that is not UTF-8: the hint said "that
    id cannot be typed", of a word the user typed after the id, not an id."""
    _, done = _show_with_a_byte_typed(tmp_path, shell)
    said = done.stderr.decode("ascii")
    assert done.returncode == 2, said
    assert "id cannot be typed" not in said
    assert "'sessdex find' ('caf\\xe9' cannot be typed in your shell)" in said, said
