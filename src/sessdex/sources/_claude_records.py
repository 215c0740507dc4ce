"""Claude Code's record shapes: the known-type tables and small readers of one record.

Shared by listing (`claude.py`) and reading (`_claude_read.py`, `_claude_stream.py`). No
state here but `LongLines`; streaming a file goes through `records` (or `raw`), which cut
lines from big reads and never hold an over-long line.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import orjson

from .. import files
from ..bytesearch import find
from ..diagnostics import Diagnostics, at_byte, read_failed
from ..model import JSONValue, Usage
from ._values import as_credits, as_int, new_usage, odd_count, type_tag

CONVERSATION = frozenset({"user", "assistant", "system", "attachment"})
SPAWN_TOOLS = frozenset({"Task", "Agent"})
SYNTHETIC = "<synthetic>"  # the model name on lines the CLI wrote itself

# Bookkeeping records: titles feed listing; the rest never reaches the conversation.
IGNORED_TYPES = frozenset(
    {
        "summary",
        "custom-title",
        "ai-title",
        "agent-name",
        "agent-setting",
        "last-prompt",
        "queue-operation",
        "file-history-snapshot",
        "file-history-delta",
        "progress",
        # a move shows anyway as the next lines' `cwd` / `gitBranch` (a meta event)
        "relocated",
        "worktree-state",
        "bridge-session",
        "frame-link",
        "atis-latch",
        "started",
        "result",
        "tool_use_summary",  # a one-line label of tool calls the lines already hold
        # 2.1 metadata a session list or a resume reads, not the conversation: tags, colours,
        # cost and attribution snapshots, speculation stats, replaced tool-output bodies and
        # the context-collapse store ("marble-origami"), whose originals stay in the file.
        "tag",
        "task-summary",
        "agent-color",
        "cost-state",
        "attribution-snapshot",
        "speculation-accept",
        "isolation-latch",
        "content-replacement",
        # Qoder CLI's own bookkeeping in the same format (its 1.1.52 record table): the
        # session's extra folders, its runtime settings, a prompt's token count, the
        # leaf a resume continues from; none is conversation
        "workspace-directories",
        "runtime-config",
        "token-stats",
        "active-leaf",
        "marble-origami-commit",
        "marble-origami-snapshot",
        "marble-origami-reset",
        # 2.1.26x-2.1.29x session state (third-party readers of 2.1.289 files and its
        # loader's table): a forked sub-agent's origin, artifact watchers, what a fork
        # hides of its parent, request captures, a workflow's failure (beside `started`
        # and `result`)
        "fork-context-ref",
        "artifact-comment-monitor",
        "artifact-autoreact-ledger",
        "history-suppression",
        "observer-ref",
        "dev-mods",
        "memory-mode",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "failed",
        # 2.1.33x (the 2.1.332 bundle's tables of transcript entries): a paused request
        # resumed, data-flow bookkeeping, a check of the resume head, the account and
        # organisations that own the session (never shown), the tools offered, REPL mode
        "api-request-resumed",
        "data-flow-records",
        "data-flow-incomplete",
        "resume-head-vouch",
        "session-owner",
        "hybrid-organization",
        "tools-used",
        "repl-mode",
        # a REPL script's record of the tool calls it ran (`ranByToolUseId`, 2.1.332's
        # writer); the calls themselves are the `isVirtual` lines beside it
        "host-row",
        # data-flow bookkeeping 2.1.332 strips with the rest before a remote resume; no
        # writer of it in that build
        "data-flow-handover",
        # 2.1.337: auto mode's denial counts kept for a resume, and the provider and
        # credential kind a session's requests went through (its tables of entries)
        "denial-counts",
        "api-request-route",
    }
)
# Context the harness attaches for the model: said by neither the user nor the model.
IGNORED_ATTACHMENTS = frozenset(
    {
        "agent_listing_delta",
        "auto_mode",
        "batching_reminder_sent",
        "budget_usd",
        "command_permissions",
        "compact_file_reference",
        "date_change",
        "deferred_tools_delta",
        "dynamic_skill",
        "edited_text_file",
        "file",
        "hook_additional_context",
        "hook_success",
        "invoked_skills",
        "mcp_instructions_delta",
        "nested_memory",
        "plan_mode",
        "plan_mode_exit",
        "read_truncation_notice",
        "silent_turn_reminder",
        "skill_listing",
        "task_reminder",
        "task_status",
        "todo_reminder",
        "total_tokens_reminder",
        "ultra_effort_enter",
        "ultra_effort_exit",
        # more context 2.1 builds attach (decompiled bundles' lists of attachment types)
        "already_read_file", "async_hook_response", "async_hook_response_batch",
        "auto_mode_exit", "context_tip", "critical_system_reminder", "diagnostics",
        "directory", "edited_image_file", "hook_permission_decision", "hook_system_message",
        "mcp_resource", "memory_update", "opened_file_in_ide", "output_style",
        "output_token_usage", "pdf_reference", "plan_file_reference", "plan_mode_reentry",
        "relevant_memories", "selected_lines_in_ide", "selected_lines_in_diff",
        "structured_output", "team_context", "todo", "token_usage",
        "workflow_keyword_request", "agent_mention", "peer_mention", "attention_budget",
        "context_efficiency", "hook_deferred_tool", "hook_plugin_listing",
        "mcp_dropped_tools_delta", "inlined_image_paths", "sandbox_instructions",
        "output_style_instructions", "deferred_tools_record", "batching_reminder",
        "tool_search_usage_reminder", "ultrathink_effort", "thinking_stripped",
        # seen in 2.1.197-2.1.289 files (third-party readers), and a 2.1.251 bundle's list:
        # the environment, model, account and prompt the harness gave the model
        "environment", "model", "session_context", "prompt_snapshot", "date",
        "instructions", "credential_org", "remote_session_change",
        "bash_output_audience_note", "thinking_drop", "workflow_size_guideline_change",
        "language", "proactivity", "poll_events", "dir_sync_notice",
        "teammate_shutdown_batch", "secondary_reminder", "secondary_reminder_sent",
        "tool_hosts_notice", "tool_host_result_lines", "cowork_memory_context",
        # the rest of 2.1.332's own set of attachments that are context for the model (those
        # a resume may drop), and the scheduled tasks a session carries over
        "at_mention_reference", "skill_mention", "account_memory_recall", "thread_state",
        "widget_context_hint", "prefix_delta", "goals", "linked_plugin_tools_note",
        "claude_app_notice", "agent_ask_notice", "tool_hosts_correction", "withheld_memory",
        "first_week", "artifact_opening_prefetch", "coordinator_context",
        "context_sections", "project_doc_reads", "message_pdf_reads",
        "whole_texts_withdrawn", "prompt_render_point", "advisor_stripped",
        "tool_offer_record", "projects_thread_ask", "unknown_command_fallback",
        "elapsed_time_reminder", "output_limit_note", "progress_reminder_sent",
        "prompt_as_file", "repl_mcp_needs_auth", "repl_mcp_servers", "advisor_tool",
        "session_cron_carry",
        # 2.1.337's new context for the model: auto mode's and plugins' rules, a Claude
        # project's instructions, the names of attached files, how an attachment was
        # rendered, what WebFetch may open, when a routine fired
        "auto_mode_rules", "plugin_rules", "projects_instructions", "attached_file_names",
        "attachment_answer", "web_fetch_scope_notice",
        "routine_fire",
    }
)  # fmt: skip
# Hook bookkeeping and session starts; a local command's effect shows on later lines.
IGNORED_SYSTEM = frozenset(
    {
        "stop_hook_summary",
        "session_start",
        "away_summary",
        "local_command",
        "agents_killed",
        "scheduled_task_fire",
        "memory_saved",  # the paths of a memory write the tool call already shows
        "permission_retry",
        "bridge_status",
        "cloud_session_status",  # a cloud session's state (2.1.289's builders)
        "file_snapshot",  # the plan file's text kept for a resume (2.1.332), `isMeta`
    }
)


_UNREADABLE = object()


def _leniently(data: bytes) -> tuple[object, bool]:
    """A line orjson refused, and whether it held bytes that are not UTF-8: `files`
    reads a lone surrogate escape (a cut emoji) as U+FFFD, as every other app's reader
    does, and takes a byte order mark and bytes that are not UTF-8 (shown as U+FFFD);
    `json`, a line nested deeper than orjson goes. `_UNREADABLE` when neither can (too
    deep for both, no JSON)."""
    try:
        return files.loads_repaired(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data), False
    except (ValueError, RecursionError):
        return _UNREADABLE, False


def load(
    data: bytes | memoryview,
    complete: bool,
    number: int,
    diagnostics: Diagnostics | None,
    path: str,
    start: int | None = None,
) -> dict[str, object] | None:
    """The object on a line, or None (counted); `_leniently` for what orjson refuses (a
    line read over bytes that are not UTF-8 counted as damaged). `data` may be a view of
    the read the line was cut from (`_split`); `start`, where the line starts, where
    known (`Diagnostics.starts`)."""
    if type(data) is not bytes:
        data = bytes(data)
    if not data.strip():
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value, damaged = _leniently(data)
        if value is _UNREADABLE:  # too deep for json, or no JSON
            if diagnostics is None:
                pass
            elif complete:
                diagnostics.skip(path, number, "not JSON", start)
            else:  # a last line the app may still be writing: no damage
                diagnostics.unfinished_line(path, len(data))
            return None
        if damaged and diagnostics is not None and isinstance(value, dict):
            diagnostics.damage(path, number, files.damage_of(data), start)
    if not isinstance(value, dict):
        if diagnostics is not None:
            diagnostics.skip(path, number, "not an object", start)
        return None
    return value


class LongLines:
    """Over-long lines one pass compacted, kept (up to KEEP bytes) for the next to reuse.

    Eliding a pasted image's base64 costs a scan of it; a read passes over a file twice
    (survey, then events), so the second pass takes the first one's result.
    """

    KEEP = 16 * 1024 * 1024
    HEAD = 256  # bytes that identify a kept line

    def __init__(self) -> None:
        # offset -> (end, first bytes of the line, compacted data, complete)
        self.lines: dict[int, tuple[int, bytes, bytes, bool]] = {}
        self.size = 0

    def keep(self, line: files.Line, head: bytes) -> None:
        if self.size + len(line.data) <= self.KEEP:
            self.lines[line.offset] = (line.end, head, line.data, line.complete)
            self.size += len(line.data)

    def take(self, offset: int, head: bytes) -> tuple[int, bytes, bool] | None:
        """(end, compacted data, complete) of the line at `offset`, if it was kept."""
        kept = self.lines.pop(offset, None)
        if kept is None or kept[1] != head:
            return None  # not kept, or the file changed under us
        self.size -= len(kept[2])
        return kept[0], kept[2], kept[3]


def records(
    path: Path,
    diagnostics: Diagnostics | None,
    *,
    full: bool,
    offset: int = 0,
    long_lines: LongLines | None = None,
) -> Iterator[tuple[int, bool, dict[str, object]]]:
    """(line number, compacted, object) of each line that parses; bad lines are counted."""
    name = str(path)
    try:
        stream = files.open_binary(path)
    except FileNotFoundError:
        if diagnostics is not None:
            diagnostics.problem(f"{name}: vanished while reading")
        return
    except OSError as error:  # another user's (permission denied), a device error
        if diagnostics is not None:
            diagnostics.problem(read_failed("claude", name, error))
        return
    with stream:
        if offset:
            stream.seek(offset)
        cap = (1 << 62) if full else files.READ_LINE_CAP
        loads, broken = orjson.loads, orjson.JSONDecodeError
        for number, data, complete, compacted, start in _split(
            stream, name, diagnostics, offset, cap, None if full else long_lines
        ):
            try:  # the common case inline; anything odd goes through `load`
                record = loads(data)
            except broken:
                record = None
            if type(record) is not dict:
                record = load(data, complete, number, diagnostics, name, start)
                if record is None:
                    continue
            yield number, compacted, record


def split(
    stream: BinaryIO, name: str, offset: int, long_lines: LongLines | None = None
) -> Iterator[tuple[int, bytes | memoryview, bool, bool, int]]:
    """(number, data, complete, compacted, start) of each line of `stream` from
    `offset` (where it stands), unparsed; long ones compacted. `data` may be a view
    (see `_split`); `start` is the byte the line starts at."""
    return _split(stream, name, None, offset, files.READ_LINE_CAP, long_lines)


def _split(
    stream: BinaryIO,
    name: str,
    diagnostics: Diagnostics | None,
    offset: int,
    cap: int,
    long_lines: LongLines | None = None,
) -> Iterator[tuple[int, bytes | memoryview, bool, bool, int]]:
    """`files.iter_lines` (oversize "compact") as plain tuples, without a `Line` per line,
    each with the byte its line starts at last (a bad line is named by its number, and
    `doctor --deep` matches it to a listing's name of it by that byte).

    Lines up to `cap` are cut from big reads here, as views of the read (a decoder takes
    one as it is: no copy of each line; what searches its bytes takes `bytes(data)`). At a longer one the file is handed to
    `files.iter_lines`, which elides its long strings, and taken back after the next line
    it yields; a stream that cannot seek (`.zst`) is left to it throughout. Compacted
    lines are kept in, or taken from, `long_lines`.
    """
    if not stream.seekable():
        for line in files.iter_lines(
            stream,
            offset=offset,
            cap=cap,
            oversize="compact",
            diagnostics=diagnostics,
            path=name,
        ):
            yield line.number, line.data, line.complete, line.compacted, line.offset
        return
    # from past the file's start, lines are named by where they start (`files.iter_lines`)
    counting = not offset
    number = 1 if counting else at_byte(offset)
    position = offset  # where `rest` starts in the file
    rest = b""
    read = stream.read
    # where a read stops, not to take a chunk of a hole's NULs: the line it cuts goes to
    # files.iter_lines, which passes the hole over (None: no hole, nearly every file)
    hole_at = files.next_hole(stream, offset)
    while True:
        if hole_at is None:
            chunk = read(files.CHUNK)
        else:
            hole_at, wanted = files.up_to_hole(stream, hole_at)
            chunk = read(wanted)
        if not chunk:
            if rest:
                yield number, rest, False, False, position
            return
        data, start = chunk, 0
        if rest:
            newline = chunk.find(b"\n")
            if 0 <= newline <= cap - len(rest):
                # the line the read before began ends here: joined alone, so that the
                # chunk is not copied whole behind it
                yield number, rest + chunk[:newline], True, False, position
                position += len(rest)  # where `data` (the chunk) starts
                start = newline + 1
                number = number + 1 if counting else at_byte(position + start)
            else:
                data = rest + chunk
        find, view = data.find, memoryview(data)
        while True:
            newline = find(b"\n", start)
            if newline < 0 or newline - start > cap:
                break
            yield number, view[start:newline], True, False, position + start
            start = newline + 1
            number = number + 1 if counting else at_byte(position + start)
        position += start
        rest = data[start:] if start else data
        at_hole = hole_at is not None and stream.tell() >= hole_at
        if newline < 0 and len(rest) <= cap and not at_hole:
            continue
        # an over-long line starts at `position`, or one that runs into a hole: let
        # files.iter_lines read it (it passes the hole over)
        head = rest[: LongLines.HEAD]
        kept = long_lines.take(position, head) if long_lines is not None else None
        if kept is not None:  # compacted by the pass before
            end, compacted, complete = kept
            yield number, compacted, complete, True, position
            if not complete:
                return  # it ended the file then: the pass before stopped there too
            position, rest = end, b""
            number = number + 1 if counting else at_byte(position)
            stream.seek(position)
            continue
        stream.seek(position)
        last = None
        for line in files.iter_lines(
            stream,
            offset=position,
            first_number=number if counting else None,
            cap=cap,
            oversize="compact",
            diagnostics=diagnostics,
            path=name,
        ):
            yield line.number, line.data, line.complete, line.compacted, line.offset
            last = line
            break
        if last is not None and long_lines is not None and last.offset == position:
            long_lines.keep(last, head)
        if last is None or not last.complete:
            # it was the last line; an unfinished one ended the file when read, and
            # what a writer adds after it is its rest, not a line (the reads above stop
            # there too)
            return
        position, rest = last.end, b""
        number = last.number + 1 if counting else at_byte(position)
        stream.seek(position)


def holds(
    data: bytes, key: bytes, value: bytes, begin: int = 0, end: int | None = None
) -> bool:
    """Whether data[begin:end] holds the member `"key":value` (`value` as JSON: `"<id>"`,
    `true`). Claude Code writes compact JSON, looked for as bytes; other spacing (a file a
    tool re-wrote) is looked for, the key and value apart, only where the value's bytes
    are there and the compact form is not."""
    end = len(data) if end is None else end
    if find(data, b'"' + key + b'":' + value, begin, end) >= 0:
        return True
    if find(data, value, begin, end) < 0:
        return False
    return _spaced(key, value).search(data, begin, end) is not None


@functools.lru_cache(maxsize=64)
def _spaced(key: bytes, value: bytes) -> re.Pattern[bytes]:
    return re.compile(b'"' + re.escape(key) + rb'"\s*:\s*' + re.escape(value))


def string(value: object) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def moment(value: object) -> datetime | None:
    """An ISO-8601 timestamp as an aware UTC datetime; None if absent or malformed."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is UTC:  # the common "…Z": astimezone would return it as is
        return parsed
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+05:00 is before the year 1 in UTC
        return None


def blocks(record: dict[str, object]) -> list[dict[str, object]]:
    """The content blocks of a record's message (none when the content is a string)."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


# Who a user line came from (`origin.kind`): a person, or the harness carrying on.
HUMAN_ORIGINS = frozenset({"human", "auto-continuation"})


def from_harness(record: dict[str, object]) -> bool:
    """A user line the harness wrote (a background task's notification, a coordinator's
    message): `isMeta`, or an `origin` that is not a person."""
    return record.get("isMeta") is True or harness_origin(record.get("origin"))


def harness_origin(origin: object) -> bool:
    """Whether an `origin` (of a user line, or of a queued prompt) names no person."""
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return isinstance(kind, str) and kind not in HUMAN_ORIGINS


# The wrappers Claude Code puts around what it, not the person, adds to a prompt: tag
# names with a dash or underscore (`<command-name>`, `<bash-input>`, `<ide_selection>`),
# which a prompt's own markup (`<div> is not centered…`) never has.
_HARNESS_TAG = re.compile(r"<[a-z][a-z0-9]*[-_][a-z0-9_-]*[\s>]")


def prompt(record: dict[str, object]) -> tuple[str | None, str | None]:
    """(the text a person typed, or a slash command as "/name args") of a user line."""
    if from_harness(record) or any(
        record.get(flag) is True for flag in ("isSidechain", "isCompactSummary")
    ):
        return None, None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        if any(block.get("type") == "tool_result" for block in blocks(record)):
            return None, None
        content = "\n".join(
            str(b["text"]) for b in blocks(record) if isinstance(b.get("text"), str)
        )
    if not isinstance(content, str) or not content.strip() or files.elided(content):
        return None, None
    typed = content.strip()
    # <command-name>, <local-command-stdout>, <bash-input>, …
    if _HARNESS_TAG.match(typed):
        return None, command_line(typed)
    return typed, None


def command_line(text: str) -> str | None:
    """The slash command a person typed ("/review src"), from the wrapper Claude Code
    records it in (`<command-name>`, `<command-args>`); None for other text."""
    if "<command-name>" not in text[:4096]:
        return None
    command = _between(text, "<command-name>", "</command-name>")
    if not command:
        return None
    args = _between(text, "<command-args>", "</command-args>")
    return f"{command} {args}" if args else command


# Agent teams: what a teammate (or the lead) sends arrives as a user line holding one or
# more `<teammate-message teammate_id="…" color="…" summary="…">…</teammate-message>`,
# after a line that says so in some builds. A JSON body is a protocol note (idle, shutdown).
_TEAMMATE = re.compile(
    r'<teammate-message\s+teammate_id="([^"]*)"[^>]*>\n?(.*?)\n?</teammate-message>',
    re.S,
)
_TEAMMATE_LEAD = "Another Claude session sent a message:"
_TEAMMATE_SCAN = 8 * 1024 * 1024  # longer text is a prompt that quotes an envelope


def teammate_messages(text: str) -> list[tuple[str, str]] | None:
    """(sender, body) of each teammate message a user line is made of; None when the line
    is anything else (a prompt that merely mentions such an envelope included). Cheap for
    an ordinary prompt: only its first characters are looked at."""
    if "<teammate-message" not in text[:256]:
        return None
    head = text.lstrip()
    if head.startswith(_TEAMMATE_LEAD):
        head = head[len(_TEAMMATE_LEAD) :].lstrip()
    if not head.startswith("<teammate-message") or len(head) > _TEAMMATE_SCAN:
        return None
    found: list[tuple[str, str]] = []
    at = 0
    for match in _TEAMMATE.finditer(head):
        if head[at : match.start()].strip():
            return None  # text between or before envelopes: not only messages
        found.append((match.group(1) or "teammate", match.group(2)))
        at = match.end()
    return found if found and not head[at:].strip() else None


def teammate_note(body: str) -> str | None:
    """A protocol message's one-line gist ("idle: available"), or None for plain text."""
    if not body.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    kind = str(value["type"]).replace("_", " ")
    detail = next(
        (
            value[key]
            for key in ("summary", "idleReason", "reason", "message")
            if isinstance(value.get(key), str) and value[key]
        ),
        None,
    )
    return f"{kind}: {detail}" if detail else kind


def _between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return text[i + len(start) : j].strip() if j >= 0 else None


def spawn(block: dict[str, object]) -> tuple[str | None, str]:
    """(call id, prompt) of a Task/Agent tool call, else (None, "")."""
    if block.get("type") != "tool_use" or string(block.get("name")) not in SPAWN_TOOLS:
        return None, ""
    arguments = block.get("input")
    task = arguments.get("prompt") if isinstance(arguments, dict) else None
    return string(block.get("id")), task if isinstance(task, str) else ""


def task_key(task: str | None) -> int:
    """A task's text as a number that is the same in every process (`hash` is not)."""
    import hashlib  # here: OpenSSL loads only where a hash is taken

    text = (task or "").encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def message_text(record: dict[str, object]) -> str | None:
    """The plain text of a message: its string content, or its text blocks joined."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    texts = [str(b["text"]) for b in blocks(record) if isinstance(b.get("text"), str)]
    return "\n".join(texts) if texts else None


ADVISOR = "advisor_message"  # an advisor's call among a response's usage iterations


def usage(raw: object, model: str | None) -> Usage | None:
    """An assistant line's `message.usage` (Anthropic's input already excludes the cache)."""
    if not isinstance(raw, dict):
        return None
    get = raw.get  # `_tokens` inline for a plain count (a positive int, not a bool)
    cache_write = get("cache_creation_input_tokens")
    if type(cache_write) is not int or not 0 < cache_write <= _EXACT:
        cache_write = _tokens(cache_write)
    if not cache_write:
        split = get("cache_creation")
        if isinstance(split, dict):
            cache_write = sum(_tokens(v) for v in split.values())
    details = get("output_tokens_details")
    reasoning = (
        _tokens(details.get("thinking_tokens")) if isinstance(details, dict) else 0
    )
    given = get("input_tokens")
    made = get("output_tokens")
    read = get("cache_read_input_tokens")
    credits = get("credits")  # an app's own billing unit (Qoder's), where it writes one
    return new_usage(
        given if type(given) is int and 0 < given <= _EXACT else _tokens(given),
        made if type(made) is int and 0 < made <= _EXACT else _tokens(made),
        read if type(read) is int and 0 < read <= _EXACT else _tokens(read),
        cache_write,
        reasoning,
        model,
        0.0 if credits is None else as_credits(credits),
    )


# the counts `usage` bills of a response, as the `usage` scan checks them (`_claude_usage._odd`)
_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def odd_usage(raw: dict[str, object]) -> bool:
    """Whether a response's `message.usage` holds a count no app writes (`odd_count`)."""
    get = raw.get
    for key in _COUNTS:  # every assistant line: a plain count asks no call
        value = get(key)
        if value is None or (type(value) is int and 0 <= value <= _EXACT):
            continue
        if odd_count(value):
            return True
    return False


def advisor_usage(raw: object, model: str | None) -> tuple[Usage, ...]:
    """The advisor's calls in a response's `usage.iterations` (`advisor_message`), one Usage
    per advisor model. Anthropic bills them at the advisor model's rates and leaves them out
    of the top-level counts, which are the executor's; an iteration naming no model is
    counted under the response's own."""
    iterations = raw.get("iterations") if isinstance(raw, dict) else None
    if not isinstance(iterations, list):
        return ()
    by_model: dict[str | None, Usage] = {}
    for iteration in iterations:
        if not isinstance(iteration, dict) or iteration.get("type") != ADVISOR:
            continue
        used = usage(iteration, string(iteration.get("model")) or model)
        if used is None or used.total == 0:
            continue
        known = by_model.get(used.model)
        by_model[used.model] = used if known is None else known + used
    return tuple(by_model.values())


def recorded_cost(value: object) -> float | None:
    """A line's `costUSD`: Claude Code's own price of the response, on every assistant line
    before 1.0.9 (ccusage's default mode prefers it to a price list). A plain, finite,
    positive amount, else None: a zero beside tokens is no price, the catalogue's is better."""
    if type(value) is not float and type(value) is not int:
        return None
    return float(value) if 0 < value < math.inf else None


def _tokens(value: object) -> int:
    """A token count as the `usage` scan takes it: 0 below 0 or past 2**53 (a broken
    value), a fraction's whole part, 0 for anything else (a bool, text)."""
    return max(0, as_int(value))


_EXACT = 2**53  # `as_int`'s limit


def text(value: str) -> str:
    """A string, or a short summary of it when files.py elided it."""
    cut = files.elided(value)
    if cut is None:
        return value
    size, hint = cut
    return f"{hint}… [{files.human_bytes(size)} elided]"


def block_text(block: dict[str, object]) -> str:
    """A text, image or document block as text; binary payloads are summarised."""
    kind = type_tag(block.get("type"))
    if kind == "text":
        value = block.get("text")
        return text(value) if isinstance(value, str) else ""
    source = block.get("source")
    data = source.get("data") if isinstance(source, dict) else None
    label = "image" if kind == "image" else str(kind)
    if not isinstance(source, dict) or not isinstance(data, str):
        return f"[{label}]"
    cut = files.elided(data)
    size = cut[0] if cut else len(data)
    if source.get("type") == "base64":
        size = size * 3 // 4  # what the file weighed before base64
    return f"[{label}, {files.human_bytes(size)}]"


# The note Claude Code appends to a sub-agent's report for the model: how to continue the
# agent, what it spent (`agentId: a1b2… (use SendMessage …)`, `<usage>…</usage>`); the
# tree shows both, and it hid the report's own lines when folded
_AGENT_TRAILER = re.compile(r"\s*agentId: \S+ \(use SendMessage\b")


def without_agent_trailer(content: object) -> object:
    """A tool result's content blocks without that note (any other content as it is)."""
    if not isinstance(content, list) or len(content) < 2:
        return content
    last = content[-1]
    if (
        isinstance(last, dict)
        and last.get("type") == "text"
        and isinstance(said := last.get("text"), str)
        and _AGENT_TRAILER.match(said)
    ):
        return content[:-1]
    return content


def flatten(content: object) -> str:
    """Message or tool-result content (a string or a list of blocks) as one text."""
    if isinstance(content, str):
        return text(content)
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(text(block))
        elif isinstance(block, dict):
            kind = type_tag(block.get("type"))
            if kind in ("text", "image", "document"):
                parts.append(block_text(block))
            elif kind == "tool_reference":
                parts.append(f"[tool {block.get('tool_name')}]")
            elif kind == "search_result":  # a search hit: where from, then its text
                inner = block.get("content")
                said = [
                    text(str(b["text"]))
                    for b in (inner if isinstance(inner, list) else [])
                    if isinstance(b, dict) and isinstance(b.get("text"), str)
                ]
                head = " — ".join(
                    str(block[key])
                    for key in ("title", "source")
                    if isinstance(block.get(key), str)
                )
                parts.append("\n".join([f"[{text(head) or 'search result'}]", *said]))
            elif isinstance(block.get("text"), str):
                parts.append(text(str(block["text"])))
            else:
                parts.append(f"[{kind}]")
    return "\n".join(parts)


def server_tool_error(block: dict[str, object]) -> str | None:
    """What a server-side tool's failed result says (`[web_search_tool_result_error:
    max_uses_exceeded]`), or None where it did not fail. The API marks a failure by the
    content's type (`…_error`: web search, web fetch, code execution, advisor) or, on an
    MCP result, by `is_error`."""
    content = block.get("content")
    if isinstance(content, dict):
        kind = type_tag(content.get("type"))
        if kind is not None and kind.endswith("_error"):
            code = string(content.get("error_code"))
            return f"[{kind}: {code}]" if code else f"[{kind}]"
    if block.get("is_error") is True:
        return flatten(content) or "[error]"
    return None


def api_error(record: dict[str, object]) -> str:
    """What a `system/api_error` (or `system/error`) line says failed."""
    error = record.get("error")
    status = message = None
    if isinstance(error, dict):
        status = error.get("status")
        message = string(error.get("message"))
        nested = error.get("error")
        if message is None and isinstance(nested, dict):
            inner = nested.get("error")
            message = string(inner.get("message")) if isinstance(inner, dict) else None
    elif isinstance(error, str):
        message = error
    said = "API error"
    if isinstance(status, int) and status:
        said += f" {status}"
    if message:
        said += f": {text(message)}"
    attempt, most = record.get("retryAttempt"), record.get("maxRetries")
    if isinstance(attempt, int) and isinstance(most, int) and most:
        said += f" (retry {attempt} of {most})"
    return said


def bounded(value: object, budget: list[int], depth: int = 0) -> JSONValue:
    """A copy of a JSON value spending at most `budget[0]` characters; elisions summarised."""
    if isinstance(value, str):
        if value.startswith(files.ELIDED_PREFIX) and files.elided(value):
            return text(value)
        room = max(budget[0], 0)
        budget[0] -= len(value)
        return value if len(value) <= room else value[:room] + "…"
    if value is None or isinstance(value, (int, float)):  # bool is an int
        return value
    if depth > 8 or budget[0] <= 0:
        return "…"
    if isinstance(value, list):
        return [
            bounded(item, budget, depth + 1) for item in itertools.islice(value, 200)
        ]
    if isinstance(value, dict):
        # as `{str(key): bounded(item, budget, depth + 1) ...}`, plain leaves inline
        kept: dict[str, JSONValue] = {}
        for key, item in itertools.islice(value.items(), 200):
            kind = type(item)
            if kind is str and not item.startswith(files.ELIDED_PREFIX):
                room = budget[0]
                room = room if room > 0 else 0
                budget[0] -= len(item)
                kept[str(key)] = item if len(item) <= room else item[:room] + "…"
            elif kind is bool or kind is int or item is None:
                kept[str(key)] = item
            else:
                kept[str(key)] = bounded(item, budget, depth + 1)
        return kept
    return str(value)


_TASK_FIELD = re.compile(r"<(task-id|tool-use-id|status|summary)>([^<]{0,2000})</\1>")
# a background task's end as `<task-notification>` says it; "killed", "stopped" and
# "cancelled" are someone stopping it, not a failure
_TASK_FAILED = frozenset({"failed", "error"})


def task_end(text: str) -> tuple[str | None, str | None, str, str | None] | None:
    """(tool use id, task id, "done" or "failed", summary) of a background task's
    `<task-notification>` (an agent's or a shell's), or None for any other text."""
    if "<task-notification>" not in text[:256]:
        return None
    fields: dict[str, str] = {}
    for match in _TASK_FIELD.finditer(text, 0, 64 * 1024):
        fields.setdefault(match.group(1), match.group(2).strip())
    status = fields.get("status")
    if not status or not (fields.get("tool-use-id") or fields.get("task-id")):
        return None
    return (
        fields.get("tool-use-id") or None,
        fields.get("task-id") or None,
        "failed" if status.lower() in _TASK_FAILED else "done",
        fields.get("summary") or None,
    )


def launched(outcome: object) -> bool:
    """Whether a tool's result only says it started an agent in the background
    (`toolUseResult.status` "async_launched", or `isAsync`): the agent ends later."""
    return isinstance(outcome, dict) and (
        outcome.get("isAsync") is True
        or outcome.get("status") in ("async_launched", "remote_launched")
    )
