"""Write the synthetic gptme fixtures (run from anywhere: paths are relative to this file).

Each message is a line as gptme 0.33's `Message.to_dict()` writes it (gptme/gptme@d27f98d3,
`gptme/message.py`): role, content, timestamp (local ISO time, no offset), then only the
keys that are set (files, pinned, hide, call_id, metadata). `config.toml` is what
`ChatConfig.save()` writes ([chat], [env]). Tool calls are written as gptme's three tool
formats write them (`tools/base.py`: markdown blocks, `<tool-use>` xml, `@tool(id): {json}`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
LOGS = ".local/share/gptme/logs"
SYSTEM_PROMPT = (
    "You are gptme v0.33.0, a general-purpose AI assistant powered by LLMs. "
    "You are designed to help users with programming tasks. " * 12
)


def line(role: str, content: str, timestamp: str, **more: object) -> str:
    record: dict[str, object] = {
        "role": role,
        "content": content,
        "timestamp": timestamp,
    }
    record.update(more)
    return json.dumps(record)


def write(folder: Path, name: str, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")


def markdown_conversation(home: Path) -> None:
    folder = home / LOGS / "2026-11-30-happy-blue-fish"
    messages = [
        line("system", SYSTEM_PROMPT, "2026-11-30T10:00:00.000001", pinned=True),
        line("user", "Add a /health endpoint to the API", "2026-11-30T10:00:05.120000"),
        line(
            "assistant",
            "<think>\nThe app is a Flask app; look at the routes first.\n"
            "<!-- think-sig: c2lnbmF0dXJl -->\n</think>\n"
            "Let me look at the routes first.\n\n```shell\nls src/routes\n```",
            "2026-11-30T10:00:09.500000",
            metadata={
                "model": "anthropic/claude-sonnet-4-6",
                "cost": 0.0042,
                "usage": {
                    "input_tokens": 1200,
                    "output_tokens": 80,
                    "cache_read_tokens": 3000,
                    "cache_creation_tokens": 500,
                },
            },
        ),
        line(
            "system",
            "Ran command: `ls src/routes`\n\n```stdout\n__init__.py\nusers.py\n```",
            "2026-11-30T10:00:10.000000",
        ),
        line(
            "assistant",
            "I'll add the endpoint.\n\n```save src/routes/health.py\n"
            "from flask import Blueprint\n\nbp = Blueprint('health', __name__)\n```\n",
            "2026-11-30T10:00:15.000000",
            metadata={
                "model": "anthropic/claude-sonnet-4-6",
                "input_tokens": 1400,
                "output_tokens": 120,
                "cache_read_tokens": 3500,
            },
        ),
        line("system", "Saved to src/routes/health.py", "2026-11-30T10:00:16.000000"),
        line(
            "assistant",
            "A sub-agent writes the tests.\n\n```ipython\n"
            'subagent("impl", "Write the unit tests for health.py")\n```',
            "2026-11-30T10:04:58.000000",
            metadata={
                "model": "anthropic/claude-sonnet-4-6",
                "usage": {"input_tokens": 200, "output_tokens": 30},
            },
        ),
        line(
            "system",
            "Executed code block.\n\n```result\nStarted subagent 'impl'\n```",
            "2026-11-30T10:04:59.000000",
        ),
        line(
            "system",
            "🔄 Auto-compacted conversation to view branch:\n• Messages: 9 → 5\n"
            "• Tokens: 12,000 → 4,100 (65.8% reduction)\n"
            "• View: compacted-001 (master branch preserved with full history)",
            "2026-11-30T10:05:10.000000",
            hide=True,
        ),
        # the completion hook's note (`tools/subagent/hooks.py`), once the child is done
        line(
            "system",
            "✅ Subagent 'impl' completed: tests/test_health.py tests /health.",
            "2026-11-30T10:05:30.000000",
        ),
        line(
            "assistant",
            "Done: `src/routes/health.py` serves /health.",
            "2026-11-30T10:06:20.000000",
            metadata={
                "model": "anthropic/claude-sonnet-4-6",
                "usage": {"input_tokens": 300, "output_tokens": 20},
            },
        ),
    ]
    write(folder, "conversation.jsonl", messages)
    # the branch copy gptme keeps beside the main file: never listed on its own
    write(folder / "branches", "main.jsonl", messages)
    (folder / "config.toml").write_text(
        '[chat]\nname = "Health endpoint for the API"\n'
        'model = "anthropic/claude-sonnet-4-6"\ntools = ["shell", "save", "patch"]\n'
        'stream = true\ninteractive = true\nworkspace = "/home/alex/code/shop-api"\n\n'
        '[env]\nOPENAI_API_KEY = "sk-dummy-never-read"\n',
        encoding="utf-8",
    )
    (folder / ".lock").write_text("4242", encoding="utf-8")


def native_conversation(home: Path) -> None:
    folder = home / LOGS / "2026-12-02-brave-red-owl"
    write(
        folder,
        "conversation.jsonl",
        [
            line(
                "system",
                "You are gptme.",
                "2026-12-02T09:00:00",
                pinned=True,
                hide=True,
            ),
            line(
                "user",
                "Why does the build fail?",
                "2026-12-02T09:00:02",
                files=["/home/alex/code/mono/build.log"],
            ),
            line(
                "assistant",
                'Let me run it.\n\n@shell(call_7Qx1): {"command": "make build"}',
                "2026-12-02T09:00:05",
                metadata={
                    "model": "openai/gpt-5",
                    "cost": 0.0011,
                    "usage": {
                        "input_tokens": 900,
                        "output_tokens": 40,
                        "cache_read_tokens": 1024,
                    },
                },
            ),
            line(
                "system",
                "Ran command: `make build`\nerror: missing header foo.h",
                "2026-12-02T09:00:09",
                call_id="call_7Qx1",
                metadata={"tool": "shell"},
            ),
            line(
                "assistant",
                "<tool-use>\n<shell>\ngrep -rn foo.h src\n</shell>\n</tool-use>",
                "2026-12-02T09:00:12",
                metadata={"model": "openai/gpt-5"},
            ),
            line("system", "Execution declined by user", "2026-12-02T09:00:14"),
            line("user", "Just tell me what you think", "2026-12-02T09:00:20"),
            line(
                "assistant",
                "It looks like foo.h... ^C Interrupted",
                "2026-12-02T09:00:22",
            ),
            line("system", "Interrupted by user", "2026-12-02T09:00:22"),
        ],
    )
    (folder / "config.toml").write_text(
        '[chat]\nmodel = "openai/gpt-5"\ntool_format = "tool"\n'
        'workspace = "/home/alex/code/mono"\n\n[env]\n',
        encoding="utf-8",
    )


def subagent_conversation(home: Path) -> None:
    # an executor's folder: `subagent-<agent id>-<4 random characters>`
    # (`tools/subagent/api.py`), its instructions before the task
    folder = home / LOGS / "subagent-impl-k3x9"
    write(
        folder,
        "conversation.jsonl",
        [
            line(
                "system",
                "When you have finished the task, use the `complete` tool.",
                "2026-11-30T10:04:59.500000",
            ),
            line("user", "Write the unit tests for health.py", "2026-11-30T10:05:00"),
            line(
                "assistant",
                "```ipython\nprint(1 + 1)\n```",
                "2026-11-30T10:05:03",
                metadata={
                    "model": "anthropic/claude-haiku-4-5",
                    "usage": {"input_tokens": 50, "output_tokens": 9},
                },
            ),
            line(
                "system",
                "Executed code block.\n\n```stdout\n2\n```",
                "2026-11-30T10:05:04",
            ),
        ],
    )
    (folder / "config.toml").write_text(
        '[chat]\nworkspace = "/home/alex/code/shop-api"\n', encoding="utf-8"
    )


def settings(home: Path) -> None:
    """The user's settings with its keys (dummy values): sessdex must never open them."""
    config = home / ".config" / "gptme"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[env]\nANTHROPIC_API_KEY = "sk-ant-dummy"\n', encoding="utf-8"
    )
    (config / "config.local.toml").write_text(
        '[env]\nOPENAI_API_KEY = "sk-dummy"\n', encoding="utf-8"
    )


def malformed(home: Path) -> None:
    folder = home / LOGS / "2026-12-03-broken-things"
    good = line("user", "Fix the flaky test", "2026-12-03T08:00:00")
    write(
        folder,
        "conversation.jsonl",
        [
            good,
            "{not json",
            json.dumps(["a", "list"]),
            json.dumps(
                {"role": "assistant", "content": 42, "timestamp": "2026-12-03T08:00:01"}
            ),
            json.dumps(
                {"role": "tool", "content": "?", "timestamp": "2026-12-03T08:00:02"}
            ),
            json.dumps(
                {
                    "role": "assistant",
                    "content": "```shell\nls",
                    "timestamp": 7,
                    "metadata": {"model": 5, "usage": {"input_tokens": "x"}},
                }
            ),
            json.dumps(
                {"role": "system", "content": '@shell(c1): {"command": ', "files": "x"}
            ),
            json.dumps({"role": "user", "content": "tr"})[:20],
        ],
    )
    (folder / "config.toml").write_text("[chat]\nname = \n[env]\n", encoding="utf-8")
    empty = home / LOGS / "2026-12-04-empty"
    empty.mkdir(parents=True, exist_ok=True)
    (empty / "conversation.jsonl").write_text("", encoding="utf-8")
    (home / LOGS / "no-conversation-file").mkdir(parents=True, exist_ok=True)


def main() -> None:
    for target in (HERE / "home", HERE / "malformed" / "home"):
        shutil.rmtree(target, ignore_errors=True)
    home = HERE / "home"
    markdown_conversation(home)
    native_conversation(home)
    subagent_conversation(home)
    settings(home)
    malformed(HERE / "malformed" / "home")


if __name__ == "__main__":
    main()
