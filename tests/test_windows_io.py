"""Reads as Windows' C runtime does them: a file opened without O_BINARY is in text
mode there, where a read ends at a 0x1a byte (Ctrl-Z) and CR LF becomes LF."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessdex import freshness

O_BINARY = 0x8000  # its value on Windows


@pytest.fixture
def text_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.open and os.read as on Windows: without O_BINARY, a read stops at 0x1a; and
    no os.pread, which Windows lacks."""
    text: set[int] = set()
    real_open, real_read, real_close = os.open, os.read, os.close

    def open_(path: str, flags: int, *args: int, **kwargs: int) -> int:
        fd = real_open(path, flags & ~O_BINARY, *args, **kwargs)
        if not flags & O_BINARY:
            text.add(fd)
        return fd

    def read(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        return data.split(b"\x1a", 1)[0] if fd in text else data

    def close(fd: int) -> None:
        text.discard(fd)
        real_close(fd)

    monkeypatch.setattr(os, "O_BINARY", O_BINARY, raising=False)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "read", read)
    monkeypatch.setattr(os, "close", close)
    monkeypatch.delattr(os, "pread", raising=False)


def test_a_databases_change_counter_is_read_whole_on_windows(
    tmp_path: Path, text_mode: None
) -> None:
    """A rollback-journal database's commit is seen by its header's change counter: two
    commits whose counters hold a 0x1a byte are two states, not one."""
    signatures = []
    for counter in (0x1A00, 0x1A01):
        database = tmp_path / f"{counter}.db"
        header = bytearray(b"SQLite format 3\x00" + bytes(84))
        header[24:28] = counter.to_bytes(4, "big")
        database.write_bytes(bytes(header))
        signatures.append(freshness.wal_signature(str(database)))
    assert signatures == ["c00001a00", "c00001a01"]


def test_ctrl_c_on_windows_ends_as_python_ends_there_not_as_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """os.kill there is TerminateProcess, the signal's number the exit status: SIGINT's
    2 is sessdex's usage error. Ctrl-C ends with Windows' own STATUS_CONTROL_C_EXIT."""
    import signal
    import sys

    from sessdex import launch

    def terminate(pid: int, sig: int) -> None:
        raise SystemExit(sig)  # TerminateProcess(handle, sig)

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "kill", terminate)
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    with pytest.raises(SystemExit) as ended:
        launch.interrupted()
    assert ended.value.code == 0xC000013A
