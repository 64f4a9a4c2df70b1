"""What the OpInfos of in-place ops cannot see, against PyTorch: version counters, the nodes a tensor's history moves
onto (and their names), views that stay views, storage shared by resize_, warnings, and first sentences of errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def _outcome(fn: Callable[[Any], Any], m: Any) -> Any:
    """fn(m), or the exception's type and first line (glassgrad explains below PyTorch's sentence)."""
    try:
        return fn(m)
    except Exception as err:
        return type(err).__name__, str(err).splitlines()[0]


def _same(fn: Callable[[Any], Any]) -> None:
    assert _outcome(fn, glassgrad) == _outcome(fn, torch)


def _node(t: Any) -> str:
    return type(t.grad_fn).__name__


# -- in-place view-metadata changes --------------------------------------------------------------------------------
VIEW_OPS = {
    "t_": lambda x: x.reshape(2, 3).t_(),
    "transpose_": lambda x: x.reshape(1, 2, 3).transpose_(0, -1),
    "swapaxes_": lambda x: x.reshape(2, 3).swapaxes_(1, 0),
    "swapdims_": lambda x: x.reshape(2, 1, 3).swapdims_(0, 2),
    "squeeze_": lambda x: x.reshape(1, 2, 1, 3).squeeze_(),
    "squeeze_dim": lambda x: x.reshape(1, 2, 1, 3).squeeze_(2),
    "squeeze_dims": lambda x: x.reshape(1, 2, 1, 3).squeeze_((0, 2)),
    "unsqueeze_": lambda x: x.reshape(2, 3).unsqueeze_(1),
    "as_strided_": lambda x: x.reshape(2, 3)[:, 1:].as_strided_((2, 2), (1, 2)),
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_view_op_in_place_bumps_the_version_and_moves_the_history(name: str) -> None:
    def run(m: Any) -> Any:
        a = m.arange(6.0, dtype=m.float64, requires_grad=True)
        x = a * 1  # not a view: reshape below makes the view, the op changes it
        y = VIEW_OPS[name](x)
        version = y._version
        seed = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)
        y.backward(seed)
        return tuple(y.shape), y.stride(), version, _node(y), type(y.grad_fn.next_functions[0][0]).__name__, a.grad.tolist()

    _same(run)


def test_view_op_in_place_on_a_base_keeps_it_a_base_and_its_saved_copies_stale() -> None:
    def run(m: Any) -> Any:
        b = m.ones(3, requires_grad=True) * 1
        d = b.sin()
        b.unsqueeze_(0)
        state = (b._base is None, b._version, tuple(b.shape))
        return state, _outcome(lambda m: d.sum().backward(), m)

    _same(run)


def test_view_op_in_place_on_a_view_keeps_it_a_view_of_the_same_base() -> None:
    def run(m: Any) -> Any:
        a = m.arange(6.0, requires_grad=True)
        e = a * 1
        f = e.view(3, 2)
        f.t_()
        state = (tuple(f.shape), f._base is e, f._version, e._version, _node(f), _node(e))
        f.mul_(m.arange(6.0).reshape(2, 3))  # through the transposed view, onto its base
        e.backward(m.ones(6))
        return state, _node(e), a.grad.tolist()

    _same(run)


@pytest.mark.parametrize("call", ["t_()", "unsqueeze_(0)", "squeeze_()", "transpose_(0, 5)"])
def test_view_op_in_place_checks_leaves_and_no_grad_views_first(call: str) -> None:
    _same(lambda m: eval(f"m.ones(2, 1, requires_grad=True).{call}"))
    _same(lambda m: eval(f"m.ones(2, 1, requires_grad=True)[0].{call}"))

    def no_grad_view(m: Any) -> Any:
        x = m.ones(2, 1, requires_grad=True) * 1
        with m.no_grad():
            view = x[0]
        return eval(f"view.{call}", {"view": view})

    _same(no_grad_view)


def test_view_op_in_place_under_no_grad_changes_only_the_shape() -> None:
    def run(m: Any) -> Any:
        a = m.ones(2, 3, requires_grad=True)
        with m.no_grad():
            a.t_()
        return tuple(a.shape), a._version, a.is_leaf

    _same(run)


def test_t_in_place_refuses_more_than_two_dims_in_its_own_name() -> None:
    _same(lambda m: m.zeros(2, 3, 4).t_())


def test_a_view_taken_before_its_base_changed_shape_in_place_refuses_in_place_writes() -> None:
    """PyTorch replays views from strides and records this; glassgrad replays from the base's shape, so it raises
    rather than record a gradient for the wrong elements."""
    a = glassgrad.arange(9.0, requires_grad=True)
    x = a.reshape(3, 3) * 1
    row = x[1]
    x.t_()
    with pytest.raises(RuntimeError, match="Take the view again"):
        row.mul_(2)
    assert x.grad_fn is not None and type(x.grad_fn).__name__ == "TBackward1"  # the history was left as it was
    x.backward(glassgrad.ones(3, 3))
    assert a.grad.tolist() == [1.0] * 9


# -- resize_, apply_, map_, fill_diagonal_ -----------------------------------------------------------------------------
def test_resize_shares_the_storage_while_it_is_large_enough() -> None:
    def run(m: Any) -> Any:
        x = m.arange(6.0)
        whole = x[:]
        x.resize_(2, 2)
        x.fill_(-1.0)
        shrunk = (whole.tolist(), x._version, whole._version)
        x.resize_(2, 2)  # the same shape: nothing changes, not even the version
        same = x._version
        tail = m.arange(6.0)[2:]
        tail.resize_(3)
        return shrunk, same, tail.tolist()

    _same(run)


def test_apply_and_map_call_back_with_python_numbers_and_leave_the_version() -> None:
    def run(m: Any) -> Any:
        seen: list[str] = []
        x = m.tensor([[1, 2, 3], [4, 5, 6]])
        x.apply_(lambda v: seen.append(type(v).__name__) or v * 1.5)
        y = m.tensor([[1.0, 2.0, 3.0]] * 2)
        y.map_(m.tensor([10.0, 20.0, 30.0]), lambda u, v: seen.append(type(u).__name__ + type(v).__name__) or u - v)
        return x.tolist(), y.tolist(), x._version, y._version, seen

    _same(run)


@pytest.mark.parametrize("shape", [(3, 3), (7, 2), (2, 2, 2)])
def test_fill_diagonal_fills_through_views_of_the_tensor(shape: tuple[int, ...]) -> None:
    def run(m: Any) -> Any:
        a = m.arange(float(np.prod(shape)), requires_grad=True)
        x = a.reshape(shape) * 1
        x.fill_diagonal_(-1.0, wrap=len(shape) == 2)
        x.backward(m.ones(shape))
        return x.tolist(), _node(x), a.grad.tolist()

    _same(run)


# -- in-place forms with nodes of their own ---------------------------------------------------------------------------
IN_PLACE_NODES = {
    "eq_number": lambda m, y: y.eq_(0.5),
    "ge_tensor": lambda m, y: y.ge_(m.zeros(3)),
    "greater_": lambda m, y: y.greater_(0),
    "not_equal_": lambda m, y: y.not_equal_(m.zeros(3)),
    "logical_and_": lambda m, y: y.logical_and_(m.ones(3)),
    "conj_physical_": lambda m, y: y.conj_physical_(),
    "sgn_": lambda m, y: y.sgn_(),
    "heaviside_": lambda m, y: y.heaviside_(m.zeros(3)),
    "float_power_": lambda m, y: y.double().float_power_(2),
    "F.elu_": lambda m, y: m.nn.functional.elu_(y),
    "F.selu_": lambda m, y: m.nn.functional.selu_(y),
    "F.celu_": lambda m, y: m.nn.functional.celu_(y, 0.5),
    "F.leaky_relu_": lambda m, y: m.nn.functional.leaky_relu_(y, 0.1),
    "F.hardtanh_": lambda m, y: m.nn.functional.hardtanh_(y),
    "F.relu_": lambda m, y: m.nn.functional.relu_(y),
    "elu_inplace": lambda m, y: m.nn.functional.elu(y, inplace=True),
    "leaky_relu_inplace": lambda m, y: m.nn.functional.leaky_relu(y, inplace=True),
}


@pytest.mark.parametrize("name", list(IN_PLACE_NODES))
def test_in_place_forms_record_pytorchs_nodes(name: str) -> None:
    def run(m: Any) -> Any:
        a = m.tensor([-1.0, 0.5, 2.0], dtype=m.float64, requires_grad=True)
        y = IN_PLACE_NODES[name](m, a * 2)
        grad = _outcome(lambda m: m.autograd.grad(y.sum(), a)[0].numpy(force=True).tolist(), m)  # force: a ZeroTensor
        return y.dtype == a.dtype, _node(y), y.tolist(), grad

    _same(run)


@pytest.mark.parametrize("where", ["view", "saved_result"])
def test_conj_physical_in_place_on_a_real_tensor_is_a_new_node(where: str) -> None:
    def run(m: Any) -> Any:
        a = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        b = a.exp() if where == "saved_result" else a * 2
        (b[:2] if where == "view" else b).conj_physical_()
        return _node(b), b._version, _outcome(lambda m: m.autograd.grad(b.sum(), a)[0].tolist(), m)

    _same(run)


def test_in_place_forms_refuse_what_their_tensor_cannot_hold() -> None:
    _same(lambda m: m.ones(2).float_power_(2))
    _same(lambda m: m.ones(2, dtype=m.int64).deg2rad_())
    _same(lambda m: m.ones(2, dtype=m.int64).eq_(m.ones(3)))


# -- the rest -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("exponent_shape", [(3,), ()])
def test_ldexp_with_integer_exponents_warns_when_broadcasting_resizes_its_output(exponent_shape: tuple[int, ...]) -> None:
    def run(m: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m.ldexp(m.tensor(1.5), m.ones(exponent_shape, dtype=m.int64))
        return out.tolist(), [str(w.message).split(" (Triggered")[0] for w in caught]

    _same(run)


@pytest.mark.parametrize("attribute", ["H", "mH", "adjoint()"])
def test_adjoints_of_a_0d_tensor_warn_and_return_it(attribute: str) -> None:
    def run(m: Any) -> Any:
        x = m.tensor(2.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = eval(f"x.{attribute}")
        return out is x, [str(w.message).split(" (Triggered")[0] for w in caught]

    _same(run)


def test_positive_is_the_tensor_itself_and_refuses_bools() -> None:
    _same(lambda m: [(lambda x: (m.positive(x) is x, (+x) is x))(m.ones(2))])
    _same(lambda m: +m.tensor([True]))
