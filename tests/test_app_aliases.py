"""An app is taken by the name `doctor` shows for it ("Claude Code"), and by its command's
or package's name (`claude-code`, `gemini-cli`), in any case, wherever --app is taken;
JSON still says the app's own id, and a real typo still gets its did-you-mean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("typed", "app"),
    [
        ("claude-code", "claude"),
        ("Claude Code", "claude"),
        ("CLAUDE", "claude"),
        ("gemini-cli", "gemini"),
        ("Gemini CLI", "gemini"),
        ("OpenAI Codex CLI", "codex"),
        ("codex-cli", "codex"),
        ("qwen-code", "qwen"),
        ("mistral-vibe", "vibe"),
        ("opencode-ai", "opencode"),  # the packages resume's install hint names
        ("forgecode", "forge"),
    ],
)
def test_list_takes_an_apps_display_and_package_names(typed: str, app: str) -> None:
    home = str(DATA / app / "home")
    code, said = _run("list", "--all", "--json", "--app", typed, "--home", home)
    assert code == 0, said
    rows = json.loads(said)
    assert rows and {row["app"] for row in rows} == {app}


def test_usage_and_doctor_take_them_too() -> None:
    home = str(DATA / "claude" / "home")
    code, said = _run("usage", "app", "--json", "--app", "Claude Code", "--home", home)
    assert code == 0, said
    assert "claude" in said
    code, said = _run("doctor", "--app", "claude-code", "--home", home)
    assert code == 0, said
    assert "Claude Code (claude)" in said


def test_a_real_typo_still_gets_its_did_you_mean() -> None:
    code, said = _run(
        "list", "--app", "cladue", "--home", str(DATA / "claude" / "home")
    )
    assert code == 2
    assert "did you mean 'claude'?" in said


def test_each_alias_names_an_app_and_no_alias_is_another_apps_name() -> None:
    from sessdex import sources

    aliases = sources._aliases()
    assert set(aliases.values()) <= set(sources.BUILTIN)
    assert all(aliases[name] == name for name in sources.BUILTIN if name in aliases)


@pytest.mark.parametrize("word", ["app:claude-code", "app:Claude_Code", "app:CLAUDE"])
def test_find_takes_them_in_an_app_word(word: str) -> None:
    home = str(DATA / "claude" / "home")
    code, said = _run("find", word, "--all", "--json", "--home", home)
    assert code == 0, said
    rows = json.loads(said)
    assert rows and {row["app"] for row in rows} == {"claude"}


def test_an_apps_id_in_front_is_still_an_id_and_a_typo_still_unknown() -> None:
    home = str(DATA / "claude" / "home")
    code, said = _run("find", "claude:c0afe25d", "--json", "--home", home)
    assert code == 0, said
    assert [row["id"][:8] for row in json.loads(said)] == ["c0afe25d"]
    code, said = _run("find", "app:cladue", "--home", home)
    assert code != 0 and "cladue" in said


@pytest.mark.parametrize("app", ["claude-code", "Claude_Code", "CLAUDE"])
def test_an_id_takes_the_app_in_front_by_any_name_app_takes(app: str) -> None:
    # `--app claude-code` and `find app:claude-code` took it, `show claude-code:c0afe25d`
    # said no session id starts with 'claude-code:c0afe25d'
    home = str(DATA / "claude" / "home")
    code, said = _run("tree", f"{app}:c0afe25d", "--json", "--home", home)
    assert code == 0, said
    assert json.loads(said)["id"].startswith("c0afe25d")
    code, said = _run("find", f"{app}:c0afe25d", "--json", "--home", home)
    assert code == 0, said
    assert [row["id"][:8] for row in json.loads(said)] == ["c0afe25d"]
