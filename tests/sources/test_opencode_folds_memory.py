"""What OpenCode's compaction notes hold of each message read since the last compaction
(a long session that never compacts holds them all): an ordinary answer its id alone,
a prompt its head, not its words beside."""

from __future__ import annotations

import tracemalloc

from sessdex.sources._opencode_folds import Folds

PROMPT = "Please fix the failing test in src/app.py and then run the suite again; " * 4


def test_a_message_read_holds_under_300_bytes() -> None:
    turns = 20_000
    Folds().prompt(None, "warm")
    tracemalloc.start()
    try:
        folds = Folds()
        for n in range(turns):
            folds.message(None, f"msg_{n:012x}ZkVqLd8yXo2P3n", False)
            folds.prompt(None, PROMPT + str(n))
            folds.message(None, f"msg_{n:012x}AkVqLd8yXo2P3m", False)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held / (2 * turns) < 300  # it was 372: an object a message, its words kept
    folds.message(None, "request", False)
    kept = f"msg_{turns - 3:012x}ZkVqLd8yXo2P3n"
    assert folds.note(None, {"auto": True, "tail_start_id": kept}) == (
        "compacted automatically, the context being full: 39,994 messages summarized, "
        '6 kept as they were, from the prompt "Please fix the failing test in src/app.py '
        'and then run the…"'
    )


def test_words_the_head_cannot_give_are_kept() -> None:
    """A prompt whose first 200 characters are blank: its words come from the whole
    text, as before."""
    folds = Folds()
    text = " \n" * 150 + "the words"
    folds.message(None, "m1", False)
    folds.prompt(None, text)
    folds.message(None, "a1", False)
    folds.message(None, "request", False)
    assert folds.note(None, {"tail_start_id": "m1"}).endswith(
        '0 messages summarized, 2 kept as they were, from the prompt "the words"'
    )
