"""A text cut to a width is measured only as far as the cut: `show` of a tool call whose
input held a 30 MB string measured every character of it for each line it drew (minutes,
with an emoji joiner in it: Rich's graphemes of the whole text)."""

from __future__ import annotations

import pytest

from sessdex.views import text


def _measured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = text._char_cells

    def counted(char: str) -> int:
        seen.append(char)
        return real(char)

    monkeypatch.setattr(text, "_char_cells", counted)
    return seen


@pytest.mark.parametrize("start", ["", "ab\u200dc"])  # with a joiner: by graphemes
def test_a_long_text_is_measured_only_as_far_as_its_cut(
    start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _measured(monkeypatch)
    long = start + "\u00e9" * 1_000_000
    shown = text.cut(long, 80)
    assert shown.endswith("…")
    assert text.cells(shown) == 80
    assert len(seen) < 2000  # not a million


def test_a_text_of_marks_that_fits_is_still_kept_whole() -> None:
    # 80 letters, each with marks that take no column: 80 columns, kept whole
    marked = "a\u0301\u0302\u0303\u0304\u0305\u0306" * 80
    assert text.cut(marked, 80) == marked
    assert text.cut(marked + "b", 80).endswith("…")
