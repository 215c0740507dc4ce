"""Shell completion: session ids (newest first, each with its app and title) and app names.

Click answers the shell's completion requests (`_SESSDEX_COMPLETE=bash_complete …`); these
callbacks give it the values. Ids and titles come from transcripts: an id that could not be
typed back as one shell word is never offered, and a title is shown cleaned, on one line.
"""

from __future__ import annotations

import logging
import os
import sqlite3

import click
from click.shell_completion import CompletionItem

from ..indexfile import SCHEMA_VERSION

MAX_OFFERED = 200  # the newest matches: a shell shows no more than a screenful anyway


def session_ids(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """The sessions whose id (or `app:id`) starts with what was typed, newest first."""
    try:
        return _session_ids(ctx, incomplete)
    except Exception:  # no traceback into the shell's line: no completion instead
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        logging.getLogger(__name__).debug("no session ids to complete", exc_info=True)
        return []


def _session_ids(ctx: click.Context, incomplete: str) -> list[CompletionItem]:
    """From the home's index as it stands, refreshing nothing: a tab press must answer at
    once, and a refresh stats every file (a build reads them all). Sessions the index
    does not hold yet (no `sessdex` command has run since they began) are not offered."""
    import orjson

    from ..views.text import title_line

    path = _index_path(ctx.params.get("home_dir"))
    if path is None or not os.path.isfile(path):
        return []  # never indexed: building it could take minutes, not a tab press
    typed = incomplete.lower()
    with_app = ":" in typed
    db = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return []
        db.execute("BEGIN")  # one snapshot for the ids and their records
        chosen: list[tuple[int, str, str]] = []
        for rowid, app, session_id in db.execute(
            "SELECT rowid, app, id FROM sessions WHERE parent_id IS NULL"
            " ORDER BY updated DESC, app, id"
        ):
            value = f"{app}:{session_id}" if with_app else session_id
            if value.lower().startswith(typed) and _one_word(value):
                chosen.append((rowid, app, value))
                if len(chosen) >= MAX_OFFERED:
                    break
        offered: list[CompletionItem] = []
        for rowid, app, value in chosen:
            found = db.execute(
                "SELECT record FROM sessions WHERE rowid = ?", (rowid,)
            ).fetchone()
            title = orjson.loads(found[0]).get("title") if found else None
            label = title_line(title if isinstance(title, str) else None, 60)
            offered.append(CompletionItem(value, help=f"{app} · {label}"))
        db.execute("COMMIT")
        return offered
    finally:
        db.close()


def _index_path(home_dir: object) -> str | None:
    """The file the full command would keep this home's index in (`index.index_file`)."""
    from ..indexfile import cache_folder, index_name
    from ._common import resolve_home

    home = resolve_home(home_dir if isinstance(home_dir, str) else None)
    return os.path.join(cache_folder(), index_name(str(home.path), home.environ))


def app_names(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    from ..sources import get, names

    return [
        CompletionItem(name, help=get(name).TITLE)
        for name in names()
        if name.startswith(incomplete.lower())
    ]


def _one_word(value: str) -> bool:
    """Typed back unquoted, the shell reads it as this one word and nothing else, and
    sessdex as a session id, not an option (`-rf`, `--help`)."""
    return (
        value.isprintable()
        and not value.startswith("-")
        and not any(c.isspace() or c in "\"'\\$`;&|<>()*?[]{}!#~" for c in value)
    )
