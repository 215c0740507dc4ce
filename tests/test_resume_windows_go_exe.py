"""On Windows a `goose.exe` that Go built (pressly's SQL migration tool) is told from
Block's (Rust) by its bytes: Go's build info (`\\xff Go buildinf:`) at the start of the
PE's data section. It was taken for Block's and given `session --resume`."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from sessdex import api, programs
from sessdex.sources import Home

HOME = Path(__file__).parent / "data" / "goose" / "home"
_CODE = 0x60000020  # code, execute, read
_DATA = 0xC0000040  # initialised data, read, write
_RDATA = 0x40000040  # initialised data, read only


def _pe(data: bytes, *, rdata: bytes = b"") -> bytes:
    """A 64-bit PE: .text, .rdata and .data sections, their raw bytes after 0x400."""
    sections = [(b".text", _CODE, b"\xc3" * 0x200), (b".rdata", _RDATA, rdata)]
    sections.append((b".data", _DATA, data))
    header = bytearray(b"MZ" + b"\x00" * 0x3A + struct.pack("<I", 0x80))
    header += b"\x00" * (0x80 - len(header))
    header += b"PE\x00\x00"
    header += struct.pack("<HHIIIHH", 0x8664, len(sections), 0, 0, 0, 0xF0, 0x22)
    header += struct.pack("<H", 0x20B) + b"\x00" * 0xEE
    body = b""
    offset = 0x400
    for number, (name, flags, raw) in enumerate(sections):
        raw = raw.ljust((len(raw) + 0x1FF) // 0x200 * 0x200 or 0x200, b"\x00")
        header += name.ljust(8, b"\x00") + struct.pack(
            "<IIIIIIHHI",
            len(raw),
            0x1000 * (number + 1),
            len(raw),
            offset,
            0,
            0,
            0,
            0,
            flags,
        )
        body += raw
        offset += len(raw)
    return bytes(header.ljust(0x400, b"\x00")) + body


def _go_data() -> bytes:
    """Go's build info blob, 16-aligned, after some other data (Go 1.18+'s form)."""
    blob = b"\xff Go buildinf:" + bytes([8, 2]) + b"\x00" * 14
    blob += b"\x06go1.22" + b"\x30path\tgithub.com/pressly/goose/v3/cmd/goose\n"
    return b"\x01" * 32 + blob


def test_a_go_exe_is_go_and_a_rust_one_is_not(tmp_path: Path) -> None:
    go = tmp_path / "go" / "goose.exe"
    rust = tmp_path / "rust" / "goose.exe"
    for path, content in ((go, _pe(_go_data())), (rust, _pe(b"\x01" * 600))):
        path.parent.mkdir()
        path.write_bytes(content)
    assert programs.is_go(str(go))
    assert not programs.is_go(str(rust))
    # the magic only counts in the data section, where Go's linker puts it
    quoted = tmp_path / "quoted.exe"
    quoted.write_bytes(_pe(b"\x01" * 64, rdata=_go_data()))
    assert not programs.is_go(str(quoted))


def test_resume_refuses_a_go_goose_exe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "bin" / "goose"
    program.parent.mkdir()
    program.write_bytes(_pe(_go_data()))
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(program.parent))
    check = api.check_resume(Home.at(HOME), "goose:20261201_1")
    assert check.cli_path is None
    assert any("is another program" in r for r in check.refusals)
    program.write_bytes(_pe(b"\x01" * 600))  # Block's: Rust, no Go build info
    assert api.check_resume(Home.at(HOME), "goose:20261201_1").cli_path == str(program)
