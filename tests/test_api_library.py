"""The library as a developer embedding it meets it: the values the CLI's options refuse
are refused as BadValue here too, rather than quietly read as something else."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sessdex import api
from sessdex.errors import BadValue
from sessdex.sources import Home


@pytest.mark.parametrize(
    "call",
    [
        lambda home: api.list_sessions(home, limit=-1),  # every session, unlimited
        lambda home: api.find_sessions(home, "", limit=-1),
        lambda home: api.list_sessions(home, limit=float("nan")),  # sqlite3 error
        lambda home: api.watch_sessions(home, limit=-1, duration=0),
        lambda home: api.usage_report(
            home, "session", explain="019a", explain_limit=-1
        ),  # read as 0: nothing listed
    ],
    ids=["list", "find", "list-nan", "watch", "usage-explain"],
)
def test_a_limit_the_command_line_refuses_is_a_bad_value(
    call: Callable[[Home], object],
) -> None:
    """`--limit -1` is a usage error; `limit=-1` listed every session (SQLite's LIMIT
    -1 is no limit), and a nan limit raised sqlite3's "datatype mismatch"."""
    with pytest.raises(BadValue, match="limit must be a number at least 0"):
        call(api.demo_home())


def test_a_limit_of_zero_or_more_still_lists() -> None:
    home = api.demo_home()
    assert api.list_sessions(home, limit=0).rows == []
    assert len(api.list_sessions(home, limit=1).rows) == 1
    assert len(api.find_sessions(home, "", limit=2).rows) == 2
