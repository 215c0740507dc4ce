"""The folder a project folder named by the sha256 of its path stands for.

Gemini CLI (before 0.29) and Qwen Code name a project's folder under `tmp/` by the sha256
of its absolute path, which cannot be undone. A path counts only when the app wrote it down
somewhere (a trusted folder, a path a tool took, a chat's `cwd`) and its hash, computed as
the app computes it, is that name: a folder is never guessed. Not a reader of any one app's
files beyond the two they share, `trustedFolders.json` and a chat's tool calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import islice
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TypeGuard

from .. import files, freshness
from ._values import dicts, obj

HASH_NAME = re.compile(r"^[0-9a-f]{64}$")
WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")
PATHS_TRIED = 64  # recorded paths tried against a hashed folder name, per source
LIST_CAP = 4 * 1024 * 1024  # bytes read of a list of folders an app keeps

# (path, mtime_ns, size) -> what the file says, as pairs of strings
Reader = Callable[[str, int, int], tuple[tuple[str, str], ...]]


def hashed_folder(
    hashes: set[str],
    paths: Iterable[str],
    *,
    ancestors: bool = False,
    fold_case: bool = False,
    tried: int = PATHS_TRIED,
) -> str | None:
    """The first of `paths` (or of their folders) whose sha256 is in `hashes`, as written.

    `fold_case`: a Windows path is also hashed lower-cased (Qwen Code lower-cases the
    project's path before hashing it on Windows, where paths ignore case)."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    for raw in islice(paths, tried):
        windows = WINDOWS_PATH.match(raw) is not None
        pure = PureWindowsPath(raw) if windows else PurePosixPath(raw)
        for folder in (pure, *pure.parents) if ancestors else (pure,):
            name = str(folder)
            forms = {name, name.lower()} if fold_case and windows else {name}
            if any(hashlib.sha256(f.encode()).hexdigest() in hashes for f in forms):
                return name
    return None


def is_absolute(value: object) -> TypeGuard[str]:
    """Whether a value is an absolute POSIX or Windows (drive letter) path."""
    return isinstance(value, str) and (
        value.startswith("/") or WINDOWS_PATH.match(value) is not None
    )


def tool_paths(messages: Iterable[dict[str, object]]) -> Iterator[str]:
    """The absolute paths in the arguments of a chat's tool calls (`toolCalls` on its
    model messages; file tools take absolute paths inside the project)."""
    for message in messages:
        for call in dicts(message, "toolCalls"):
            for value in obj(call, "args").values():
                if is_absolute(value):
                    yield value


def cached_pairs(path: Path, reader: Reader) -> tuple[tuple[str, str], ...]:
    """What `reader` makes of a file, read again only once its size or mtime changed.
    A read of the cache is a read of the file, there or not, for the parse it serves
    (`freshness.depending`): only the first would note it otherwise."""
    freshness.note_depended(path)
    try:
        st = path.stat()
    except OSError:
        return ()
    return reader(str(path), st.st_mtime_ns, st.st_size)


def trusted_folders(path: Path) -> tuple[str, ...]:
    """The folders a `trustedFolders.json` names (each a folder the app was started in)."""
    return tuple(folder for folder, _ in cached_pairs(path, _trust_rules))


@lru_cache(maxsize=8)
def _trust_rules(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    """`trustedFolders.json`: folder -> TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST (JSON
    with comments)."""
    rules = files.read_json_file(path, limit=LIST_CAP, comments=True)
    if not isinstance(rules, dict):
        return ()
    return tuple((str(k), v) for k, v in rules.items() if isinstance(v, str))
