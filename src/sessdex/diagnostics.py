"""What a reader could not use: counted, named by file and line, never by content.

Sources and files.py record into a `Diagnostics`; the index keeps the counts per file so
`sessdex doctor` can report them without reading anything again.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from collections import Counter
from dataclasses import dataclass, field

from .cells import written_out
from .wording import count_of

log = logging.getLogger(__name__)

MAX_DETAILS = 200  # per run: enough for --verbose, bounded for a huge broken home
NAME_NOT_UTF8 = "file name not valid UTF-8"  # a detail that is no skipped line
FOLDER_UNREADABLE = "folder not readable"  # likewise: a listing refused (permissions)
# a file the app removed between the scan and its read: its session is gone, nothing of
# it was left unread (named by --verbose, counted as no unreadable line)
VANISHED = "vanished"
# a file the app's folder lists but sessdex may not open (another user's, a `sudo` run's):
# its sessions are missing, not cut short, so it is said apart from unreadable lines
FILE_REFUSED = "permission denied"
# a file whose text is UTF-16 or UTF-32 (a byte order mark says so: a Windows tool
# re-saved it), where every app writes UTF-8: none of it can be read, and it says so
WIDE_TEXT = "not UTF-8 (UTF-16 or UTF-32 text): not read"
# a hole in a sparse file (`truncate -s 64G`): NUL bytes no one wrote, never read, and
# the line they fall in skipped (`files.next_data`)
HOLE = "a hole of NUL bytes (a sparse file)"
# a line number at or past this names no line but where one starts in its file, plus
# this: a read that began past the file's start (`show --tail`, `follow`) never counted
# the lines before it, and says the byte (`at_byte`) rather than a number of its own
AT_BYTE = 1 << 48  # (no file holds that many lines: 256 TiB of newlines)
MISSING_CHILD = "transcript not found"  # a sub-agent's problem line ends so
# a reader's failure on input it did not expect: its problem line ends so
READER_BUG = "(a sessdex bug: please report it; SESSDEX_DEBUG=1 shows where)"
MAX_MISSING_CHILDREN = 10  # of them, said per run
# the details that name what a scan could not list, not a line a reader skipped
NOT_LINES = frozenset({NAME_NOT_UTF8, FOLDER_UNREADABLE, VANISHED})
# a time past the clock (and a day's slack) or not after 1970: the session or response is
# kept and counted without that time, not skipped (the reasons --verbose names)
FUTURE = "dated in the future"
BEFORE_1970 = "dated before 1970"
UNDATED = frozenset({FUTURE, BEFORE_1970})
# a line read with damage (`Diagnostics.damage`): its text is shown, with U+FFFD for
# bytes that are not UTF-8 (a writer that copied raw bytes), or with NUL bytes (a crash's
# zeros). Counted apart from skipped lines: nothing of it was lost but those bytes. A
# reader may add words after these (why the damage matters there)
NOT_UTF8 = "not UTF-8 (shown as \ufffd)"
NUL_BYTES = "NUL bytes"
# a token count no app writes (text, a bool, a fraction, below 0): the response counts,
# that count not as written (0, or its whole part)
ODD_COUNT = "odd token count"
DAMAGE = (NOT_UTF8, NUL_BYTES, ODD_COUNT)
# what a reader that names no line per response (a chat kept as one JSON document, a
# database row, a file's running totals) counts instead, and its plural: its reason
# says it (`odd_in`), and a warning counts these, not lines
COUNTED = {
    "response": "responses",
    "message": "messages",
    "set of totals": "sets of totals",
}


def odd_in(counted: str) -> str:
    """The reason of an odd token count met in one of `COUNTED` (`odd token count in a
    response`), where the reader names no line of it."""
    return f"{ODD_COUNT} in a {counted}"


def _counted(reason: str) -> str:
    """What a damaged detail's `reason` counted: a line, or one of `COUNTED`."""
    return next((c for c in COUNTED if reason.endswith(f" in a {c}")), "line")


def is_damage(reason: str) -> bool:
    """Whether a detail's `reason` names a line read with damage, not one skipped."""
    return reason.startswith(DAMAGE)


def why(error: BaseException, path: str | os.PathLike[str] | None = None) -> str:
    """What went wrong, for a message that names `path` already: an OSError in the
    system's words ("permission denied"), with the file it names only when that is
    another one (its text repeated the path: "[Errno 13] Permission denied: '<path>'");
    an app's database in SQLite's ("database is locked", "file is not a database": the
    app's store, not sessdex, and no type name to read as a bug); anything else as its
    type and text (a sessdex bug, to be reported as such)."""
    if isinstance(error, sqlite3.DatabaseError) and not isinstance(
        error,
        sqlite3.ProgrammingError | sqlite3.NotSupportedError,  # sessdex's SQL
    ):
        return str(error) or "SQLite error"
    if not isinstance(error, OSError):
        return f"{type(error).__name__}: {error}"
    if not error.strerror:
        return str(error)  # sessdex's own (corrupt zstd data, not a regular file)
    text = error.strerror[:1].lower() + error.strerror[1:]
    named = error.filename
    if isinstance(named, str | bytes | os.PathLike):
        name = os.fsdecode(named)
        if path is None or name != os.fspath(path):
            text += f": {name}"
    return text


def refused(path: str | os.PathLike[str]) -> str:
    """What every command says of a file the system will not let sessdex open (another
    user's): `could not open <path> (permission denied)`; nothing of it was read."""
    return f"could not open {os.fspath(path)} ({FILE_REFUSED})"


def at_byte(offset: int) -> int:
    """The line number that names a line by where it starts, `offset` (`AT_BYTE`)."""
    return AT_BYTE + offset


def numbered(line: int) -> bool:
    """Whether `line` names a line by its number: not 0 (the whole file, or a line a
    read could not number) nor a byte (`at_byte`)."""
    return 0 < line < AT_BYTE


def place(path: str, line: int, reason: str) -> dict[str, object]:
    """One detail as `doctor --json` gives it: the file and its line, or the byte where a
    line a read from past the file's start met begins (`at_byte`), never that number."""
    if line >= AT_BYTE:
        return {"file": path, "byte": line - AT_BYTE, "reason": reason}
    return {"file": path, "line": line, "reason": reason}


def detail(path: str, line: int, reason: str) -> str:
    """One detail as --verbose and `doctor -v` name it, `<path>:<line>: <reason>`, or
    `<path> at byte 12,345,678: <reason>` for a line a read from past the file's start
    met (`at_byte`); a file sessdex was not let open (no line of it read) in the words
    `refused` gives. A control character in a file's name (an escape, a newline) is
    written out (`\\x1b`), so that the name shown is the file's, and a terminal acts on
    none of it."""
    path = written_out(path)
    if reason == FILE_REFUSED:
        return refused(path)
    if line >= AT_BYTE:
        return f"{path} at byte {line - AT_BYTE:,}: {reason}"
    return f"{path}:{line}: {reason}"


def read_failed(
    app: str,
    path: str | os.PathLike[str] | None,
    error: BaseException,
    failed: str = "cannot read",
) -> str:
    """The problem to say of a read of `path` that `error` stopped: `<app>: <failed>
    <path>: <why>`, or, where the system refused to open a file (the one the error names,
    else `path`), the words `refused` gives, as for every refused file."""
    if isinstance(error, PermissionError):
        named = error.filename
        if isinstance(named, str | bytes | os.PathLike):
            return f"{app}: {refused(os.fsdecode(named))}"
        if path is not None:
            return f"{app}: {refused(path)}"
    return f"{app}: {failed} {path}: {why(error, path)}"


def unreadable_lines(count: int) -> str:
    """`skipped 1 unreadable line`, `skipped 3 unreadable lines`: what every warning says."""
    return f"skipped {count} unreadable line{'s' if count != 1 else ''}"


def damaged_lines(damaged: Counter[str]) -> str:
    """`read 1 line with bytes that are not UTF-8 (shown as �)`: what every warning
    says of the lines read with damage (`Diagnostics.damaged`), by what damaged them;
    of a count where no line is named, the responses (or messages, sets of totals)."""
    counted = Counter({"line": 0} | dict.fromkeys(COUNTED, 0))  # (in this order)
    for reason, count in damaged.items():
        counted[_counted(reason)] += count
    said = [
        count_of(count, noun, COUNTED.get(noun))
        for noun, count in counted.items()
        if count
    ]
    lines = " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)
    # (a line damaged two ways is one reason naming both: "... and odd token count")
    kinds = {kind for reason in damaged for kind in DAMAGE if kind in reason}
    if kinds == {NOT_UTF8}:
        return f"read {lines} with bytes that are not UTF-8 (shown as \ufffd)"
    if kinds == {NUL_BYTES}:
        return f"read {lines} holding NUL bytes"
    if kinds == {ODD_COUNT}:
        return (
            f"read {lines} with an odd token count (text, a bool, a fraction, "
            "below 0 or too large: not counted as written)"
        )
    return (
        f"read {lines} with damage (bytes not UTF-8, shown as \ufffd, NUL bytes or an "
        "odd token count)"
    )


def unfinished_line(size: int) -> str:
    """What --verbose and `doctor` say of a file whose last line is unfinished."""
    return (
        f"its last line is unfinished ({size} byte{'s' if size != 1 else ''}): "
        "the app may still be writing it, or it was cut off"
    )


def unfinished_files(count: int) -> str:
    """What `doctor` says of many files whose last lines are unfinished, without -v."""
    return (
        f"{count} files' last lines are unfinished: their apps may still be writing "
        "them, or they were cut off"
    )


def undated(count: int, what: str, where: str) -> str:
    """`2 responses dated in the future or before 1970 are counted under (no time)`: what
    was kept without its time (`UNDATED`), said apart from the lines a reader skipped."""
    plural = count != 1
    return (
        f"{count} {what}{'s' if plural else ''} dated in the future or before 1970 "
        f"{'are' if plural else 'is'} {where}"
    )


@dataclass(slots=True)
class Diagnostics:
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> lines
    unknown: Counter[str] = field(default_factory=Counter)  # record type -> count
    versions: Counter[str] = field(default_factory=Counter)  # CLI version -> sessions
    # (path, line, reason); a line at or past AT_BYTE names a byte, not a line (`at_byte`):
    # `places()` gives them as `doctor --json` does
    details: list[tuple[str, int, str]] = field(default_factory=list)
    problems: list[str] = field(
        default_factory=list
    )  # whole-store failures, one line each
    # what a scan's listings passed over, by what it is (pipe, broken link, ...)
    passed_over: Counter[str] = field(default_factory=Counter)
    # path -> bytes of a JSON-lines file's unfinished last line: one with no newline yet
    # that does not parse. An app writes a record, then its newline: most often a line
    # still being written (or one a crash cut off), no damage, so in neither `skipped`
    # nor `details`: said by --verbose and `doctor`, never counted as unreadable
    unfinished: dict[str, int] = field(default_factory=dict)
    # reason -> lines read with damage (`damage`): shown, not skipped; named in `details`
    damaged: Counter[str] = field(default_factory=Counter)
    # the file could not be read for now, not for what it holds (no room for a copy of
    # it, or it changed under every read): what the index held of it is kept
    for_now: bool = False
    # the line `damage` last named: one said again for another damage counts once (not
    # sent by an index worker: both are said within one file's read)
    last_damage: tuple[str, int, str] | None = field(default=None, compare=False)
    # (path, line number) -> the byte that line starts at, for a line named by its
    # number where its reader knew it (`files.parse_json`): `doctor --deep` names a
    # listing's line by its number from it, not reading the file again (not sent by an
    # index worker: the deep read is made in the process that asks)
    starts: dict[tuple[str, int], int] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __reduce__(self) -> tuple[object, ...]:
        # Index workers send one per file: as plain values, pickling and unpickling cost a
        # fraction of what the dataclass of Counters does (and an empty one, next to nothing).
        if not (
            self.skipped
            or self.unknown
            or self.versions
            or self.details
            or self.problems
            or self.passed_over
            or self.unfinished
            or self.damaged
            or self.for_now
        ):
            return (Diagnostics, ())
        return (_restored, self.plain())

    def plain(self) -> tuple[object, ...]:
        """What it holds as plain values (dicts, lists, text), which `restored` reads back:
        sent by an index worker, kept by `usage` for a read it does not do again."""
        return (
            dict(self.skipped),
            dict(self.unknown),
            dict(self.versions),
            self.details,
            self.problems,
            dict(self.passed_over),
            self.unfinished,
            dict(self.damaged),
            self.for_now,
        )

    def places(self) -> list[dict[str, object]]:
        """`details` as `doctor --json` gives them: {file, line, reason}, or {file, byte,
        reason} for a line a read from past its file's start met (`place`)."""
        return [place(path, line, reason) for path, line, reason in self.details]

    def skip(self, path: str, line: int, reason: str, start: int | None = None) -> None:
        """A line skipped (`start`: the byte it starts at, where the reader knows it)."""
        if reason not in NOT_LINES:
            self.skipped[reason] += 1
        if len(self.details) < MAX_DETAILS:
            self.details.append((path, line, reason))
            self._started(path, line, start)

    def _started(self, path: str, line: int, start: int | None) -> None:
        if start is not None and numbered(line):
            self.starts[(path, line)] = start

    def damage(
        self, path: str, line: int, reason: str, start: int | None = None
    ) -> None:
        """A line read with damage (`reason` one of `DAMAGE`, maybe with words after it):
        shown, so counted apart from the lines skipped, and named as they are. A line
        said again, at once, for another damage (its bytes, then a count in it) is one
        line: counted once, under both reasons."""
        last = self.last_damage
        if last is not None and line and last[:2] == (path, line):
            if reason not in last[2]:
                self._damage_again(last, f"{last[2]} and {reason}")
            return
        self.damaged[reason] += 1
        self.last_damage = (path, line, reason)
        if len(self.details) < MAX_DETAILS:
            self.details.append(self.last_damage)
            self._started(path, line, start)

    def _damage_again(self, said: tuple[str, int, str], reason: str) -> None:
        """The line `said` named, its reason now `reason`: counted under it instead."""
        self.damaged[said[2]] -= 1
        if not self.damaged[said[2]]:
            del self.damaged[said[2]]
        self.damaged[reason] += 1
        self.last_damage = (said[0], said[1], reason)
        for index in range(len(self.details) - 1, -1, -1):  # (named last, most often)
            if self.details[index] == said:
                self.details[index] = self.last_damage
                break

    def unfinished_line(self, path: str, size: int) -> None:
        """A JSON-lines file ends in `size` bytes with no newline that do not parse: the
        app may still be writing that line. Noted once per file (the newest said)."""
        if path in self.unfinished or len(self.unfinished) < MAX_DETAILS:
            self.unfinished[path] = size

    def unfinished_notes(self) -> list[str]:
        """One line per file whose last line is unfinished, for --verbose and `doctor`."""
        return [
            f"{path}: {unfinished_line(size)}"
            for path, size in sorted(self.unfinished.items())
        ]

    def unknown_type(self, record_type: str, version: str | None = None) -> None:
        key = f"{record_type}@{version}" if version else record_type
        self.unknown[key] += 1

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def names_passed_over(self, app: str, passed: list[tuple[str, str]]) -> None:
        """What a scan's listings passed over (`folders.take_passed_over`), listed by
        --verbose. File names that are not valid UTF-8 hide sessions: said once per app.
        So do folders it may not open (their sessions would go missing without a word).
        Pipes, sockets, devices and odd links are counted for `doctor` only (an app may
        keep a socket there on purpose). None of them is an unreadable line."""
        if not passed:
            return
        room = MAX_DETAILS - len(self.details)
        self.details.extend((path, 0, why) for path, why in passed[: max(room, 0)])
        names = [path for path, why in passed if why == NAME_NOT_UTF8]
        if names and locale_reads_ascii():
            # the names may well be UTF-8: Python was told the file system is not
            self.problem(
                f"{app}: passed over {count_of(len(names), 'file name')} that this locale "
                f"({sys.getfilesystemencoding()}) cannot read, such as {names[0]}; "
                f"{LOCALE_CURE}, to list their sessions"
            )
        elif names:
            self.problem(
                f"{app}: passed over {count_of(len(names), 'file name')} that are not valid "
                f"UTF-8, such as {names[0]}; rename them to list their sessions"
            )
        shut = [path for path, why in passed if why == FOLDER_UNREADABLE]
        if shut:
            self.problem(
                f"{app}: could not open {count_of(len(shut), 'folder')}, such as {shut[0]} "
                "(permission denied); the sessions kept in them may be missing"
            )
        self.passed_over.update(why for _, why in passed if why not in NOT_LINES)

    def refused(self, path: str) -> None:
        """A file whose opening the system refused: nothing of it was read."""
        self.skipped[FILE_REFUSED] += 1
        if len(self.details) < MAX_DETAILS:
            self.details.append((path, 0, FILE_REFUSED))

    def child_missing(
        self, app: str, child: str, not_a_file: str | None = None
    ) -> None:
        """A sub-agent whose spawn came back (its result names it) but whose transcript
        the app's folders do not hold: its part of the session is missing, not empty.
        `not_a_file`: its transcript's place, which holds a pipe, a socket or a device
        (never opened): there, but no file ("not found" sent the user looking for it)."""
        if not_a_file is not None:
            self.problem(
                f"{app}: sub-agent {child}: transcript {not_a_file} is not a regular "
                "file (a pipe, a socket or a device), never read"
            )
            return
        said = sum(p.endswith(MISSING_CHILD) for p in self.problems)
        if said < MAX_MISSING_CHILDREN:  # one line each, for a few: the rest are alike
            self.problem(f"{app}: sub-agent {child}: {MISSING_CHILD}")

    def reader_failed(self, app: str, path: str | None, error: Exception) -> None:
        """A reader failed on input it did not expect (a sessdex bug): say so, and how
        to see where, instead of losing what was read before it. The traceback goes to
        the `sessdex` logger at DEBUG, for a program that embeds sessdex to show."""
        message = f"{app}: stopped reading {path}: {why(error, path)} {READER_BUG}"
        self.problem(message)
        log.debug("%s", message, exc_info=error)

    def update(self, other: Diagnostics) -> None:
        # one call per file indexed: add the few keys in place (Counter.update is slower)
        if not (
            other.skipped
            or other.unknown
            or other.versions
            or other.damaged
            or other.details
            or other.problems
            or other.passed_over
            or other.unfinished
        ):
            return  # most files met nothing
        for mine, theirs in (
            (self.skipped, other.skipped),
            (self.unknown, other.unknown),
            (self.versions, other.versions),
            (self.damaged, other.damaged),
        ):
            for key, count in theirs.items():
                mine[key] += count
        room = MAX_DETAILS - len(self.details)
        if room > 0:
            self.details.extend(other.details[:room])
        for message in other.problems:
            self.problem(message)
        self.passed_over.update(other.passed_over)
        for path, size in other.unfinished.items():
            self.unfinished_line(path, size)

    def update_unseen(self, other: Diagnostics) -> None:
        """`update`, leaving out the skipped lines this one counted already (the same
        file, line and reason): a listing and a read of one file both met them. Where
        `other` names fewer lines than it counted (past MAX_DETAILS), all are added."""
        lines = [
            d
            for d in other.details
            if d[2] not in NOT_LINES and d[2] not in other.passed_over
        ]
        # each line this one named stands for one of `other`'s: a read that met five
        # items at the line a listing named once (line 0 of a JSON document) met four more
        pool = Counter(self.details)
        matched = []
        for detail in lines:
            if pool[detail] > 0:
                pool[detail] -= 1
                matched.append(detail)
        seen = set(matched)
        loose = self._unnumbered(lines, seen)
        counted = other.skipped_total + other.damaged_total
        met = [d[2] for d in matched] + [d[2] for d in loose]
        if len(lines) != counted or not met:
            self.update(other)
            return
        unmatched = Counter(matched)
        details = []
        for detail in other.details:
            if unmatched[detail] > 0:
                unmatched[detail] -= 1
            else:
                details.append(detail)
        for detail in loose:
            details.remove(detail)
            if numbered(detail[1]):  # named here by its number, not as line 0 or a byte
                path, _, reason = detail
                at = next(
                    i
                    for i, (p, n, r) in enumerate(self.details)
                    if (p, r) == (path, reason) and not numbered(n)
                )
                self.details[at] = detail
        trimmed = Diagnostics(
            skipped=other.skipped - Counter(r for r in met if not is_damage(r)),
            unknown=other.unknown,
            versions=other.versions,
            details=details,
            problems=other.problems,
            passed_over=other.passed_over,
            unfinished=other.unfinished,
            damaged=other.damaged - Counter(r for r in met if is_damage(r)),
        )
        self.update(trimmed)

    def _unnumbered(
        self, lines: list[tuple[str, int, str]], seen: set[tuple[str, int, str]]
    ) -> list[tuple[str, int, str]]:
        """Of `lines`, the damaged ones this one named under another number, where one
        side could not number it (line 0, or its byte: a listing that read a big file's
        tail): the same line, as whatever reads a file whole meets each damaged line the
        listing met. Each line here stands for one there."""
        counted: Counter[tuple[str, str]] = Counter()
        uncounted: Counter[tuple[str, str]] = Counter()
        for path, line, reason in self.details:
            if is_damage(reason):
                (counted if numbered(line) else uncounted)[(path, reason)] += 1
        if not counted and not uncounted:
            return []
        found = []
        for detail in lines:
            path, line, reason = detail
            if detail in seen or not is_damage(reason):
                continue
            pool = uncounted if numbered(line) else counted
            if pool[(path, reason)] > 0:
                pool[(path, reason)] -= 1
                found.append(detail)
        return found

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    @property
    def damaged_total(self) -> int:
        """Lines read with damage: shown, in no skipped count."""
        return sum(self.damaged.values())

    @property
    def undated_total(self) -> int:
        """What was kept without an odd time: in `skipped_total`, but no unreadable line."""
        return sum(self.skipped[reason] for reason in UNDATED)

    def to_json(self) -> dict[str, dict[str, int]]:
        """The counts, and (under "unfinished", when there is one) the size in bytes of
        each file's unfinished last line ({path: 41}); "damaged" when a line was read
        with damage (an index written before it was counted has no such key);
        "passed_over" when the parse's own listing passed something over."""
        value: dict[str, dict[str, int]] = {
            "skipped": dict(self.skipped),
            "unknown": dict(self.unknown),
            "versions": dict(self.versions),
        }
        if self.unfinished:
            value["unfinished"] = dict(self.unfinished)
        if self.damaged:
            value["damaged"] = dict(self.damaged)
        if (
            self.passed_over
        ):  # what a parse's own listing passed over (a link gone dead)
            value["passed_over"] = dict(self.passed_over)
        return value

    @classmethod
    def from_json(cls, value: dict[str, dict[str, int]]) -> Diagnostics:
        found = cls(
            skipped=Counter(value.get("skipped", {})),
            unknown=Counter(value.get("unknown", {})),
            versions=Counter(value.get("versions", {})),
            damaged=Counter(value.get("damaged", {})),
            passed_over=Counter(value.get("passed_over", {})),
        )
        for path, size in value.get("unfinished", {}).items():
            found.unfinished_line(path, size)
        return found


def restored(values: list[object]) -> Diagnostics | None:
    """The diagnostics `Diagnostics.plain` gave, back from a store that keeps tuples as
    lists (msgpack); None for anything else."""
    try:
        found = _restored(*values)  # type: ignore[arg-type]
        found.details = [(str(p), int(n), str(r)) for p, n, r in found.details]
    except (TypeError, ValueError):
        return None
    return found


def _restored(
    skipped: dict[str, int],
    unknown: dict[str, int],
    versions: dict[str, int],
    details: list[tuple[str, int, str]],
    problems: list[str],
    passed_over: dict[str, int],
    unfinished: dict[str, int],
    damaged: dict[str, int],
    for_now: bool,
) -> Diagnostics:
    return Diagnostics(
        Counter(skipped),
        Counter(unknown),
        Counter(versions),
        details,
        problems,
        Counter(passed_over),
        unfinished,
        Counter(damaged),
        for_now,
    )


# what reads the names an ASCII locale cannot (`locale_reads_ascii`)
LOCALE_CURE = "run sessdex in a UTF-8 locale (LC_ALL=C.UTF-8), or with PYTHONUTF8=1"


def locale_reads_ascii() -> bool:
    """Whether Python decodes file names in something narrower than UTF-8 (an ASCII
    locale with UTF-8 mode turned off: `LC_ALL=C PYTHONUTF8=0`)."""
    return sys.getfilesystemencoding().replace("-", "").lower() != "utf8"
