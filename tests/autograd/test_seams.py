"""The seams where diagnostics plug into the core (autograd/seams.py).

Without the explainer that glassgrad.diagnostics registers, every graph error is PyTorch's own message
word for word; with it, the same message is followed by the explanation.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
import torch

import glassgrad
from glassgrad.autograd import seams
from glassgrad.diagnostics import explain

pytestmark = pytest.mark.torch_oracle


def _second_backward(m: ModuleType) -> None:
    y = (m.tensor([1.0, 2.0], requires_grad=True) * 2).sum()
    y.backward()
    y.backward()


def _modified_in_place(m: ModuleType) -> None:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    y.mul_(2)
    z.backward()


def _no_graph(m: ModuleType) -> None:
    m.tensor([1.0]).sum().backward()


def _not_scalar(m: ModuleType) -> None:
    (m.tensor([1.0, 2.0], requires_grad=True) * 2).backward()


def _leaf_in_place(m: ModuleType) -> None:
    m.tensor([1.0], requires_grad=True).add_(1)


ERRORS: dict[str, Callable[[ModuleType], None]] = {
    "freed": _second_backward, "version": _modified_in_place, "no_grad_fn": _no_graph,
    "non_scalar_root": _not_scalar, "leaf_inplace": _leaf_in_place,
}


def _message(program: Callable[[ModuleType], None], m: Any) -> str:
    with pytest.raises(RuntimeError) as caught:
        program(m)
    return str(caught.value)


def test_diagnostics_registered_their_explainer_on_import() -> None:
    assert seams.explainer is explain


@pytest.mark.parametrize("program", ERRORS.values(), ids=ERRORS.keys())
def test_without_the_explainer_errors_are_pytorchs_word_for_word(
    program: Callable[[ModuleType], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seams, "explainer", seams._PyTorchSentenceAlone())
    assert _message(program, glassgrad) == _message(program, torch)


@pytest.mark.parametrize("program", ERRORS.values(), ids=ERRORS.keys())
def test_with_the_explainer_pytorchs_message_comes_first(program: Callable[[ModuleType], None]) -> None:
    message = _message(program, glassgrad)
    assert message.startswith(_message(program, torch))
    assert explain.HEADER in message
