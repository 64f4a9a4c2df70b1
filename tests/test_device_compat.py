"""torch.device and moving tensors and modules between devices, against PyTorch's CPU-only build.

Naming any device works; placing a tensor anywhere but the CPU fails, each way with PyTorch's exception.
"""

from __future__ import annotations

import io
import pickle

import pytest

import glassgrad

from .outcome import assert_same_outcome, first_sentence, statements
from .outcome import expression as _expression

pytestmark = pytest.mark.torch_oracle


def expression(source: str) -> pytest.param:
    return _expression(source, pickle=pickle)  # some cases pickle a device


DEVICES = [
    expression(source)
    for source in (
        "m.device('cuda')", "m.device('cuda:1')", "m.device('cuda:1').index", "m.device('cuda').index",
        "m.device('cuda').type", "m.device('cuda', 1)", "m.device('cuda', index=None)", "m.device(type='cuda', index=3)",
        "m.device('cpu', 0)", "m.device('cpu:0')", "m.device('cpu').index", "str(m.device('cuda:1'))", "str(m.device('cpu', 0))",
        "m.device(m.device('cuda:2'))", "m.device(b'cuda')", "m.device('mps')", "m.device('meta')", "m.device('xla')",
        "m.device('cuda:10')",
        # equality and hashing: type and index, never a string
        "m.device('cpu') == m.device('cpu', 0)", "m.device('cpu') == 'cpu'", "m.device('cuda:0') == m.device('cuda')",
        "m.device('cuda:1') == m.device('cuda', 1)", "m.device('cuda:1') != m.device('cuda:1')",
        "hash(m.device('cuda:0')) == hash(m.device('cuda', 0))", "len({m.device('cuda'), m.device('cuda:0'), m.device('cuda')})",
        "m.ones(1).device == m.device('cpu')", "m.ones(1).device == 'cpu'",
        "pickle.loads(pickle.dumps(m.device('cuda:1')))",
        # what PyTorch refuses to parse
        "m.device('gpu')", "m.device('CUDA')", "m.device('cuda:x')", "m.device('cuda:-1')", "m.device('cuda:01')",
        "m.device('cuda: 1')", "m.device('cuda:')", "m.device(':0')", "m.device('cuda:1:2')", "m.device('')",
        "m.device('cuda:9999999999')", "m.device('cuda:1', 1)", "m.device('cuda', -1)", "m.device('cuda', 1.0)",
        "m.device('cuda', True)", "m.device(None)", "m.device(0)", "m.device(-1)",
    )
]

TENSORS = [
    expression(source)
    for source in (
        "m.zeros(2, device='cuda')", "m.zeros(2, device='cuda:1')", "m.zeros(2, device=m.device('cuda'))",
        "m.zeros(2, device=0)", "m.zeros(2, device=-1)", "m.zeros(2, device='cpu:0')", "m.zeros(2, device='cpu')",
        "m.zeros(2, device=None)", "m.zeros(2, device='gpu')", "m.zeros(2, device='cuda:x')", "m.zeros(2, device='mps')",
        "m.zeros(2, device='xla')", "m.zeros(2, device='xpu')", "m.tensor([1.0], device='cuda')", "m.ones(2, device='cuda')",
        "m.empty(2, device='cuda')", "m.full((2,), 1.0, device='cuda')", "m.arange(3, device='cuda')",
        "m.randn(2, device='cuda')", "m.rand(2, device='cuda')", "m.eye(2, device='cuda')",
        "m.zeros_like(m.ones(2), device='cuda')", "m.ones(1).cuda()", "m.ones(1).cuda(0)", "m.ones(1).cuda(-1)",
        "m.ones(1).cuda('cuda:1')", "m.ones(1).cuda(m.device('cuda'))", "m.ones(1).cuda(non_blocking=True)",
        "m.ones(1).cuda(device=None)", "m.ones(1).cuda('cpu')", "m.ones(1).cuda(m.device('cpu'))", "m.ones(1).cuda('cuda:x')",
        "m.ones(1).cuda(1.5)", "m.ones(1, requires_grad=True).cuda()", "m.ones(1).to('cuda')", "m.ones(1).to(device='cuda:0')",
        "m.ones(1).to('cuda', m.float64)", "m.ones(1).to(m.device('cuda'))", "m.ones(1).to('cuda', non_blocking=True)",
        "m.ones(1).to('cuda', copy=True)", "m.ones(1).to(dtype=m.float64, device='cuda')", "m.ones(1).to('cpu:0')",
        "m.ones(1).to('cpu:1').device", "m.ones(1).to('cpu', m.float64)", "m.ones(1).to(m.device('cpu'), m.float64)",
        "m.ones(1).to(None)", "m.ones(1).to(device=None)", "m.ones(1).to(0)", "m.ones(1).to(-1)", "m.ones(1).to(device=0)",
        "m.ones(1).to('gpu')", "m.ones(1).to('mps')", "m.ones(1).to('xpu')", "m.ones(1).is_cuda", "m.ones(1).device",
        "m.ones(1).device.index", "m.ones(1).cpu().device",
        # the other accelerators' moves
        "m.ones(1).xpu()", "m.ones(1).xpu(0)", "m.ones(1).xpu('cpu')", "m.ones(1).xpu('xpu:1')", "m.ones(1).xpu(1.5)",
        "m.ones(1).xpu(non_blocking=True)", "m.ones(1).ipu()", "m.ones(1).ipu('ipu')", "m.ones(1).ipu('cpu')",
        "m.ones(1).ipu(0)", "m.ones(1).mtia()", "m.ones(1).mtia('mtia')", "m.ones(1).mtia('cpu')", "m.ones(1).mtia(0)",
        # pinned memory belongs to an accelerator
        "m.ones(1).pin_memory()", "m.ones(1).pin_memory(None)", "m.ones(1).pin_memory('cpu')",
        "m.ones(1).pin_memory(device='cpu')", "m.ones(1).pin_memory('meta')", "m.ones(1).pin_memory('cuda')",
        "m.ones(1).pin_memory('mps')", "m.ones(1).pin_memory(1)", "m.ones(1).pin_memory(1.5)",
    )
]

MODULES = [
    expression(source)
    for source in (
        "m.nn.Linear(2, 2).cuda()", "m.nn.Linear(2, 2).cuda(0)", "m.nn.Linear(2, 2).cuda('cpu')", "m.nn.ReLU().cuda()",
        "m.nn.ReLU().cuda('cpu')", "m.nn.Sequential().cuda()", "m.nn.Linear(2, 2).to('cuda')",
        "m.nn.Linear(2, 2).to(m.device('cuda:0'))", "m.nn.Linear(2, 2).to(device='cuda')",
        "m.nn.Linear(2, 2).to('cuda', m.float64)", "m.nn.Linear(2, 2).to('mps')",
        "m.nn.Linear(2, 2).to('cpu')", "m.nn.Linear(2, 2).to('cpu:3')", "m.nn.Linear(2, 2).cpu()", "m.nn.ReLU().to('cuda')",
        "m.nn.ReLU().to('mps')", "m.nn.ReLU().to(device='cuda', dtype=m.float64)", "m.nn.ReLU().to(0)",
        "m.nn.ReLU().to('gpu')", "m.nn.BatchNorm1d(2, affine=False).cuda()",
    )
]


# `with torch.device(d):` places what factories make (layers' parameters too); entering never fails.
CONTEXTS = [
    statements(source)
    for source in (
        "with m.device('cuda') as d: r = d", "with m.device('cpu') as d: r = m.zeros(2).device",
        "with m.device('cuda'): r = m.zeros(2)", "with m.device('cuda'): r = m.tensor([1.0])",
        "with m.device('cuda'): r = m.nn.Linear(2, 2)", "with m.device('cuda'): r = m.zeros(2, device='cpu')",
        "with m.device('cuda'): r = m.arange(3)",
        "with m.device('cuda'):\n    pass\nr = m.zeros(1)",
        "with m.device('cpu'):\n    with m.device('cuda'):\n        pass\n    r = m.zeros(1)",
        "import threading\nfound = []\nwith m.device('cuda'):\n    t = threading.Thread(target=lambda: found.append(m.zeros(1).device))\n    t.start()\n    t.join()\nr = found",
    )
]


@pytest.mark.parametrize("snippet", CONTEXTS)
def test_device_context_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", DEVICES)
def test_device_construction_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", TENSORS)
def test_tensor_placement_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", MODULES)
def test_module_placement_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_a_refused_device_says_what_to_do() -> None:
    with pytest.raises(AssertionError) as info:
        glassgrad.zeros(2, device="cuda")
    assert first_sentence(str(info.value)) == "Torch not compiled with CUDA enabled"
    assert "torch.cuda.is_available()" in str(info.value)


@pytest.mark.parametrize("location", ["cuda", "cuda:0", "mps"])
def test_load_onto_a_missing_device_fails_like_torch(location: str) -> None:
    def load(m):
        buffer = io.BytesIO()
        m.save({"w": m.ones(2)}, buffer)
        buffer.seek(0)
        return m.load(buffer, map_location=location)

    assert_same_outcome(load)


def test_load_with_map_location_cpu_still_loads() -> None:
    buffer = io.BytesIO()
    glassgrad.save({"w": glassgrad.ones(2)}, buffer)
    buffer.seek(0)
    assert glassgrad.load(buffer, map_location=glassgrad.device("cpu"))["w"].tolist() == [1.0, 1.0]
