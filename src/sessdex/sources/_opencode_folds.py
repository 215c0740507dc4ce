"""What an OpenCode 1.x compaction folded into its summary, for a note beside it.

The request that starts a compaction is a user message holding a `compaction` part
(message-v2.ts's CompactionPart): `auto` (OpenCode started it, which it does only for a
full context, not `/compact`), `overflow` (the provider refused the request as too long)
and `tail_start_id`, the first message kept as it was
after the summary. The messages read before it are counted here: those since the last
compaction's tail that the summary replaced, and those it kept. No count where the
kept message was not read (a cut session). A read of the session's last messages only
(`whole` false) knows where the fold starts once a compaction among them keeps none or
keeps one read after the read's start: the notes before that are not `sure`, and
`--tail` reads more messages until none it shows is one.

A 2.x `compaction` row (session-message.ts's Compaction) says who started it (`reason`,
"auto", which 2.x writes only for a full context, or "manual") and gives the kept tail as text (`recent`: each kept message written
out, from a prompt, "[User]: …"), no message id, no `overflow`: the prompt it starts
from is the last one read whose text starts it. The rows before a 2.x compaction are
all folded into it (its `recent` with them): the next one counts from it."""

from __future__ import annotations

from dataclasses import dataclass

from ._values import as_str, one_line

_WORDS = 60  # characters of the first kept prompt quoted in the note
_HEAD = 200  # characters of a prompt matched against the start of a 2.x `recent`
_FULL = ", the context being full"


@dataclass(slots=True)
class _Message:
    """A message held past its row: a prompt, or one no compaction folds. Any other is
    held as its id alone (a long session holds every message since its last compaction:
    372 bytes a message as objects with their words, 167 so)."""

    id: str | None
    ordinary: bool  # not a compaction's request or summary: a message it can fold
    head: str | None = (
        None  # a prompt's text, as typed (a 2.x compaction's tail starts so)
    )
    said: str | None = None  # its `words`, where its head alone does not give them

    @property
    def words(self) -> str | None:
        """The start of a prompt's text, on one line, where it is one."""
        if self.said is not None or self.head is None:
            return self.said
        return one_line(self.head, _WORDS)


# a message read: its id alone where it is an ordinary message and no prompt
_Held = str | None | _Message


def _full(held: _Held) -> _Message:
    return held if isinstance(held, _Message) else _Message(held, True)


def _ordinary(held: _Held) -> bool:
    return held.ordinary if isinstance(held, _Message) else True


def _id(held: _Held) -> str | None:
    return held.id if isinstance(held, _Message) else held


def _words(held: _Held) -> str | None:
    return held.words if isinstance(held, _Message) else None


class Folds:
    """The messages of each agent read so far (the lead's, each sub-agent's)."""

    def __init__(self, whole: bool = True) -> None:
        self.whole = whole  # read from the session's first message, not its last few
        # from where the next compaction folds: those before it are dropped, never
        # counted again (a long session compacts: held since its last compaction alone)
        self.read: dict[str | None, list[_Held]] = {}
        # the agents whose fold start is that of the whole read (a read of the last
        # messages learns it from a compaction among them: `note`)
        self.known: set[str | None] = set()

    def sure(self, agent: str | None) -> bool:
        """Whether the next compaction's note for `agent` is the whole read's: what it
        folded is known to start among the messages read."""
        return self.whole or agent in self.known

    def message(self, agent: str | None, message_id: str | None, summary: bool) -> None:
        """A message begins (a compaction's summary is none it folds)."""
        held = message_id if not summary else _Message(message_id, False)
        self.read.setdefault(agent, []).append(held)

    def prompt(self, agent: str | None, text: str) -> None:
        """The text of the message being read, where a person typed it."""
        read = self.read.get(agent)
        if read and _words(read[-1]) is None:  # its first text that is not blank
            last = _full(read[-1])
            last.head = text[:_HEAD]
            words = one_line(text, _WORDS)
            last.said = None if one_line(last.head, _WORDS) == words else words
            read[-1] = last

    def note(self, agent: str | None, part: dict[str, object]) -> str:
        """What the compaction whose request holds `part` did, in words (counted from
        the messages read alone where not `sure`)."""
        sure = self.sure(agent)
        read = self.read.setdefault(agent, [])
        if read:
            read[-1] = request = _full(read[-1])
            request.ordinary = False  # the request itself
        # 1.x too compacts on its own only when the context is full: the last answer's
        # tokens reached the model's limit (`isOverflow`), or the provider refused the
        # request as too long (`overflow`, then)
        auto = part.get("auto")
        text = _started(auto)
        if auto is True or part.get("overflow") is True:
            text += _FULL
        before = read[:-1]
        tail = as_str(part.get("tail_start_id"))
        at = next((n for n, m in enumerate(before) if tail and _id(m) == tail), None)
        if tail and at is None:  # its kept messages were not read: nothing to count
            read.clear()  # (or read before the read began: not sure)
            return text
        at = len(before) if at is None else at
        del read[:at]
        if not sure:  # the fold starts at a message read, or after this request
            self.known.add(agent)
        return text + _counts(before, at)

    def row(self, agent: str | None, reason: object, recent: object) -> str | None:
        """What the 2.x compaction row just begun (`message`) did, in words (no count
        where it gives no `recent`; None where it gives no `reason` either), counted
        from the rows read alone where not `sure`; the next one's from it."""
        self.known.add(agent)  # it folds every row before it: the next starts here
        read = self.read.setdefault(agent, [])
        auto = {"auto": True, "manual": False}.get(
            reason if isinstance(reason, str) else ""
        )
        # 2.x compacts on its own only when the context is full: its estimate reached
        # the model's limit, or the provider refused the request as too long (which
        # 1.x marks `overflow`); the row does not say which
        text = _started(auto) + (_FULL if auto else "")
        before = read[:-1]
        read.clear()
        if not isinstance(recent, str):
            return text if auto is not None else None
        if not recent:  # nothing kept: every message before it summarized
            return text + _counts(before, len(before))
        starts = [
            n
            for n, m in enumerate(before)
            if isinstance(m, _Message)
            and m.head
            and recent.startswith(f"[User]: {m.head}")
        ]
        return text + _counts(before, starts[-1]) if starts else text


def _started(auto: object) -> str:
    said = {True: "compacted automatically", False: "compacted on request"}
    return said.get(auto, "compacted") if isinstance(auto, bool) else "compacted"


def _counts(before: list[_Held], at: int) -> str:
    """The messages `before` a compaction it summarized (up to `at`) and kept."""
    folded = sum(map(_ordinary, before[:at]))
    kept = sum(map(_ordinary, before[at:]))
    text = f": {_count(folded)} summarized"
    if kept:
        text += f", {kept:,} kept as they were"
        if words := _words(before[at]):
            text += f', from the prompt "{words}"'
    return text


def _count(messages: int) -> str:
    return f"{messages:,} message" + ("" if messages == 1 else "s")
