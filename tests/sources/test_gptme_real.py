"""gptme 0.35.1, as the conformance suite ran it (tests/data/gptme/PROVENANCE.md): a headless
run resumed by name, a headless run whose sub-agent (a thread, started in `ipython`) names its
lead in `subagent-meta.json`, and a TUI turn. Every call is native (`--tool-format tool`);
the headless runs end with the `complete` tool."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.live import LiveSession
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, gptme
from sessdex.tree import build_tree

REAL = Path(__file__).parent.parent / "data" / "gptme" / "real" / "home"
LOGS = Path(".local/share/gptme/logs")
BASIC = "2026-12-05-jumping-yellow-pelican"
LEAD = "checkout-subagent"
CHILD = "subagent-greeter-be5v"
TUI = "checkout-tui"
REPO = "/home/alex/code/shop-api"


def sessions(home: Path = REAL) -> dict[str, Session]:
    location = gptme.locate(Home.at(home))
    parts: dict[str, list[Session]] = {}
    for path in gptme.scan(location):
        for session in gptme.parse(Path(path), location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session) -> list[Event]:
    return list(gptme.read(session, Diagnostics()))


def test_each_conversation_is_listed_with_its_facts() -> None:
    found = sessions()
    assert set(found) == {BASIC, LEAD, CHILD, TUI}
    for name in (BASIC, LEAD, TUI):  # config.toml's `~/code/shop-api`, in this home
        assert found[name].cwd == str(REAL / "code" / "shop-api")
    for session in found.values():
        assert session.model == "local/mock-model"
        if session.id != CHILD:
            assert session.title == "Checkout retry smoke test"  # the model named each
        # the system prompt names the version that began the conversation
        assert session.cli_version == "0.35.1"
    assert found[LEAD].parent_id is None and found[BASIC].parent_id is None
    # the sub-agent's config.toml names it as its lead: its task tells it apart
    assert found[CHILD].title is not None
    assert found[CHILD].title.startswith("SCENARIO=child You are a sub-agent.")


def test_a_sub_agent_is_listed_under_its_lead_in_the_folder_it_worked_in() -> None:
    child = sessions()[CHILD]
    # subagent-meta.json names the lead's log folder; its config.toml names a
    # `workspace` folder in its own log folder, where it did not work
    assert child.parent_id == LEAD
    assert child.agent_type == "subagent"
    # subagent-meta.json writes its `workdir` whole (/home/alex/code/shop-api), in the
    # home gptme ran in, which its own `logdir` tells: read in this home, as its lead's
    # `~/code/shop-api` is
    meta = json.loads((REAL / LOGS / CHILD / "subagent-meta.json").read_text())
    assert meta["workdir"] == REPO
    assert child.cwd == str(REAL / "code" / "shop-api") == sessions()[LEAD].cwd
    config = (REAL / LOGS / CHILD / "config.toml").read_text()
    assert f"{CHILD}/workspace" in config


def test_a_sub_agent_that_worked_outside_the_home_keeps_its_folder_as_written(
    tmp_path: Path,
) -> None:
    """Only a folder under the home gptme ran in moves with the home: one elsewhere (an
    isolated worktree under /srv) is where it was, as a lead's absolute workspace is."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    path = home / LOGS / CHILD / "subagent-meta.json"
    meta = json.loads(path.read_text())
    meta["workdir"] = "/srv/worktrees/greeter"
    path.write_text(json.dumps(meta))
    assert sessions(home)[CHILD].cwd == "/srv/worktrees/greeter"
    meta["workdir"] = "/home/alexandra/code"  # a neighbour of the home: not in it
    path.write_text(json.dumps(meta))
    assert sessions(home)[CHILD].cwd == "/home/alexandra/code"


def test_the_sub_agent_is_read_into_its_lead_after_its_spawn() -> None:
    got = events(sessions()[LEAD])
    spawn = next(e for e in got if e.kind == "subagent")
    assert spawn.extra["child_id"] == CHILD
    assert spawn.extra["agent_name"] == "greeter"
    assert spawn.extra["wait_unwritten"] is True
    assert spawn.text is not None and spawn.text.startswith("SCENARIO=child")
    mine = [e for e in got if e.agent_id == CHILD]
    assert got.index(spawn) < got.index(mine[0])
    said = " ".join(e.text or "" for e in mine)
    assert "hello-from-subagent" in said
    # once each: the lead's three responses, the sub-agent's two
    usage = [e for e in got if e.kind == "usage"]
    assert [e.agent_id for e in usage] == [None, CHILD, CHILD, None, None]
    # the spawning response's usage comes before the sub-agent's events
    assert got.index(usage[0]) < got.index(mine[0])
    tree = build_tree(LEAD, got)
    assert [(c.id, c.status) for c in tree.children] == [(CHILD, "done")]


def test_usage_counts_the_sub_agent_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    report = api.usage_report(Home.at(home), "session", apps=["gptme"])
    by_id = {row.key: row for row in report.rows}
    # basic 2 and resume 2, the lead 3 and its sub-agent 2, the TUI 2: what the mock served
    # but the naming requests, whose usage no conversation holds
    assert sum(row.responses for row in report.rows) == 11
    assert CHILD not in by_id  # counted with its lead, not beside it
    lead = by_id[LEAD]
    assert lead.responses == 5
    assert {key: row.responses for key, row in lead.agents.items()} == {
        "lead": 3,
        CHILD: 2,
    }


def test_the_complete_tool_ends_the_turn() -> None:
    got = events(sessions()[BASIC])
    last = [e for e in got if e.kind in ("tool_call", "tool_result", "turn_end")][-3:]
    assert [(e.kind, e.tool) for e in last] == [
        ("tool_call", "complete"),
        ("tool_result", "complete"),
        ("turn_end", None),
    ]
    assert last[-1].extra == {"reason": "complete"}
    # the resume's prompt, between the two runs' turns
    prompts = [e.text for e in got if e.kind == "user"]
    assert [p.split()[0] for p in prompts if p] == ["SCENARIO=basic", "SCENARIO=resume"]


def _cut_before(path: Path, test: str) -> float:
    """Keep the lines before the first that holds `test` (gptme writes an answer with
    its calls only once they have run); the time of the last one kept."""
    kept, last = [], 0.0
    for line in path.read_text().splitlines(keepends=True):
        if test in line:
            break
        kept.append(line)
        stamp = json.loads(line).get("timestamp")
        if isinstance(stamp, str):
            last = max(last, datetime.fromisoformat(stamp).timestamp())
    path.write_text("".join(kept))
    return last


def test_the_lead_waits_on_its_running_sub_agent(tmp_path: Path) -> None:
    # as they stood while the sub-agent's shell call ran: the lead's `subagent_wait` and
    # the sub-agent's `shell` call not written yet
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    written = max(
        _cut_before(home / LOGS / LEAD / "conversation.jsonl", "subagent_wait"),
        _cut_before(home / LOGS / CHILD / "conversation.jsonl", "@shell("),
    )
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    follower.alive = True
    status = follower.status(now=written + 3)
    assert status.status == "waiting_on_subagent", status
    # as `show` names it: its id's start past its type (`subagent-`), which `show` takes
    assert status.reason.startswith("sub-agent subagent-greeter- working"), status


def test_once_its_sub_agent_is_done_the_lead_is_not_waiting_on_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    # the lead had the sub-agent's answer and went on (its final answer not written)
    written = _cut_before(home / LOGS / LEAD / "conversation.jsonl", "@complete(")
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    follower.alive = True
    status = follower.status(now=written + 3)
    assert status.status == "working", status


def test_watch_reads_the_sub_agents_conversation_as_it_grows(tmp_path: Path) -> None:
    """While the lead waits on its sub-agent (its `subagent_wait` unwritten), only the
    sub-agent's conversation grows: `watch` reads what it appends, tagged with its id,
    without the lead writing a line."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    child = home / LOGS / CHILD / "conversation.jsonl"
    whole = child.read_text()
    written = max(
        _cut_before(home / LOGS / LEAD / "conversation.jsonl", "subagent_wait"),
        _cut_before(child, "@shell("),
    )
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    first = follower.poll(now=written + 1) + follower.poll(now=written + 2)
    assert any(e.kind == "subagent" and e.extra.get("child_id") == CHILD for e in first)
    assert any(e.kind == "user" and e.agent_id == CHILD for e in first)  # its task
    assert not any(e.kind == "tool_result" and e.agent_id == CHILD for e in first)
    assert follower.poll(now=written + 3) == []
    child.write_text(whole)  # gptme writes the whole file again, one message longer
    later = follower.poll(now=written + 5)
    results = [e for e in later if e.kind == "tool_result" and e.agent_id == CHILD]
    assert "`hello-from-subagent`" in (results[0].text or "")  # its shell call's
    assert not any(e.agent_id is None and e.kind == "user" for e in later)  # no repeats
    assert follower.poll(now=written + 9) == []


def test_watch_finds_a_sub_agent_whose_conversation_began_after_its_spawn(
    tmp_path: Path,
) -> None:
    """A spawn read before the sub-agent wrote its first line names no conversation; once
    it is there, the spawn is said again naming it, and its events follow."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    written = _cut_before(home / LOGS / LEAD / "conversation.jsonl", "subagent_wait")
    aside = tmp_path / "aside"
    (home / LOGS / CHILD).rename(aside)
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    first = follower.poll(now=written + 1)
    spawn = next(e for e in first if e.kind == "subagent")
    assert "child_id" not in spawn.extra
    aside.rename(home / LOGS / CHILD)
    later = follower.poll(now=written + 5)  # a listing 2 s on looks again
    again = [e for e in later if e.kind == "subagent"]
    assert [(e.call_id, e.extra.get("child_id")) for e in again] == [
        (spawn.call_id, CHILD)
    ]
    mine = [e for e in later if e.agent_id == CHILD]
    assert mine and later.index(again[0]) < later.index(mine[0])
    assert any(e.kind == "turn_end" for e in mine)


def _cut_spawn(home: Path) -> float:
    """The lead's file cut before its `subagent(...)` call (as when gptme has not written
    the answer that holds it: it writes an answer once its calls have run)."""
    return _cut_before(home / LOGS / LEAD / "conversation.jsonl", "subagent(")


def test_watch_announces_a_sub_agent_whose_spawn_the_lead_lacks_as_a_read_does(
    tmp_path: Path,
) -> None:
    """A sub-agent whose registry entry names the lead, no spawn read naming it, is
    followed and announced by its entry (its agent id, its task) before its events, as
    the whole read announces it after the lead's messages."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    written = _cut_spawn(home)
    read = events(sessions(home)[LEAD])
    [said] = [e for e in read if e.kind == "subagent"]
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    live = follower.poll(now=written + 1) + follower.poll(now=written + 5)
    [spawn] = [e for e in live if e.kind == "subagent"]
    for key in ("child_id", "agent_type", "agent_name"):
        assert spawn.extra.get(key) == said.extra.get(key), key
    assert spawn.text == said.text and spawn.text is not None
    assert spawn.text.startswith("SCENARIO=child")
    mine = sorted((e for e in live if e.agent_id == CHILD), key=lambda e: e.seq)
    assert spawn.seq < mine[0].seq  # said first (a poll's events come by their times)
    # its events as the whole read gives them
    assert [(e.kind, e.text) for e in mine] == [
        (e.kind, e.text) for e in read if e.agent_id == CHILD
    ]
    assert follower.poll(now=written + 9) == []  # not twice
    child = follower.tracker.agents[CHILD]  # the board's line for it
    assert (child.agent_type, child.agent_name) == ("subagent", "greeter")


def test_watch_follows_a_sub_agent_whose_spawn_is_unwritten_once_it_begins(
    tmp_path: Path,
) -> None:
    """One that begins while the lead is followed (its call not written yet) is found at
    a later listing, and read as it grows."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    written = _cut_spawn(home)
    aside = tmp_path / "aside"
    (home / LOGS / CHILD).rename(aside)
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    first = follower.poll(now=written + 1) + follower.poll(now=written + 5)
    assert not any(e.kind == "subagent" for e in first)
    aside.rename(home / LOGS / CHILD)
    later = follower.poll(now=written + 9)
    [spawn] = [e for e in later if e.kind == "subagent"]
    assert spawn.extra.get("child_id") == CHILD
    assert any(e.kind == "turn_end" and e.agent_id == CHILD for e in later)


def test_watch_says_a_sub_agent_announced_by_its_entry_once_when_its_call_comes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Announced by its registry entry (the lead's call not written yet), then named by
    the call once gptme writes it: `watch` prints its spawn once, not again under the
    call, and the board still links it to that call."""
    from sessdex.cli.live import _follow_text

    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    lead = home / LOGS / LEAD / "conversation.jsonl"
    whole = lead.read_text()
    written = _cut_spawn(home)
    session = api.resolve(Home.at(home), LEAD)
    follower = LiveSession(session)
    batches = [follower.poll(now=written + 1), follower.poll(now=written + 5)]
    lead.write_text(whole)  # the answer holding its `subagent(...)` call, once run
    batches += [follower.poll(now=written + 9), follower.poll(now=written + 15)]
    spawns = [e for batch in batches for e in batch if e.kind == "subagent"]
    assert [e.call_id for e in spawns] == [None, "c83ace187"]  # the link, for the board
    _follow_text(session, batches, "normal", {}, 1000)
    out = capsys.readouterr().out
    assert out.count("Spawned sub-agent") == 1, out
    assert 'Using ipython — code: subagent("greeter"' in out
    assert "↳ subagent Using shell — echo hello-from-subagent" in out


def test_watch_says_a_sub_agent_announced_by_its_entry_before_its_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A poll's events come by their times: the announcement is dated when its entry
    says the sub-agent started, before every line of its conversation (gptme dates its
    system messages out of order), not at its first line's time, which put it among them."""
    from sessdex.cli.live import _follow_text

    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    written = _cut_spawn(home)
    session = api.resolve(Home.at(home), LEAD)
    follower = LiveSession(session)
    batches = [follower.poll(now=written + 1), follower.poll(now=written + 5)]
    _follow_text(session, batches, "normal", {}, 1000)
    lines = capsys.readouterr().out.splitlines()
    spawn = next(i for i, line in enumerate(lines) if "Spawned sub-agent" in line)
    first = next(i for i, line in enumerate(lines) if line.startswith("  ↳ subagent"))
    assert spawn < first, "\n".join(lines)


def test_resume_refuses_a_conversation_saved_with_no_confirm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gptme 0.35.1 saves `no_confirm = true` in a conversation's config.toml for a run
    with `-y` or `--non-interactive`, and `gptme --name <it>` reopens it so (its
    `ChatConfig.load_or_create` keeps the saved value; no flag lowers it): tools run
    without asking. `resume --print` gave the line with nothing said; it is refused
    now unless --keep-permissions, which passes `--no-confirm`. The TUI turn's is not."""
    from click.testing import CliRunner

    from sessdex.cli import main

    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    runner = CliRunner()
    printed = runner.invoke(main, ["resume", BASIC, "--print", "--home", str(home)])
    assert (
        "warning: gptme reopens this session at the no-confirm setting (tools run "
        "without asking) it was left at, looser than its default" in printed.stderr
    ), printed.stderr
    found = sessions(home)
    kept = gptme.resume(found[BASIC], keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--no-confirm"
    assert not kept.restores_looser
    tui = gptme.resume(found[TUI])
    assert tui is not None and not tui.restores_looser
    assert "--no-confirm" not in tui.argv


@pytest.mark.parametrize("broken", ["not TOML", "over its size limit"])
def test_resume_refuses_where_config_toml_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    """The index holds the conversation's folder; its config.toml, read again at resume
    time, could not be read (not TOML, over 256 KB): it was taken for one with no
    `no_confirm`, and the line was handed out unrefused, where gptme may reopen it with
    tools running without asking. It is refused now, unless --keep-permissions."""
    from click.testing import CliRunner

    from sessdex.cli import main

    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    runner = CliRunner()
    argv = ["resume", "checkout-subagent", "--print", "--home", str(home)]
    assert "no-confirm" in runner.invoke(main, argv).stderr  # read, and indexed
    config = home / ".local/share/gptme/logs/checkout-subagent/config.toml"
    text = config.read_text()
    if broken == "not TOML":
        text = text.replace("stream = true", "stream = = true")
    else:
        text = text.replace("[env]", "# " + "x" * 300_000 + "\n[env]")
    config.write_text(text)
    printed = runner.invoke(main, argv)
    told = " ".join(printed.stderr.split())
    assert "gptme may reopen this session at the no-confirm setting" in told, told
    assert "its config.toml could not be read" in told, told
    kept = runner.invoke(main, [*argv, "--keep-permissions"])
    assert "no-confirm" not in kept.stderr, kept.stderr
    assert "gptme --name checkout-subagent" in kept.stdout
