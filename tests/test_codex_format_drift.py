"""Format drift, OpenAI Codex CLI: what newer releases write that the reader must take."""

from __future__ import annotations

import json
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import codex
from tests.helpers import sessions_of


def _events(session: Session) -> list[Event]:
    return list(codex.read(session, Diagnostics()))


def _message(role: str, text: str, message_id: str) -> dict[str, object]:
    kind = "input_text" if role == "user" else "output_text"
    return {
        "type": "message",
        "id": message_id,
        "role": role,
        "content": [{"type": kind, "text": text}],
    }


def test_bookkeeping_lines_of_0_171_are_known_not_unknown(tmp_path: Path) -> None:
    """Codex 0.171.0 writes two more line types, `dynamic_tools_updated` (the tools a
    thread may call) and `id_allocation` (ids handed to response items), a response item
    `configuration_update` (a change to the request's settings), and in its
    paginated history a review's start and end as `item_completed` items
    (`EnteredReviewMode`, `ExitedReviewMode`): bookkeeping, none of it said by anyone.
    The line types are the rollout item tags in the 0.171.0 linux-x64 binary; the items'
    fields follow codex-rs/protocol/src/items.rs (EnteredReviewModeItem {id, target,
    user_facing_hint}, ExitedReviewModeItem {id, review_output}, 3 and 2 fields in that
    binary); the payloads of the three new records are not read, so theirs are left small."""
    thread = "01a22b81-dddd-7000-8000-00000000d002"
    stamp = "2026-12-01T10:00:00.000Z"
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "dynamic_tools_updated",
         "payload": {"dynamic_tools": [{"name": "lookup", "description": "d"}]}},
        {"timestamp": stamp, "type": "id_allocation", "payload": {"next": 7}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "configuration_update"}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "user_message", "message": "/review"}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": thread, "turn_id": "t1",
                     "item": {"type": "EnteredReviewMode", "id": "r1",
                              "target": {"type": "uncommittedChanges"},
                              "user_facing_hint": "current changes"}}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": thread, "turn_id": "t1",
                     "item": {"type": "ExitedReviewMode", "id": "r2",
                              "review_output": None}}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "No findings.", "msg_1")},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    diagnostics = Diagnostics()
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], diagnostics))
    assert dict(diagnostics.unknown) == {}
    assert [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")] == [
        ("user", "/review"),
        ("assistant", "No findings."),
    ]


def test_an_answer_delivered_in_code_mode_is_shown_as_the_user_saw_it(
    tmp_path: Path,
) -> None:
    """In code mode the answer reaches the user through a tool the model's script calls;
    Codex 0.171 records each delivered answer as an assistant message whose harness
    metadata names the delivery. Complete, its text is the answer; cut short, its text is
    a stand-in and what the user saw follows the marker. Shape from openai/codex
    codex-rs/history/src/lib.rs (CodexHarnessMetadata.delivered_assistant_message); the
    marker and the stand-in text are in the codex 0.171.0 linux-x64 binary."""
    thread = "01a22b81-dddd-7000-8000-00000000d003"
    stamp = "2026-12-01T10:00:00.000Z"
    stand_in = (
        "The content of a confirmed assistant message is unavailable. "
        "Do not infer what was asked or authorized."
    )
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("user", "Send the report", "msg_0")},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "custom_tool_call", "name": "exec", "call_id": "c1",
                     "input": "await tools.user_messaging.send_message({text: 'Sent.'})"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "I sent the report to the team.", "msg_1"),
         "metadata": {"delivered_assistant_message": "codex:code-mode-delivery:v1:complete"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", stand_in, "msg_2"),
         "metadata": {"delivered_assistant_message":
                      "codex:code-mode-delivery:v1:incomplete:And the summary is"}},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [e.text for e in found if e.kind == "assistant"] == [
        "I sent the report to the team.",
        "And the summary is",
    ]


def test_spoken_input_and_files_by_id_are_shown_not_dropped(tmp_path: Path) -> None:
    """Codex 0.171.0's content items take audio (`input_audio`, by `audio_url` or an
    uploaded `file_id`) and images by `file_id` instead of a URL, in messages and in a
    tool's output items (ContentItem and FunctionCallOutputContentItem as its
    `app-server generate-ts` writes them). A user's words said aloud must show as audio
    where they were, not vanish, and an image by id must say which file it was."""
    thread = "01a22b81-dddd-7000-8000-00000000d004"
    stamp = "2026-12-01T10:00:00.000Z"
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_text", "text": "Listen to this"},
             {"type": "input_audio", "audio_url": "https://example.test/a.wav"}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "Heard it.", "msg_1")},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_audio", "file_id": "file-audio-1"}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "Heard that too.", "msg_2")},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_image", "file_id": "file-img-1", "detail": "original"}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "function_call", "name": "record", "call_id": "c1",
                     "arguments": "{}"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1", "output": [
             {"type": "input_text", "text": "Recorded 3 s"},
             {"type": "input_audio", "audio_url": "data:audio/wav;base64," + "A" * 4000}]}},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [e.text for e in found if e.kind == "user"] == [
        "Listen to this\n[audio: https://example.test/a.wav]",
        "[audio: file file-audio-1]",
        "[image: file file-img-1]",
    ]
    assert [e.text for e in found if e.kind == "tool_result"] == [
        "Recorded 3 s\n[audio, 3.9 KB]"
    ]


def test_a_prompt_with_a_recording_is_shown_once_with_it(tmp_path: Path) -> None:
    """Codex 0.171.0's user input takes recordings: the `user_message` event lists a local
    one in `local_audio` (beside `local_images`), its paginated `UserMessage` item holds
    `local_audio` and `audio` inputs, and the response item echoes the prompt with the
    recording as `input_audio` data. The prompt shows once, with the file it said; a
    recording alone is still a prompt. Field names from the 0.171.0 linux-x64 binary
    (UserMessageEvent's fields, UserInput::Audio and ::LocalAudio)."""
    thread = "01a22b81-dddd-7000-8000-00000000d005"
    stamp = "2026-12-01T10:00:00.000Z"
    recording = "data:audio/wav;base64," + "A" * 4000
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "user_message", "message": "What did I say?",
                     "images": [], "local_images": [], "local_audio": ["/w/voice.wav"],
                     "audio_order": [0], "text_elements": []}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_text", "text": "What did I say?"},
             {"type": "input_audio", "audio_url": recording}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "You asked about the build.", "msg_1")},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": thread, "turn_id": "t2",
                     "item": {"type": "UserMessage", "id": "u2", "content": [
                         {"type": "local_audio", "path": "/w/second.wav"}]}}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_audio", "audio_url": recording}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "And then about tests.", "msg_2")},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [e.text for e in found if e.kind == "user"] == [
        "What did I say?\n[audio: /w/voice.wav]",
        "[audio: /w/second.wav]",
    ]


def test_an_mcp_tools_inline_recording_is_shown_by_its_size(tmp_path: Path) -> None:
    """An MCP tool's result (a CallToolResult, as a tool output's `content`) holds a
    recording or an image as base64 `data` beside its `mimeType` (`{"type": "audio",
    "data": ...}`, MCP's shape; Codex's `mcp_tool_call_end` events hold the same), no
    `data:` URL. Reading `audio` parts printed those 40 KB of base64 as
    `[audio: UklGR...]`, and an image's as `[image: iVBOR...]`."""
    thread = "01a22b81-dddd-7000-8000-00000000d006"
    stamp = "2026-12-01T10:00:00.000Z"
    sound = "UklGR" + "A" * 40_000
    picture = "iVBOR" + "A" * 40_000
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("user", "Record the room", "u1")},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "function_call", "name": "mic__record", "call_id": "c1",
                     "arguments": "{}"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1", "output": {
             "content": [
                 {"type": "text", "text": "Recorded 3 s"},
                 {"type": "audio", "data": sound, "mimeType": "audio/wav"},
                 {"type": "image", "data": picture, "mimeType": "image/png"}],
             "isError": False}}},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [e.text for e in found if e.kind == "tool_result"] == [
        "Recorded 3 s\n[audio, 39.1 KB]\n[image, 39.1 KB]"
    ]


def test_a_recording_whose_file_name_holds_a_bracket_is_shown_once(
    tmp_path: Path,
) -> None:
    """The `user_message` event names a prompt's recording or picture by its file
    (`[audio: /w/take[1].wav]`), its echo by its size: a `]` in the file's name ended
    the stand-in there, the rest (`.wav]`) kept as words, and a prompt said only aloud
    (or only shown) was printed twice."""
    thread = "01a22b81-dddd-7000-8000-00000000d007"
    stamp = "2026-12-01T10:00:00.000Z"
    recording = "data:audio/wav;base64," + "A" * 4000
    picture = "data:image/png;base64," + "A" * 4000
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "user_message", "message": "", "images": [],
                     "local_images": [], "local_audio": ["/w/take[1].wav"]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_audio", "audio_url": recording}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "You asked about the build.", "msg_1")},
        {"timestamp": stamp, "type": "event_msg",
         "payload": {"type": "user_message", "message": "", "images": [],
                     "local_images": ["/w/shot [v2].png"]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [
             {"type": "input_image", "image_url": picture}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": _message("assistant", "A login form.", "msg_2")},
    ]  # fmt: skip
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [e.text for e in found if e.kind == "user"] == [
        "[audio: /w/take[1].wav]",
        "[image: /w/shot [v2].png]",
    ]
