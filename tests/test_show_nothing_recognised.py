"""`show` of a session none of whose records sessdex draws, for their types are not
recognised (Codex CLI 0.50's `turn.completed` events), says so in one line without
`-v`: it printed its header and an empty body, the note only with `-v`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

# a public sample of Codex CLI 0.50 (agent-sessions' fixtures), its five lines as they are
LEGACY = (
    '{"timestamp":"2025-10-30T10:00:00.000Z","type":"session_meta","payload":{"id":'
    '"test-legacy-session","timestamp":"2025-10-30T10:00:00.000Z","cwd":"/tmp/test",'
    '"originator":"codex_cli_rs","cli_version":"0.50.0","source":"cli"}}\n'
    '{"timestamp":"2025-10-30T10:00:01.000Z","type":"event_msg","payload":{"type":'
    '"turn.completed","message":"ok"}}\n'
    '{"timestamp":"2025-10-30T10:00:02.000Z","type":"event_msg","payload":{"type":'
    '"token_count","info":{"prompt":1420,"completion":910}}}\n'
    '{"timestamp":"2025-10-30T10:00:10.000Z","type":"event_msg","payload":{"type":'
    '"turn.completed","message":"ok"}}\n'
    '{"timestamp":"2025-10-30T10:00:11.000Z","type":"event_msg","payload":{"type":'
    '"token_count","info":null}}\n'
)


def _home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".codex" / "sessions" / "2025" / "10" / "30"
    folder.mkdir(parents=True)
    name = "rollout-2025-10-30T10-00-00-test-legacy-session.jsonl"
    (folder / name).write_text(LEGACY)
    return tmp_path / "home"


def _show(home: Path, *args: str) -> tuple[str, str]:
    result = CliRunner().invoke(
        main, ["show", "test-legacy", "--home", str(home), *args],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def test_show_says_in_one_line_that_it_recognised_nothing(tmp_path: Path) -> None:
    out, err = _show(_home(tmp_path))
    assert out.strip().endswith("/tmp/test")  # the header, no body
    said = [line for line in err.splitlines() if "not recognised" in line]
    assert len(said) == 1, err
    assert "2 records" in said[0] and "-v" in said[0] and "doctor" in said[0]


def test_show_v_names_the_types_as_before(tmp_path: Path) -> None:
    _, err = _show(_home(tmp_path), "-v")
    assert "event_msg/turn.completed@0.50.0 (2)" in err
    assert len([line for line in err.splitlines() if "not recognised" in line]) == 1


def test_a_session_whose_body_is_drawn_gets_no_such_line(tmp_path: Path) -> None:
    home = _home(tmp_path)
    sample = Path(__file__).parent / "data" / "codex" / "home"
    shutil.copytree(sample, home, dirs_exist_ok=True)
    listed = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    other = next(
        s["id"] for s in json.loads(listed.stdout) if s["id"] != "test-legacy-session"
    )
    result = CliRunner().invoke(main, ["show", other, "--home", str(home)])
    assert result.exit_code == 0 and "not recognised" not in result.stderr


def test_a_body_hidden_by_detail_user_is_not_blamed_on_unknown_types(
    tmp_path: Path,
) -> None:
    # a tool call is drawn without --detail user: the body is empty for the detail
    # asked, not for want of a record sessdex recognises
    home = _home(tmp_path)
    rollout = next(home.rglob("rollout-*.jsonl"))
    call = (
        '{"timestamp":"2025-10-30T10:00:12.000Z","type":"response_item","payload":'
        '{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"ls\\"]}",'
        '"call_id":"c1"}}\n'
    )
    rollout.write_text(LEGACY + call)
    out, err = _show(home)
    assert "ls" in out and "not recognised" not in err
    out, err = _show(home, "--detail", "user")
    assert out.strip().endswith("/tmp/test")  # the header, no body
    assert "not recognised" not in err, err
