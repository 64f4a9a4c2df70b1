"""Small API gaps that real PyTorch programs ran into (docs/real-programs.md), each checked against PyTorch.

Each case is what one of those programs does; what is compared is the value (or the exception type and
its first sentence) and the warnings, through tests/outcome.py.
"""

from __future__ import annotations

import pytest

from ..outcome import assert_same_outcome, statements

pytestmark = pytest.mark.torch_oracle


CASES = [
    # pytorch/examples mnist_forward_forward: randint(high, size=...)
    statements("m.manual_seed(0)\nr = m.randint(5, size=(3,)).shape"),
    statements("r = m.randint(high=5, size=(2, 2)).dtype"),
    statements("r = m.randint(low=3, high=4, size=(2,))"),
    statements("r = m.randint(3, 4, (2,))"),
    statements("r = m.randint(4, (2,)).shape"),
    statements("r = m.randint(5)"),
    statements("r = m.randint(5, 5, (2,))"),
]


@pytest.mark.parametrize("snippet", CASES)
def test_outcome_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


KINDS = ("cpu", "cuda", "xpu", "mps", "meta", "xla", "ipu", "maia", "mtia", "vulkan", "mkldnn", "quantized", "nested",
         "sparse", "sparse_csr")


@pytest.mark.parametrize("kind", KINDS)
def test_device_and_layout_flags_match_torch(kind: str) -> None:
    """pytorch/examples' dcgan asks `input.is_cuda or input.is_xpu`; every is_<kind> flag answers as PyTorch's CPU build."""
    assert_same_outcome(lambda m: [getattr(t, f"is_{kind}") for t in (m.zeros(2), m.nn.Parameter(m.ones(1)), m.arange(3)[1:])])


FORMATS = [
    # yunjey/pytorch-tutorial's logistic regression prints '{} %'.format(100 * correct / total), correct a 0-d tensor
    "r = '{} %'.format(100 * m.tensor(3) / 8)", "r = '{}'.format(m.tensor([1.5]))", "r = '{:.2f}'.format(m.tensor(2.0))",
    "r = f'{m.tensor(3)}'", "r = '{!r}'.format(m.tensor(1.0))", "r = format(m.tensor(True))",
    "r = format(m.tensor(1.5, requires_grad=True))", "r = format(m.nn.Parameter(m.tensor(1.5)))",
    "r = '{:.2f}'.format(m.tensor([1.0]))", "r = '{:>6}'.format(m.tensor(7))",
]


@pytest.mark.parametrize("source", FORMATS)
def test_format_matches_torch(source: str) -> None:
    def run(m):
        scope = {"m": m}
        exec(source, scope)
        return scope["r"]

    assert_same_outcome(run)
