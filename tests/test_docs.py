"""The docs keep up with the code: every command has help with an example, every app a README
line, every option and JSON field the docs name is one the CLI has and prints."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import click
import orjson
import pytest
from click.testing import CliRunner

from sessdex import sources
from sessdex.cli import main
from sessdex.model import EventKind

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
DATA = ROOT / "tests" / "data"


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_has_help_with_an_example(name: str) -> None:
    command = main.commands[name]
    assert isinstance(command, click.Command)
    assert command.help and "Example" in command.help, name
    assert f"sessdex {name}" in README, f"README does not mention `sessdex {name}`"


@pytest.mark.parametrize("app", sources.names())
def test_every_source_is_in_the_readme(app: str) -> None:
    assert f"(`{app}`)" in README


def test_quick_start_has_two_commands() -> None:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = quick.split("```sh\n")[1:]
    assert len(blocks) == 2
    assert all(len(b.split("```")[0].strip().splitlines()) == 1 for b in blocks)
    assert "scripts/test" in blocks[1]
    # CI runs scripts/check, whose last step is the same scripts/test
    assert "exec bash scripts/check" in (ROOT / ".ci" / "run").read_text()
    assert "exec bash scripts/test" in (ROOT / "scripts" / "check").read_text()


def test_the_python_example_runs_as_the_readme_shows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's Python snippet, on the demo home instead of this machine's."""
    from sessdex import api

    snippet = README.split("```python\n", 1)[1].split("```", 1)[0]
    demo = str(api.demo_home().path)
    code = snippet.replace("Home.current()", f"Home.at({demo!r})")
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Checkout timeout under load" in out  # a listed session
    assert "lead " in out  # a tool call of the transcript
    assert "7 events, the last: turn_end" in out  # what follow read of its history


def test_the_library_section_names_what_a_watched_status_holds() -> None:
    """`watch_sessions`' `Status`: the reason without its age (`plain`) and when that
    age counts from (`since`), what `watch --json` gives, were in no doc: a program
    that kept `reason` kept an age gone stale."""
    from dataclasses import fields

    from sessdex.status import Status

    section = README.split("## From Python", 1)[1].split("\n## ", 1)[0]
    public = [f.name for f in fields(Status) if f.name != "ageless"]  # `plain` says it
    for name in [*public, "plain"]:
        assert f"status.{name}" in section, f"README leaves out Status.{name}"


def test_the_python_example_type_checks_with_no_any(tmp_path: Path) -> None:
    """What the README's snippet gets back is typed all the way down: mypy --strict
    finds no expression of type Any in it (a script would lose its checks there)."""
    pytest.importorskip("mypy")
    script = tmp_path / "readme.py"
    script.write_text(README.split("```python\n", 1)[1].split("```", 1)[0])
    strict = ["--strict", "--disallow-any-expr", "--no-incremental"]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", *strict, str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout


def _options(name: str) -> set[str]:
    command = main.commands[name]
    with main.make_context("sessdex", [name]) as parent:  # with click's own --help
        params = command.get_params(click.Context(command, parent=parent))
    return {o for p in params for o in (*p.opts, *p.secondary_opts)}


def test_every_option_in_the_commands_table_exists() -> None:
    """Each row's options (`--tail N`, `[-o FILE]`) and their values (`--detail a\\|b`) are
    what the row's command takes."""
    table = README.split("## Commands", 1)[1].split("\n#", 1)[0]
    rows = [r.split(" | ") for r in table.splitlines() if r.startswith("| `sessdex ")]
    assert len(rows) == len(main.commands)
    for head, text, *_ in rows:
        name = head.split()[2].strip("`")
        params = {
            o: p
            for p in main.commands[name].params
            for o in (*p.opts, *p.secondary_opts)
        }
        spans = re.findall(r"\[(-[^]]+)\]", head) + re.findall(r"`(-[^`]+)`", text)
        assert spans or name in ("find", "demo"), name
        for span in spans:
            option, *values = span.replace("\\|", "|").split()
            assert option in params, f"{name} has no {option}"
            param = params[option]
            if values and "|" in values[0] and isinstance(param.type, click.Choice):
                assert set(values[0].split("|")) <= set(param.type.choices), span


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n#", 1)[0]


# the options every command (but demo) takes, which the README explains once for all
_EVERY_COMMANDS = {"--home", "--verbose", "--help"}


def test_every_option_a_command_takes_is_in_the_docs() -> None:
    """A new user reads the commands table (and the page a row points to) to learn what a
    command takes: `find --since`, `follow --poll` and `doctor --app` were missing."""
    table = README.split("## Commands", 1)[1].split("\n#", 1)[0]
    rows = {
        r.split()[2].strip("`"): r
        for r in table.splitlines()
        if r.startswith("| `sessdex ")
    }
    pages = {  # where a command's options are told beyond its row
        "resume": _section(README, "### What resume checks first"),
        "usage": (ROOT / "docs" / "usage.md").read_text(),
    }
    assert "Every command but `demo` takes `--home DIR`" in README
    assert "(`--verbose`, `sessdex doctor`)" in README
    missing = []
    for name, command in main.commands.items():
        text = rows[name] + pages.get(name, "")
        for param in command.params:
            names = [o for o in (*param.opts, *param.secondary_opts) if o[:1] == "-"]
            if not names or set(names) & _EVERY_COMMANDS:
                continue
            if not any(re.search(rf"[`\[]{o}[ `=\]]", text) for o in names):
                missing.append(f"{name} {names[-1]}")
    assert not missing, f"the docs never name: {', '.join(missing)}"


def test_the_json_fields_a_help_names_are_the_ones_printed(
    tmp_path: Path, run: CliRunner
) -> None:
    """`resume --help` lists the `--json` object's keys and `watch --help` the `--nl`
    objects'; the lists are exactly what comes out."""
    home = shutil.copytree(DATA / "claude" / "home", tmp_path / "home")
    lead = "82d9f90c"
    printed = {
        ("resume", "--json"): [_json(run, home, "resume", lead, "--json")],
        ("watch", "--nl"): _json(
            run, home, "watch", "--nl", "--duration", "0", "--since", "100000d"
        ),
    }
    listed = {}
    for name, command in main.commands.items():
        for param in command.params:
            text = getattr(param, "help", None) or ""
            for fields in re.findall(r"\(((?:[a-z_]+, )+[a-z_]+)\)", text):
                listed[(name, param.opts[-1])] = set(fields.split(", "))
    assert set(listed) == set(printed)
    for key, objects in printed.items():
        assert objects and all(set(o) == listed[key] for o in objects), key


_DOCS = (
    "README.md",
    "docs/usage.md",
    "docs/live.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
)


@pytest.mark.parametrize("doc", _DOCS)
def test_options_the_docs_give_a_command_are_its_own(doc: str) -> None:
    """`show --tail N --json`, `watch --json`/`--nl`: each option is the named command's."""
    text = (ROOT / doc).read_text()
    spans = re.finditer(r"`(?:sessdex )?([a-z]+)((?: [^`]*)?)`((?:/`-[^`]+`)*)", text)
    for span in spans:
        name = span[1]
        if name not in main.commands:
            continue
        words = span[2].split() + re.findall(r"`(-[^` ]+)", span[3])
        for word in words:
            if word == "--":  # the words after it are no options
                break
            if word.startswith("-") and not word[1:2].isdigit():
                assert word.split("=")[0] in _options(name), span[0]


@pytest.mark.parametrize("doc", ("README.md", "docs/usage.md", "docs/live.md"))
def test_the_docs_example_commands_parse(doc: str) -> None:
    """Every `sessdex …` line of a shell block takes only options and values that exist."""
    text = (ROOT / doc).read_text()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split(" #")[0].split("|")[0].strip()
            if not line.startswith("sessdex "):
                continue
            name, *args = shlex.split(line)[1:]
            with main.make_context("sessdex", [name]) as parent:
                main.commands[name].make_context(name, args, parent=parent)


def test_the_usage_examples_answer_on_the_demo_home() -> None:
    """docs/usage.md's example `--explain 2026-11-20` exited 1 on the demo home (no
    response that day): each `sessdex usage` line of its shell blocks, and each command
    its prose runs, answers there, an `--explain` with the row it names."""
    from sessdex import api

    text = (ROOT / "docs" / "usage.md").read_text()
    lines = [
        line.split(" #")[0].strip()
        for block in re.findall(r"```sh\n(.*?)```", text, re.S)
        for line in block.splitlines()
    ]
    lines += re.findall(r"`(sessdex usage [^`]*--explain [^`]*)`", text)
    examples = [line for line in lines if line.startswith("sessdex usage")]
    assert sum("--explain" in line for line in examples) >= 2, examples
    demo = str(api.demo_home().path)
    for line in examples:
        args = [*shlex.split(line)[1:], "--home", demo]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0 and result.stdout, (line, result.stderr)
        if "--explain" in args:
            key = args[args.index("--explain") + 1]
            assert result.stdout.startswith(f"row {key}: "), (line, result.stdout)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("doc", (*_DOCS, "docs/conformance.md"))
def test_the_docs_links_lead_somewhere(doc: str) -> None:
    """A link to a file or a heading (`docs/live.md`, `#how-find-matches`) finds it, in
    the repository: a file beside a checkout is not there for a reader of the project's
    page (nor in a clone made anywhere else)."""
    page = ROOT / doc
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_relative_to(ROOT.resolve()), f"{doc}: {target} leaves the repo"
        assert linked.exists(), f"{doc}: {target}"
        if anchor:
            assert anchor in _anchors(linked), f"{doc}: {target}"


def _keys(value: object) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def _top(value: object) -> set[str]:
    """The keys of an object, or of every object of an array."""
    items = value if isinstance(value, list) else [value]
    return set().union(*(set(item) for item in items if isinstance(item, dict)))


def _json(run: CliRunner, home: Path, *args: str) -> Any:
    result = run.invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    return (
        [orjson.loads(x) for x in lines]
        if "--nl" in args
        else orjson.loads(result.stdout)
    )


def test_every_json_field_is_in_the_readme_and_every_documented_one_in_the_output(
    tmp_path: Path, run: CliRunner
) -> None:
    """The README's `--json` shapes, one bullet per command, against a home with sub-agents:
    no key printed that the bullet leaves out, and no field named there that never comes."""
    home = shutil.copytree(DATA / "claude" / "home", tmp_path / "home")
    lead = "82d9f90c"  # a session with a sub-agent
    outputs = {
        "list": [_json(run, home, "list", "--all", "--json")],
        "show": [_json(run, home, "show", lead, "--json")],
        "tree": [_json(run, home, "tree", lead, "--json")],
        "watch": [_json(run, home, "watch", "--json", "--since", "100000d")],
        "doctor": [
            _json(run, home, "doctor", "--json"),
            _json(run, home, "doctor", "--own", "--json"),
        ],
        "resume": [_json(run, home, "resume", lead, "--json")],
    }
    outputs["tree"].append(_json(run, home, "tree", lead, "--nl"))
    from sessdex.status import STATUSES

    values = {*get_args(EventKind), *STATUSES, "lead", "running", "done", "stopped"}
    values |= {*main.commands, "recorded", "current"}  # words, and a mismatch's keys
    values.add("pid")  # watch's, only for a CLI running with no session yet: none here
    section = README.split("### JSON for scripts", 1)[1].split("\n### ", 1)[0]
    bullets = {b.split("`")[1].split()[0]: b for b in section.split("\n- ")[1:]}
    assert set(outputs) < set(bullets)
    for name, printed in outputs.items():
        named = set(re.findall(r"`([a-z_]+)`", bullets[name]))
        top = set().union(*(_top(p) for p in printed))
        assert not top - named, f"{name} --json prints fields the README leaves out"
        anywhere = set().union(*(_keys(p) for p in printed))
        assert not named - anywhere - values, (
            f"README names {name} fields it never prints"
        )


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--all"],
        ["find", "checkout"],
        ["show", "3f2b"],
        ["show", "3f2b", "--detail", "user"],
        *(["usage", report] for report in ("daily", "session", "project", "model")),
        ["watch", "--once", "--since", "100000d"],
        ["doctor", "--app", "claude"],
    ],
)
def test_nl_gives_the_json_arrays_objects_one_a_line(
    run: CliRunner, args: list[str]
) -> None:
    """The README: `--json` prints one document, `--nl` one object per line; the same
    objects, in the same order."""
    from sessdex import api

    demo = api.demo_home().path
    printed = _json(run, demo, *args, "--json")
    assert printed and printed == _json(run, demo, *args, "--nl")


def test_the_commands_the_readme_gives_the_show_json_shape_print_it(
    run: CliRunner,
) -> None:
    """`export -f json` and `replay --nl` print the events `show --json` prints, and
    `follow --nl` them with `seq_relative` too, as the README's bullet says."""
    from sessdex import api

    demo = api.demo_home().path
    shown = _json(run, demo, "show", "3f2b", "--json")
    assert shown == _json(run, demo, "export", "3f2b", "-f", "json")
    assert shown == _json(run, demo, "replay", "3f2b", "--nl", "--speed", "100000")
    followed = _json(
        run, demo, "follow", "3f2b", "--nl", "-n", "100", "--duration", "0"
    )
    assert followed == [{**event, "seq_relative": True} for event in shown]


def test_every_usage_json_field_is_in_docs_usage(
    tmp_path: Path, run: CliRunner
) -> None:
    """docs/usage.md's `--json` rows and `--explain --json` object, both ways."""
    home = shutil.copytree(DATA / "claude" / "home", tmp_path / "home")
    doc = (ROOT / "docs" / "usage.md").read_text()
    rows = doc.split("`--json` prints an array of rows:", 1)[1].split("\n\n", 1)[0]
    explain = doc.split("`--explain KEY --json` prints one object:", 1)[1].split(
        "\n\n"
    )[0]
    printed = _json(run, home, "usage", "session", "--json")
    assert isinstance(printed, list)
    row = next(r for r in printed if "agents" in r)  # a session that ran a sub-agent
    named = set(re.findall(r"`([a-z_]+)`", rows))
    assert _top(printed) <= named
    assert _keys(printed) <= named
    # the names the other reports give their key (`model`, `cwd`, `app`) among them
    others = [
        _json(run, home, "usage", r, "--json") for r in ("project", "model", "app")
    ]
    others.append(_json(run, home, "usage", "session", "--limit", "0", "--json"))
    assert all(_keys(other) <= named for other in others)
    assert named - {"lead"} <= _keys(printed).union(*(_keys(o) for o in others))
    for day in _json(run, home, "usage", "daily", "--json"):
        audit = _json(run, home, "usage", "daily", "--explain", day["key"], "--json")
        assert isinstance(audit, dict)
        if audit["dropped"]:  # a day with lines dropped, as well as responses counted
            break
    named = set(re.findall(r"`([a-z_]+)`", explain))
    shown = _top(audit) | _top(audit["counted"]) | _top(audit["dropped"])
    shown |= _top(audit["counted_not_listed"])
    assert shown - _top(row) <= named
    assert named <= shown | {"row"}


def test_the_help_examples_parse() -> None:
    """`Example: sessdex list --app claude --since 3d` takes options its command has."""
    helps = [main.help or ""] + [c.help or "" for c in main.commands.values()]
    examples = [
        line.split("Example:")[-1].split("|")[0].strip()
        for text in helps
        for line in text.splitlines()
    ]
    examples = [e for e in examples if e.startswith("sessdex ")]
    assert len(examples) > len(main.commands)
    for example in examples:
        name, *args = shlex.split(example)[1:]
        with main.make_context("sessdex", [name]) as parent:
            main.commands[name].make_context(name, args, parent=parent)


def test_the_package_ships_its_license_and_names_the_pythons_it_runs_on() -> None:
    """A wheel or sdist carries the MIT text its metadata declares (it shipped none), and
    names each Python from requires-python on, as PyPI and packagers read them."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    for name in project["license-files"]:
        assert (ROOT / name).read_text().startswith("MIT License")
    oldest = int(project["requires-python"].removeprefix(">=3."))
    for minor in range(oldest, 14):
        assert f"Programming Language :: Python :: 3.{minor}" in project["classifiers"]


def test_what_the_readme_says_doctor_gives_a_script_is_doctor_json(
    tmp_path: Path, run: CliRunner
) -> None:
    """ "`api.doctor(home)` gives what `sessdex doctor` shows": a list, one report per app,
    each one's `.record()` that app's object of `doctor --json` (the README said the
    list's `.record()`, which a list has not)."""
    from sessdex import api
    from sessdex.sources import Home

    home = shutil.copytree(DATA / "claude" / "home", tmp_path / "home")
    said = " ".join(README.split("`api.doctor(home)`", 1)[1].split(".\n", 1)[0].split())
    assert "one `AppReport` per app" in said and "`.record()`" in said, said
    reports = api.doctor(Home.at(home))
    assert [r.record() for r in reports] == _json(run, home, "doctor", "--json")


def test_the_lines_commands_for_your_shell_shows_are_what_sessdex_writes() -> None:
    """The README's examples of a resume line, for POSIX sh, PowerShell and cmd.exe, are
    the lines written for that folder and id (they showed `'id'` and `"id"` quoted, where
    a plain word is written bare)."""
    from sessdex import shells

    section = _section(README, "### Commands for your shell")
    for shell, folder in (("sh", "/x"), ("powershell", "C:\\x"), ("cmd", "C:\\x")):
        line = shells.cd_then_run(folder, ["claude", "--resume", "id"], shell)
        assert f"`{line}`" in section, line


def test_contributing_names_every_table_a_new_app_goes_in() -> None:
    """Step 3 of "Adding an agent app" names the tables in `sources/__init__.py` that list
    every app (a new one missing from `TITLES` fails only a test, far from the step)."""
    import sessdex.sources as registry

    steps = (ROOT / "CONTRIBUTING.md").read_text()
    tables = [
        name
        for name, value in vars(registry).items()
        if name.isupper() and isinstance(value, tuple | frozenset | dict)
    ]
    assert {"BUILTIN", "OVERRIDES", "TITLES", "MODULES"} <= set(tables)
    assert all(f"`{name}`" in steps for name in tables), tables


def test_the_exit_statuses_the_readme_gives_are_the_ones_returned(
    tmp_path: Path, run: CliRunner
) -> None:
    """Each status the README's paragraph names, for the cases it names."""
    from sessdex import api

    said = README.split("The exit status is", 1)[1].split("\n\n", 1)[0]
    said = " ".join(f"is{said}".split())
    assert "130 after Ctrl-C" in said and "exits as that CLI does" in said
    demo = str(api.demo_home().path)
    several = str(shutil.copytree(DATA / "claude" / "home", tmp_path / "home"))
    cases = [
        (0, ["find", "no-such-word", "--home", demo]),
        (0, ["list", "--home", str(tmp_path)]),  # a home without sessions
        (1, ["show", "ffff", "--home", demo]),
        (1, ["show", "a", "--home", several]),  # the start of several ids
        (2, ["list", "--bogus", "--home", demo]),
        (2, ["list", "--app", "nope", "--home", demo]),
        (2, ["list", "--since", "soon", "--home", demo]),
        (2, ["list", "--home", str(tmp_path / "not-there")]),
    ]
    for status, args in cases:
        assert f"is {status} when" in said or f"; {status} for" in said, status
        assert run.invoke(main, args).exit_code == status, args
    assert "a `SESSDEX_SHELL` it does not know" in said.split("; 2 for")[0]
    told = ["resume", "019a", "--print", "--home", demo]
    assert run.invoke(main, told, env={"SESSDEX_SHELL": "tcsh"}).exit_code == 1


def test_the_explain_keys_docs_usage_calls_errors_exit_as_it_says(
    run: CliRunner,
) -> None:
    """docs/usage.md: a key no row has is an error (1) listing the rows; a date that is
    none (`2026-13-01`) a usage error (2). It said 1 for both; a script tells a typo in
    its date from a day with no row by the status."""
    from sessdex import api

    doc = " ".join((ROOT / "docs" / "usage.md").read_text().split())
    said = doc.split("A key no report of that kind could have", 1)[1].split("\n\n")[0]
    demo = str(api.demo_home().path)
    cases = {
        "an id no session has": ("session", "--explain", "ffff"),
        "`abc` for a day": ("daily", "--explain", "abc"),
        "`2026-13-01`": ("daily", "--explain", "2026-13-01"),
    }
    for words, args in cases.items():
        status = int(said.split(words, 1)[1].split("(exit ", 1)[1][0])
        result = run.invoke(main, ["usage", *args, "--json", "--home", demo])
        assert (result.exit_code, result.stdout) == (status, ""), (words, result.output)
        assert ("Rows: " in result.stderr) == (status == 1), result.stderr


def test_what_the_readme_says_ci_runs_is_what_it_runs() -> None:
    """The Development section names the script `.ci/run` runs (`scripts/check` now:
    format, lint, types, then the tests; it once said so while CI ran the tests alone)."""
    ci = (ROOT / ".ci" / "run").read_text()
    ran = re.findall(r"^exec (?:bash )?(scripts/[\w-]+)", ci, re.M)
    assert len(ran) == 1
    development = " ".join(_section(README, "## Development").split())
    said = re.findall(r"CI \(`\.ci/run`\) runs `(scripts/[\w-]+)`", development)
    assert said == ran, development


def _readme_line(app: str) -> str:
    """The README's Supported apps line of `app`."""
    apps = README.split("## Supported apps", 1)[1].split("\n## ", 1)[0]
    return next(line for line in apps.splitlines() if f"(`{app}`)" in line)


@pytest.mark.parametrize("app", sources.names())
def test_every_variable_an_app_reads_is_on_its_readme_line(app: str) -> None:
    """What `doctor` lists under `env_vars`, a user finds in the app's README line."""
    module = sources.get(app)
    line = _readme_line(app)
    missing = [name for name in module.ENV_VARS if name != "HOME" and name not in line]
    assert not missing, f"{app}: {missing}"


def test_every_variable_sessdex_reads_is_in_the_readme() -> None:
    read = re.compile(
        r"""(?:environ(?:\.get)?\(|environ\[|getenv\()\s*["']([A-Z_]+)["']"""
    )
    names = {
        name
        for path in (ROOT / "src" / "sessdex").rglob("*.py")
        for name in read.findall(path.read_text())
    }
    shells_own = {"COMP_WORDS", "COMP_CWORD", "PWD"}  # set by the shell, not by a user
    assert {"SESSDEX_HOME", "NO_COLOR"} <= names
    missing = sorted(
        name
        for name in names - shells_own
        if not re.search(rf"(?<![A-Z_]){name}(?![A-Z_])", README)
    )
    assert not missing


def test_every_bench_script_is_in_the_bench_readme() -> None:
    table = (ROOT / "bench" / "README.md").read_text()
    scripts = sorted(path.name for path in (ROOT / "bench").glob("bench_*.py"))
    assert len(scripts) > 30
    assert [name for name in scripts if f"| `{name}" not in table] == []


def test_the_apps_whose_last_messages_show_tail_finds_are_in_the_readme() -> None:
    """Each app with a `read_last` hook is named where the README says `--tail` answers at
    once for a store that is not a JSON-lines file."""
    row = next(
        line for line in README.splitlines() if line.startswith("| `sessdex show ID`")
    )
    tail = row.split("`--tail N`", 1)[1].split("`--full-payloads`", 1)[0]
    with_hook = [
        app for app in sources.names() if getattr(sources.get(app), "read_last", None)
    ]
    assert len(with_hook) > 10
    words = {app: sources.get(app).TITLE.split()[0] for app in with_hook}
    assert [app for app, word in words.items() if word not in tail] == []


def test_every_error_a_script_may_catch_is_in_the_readme() -> None:
    from sessdex import errors

    python = README.split("## From Python", 1)[1].split("\n## ", 1)[0]
    raised = [
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.SessdexError)
    ]
    assert len(raised) > 8
    assert [name for name in raised if f"{name}`" not in python] == []


def test_every_cli_the_board_finds_before_its_session_is_in_docs_live() -> None:
    """The apps whose running CLI `watch` shows before it has written a session (those
    naming their program in `CLI`) are the ones docs/live.md lists."""
    live = (ROOT / "docs" / "live.md").read_text()
    listed = " ".join(
        live.split("A CLI running with no session yet", 1)[1].split(")")[0].split()
    )
    clis = [app for app in sources.names() if getattr(sources.get(app), "CLI", None)]
    assert len(clis) > 10

    def named(app: str) -> bool:
        words = sources.get(app).TITLE.replace("(", " ").split()
        return any(
            w in listed for w in words if len(w) > 3 and w not in {"Code", "Agent"}
        )

    assert [app for app in clis if not named(app)] == []


def test_every_version_the_conformance_suite_pins_is_on_its_apps_readme_line() -> None:
    """A pin raised after the suite passed is a version the README says was checked."""
    import tomllib

    pins = tomllib.loads((ROOT / "conformance" / "versions.toml").read_text())[
        "targets"
    ]
    assert len(pins) > 15
    missing = [
        f"{spec['app']} {spec['version']}"
        for spec in pins.values()
        if spec["version"] not in _readme_line(spec["app"])
        and spec["version"].removesuffix(".0") not in _readme_line(spec["app"])
    ]
    assert missing == []


def test_changelog_entries_say_each_thing_once() -> None:
    """An entry edited by its author is rewritten, not appended to: twelve words of
    it given twice (a merge keeping both versions' tails) read as a broken sentence."""
    text = (ROOT / "CHANGELOG.md").read_text()
    for entry in re.split(r"\n(?=- |#)", text):
        words = entry.split()
        runs = [tuple(words[i : i + 12]) for i in range(len(words) - 11)]
        assert len(runs) == len(set(runs)), entry


# `live.RELIST_EVERY` (3), `transcripts.LISTED_APART_READ_MOST` (64 MB): a bound the docs
# give by its name in the code and its value
_CONSTANT_SAID = re.compile(
    r"`([a-z_.]+)\.([A-Z][A-Z_0-9]+)` \((\d+(?:\.\d+)?)( MB| KB)?\)"
)


def test_a_bound_the_docs_name_has_the_value_they_give() -> None:
    """A constant tuned in the code (follow's 64 MB of sub-agents, its 3 s relist) is
    said at its value where the docs name it; a tuning left the page behind otherwise."""
    import importlib

    said = [
        found
        for doc in ("README.md", "docs/usage.md", "docs/live.md", "bench/README.md")
        for found in _CONSTANT_SAID.findall((ROOT / doc).read_text())
    ]
    assert len(said) >= 2  # the pattern still finds how the pages name them
    for module, name, number, unit in said:
        value = getattr(importlib.import_module(f"sessdex.{module}"), name)
        scale = {" MB": 1024 * 1024, " KB": 1024}.get(unit, 1)
        assert value == float(number) * scale, f"`{module}.{name}` ({number}{unit})"


def test_resume_help_says_keep_permissions_lifts_its_refusals() -> None:
    """A session its app reopens looser by itself (Copilot's Allow All, Kimi's yolo,
    gptme's no_confirm) is refused until --keep-permissions: `resume -h` says which flag
    lifts that refusal, where the README is not at hand."""
    shown = CliRunner().invoke(main, ["resume", "--help"], terminal_width=200).output
    said = " ".join(shown.split())
    assert "--keep-permissions" in said
    assert "refused without it" in said, said
