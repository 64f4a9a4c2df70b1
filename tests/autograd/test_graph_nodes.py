"""Graph nodes as PyTorch's: which node an op records, what it logs, how it prints, checked against the installed PyTorch."""

from __future__ import annotations

import logging
import re
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

pytestmark = pytest.mark.torch_oracle


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(re.sub(r"0x[0-9a-f]+", "ADDR", record.getMessage()))


def test_debug_log_of_torch_autograd_names_each_node_run_with_its_gradients(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        logger = logging.getLogger("torch.autograd")
        records, level = _Records(), logger.level
        logger.addHandler(records)
        logger.setLevel(logging.DEBUG)
        try:
            x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
            y = (x * 2).sum(0)
            m.autograd.backward((y.sum(), y.clone()), (None, m.ones(3, dtype=m.float64)))
            m.autograd.grad((x.exp() * 3).sum(), x)  # autograd.grad runs no AccumulateGrad
        finally:
            logger.removeHandler(records)
            logger.setLevel(level)
        (x * 2).sum().backward()  # logged no more
        return records.messages

    oracle.check(program)


def test_ops_on_inference_tensors_alone_are_not_seen_by_autograd(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        with m.inference_mode():
            c = m.ones(2, 3, requires_grad=True)
        outcomes = []
        for out in (c.view(-1), c[0], c.t(), c.exp(), c.sum(), c * 2, c + m.ones(2, 3, requires_grad=True)):
            outcomes.append((out.requires_grad, out.is_leaf, m.is_inference(out), out._is_view(), out.grad_fn is None))
        return outcomes

    oracle.check(program)


def _one_node(m: ModuleType, outputs: Any) -> Any:
    """What PyTorch shows of the nodes of an op's outputs: their names, whether one node made them all, which output
    of it each one is, and where the node's edges lead."""
    nodes = [o.grad_fn for o in outputs]
    edges = [type(fn).__name__ if fn is not None else None for fn, _ in nodes[0].next_functions]
    return [type(nodes[0]).__name__, all(n is nodes[0] for n in nodes), [o.output_nr for o in outputs], edges]


@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
@pytest.mark.parametrize(("dim", "keepdim"), [(None, False), (None, True), (0, False), ((0, 2), True)])
def test_var_mean_and_std_mean_are_one_node_with_two_outputs(oracle: SimpleNamespace, op: str, dim: Any, keepdim: bool) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([[[1.0, 2.0], [4.0, 0.5]], [[3.0, -1.0], [2.0, 2.0]], [[0.0, 1.0], [5.0, 3.0]]], dtype=m.float64, requires_grad=True)
        spread, average = getattr(m, op)(x, dim, keepdim=keepdim)
        spread_only = m.autograd.grad(spread.sum(), x, retain_graph=True)
        mean_only = m.autograd.grad(average.sum(), x, retain_graph=True)
        seen = []
        average.grad_fn.register_prehook(lambda grads: seen.append([g is None for g in grads]))
        both = m.autograd.grad((spread * 3).sum() + average.sum(), x)
        saved = sorted(name for name in dir(spread.grad_fn) if name.startswith("_saved_"))
        return [spread, average, _one_node(m, (spread, average)), saved, spread_only, mean_only, both, seen]

    oracle.check(program)


_SPLITS = {
    "split": lambda m, x: x.split(2, 1),
    "split_sizes": lambda m, x: x.split([1, 0, 4], 1),
    "chunk": lambda m, x: x.chunk(3, -1),
    "unbind": lambda m, x: x.unbind(1),
    "unsafe_split": lambda m, x: m.unsafe_split(x, 3, 1),
    "unsafe_chunk": lambda m, x: m.unsafe_chunk(x, 2, 1),
    "unsafe_split_sizes": lambda m, x: m.unsafe_split_with_sizes(x, [2, 3], 1),
}


@pytest.mark.parametrize("op", sorted(_SPLITS))
def test_split_like_ops_record_one_node_with_an_output_per_piece(oracle: SimpleNamespace, op: str) -> None:
    def program(m: ModuleType) -> Any:
        leaf = m.arange(10.0, dtype=m.float64).reshape(2, 5).requires_grad_()
        x = leaf * 1
        pieces = _SPLITS[op](m, x)
        saved = sorted(name for name in dir(pieces[0].grad_fn) if name.startswith("_saved_"))
        some = m.autograd.grad(pieces[-1].sum() * 2, leaf, retain_graph=True)  # the other pieces get no gradient
        weights = [m.full(p.shape, i + 1.0, dtype=m.float64) for i, p in enumerate(pieces)]
        every = m.autograd.grad(pieces, leaf, weights, create_graph=True)[0]
        second = m.autograd.grad((every * leaf).sum(), leaf, allow_unused=True)
        return [pieces, _one_node(m, pieces), saved, some, every, second, [p._is_view() for p in pieces]]

    oracle.check(program)


def test_gradcheck_warns_of_a_single_precision_input_by_its_position(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, dtype=m.float64)
        y = m.ones(2, dtype=m.float32, requires_grad=True)
        return oracle.warned(lambda: m.autograd.gradcheck(lambda a, b: a * b * 0, (x, y)))

    oracle.check(program)


@pytest.mark.parametrize("op", ["threshold", "relu"])
def test_threshold_and_relu_differentiate_through_threshold_backward(oracle: SimpleNamespace, op: str) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([-1.0, 0.5, float("nan"), 2.0, 0.0], dtype=m.float64, requires_grad=True)
        v = m.arange(1.0, 6.0, dtype=m.float64).requires_grad_()
        y = m.threshold(x, 0.5, 3.0) if op == "threshold" else m.relu(x)
        (g,) = m.autograd.grad(y, x, v, create_graph=True)
        node = g.grad_fn
        names = sorted(name for name in dir(node) if name.startswith("_saved_"))
        return [g, node.name(), names, node._saved_threshold, m.autograd.grad((g * g).sum(), v)]

    oracle.check(program)
