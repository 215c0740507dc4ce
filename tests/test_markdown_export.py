"""`export --format md` of replies whose Markdown has code, tables and nested containers:
rendered by a real CommonMark parser (markdown-it-py, in the dev extras), each keeps its
structure (code stays code, as written; a table stays a table) and nothing of a reply
reaches the export's own headings."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "4d4d4d4d-0000-4000-8000-000000000001"


def _exported(tmp_path: Path, reply: str) -> str:
    """The Markdown `export` writes of a session whose assistant replies `reply`, and
    whose user then says `the next prompt`."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    lines = [
        claude_line(
            SESSION, str(tmp_path), type="assistant", uuid="a2", parentUuid="a1",
            timestamp="2026-11-20T10:00:09.000Z", requestId="req_2",
            message={"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": reply}],
                     "usage": {"input_tokens": 1, "output_tokens": 1}},
        ),
        claude_line(
            SESSION, str(tmp_path), type="user", uuid="u2", parentUuid="a2",
            timestamp="2026-11-20T10:00:12.000Z",
            message={"role": "user", "content": "the next prompt"},
        ),
    ]  # fmt: skip
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)
    result = CliRunner().invoke(
        main, ["export", "4d4d", "--format", "md", "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _rendered(markdown_text: str) -> str:
    """The HTML a CommonMark viewer (with GitHub's tables) makes of `markdown_text`."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown_text)


def _reply(page: str) -> str:
    """The rendered reply: what follows its label, up to the next prompt's heading; the
    page's own headings checked on the way (the title, then a user's turn at each
    prompt, and no other at their levels)."""
    headings = re.findall(r"<h([12])>(.*?)</h\1>", page)
    assert headings == [("1", "hello there"), ("2", "User"), ("2", "User")]
    assert "<h2>User</h2>\n<p>the next prompt</p>" in page
    after = page.split("<strong>Assistant:</strong>")[2]
    return after.split("<h2>User</h2>")[0]


def test_indented_code_in_a_reply_stays_code_as_written(tmp_path: Path) -> None:
    """Code indented 4 columns (at the reply's start, after a paragraph, in a list
    item, with a tab) shows as code, its `<`, backticks and brackets as written, not
    with the backslashes and `&lt;` that made it inert text."""
    reply = (
        "    if a < b and `x`:\n        see ![i](j) [k](l)\n\nThen:\n\n"
        "\tcall(<tag>)\n\n- item\n\n      nested = `y` <z>\n\nend"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", shown, re.DOTALL)
    assert blocks == [
        "if a &lt; b and `x`:\n    see ![i](j) [k](l)\n",
        "call(&lt;tag&gt;)\n",
        "nested = `y` &lt;z&gt;\n",
    ]
    assert shown.endswith("<p>end</p>\n")


def test_indented_lines_that_go_on_a_paragraph_stay_inert(tmp_path: Path) -> None:
    """A line 4 columns in that goes on a paragraph (under text, an underline kept
    from heading it, a `2.` that is text, a list item's text that a line out of it
    went on) is text: its tags stay shown, not live."""
    reply = "para\n    <b>one</b>\n\npara\n---\n    <b>two</b>\n\npara\n2. x\n     # y\n         <b>three</b>\n\n- a\n  ---\nb\n\n    <b>four</b>"  # fmt: skip
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    assert "<b>" not in shown and "<pre>" not in shown
    for word in ("one", "two", "three", "four"):
        assert f"&lt;b&gt;{word}&lt;/b&gt;" in shown


def test_a_fenced_block_in_a_quote_is_fenced_anew(tmp_path: Path) -> None:
    """A fenced block in a quote (two quotes deep too) stays a code block in the quote,
    as written; a fence it holds is text in it (a longer fence around it), and its
    quote's end (a line without `>`) ends it."""
    reply = (
        "> Run:\n> ````md\n> ```\n> <b>x</b> `y`\n> ```\n> ````\n> done\n\n"
        "> > ~~~\n> > [l](javascript:z)\n>\n"
        "> ```\n> left open\nafter"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    quotes = shown.split("<blockquote>")
    assert len(quotes) == 4  # the first quote, the second and its inner one
    assert (
        '<pre><code class="language-md">```\n&lt;b&gt;x&lt;/b&gt; `y`\n```\n</code></pre>'
        in quotes[1]
    )
    assert "<p>done</p>" in quotes[1]
    assert "<pre><code>[l](javascript:z)\n</code></pre>" in quotes[3]
    assert "<pre><code>left open\n</code></pre>" in quotes[3]
    assert shown.rstrip().endswith("</blockquote>\n<p>after</p>")


def test_a_table_at_a_replys_start_stays_a_table(tmp_path: Path) -> None:
    """A reply that opens with a table starts on a line of its own: after the label on
    its line the table was a paragraph of pipes."""
    reply = "| name | size |\n|:-----|-----:|\n| a.py | 3 |\n\nThat is all."
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    assert shown.startswith("</p>\n<table>")
    assert re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", shown) == ["name", "size", "a.py", "3"]  # fmt: skip
    assert "<p>That is all.</p>" in shown


def test_a_link_definition_at_a_replys_start_stays_one(tmp_path: Path) -> None:
    """A reply that opens with a link's definition (to the web) starts on a line of its
    own, so that the link using it is a link; joined to the label, it was text."""
    reply = "[docs]: https://example.com/docs\n\nSee [the docs][docs]."
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    assert (
        shown == '</p>\n<p>See <a href="https://example.com/docs">the docs</a>.</p>\n'
    )


def test_a_heading_in_a_list_item_past_a_tab_or_a_quote_goes_down(
    tmp_path: Path,
) -> None:
    """A `2. # …` that starts a list (out of the item a paragraph is in, after an empty
    item, an item's quote after a tab, or code in a quote) is a heading in a list item:
    it goes down, under the export's own, as any other; it stayed a first-level one."""
    cases = [
        "- ***\n    -\nh\n2. # Leak one",
        "2. x\n\t>\n   2. # Leak two",
        "* b\n-\n  2. # Leak three",
        "=\n>     >\n0. # Leak four",
        "-\t=\n\t>b\n=\n2. # Leak five",
    ]
    shown = _reply(_rendered(_exported(tmp_path, "\n\nend\n\n".join(cases))))
    assert re.findall(r"<h(\d)>(Leak \w+)</h\d>", shown) == [
        ("3", f"Leak {n}") for n in ("one", "two", "three", "four", "five")
    ]


def test_a_fenced_block_in_a_tab_indented_list_item_stays_code(tmp_path: Path) -> None:
    """A fenced block in a list item past a tab (or 4 columns in, under `10.`) is a
    code block in the item, as written, fenced anew; a longer fence in it is its text,
    and a line out of the item ends it. It was escaped into a paragraph."""
    reply = (
        "1.\tInstall:\n\n\t````sh\n\tnpm i <pkg> # `x`\n\t```\n\t````\n\tThen run.\n\n"
        "10. Next:\n    ~~~\n    <b>\nout of it"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    items = re.findall(r"<li>(.*?)</li>", shown, re.DOTALL)
    assert len(items) == 2
    assert (
        '<pre><code class="language-sh">npm i &lt;pkg&gt; # `x`\n```\n</code></pre>\n'
        "<p>Then run.</p>" in items[0]
    )
    assert "<pre><code>&lt;b&gt;\n</code></pre>" in items[1]
    assert shown.endswith("</ol>\n<p>out of it</p>\n")


def test_indented_code_in_a_quote_stays_code_as_written(tmp_path: Path) -> None:
    """Code 4 columns past a quote's `>` (after a blank line in it, or past a tab)
    shows as code, as written; a line under the quote's text, in a list item in the
    quote, or a `>` (which markdown-it takes for a quote's, however far in), is text,
    its tags shown."""
    reply = (
        "> Run:\n>\n>     a < b `c`\n>     d\n>\n> done\n\n>\t\t<e>\n\n"
        "> text\n>     <b>one</b>\n\n> - item\n>\n>     <b>two</b>\n\n"
        ">>\n>     > <b>three</b>"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", shown, re.DOTALL)
    assert blocks == ["a &lt; b `c`\nd\n", "  &lt;e&gt;\n"]
    assert "<b>" not in shown
    for word in ("one", "two", "three"):
        assert f"&lt;b&gt;{word}&lt;/b&gt;" in shown


def test_code_that_starts_a_list_item_stays_code(tmp_path: Path) -> None:
    """A list item whose text is code (5 blanks or a tab and more after its marker, or
    under an empty item) shows it as code, as written; a heading after it in the item
    goes down; a `-` escaped into text under a rule takes the line under it as text."""
    reply = (
        "-     <b>x</b>\n      `y`\n\n  # In the item\n\n"
        "1.\t\t<i>\n\n-\n      <u>\n\nend\n\n***\n-\n      <s>three</s>"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", shown, re.DOTALL)
    assert [b.strip() for b in blocks] == [
        "&lt;b&gt;x&lt;/b&gt;\n`y`",
        "&lt;i&gt;",
        "&lt;u&gt;",
    ]
    assert "<h3>In the item</h3>" in shown
    assert "<s>" not in shown and "&lt;s&gt;three&lt;/s&gt;" in shown


def test_a_heading_in_a_list_after_a_table_goes_down(tmp_path: Path) -> None:
    """A `2. # …` under a table's rows starts a list in a viewer with tables (GitHub's,
    markdown-it's): its heading goes down as any other; taken for a paragraph's text
    (as it would be without tables), it stayed a first-level heading."""
    reply = "Sizes:\n\n| file | size |\n|---|---|\n| a.py | 3 |\n2. # Leak"
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    assert "<table>" in shown
    assert "<h3>Leak</h3>" in shown


def test_headings_in_nested_containers_with_tabs_go_down(tmp_path: Path) -> None:
    """Quotes in quotes and list items with tabs, a rule that looks like an item
    (`- --`), and a `>` far in (markdown-it's quote however far in): each heading
    they hold goes down, under the export's own; each stayed first-level to
    markdown-it, and a rule's `<b>` under it was live."""
    cases = [
        "> > - - \t# Leak a",
        ">\t2. 1. b\n>       2. # Leak b",
        "-\t>>\n\t2. # Leak c",
        ">b\n    >1. =\n>0. 2. # Leak d",
        ">  >  > \t*\t# Leak e",
        "> *\t- --\n>     2. # Leak f",
        ">>\n>     ># Leak g",
        "1.\t- --\n        ~~~\n      <b>live</b>",
    ]
    shown = _reply(_rendered(_exported(tmp_path, "\n\nend\n\n".join(cases))))
    assert re.findall(r"<h(\d)>(Leak \w)</h\d>", shown) == [
        ("3", f"Leak {n}") for n in "abcdefg"
    ]
    assert "<b>" not in shown and "&lt;b&gt;live&lt;/b&gt;" in shown


def test_a_call_a_repl_script_ran_is_marked_as_the_scripts(tmp_path: Path) -> None:
    """Claude Code's REPL (2.1.33x) writes the tool calls a script ran as if the model
    made them (`isVirtual` lines): the export marks such a call `↳ script:`, as `show`
    does, and leaves the model's own calls as they were."""
    from tests.helpers import claude_repl_session

    home = tmp_path / "home"
    claude_repl_session(home, SESSION, str(tmp_path), "/work/a.py")
    result = CliRunner().invoke(
        main, ["export", "4d4d", "--format", "md", "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    calls = [x for x in result.stdout.splitlines() if x.startswith("- 🔧")]
    assert calls[1] == "- 🔧 *↳ script:* Read — /work/a.py", result.stdout
    assert calls[0].startswith("- 🔧 REPL — ")
    rendered = _rendered(result.stdout)
    assert "🔧 <em>↳ script:</em> Read — /work/a.py</" in rendered, rendered


def test_inline_code_beside_a_fence_in_a_quote(tmp_path: Path) -> None:
    """A reply of inline code spans, lines with none between them (made safe a run at a
    time), and a fenced block in a quote (which no other test of the reply's lines
    finds): the spans as written, the tags inert, the block code in its quote."""
    reply = (
        "Use `a < b` here\nplain <i>x</i> ![i](j)\n`` a ` b `` and `c` <u>\n"
        "last <s>\n\n> ```\n> <b>y</b>\n> ```\n\nend `z`"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    spans = re.findall(r"(?<!<pre>)<code>([^<]*)</code>", shown)
    assert spans == ["a &lt; b", "a ` b", "c", "z"]
    assert "<i>" not in shown and "<u>" not in shown and "<s>" not in shown
    assert "&lt;i&gt;x&lt;/i&gt;" in shown and "<img" not in shown
    block = "<pre><code>&lt;b&gt;y&lt;/b&gt;\n</code></pre>"
    assert f"<blockquote>\n{block}\n</blockquote>" in shown


def test_plain_lines_a_paragraph_takes_leave_code_and_items_as_they_are(
    tmp_path: Path,
) -> None:
    """Lines of plain text, however far in, go on the paragraph above them (taken
    together in one step): a blank line after them still opens code, a list item's
    text and a lazy line after it leave the item open (a line 4 columns in after a
    blank one is its text, not code), and a `#` 4 columns in under them is text, not
    a heading."""
    reply = (
        "text <a>\n    more <b>\n            deeper <c>\nback <d>\n\n    code <e>\n\n"
        "- item <f>\nlazy <g>\n      # not a heading\n\n    item text <h>\n\nend"
    )
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    blocks = re.findall(r"<pre><code>(.*?)</code></pre>", shown, re.DOTALL)
    assert blocks == ["code &lt;e&gt;\n"]
    assert "<h" not in shown and "# not a heading" in shown
    assert (
        "<li>\n<p>item &lt;f&gt;" in shown
        and "<p>item text &lt;h&gt;</p>\n</li>" in shown
    )
    for word in "abcdfg":
        assert f"&lt;{word}&gt;" in shown
    assert "<" + "a>" not in shown and shown.endswith("<p>end</p>\n")


def test_a_line_of_backticks_that_opens_no_fence_leaves_a_list_item_open(
    tmp_path: Path,
) -> None:
    """A line of backticks with a backtick after them (` ```a` `, no fence: text) goes
    on a list item's paragraph as any text does, so the item is still open after a
    blank line: a line 2 columns into it is the item's text, its tags shown. Taken for
    a fence that ended the item, that line was code, written as it was: live HTML."""
    reply = "- step\n```a`\n\n    <img src=x onerror=alert(1)>\n\nend"
    shown = _reply(_rendered(_exported(tmp_path, reply)))
    assert "<img" not in shown
    assert "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n</li>" in shown
    assert shown.endswith("</ul>\n<p>end</p>\n")


def test_a_heading_after_a_quotes_lazy_lines_goes_down(tmp_path: Path) -> None:
    """A line 4 columns in under a quote whose text is 1 column past its `>` (`>  e`)
    goes on the quote's paragraph, lazily, as any text out of the quote does: a
    `2. # …` after it starts a list to markdown-it, its heading going down. Taken for a
    heading 3 columns past the quote's text, that line ended the paragraph, the next
    started one out of the quote, and `2. # …` stayed first-level, its text."""
    cases = [">  e\n    #\n:\n2. # Leak one", ">  > - e\n>     ##\nf\n2. # Leak two"]
    shown = _reply(_rendered(_exported(tmp_path, "\n\nend\n\n".join(cases))))
    assert re.findall(r"<h(\d)>(Leak \w+)</h\d>", shown) == [
        ("3", "Leak one"),
        ("3", "Leak two"),
    ]
