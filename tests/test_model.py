"""model: one session from what several files say of it (merge); the values readers make."""

from __future__ import annotations

import time
from dataclasses import fields
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sessdex import model
from sessdex.model import Event, Session, Usage, merge


def test_every_field_is_filled_in_or_merged_by_rule() -> None:
    # a field added to Session must be merged too, not silently dropped
    by_rule = {"app", "id", "precedence", "listed", "extra"}
    assert set(model.FILLED_FIELDS) == {f.name for f in fields(Session)} - by_rule


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


def test_merging_encoded_sessions_equals_merging_sessions(tmp_path: Path) -> None:
    """The index merges sessions as stored (views.records.merge_states); it must give what
    model.merge gives, byte for byte, for every session of every app's fixtures."""
    from sessdex import sources
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import Home
    from sessdex.views.records import (
        merge_states,
        session_encodings,
        session_state,
        state_encodings,
    )

    from .conftest import merged_home

    home = Home.at(merged_home(tmp_path / "home"))
    several = 0
    for app in sources.names():
        source = sources.get(app)
        location = source.locate(home)
        fragments: dict[str, list[Session]] = {}
        for path in source.scan(location):
            for session in source.parse(Path(path), location, Diagnostics()):
                fragments.setdefault(session.id, []).append(session)
        for parts in fragments.values():
            several += len(parts) > 1
            for order in (parts, parts[::-1]):
                assert state_encodings(
                    merge_states([session_state(s) for s in order])
                ) == session_encodings(merge(order))
    assert several >= 3  # Codex's row, rollout and title index, at least


def test_fragments_of_equal_standing_merge_alike_in_any_order() -> None:
    """Two files of one session at one precedence that disagree (two files' last
    writes): the newest speaks first, then the path decides, whatever order the
    fragments come in (a warm refresh gives the file read again first, a cold one the
    order of the scan), in `merge` and in the index's `merge_states` alike."""
    from sessdex.views.records import merge_states, session_state, state_encodings

    when = datetime(2026, 9, 21, 14, 13, 20, tzinfo=UTC)
    database = Session(app="a", id="s", path="/c/s.db", updated=when,
                       precedence=-2, listed=False, extra={"by": "db"})  # fmt: skip
    transcript = Session(app="a", id="s", path="/b/s.jsonl", precedence=-2,
                         updated=when + timedelta(minutes=10), listed=False,
                         extra={"by": "transcript"})  # fmt: skip
    undated = Session(app="a", id="s", path="/a/s.md", title="t", precedence=-2,
                      extra={"by": "md"})  # fmt: skip
    orders = ([database, transcript, undated], [undated, transcript, database])
    merged = [merge(order) for order in orders]
    assert merged[0] == merged[1]
    assert merged[0].updated == when + timedelta(minutes=10)
    assert (merged[0].path, merged[0].extra["by"]) == ("/b/s.jsonl", "transcript")
    stored = [state_encodings(merge_states([session_state(s) for s in order]))
              for order in orders]  # fmt: skip
    assert stored[0] == stored[1]
    # the same time to the millisecond: the path decides
    twin = Session(app="a", id="s", path="/d/s.db-wal", precedence=-2,
                   updated=when + timedelta(minutes=10, microseconds=300))  # fmt: skip
    pairs = ([transcript, twin], [twin, transcript])
    assert merge(pairs[0]).path == merge(pairs[1]).path == "/d/s.db-wal"
    assert len({state_encodings(merge_states([session_state(s) for s in pair]))
                for pair in pairs}) == 1  # fmt: skip


def test_plausible_usage_drops_only_counts_no_response_can_have() -> None:
    from sessdex.model import MAX_RESPONSE_TOKENS, Usage

    sound = Usage(1200, 300, 90_000, 4_000, 120, "m")
    assert sound.plausible() is sound
    broken = Usage(5, 2**63 - 1, -3, MAX_RESPONSE_TOKENS, MAX_RESPONSE_TOKENS + 1, "m")
    assert broken.plausible() == Usage(5, 0, 0, MAX_RESPONSE_TOKENS, 0, "m")


def test_numbers_no_javascript_writer_could_write_read_as_nothing() -> None:
    from sessdex.sources._values import as_int

    assert [as_int(v) for v in (12, 12.9, -4, 2**53, True, "7", None)] == [
        12,
        12,
        -4,
        2**53,
        0,
        0,
        0,
    ]
    assert [as_int(v) for v in (2**53 + 1, 1e300, float("inf"), float("nan"))] == [
        0
    ] * 4


def test_a_session_holding_a_number_past_64_bits_is_still_indexed() -> None:
    """The standard library's parser (a reader's fallback) keeps such numbers whole; the
    index stores them as orjson reads them, instead of failing the whole refresh."""
    from sessdex.views.records import session_encodings, session_from_state

    session = Session(app="x", id="s", extra={"n": 10**30, "ok": [1, 2**70]})
    state, public = session_encodings(session)
    assert session_from_state(state).extra == {"n": 1e30, "ok": [1, float(2**70)]}
    assert b'"id":"s"' in public


def test_a_readers_draft_is_the_frozen_event_and_usage_it_says() -> None:
    """What every reader gives out is made without the dataclasses' __init__ (`draft`,
    `new_usage`): each must be the very value `Event(...)`/`Usage(...)` makes, frozen,
    hashable, copied and pickled as one."""
    import copy
    import dataclasses
    import pickle

    from sessdex.sources._values import draft, new_usage

    used = new_usage(1, 2, 3, 4, 5, "claude-x")
    assert type(used) is Usage
    assert used == Usage(1, 2, 3, 4, 5, "claude-x")
    assert hash(used) == hash(Usage(1, 2, 3, 4, 5, "claude-x"))
    when = datetime(2026, 1, 2, tzinfo=UTC)
    made = draft(
        "s1", "tool_call", when, True, "a1", "t", "Bash", "c1", True, used, {"k": 1}
    )
    assert type(made) is Event
    assert made == Event("s1", 0, "tool_call", when, True, "a1", "t", "Bash", "c1", True, used, {"k": 1})  # fmt: skip
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.text = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        used.model = "other"  # type: ignore[misc]
    for value in (made, used):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.copy(value) == value
    assert dataclasses.replace(made, text="u").text == "u"
    assert dataclasses.asdict(made)["usage"]["output_tokens"] == 2


def test_an_emitters_events_are_those_event_makes_numbered_in_order() -> None:
    """`Emitter` (most readers' one maker of events) gives, numbered from 0, the very
    events `Event(...)` makes of the same fields, the ones left out at their defaults,
    each with an `extra` of its own; a time it is told is a guess only where there is one."""
    from sessdex.sources._values import Emitter

    when = datetime(2026, 1, 2, tzinfo=UTC)
    used = Usage(1, 2)
    emit = Emitter("s1")
    made = [
        emit("user", when, text="hi"),
        emit(
            "tool_call",
            when,
            estimated=True,
            agent_id="a1",
            tool="Bash",
            call_id="c1",
            extra={"input": {"k": 1}},
        ),
        emit("tool_result", None, estimated=True, call_id="c1", is_error=True),
        emit("usage", usage=used),
        emit("meta"),
    ]
    assert made == [
        Event("s1", 0, "user", when, text="hi"),
        Event(
            "s1",
            1,
            "tool_call",
            when,
            True,
            "a1",
            None,
            "Bash",
            "c1",
            extra={"input": {"k": 1}},
        ),
        Event("s1", 2, "tool_result", None, call_id="c1", is_error=True),
        Event("s1", 3, "usage", usage=used),
        Event("s1", 4, "meta"),
    ]
    assert all(type(event) is Event for event in made)
    # a reader filling its own event's extra fills no other's
    assert made[3].extra is not made[4].extra


def test_an_emitters_by_gives_each_event_the_agent_named_in_one_numbering() -> None:
    """`Emitter.by` (the event maker of readers that name each event's agent as they
    go): the agent given, None for the lead, numbered with the emitter's other events."""
    from sessdex.sources._values import Emitter

    when = datetime(2026, 1, 2, tzinfo=UTC)
    emit = Emitter("s1")
    made = [
        emit.by("user", when, None, text="hi"),
        emit.by("tool_call", when, "a1", tool="Bash", call_id="c1"),
        emit("meta"),
        emit.by("assistant", None, "a1", text="done"),
    ]
    assert made == [
        Event("s1", 0, "user", when, text="hi"),
        Event("s1", 1, "tool_call", when, agent_id="a1", tool="Bash", call_id="c1"),
        Event("s1", 2, "meta"),
        Event("s1", 3, "assistant", agent_id="a1", text="done"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 11, 30, 8, 10, 32, 0, tzinfo=UTC),
        datetime(2026, 11, 30, 8, 10, 32, 999_999, tzinfo=UTC),
        datetime(2026, 12, 31, 23, 59, 59, 999_500, tzinfo=UTC),
        datetime(5, 1, 2, 3, 4, 5, 1_000, tzinfo=UTC),
        datetime(1, 1, 1, 0, 0, 0, 0, tzinfo=UTC),  # the first and last years
        datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
        # another zone: a time past midnight there is the day before in UTC
        datetime(2026, 3, 1, 0, 30, 0, 123_456, tzinfo=timezone(timedelta(hours=5))),
        datetime(2026, 3, 1, 23, 30, 0, 4_999, tzinfo=timezone(-timedelta(hours=9))),
        datetime(2026, 6, 1, 12, 0, 0, 1, tzinfo=ZoneInfo("Europe/Paris")),
        datetime(2026, 6, 1, 12, 0, 0, 0, tzinfo=timezone(timedelta(0))),
        datetime(2026, 6, 1, 12, 0, 0, 250_000),  # naive: local time
    ],
)
def test_times_are_written_as_isoformat_writes_them_in_utc(
    value: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show --json`'s times: UTC, milliseconds cut (never rounded up), a trailing Z."""
    from sessdex.views.records import iso

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        expected = value.astimezone(UTC).isoformat(timespec="milliseconds")
        assert expected.endswith("+00:00")
        assert iso(value) == expected[: -len("+00:00")] + "Z"
        assert iso(value) == iso(value)  # written again, remembered alike
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_naive_time_follows_the_local_zone_when_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sessdex.views.records import iso

    value = datetime(2026, 6, 1, 12, 0, 0)
    try:
        for zone, hour in (("UTC", "12"), ("Asia/Tokyo", "03")):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            assert iso(value) == f"2026-06-01T{hour}:00:00.000Z"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_leads_spawn_types_from_several_files_are_joined_the_higher_winning() -> None:
    """A Vibe 3 lead's newest spawns are in its journal, the older in its chunks: each
    file says what it alone holds, and a sub-agent spawned in either is typed."""
    from sessdex.views.records import (
        merge_states,
        session_encodings,
        session_state,
        state_encodings,
    )

    chunks = Session(app="vibe", id="l", precedence=1,
                     extra={"spawn_types": {"c1": "explore", "c2": "old"}})  # fmt: skip
    journal = Session(app="vibe", id="l", precedence=3, listed=False,
                      extra={"spawn_types": {"c2": "review"}})  # fmt: skip
    child = Session(app="vibe", id="c1", parent_id="l", extra={"spawn_key": "c1"})
    for order in ([chunks, journal], [journal, chunks]):
        lead = merge(order)
        assert lead.extra["spawn_types"] == {"c1": "explore", "c2": "review"}
        assert state_encodings(
            merge_states([session_state(s) for s in order])
        ) == session_encodings(lead)
        typed = model.typed_by_leads({"l": lead, "c1": child})
        assert typed["c1"].agent_type == "explore"


def test_parsed_arguments_parse_json_text_and_keep_other_text_as_it_is() -> None:
    """A tool call's arguments as crush and hermes keep them (JSON text): the call's
    input as the app meant it, the text itself where it is not JSON."""
    from sessdex.sources._values import parsed_arguments

    assert parsed_arguments('{"command": "ls", "n": [1, 2]}') == {
        "command": "ls",
        "n": [1, 2],
    }
    assert parsed_arguments('{"command": "ls"') == '{"command": "ls"'  # cut short
    assert parsed_arguments("") == ""
    assert parsed_arguments(None) is None
    assert parsed_arguments({"k": (1, 2)}) == {"k": [1, 2]}  # copied, as JSON holds it
