"""An app goes by the names it is sold and installed as: `openai-codex`, npm's
`@openai/codex`, `@anthropic-ai/claude-code`, `@google/gemini-cli`. `find
app:openai-codex` suggested OpenCode, the name closest in spelling."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import canonical

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize(
    ("name", "app"),
    [
        ("openai-codex", "codex"),
        ("@openai/codex", "codex"),
        ("@anthropic-ai/claude-code", "claude"),
        ("@google/gemini-cli", "gemini"),
        ("@github/copilot", "copilot"),
        ("@qwen-code/qwen-code", "qwen"),
        ("amazon-q", "kiro"),
    ],
)
def test_an_apps_package_name_is_the_app(name: str, app: str) -> None:
    assert canonical(name) == app


def test_find_app_openai_codex_finds_codex_sessions() -> None:
    result = CliRunner().invoke(
        main, ["find", "app:openai-codex", "--json", "--home", DEMO]
    )
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and {row["app"] for row in rows} == {"codex"}, result.stderr
