"""Warp's tool calls and their results, decoded from a task's protobuf messages.

Field numbers from warpdotdev/warp-proto-apis `apis/multi_agent/v1/task.proto`
@00f791620e0c4016e33f298176f7cf785b1026ad and `file_content.proto` (confirmed, High):
`Message.ToolCall` (`tool_call_id` 1, the tool's oneof from 2), `Message.ToolCallResult`
(`tool_call_id` 1, `context` 11, the result's oneof from 2: each tool's at its own number,
`cancel` at 14), and the result messages (`RunShellCommandResult`, `GrepResult`,
`CallMCPToolResult`, …; most are a `Success` at 1 or an `Error {message}` at 2).

A call's input keeps task.proto's argument names (`command`, `queries`, `files`, `diffs`
of `file_path`/`search`/`replace`, …); a result becomes its text: a command's output and
exit code, the files a search or read found, an MCP tool's text, an error's message. What
a result holds past that (file contents a read returned, images, a long-running command's
snapshot) is said in a word, not shown. Lists are cut at `_LISTED` entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..model import JSONValue
from . import _protobuf as pb

# ToolCall's oneof: the tool each field number names
TOOLS = {2: "run_shell_command", 3: "search_codebase", 4: "server", 5: "read_files",
         6: "apply_file_diffs", 7: "suggest_plan", 8: "suggest_create_plan", 9: "grep",
         10: "file_glob", 11: "read_mcp_resource", 12: "call_mcp_tool",
         13: "write_to_long_running_shell_command", 14: "suggest_new_conversation",
         15: "file_glob_v2", 16: "suggest_prompt", 17: "open_code_review",
         18: "init_project", 19: "subagent", 20: "read_documents", 21: "edit_documents",
         22: "create_documents", 23: "read_shell_command_output", 24: "use_computer",
         25: "insert_review_comments", 26: "read_skill", 27: "request_computer_use",
         28: "fetch_conversation", 29: "start_agent", 30: "send_message_to_agent",
         31: "transfer_shell_command_control_to_user"}  # fmt: skip
# ToolCallResult's oneof: the tool whose result each field number holds
RESULTS = {2: "run_shell_command", 3: "search_codebase", 4: "server", 5: "read_files",
           6: "apply_file_diffs", 7: "suggest_plan", 8: "suggest_create_plan", 9: "grep",
           10: "file_glob", 14: "cancel", 15: "read_mcp_resource", 16: "call_mcp_tool",
           17: "write_to_long_running_shell_command", 18: "suggest_new_conversation",
           19: "file_glob_v2", 20: "suggest_prompt", 21: "open_code_review",
           22: "init_project", 23: "subagent", 24: "read_documents", 25: "edit_documents",
           26: "create_documents", 27: "read_shell_command_output", 28: "use_computer",
           29: "insert_review_comments", 30: "read_skill", 31: "request_computer_use",
           32: "fetch_conversation", 33: "start_agent", 34: "send_message_to_agent",
           35: "transfer_shell_command_control_to_user"}  # fmt: skip
_LISTED = 200  # entries of a list (files, matches, queries) kept, at most

# the arguments of each tool as (field number, name, kind): "s" a string, "S" repeated
# strings, "n" a number, or a nested list whose entries are read the same way
_Spec = tuple[tuple[int, str, object], ...]
_FILES: _Spec = (
    (1, "name", "s"),
    (2, "line_ranges", ((1, "start", "n"), (2, "end", "n"))),
)
_DIFFS: _Spec = ((1, "file_path", "s"), (2, "search", "s"), (3, "replace", "s"))
_ARGUMENTS: dict[int, _Spec] = {
    2: ((1, "command", "s"),),
    3: ((1, "query", "s"), (2, "path_filters", "S"), (3, "codebase_path", "s")),
    5: ((1, "files", _FILES),),
    6: (
        (1, "summary", "s"),
        (2, "diffs", _DIFFS),
        (3, "new_files", ((1, "file_path", "s"), (2, "content", "s"))),
        (4, "deleted_files", ((1, "file_path", "s"),)),
    ),
    9: ((1, "queries", "S"), (2, "path", "s")),
    10: ((1, "patterns", "S"), (2, "path", "s")),
    11: ((1, "uri", "s"), (2, "server_id", "s")),
    12: ((1, "name", "s"), (3, "server_id", "s")),
    13: ((1, "input", "s"), (3, "command_id", "s")),
    15: ((1, "patterns", "S"), (2, "search_dir", "s"), (3, "max_matches", "n")),
    19: ((1, "task_id", "s"), (2, "payload", "s")),
    23: ((1, "command_id", "s"),),
    26: ((1, "skill_path", "s"), (2, "bundled_skill_id", "s"), (3, "name", "s")),
    28: ((1, "conversation_id", "s"),),
    29: ((1, "name", "s"), (2, "prompt", "s")),
    30: ((1, "addresses", "S"), (2, "subject", "s"), (3, "message", "s")),
    31: ((1, "reason", "s"),),
}


@dataclass(slots=True)
class Result:
    tool: str | None = None
    text: str | None = None
    is_error: bool = False
    exit_code: int | None = None


def call_input(number: int, body: bytes) -> dict[str, JSONValue]:
    """A tool call's arguments by task.proto's names ({} for a tool whose are not read, or
    that do not decode)."""
    spec = _ARGUMENTS.get(number)
    if spec is None:
        return {}
    try:
        return _read(pb.fields(body), spec)
    except ValueError:
        return {}


def result(body: list[pb.Field]) -> Result:
    """What a `ToolCallResult` says; ValueError where a part of it does not decode."""
    for number, wire, value in body:
        if number in (1, 11) or wire != 2 or not isinstance(value, bytes):
            continue
        tool = RESULTS.get(number)
        if tool is None:
            return Result(f"tool_{number}")
        found = _result(number, pb.fields(value))
        found.tool = tool
        return found
    return Result()


def _result(number: int, parts: list[pb.Field]) -> Result:
    if number == 2:
        legacy = _shell(parts, finished=5, denied=6, snapshot=4)
        if legacy.text is None and legacy.exit_code is None and not legacy.is_error:
            code = pb.first(parts, 2, 0)
            legacy.text = _str(parts, 1)
            legacy.exit_code = _int32(code) if isinstance(code, int) else None
            legacy.is_error = legacy.exit_code not in (None, 0)
        return legacy
    if number in (17, 35):
        return _shell(parts, snapshot=1, finished=2, error=3)
    if number == 27:
        return _shell(parts, snapshot=2, finished=3, error=4)
    if number == 14:
        return Result(text="cancelled", is_error=True)
    if number == 23:  # SubagentResult: its payload, a string
        return Result(text=_str(parts, 1))
    failed = {29: 3, 31: 3}.get(number, 2)  # where the Error is
    error = pb.first(parts, failed, 2)
    if isinstance(error, bytes) and number not in (7, 18, 20):
        said = pb.fields(error)
        return Result(text=_str(said, 1) or "failed", is_error=True)
    done = _sub(parts, 1)  # the Success
    listed = _LISTERS.get(number)
    if listed is not None:
        return Result(text=_lines(listed(parts, done)[:_LISTED]))
    if number == 10:
        return Result(text=_str(done, 1))
    if number == 30:  # the skill read: its path
        return Result(text=_str(_sub(done, 1), 1))
    if number == 32:
        return Result(text=_str(done, 2))
    if number == 33:
        agent = _str(done, 1)
        return Result(text=f"started agent {agent}" if agent else None)
    if number == 8:
        accepted = pb.first(parts, 1, 0)
        return Result(text="accepted" if accepted else "declined")
    if number in (7, 18, 20, 31):  # accepted (1), or the user's own (7) or rejected (2)
        if number == 7 and isinstance(plan := pb.first(parts, 2, 2), bytes):
            return Result(text=_str(pb.fields(plan), 1))
        if isinstance(pb.first(parts, 1, 2), bytes):
            return Result(text="accepted" if number != 31 else "approved")
        if isinstance(pb.first(parts, 2, 2), bytes):
            return Result(text="rejected")
    return Result()


def _paths(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    """The files a search or a read returned (`FileContent.file_path`; a read's
    `any_files_success` too, binary or text)."""
    found = [_str(pb.fields(entry), 1) for entry in each(done, 1)]
    for entry in each(_sub(parts, 3), 1):
        either = pb.fields(entry)
        found.append(_str(_sub(either, 5) or _sub(either, 6), 1))
    return found


def _changed(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    updated = [_str(pb.fields(entry), 1) for entry in each(done, 1)]
    updated += [_str(_sub(pb.fields(entry), 1), 1) for entry in each(done, 2)]
    deleted = [_str(pb.fields(entry), 1) for entry in each(done, 3)]
    return [f"updated {p}" for p in updated if p] + [
        f"deleted {p}" for p in deleted if p
    ]


def _matches(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    """A grep's files, each with its matching line numbers."""
    found: list[str | None] = []
    for entry in each(done, 1)[:_LISTED]:
        matched = pb.fields(entry)
        lines = [pb.first(pb.fields(line), 1, 0) for line in each(matched, 2)]
        numbers = ", ".join(str(n) for n in lines[:_LISTED] if isinstance(n, int))
        path = _str(matched, 1) or "?"
        found.append(f"{path}: {numbers}" if numbers else path)
    return found


def _globbed(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    found = [_str(pb.fields(entry), 1) for entry in each(done, 1)[:_LISTED]]
    return [*found, _str(done, 2)]  # and its warnings


def _resources(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    """An MCP resource's contents: its text, or a word for binary data."""
    found: list[str | None] = []
    for entry in each(done, 1)[:_LISTED]:
        text = _sub(pb.fields(entry), 2)
        found.append(_str(text, 1) if text else "[binary]")
    return found


def _mcp(parts: list[pb.Field], done: list[pb.Field]) -> Sequence[str | None]:
    """An MCP tool's results: text, or a word for an image or a resource."""
    found: list[str | None] = []
    for entry in each(done, 1)[:_LISTED]:
        kind = pb.fields(entry)
        text = _sub(kind, 1)
        image = pb.first(kind, 2, 2) is not None
        found.append(_str(text, 1) if text else "[image]" if image else "[resource]")
    return found


_Lister = Callable[[list[pb.Field], list[pb.Field]], Sequence[str | None]]
_LISTERS: dict[int, _Lister] = {3: _paths, 5: _paths, 6: _changed, 9: _matches,
                                15: _resources, 16: _mcp, 19: _globbed}  # fmt: skip


def _shell(
    parts: list[pb.Field],
    *,
    finished: int,
    snapshot: int,
    error: int | None = None,
    denied: int | None = None,
) -> Result:
    done = pb.first(parts, finished, 2)
    if isinstance(done, bytes):
        inner = pb.fields(done)
        code = pb.first(inner, 2, 0)
        exit_code = _int32(code) if isinstance(code, int) else 0  # proto3: 0 left out
        return Result(text=_str(inner, 1), is_error=exit_code != 0, exit_code=exit_code)
    if denied is not None and isinstance(pb.first(parts, denied, 2), bytes):
        return Result(text="permission denied", is_error=True)
    if error is not None and isinstance(pb.first(parts, error, 2), bytes):
        return Result(text="command not found", is_error=True)
    if isinstance(pb.first(parts, snapshot, 2), bytes):
        return Result(text="(still running)")
    return Result()


def _read(parts: list[pb.Field], spec: _Spec) -> dict[str, JSONValue]:
    found: dict[str, JSONValue] = {}
    for number, name, kind in spec:
        if kind == "s":
            text = _str(parts, number)
            if text is not None:
                found[name] = text
        elif kind == "n":
            value = pb.first(parts, number, 0)
            if isinstance(value, int):
                found[name] = value
        elif kind == "S" and (strings := each(parts, number)):
            found[name] = [v.decode("utf-8", "replace") for v in strings[:_LISTED]]
        elif isinstance(kind, tuple) and (entries := each(parts, number)):
            found[name] = [_read(pb.fields(v), kind) for v in entries[:_LISTED]]
    return found


def each(parts: list[pb.Field], number: int) -> list[bytes]:
    """The values of a repeated message or string field."""
    return [v for n, w, v in parts if n == number and w == 2 and isinstance(v, bytes)]


def _str(parts: list[pb.Field], number: int) -> str | None:
    value = pb.first(parts, number, 2)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else None


def _sub(parts: list[pb.Field], number: int) -> list[pb.Field]:
    """A nested message's fields ([] where there is none)."""
    value = pb.first(parts, number, 2)
    return pb.fields(value) if isinstance(value, bytes) else []


def _lines(texts: Iterable[str | None]) -> str | None:
    return "\n".join(text for text in texts if text) or None


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def web(
    number: int, body: list[pb.Field]
) -> tuple[str, dict[str, JSONValue], Result | None]:
    """A `WebSearch` (19) or `WebFetch` (20) message as a call and, once it ended, its
    result: (tool, input, result or None while it runs). Their `Status` is at 1: searching
    or fetching 1 (the query, the urls), success 2 (the pages), error 3."""
    status = _sub(body, 1)
    going, success = _sub(status, 1), _sub(status, 2)
    failed = pb.first(status, 3, 2) is not None
    if number == 19:
        query = _str(success, 1) or _str(going, 1)
        pages = each(success, 2)
        arguments: dict[str, JSONValue] = {"query": query} if query else {}
        tool = "web_search"
    else:
        pages = each(success, 1)
        urls = [_str(pb.fields(page), 1) for page in pages] or [
            u.decode("utf-8", "replace") for u in each(going, 1)
        ]
        arguments = {"urls": [u for u in urls[:_LISTED] if u]}
        tool = "web_fetch"
    if failed:
        return tool, arguments, Result(tool, "failed", is_error=True)
    if not success and not pages:
        return tool, arguments, None
    shown = _lines(_str(pb.fields(page), 1) for page in pages[:_LISTED])
    return tool, arguments, Result(tool, shown)
