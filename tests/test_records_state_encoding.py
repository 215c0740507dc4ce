"""The state the index keeps of a session is its public record with `precedence`,
`listed` and `extra` after it, the record encoded once for both (a first index encodes
every session's): the bytes are those of the whole object encoded at once, whatever
the extra holds (text a terminal acts on, a number past 64 bits, nesting, none)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

import pytest

from sessdex.model import Session
from sessdex.views.records import (
    JSONValue,
    dumps,
    session_encodings,
    session_record,
    state_encodings,
)

EXTRAS: list[dict[str, object]] = [
    {},
    {"user_named": False},
    {"spawn_types": {"call_1": "explore"}, "note": "caf\u00e9 \u202e\u0085 \u200b"},
    {"big": 2**70, "list": [1, 2.5, None, "x"]},
    {"deep": {"a": {"b": {"c": ["\x1b[31m", "\u2028"]}}}},
]


@pytest.mark.parametrize("extra", EXTRAS)
def test_a_state_is_the_whole_object_encoded(extra: dict[str, object]) -> None:
    session = Session(
        app="codex", id="0199-a", path="/h/s.jsonl", title="fix \u00e9 \u202e it",
        cwd="/h/code", updated=datetime(2026, 11, 30, 8, 0, tzinfo=UTC),
        precedence=-1, listed=False, extra=extra,
    )  # fmt: skip
    whole = session_record(session)
    whole["precedence"] = session.precedence
    whole["listed"] = session.listed
    whole["extra"] = cast(JSONValue, dict(extra))
    state, public = session_encodings(session)
    assert public == dumps(session_record(session))
    assert state == dumps(whole)
    value = cast(dict[str, JSONValue], dict(whole))
    assert state_encodings(value) == (state, public)
