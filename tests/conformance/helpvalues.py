"""The values a CLI's `--help` says a flag takes, so the suite can check the values sessdex prints.

A flag can stay while the values it takes change (Codex dropped approval policies, Vibe 3
renamed its agents): checking names alone misses that. Each CLI family prints its list its
own way, all read here:

  clap        `[possible values: a, b]`, or (long help) `Possible values:` and `- a: ...` lines
  yargs       `[choices: "a", "b"]`
  commander   `(choices: "a", "b", default: ...)`
  argparse    `--flag {a,b}`
  free text   `(a, b, c)`, `Set level: a, b, c`, `(builtin: a, b, or custom ...)`

A flag whose entry lists none of these has no known values: the caller says so rather than
guess. Nothing here runs a CLI; the texts come from driver.py or from tests/data/help.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An option's own line: at most 8 spaces in (descriptions sit deeper), then a dash and a name.
_START = re.compile(r"^ {0,8}--?[A-Za-z0-9]")
_NAME = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")
_WORD = r"[A-Za-z0-9][\w.-]*"
_ITEM = re.compile(rf"({_WORD})(?: \(default\))?")

# Values a CLI takes but its help no longer lists, each seen accepted by a real run:
# {(program, flag): values}. Claude Code 2.1.332 lists `manual` and still takes `default`.
UNLISTED = {("claude", "--permission-mode"): frozenset({"default"})}


@dataclass(frozen=True)
class Option:
    """One entry of a help text: its spellings and the values it lists (None: lists none)."""

    names: tuple[str, ...]
    values: tuple[str, ...] | None
    open: bool  # the list names built-ins only ("or custom ..."): others may exist
    text: str  # the entry as printed, joined on one line, for messages

    def accepts(self, value: str) -> bool:
        """Whether `value` is one the entry lists (each part, where it takes a comma list)."""
        if self.values is None:
            return True
        parts = value.split(",") if "comma-separated" in self.text.lower() else [value]
        return all(part in self.values for part in parts)


def options(help_text: str) -> list[Option]:
    """Every option entry in a help text, in order."""
    entries: list[list[str]] = []
    for line in help_text.splitlines():
        if _START.match(line):
            entries.append([line])
        elif line.strip() and not line[0].isspace():
            entries.append(
                []
            )  # a section header ("Commands:", "Examples:") ends an entry
        elif entries and entries[-1]:
            entries[-1].append(line)
    return [_option(lines) for lines in entries if lines]


def find(help_text: str, flag: str) -> Option | None:
    """The entry for `flag` (any of its spellings), or None when the help has no such entry."""
    return next((o for o in options(help_text) if flag in o.names), None)


def valued_flags(argv: list[str]) -> list[tuple[str, str]]:
    """The (flag, value) pairs of a command line: `--flag VALUE` and `--flag=VALUE`."""
    pairs = []
    for i, arg in enumerate(argv):
        if not arg.startswith("-") or arg in ("-", "--"):
            continue
        if "=" in arg:
            flag, _, value = arg.partition("=")
            pairs.append((flag, value))
        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            pairs.append((arg, argv[i + 1]))
    return pairs


def check(
    argv: list[str], help_text: str, program: str = ""
) -> tuple[list[str], list[str]]:
    """What is wrong with the values of a command line's flags, and the flags not checked.

    Wrong: a value its flag's entry does not list. Not checked: a flag whose entry lists no
    values (or that has no entry; the flag-name check reports that). The conformance homes
    define no custom agents or modes, so an open list is taken as the whole list there.
    """
    wrong, unchecked = [], []
    for flag, value in valued_flags(argv):
        option = find(help_text, flag)
        if option is None or option.values is None:
            unchecked.append(flag)
        elif not option.accepts(value) and value not in UNLISTED.get(
            (program, flag), ()
        ):
            also = " (and custom ones)" if option.open else ""
            wrong.append(
                f"{flag} {value}: --help lists only {', '.join(option.values)}{also}"
            )
    return wrong, list(dict.fromkeys(unchecked))


def _option(lines: list[str]) -> Option:
    first = lines[0].strip()
    head, *description = re.split(r"\s{2,}", first, maxsplit=1)  # yargs, commander
    rest = " ".join(line.strip() for line in lines[1:])
    text = " ".join(f"{' '.join(description)} {rest}".split())
    names = _NAME.findall(re.sub(r"<[^>]*>|\{[^}]*\}|\[[^\]]*\]", " ", head))
    for aliases in re.findall(r"\[(?:short )?alias(?:es)?: ([^\]]*)\]", text):
        names += _NAME.findall(aliases)
    values, is_open = _listed(head, text, lines[1:])
    return Option(
        tuple(dict.fromkeys(names)), values, is_open, " ".join(f"{head} {text}".split())
    )


def _listed(
    head: str, text: str, rest: list[str]
) -> tuple[tuple[str, ...] | None, bool]:
    """The values an entry lists, structured forms first, and whether the list is open."""
    if found := re.search(r"\[possible values: ([^\]]*)\]", text):
        return _split(found.group(1)), False
    long_form = _long_possible_values(rest)
    if long_form:
        return long_form, False
    if found := re.search(r"\[choices: ([^\]]*)\]", text):
        return _split(found.group(1)), False
    if found := re.search(r'\(choices: ((?:"[^"]*"(?:,\s*)?)+)', text):
        return tuple(re.findall(r'"([^"]*)"', found.group(1))), False
    if found := re.search(rf"\{{({_WORD}(?:,{_WORD})+)\}}", head):
        return tuple(found.group(1).split(",")), False
    return _free_text(re.sub(r"\[[^\]]*\]", " ", text))


def _long_possible_values(rest: list[str]) -> tuple[str, ...] | None:
    """clap's long help: a `Possible values:` line, then one `- value: what it does` each."""
    for i, line in enumerate(rest):
        if line.strip() == "Possible values:":
            values = []
            for item in rest[i + 1 :]:
                if found := re.match(r"\s*- (\S+?)(?::\s|:?$)", item):
                    values.append(found.group(1))
            return tuple(values) or None
    return None


def _split(listed: str) -> tuple[str, ...]:
    return tuple(v.strip().strip('"') for v in listed.split(",") if v.strip())


def _free_text(text: str) -> tuple[tuple[str, ...] | None, bool]:
    """A list written out in the description: `(a, b, c)` anywhere, or `: a, b, c` at its end.

    Every item must be one plain word (a trailing `(default)` allowed), at least two of them;
    a last item after "or" that is not a word (`or custom from ...`) leaves the list open.
    A sample (`e.g.`), what there is now (`currently: a, b`) or how to write several
    (`comma-separated or repeated`) is not a list of what is allowed.
    """
    candidates = re.findall(r"\(([^()]*)\)", text)
    if found := re.search(r":\s*([^:]*?)\.?\s*$", text):
        candidates.append(found.group(1))
    for candidate in candidates:
        if re.search(r"e\.g\.|example|currently|separated", candidate, re.IGNORECASE):
            continue  # a sample, what there is now, how to write a list: not what is allowed
        listed = candidate.rsplit(":", 1)[-1]  # `builtin: a, b`
        ored = re.fullmatch(r"(.*?),?\s+or\s+(.*)", listed.strip())
        items = [i.strip() for i in (ored.group(1) if ored else listed).split(",")]
        words = [m.group(1) for i in items if (m := _ITEM.fullmatch(i))]
        if len(words) < len(items):
            continue
        if ored and (match := _ITEM.fullmatch(ored.group(2).strip())):
            words.append(match.group(1))
        elif ored and len(words) >= 2:
            return tuple(words), True  # `..., or custom from ~/.x/NAME.toml`
        elif ored:
            continue
        if len(words) >= 2:
            return tuple(words), False
    return None, False
