"""A count said with its noun, as people write it: "1 file", "3 files". No imports: the
quick listing path says counts too."""

from __future__ import annotations


def count_of(count: int, noun: str, nouns: str | None = None) -> str:
    """`count` and `noun`, its plural (`nouns`, else `noun` + "s") for any count but 1."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
