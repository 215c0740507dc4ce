"""A response whose cached count is negative (a broken file) in an app whose input count
holds the cached tokens: the input, that count less the cached one, grew by as much as
the cached count was below 0 (5,000,000 input tokens billed more); an OpenCode reasoning
count below 0, added to the output, took as much off it. A count below 0 is 0, as every
sum takes it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
# (app, its fixture home, a file in it, the cached count's key, set below 0 throughout)
CASES = [
    (
        "copilot",
        "copilot/forks/home",
        ".copilot/session-state/73e1708c-4b03-42d3-8fab-cf6207709959/events.jsonl",
        "cacheReadTokens",
    ),
    (
        "qwen",
        "qwen/home",
        ".qwen/projects/-home-alex-code-shop-api/chats/"
        "5d1e0c2a-7b3f-4e8a-9c1d-2f6a8b4e0c11.jsonl",
        "cachedContentTokenCount",
    ),
    (
        "cline",
        "cline/real/home",
        ".cline/data/sessions/1796199537105_fpxn5/1796199537105_fpxn5.messages.json",
        "cacheReadTokens",
    ),
]


def _input(home: Path, app: str, state: Path) -> int:
    argv = ["usage", "session", "--json", "--app", app, "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    return sum(row["input_tokens"] for row in json.loads(result.stdout))


@pytest.mark.parametrize(("app", "fixture", "name", "key"), CASES)
def test_a_negative_cached_count_adds_no_input(
    tmp_path: Path, app: str, fixture: str, name: str, key: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / fixture, home, symlinks=True)
    before = _input(home, app, tmp_path / "whole")
    path = home / name
    data = path.read_text()
    count = re.compile(rf'("{key}":\s*)(\d+)')
    held = sum(int(found.group(2)) for found in count.finditer(data))
    path.write_text(count.sub(r"\g<1>-5000000", data))
    after = _input(home, app, tmp_path / "broken")
    # the cached tokens they held are billed as input, no more (5,000,000 more each)
    assert before <= after <= before + held


OPENCODE_MESSAGE = (
    ".local/share/opencode/project/global/storage/session/message/"
    "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n/msg_75d0e3f6a002Tn4Wp9LsXcJd3e.json"
)


def test_opencode_a_negative_reasoning_count_takes_no_output(tmp_path: Path) -> None:
    # its reasoning is added to its output: a negative one took as much off it
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home, symlinks=True)
    argv = ["usage", "session", "--json", "--app", "opencode", "--home", str(home)]

    def output(state: Path) -> int:
        result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
        assert result.exit_code == 0, result.output
        return sum(row["output_tokens"] for row in json.loads(result.stdout))

    before = output(tmp_path / "whole")
    path = home / OPENCODE_MESSAGE
    document = json.loads(path.read_text())
    document["tokens"]["reasoning"] = -50  # of output 80
    path.write_text(json.dumps(document))
    assert output(tmp_path / "broken") == before  # 30 less
