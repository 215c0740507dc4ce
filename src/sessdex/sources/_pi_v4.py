"""pi's session format 4: the change log pi-agent-core's harness (the SDK) writes.

The same `sessions/--<cwd>--/<ISO time>_<id>.jsonl` files as the pi CLI's format 3, but a
log of changes: a header `{"kind":"header","version":4,"id","createdAt" (epoch ms),
"cwd","parentSessionId"?,"metadata"?}`, then one record per line, each with a `seq`:

- `{"kind":"entry","lane"?,"type","id","parentId","timestamp" (ms),…}`: a tree entry in
  format 3's shapes (`message`, `model_change`, `thinking_level_change`, `compaction`,
  `branch_summary`, `custom`, and `active_tools_change`);
- `{"kind":"lane","lane","leafId"}`: where a lane's head now is (the conversation's leaf);
- `{"kind":"fact","fact":"name","name"}` (the session's name) or `"fact":"label"`;
- `{"kind":"record","type",…}`: what the harness did (`operation_started`,
  `operation_finished`, `step_attempt`, `tool_started`, `queue_*`, `write_deferred`) and
  `usage` records, `{cause, usage}`, one per billed model call (retries, tools and hooks
  that ran a model included), where format 3 kept usage on assistant messages only.

From pi-agent-core's source (packages/agent/src/harness/session: types.ts, jsonl/types.ts,
jsonl/repo.ts, jsonl/codec.ts); the pi CLI keeps format 3 until pi 2.0. No real file seen
here: Low confidence.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import files
from ._values import as_str

VERSION = 4
MAIN_LANE = "main"


def is_header(record: Mapping[str, object]) -> bool:
    return record.get("kind") == "header" and record.get("version") == VERSION


def active_branch(path: str) -> tuple[set[str] | None, bool]:
    """(the ids on the chain from the main lane's leaf to the root, whether the file
    holds `usage` records). A lane's leaf is its last pointer or the last entry appended
    to it (`appendEntry` moves it, with no pointer written); the main lane's, else any
    lane's, else the last entry; None when no entry has an id."""
    parents: dict[str, str | None] = {}
    last: str | None = None
    leaves: dict[str, str | None] = {}
    billed = False
    with files.open_binary(path) as stream:
        for line in files.iter_lines(
            stream, cap=files.READ_LINE_CAP, oversize="compact"
        ):
            if not line.complete and not line.data.rstrip().endswith(b"}"):
                continue  # a torn last line
            head = line.data[:200]
            if b'"record"' in head and b'"usage"' in line.data[:400]:
                billed = billed or _is_usage_record(line.data)
                continue
            try:
                record = files.loads(line.data)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            kind = record.get("kind")
            if kind == "entry" and isinstance(record.get("id"), str):
                parents[record["id"]] = as_str(record.get("parentId"))
                last = record["id"]
                if isinstance(record.get("lane"), str):  # appended to it: its new leaf
                    leaves[record["lane"]] = last
            elif kind == "lane" and isinstance(record.get("lane"), str):
                leaves[record["lane"]] = as_str(record.get("leafId"))
    if last is None:
        return None, billed
    if MAIN_LANE in leaves:
        leaf = leaves[MAIN_LANE]
    else:  # the lane moved last, if any
        leaf = next(reversed(leaves.values()), None)
    node: str | None = leaf or last
    chain: set[str] = set()
    while node is not None and node not in chain:
        chain.add(node)
        node = parents.get(node)
    return chain, billed


def _is_usage_record(data: bytes) -> bool:
    try:
        record = files.loads(data)
    except ValueError:
        return False
    return (
        isinstance(record, dict)
        and record.get("kind") == "record"
        and record.get("type") == "usage"
    )
