"""A refresh's scan: each source located and its files listed and stat-ed, the new or
changed ones given as parse jobs, and what each scan looked at noted (`freshness`) for
the quick path. Not the parsing (`indexparse`) nor the writing (`indexrows`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from . import freshness
from .diagnostics import NOT_LINES, Diagnostics, why
from .sources import Home, Location, Source
from .sources.base import hidden_beside, not_text, reads_as_session

log = logging.getLogger(__name__)

# A file the scan found new or changed, to parse: (app, its location, path, signature).
Job = tuple[str, Location, str, tuple[int, int, int, str]]
# An app's noted scan: the environment its `locate` read, the paths its scan looked at,
# and what it said (`said`): where it looked and what its listings passed over.
Notes = tuple[bytes, dict[str, freshness.Noted], bytes]


@dataclass(slots=True)
class RefreshReport:
    scanned: int = 0
    parsed: int = 0
    vanished: int = 0
    seconds: float = 0.0
    locations: dict[str, Location] = field(default_factory=dict)
    diagnostics: dict[str, Diagnostics] = field(
        default_factory=dict
    )  # app -> this run's news
    failures: dict[str, str] = field(
        default_factory=dict
    )  # app -> why its listing failed
    # app -> what its scan's own listings passed over, by what it is: a parse's are in
    # `diagnostics` too, and in the index with the file parsed
    passed_over: dict[str, Counter[str]] = field(default_factory=dict)
    # the files parsed (their news in `diagnostics`): what the index noted of the others
    # was news when they were parsed (`Index.noted_diagnostics`)
    parsed_paths: set[str] = field(default_factory=set)
    # apps left as the index held them, their files and folders as it last read them
    # (`Index.refresh_changed`): their sources not loaded, nor in `locations`
    kept: list[str] = field(default_factory=list)
    # app -> where each of `kept` looked, as its last noted scan said (its `locate`,
    # which reads only the variables and files noted, would say it again)
    kept_locations: dict[str, Location] = field(default_factory=dict)
    # app -> what doctor asks of a source that its noted scan answered (`answers`):
    # whether the app is there (`found`), where a missing one looked (`looked_in`)
    kept_found: dict[str, bool] = field(default_factory=dict)
    kept_looked: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # app -> what its scan's own listings passed over, (path, why) as listed: kept
    # with the noted scan, so that a run that need not scan says it all the same
    passed_names: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # app -> the broken links in its store's or its files' place, where its scan listed
    # nothing else: they hide its sessions (`folders.broken_link_words` of each)
    hiding_links: dict[str, list[str]] = field(default_factory=dict)
    # each of those, the apps it hides in the order their scans met it: one said under
    # the first of them (`hiding_problem`), worded for them all (a shared ~/.config)
    link_apps: dict[str, list[str]] = field(default_factory=dict)
    # those said beside files the scan listed (`HIDDEN_BESIDE`): they hide only the
    # sessions kept there alone, as `hiding_problem` says
    beside: set[str] = field(default_factory=set)


def _until(
    names: Iterable[os.PathLike[str] | str], deadline: float | None, late: list[bool]
) -> Iterator[os.PathLike[str] | str]:
    """`names`, cut short once the clock (`time.monotonic`) passes `deadline`, which
    `late` then says: a tab press lists an app again only while that is cheap."""
    for count, name in enumerate(names):
        if deadline is not None and count % 64 == 0 and time.monotonic() >= deadline:
            late.append(True)
            return
        yield name


def scan_all(
    home: Home,
    sources: Sequence[Source],
    known: dict[str, tuple[int, int, int, str]],
    seen: set[str],
    notes: dict[str, Notes | None],
    report: RefreshReport,
    until: tuple[float | None, list[bool]] = (None, []),
    digests: dict[str, bytes] | None = None,
    depends: Mapping[str, list[tuple[str, str]]] | None = None,
) -> Generator[Job, None, None]:
    """Every changed file of every source, as a parse job, noting each scan; with a
    deadline in `until`, stopped there, its list then told so. `digests`: the context
    files' stored digests, those of the context files that changed put in their place.
    `depends`: the other files each file's parse read, and how they looked
    (`freshness.depending`): a file one of whose changed, came or went is read again."""
    looks: dict[str, str] = {}  # each of those stat'ed once a scan

    def read_again(name: str) -> bool:
        held = depends.get(name) if depends else None
        return held is not None and freshness.read_again(held, looks)

    for source in sources:
        environ = freshness.RecordingEnviron(home.environ)
        with freshness.recording() as paths:
            location = locate_source(home, source, report, environ)
            complete = location is not None and (
                yield from _scan(
                    source, location, known, seen, report, until, digests, read_again
                )
            )
            noted = complete and getattr(source, "SCAN_NOTED", False)
            # asked here, its probes noted with the scan's: kept while they hold
            told = answers(source, location) if noted and location is not None else {}
        if noted and location is not None:
            passed = report.passed_names.get(source.NAME, [])
            key = freshness.environ_key(environ.read)
            notes[source.NAME] = (key, paths, said(location, passed, told))
        else:
            notes[source.NAME] = None


def answers(source: Source, location: Location) -> dict[str, object]:
    """What doctor would ask `source` of `location` that holds while its noted scan
    does, so that a warm doctor or an empty list need not load it to ask: whether the
    app is there (`found`, which only probes folders), and where one whose folder is
    not there looked (`looked_in`, which then says the location alone). A hook that
    fails answers nothing here: doctor asks it again, and says why. `asked` marks a
    scan that asked them (`answered`), the source's hooks or none."""
    told: dict[str, object] = {"asked": True}
    found = getattr(source, "found", None)
    looked = getattr(source, "looked_in", None)
    try:
        if callable(found) and location.exists:
            told["found"] = bool(found(location))
        if callable(looked) and not location.exists:
            told["looked"] = [str(place) for place in looked(location)]
    except Exception as error:
        log.debug("%s: %s", source.NAME, error, exc_info=True)
    return told


def said(
    location: Location,
    passed: list[tuple[str, str]],
    told: Mapping[str, object] | None = None,
) -> bytes:
    """What a scan said, as the index keeps it with the noted scan: where it looked
    (every field of `location`), what its listings passed over and what it told of
    doctor's questions (`answers`)."""
    value = {
        **(told or {}),
        "root": os.fspath(location.root),
        "override": location.override,
        "also": [os.fspath(p) for p in location.also],
        "keeps": [os.fspath(p) for p in location.keeps],
        "owned": None
        if location.owned is None
        else [os.fspath(p) for p in location.owned],
        "notes": list(location.notes),
        "settings": list(location.settings),
        "marks": [os.fspath(p) for p in location.marks],
        "passed": [list(item) for item in passed],
    }
    # ASCII: a name that is no UTF-8 (surrogates) is kept as it is
    return json.dumps(value, sort_keys=True).encode("ascii")


# a noted scan as `said` kept it: where it looked, what it passed over, its `answers`
Said = tuple[Location, list[tuple[str, str]], dict[str, object]]


def unsaid(blob: bytes) -> Said:
    """`said`'s location, passed-over names and answers, back from the index."""
    from pathlib import Path

    value = json.loads(blob)
    owned = value["owned"]
    location = Location(
        Path(value["root"]),
        value["override"],
        also=tuple(map(Path, value["also"])),
        keeps=tuple(map(Path, value["keeps"])),
        owned=None if owned is None else tuple(map(Path, owned)),
        notes=tuple(value["notes"]),
        settings=tuple(value["settings"]),
        marks=tuple(map(Path, value.get("marks", ()))),  # kept since 2026-12
    )
    told = {key: value[key] for key in ("found", "looked", "asked") if key in value}
    return location, [(path, why) for path, why in value["passed"]], told


def answered(noted: Said) -> bool:
    """Whether `noted` (an app's noted scan) asked its source `answers`: not where an
    index written before they were kept noted it, which doctor and an empty list would
    load the source to ask at every run until the app's folders changed."""
    return noted[2].get("asked") is True


def _scan(
    source: Source,
    location: Location,
    known: dict[str, tuple[int, int, int, str]],
    seen: set[str],
    report: RefreshReport,
    until: tuple[float | None, list[bool]] = (None, []),
    digests: dict[str, bytes] | None = None,
    read_again: Callable[[str], bool] = lambda name: False,
) -> Generator[Job, None, bool]:
    """Stat what the source lists, yielding the changed files; False when its
    listing failed part way, or passed over names that hide sessions (not UTF-8, a
    folder it may not open): such a scan is not noted, so that a warm list, which
    would not scan, never answers without the warning this one gives."""
    from . import folders  # here: `sessdex find` never scans, and starts faster

    folders.take_passed_over()  # what probes before it noted is not this scan's
    if not location.exists:
        # a folder above the app's that may not be entered (noted by the probe) hides
        # it as if it were not there: said, as a listing refused is
        passed = folders.take_passed_over()
        return _passed_over(source, report, passed) and _folder_links_hide(
            source, location, report
        )
    owner_of: Callable[[str], str | None] | None = getattr(source, "companion_of", None)
    context_of = _context_hook(source, location)
    looks: Callable[[str], bool] | None = getattr(source, "looks_for_others", None)
    kin_of: Callable[[str], str | None] | None = getattr(source, "kin_of", None)
    tracked = any(hook is not None for hook in (owner_of, context_of, looks, kin_of))
    listed_any = False  # a broken link beside files listed hides nothing: not said
    came = False  # with `looks_for_others`: a file of this scan is new
    listed: set[str] = set()  # with companions or context files: what this scan listed
    given: set[str] = set()  # ... and yielded
    owners: dict[str, None] = {}  # ... and the owners of those that changed
    contexts: dict[str, None] = {}  # ... and the folders of context files that changed
    try:
        for candidate in _until(source.scan(location), *until):
            name = os.fspath(candidate)
            signature = freshness.file_signature(name)
            if signature is None:
                continue
            seen.add(name)
            report.scanned += 1
            # a context file (Kimi's kimi.json, always there) names folders, no session
            if not listed_any and (context_of is None or context_of(name) is None):
                listed_any = True
            if not tracked:
                if known.get(name) != signature or read_again(name):
                    yield source.NAME, location, name, signature
                continue
            listed.add(name)
            came = came or name not in known
            if known.get(name) != signature or name in owners or read_again(name):
                given.add(name)
                if owner_of is not None and (owner := owner_of(name)) is not None:
                    owners[owner] = None
                if (
                    context_of is not None
                    and (folder := context_of(name)) is not None
                    and not same_meaning(source, name, name in known, digests)
                ):
                    contexts[folder] = None
                yield source.NAME, location, name, signature
        if context_of is not None:  # a context file changed, came or went
            yield from _context_changed(
                source, location, context_of, known, seen, listed, given, contexts
            )
        if looks is not None:  # a file came or went: the files that look for others
            yield from _others_changed(
                source, location, looks, known, seen, listed, given, came
            )
        if kin_of is not None:  # one of files read together changed, came or went
            yield from _kin_changed(
                source, location, kin_of, known, seen, listed, given
            )
        if owner_of is not None:  # a companion gone changes its owner too
            owners.update(
                dict.fromkeys(
                    owner
                    for name in known
                    if name not in seen and (owner := owner_of(name)) is not None
                )
            )
            for owner in owners:
                if owner in listed and owner not in given:
                    signature = freshness.file_signature(owner)
                    if signature is not None:
                        yield source.NAME, location, owner, signature

        passed = folders.take_passed_over()
        if not _passed_over(source, report, passed):
            return False
        if not listed_any and not _links_hide(
            source, report, passed, reads_as_session(source, location)
        ):
            return False
        beside = hidden_beside(source, location)
        if (
            listed_any
            and beside is not None
            and not _links_hide(source, report, passed, beside, listed_any=True)
        ):
            return False
    except Exception as error:  # one app's broken store never hides the others
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        report.failures[source.NAME] = (
            f"could not list {location.root}: {why(error, location.root)}"
        )
        log.debug("%s: %s", source.NAME, report.failures[source.NAME], exc_info=True)
        # keep what the index knew of this app rather than dropping it as vanished
        seen.update(p for p in known if p.startswith(str(location.root)))
        return False
    return True


def _passed_over(
    source: Source, report: RefreshReport, passed_over: list[tuple[str, str]]
) -> bool:
    """Put what a scan passed over in `report`; False where it hides sessions (a name
    not UTF-8, a folder that may not be entered)."""
    if passed_over:
        report.passed_names.setdefault(source.NAME, []).extend(passed_over)
        report.diagnostics.setdefault(source.NAME, Diagnostics()).names_passed_over(
            source.NAME, passed_over
        )
        report.passed_over.setdefault(source.NAME, Counter()).update(
            why for _, why in passed_over if why not in NOT_LINES
        )
    return not any(why in NOT_LINES for _, why in passed_over)


def _links_hide(
    source: Source,
    report: RefreshReport,
    passed_over: list[tuple[str, str]],
    reads: Callable[[str], bool] = lambda path: True,
    *,
    listed_any: bool = False,
) -> bool:
    """Say the broken links (and folders in a file's place) a scan that listed nothing
    passed over where the app would read a session (`reads`): they stand where the
    app's store or files would, so hide all its sessions (`listed_any`: those kept
    there alone, the scan having listed others). False where there are any: such a
    scan is not noted, so that a warm list says them too."""
    from . import folders

    said = folders.hiding_links(passed_over, reads)
    if not said:
        return True
    report.hiding_links[source.NAME] = said
    diagnostics = report.diagnostics.setdefault(source.NAME, Diagnostics())
    for words in said:
        report.link_apps[words] = [source.NAME]
        if listed_any:
            report.beside.add(words)
        diagnostics.problem(hiding_problem([source.NAME], words, beside=listed_any))
    return False


def hiding_problem(
    apps: Sequence[str], words: str, counted: bool = False, beside: bool = False
) -> str:
    """The problem a broken link that hides `apps`' sessions (`words`, see
    `folders.broken_link_words`) is said as: under its one app's name, or, a folder of
    several apps', its own words first and theirs after. `counted`: as `usage` says it,
    which lists nothing; `beside`: a folder beside the app's files that were listed
    (Hermes' `sessions/` beside its `state.db`), which hides only what it alone holds."""
    if len(apps) == 1 and beside:
        hidden = (
            "the usage of the sessions kept only there is not counted (the others' is)"
            if counted
            else "the sessions kept only there are not listed (the others, in its"
            " other files, are)"
        )
        return f"{apps[0]}: {words}: {hidden}"
    if len(apps) == 1:
        hidden = (
            "its usage is not counted" if counted else "its sessions are not listed"
        )
        return f"{apps[0]}: {words}: {hidden}"
    names = f"{', '.join(apps[:-1])} and {apps[-1]}"
    if counted:
        return f"{words}: the usage of {names} is not counted"
    return f"{words}: the sessions of {names} are not listed"


def as_counted(report: RefreshReport) -> None:
    """Each broken link's problem in `report` said as `usage` says it."""
    for words, apps in report.link_apps.items():
        beside = words in report.beside
        new = hiding_problem(apps, words, counted=True, beside=beside)
        _reword(report, words, apps, new)


def _reword(report: RefreshReport, words: str, apps: list[str], new: str) -> None:
    """The problem said of the link `words` (under the first of `apps`, which it hides)
    put as `new`, in its place."""
    problems = report.diagnostics.setdefault(apps[0], Diagnostics()).problems
    said = hiding_problem(apps, words, beside=words in report.beside)
    if said in problems:
        problems[problems.index(said)] = new


def _folder_links_hide(
    source: Source, location: Location, report: RefreshReport
) -> bool:
    """Say a broken link that stands where the app's folder would (`~/.codex ->
    /mnt/gone`, or a folder above it), as `_links_hide` says one in its store's place.
    False where there is one: such a scan is not noted, so a warm list says it too."""
    from .folders import BROKEN_LINK, broken_link_above_any, broken_link_words

    link = broken_link_above_any((location.root, *location.also))
    if link is None:
        return True
    said = broken_link_words(link)
    if (apps := report.link_apps.get(said)) is not None:
        # a folder of many apps' (~/.config): said once, for all of them
        report.hiding_links[source.NAME] = [said]
        _reword(report, said, apps, hiding_problem([*apps, source.NAME], said))
        apps.append(source.NAME)
        return False
    return _links_hide(source, report, [(link, BROKEN_LINK)])


def _context_hook(
    source: Source, location: Location
) -> Callable[[str], str | None] | None:
    """The source's `context_of` (see base.py) for files of `location`, or None."""
    hook: Callable[[str, Location], str | None] | None = getattr(
        source, "context_of", None
    )
    if hook is None:
        return None
    return lambda name: hook(name, location)


def same_meaning(
    source: Source, name: str, held: bool, digests: dict[str, bytes] | None
) -> bool:
    """Whether the context file `name`, changed, means to its files what it meant when
    they were read (`context_digest`, see base.py; `held`: the index holds it); its new
    digest put in `digests`. A file an app rewrites for a field its sessions never read
    (at each session's start) reads none of them again."""
    hook: Callable[[str], bytes | None] | None = getattr(source, "context_digest", None)
    if hook is None or digests is None:
        return False
    before = digests.pop(name, None)
    with freshness.paused():  # the file's signature is held already: not a note too
        digest = hook(name)
    if digest is None:
        return False
    digests[name] = digest
    return held and digest == before


def _context_changed(
    source: Source,
    location: Location,
    context_of: Callable[[str], str | None],
    known: dict[str, tuple[int, int, int, str]],
    seen: set[str],
    listed: set[str],
    given: set[str],
    contexts: dict[str, None],
) -> Iterator[Job]:
    """The listed files under the folders of the context files that changed (see
    base.py), not yet yielded: read again, as what they list came from those too. Costs
    nothing on a refresh where no context file changed."""
    contexts.update(
        dict.fromkeys(
            folder
            for name in known
            if name not in seen and (folder := context_of(name)) is not None
        )
    )
    if not contexts:
        return
    under = tuple(folder.rstrip(os.sep) + os.sep for folder in contexts)
    yield from _again(
        source,
        location,
        lambda name: name.startswith(under) and context_of(name) is None,
        listed,
        given,
    )


def _others_changed(
    source: Source,
    location: Location,
    looks: Callable[[str], bool],
    known: dict[str, tuple[int, int, int, str]],
    seen: set[str],
    listed: set[str],
    given: set[str],
    came: bool,
) -> Iterator[Job]:
    """The listed files that look for the source's others (see base.py), not yet
    yielded, where a file of the source came or went: read again, as what they list
    depends on which files are there. Costs a pass over the known files otherwise."""
    if not came:
        roots = tuple(
            str(root).rstrip(os.sep) + os.sep
            for root in (location.root, *location.also)
        )
        if not any(name not in seen and name.startswith(roots) for name in known):
            return
    yield from _again(source, location, looks, listed, given)


def _kin_changed(
    source: Source,
    location: Location,
    kin_of: Callable[[str], str | None],
    known: dict[str, tuple[int, int, int, str]],
    seen: set[str],
    listed: set[str],
    given: set[str],
) -> Iterator[Job]:
    """The listed files read together with one that changed, came or went (`kin_of`, see
    base.py), not yet yielded."""
    # a source whose kin matter only when one goes: a change or a new file reads none of
    # the others (see base.py)
    gone_only = getattr(source, "KIN_GONE", False)
    kins = (
        set() if gone_only else {k for name in given if (k := kin_of(name)) is not None}
    )
    kins.update(
        kin for name in known if name not in seen and (kin := kin_of(name)) is not None
    )
    if not kins:
        return
    yield from _again(
        source, location, lambda name: kin_of(name) in kins, listed, given
    )


def _again(
    source: Source,
    location: Location,
    wanted: Callable[[str], bool],
    listed: set[str],
    given: set[str],
) -> Iterator[Job]:
    """The listed files `wanted` says to read again, not yet yielded (each once), as
    they are now; one gone since is left to the scan."""
    for name in sorted(listed - given):
        if wanted(name):
            signature = freshness.file_signature(name)
            if signature is not None:
                given.add(name)
                yield source.NAME, location, name, signature


def locate_source(
    home: Home,
    source: Source,
    report: RefreshReport,
    environ: Mapping[str, str] | None = None,
) -> Location | None:
    """Where `source` keeps its files in `home`, put in `report` (`locations`), or None
    with why in its `failures`."""
    home = home if environ is None else replace(home, environ=environ)
    try:
        location = source.locate(home)
    except Exception as error:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        report.failures[source.NAME] = f"could not locate its folder: {error}"
        log.debug("%s: %s", source.NAME, report.failures[source.NAME], exc_info=True)
        return None
    unusable = not_text(location)
    if unusable is not None:
        report.failures[source.NAME] = unusable
        return None
    report.locations[source.NAME] = location
    return location
