"""`show --tail N` of a Gemini CLI or Qwen Code chat written on one line (another tool's
compact copy, not laid out as the apps write it) reads its last N messages from its end, as
it reads one laid out so, and shows what the whole read's last N events are (it parsed
the whole chat: 2.4 s for a 2.8 MB one, a 300 MB one not at all within the bound); one cut
short or broken is still said, as the whole read says it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Event
from sessdex.sources import Home, _json_chat
from sessdex.transcripts import transcript

CORPUS = Path("/work/shared/corpus/public/gemini-cli/agent-sessions/Resources/Fixtures")
GEMINI_CORPUS = CORPUS / "stage0" / "agents" / "gemini"
DATA = Path(__file__).parent / "data"
GEMINI = DATA / "gemini" / "home" / ".gemini" / "tmp"
QWEN = DATA / "qwen" / "home" / ".qwen" / "tmp"
# real-shaped chats: (app folder, file); the corpus's is skipped where it is absent
CHATS = {
    "gemini-corpus-large": (".gemini", GEMINI_CORPUS / "large.json"),
    "gemini-corpus-small": (".gemini", GEMINI_CORPUS / "small.json"),
    "gemini-fixture": (
        ".gemini",
        GEMINI
        / "2136a2490b0bdc8f317d3e16aecb6c0b6c264127ce17e17345fe6c0dc2ce7069"
        / "chats"
        / "session-2025-11-02T10-15-5a1e9c3b.json",
    ),
    "qwen-fixture": (
        ".qwen",
        QWEN
        / "1f5374d540a2971b67f21072a77fdfe529ecec71e6579e61bda90a285322e2ef"
        / "chats"
        / "session-2025-10-20T09-41-3f9c2a1e.json",
    ),
}


def _compact(tmp_path: Path, name: str, copies: int) -> tuple[Home, str, Path]:
    """The chat's messages written `copies` times (each copy's ids its own) on one line,
    alone in a home: the home, its session id, the file."""
    app, source = CHATS[name]
    if not source.is_file():
        pytest.skip(f"{source} is not here")
    chat = json.loads(source.read_bytes())
    chat["messages"] = [
        {**m, "id": f"{m.get('id')}-{n}"}
        for n in range(copies)
        for m in chat["messages"]
    ]
    chats = tmp_path / app / "tmp" / ("ab" * 32) / "chats"
    chats.mkdir(parents=True)
    # named as the apps name a chat
    path = chats / (
        source.name
        if source.name.startswith("session-")
        else "session-2025-12-16T23-47-b4f17607.json"
    )
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    return Home.at(tmp_path), str(chat["sessionId"]), path


def _shown(events: list[Event]) -> list[tuple[object, ...]]:
    """What a view shows of each event: all but its number."""
    return [
        (e.kind, e.time, e.text, e.tool, e.call_id, e.is_error, e.usage, e.extra)
        for e in events
    ]


def _read_bytes() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


@pytest.mark.parametrize("name", sorted(CHATS))
@pytest.mark.parametrize("count", [1, 4, 25])
def test_a_compact_chats_tail_is_what_its_whole_read_ends_with(
    tmp_path: Path, name: str, count: int
) -> None:
    home, session, _ = _compact(tmp_path, name, 40)
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=count)
    assert _shown(list(found.events)) == _shown(whole[-count:])
    assert found.seq_relative  # read from its end, not whole
    assert not found.diagnostics.problems and found.diagnostics.skipped_total == 0


def test_a_compact_chats_tail_reads_only_its_end(tmp_path: Path) -> None:
    if not Path("/proc/self/io").exists():
        pytest.skip("counts /proc's rchar")
    home, session, path = _compact(tmp_path, "gemini-fixture", 20000)
    size = path.stat().st_size
    assert (
        size > 16 * 1024 * 1024
    )  # listed from its ends, read a message at a time whole
    transcript(home, session, tail=1)  # the index built: its listing read it whole
    before = _read_bytes()
    found = transcript(home, session, tail=5)
    last = list(found.events)
    read = _read_bytes() - before
    assert len(last) == 5 and found.seq_relative
    assert read < size / 8, (read, size)


def test_show_tail_json_of_a_compact_chat_is_the_whole_shows_end(
    tmp_path: Path, run: CliRunner
) -> None:
    _, session, _ = _compact(tmp_path, "qwen-fixture", 50)

    def records(*args: str) -> list[dict[str, object]]:
        result = run.invoke(main, ["show", session, *args, "--home", str(tmp_path)])
        assert result.exit_code == 0, result.output
        found = [json.loads(line) for line in result.stdout.splitlines()]
        return [{k: v for k, v in r.items() if k not in ("seq", "seq_relative")} for r in found]  # fmt: skip

    assert records("--tail", "6", "--nl") == records("--nl")[-6:]


# a text whose bytes look like the document's structure, escapes and all
TRICKY = [
    'a "}]},{"type":"user","content":[ quote',
    'back\\slashes\\\\ \\\\\\" end\\\\',
    "\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\",  # a run a small read block cuts
    '{"id":"x"}',
    "[[[ {{{ ]]] }}}",
]


@pytest.mark.parametrize("block", [3, 7, 64, 1024 * 1024])
def test_texts_like_structure_are_read_back_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Read back a few bytes at a time too: a string, an escape, a run of backslashes
    cut by a block's start are told apart as a whole read tells them."""
    home, session, path = _compact(tmp_path, "gemini-fixture", 30)
    chat = json.loads(path.read_bytes())
    for n, text in enumerate(TRICKY * 4):
        chat["messages"].append(
            {
                "id": f"t{n}",
                "timestamp": f"2025-11-02T18:00:{n:02}.000Z",
                "type": "user" if n % 2 else "gemini",
                "content": text,
            }
        )
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    monkeypatch.setattr(_json_chat, "_BACK", block)
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    for count in (1, 5, 19):
        found = transcript(home, session, tail=count)
        assert _shown(list(found.events)) == _shown(whole[-count:]), count
        assert found.seq_relative


@pytest.mark.parametrize("cut", [0.3, 0.7, 0.999])
def test_a_compact_chat_cut_short_is_said_and_its_tail_shown(
    tmp_path: Path, run: CliRunner, cut: float
) -> None:
    """A copy taken while it was written: the messages before the cut, the cut said."""
    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * cut)])
    whole = transcript(home, session)
    whole_events = [e for e in whole.events if e.agent_id is None]
    found = transcript(home, session, tail=5)
    assert _shown(list(found.events)) == _shown(whole_events[-5:])
    assert found.diagnostics.problems == whole.diagnostics.problems
    assert any("truncated" in r for _, _, r in found.diagnostics.details)
    result = run.invoke(main, ["show", session, "--tail", "5", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "cut short" in result.stderr or "truncated" in result.stderr


def test_a_broken_last_message_is_counted_as_the_whole_read_counts_it(
    tmp_path: Path, run: CliRunner
) -> None:
    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    data = path.read_bytes()
    at = data.rindex(b'"type":')
    path.write_bytes(data[:at] + b'"type";' + data[at + 7 :])  # not JSON there
    whole = transcript(home, session)
    whole_events = [e for e in whole.events if e.agent_id is None]
    found = transcript(home, session, tail=5)
    assert _shown(list(found.events)) == _shown(whole_events[-5:])
    assert found.diagnostics.skipped_total == whole.diagnostics.skipped_total > 0
    result = run.invoke(main, ["show", session, "--tail", "5", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output


def test_a_value_among_the_messages_that_is_none_is_read_as_the_whole_read_reads_it(
    tmp_path: Path,
) -> None:
    """A string (a 5 MB one too), a number among the last messages: the whole read's
    events and counts, the string not read back through."""
    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    for stray in (b'"stray"', b"7", b'"' + b"y" * 5_000_000 + b'"'):
        data = path.read_bytes()
        at = data.rindex(b"]")
        path.write_bytes(data[:at] + b"," + stray + data[at:])
        whole = transcript(home, session)
        whole_events = [e for e in whole.events if e.agent_id is None]
        found = transcript(home, session, tail=5)
        assert _shown(list(found.events)) == _shown(whole_events[-5:])
        assert found.diagnostics.skipped_total == whole.diagnostics.skipped_total


def test_a_later_messages_member_is_the_one_the_tail_shows(tmp_path: Path) -> None:
    """A copy that writes "messages" twice: the whole read keeps the last (as a JSON
    parser does), and so does the tail; it showed the first's end."""
    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    chat = json.loads(path.read_bytes())
    later = json.dumps(chat["messages"][:7], separators=(",", ":"))
    data = path.read_bytes().rstrip()
    path.write_bytes(data[:-1] + b',"messages":' + later.encode() + b"}")
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=3)
    assert _shown(list(found.events)) == _shown(whole[-3:])


# pieces of a text that look like the document's structure or its escapes
_PIECES = ['"', "\\", "]", "[", "}", "{", ",", ":", " ", "a", "é", "😀", "\u2028", "\n"]


def _text(rng: random.Random) -> str:
    return "".join(
        "\\" * rng.randrange(9) + rng.choice(_PIECES) for _ in range(rng.randrange(12))
    )


def _escaped(rng: random.Random, text: str) -> str:
    """`text` as a JSON string, each character escaped one of the ways JSON allows."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append(rng.choice(['\\"', "\\u0022"]))
        elif char == "\\":
            out.append(rng.choice(["\\\\", "\\u005c", "\\u005C"]))
        elif code > 0xFFFF and rng.random() < 0.5:  # a surrogate pair
            code -= 0x10000
            out.append(
                f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
            )
        elif code < 0x20 or rng.random() < 0.1:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out) + '"'


def _encoded(rng: random.Random, value: object, spaced: bool) -> str:
    """`value` as JSON, on one line or with whitespace of every kind between tokens."""

    def gap() -> str:
        return rng.choice(["", " ", "\n", "\t", "\r\n", "\n    "]) if spaced else ""

    if isinstance(value, str):
        return _escaped(rng, value)
    if isinstance(value, list):
        inner = f"{gap()},{gap()}".join(_encoded(rng, v, spaced) for v in value)
        return f"[{gap()}{inner}{gap()}]"
    if isinstance(value, dict):
        inner = f"{gap()},{gap()}".join(
            f"{_escaped(rng, k)}{gap()}:{gap()}{_encoded(rng, v, spaced)}"
            for k, v in value.items()
        )
        return f"{{{gap()}{inner}{gap()}}}"
    return json.dumps(value)


def _value(rng: random.Random, depth: int = 0) -> object:
    pick = rng.random()
    if depth > 2 or pick < 0.4:
        return _text(rng)
    if pick < 0.55:
        return rng.choice([1, -2.5e3, True, None])
    if pick < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_text(rng): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _message(rng: random.Random, n: int) -> dict[str, object]:
    message: dict[str, object] = {
        "id": f"m{n}",
        "type": rng.choice(["user", "gemini", "info"]),
        "content": _text(rng),
    }
    for _ in range(rng.randrange(4)):
        message[rng.choice(["toolCalls", "thoughts", "parts"])] = _value(rng)
    return message


def _chat(rng: random.Random) -> bytes:
    """A chat: members before and after its messages (strings, arrays of objects with
    a type too), laid out on one line or spaced, every key escaped some way but
    "messages", a "messages" written twice now and then."""
    chat: dict[str, object] = {"sessionId": "s1", "startTime": _text(rng)}
    chat["messages"] = [_message(rng, n) for n in range(rng.randrange(12))]
    for name in rng.sample(["summary", "kind", "extra"], rng.randrange(3)):
        chat[name] = rng.choice([_text(rng), [_message(rng, 99)], {"a": [1]}])
    spaced = rng.random() < 0.5
    text = _encoded(rng, chat, spaced)
    if rng.random() < 0.1:  # written twice: a parser keeps the last
        again = _encoded(rng, [_message(rng, 100 + n) for n in range(3)], spaced)
        text = text.rstrip()[:-1] + f',"messages":{again}}}'
    return text.encode()


def test_a_compact_chats_end_read_back_is_its_whole_parse_s_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chats of texts full of quotes, backslash runs, brackets, escapes of every kind,
    read back a few bytes at a time so that each falls on a block's edge: where the
    tail is read from the end, its messages are the last of the whole parse's."""
    rng = random.Random(65)
    path = tmp_path / "chat.json"
    served = 0
    for _ in range(150):
        data = _chat(rng)
        path.write_bytes(data)
        monkeypatch.setattr(_json_chat, "_BACK", rng.choice([1, 2, 3, 8, 64]))
        monkeypatch.setattr(_json_chat, "_FIRST_BACK", rng.choice([1, 2, 7]))
        messages = orjson.loads(data)["messages"]
        for count in range(1, len(messages) + 2):
            found = _json_chat.last_messages(path, count, compact=True)
            if found is not None:
                served += 1
                assert found == messages[-count:], data
    assert served > 100, served  # most are read from the end


@pytest.mark.parametrize("extra_kb", [400, 700])
def test_a_long_array_of_typed_objects_after_the_messages_is_not_taken_for_them(
    tmp_path: Path, extra_kb: int
) -> None:
    """Another tool's copy that writes an array of objects with a "type" after the
    messages, longer than the last bytes read for their close: the tail shows the
    messages' end, as the whole read does; it showed that array's last objects."""
    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    chat = json.loads(path.read_bytes())
    notes: list[dict[str, str]] = []
    size = 0  # the array's size as written, kept as it grows (dumping it each time is quadratic)
    while size < extra_kb * 1024:
        n = len(notes)
        notes.append({"id": f"n{n}", "type": "user", "content": f"note {n} " * 20})
        size += len(json.dumps(notes[-1])) + 2
    chat["notes"] = notes
    chat["summary"] = "with notes"
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=4)
    assert _shown(list(found.events)) == _shown(whole[-4:])
    assert not any("note " in (e.text or "") for e in found.events)


def test_a_message_of_millions_of_brackets_ends_the_read_back_soon(
    tmp_path: Path,
) -> None:
    """One message holding 3 million brackets (a pasted array of empty arrays) among the
    last: the tail is still the whole read's end, and finding that it is to be read
    whole takes a fraction of a second; read back to its start it took about 3 s."""
    import time

    home, session, path = _compact(tmp_path, "gemini-fixture", 40)
    chat = json.loads(path.read_bytes())
    big = {"id": "big", "type": "gemini", "content": "x", "parts": [[]] * 1_500_000}
    later = [{"id": f"z{n}", "type": "user", "content": "bye"} for n in range(3)]
    chat["messages"] += [big, *later]
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    started = time.perf_counter()
    assert _json_chat.last_messages(path, 5, compact=True) is None  # read whole
    assert time.perf_counter() - started < 1.0
    assert _json_chat.last_messages(path, 2, compact=True) == later[1:]
    whole = [e for e in transcript(home, session).events if e.agent_id is None]
    found = transcript(home, session, tail=5)
    assert _shown(list(found.events)) == _shown(whole[-5:])
