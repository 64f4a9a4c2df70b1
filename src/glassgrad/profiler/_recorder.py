"""What a profiler records on glassgrad's engine, and how it sees the ops: only while one records.

Starting a recording swaps every op, wherever glassgrad holds it (ops/call_sites.py, the places vmap swaps),
for a timed wrapper, and stopping puts back what was there: outside a recording an op's path is untouched and
costs nothing more. Each op call is an event with its wall time, its input shapes, the bytes of the arrays it
made, and, when it recorded a node, the node's saved bytes and the user's line the node recorded (its creation
site, found by the core as it always is). Each node an op recorded gets a pre-hook and a hook for the
recording's duration, and so does, as backward reaches it, each node it feeds from: its backward is timed too, as PyTorch's "autograd::engine::evaluate_function: ..."
events are. On CPU PyTorch runs backward on the calling thread, and so does glassgrad: backward events share
the forward's thread id.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from .._sites import resolve
from ..autograd.graph import AccumulateGrad, Node, RemovableHandle, SavedTensor
from ..autograd.profiler_util import BACKWARD_FUNCTION, EventList, FunctionEvent
from ..tensor import Tensor

_active: Recorder | None = None  # the recording in progress; one at a time, as PyTorch allows
_saved: Any = None  # what the ops' places held before the recording (ops.call_sites.swap)


class Recorder:
    """The events of one recording, and the state that makes them."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.events: list[FunctionEvent] = []
        # profile_memory: each array an op returned, attributed to the first (innermost) call that returned it,
        # by id, held weakly (an id alone could be a dead array's reused); and the bytes each event made itself
        self._arrays: dict[int, weakref.ref[Any]] = {}
        self._own_bytes: dict[int, int] = {}
        self._backward: dict[int, tuple[FunctionEvent, FunctionEvent]] = {}  # per node id, its two open events
        self._hooked: weakref.WeakSet[Node] = weakref.WeakSet()
        self._handles: list[RemovableHandle] = []
        self._origin_ns = time.perf_counter_ns()
        self.wall_origin_ns = time.time_ns()  # when the events' times start, on the wall clock: the trace's timestamps

    # -- events ---------------------------------------------------------------------------------------------
    def begin(self, name: str, shapes: list[list[int]] | None = None) -> FunctionEvent:
        now = self._now_us()
        # The OS's thread id, as PyTorch's traces give it
        event = FunctionEvent(len(self.events), name, threading.get_native_id(), now, now, input_shapes=shapes)
        self.events.append(event)
        return event

    def end(self, event: FunctionEvent, result: Any = None) -> None:
        """The event ends now; with profile_memory, it made the arrays of `result` no inner call made, and
        allocated those plus what the events inside it allocated."""
        event.end_us = self._now_us()
        if not self.profile_memory:
            return
        own = 0
        for out in result if isinstance(result, tuple | list) else (result,):
            if not isinstance(out, Tensor) or out._data.base is not None:  # a view allocates nothing
                continue
            known = self._arrays.get(id(out._data))
            if known is None or known() is not out._data:
                self._arrays[id(out._data)] = weakref.ref(out._data)
                own += out._data.nbytes
        self._own_bytes[event.id] = own
        inside = self.events[event.id + 1 :]  # begun after it: inside it, where on its thread
        event.cpu_memory_usage = own + sum(self._own_bytes.get(e.id, 0) for e in inside if e.thread == event.thread)

    def _now_us(self) -> float:
        return (time.perf_counter_ns() - self._origin_ns) / 1000

    def finish(self) -> EventList:
        """The events, linked into their tree, once every hook is gone."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._arrays.clear()
        self._own_bytes.clear()
        events = EventList(self.events, profile_memory=self.profile_memory, with_stack=self.with_stack)
        events._build_tree()
        return events

    # -- ops ------------------------------------------------------------------------------------------------
    def op_called(self, event: FunctionEvent, result: Any) -> None:
        """What an op's call recorded: its node's sequence number, saved bytes and site; its backward gets timed."""
        event.fwd_thread = 0
        for out in result if isinstance(result, tuple | list) else (result,):
            node = out.grad_fn if isinstance(out, Tensor) else None
            if node is None or node in self._hooked:
                continue
            event.sequence_nr = node._seq_nr
            event.saved_bytes += _saved_bytes(node)
            if self.with_stack:
                event.stack = _stack_of(node)
            self._time_backward(node, event.thread)

    def _time_backward(self, node: Node, forward_thread: int) -> None:
        self._hooked.add(node)
        # The hooks hold plain values and a weak reference, never the node: a node holding a hook that held it
        # would be a cycle
        key, name, held = id(node), node.name(), weakref.ref(node)
        # PyTorch's profiler gives AccumulateGrad no sequence number (its own is raised to run first)
        sequence_nr = -1 if isinstance(node, AccumulateGrad) else node._seq_nr

        def before(grad_outputs: tuple[Any, ...]) -> None:
            # The nodes it feeds run after it: timed too (leaves' AccumulateGrad, a custom Function's node, a node
            # made before the recording), as PyTorch times every node its engine runs while recording
            running = held()
            for child, _ in running.next_functions if running is not None else ():
                if child is not None and child not in self._hooked:
                    self._time_backward(child, forward_thread)
            outer = self.begin(f"autograd::engine::evaluate_function: {name}")
            inner = self.begin(name)
            inner.sequence_nr = outer.sequence_nr = sequence_nr
            inner.fwd_thread = outer.fwd_thread = forward_thread
            inner.scope = BACKWARD_FUNCTION
            self._backward[key] = (outer, inner)

        def after(grad_inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> None:
            outer, inner = self._backward.pop(key)
            self.end(inner)
            self.end(outer)
            outer.end_us = inner.end_us  # one span: the outer's self time is the engine's, none here

        self._handles += (node.register_prehook(before), node.register_hook(after))


def _saved_bytes(node: Node) -> int:
    return sum(value.nbytes for value in node._saved.values() if type(value) is SavedTensor)


def _stack_of(node: Node) -> list[str]:
    """The user's line that recorded the node, in PyTorch's stack-entry form: 'path(line): function'."""
    site = resolve(node._position)
    if site is None:
        return []
    code, line = site
    return [f"{code.co_filename}({line}): {code.co_name}"]


def shapes_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[list[int]]:
    """PyTorch's 'Input Shapes': one list per argument, [] for what is not a tensor."""
    return [list(a._data.shape) if isinstance(a, Tensor) else [] for a in (*args, *kwargs.values())]


def timed(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`fn` (an op, or vmap's dispatcher of one) as an event named `name`; a plain call once no recording runs
    (a reference kept past one)."""

    def op(*args: Any, **kwargs: Any) -> Any:
        recorder = _active
        if recorder is None:
            return fn(*args, **kwargs)
        event = recorder.begin(name, shapes_of(args, kwargs) if recorder.record_shapes else None)
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            recorder.end(event)
            raise
        recorder.end(event, result)
        recorder.op_called(event, result)
        return result

    return op


def aten_name(public_name: str) -> str:
    """PyTorch's event name for an op from glassgrad's public name: 'glassgrad.nn.functional.linear' -> 'aten::linear',
    'Tensor.__iadd__' -> 'aten::add_'."""
    name = public_name.rpartition(".")[2]
    if name.startswith("__") and name.endswith("__"):
        bare = name[2:-2]
        inplace = bare[0] == "i" and bare[1:] in _OPERATOR_OPS
        if bare[0] in "ri" and bare[1:] in _OPERATOR_OPS:
            bare = bare[1:]
        name = _OPERATOR_OPS.get(bare, bare) + ("_" if inplace else "")
    return f"aten::{name}"


# An operator's aten op, where the names differ
_OPERATOR_OPS = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide", "mod": "remainder",
    "pow": "pow", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift", "invert": "bitwise_not", "getitem": "index",
    "setitem": "index_put_", "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
}


def start(recorder: Recorder) -> None:
    """Make `recorder` the recording: every op, where it is held, is wrapped in a timed one."""
    global _active, _saved
    if _active is not None:
        raise RuntimeError("Profiler is already enabled on this thread")  # PyTorch's sentence for a second profiler
    from ..ops.call_sites import OPS, stand_for, swap

    # What is there now is wrapped, not the op itself: inside vmap, its dispatchers are what runs
    _saved = swap(lambda current, op: stand_for(timed(current, aten_name(OPS[op])), op))
    _active = recorder


def stop() -> EventList:
    """End the recording: what the ops' places held back in place, every backward hook removed; its events."""
    global _active, _saved
    from ..ops.call_sites import restore

    recorder, _active = _active, None
    restore(_saved)
    _saved = None
    assert recorder is not None, "stop() without start()"
    return recorder.finish()


def active() -> Recorder | None:
    return _active
