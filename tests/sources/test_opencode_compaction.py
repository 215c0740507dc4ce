"""OpenCode 1.x compaction: the `compaction` part of the request that starts one says
whether OpenCode started it (`auto`, which it does only when the context is full;
`overflow` where the provider refused the request as too long), and the
first message kept as it was (`tail_start_id`): what was folded into the summary and from
where (message-v2.ts's CompactionPart)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.helpers import cli_over

HOME = Path(__file__).parent.parent / "data" / "opencode" / "home"
BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"
KEPT = "msg_22b832365001CeLFtRI3k35gfv"  # the second prompt, "SCENARIO=resume …"


def _compacted(tmp_path: Path, part: dict[str, object], more: int = 0) -> Path:
    """The fixture home, its BASIC session compacted after its six messages and `more`
    prompts ("note 0", …): a request holding `part`, then the summary answer."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    at = 1796026350000
    rows = [
        (f"msg_22b8330000{n:04d}", at - 1000 + n, {"role": "user"},
         {"type": "text", "text": f"note {n}"})
        for n in range(more)
    ] + [
        ("msg_22b8340000010000000000000a", at, {"role": "user", "time": {"created": at}},
         {"type": "compaction", **part}),
        ("msg_22b8340000020000000000000b", at + 1,
         {"role": "assistant", "summary": True, "mode": "compaction",
          "time": {"created": at + 1, "completed": at + 2}, "finish": "stop"},
         {"type": "text", "text": "Ran the greeting twice."}),
    ]  # fmt: skip
    for n, (message, created, info, data) in enumerate(rows):
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message, BASIC, created, created, json.dumps(info)),
        )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_22b8340{n:05d}", message, BASIC, created, created, json.dumps(data)),
        )
    db.commit()
    db.close()
    return home


def test_show_says_what_a_compaction_folded_and_what_it_kept(tmp_path: Path) -> None:
    """`show` said "context compacted" alone: not that OpenCode started it because the
    context was full, nor that the first prompt and its two answers went into the
    summary while the second prompt on was kept as it was."""
    home = _compacted(tmp_path, {"auto": True, "overflow": True, "tail_start_id": KEPT})
    shown = cli_over(home, "show", BASIC).output
    assert (
        "compacted automatically, the context being full: 3 messages summarized, "
        '3 kept as they were, from the prompt ""SCENARIO=resume Please run' in shown
    )
    assert shown.index("compacted automatically") < shown.index("context compacted")


def test_a_plain_automatic_compaction_says_the_context_was_full(tmp_path: Path) -> None:
    """1.x starts a compaction on its own only when the context is full (`isOverflow`
    on the last answer's tokens, or the provider refusing the request, which it marks
    `overflow`): one with no `overflow` said "compacted automatically" alone, where a
    2.x one, the same event, says the context was full."""
    home = _compacted(tmp_path, {"auto": True, "tail_start_id": KEPT})
    shown = cli_over(home, "show", BASIC).output
    assert (
        "compacted automatically, the context being full: 3 messages summarized"
        in shown
    )


def test_a_compaction_the_user_asked_for_keeping_nothing_says_so(
    tmp_path: Path,
) -> None:
    """`/compact` (`auto` false), no tail kept: every message before it summarized."""
    home = _compacted(tmp_path, {"auto": False})
    shown = cli_over(home, "show", BASIC).output
    assert "compacted on request: 6 messages summarized" in shown
    assert "kept as they were" not in shown


def test_show_tail_says_what_the_whole_read_says(tmp_path: Path) -> None:
    """`show --tail` reads the session's last messages only: a compaction among them is
    said as a whole read says it, its counts taken from the messages before it."""
    last = "msg_22b83300000069"
    home = _compacted(tmp_path, {"auto": True, "tail_start_id": last}, more=70)
    said = '75 messages summarized, 1 kept as they were, from the prompt "note 69"'
    assert said in cli_over(home, "show", BASIC).output
    assert said in cli_over(home, "show", BASIC, "--tail", "3").output


def test_one_compaction_is_one_line_its_summary_under_it(tmp_path: Path) -> None:
    """A 1.x compaction is its request's part and the summary answer after it: `show`
    drew "context compacted" twice, `--json` held two compaction events, the first with
    no summary; one compaction is one event, holding the summary and who started it."""
    home = _compacted(tmp_path, {"auto": True, "tail_start_id": KEPT})
    shown = cli_over(home, "show", BASIC, "--detail", "full").output
    assert shown.count("context compacted") == 1
    assert shown.index("context compacted") < shown.index("Ran the greeting twice.")
    events = json.loads(cli_over(home, "show", BASIC, "--json").stdout)
    [compaction] = [e for e in events if e["kind"] == "compaction"]
    assert compaction["text"] == "Ran the greeting twice."
    assert compaction["extra"]["auto"] is True
    exported = cli_over(home, "export", BASIC).output
    assert exported.count("Context compacted") == 1


def test_a_compaction_with_no_summary_yet_is_still_one_line(tmp_path: Path) -> None:
    """The request written, its summary not (yet, or never: the compaction failed): the
    compaction is still said, once."""
    home = _compacted(tmp_path, {"auto": False})
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    db.execute("DELETE FROM part WHERE message_id = 'msg_22b8340000020000000000000b'")
    db.execute("DELETE FROM message WHERE id = 'msg_22b8340000020000000000000b'")
    db.commit()
    db.close()
    events = json.loads(cli_over(home, "show", BASIC, "--json").stdout)
    [compaction] = [e for e in events if e["kind"] == "compaction"]
    assert compaction["extra"]["auto"] is False
