"""`export -f` takes a format in any case and by each name an `-o` file's extension
gives it (`JSON`, `markdown`, `htm`); `-f JSON` and `-f markdown` were refused ("'JSON'
is not one of 'md', 'html', 'json'") where `-o x.markdown` wrote Markdown."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

HOME = str(app_home("claude"))
ID = "c0afe25d"


def _export(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["export", ID, *args, "--home", HOME], prog_name="sessdex"
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", ["JSON", "Json", " json"])
def test_json_in_any_case(name: str) -> None:
    code, out, _ = _export("-f", name)
    assert code == 0 and json.loads(out)[0]["session_id"].startswith(ID)


def test_each_name_of_a_format() -> None:
    code, out, _ = _export("-f", "markdown")
    assert code == 0 and out.startswith("# ")
    code, out, _ = _export("--format", "HTM")
    assert code == 0 and out.startswith("<!DOCTYPE html>")


def test_a_format_sessdex_does_not_write_is_still_refused() -> None:
    code, out, err = _export("-f", "pdf")
    assert code == 2 and out == ""
    assert "'pdf' is not one of 'md', 'html', 'json'" in err
