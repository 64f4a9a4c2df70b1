"""torch.* settings, constants, dtype limits, layouts and tensor attributes against PyTorch's CPU-only build: what
each returns, what it reads back after being set, and what it refuses."""

from __future__ import annotations

import pytest
import torch

import glassgrad

from .outcome import assert_same_outcome, expression, statements

pytestmark = pytest.mark.torch_oracle


def _reset(m) -> None:  # type: ignore[no-untyped-def]
    m.use_deterministic_algorithms(False)
    m.set_float32_matmul_precision("highest")
    m.set_warn_always(False)
    m.set_default_device(None)
    m.autograd.set_multithreading_enabled(True)
    m.autograd.enforce_grad_layout_policy(True)


@pytest.fixture(autouse=True)
def _settings_restored():
    """The settings are process-wide (or thread-wide) in both libraries: every test leaves them at their defaults."""
    yield
    for m in (torch, glassgrad):
        _reset(m)


SETTINGS = [
    statements(source)
    for source in (
        "r = [m.are_deterministic_algorithms_enabled(), m.is_deterministic_algorithms_warn_only_enabled(), m.get_deterministic_debug_mode()]",
        "m.use_deterministic_algorithms(True)\nr = [m.are_deterministic_algorithms_enabled(), m.get_deterministic_debug_mode()]",
        "m.use_deterministic_algorithms(True, warn_only=True)\nr = [m.is_deterministic_algorithms_warn_only_enabled(), m.get_deterministic_debug_mode()]",
        "m.use_deterministic_algorithms('x')", "m.use_deterministic_algorithms(True, warn_only=1)",
        "m.set_deterministic_debug_mode('warn')\nr = [m.are_deterministic_algorithms_enabled(), m.is_deterministic_algorithms_warn_only_enabled()]",
        "m.set_deterministic_debug_mode(2)\nr = [m.get_deterministic_debug_mode(), m.is_deterministic_algorithms_warn_only_enabled()]",
        "m.set_deterministic_debug_mode('error')\nm.set_deterministic_debug_mode('default')\nr = m.are_deterministic_algorithms_enabled()",
        "m.set_deterministic_debug_mode('bad')", "m.set_deterministic_debug_mode(5)", "m.set_deterministic_debug_mode(1.5)",
        "r = m.get_float32_matmul_precision()",
        "m.set_float32_matmul_precision('medium')\nr = m.get_float32_matmul_precision()",
        "m.set_float32_matmul_precision('high')\nr = (m.get_float32_matmul_precision(), m.backends.cuda.matmul.allow_tf32)",
        "m.set_float32_matmul_precision(3)",
        "r = m.is_warn_always_enabled()", "m.set_warn_always(True)\nr = m.is_warn_always_enabled()", "m.set_warn_always(1)",
        "m.set_flush_denormal(1)", "r = type(m.set_flush_denormal(False))",
        "r = m.init_num_threads()", "m.set_num_interop_threads(0)", "m.set_num_interop_threads(2.0)",
        "r = type(m.get_num_interop_threads())",
        "r = [m.has_lapack, m.has_spectral]",
        "r = m.get_default_device()",
        "m.set_default_device('cpu')\nr = (m.get_default_device(), m.ones(1).device)",
        "m.set_default_device('cuda:1')\nr = m.get_default_device()",
        "m.set_default_device('cuda')\nr = m.get_default_device()", "m.set_default_device('cuda')\nm.ones(2)",
        "m.set_default_device('cuda')\nm.set_default_device(None)\nr = m.zeros(1).device",
        "m.set_default_device(3)",
        "with m.device('cuda:0'):\n    r = m.get_default_device()",
        "r = m.autograd.is_multithreading_enabled()", "r = m.autograd.is_view_replay_enabled()",
        "m.autograd.set_multithreading_enabled(False)\nr = m.autograd.is_multithreading_enabled()",
        "with m.autograd.set_multithreading_enabled(False):\n    pass\nr = m.autograd.is_multithreading_enabled()",
        "m.autograd.set_multithreading_enabled(1)", "m.autograd.enforce_grad_layout_policy(1)",
        "@m.autograd.set_multithreading_enabled(False)\ndef f():\n    return m.autograd.is_multithreading_enabled()\nr = (m.autograd.is_multithreading_enabled(), f(), m.autograd.is_multithreading_enabled())",
        "with m.autograd.enforce_grad_layout_policy(False):\n    x = m.ones(2, requires_grad=True)\n    (x * 2).sum().backward()\nr = x.grad",
    )
]


@pytest.mark.parametrize("snippet", SETTINGS)
def test_settings_match_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_build_flags_say_what_glassgrad_links() -> None:
    # NumPy brings LAPACK and an FFT; MKL and OpenMP are PyTorch's wheel's, not glassgrad's (backends.openmp agrees).
    assert glassgrad.has_lapack and glassgrad.has_spectral
    assert glassgrad.has_openmp == glassgrad.backends.openmp.is_available() is False
    assert glassgrad.has_mkl is False


def test_interop_threads_are_set_at_most_once() -> None:
    # PyTorch allows one call per process: the oracle's own rule is checked on glassgrad's state alone.
    from glassgrad import _threads

    before = dict(_threads._interop)
    try:
        glassgrad.set_num_interop_threads(3)
        assert glassgrad.get_num_interop_threads() == 3
        with pytest.raises(RuntimeError, match=r"^Error: cannot set number of interop threads"):
            glassgrad.set_num_interop_threads(2)
    finally:
        _threads._interop.update(before)


VALUES = [
    expression(source)
    for source in (
        "(m.e, m.pi, m.inf, str(m.nan), m.newaxis)", "m.ones(2, 3)[m.newaxis].shape",
        "[repr(v).rpartition('.')[2] for v in (m.strided, m.contiguous_format, m.preserve_format, m.channels_last, m.channels_last_3d)]",
        "(isinstance(m.channels_last, m.memory_format), isinstance(m.strided, m.layout), m.ones(1).layout is m.strided)",
        "m.ones(1).layout == m.strided",
        "m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).shape",
        "[m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).stride(), m.ones(2, 3, 4, 5, 6).clone(memory_format=m.channels_last_3d).stride()]",
        "m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).is_contiguous(memory_format=m.channels_last)",
        "m.ones(2, 3).contiguous(memory_format=m.channels_last)", "m.ones(2, 3).contiguous(memory_format=m.channels_last_3d)",
        "m.ones(2, 3).contiguous(memory_format=m.preserve_format)",
        "(m.arange(120.0, requires_grad=True).reshape(2, 3, 4, 5).contiguous(memory_format=m.channels_last) * 2)[0, 1, 2]",
        "[m.ones(2, 3, 4, 5).to('cpu', memory_format=m.channels_last).stride(), m.ones(2, 3, 4, 5).to(m.float64, memory_format=m.channels_last).stride()]",
        "m.ones(2, 3).to(memory_format=m.channels_last)",
        "[p.stride() for p in m.nn.Conv2d(3, 4, 3).to(memory_format=m.channels_last).parameters()]",
        "m.nn.Linear(2, 3).to(memory_format=m.channels_last).weight.stride()",
        "m.nn.Conv2d(3, 4, 3).to(memory_format=m.channels_last)(m.ones(1, 3, 5, 5).to(memory_format=m.channels_last)).shape",
        "m.empty_like(m.ones(2, 3), memory_format=m.preserve_format).shape",
        "[m.ones(2, 3, 4, 4).is_contiguous(memory_format=f) for f in (m.contiguous_format, m.channels_last, m.channels_last_3d)]",
        "[m.ones(1, 3, 1, 1).is_contiguous(memory_format=m.channels_last), m.ones(2, 3, 4).is_contiguous(memory_format=m.channels_last)]",
        "m.ones(2, 3, 4, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).is_contiguous(memory_format=m.channels_last)",
        "m.ones(2, 3, 4, 4, 2).permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3).is_contiguous(memory_format=m.channels_last_3d)",
        "repr(m.finfo())", "repr(m.finfo(m.float16))", "repr(m.finfo(m.float64))", "repr(m.finfo(m.complex64))",
        "[(i.bits, i.eps, i.max, i.min, i.tiny, i.smallest_normal, i.resolution, i.dtype) for i in map(m.finfo, (m.float16, m.float32, m.float64, m.complex128))]",
        "m.finfo(m.int32)", "m.finfo(m.bool)", "m.finfo(3)", "m.finfo(type=m.float16).eps", "m.finfo(m.float32) == m.finfo()",
        "[(i.bits, i.max, i.min, i.dtype, repr(i)) for i in map(m.iinfo, (m.uint8, m.int8, m.int16, m.int32, m.int64))]",
        "m.iinfo(m.float32)", "m.iinfo(m.bool)", "m.iinfo()", "m.iinfo(m.int64).max == 2**63 - 1",
        "[[m.can_cast(a, b) for b in (m.bool, m.uint8, m.int8, m.int64, m.float16, m.float64, m.complex64)] for a in (m.bool, m.uint8, m.int32, m.float32, m.complex128)]",
        "m.can_cast(1, m.int8)", "m.can_cast(m.float32, 1)", "m.can_cast(from_=m.int8, to=m.float16)",
        "[m.typename(m.ones(2, dtype=d)) for d in (m.float32, m.float64, m.int64, m.int8, m.bool, m.uint8)]",
        "[m.typename(3), m.typename('a'), m.typename(None), m.typename(int)]",
        "m.typename(m.nn.Parameter(m.ones(1)))",
        "[m.is_nonzero(m.ones(1)), m.is_nonzero(m.tensor(0.0)), m.is_nonzero(m.tensor([[False]]))]",
        "m.is_nonzero(m.ones(2))", "m.is_nonzero(m.tensor([]))", "m.is_nonzero(3)", "bool(m.tensor([]))", "bool(m.ones(3))",
        "m.ones(2).is_nonzero()",
        "m.is_inference(m.ones(1))", "m.is_inference(3)",
    )
]


@pytest.mark.parametrize("snippet", VALUES)
def test_values_match_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_inference_tensors_say_so() -> None:
    with glassgrad.inference_mode(), torch.inference_mode():
        made = (glassgrad.ones(1), torch.ones(1))
    assert glassgrad.is_inference(made[0]) is torch.is_inference(made[1]) is True


ATTRIBUTES = [
    statements(source)
    for source in (
        "x = m.arange(6.0)\nr = [x.char(), x.short(), x.char().dtype, x.short().dtype]",
        "x = m.ones(2, requires_grad=True)\nr = [type(x.char().grad_fn), x.short().requires_grad]",
        "x = m.ones(2, 3)\nr = [x.dense_dim(), x.sparse_dim(), x.get_device(), x.is_distributed(), x.is_pinned(), x.is_shared()]",
        "x = m.ones(3)\nr = (x.to_dense() is x, x.to_dense(m.float64), x.to_dense(masked_grad=True) is x)",
        "x = m.ones(3, requires_grad=True)\nr = x.to_dense() is x",
        "r = [m.ones(2, 3).dim_order(), m.ones(2, 3).t().dim_order(), m.ones(2, 3, 4).permute(2, 0, 1).dim_order()]",
        "r = m.ones(2, 3, 4, 5).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).dim_order()",
        "r = m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last).dim_order()",
        "x = m.ones(2, 3, 4, 5, requires_grad=True)\ny = x.contiguous(memory_format=m.channels_last)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, y.is_contiguous(), x.grad.shape)",
        "x = m.ones(2, 3, 4, 5, requires_grad=True)\ny = x.to(memory_format=m.channels_last)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, x.grad.shape)",
        "z = m.ones(2, 3, 4, 5).contiguous(memory_format=m.channels_last)\nr = z.to(memory_format=m.channels_last) is z",
        "r = m.ones(2, 3, 4, 5).dim_order(ambiguity_check=True)", "m.ones(2, 1, 4).dim_order(ambiguity_check=True)",
        "r = m.ones(2, 3, 1, 1).dim_order(ambiguity_check=[m.contiguous_format])",
        "r = [m.ones(2).grad_dtype, m.ones(2, dtype=m.float64, requires_grad=True).grad_dtype, m.ones(2, dtype=m.int64).grad_dtype]",
        "x = m.ones(4, 4)\nr = [x.is_set_to(x), x.is_set_to(x.detach()), x.is_set_to(x.view(4, 4)), x.is_set_to(x.view(16)), x[:2].is_set_to(x), x.is_set_to(m.ones(4, 4))]",
        "r = [m.ones(2).is_same_size(m.ones(2)), m.ones(2).is_same_size(m.ones(1, 2)), m.ones(2, 3).is_same_size(m.zeros(2, 3, dtype=m.int64))]",
        "r = [m.ones(1, dtype=d).is_signed() for d in (m.bool, m.uint8, m.int8, m.int64, m.float16, m.float32, m.complex64)]",
        "x = m.arange(16.0).reshape(4, 4)\nr = [x.storage_offset(), x[1:, 2:].storage_offset(), x.t()[1].storage_offset(), x[2].storage_offset(), x[:, 3].storage_offset()]",
        "x = m.arange(24.0).reshape(2, 3, 4)\nr = [v.storage_offset() for v in (x[1], x[1, 2], x[:, 1:], x.unbind(1)[2], x.split(2, dim=2)[1], x.narrow(0, 1, 1), x[1].detach(), x.view(6, 4)[5], x.select(2, 3))]",
        "x = m.arange(5.0)\nr = [x.storage_offset(), x[3:].storage_offset(), x[1:][2:].storage_offset(), (x + 1)[2:].storage_offset()]",
        "x = m.ones(2)\nr = x.const_data_ptr() == x.data_ptr()",
        "x = m.ones(2, 3)\ny = x.new_empty_strided((2, 3), (1, 2), dtype=m.float64)\nr = (y.shape, y.stride(), y.dtype, y.storage_offset())",
        "r = m.ones(2, dtype=m.int32).new_empty_strided((3, 0), (5, 1)).shape",
        "r = m.ones(2).new_empty_strided((2, 3), (3, 1), requires_grad=True).requires_grad",
        "m.ones(2).new_empty_strided((2, 3))",
        "x = m.ones(2, requires_grad=True)\ny = x.as_subclass(m.Tensor)\nr = (y is x, type(y.grad_fn).__name__, y.is_leaf, y.requires_grad)",
        "x = m.ones(2)\ny = x.as_subclass(m.nn.Parameter)\ny.add_(1)\nr = (type(y).__name__, x, y._base is x)",
        "x = m.ones(2, requires_grad=True)\ny = (x * 2).as_subclass(m.Tensor)\ny.sum().backward()\nr = x.grad",
        "m.ones(2).as_subclass(int)",
        "x = m.ones(3)\ny = x.module_load(m.arange(3.0))\nr = (x, y, y is x)",
        "x = m.ones(3)\nother = m.arange(3.0, requires_grad=True)\ny = x.module_load(other, assign=True)\nr = (x, y, y is other, y.requires_grad)",
        "m.ones(3).module_load(m.ones(4))",
    )
]


@pytest.mark.parametrize("snippet", ATTRIBUTES)
def test_tensor_attributes_match_torch(snippet) -> None:
    assert_same_outcome(snippet)


class Tagged(torch.Tensor):
    pass


class GlassTagged(glassgrad.Tensor):
    pass


def test_as_subclass_makes_the_users_class() -> None:
    for m, cls in ((torch, Tagged), (glassgrad, GlassTagged)):
        x = m.arange(3.0, requires_grad=True)
        y = (x * 2).as_subclass(cls)
        assert type(y) is cls and type(y.grad_fn).__name__ == "AliasBackward0"


COMPILER = [
    statements(source)
    for source in (
        "r = m.compile(lambda x: x + 1)(m.ones(2))",
        "f = m.compile(mode='max-autotune')(lambda x: x * 2)\nr = f(m.ones(2))",
        "@m.compile\ndef f(x):\n    return x.sin()\nr = f(m.zeros(2))",
        "@m.compile(fullgraph=True, dynamic=False, backend='eager')\ndef f(x):\n    return x - 1\nr = f(m.zeros(2))",
        "m.compile(lambda x: x, mode='default', options={'a': 1})",
        "m.compile(3)", "m.compile(lambda x: x, backend='nope')",
        "r = isinstance(m.compile(m.nn.Linear(2, 1)), m.nn.Module)",
        "model = m.nn.Linear(2, 1)\nr = m.compile(model)(m.ones(1, 2)).shape",
        "r = m.wait(m.fork(lambda x, y: x + y, m.ones(2), y=1))",
        "r = m.fork(lambda: 5).wait()", "m.fork(3)", "m.wait(3)",
        "r = m.GradScaler is m.amp.GradScaler",
        "s = m.GradScaler('cpu', enabled=False)\nr = (s.is_enabled(), s.scale(m.ones(1)))",
    )
]


@pytest.mark.parametrize("snippet", COMPILER)
def test_compiler_entry_points_match_torch(snippet) -> None:
    # PyTorch's compiler machinery warns about its own internals (TorchScript's deprecations) on first use.
    assert_same_outcome(snippet, compare_warnings=False)


def test_fork_runs_eagerly_and_warns_nothing() -> None:
    import warnings

    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        future = glassgrad.fork(calls.append, 1)
        assert calls == [1] and glassgrad.wait(future) is None and future.done()
