"""Codex CLI: what a rollout carries besides plain text (encrypted items, a prompt's
attachments, inline recordings) is shown for what it is, never dropped in silence."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.sources import codex
from tests.helpers import sessions_of

STAMP = "2026-12-01T10:00:00.000Z"


def _rollout(home: Path, thread: str, lines: list[dict[str, object]]) -> None:
    meta = {
        "timestamp": STAMP,
        "type": "session_meta",
        "payload": {"id": thread, "timestamp": STAMP, "cwd": "/w", "cli_version": "0.171.0"},
    }  # fmt: skip
    day = home / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-12-01T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [meta, *lines]))


def _line(kind: str, payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": STAMP, "type": kind, "payload": payload}


def _said(role: str, text: str) -> dict[str, object]:
    kind = "input_text" if role == "user" else "output_text"
    return _line(
        "response_item",
        {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
    )


def test_reasoning_codex_kept_only_encrypted_is_said_to_be_so(tmp_path: Path) -> None:
    """A reasoning item with no summary and no text, only `encrypted_content` (the shape
    of line 39 of the 0.146 catalogue, tests/data/codex/catalogue-0.146.jsonl, from
    jazzyalex/agent-sessions: `"summary":[],"content":null,"encrypted_content":…`;
    ResponseItem::Reasoning in openai/codex codex-rs/protocol/src/models.rs) was read as
    nothing: the model's thinking vanished from `show` with no word. It reads as thinking
    that says it is encrypted, and how much; one with a summary still shows the summary
    alone. A message whose words are only encrypted says so too."""
    thread = "01a22b81-dddd-7000-8000-00000000e001"
    sealed = "gAAAAABp" + "Q" * 1222  # 1,230 characters: 1.2 KB
    lines = [
        _line("event_msg", {"type": "user_message", "message": "Why does the build fail?",
                            "images": [], "local_images": [], "text_elements": []}),
        _said("user", "Why does the build fail?"),
        _line("response_item", {"type": "reasoning", "summary": [], "content": None,
                                "encrypted_content": sealed}),
        _said("assistant", "The lockfile is stale."),
        _line("event_msg", {"type": "agent_message", "message": "The lockfile is stale."}),
        _line("response_item", {"type": "reasoning", "id": "rs-2",
                                "summary": [{"type": "summary_text", "text": "**Checking the lockfile**"}],
                                "encrypted_content": sealed}),
        _line("event_msg", {"type": "agent_reasoning", "text": "**Checking the lockfile**"}),
        _line("response_item", {"type": "message", "role": "assistant", "content": [],
                                "encrypted_content": "Z" * 300}),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    diagnostics = Diagnostics()
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], diagnostics))
    assert [(e.kind, e.text) for e in found if e.kind != "usage"] == [
        ("user", "Why does the build fail?"),
        ("thinking", "[reasoning: encrypted, 1.2 KB]"),
        ("assistant", "The lockfile is stale."),
        ("thinking", "**Checking the lockfile**"),
        ("assistant", "[message: encrypted, 300 B]"),
    ]
    assert dict(diagnostics.unknown) == {}
    shown = CliRunner().invoke(main, ["show", thread[:16], "--home", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert "thinking: [reasoning: encrypted, 1.2 KB]" in shown.stdout
    assert sealed[:40] not in shown.stdout


def test_encrypted_stand_in_gives_way_to_the_words_an_event_carries(
    tmp_path: Path,
) -> None:
    """Codex writes reasoning and messages twice, a response item and a UI event, in
    either order: where the item holds only ciphertext and the event the words, the
    words are shown, once, and no stand-in beside them."""
    thread = "01a22b81-dddd-7000-8000-00000000e002"
    sealed = "gAAAAABp" + "Q" * 500
    lines = [
        _said("user", "Go"),
        _line("event_msg", {"type": "agent_reasoning_raw_content", "text": "Looking at CI"}),
        _line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": sealed}),
        _line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": sealed}),
        _line("event_msg", {"type": "agent_reasoning_raw_content", "text": "Then the tests"}),
        _said("assistant", "Done."),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [(e.kind, e.text) for e in found] == [
        ("user", "Go"),
        ("thinking", "Looking at CI"),
        ("thinking", "Then the tests"),
        ("assistant", "Done."),
    ]


def test_a_prompts_uploaded_images_are_named_in_the_order_given(
    tmp_path: Path,
) -> None:
    """A `user_message` event (UserMessageEvent in openai/codex's protocol: `images`,
    inline image URLs; `file_ids`, uploaded images, with `file_id_details`, one detail
    level per id, no name; `image_order`, "inline" or "file" for each picture in the order
    the user gave them; `audio` and `local_audio`, recordings; `null` where none, as the
    0.146 catalogue's line 4 has them) named only its inline and local pictures: the
    uploaded ones were left out, and a prompt of uploads alone was no prompt (its echo's
    `input_image` parts were shown instead, and the listing had no title for it)."""
    thread = "01a22b81-dddd-7000-8000-00000000e003"
    picture = "data:image/png;base64," + "A" * 4000
    recording = "data:audio/wav;base64," + "A" * 4000
    lines = [
        _line("event_msg", {"type": "user_message", "message": "Compare these",
                            "images": [picture], "image_details": [None],
                            "file_ids": ["file-7Qm2", "file-9Xk4"],
                            "file_id_details": ["high", None],
                            "image_order": ["file", "inline", "file"],
                            "local_images": ["/w/shot.png"], "local_image_details": [None],
                            "audio": None, "local_audio": None, "text_elements": [],
                            "client_id": "cli"}),
        _line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Compare these"},
            {"type": "input_image", "file_id": "file-7Qm2", "detail": "high"},
            {"type": "input_image", "image_url": picture},
            {"type": "input_image", "file_id": "file-9Xk4"},
            {"type": "input_image", "image_url": picture}]}),
        _said("assistant", "The second is sharper."),
        _line("event_msg", {"type": "user_message", "message": "",
                            "images": None, "file_ids": ["file-aa01"],
                            "image_order": "file", "audio": [recording]}),
        _said("assistant", "A chart and a voice note."),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    diagnostics = Diagnostics()
    session = sessions_of(codex, tmp_path)[thread]
    found = list(codex.read(session, diagnostics))
    assert [e.text for e in found if e.kind == "user"] == [
        "Compare these\n[image: file file-7Qm2]\n[image, 3.9 KB]"
        "\n[image: file file-9Xk4]\n[image: /w/shot.png]",
        "[image: file file-aa01]\n[audio, 3.9 KB]",
    ]
    assert dict(diagnostics.unknown) == {}


def test_a_long_picture_address_or_upload_id_shows_its_start_and_size(
    tmp_path: Path,
) -> None:
    """A picture's web address or upload id is a name to read: one of megabytes (in a line
    under files.py's 4 MB cut, so nothing shortened it) showed whole in the prompt."""
    thread = "01a22b81-dddd-7000-8000-00000000e005"
    address = "https://example.com/p?q=" + "a" * 1_000_000
    upload = "file-" + "b" * 5000
    lines = [
        _line("event_msg", {"type": "user_message", "message": "Look",
                            "images": [address], "file_ids": [upload, "file-short"]}),
        _said("assistant", "Seen."),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    session = sessions_of(codex, tmp_path)[thread]
    prompt = next(
        e.text for e in codex.read(session, Diagnostics()) if e.kind == "user"
    )
    assert prompt is not None and len(prompt) < 1000
    assert "[image: https://example.com/p?q=aaa" in prompt
    assert "(976.6 KB)]" in prompt and "(4.9 KB)]" in prompt
    assert "[image: file file-short]" in prompt


def test_a_recording_in_openais_nested_shape_says_its_format_and_size(
    tmp_path: Path,
) -> None:
    """OpenAI's chat content part for a recording nests it, `{"type": "input_audio",
    "input_audio": {"data": <base64>, "format": "wav"}}` (the Chat Completions shape;
    Codex's own 0.171 parts give `audio_url` or `file_id` at the top): it read as a bare
    `[audio]`. It says its format and size, never its base64, in a prompt and in a tool's
    output alike; a format that is no short word is left out."""
    thread = "01a22b81-dddd-7000-8000-00000000e004"
    sound = "UklGR" + "A" * (340 * 1024 - 5)  # 340 KB of base64
    lines = [
        _line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Transcribe this"},
            {"type": "input_audio", "input_audio": {"data": sound, "format": "wav"}}]}),
        _line("response_item", {"type": "function_call", "name": "mic__record",
                                "call_id": "c1", "arguments": "{}"}),
        _line("response_item", {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "Recorded"},
            {"type": "input_audio", "input_audio": {"data": sound[:2048], "format": "\x1b[31mmp3"}}]}),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [(e.kind, e.text) for e in found if e.kind in ("user", "tool_result")] == [
        ("user", "Transcribe this\n[audio: wav, 340.0 KB]"),
        ("tool_result", "Recorded\n[audio, 2.0 KB]"),
    ]


def test_a_stand_in_keeps_its_place_where_the_next_reasoning_writes_its_event_first(
    tmp_path: Path,
) -> None:
    """Codex writes a reasoning item's UI event before its response item (or after): an
    encrypted-only item then a summarised one, with nothing between, read the second's
    event as the first's words. Its summary showed twice and the stand-in not at all."""
    thread = "01a22b81-dddd-7000-8000-00000000e005"
    sealed = "gAAAAABp" + "Q" * 500
    lines = [
        _line("event_msg", {"type": "user_message", "message": "Go"}),
        _line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": sealed}),
        _line("event_msg", {"type": "agent_reasoning", "text": "**Reading the log**"}),
        _line("response_item", {"type": "reasoning", "encrypted_content": sealed, "summary": [
            {"type": "summary_text", "text": "**Reading the log**"}]}),
        _said("assistant", "Found it."),
    ]  # fmt: skip
    _rollout(tmp_path, thread, lines)
    found = list(codex.read(sessions_of(codex, tmp_path)[thread], Diagnostics()))
    assert [(e.kind, e.text) for e in found] == [
        ("user", "Go"),
        ("thinking", "[reasoning: encrypted, 508 B]"),
        ("thinking", "**Reading the log**"),
        ("assistant", "Found it."),
    ]
    shown = CliRunner().invoke(main, ["show", thread[:16], "--home", str(tmp_path)])
    assert shown.stdout.count("Reading the log") == 1, shown.stdout
