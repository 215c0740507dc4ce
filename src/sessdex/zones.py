"""Time zones as sessdex's options name them (`--tz`; `today` and `yesterday`): light to
import, so that a listing that needs this machine's zone does not load the usage report."""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo


def parse_tz(name: str | None) -> tzinfo:
    """`--tz`: an IANA name, "UTC" (the default) or "local"."""
    if not name or name.upper() == "UTC":
        return UTC
    if name == "local":
        return local_zone()
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        from .errors import BadValue

        raise BadValue(
            f"unknown time zone {name!r}: use an IANA name such as Europe/Paris, UTC or local."
        ) from None


def local_zone() -> tzinfo:
    """This machine's zone with its rules ($TZ, else /etc/localtime), so that a summer day
    is cut at its own midnight, not at today's offset; today's offset only where neither
    names a zone that can be read."""
    from zoneinfo import ZoneInfo

    name = os.environ.get("TZ")
    if name is not None:  # an empty TZ is UTC, as for the C library
        name = name.removeprefix(":") or "UTC"
    try:
        if name and not name.startswith("/"):
            return ZoneInfo(name)
        with open(name or "/etc/localtime", "rb") as stream:
            return ZoneInfo.from_file(stream, key="local")
    except (OSError, ValueError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return datetime.now().astimezone().tzinfo or UTC


def zone_name(zone: tzinfo) -> str:
    """How a report names `zone`: its IANA key (`Europe/Paris`, `UTC`), `local time` for
    this machine's read from /etc/localtime (which names no key), else its offset."""
    from .views.text import one_line  # the key may come from $TZ: one clean line

    name = one_line(str(zone), 60)
    return "local time" if name == "local" else name
