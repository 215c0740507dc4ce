"""Copilot CLI's Allow All permission policy, as 1.0.102 records it and restores it on
resume (real TUI sessions in tests/data/copilot/permissions)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session, merge
from sessdex.sources import Home, copilot

HOME = Path(__file__).parent.parent / "data" / "copilot" / "permissions" / "home"
# started with Manual Approval, `/allow-all` typed after the first turn
SWITCHED = "f159b433-7063-4366-9ce5-c1c42481fe88"
# started with `--allow-all`, `/permissions` back to Manual Approval after a turn
LOWERED = "1089e194-53fb-4162-a1e0-b23c6a23c1d2"
ON = {
    "previousAllowAllPermissions": False,
    "allowAllPermissions": True,
    "previousAllowAllPermissionMode": "off",
    "allowAllPermissionMode": "on",
}


def _long_session(home: Path, session_id: str, switched: bool = True) -> None:
    """A session of 300 answers of 8 KB, switched to Allow All after the 150th (in its
    middle, which listing does not read) where `switched`."""
    stamp = "2026-12-06T22:12:19.205Z"
    start = {
        "type": "session.start",
        "data": {"sessionId": session_id, "copilotVersion": "1.0.102"},
        "timestamp": stamp,
    }
    said = {
        "type": "assistant.message",
        "data": {"messageId": "m", "content": "x" * 8000},
        "timestamp": stamp,
    }
    switch = {"type": "session.permissions_changed", "data": ON, "timestamp": stamp}
    path = home / ".copilot" / "session-state" / session_id / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [start, *[said] * 150, *([switch] if switched else []), *[said] * 150]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def sessions(home: Path) -> dict[str, Session]:
    location = copilot.locate(Home.at(home))
    parts: dict[str, list[Session]] = {}
    for path in copilot.scan(location):
        for session in copilot.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def test_a_session_switched_to_allow_all_is_not_resumed_so_unasked() -> None:
    """`/allow-all` mid-session writes `session.permissions_changed`
    (`allowAllPermissions: true`), and a plain `copilot --resume <id>` comes back with
    Allow All (its status bar said so); no flag turns it off (`--allow-all=false`,
    `--no-allow-all` are usage errors; COPILOT_ALLOW_ALL=false did not). sessdex read a
    `mode` key Copilot never wrote and gave that line with nothing said."""
    found = sessions(HOME)
    switched = found[SWITCHED]
    assert switched.permission_mode == "allow-all"
    plan = copilot.resume(switched)
    assert plan is not None and "--allow-all" not in plan.argv
    assert "Allow All" in plan.restores_looser and plan.withheld == ()
    kept = copilot.resume(switched, keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--allow-all"
    assert not kept.restores_looser
    # turned back to Manual Approval with `/permissions`: resumed so (status bar)
    lowered = copilot.resume(found[LOWERED])
    assert lowered is not None and not lowered.restores_looser
    assert "--allow-all" not in lowered.argv


def test_show_says_when_the_permission_policy_changed() -> None:
    found = sessions(HOME)
    said = [
        event.text
        for event in copilot.read(found[LOWERED], Diagnostics())
        if event.kind == "meta" and event.extra.get("permission_mode")
    ]
    assert said == ["permissions: allow-all", "permissions: manual"]


def test_resume_json_refuses_a_session_left_at_allow_all(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".copilot" / "session-state" / SWITCHED
    folder.mkdir(parents=True)
    (tmp_path / "shop-api").mkdir()
    lines = (
        HOME / ".copilot" / "session-state" / SWITCHED / "events.jsonl"
    ).read_text()
    (folder / "events.jsonl").write_text(
        lines.replace("/home/alex/code/shop-api", str(tmp_path / "shop-api"))
    )
    result = CliRunner().invoke(
        main, ["resume", "--json", "--home", str(home), SWITCHED[:8]]
    )
    assert result.exit_code == 0, result.output
    refusals = json.loads(result.stdout)["refusals"]
    assert any("Allow All" in refusal for refusal in refusals), refusals


def test_allow_all_switched_on_in_an_unread_middle_is_found(tmp_path: Path) -> None:
    """Listing reads a long session's first lines and last 512 KB: a `/allow-all` between
    them would go unseen, and Copilot would restore it."""
    _long_session(tmp_path, "s5")
    (session,) = sessions(tmp_path).values()
    assert session.permission_mode == "allow-all"
    plan = copilot.resume(session)
    assert plan is not None and plan.restores_looser


def test_a_permissions_change_saying_nothing_of_allow_all_keeps_it(
    tmp_path: Path,
) -> None:
    """A `session.permissions_changed` whose data names no Allow All value (another
    setting's change, a later version's shape) leaves the policy as it was: Copilot
    restores the last Allow All it wrote, so the resume stays refused."""
    stamp = "2026-12-06T22:12:19.205Z"
    start = {
        "type": "session.start",
        "data": {"sessionId": "s6", "copilotVersion": "1.0.102"},
        "timestamp": stamp,
    }
    switch = {"type": "session.permissions_changed", "data": ON, "timestamp": stamp}
    other = {
        "type": "session.permissions_changed",
        "data": {"approvedTools": ["shell(git)"]},
        "timestamp": stamp,
    }
    path = tmp_path / ".copilot" / "session-state" / "s6" / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in (start, switch, other)))
    (session,) = sessions(tmp_path).values()
    assert session.permission_mode == "allow-all"
    plan = copilot.resume(session)
    assert plan is not None and plan.restores_looser
    said = [e.text for e in copilot.read(session, Diagnostics()) if e.kind == "meta"]
    assert said[-2:] == ["permissions: allow-all", "permissions changed"]


MODES = Path(__file__).parent.parent / "data" / "copilot" / "modes" / "home"
PLANNED = "c40ba010-af4a-4256-8c56-53ade3c6553d"  # `-p … --resume <id> --mode plan`
AUTOPILOT = "7ecd1eaa-a422-4359-985b-b769bac89b86"  # the same with `--mode autopilot`


def test_the_mode_a_real_resume_left_is_kept_or_lowered() -> None:
    """1.0.102 writes `session.mode_changed` for `--mode` on a resume, and a later plain
    `--resume` carries the mode on (its prompt's `agentMode` was plan, then autopilot):
    plan is passed again, autopilot lowered to interactive unless kept."""
    found = sessions(MODES)
    planned = copilot.resume(found[PLANNED])
    assert planned is not None and planned.argv[-2:] == ("--mode", "plan")
    autopilot = copilot.resume(found[AUTOPILOT])
    assert autopilot is not None and autopilot.argv[-2:] == ("--mode", "interactive")
    assert autopilot.withheld == ("--mode autopilot",)
    kept = copilot.resume(found[AUTOPILOT], keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == ("--mode", "autopilot")
    diagnostics = Diagnostics()
    for session in found.values():
        list(copilot.read(session, diagnostics))
    assert not diagnostics.unknown and diagnostics.skipped_total == 0


def test_allow_all_in_a_middle_too_long_to_search_when_listing_is_found_on_resume(
    tmp_path: Path, monkeypatch
) -> None:
    """Listing searches a middle of up to 256 MB; past that it gave up and the resume went
    ahead, into the Allow All Copilot restores. The resume of that one session searches
    it whole."""
    from sessdex import files

    monkeypatch.setattr(files, "MIDDLE_CAP", 1 << 20)
    _long_session(tmp_path, "s6")
    (session,) = sessions(tmp_path).values()
    plan = copilot.resume(session)
    assert plan is not None and "Allow All" in plan.restores_looser
    kept = copilot.resume(session, keep_permissions=True)
    assert kept is not None and not kept.restores_looser
    assert kept.argv[-1] == "--allow-all"
    # the same middle with no switch in it: resumed as before
    _long_session(tmp_path, "s6", switched=False)
    (session,) = sessions(tmp_path).values()
    plan = copilot.resume(session)
    assert plan is not None and not plan.restores_looser


def test_export_gives_no_resume_line_that_restores_allow_all() -> None:
    """`export` (Markdown and HTML) put `copilot --resume <id>` in its header for a
    session left at Allow All, which `resume` refuses: pasted, that line reopened it at
    Allow All unasked. The export gives none for it, and still one for a session
    turned back to Manual Approval."""
    runner = CliRunner()
    for fmt in ("md", "html"):
        switched = runner.invoke(
            main, ["export", SWITCHED[:8], "-f", fmt, "--home", str(HOME)]
        )
        assert switched.exit_code == 0, switched.output
        assert "copilot --resume" not in switched.stdout
        lowered = runner.invoke(
            main, ["export", LOWERED[:8], "-f", fmt, "--home", str(HOME)]
        )
        assert f"copilot --resume {LOWERED}" in lowered.stdout


def test_a_gone_folder_gives_no_line_that_restores_allow_all() -> None:
    """The session's folder (/home/alex/code/shop-api) is gone here. Copilot CLI finds a
    session from any folder, so the refusal offers the line without its `cd`: for a
    session left at Allow All, which `resume` refuses, that line (pasted) reopened it at
    Allow All unasked. It is offered with `--keep-permissions` only, its flag in it."""
    runner = CliRunner()
    refused = runner.invoke(
        main, ["resume", SWITCHED[:8], "--print", "--home", str(HOME)]
    )
    assert refused.exit_code == 1
    assert "Put the project back at /home/alex/code/shop-api" in refused.stderr
    assert f"copilot --resume {SWITCHED}" not in refused.stderr, refused.stderr
    assert "add --keep-permissions for the line that resumes it in another" in (
        refused.stderr
    )
    kept = runner.invoke(
        main,
        ["resume", SWITCHED[:8], "--print", "--keep-permissions", "--home", str(HOME)],
    )
    line = f"copilot --resume {SWITCHED} --model mock-model --allow-all"
    assert line in kept.stderr, kept.stderr
    lowered = runner.invoke(
        main, ["resume", LOWERED[:8], "--print", "--home", str(HOME)]
    )
    assert f"copilot --resume {LOWERED}" in lowered.stderr, lowered.stderr


def test_a_moved_folder_gives_no_line_that_restores_allow_all(tmp_path: Path) -> None:
    """The session's folder is gone, and a newer session ran in a folder of its name
    (the project moved there): the hint names that folder, and for a session left at
    Allow All gives no `cd … && copilot --resume` line, which pasted would reopen it
    at Allow All unasked; with `--keep-permissions` it does, its flag in it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    new = tmp_path / "moved" / "shop-api"
    new.mkdir(parents=True)
    state = home / ".copilot" / "session-state"
    later = "0f0f0f0f-0000-4000-8000-00000000000f"
    shutil.copytree(state / LOWERED, state / later)
    for name in ("events.jsonl", "workspace.yaml"):
        path = state / later / name
        text = path.read_text().replace(LOWERED, later)
        text = text.replace("/home/alex/code/shop-api", str(new))
        path.write_text(text.replace("2026-12-06", "2026-12-07"))
    runner = CliRunner()
    refused = runner.invoke(
        main, ["resume", SWITCHED[:8], "--print", "--home", str(home)]
    )
    assert refused.exit_code == 1
    told = " ".join(refused.stderr.split())
    assert f"A folder of the same name, {new}, holds newer sessions" in told, told
    assert "copilot --resume" not in told, told
    assert "add --keep-permissions for the line that resumes it in another" in told
    kept = runner.invoke(
        main,
        ["resume", SWITCHED[:8], "--print", "--keep-permissions", "--home", str(home)],
    )
    told = " ".join(kept.stderr.split())
    line = f"&& copilot --resume {SWITCHED} --model mock-model --allow-all"
    assert line in told, told
