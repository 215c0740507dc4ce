"""Time zones as sessdex's options name them (`--tz`; `today` and `yesterday`): light to
import, so that a listing that needs this machine's zone does not load the usage report."""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo


def parse_tz(name: str | None) -> tzinfo:
    """`--tz`: an IANA name (in any case, as `--app` takes an app's), "UTC" (the
    default) or "local"."""
    if not name or name.upper() == "UTC":
        return UTC
    if name.lower() == "local":
        return local_zone()
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        found: tzinfo | None = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        found = None
    if found is not None and _spelled_on_disk(
        name
    ):  # the listing (~100 ms) says no more
        return found
    known = _zone_names()
    # europe/paris; macOS (and Windows, with tzdata) find it as typed, keyed so: the
    # key as the database spells it, which a report names
    if (key := known.get(name.strip().lower())) is not None:
        return ZoneInfo(key)
    if found is not None:  # a file no listing names (posixrules): as it was found
        return found
    from .errors import BadValue

    meant = _zone_meant(name, known)
    raise BadValue(
        f"unknown time zone {name!r}{f' (did you mean {meant!r}?)' if meant else ''}: "
        "use an IANA name such as Europe/Paris, UTC or local."
    )


def _spelled_on_disk(name: str) -> bool:
    """Whether `name` is a file of a zone database on TZPATH, each of its parts an entry
    of its folder, as typed: no link (`europe` to `Europe`) and no disk that ignores case
    (macOS finds `europe/paris`, whose folder lists `Europe`) gave it another spelling."""
    from zoneinfo import TZPATH

    for root in TZPATH:
        folder = root
        for part in name.split("/"):
            try:
                entries = {entry.name: entry for entry in os.scandir(folder)}
            except OSError:
                break
            entry = entries.get(part)
            if entry is None or entry.is_symlink():
                break
            folder = entry.path
        else:
            return os.path.isfile(folder)
    return False


def _zone_names() -> dict[str, str]:
    """The IANA names this machine knows, by their lower case (some 30 ms warm, 100
    cold: only for a --tz that names a zone)."""
    from zoneinfo import available_timezones

    return {key.lower(): key for key in available_timezones()}


def _zone_meant(name: str, known: dict[str, str]) -> str | None:
    """The zone a name not found was likely meant for: the one whose city it names
    (`paris`, `new york`), else the one a typo away (`Europe/Pari`); None for none."""
    typed = "_".join(name.strip().lower().split())
    cities = sorted(
        key for lowered, key in known.items() if lowered.rsplit("/", 1)[-1] == typed
    )
    # a city kept under a region and under an old alias (Asia/Calcutta): the region's
    regional = [key for key in cities if "/" in key and not key.startswith("Etc/")]
    if cities:
        return (regional or cities)[0]
    import difflib

    close = difflib.get_close_matches(typed, list(known), n=1, cutoff=0.85)
    return known[close[0]] if close else None


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
