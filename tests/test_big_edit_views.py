"""A 4 MB edit in `export -f html` and `show --detail full`: its diff is read a line at
a time and cut as the Markdown export cuts it (`capped_diff`), never held whole (33
times the edit's size)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

from sessdex.model import Event, Session
from sessdex.views import html, terminal

SIZE = 4 * 1024 * 1024  # 20 MB takes a minute a view: a line at a time, in Python
EDIT = {
    "file_path": "a.py",
    "old_string": "old\n" * (SIZE // 8),
    "new_string": "new\n" * (SIZE // 8),
}


def call(value: object) -> Event:
    return Event("s", 1, "tool_call", tool="Edit", call_id="c", extra={"input": value})


def page(value: object) -> str:
    return "".join(html.render(Session(app="codex", id="s", title="t"), [call(value)]))


def shown(value: object) -> str:
    lines = terminal.render_events([call(value)], detail="full")
    return "\n".join(line.plain for line in lines)


def peak(view: Callable[[object], str]) -> tuple[str, int]:
    """What `view` writes of the big edit, and the peak of Python memory it took."""
    view({"old_string": "a\n", "new_string": "b\n"})  # imports warmed
    tracemalloc.start()
    try:
        return view(EDIT), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_html_page_of_a_big_edit_holds_a_part_of_its_diff() -> None:
    text, most = peak(page)
    assert most < SIZE  # it was 33 times the edit, its lines held twice
    lines = SIZE // 8
    assert (
        f"@@ -1,{lines} +1,{lines} @@" in text
        and '<span class="del">-old</span>' in text
    )
    # its lines and the newlines between them, less the 5,000 lines shown
    more = (lines * 2 - 4_999) * 5
    assert f'<span class="del">-old</span>\n… ({more} more characters)</pre>' in text


def test_show_of_a_big_edit_holds_a_part_of_its_diff() -> None:
    text, most = peak(shown)
    assert most < SIZE  # it was 33 times the edit
    lines = SIZE // 8
    assert f"    @@ -1,{lines} +1,{lines} @@\n    -old\n    -old" in text
    more = (lines * 2 - 4_999) * 5
    assert text.endswith(f"\n    -old\n    … ({more} more characters)")


def test_a_small_edit_is_shown_whole_without_a_cut() -> None:
    edit = {
        "file_path": "a.py",
        "old_string": "a\nb\nc\n",
        "new_string": "a\nB\nc\nd\n",
    }
    assert "more characters" not in page(edit) + shown(edit)
    assert "    -b\n    +B\n     c\n    +d" in shown(edit)
