"""gptme quirks: tool calls inside the answer's text in three formats, results paired by
order or by call id, the [chat] table of config.toml only, `~` workspaces, resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, gptme

DATA = Path(__file__).parent.parent / "data" / "gptme"
LOGS = ".local/share/gptme/logs"


def sessions(home: Home) -> dict[str, Session]:
    location = gptme.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in gptme.scan(location):
        for session in gptme.parse(Path(path), location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session, *, full: bool = False) -> list[Event]:
    return list(gptme.read(session, Diagnostics(), full=full))


def conversation(
    home: Path, name: str, lines: list[dict[str, object]], config: str = ""
) -> None:
    folder = home / LOGS / name
    folder.mkdir(parents=True)
    (folder / "conversation.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    if config:
        (folder / "config.toml").write_text(config, encoding="utf-8")


def test_markdown_calls_pair_with_the_system_messages_after_them() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-11-30-happy-blue-fish"]
    got = [e for e in events(found) if e.agent_id is None]  # its sub-agent's apart
    calls = [e for e in got if e.kind == "tool_call"]
    results = [e for e in got if e.kind == "tool_result"]
    assert [(c.tool, c.extra["input"]) for c in calls] == [
        ("shell", {"command": "ls src/routes"}),
        (
            "save",
            {
                "path": "src/routes/health.py",
                "content": "from flask import Blueprint\n\nbp = Blueprint('health', __name__)",
            },
        ),
        ("ipython", {"code": 'subagent("impl", "Write the unit tests for health.py")'}),
    ]
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    assert results[1].text == "Saved to src/routes/health.py"
    # the code block is the call, not part of what the model said
    said = [e.text for e in got if e.kind == "assistant"]
    assert said[0] == "Let me look at the routes first."
    thinking = [e.text for e in got if e.kind == "thinking"]
    assert thinking == [
        "The app is a Flask app; look at the routes first."
    ]  # no signature


def test_a_subagent_call_names_the_conversation_it_starts() -> None:
    found = sessions(Home.at(DATA / "home"))
    lead = events(found["2026-11-30-happy-blue-fish"])
    spawn = next(e for e in lead if e.kind == "subagent")
    call = next(e for e in lead if e.kind == "tool_call" and e.tool == "ipython")
    assert spawn.call_id == call.call_id
    # an executor writes `subagent-<id>-<4 random characters>`, not `subagent-<id>`
    child = "subagent-impl-k3x9"
    assert spawn.extra["child_id"] == child and child in found
    assert spawn.extra["agent_name"] == "impl"
    # subagent() returns at once: its result launches the child, the hook's note ends it
    result = next(
        e for e in lead if e.kind == "tool_result" and e.call_id == call.call_id
    )
    assert result.extra.get("launched") is True
    ended = next(e for e in lead if e.extra.get("subagent_status"))
    assert ended.kind == "meta" and ended.extra["subagent_status"] == "done"
    assert (ended.call_id, ended.extra["child_id"]) == (call.call_id, child)
    native = gptme._spawned(
        "subagent", {"agent_id": "review", "prompt": "Review it", "profile": "verifier"}
    )
    assert native == [("review", "Review it", "verifier")]
    assert gptme._spawned("subagent", {"agent_id": "../x"}) == []
    # an orchestrator's block that starts several
    code = 'for a in ("x",):\n    pass\nsubagent("one", "A")\nsubagent(agent_id="two", prompt="B")'
    assert [s[0] for s in gptme._spawned("ipython", {"code": code})] == ["one", "two"]


def test_auto_compaction_note_is_a_compaction() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-11-30-happy-blue-fish"]
    compactions = [e for e in events(found) if e.kind == "compaction"]
    assert len(compactions) == 1
    assert compactions[0].text and "compacted-001" in compactions[0].text


def test_usage_new_and_flat_metadata_and_the_recorded_cost() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-11-30-happy-blue-fish"]
    # the lead's own: its sub-agent's, read in after its call, are tagged with its id
    usage = [e for e in events(found) if e.kind == "usage" and e.agent_id is None]
    assert [
        (
            u.usage.input_tokens,
            u.usage.output_tokens,
            u.usage.cache_read_tokens,
            u.usage.cache_write_tokens,
        )
        for u in usage
        if u.usage
    ] == [(1200, 80, 3000, 500), (1400, 120, 3500, 0), (200, 30, 0, 0), (300, 20, 0, 0)]
    assert all(
        u.usage and u.usage.model == "anthropic/claude-sonnet-4-6" for u in usage
    )
    assert usage[0].extra["cost_usd"] == 0.0042


def test_the_system_prompt_is_meta_shortened_unless_full() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-11-30-happy-blue-fish"]
    first = events(found)[0]
    assert first.kind == "meta" and first.text and len(first.text) < 300
    assert events(found, full=True)[0].text.startswith("You are gptme v0.33.0")  # type: ignore[union-attr]


def test_native_calls_pair_by_call_id_and_declines_and_interrupts() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-12-02-brave-red-owl"]
    got = events(found)
    kinds = [(e.kind, e.call_id) for e in got if e.kind in ("tool_call", "tool_result")]
    assert kinds[:2] == [("tool_call", "call_7Qx1"), ("tool_result", "call_7Qx1")]
    call = next(e for e in got if e.call_id == "call_7Qx1")
    assert call.extra["input"] == {"command": "make build"}
    assert "@shell" not in (next(e for e in got if e.kind == "assistant").text or "")
    xml_call, declined = kinds[2], next(e for e in got if e.extra.get("declined"))
    assert xml_call[0] == "tool_call" and declined.call_id == xml_call[1]
    assert declined.is_error
    user = next(e for e in got if e.kind == "user")
    assert user.text == "Why does the build fail?\n[attached: build.log]"
    assert got[-1].kind == "turn_end" and got[-1].extra["interrupted"] is True


def test_title_from_config_name_else_first_prompt_and_env_never_parsed(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    conversation(
        home,
        "named",
        [{"role": "user", "content": "hello", "timestamp": "2026-12-01T10:00:00"}],
        '[chat]\nname = "A name"\nworkspace = "~/code/app"\n\n[env]\nKEY = broken = toml\n',
    )
    conversation(
        home,
        "unnamed",
        [
            {
                "role": "user",
                "content": "first words\nsecond",
                "timestamp": "2026-12-01T10:00:00",
            }
        ],
    )
    found = sessions(Home.at(home))
    assert found["named"].title == "A name"
    # `~` is the home the logs are in; the [env] table (broken here) is never parsed
    assert found["named"].cwd == str(home / "code" / "app")
    assert found["unnamed"].title == "first words"
    assert found["unnamed"].cwd is None


def test_the_users_settings_with_keys_are_refused() -> None:
    from sessdex import folders

    assert folders.is_credential_path(
        DATA / "home" / ".config" / "gptme" / "config.toml"
    )
    assert folders.is_credential_path(
        DATA / "home" / ".config" / "gptme" / "config.local.toml"
    )
    assert not folders.is_credential_path(
        DATA / "home" / LOGS / "2026-12-02-brave-red-owl" / "config.toml"
    )


def test_the_logs_home_override_and_branch_copies_are_not_listed(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "elsewhere"
    shutil.copytree(DATA / "home" / LOGS, logs)
    home = Home(tmp_path / "home", {"GPTME_LOGS_HOME": str(logs)})
    found = sessions(home)
    assert sorted(found) == [
        "2026-11-30-happy-blue-fish",
        "2026-12-02-brave-red-owl",
        "subagent-impl-k3x9",
    ]


def test_the_macos_and_windows_data_folders_are_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for logs in (
        "Library/Application Support/gptme/logs",
        "AppData/Local/gptme/gptme/logs",
    ):
        shutil.copytree(
            DATA / "home" / LOGS / "subagent-impl-k3x9",
            home / logs / logs.split("/")[0],
        )
    assert sorted(sessions(Home.at(home))) == ["AppData", "Library"]


def test_resume_by_name_in_the_workspace() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = gptme.resume(found["2026-12-02-brave-red-owl"])
    assert plan is not None
    assert plan.argv == ("gptme", "--name", "2026-12-02-brave-red-owl")
    assert plan.cwd == "/home/alex/code/mono"
    assert not any(
        word in plan.argv for word in ("-y", "--no-confirm", "--non-interactive")
    )
    sub = gptme.resume(found["subagent-impl-k3x9"])
    assert sub is not None and sub.notes


@pytest.mark.parametrize("name", ["random", "-x", "v1..v2", " padded", "tab\there"])
def test_no_resume_for_a_name_gptme_reads_otherwise(name: str) -> None:
    assert gptme.resume(Session(app="gptme", id=name, cwd="/tmp")) is None


def test_process_session_reads_the_name() -> None:
    opened = gptme.process_session(["gptme", "--name", "2026-12-02-brave-red-owl"])
    assert opened is not None and opened.session_id == "2026-12-02-brave-red-owl"
    latest = gptme.process_session(["gptme", "-r"])
    assert latest is not None and latest.latest


def test_tail_offset_reads_from_a_line_start() -> None:
    found = sessions(Home.at(DATA / "home"))["2026-12-02-brave-red-owl"]
    assert found.path
    size = Path(found.path).stat().st_size
    tail = list(gptme.read(found, Diagnostics(), offset=size - 200))
    assert tail and tail[-1].extra.get("interrupted") is True


def test_malformed_lines_are_counted_not_raised() -> None:
    diagnostics = Diagnostics()
    home = Home.at(DATA / "malformed" / "home")
    location = gptme.locate(home)
    found = []
    for path in gptme.scan(location):
        found += gptme.parse(Path(path), location, diagnostics)
    for session in found:
        list(gptme.read(session, diagnostics))
    assert diagnostics.skipped_total >= 3  # not JSON, a list, content 42, the cut line
    assert diagnostics.unknown["role tool"] == 1
    assert any("[chat] table" in problem for problem in diagnostics.problems)


def test_a_huge_message_is_elided_and_an_unclosed_call_ends_the_search(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    huge = "x" * (6 * 1024 * 1024)
    conversation(
        home,
        "big",
        [
            {"role": "user", "content": "dump it", "timestamp": "2026-12-01T10:00:00"},
            {"role": "system", "content": huge, "timestamp": "2026-12-01T10:00:01"},
            {
                "role": "assistant",
                "content": '@shell(c1): {"command": "ls"\n@shell(c2): {"command": "pwd"}',
                "timestamp": "2026-12-01T10:00:02",
            },
            {
                "role": "assistant",
                "content": "done",
                "timestamp": "2026-12-01T10:00:03",
            },
        ],
    )
    found = sessions(Home.at(home))["big"]
    assert found.title == "dump it"
    assert found.updated is not None and found.updated.second == 3  # from the tail
    got = events(found)
    meta = next(e for e in got if e.kind == "meta")
    assert meta.text and len(meta.text) < 1000
    # gptme stops at a call whose JSON never closes: no call is made up from the rest
    assert [e.kind for e in got if e.kind == "tool_call"] == []
    assert got[-1].kind == "turn_end"


def test_a_block_never_closed_or_inside_an_example_is_not_a_call(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    conversation(
        home,
        "blocks",
        [
            {
                "role": "assistant",
                "content": "In a README:\n\n```markdown\nRun:\n```shell\nrm -rf build\n```\n```\n",
                "timestamp": "2026-12-01T10:00:00",
            },
            {
                "role": "assistant",
                "content": "Running\n```shell\nmake te... ^C Interrupted",
                "timestamp": "2026-12-01T10:00:05",
            },
        ],
    )
    got = events(sessions(Home.at(home))["blocks"])
    assert [e.kind for e in got if e.kind == "tool_call"] == []
    assert "rm -rf build" in (got[0].text or "")
    assert got[-1].extra.get("interrupted") is True


def test_a_native_call_written_as_a_python_dict_is_read_not_raised(
    tmp_path: Path,
) -> None:
    # gptme's non-streaming Anthropic path writes `@tool(id): {block.input}`, Python's
    # repr of the arguments (single quotes, True/None), which gptme reads with
    # json_repair; arguments neither JSON nor Python stay as their text
    home = tmp_path / "home"
    conversation(
        home,
        "repr",
        [
            {
                "role": "assistant",
                "content": "Looking.\n@shell(toolu_01): {'command': 'ls -a', 'quiet': True}"
                "\n@save(toolu_02): {not: [json}",
                "timestamp": "2026-12-01T10:00:00",
            },
            {
                "role": "system",
                "content": "two files",
                "call_id": "toolu_01",
                "timestamp": "2026-12-01T10:00:01",
            },
        ],
    )
    got = events(sessions(Home.at(home))["repr"])
    calls = [e for e in got if e.kind == "tool_call"]
    assert [(c.tool, c.call_id) for c in calls] == [
        ("shell", "toolu_01"),
        ("save", "toolu_02"),
    ]
    assert calls[0].extra["input"] == {"command": "ls -a", "quiet": True}
    assert calls[1].extra["input"] == "{not: [json}"
    result = next(e for e in got if e.kind == "tool_result")
    assert result.call_id == "toolu_01"


def test_a_conversation_named_gptme_keeps_its_title_and_workspace(
    tmp_path: Path,
) -> None:
    # `gptme --name gptme` keeps its settings in logs/gptme/config.toml: a conversation's,
    # beside its conversation.jsonl, not the user's ~/.config/gptme/config.toml
    from sessdex import folders

    home = tmp_path / "home"
    conversation(
        home,
        "gptme",
        [{"role": "user", "content": "hi", "timestamp": "2026-12-01T10:00:00"}],
        '[chat]\nname = "Named gptme"\nworkspace = "/srv/app"\n',
    )
    (home / ".config" / "gptme").mkdir(parents=True)
    settings = home / ".config" / "gptme" / "config.toml"
    settings.write_text('[env]\nOPENAI_API_KEY = "sk-dummy"\n', encoding="utf-8")
    found = sessions(Home.at(home))["gptme"]
    assert (found.title, found.cwd) == ("Named gptme", "/srv/app")
    plan = gptme.resume(found)
    assert plan is not None and plan.argv == ("gptme", "--name", "gptme")
    assert folders.is_credential_path(settings)
    # a link named like a conversation's settings, leading to the user's, is refused
    (home / LOGS / "linked").mkdir()
    (home / LOGS / "linked" / "conversation.jsonl").write_text("", encoding="utf-8")
    (home / LOGS / "linked" / "config.toml").symlink_to(settings)
    assert folders.is_credential_path(home / LOGS / "linked" / "config.toml")


def test_a_spawn_names_the_child_started_after_it_and_a_failure_ends_it(
    tmp_path: Path,
) -> None:
    # the same agent id in an older conversation and in a later one: the child is the
    # first `subagent-<id>-xxxx` that began at or after the call
    home = tmp_path / "home"
    for name, start in (
        ("subagent-fix-old1", "2026-11-01T09:00:00"),
        ("subagent-fix-b7q2", "2026-12-01T10:00:03"),
        ("subagent-fix-late", "2026-12-01T11:00:00"),
        ("subagent-fixer-a1b2", "2026-12-01T10:00:02"),
    ):
        conversation(
            home, name, [{"role": "user", "content": "fix it", "timestamp": start}]
        )
    conversation(
        home,
        "lead",
        [
            {
                "role": "assistant",
                "content": '@subagent(toolu_9): {"agent_id": "fix", "prompt": "Fix it"}',
                "timestamp": "2026-12-01T10:00:01",
            },
            {
                "role": "system",
                "content": "Started",
                "call_id": "toolu_9",
                "timestamp": "2026-12-01T10:00:02",
            },
            {
                "role": "system",
                "content": "❌ Subagent 'fix' failed: no tests",
                "timestamp": "2026-12-01T10:09:00",
            },
        ],
    )
    got = events(sessions(Home.at(home))["lead"])
    spawn = next(e for e in got if e.kind == "subagent")
    assert spawn.extra["child_id"] == "subagent-fix-b7q2"
    assert spawn.text == "Fix it"
    ended = next(e for e in got if e.extra.get("subagent_status"))
    assert ended.extra["subagent_status"] == "failed"
    assert ended.extra["child_id"] == "subagent-fix-b7q2"
    assert ended.call_id == "toolu_9"

    from sessdex.tree import build_tree

    tree = build_tree("lead", got)
    assert [(c.id, c.status) for c in tree.children] == [
        ("subagent-fix-b7q2", "failed")
    ]


@pytest.mark.parametrize(
    ("written", "rest"), [("~\\code\\app", "\\code\\app"), ("~2/code", "2/code")]
)
def test_a_workspace_gptme_wrote_with_a_tilde_is_the_home_and_the_rest(
    tmp_path: Path, written: str, rest: str
) -> None:
    # gptme replaces the home's path at the start of any path by `~` (on Windows `~\\…`;
    # `/home/alex2/…` under the home `/home/alex` becomes `~2/…`)
    home = tmp_path / "home"
    conversation(
        home,
        "tilde",
        [{"role": "user", "content": "hi", "timestamp": "2026-12-01T10:00:00"}],
        f"[chat]\nworkspace = {json.dumps(written)}\n",
    )
    assert sessions(Home.at(home))["tilde"].cwd == str(home) + rest


def test_a_conversation_without_times_is_dated_by_its_file(tmp_path: Path) -> None:
    # early gptme wrote no timestamp; gptme itself dates such messages by the file
    import os
    from datetime import UTC, datetime

    home = tmp_path / "home"
    conversation(home, "old", [{"role": "user", "content": "old question"}])
    os.utime(home / LOGS / "old" / "conversation.jsonl", (1700000000, 1700000000))
    found = sessions(Home.at(home))["old"]
    assert found.created == found.updated == datetime.fromtimestamp(1700000000, UTC)


def test_a_native_call_in_an_example_block_is_not_a_call(tmp_path: Path) -> None:
    # gptme passes over `@tool(id): {…}` inside a fenced block (`_codeblock_char_ranges`)
    home = tmp_path / "home"
    example = '@shell(ex1): {"command": "rm -rf /"}'
    conversation(
        home,
        "example",
        [
            {
                "role": "assistant",
                "content": f"A native call looks like:\n\n```text\n{example}\n```\n"
                '@shell(call_2): {"command": "ls"}',
                "timestamp": "2026-12-01T10:00:00",
            }
        ],
    )
    got = events(sessions(Home.at(home))["example"])
    assert [e.call_id for e in got if e.kind == "tool_call"] == ["call_2"]
    said = next(e for e in got if e.kind == "assistant")
    assert example in (said.text or "")


def test_an_xml_call_is_read_unescaped(tmp_path: Path) -> None:
    # gptme's `_to_xml` escapes the body and the args (`&lt;`, `&amp;`, `&quot;`), and its
    # parsers read the elements' text
    home = tmp_path / "home"
    conversation(
        home,
        "xml",
        [
            {
                "role": "assistant",
                "content": "<tool-use>\n<shell>\nmake &amp;&amp; grep -c &quot;&lt;div&quot; out\n"
                '</shell>\n</tool-use>\n<tool-use>\n<save args="a&amp;b.txt">\nx\n</save>\n'
                "</tool-use>",
                "timestamp": "2026-12-01T10:00:00",
            }
        ],
    )
    got = events(sessions(Home.at(home))["xml"])
    calls = [e.extra["input"] for e in got if e.kind == "tool_call"]
    assert calls == [
        {"command": 'make && grep -c "<div" out'},
        {"path": "a&b.txt", "content": "x"},
    ]


@pytest.mark.parametrize("lang", ["todowrite", "youtube"])
def test_the_blocks_of_tools_an_older_gptme_ran_are_calls(
    tmp_path: Path, lang: str
) -> None:
    # gptme 0.20 to 0.31 ran ```youtube and 0.30-0.31 ```todoread/```todowrite blocks
    home = tmp_path / "home"
    conversation(
        home,
        "older",
        [
            {
                "role": "assistant",
                "content": f"```{lang}\nadd 'write tests'\n```",
                "timestamp": "2026-01-01T10:00:00",
            },
            {"role": "system", "content": "done", "timestamp": "2026-01-01T10:00:01"},
        ],
    )
    got = events(sessions(Home.at(home))["older"])
    assert [(e.kind, e.tool) for e in got if e.kind.startswith("tool")] == [
        ("tool_call", lang),
        ("tool_result", lang),
    ]


def test_a_native_call_cut_short_or_never_run_is_answered_as_failed(
    tmp_path: Path,
) -> None:
    # gptme answers the interrupted native call and the ones after it (`execute_msg`)
    home = tmp_path / "home"
    conversation(
        home,
        "cut",
        [
            {
                "role": "assistant",
                "content": '@shell(c1): {"command": "sleep 100"}\n'
                '@shell(c2): {"command": "ls"}',
                "timestamp": "2026-12-01T10:00:00",
            },
            {
                "role": "system",
                "content": "Interrupted by user",
                "call_id": "c1",
                "timestamp": "2026-12-01T10:00:09",
            },
            {
                "role": "system",
                "content": "Tool 'shell' was not executed (interrupted).",
                "call_id": "c2",
                "timestamp": "2026-12-01T10:00:09",
            },
        ],
    )
    got = events(sessions(Home.at(home))["cut"])
    results = [(e.call_id, e.is_error) for e in got if e.kind == "tool_result"]
    assert results == [("c1", True), ("c2", True)]
    assert any(e.kind == "turn_end" and e.extra.get("interrupted") for e in got)


def test_a_forks_copied_responses_are_billed_to_its_source_only(
    tmp_path: Path,
) -> None:
    # `/fork <name>` copies the folder (its own message last) and goes on in the copy;
    # `gptme-util chats fork` writes `<source>-fork-<UTC time>`: every copied message
    # keeps its usage, which is the source's
    home = tmp_path / "home"

    def answer(when: str, tokens: int) -> dict[str, object]:
        return {
            "role": "assistant",
            "content": "ok",
            "timestamp": when,
            "metadata": {"model": "m", "usage": {"input_tokens": tokens}},
        }

    asked = {"role": "user", "content": "go", "timestamp": "2026-12-01T10:00:00"}
    fork = {
        "role": "user",
        "content": "/fork try-2",
        "timestamp": "2026-12-01T10:01:00",
    }
    source = [asked, answer("2026-12-01T10:00:05", 100), fork]
    conversation(home, "try-1", source)
    conversation(home, "try-2", [*source, answer("2026-12-01T10:02:00", 7)])
    conversation(
        home,
        "try-1-fork-20261201-100200",
        [asked, answer("2026-12-01T10:00:05", 100), answer("2099-01-01T00:00:00", 3)],
    )
    # a conversation that says /fork with its own name but whose source is gone
    conversation(
        home,
        "lone",
        [fork | {"content": "/fork lone"}, answer("2026-12-01T10:01:30", 5)],
    )
    found = sessions(Home.at(home))

    def billed(name: str) -> list[int]:
        return [
            e.usage.input_tokens
            for e in events(found[name])
            if e.kind == "usage" and e.usage is not None
        ]

    assert billed("try-1") == [100]
    assert billed("try-2") == [7]
    assert billed("try-1-fork-20261201-100200") == [3]
    assert billed("lone") == [5]
    note = events(found["try-2"])[0]
    assert note.kind == "meta" and note.extra["forked_from"] == "try-1"
    # shown whole all the same
    assert [e.text for e in events(found["try-2"]) if e.kind == "user"] == [
        "go",
        "/fork try-2",
    ]


@pytest.mark.parametrize(
    "target",
    [
        "Library/Application Support/gptme/config.toml",  # macOS: settings with keys
        "AppData/Local/gptme/gptme/config.toml",  # Windows
        ".local/share/gptme/history",  # the prompt history beside the logs
    ],
)
def test_no_export_goes_into_gptmes_settings_or_data(
    tmp_path: Path, target: str
) -> None:
    from sessdex.errors import SessdexError
    from sessdex.exports import refuse_agent_folder

    home = tmp_path / "home"
    (home / target).parent.mkdir(parents=True)
    with pytest.raises(SessdexError):
        refuse_agent_folder(Home.at(home), str(home / target))


def test_a_sub_agent_whose_entry_names_another_lead_is_not_this_ones(
    tmp_path: Path,
) -> None:
    # two leads start a sub-agent of the same id at once: each child's
    # subagent-meta.json (gptme 0.35) says whose it is, whatever their start times
    home = tmp_path / "home"
    logs = home / LOGS
    for lead, child, start in (
        ("lead-a", "subagent-fix-aaaa", "2026-12-01T10:00:05"),
        ("lead-b", "subagent-fix-bbbb", "2026-12-01T10:00:03"),
    ):
        conversation(
            home,
            lead,
            [
                {
                    "role": "assistant",
                    "content": '@ipython(c1): {"code": "subagent(\\"fix\\", \\"Fix it\\")"}',
                    "timestamp": "2026-12-01T10:00:01",
                },
                {
                    "role": "system",
                    "content": "Executed code block.",
                    "call_id": "c1",
                    "timestamp": "2026-12-01T10:00:02",
                },
            ],
        )
        conversation(
            home, child, [{"role": "user", "content": "Fix it", "timestamp": start}]
        )
        (logs / child / "subagent-meta.json").write_text(
            json.dumps(
                {
                    "agent_id": "fix",
                    "parent_logdir": f"/home/alex/{LOGS}/{lead}",
                    "workdir": "/home/alex/code/app",
                }
            )
        )
    found = sessions(Home.at(home))
    assert found["subagent-fix-aaaa"].parent_id == "lead-a"
    assert found["subagent-fix-bbbb"].parent_id == "lead-b"
    assert found["subagent-fix-aaaa"].cwd == "/home/alex/code/app"
    for lead, child in (
        ("lead-a", "subagent-fix-aaaa"),
        ("lead-b", "subagent-fix-bbbb"),
    ):
        got = events(found[lead])
        spawn = next(e for e in got if e.kind == "subagent")
        assert (spawn.extra["child_id"], spawn.text) == (child, "Fix it")
        assert {e.agent_id for e in got} == {None, child}
        # read in once, after the message that started it
        assert [e.kind for e in got if e.agent_id == child] == ["user"]


def test_a_sub_agent_registered_before_its_conversation_began_is_not_read_in(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    conversation(
        home,
        "lead",
        [
            {
                "role": "assistant",
                "content": '@ipython(c1): {"code": "subagent(\\"fix\\", \\"Fix it\\")"}',
                "timestamp": "2026-12-01T10:00:01",
            }
        ],
    )
    folder = home / LOGS / "subagent-fix-aaaa"
    folder.mkdir(parents=True)
    (folder / "subagent-meta.json").write_text(
        json.dumps({"parent_logdir": f"/x/{LOGS}/lead"})
    )
    diagnostics = Diagnostics()
    got = list(gptme.read(sessions(Home.at(home))["lead"], diagnostics))
    assert {e.agent_id for e in got} == {None}
    assert not diagnostics.problems


def test_show_hides_the_system_prompt_unless_the_detail_is_full(tmp_path: Path) -> None:
    """`show` opened a gptme conversation with its system prompt (several lines of it
    in a terminal), where every other app's transcript starts with the user's prompt;
    `--detail full` still shows it, as it shows everything the model read."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    prompt = "You are gptme v0.35.1, a general-purpose AI assistant. " + "Tools: " * 80
    conversation(
        home,
        "2026-12-03-long-prompt",
        [
            {"role": "system", "content": prompt, "timestamp": "2026-12-03T09:00:00"},
            {"role": "user", "content": "Hi there", "timestamp": "2026-12-03T09:00:01"},
            {
                "role": "assistant",
                "content": "Hello!",
                "timestamp": "2026-12-03T09:00:02",
            },
        ],
    )
    where = ["--home", str(home)]
    normal = CliRunner().invoke(main, ["show", "gptme:2026-12-03-long", *where])
    assert normal.exit_code == 0, normal.output
    assert "You are gptme" not in normal.output and "context gptme" not in normal.output
    body = normal.output.split("\n\n", 1)[1]
    assert body.startswith("> Hi there"), body
    whole = CliRunner().invoke(
        main, ["show", "gptme:2026-12-03-long", "--detail", "full", *where]
    )
    assert "You are gptme v0.35.1" in whole.output
