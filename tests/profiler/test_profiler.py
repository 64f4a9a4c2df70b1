"""The profiler on glassgrad's engine against torch 2.13's profiler on the same program: the table's layout, the
calls counted per op, the self/total relation, the Chrome trace, schedules; and that no profiler costs nothing."""

from __future__ import annotations

import collections
import gc
import json
import re
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import glassgrad
import glassgrad.profiler
from glassgrad.ops import call_sites


def _program(lib: Any) -> Any:
    """A small training step, as a PyTorch user profiles one; `lib` is torch or glassgrad."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 1))
    x = lib.tensor(np.random.default_rng(0).standard_normal((4, 8)), dtype=lib.float32)
    with lib.profiler.profile(
        activities=[lib.profiler.ProfilerActivity.CPU], record_shapes=True, profile_memory=True
    ) as prof:  # not with_stack: torch 2.13 now and then fails to decode a Python frame's name with it
        with lib.profiler.record_function("model_inference"):
            loss = model(x).pow(2).mean()
        loss.backward()
    return prof


@pytest.fixture(scope="module")
def profiles() -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    return _program(torch), _program(glassgrad)


def _rules_and_header(table: str) -> tuple[list[str], str]:
    lines = table.splitlines()
    return [lines[0], lines[2], lines[-2]], lines[1]


@pytest.mark.torch_oracle
def test_the_table_has_pytorchs_columns_layout_and_footer(profiles: tuple[Any, Any]) -> None:
    torch_table, glass_table = (p.key_averages().table(sort_by="cpu_time_total", row_limit=10) for p in profiles)
    torch_rules, torch_header = _rules_and_header(torch_table)
    glass_rules, glass_header = _rules_and_header(glass_table)
    assert glass_header.split() == torch_header.split()  # Name, Self CPU %, ..., CPU Mem, Self CPU Mem, # of Calls
    assert [len(r.split()) for r in glass_rules] == [len(r.split()) for r in torch_rules]
    assert glass_rules[0].split()[1:] == torch_rules[0].split()[1:]  # the fixed-width columns are as wide
    assert glass_header.index("Self CPU %") - glass_rules[0].index(" ") == torch_header.index("Self CPU %") - torch_rules[0].index(" ")
    assert re.fullmatch(r"Self CPU time total: [0-9.]+(us|ms|s)", glass_table.splitlines()[-1])
    assert len(glass_table.splitlines()) == len(torch_table.splitlines())  # ten rows each
    shapes = profiles[1].key_averages(group_by_input_shape=True).table(row_limit=3).splitlines()[1]
    assert shapes.split()[-2:] == ["Input", "Shapes"]


@pytest.mark.torch_oracle
def test_calls_are_counted_per_op_as_pytorch_counts_them(profiles: tuple[Any, Any]) -> None:
    counts = [{e.key: e.count for e in p.key_averages()} for p in profiles]
    for name in (
        "model_inference", "aten::linear", "aten::relu", "aten::mean",
        "autograd::engine::evaluate_function: AddmmBackward0", "autograd::engine::evaluate_function: ReluBackward0",
        "autograd::engine::evaluate_function: MeanBackward0", "autograd::engine::evaluate_function: PowBackward0",
        "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "AddmmBackward0",
    ):
        assert counts[1].get(name) == counts[0].get(name), name


def test_self_time_is_total_less_the_inner_calls_and_sums_to_the_footer(profiles: tuple[Any, Any]) -> None:
    events = profiles[1].events()
    for event in events:
        inner = sum(child.cpu_time_total for child in event.cpu_children)
        assert event.self_cpu_time_total == pytest.approx(event.cpu_time_total - inner)
        assert -1e-6 <= event.self_cpu_time_total <= event.cpu_time_total + 1e-6
        assert event.cpu_memory_usage >= event.self_cpu_memory_usage >= 0
    top_level = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert events.self_cpu_time_total == pytest.approx(top_level)
    averages = profiles[1].key_averages()
    assert averages.self_cpu_time_total == pytest.approx(events.self_cpu_time_total)


def test_an_op_records_its_shapes_its_nodes_saved_bytes_and_the_users_line() -> None:
    x = glassgrad.ones(3, 5, requires_grad=True)
    with glassgrad.profiler.profile(record_shapes=True, with_stack=True) as prof:
        y = x * x  # saves both inputs: 2 * 15 float32
        y.sum().backward()
    (mul,) = [e for e in prof.events() if e.name == "aten::mul" and e.cpu_parent is None]  # not MulBackward0's muls
    assert mul.input_shapes == [[3, 5], [3, 5]]
    assert mul.saved_bytes == 2 * 15 * 4
    assert mul.stack and Path(__file__).name in mul.stack[0]
    line = int(re.search(r"\((\d+)\)", mul.stack[0]).group(1))  # type: ignore[union-attr]
    assert Path(__file__).read_text().splitlines()[line - 1].strip().startswith("y = x * x")
    backward = [e for e in prof.events() if e.name == "autograd::engine::evaluate_function: MulBackward0"]
    assert len(backward) == 1 and backward[0].cpu_children[0].name == "MulBackward0"
    node_run = backward[0].cpu_children[0]
    assert node_run.sequence_nr == mul.sequence_nr >= 0 and node_run.fwd_thread == mul.thread
    # PyTorch's rule: a node's run, and the ops its formula calls, carry the stack of the op that recorded it
    assert node_run.stack == mul.stack and all(op.stack == mul.stack for op in node_run.cpu_children)
    sources = prof.key_averages(group_by_stack_n=1).table(row_limit=2).splitlines()[1]
    assert sources.split()[-2:] == ["Source", "Location"]


def _ns(microseconds: float) -> int:
    """A time as Perfetto's JSON importer reads it: microseconds times 1000, rounded to whole nanoseconds."""
    return round(microseconds * 1000)


def _check_nesting(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """The complete events nest exactly, to the nanosecond as Perfetto reads them: it drops an event that ends
    past the one it starts in."""
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    for event in complete:
        assert {"name", "ts", "dur", "pid", "tid", "args", "cat"} <= event.keys()
        assert isinstance(event["ts"], float | int) and event["dur"] >= 0
    for tid in {e["tid"] for e in complete}:
        open_ends: list[int] = []
        for event in sorted((e for e in complete if e["tid"] == tid), key=lambda e: (_ns(e["ts"]), -_ns(e["dur"]))):
            start, end = _ns(event["ts"]), _ns(event["ts"]) + _ns(event["dur"])
            while open_ends and start >= open_ends[-1]:
                open_ends.pop()
            assert not open_ends or end <= open_ends[-1], f"{event['name']} ends past the event it starts in"
            open_ends.append(end)
    return complete


def test_the_chrome_trace_is_trace_event_json_with_valid_nesting(profiles: tuple[Any, Any], tmp_path: Path) -> None:
    trace = _trace_of(profiles[1], tmp_path)
    complete = _check_nesting(trace)
    names = {e["name"] for e in complete}
    assert {"model_inference", "aten::linear", "autograd::engine::evaluate_function: AddmmBackward0"} <= names
    linear = next(e for e in complete if e["name"] == "aten::linear")
    assert linear["args"]["Input Dims"] == [[4, 8], [16, 8], [16]]
    assert next(e for e in complete if e["name"] == "model_inference")["cat"] == "user_annotation"
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in trace["traceEvents"])


def _trace_of(prof: Any, tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / f"{type(prof).__module__}.json"
    prof.export_chrome_trace(str(path))
    return json.loads(path.read_text())


def _fields(trace: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    """The keys of the trace's op events and flow events, by phase and category."""
    return {
        (e["ph"], e["cat"]): set(e) for e in trace["traceEvents"] if e["ph"] in "Xsf" and e.get("cat") in ("cpu_op", "fwdbwd")
    }


def _flows(trace: dict[str, Any]) -> collections.Counter[tuple[str, str]]:
    """Each forward-to-backward flow as (the op it starts at, the backward event it ends at): the innermost
    complete event starting where the flow's end is, on its thread."""
    events = trace["traceEvents"]

    def at(flow: dict[str, Any]) -> str:
        starting = [e for e in events if e["ph"] == "X" and e["tid"] == flow["tid"] and _ns(e["ts"]) == _ns(flow["ts"])]
        return min(starting, key=lambda e: e["dur"])["name"]

    ends = {(e["ph"], e["id"]): at(e) for e in events if e.get("cat") == "fwdbwd"}
    return collections.Counter((ends["s", i], ends["f", i]) for phase, i in ends if phase == "s")


@pytest.mark.torch_oracle
def test_the_trace_has_torchs_fields_units_and_forward_to_backward_flows(profiles: tuple[Any, Any], tmp_path: Path) -> None:
    torch_trace, glass_trace = (_trace_of(p, tmp_path) for p in profiles)
    assert glass_trace.keys() <= torch_trace.keys()  # schemaVersion, displayTimeUnit, baseTimeNanoseconds, ...
    assert _fields(glass_trace) == _fields(torch_trace)  # an op: ph, cat, name, pid, tid, ts, dur, args; a flow's ends
    assert _flows(glass_trace) == _flows(torch_trace)  # aten::addmm -> AddmmBackward0, aten::relu -> ReluBackward0, ...
    for trace, prof in zip((torch_trace, glass_trace), profiles, strict=True):
        # ts and dur in microseconds, ts counted from baseTimeNanoseconds; each exact to the nanosecond in a double
        (inference,) = [e for e in trace["traceEvents"] if e["name"] == "model_inference"]
        (recorded,) = [e for e in prof.events() if e.name == "model_inference"]
        assert inference["dur"] == pytest.approx(recorded.cpu_time_total, abs=2e-3)
        for event in trace["traceEvents"]:
            if "ts" in event:
                assert abs(event["ts"] * 1000) < 2**53 and event["ts"] * 1000 == pytest.approx(_ns(event["ts"]), abs=1e-6)
    # both on the wall clock: the two programs ran one after the other
    starts = [t["baseTimeNanoseconds"] + _ns(e["ts"]) for t in (torch_trace, glass_trace) for e in t["traceEvents"] if e["name"] == "model_inference"]
    assert abs(starts[1] - starts[0]) < 60 * 10**9
    extras = {"Saved Bytes", "Source Location", "Bytes"}  # glassgrad's own: what the node saved, the user's line
    for name in ("aten::addmm", "AddmmBackward0", "autograd::engine::evaluate_function: AddmmBackward0"):
        torch_args, glass_args = ({*next(e for e in t["traceEvents"] if e["name"] == name)["args"]} for t in (torch_trace, glass_trace))
        assert {"Sequence number", "Fwd thread id"} <= glass_args <= torch_args | extras, name
    for trace in (torch_trace, glass_trace):  # a leaf's AccumulateGrad has no sequence number
        assert not any("Sequence number" in e["args"] for e in trace["traceEvents"] if e["name"] == "torch::autograd::AccumulateGrad")


def _scheduled(lib: Any) -> tuple[list[int], list[list[str]]]:
    saved: list[list[str]] = []
    at: list[int] = []

    def ready(prof: Any) -> None:
        at.append(prof.step_num)
        steps = [e for e in prof.events() if e.name.startswith("ProfilerStep")]
        saved.append(sorted({e.name for e in steps}) + [e.key for e in prof.key_averages() if e.key.startswith("ProfilerStep")])

    x = lib.ones(3, requires_grad=True)
    with lib.profiler.profile(
        schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready
    ) as prof:
        for _ in range(10):
            (x * 2).sum().backward()
            prof.step()
    return at, saved


@pytest.mark.torch_oracle
@pytest.mark.filterwarnings("ignore:Warning. Profiler clears events")  # torch's, raised inside its own stop: a crash
def test_a_schedule_records_and_saves_the_steps_pytorchs_does() -> None:
    torch = pytest.importorskip("torch")
    assert _scheduled(glassgrad) == _scheduled(torch)


def test_the_legacy_profile_and_record_function_as_a_decorator(tmp_path: Path) -> None:
    from glassgrad.autograd import profiler

    @profiler.record_function("my_step")
    def step(t: glassgrad.Tensor) -> glassgrad.Tensor:
        return (t.exp() + 1).sum()

    assert profiler.kineto_available() is False
    with profiler.profile(use_cuda=False) as prof, profiler.emit_nvtx():
        step(glassgrad.ones(2, requires_grad=True)).backward()
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["my_step"] == 1 and counts["aten::exp"] == 1
    assert "Self CPU time total" in prof.table(row_limit=3)
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    _check_nesting(json.loads((tmp_path / "t.json").read_text()))


def test_tensorboard_trace_handler_writes_a_trace_per_saved_cycle(tmp_path: Path) -> None:
    x = glassgrad.ones(2)
    handler = glassgrad.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with glassgrad.profiler.profile(schedule=glassgrad.profiler.schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as prof:
        for _ in range(4):
            x.exp()
            prof.step()
    files = sorted(tmp_path.glob("w.*.pt.trace.json"))
    assert len(files) == 2
    _check_nesting(json.loads(files[0].read_text()))


def test_no_profiler_leaves_no_wrapper_and_no_hook_behind() -> None:
    originals = {name: fn for fn, name in call_sites.OPS.items()}
    x = glassgrad.ones(2, requires_grad=True)
    with glassgrad.profiler.profile():
        y = x.exp() * 3
        assert glassgrad.exp is not originals["glassgrad.exp"]  # the wrappers are in place while recording
    assert glassgrad.exp is originals["glassgrad.exp"]
    assert glassgrad.Tensor.__mul__ is vars(glassgrad.Tensor)["__mul__"] is originals["glassgrad.mul"]
    for owner, name, op in call_sites.sites():  # every place that held an op before recording holds it again
        assert vars(owner)[name] is op or getattr(vars(owner)[name], "fget", None) is op, (owner, name)
    for node in (y.grad_fn, y.grad_fn.next_functions[0][0]):
        assert not node._hooks and not node._pre_hooks
    with glassgrad.profiler.record_function("nothing records"):
        z = x * 2
    assert type(z.grad_fn).__name__ == "MulBackward0" and not z.grad_fn._hooks
    y.sum().backward()  # a graph made while recording runs after it unobserved
    assert x.grad is not None


def test_a_second_profiler_at_once_is_refused() -> None:
    with glassgrad.profiler.profile(), pytest.raises(RuntimeError, match="already enabled"):
        glassgrad.profiler.profile().start()


def test_vmap_and_the_profiler_nest_either_way() -> None:
    x = glassgrad.arange(6.0).reshape(2, 3)
    expected = (x * x).sum(1)
    with glassgrad.profiler.profile() as prof:
        outside = glassgrad.vmap(lambda row: (row * row).sum())(x)  # batched ops run vmap's dispatchers, untimed
        x.exp()
    assert glassgrad.equal(outside, expected)
    assert "aten::exp" in {e.key for e in prof.key_averages()}

    recorded: list[set[str]] = []

    def profiled(row: glassgrad.Tensor) -> glassgrad.Tensor:
        with glassgrad.profiler.profile() as inner:
            out = (row * row).sum()
        recorded.append({e.key for e in inner.key_averages()})
        return out

    assert glassgrad.equal(glassgrad.vmap(profiled)(x), expected)
    assert {"aten::mul", "aten::sum"} <= recorded[0]
    assert glassgrad.mul is call_sites.NAMESPACES["glassgrad"]["mul"]


def test_a_graph_made_while_recording_is_freed_by_reference_counting() -> None:
    x = glassgrad.ones(4, requires_grad=True)
    gc.disable()
    try:
        with glassgrad.profiler.profile(record_shapes=True, profile_memory=True, with_stack=True) as prof:
            y = (x.exp() * 2).sum()
            node = weakref.ref(y.grad_fn)
            del y  # never backwarded: the hooks the recording put on its nodes must not keep them alive
            assert node() is None
            z = (x * 3).sum()
            node = weakref.ref(z.grad_fn)
            z.backward()
            del z
            assert node() is None
    finally:
        gc.enable()
    assert len(prof.events()) > 0


def test_itt_and_nvtx_are_there_and_inert() -> None:
    from glassgrad.autograd import profiler
    from glassgrad.profiler import itt

    assert itt.is_available() is False
    with itt.range("r"), profiler.emit_itt(), profiler.emit_nvtx(record_shapes=True):
        itt.mark("m")
        assert itt.range_push("p") == 0 and itt.range_pop() == 0
    nvtx = profiler.emit_nvtx()
    with nvtx, pytest.raises(RuntimeError, match="NVTX annotation context manager is not reentrant"):
        nvtx.__enter__()


class _Square(glassgrad.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: glassgrad.Tensor) -> glassgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: glassgrad.Tensor) -> glassgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x * grad


def test_backward_of_a_custom_function_and_of_a_graph_made_before_recording_is_timed() -> None:
    x = glassgrad.ones(3, requires_grad=True)
    early = x.exp()  # recorded before the profiler starts
    with glassgrad.profiler.profile() as prof:
        (_Square.apply(x).sum() + early.sum()).backward()
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["autograd::engine::evaluate_function: ExpBackward0"] == 1
    custom = [key for key in counts if key.startswith("autograd::engine::evaluate_function: _Square")]
    assert custom and counts[custom[0]] == 1
    assert counts["autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"] == 1


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "arguments",
    [dict(wait=1, warmup=1, active=2), dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3),
     dict(wait=3, warmup=2, active=1, repeat=1, skip_first=2, skip_first_wait=1)],
)
def test_schedule_gives_pytorchs_action_at_every_step(arguments: dict[str, int]) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = glassgrad.profiler.schedule(**arguments), torch.profiler.schedule(**arguments)
    assert [ours(step).name for step in range(30)] == [theirs(step).name for step in range(30)]


@pytest.mark.torch_oracle
def test_schedule_refuses_what_pytorch_refuses() -> None:
    torch = pytest.importorskip("torch")
    for lib in (glassgrad, torch):
        with pytest.raises(AssertionError, match=r"^Invalid profiler schedule arguments\. Got wait=0"):
            lib.profiler.schedule(wait=0, warmup=1, active=0)
        with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
            lib.profiler.schedule(wait=0, warmup=0, active=1)
