"""A Gemini CLI chat too big to list whole, written on one line (another tool's compact
copy, not laid out as the app writes it), is listed from its first and last bytes, as
one laid out so is: it was read to its end (18.9 s of a 300 MB chat)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, gemini
from tests.sources.test_gemini import HOME, LEGACY, sessions

COPIES = 7000  # the chat's messages written again: about 19 MB


def _read_bytes() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts /proc's rchar")
def test_a_big_compact_chat_is_listed_from_its_ends(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    laid_out = sessions(home)[LEGACY]
    path = Path(str(laid_out.path))
    chat = json.loads(path.read_bytes())
    chat["messages"] = [
        {**m, "id": f"{m.get('id')}-{n}", "content": m.get("content") or "x" * 2000}
        for n in range(COPIES)
        for m in chat["messages"]
    ]
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    size = path.stat().st_size
    assert size > 16 * 1024 * 1024  # past LIST_LIMIT: listed from its ends

    diagnostics = Diagnostics()
    before = _read_bytes()
    [listed] = gemini.parse(path, gemini.locate(Home.at(home)), diagnostics)
    read = _read_bytes() - before
    assert (listed.id, listed.title, listed.created, listed.updated) == (
        laid_out.id,
        laid_out.title,  # its summary, after its messages
        laid_out.created,
        laid_out.updated,
    )
    assert listed.model == laid_out.model  # its last model message's
    assert listed.model
    assert not diagnostics.problems and diagnostics.skipped_total == 0
    assert read < size / 8, (read, size)  # its ends, not the whole


def test_a_tool_calls_model_argument_is_not_the_chats_model(tmp_path: Path) -> None:
    """Its last model message called a tool whose arguments name a model (an MCP
    server's `chat` tool, as zen-mcp-server's): the chat's model is the message's own,
    as its read to the end finds it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    laid_out = sessions(home)[LEGACY]
    path = Path(str(laid_out.path))
    chat = json.loads(path.read_bytes())
    last = next(m for m in reversed(chat["messages"]) if m.get("model"))
    last["toolCalls"] = [
        {
            "id": "chat-1",
            "name": "chat",
            "args": {"prompt": "a second opinion", "model": "o3"},
            "status": "success",
            "result": [],
        }
    ]
    chat["messages"] = [
        {**m, "id": f"{m.get('id')}-{n}", "content": m.get("content") or "x" * 2000}
        for n in range(COPIES)
        for m in chat["messages"]
    ]
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    assert (
        path.stat().st_size > 16 * 1024 * 1024
    )  # past LIST_LIMIT: listed from its ends

    [listed] = gemini.parse(path, gemini.locate(Home.at(home)), Diagnostics())
    assert listed.model == laid_out.model == "gemini-2.5-pro"


def _compact_chat(tmp_path: Path) -> tuple[Path, Path, dict[str, object]]:
    """The legacy chat's home and path, its chat to be written on one line past
    LIST_LIMIT (its messages written again)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = Path(str(sessions(home)[LEGACY].path))
    chat = json.loads(path.read_bytes())
    chat["messages"] = [
        {**m, "id": f"{m.get('id')}-{n}", "content": m.get("content") or "x" * 2000}
        for n in range(COPIES)
        for m in chat["messages"]
    ]
    return home, path, chat


@pytest.mark.parametrize("kb", [400, 700])
@pytest.mark.parametrize("last", [True, False])
def test_an_array_after_the_messages_does_not_name_the_model(
    tmp_path: Path, kb: int, last: bool
) -> None:
    """An array of objects that carry a model after the messages, longer than the
    chat's last 256 KB (its last member, or one before the summary): the chat's model
    is its last message's, as the whole read finds it, not that array's (it was: "o3")."""
    home, path, chat = _compact_chat(tmp_path)
    count = kb * 1024 // 1000
    chat["reviews"] = [{"type": "gemini", "model": "o3", "content": "y" * 960}] * count
    if not last:  # a member after it too
        chat["summary"] = chat.pop("summary", "A chat with reviews")
    path.write_bytes(json.dumps(chat, separators=(",", ":")).encode())
    assert path.stat().st_size > 16 * 1024 * 1024

    [listed] = gemini.parse(path, gemini.locate(Home.at(home)), Diagnostics())
    assert listed.model == "gemini-2.5-pro"


def test_messages_written_again_after_the_array_name_the_model(
    tmp_path: Path,
) -> None:
    """A "messages" written again after the array: a parser keeps the later one (orjson,
    as the whole read parses it), so its model is the chat's; it was the first's."""
    home, path, chat = _compact_chat(tmp_path)
    body = json.dumps(chat, separators=(",", ":")).encode()
    later = b',"messages":[{"type":"gemini","model":"later-model","content":"hi"}]}'
    path.write_bytes(body[:-1] + later)
    assert orjson_model(path.read_bytes()) == "later-model"

    [listed] = gemini.parse(path, gemini.locate(Home.at(home)), Diagnostics())
    assert listed.model == "later-model"


def orjson_model(data: bytes) -> str | None:
    """The last model the whole chat's messages name, parsed as the whole read parses."""
    import orjson

    found = [m["model"] for m in orjson.loads(data)["messages"] if m.get("model")]
    return found[-1] if found else None
