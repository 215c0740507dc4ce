"""Continue forks (`cn --fork`) cut before their running totals, many in one folder: each
finds the responses it copied by the sessions beside it, which were all read again for
each such fork (K forks, N sessions: K times N reads). Each file is now read a few times
whatever K, and every response billed once."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import opened_files

SESSIONS = (
    Path(__file__).parent / "data" / "continue" / "home" / ".continue" / "sessions"
)
SOURCE = "4f5fc9a5-a39f-4520-a3f4-893c822b4150"  # 4 responses: 4,000 and 100 tokens
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # 6 responses, its first 4 copies


def _home(home: Path, forks: int, cut: int, others: int) -> Path:
    """One source, `forks` forks of it (the last `cut` cut before their totals, as a copy
    taken while cn wrote them) and `others` chats of their own, listed in sessions.json."""
    folder = home / ".continue" / "sessions"
    folder.mkdir(parents=True)
    source = json.loads((SESSIONS / f"{SOURCE}.json").read_text())
    fork = json.loads((SESSIONS / f"{FORK}.json").read_text())
    own = len(source["history"])  # the fork's first item of its own
    listed = []
    for number in range(1 + forks + others):
        value = json.loads(json.dumps(source if number == 0 else fork))
        if 0 < number <= forks:  # its own prompt after the copies
            value["history"][own]["message"]["content"] += f" ({number})"
        elif number > forks:  # a chat of its own: its first prompt
            value = json.loads(json.dumps(source))
            value["history"][0]["message"]["content"] += f" ({number})"
        session_id = value["sessionId"] = f"{number:08d}-0000-4000-8000-000000000000"
        data = json.dumps(value, indent=2).encode()
        if forks - cut < number <= forks:
            data = data[: data.index(b'\n  "usage"')]
        (folder / f"{session_id}.json").write_bytes(data)
        made = str(1796466445402 + number * 1000)
        listed.append({"sessionId": session_id, "title": "t", "dateCreated": made})
    (folder / "sessions.json").write_text(json.dumps(listed, indent=2))
    return folder


def _reads(home: Path, cut: int) -> Counter[str]:
    """How many times `usage` opened each file of the folder, the rows checked."""
    folder = _home(home, forks=16, cut=cut, others=8)
    argv = ["usage", "session", "--json", "--home", str(home)]
    with opened_files() as opened:
        result = CliRunner().invoke(
            main, argv, env={"SESSDEX_HOME": str(home.parent / f"state{cut}")}
        )
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in orjson.loads(result.stdout)}
    # the source bills its 4 responses, each fork its own 2, cut or not
    assert rows["00000000-0000-4000-8000-000000000000"]["input_tokens"] == 4_000
    forks = [f"{n:08d}-0000-4000-8000-000000000000" for n in range(1, 17)]
    assert all(rows[key]["input_tokens"] == 2_000 for key in forks)
    assert (
        sum(row["input_tokens"] for row in rows.values()) == 9 * 4_000 + 16 * 2_000
    )  # the source and 8 others, 16 forks
    return Counter(
        Path(path).name for path in opened if Path(path).parent == folder.resolve()
    )


def test_many_forks_cut_before_their_totals_read_each_file_a_few_times(
    tmp_path: Path,
) -> None:
    few, many = _reads(tmp_path / "few", 3), _reads(tmp_path / "many", 12)
    source = "00000000-0000-4000-8000-000000000000.json"
    # the source (and each fork made before the cut ones) was read once more for each
    # cut fork: 14 times with 12 of them, 5 with 3
    assert many[source] == few[source] <= 3
    assert max(many.values()) == max(few.values())
