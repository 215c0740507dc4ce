"""An edit's diff finds the lines its texts share at both ends by comparing whole
slices (`_shared_head`, `_shared_tail`), then a line at a time: the same lines as the
line-at-a-time search it replaced (kept below as the reference), and a 20 MB edit of one
line no longer walks its lines in Python."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from sessdex.views import diffs
from sessdex.views.diffs import (
    _CONTEXT,
    _DIFF_LINES,
    _line_end,
    _matched,
    _some_lines,
    _span,
)


def reference(old: str, old_end: int, new: str, new_end: int) -> Iterator[str]:
    """`_hunks_of` as it was before 2026-12-07's slices: its shared lines a line at a time."""
    before = old.count("\n", 0, old_end) + 1
    after = new.count("\n", 0, new_end) + 1
    limit = min(before, after)
    start = at_old = at_new = 0
    while start < limit:
        cut_old = _line_end(old, at_old, old_end)
        cut_new = _line_end(new, at_new, new_end)
        if cut_old - at_old != cut_new - at_new or (
            old[at_old:cut_old] != new[at_new:cut_new]
        ):
            break
        start, at_old, at_new = start + 1, cut_old + 1, cut_new + 1
    end, to_old, to_new = 0, old_end, new_end
    while end < limit - start:
        from_old = old.rfind("\n", 0, to_old) + 1
        from_new = new.rfind("\n", 0, to_new) + 1
        if to_old - from_old != to_new - from_new or (
            old[from_old:to_old] != new[from_new:to_new]
        ):
            break
        end, to_old, to_new = end + 1, from_old - 1, from_new - 1
    if start == before == after:
        return
    out, into = before - start - end, after - start - end
    if out + into > _DIFF_LINES:
        yield f"@@ -{_span(start, out)} +{_span(start, into)} @@"
        yield from ("-" + line for line in _some_lines(old, at_old, to_old, out))
        yield from ("+" + line for line in _some_lines(new, at_new, to_new, into))
        return
    first, last = max(0, start - _CONTEXT), max(0, end - _CONTEXT)
    for _ in range(start - first):
        at_old = old.rfind("\n", 0, at_old - 1) + 1
        at_new = new.rfind("\n", 0, at_new - 1) + 1
    for _ in range(end - last):
        to_old = _line_end(old, to_old + 1, old_end)
        to_new = _line_end(new, to_new + 1, new_end)
    a = list(_some_lines(old, at_old, to_old, before - first - last))
    b = list(_some_lines(new, at_new, to_new, after - first - last))
    yield from _matched(a, b, first)


def both(old: str, new: str) -> tuple[list[str], list[str]]:
    """The diff of an edit from old to new, now and by the reference."""
    now = list(diffs._pair_lines(old, new))
    old_end, new_end = len(old), len(new)
    if old.endswith("\n") and new.endswith("\n"):
        old_end, new_end = old_end - 1, new_end - 1
    return now, list(reference(old, old_end, new, new_end))


def text(rng: random.Random, lines: int) -> str:
    words = ["a", "b", "ab", "", "a\tb", "ba", "aaaa", "é"]
    body = "\n".join(rng.choice(words) for _ in range(lines))
    return body + rng.choice(["", "\n", "\n\n"])


def edited(rng: random.Random, base: str) -> str:
    """`base` with a few lines changed, added or taken out, or its ends changed."""
    lines = base.split("\n")
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(lines))
        change = rng.choice(["add", "drop", "swap", "grow"])
        if change == "add":
            lines.insert(at, rng.choice(["a", "b", "", "new"]))
        elif lines and at < len(lines):
            if change == "drop":
                del lines[at]
            elif change == "swap":
                lines[at] = rng.choice(["a", "b", "", "x"])
            else:
                lines[at] += "a"
    return "\n".join(lines) + rng.choice(["", "\n"])


@pytest.mark.parametrize(("largest", "least"), [(64, 1), (16, 2), (1 << 16, 64)])
def test_the_shared_ends_are_the_lines_the_reference_finds(
    monkeypatch: pytest.MonkeyPatch, largest: int, least: int
) -> None:
    # slices a few characters long, so their edges fall everywhere in these texts
    monkeypatch.setattr(diffs, "_SLICE", largest)
    monkeypatch.setattr(diffs, "_LEAST", least)
    rng = random.Random(f"{largest}-{least}")
    for _ in range(1500):
        old = text(rng, rng.randint(0, 60))
        new = edited(rng, old) if rng.random() < 0.9 else text(rng, rng.randint(0, 60))
        now, was = both(old, new)
        assert now == was, (old, new)


def test_big_edits_give_the_reference_s_lines() -> None:
    rng = random.Random(7)
    base = "".join(f"line {n} of the file\n" for n in range(200_000))
    middle = base.replace("line 100000 of", "line 100000 of the changed", 1)
    cases = [
        (base, base),
        (base, middle),
        (base, "changed\n" + base),
        (base, base[:-1]),
        (base, base + "one more\n"),
        ("x" * 200_000 + "\n" + base, "y" * 200_000 + "\n" + base),
        (base, base.replace(f"line {rng.randrange(200_000)} ", "LINE ", 1)),
    ]
    for old, new in cases:
        now, was = both(old, new)
        assert now == was


def test_a_20_mb_edit_of_one_line_is_not_walked_a_line_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = "".join(f"line {n} of the file\n" for n in range(1_000_000))  # 22 MB
    new = base.replace("line 500000 of", "line 500000 of the changed", 1)
    looked = 0
    line_end = diffs._line_end

    def counted(text: str, start: int, end: int) -> int:
        nonlocal looked
        looked += 1
        return line_end(text, start, end)

    monkeypatch.setattr(diffs, "_line_end", counted)  # the same, its calls counted
    diff = list(diffs._pair_lines(base, new))
    assert diff[0] == "@@ -499999,5 +499999,5 @@"
    assert "-line 500000 of the file" in diff and len(diff) == 7
    assert looked < 10_000  # each line both start with, looked at: 1,000,000 of them


def test_whether_a_big_edit_has_a_diff_is_said_without_making_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = "".join(f"line {n}\n" for n in range(300_000))  # past held_diff's 1 MiB
    made = 0
    hunks_of = diffs._hunks_of

    def counted(old: str, old_end: int, new: str, new_end: int) -> Iterator[str]:
        nonlocal made
        made += 1
        return hunks_of(old, old_end, new, new_end)

    monkeypatch.setattr(diffs, "_hunks_of", counted)  # the same, its calls counted
    changed = {"old_string": base, "new_string": base + "x\n"}
    same = {
        "old_string": base,
        "new_string": base,
        "edits": [{"old_text": "a", "new_text": "a"}],
    }
    patch = "*** Begin Patch\n*** Add File: a\n" + "+a\n" * 600_000
    assert bool(diffs.held_diff(changed)) and list(diffs.held_diff(changed))[-1] == "+x"
    made -= 1  # the list just made
    assert not diffs.held_diff(same) and bool(diffs.held_diff(patch))
    assert made == 0 and list(diffs.held_diff(same)) == []
