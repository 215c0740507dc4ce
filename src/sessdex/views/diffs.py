"""Edits and patches in tool inputs: found under each app's names, shown as diffs.

An edit is a tool input holding a text before and after (`old_string`/`new_string`,
`oldText`/`newText`, …, or a list of them under `edits`); a patch is a tool input that is
one (an `apply_patch` tool's, also as a shell call). Both become the lines of a unified
diff, which every view shows its own way; a call's summary counts the lines they add
and remove.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

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
    lines: list[str] = []
    for old, new in pairs:
        if old.endswith("\n") and new.endswith("\n"):  # it ends their last line: no
            old, new = old[:-1], new[:-1]  # empty line after it, as diff counts them
        lines.extend(_hunks(old.split("\n"), new.split("\n")))
    return lines, keys


def edit_keys(value: Mapping[str, object]) -> set[str]:
    """The keys of a tool input that hold the edits `edit_diff` shows, its diff unmade."""
    return _edits(value)[1]


def input_diff(value: object) -> list[str]:
    """The diff a tool input holds: its patch's lines, else its edits' ([] if neither)."""
    patch = patch_text(value)
    if patch is not None:
        return patch.rstrip("\n").split("\n")
    return edit_diff(value)[0] if isinstance(value, Mapping) else []


def change_counts(value: object) -> tuple[int, int] | None:
    """(lines added, lines removed) by the edits or the patch a tool input holds."""
    return diff_counts(input_diff(value))


def diff_counts(diff: list[str]) -> tuple[int, int] | None:
    """`change_counts` of a diff `input_diff` gave."""
    kinds = diff_kinds(diff)
    added, removed = kinds.count("add"), kinds.count("del")
    return (added, removed) if added or removed else None


def _hunks(before: list[str], after: list[str], context: int = 2) -> list[str]:
    """The unified diff of two texts' lines, as `difflib.unified_diff` writes it (less
    its file headers). The first and last lines both share are set aside before matching,
    so an edit of a few lines in a long text costs only those few; what still holds more
    than _DIFF_LINES lines goes out and comes in whole."""
    import difflib

    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    if start == len(before) == len(after):
        return []  # the same text
    if len(before) + len(after) - 2 * (start + end) > _DIFF_LINES:
        out, into = before[start : len(before) - end], after[start : len(after) - end]
        return [
            f"@@ -{_span(start, len(out))} +{_span(start, len(into))} @@",
            *("-" + line for line in out),
            *("+" + line for line in into),
        ]
    start, end = max(0, start - context), max(0, end - context)
    a, b = before[start : len(before) - end], after[start : len(after) - end]
    lines: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines.append(
            f"@@ -{_span(start + i1, i2 - i1)} +{_span(start + j1, j2 - j1)} @@"
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[i1:i2])
                continue
            lines.extend("-" + line for line in a[i1:i2])
            lines.extend("+" + line for line in b[j1:j2])
    return lines


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
    starred = any(line.startswith("*** Begin Patch") for line in lines[:3])
    kinds: list[str] = []
    in_hunk = False
    for line in lines:
        first = line[:1]
        if line.startswith("@@") or (starred and line.startswith("*** ")):
            kinds.append("hunk")
            in_hunk = True
        elif not in_hunk and not starred:
            kinds.append("hunk")
        elif first in ("+", "-"):
            kinds.append("add" if first == "+" else "del")
        elif first in (" ", "\\", ""):
            kinds.append("ctx")
        else:  # the next file's header
            kinds.append("hunk")
            in_hunk = False
    return kinds
