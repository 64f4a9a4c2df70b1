"""The Chrome trace EventList.export_chrome_trace() writes, in the shape torch 2.13's export has.

Trace-event JSON as Perfetto and chrome://tracing read it: complete ('X') events with `ts` and `dur` in
microseconds, `ts` counted from `baseTimeNanoseconds` (so base + ts * 1000 is the wall-clock time in
nanoseconds, as in PyTorch's traces); the process and its threads named ('M' events); and a 'fwdbwd' flow from
each op that recorded a node to that node's run in backward ('s' at the op, 'f' binding to the enclosing
backward event), the arrows Perfetto draws between forward and backward. Besides PyTorch's args an op carries
'Saved Bytes' (what its node saved for backward), 'Source Location' (the user's line that recorded the node)
and 'Bytes' (what it allocated, with profile_memory).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .profiler_util import BACKWARD_FUNCTION

_SECOND_NS = 1_000_000_000


def chrome_trace(events: Sequence[Any], origin_ns: int = 0) -> dict[str, Any]:
    """`events` (FunctionEvents, times in microseconds from the recording's start) as a trace;
    `origin_ns` is the wall-clock time of that start."""
    # Timestamps count from a whole second before the start, as PyTorch's do: small enough that each is exact
    # to the nanosecond in a double (counted from 1970 they would be rounded to a quarter microsecond, and a
    # backward node's run would end past the event holding it, which Perfetto then drops)
    base_ns = origin_ns - origin_ns % _SECOND_NS
    offset_ns = origin_ns - base_ns
    pid = os.getpid()
    trace: list[dict[str, Any]] = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "glassgrad"}}]
    flows = _flow_ids(events)
    for event in events:
        # whole nanoseconds, start and end alike, so an event inside another ends inside it once read back
        start_ns = offset_ns + round(event.start_us * 1000)
        end_ns = offset_ns + round(event.end_us * 1000)
        trace.append({
            "ph": "X", "cat": "user_annotation" if event.is_user_annotation else "cpu_op", "name": event.trace_name,
            "pid": pid, "tid": event.thread, "ts": start_ns / 1000, "dur": (end_ns - start_ns) / 1000,
            "args": _args(event),
        })
        for phase, flow_id in flows.get(event.id, ()):
            flow = {"ph": phase, "id": flow_id, "pid": pid, "tid": event.thread, "ts": start_ns / 1000, "cat": "fwdbwd", "name": "fwdbwd"}
            trace.append(flow | {"bp": "e"} if phase == "f" else flow)
    for tid in sorted({event.thread for event in events}):
        trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": f"thread {tid}"}})
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "baseTimeNanoseconds": base_ns, "traceEvents": trace}


def _args(event: Any) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if event.input_shapes:
        args["Input Dims"] = event.input_shapes
    if event.sequence_nr >= 0:
        args["Sequence number"] = event.sequence_nr
        args["Fwd thread id"] = event.fwd_thread
    if event.cpu_memory_usage:
        args["Bytes"] = event.cpu_memory_usage
    if event.saved_bytes:
        args["Saved Bytes"] = event.saved_bytes
    if event.stack:
        args["Source Location"] = event.stack[0]
    return args


def _flow_ids(events: Sequence[Any]) -> dict[int, list[tuple[str, int]]]:
    """Per event id, the flows that start ('s') or finish ('f') at it: one from each op that recorded a node to
    each run of that node, matched by sequence number and the forward's thread."""
    recorded: dict[tuple[int, int], Any] = {}  # (sequence number, thread) -> the op that recorded the node
    runs: list[Any] = []
    for event in events:
        if event.scope == BACKWARD_FUNCTION:
            runs.append(event)
        elif event.fwd_thread == 0 and event.sequence_nr >= 0:  # an op that recorded a node (the recorder's mark)
            recorded.setdefault((event.sequence_nr, event.thread), event)
    pairs = [(recorded[key], run) for run in runs if (key := (run.sequence_nr, run.fwd_thread)) in recorded]
    flows: dict[int, list[tuple[str, int]]] = {}
    for flow_id, (op, run) in enumerate(pairs, start=1):
        flows.setdefault(op.id, []).append(("s", flow_id))
        flows.setdefault(run.id, []).append(("f", flow_id))
    return flows
