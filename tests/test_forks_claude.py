"""Claude Code: a session made by `--fork-session` or `/branch` holds a copy of its source.

The fork's file repeats the lines it copied, each under the new `sessionId` and stamped
`forkedFrom: {sessionId, messageUuid}` naming the source (the shape public readers of real
2.1 transcripts parse, e.g. the `forkedFrom` tests of claude-session tools indexed here);
a copied response keeps its `message.id` and `requestId`.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

CWD = "/home/dev/shop"
SOURCE = "99999999-1111-4111-8111-111111111111"
FORK = "22222222-2222-4222-8222-222222222222"  # sorts before its source


def _home(tmp_path: Path) -> str:
    home = tmp_path / "home"
    source = write_claude_session(home, SOURCE, CWD, prompt="Add retries")
    copied = [
        dict(record, sessionId=FORK, forkedFrom={"sessionId": SOURCE, "messageUuid": record["uuid"]})
        for record in map(json.loads, source.read_text().splitlines())
        if record.get("type") in ("user", "assistant")
    ]  # fmt: skip
    asked = [
        claude_line(FORK, CWD, type="user", uuid="u2", parentUuid="a1",
                    timestamp="2026-11-21T09:00:00.000Z",
                    message={"role": "user", "content": "Now add a test"}),
        claude_line(FORK, CWD, type="assistant", uuid="a2", parentUuid="u2",
                    timestamp="2026-11-21T09:00:05.000Z", requestId="req_2",
                    message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                             "stop_reason": "end_turn",
                             "content": [{"type": "text", "text": "Test added."}],
                             "usage": {"input_tokens": 700, "output_tokens": 7,
                                       "cache_read_input_tokens": 0,
                                       "cache_creation_input_tokens": 0}}),
    ]  # fmt: skip
    (source.parent / f"{FORK}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in copied + asked)
    )
    return str(home)


def test_usage_bills_a_copied_response_to_the_session_that_made_it(
    tmp_path: Path, run: CliRunner
) -> None:
    argv = ["usage", "session", "--json", "--home", _home(tmp_path)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert (rows[SOURCE]["input_tokens"], rows[SOURCE]["responses"]) == (10, 1)
    assert (rows[FORK]["input_tokens"], rows[FORK]["responses"]) == (700, 1)


def test_the_fork_is_listed_with_its_source(tmp_path: Path, run: CliRunner) -> None:
    result = run.invoke(main, ["list", "--json", "--home", _home(tmp_path)])
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads(result.stdout)}
    assert records[FORK]["forked_from"] == SOURCE
    assert records[SOURCE]["forked_from"] is None


def test_show_notes_where_the_copied_turns_came_from(
    tmp_path: Path, run: CliRunner
) -> None:
    result = run.invoke(main, ["show", FORK, "--home", _home(tmp_path), "--no-pager"])
    assert result.exit_code == 0, result.output
    body = result.stdout.split("\n\n", 1)[1]
    note = f"started from a copy of {SOURCE}'s conversation"
    assert body.count(note) == 1
    assert (
        body.index(note) < body.index("> Add retries") < body.index("> Now add a test")
    )


def _tree_input(run: CliRunner, home: str) -> int:
    result = run.invoke(main, ["tree", FORK, "--json", "--home", home])
    assert result.exit_code == 0, result.output
    return int(json.loads(result.stdout)["usage"]["input_tokens"])


def test_tree_of_the_fork_counts_only_what_it_spent(
    tmp_path: Path, run: CliRunner
) -> None:
    assert _tree_input(run, _home(tmp_path)) == 700


def test_a_fork_whose_source_is_gone_counts_its_copies(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    next(Path(home).rglob(f"{SOURCE}.jsonl")).unlink()
    assert _tree_input(run, home) == 10 + 700
