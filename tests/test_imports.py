"""`sessdex list` starts fast: the heavy libraries load only in the commands that need them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import sources
from tests.conftest import app_home

HEAVY = ("rich", "starlette", "mcp", "uvicorn", "zstandard", "watchfiles")


def test_cli_import_does_not_load_heavy_libraries() -> None:
    code = "import sys, sessdex.cli, sessdex.api, sessdex.index; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert not [name for name in HEAVY if name in loaded]


def test_public_names_are_pinned() -> None:
    import sessdex

    assert sessdex.__all__ == ["__version__"]


def test_the_package_says_it_is_typed(tmp_path: Path) -> None:
    """A script using the library type-checks against sessdex's own hints (PEP 561)."""
    pytest.importorskip("mypy")
    script = tmp_path / "script.py"
    script.write_text(
        "from sessdex import api\n"
        "from sessdex.model import Session\n"
        "from sessdex.sources import Home\n"
        "sessions: list[Session] = api.list_sessions(Home.current()).sessions()\n"
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout


def test_a_misspelt_library_name_is_a_type_error(tmp_path: Path) -> None:
    """The names loaded on first use come through a module `__getattr__`, which mypy
    took as every name there may be: a misspelt one passed the check, to fail when run."""
    pytest.importorskip("mypy")
    script = tmp_path / "script.py"
    script.write_text(
        "from sessdex import api\n"
        "from sessdex.api import chek_resume\n"
        "found = api.transcrpit\n"
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert "chek_resume" in checked.stdout, checked.stdout
    assert "transcrpit" in checked.stdout, checked.stdout


def test_the_library_surface_is_pinned() -> None:
    """`sessdex.api.__all__` is what a script may rely on; a change here is a change to it."""
    from sessdex import api

    assert sorted(api.__all__) == sorted(
        [
            "SUBAGENT_MODES",
            "AppReport",
            "Home",
            "Listing",
            "OwnFiles",
            "ResumeCheck",
            "Transcript",
            "agent_tree",
            "check_resume",
            "demo_home",
            "doctor",
            "find_sessions",
            "follow_session",
            "list_sessions",
            "own_files",
            "parse_since",
            "replay_session",
            "resolve",
            "session_ids",
            "transcript",
            "usage_report",
            "watch_sessions",
        ]
    )
    assert all(hasattr(api, name) for name in api.__all__)


def test_dir_of_the_library_names_each_public_name_before_its_first_use() -> None:
    """A REPL's completion and `inspect.getmembers` read `dir(api)`: the names loaded
    on first use (doctor, check_resume, ...) were missing from it until then."""
    code = (
        "from sessdex import api; import inspect; "
        "print(sorted(set(api.__all__) - set(dir(api)))); "
        "print(sorted(set(api.__all__) - dict(inspect.getmembers(api)).keys()))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert shown[:2] == ["[]", "[]"]


# What Windows lacks of the POSIX modules and functions: a module that imports one at its
# top, or a command that calls one unguarded, fails there for every user.
WITHOUT_POSIX = """
import importlib, os, pkgutil, signal, sys
for name in ("fcntl", "resource", "pwd", "grp", "termios", "tty"):
    sys.modules[name] = None
for name in ("getuid", "geteuid", "getgid", "getpgrp", "setsid", "killpg", "fork",
             "sched_getaffinity", "sysconf", "O_NOFOLLOW", "O_NONBLOCK", "O_NOCTTY"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("SIGPIPE", "SIGHUP", "SIGKILL", "SIGTSTP", "SIGCHLD", "SIGALRM"):
    if hasattr(signal, name):
        delattr(signal, name)
import sessdex
for module in pkgutil.walk_packages(sessdex.__path__, "sessdex."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)
from click.testing import CliRunner
from sessdex import api
from sessdex.cli import main
home = str(api.demo_home().path)
for args in (["list"], ["doctor"], ["watch", "--once"], ["usage", "project"],
             ["show", "019a7e21", "--no-pager"], ["resume", "019a7e21", "--print"]):
    result = CliRunner().invoke(main, [*args, "--home", home], catch_exceptions=False)
    # the demo's folders are not on this machine: resume prints its line with 1
    assert result.exit_code == (args[0] == "resume"), (args, result.output)
"""


def test_every_module_and_the_commands_work_without_posix_only_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_POSIX], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


LOADED = """
import sys
from click.testing import CliRunner
from sessdex.cli import main
result = CliRunner().invoke(main, ["usage", "--json", "--home", sys.argv[1]])
assert result.exit_code == 0, result.output
print(" ".join(sorted(sys.modules)))
"""


def test_a_warm_usage_loads_no_source_of_an_app_with_nothing_there(
    tmp_path: Path,
) -> None:
    home = shutil.copytree(app_home("gemini"), tmp_path / "home")
    loaded = []
    for _ in range(2):  # cold, then warm
        done = subprocess.run(
            [sys.executable, "-c", LOADED, str(home)],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ,
        )
        loaded.append(set(done.stdout.split()))
    cold, warm = loaded
    assert "sessdex.sources.aider" in cold
    assert "sessdex.sources.gemini" in warm
    # nor those that count their own files, whose kept listing holds (no folder)
    assert "sessdex.sources.claude" in cold
    assert "sessdex.sources.claude" not in warm
    assert "sessdex.sources.codex" not in warm
    assert "sessdex.sources.aider" not in warm
    assert "sessdex.sources.opencode" not in warm
    # Rich's console and tables load only where a table is drawn, not for --json
    assert "rich.console" not in warm


def test_the_library_and_a_warm_usage_load_no_database_code(tmp_path: Path) -> None:
    """The code that reads apps' SQLite databases loads where one is read: not with
    `sessdex.api` or the command line, nor for a warm `usage` of an app that keeps
    its sessions in plain files."""
    code = "import sys, sessdex.api, sessdex.cli; print(' '.join(sorted(sys.modules)))"
    imported = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "sessdex.databases" not in imported
    home = shutil.copytree(app_home("claude"), tmp_path / "home")
    for folder, _, names in os.walk(
        home
    ):  # no folder just written: the listing is kept
        for name in [*names, "."]:
            os.utime(os.path.join(folder, name), (1_700_000_000, 1_700_000_000))
    loaded = [
        subprocess.run(
            [sys.executable, "-c", LOADED, str(home)],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ,
        ).stdout.split()
        for _ in range(2)  # cold, then warm
    ]
    assert "sessdex.databases" in loaded[0]  # the other apps' listings read some
    assert "sessdex.databases" not in loaded[1]


FULL_LIST = """
import sys
from click.testing import CliRunner
from sessdex.cli import main
result = CliRunner().invoke(main, [*sys.argv[2:], "--home", sys.argv[1]])
assert result.exit_code == 0, result.output
print(" ".join(sorted(sys.modules)))
"""


# FULL_LIST, with every app's scan run again (none left as the index read it)
EVERY_SCAN = FULL_LIST.replace(
    "from sessdex.cli import main",
    "from sessdex.cli import main\n"
    "from sessdex.index import Index\n"
    "Index.unchanged = lambda self, apps: set()",
)


def _full_list_loads(home: Path, own: Path, *args: str) -> list[str]:
    """The modules a full `list --json` (the quick path refused) of `home` loads, or
    the full command `args` give."""
    env = dict(os.environ, SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(own))
    return subprocess.run(
        [sys.executable, "-c", FULL_LIST, str(home), *(args or ("list", "--json"))],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()


def _backdated(home: Path) -> Path:
    """`home`, every file and folder dated in 2023: no folder just written, whose
    listing the index would not trust (it might change again within the same tick)."""
    for folder, _, names in os.walk(home):
        for name in [*names, "."]:
            os.utime(os.path.join(folder, name), (1_700_000_000, 1_700_000_000))
    return home


def _sources(loaded: list[str]) -> list[str]:
    """The apps whose sources `loaded` holds."""
    prefix = "sessdex.sources."
    return [
        name.removeprefix(prefix)
        for name in loaded
        if name.startswith(prefix) and not name.startswith(f"{prefix}_")
        if name != f"{prefix}base"
    ]


def test_a_warm_full_list_loads_the_sources_of_the_apps_that_changed_alone(
    tmp_path: Path,
) -> None:
    """A full `list` or `find` (the quick path refused: a new session's folder changed)
    loads the sources of the apps whose files or folders changed since the index read
    them, not those of the 30 others: their rows are in the index as they are."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    cold = _full_list_loads(home, own)  # the index is made: every app looked for
    assert "sessdex.sources.opencode" in cold
    assert _sources(_full_list_loads(home, own)) == []  # nothing changed
    project = _new_claude_session(home).parent
    # a word no session holds too: why nothing matched needs no other app's folder
    for stamp, args in enumerate(
        (("list", "--json"), ("find", "shop", "--json"), ("find", "zzzz")), 1
    ):
        os.utime(project, (1_700_000_000 + stamp,) * 2)  # its folder changed again
        loaded = _full_list_loads(home, own, *args)
        assert _sources(loaded) == ["claude"], args


def _new_claude_session(home: Path) -> Path:
    """A session of Claude Code begun in `home` (a copy of one there, by a new id)."""
    project = home / ".claude" / "projects" / "-home-dev-shop"
    old, new = (
        "11111111-1111-4111-8111-111111111111",
        "44444444-4444-4444-8444-444444444444",
    )
    text = (project / f"{old}.jsonl").read_text(encoding="utf-8")
    (project / f"{new}.jsonl").write_text(text.replace(old, new), encoding="utf-8")
    return project / f"{new}.jsonl"


def test_show_of_a_session_begun_since_the_last_look_loads_its_app_alone(
    tmp_path: Path,
) -> None:
    """`show <id>` of a session the index does not hold yet (begun since the last
    listing) lists again the apps whose files changed: on a home of Claude Code alone,
    Claude's source loads, not OpenCode's nor any other."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    _full_list_loads(home, own)  # the index is made
    new = _new_claude_session(home).stem
    loaded = _full_list_loads(home, own, "show", new[:8], "--json")
    assert "sessdex.sources.claude" in loaded
    assert "sessdex.sources.opencode" not in loaded
    assert _sources(loaded) == ["claude"]


def test_a_full_list_loads_no_toml_parser_where_no_app_keeps_a_toml_file(
    tmp_path: Path,
) -> None:
    """Every full `list` loads every source: those that read a TOML config load the
    parser only when there is one to read."""
    home = shutil.copytree(app_home("claude"), tmp_path / "home")
    loaded = _full_list_loads(home, tmp_path / "own")
    assert "sessdex.sources.vibe" in loaded  # every source, so the guard can fail
    assert "sessdex.sources.gptme" in loaded
    assert "tomllib" not in loaded


def test_a_warm_full_list_loads_neither_openssl_nor_a_reader(tmp_path: Path) -> None:
    """hashlib loads OpenSSL (some ms): the sources and the database code that hash a
    name or a text load it where they hash, which a warm full list does not."""
    home = shutil.copytree(app_home("claude"), tmp_path / "home")
    _full_list_loads(home, tmp_path / "own")  # cold: the index is made
    # warm, every app's scan run again (as where each app's folder changed)
    env = dict(os.environ, SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(tmp_path / "own"))
    loaded = subprocess.run(
        [sys.executable, "-c", EVERY_SCAN, str(home), "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    assert "sessdex.sources.kimi" in loaded  # every source, so the guard can fail
    assert "sessdex.databases" in loaded
    assert "hashlib" not in loaded
    # nor Claude's transcript reader, which reading a session loads (msgspec's structs,
    # the stream of records): a full list reads no transcript of a session it knows
    assert "sessdex.sources.claude" in loaded
    assert "sessdex.sources._claude_read" not in loaded
    assert "sessdex.sources._claude_stream" not in loaded
    # nor the usage hooks' msgspec structs, which only `usage` reads with
    assert "sessdex.sources.codex" in loaded
    assert "sessdex.sources.qoder" in loaded
    assert "msgspec" not in loaded
    # nor resume's code (its branch check runs git: subprocess)
    assert "sessdex.resuming" not in loaded
    assert "subprocess" not in loaded
    assert "html" not in loaded  # gptme unescapes the calls of a transcript it reads
    assert "sessdex.sources.warp" in loaded
    assert "sessdex.sources._warp_read" not in loaded


def test_a_watch_of_another_home_loads_the_sources_of_its_apps_alone(
    tmp_path: Path,
) -> None:
    """`watch --json` of a home given with --home (whose apps' CLIs do not run on this
    machine) checks the apps named by their names: on a home of Claude Code alone, no
    other app's source loads, where it loaded all 34."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    _full_list_loads(home, own)  # the index is made
    loaded = _full_list_loads(home, own, "watch", "--json")
    assert "sessdex.live" in loaded  # the board was drawn
    assert "sessdex.sources.opencode" not in loaded
    assert set(_sources(loaded)) <= {"claude"}


EXPORT = """
import sys
from click.testing import CliRunner
from sessdex.cli import main
result = CliRunner().invoke(main, sys.argv[1:])
assert result.exit_code == 0, result.output
sys.stderr.write(result.stderr)
print(" ".join(sorted(sys.modules)))
"""


def test_a_warm_export_to_a_file_loads_the_source_of_its_app_alone(
    tmp_path: Path,
) -> None:
    """`export <id> -o FILE` checks FILE against every app's folders: where the index
    holds what each app's last scan said, it loads the source of the session's app
    alone (to read it), not those of the 33 others, and a path into another app's
    folder is still refused."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    env = dict(
        os.environ, HOME=str(home), SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(tmp_path)
    )
    subprocess.run([sys.executable, "-m", "sessdex", "list"], env=env, check=True)
    out = tmp_path / "out.md"
    done = subprocess.run(
        [sys.executable, "-c", EXPORT, "export", "11111111", "-o", str(out)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    prefix = "sessdex.sources."
    loaded = [
        name.removeprefix(prefix)
        for name in done.stdout.split()
        if name.startswith(prefix) and not name.startswith(f"{prefix}_")
    ]
    assert loaded == ["base", "claude"]
    assert "shop" in out.read_text(encoding="utf-8")
    codex = home / ".codex"
    codex.mkdir(exist_ok=True)
    refused = subprocess.run(
        [sys.executable, "-m", "sessdex", "export", "11111111", "-o", str(codex / "x")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert refused.returncode == 1 and "OpenAI Codex CLI's folder" in refused.stderr


def test_a_warm_doctor_loads_the_sources_whose_hooks_it_calls_alone(
    tmp_path: Path,
) -> None:
    """A warm `doctor` (nothing changed since the index read the home) says each app's
    versions checked, variables and folders from what the index and `sources._facts`
    keep: of the 34 apps' sources it loads Aider's alone (its `looked_in` says where its
    histories were looked for), not every one with its readers, as it did."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    cold = _full_list_loads(home, own, "doctor")
    assert "sessdex.sources.opencode" in cold  # every app scanned: the guard can fail
    warm = _full_list_loads(home, own, "doctor")
    assert _sources(warm) == []  # Aider not installed: where it looked is kept
    # the registry, the shared base and the facts table alone
    loaded = [name for name in warm if name.startswith("sessdex.sources.")]
    assert len(loaded) <= 2, loaded


CLINE_STORAGE = "Code/User/globalStorage/saoudrizwan.claude-dev"


def _output_of(home: Path, own: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(own))
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.mark.parametrize(
    ("folder", "said"),
    [
        ("fontconfig", "  cline        {}/.config\n"),  # no folder of Cline's own
        (
            CLINE_STORAGE,
            "(cline, VS Code extension and CLI): 0 sessions\n",
        ),  # found: its folder is there
    ],
)
def test_a_warm_doctor_with_a_shared_config_folder_loads_no_source(
    tmp_path: Path, folder: str, said: str
) -> None:
    """Where `~/.config` is there (every desktop), Cline, Roo and Kilo look in it,
    and doctor asks each whether a folder of its own is there: a warm one answers
    from the scan the index kept, loading none of their sources, as it did, and
    says the same."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    (home / ".config" / folder).mkdir(parents=True)
    _backdated(home)
    own = tmp_path / "own"
    cold = _output_of(home, own, "doctor")
    assert said.format(home) in cold.stdout, cold.stdout
    assert _sources(_full_list_loads(home, own, "doctor")) == []
    warm = _output_of(home, own, "doctor")
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("list",), "No agent sessions in the --home folder yet."),
        (("find", "zzzz"), "No agent sessions in the --home folder yet."),
        (("list", "--app", "cline"), "No folder of cline in the --home folder."),
    ],
)
def test_a_warm_list_that_finds_no_agent_loads_no_source(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """A `list` or `find` of a home holding no agent's folder says so (the editors'
    `~/.config` is no agent's own): warm, it tells that from the scans the index kept,
    loading none of the 34 sources to locate them again, as it did."""
    home = tmp_path / "home"
    (home / ".config" / "fontconfig").mkdir(parents=True)
    _backdated(home)
    own = tmp_path / "own"
    cold = _output_of(home, own, *args)
    assert cold.stderr.startswith(said), cold.stderr
    assert _sources(_full_list_loads(home, own, *args)) == []
    warm = _output_of(home, own, *args)
    assert (warm.returncode, warm.stdout, warm.stderr) == (
        cold.returncode,
        cold.stdout,
        cold.stderr,
    )


def _as_noted_before_the_answers(own: Path) -> list[str]:
    """The index under `own` as a release before the answers wrote it: its noted
    scans keep no `found`, `looked` nor `asked` (`indexscan.answers`); the apps
    whose scan answered one."""
    import json
    import sqlite3

    (index,) = own.glob("cache/index-*.sqlite")
    rewritten = []
    db = sqlite3.connect(index)
    with db:
        for app, said in db.execute("SELECT app, said FROM scans").fetchall():
            value = json.loads(said)
            value.pop("asked", None)
            if value.pop("found", None) is not None or value.pop("looked", None):
                rewritten.append(app)
            kept = json.dumps(value, sort_keys=True).encode("ascii")
            db.execute("UPDATE scans SET said = ? WHERE app = ?", (kept, app))
    db.close()
    return rewritten


@pytest.mark.parametrize(
    "args", [("list",), ("list", "--app", "cline"), ("doctor",)], ids=" ".join
)
def test_an_index_noted_before_the_answers_loads_no_source_after_one_run(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """An index whose noted scans keep no answer to doctor's questions (written by a
    release before them) has them noted by the first warm run, which asks the
    sources: the next loads none of them, as a new index's second run does (it
    loaded Aider's, Cline's, Roo's and Kilo's at every run until a folder changed)."""
    home = tmp_path / "home"
    (home / ".config" / "fontconfig").mkdir(parents=True)
    _backdated(home)
    own = tmp_path / "own"
    cold = _output_of(home, own, *args)
    assert "cline" in _as_noted_before_the_answers(own)
    first = _sources(_full_list_loads(home, own, *args))
    assert "cline" in first  # asked again: the guard can fail
    assert _sources(_full_list_loads(home, own, *args)) == []
    warm = _output_of(home, own, *args)
    # all but doctor's size of the index, which the rewrite changed
    assert (warm.returncode, warm.stdout.split("sessdex's own")[0], warm.stderr) == (
        cold.returncode,
        cold.stdout.split("sessdex's own")[0],
        cold.stderr,
    )


def test_an_export_of_a_copied_home_loads_no_other_source_for_the_own_home(
    tmp_path: Path,
) -> None:
    """`export <id> -o FILE --home COPY`, the user's own home never indexed (a new user's
    first run): the own home's apps are located from `sources._facts.FOLDERS`, not by
    loading all 34 sources (some 40 modules, 1.2 to 2.5 s without bytecode), and a path
    into an app's folder of either home is still refused; an app a variable moves is
    located by its source."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    (own / ".codex").mkdir(parents=True)
    (home / ".gemini").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in sources.OVERRIDES}
    env.update(HOME=str(own), SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(tmp_path / "s"))
    where = ["--home", str(home)]
    subprocess.run([sys.executable, "-m", "sessdex", "list", *where], env=env, check=True)  # fmt: skip

    def export(out: Path, *run: str, **more: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, *run, "export", "11111111", "-o", str(out), *where]
        return subprocess.run(argv, capture_output=True, text=True, env={**env, **more})  # fmt: skip

    done = export(tmp_path / "out.md", "-c", EXPORT)
    assert done.returncode == 0, done.stderr
    assert _sources(done.stdout.split()) == ["claude"]
    for folder, title in ((own / ".codex", "OpenAI Codex CLI"), (home / ".gemini", "Gemini CLI")):  # fmt: skip
        refused = export(folder / "x.md", "-m", "sessdex")
        assert refused.returncode == 1 and f"{title}'s folder" in refused.stderr
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    refused = export(moved / "x.md", "-m", "sessdex", CODEX_HOME=str(moved))
    assert refused.returncode == 1 and "OpenAI Codex CLI's folder" in refused.stderr


def test_show_json_loads_no_code_of_other_commands(tmp_path: Path) -> None:
    """`show <id> --json` of a session the index holds loads what reads and writes it:
    not the quick paths of `list` and of a tab press (`quick`, `quicktab`), nor resume's,
    doctor's, export's or `tree`'s code, which it loaded at every run (some 10 ms)."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    own = tmp_path / "own"
    _full_list_loads(home, own)  # the index is made
    loaded = _full_list_loads(home, own, "show", "11111111", "--json")
    assert "sessdex.sources._claude_read" in loaded  # the transcript was read
    for module in (
        "quick",
        "quicktab",
        "resuming",
        "checkup",
        "exports",
        "tree",
        "status",
    ):
        assert f"sessdex.{module}" not in loaded, module


# the command as its script runs it (`sessdex.launch.main`, through `cli.run`), the
# modules it loaded said at exit
LAUNCHED = """
import atexit, sys
atexit.register(lambda: print(" ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["sessdex", *sys.argv[1:]]
from sessdex.launch import main
main()
"""


def test_a_full_command_named_by_a_plain_word_loads_no_shell_quoting(
    tmp_path: Path,
) -> None:
    """The name click's usage lines give sessdex (`sessdex`, a word no shell quotes)
    needs none of `shells`' quoting: loaded to name it, it cost every full command
    (`show`, `doctor`, a full `list`) some 20 ms before its first line."""
    home = _backdated(shutil.copytree(app_home("claude"), tmp_path / "home"))
    env = dict(os.environ, SESSDEX_NO_QUICK="1", SESSDEX_HOME=str(tmp_path / "own"))
    for _ in range(2):  # cold, then warm
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHED, "list", "--json", "--home", str(home)],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
    assert "sessdex.shells" not in done.stderr.split()
