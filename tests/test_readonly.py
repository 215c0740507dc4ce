"""A whole session of use changes nothing in the agents' folders: no byte, no mtime, no new file.

The fake home holds every app's fixtures, and its SQLite stores are live WAL databases with
un-checkpointed rows (a writer keeps them open), as on a machine where the agents are running.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import merged_home
from tests.helpers import opened_files

DB_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".vscdb")


def snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    result = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            data = path.read_bytes() if stat.S_ISREG(st.st_mode) else b""
            result[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns, data)
    return result


@pytest.fixture
def live_home(tmp_path: Path) -> Iterator[tuple[Path, list[sqlite3.Connection]]]:
    home = merged_home(tmp_path / "home")
    writers = []
    for db in sorted(
        p for p in home.rglob("*") if p.suffix in DB_SUFFIXES and p.is_file()
    ):
        try:
            writer = sqlite3.connect(db)
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute("PRAGMA wal_autocheckpoint=0")
            writer.execute("CREATE TABLE IF NOT EXISTS zz_pending (x INTEGER)")
            writer.execute("INSERT INTO zz_pending VALUES (1)")
            writer.commit()
        except sqlite3.DatabaseError:
            continue  # a deliberately corrupt fixture
        writers.append(writer)
    yield home, writers
    for writer in writers:
        writer.close()


def test_a_full_run_changes_nothing_in_the_home(
    live_home: tuple[Path, list[sqlite3.Connection]], tmp_path: Path
) -> None:
    home, writers = live_home
    assert writers, "the fixtures hold SQLite stores"
    assert any(Path(str(home)).rglob("*-wal"))
    before = snapshot(home)
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(
            main, [*args, "--home", str(home)], catch_exceptions=False
        )
        assert result.exit_code in (0, 1), result.output
        return result.stdout

    sessions = json.loads(run("list", "--all", "--json"))
    assert len({s["app"] for s in sessions}) >= 15
    run("find", "shop", "--json")
    run("doctor", "--json")
    for session in sessions:
        run("resume", session["id"], "--print")
        run("show", session["id"], "--json")
        run("tree", session["id"], "--json")
    run(
        "export",
        sessions[0]["id"],
        "--format",
        "html",
        "-o",
        str(tmp_path / "out.html"),
    )
    after = snapshot(home)
    assert sorted(after) == sorted(before), "files were created or removed in the home"
    changed = [name for name in before if before[name] != after[name]]
    assert changed == []


# Where the agents keep logins and keys, as a home holds them (each app's own layout).
CREDENTIAL_FILES = (
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
    ".qwen/oauth_creds.json",
    ".local/share/opencode/auth.json",
    ".pi/agent/auth.json",
    ".factory/auth.json",
    ".local/share/amp/secrets.json",
    ".continue/auth.json",  # cn's login; its API keys sit in the two below
    ".continue/.env",
    ".continue/config.yaml",
    ".augment/session.json",  # Auggie's login
    ".augment/oauth-state.json",
    ".openhands/agent_settings.json",  # the OpenHands CLI's LLM key
    ".openhands/mcp.json",  # its MCP servers' environment
    ".openhands/cloud/api_key.txt",  # its cloud key
    ".config/gptme/config.toml",  # gptme's API keys ([env])
    ".config/gptme/config.local.toml",
    ".openclaw/openclaw.json",  # OpenClaw's gateway token and API keys
    ".openclaw/agents/main/agent/auth-profiles.json",  # its per-agent keys
    ".openclaw/credentials/oauth.json",  # its OAuth logins
    ".hermes/.env",  # Hermes Agent's API keys
    ".hermes/auth.json",  # its logins
    ".hermes/profiles/work/.env",  # a profile's own
    ".hermes/profiles/work/auth.json",
    ".config/manicode/credentials.json",  # Codebuff's login
    ".aws/sso/cache/kiro-auth-token.json",  # the Kiro IDE's login
    ".qoder/.auth/user",  # Qoder CLI's login (its 1.1.52 bundle)
    ".qoder/.auth/.credential-transaction",
    ".qoder/mcp-oauth-tokens.json",  # its MCP servers' OAuth tokens
    ".config/nanocoder/agents.config.json",  # Nanocoder's providers and API keys
    ".config/nanocoder/codex-credentials.json",  # its Codex and Copilot logins
    ".config/nanocoder/copilot-credentials.json",
    ".local/share/nanocoder/sessions/agents.config.json",  # a copy among its chats
    "code/shop-api/.mcp.json",  # a project's MCP servers, their tokens in env or headers
)


def test_the_agents_credential_files_are_never_opened(tmp_path: Path) -> None:
    """Not even to show an account name: a run over a home that holds every app's
    credential files (and a link, named like a transcript, to one of them) opens none."""

    home = merged_home(tmp_path / "home")
    secrets = []
    for name in CREDENTIAL_FILES:
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('{"token": "secret"}')
        secrets.append(os.path.realpath(path))
    project = next((home / ".claude" / "projects").iterdir())
    (project / "0000aaaa-0000-4000-8000-000000000000.jsonl").symlink_to(
        home / ".codex" / "auth.json"
    )
    (
        home / ".continue" / "sessions" / "0000aaaa-0000-4000-8000-000000000000.json"
    ).symlink_to(
        home / ".continue" / "auth.json"
    )  # named as a Continue chat, beside them
    qoder = next((home / ".qoder" / "projects").iterdir())
    (qoder / "0000aaaa-0000-4000-8000-000000000001.jsonl").symlink_to(
        home / ".qoder" / ".auth" / "user"
    )  # named as a Qoder transcript: its login has a name too plain to refuse anywhere
    (project / "0000aaaa-0000-4000-8000-000000000002.jsonl").symlink_to(
        home / "code" / "shop-api" / ".mcp.json"
    )  # a project's MCP servers, named as a transcript
    day = home / ".codex" / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True, exist_ok=True)
    rollout = "rollout-2026-01-01T00-00-00-0000aaaa-0000-7000-8000-000000000000.jsonl"
    (day / rollout).symlink_to(
        home / ".codex" / "auth.json"
    )  # inside Codex's own folder
    with opened_files() as opened:
        runner = CliRunner()
        for args in (
            ("list", "--all", "--json"),
            ("doctor", "--json"),
            ("usage", "--json"),
        ):
            result = runner.invoke(
                main, [*args, "--home", str(home)], catch_exceptions=False
            )
            assert result.exit_code == 0, result.output
        sessions = json.loads(
            runner.invoke(main, ["list", "--all", "--json", "--home", str(home)]).stdout
        )
        for session in sessions:
            for command in ("show", "resume"):
                extra = ["--print"] if command == "resume" else ["--json"]
                runner.invoke(
                    main, [command, session["id"], *extra, "--home", str(home)]
                )
    assert opened, "the audit hook saw the run's own reads"
    assert not set(opened) & set(secrets)


def test_a_credential_file_named_in_another_case_is_never_opened(
    tmp_path: Path,
) -> None:
    """On a case-insensitive disk (macOS's, Windows') `AUTH.JSON` is `auth.json`, and a
    link made to that name resolves to it: neither it nor the link is read."""

    home = merged_home(tmp_path / "home")
    secret = home / ".codex" / "AUTH.JSON"
    secret.write_text('{"token": "secret"}')
    project = next((home / ".claude" / "projects").iterdir())
    link = project / "0000bbbb-0000-4000-8000-000000000000.jsonl"
    link.symlink_to(secret)
    with opened_files() as opened:
        for args in (("list", "--all", "--json"), ("doctor", "--json")):
            result = CliRunner().invoke(main, [*args, "--home", str(home)])
            assert result.exit_code == 0, result.output
    assert opened and os.path.realpath(secret) not in opened


def test_a_wal_that_links_to_a_credential_file_is_never_opened(
    tmp_path: Path,
) -> None:
    """A database's `-wal` is a name sessdex makes, not one a listing vetted: a link by
    that name to an agent's login was opened to read its headers (the freshness of the
    database's rows), and 12 of its bytes stored in the index as the WAL's state."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "opencode" / "home", home)
    secret = home / ".codex" / "auth.json"
    secret.parent.mkdir(parents=True)
    secret.write_text('{"OPENAI_API_KEY": "sk-secret-secret-secret"}' + " " * 2000)
    store = home / ".local" / "share" / "opencode" / "opencode.db"
    (store.parent / (store.name + "-wal")).symlink_to(secret)
    with opened_files() as opened:
        runner = CliRunner()
        for args in (("list", "--all", "--json"), ("list", "--json")):
            runner.invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
    assert opened, "the audit hook saw the run's own reads"
    assert os.path.realpath(secret) not in opened
