"""Folder names as the apps recorded them, on whichever system wrote them.

A Windows app writes `C:\\Users\\me\\code\\shop`, an editor extension `c:\\Users\\…`, a
tool run from Git Bash `C:/Users/…`, and a network share `\\\\server\\share\\…`: one
folder, since Windows' file systems ignore case and take either separator. `--here`,
`dir:`, the folder column and `usage project` compare such names in one form; any other
path stays exactly as written (case matters on Linux, and `\\` is a plain character).
Standard library only: the quick listing path imports it.
"""

from __future__ import annotations

import os

# SQLite's lower() folds ASCII letters alone; so does `comparable`, so that the index's
# SQL and the Python checks agree on every name
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def is_windows(path: str) -> bool:
    """Whether `path` is an absolute Windows path: a drive (`C:\\`, `c:/`) or UNC."""
    if path.startswith("\\\\"):
        return True
    return (
        len(path) >= 3
        and path[0].isascii()
        and path[0].isalpha()
        and path[1] == ":"
        and path[2] in "\\/"
    )


def comparable(path: str) -> str:
    """A Windows path with `/` for `\\`, its ASCII letters in lower case and no trailing
    separator (`c:` for a drive's root); any other path as it is."""
    if not is_windows(path):
        return path
    return path.replace("\\", "/").translate(_ASCII_LOWER).rstrip("/")


def comparable_sql(column: str) -> str:
    """`comparable` of a Windows path held in `column`, as an SQLite expression."""
    return f"rtrim(lower(replace({column}, '\\', '/')), '/')"


def shown(path: str) -> str:
    """A Windows path the way Windows shows it: `C:\\Users\\me\\code`, the drive letter
    in upper case, no trailing separator; any other path as it is."""
    if not is_windows(path):
        return path
    path = path.replace("/", "\\")
    if path[1] == ":":
        path = path[0].upper() + path[1:]
    trimmed = path.rstrip("\\")
    return trimmed + "\\" if trimmed.endswith(":") else trimmed


def under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it, each compared as its system would."""
    if is_windows(folder):
        path, folder = comparable(path), comparable(folder)
    base = folder.rstrip("/") or "/"
    return path == base or path.startswith(base if base.endswith("/") else base + "/")


def below_home(path: str, home: str) -> str | None:
    """What follows `home` (or its real path, `home_names`) in `path` (`\\code\\shop`,
    `/code/shop`, or "" for the home itself), None where `path` is not under it."""
    for name in home_names(home):
        if under(path, name):
            if is_windows(name):
                return path[len(name.rstrip("\\/")) :]
            return path[len(name.rstrip("/")) :]
    return None


_NAMES: dict[str, tuple[str, ...]] = {}


def home_names(home: str) -> tuple[str, ...]:
    """The names of the home folder `home`: as given, then its real path where links lead
    elsewhere (`/home/alex` -> `/data/alex`, macOS's `/var` -> `/private/var`). An app
    records its folder with links resolved (`getcwd`), the user types it from `~`."""
    names = _NAMES.get(home)
    if names is None:
        names = (home,)
        if os.path.isabs(home) and not is_windows(home):
            real = os.path.realpath(home)
            if real.rstrip("/") not in ("", home.rstrip("/")):  # "/": every folder
                names = (home, real)
        _NAMES[home] = names
    return names
