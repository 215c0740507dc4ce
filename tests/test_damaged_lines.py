"""A line read with damage (bytes that are not UTF-8, shown as U+FFFD) is said as such:
counted apart from the lines skipped, named by --verbose and doctor, kept by the index."""

from __future__ import annotations

import io
import json
import pickle
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from tests.helpers import write_claude_session

DATA = Path(__file__).parent / "data"
CODEX_ID = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_ROLLOUT = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-" + CODEX_ID + ".jsonl"
)
NOT_UTF8 = "not UTF-8 (shown as \ufffd)"  # the reason --verbose and doctor give
SAID = "read 1 line with bytes that are not UTF-8 (shown as \ufffd)"


def invoke(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def claude_with_a_latin1_byte(tmp_path: Path) -> tuple[Path, Path, str]:
    """(home, transcript, id): a Claude Code transcript whose reply holds a raw 0xff
    byte inside its string (a writer that copied bytes), on line 2."""
    home = tmp_path / "home"
    sid = "dddddddd-0000-4000-8000-0000000000ff"
    path = write_claude_session(home, sid, "/w/latin")
    data = path.read_bytes()
    assert data.count(b'"text": "hi"') == 1
    path.write_bytes(data.replace(b'"text": "hi"', b'"text": "h\xffi"'))
    return home, path, sid


def test_show_says_a_line_read_over_bytes_not_utf8_and_where(tmp_path: Path) -> None:
    """The reply is shown with U+FFFD, and the warning says so in its own words: not
    "skipped ... unreadable", since nothing was skipped. --verbose names file:line."""
    home, path, sid = claude_with_a_latin1_byte(tmp_path)
    out, err = invoke("show", sid, "--json", "--home", str(home))
    said = [e["text"] for e in json.loads(out) if e["kind"] == "assistant"]
    assert said == ["h\ufffdi"]
    assert f"warning: {SAID}; see --verbose" in err
    assert "skipped" not in err and "unreadable" not in err
    _, err = invoke("show", sid, "--verbose", "--home", str(home))
    assert f"warning: {SAID}:" in err
    assert f"  {path}:2: {NOT_UTF8}" in err


def test_a_clean_transcript_says_nothing_of_damage(tmp_path: Path) -> None:
    """A lone surrogate escape (a cut emoji) is valid JSON an app wrote: shown as U+FFFD
    too, but no damage to the file, so no warning; nor does a clean line give one."""
    home = tmp_path / "home"
    sid = "dddddddd-0000-4000-8000-0000000000fe"
    path = write_claude_session(home, sid, "/w/clean")
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"text": "hi"', b'"text": "h\\ud83di"'))
    out, err = invoke("show", sid, "--json", "--verbose", "--home", str(home))
    said = [e["text"] for e in json.loads(out) if e["kind"] == "assistant"]
    assert said == ["h\ufffdi"]
    assert "UTF-8" not in err and "warning" not in err


def test_doctor_deep_counts_and_names_the_damaged_line(tmp_path: Path) -> None:
    home, path, _ = claude_with_a_latin1_byte(tmp_path)
    out, _ = invoke(
        "doctor", "--deep", "--app", "claude", "--json", "--home", str(home)
    )
    [report] = json.loads(out)
    assert report["skipped_lines"] == {} and report["skipped_at"] == []
    assert report["damaged_lines"] == {NOT_UTF8: 1}
    assert report["damaged_at"] == [{"file": str(path), "line": 2, "reason": NOT_UTF8}]
    out, _ = invoke("doctor", "--deep", "--app", "claude", "--home", str(home))
    assert f"damaged     1 {NOT_UTF8} (-v names the files and lines)" in out
    out, _ = invoke("doctor", "--deep", "-v", "--app", "claude", "--home", str(home))
    assert f"{path}:2: {NOT_UTF8}" in out


def test_a_json_lines_reader_counts_the_line_it_repaired(tmp_path: Path) -> None:
    """The shared JSON-lines reader (`files.parse_json`): a Codex rollout whose prompt
    holds a byte that is not UTF-8."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    rollout = home / CODEX_ROLLOUT
    data = rollout.read_bytes()
    assert data.count(b"SCENARIO=basic (interactive)") == 2  # on lines 8 and 9
    rollout.write_bytes(data.replace(b"SCENARIO=basic", b"SCENARIO=b\xe4sic", 1))
    out, err = invoke("show", CODEX_ID, "--json", "--verbose", "--home", str(home))
    said = [e["text"] or "" for e in json.loads(out) if e["kind"] == "user"]
    assert any(text.startswith("SCENARIO=b\ufffdsic") for text in said)
    assert f"{SAID}:" in err and f"{rollout}:8: {NOT_UTF8}" in err
    assert "unreadable" not in err


def test_the_diagnostics_of_damage_travel_and_keep(tmp_path: Path) -> None:
    """Counted apart from skipped lines through a worker's pickle, a sum over files and
    the index's JSON; an index written before damage was counted reads as none."""
    one = Diagnostics()
    one.damage("a.jsonl", 3, NOT_UTF8)
    one.skip("a.jsonl", 4, "not JSON")
    sent = pickle.loads(pickle.dumps(one))
    assert sent.damaged == {NOT_UTF8: 1} and sent.skipped == {"not JSON": 1}
    assert sent.details == [("a.jsonl", 3, NOT_UTF8), ("a.jsonl", 4, "not JSON")]
    total = Diagnostics()
    total.update(sent)
    total.update(sent)
    assert total.damaged_total == 2 and total.skipped_total == 2
    kept = Diagnostics.from_json(json.loads(json.dumps(one.to_json())))
    assert kept.damaged == {NOT_UTF8: 1} and kept.skipped == {"not JSON": 1}
    old = Diagnostics.from_json({"skipped": {"not JSON": 1}, "unknown": {}})
    assert old.damaged_total == 0 and old.skipped_total == 1
    assert "damaged" not in Diagnostics().to_json()  # as older versions wrote it


def test_a_line_both_a_listing_and_a_read_met_is_one_line() -> None:
    """`usage` adds what the refresh's listings met to what its reads met: the same
    damaged line met by both is counted once."""
    read = Diagnostics()
    read.damage("a.jsonl", 3, NOT_UTF8)
    listed = Diagnostics()
    listed.damage("a.jsonl", 3, NOT_UTF8)
    listed.damage("b.jsonl", 1, NOT_UTF8)
    read.update_unseen(listed)
    assert read.damaged_total == 2 and len(read.details) == 2


def test_a_warm_listing_still_names_the_damaged_lines(tmp_path: Path) -> None:
    """The index keeps what a file's listing met: a later `list -v`, which reads nothing
    again, names the damaged lines under their own heading, not as skipped."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    log = home / ".aider.chat.history.md"
    log.write_bytes(
        b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### r\xe9sum\xe9  \n\nok\n"
    )
    _, err = invoke("list", "--home", str(home))
    assert f"warning: {SAID} in 1 aider file; see --verbose" in err
    _, err = invoke("list", "-v", "--home", str(home))
    assert "shown with damage when these files were read (unchanged since):" in err
    assert f"  aider: {log}:4: {NOT_UTF8}" in err
    assert "skipped" not in err


def test_list_says_the_damage_its_listing_read(tmp_path: Path) -> None:
    """Claude Code's listing reads the reply (for its model) over the same bytes `show`
    reads: plain `list` and `doctor` say it too, where they said nothing."""
    home, path, _ = claude_with_a_latin1_byte(tmp_path)
    _, err = invoke("list", "--home", str(home))
    assert f"warning: {SAID} in 1 claude file; see --verbose" in err
    out, _ = invoke("doctor", "--app", "claude", "--json", "--home", str(home))
    [report] = json.loads(out)
    assert report["damaged_at"] == [{"file": str(path), "line": 2, "reason": NOT_UTF8}]


def codex_with_a_latin1_model(tmp_path: Path, padding: int) -> tuple[Path, Path]:
    """(home, rollout): the Codex fixture whose turn_context (line 6, or 6 + `padding`
    past lines of reasoning put before it) names its model over a byte not UTF-8."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    rollout = home / CODEX_ROLLOUT
    lines = rollout.read_bytes().splitlines(keepends=True)
    assert b'"turn_context"' in lines[5] and b'"model":"gpt-5.5",' in lines[5]
    lines[5] = lines[5].replace(b'"model":"gpt-5.5",', b'"model":"gpt-5\xe9.5",')
    said = b'{"timestamp":"2026-11-30T08:10:40.473Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"hm"}}\n'
    rollout.write_bytes(b"".join(lines[:5] + [said] * padding + lines[5:]))
    return home, rollout


def test_usage_says_a_line_it_read_over_bytes_not_utf8(tmp_path: Path) -> None:
    """`usage` read the turn's model over a byte that is not UTF-8 and said nothing (it
    dropped the line, and counted its tokens under the model before). Named by its line,
    counted apart from skipped lines, past the head the listing reads."""
    home, rollout = codex_with_a_latin1_model(tmp_path, padding=100)
    _, err = invoke("list", "--home", str(home))
    assert "UTF-8" not in err  # the listing reads only the head: 80 lines
    args = ("usage", "session", "--app", "codex", "--json", "-v", "--home", str(home))
    out, err = invoke(*args)
    assert f"warning: {SAID}:" in err and f"  {rollout}:106: {NOT_UTF8}" in err
    assert "skipped" not in err
    [row] = [row for row in json.loads(out) if row["key"] == CODEX_ID]
    assert row["models"] == ["gpt-5\ufffd.5"]


def test_usage_says_once_a_line_its_listing_met_too(tmp_path: Path) -> None:
    """The listing reads the head, where this turn_context is, and `usage` reads it
    again: one line, named once."""
    home, rollout = codex_with_a_latin1_model(tmp_path, padding=0)
    _, err = invoke("usage", "--json", "-v", "--home", str(home))
    assert f"warning: {SAID}:" in err
    assert err.count(f"{rollout}:6: {NOT_UTF8}") == 1


def test_claude_usage_counts_the_line_it_read_over_bytes_not_utf8(
    tmp_path: Path,
) -> None:
    """Claude Code's usage scan, on a reply whose model holds a byte not UTF-8: read
    (its tokens kept), counted as damage under its line, numbered though the scan
    counts no lines unless asked to explain."""
    from sessdex.sources import _claude_usage

    path = write_claude_session(
        tmp_path, "dddddddd-0000-4000-8000-0000000000fc", "/w/m", prompt="p\n" * 3
    )
    data = path.read_bytes()
    path.write_bytes(
        b"\n" * 4 + data.replace(b'"claude-sonnet-4-5"', b'"claude-sonnet-4-5\xff"')
    )
    diagnostics = Diagnostics()
    scan = _claude_usage.usage_records(path, diagnostics)
    assert [r.usage.model for r in scan.records] == ["claude-sonnet-4-5\ufffd"]
    assert diagnostics.damaged == {NOT_UTF8: 1} and diagnostics.skipped_total == 0
    assert diagnostics.details == [(str(path), 6, NOT_UTF8)]


def test_a_big_json_document_read_in_pieces_counts_its_damage() -> None:
    """A chat kept as one big JSON document (read one message at a time): a message
    over bytes not UTF-8 is shown as U+FFFD and counted under its number, as a
    JSON-lines transcript's line is; so is another member of the document."""
    from sessdex.jsonstream import array_items, object_members

    document = (
        b'{"title":"t\xe9","messages":[{"text":"a"},{"text":"b\xff"},{"text":"c"}]}'
    )
    diagnostics = Diagnostics()
    items = array_items(io.BytesIO(document), "messages", diagnostics=diagnostics, path="c.json", chunk=8)  # fmt: skip
    assert list(items) == [{"text": "a"}, {"text": "b\ufffd"}, {"text": "c"}]
    assert diagnostics.damaged == {NOT_UTF8: 1} and diagnostics.skipped_total == 0
    assert diagnostics.details == [("c.json", 2, NOT_UTF8)]
    diagnostics = Diagnostics()
    members = object_members(io.BytesIO(document), diagnostics=diagnostics, path="c.json", skip=frozenset({"messages"}))  # fmt: skip
    assert members == {"title": "t\ufffd"}
    assert diagnostics.details == [("c.json", 0, NOT_UTF8)]


def test_opencode_s_json_tree_says_a_part_read_over_bytes_not_utf8(
    tmp_path: Path,
) -> None:
    """OpenCode's early JSON tree keeps each part as its own file: a prompt holding a
    byte not UTF-8 is shown as U+FFFD and said, where it was repaired without a word."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    [part] = home.rglob("prt_75d0e3f40002Qa1Bc2De3Fg4Hi.json")
    part.write_bytes(part.read_bytes().replace(b"Rename", b"R\xe9name"))
    sid = "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n"
    out, err = invoke("show", sid, "--json", "-v", "--home", str(home))
    said = [e["text"] or "" for e in json.loads(out) if e["kind"] == "user"]
    assert said[0].startswith("R\ufffdname loadConfig")
    assert f"warning: {SAID}:" in err and f"  {part}:1: {NOT_UTF8}" in err


def test_a_big_transcript_s_tail_line_both_reads_met_is_one_line(
    tmp_path: Path,
) -> None:
    """Past the bytes a listing reads from a transcript's end, it cannot number the
    reply it reads there for the model (line 0); `doctor --deep` reads the file whole and
    numbers it. One line, named by its number, where doctor said 2."""
    from tests.helpers import claude_line

    home = tmp_path / "home"
    sid = "dddddddd-0000-4000-8000-0000000000aa"
    path = write_claude_session(home, sid, "/w/big")
    opening = path.read_bytes().splitlines(keepends=True)
    asked = {"role": "user", "content": "x" * 1000}
    said = [
        json.dumps(claude_line(sid, "/w/big", type="user", uuid=f"p{n}", message=asked))
        for n in range(700)
    ]  # 700 kB: more than the listing reads from either end
    reply = opening[1].replace(b'"msg_1"', b'"msg_2"').replace(b'"req_1"', b'"req_2"')
    reply = reply.replace(b'"claude-sonnet-4-5"', b'"claude-sonnet-4-5\xff"')
    path.write_bytes(b"".join(opening) + "\n".join(said).encode() + b"\n" + reply)
    args = ("--deep", "--app", "claude", "--json", "--home", str(home))
    [report] = json.loads(invoke("doctor", *args)[0])
    assert report["damaged_at"] == [
        {"file": str(path), "line": 703, "reason": NOT_UTF8}
    ]
    assert report["damaged_lines"] == {NOT_UTF8: 1}
    _, err = invoke("usage", "-v", "--home", str(home))
    assert f"warning: {SAID}:" in err and err.count(f"{path}:703: {NOT_UTF8}") == 1


def test_an_unnumbered_damaged_line_is_the_numbered_one_of_the_same_file() -> None:
    """Either way round: a listing's line 0 (not numbered) and a read's line 703 of the
    same file and reason are one line, named by its number; another file's stays."""
    read = Diagnostics()
    read.damage("a.jsonl", 703, NOT_UTF8)
    listed = Diagnostics()
    listed.damage("a.jsonl", 0, NOT_UTF8)
    listed.damage("b.jsonl", 0, NOT_UTF8)
    read.update_unseen(listed)
    assert read.damaged_total == 2
    assert read.details == [("a.jsonl", 703, NOT_UTF8), ("b.jsonl", 0, NOT_UTF8)]
    listed.update_unseen(read)
    assert listed.damaged_total == 2
    assert listed.details == [("a.jsonl", 703, NOT_UTF8), ("b.jsonl", 0, NOT_UTF8)]


def test_a_line_named_by_its_byte_is_the_numbered_one_of_the_same_file() -> None:
    """A listing that read a big file's tail names its damaged line by its byte; the
    whole read numbers it: one line, named by its number, either way round."""
    from sessdex.diagnostics import at_byte

    for into_read in (True, False):
        read = Diagnostics()
        read.damage("a.jsonl", 703, NOT_UTF8)
        listed = Diagnostics()
        listed.damage("a.jsonl", at_byte(865_969), NOT_UTF8)
        into, other = (read, listed) if into_read else (listed, read)
        into.update_unseen(other)
        assert (into.damaged_total, into.details) == (1, [("a.jsonl", 703, NOT_UTF8)])
