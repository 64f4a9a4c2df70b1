"""torch.cuda and torch.amp against PyTorch's CPU-only build: each call answers, or fails, as there.

Every case runs on both libraries; what is compared is the value, or the exception type and the
first sentence of its message, and the warnings raised on the way.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import glassgrad

from .outcome import assert_same_outcome, expression, statements

pytestmark = pytest.mark.torch_oracle


CALLS = [
    expression(source)
    for source in (
        "m.cuda.is_available()", "m.cuda.device_count()", "m.cuda.is_initialized()", "m.cuda.get_arch_list()",
        "m.cuda.is_bf16_supported()", "m.cuda.is_tf32_supported()", "m.cuda.get_gencode_flags()",
        "m.cuda.init()", "m.cuda.current_device()", "m.cuda.get_device_name()", "m.cuda.get_device_name(0)",
        "m.cuda.get_device_properties(0)", "m.cuda.get_device_capability()", "m.cuda.synchronize()",
        "m.cuda.synchronize(0)", "m.cuda.ipc_collect()", "m.cuda.mem_get_info()", "m.cuda.current_stream()",
        "m.cuda.default_stream()", "m.cuda.set_per_process_memory_fraction(0.5)",
        # seeding
        "m.cuda.manual_seed(0)", "m.cuda.manual_seed_all(0)", "m.cuda.manual_seed(2**70)", "m.cuda.manual_seed(1.5)",
        "m.cuda.manual_seed('a')", "m.cuda.manual_seed_all(None)", "m.cuda.seed()", "m.cuda.seed_all()",
        "m.cuda.initial_seed()", "m.cuda.get_rng_state()", "m.cuda.get_rng_state_all()",
        "m.cuda.set_rng_state(m.zeros(5, dtype=m.uint8))", "m.cuda.set_rng_state_all([])", "m.cuda.default_generators",
        # memory
        "m.cuda.memory_allocated()", "m.cuda.memory_allocated(0)", "m.cuda.memory_allocated('cuda:0')",
        "m.cuda.max_memory_allocated(device=0)", "m.cuda.memory_reserved()", "m.cuda.max_memory_reserved()",
        "m.cuda.memory_cached()", "m.cuda.max_memory_cached()", "m.cuda.memory_stats()", "m.cuda.empty_cache()",
        "m.cuda.memory_summary()", "m.cuda.reset_peak_memory_stats()", "m.cuda.reset_peak_memory_stats(0)",
        "m.cuda.reset_max_memory_allocated()", "m.cuda.reset_accumulated_memory_stats()",
        # selecting a device
        "m.cuda.set_device(0)", "m.cuda.set_device('cuda:0')", "m.cuda.set_device(-1)", "m.cuda.set_device('cpu')",
        "m.cuda.set_device(m.device('cuda'))", "m.cuda.set_device(None)", "m.cuda.device(0) is not None",
        "m.cuda.device('cpu')",
        # streams, events, graphs
        "m.cuda.Stream()", "m.cuda.Stream(device='cpu')", "m.cuda.Event()", "m.cuda.Event(enable_timing=True)",
        "m.cuda.CUDAGraph()", "issubclass(m.cuda.OutOfMemoryError, RuntimeError)",
        "m.cuda.is_current_stream_capturing()", "m.cuda.graph(None)", "m.cuda.graph(m.cuda.CUDAGraph, stream=1) is not None",
        "m.cuda.make_graphed_callables((m.nn.Linear(2, 2),), ((m.ones(1, 2),),))",
        "m.cuda.make_graphed_callables(m.nn.Linear(2, 2), (m.ones(1, 2),))", "m.cuda.set_stream(None)",
        "m.cuda.set_stream(1)", "m.cuda.set_stream(m.Stream())",
        # errors PyTorch shares between torch and torch.cuda
        "m.cuda.OutOfMemoryError is m.OutOfMemoryError", "m.cuda.AcceleratorError is m.AcceleratorError",
        "[c.__name__ for c in m.AcceleratorError.__mro__]", "[c.__name__ for c in m.OutOfMemoryError.__mro__]",
        # peers, debug modes and host memory
        "m.cuda.can_device_access_peer(0, 1)", "m.cuda.can_device_access_peer('cpu', 0)",
        "m.cuda.get_per_process_memory_fraction()", "m.cuda.get_per_process_memory_fraction(0)",
        "m.cuda.get_sync_debug_mode()", "m.cuda.set_sync_debug_mode(0)", "m.cuda.set_sync_debug_mode('warn')",
        "m.cuda.has_half", "m.cuda.has_magma", "m.cuda.host_memory_stats()", "m.cuda.host_memory_stats(0)",
        "m.cuda.host_memory_stats_as_nested_dict()", "m.cuda.memory_stats_as_nested_dict()",
        "m.cuda.memory_stats_as_nested_dict(0)", "m.cuda.memory_snapshot()", "m.cuda.reset_accumulated_host_memory_stats()",
        "m.cuda.reset_max_memory_cached()", "m.cuda.reset_max_memory_cached(0)", "m.cuda.reset_peak_host_memory_stats()",
        # what scripts print about the build
        "m.version.cuda", "m.version.hip",
    )
]

CONTEXTS = [
    statements(source)
    for source in (
        "with m.cuda.device(0): r = 1", "with m.cuda.device('cuda:1'): r = 1", "with m.cuda.device(-1): r = 1",
        "with m.cuda.device(None): r = 1", "with m.cuda.device(m.device('cuda', 0)): r = 1",
        "with m.cuda.device_of(m.zeros(1)): r = 1", "with m.cuda.stream(None): r = 1",
        "with m.cuda.device(-1):\n    with m.cuda.device(-1): r = 2",
        "with m.cuda.graph(m.cuda.CUDAGraph, stream=1): r = 1",
    )
]

AMP = [
    statements(source)
    for source in (
        "with m.cuda.amp.autocast(): r = m.ones(2) * 2",
        "with m.cuda.amp.autocast(enabled=False): r = 1",
        "with m.autocast('cuda'): r = (m.ones(2, 2) @ m.ones(2, 2)).dtype",
        "with m.autocast(device_type='cuda', dtype=m.float16): r = 1",
        "with m.amp.autocast('cuda', enabled=False): r = 1",
        "r = m.autocast(1)", "r = m.autocast('foo')", "r = m.amp.autocast('mps', enabled=False)._enabled",
        "f = m.autocast('cuda')(lambda x: x + 1)\nr = f(1)",
        "s = m.cuda.amp.GradScaler()\nr = (s.is_enabled(), s.get_scale(), s.state_dict())",
        "s = m.amp.GradScaler('cuda')\nr = s.is_enabled()", "s = m.amp.GradScaler(enabled=False)\nr = s.is_enabled()",
        "s = m.cuda.amp.GradScaler(enabled=False)\nr = s.is_enabled()",
        "r = m.amp.custom_fwd(lambda x: x, device_type=1)",
        "r = [m.amp.is_autocast_available(t) for t in ('cpu', 'cuda', 'mps', 'xla', 'meta')]",
    )
]


FUNCTION = """
class Double(m.autograd.Function):
    @staticmethod
    @{fwd}
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @{bwd}
    def backward(ctx, grad):
        return grad * 2

x = m.ones(2, requires_grad=True)
Double.apply(x).sum().backward()
r = x.grad
"""
AMP += [
    statements(FUNCTION.format(fwd=fwd, bwd=bwd))
    for fwd, bwd in (
        ("m.amp.custom_fwd(device_type='cuda')", "m.amp.custom_bwd(device_type='cuda')"),
        ("m.amp.custom_fwd(device_type='cuda', cast_inputs=m.float32)", "m.amp.custom_bwd(device_type='cuda')"),
        ("m.cuda.amp.custom_fwd", "m.cuda.amp.custom_bwd"),
        ("m.cuda.amp.custom_fwd(cast_inputs=m.float64)", "m.cuda.amp.custom_bwd"),
    )
]


@pytest.mark.parametrize("snippet", CALLS)
def test_cuda_call_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", CONTEXTS)
def test_cuda_context_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", AMP)
def test_amp_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_a_disabled_grad_scaler_trains_like_plain_steps() -> None:
    """The mixed-precision loop of PyTorch's AMP recipe, as a CPU-only build runs it: identical to a plain step."""

    def train(m, amp: bool) -> list[float]:
        m.manual_seed(0)
        model = m.nn.Linear(3, 1)
        with m.no_grad():
            model.weight.copy_(m.tensor([[0.5, -0.25, 1.0]]))
            model.bias.fill_(0.1)
        optimizer = m.optim.SGD(model.parameters(), lr=0.1)
        scaler = m.amp.GradScaler("cuda", enabled=amp)
        x, y = m.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]]), m.tensor([[1.0], [0.0]])
        for _ in range(3):
            optimizer.zero_grad()
            with m.autocast("cuda", enabled=amp):
                loss = ((model(x) - y) ** 2).mean()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            scaler.step(optimizer)
            scaler.update()
        return model.weight.detach().flatten().tolist()

    with pytest.warns(UserWarning, match="Disabling"):
        scaled = train(glassgrad, amp=True)
    assert scaled == train(glassgrad, amp=False)
    with pytest.warns(UserWarning, match="Disabling"):
        assert scaled == pytest.approx(train(torch, amp=True), rel=1e-6)


PORTABLE_SCRIPT = """
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).to(device)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda", enabled=torch.cuda.is_available())
x = torch.linspace(-1, 1, 64, device=device).reshape(16, 4)
y = x.sum(dim=1, keepdim=True).cos()
for _ in range(5):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device.type, enabled=torch.cuda.is_available()):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
if torch.cuda.is_available():
    torch.cuda.synchronize()
memory = torch.cuda.max_memory_allocated() / 2**20
scripted = torch.jit.script(model.eval())
same = torch.allclose(scripted(x), model(x))
result = (str(device), memory, same, loss.item())
"""


def test_a_portable_training_script_runs_unchanged() -> None:
    """The CUDA-guarded prologue and loop most PyTorch scripts share, run with `torch` bound to each library."""

    def run(m) -> tuple:
        scope = {"torch": m}
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit.script's, in both libraries
            exec(PORTABLE_SCRIPT, scope)
        return scope["result"]

    *expected, expected_loss = run(torch)
    *actual, actual_loss = run(glassgrad)
    assert actual == expected
    assert actual_loss == pytest.approx(expected_loss, rel=1e-5)
