"""An id as people paste it, and the ids it may stand for: a UUID printed without its
dashes (as some tools and URLs do), one wrapped in a chat message's quotes or brackets,
or named inside an app's file name or command line (`rollout-…-<uuid>.jsonl`,
`claude --resume <uuid>`).

Not the lookup: `resolving` tries these forms only where the text as given matches no id,
so an id that really holds such characters is still found first. Only the standard
library's builtins are used: `find`'s quick path imports this module.
"""

from __future__ import annotations

_HEX = frozenset("0123456789abcdefABCDEF")
_UUID_DASHES = (8, 13, 18, 23)  # where a UUID's dashes sit: 8-4-4-4-12
_UUID_LENGTH = 36
# what a chat message, a Markdown line or a log wraps an id in, opening and closing
_PAIRS = {
    '"': '"',
    "'": "'",
    "`": "`",
    "<": ">",
    "(": ")",
    "[": "]",
    "{": "}",
    # the curly double and single quotes a chat app or a word processor types, and
    # the angle quotes of French and German text
    "\u201c": "\u201d",
    "\u2018": "\u2019",
    "\u00ab": "\u00bb",
}
_TRAILING = ".,;:!?"  # a sentence's end after an id pasted into it


def dashed(text: str) -> str | None:
    """A UUID, or the start of one longer than its first group, written without its
    dashes (`c0afe25da3f342d0…`), with them put back; None for anything else."""
    if not 8 < len(text) <= 32 or not _HEX.issuperset(text):
        return None
    parts = [text[0:8], text[8:12], text[12:16], text[16:20], text[20:]]
    return "-".join(part for part in parts if part)


def loose_forms(reference: str) -> list[str]:
    """What else `reference` may stand for, most likely first, each once and none the
    text as given: the text out of its wrapping and a sentence's end, as a UUID with its
    dashes, and the one UUID a file name or a command line holds."""
    forms: list[str] = []
    text = reference.strip()
    while True:
        forms.append(text)
        unwrapped = _unwrapped(text)
        if unwrapped == text or not unwrapped:
            break
        text = unwrapped
    for form in list(forms):
        if (with_dashes := dashed(form)) is not None:
            forms.append(with_dashes)
    # a path's folders may name another session (a sub-agent's file sits in its lead's
    # folder): a UUID is taken from a file's name or a command, never from a path
    if "/" not in text and "\\" not in text and (uuid := _one_uuid(text)) is not None:
        forms.append(uuid)
    typed = {reference, reference.strip()}
    return [form for form in dict.fromkeys(forms) if form not in typed]


def _unwrapped(text: str) -> str:
    """`text` without a sentence's end after it and one pair of quotes or brackets
    around it."""
    text = text.rstrip(_TRAILING).strip() or text
    closing = _PAIRS.get(text[:1])
    if closing is not None and len(text) > 2 and text.endswith(closing):
        return text[1:-1].strip()
    return text


def _one_uuid(text: str) -> str | None:
    """The one UUID (8-4-4-4-12 hex digits, not inside a longer run of them) that
    `text` holds, in lower case; None for none, or for several."""
    found: set[str] = set()
    at = text.find("-")
    while at >= 0:
        start = at - 8
        candidate = text[start : start + _UUID_LENGTH] if start >= 0 else ""
        if _is_uuid(candidate) and not _joined(text, start):
            found.add(candidate.lower())
        at = text.find("-", at + 1)
    return found.pop() if len(found) == 1 else None


def _is_uuid(text: str) -> bool:
    return (
        len(text) == _UUID_LENGTH
        and all(text[at] == "-" for at in _UUID_DASHES)
        and _HEX.issuperset(text.replace("-", ""))
    )


def _joined(text: str, start: int) -> bool:
    """Whether the UUID at `start` runs on into more letters or digits either side,
    as part of a longer word that is no UUID."""
    before = text[start - 1 : start] if start else ""
    after = text[start + _UUID_LENGTH : start + _UUID_LENGTH + 1]
    return before.isalnum() or after.isalnum()
