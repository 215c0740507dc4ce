"""Shell completion: session ids (newest first, each with its app and title) and app names.

Click answers the shell's completion requests (`_SESSDEX_COMPLETE=bash_complete …`); these
callbacks give it the values (`quicktab` answers the common requests first, without click,
exactly as these would). Ids and titles come from transcripts: an id that could not be typed
back as one shell word is never offered, and a title is shown cleaned, on one line.
"""

from __future__ import annotations

import logging
import os

import click
from click.shell_completion import CompletionItem


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
    """From the home's index, brought up to date first where that is cheap (`quick.
    freshen`: the few files changed or new since the last look re-read, as a warm `list`
    re-reads them), else as it stands: a tab press must answer at once, never build the
    index (a never-indexed home offers nothing) nor refresh it whole."""
    from .. import quick
    from ..quicktab import MAX_OFFERED, TITLE_COLUMNS, one_word
    from ..views.text import title_line
    from ._common import resolve_home

    home_dir = ctx.params.get("home_dir")
    if not isinstance(home_dir, str):
        home_dir = _home_after_cursor()
    given = resolve_home(home_dir)
    home = (str(given.path), given.environ)
    try:
        quick.freshen(home)
    except Exception:  # busy, a full disk: what the index holds is offered still
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        logging.getLogger(__name__).debug("index not brought up to date", exc_info=True)
    return [
        CompletionItem(value, help=f"{app} · {title_line(title, TITLE_COLUMNS)}")
        for app, value, title in quick.session_ids(
            home, incomplete, MAX_OFFERED, one_word
        )
    ]


def _home_after_cursor() -> str | None:
    """The `--home` typed after the word being completed, where the shell sent the whole
    line (bash, zsh): click parses only the words before the cursor."""
    from click.shell_completion import split_arg_string

    from ..quicktab import home_after

    line, cursor = os.environ.get("COMP_WORDS"), os.environ.get("COMP_CWORD", "")
    if (
        line is None
        or not cursor.isdigit()
        or "fish" in os.environ.get("_SESSDEX_COMPLETE", "")
    ):
        return None  # fish sends the line up to the cursor, its word in COMP_CWORD
    return home_after(split_arg_string(line), int(cursor))


def app_names(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    from ..sources import TITLES, names

    return [
        CompletionItem(name, help=TITLES[name])
        for name in names()
        if name.startswith(incomplete.lower())
    ]
