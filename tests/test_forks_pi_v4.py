"""pi-agent-core's format 4: `JsonlSessionRepo.fork` writes a new session, not a sub-agent.

Follows earendil-works/pi @7093881 packages/agent/src/harness/session/jsonl/repo.ts and
storage.ts: `fork(source)` creates a file whose header is `{"kind": "header", "version": 4,
id, createdAt: now, cwd, parentSessionId: source.id}`, then appends each entry of the
source's branch as it was (`appendCopiedEntry`: its id, parent, `timestamp` and message,
usage included, under a new `seq`), the lane pointer and the name; the source's records
(`usage` ones included) are not copied.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

SOURCE = "019a0000-0000-7000-8000-00000000aaaa"
FORK = "019a0000-0000-7000-8000-00000000bbbb"
MS = 1_790_000_000_000  # the source's start; the fork is made an hour later
FOLDER = Path(".pi") / "agent" / "sessions" / "--home-dev-api--"
USAGE = {
    "input": 100,
    "output": 20,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 120,
}


def _entry(
    seq: int, entry_id: str, parent: str | None, at: int, **fields: object
) -> dict[str, object]:
    return {"kind": "entry", "seq": seq, "type": "message", "id": entry_id,
            "parentId": parent, "timestamp": at, **fields}  # fmt: skip


def _said(role: str, text: str, at: int, **more: object) -> dict[str, object]:
    return {
        "role": role,
        "content": [{"type": "text", "text": text}],
        "timestamp": at,
        **more,
    }


ANSWER = {"model": "claude-sonnet-4-5", "provider": "anthropic", "usage": USAGE,
          "stopReason": "stop"}  # fmt: skip
ASKED = _entry(1, "u1", None, MS + 1000, lane="main",
               message=_said("user", "Add a health route", MS + 1000))  # fmt: skip
ANSWERED = _entry(2, "a1", "u1", MS + 2000, lane="main",
                  message=_said("assistant", "Done: GET /health", MS + 2000, **ANSWER))  # fmt: skip


def _write(
    home: Path, sid: str, created: int, lines: list[dict[str, object]], **header: object
) -> None:
    folder = home / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    first = {"kind": "header", "version": 4, "id": sid, "createdAt": created,
             "cwd": "/home/dev/api", **header}  # fmt: skip
    name = f"2026-09-21T10-00-{created % 60:02d}-000Z_{sid}.jsonl"
    (folder / name).write_text("".join(json.dumps(x) + "\n" for x in [first, *lines]))


def _home(tmp_path: Path) -> str:
    home = tmp_path / "home"
    record = {"kind": "record", "id": "r1", "lane": "main", "type": "usage", "seq": 4,
              "timestamp": MS + 2500, "cause": "assistant", "runId": "run1",
              "entryId": "a1", "attempt": 1, "stopReason": "stop", "usage": USAGE}  # fmt: skip
    _write(home, SOURCE, MS, [ASKED, ANSWERED, {"kind": "lane", "seq": 3, "lane": "main",
                                                 "leafId": "a1"}, record])  # fmt: skip
    forked_at = MS + 3_600_000
    copies = [{k: v for k, v in e.items() if k != "lane"} for e in (ASKED, ANSWERED)]
    _write(home, FORK, forked_at, [
        *copies,
        {"kind": "lane", "seq": 3, "lane": "main", "leafId": "a1"},
        _entry(4, "u2", "a1", forked_at + 1000, lane="main",
               message=_said("user", "Now add a test", forked_at + 1000)),
    ], parentSessionId=SOURCE)  # fmt: skip
    return str(home)


def test_a_fork_is_listed_as_a_session_of_its_own_naming_its_source(
    tmp_path: Path, run: CliRunner
) -> None:
    result = run.invoke(
        main, ["list", "--json", "--app", "pi", "--home", _home(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads(result.stdout)}
    assert records[FORK]["parent_id"] is None
    assert records[FORK]["forked_from"] == SOURCE


def test_a_fork_bills_nothing_of_what_it_copied(tmp_path: Path, run: CliRunner) -> None:
    argv = ["usage", "session", "--json", "--app", "pi", "--home", _home(tmp_path)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert rows[SOURCE]["input_tokens"] == 100 and rows[SOURCE]["responses"] == 1
    assert FORK not in rows  # it has not called a model yet


def test_show_of_the_fork_keeps_the_copied_turns_under_its_source_name(
    tmp_path: Path, run: CliRunner
) -> None:
    result = run.invoke(main, ["show", FORK, "--home", _home(tmp_path), "--no-pager"])
    assert result.exit_code == 0, result.output
    header, body = result.stdout.split("\n\n", 1)
    assert f"forked from {SOURCE}" in header
    assert body.index("> Add a health route") < body.index("> Now add a test")
