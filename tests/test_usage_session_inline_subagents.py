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


def _line(uuid: str, parent: str | None, n: int, **more: object) -> bytes:
    line = {
        "parentUuid": parent,
        "isSidechain": True,
        "cwd": "/tmp/p",
        "sessionId": "lead",
        "type": "user",
        "uuid": uuid,
        "timestamp": f"2025-09-03T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        **more,
    }
    return json.dumps(line, separators=(",", ":")).encode() + b"\n"


def _answer(uuid: str, parent: str, n: int) -> bytes:
    message = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "usage": {"input_tokens": 1, "output_tokens": 7},
    }
    return _line(uuid, parent, n, type="assistant", message=message)


def test_a_side_chain_long_interrupted_counts_warm_as_cold(tmp_path: Path) -> None:
    """Another chain's lines past what a read keeps of the chains (and the state keeps)
    between two of a side chain's responses: a warm read from the offset on and a cold
    read of the whole file count the later response in the same agent, and neither
    keeps an entry per side-chain line of a huge transcript."""
    from sessdex.sources._claude_usage import CHAINS_KEPT

    folder = tmp_path / "cold" / ".claude" / "projects" / "-tmp-p"
    folder.mkdir(parents=True)
    path = folder / "lead.jsonl"
    head = [_line("a0", None, 0), _answer("a1", "a0", 1), _line("b0", None, 2)]
    others = [_line(f"b{n}", f"b{n - 1}", n) for n in range(1, CHAINS_KEPT + 100)]
    path.write_bytes(b"".join(head + others))
    warm_home = tmp_path / "warm"
    shutil.copytree(tmp_path / "cold", warm_home)
    usage_rows(warm_home)  # the sums kept up to here
    more = _answer("a2", "a1", 5000)
    with open(warm_home / ".claude/projects/-tmp-p/lead.jsonl", "ab") as grown:
        grown.write(more)
    with open(path, "ab") as grown:
        grown.write(more)
    assert split(usage_rows(warm_home)["lead"]) == split(
        usage_rows(tmp_path / "cold")["lead"]
    )


def test_side_chain_ids_of_no_bound_are_not_kept_in_the_index(tmp_path: Path) -> None:
    """A hostile transcript's side-chain lines with uuids of kilobytes: what the index
    keeps of the file to read it on from its end stays small, not a copy of 1,024 ids."""
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources._claude_usage import usage_records

    folder = tmp_path / ".claude" / "projects" / "-tmp-p"
    folder.mkdir(parents=True)
    path = folder / "lead.jsonl"
    big = [_line(f"{n:04d}" + "u" * 4000, None, n) for n in range(1100)]
    path.write_bytes(b"".join([*big, _answer("a1", "0001" + "u" * 4000, 1)]))
    scan = usage_records(path, Diagnostics())
    assert len(scan.records) == 1
    assert len(json.dumps(scan.state)) < 64 * 1024
