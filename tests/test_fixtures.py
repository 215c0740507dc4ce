"""Fixtures say where they came from, and hold no real home paths or secrets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
APPS = sorted(p.name for p in DATA.iterdir() if p.is_dir()) if DATA.is_dir() else []
ALLOWED_HOMES = {"alex", "dev", "demo", "user", "runner", "me", "test", "nobody"}
SECRET = re.compile(
    rb"(sk-ant-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{32,}|ghp_[A-Za-z0-9]{30,}|AKIA[0-9A-Z]{16})"
)
HOME_PATH = re.compile(rb"/(?:home|Users)/([A-Za-z0-9_.-]+)")


@pytest.mark.parametrize("app", APPS)
def test_fixture_folder_has_provenance(app: str) -> None:
    provenance = DATA / app / "PROVENANCE.md"
    assert provenance.is_file(), f"tests/data/{app} has no PROVENANCE.md"
    assert provenance.read_text().strip()


@pytest.mark.parametrize("app", APPS)
def test_fixtures_hold_no_secrets_or_real_home_paths(app: str) -> None:
    for path in (DATA / app).rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        assert not SECRET.search(data), f"{path} holds something shaped like a key"
        for match in HOME_PATH.finditer(data):
            assert match.group(1).decode().lower() in ALLOWED_HOMES, (
                f"{path} holds a real-looking home {match.group(0)!r}"
            )
