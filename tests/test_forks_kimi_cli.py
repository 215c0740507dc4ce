"""Kimi CLI: `/fork` and `/undo` copy the session's wire into a new session.

Follows MoonshotAI/kimi-cli 1.49 (src/kimi_cli/session_fork.py, `fork_session`, and
ui/shell/slash.py's `undo` and `fork`): the source's `wire.jsonl` lines (its `StatusUpdate`
token usage included) are written verbatim to the new session's wire, and its new
`state.json` gets `custom_title` "Fork: <title>" or "Undo: <title>", `title_generated`, and
`wire_mtime`, the copied wire's mtime, which nothing else writes since state.json (1.29).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Usage
from sessdex.sources import kimi
from tests.helpers import sessions_of

HOME = Path(__file__).parent / "data" / "kimi" / "home"
FOLDER = Path(".kimi") / "sessions" / "83966a3838d499c6ec0c7147091f7d31"
MAIN = "3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f"
UNDO = "0d0d0d0d-1111-4222-8333-444455556666"
COPIED_AT = 1795251700.5  # after every line of MAIN's wire


def _usage(found: list[Event]) -> Usage:
    return sum((e.usage for e in found if e.usage), Usage())


def _home(tmp_path: Path, title: str, copied_at: float | None) -> Path:
    """The fixture home and a copy of MAIN as kimi-cli's fork writes one, in which one
    more question was then asked and answered (one more billed model call)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    source = home / FOLDER / MAIN
    fork = home / FOLDER / UNDO
    fork.mkdir()
    for name in ("wire.jsonl", "context.jsonl"):
        shutil.copy(source / name, fork / name)
    state = json.loads((source / "state.json").read_text())
    state.update(custom_title=title, title_generated=True, wire_mtime=copied_at)
    (fork / "state.json").write_text(json.dumps(state))
    usage = {"input_other": 90, "output": 12, "input_cache_read": 3000,
             "input_cache_creation": 0}  # fmt: skip
    own = [
        {"timestamp": COPIED_AT + 5,
         "message": {"type": "TurnBegin", "payload": {"user_input": "again, faster"}}},
        {"timestamp": COPIED_AT + 6,
         "message": {"type": "StatusUpdate",
                     "payload": {"token_usage": usage, "message_id": "chatcmpl-new"}}},
        {"timestamp": COPIED_AT + 7, "message": {"type": "TurnEnd", "payload": {}}},
    ]  # fmt: skip
    with (fork / "wire.jsonl").open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in own)
    return home


def test_an_undo_bills_only_what_was_spent_after_it(tmp_path: Path) -> None:
    found = sessions_of(
        kimi, _home(tmp_path, "Undo: Speed up the test suite", COPIED_AT)
    )
    source = list(kimi.read(found[MAIN], Diagnostics()))
    copy = list(kimi.read(found[UNDO], Diagnostics()))
    assert _usage(source).output_tokens > 0
    spent = _usage(copy)
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (
        90,
        12,
        3000,
    )
    # the copied turns are still the new session's to show
    assert [e.text for e in copy if e.kind == "user"][-1] == "again, faster"
    assert len([e for e in copy if e.kind == "user"]) > 1


def test_a_title_of_the_same_form_without_a_copy_bills_everything(
    tmp_path: Path,
) -> None:
    # `/title Fork: …` names a session so, but only a fork writes `wire_mtime`
    found = sessions_of(kimi, _home(tmp_path, "Fork: my plan", None))
    source = _usage(list(kimi.read(found[MAIN], Diagnostics())))
    copy = _usage(list(kimi.read(found[UNDO], Diagnostics())))
    assert copy.output_tokens == source.output_tokens + 12
