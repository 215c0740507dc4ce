"""`resume` starts goose, amp and pi only where the program on PATH is the app's own:
those names are also other programs' (pressly/goose the SQL migration tool, the amp
editor, other `pi`s), which were given the session's words."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"
SESSIONS = {
    "goose": "20261201_1",
    "amp": "T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a",
    "pi": "01a22b83-eeaa-75d4-a59d-adc5e4fb9817",
    "copilot": "c0de9564-bb27-4c05-8bfc-c62a3925f092",
    "forge": "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c",
}


def _elf(note: bytes = b"", tail: bytes = b"") -> bytes:
    """A 64-bit little-endian ELF with one note segment holding `note`, then `tail`."""
    header = b"\x7fELF\x02\x01\x01" + b"\x00" * 9
    header += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    segment = struct.pack("<IIQQQQQQ", 4, 4, 120, 0, 0, len(note), len(note), 4)
    return header + segment + note + b"\x00" * 4096 + tail


def _go_note() -> bytes:
    build_id = b"abc/def"
    return struct.pack("<III", 3, len(build_id), 4) + b"Go\x00\x00" + build_id + b"\x00"


def _program(path: Path, content: bytes, on_path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(0o755)
    on_path.mkdir(parents=True, exist_ok=True)
    link = on_path / path.name
    if link != path:
        link.symlink_to(path)
    return link


def _check(app: str, bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> api.ResumeCheck:
    monkeypatch.setenv("PATH", str(bin_dir))
    return api.check_resume(Home.at(DATA / app / "home"), f"{app}:{SESSIONS[app]}")


def _refused(check: api.ResumeCheck, path: Path) -> bool:
    return check.cli_path is None and any(
        "is another program" in r and str(path) in r for r in check.refusals
    )


def test_the_sql_migration_goose_is_never_given_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    other = _program(bin_dir / "goose", _elf(_go_note()), bin_dir)  # pressly/goose
    assert _refused(_check("goose", bin_dir, monkeypatch), other)
    other.unlink()
    script = _program(bin_dir / "goose", b'#!/bin/sh\nexec migrate "$@"\n', bin_dir)
    assert _refused(_check("goose", bin_dir, monkeypatch), script)
    script.unlink()
    own = _program(bin_dir / "goose", _elf(), bin_dir)  # Block's: compiled Rust
    check = _check("goose", bin_dir, monkeypatch)
    assert check.cli_path == str(own)
    assert not any("PATH" in r for r in check.refusals)


def test_the_amp_editor_is_never_given_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    editor = _program(tmp_path / "cargo" / "amp", _elf(), bin_dir)  # amp.rs
    assert _refused(_check("amp", bin_dir, monkeypatch), editor)
    editor.unlink()
    npm = tmp_path / "lib/node_modules/@ampcode/cli/dist/main.js"
    linked = _program(npm, b"#!/usr/bin/env node\n", bin_dir)
    linked.rename(bin_dir / "amp")
    check = _check("amp", bin_dir, monkeypatch)
    assert check.cli_path == str(bin_dir / "amp")
    assert not any("PATH" in r for r in check.refusals)
    (bin_dir / "amp").unlink()
    release = _program(tmp_path / "rel" / "amp", _elf(tail=b"\n---- Bun! ----\n"), bin_dir)  # fmt: skip
    assert _check("amp", bin_dir, monkeypatch).cli_path == str(release)


def test_another_pi_is_never_given_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    other = _program(bin_dir / "pi", b"#!/bin/sh\necho 3.14159\n", bin_dir)
    assert _refused(_check("pi", bin_dir, monkeypatch), other)
    other.unlink()
    npm = tmp_path / "lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
    _program(npm, b"#!/usr/bin/env node\n", bin_dir).rename(bin_dir / "pi")
    assert _check("pi", bin_dir, monkeypatch).cli_path == str(bin_dir / "pi")


def test_the_aws_copilot_is_never_given_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AWS Copilot CLI (aws/copilot-cli, a Go program) installs `copilot` too."""
    bin_dir = tmp_path / "bin"
    aws = _program(tmp_path / "brew" / "copilot", _elf(_go_note()), bin_dir)
    check = _check("copilot", bin_dir, monkeypatch)
    assert _refused(check, aws)
    assert any("AWS Copilot" in w for w in check.warnings)
    aws.unlink()
    npm = tmp_path / "lib/node_modules/@github/copilot/npm-loader.js"
    _program(npm, b"#!/usr/bin/env node\n", bin_dir).rename(bin_dir / "copilot")
    assert _check("copilot", bin_dir, monkeypatch).cli_path == str(bin_dir / "copilot")
    (bin_dir / "copilot").unlink()
    native = _program(tmp_path / "gh" / "copilot", _elf(), bin_dir)  # GitHub's build
    assert _check("copilot", bin_dir, monkeypatch).cli_path == str(native)


def test_foundrys_forge_is_never_given_the_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Foundry (the Solidity toolkit) installs `forge` too, into ~/.foundry/bin."""
    bin_dir = tmp_path / "bin"
    foundry = _program(tmp_path / ".foundry" / "bin" / "forge", _elf(), bin_dir)
    check = _check("forge", bin_dir, monkeypatch)
    assert _refused(check, foundry)
    assert any("Foundry" in w for w in check.warnings)
    foundry.unlink()
    own = _program(tmp_path / ".local" / "forge", _elf(), bin_dir)  # Forge Code's
    assert _check("forge", bin_dir, monkeypatch).cli_path == str(own)


def test_resume_and_print_refuse_it_saying_which_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    bin_dir = tmp_path / "bin"
    other = _program(bin_dir / "goose", _elf(_go_note()), bin_dir)
    monkeypatch.setenv("PATH", str(bin_dir))
    home = str(DATA / "goose" / "home")
    said = (
        f"the 'goose' on PATH ({other}) is another program, not the one Goose installs"
    )
    target = f"goose:{SESSIONS['goose']}"
    result = CliRunner().invoke(main, ["resume", "--home", home, target])
    assert result.exit_code == 1 and said in result.stderr, result.output
    printed = CliRunner().invoke(main, ["resume", "--home", home, "--print", target])
    assert printed.exit_code == 1 and printed.stdout == "", printed.output
    assert f"Error: {said}" in printed.stderr, printed.output
