"""Edits and patches in tool inputs: found under each app's names, shown as diffs.

An edit is a tool input holding a text before and after (`old_string`/`new_string`,
`oldText`/`newText`, …, or a list of them under `edits`); a patch is a tool input that is
one (an `apply_patch` tool's, also as a shell call). Both become the lines of a unified
diff, which every view shows its own way; a call's summary counts the lines they add
and remove.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

# Arguments that hold a text before and after an edit, whatever the app calls them; a
# list of such pairs under "edits" or "replacements" (several edits in one call) is read
# the same way.
_EDIT_PAIRS = (
    ("old_string", "new_string"),
    ("oldString", "newString"),
    ("old_str", "new_str"),
    ("old_text", "new_text"),
    ("oldText", "newText"),
    ("search", "replace"),  # Warp's apply_file_diffs, a list of them under `diffs`
    # the Kiro IDE's replace action: whole files
    ("originalContent", "modifiedContent"),
)
# where a list of such pairs is (Copilot Chat's multi_replace_string_in_file: `replacements`)
_EDIT_LISTS = ("edits", "replacements", "diffs")
_EDITS_SHOWN = 100  # edits of one call shown as a diff; past that, the rest as they are
_DIFF_LINES = (
    20_000  # lines before and after, past which an edit is not matched line by line
)


def edit_diff(value: Mapping[str, object]) -> tuple[list[str], set[str]]:
    """A tool input's edits as the lines of a unified diff (hunk headers, ` `, `-`, `+`
    lines, no file headers), and the keys that held them; ([], set()) when it has none."""
    pairs, keys = _edits(value)
    return [line for pair in pairs for line in _pair_lines(*pair)], keys


def _pair_lines(old: str, new: str) -> Iterator[str]:
    """The diff of one edit, a line at a time."""
    old_end, new_end = len(old), len(new)
    if old.endswith("\n") and new.endswith("\n"):  # it ends their last line: no
        old_end, new_end = (
            old_end - 1,
            new_end - 1,
        )  # empty line after it, as diff counts
    yield from _hunks_of(old, old_end, new, new_end)


def edit_keys(value: Mapping[str, object]) -> set[str]:
    """The keys of a tool input that hold the edits `edit_diff` shows, its diff unmade."""
    return _edits(value)[1]


def input_diff(value: object) -> list[str]:
    """The diff a tool input holds: its patch's lines, else its edits' ([] if neither)."""
    return list(diff_lines(value))


def held_diff(value: object) -> list[str] | Iterable[str]:
    """`input_diff` of a tool input, for a view that reads it twice (its counts, then
    its head): as a list where the input is small, else made again at each read (a
    20 MB patch's lines held peaked at 6.7 times its size; an edit's, 33 times)."""
    patch = patch_text(value)
    if patch is not None:
        size = len(patch)
    elif isinstance(value, Mapping):
        size = sum(len(old) + len(new) for old, new in _edits(value)[0])
    else:
        return []
    return input_diff(value) if size <= _HELD else _Remade(value)


_HELD = 1 << 20  # characters of an input whose diff is held


class _Remade:
    """A big input's diff, its lines made again each time it is read."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __iter__(self) -> Iterator[str]:
        return diff_lines(self.value)

    def __bool__(self) -> bool:
        """Whether it has a line, its lines not made: a patch has one, an edit where its
        texts differ (`_hunks_of` of the same texts is empty)."""
        if patch_text(self.value) is not None:
            return True
        if not isinstance(self.value, Mapping):
            return False
        return any(old != new for old, new in _edits(self.value)[0])


def diff_lines(value: object) -> Iterator[str]:
    """`input_diff`'s lines, one at a time: a 20 MB patch or edit is not held as a list
    of its lines, nor an edit past _DIFF_LINES as two (its lines, then each marked)."""
    patch = patch_text(value)
    if patch is not None:
        end = len(patch)
        while end and patch[end - 1] == "\n":  # `rstrip("\n")`, without its copy
            end -= 1
        yield from _lines(patch, 0, end)
    elif isinstance(value, Mapping):
        yield from edit_lines(value)


def edit_lines(value: Mapping[str, object]) -> Iterator[str]:
    """`edit_diff`'s lines, one at a time."""
    for old, new in _edits(value)[0]:
        yield from _pair_lines(old, new)


def capped_diff(
    diff: Iterable[str], limit: int = 1 << 20, most: int = 5_000
) -> tuple[list[tuple[str, str]], int]:
    """(line, kind) of a diff's lines for a view that shows them all, as far as `limit`
    characters (a newline between lines; the last line cut there) or `most` lines, and
    how many characters more it has, read a line at a time: `-f html` and `show` of a
    20 MB edit held its every line, some 33 times the edit."""
    lines = iter(diff)
    head = list(itertools.islice(lines, 3))
    read, marked = itertools.tee(itertools.chain(head, lines))  # in step: 1 line held
    shown: list[tuple[str, str]] = []
    length = held = 0
    for n, (line, kind) in enumerate(
        zip(read, _kinds(marked, _starred(head)), strict=True)
    ):
        gap = 1 if n else 0
        length += gap + len(line)
        if n < most and held + gap < limit:
            piece = line[: limit - held - gap]
            shown.append((piece, kind))
            held += gap + len(piece)
    return shown, length - held


def _lines(text: str, start: int, end: int) -> Iterator[str]:
    """The lines of `text[start:end]`, as `split("\n")` gives them: split a piece of
    about _PIECE characters at a time (a line at a time took 2.3 times the CPU)."""
    while end - start > _PIECE:
        cut = text.rfind("\n", start, start + _PIECE)
        if cut < 0:  # a line longer than a piece: to its end
            cut = text.find("\n", start + _PIECE, end)
            if cut < 0:
                break
        yield from text[start:cut].split("\n")
        start = cut + 1
    yield from text[start:end].split("\n")


_PIECE = 1 << 13  # characters of a diff split at once (some 2,000 short lines)


def _line_starts(text: str, end: int, count: int) -> list[int]:
    """Where each of the first `count` lines of `text[:end]` starts (and one past)."""
    starts, at = [0], 0
    while len(starts) <= count and (cut := text.find("\n", at, end)) >= 0:
        at = cut + 1
        starts.append(at)
    return starts


def change_counts(value: object) -> tuple[int, int] | None:
    """(lines added, lines removed) by the edits or the patch a tool input holds."""
    return diff_counts(diff_lines(value))


def diff_counts(diff: Iterable[str]) -> tuple[int, int] | None:
    """`change_counts` of a diff `input_diff` (or `diff_lines`) gave, read once."""
    lines = iter(diff)
    head = list(itertools.islice(lines, 3))
    kinds = _kinds(itertools.chain(head, lines), _starred(head))
    added = removed = 0
    for kind in kinds:
        added += kind == "add"
        removed += kind == "del"
    return (added, removed) if added or removed else None


def _hunks_of(old: str, old_end: int, new: str, new_end: int) -> Iterator[str]:
    """The unified diff of two texts' lines (of `old[:old_end]`, `new[:new_end]`), as
    `difflib.unified_diff` writes it (less its file headers), a line at a time. The first
    and last lines both share are set aside before matching, so an edit of a few lines
    in a long text costs only those few; what still holds more than _DIFF_LINES lines
    goes out and comes in whole, read off the texts (no list of their lines)."""
    before = old.count("\n", 0, old_end) + 1
    after = new.count("\n", 0, new_end) + 1
    limit = min(before, after)
    # the lines both start with, where the next starts: whole slices compared first
    at_old = at_new = old.rfind("\n", 0, _shared_head(old, new, min(old_end, new_end)))
    at_old = at_new = at_old + 1
    start = old.count("\n", 0, at_old)
    while start < limit:
        cut_old = _line_end(old, at_old, old_end)
        cut_new = _line_end(new, at_new, new_end)
        if cut_old - at_old != cut_new - at_new or (
            old[at_old:cut_old] != new[at_new:cut_new]
        ):
            break
        start, at_old, at_new = start + 1, cut_old + 1, cut_new + 1
    # the lines both end with, where the one before ends: whole slices first, as above
    tail = _shared_tail(
        old, old_end, new, new_end, min(old_end - at_old, new_end - at_new)
    )
    end = old.count("\n", old_end - tail, old_end)
    to_old = old.find("\n", old_end - tail, old_end) if end else old_end
    to_new = new_end - (old_end - to_old)
    while end < limit - start:
        from_old = old.rfind("\n", 0, to_old) + 1
        from_new = new.rfind("\n", 0, to_new) + 1
        if to_old - from_old != to_new - from_new or (
            old[from_old:to_old] != new[from_new:to_new]
        ):
            break
        end, to_old, to_new = end + 1, from_old - 1, from_new - 1
    if start == before == after:
        return  # the same text
    out, into = before - start - end, after - start - end
    if out + into > _DIFF_LINES:
        yield f"@@ -{_span(start, out)} +{_span(start, into)} @@"
        yield from ("-" + line for line in _some_lines(old, at_old, to_old, out))
        yield from ("+" + line for line in _some_lines(new, at_new, to_new, into))
        return
    # two lines of context each side, as unified_diff shows them
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


_CONTEXT = 2  # lines of context around each change


def _shared_head(old: str, new: str, most: int) -> int:
    """How many first characters (at most `most`) `old` and `new` surely share: whole
    slices compared, halved down to _LEAST (a line at a time in Python took 1.7 s
    for a 20 MB edit of one line)."""
    at, size = 0, _SLICE
    while size >= _LEAST:
        if at + size <= most and old[at : at + size] == new[at : at + size]:
            at += size
        else:
            size //= 2
    return at


def _shared_tail(old: str, old_end: int, new: str, new_end: int, most: int) -> int:
    """`_shared_head` of `old[:old_end]` and `new[:new_end]` from their ends."""
    back, size = 0, _SLICE
    while size >= _LEAST:
        if back + size <= most and (
            old[old_end - back - size : old_end - back]
            == new[new_end - back - size : new_end - back]
        ):
            back += size
        else:
            size //= 2
    return back


_SLICE = 1 << 16  # characters compared at once, the most
_LEAST = 1 << 6  # the fewest: what is left, a line at a time


def _line_end(text: str, start: int, end: int) -> int:
    """Where the line of `text[:end]` that begins at `start` ends."""
    cut = text.find("\n", start, end)
    return end if cut < 0 else cut


def _some_lines(text: str, start: int, end: int, count: int) -> Iterator[str]:
    """The `count` lines of `text[start:end]` (none where `count` is 0)."""
    return _lines(text, start, end) if count > 0 else iter(())


def _matched(a: list[str], b: list[str], start: int) -> Iterator[str]:
    """The hunks of `a` and `b`, the lines from `start` on of the texts an edit changed."""
    import difflib

    context = _CONTEXT
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        yield f"@@ -{_span(start + i1, i2 - i1)} +{_span(start + j1, j2 - j1)} @@"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


def _edits(value: Mapping[str, object]) -> tuple[list[tuple[str, str]], set[str]]:
    """The (before, after) texts of a tool input's edits, and the keys that held them."""
    pairs, keys = _pairs(value)
    for name in _EDIT_LISTS:
        edits = value.get(name)
        if (
            isinstance(edits, list)
            and 0 < len(edits) <= _EDITS_SHOWN
            and all(isinstance(edit, Mapping) for edit in edits)
        ):
            found = [pair for edit in edits for pair in _pairs(edit)[0]]
            if found:
                pairs.extend(found)
                keys.add(name)
    return pairs, keys


def _pairs(value: Mapping[str, object]) -> tuple[list[tuple[str, str]], set[str]]:
    pairs: list[tuple[str, str]] = []
    keys: set[str] = set()
    for old_key, new_key in _EDIT_PAIRS:
        old, new = value.get(old_key), value.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            pairs.append((old, new))
            keys.update((old_key, new_key))
    return pairs, keys


def _span(start: int, length: int) -> str:
    """A hunk header's range as diff writes it: its first line and count, the count
    left out when it is 1, the line before it when it is empty."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1},{length}" if length else f"{start},0"


_PATCH_STARTS = ("*** Begin Patch", "diff --git ", "--- ")


def patch_text(value: object) -> str | None:
    """The patch a tool was given as its whole input, else None: an `apply_patch` tool's
    input (plain, as its one argument, or as `input`), or a shell call of it (`["apply_patch",
    patch]`, `apply_patch <<'EOF'` … `EOF`)."""
    if isinstance(value, Mapping):
        command = value.get("command", value.get("cmd"))
        if (
            isinstance(command, list)
            and len(command) == 2
            and command[0] == "apply_patch"
        ):
            value = command[1]
        elif isinstance(command, str):
            value = command
        elif isinstance(value.get("input"), str):  # beside an `explanation` (Copilot)
            value = value["input"]
        elif len(value) == 1:
            (value,) = value.values()
    if not isinstance(value, str):
        return None
    if value.startswith("apply_patch <<"):  # a heredoc: the lines between its markers
        body = value.partition("\n")[2].rstrip()
        value = (
            body.rpartition("\n")[0] + "\n" if body.endswith(("EOF", "PATCH")) else body
        )
    return value if value.startswith(_PATCH_STARTS) else None


_PATCHED_FILE = re.compile(
    r"^(?:\*\*\* (?:Update|Add|Delete) File: (.+)|\+\+\+ (?:b/)?(.+)|\*\*\* Move to: (.+))$",
    re.MULTILINE,
)


def patched_files(patch: str) -> list[str]:
    """The files a patch names (`*** Update File:` lines, a unified diff's `+++`)."""
    found: list[str] = []
    for match in _PATCHED_FILE.finditer(patch, 0, 1 << 20):
        name = next(group for group in match.groups() if group).strip()
        if name != "/dev/null" and name not in found:
            found.append(name)
    return found


def diff_kinds(lines: Sequence[str]) -> list[str]:
    """What each line of a diff or patch is: "add", "del", "ctx", or "hunk" (a header).

    Read in order, as a patch program would: before a file's first `@@` every line is a
    header (`diff --git`, `---`, `+++`); inside a hunk the first character says (a removed
    `-- comment` line is a removal, not a header). In the `*** Begin Patch` format, the `***`
    lines and the `@@` markers are the headers, and a file added whole has no `@@`."""
    return list(_kinds(lines, _starred(lines[:3])))


def _starred(head: Sequence[str]) -> bool:
    """Whether a diff whose first 3 lines are `head` is in the `*** Begin Patch` format."""
    return any(line.startswith("*** Begin Patch") for line in head)


def _kinds(lines: Iterable[str], starred: bool) -> Iterator[str]:
    in_hunk = False
    for line in lines:
        first = line[:1]
        if line.startswith("@@") or (starred and line.startswith("*** ")):
            yield "hunk"
            in_hunk = True
        elif not in_hunk and not starred:
            yield "hunk"
        elif first in ("+", "-"):
            yield "add" if first == "+" else "del"
        elif first in (" ", "\\", ""):
            yield "ctx"
        else:  # the next file's header
            yield "hunk"
            in_hunk = False
