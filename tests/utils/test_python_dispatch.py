"""utils._python_dispatch.TorchDispatchMode: a mode sees each op call with PyTorch's op object, and costs nothing after."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

import glassgrad
from glassgrad.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode


def _logging_mode(base: type) -> Any:
    class Log(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.seen.append(str(func))
            return func(*args, **(kwargs or {}))

    return Log()


def _ops_seen(m: Any, base: type) -> tuple[list[str], list[float]]:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    with _logging_mode(base) as log:
        y = (x.sin() * 2).sum()
    (g,) = m.autograd.grad(y, x)
    return log.seen, [round(v, 5) for v in g.tolist()]


@pytest.mark.torch_oracle
def test_a_mode_sees_each_op_with_pytorchs_name_and_the_result_keeps_its_graph() -> None:
    assert _ops_seen(glassgrad, TorchDispatchMode) == _ops_seen(torch, TorchMode)


def test_a_mode_is_off_inside_its_own_handler_and_the_outer_mode_sees_what_it_calls() -> None:
    outer, inner = _logging_mode(TorchDispatchMode), _logging_mode(TorchDispatchMode)
    with outer, inner:
        assert _get_current_dispatch_mode() is inner
        glassgrad.ones(2).neg()
    assert inner.seen == ["aten.ones.default", "aten.neg.default"]
    assert outer.seen == inner.seen  # inner's handler called each op, which went to the mode outside it
    assert _get_current_dispatch_mode() is None


def test_leaving_the_last_mode_puts_every_op_back() -> None:
    add, detach = glassgrad.Tensor.__add__, glassgrad.Tensor.detach
    with _logging_mode(TorchDispatchMode):
        assert glassgrad.Tensor.__add__ is not add
    assert (glassgrad.Tensor.__add__, glassgrad.Tensor.detach) == (add, detach)


def test_aten_op_objects_are_one_per_overload() -> None:
    aten = glassgrad.ops.aten
    assert aten.mul.Tensor is aten.mul.Tensor and aten.sin.default.overloadpacket is aten.sin
    assert (str(aten.sin.default), aten.sin.default.__name__, repr(aten.sin)) == (
        str(torch.ops.aten.sin.default), torch.ops.aten.sin.default.__name__, repr(torch.ops.aten.sin))
    assert aten.sin.default(glassgrad.zeros(1)).tolist() == [0.0]
