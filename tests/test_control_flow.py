"""glassgrad.cond against torch.cond: the branch taken, its gradient, and what PyTorch refuses (a tensor predicate
makes PyTorch compile the call, some seconds each, so those cases are few)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .outcome import assert_same_outcome

pytestmark = pytest.mark.torch_oracle


def _x(m: Any) -> Any:
    return m.tensor([1.0, -2.0, 0.5], requires_grad=True)


REFUSED = {
    "pred_not_a_tensor": lambda m: m.cond("yes", m.sin, m.cos, (_x(m),)),
    "pred_of_two_elements": lambda m: m.cond(m.tensor([True, False]), m.sin, m.cos, (_x(m),)),
    "branch_not_callable": lambda m: m.cond(m.tensor(True), 3, m.cos, (_x(m),)),
    "operands_not_a_tuple": lambda m: m.cond(m.tensor(True), m.sin, m.cos, _x(m)),
    "operand_not_a_tensor": lambda m: m.cond(m.tensor(True), m.sin, m.cos, ("x",)),
    "python_pred_calls_the_branch": lambda m: m.cond(0, m.sin, lambda x: x - 1, (_x(m),)),
    "python_pred_with_uncallable_other_branch": lambda m: m.cond(True, lambda x: x * 2, 3, [_x(m)]),
}


@pytest.mark.parametrize("case", REFUSED)
def test_python_predicates_and_refused_arguments_match_torch(case: str) -> None:
    assert_same_outcome(REFUSED[case])


@pytest.mark.parametrize("pred", [True, False])
def test_a_tensor_predicate_takes_its_branch_with_its_gradient(pred: bool) -> None:
    def run(m: Any) -> list[np.ndarray]:
        x, w = _x(m), m.tensor([0.5, 2.0, -1.0], requires_grad=True)  # leaves: compiling reads a non-leaf's .grad
        y = m.cond(m.tensor(pred), lambda a, b: (a * b).cos(), lambda a, b: a.sin() + b, (x, w))
        return [y.detach().numpy(), *(g.numpy() for g in m.autograd.grad(y.sum(), (x, w)))]

    for ours, theirs in zip(run(glassgrad), run(torch), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


COMPILED_REFUSALS = {
    "outputs_of_different_shapes": lambda m: m.cond(m.tensor(True), lambda x: x.sum(), lambda x: x * 2, (_x(m),)),
    "an_output_aliasing_an_operand": lambda m: m.cond(m.tensor(False), lambda x: x + 1, lambda x: x, (_x(m),)),
    "outputs_of_different_dtypes": lambda m: m.cond(m.tensor(2.0), lambda x: x * 2, lambda x: (x * 2).double(), (_x(m),)),
}


@pytest.mark.parametrize("case", COMPILED_REFUSALS)
def test_what_compiling_refuses_is_refused(case: str) -> None:
    def raised(m: Any) -> str:
        with pytest.raises(RuntimeError) as err:
            COMPILED_REFUSALS[case](m)
        return type(err.value).__name__

    assert raised(glassgrad) == raised(torch)


def test_a_number_tensor_predicate_is_read_as_its_truth() -> None:
    def run(m: Any) -> list[float]:
        return m.cond(m.tensor(0.0), lambda x: x + 1, lambda x: x - 1, (_x(m),)).tolist()

    assert run(glassgrad) == run(torch)
