"""`show --tail N` of generated OpenCode sessions (the database, the JSON files, the Kilo CLI's kilo.db),
0 to 3 compactions at random places, each keeping a random tail (none, the last
prompts, a message before an earlier compaction, an id that is not there), at times never summarized: the tail
is always the end of the whole read."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home
from tests.conftest import app_home
from tests.test_tail_compactions import BASIC, _json_tree, _unnumbered, _whole

Add = Callable[[dict[str, object], dict[str, object]], str]


def _session(rng: random.Random, add: Add) -> None:
    """Prompts and answers, a compaction (its request, its summary, at times a prompt
    after it) after each of 0 to 3 random prompts."""
    prompts = rng.randint(5, 120)
    compacted = set(rng.sample(range(prompts), rng.randint(0, min(3, prompts))))
    asked: list[str] = []
    said: list[str] = []
    for p in range(prompts):
        asked.append(add({"role": "user"}, {"type": "text", "text": f"p{p}"}))
        said.append(asked[-1])
        said.append(add({"role": "assistant", "finish": "stop"}, {"type": "text", "text": f"a{p}"}))  # fmt: skip
        if p not in compacted:
            continue
        part: dict[str, object] = {"type": "compaction", "auto": rng.random() < 0.5}
        kind = rng.choice(["none", "near", "near", "far", "gone"])
        if kind == "near":
            part["tail_start_id"] = asked[-min(len(asked), rng.randint(1, 5))]
        elif kind == "far":
            part["tail_start_id"] = rng.choice(said)
        elif kind == "gone":
            part["tail_start_id"] = "msg_not_there"
        said.append(add({"role": "user"}, part))
        if rng.random() < 0.8:  # else stopped: no summary came
            said.append(add({"role": "assistant", "summary": True, "mode": "compaction", "finish": "stop"}, {"type": "text", "text": f"summary {p}"}))  # fmt: skip
        if rng.random() < 0.5:
            said.append(add({"role": "user"}, {"type": "text", "text": f"after {p}"}))


def _database(home: Path, rng: random.Random, kilo: bool = False) -> str:
    """BASIC of the fixture's database grown, at times by a row whose data is no JSON
    (the reads skip it; `json_extract` fails on it); the Kilo CLI's `kilo.db` where
    `kilo`."""
    shutil.copytree(app_home("opencode"), home, symlinks=True)
    path = home / ".local/share/opencode/opencode.db"
    if kilo:
        (home / ".local/share/kilo").mkdir()
        path = path.rename(home / ".local/share/kilo/kilo.db")
    db = sqlite3.connect(path)
    at, n = 1796026350000, 0

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + rng.choice([0, 1, 1000]), n + 1  # equal times too: ordered by id
        message = f"msg_22b8400000{n:06d}"
        data = json.dumps({**info, "time": {"created": at}})
        if rng.random() < 0.02:
            data = data[:-3]  # cut short
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (message, BASIC, at, at, data))  # fmt: skip
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_22b8400000{n:06d}", message, BASIC, at, at, json.dumps(part)),
        )
        return message

    _session(rng, add)
    db.commit()
    db.close()
    return BASIC


def _files(home: Path, rng: random.Random) -> str:
    session = _json_tree(home, 0)
    storage = home / ".local/share/opencode/storage"
    at, n = 1740000000000, 0

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_{n:08d}"
        folder = storage / "message" / session
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{message}.json").write_text(
            json.dumps(
                {"id": message, "sessionID": session, **info, "time": {"created": at}}
            )
        )
        (storage / "part" / message).mkdir(parents=True)
        (storage / "part" / message / f"prt_{n:08d}.json").write_text(
            json.dumps({"id": f"prt_{n:08d}", "messageID": message, **part})
        )
        return message

    _session(rng, add)
    return session


def _kilo(home: Path, rng: random.Random) -> str:
    return _database(home, rng, kilo=True)


@pytest.mark.parametrize("layout", ["database", "files", "kilo"])
@pytest.mark.parametrize("seed", range(25))
def test_a_random_sessions_tail_is_the_end_of_its_whole_read(
    tmp_path: Path, layout: str, seed: int
) -> None:
    rng = random.Random(seed * 7919 + len(layout))
    make = {"database": _database, "files": _files, "kilo": _kilo}[layout]
    session = make(tmp_path / "home", rng)
    home = Home.at(tmp_path / "home")
    whole = _whole(home, session)
    for count in sorted(rng.sample(range(1, 41), 8)):
        shown = list(api.transcript(home, session, tail=count).events)
        assert _unnumbered(shown) == _unnumbered(whole[-count:]), (seed, count)
