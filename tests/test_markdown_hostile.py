"""`export --format md` of replies and prompts made of hostile lines, drawn at random
(seeded, so a failure is the same each run): rendered by a CommonMark viewer
(markdown-it-py, with GitHub's tables), none of them makes HTML, an image, a link off
the web, a heading at the export's own levels, a label or a tool call of the export's,
or a fence that swallows the turns after it. Each line is one a Markdown viewer acts
on: `#`, `>`, list markers, underlines, fences of every length, indents, tags,
comments, autolinks, `javascript:` links, tables, line ends of every kind, NUL, a
non-breaking space before `#`."""

from __future__ import annotations

import random
from functools import cache
from itertools import product

from markdown_it import MarkdownIt
from markdown_it.token import Token

from sessdex.model import Event, Session
from sessdex.views import markdown

# what a line may open with (its containers and indent), and what follows
_STARTS = (
    *("", " ", "  ", "   ", "    ", "     ", "      ", "        ", "\t", " \t"),
    *("> ", ">", ">  ", "> > ", ">\t", ">     ", "  > - ", "\u00a0"),
    *("- ", "-", "+ ", "* ", "1. ", "1) ", "2. ", "10) ", "-     ", "1.\t", "    - "),
)
_BODIES = (
    *("#", "# x", "## User", "###### h", "####### no", "#x", "\u00a0# nb"),
    *("===", "---", "- - -", "***", "___", "= = =", "--", "-", "*", "1.", "2)"),
    *("```", "````", "``````", "```py", "``` a`b", "```a`", "~~~", "~~~~", "~~~ `x`"),
    *("`", "``", "a `b` c", "``a``", "`` ` ``"),
    *("<script>alert(1)</script>", "<!-- c -->", "<div>", "</p>", "<?php", "<!x>"),
    *("<img src=x onerror=alert(1)>", "<http://e.example>", "<a@b.example>"),
    *("[x](javascript:alert(1))", "[x]: javascript:y", "[x]: https://ok", "[a][x]"),
    *("![i](http://t.example/p.png)", "[", "]", "](", "]:", "http://a.example"),
    *("| a | b |", "|---|:-:|", "a | b", "|-|"),
    *("**Assistant:**", "**Error:** e", "🔧 Bash", "*Context compacted.*"),
    *("*model: x*", "_x_", "result:", "error of x:", "plain words", "\\", "\\`"),
    *("\\<b>", "&amp;", "&#60;b&#62;", "x\r", "\ry", "a\u2028b", "\x00", " "),
)
_ENDS = (*("\n",) * 12, "\r\n", "\r", "\u2028", "\n\n")


def _line(draw: random.Random) -> str:
    starts = (draw.choice(_STARTS) for _ in range(draw.randint(0, 2)))
    bodies = (
        draw.choice(_BODIES) + draw.choice(("", " ", "  ", "\t"))
        for _ in range(draw.choice((1, 1, 1, 2, 3)))
    )
    return "".join(starts) + "".join(bodies)


def _text(draw: random.Random) -> str:
    return "".join(_line(draw) + draw.choice(_ENDS) for _ in range(draw.randint(1, 16)))


@cache
def _viewer() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _page(text: str, kind: str) -> str:
    """The export of a session: a prompt, `text` as a reply or a prompt, a prompt."""
    events = [
        Event(session_id="s", seq=0, kind="user", text="first"),
        Event(session_id="s", seq=1, kind=kind, text=text),
        Event(session_id="s", seq=2, kind="user", text="next"),
    ]
    session = Session(app="claude", id="s", title="Title")
    return "".join(markdown.render(session, events))


def _acted_on(page: str, users: int) -> list[str]:
    """What the rendered `page` holds that no text of it should make."""
    tokens = _viewer().parse(page)
    found: list[str] = []
    headings: list[tuple[str, str]] = []
    labels = 0
    listed = False  # in a list of bullets out of any container, as the tool calls are
    for at, token in enumerate(tokens):
        if token.type in ("bullet_list_open", "bullet_list_close") and not token.level:
            listed = token.nesting == 1
        if token.type == "html_block":
            found.append(f"HTML {token.content!r}")
        elif token.type == "heading_open" and token.tag in ("h1", "h2"):
            headings.append((token.tag, tokens[at + 1].content))
        elif token.type == "inline":
            found += _inline_acted_on(token)
            # markdown-it puts an empty text before a line's first emphasis
            starts = [t for t in token.children or [] if t.content or t.type != "text"]
            strong = [t.type for t in starts[:2]] == ["strong_open", "text"]
            if strong and starts[1].content.startswith("Assistant"):
                labels += token.level == 1  # a paragraph's, out of any container
            # the text of an item's first paragraph (a heading's in it is not as theirs)
            first = [t.type for t in tokens[at - 2 : at]] == [
                "list_item_open",
                "paragraph_open",
            ]
            if (
                listed
                and first
                and token.level == 3
                and token.content.startswith(("🔧", "🤖"))
            ):
                found.append(f"a tool call's item {token.content!r}")
    if headings != [("h1", "Title"), *[("h2", "User")] * users]:
        found.append(f"headings {headings}")
    if labels != 3 - users:
        found.append(f"{labels} labels of a reply")
    last = [(t.type, t.tag, t.level, t.content) for t in tokens[-6:]]
    if last[0][:3] != ("heading_open", "h2", 0) or last[4] != ("inline", "", 1, "next"):
        found.append("the last prompt taken into a block above it")
    return found


def _inline_acted_on(token: Token) -> list[str]:
    found: list[str] = []
    for child in token.children or []:
        if child.type == "html_inline":
            found.append(f"HTML {child.content!r}")
        elif child.type == "image":
            found.append(f"an image {child.attrs}")
        elif child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            if not href.startswith(("http://", "https://", "mailto:")):
                found.append(f"a link to {href!r}")
    return found


def test_hostile_replies_and_prompts_make_nothing_a_viewer_acts_on() -> None:
    draw = random.Random(65)
    failures: list[str] = []
    for case in range(700):
        text = _text(draw)
        kind = "assistant" if case % 3 else "user"
        found = _acted_on(_page(text, kind), 3 if kind == "user" else 2)
        if found:
            failures.append(f"{kind} {text!r}: {found[:3]}")
    assert not failures, "\n".join(failures[:5])


def test_each_hostile_line_alone_and_after_a_list_item_or_a_quote() -> None:
    """Every body after every start, on its own and under a list item's and a quote's
    text (where a line 4 columns in, or after a blank line, may be theirs or code)."""
    failures: list[str] = []
    aboves = ("", "- item\n", "- item\n\n", "> quote\n", "text\n", "1.  item\n\n")
    for number, (start, body) in enumerate(product(_STARTS, _BODIES)):
        above = aboves[number % len(aboves)]
        text = f"{above}{start}{body}\n{start}{body}\nend"
        found = _acted_on(_page(text, "assistant"), 2)
        if found:
            failures.append(f"{text!r}: {found[:3]}")
    assert not failures, "\n".join(failures[:5])
