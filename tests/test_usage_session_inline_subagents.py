"""Claude Code 1.0 wrote its sub-agents inline, in the lead's own file (`isSidechain`
lines): `usage session` splits that session's row into the lead and each side chain, as
`tree` does, where it counted them all as the lead's; a file that grows keeps the split."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "claude" / "home"
LEAD = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
FILE = f".claude/projects/-path-to-Demo/{LEAD}.jsonl"
COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def usage_rows(home: Path) -> dict[str, dict[str, object]]:
    result = CliRunner().invoke(
        main, ["usage", "session", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    return {row["key"]: row for row in json.loads(result.stdout)}


def split(row: dict[str, object]) -> dict[str, tuple[object, ...]]:
    agents = row.get("agents") or []
    assert isinstance(agents, list)
    return {a["id"]: tuple(a[n] for n in COUNTS) for a in agents}


def test_an_inline_side_chain_is_its_own_agent_as_tree_shows_it() -> None:
    tree = CliRunner().invoke(main, ["tree", LEAD, "--json", "--home", str(HOME)])
    node = json.loads(tree.stdout)
    spent = [node, *node["children"]]
    expected = {
        n["id"]: tuple(n["usage"][name] for name in COUNTS)
        for n in spent
        if any(n["usage"][name] for name in COUNTS)
    }
    assert len(expected) == 2  # the lead and the side chain that spent tokens
    row = usage_rows(HOME)[LEAD]
    assert split(row) == expected
    for n, name in enumerate(COUNTS):
        assert row[name] == sum(counts[n] for counts in expected.values())


def test_a_grown_file_read_from_where_it_was_keeps_the_split(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    path = home / FILE
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:20]))  # cut inside the side chain
    usage_rows(home)
    path.write_bytes(b"".join(lines))  # the rest appended: read from the offset on
    warm = usage_rows(home)[LEAD]
    assert split(warm) == split(usage_rows(HOME)[LEAD])


def test_a_2_0_agent_file_whose_lines_name_no_agent_counts_as_the_agent_of_its_name() -> (
    None
):
    row = usage_rows(HOME)["5c0375b4-57a5-4f26-b12d-d022ee4e51b7"]
    assert split(row) == {
        "test-hash-123": (100, 10, 0, 0),
        "test-hash-456": (100, 10, 0, 0),
    }


def test_sums_an_earlier_release_kept_in_the_index_are_counted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1.0 transcript never changes: the sums the release before kept of it (no split)
    would stand for ever in a warm `usage` unless the index knows they are stale."""
    from sessdex import usage
    from sessdex.sources import _claude_usage

    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    with monkeypatch.context() as earlier:  # that release: no split, its cache's tag
        earlier.setattr(_claude_usage, "is_lead_file", lambda path: False)
        earlier.setattr(
            usage,
            "_version",
            lambda catalogue: f"{catalogue.version}+own+provider+factor+fee+credits",
        )
        assert split(usage_rows(home)[LEAD]) == {}
    assert len(split(usage_rows(home)[LEAD])) == 2
