"""Names every program touches and no op test reaches (flags, sizes, base classes), compared with PyTorch 2.13."""

from __future__ import annotations

import pytest

from .outcome import Snippet, assert_same_outcome, expression, statements

pytestmark = pytest.mark.torch_oracle

LAZY_CONJUGATE = "PyTorch's conj() sets a lazy conjugate bit on a view; glassgrad's conj() computes a new tensor"

FLAGS = [
    "is_cpu", "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mps", "is_mtia", "is_nested", "is_quantized",
    "is_sparse", "is_sparse_csr", "is_vulkan", "is_xla", "is_xpu",
]

CASES = [
    *(expression(f"m.ones(2).{flag}") for flag in FLAGS),
    expression("m.ones(2).is_conj()"),
    *(
        pytest.param(*expression(source).values, marks=pytest.mark.xfail(strict=True, reason=LAZY_CONJUGATE))
        for source in ("m.ones(2, dtype=m.complex64).conj().is_conj()", "m.is_conj(m.ones(2, dtype=m.complex64).conj())")
    ),
    expression("m.ones(2).is_neg()"),
    expression("m.is_tensor(m.ones(1)), m.is_tensor([1.0]), m.is_tensor(m.nn.Parameter(m.ones(1)))"),
    expression("m.result_type(m.ones(2, dtype=m.int32), 2.5), m.result_type(m.ones(2, dtype=m.float64), m.ones(1))"),
    expression("m.result_type(1, 2)"),
    expression("m.half, m.ones(2).half(), m.ones(2).half().dtype"),
    expression("m.tensor([1, 300]).byte()"),
    expression("m.ones(2, 3, dtype=m.float64).element_size(), m.ones(2, dtype=m.int8).element_size()"),
    expression("m.ones(2, 3).ndimension(), m.ones(2, 3).nelement()"),
    # a Size joined with a tuple, on either side, stays a Size (batch_shape + event_shape in messages)
    expression("repr(m.ones(2, 3).shape + (4,)), repr((1,) + m.ones(2).shape), repr(m.Size([2]) + m.Size([3]))"),
    statements("x = m.ones(2, requires_grad=True) * 2\nx.detach_()\nr = (x.requires_grad, x.grad_fn is None, x)"),
    statements("v = m.ones(4, requires_grad=True).clone()[:2]\nv.detach_()"),
    statements("g = m.default_generator\nm.manual_seed(3)\nr = (g.initial_seed(), isinstance(g, m.Generator))"),
    expression("m.nn.AdaptiveAvgPool1d(2)(m.arange(12.0).reshape(2, 6)), m.nn.AdaptiveAvgPool1d(3).output_size"),
    statements("model = m.nn.Module()\nmodel.b = m.nn.Buffer(m.ones(2))\nr = (list(model.state_dict()), dict(model.named_buffers()))"),
    statements("model = m.nn.Module()\nmodel.b = m.nn.Buffer(m.ones(2), persistent=False)\nr = list(model.state_dict())"),
    expression("isinstance(m.nn.GRU(2, 3), m.nn.RNNBase), isinstance(m.nn.LSTMCell(2, 3), m.nn.RNNCellBase)"),
    expression("[name for name, _ in m.nn.RNNBase('LSTM', 2, 3).named_parameters()]"),
]


@pytest.mark.parametrize("snippet", CASES)
def test_matches_torch(snippet: Snippet) -> None:
    assert_same_outcome(snippet)
