"""`sources/_facts.py`, what `doctor` says of each app without loading its source, is
what the sources say: a source whose CHECKED_WITH, NEWEST_CHECKED, ENV_VARS or doctor
hooks changed without `scripts/make-source-facts.py` run again fails here."""

from __future__ import annotations

from sessdex import sources
from sessdex.sources import _facts

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
    tables = (_facts.CHECKED_WITH, _facts.NEWEST_CHECKED, _facts.ENV_VARS, _facts.HOOKS)
    assert all(list(table) == list(sources.BUILTIN) for table in tables)
