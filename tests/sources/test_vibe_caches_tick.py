"""Vibe's per-process caches (the save folder's links, what was read of a file) in a
process that runs on (`watch`, the API) keep nothing looked at within its clock's tick:
a save folder or file changed again in that tick at its size looks the same, and what it
holds may not be. Each is stamped here ahead of the clock (`freshness.racy`), then put
back after the change, as the freshness tests do."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from sessdex import freshness
from sessdex.sources import vibe

FIRST, SECOND = (
    "aaaaaaaa-1111-4111-8111-111111111111",
    "bbbbbbbb-2222-4222-8222-222222222222",
)


def _ahead(path: Path) -> int:
    """Stamp `path` a minute ahead of the clock (in the tick of any read now)."""
    stamp = ((os.stat(path).st_mtime_ns // 10**9) + 60) * 10**9 + 123_456_789
    os.utime(path, ns=(stamp, stamp))
    return stamp


def _save(root: Path, name: str, session_id: str, parent: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    meta = {"session_id": session_id, "parent_session_id": parent, "title": "x"}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    vibe._LINKS.clear()
    vibe._KEPT.clear()


def test_links_of_a_save_folder_changed_in_its_tick_are_read_again(
    tmp_path: Path,
) -> None:
    # a folder made in the tick of the last look left the folder's mtime as it was: the
    # links kept named no such session for as long as the process ran
    root = tmp_path / "session"
    _save(root, "session_20261201_100000_aaaaaaaa", FIRST)
    stamp = _ahead(root)
    assert FIRST in vibe._links(root).folders
    _save(root, "session_20261201_100500_bbbbbbbb", SECOND, parent=FIRST)
    os.utime(root, ns=(stamp, stamp))
    links = vibe._links(root)
    assert links.folders.get(SECOND) == "session_20261201_100500_bbbbbbbb"
    assert links.children.get(FIRST) == ("session_20261201_100500_bbbbbbbb",)


def test_a_meta_json_rewritten_in_its_tick_is_checked_for_its_ids(
    tmp_path: Path,
) -> None:
    # its ids were taken for holding on its look, which such a rewrite keeps
    root = tmp_path / "session"
    name = "session_20261201_100500_bbbbbbbb"
    meta = _save(root, name, SECOND, parent=FIRST) / "meta.json"
    stamp = _ahead(meta)
    links = vibe._links(root)
    data = meta.read_bytes()
    meta.write_bytes(data.replace(FIRST.encode(), FIRST[::-1].encode()))
    os.utime(meta, ns=(stamp, stamp))
    assert len(meta.read_bytes()) == len(data)
    with pytest.raises(vibe._Stale):
        links.check(root, name)


def test_what_was_read_of_a_file_changed_in_its_tick_is_read_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_bytes(b'{"role": "user"}\n')
    stamp = _ahead(path)
    look = freshness.read_signature(str(path))
    assert vibe._kept(str(path), path.read_bytes) == b'{"role": "user"}\n'
    path.write_bytes(b'{"role": "tool"}\n')
    os.utime(path, ns=(stamp, stamp))
    assert freshness.read_signature(str(path)) == look  # it looks as it did
    assert vibe._kept(str(path), path.read_bytes) == b'{"role": "tool"}\n'


def test_a_settled_look_is_still_kept(tmp_path: Path) -> None:
    # (what the cache is for: a file looked at well after its tick is read once)
    path = tmp_path / "messages.jsonl"
    path.write_bytes(b"{}\n")
    old = (os.stat(path).st_mtime_ns // 10**9 - 60) * 10**9 + 123_456_789
    os.utime(path, ns=(old, old))
    time.sleep(0.05)  # past the tick of its change time, which utime moved
    reads: list[int] = []

    def read() -> bytes:
        reads.append(1)
        return path.read_bytes()

    vibe._kept(str(path), read)
    vibe._kept(str(path), read)
    assert len(reads) == 1
