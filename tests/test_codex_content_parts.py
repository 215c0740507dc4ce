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
