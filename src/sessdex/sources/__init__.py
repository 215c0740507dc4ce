"""The registry of sources: one module per agent app, all behind `base.Source`."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .base import Home, Location, Source

__all__ = ["Home", "Location", "Source", "all_sources", "get", "names"]

# Built-in apps, in the order `doctor` shows them. A third-party adapter would take the
# same path through an entry point.
BUILTIN: tuple[str, ...] = (
    "claude",
    "codex",
    "vibe",
    "gemini",
    "aider",
    "cline",
    "roo",
    "kilo",
    "droid",
    "amp",
    "antigravity",
    "copilot",
    "pi",
    "kimi",
    "cursor",
    "opencode",
    "crush",
    "goose",
    "qwen",
    "zed",
    "continue",
    "kiro",
    "auggie",
    "vscode",
    "warp",
    "openhands",
    "forge",
    "gptme",
    "openclaw",
    "hermes",
    "codebuff",
    "kiroide",
    "qoder",
    "nanocoder",
)

# Every variable a built-in source's `locate` reads (their ENV_VARS, and the XDG folders
# `Home.xdg` resolves): with the home's path, what tells one home's index from another's.
# Listed here, as BUILTIN is, so that the quick listing path need not import the sources.
OVERRIDES: frozenset[str] = frozenset(
    {
        "AIDER_CHAT_HISTORY_FILE",
        "AIDER_ENCODING",
        "CLAUDE_CONFIG_DIR",
        "CLAWDBOT_STATE_DIR",
        "CLINE_DATA_DIR",
        "CLINE_DIR",
        "CLINE_SESSION_DATA_DIR",
        "CODING_AGENT_DIR",
        "CODEX_HOME",
        "CODEX_SQLITE_HOME",
        "CONTINUE_GLOBAL_DIR",
        "COPILOT_HOME",
        "CRUSH_GLOBAL_DATA",
        "CURSOR_CONFIG_DIR",
        "FACTORY_HOME_OVERRIDE",
        "FLATPAK_XDG_DATA_HOME",
        "FORGE_CONFIG",
        "GEMINI_CLI_HOME",
        "GOOSE_PATH_ROOT",
        "GPTME_LOGS_HOME",
        "HERMES_HOME",
        "HOME",
        "KILO_DB",
        "KIMI_CODE_HOME",
        "KIMI_SHARE_DIR",
        "KIRO_HOME",
        "KIRO_TEST_SESSIONS_DIR",
        "NANOCODER_CONFIG_DIR",
        "NANOCODER_DATA_DIR",
        "NEXT_PUBLIC_CB_ENVIRONMENT",
        "OPENCLAW_HOME",
        "OPENCLAW_STATE_DIR",
        "OPENCODE_DB",
        "OPENHANDS_CONVERSATIONS_DIR",
        "OPENHANDS_PERSISTENCE_DIR",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "QODER_CLI_HOME",
        "QODER_CONFIG_DIR",
        "QODER_CONFIG_DIR_NAME",
        "QODERCN_CLI_HOME",
        "QODERCN_CONFIG_DIR",
        "QODERCN_CONFIG_DIR_NAME",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "VIBE_HOME",
        "VSCODE_AGENT_FOLDER",
        "VSCODE_APPDATA",
        "VSCODE_PORTABLE",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "ZED_STATELESS",
    }
)


# Each built-in source's TITLE, for humans (`--app` completion's help): kept here, as
# BUILTIN is, so that a tab press need not import the sources; a test checks each.
TITLES: dict[str, str] = {
    "claude": "Claude Code",
    "codex": "OpenAI Codex CLI",
    "vibe": "Mistral Vibe",
    "gemini": "Gemini CLI",
    "aider": "Aider",
    "cline": "Cline (VS Code extension and CLI)",
    "roo": "Roo Code (VS Code extension)",
    "kilo": "Kilo Code (VS Code extension and Kilo CLI)",
    "droid": "Factory droid",
    "amp": "Amp",
    "antigravity": "Google Antigravity (IDE and agy CLI)",
    "copilot": "GitHub Copilot CLI",
    "pi": "pi coding agent",
    "kimi": "Kimi Code / Kimi CLI",
    "cursor": "Cursor (CLI and IDE)",
    "opencode": "OpenCode",
    "crush": "Crush",
    "goose": "Goose",
    "qwen": "Qwen Code",
    "zed": "Zed Agent Panel",
    "continue": "Continue (cn CLI and IDE extensions)",
    "kiro": "Kiro CLI / Amazon Q Developer CLI",
    "auggie": "Augment Auggie CLI",
    "vscode": "VS Code Chat (Copilot)",
    "warp": "Warp (Agent Mode)",
    "openhands": "OpenHands CLI",
    "forge": "Forge Code",
    "gptme": "gptme",
    "openclaw": "OpenClaw",
    "hermes": "Hermes Agent",
    "codebuff": "Codebuff CLI",
    "kiroide": "Kiro IDE (agent chats)",
    "qoder": "Qoder CLI",
    "nanocoder": "Nanocoder",
}

# Other names a user may give an app for --app, beside those its TITLE gives (see
# `canonical`): the command it runs as, and the package it is installed as.
ALIASES: dict[str, str] = {
    "codex-cli": "codex",
    "qodercli": "qoder",
    "cn": "continue",
    "agy": "antigravity",
    "cursor-agent": "cursor",
    "copilot-cli": "copilot",
    "opencode-ai": "opencode",  # npm's name, as resume's install hint gives it
    "forgecode": "forge",
    "aider-chat": "aider",  # PyPI's
    # the names an app is sold or installed as (npm's package, the vendor's own name)
    "openai-codex": "codex",
    "@openai/codex": "codex",
    "@anthropic-ai/claude-code": "claude",
    "@google/gemini-cli": "gemini",
    "@github/copilot": "copilot",
    "@qwen-code/qwen-code": "qwen",
    "@sourcegraph/amp": "amp",
    "@augmentcode/auggie": "auggie",
    "@mariozechner/pi-coding-agent": "pi",
    "@nanocollective/nanocoder": "nanocoder",
    "@charmland/crush": "crush",
    "factory-cli": "droid",
    "amazon-q": "kiro",
    "q-developer-cli": "kiro",
    "goose-cli": "goose",
}


def _spelt(name: str) -> str:
    """A name as aliases are kept: lower case, words joined by `-` ("Claude Code")."""
    return "-".join(name.lower().replace("_", " ").split())


def _aliases() -> dict[str, str]:
    """Every other name of each app: its TITLE without the parenthesis, each of its
    " / " halves ("Kimi Code / Kimi CLI"), and ALIASES."""
    found: dict[str, str] = {}
    for name, title in TITLES.items():
        for part in title.split(" (")[0].split(" / "):
            found.setdefault(_spelt(part), name)
    return found | ALIASES


def canonical(name: str) -> str:
    """The app `name` stands for (`Claude Code`, `claude-code`: claude), in any case;
    a name no app goes by is given back as typed, lower case, for UnknownApp to say."""
    lowered = name.lower()
    if lowered in BUILTIN:
        return lowered
    return _aliases().get(_spelt(name), lowered)


# The names of the files each app writes into the user's projects (a source's
# `IN_PROJECTS`): kept here, as BUILTIN is, so that `export -o` knows the names no export
# may take without importing every source; a test checks each.
IN_PROJECTS: dict[str, tuple[str, ...]] = {
    "aider": (".aider.chat.history.md", ".aider.input.history"),
}

# The apps whose sources count usage from their files themselves (`usage_records`), not
# from the index's sessions: kept here, as BUILTIN is, so that `usage` knows which apps the
# index can vouch for without importing every source; a test checks it.
USAGE_HOOKED: frozenset[str] = frozenset({"claude", "codex", "qoder"})

# The apps whose `context_digest` (see base.py) is the `digest` of a module that loads
# without the source: a warm list tells a context file rewritten with the same meaning
# (Kimi CLI's `kimi.json` at every session's start, Crush's `projects.json` at every
# start) without loading the app's source.
CONTEXT_DIGESTS: dict[str, str] = {"crush": "_crush_projects", "kimi": "_kimi_json"}

# An app whose name is no module name (a Python keyword): its module's.
MODULES: dict[str, str] = {"continue": "continue_"}
# each source's module, by app: what `get` looks up in sys.modules
_module_names = {name: f"{__name__}.{MODULES.get(name, name)}" for name in BUILTIN}


def __getattr__(name: str) -> object:
    # `Home`, `Location` and `Source` load on first use: the quick listing path reads
    # BUILTIN without paying for the model and dataclasses behind them.
    if name in ("Home", "Location", "Source"):
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> tuple[str, ...]:
    return BUILTIN


def get(name: str) -> Source:
    # a loaded source is looked up, not imported again: `import_module` costs about
    # 10 us, and a refresh asks for its file's source several times a file
    loaded: Source | None = sys.modules.get(_module_names.get(name, ""))
    if loaded is not None:
        return loaded
    if name not in BUILTIN:
        from ..errors import UnknownApp

        raise UnknownApp(name, BUILTIN)
    module: Source = importlib.import_module(_module_names[name])
    return module


def all_sources(selected: Sequence[str] = ()) -> list[Source]:
    """The sources to use: all of them, or those named (each checked)."""
    return [get(name) for name in (selected or BUILTIN)]
