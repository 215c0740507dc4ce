"""`sources/_facts.py`, what `doctor` says of each app without loading its source, is
what the sources say: a source whose CHECKED_WITH, NEWEST_CHECKED, ENV_VARS or doctor
hooks changed without `scripts/make-source-facts.py` run again fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessdex import exports, sources
from sessdex.sources import Home, Location, _facts

HOOKS = ("found", "doctor_notes", "looked_in")


def test_the_facts_doctor_reads_are_those_each_source_says() -> None:
    loaded = [sources.get(name) for name in sources.BUILTIN]
    said = {
        s.NAME: (
            s.CHECKED_WITH,
            getattr(s, "NEWEST_CHECKED", None),
            tuple(s.ENV_VARS),
            tuple(h for h in HOOKS if callable(getattr(s, h, None))),
        )
        for s in loaded
    }
    kept = {
        name: (
            _facts.CHECKED_WITH[name],
            _facts.NEWEST_CHECKED[name],
            _facts.ENV_VARS[name],
            _facts.HOOKS[name],
        )
        for name in sources.BUILTIN
    }
    assert kept == said, "run scripts/make-source-facts.py"
    tables = (_facts.CHECKED_WITH, _facts.NEWEST_CHECKED, _facts.ENV_VARS, _facts.HOOKS, _facts.FOLDERS)  # fmt: skip
    assert all(list(table) == list(sources.BUILTIN) for table in tables)


def _folders(location: Location) -> tuple[object, ...]:
    return (location.root, location.also, location.keeps, location.owned)


@pytest.mark.parametrize("name", sources.BUILTIN)
def test_the_folders_export_keeps_out_of_are_where_each_source_locates_its_app(
    tmp_path: Path, name: str
) -> None:
    # what `export -o` checks without loading the source: the same folders, in any home
    source = sources.get(name)
    bare = Home(tmp_path / "someone", {})
    declared = exports.declared_location(bare, name)
    assert declared is not None
    assert _folders(declared) == _folders(source.locate(bare)), (
        "run scripts/make-source-facts.py"
    )
    # a variable neither its ENV_VARS nor the shared movers name leaves it where it is;
    # one they name is left to the source
    for variable in sorted(sources.OVERRIDES):
        moved = Home(bare.path, {variable: str(tmp_path / "elsewhere")})
        if exports.declared_location(moved, name) is not None:
            assert _folders(source.locate(moved)) == _folders(declared), variable
