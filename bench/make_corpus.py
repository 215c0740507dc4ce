"""Write a fake home full of Claude Code and Codex sessions, shaped like real ones, for bench/.

Two modes:

* `make_corpus.py OUT --sessions 10000`: many sessions whose *apparent* sizes follow a
  real home's mix (median transcript 168 MB, p90 1.9 GB, largest 2.1 GB) while the disk
  holds only their real head (~80 lines) and tail (>= 600 KB): the middle is a sparse hole.
  Listing reads only heads and tails, so it sees what it would see on a real home.
* `make_corpus.py OUT --real-bytes 512 [--big-lines K]`: one Claude session of that many
  MB of real, fully parseable lines (plus K lines of 50 MB each: a pasted base64 image),
  for full-read benchmarks; `--real-app codex` writes one Codex rollout instead.

Record shapes are copied from files the real CLIs wrote (Claude Code 2.1.197, Codex
0.171.0; see shared/corpus/realcli and FORMATS.md §1-2). Output is deterministic for a
given --seed (SQLite's WAL salts aside). OUT/manifest.json lists what was written.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import multiprocessing
import os
import random
import shutil
import sqlite3
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

try:
    import orjson

    def _dumps(value: object) -> bytes:
        return orjson.dumps(value)
except (
    ImportError
):  # the venv has orjson; the stdlib keeps the script usable without it

    def _dumps(value: object) -> bytes:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the corpus's "today"
MB = 1024 * 1024
# Raised whenever what a corpus holds changes: a cached corpus of an older layout is rewritten
LAYOUT = 2  # 2: Codex exec_command_end lines carry their output, as real ones do
HEAD_LINES = (
    100  # sessdex reads 80; the margin keeps a head read (which skips over-long
)
# lines without counting them) from running into the sparse hole, which real files lack
TAIL_MIN = (
    600 * 1024
)  # real bytes at the end of a sparse transcript (sessdex reads 512 KiB)
BIG_LINE = 50 * MB  # --big-lines: one pasted image of this size
ZST_AFTER_DAYS = 7  # Codex compresses rollouts this old (MIN_ROLLOUT_AGE)

CLAUDE_VERSIONS = ("2.1.150", "2.1.172", "2.1.188", "2.1.190", "2.1.197", "2.1.197")
CLAUDE_MODELS = (
    "claude-opus-4-8",
    "claude-opus-4-8",
    "claude-sonnet-4-7",
    "claude-haiku-4-5",
)
CODEX_VERSIONS = ("0.150.0", "0.163.2", "0.168.0", "0.171.0", "0.171.0")
CODEX_MODELS = ("gpt-5.5", "gpt-5.5", "gpt-5.4-codex", "gpt-5.5-mini")
EFFORTS = (None, "low", "medium", "high", "xhigh")
BRANCHES = (
    "main",
    "main",
    "feature/checkout-retry",
    "fix/flaky-login",
    "refactor/db-layer",
    "chore/deps",
    "feature/search",
    "HEAD",
)
PROJECTS = (
    "shop-api", "shop-web", "infra", "dotfiles", "ml-pipeline", "billing", "docs-site",
    "auth-service", "mobile-app", "data-warehouse", "cli-tools", "game-engine", "notes",
    "blog", "payments", "search", "monorepo", "scraper", "kernel-patches", "homelab",
)  # fmt: skip
TOOLS = ("Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite", "WebFetch")
PROMPTS = (
    "Fix the failing checkout retry test and explain the root cause.",
    "Add pagination to the /orders endpoint, with tests.",
    "Why does the login flow flake on CI? Investigate and propose a fix.",
    "Refactor the db layer to use a connection pool.",
    "Bump all dependencies and fix whatever breaks.",
    "Write a migration that backfills the new status column.",
    "Review this diff for correctness bugs.",
    "Summarise what changed in the last 20 commits.",
    "Port the scraper from requests to httpx with retries.",
    "Profile the search endpoint; p99 is 900 ms.",
)
_TEXT = (
    "the a to of and in is for that def return self if else import from with as not None "
    "True False raise try except class async await yield lambda for while break continue "
    "order cart checkout retry payment user session token cache index query result error "
    "value config path file line test assert mock fixture request response status json "
    "int str list dict bytes len range print log debug info warning timeout connection pool"
)
WORDS = tuple(_TEXT.split(" "))


# --- shared material ---------------------------------------------------------------------


class Material:
    """Deterministic filler: prose/code text and base64, sliced rather than regenerated."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"{seed}:material")
        parts: list[str] = []
        size = 0
        while size < 4 * MB:
            n = ri(rng, 4, 14)
            line = " ".join(rng.choice(WORDS) for _ in range(n))
            indent = " " * (4 * ri(rng, 0, 3))
            if rng.random() < 0.08:
                line = f'{indent}msg = "{line}"  # {ri(rng, 0, 10**6)}'
            elif rng.random() < 0.05:
                line = f"{indent}path\\to\\{line}\tcol\t{rng.random():.6f}"
            else:
                line = indent + line
            parts.append(line)
            size += len(line) + 1
        self.text = "\n".join(parts)
        self.b64 = base64.b64encode(rng.randbytes(3 * MB // 4 * 1)).decode()  # 1 MB

    def slice(self, rng: random.Random, n: int) -> str:
        if n <= 0:
            return ""
        out = []
        while n > 0:
            take = min(n, len(self.text) - 1)
            start = int(rng.random() * (len(self.text) - take))
            out.append(self.text[start : start + take])
            n -= take
        return "".join(out)

    def image(self, n: int) -> bytes:
        """`n` bytes of base64, as a pasted PNG would be stored."""
        reps, rest = divmod(n, len(self.b64))
        data = self.b64.encode()
        return data * reps + data[:rest]


_MATERIAL: Material | None = None


def material(seed: int) -> Material:
    global _MATERIAL
    if _MATERIAL is None:
        _MATERIAL = Material(seed)
    return _MATERIAL


def uuid4(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return (
        f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"
    )


def uuid7(rng: random.Random, ms: int) -> str:
    h = f"{ms & (2**48 - 1):012x}{rng.getrandbits(80):020x}"
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def ri(rng: random.Random, lo: int, hi: int) -> int:
    """rng.randint(lo, hi), several times faster (the generator calls it millions of times)."""
    return lo + int(rng.random() * (hi - lo + 1))


_SECONDS: dict[int, str] = {}


def iso(ms: int) -> str:
    seconds = ms // 1000
    text = _SECONDS.get(seconds)
    if text is None:
        if len(_SECONDS) > 100_000:
            _SECONDS.clear()
        text = _SECONDS[seconds] = datetime.fromtimestamp(seconds, UTC).strftime(
            "%Y-%m-%dT%H:%M:%S."
        )
    return f"{text}{ms % 1000:03d}Z"


def hexid(rng: random.Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


def apparent_size(rng: random.Random, median: float, p90: float, largest: float) -> int:
    """A transcript size from a lognormal fitted to (median, p90), its top squeezed below `largest`."""
    sigma = math.log(p90 / median) / 1.2815516
    x = math.exp(math.log(median) + sigma * rng.gauss(0.0, 1.0))
    if x > p90:
        x = p90 + (largest - p90) * (1 - p90 / x)
    return int(x)


def tool_text(rng: random.Random, m: Material, big_share: float) -> str:
    if rng.random() < big_share:
        return m.slice(rng, ri(rng, 20_000, 60_000))
    return m.slice(rng, int(rng.expovariate(1 / 600)) + 20)


# --- Claude Code ---------------------------------------------------------------------------


class Claude:
    """Writes one Claude Code transcript's lines, in the 2.1.x envelope."""

    def __init__(
        self, rng: random.Random, m: Material, sid: str, cwd: str, start_ms: int
    ):
        self.rng, self.m, self.sid, self.cwd = rng, m, sid, cwd
        self.t = start_ms
        self.parent: str | None = None
        self.version = rng.choice(CLAUDE_VERSIONS)
        self.model = rng.choice(CLAUDE_MODELS)
        self.branch = rng.choice(BRANCHES)
        self.entry = rng.choice(("cli", "cli", "cli", "sdk-cli"))
        self.mode = rng.choice(
            ("default", "default", "acceptEdits", "bypassPermissions", "plan")
        )
        self.prompt_id = uuid4(rng)
        self.agent_id: str | None = None  # set for sub-agent transcripts
        self.spawns: list[tuple[str, str, str]] = []  # (agent id, tool use id, type)
        self.spawn_rate = 0.004  # share of tool calls that spawn a sub-agent
        self.first_prompt = ""

    def tick(self, lo: int = 20, hi: int = 4000) -> str:
        self.t += ri(self.rng, lo, hi)
        return iso(self.t)

    def envelope(
        self, kind: str, body: dict[str, object], **more: object
    ) -> dict[str, object]:
        uuid = uuid4(self.rng)
        record: dict[str, object] = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        if kind == "user":
            record["promptId"] = self.prompt_id
        record["type"] = kind
        record.update(body)
        record.update(uuid=uuid, timestamp=self.tick(), **more)
        record.update(
            userType="external",
            entrypoint=self.entry,
            cwd=self.cwd,
            sessionId=self.sid,
            version=self.version,
            gitBranch=self.branch,
        )
        self.parent = uuid
        return record

    def bookkeeping(self, text: str) -> list[dict[str, object]]:
        ts = self.tick()
        lines: list[dict[str, object]] = [
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": ts,
                "sessionId": self.sid,
                "content": text,
            },
            {
                "type": "queue-operation",
                "operation": "dequeue",
                "timestamp": ts,
                "sessionId": self.sid,
            },
        ]
        if self.rng.random() < 0.5:
            lines.insert(0, {"type": "mode", "mode": "normal", "sessionId": self.sid})
            lines.insert(
                1,
                {
                    "type": "permission-mode",
                    "permissionMode": self.mode,
                    "sessionId": self.sid,
                },
            )
        return lines

    def prompt(self, text: str) -> list[dict[str, object]]:
        self.prompt_id = uuid4(self.rng)
        self.first_prompt = self.first_prompt or text
        extra: dict[str, object] = {
            "permissionMode": self.mode,
            "promptSource": "typed",
        }
        lines = [] if self.agent_id else self.bookkeeping(text)
        lines.append(
            self.envelope(
                "user", {"message": {"role": "user", "content": text}}, **extra
            )
        )
        return lines

    def image_prompt(self, size: int) -> bytes:
        """A user line with a pasted base64 image of `size` bytes, built without a huge str."""
        marker = "@@IMAGE@@"
        record = self.envelope(
            "user",
            {
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "Here is a screenshot of the broken page.",
                        },
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": marker,
                            },
                        },
                    ],
                }
            },
            permissionMode=self.mode,
            promptSource="typed",
        )
        before, after = _dumps(record).split(marker.encode())
        return before + self.m.image(size) + after

    def attachments(self) -> list[dict[str, object]]:
        lines = []
        for kind in ("agent_listing_delta", "skill_listing"):
            content = self.m.slice(self.rng, ri(self.rng, 2500, 6000))
            body = {"attachment": {"type": kind, "content": content}}
            lines.append(self.envelope("attachment", body))
        return lines

    def response(
        self, blocks: list[dict[str, object]], stop: str
    ) -> list[dict[str, object]]:
        """One API response: a line per content block, sharing message.id, requestId and usage."""
        rng = self.rng
        message_id = "msg_" + hexid(rng, 24)
        request_id = "req_" + hexid(rng, 24)
        usage_in = ri(rng, 5, 4000)
        cache_read = ri(rng, 0, 180_000)
        cache_write = ri(rng, 0, 8000)
        output = ri(rng, 20, 2500)
        lines = []
        for n, block in enumerate(blocks):
            last = n == len(blocks) - 1
            usage = {
                "input_tokens": usage_in,
                "cache_creation_input_tokens": cache_write,
                "cache_read_input_tokens": cache_read,
                "output_tokens": output if last else ri(rng, 1, output),
                "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                "service_tier": "standard",
                "cache_creation": {
                    "ephemeral_1h_input_tokens": 0,
                    "ephemeral_5m_input_tokens": cache_write,
                },
                "inference_geo": "",
                "iterations": [],
                "speed": "standard",
            }
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [block],
                "stop_reason": stop if last else None,
                "stop_sequence": None,
                "usage": usage,
                "stop_details": None,
            }
            lines.append(
                self.envelope(
                    "assistant", {"message": message, "requestId": request_id}
                )
            )
            self.t -= ri(rng, 0, 15)  # the blocks of one response are written together
        return lines

    def tool_cycle(self, big_share: float) -> list[dict[str, object]]:
        rng, m = self.rng, self.m
        blocks: list[dict[str, object]] = []
        if rng.random() < 0.4:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": m.slice(rng, ri(rng, 100, 1500)),
                    "signature": hexid(rng, 96),
                }
            )
        if rng.random() < 0.5:
            blocks.append({"type": "text", "text": m.slice(rng, ri(rng, 40, 600))})
        tool_id = "toolu_" + hexid(rng, 24)
        tool = rng.choice(TOOLS)
        spawn = self.agent_id is None and rng.random() < self.spawn_rate
        if spawn:
            agent_type = rng.choice(("general-purpose", "Explore", "Plan"))
            tool_input: dict[str, object] = {
                "prompt": m.slice(rng, 300),
                "description": "Investigate the failure",
                "subagent_type": agent_type,
            }
            tool = "Agent"
        elif tool == "Bash":
            tool_input = {
                "command": "pytest -x tests/" + rng.choice(WORDS),
                "description": "Run the tests",
            }
        elif tool in ("Read", "Write", "Edit"):
            tool_input = {"file_path": f"{self.cwd}/src/{rng.choice(WORDS)}.py"}
            if tool != "Read":
                tool_input["content" if tool == "Write" else "new_string"] = m.slice(
                    rng, ri(rng, 100, 1500)
                )
        else:
            tool_input = {"pattern": rng.choice(WORDS)}
        blocks.append(
            {"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}
        )
        lines = self.response(blocks, "tool_use")
        source_uuid = self.parent
        if spawn:
            agent_id = "a" + hexid(rng, 16)
            self.spawns.append((agent_id, tool_id, agent_type))
            text = f"The sub-agent found the cause.\nagentId: {agent_id} (use SendMessage with to: '{agent_id}' to continue this agent)"
            result: dict[str, object] = {
                "status": "completed",
                "agentId": agent_id,
                "agentType": agent_type,
                "content": [{"type": "text", "text": text}],
                "totalTokens": ri(rng, 1000, 90_000),
            }
        else:
            text = tool_text(rng, m, big_share)
            result = {
                "stdout": text,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            }
        content = [
            {
                "tool_use_id": tool_id,
                "type": "tool_result",
                "content": text,
                "is_error": rng.random() < 0.05,
            }
        ]
        lines.append(
            self.envelope(
                "user",
                {"message": {"role": "user", "content": content}},
                toolUseResult=result,
                sourceToolAssistantUUID=source_uuid,
            )
        )
        return lines

    def turn(self, big_share: float, cycles: int) -> list[dict[str, object]]:
        lines = self.prompt(
            self.rng.choice(PROMPTS)
            + " "
            + self.m.slice(self.rng, ri(self.rng, 0, 400))
        )
        for _ in range(cycles):
            lines += self.tool_cycle(big_share)
        lines += self.response(
            [{"type": "text", "text": self.m.slice(self.rng, ri(self.rng, 80, 1500))}],
            "end_turn",
        )
        if not self.agent_id:
            body = {
                "subtype": "turn_duration",
                "durationMs": ri(self.rng, 2000, 600_000),
                "messageCount": len(lines),
                "isMeta": False,
            }
            lines.append(self.envelope("system", body))
        return lines

    def titles(self) -> list[dict[str, object]]:
        rng = self.rng
        lines: list[dict[str, object]] = [
            {
                "type": "last-prompt",
                "lastPrompt": self.first_prompt[:200],
                "leafUuid": self.parent,
                "sessionId": self.sid,
            }
        ]
        if rng.random() < 0.85:
            lines.append(
                {
                    "type": "ai-title",
                    "aiTitle": rng.choice(PROMPTS).rstrip(".")[:60],
                    "sessionId": self.sid,
                }
            )
        if rng.random() < 0.1:
            lines.append(
                {
                    "type": "custom-title",
                    "customTitle": f"{rng.choice(PROJECTS)}: {rng.choice(WORDS)} work",
                    "sessionId": self.sid,
                }
            )
        if rng.random() < 0.3:
            lines.append({"type": "mode", "mode": "normal", "sessionId": self.sid})
        return lines


def _lines(records: list[dict[str, object]]) -> list[bytes]:
    return [_dumps(r) + b"\n" for r in records]


def claude_session(
    rng,
    m,
    sid,
    cwd,
    start_ms,
    tail_ms,
    *,
    image_share=0.02,
    big_share=0.03,
    subagent_share=1.0,
):
    """(head lines, tail lines, writer) of one sparse Claude transcript."""
    c = Claude(rng, m, sid, cwd, start_ms)
    head: list[bytes] = []
    if (
        rng.random() < 0.2
    ):  # titles also land at the top when generated early (as in 2.1.197)
        head += _lines(
            [
                {
                    "type": "ai-title",
                    "aiTitle": rng.choice(PROMPTS).rstrip(".")[:60],
                    "sessionId": sid,
                }
            ]
        )
    first = c.prompt(rng.choice(PROMPTS))
    head += _lines(first)
    head += _lines(c.attachments())
    if rng.random() < image_share:
        head.append(c.image_prompt(ri(rng, 3 * MB, 6 * MB)) + b"\n")
    while len(head) < HEAD_LINES:
        for n, record in enumerate(c.tool_cycle(big_share)):
            if len(head) < HEAD_LINES or n:
                head.append(_dumps(record) + b"\n")
    if subagent_share < 1.0:
        c.spawns = [s for s in c.spawns if rng.random() < subagent_share]
    # the middle of the session is the hole; the tail starts later in time
    c.t = max(c.t, tail_ms)
    c.parent = uuid4(rng)
    tail: list[bytes] = [b"\n"]
    size = 1
    target = TAIL_MIN + ri(rng, 0, 32 * 1024)
    while size < target:  # the session may stop mid-turn
        for line in _lines(c.turn(big_share / 2, ri(rng, 1, 6))):
            tail.append(line)
            size += len(line)
            if size >= target:
                break
    tail += _lines(c.titles())
    return head, tail, c


def claude_subagent(rng, m, sid, cwd, agent_id, start_ms) -> list[bytes]:
    c = Claude(rng, m, sid, cwd, start_ms)
    c.agent_id = agent_id
    lines = _lines(c.prompt("You are a sub-agent. " + rng.choice(PROMPTS)))
    lines += _lines(
        [
            c.envelope(
                "attachment",
                {
                    "attachment": {
                        "type": "skill_listing",
                        "content": m.slice(rng, 3000),
                    }
                },
            )
        ]
    )
    lines += _lines(c.turn(0.05, ri(rng, 2, 12))[1:])
    return lines


# --- Codex ---------------------------------------------------------------------------------


class Codex:
    """Writes one Codex rollout's lines, in the wrapped (0.150-0.171) envelope."""

    def __init__(self, rng, m, tid, cwd, start_ms, source="cli", parent=None):
        self.rng, self.m, self.tid, self.cwd = rng, m, tid, cwd
        self.t = start_ms
        self.ordinal = 0
        self.version = rng.choice(CODEX_VERSIONS)
        self.paginated = self.version == "0.171.0"
        self.model = rng.choice(CODEX_MODELS)
        self.effort = rng.choice(EFFORTS)
        self.branch = rng.choice(BRANCHES)
        self.approval = rng.choice(("on-request", "on-request", "never", "untrusted"))
        self.sandbox = rng.choice(
            ("workspace-write", "workspace-write", "read-only", "danger-full-access")
        )
        self.source = source
        self.parent = parent
        self.total = {
            "input_tokens": 0,
            "cached_input_tokens": 0,
            "cache_write_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": 0,
        }
        self.turn_id = uuid7(rng, start_ms)
        self.first_prompt = ""
        self.git_sha = hexid(rng, 40)

    def line(self, kind: str, payload: dict[str, object]) -> dict[str, object]:
        self.t += ri(self.rng, 1, 2500)
        record = {
            "timestamp": iso(self.t),
            "ordinal": self.ordinal,
            "type": kind,
            "payload": payload,
        }
        self.ordinal += 1
        return record

    def meta(self) -> list[dict[str, object]]:
        rng, m = self.rng, self.m
        payload: dict[str, object] = {
            "account_scoped": True,
            "session_id": self.tid,
            "id": self.tid,
            "timestamp": iso(self.t),
            "cwd": self.cwd,
            "runtime_workspace_roots": [self.cwd],
            "originator": {
                "cli": "codex-tui",
                "exec": "codex_exec",
                "vscode": "codex_vscode",
            }.get(str(self.source), "codex_exec"),
            "cli_version": self.version,
            "source": self.source,
            "thread_source": "subagent" if self.parent else "user",
            "model_provider": "openai",
            "base_instructions": {
                "text": "You are Codex, a coding agent based on GPT-5. You and the user share one workspace.\n\n# Personality\n\n"
                + m.slice(rng, 20_000)
            },
            "history_mode": "paginated" if self.paginated else "legacy",
            "git": {
                "commit_hash": self.git_sha,
                "branch": self.branch,
                "repository_url": f"git@github.com:alex/{self.cwd.rsplit('/', 1)[-1]}.git",
            },
        }
        if self.parent:
            payload.update(
                forked_from_id=self.parent,
                parent_thread_id=self.parent,
                agent_nickname="Kierkegaard",
                agent_path="/root/worker",
            )
        lines = [self.line("session_meta", payload)]
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "message",
                    "id": "msg_" + uuid7(rng, self.t),
                    "role": "developer",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<skills_instructions>\n## Skills\n"
                            + m.slice(rng, 5800),
                        }
                    ],
                },
            )
        )
        env = f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>{iso(self.t)[:10]}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>"
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "message",
                    "id": "msg_" + uuid7(rng, self.t),
                    "role": "user",
                    "content": [{"type": "input_text", "text": env}],
                },
            )
        )
        if self.paginated:
            lines.append(
                self.line(
                    "world_state",
                    {
                        "full": True,
                        "state": {
                            "agents_md": {},
                            "collaboration_mode": {
                                "mode": "default",
                                "model": self.model,
                            },
                            "notes": m.slice(rng, 5500),
                        },
                    },
                )
            )
        return lines

    def turn_context(self) -> dict[str, object]:
        return self.line(
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.cwd,
                "approval_policy": self.approval,
                "sandbox_policy": {"type": self.sandbox},
                "model": self.model,
                "effort": self.effort,
                "summary": "auto",
                "collaboration_mode": {
                    "mode": "default",
                    "settings": {
                        "model": self.model,
                        "reasoning_effort": self.effort,
                        "developer_instructions": None,
                    },
                },
            },
        )

    def token_count(self, extra: int = 0) -> dict[str, object]:
        rng = self.rng
        last = {
            "input_tokens": ri(rng, 2000, 120_000) + extra,
            "cached_input_tokens": 0,
            "cache_write_input_tokens": 0,
            "output_tokens": ri(rng, 20, 3000),
            "reasoning_output_tokens": ri(rng, 0, 2000),
            "total_tokens": 0,
        }
        last["cached_input_tokens"] = last["input_tokens"] * ri(rng, 0, 9) // 10
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for k in self.total:
            self.total[k] += last[k]
        info = {
            "total_token_usage": dict(self.total),
            "last_token_usage": last,
            "last_usage_includes_reasoning": False,
            "model_context_window": 258400,
        }
        return self.line(
            "event_msg",
            {
                "type": "token_count",
                "info": info,
                "rate_limits": {
                    "limit_id": "codex",
                    "primary": None,
                    "secondary": None,
                },
            },
        )

    def user(self, text: str) -> list[dict[str, object]]:
        rng = self.rng
        self.turn_id = uuid7(rng, self.t)
        self.first_prompt = self.first_prompt or text
        lines = [
            self.line(
                "event_msg",
                {
                    "type": "task_started",
                    "turn_id": self.turn_id,
                    "started_at": self.t // 1000,
                    "model_context_window": 258400,
                    "collaboration_mode_kind": "default",
                },
            )
        ]
        lines.append(self.turn_context())
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "message",
                    "id": "msg_" + uuid7(rng, self.t),
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            )
        )
        if self.paginated:
            lines.append(
                self.line(
                    "event_msg",
                    {
                        "type": "item_completed",
                        "thread_id": self.tid,
                        "turn_id": self.turn_id,
                        "item": {
                            "type": "UserMessage",
                            "id": uuid7(rng, self.t),
                            "content": [
                                {"type": "text", "text": text, "text_elements": []}
                            ],
                        },
                    },
                )
            )
        else:
            lines.append(
                self.line(
                    "event_msg",
                    {
                        "type": "user_message",
                        "message": text,
                        "images": [],
                        "local_images": [],
                        "text_elements": [],
                    },
                )
            )
        return lines

    def image(self, size: int) -> bytes:
        marker = "@@IMAGE@@"
        record = self.line(
            "response_item",
            {
                "type": "message",
                "id": "msg_" + uuid7(self.rng, self.t),
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "see the screenshot"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64," + marker,
                    },
                ],
            },
        )
        before, after = _dumps(record).split(marker.encode())
        return before + self.m.image(size) + after

    def tool_cycle(self, big_share: float) -> list[dict[str, object]]:
        rng, m = self.rng, self.m
        lines = []
        if rng.random() < 0.4:
            lines.append(
                self.line(
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [
                            {
                                "type": "summary_text",
                                "text": m.slice(rng, ri(rng, 80, 800)),
                            }
                        ],
                        "encrypted_content": base64.b64encode(
                            rng.randbytes(ri(rng, 300, 3000))
                        ).decode(),
                    },
                )
            )
        call_id = "call_" + hexid(rng, 24)
        command = "rg -n " + rng.choice(WORDS) + " src/"
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "function_call",
                    "status": "completed",
                    "id": "fc_" + hexid(rng, 24),
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": command}),
                    "call_id": call_id,
                },
            )
        )
        output = tool_text(rng, m, big_share)
        if self.paginated:
            lines.append(
                self.line(
                    "event_msg",
                    {
                        "type": "item_completed",
                        "thread_id": self.tid,
                        "turn_id": self.turn_id,
                        "item": {
                            "type": "CommandExecution",
                            "id": call_id,
                            "command": ["/bin/bash", "-lc", command],
                            "status": "completed",
                            "aggregated_output": output[:2000],
                            "exit_code": 0,
                        },
                    },
                )
            )
        else:
            lines.append(
                self.line(
                    "event_msg",
                    {  # as 0.146-0.170 write it: the output three times over
                        "type": "exec_command_end",
                        "call_id": call_id,
                        "turn_id": self.turn_id,
                        "command": ["/bin/bash", "-lc", command],
                        "cwd": self.cwd,
                        "parsed_cmd": [{"type": "unknown", "cmd": command}],
                        "source": "agent",
                        "stdout": output,
                        "stderr": "",
                        "aggregated_output": output,
                        "exit_code": 0,
                        "duration": {"secs": ri(rng, 0, 30), "nanos": 0},
                        "formatted_output": output,
                        "status": "completed",
                    },
                )
            )
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "function_call_output",
                    "id": "fco_" + uuid7(rng, self.t),
                    "call_id": call_id,
                    "output": f"Chunk ID: {hexid(rng, 6)}\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n"
                    + output,
                },
            )
        )
        lines.append(self.token_count())
        return lines

    def answer(self) -> list[dict[str, object]]:
        rng = self.rng
        text = self.m.slice(rng, ri(rng, 80, 1500))
        lines = []
        if self.paginated:
            lines.append(
                self.line(
                    "event_msg",
                    {
                        "type": "item_completed",
                        "thread_id": self.tid,
                        "turn_id": self.turn_id,
                        "item": {
                            "type": "AgentMessage",
                            "id": "msg_" + hexid(rng, 24),
                            "content": [{"type": "Text", "text": text}],
                        },
                    },
                )
            )
        else:
            lines.append(
                self.line(
                    "event_msg",
                    {"type": "agent_message", "message": text, "phase": "final_answer"},
                )
            )
        lines.append(
            self.line(
                "response_item",
                {
                    "type": "message",
                    "status": "completed",
                    "id": "msg_" + hexid(rng, 24),
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": text, "annotations": []}
                    ],
                },
            )
        )
        lines.append(self.token_count())
        lines.append(
            self.line(
                "event_msg",
                {
                    "type": "task_complete",
                    "turn_id": self.turn_id,
                    "last_agent_message": text[:200],
                    "duration_ms": ri(rng, 1000, 600_000),
                },
            )
        )
        return lines

    def turn(self, big_share: float, cycles: int) -> list[dict[str, object]]:
        lines = self.user(self.rng.choice(PROMPTS))
        for _ in range(cycles):
            lines += self.tool_cycle(big_share)
        return lines + self.answer()


def codex_session(
    rng,
    m,
    tid,
    cwd,
    start_ms,
    tail_ms,
    apparent,
    *,
    source="cli",
    parent=None,
    image_share=0.02,
    big_share=0.06,
    tail_min=TAIL_MIN,
):
    c = Codex(rng, m, tid, cwd, start_ms, source, parent)
    head = _lines(c.meta())
    head += _lines(c.user(rng.choice(PROMPTS) + " " + m.slice(rng, ri(rng, 0, 300))))
    if rng.random() < image_share:
        head.append(c.image(ri(rng, 3 * MB, 6 * MB)) + b"\n")
    while len(head) < HEAD_LINES:
        head += _lines(c.tool_cycle(big_share))
    head += _lines(c.answer())
    c.t = max(c.t, tail_ms)
    c.token_count(extra=apparent // 8)  # the hole's share of the cumulative usage
    tail: list[bytes] = [b"\n"]
    size = 1
    target = tail_min + ri(rng, 0, 32 * 1024)
    while size < target:
        for line in _lines(c.turn(big_share / 2, ri(rng, 1, 6))):
            tail.append(line)
            size += len(line)
            if size >= target:
                break
    return head, tail, c


# --- writing -------------------------------------------------------------------------------


def write_sparse(
    path: Path, head: list[bytes], tail: list[bytes], apparent: int, mtime: float
) -> tuple[int, int]:
    """Head, a hole, then tail, so that the file's size is `apparent`. Returns (size, real bytes)."""
    head_bytes = b"".join(head)
    tail_bytes = b"".join(tail)
    real = len(head_bytes) + len(tail_bytes)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(head_bytes)
        if apparent > real:
            f.seek(apparent - len(tail_bytes))
        f.write(tail_bytes)
        size = f.tell()
    os.utime(path, (mtime, mtime))
    return size, real


def write_zst(
    path: Path, head: list[bytes], tail: list[bytes], mtime: float
) -> tuple[int, int]:
    import zstandard

    raw = b"".join(head) + b"".join(tail[1:])
    data = zstandard.ZstdCompressor(level=3).compress(raw)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return len(data), len(data)


def _times(rng: random.Random) -> tuple[int, int, int]:
    """(created, tail start, updated-ish) in ms: recent-heavy over the last year."""
    age_days = min(rng.expovariate(1 / 25), 365)
    created = NOW - timedelta(days=age_days)
    length = timedelta(minutes=rng.expovariate(1 / 180) + 2)
    created_ms = int(created.timestamp() * 1000)
    tail_ms = created_ms + int(length.total_seconds() * 1000)
    return created_ms, tail_ms, tail_ms


def _cwd(rng: random.Random) -> str:
    # Zipf-ish: a few projects hold most sessions
    n = min(int(rng.paretovariate(1.2)) - 1, len(PROJECTS) - 1)
    return f"/home/alex/code/{PROJECTS[n]}"


def make_one(task: tuple) -> dict:
    """Write one top-level session (and its sub-agents); return its manifest entry."""
    app, i, seed, home, size_mix, largest_index = task
    home = Path(home)
    m = material(seed)
    rng = random.Random(f"{seed}:{app}:{i}")
    apparent = apparent_size(rng, *size_mix)
    if i == largest_index:
        apparent = int(size_mix[2])
    created_ms, tail_ms, _ = _times(rng)
    cwd = _cwd(rng)
    entry: dict = {"app": app, "apparent": 0, "real": 0, "subagents": []}
    if app == "claude":
        sid = uuid4(rng)
        head, tail, c = claude_session(rng, m, sid, cwd, created_ms, tail_ms)
        slug = cwd.replace("/", "-").replace(".", "-").replace("_", "-")
        path = home / ".claude" / "projects" / slug / f"{sid}.jsonl"
        mtime = c.t / 1000
        size, real = write_sparse(path, head, tail, apparent, mtime)
        entry.update(
            id=sid,
            path=str(path),
            apparent=size,
            real=real,
            image=any(len(x) > MB for x in head),
        )
        for agent_id, tool_id, agent_type in c.spawns:
            sub = path.parent / sid / "subagents" / f"agent-{agent_id}.jsonl"
            lines = claude_subagent(rng, m, sid, cwd, agent_id, created_ms + 60_000)
            sub_size, sub_real = write_sparse(sub, lines, [], 0, mtime)
            meta = sub.with_suffix(".meta.json")
            meta.write_bytes(
                _dumps(
                    {
                        "agentType": agent_type,
                        "description": "Investigate the failure",
                        "toolUseId": tool_id,
                        "spawnDepth": 1,
                    }
                )
            )
            os.utime(meta, (mtime, mtime))
            entry["subagents"].append(
                {
                    "id": agent_id,
                    "path": str(sub),
                    "apparent": sub_size,
                    "real": sub_real,
                }
            )
        return entry
    # codex
    tid = uuid7(rng, created_ms)
    source = rng.choice(("cli", "cli", "exec", "vscode"))
    head, tail, c = codex_session(
        rng, m, tid, cwd, created_ms, tail_ms, apparent, source=source
    )
    created = datetime.fromtimestamp(created_ms / 1000, UTC)
    name = f"rollout-{created:%Y-%m-%dT%H-%M-%S}-{tid}.jsonl"
    folder = home / ".codex" / "sessions" / f"{created:%Y/%m/%d}"
    mtime = c.t / 1000
    old = (NOW.timestamp() - mtime) > ZST_AFTER_DAYS * 86400
    if old and rng.random() < 0.15:
        path = folder / (name + ".zst")
        size, real = write_zst(path, head, tail, mtime)
    else:
        path = folder / name
        size, real = write_sparse(path, head, tail, apparent, mtime)
    entry.update(
        id=tid,
        path=str(path),
        apparent=size,
        real=real,
        image=any(len(x) > MB for x in head),
    )
    entry["thread"] = _thread_row(c, tid, path, created_ms, source, rng)
    if rng.random() < 0.05:  # a spawned sub-agent: its own small rollout
        child_ms = created_ms + 30_000
        child_id = uuid7(rng, child_ms)
        child_source = {
            "subagent": {
                "thread_spawn": {
                    "parent_thread_id": tid,
                    "depth": 1,
                    "agent_path": "/root/worker",
                    "agent_nickname": "Kierkegaard",
                    "agent_role": None,
                }
            }
        }
        ch, ct, cc = codex_session(
            rng,
            m,
            child_id,
            cwd,
            child_ms,
            child_ms + 600_000,
            0,
            source=child_source,
            parent=tid,
            image_share=0,
            big_share=0.02,
            tail_min=20_000,
        )
        child_created = datetime.fromtimestamp(child_ms / 1000, UTC)
        child_path = (
            home
            / ".codex"
            / "sessions"
            / f"{child_created:%Y/%m/%d}"
            / f"rollout-{child_created:%Y-%m-%dT%H-%M-%S}-{child_id}.jsonl"
        )
        sub_size, sub_real = write_sparse(child_path, ch, ct, 0, cc.t / 1000)
        row = _thread_row(
            cc,
            child_id,
            child_path,
            child_ms,
            json.dumps(child_source, separators=(",", ":")),
            rng,
        )
        entry["subagents"].append(
            {
                "id": child_id,
                "path": str(child_path),
                "apparent": sub_size,
                "real": sub_real,
                "thread": row,
            }
        )
    if rng.random() < 0.4:
        entry["names"] = [rng.choice(PROMPTS).rstrip(".")[:40]]
        if rng.random() < 0.2:
            entry["names"].append(f"{cwd.rsplit('/', 1)[-1]}: {rng.choice(WORDS)}")
    return entry


def _thread_row(
    c: Codex, tid: str, path: Path, created_ms: int, source: str, rng: random.Random
) -> dict:
    first = c.first_prompt[:80]
    return {
        "id": tid,
        "rollout_path": str(path),
        "created_at": created_ms // 1000,
        "updated_at": c.t // 1000,
        "source": source if isinstance(source, str) else json.dumps(source),
        "model_provider": "openai",
        "cwd": c.cwd,
        "title": first,
        "sandbox_policy": json.dumps({"type": c.sandbox}, separators=(",", ":")),
        "approval_mode": c.approval,
        "tokens_used": c.total["total_tokens"],
        "has_user_event": 1,
        "git_sha": c.git_sha,
        "git_branch": c.branch,
        "cli_version": c.version,
        "first_user_message": first,
        "model": c.model,
        "reasoning_effort": c.effort,
        "created_at_ms": created_ms,
        "updated_at_ms": c.t,
        "thread_source": "subagent" if c.parent else "user",
        "preview": first,
        "history_mode": "paginated" if c.paginated else "legacy",
        "archived": 0,
        "name": None,
    }


THREADS_DDL = """
CREATE TABLE threads (
    id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, source TEXT NOT NULL, model_provider TEXT NOT NULL,
    cwd TEXT NOT NULL, title TEXT NOT NULL, sandbox_policy TEXT NOT NULL,
    approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
    has_user_event INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0,
    archived_at INTEGER, git_sha TEXT, git_branch TEXT, git_origin_url TEXT,
    cli_version TEXT NOT NULL DEFAULT '', first_user_message TEXT NOT NULL DEFAULT '',
    agent_nickname TEXT, agent_role TEXT, memory_mode TEXT NOT NULL DEFAULT 'enabled',
    model TEXT, reasoning_effort TEXT, agent_path TEXT, created_at_ms INTEGER,
    updated_at_ms INTEGER, thread_source TEXT, preview TEXT NOT NULL DEFAULT '',
    recency_at INTEGER NOT NULL DEFAULT 0, recency_at_ms INTEGER NOT NULL DEFAULT 0,
    history_mode TEXT NOT NULL DEFAULT 'legacy', name TEXT, is_pinned INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_threads_updated_at ON threads(updated_at DESC, id DESC);
CREATE TABLE thread_spawn_edges (
    parent_thread_id TEXT NOT NULL, child_thread_id TEXT NOT NULL PRIMARY KEY,
    status TEXT NOT NULL
);
"""


def write_state_db(
    path: Path,
    rows: list[dict],
    edges: list[tuple[str, str]],
    checkpointed: float = 0.6,
) -> None:
    """state_5.sqlite in WAL mode: the first rows checkpointed, the newest only in the -wal.

    Closing the last connection would checkpoint and delete the WAL, so a forked child
    writes and then exits without closing, as a running Codex leaves it.
    """
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA wal_autocheckpoint = 0")
            db.executescript(THREADS_DDL)
            columns = list(rows[0]) if rows else []
            sql = f"INSERT INTO threads ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            cut = int(len(rows) * checkpointed)
            db.execute("BEGIN")
            db.executemany(sql, [tuple(r[c] for c in columns) for r in rows[:cut]])
            db.execute("COMMIT")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("BEGIN")
            db.executemany(sql, [tuple(r[c] for c in columns) for r in rows[cut:]])
            db.executemany(
                "INSERT INTO thread_spawn_edges VALUES (?, ?, 'closed')", edges
            )
            db.execute("COMMIT")
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise SystemExit(f"writing {path} failed")


def make_many(out: Path, args: argparse.Namespace) -> dict:
    home = out / "home"
    n_codex = round(args.sessions * args.codex_share)
    n_claude = args.sessions - n_codex
    size_mix = (args.median_mb * MB, args.p90_mb * MB, args.largest_mb * MB)
    tasks = [("claude", i, args.seed, str(home), size_mix, 0) for i in range(n_claude)]
    tasks += [
        ("codex", i, args.seed, str(home), size_mix, 0 if n_claude == 0 else -1)
        for i in range(n_codex)
    ]
    workers = args.workers or os.cpu_count() or 1
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers, initializer=material, initargs=(args.seed,)) as pool:
        entries = list(pool.imap(make_one, tasks, chunksize=16))
    # Codex's own indexes: session_index.jsonl (names) and state_5.sqlite (threads)
    codex_root = home / ".codex"
    rows, edges, names = [], [], []
    for e in entries:
        if e["app"] != "codex":
            continue
        rows.append(e.pop("thread"))
        for sub in e["subagents"]:
            rows.append(sub.pop("thread"))
            edges.append((e["id"], sub["id"]))
        for k, name in enumerate(e.pop("names", [])):
            stamp = rows[-1 - len(e["subagents"])]["updated_at_ms"] + k * 60_000
            names.append((stamp, e["id"], name))
    if n_codex:
        rng = random.Random(f"{args.seed}:index")
        names.sort()
        with open(codex_root / "session_index.jsonl", "wb") as f:
            for stamp, tid, name in names:
                f.write(
                    _dumps(
                        {
                            "id": tid,
                            "thread_name": name,
                            "updated_at": iso(stamp)[:-1] + "000000Z",
                        }
                    )
                    + b"\n"
                )
        last_name = {tid: name for _, tid, name in names}
        for row in rows:
            row["name"] = last_name.get(row["id"])
        rows.sort(key=lambda r: r["updated_at_ms"])
        kept = [
            r for r in rows if rng.random() < 0.97
        ]  # the DB lags the rollouts a little
        write_state_db(codex_root / "state_5.sqlite", kept, edges)
        (codex_root / "config.toml").write_text('model = "gpt-5.5"\n')
    if n_claude:
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "settings.json").write_text(
            '{"cleanupPeriodDays": 99999}\n'
        )
    return {"sessions": entries}


def make_real(out: Path, args: argparse.Namespace) -> dict:
    """One Claude transcript of `--real-bytes` MB of real lines, `--big-lines` of them 50 MB."""
    if args.real_app == "codex":
        return make_real_codex(out, args)
    home = out / "home"
    m = material(args.seed)
    rng = random.Random(f"{args.seed}:real")
    sid = uuid4(rng)
    cwd = "/home/alex/code/shop-api"
    created_ms = int((NOW - timedelta(days=2)).timestamp() * 1000)
    c = Claude(rng, m, sid, cwd, created_ms)
    c.spawn_rate = args.spawn_rate
    slug = cwd.replace("/", "-")
    path = home / ".claude" / "projects" / slug / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    target = int(args.real_bytes * MB)
    big_size = int(args.big_line_mb * MB)
    # the first big line sits in the head (line ~12); the others are spread evenly by bytes
    big_at = [target * k // max(1, args.big_lines) for k in range(args.big_lines)]
    written = lines = bigs = 0
    with open(path, "wb") as f:
        for record in c.prompt(rng.choice(PROMPTS)) + c.attachments():
            data = _dumps(record) + b"\n"
            f.write(data)
            written += len(data)
            lines += 1
        while written < target or bigs < args.big_lines:
            if bigs < args.big_lines and written >= big_at[bigs] and lines >= 10:
                data = c.image_prompt(big_size) + b"\n"
                bigs += 1
            else:
                data = b""
                if rng.random() < 0.0015:  # a pasted 3-6 MB screenshot now and then
                    data = c.image_prompt(ri(rng, 3 * MB, 6 * MB)) + b"\n"
                data += b"".join(_lines(c.turn(0.08, ri(rng, 1, 6))))
            f.write(data)
            written += len(data)
            lines += data.count(b"\n")
        tail = b"".join(_lines(c.titles()))
        f.write(tail)
        written += len(tail)
    mtime = c.t / 1000
    os.utime(path, (mtime, mtime))
    subagents = []
    for agent_id, tool_id, agent_type in c.spawns if args.subagent_files else ():
        sub = path.parent / sid / "subagents" / f"agent-{agent_id}.jsonl"
        sub.parent.mkdir(parents=True, exist_ok=True)
        data = b"".join(claude_subagent(rng, m, sid, cwd, agent_id, created_ms))
        sub.write_bytes(data)
        meta = {"agentType": agent_type, "description": "Investigate the failure",
                "toolUseId": tool_id, "spawnDepth": 1}  # fmt: skip
        sub.with_suffix(".meta.json").write_bytes(_dumps(meta))
        os.utime(sub, (mtime, mtime))
        subagents.append(
            {"id": agent_id, "path": str(sub), "apparent": len(data), "real": len(data)}
        )
    entry = {
        "app": "claude",
        "id": sid,
        "path": str(path),
        "apparent": written,
        "real": written,
        "lines": lines,
        "big_lines": bigs,
        "subagents": subagents,
    }
    return {"sessions": [entry]}


def make_real_codex(out: Path, args: argparse.Namespace) -> dict:
    """One Codex rollout of `--real-bytes` MB of real lines (no big lines)."""
    home = out / "home"
    m = material(args.seed)
    rng = random.Random(f"{args.seed}:real-codex")
    created_ms = int((NOW - timedelta(days=2)).timestamp() * 1000)
    tid = uuid7(rng, created_ms)
    c = Codex(rng, m, tid, "/home/alex/code/shop-api", created_ms)
    created = datetime.fromtimestamp(created_ms / 1000, UTC)
    folder = home / ".codex" / "sessions" / f"{created:%Y/%m/%d}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-{created:%Y-%m-%dT%H-%M-%S}-{tid}.jsonl"
    target = int(args.real_bytes * MB)
    written = lines = 0
    with open(path, "wb") as f:
        records = c.meta() + c.user(rng.choice(PROMPTS))
        while written < target:
            data = b"".join(_lines(records))
            f.write(data)
            written += len(data)
            lines += data.count(b"\n")
            records = c.turn(0.08, ri(rng, 1, 6))
    mtime = c.t / 1000
    os.utime(path, (mtime, mtime))
    entry = {
        "app": "codex",
        "id": tid,
        "path": str(path),
        "apparent": written,
        "real": written,
        "lines": lines,
        "big_lines": 0,
        "subagents": [],
    }
    return {"sessions": [entry]}


def disk_usage(root: Path) -> int:
    total = 0
    for folder, _, files in os.walk(root):
        for name in files:
            total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "out", type=Path, help="folder to write (OUT/home is the fake home)"
    )
    parser.add_argument(
        "--sessions",
        type=int,
        default=10_000,
        help="top-level sessions (default 10000)",
    )
    parser.add_argument(
        "--codex-share",
        type=float,
        default=0.3,
        help="share of Codex sessions (default 0.3)",
    )
    parser.add_argument(
        "--median-mb", type=float, default=168, help="median apparent transcript size"
    )
    parser.add_argument(
        "--p90-mb", type=float, default=1900, help="90th percentile apparent size"
    )
    parser.add_argument(
        "--largest-mb",
        type=float,
        default=2.1e9 / MB,
        help="largest apparent size (one session gets it)",
    )
    parser.add_argument(
        "--real-bytes",
        type=float,
        metavar="MB",
        help="instead: one transcript of MB real, parseable bytes",
    )
    parser.add_argument(
        "--big-lines",
        type=int,
        default=0,
        metavar="K",
        help="with --real-bytes: K lines of --big-line-mb each",
    )
    parser.add_argument("--big-line-mb", type=float, default=BIG_LINE / MB)
    parser.add_argument(
        "--real-app",
        choices=("claude", "codex"),
        default="claude",
        help="with --real-bytes: whose transcript to write",
    )
    parser.add_argument(
        "--spawn-rate",
        type=float,
        default=0.004,
        help="with --real-bytes: share of Claude tool calls that spawn a sub-agent",
    )
    parser.add_argument(
        "--subagent-files",
        action="store_true",
        help="with --real-bytes: also write each spawned sub-agent's transcript",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--workers", type=int, default=0, help="processes (default: all CPUs)"
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args(argv)
    out: Path = args.out.absolute()
    if out.exists():
        if not args.force and any(out.iterdir()):
            parser.error(f"{out} exists and is not empty; pass --force to replace it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    started = time.perf_counter()
    manifest = make_real(out, args) if args.real_bytes else make_many(out, args)
    sessions = manifest["sessions"]
    apparent = sum(
        e["apparent"] + sum(s["apparent"] for s in e["subagents"]) for e in sessions
    )
    real = sum(e["real"] + sum(s["real"] for s in e["subagents"]) for e in sessions)
    manifest.update(
        home=str(out / "home"),
        layout=LAYOUT,
        seed=args.seed,
        top_level=len(sessions),
        subagents=sum(len(e["subagents"]) for e in sessions),
        apparent_bytes=apparent,
        real_bytes=real,
        disk_bytes=disk_usage(out / "home"),
        seconds=round(time.perf_counter() - started, 1),
    )
    (out / "manifest.json").write_bytes(_dumps(manifest))
    apps = {a: sum(1 for e in sessions if e["app"] == a) for a in ("claude", "codex")}
    print(
        f"wrote {manifest['home']}: {len(sessions)} sessions ({apps['claude']} claude, {apps['codex']} codex)"
        f" + {manifest['subagents']} sub-agents; apparent {apparent / 1e9:.1f} GB,"
        f" real {real / 1e9:.2f} GB, on disk {manifest['disk_bytes'] / 1e9:.2f} GB;"
        f" {manifest['seconds']} s",
        file=sys.stderr,
    )
    return manifest


if __name__ == "__main__":
    main()
