"""How each real CLI is pointed at the mock model, driven, and what it should leave behind.

One `Recipe` per target in conformance/versions.toml: the env and config files that send the
CLI to 127.0.0.1 with telemetry and updates off, the steps to run (headless, and a TUI step
in tmux where a feature shows only there), and what sessdex must then report. The facts come
from shared/corpus/realcli/README.md, where each recipe was first worked out, and from
docs/conformance.md for the CLIs added since (Kilo, Cline, droid).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import mockllm

BRANCH = "feature/checkout-retry"
API_KEY = "sk-mock-0123456789abcdefghij"  # not a real key; the mock accepts anything
# The seconds the basic and subagent steps' shell calls sleep first (mockllm's SLOW=), while
# the driver asks `sessdex watch` what it sees (the live-state checks).
LIVE_SLOW = 8
PROMPTS = {
    "basic": f"SCENARIO=basic SLOW={LIVE_SLOW} Please run the greeting shell command and tell me what it printed.",
    "resume": "SCENARIO=resume Please run the greeting command once more after resuming.",
    "subagent": f"SCENARIO=subagent SLOW={LIVE_SLOW} Please delegate the greeting command to a sub-agent and report back.",
    "tui": "SCENARIO=basic (interactive) Please run the greeting shell command and tell me what it printed.",
    "edit": "SCENARIO=edit Please make checkout return 'done'.",
    "side": "SCENARIO=resume (side chat) Please run the greeting command once more.",
}
NAMED_TITLE = "Sub-agent smoke test"  # what a step sets with the CLI's own title flag
RENAMED_TITLE = "Checkout retry smoke"  # what a TUI step sets with /rename


@dataclass
class Context:
    """Where one target runs: its throwaway home, repo and mock server."""

    home: Path
    repo: Path
    base_url: str


@dataclass
class Step:
    name: str  # basic, resume, subagent, tui (and edit, for aider; fork, for kimi-code)
    # "{basic}" in an argument (and in the title) becomes the basic step's session id
    argv: list[str]
    title: str | None = None  # the title this step's session must end up with
    interactive: bool = False
    tui_exit: str = "/exit"
    tui_after: list[str] = field(
        default_factory=list
    )  # slash commands typed before exiting; "<C-/>" presses that key (a tmux key name)
    # slash commands typed once the TUI is ready, before the prompt (OpenClaw's `/new`)
    tui_before: list[str] = field(default_factory=list)
    # text the TUI shows once it takes commands, waited for before tui_before is typed
    tui_ready: str | None = None
    # tui_after opens a side chat (Codex's /side) and asks it PROMPTS["side"]: a session of
    # its own, made from this step's, which the step's new files hold beside it
    side_chat: bool = False
    # False for a step that asks the model nothing (a fork copies a session on disk)
    asks_model: bool = True


@dataclass
class Recipe:
    target: str
    env: Callable[[Context], dict[str, str]]
    setup: Callable[[Context], None]
    steps: Callable[[Context], list[Step]]
    session_file: str  # regex over paths relative to HOME; group 1 is the id, else a JSON key below
    session_key: str | None = None
    # What the CLI puts before the id sessdex lists (kimi-code's `session_<uuid>`)
    id_prefix: str = ""
    # A regex over a headless step's stderr whose group 1 is the session id, for a CLI whose
    # stdout names none and whose resume writes no new file (kimi's resume hint)
    stderr_id: str | None = None
    records_branch: bool = True
    records_model: bool = True
    records_cli_version: bool = True
    # linked: own session with parent_id; agent: an agent of the parent's session, whose
    # events `show` nests under its spawn; inline: inside the parent; none
    subagents: str = "linked"
    subagent_note: str = ""
    help_subcommands: tuple[str, ...] = ()
    # False where the CLI reopens no single session, so a resume command cannot name one
    resume_names_session: bool = True
    # The CLI resumes a session by a key of its own, not by its id (OpenClaw's
    # `agent:main:main`), which a headless step's JSON names (`sessionKey`): the resume
    # command must name that key
    resumes_by_key: bool = False
    # The model the CLI writes into its sessions where that is not the one it sends.
    recorded_model: str | None = None
    # A title that lands on an earlier session when a later step runs:
    # {step whose session gets it: (title, the step that writes it)}
    late_titles: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Start `basic` early in a minute, so that `resume` runs in the same one (see gemini below).
    same_minute_resume: bool = False
    weight: int = 1  # rough cost; the heaviest targets start first
    # A CLI that appends every run to one log in the repo, with no id of its own (aider): the
    # log's name, and the ids of the sessions begun in it from a byte offset on.
    repo_log: str | None = None
    log_session_ids: Callable[[Path, int], list[str]] | None = None
    # A CLI that keeps every session in one database and names none in some steps (Hermes'
    # TUI and `-z`): the ids of the sessions it began in HOME since a time.
    new_session_ids: Callable[[Path, float], list[str]] | None = None
    # A CLI whose sessions are rows of a database in HOME, which an interactive step names
    # nowhere else: every session id there, with its session key where it has one (the
    # sessions a step added are those that were not there before it)
    database_sessions: Callable[[Path], dict[str, str | None]] | None = None
    # Live phases (`tool`, `subagent`, `answered`) that `watch` cannot tell from what the
    # CLI writes, and why (docs/live.md): the live check skips them, saying so.
    live_unknown: dict[str, str] = field(default_factory=dict)
    # The CLI records the usage of every model response (the mock's USAGE on each): sessdex's
    # totals must then be exactly what the mock served, each response counted once.
    records_every_response: bool = False
    # The CLI keeps running token totals per session, not each response's: its sessions'
    # tokens must add up to what the mock served, though the responses cannot be counted.
    records_session_totals: bool = False
    # The mock's kinds of request (title, summary, json) the CLI makes but keeps no usage of
    # in its sessions: left out of what the mock served before the totals are compared.
    unrecorded_kinds: tuple[str, ...] = ()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _json(path: Path, value: object) -> None:
    _write(path, json.dumps(value, indent=2) + "\n")


# --- Claude Code --------------------------------------------------------------------------


def claude_env(ctx: Context) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": ctx.base_url,
        "ANTHROPIC_API_KEY": API_KEY,
        "IS_SANDBOX": "1",  # lets --dangerously-skip-permissions run as root
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        # CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC stays unset: it also turns off titles.
    }


def claude_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".claude.json",
        {
            "hasCompletedOnboarding": True,
            "bypassPermissionsModeAccepted": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
            "projects": {
                str(ctx.repo): {
                    "hasTrustDialogAccepted": True,
                    "hasCompletedProjectOnboarding": True,
                }
            },
        },
    )
    _json(
        ctx.home / ".claude" / "settings.json",
        {"skipDangerousModePermissionPrompt": True},
    )


def claude_steps(ctx: Context) -> list[Step]:
    tail = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
    ]
    return [
        # 2.1.332 asks for no title in `-p` mode (2.1.197 did); the TUI step checks ai-title.
        Step("basic", ["claude", "-p", PROMPTS["basic"], *tail]),
        Step(
            "resume", ["claude", "-p", "--resume", "{basic}", PROMPTS["resume"], *tail]
        ),
        Step(
            "subagent",
            ["claude", "-p", PROMPTS["subagent"], "-n", NAMED_TITLE, *tail],
            title=NAMED_TITLE,
        ),
        Step(
            "tui",
            ["claude", "--dangerously-skip-permissions"],
            title=mockllm.TITLE,
            interactive=True,
        ),
    ]


# --- Codex --------------------------------------------------------------------------------


def codex_env(ctx: Context) -> dict[str, str]:
    return {"CODEX_HOME": str(ctx.home / ".codex"), "MOCK_API_KEY": API_KEY}


def codex_setup(ctx: Context) -> None:
    _write(
        ctx.home / ".codex" / "config.toml",
        f"""model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{ctx.base_url}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[projects."{ctx.repo}"]
trust_level = "trusted"

# The TUI's first-run notices, marked as seen so no model picker switches the model.
[tui]
screen_reader_detection_done = true

[tui.model_availability_nux]
"gpt-6.1-sol" = 3

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
""",
    )


def codex_steps(ctx: Context) -> list[Step]:
    return [
        Step("basic", ["codex", "exec", "--json", PROMPTS["basic"]]),
        Step(
            "resume",
            ["codex", "exec", "resume", "--json", "{basic}", PROMPTS["resume"]],
        ),
        Step(
            "subagent",
            [
                "codex",
                "exec",
                "--json",
                "--enable",
                "multi_agent_v2",
                PROMPTS["subagent"],
            ],
        ),
        # The TUI names the thread, then /rename names it again: the last name wins. Then
        # /side opens a side chat, which Codex first names after the thread, and asks it.
        Step(
            "tui",
            ["codex", "--disable", "daemon_auto_start"],
            title=RENAMED_TITLE,
            interactive=True,
            tui_exit="/quit",
            # /quit is refused in the side chat and Ctrl+C archives it: Ctrl+/ goes back
            tui_after=[f"/rename {RENAMED_TITLE}", "/side", PROMPTS["side"], "<C-/>"],
            side_chat=True,
        ),
    ]


# --- Gemini CLI ---------------------------------------------------------------------------


def gemini_env(ctx: Context) -> dict[str, str]:
    return {"GEMINI_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": ctx.base_url}


def gemini_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".gemini" / "settings.json",
        {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {
                "enableAutoUpdate": False,
                "enableAutoUpdateNotification": False,
            },
        },
    )


def gemini_steps(ctx: Context) -> list[Step]:
    tail = ["--output-format", "stream-json", "--yolo", "--skip-trust"]
    return [
        Step("basic", ["gemini", "-p", PROMPTS["basic"], *tail]),
        Step(
            "resume", ["gemini", "--resume", "{basic}", "-p", PROMPTS["resume"], *tail]
        ),
        Step("subagent", ["gemini", "-p", PROMPTS["subagent"], *tail]),
        Step(
            "tui",
            ["gemini", "--yolo", "--skip-trust"],
            interactive=True,
            tui_exit="/quit",
        ),
    ]


# --- Mistral Vibe (3.x unified harness, and 2.x legacy harness) ---------------------------


def vibe_env(ctx: Context) -> dict[str, str]:
    return {
        "VIBE_HOME": str(ctx.home / ".vibe"),
        "MOCK_API_KEY": API_KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }


def vibe_setup(ctx: Context) -> None:
    _write(
        ctx.home / ".vibe" / "config.toml",
        f"""active_model = "mock"
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false
enable_notifications = false
show_greeting = false

[[providers]]
name = "mock"
api_base = "{ctx.base_url}/v1"
api_key_env_var = "MOCK_API_KEY"
backend = "generic"

[[models]]
name = "mock-model"
provider = "mock"
alias = "mock"
input_price = 0.0
output_price = 0.0

[utility_models]
title = "active"

[session_logging]
enabled = true
generate_titles = true
""",
    )


def _vibe_steps(extra: list[str]) -> Callable[[Context], list[Step]]:
    def steps(ctx: Context) -> list[Step]:
        tail = ["--output", "streaming", "--auto-approve", "--trust", *extra]
        return [
            Step("basic", ["vibe", "-p", PROMPTS["basic"], *tail]),
            Step(
                "resume",
                ["vibe", "--resume", "{basic}", "-p", PROMPTS["resume"], *tail],
            ),
            Step("subagent", ["vibe", "-p", PROMPTS["subagent"], *tail]),
            Step(
                "tui",
                ["vibe", "--auto-approve", "--trust", *extra],
                title=mockllm.TITLE,
                interactive=True,
            ),
        ]

    return steps


# --- OpenCode -----------------------------------------------------------------------------


def opencode_env(ctx: Context) -> dict[str, str]:
    return {
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    }


def opencode_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".config" / "opencode" / "opencode.json",
        {
            "$schema": "https://opencode.ai/config.json",
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow", "webfetch": "allow"},
            "provider": {
                "mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Mock",
                    "options": {"baseURL": f"{ctx.base_url}/v1", "apiKey": API_KEY},
                    "models": {"mock-model": {"name": "Mock Model", "tool_call": True}},
                }
            },
        },
    )


def opencode_steps(ctx: Context) -> list[Step]:
    run = ["opencode", "run", "--format", "json"]
    return [
        Step("basic", [*run, PROMPTS["basic"]], title=mockllm.TITLE),
        Step("resume", [*run, "--session", "{basic}", PROMPTS["resume"]]),
        Step(
            "subagent",
            [*run, "--title", NAMED_TITLE, PROMPTS["subagent"]],
            title=NAMED_TITLE,
        ),
    ]


# --- Kilo CLI (an OpenCode fork: the same run mode, its own names) -------------------------


def kilo_env(ctx: Context) -> dict[str, str]:
    return {
        "KILO_DISABLE_MODELS_FETCH": "1",
        "KILO_DISABLE_AUTOUPDATE": "1",
        "KILO_DISABLE_LSP_DOWNLOAD": "1",
        "KILO_DISABLE_SHARE": "1",
        "KILO_DISABLE_SESSION_INGEST": "1",
        "KILO_DISABLE_DEFAULT_PLUGINS": "1",
        "KILO_TELEMETRY_LEVEL": "off",  # anything but "all" turns PostHog off
    }


def kilo_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".config" / "kilo" / "kilo.json",
        {
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow", "webfetch": "allow"},
            "provider": {
                "mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Mock",
                    "options": {"baseURL": f"{ctx.base_url}/v1", "apiKey": API_KEY},
                    "models": {"mock-model": {"name": "Mock Model", "tool_call": True}},
                }
            },
        },
    )


def kilo_steps(ctx: Context) -> list[Step]:
    run = ["kilo", "run", "--format", "json", "--auto"]
    return [
        # `kilo run` 7.7 asks for no title: the session keeps "New session - <time>", and
        # sessdex titles it by the first prompt as the user typed it, without the quotes
        # `run` stores around an argument holding a space (`kilo session list` shows the
        # placeholder).
        Step("basic", [*run, PROMPTS["basic"]], title=PROMPTS["basic"]),
        Step("resume", [*run, "--session", "{basic}", PROMPTS["resume"]]),
        Step(
            "subagent",
            [*run, "--title", NAMED_TITLE, PROMPTS["subagent"]],
            title=NAMED_TITLE,
        ),
    ]


# --- Qwen Code ----------------------------------------------------------------------------


def qwen_env(ctx: Context) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": API_KEY,
        "OPENAI_BASE_URL": f"{ctx.base_url}/v1",
        "OPENAI_MODEL": "mock-model",
    }


def qwen_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".qwen" / "settings.json",
        {
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        },
    )


def qwen_steps(ctx: Context) -> list[Step]:
    tail = ["--output-format", "stream-json", "--yolo"]
    return [
        Step("basic", ["qwen", PROMPTS["basic"], *tail]),
        Step("resume", ["qwen", "--resume", "{basic}", PROMPTS["resume"], *tail]),
        Step("subagent", ["qwen", PROMPTS["subagent"], *tail]),
        Step("tui", ["qwen", "--yolo"], interactive=True, tui_exit="/quit"),
    ]


# --- GitHub Copilot CLI (BYOK offline mode: no GitHub login) ------------------------------


def copilot_env(ctx: Context) -> dict[str, str]:
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"{ctx.base_url}/v1",
        "COPILOT_PROVIDER_API_KEY": API_KEY,
        "COPILOT_MODEL": "mock-model",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_ALLOW_ALL": "true",  # exactly "true": also trusts the folder in the TUI
    }


def copilot_steps(ctx: Context) -> list[Step]:
    tail = ["--allow-all-tools", "--output-format", "json"]
    return [
        Step("basic", ["copilot", "-p", PROMPTS["basic"], *tail]),
        Step(
            "resume", ["copilot", "-p", PROMPTS["resume"], "--resume", "{basic}", *tail]
        ),
        Step("subagent", ["copilot", "-p", PROMPTS["subagent"], *tail]),
        Step("tui", ["copilot", "--allow-all-tools"], interactive=True),
    ]


# --- pi -----------------------------------------------------------------------------------


def pi_env(ctx: Context) -> dict[str, str]:
    return {"MOCK_API_KEY": API_KEY, "PI_OFFLINE": "1", "PI_TELEMETRY": "0"}


def pi_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".pi" / "agent" / "models.json",
        {
            "providers": {
                "mock": {
                    "baseUrl": f"{ctx.base_url}/v1",
                    "api": "openai-completions",
                    "apiKey": "MOCK_API_KEY",
                    "models": [{"id": "mock-model", "name": "Mock Model"}],
                }
            }
        },
    )


def pi_steps(ctx: Context) -> list[Step]:
    head = ["pi", "-p", "--mode", "json", "--provider", "mock", "--model", "mock-model"]
    return [
        # `--name` (pi 1.x) writes a session_info entry, the title
        Step(
            "basic", [*head, "--name", NAMED_TITLE, PROMPTS["basic"]], title=NAMED_TITLE
        ),
        Step("resume", [*head, "--session", "{basic}", PROMPTS["resume"]]),
    ]


# --- Kimi CLI -----------------------------------------------------------------------------


def kimi_env(ctx: Context) -> dict[str, str]:
    return {
        "KIMI_SHARE_DIR": str(ctx.home / ".kimi"),
        "KIMI_CLI_NO_AUTO_UPDATE": "1",
        "KIMI_DISABLE_TELEMETRY": "1",
    }


def kimi_setup(ctx: Context) -> None:
    _write(
        ctx.home / ".kimi" / "config.toml",
        f"""default_model = "mock"
telemetry = false

[providers.mock]
type = "kimi"
base_url = "{ctx.base_url}/v1"
api_key = "{API_KEY}"

[models.mock]
provider = "mock"
model = "mock-model"
max_context_size = 131072
""",
    )


def kimi_steps(ctx: Context) -> list[Step]:
    tail = ["--print", "--output-format", "stream-json", "--yolo"]
    return [
        Step("basic", ["kimi", "-p", PROMPTS["basic"], *tail]),
        Step(
            "resume", ["kimi", "--session", "{basic}", "-p", PROMPTS["resume"], *tail]
        ),
        # kimi-cli titles this session after its sub-agent's task; sessdex takes the prompt
        Step(
            "subagent",
            ["kimi", "-p", PROMPTS["subagent"], *tail],
            title=PROMPTS["subagent"],
        ),
        Step(
            "tui",
            ["kimi", "--yolo"],
            title=RENAMED_TITLE,
            interactive=True,
            tui_after=[f"/title {RENAMED_TITLE}"],
        ),
    ]


# --- Kimi Code 2.x (the `kimi` Kimi CLI 1.52 installs; a different program) ---------------


def kimi_code_env(ctx: Context) -> dict[str, str]:
    return {
        "KIMI_CODE_HOME": str(ctx.home / ".kimi-code"),
        "KIMI_CODE_NO_AUTO_UPDATE": "1",
        "KIMI_DISABLE_TELEMETRY": "1",
    }


def kimi_code_setup(ctx: Context) -> None:
    _write(
        ctx.home / ".kimi-code" / "config.toml",
        f"""default_model = "mock"
telemetry = false

[providers.mock]
type = "openai"
base_url = "{ctx.base_url}/v1"
api_key = "{API_KEY}"

[models.mock]
provider = "mock"
model = "mock-model"
max_context_size = 131072
""",
    )


def kimi_code_steps(ctx: Context) -> list[Step]:
    # Prompt mode runs tools without asking (the session's permission mode is `auto`).
    tail = ["--output-format", "stream-json"]
    return [
        Step("basic", ["kimi", "-p", PROMPTS["basic"], *tail], title=PROMPTS["basic"]),
        Step(
            "resume",
            ["kimi", "--session", "session_{basic}", "-p", PROMPTS["resume"], *tail],
        ),
        Step(
            "subagent",
            ["kimi", "-p", PROMPTS["subagent"], *tail],
            title=PROMPTS["subagent"],
        ),
        # `kimi fork` copies the session's folder on disk; the model is not asked
        Step(
            "fork",
            ["kimi", "fork", "session_{basic}", "--yes"],
            title="Fork: session_{basic}",
            asks_model=False,
        ),
    ]


# --- Aider --------------------------------------------------------------------------------


def aider_env(ctx: Context) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": API_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm's bundled prices, not a download
    }


def aider_setup(ctx: Context) -> None:
    # A known context size and price: no download of litellm's list, and a cost in the log.
    _json(
        ctx.home / ".aider.model.metadata.json",
        {
            "openai/mock-model": {
                "max_input_tokens": 131072,
                "max_output_tokens": 8192,
                "max_tokens": 8192,
                "input_cost_per_token": 0.000001,
                "output_cost_per_token": 0.000002,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        },
    )
    # Aider keeps no list of its repositories, and sessdex never crawls the disk: it finds a
    # repository's log where another agent recorded the folder. Record it as Codex does when
    # the user trusts a folder (no Codex session is made).
    _write(
        ctx.home / ".codex" / "config.toml",
        f'[projects."{ctx.repo}"]\ntrust_level = "trusted"\n',
    )


def aider_steps(ctx: Context) -> list[Step]:
    head = [
        "aider",
        "--openai-api-base",
        f"{ctx.base_url}/v1",
        "--model",
        "openai/mock-model",
        "--yes-always",
        "--no-auto-commits",
        "--no-gitignore",
        "--no-check-update",
        "--analytics-disable",
        "--no-show-release-notes",
    ]
    # aider cannot reopen one run (--restore-chat-history replays the whole log into a new
    # one) and has no sub-agents; its title is the first input, which sessdex reads. Its
    # edits are text: the `edit` step's answer is one SEARCH/REPLACE block, which it applies.
    once = ["--no-pretty", "--message"]
    edit = ["--edit-format", "diff", "--file", "checkout.py"]
    return [
        Step("basic", [*head, *once, PROMPTS["basic"]], title=PROMPTS["basic"]),
        Step("edit", [*head, *edit, *once, PROMPTS["edit"]], title=PROMPTS["edit"]),
        Step("tui", head, title=PROMPTS["tui"], interactive=True),
    ]


def aider_session_ids(log: Path, start: int) -> list[str]:
    """The sessions begun in aider's chat log from `start` on, with the ids sessdex gives them.

    Aider has no session ids. sessdex (sources/aider.py) names each `# aider chat started at`
    section by a hash of the log's folder name, the log's first heading and the section's byte
    offset; recomputed here from the file, so a reader that splits the log wrongly, or ids
    that change between runs, show up as sessions the CLI did not make.
    """
    header = b"# aider chat started at "
    ids, first, offset = [], None, 0
    with log.open("rb") as stream:
        for line in stream:
            if line.startswith(header):
                first = first or line.decode("utf-8", "replace").strip()
                if offset >= start:
                    key = f"{log.parent.name}\0{first}\0{offset}".encode()
                    ids.append(hashlib.sha1(key).hexdigest()[:12])
            offset += len(line)
    return ids


# --- Cline CLI (3.x, on Cline's SDK) -------------------------------------------------------


def cline_env(ctx: Context) -> dict[str, str]:
    return {}


def cline_setup(ctx: Context) -> None:
    settings = ctx.home / ".cline" / "data" / "settings"
    _json(
        settings / "providers.json",
        {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "providers": {
                "openai-compatible": {
                    "settings": {
                        "provider": "openai-compatible",
                        "apiKey": API_KEY,
                        "model": "mock-model",
                        "baseUrl": f"{ctx.base_url}/v1",
                    },
                    # without it the entry is ignored and the CLI falls back to Cline's own API
                    "updatedAt": "2026-01-01T00:00:00.000Z",
                    "tokenSource": "manual",
                }
            },
        },
    )
    _json(
        settings / "global-settings.json",
        {"telemetryOptOut": True, "autoUpdateEnabled": False},
    )


def cline_steps(ctx: Context) -> list[Step]:
    return [
        Step("basic", ["cline", "--json", PROMPTS["basic"]], title=PROMPTS["basic"]),
        # `--id` always opens the TUI (3.0.65 refuses it with a prompt or --json).
        Step(
            "resume", ["cline", "--id", "{basic}"], interactive=True, tui_exit="/quit"
        ),
        Step("subagent", ["cline", "--json", PROMPTS["subagent"]]),
    ]


# --- Factory droid (BYOK custom model, airgapped: no Factory login) -----------------------


def droid_env(ctx: Context) -> dict[str, str]:
    return {
        "MOCK_API_KEY": API_KEY,
        # No Factory API at all (no login, sync, remote config); sub-agents need it too, as
        # the daemon that runs them wants a user, which airgap mode stands in for.
        "FACTORY_AIRGAP_ENABLED": "1",
        "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false",
        "FACTORY_DISABLE_KEYRING": "1",
    }


def droid_setup(ctx: Context) -> None:
    _json(
        ctx.home / ".factory" / "settings.json",
        {
            "customModels": [
                {
                    "model": "mock-model",
                    "displayName": "Mock",
                    "baseUrl": f"{ctx.base_url}/v1",
                    "apiKey": "${MOCK_API_KEY}",
                    "provider": "generic-chat-completion-api",
                    "maxOutputTokens": 4096,
                }
            ],
            # else the TUI (the resume step) asks first
            "trustedFolders": {
                str(ctx.repo): {"trustedAt": "2026-01-01T00:00:00.000Z"}
            },
        },
    )
    # A custom droid of the type the mock asks for: droid 0.215 names its own (worker,
    # explorer) only in the error a wrong type gets, not in what the model is sent.
    _write(
        ctx.home / ".factory" / "droids" / "general-purpose.md",
        "---\nname: general-purpose\ndescription: Does a delegated task with any tool\n"
        "model: inherit\n---\nYou are a sub-agent. Do the task you are given.\n",
    )


DROID_MODEL = (
    "custom:Mock-0"  # droid's id for the first custom model, from its displayName
)


def droid_steps(ctx: Context) -> list[Step]:
    head = ["droid", "exec", "-o", "json", "--auto", "high", "-m", DROID_MODEL]
    return [
        Step("basic", [*head, PROMPTS["basic"]], title=PROMPTS["basic"]),
        # Not `exec -s`: 0.215 looks the session up on Factory's API first, and airgap
        # mode fails that ("Failed to fetch session"); the TUI resumes from disk.
        Step(
            "resume",
            ["droid", "--resume", "{basic}", "--auto", "high"],
            interactive=True,
        ),
        Step("subagent", [*head, PROMPTS["subagent"]]),
    ]


# --- Continue (cn) ------------------------------------------------------------------------


def continue_env(ctx: Context) -> dict[str, str]:
    # no metrics, and no self-update of the TUI (which would ask the npm registry)
    return {"CONTINUE_METRICS_ENABLED": "0", "CONTINUE_CLI_AUTO_UPDATED": "1"}


def continue_setup(ctx: Context) -> None:
    # a local config with one OpenAI-compatible model: no Continue login, no hub
    _write(
        ctx.home / ".continue" / "config.yaml",
        "name: Mock assistant\nversion: 0.0.1\nschema: v1\nmodels:\n"
        "  - name: Mock Model\n    provider: openai\n    model: mock-model\n"
        f"    apiBase: {ctx.base_url}/v1\n    apiKey: {API_KEY}\n"
        "    roles: [chat, edit, apply, summarize]\n    capabilities: [tool_use]\n",
    )


def continue_steps(ctx: Context) -> list[Step]:
    head = ["cn", "--config", str(ctx.home / ".continue" / "config.yaml")]
    return [
        # headless runs run tools without asking and are not titled
        Step("basic", [*head, "-p", PROMPTS["basic"]]),
        # `--resume` takes no id: the newest session, which basic's is here
        Step("resume", [*head, "-p", "--resume", PROMPTS["resume"]]),
        # the TUI asks before a Bash call unless --auto; it titles the session
        Step("tui", [*head, "--auto"], title=mockllm.TITLE, interactive=True),
    ]


# --- gptme -------------------------------------------------------------------------------


def gptme_env(ctx: Context) -> dict[str, str]:
    return {
        # the `local` provider: any OpenAI-compatible server (llm/llm_openai.py)
        "OPENAI_BASE_URL": f"{ctx.base_url}/v1",
        "OPENAI_API_KEY": API_KEY,
        "GPTME_TELEMETRY_ENABLED": "false",  # opt-in, and its OpenTelemetry extra is not installed
        "GPTME_NO_LOCAL_DISCOVERY": "1",  # no probing of local model servers' ports
        "GPTME_TIKTOKEN_TIMEOUT": "0",  # no download of tiktoken's encodings: counts approximated
    }


GPTME_MODEL = "local/mock-model"


def gptme_steps(ctx: Context) -> list[Step]:
    # `--non-interactive` implies `--no-confirm`; both are given, as a user scripting it
    # would. The mock answers with native tool calls, so the `tool` format; a conversation
    # keeps its model and format in its config.toml, so the resume names neither (as
    # sessdex's `gptme --name <name>` does not).
    head = ["gptme", "--non-interactive", "--no-confirm"]
    chosen = ["-m", GPTME_MODEL, "--tool-format", "tool"]
    return [
        # every conversation is named by the model after its first answer (config.toml [chat] name)
        Step("basic", [*head, *chosen, PROMPTS["basic"]], title=mockllm.TITLE),
        Step("resume", [*head, "--name", "{basic}", PROMPTS["resume"]]),
        # the sub-agent tool is off by default; its functions are called in `ipython`
        Step(
            "subagent",
            [
                *head,
                *chosen,
                "-t",
                "+subagent",
                "--name",
                "checkout-subagent",
                PROMPTS["subagent"],
            ],
            title=mockllm.TITLE,
        ),
        # named: without a name and a prompt the TUI first asks which conversation to open
        Step(
            "tui",
            ["gptme", *chosen, "--name", "checkout-tui"],
            title=mockllm.TITLE,
            interactive=True,
            # gptme empties its input before it prompts (chat.prompt_user's flush_stdin):
            # a prompt typed while it starts is echoed, then dropped (a loaded machine)
            tui_ready="User:",
        ),
    ]


# --- Hermes Agent -------------------------------------------------------------------------


def hermes_env(ctx: Context) -> dict[str, str]:
    return {"HERMES_HOME": str(ctx.home / ".hermes")}


def hermes_setup(ctx: Context) -> None:
    # A custom OpenAI-compatible endpoint (hermes_cli/runtime_provider.py reads the base URL
    # and key from config.yaml only; OPENAI_BASE_URL is no longer consulted). Tirith, the
    # command scanner, would download its binary from GitHub on first use. Hermes has no
    # switch for its update check (PyPI, in a background thread): the namespace stops it.
    _write(
        ctx.home / ".hermes" / "config.yaml",
        f"""model:
  provider: custom
  base_url: {ctx.base_url}/v1
  default: mock-model
  api_key: {API_KEY}
security:
  tirith_enabled: false
""",
    )


def hermes_steps(ctx: Context) -> list[Step]:
    tail = ["-Q", "--yolo"]  # quiet: the answer, then `session_id: <id>` on stderr
    return [
        Step("basic", ["hermes", "chat", "-q", PROMPTS["basic"], *tail]),
        Step(
            "resume",
            ["hermes", "chat", "-q", PROMPTS["resume"], "--resume", "{basic}", *tail],
        ),
        # `chat -q` runs a delegate_task in the background and exits before it ends; the
        # one-shot mode (-z, which prints only the answer) runs it within the turn
        Step("subagent", ["hermes", "-z", PROMPTS["subagent"]]),
        # only the interactive REPL asks for a title (after the first exchange)
        Step("tui", ["hermes", "--yolo"], title=mockllm.TITLE, interactive=True),
    ]


def hermes_session_ids(home: Path, since: float) -> list[str]:
    """The lead sessions Hermes started since a time, from its one database (its TUI and
    `-z` print no id)."""
    db = home / ".hermes" / "state.db"
    if not db.is_file():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        rows = con.execute(
            "SELECT id FROM sessions WHERE started_at >= ? AND parent_session_id IS NULL"
            " ORDER BY started_at",
            (since,),
        ).fetchall()
    return [str(row[0]) for row in rows]


# --- Nanocoder -----------------------------------------------------------------------------


def nanocoder_env(ctx: Context) -> dict[str, str]:
    # its log files stay out of the home; the npm update check fails closed, offline
    return {"NANOCODER_LOG_DISABLE_FILE": "1"}


def nanocoder_setup(ctx: Context) -> None:
    config = ctx.home / ".config" / "nanocoder"
    # one OpenAI-compatible provider: no login
    _json(
        config / "agents.config.json",
        {
            "nanocoder": {
                "providers": [
                    {
                        "name": "mock",
                        "baseUrl": f"{ctx.base_url}/v1",
                        "apiKey": API_KEY,
                        "models": ["mock-model"],
                    }
                ]
            }
        },
    )
    # the repo trusted (the TUI asks first otherwise); autosave at most every second, not
    # every 30 s, so that the file holds the answer when the live check looks
    _json(
        config / "nanocoder-preferences.json",
        {
            "lastProvider": "mock",
            "lastModel": "mock-model",
            "trustedDirectories": [str(ctx.repo)],
            "nanocoder": {"sessions": {"saveInterval": 1000}},
        },
    )
    # 1.30.0's npm package lacks its built-in agents' files: a user agent to delegate to
    _write(
        config / "agents" / "general.md",
        "---\nname: general\ndescription: Runs shell commands for the lead agent\n"
        "tools:\n  - execute_bash\n---\n"
        "You run the shell commands you are asked to and report what they printed.\n",
    )


def _nanocoder_title(prompt: str) -> str:
    """Nanocoder's title: the last prompt's first 50 characters (useSessionAutosave.js)."""
    return prompt[:50] + ("..." if len(prompt) > 50 else "")


def nanocoder_steps(ctx: Context) -> list[Step]:
    # every step in the TUI: `nanocoder run` needs a terminal for its Ink runtime too (and
    # `--plain` writes no session); yolo mode runs the shell calls without asking
    head = [
        "nanocoder",
        "--mode",
        "yolo",
        "--provider",
        "mock",
        "--model",
        "mock-model",
    ]

    def step(name: str, argv: list[str]) -> Step:
        # Enter on `/exit` takes what its command menu offers (`/exit` again); a second
        # Enter (an empty exit command) runs it
        return Step(
            name,
            argv,
            title=_nanocoder_title(PROMPTS[name]),
            interactive=True,
            tui_after=["/exit"],
            tui_exit="",
        )

    return [
        step("basic", head),
        # `--resume <id>` is for the TUI only; the title becomes the resume prompt's
        step("resume", [*head, "--resume", "{basic}"]),
        step("subagent", head),
        step("tui", head),
    ]


# --- OpenClaw (the embedded agent, `openclaw agent --local`: no gateway) -------------------


OPENCLAW_GATEWAY_PORT = 18789  # OpenClaw's default, on the namespace's own loopback


def openclaw_env(ctx: Context) -> dict[str, str]:
    # update checks off (telemetry is opt-in: `telemetry.enabled`, left unset); DO_NOT_TRACK
    # too; the gateway's token (a throwaway) for the sub-agent step
    return {
        "MOCK_API_KEY": API_KEY,
        "OPENCLAW_NO_AUTO_UPDATE": "1",
        "DO_NOT_TRACK": "1",
        "OPENCLAW_GATEWAY_TOKEN": "conformance-gateway-token-0123456789",
    }


def openclaw_setup(ctx: Context) -> None:
    # A custom provider on the mock (`models.providers`, chat completions) as the default
    # model, and the repo as the agent's workspace: the folder its sessions run in (OpenClaw
    # writes its bootstrap files, AGENTS.md, SOUL.md, ..., there on the first run).
    _json(
        ctx.home / ".openclaw" / "openclaw.json",
        {
            "models": {
                "mode": "merge",
                "providers": {
                    "mock": {
                        "baseUrl": f"{ctx.base_url}/v1",
                        "apiKey": "${MOCK_API_KEY}",
                        "api": "openai-completions",
                        "models": [
                            {
                                "id": "mock-model",
                                "name": "Mock Model",
                                "contextWindow": 131072,
                                "maxTokens": 4096,
                            }
                        ],
                    }
                },
            },
            "agents": {
                "defaults": {
                    "model": {"primary": "mock/mock-model"},
                    "workspace": str(ctx.repo),
                }
            },
            "update": {"checkOnStart": False},
            # sessions_spawn among the tools sent (else behind Tool Search's catalog)
            "tools": {"toolSearch": False},
            "gateway": {
                "mode": "local",
                "port": OPENCLAW_GATEWAY_PORT,
                "bind": "loopback",
                "auth": {"mode": "token"},
            },
            # its log in the throwaway home, not /tmp/openclaw/ (the default)
            "logging": {"file": str(ctx.home / ".openclaw" / "logs" / "openclaw.log")},
        },
    )
    (ctx.home / ".openclaw" / "logs").mkdir(exist_ok=True)  # the gateway's output too


def openclaw_sessions(home: Path) -> dict[str, str | None]:
    """Every session window in the agents' databases, with its key (read only)."""
    import sqlite3

    found: dict[str, str | None] = {}
    for database in sorted(home.glob(".openclaw/agents/*/agent/openclaw-agent.sqlite")):
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            found.update(
                connection.execute(
                    "SELECT session_id, session_key FROM session_windows"
                ).fetchall()
            )
        except sqlite3.Error:
            pass
        finally:
            connection.close()
    return found


# A sub-agent runs through the gateway's reply runtime (under `agent --local`,
# `sessions_spawn` fails: "published reply runtime missing for main"): the step starts the
# gateway, waits for its port, runs the turn through it, and stops it.
OPENCLAW_SUBAGENT = f"""
openclaw gateway run > "$HOME/.openclaw/logs/gateway.out" 2>&1 &
gateway=$!
for _ in $(seq 1 120); do
  node -e "require('net').connect({OPENCLAW_GATEWAY_PORT}, '127.0.0.1')
    .on('connect', () => process.exit(0)).on('error', () => process.exit(1))" && break
  sleep 1
done
openclaw agent --json --agent main --session-key agent:main:delegate --message "$1"
status=$?
kill "$gateway"; wait "$gateway"
exit $status
"""


def openclaw_steps(ctx: Context) -> list[Step]:
    # `--local` runs the embedded agent in this process: no gateway, no channel. `--json`
    # prints one JSON document naming the session (meta.agentMeta.sessionId).
    head = ["openclaw", "agent", "--local", "--json"]
    return [
        # the agent's main session (`agent:main:main`), titled by its first prompt
        Step(
            "basic",
            [*head, "--agent", "main", "--message", PROMPTS["basic"]],
            title=PROMPTS["basic"],
        ),
        Step(
            "resume", [*head, "--session-id", "{basic}", "--message", PROMPTS["resume"]]
        ),
        Step(
            "subagent",
            ["sh", "-c", OPENCLAW_SUBAGENT, "openclaw-subagent", PROMPTS["subagent"]],
        ),
        # the TUI on the embedded agent, as sessdex resumes; its `/new` opens a new key
        # (`agent:main:tui-<uuid>`) whose node names the session it came from
        Step(
            "tui",
            ["openclaw", "tui", "--local", "--session", "agent:main:main"],
            title=PROMPTS["tui"],
            interactive=True,
            tui_before=["/new"],
            # after the turn: a reset in place, a `reset` entry in the same session
            tui_after=["/reset"],
            # the embedded runtime loads after the history shows: a `/new` typed before
            # it is ready goes in as a message
            tui_ready="local ready",
        ),
    ]


def _nothing(ctx: Context) -> None:
    return None


UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

RECIPES: dict[str, Recipe] = {
    r.target: r
    for r in (
        Recipe(
            "claude",
            claude_env,
            claude_setup,
            claude_steps,
            rf"^\.claude/projects/[^/]+/({UUID})\.jsonl$",
            records_every_response=True,  # message.usage on each assistant record
            # the TUI's title request (a JSON schema, no tools) is in no session file
            unrecorded_kinds=("json",),
        ),
        Recipe(
            "codex",
            codex_env,
            codex_setup,
            codex_steps,
            rf"^\.codex/sessions/.+/rollout-[^/]*?({UUID})\.jsonl$",
            help_subcommands=("resume",),
            # Not records_every_response: at the start of each TUI turn (its own and the /side
            # chat's) 0.171 sends a second request, carrying only the apply_patch tool, whose
            # usage no rollout holds (nor state_5.sqlite's tokens_used); every other response
            # is one token_count, counted once.
        ),
        Recipe(
            "gemini",
            gemini_env,
            gemini_setup,
            gemini_steps,
            r"^\.gemini/tmp/[^/]+/chats/session-[^/]+\.jsonl$",
            session_key="sessionId",
            records_branch=False,
            records_cli_version=False,
            # Starting the TUI back-fills a summary into the most recent earlier session.
            late_titles={"subagent": (mockllm.SUMMARY, "tui")},
            # Gemini CLI 0.61 names a chat file by the minute it was written in: a resume in a
            # later minute writes a second file for the same session, and the next start of the
            # CLI deletes both. Real data loss, but the CLI's, so the suite keeps to one minute.
            same_minute_resume=True,
            weight=2,
            records_every_response=True,  # a `tokens` object on each gemini message
            # its side requests to flash-lite (the JSON routing ones, the summary) are in no chat
            unrecorded_kinds=("json", "summary"),
        ),
        Recipe(
            "vibe",
            vibe_env,
            vibe_setup,
            _vibe_steps([]),
            rf"^\.vibe/logs/session/unified/({UUID})/meta\.json$",
            records_branch=False,  # meta.json git_branch is null in 3.x
            records_cli_version=False,
            weight=4,
            # Not records_every_response: Vibe keeps running totals per session (tokenUsage),
            # not each response's usage; after a sub-agent ran, 3.0.3's lead held the tokens of
            # 2 of its 3 responses (its envelope and journal alike); no file has the title's.
        ),
        Recipe(
            "vibe-legacy",
            vibe_env,
            vibe_setup,
            _vibe_steps(["--legacy-harness"]),
            r"^\.vibe/logs/session/session_[^/]+/meta\.json$",
            session_key="session_id",
            records_cli_version=False,
            records_session_totals=True,  # meta.json `stats`, one summed response per folder
            unrecorded_kinds=("title",),  # the title request is in no session's stats
            live_unknown={
                "tool": "the legacy harness writes a session's files only once its turn has ended",
                "subagent": "the legacy harness writes a session's files only once its turn has ended",
            },
            weight=4,
        ),
        Recipe(
            "opencode",
            opencode_env,
            opencode_setup,
            opencode_steps,
            r"^$",  # one SQLite database; ids come from stdout
            records_branch=False,
            weight=3,
            records_every_response=True,  # tokens on each assistant message
            # the title request is no message of the session
            unrecorded_kinds=("title",),
        ),
        Recipe(
            "kilo",
            kilo_env,
            kilo_setup,
            kilo_steps,
            r"^$",  # one SQLite database; ids come from stdout
            records_branch=False,
            weight=3,
            records_every_response=True,  # tokens on each assistant message
        ),
        Recipe(
            "qwen",
            qwen_env,
            qwen_setup,
            qwen_steps,
            rf"^\.qwen/projects/[^/]+/chats/({UUID})\.jsonl$",
            weight=3,
            # Not records_every_response: after an interactive turn the TUI asks the model for a
            # follow-up suggestion (the history, its tools and a schema, so the mock cannot tell
            # it from the turn's own request) whose usage only ~/.qwen/usage_record.jsonl's
            # per-run totals hold, not the chat file; every other response is in the chat.
        ),
        Recipe(
            "copilot",
            copilot_env,
            _nothing,
            copilot_steps,
            rf"^\.copilot/session-state/({UUID})/events\.jsonl$",
            subagents="inline",
            subagent_note="Copilot CLI keeps a sub-agent's events inside the parent's events.jsonl (agentId)",
            records_every_response=True,  # a session.usage_record event per model call
        ),
        Recipe(
            "cline",
            cline_env,
            cline_setup,
            cline_steps,
            r"^\.cline/data/sessions/([^/]+)/\1\.json$",
            subagents="inline",
            subagent_note="Cline writes a sub-agent's messages beside its lead's; sessdex reads them inside the lead, as Cline's history shows them",
            records_every_response=True,  # an api_req_started message per model call
        ),
        Recipe(
            "droid",
            droid_env,
            droid_setup,
            droid_steps,
            rf"^\.factory/sessions/[^/]+/({UUID})\.jsonl$",
            records_branch=False,
            records_cli_version=False,  # session_start's `version` is the format's (2)
            recorded_model=DROID_MODEL,  # its id for the custom model, not the API's
            records_session_totals=True,  # settings.json `tokenUsage`, no usage per message
            # Not the CLI's records: `droid exec` 0.215 here ends the mock's `echo … && sleep 8`
            # with SIGKILL right after the echo (with a `timeout` too), so nothing is slow
            live_unknown={
                "tool": "droid exec kills the slow shell call at once (SIGKILL), so no mid-call state is seen",
                "subagent": "droid exec kills the slow shell call at once (SIGKILL), so no mid-call state is seen",
            },
        ),
        Recipe(
            "pi",
            pi_env,
            pi_setup,
            pi_steps,
            rf"^\.pi/agent/sessions/.+_({UUID})\.jsonl$",
            records_branch=False,
            records_cli_version=False,
            subagents="none",
            subagent_note="pi has no sub-agent feature",
            records_every_response=True,  # usage on each assistant message
        ),
        Recipe(
            "kimi",
            kimi_env,
            kimi_setup,
            kimi_steps,
            rf"^\.kimi/sessions/[^/]+/({UUID})/wire\.jsonl$",
            records_branch=False,
            records_cli_version=False,
            stderr_id=rf"To resume this session: kimi -r ({UUID})",
            records_model=False,  # kimi-cli writes no model name into a main session
            weight=2,
            records_every_response=True,  # one StatusUpdate per model call
        ),
        Recipe(
            "kimi-code",
            kimi_code_env,
            kimi_code_setup,
            kimi_code_steps,
            rf"^\.kimi-code/sessions/[^/]+/session_({UUID})/state\.json$",
            id_prefix="session_",
            records_branch=False,
            records_cli_version=False,
            recorded_model="mock",  # the alias in config.toml, not the API's model name
            subagents="agent",
            records_every_response=True,
        ),
        Recipe(
            "continue",
            continue_env,
            continue_setup,
            continue_steps,
            rf"^\.continue/sessions/({UUID})\.json$",
            records_branch=False,
            records_cli_version=False,
            subagents="none",
            # cn's beta Subagent tool (--beta-subagent-tool) runs the sub-agent's chat in
            # memory (extensions/cli/src/subagent/executor.ts): only its answer, as the
            # tool's output in the lead's history, is written
            subagent_note="cn keeps a sub-agent's chat in memory; only its answer reaches the lead's file",
            # `cn --resume` reopens the newest session and names none; the others resume
            # with `cn --fork <id>`
            resume_names_session=False,
            records_every_response=True,  # usage on each assistant message
            unrecorded_kinds=("title",),  # the TUI's title request is in no file
            live_unknown={
                "tool": "cn -p writes its session file only once the turn's tools have run",
            },
        ),
        Recipe(
            "gptme",
            gptme_env,
            _nothing,
            gptme_steps,
            r"^\.local/share/gptme/logs/([^/]+)/conversation\.jsonl$",
            records_branch=False,
            records_every_response=True,  # metadata.usage on each assistant message
            unrecorded_kinds=("title",),  # the naming request is in no conversation
            weight=2,
        ),
        Recipe(
            "hermes",
            hermes_env,
            hermes_setup,
            hermes_steps,
            r"^$",  # one SQLite database: ids from stderr, else from hermes_session_ids
            new_session_ids=hermes_session_ids,
            stderr_id=r"(?m)^session_id: (\S+)$",
            records_branch=False,  # only the Ink TUI's gateway writes git_branch
            records_cli_version=False,
            records_session_totals=True,  # token counters per session, none per message
        ),
        Recipe(
            "nanocoder",
            nanocoder_env,
            nanocoder_setup,
            nanocoder_steps,
            rf"^\.local/share/nanocoder/sessions/({UUID})\.json$",
            records_branch=False,
            records_cli_version=False,
            subagents="none",
            # the `agent` tool runs the sub-agent's chat in memory (subagents/
            # subagent-executor.js): only its report, the tool's output, is written
            subagent_note="Nanocoder keeps a sub-agent's chat in memory; only its report reaches the lead's file",
            # Not records_every_response: Nanocoder keeps no usage in a chat
            weight=2,
        ),
        Recipe(
            "openclaw",
            openclaw_env,
            openclaw_setup,
            openclaw_steps,
            r"^$",  # one SQLite database per agent; ids come from stdout
            records_branch=False,
            help_subcommands=("tui",),
            resumes_by_key=True,  # `openclaw tui --local --session agent:main:main`
            database_sessions=openclaw_sessions,
            records_every_response=True,  # usage on each assistant message
            live_unknown={
                "subagent": "sessions_spawn runs the child in the background and the lead's "
                "turn ends at once (its result comes back as a later turn): watch says the "
                "lead waits for the user, with one sub-agent working",
            },
        ),
        Recipe(
            "aider",
            aider_env,
            aider_setup,
            aider_steps,
            r"^$",  # one log in the repo; ids from aider_session_ids
            records_branch=False,
            subagents="none",
            subagent_note="aider has no sub-agents",
            # `--restore-chat-history` replays the repository's whole log into a new run
            resume_names_session=False,
            repo_log=".aider.chat.history.md",
            log_session_ids=aider_session_ids,
            # Not records_every_response: aider streams without asking for usage, so the log's
            # "Tokens: 795 sent, 10 received" is its own tokeniser's count, not the mock's.
        ),
    )
}


ID_KEYS = ("session_id", "sessionId", "sessionID", "thread_id")


def session_id_from_stdout(stdout: str) -> str | None:
    """The first session id a CLI's JSON event stream names (its own, before any sub-agent's)."""
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "session" and isinstance(event.get("id"), str):  # pi
            return str(event["id"])
        found = _find_key(event, 0)
        if found:
            return found
    # one JSON document over many lines (`openclaw agent --json`)
    try:
        whole = json.loads(stdout)
    except ValueError:
        return None
    return _find_key(whole, 0)


def session_key_from_stdout(stdout: str) -> str | None:
    """The session key a CLI's JSON output names (OpenClaw's `sessionKey`), one document."""
    try:
        whole = json.loads(stdout)
    except ValueError:
        return None
    return _find_key(whole, 0, ("sessionKey",))


def _find_key(value: object, depth: int, keys: tuple[str, ...] = ID_KEYS) -> str | None:
    if depth > 3:
        return None
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), str) and value[key]:
                return str(value[key])
        for inner in value.values():
            found = _find_key(inner, depth + 1, keys)
            if found:
                return found
    return None


def session_id_from_files(recipe: Recipe, home: Path, paths: list[str]) -> list[str]:
    """Session ids named by new session files (relative paths under HOME)."""
    pattern = re.compile(recipe.session_file)
    ids = []
    for relative in sorted(paths):
        match = pattern.search(relative)
        if not match or not recipe.session_file.strip("^$"):
            continue
        if match.groups():
            ids.append(match.group(1))
            continue
        try:
            text = (home / relative).read_text(errors="replace")
            first = json.loads(
                text if relative.endswith(".json") else text.splitlines()[0]
            )
        except (OSError, ValueError, IndexError):
            continue
        if recipe.session_key and isinstance(first.get(recipe.session_key), str):
            ids.append(first[recipe.session_key])
    return list(dict.fromkeys(ids))
