"""Small readers of Codex CLI values, shared by the codex source's listing and its reader.

Pure functions over decoded JSON (and one directory walk): the line envelope, a thread's
lineage, settings from a `turn_context`, message texts, token counts and times. No state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .. import files, folders
from ..model import JSONValue
from ._values import as_int as _whole
from ._values import odd_count

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# `rollout-<time>-<thread id>.jsonl`; a reverted thread's newer files add `_<rollout id>`
ROLLOUT_ID = re.compile(rf"({_UUID})(?:_({_UUID}))?\.jsonl(?:\.zst)?$")
TITLE_CAP = 300
# `one_line` of a longer text reads only its start, where that holds TITLE_CAP of words
_ONE_LINE_PREFIX = 8 * TITLE_CAP
EPOCH = datetime.min.replace(tzinfo=UTC)

# Prompt parts that the harness, not the human, put into the conversation.
HARNESS_MARKERS = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "<permissions instructions>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<collaboration_mode>",
    "<multi_agent_mode>",
    "<skills_instructions>",
    "<skill>",
    "<tools>",
    "<apps_instructions>",
    "<plugins_instructions>",
    "<personality",
    "<model_switch>",
    "<realtime_conversation>",
    "<INSTRUCTIONS>",
    "<user_action>",  # /review's findings, recorded as a user message
    "Side conversation boundary.",  # what `/side` (an attached thread) is told first
)
# Response item types that the bare (pre-envelope) era wrote as whole lines.
BARE_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)


def envelope(record: Mapping[str, object]) -> tuple[str | None, dict[str, object]]:
    """(line type, payload); a bare-era item reads as a response item; (None, {}) for anything else."""
    kind = record.get("type")
    payload = record.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload
    if isinstance(kind, str) and kind in BARE_ITEM_TYPES and "payload" not in record:
        return "response_item", dict(record)
    return None, {}


ENCRYPTED = "[encrypted]"  # what a block Codex encrypted (reasoning, a task) reads as


def sealed(item: Mapping[str, object], label: str) -> str | None:
    """A response item whose words are only its `encrypted_content` (reasoning kept for
    the model, not the user), as `[reasoning: encrypted, 1.2 KB]`; None without one."""
    value = item.get("encrypted_content")
    if not isinstance(value, str) or not value:
        return None
    marker = files.elided(value)  # a long line's string, cut by files.py: its size
    size = marker[0] if marker is not None else len(value)
    return f"[{label}: encrypted, {files.human_bytes(size)}]"


def agent_named(path: str) -> str:
    """A Codex agent as a person calls it: its task name, the last part of its path
    (`/root/greeter`: "greeter", as the lead's spawn named it and `tree` shows it), and
    the root agent "the lead", as the other apps' leads are (`/root` reads as a folder).
    Any other name as it is."""
    if path == "/root":
        return "the lead"
    if path.startswith("/root/") and (name := path.rstrip("/").rsplit("/", 1)[-1]):
        return name
    return path


def lineage_of(meta: Mapping[str, object]) -> tuple[str | None, str | None]:
    """(parent thread, agent type) of a sub-agent; a `source` that is an object marks one.
    One spawned with no role (`agent_role: null`) is typed by the task name its lead
    gave it (`/root/greeter`: "greeter"), as `tree` and the table call it."""
    source = meta.get("source")
    if not isinstance(source, dict):
        return None, None
    subagent = source.get("subagent")
    spawn = as_dict(as_dict(subagent).get("thread_spawn"))
    parent = as_str(spawn.get("parent_thread_id")) or as_str(
        meta.get("parent_thread_id")
    )
    agent_type = as_str(spawn.get("agent_role")) or as_str(meta.get("agent_role"))
    path = as_str(spawn.get("agent_path")) or as_str(meta.get("agent_path"))
    if agent_type is None and path and path != "/root":
        agent_type = agent_named(path)
    if agent_type is None:
        if isinstance(subagent, str):
            agent_type = subagent
        elif isinstance(subagent, dict) and not spawn:
            agent_type = next(
                (
                    value if isinstance(value, str) else key
                    for key, value in subagent.items()
                ),
                None,
            )
    return parent, agent_type


def has_origin(meta: Mapping[str, object]) -> bool:
    return bool(
        as_str(meta.get("forked_from_id"))
        or as_str(meta.get("parent_thread_id"))
        or lineage_of(meta)[0]
    )


def effort_of(context: Mapping[str, object]) -> str | None:
    mode = as_dict(context.get("collaboration_mode"))
    return (
        as_str(context.get("effort"))
        or as_str(as_dict(mode.get("settings")).get("reasoning_effort"))
        or as_str(mode.get("reasoning_effort"))
    )


def sandbox_of(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("type") or value.get("mode")
    if not isinstance(value, str) or not value:
        return None
    # a permission profile of type "disabled" (threads.sandbox_policy in 0.17x) means no sandbox
    return "danger-full-access" if value == "disabled" else value


def permission_mode(approval: str | None, sandbox: str | None) -> str | None:
    parts = [
        f"approval={approval}" if approval else "",
        f"sandbox={sandbox}" if sandbox else "",
    ]
    return " ".join(part for part in parts if part) or None


def is_harness(text: str) -> bool:
    return text.lstrip().startswith(HARNESS_MARKERS)


def message_text(payload: Mapping[str, object]) -> tuple[str, str]:
    """(what the human wrote, the harness context) of a user message's parts."""
    human: list[str] = []
    context: list[str] = []
    for part in as_list(payload.get("content")):
        text = part_text(part)
        if text:
            (context if is_harness(text) else human).append(text)
    return "\n".join(human), "\n".join(context)


def content_text(content: object) -> str:
    return "\n".join(text for part in as_list(content) if (text := part_text(part)))


# a recording (0.171): a message's `input_audio`, a user input's `audio` or `local_audio`
_AUDIO_PARTS = frozenset({"input_audio", "audio", "local_audio", "localAudio"})


def part_text(part: object) -> str | None:
    if isinstance(part, str):
        return summary(part, "text")
    block = as_dict(part)
    kind = block.get("type")
    if kind in (
        "input_text",
        "output_text",
        "text",
        "Text",
        "inputText",
        "summary_text",
        "reasoning_text",
        "refusal",
    ):
        text = block.get("text") if kind != "refusal" else block.get("refusal")
        return summary(text, "text") if isinstance(text, str) else None
    if kind in ("input_image", "image", "local_image", "localImage"):
        return _media("image", block, block.get("image_url"))
    if kind in _AUDIO_PARTS:
        return _media("audio", block, block.get("audio_url"))
    if kind == "encrypted_content":
        return ENCRYPTED
    return None


def _media(label: str, block: Mapping[str, object], url: object) -> str:
    """`[image: <where>]`, `[audio: file <id>]` for an upload (0.171), a size for inline
    data: a `data:` URL, or `data` itself, base64 (MCP's shape), never printed."""
    url = url or block.get("url")
    data = block.get("data")
    nested = block.get("input_audio")  # OpenAI's chat shape: {"data", "format"}
    if isinstance(nested, dict) and not data and not url:
        return _clip(nested.get("data"), nested.get("format"))
    if not (isinstance(url, str) and url) and isinstance(data, str) and data:
        return summary(data, label)  # base64 itself: its size
    url = url or block.get("path")
    if isinstance(url, str) and (url.startswith("data:") or files.elided(url)):
        return summary(url, label)
    if isinstance(url, str) and url:
        return f"[{label}: {url}]"
    file_id = block.get("file_id") or block.get("fileId")
    if isinstance(file_id, str) and file_id:
        return f"[{label}: file {file_id}]"
    return f"[{label}]"


# a recording's format as OpenAI names it ("wav", "mp3", "pcm16"): a short word
_FORMAT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,15}")


def _clip(data: object, form: object) -> str:
    """`[audio: wav, 340.0 KB]` for base64 data nested with its format; never the data."""
    named = isinstance(form, str) and _FORMAT.fullmatch(form) is not None
    size = None
    if isinstance(data, str) and data:
        marker = files.elided(data)  # a long line's string, cut by files.py: its size
        size = files.human_bytes(marker[0] if marker else len(data))
    if named:
        return f"[audio: {form}, {size}]" if size else f"[audio: {form}]"
    return f"[audio, {size}]" if size else "[audio]"


def event_prompt(payload: Mapping[str, object]) -> str | None:
    """The human's words in a `user_message` (or `item_completed` UserMessage) event, else None."""
    if payload.get("type") == "item_completed":
        item = as_dict(payload.get("item"))
        text = (
            content_text(item.get("content"))
            if item.get("type") == "UserMessage"
            else ""
        )
        return text if text and not is_harness(text) else None
    if payload.get("type") != "user_message" or payload.get("kind") in (
        "user_instructions",
        "environment_context",
    ):
        return None
    message = payload.get("message")
    text = summary(message, "text") if isinstance(message, str) else ""
    if text and is_harness(text):
        return None
    lines = [text] if text else []
    lines += _pictures(payload)
    for local in as_list(payload.get("local_images")):
        if isinstance(local, str):
            lines.append(f"[image: {local}]")
    for clip in as_list(payload.get("audio")):  # 0.171: a recording given inline
        if isinstance(clip, str) and clip:
            lines.append(_linked("audio", clip))
    for local in as_list(payload.get("local_audio")):  # 0.171: a recording's file
        if isinstance(local, str):
            lines.append(f"[audio: {local}]")
    return "\n".join(lines) or None


def _pictures(payload: Mapping[str, object]) -> list[str]:
    """A prompt's pictures given by URL (`images`) and uploaded (`file_ids`), in the
    order the user gave them: `image_order` says "inline" or "file" for each (0.171); the
    rest, with no order said, after. (`file_id_details` holds only each upload's detail
    level, no name.)"""
    inline = [
        _linked("image", image)
        for image in as_list(payload.get("images"))
        if isinstance(image, str) and image
    ]
    uploaded = [
        f"[image: file {_named(file_id)}]"
        for file_id in as_list(payload.get("file_ids"))
        if isinstance(file_id, str) and file_id
    ]
    queues = {"inline": iter(inline), "file": iter(uploaded)}
    shown: list[str] = []
    for kind in as_list(payload.get("image_order")):
        queue = queues.get(kind) if isinstance(kind, str) else None
        if queue is not None and (picture := next(queue, None)) is not None:
            shown.append(picture)
    for queue in queues.values():
        shown.extend(queue)
    return shown


def _linked(label: str, url: str) -> str:
    """`[<label>: <url>]` for a web address, else (a `data:` URL, bare base64) its size."""
    if url.startswith(("http://", "https://")):
        return f"[{label}: {_named(url)}]"
    return summary(url, label)


NAME_MOST = (
    300  # characters of an address or file id shown; a longer one is no name to read
)


def _named(name: str) -> str:
    """An address or upload id as shown: whole up to NAME_MOST characters, else its start
    and its size (an address can be megabytes in a line under files.py's cut)."""
    if len(name) <= NAME_MOST:
        return name
    return f"{name[:NAME_MOST]}… ({files.human_bytes(len(name))})"


def summary(value: str, kind: str) -> str:
    """The text itself, or a short stand-in for a payload elided by files.py or for inline image or audio data."""
    marker = files.elided(value)
    if marker is not None:
        size, hint = marker
        label = "image" if hint.startswith("data:image") or kind == "image" else kind
        return f"[{label}, {files.human_bytes(size)}]"
    if kind in ("image", "audio"):  # inline data: its size, never its bytes
        return f"[{kind}, {files.human_bytes(len(value))}]"
    return value


def usage_tuple(usage: Mapping[str, object]) -> tuple[int, ...] | None:
    """(input incl. cached, cached, cache writes, output incl. reasoning, reasoning), or None.

    Each count as the `usage` scan takes it (`_codex_usage._tuple`): 0 below 0 or past
    2**53, a float's whole part, so that `show` and `tree` bill what `usage` does."""
    if not usage:
        return None
    get = usage.get  # a plain count inline, the rest by `_count`: runs for every count
    given, cached, written = (
        get("input_tokens"),
        get("cached_input_tokens"),
        get("cache_write_input_tokens"),
    )
    made, reasoning = get("output_tokens"), get("reasoning_output_tokens")
    return (
        given if type(given) is int and 0 <= given <= _EXACT else _count(given),
        cached if type(cached) is int and 0 <= cached <= _EXACT else _count(cached),
        written if type(written) is int and 0 <= written <= _EXACT else _count(written),
        made if type(made) is int and 0 <= made <= _EXACT else _count(made),
        reasoning
        if type(reasoning) is int and 0 <= reasoning <= _EXACT
        else _count(reasoning),
    )


_EXACT = 2**53  # `_values.as_int`'s limit: past it a count is a broken value, 0


_COUNTS = (
    "input_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
)


def odd_usage(info: Mapping[str, object]) -> bool:
    """Whether a `token_count`'s `info` holds a count no app writes (`odd_count`), in
    its last or its total usage: what the `usage` scan says (`_codex_usage._odd`)."""
    for key in ("last_token_usage", "total_token_usage"):
        usage = info.get(key)
        if isinstance(usage, dict) and any(
            odd_count(usage.get(name)) for name in _COUNTS
        ):
            return True
    return False


def _count(value: object) -> int:
    return max(0, _whole(value))


def tag(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    return match.group(1).strip() if match else None


def parse_time(value: object) -> datetime | None:
    if isinstance(value, str) and value:
        if value[-1] == "Z":  # the common "…Z", which fromisoformat reads as UTC itself
            try:
                stamp = datetime.fromisoformat(value)
            except ValueError:
                pass  # the rules below, which read some shapes it refuses
            else:
                if stamp.tzinfo is UTC:
                    return stamp
        try:
            stamp = datetime.fromisoformat(
                value.replace("Z", "+00:00") if value.endswith("Z") else value
            )
            return (
                stamp.replace(tzinfo=UTC)
                if stamp.tzinfo is None
                else stamp.astimezone(UTC)
            )
        except (ValueError, OverflowError):  # OverflowError: past year 1 or 9999 in UTC
            return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return epoch(value, 1000 if value > 10_000_000_000 else 1)
    return None


def epoch(value: object, per_second: int) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / per_second, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def one_line(value: object) -> str | None:
    """The text on one line, whitespace runs made one space, cut at TITLE_CAP; None if empty."""
    if not isinstance(value, str):
        return None
    if len(value) > _ONE_LINE_PREFIX:
        # A long text (a pasted prompt): its first words decide. The words of a prefix
        # but the last (which the cut may split) are the text's own first words.
        first = " ".join(value[:_ONE_LINE_PREFIX].split()[:-1])
        if len(first) >= TITLE_CAP:
            return first[:TITLE_CAP]
    text = " ".join(value.split())[:TITLE_CAP]
    return text or None


def json_text(value: object) -> object:
    """A db column that holds JSON text, decoded; other values as they are."""
    if isinstance(value, str) and value.startswith(("{", "[")):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def as_json(value: object) -> JSONValue:
    """A value decoded from JSON, typed as such (it came from orjson, so it is one)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    return str(value)


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def read_errors() -> tuple[type[BaseException], ...]:
    """What reading a rollout may raise besides bad content: IO errors, a broken zstd frame."""
    import zstandard

    return (OSError, zstandard.ZstdError)


def rollouts(directory: Path, root: Path, depth: int = 0) -> Iterator[Path]:
    """Rollouts under `directory` (date folders, three deep), sorted; a `.jsonl.zst` with a plain twin is left out."""
    return map(Path, rollout_names(directory, root, depth))


TIMERS_SUFFIX = ".jsonl.timers.json"  # a rollout's timers, beside it (timer_sidecar.rs)


def rollout_names(
    directory: Path | str, root: Path, depth: int = 0, *, timers: bool = False
) -> Iterator[str]:
    """`rollouts` as plain path strings: listing a big home makes no Path objects. With
    `timers`, the timer sidecars beside them too."""
    found = folders.entries(Path(directory), root)
    names = {entry.name for entry in found}
    for entry in found:
        rollout = entry.name.startswith("rollout-") and entry.name.endswith(
            (".jsonl", ".jsonl.zst")
        )
        if rollout and not folders.file_entry(entry):
            continue  # a folder so named hides a rollout: said, not walked into
        if entry.is_dir():
            if depth < 3:
                yield from rollout_names(entry.path, root, depth + 1, timers=timers)
        elif entry.name.startswith("rollout-") and (
            entry.name.endswith(".jsonl")
            or (entry.name.endswith(".jsonl.zst") and entry.name[:-4] not in names)
            or (timers and entry.name.endswith(TIMERS_SUFFIX))
        ):
            yield entry.path


def harness_line(record: Mapping[str, object]) -> bool:
    """A line Codex's harness metadata (beside the payload, `CodexHarnessMetadata`) marks
    as nobody's words here: a user message a child thread inherited from its parent's
    context (`inherited_user_message`), or the output of a compaction
    (`compaction_output`), which is not an answer the user saw."""
    metadata = record.get("metadata")
    return isinstance(metadata, dict) and (
        metadata.get("inherited_user_message") is True
        or metadata.get("compaction_output") is True
    )


# An answer code mode delivered only in part: Codex writes the message again with a
# stand-in text ("The content of a confirmed assistant message is unavailable...") and
# keeps what the user was shown after this prefix of the harness metadata (0.171).
_DELIVERED_IN_PART = "codex:code-mode-delivery:v1:incomplete:"


def delivered_in_part(record: Mapping[str, object]) -> str | None:
    """What the user was shown of an answer cut short while being delivered, where the
    line's harness metadata says so; None for every other line."""
    metadata = record.get("metadata")
    if not isinstance(metadata, dict):
        return None
    marker = metadata.get("delivered_assistant_message")
    if isinstance(marker, str) and marker.startswith(_DELIVERED_IN_PART):
        return marker[len(_DELIVERED_IN_PART) :]
    return None


def rollout_id(name: str) -> str | None:
    """The thread a rollout file belongs to, from its name."""
    match = ROLLOUT_ID.search(name)
    return match.group(1) if match else None


def segment_id(name: str) -> str | None:
    """The rollout's own id, from its name: what a `history_base` names. A thread's first
    file goes by the thread's id; the files a revert starts add `_<rollout id>`."""
    match = ROLLOUT_ID.search(name)
    return (match.group(2) or match.group(1)) if match else None
