"""`resume` judges the program a wrapper starts, not the wrapper: Nix's makeWrapper
script (`exec -a "$0" "/nix/store/…/.goose-wrapped" "$@"`), its makeBinaryWrapper (a
small compiled program holding the target's path), a Homebrew exec script. Such a
wrapper names no package, so the app's own CLI was refused as another program, and a
compiled wrapper around another program (a Go `goose`) was taken for the app's."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from sessdex import api, programs
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"
SESSIONS = {
    "goose": "20261201_1",
    "amp": "T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a",
    "pi": "01a22b83-eeaa-75d4-a59d-adc5e4fb9817",
}


def _elf(note: bytes = b"", tail: bytes = b"") -> bytes:
    """A 64-bit little-endian ELF with one note segment holding `note`, then `tail`."""
    header = b"\x7fELF\x02\x01\x01" + b"\x00" * 9
    header += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    segment = struct.pack("<IIQQQQQQ", 4, 4, 120, 0, 0, len(note), len(note), 4)
    return header + segment + note + b"\x00" * 4096 + tail


GO = _elf(struct.pack("<III", 3, 7, 4) + b"Go\x00\x00abc/def\x00")
RUST = _elf()
BUN = _elf(tail=b"\n---- Bun! ----\n")


def _file(path: Path, content: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(0o755)
    return path


def _nix_script(target: Path) -> bytes:
    """What nixpkgs' makeWrapper (wrapProgram) writes."""
    return (
        b"#! /nix/store/0000-bash-5.2p37/bin/bash -e\n"
        b"export PATH='/nix/store/1111-git/bin'${PATH:+':'}$PATH\n"
        b'exec -a "$0" "' + str(target).encode() + b'"  "$@" \n'
    )


def _nix_binary(target: Path) -> bytes:
    """What nixpkgs' makeBinaryWrapper compiles: a small C program; its docstring and
    its execv() keep the target's path as text."""
    docstring = (
        b"\n\n\n# ----------------------------------------------------------\n"
        b"# The C-code for this binary wrapper has been generated using the following "
        b"command:\n\n\nmakeCWrapper "
        + str(target).encode()
        + b" \\\n    --inherit-argv0\n\n\n"
    )
    return _elf(tail=str(target).encode() + b"\x00" + docstring + b"\x00")


def _check(app: str, program: Path, monkeypatch: pytest.MonkeyPatch) -> api.ResumeCheck:
    monkeypatch.setenv("PATH", str(program.parent))
    return api.check_resume(Home.at(DATA / app / "home"), f"{app}:{SESSIONS[app]}")


@pytest.mark.parametrize("shape", [_nix_script, _nix_binary])
def test_goose_judges_what_a_nix_wrapper_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: object
) -> None:
    make = shape if callable(shape) else None
    assert make is not None
    store = tmp_path / "nix/store/2222-goose-3.26.0/bin"
    wrapper = tmp_path / "bin" / "goose"
    _file(wrapper, make(_file(store / ".goose-wrapped", GO)))
    check = _check("goose", wrapper, monkeypatch)
    assert check.cli_path is None
    assert any("is another program" in r for r in check.refusals)
    _file(store / ".goose-wrapped", RUST)  # Block's, compiled Rust, in a store path
    assert _check("goose", wrapper, monkeypatch).cli_path == str(wrapper)


def test_a_homebrew_exec_script_that_names_no_package_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    libexec = _file(tmp_path / "opt/toolbox/libexec/goose", RUST)
    wrapper = _file(
        tmp_path / "bin" / "goose",
        b'#!/bin/bash\nGOOSE_X=1 exec "' + str(libexec).encode() + b'" "$@"\n',
    )
    assert _check("goose", wrapper, monkeypatch).cli_path == str(wrapper)


@pytest.mark.parametrize("shape", [_nix_script, _nix_binary])
def test_amp_and_pi_take_a_nix_wrapper_of_their_release_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: object
) -> None:
    make = shape if callable(shape) else None
    assert make is not None
    for app in ("amp", "pi"):
        store = tmp_path / f"nix/store/3333-{app}-1.0/bin"
        target = _file(store / f".{app}-wrapped", BUN)
        wrapper = _file(tmp_path / app / app, make(target))
        assert _check(app, wrapper, monkeypatch).cli_path == str(wrapper), app
        _file(target, RUST)  # another program of that name, wrapped
        assert _check(app, wrapper, monkeypatch).cli_path is None, app


def test_a_script_that_runs_an_interpreter_is_no_wrapper(tmp_path: Path) -> None:
    """`exec /usr/bin/node /…/@ampcode/cli/main.js "$@"` starts node: what the
    launcher names still decides, not node."""
    node = _file(tmp_path / "usr/bin/node", RUST)
    script = _file(
        tmp_path / "bin" / "amp",
        b'#!/bin/sh\nexec "' + str(node).encode() + b'" /x/@ampcode/cli/main.js "$@"\n',
    )
    assert programs.wrapped(str(script)) is None
    looping = tmp_path / "bin" / "loop"
    _file(looping, b'#!/bin/sh\nexec "' + str(looping).encode() + b'" "$@"\n')
    assert programs.wrapped(str(looping)) is None


def test_an_amp_script_that_only_mentions_a_word_starting_with_dot_amp_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Amp's installer folder is `~/.amp`: a launcher naming that folder is Amp's, one
    of another `amp` whose text merely holds `.amp` inside a longer name is not."""
    other = _file(
        tmp_path / "other" / "amp",
        b'#!/bin/sh\nexec python3 -m ampplayer --rc "$HOME/.ampplayerrc" "$@"\n',
    )
    assert _check("amp", other, monkeypatch).cli_path is None
    own = _file(
        tmp_path / "own" / "amp",
        b'#!/bin/sh\nexec "$HOME/.amp/bin/amp-cli" "$@"\n',
    )
    assert _check("amp", own, monkeypatch).cli_path == str(own)


def test_a_pipe_on_path_in_a_programs_place_is_never_waited_on(tmp_path: Path) -> None:
    # `resume` judges the program on PATH (a wrapper, a launcher, a Go build): a pipe
    # there (`mkfifo ~/bin/goose`) opened plainly waited for a writer, for ever
    import os
    import signal

    pipe = tmp_path / "goose"
    os.mkfifo(pipe)

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("a program's file waited on a pipe")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(5)
    try:
        assert programs.wrapped(str(pipe)) is None
        assert not programs.is_launcher(str(pipe))
        assert not programs.is_go(str(pipe))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
