"""A tool call of a 20 MB patch, or a big edit, in `export -f md`: its diff is counted
and cut a line at a time (`diff_lines`), never held as a list of its lines."""

from __future__ import annotations

import tracemalloc

from sessdex.model import Event, Session
from sessdex.views import markdown


def page(value: object) -> tuple[str, int]:
    """The page of one call of `value`, and the peak of Python memory it took."""
    call = Event("s", 1, "tool_call", tool="Edit", call_id="c", extra={"input": value})
    session = Session(app="codex", id="s", title="t")
    "".join(markdown.render(session, [call]))  # imports warmed (the same small call)
    tracemalloc.start()
    try:
        shown = "".join(markdown.render(session, [call]))
        return shown, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_20_mb_patch_is_counted_and_cut_a_line_at_a_time() -> None:
    lines = 20 * 1024 * 1024 // 11
    patch = f"*** Begin Patch\n*** Update File: a.py\n@@\n{'+added line' * 1}\n" + (
        "+added line\n" * lines + "*** End Patch\n"
    )
    shown, peak = page(patch)
    assert f"a.py (+{lines + 1:,} -0)".replace(",", "") in shown.replace(",", "")
    assert "+added line\n+added line" in shown and "more characters)" in shown
    assert peak < len(patch) / 10  # it was 6.7 times the patch, its lines held


def test_an_edit_past_the_lines_matched_is_written_a_line_at_a_time() -> None:
    lines = 256 * 1024  # each side: past _DIFF_LINES, 2 MB in all
    old, new = "old\n" * lines, "new\n" * lines
    shown, peak = page({"file_path": "a.py", "old_string": old, "new_string": new})
    assert f"a.py (+{lines} -{lines})" in shown
    assert f"@@ -1,{lines} +1,{lines} @@\n-old\n-old" in shown
    assert peak < (len(old) + len(new)) / 10  # it was 33 times the two texts
