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
