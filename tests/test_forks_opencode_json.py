"""OpenCode's JSON storage (before SQLite): a session made by `/fork` holds a copy of
every message of its source.

Follows sst/opencode packages/opencode/src/session/index.ts of the JSON-storage releases,
`fork`: `createNext` writes a new `storage/session/<project>/<ses>.json` (no link to its
source, `time.created` now), then each message of the source is written again with
`updateMessage({...msg.info, sessionID, id})` (its `time.created`, `modelID`, `tokens`
kept) and each part with `updatePart({...part, id, messageID, sessionID})`.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Usage
from sessdex.sources import opencode
from tests.helpers import sessions_of

PROJECT = "proj_json"
SOURCE = "ses_json0source0000000000001"
FORK = "ses_json0fork000000000000002"
STARTED = 1730000000000
FORKED_AT = STARTED + 60_000  # after every message of SOURCE
ASKED_AT = FORKED_AT + 5_000


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def _session(storage: Path, session_id: str, title: str, at: int) -> None:
    _write(
        storage / "session" / PROJECT / f"{session_id}.json",
        {"id": session_id, "version": "1.1.20", "projectID": PROJECT,
         "directory": "/tmp/repo", "title": title,
         "time": {"created": at, "updated": at}},
    )  # fmt: skip


def _exchange(
    storage: Path, session_id: str, prefix: str, at: int, asked: str, said: str,
    counts: tuple[int, int],
) -> None:  # fmt: skip
    """One question and its answer, as OpenCode writes them (message and part files)."""
    user = {"id": f"{prefix}a", "sessionID": session_id, "role": "user",
            "time": {"created": at}, "agent": "build",
            "model": {"providerID": "mock", "modelID": "mock-model"}}  # fmt: skip
    answer = {
        "id": f"{prefix}b", "sessionID": session_id, "role": "assistant",
        "parentID": f"{prefix}a", "mode": "build", "cost": 0,
        "modelID": "mock-model", "providerID": "mock",
        "tokens": {"input": counts[0], "output": counts[1], "reasoning": 0,
                   "cache": {"write": 0, "read": 0}},
        "time": {"created": at + 1000, "completed": at + 2000}, "finish": "stop",
    }  # fmt: skip
    for info, text in ((user, asked), (answer, said)):
        _write(storage / "message" / session_id / f"{info['id']}.json", info)
        _write(
            storage / "part" / str(info["id"]) / f"prt_{info['id']}.json",
            {"id": f"prt_{info['id']}", "sessionID": session_id,
             "messageID": info["id"], "type": "text", "text": text},
        )  # fmt: skip


def _fork(storage: Path) -> None:
    """What `fork` writes: a new session file, then each message and part copied as is."""
    _session(storage, FORK, "Ask twice (fork #1)", FORKED_AT)
    for number, entry in enumerate(sorted((storage / "message" / SOURCE).iterdir())):
        info = json.loads(entry.read_text(encoding="utf-8"))
        copy = f"msg_forkcopy{number:04d}"
        old = info["id"]
        info.update(id=copy, sessionID=FORK)
        _write(storage / "message" / FORK / f"{copy}.json", info)
        for part_file in sorted((storage / "part" / old).iterdir()):
            part = json.loads(part_file.read_text(encoding="utf-8"))
            part.update(id=f"prt_{copy}", messageID=copy, sessionID=FORK)
            _write(storage / "part" / copy / f"prt_{copy}.json", part)


def _home(tmp_path: Path, *, fork: bool = True) -> Path:
    home = tmp_path / "home"
    storage = home / ".local" / "share" / "opencode" / "storage"
    _session(storage, SOURCE, "Ask twice", STARTED)
    _exchange(storage, SOURCE, "msg_src0", STARTED + 1000, "Hello?", "Hi.", (1000, 100))
    _exchange(
        storage, SOURCE, "msg_src1", STARTED + 9000, "Again?", "Yes.", (2000, 200)
    )
    if fork:
        _fork(storage)
        _exchange(storage, FORK, "msg_own0", ASKED_AT, "Once more?", "Done.", (700, 77))
    return home


def _events(home: Path, session_id: str) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(opencode.read(sessions_of(opencode, home)[session_id], diagnostics))
    assert not diagnostics.problems
    return found


def _usage(found: list[Event]) -> Usage:
    return sum((e.usage for e in found if e.usage), Usage())


def test_a_json_fork_bills_only_what_was_asked_after_it(tmp_path: Path) -> None:
    home = _home(tmp_path)
    source = _usage(_events(home, SOURCE))
    fork = _usage(_events(home, FORK))
    assert (source.input_tokens, source.output_tokens) == (3000, 300)
    assert (fork.input_tokens, fork.output_tokens) == (700, 77)


def test_a_json_fork_shows_its_copied_turns_after_a_note_naming_the_source(
    tmp_path: Path,
) -> None:
    found = _events(_home(tmp_path), FORK)
    notes = [e for e in found if e.kind == "meta" and "copy" in (e.text or "")]
    assert len(notes) == 1 and SOURCE in (notes[0].text or "")
    assert notes[0].extra.get("forked_from") == SOURCE
    assert found.index(notes[0]) == 0
    said = [e.text for e in found if e.kind == "assistant"]
    assert said == ["Hi.", "Yes.", "Done."]


def test_usage_counts_a_json_fork_s_copies_once(tmp_path: Path, run: CliRunner) -> None:
    def counted(home: Path) -> int:
        argv = ["usage", "app", "--json", "--app", "opencode", "--home", str(home)]
        result = run.invoke(main, argv)
        assert result.exit_code == 0, result.output
        return sum(int(row["input_tokens"]) for row in json.loads(result.stdout))

    before = counted(_home(tmp_path / "before", fork=False))
    assert before == 3000
    assert counted(_home(tmp_path / "after")) == before + 700


def test_a_json_fork_whose_source_is_gone_bills_its_copies(tmp_path: Path) -> None:
    home = _home(tmp_path)
    storage = home / ".local" / "share" / "opencode" / "storage"
    (storage / "session" / PROJECT / f"{SOURCE}.json").unlink()
    found = _events(home, FORK)
    assert _usage(found).input_tokens == 3000 + 700
    assert not [e for e in found if e.kind == "meta" and "copy" in (e.text or "")]
