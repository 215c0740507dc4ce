"""Where an export may be written: never inside an agent app's folders, over a session's
own file, or over a file an app keeps in a project (sessdex is read-only towards them).

Only the check; the CLI writes the file. Nothing here names an app: each source says
what folders and files are its app's, or the index what its last noted scan said, or the
facts written from the sources (`sources._facts.FOLDERS`) where no variable moves them.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from . import sources
from .errors import SessdexError
from .index import Index
from .indexdb import index_file
from .indexfile import rehomed
from .model import Session
from .sources import Home, Location


def refuse_agent_folder(
    home: Home, output: str, session: Session | None = None
) -> None:
    """Exports never land inside an agent's folders (sessdex writes only where it is
    asked): neither in the folder an app keeps its sessions in nor in any other it
    writes to, reached by its name or through a link, nor over `session`'s own file
    (an app that keeps it in the project: an export named after it would replace it).
    The user's own home is checked too when `home` is another (a copy read with
    --home): its apps' folders are no less theirs."""
    given = Path(output).expanduser().absolute()
    if ".." in given.parts and given.name != "..":
        # `~/.claude/../notes.md` is in the home: its `..` is taken as the OS takes it
        # (after any link before it), not its folders read as names on the way
        given = Path(os.path.realpath(given.parent)) / given.name
    targets = (given, Path(os.path.realpath(given)))
    # the folders the export would land in, as the disk knows them: a name no link
    # explains (an agent's folder named in another case on a case-insensitive disk, a
    # bind mount) is one of them too
    above = _identities((given, *given.parents))
    own = Home.current()
    homes = [home] if home == own else [home, own]
    for title, location in _located(homes):
        owned = location.owned
        mine = (location.root, *location.also) if owned is None else owned
        for folder in (*mine, *location.keeps):
            for root in (folder.absolute(), Path(os.path.realpath(folder))):
                if any(t == root or root in t.parents for t in targets) or (
                    not above.isdisjoint(_identities((root,)))
                ):
                    if folder in location.keeps and not os.path.isdir(root):
                        said = f"write over {title}'s file"
                    else:
                        said = f"write into {title}'s folder"
                    raise SessdexError(
                        f"refusing to {said} {root}; choose another path."
                    )
    if session is not None and session.path:
        with contextlib.suppress(OSError):  # no file there yet: nothing to replace
            if os.path.samefile(given, session.path):
                raise SessdexError(
                    f"refusing to write over the session's own file {session.path}; "
                    "choose another path."
                )
    if os.path.isfile(given):  # another session's file an app keeps in a project
        index = Index(home)
        try:
            held = index.in_file(dict.fromkeys((str(given), *map(str, targets[1:]))))
        finally:
            index.close()
        if held:
            app, held_id = held[0]
            raise SessdexError(
                f"refusing to write over {given}, which holds {app} session "
                f"{held_id!r}; choose another path."
            )
    # a file an app writes into a project (named so, or reached through a link so named;
    # in any case, as a disk that ignores case takes it)
    names = {target.name.casefold() for target in targets}
    for app, kept in sources.IN_PROJECTS.items():
        if names & {name.casefold() for name in kept}:
            raise SessdexError(
                f"refusing to write {given}: {sources.TITLES[app]} writes and reads "
                "back files of that name in a project; choose another path."
            )


def _located(homes: Iterable[Home]) -> Iterator[tuple[str, Location]]:
    """(title, where it keeps its files) of every app, in each of `homes`: as the last
    noted scan of it said, where the home's index holds one that still holds (the
    variables and files a noted `locate` read are as they were; it reads nothing else),
    else as its source says (loaded)."""
    for home in homes:
        kept: dict[str, Location] = {}
        if index_file(home).exists():  # none is made here: sessdex's own, but not asked
            # an index that cannot be read (busy, damaged) only leaves the sources to say
            with contextlib.suppress(sqlite3.Error, OSError, SessdexError):
                kept = _kept(home)
        for app in sources.BUILTIN:
            location = kept.get(app) or declared_location(home, app)
            if location is None:
                location = sources.get(app).locate(home)
            yield sources.TITLES[app], location


def declared_location(home: Home, app: str) -> Location | None:
    """Where `app` is in `home` as the facts written from its source say, without loading
    it (some 40 modules for all the apps: seconds without bytecode); None where one of
    the variables its `locate` may read is set (then its source says)."""
    from .sources import _facts

    for name in (*_facts.ENV_VARS[app], *_MOVERS):
        value = home.environ.get(name)
        if value and not (name == "HOME" and Path(value).expanduser() == home.path):
            return None
    root, also, keeps, owned = _facts.FOLDERS[app]
    at = home.path.joinpath
    return Location(
        at(root),
        also=tuple(map(at, also)),
        keeps=tuple(map(at, keeps)),
        owned=None if owned is None else tuple(map(at, owned)),
    )


# variables that move an app's folders whether or not its ENV_VARS name them: the base
# folders every app on that system shares (tests/test_export_refusal_facts.py checks it)
_MOVERS = (
    "HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "FLATPAK_XDG_DATA_HOME",
    "VSCODE_APPDATA",
    "VSCODE_PORTABLE",
)


def _kept(home: Home) -> dict[str, Location]:
    """`Index.kept_locations` of every app, under the home as given."""
    index = Index(home, stand_in=False)
    try:
        kept = index.kept_locations(sources.BUILTIN)
        recorded, given = str(index.home.path), str(home.path)
    finally:
        index.close()
    return {app: _rehomed(found, recorded, given) for app, found in kept.items()}


def _rehomed(location: Location, recorded: str, given: str) -> Location:
    """`location`, noted by an index that reads the home by `recorded`, under the home
    as `given` (`indexfile.rehomed`): as its source would locate it there."""
    if recorded == given:
        return location

    def moved(path: Path) -> Path:
        return Path(rehomed(str(path), recorded, given))

    return replace(
        location,
        root=moved(location.root),
        also=tuple(map(moved, location.also)),
        keeps=tuple(map(moved, location.keeps)),
        owned=None if location.owned is None else tuple(map(moved, location.owned)),
    )


def _identities(paths: Iterable[Path]) -> set[tuple[int, int]]:
    """(device, inode) of each of `paths` that exists."""
    found = set()
    for path in paths:
        try:
            stat = os.stat(path)
        except (OSError, ValueError):
            continue
        found.add((stat.st_dev, stat.st_ino))
    return found
