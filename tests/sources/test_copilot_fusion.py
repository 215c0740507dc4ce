"""Event types GitHub Copilot CLI 1.0.102 declares durable in its own schema
(`schemas/session-events.schema.json` in the npm package's unpacked runtime) that no
earlier fixture had: HydraFusion turns, a withdrawn model, skill context receipts and
permission bookkeeping (tests/data/copilot/fusion, hand-written from that schema)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session, merge
from sessdex.sources import Home, copilot

HOME = Path(__file__).parent.parent / "data" / "copilot" / "fusion" / "home"
FUSION = "5f0c9e2a-7b1d-4c3e-8a6f-1d2e3f4a5b6c"


def listed(home: Path) -> Session:
    location = copilot.locate(Home.at(home))
    parts = [
        session
        for path in copilot.scan(location)
        for session in copilot.parse(path, location, Diagnostics())
    ]
    return merge([part for part in parts if part.id == FUSION])


def test_a_fusion_turn_is_shown_and_no_1_0_102_record_is_unknown() -> None:
    """A HydraFusion turn (several models answer one prompt) writes its route, each
    phase's end and its outcome; `show -v` said "record types not recognised" for 23
    types 1.0.102 declares, and showed none of the route, the failed phase or the
    route that fell back."""
    result = CliRunner().invoke(main, ["show", FUSION, "-v", "--home", str(HOME)])
    assert result.exit_code == 0, result.output
    assert "not recognised" not in result.output
    assert "fusion critique: gpt-5, review by claude-sonnet-4.5" in result.output
    assert "fusion phase critic (claude-sonnet-4.5) failed: provider_error" in (
        result.output
    )
    assert "fusion routing failed (router_timeout): gpt-5-mini instead" in (
        result.output
    )
    assert "model gpt-5 withdrawn by its provider" in result.output
    # the answer the fusion committed is shown once, as the assistant's
    assert result.output.count("Raised MAX_RETRIES to 5 in checkout.py.") == 1


def test_fusion_records_bill_nothing_and_skill_context_is_not_the_user() -> None:
    """`session.fusion_completed` sums its phases' tokens: not billed again (no usage
    event comes from it). A skill's context given to the model mid-turn
    (`skill.context_delivered`) is harness text, as a skill's hidden prompt is."""
    diagnostics = Diagnostics()
    got = list(copilot.read(listed(HOME), diagnostics))
    assert not diagnostics.unknown, diagnostics.unknown
    assert not [e for e in got if e.kind == "usage"]
    skill = [e for e in got if e.kind == "user" and e.extra.get("injected")]
    assert [e.extra.get("source") for e in skill] == ["skill-pytest"]
    outcome = [e for e in got if e.extra.get("fusion_outcome")]
    assert [e.extra["fusion_outcome"] for e in outcome] == ["degraded"]


def test_a_model_its_provider_withdrew_is_not_passed_on_resume(tmp_path: Path) -> None:
    """`session.model_deselected` (the host withdrew the model the user picked): the
    session goes on with Copilot's default, so `resume` passes no `--model`; it passed
    the withdrawn one. A model picked after it is passed again."""
    session = listed(HOME)
    assert session.model is None
    plan = copilot.resume(session)
    assert plan is not None and "--model" not in plan.argv
    home = tmp_path / "home"
    log = home / ".copilot" / "session-state" / FUSION / "events.jsonl"
    log.parent.mkdir(parents=True)
    source = HOME / ".copilot" / "session-state" / FUSION / "events.jsonl"
    picked = {"type": "session.model_change", "id": "e99", "parentId": None,
              "timestamp": "2026-12-01T09:01:00.000Z",
              "data": {"previousModel": None, "newModel": "gpt-5-mini"}}  # fmt: skip
    log.write_text(source.read_text() + json.dumps(picked) + "\n")
    assert listed(home).model == "gpt-5-mini"


def test_fusion_and_withdrawn_model_records_missing_fields_say_no_none(
    tmp_path: Path,
) -> None:
    """A 1.0.102 record cut short (no model, pattern, status or reason) is still shown
    as a note, saying only what it holds: `show` said "fusion None: None", "fusion phase
    None (None) None" and "model None withdrawn by its provider"."""
    home = tmp_path / "home"
    log = home / ".copilot" / "session-state" / FUSION / "events.jsonl"
    log.parent.mkdir(parents=True)
    source = HOME / ".copilot" / "session-state" / FUSION / "events.jsonl"
    bare = [
        {"type": kind, "id": f"x{n}", "parentId": None,
         "timestamp": f"2026-12-01T09:02:0{n}.000Z", "data": data}
        for n, (kind, data) in enumerate([
            ("session.fusion_resolved", {}),
            ("assistant.fusion_phase_completed", {}),
            ("assistant.fusion_phase_failed", {}),
            ("session.fusion_route_failed", {}),
            ("session.fusion_completed", {}),
            ("session.model_deselected", {"reason": "provider_withdrawn"}),
            ("session.model_deselected", {}),
        ])
    ]  # fmt: skip
    log.write_text(source.read_text() + "".join(json.dumps(r) + "\n" for r in bare))
    result = CliRunner().invoke(main, ["show", FUSION, "-v", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "None" not in result.output
    assert "()" not in result.output
    assert "the model withdrawn by its provider" in result.output


def test_a_fusion_phase_shows_what_its_model_wrote(tmp_path: Path) -> None:
    """`assistant.fusion_phase_completed` holds the phase's output (`content`, required by
    1.0.102's schema) and a critic's `verdict`: `show` said only "fusion phase draft
    (gpt-5) succeeded", so a draft the turn did not commit, or a review, was never seen."""
    result = CliRunner().invoke(main, ["show", FUSION, "--home", str(HOME)])
    assert result.exit_code == 0, result.output
    assert (
        "fusion phase draft (gpt-5) succeeded: Set MAX_RETRIES = 5 in checkout.py."
        in result.output
    )
    home = tmp_path / "home"
    log = home / ".copilot" / "session-state" / FUSION / "events.jsonl"
    log.parent.mkdir(parents=True)
    source = HOME / ".copilot" / "session-state" / FUSION / "events.jsonl"
    review = {"type": "assistant.fusion_phase_completed", "id": "e98", "parentId": None,
              "timestamp": "2026-12-01T09:03:00.000Z",
              "data": {"fusionId": "fus-2", "phaseId": "ph-c", "phaseKind": "critic",
                       "role": "reviewer", "conversationScope": "review",
                       "model": "claude-sonnet-4.5", "status": "succeeded",
                       "content": "Retries look fine.\nAdd a test.", "verdict": "revise",
                       "durationMs": 10, "usage": {}}}  # fmt: skip
    log.write_text(source.read_text() + json.dumps(review) + "\n")
    result = CliRunner().invoke(main, ["show", FUSION, "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert (
        "fusion phase critic (claude-sonnet-4.5) succeeded, verdict revise: "
        "Retries look fine. Add a test." in result.output
    )


def test_a_long_phase_output_is_one_short_line_whole_in_detail_full(
    tmp_path: Path,
) -> None:
    """A draft of many lines was shown whole on one line in `show`, however long (a
    phase's `content` is the model's whole answer): it is cut to one short line there,
    as a note is; `--detail full` and `--json` keep all of it."""
    home = tmp_path / "home"
    log = home / ".copilot" / "session-state" / FUSION / "events.jsonl"
    log.parent.mkdir(parents=True)
    source = HOME / ".copilot" / "session-state" / FUSION / "events.jsonl"
    draft = "\n".join(f"Step {n}: change line {n} of checkout.py." for n in range(300))
    phase = {"type": "assistant.fusion_phase_completed", "id": "e98", "parentId": None,
             "timestamp": "2026-12-01T09:03:00.000Z",
             "data": {"fusionId": "fus-2", "phaseId": "ph-d", "phaseKind": "draft",
                      "role": "drafter", "conversationScope": "draft", "model": "gpt-5",
                      "status": "succeeded", "content": draft, "durationMs": 10,
                      "usage": {}}}  # fmt: skip
    log.write_text(source.read_text() + json.dumps(phase) + "\n")
    shown = CliRunner().invoke(main, ["show", FUSION, "--home", str(home)]).output
    [line] = [x for x in shown.splitlines() if "Step 0:" in x]
    assert line.startswith("· fusion phase draft (gpt-5) succeeded: Step 0: change")
    assert line.endswith("…") and len(line) <= 200
    assert "Step 299" not in shown
    full = ["show", FUSION, "--detail", "full", "--home", str(home)]
    assert (
        "Step 299: change line 299 of checkout.py."
        in CliRunner().invoke(main, full).output
    )
    events = json.loads(
        CliRunner().invoke(main, ["show", FUSION, "--json", "--home", str(home)]).output
    )
    assert any(draft in (e["text"] or "") for e in events)
