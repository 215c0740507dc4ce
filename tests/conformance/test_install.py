"""install.py's pip overrides, on this checkout's own venv (sessdex is installed in it)."""

from __future__ import annotations

import sys
from pathlib import Path

from . import install


def test_an_override_replaces_the_package_pin_by_name_and_extras_stay_out() -> None:
    venv = Path(sys.executable).parent.parent
    wanted = install._overridden(venv, "sessdex", ["Rich==13.0.0.post1"])
    assert "Rich==13.0.0.post1" in wanted
    assert not any(
        r.startswith("rich>=") for r in wanted
    )  # the package's own pin is gone
    assert "orjson>=3.9" in wanted  # the rest as the package asks
    assert not any(
        "extra" in r for r in wanted
    )  # `pytest; extra == 'dev'` is not installed
