"""model.merge: one session from what several files say of it."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from sessdex import model
from sessdex.model import Session, merge


def test_every_field_is_filled_in_or_merged_by_rule() -> None:
    # a field added to Session must be merged too, not silently dropped
    by_rule = {"app", "id", "precedence", "listed", "extra"}
    assert set(model._FILLED) == {f.name for f in fields(Session)} - by_rule


def test_higher_precedence_wins_field_by_field() -> None:
    when = datetime(2026, 11, 1, tzinfo=UTC)
    rollout = Session(
        app="codex",
        id="t1",
        path="/r.jsonl",
        title="first prompt",
        created=when,
        precedence=1,
        extra={"home": "/h", "sandbox": "read-only"},
    )
    name = Session(
        app="codex", id="t1", title="Fix checkout", precedence=3, listed=False
    )
    row = Session(
        app="codex",
        id="t1",
        path="/db#threads/t1",
        cwd="/w",
        model="gpt-5",
        precedence=2,
        listed=False,
        extra={"sandbox": "danger-full-access", "archived": True},
    )
    merged = merge([rollout, name, row])
    assert merged.title == "Fix checkout"  # the name outranks the first prompt
    assert merged.path == "/db#threads/t1"  # the row outranks the rollout
    assert (merged.cwd, merged.model, merged.created) == ("/w", "gpt-5", when)
    assert merged.listed  # one fragment lists it
    assert merged.precedence == 3
    # extra keys merge too, the higher fragment's value kept
    assert merged.extra == {
        "home": "/h",
        "sandbox": "danger-full-access",
        "archived": True,
    }
    assert merge([name, row]).listed is False  # nobody lists it: it stays out
    assert merge([rollout]) is rollout
