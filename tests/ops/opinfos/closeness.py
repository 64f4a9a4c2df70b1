"""OpInfos of isclose, allclose and equal (glassgrad/ops/logic.py): closeness within tolerances, and exact equality."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes, broadcasting, index, unary

INTEGRAL = Domain(-3, 3, integral=True)  # exact ties and zeros, and with log(): nan and -inf
NEAR = Domain(0.9, 1.1)  # pairs that fall on both sides of rtol=0.1 and atol=0.05
BINARY = Domain(0, 1, integral=True)  # so that whole tensors come out equal often enough
INT = index(5, -5)
BOOL = Domain(dtype="bool")
HALF = Domain(0.99, 1.01, dtype="float16")  # float16's rounding of each step decides these
SIDE = dict(min_side=0, max_side=3)


def same_shape() -> st.SearchStrategy[Shapes]:
    return unary(max_side=3).map(lambda shapes: (shapes[0], shapes[0]))


def as_tensor(name: str, **kwargs: Any) -> Any:
    """allclose and equal return a Python bool; wrapped in a tensor it goes through the generic comparison."""
    return lambda m, a, b: m.tensor(getattr(m, name)(a, b, **kwargs))


def method(name: str, **kwargs: Any) -> Any:
    def fn(m: Any, a: Any, b: Any) -> Any:
        result = getattr(a, name)(b, **kwargs)
        return result if name == "isclose" else m.tensor(result)

    return fn


def tolerance_errors(name: str) -> tuple[Any, ...]:
    """What isclose and allclose reject: PyTorch promotes nothing and checks the tolerances."""
    return (
        lambda m: getattr(m, name)(m.ones(2), m.ones(3)),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2, dtype=m.float64)),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2, dtype=m.int64)),
        lambda m: getattr(m, name)(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.int64)),
        lambda m: getattr(m, name)(m.ones(2), 1.0),
        lambda m: getattr(m, name)(1.0, m.ones(2)),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), rtol=-1.0),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), atol=-1e-9),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), atol=float("nan")),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), rtol="a"),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), rtol=None),
        lambda m: getattr(m, name)(m.ones(2), m.ones(2), equal_nan=1),
        lambda m: getattr(m.ones(2), name)(1.0),
    )


def call(name: str, **kwargs: Any) -> Any:
    return lambda m, a, b: getattr(m, name)(a, b, **kwargs)


OPS = [
    OpInfo("glassgrad.isclose", call("isclose"), shapes=broadcasting(**SIDE), domains=INTEGRAL, order=0,
           errors=tolerance_errors("isclose")),
    OpInfo("glassgrad.isclose", call("isclose", rtol=0.1), shapes=broadcasting(**SIDE), domains=NEAR, order=0, id="isclose_rtol"),
    OpInfo("glassgrad.isclose", call("isclose", rtol=0.0, atol=0.05), shapes=broadcasting(**SIDE), domains=NEAR, order=0,
           id="isclose_atol"),
    OpInfo("glassgrad.isclose", call("isclose", rtol=0.0, atol=0.0), shapes=broadcasting(**SIDE), domains=NEAR, order=0,
           id="isclose_exact"),
    *[OpInfo("glassgrad.isclose", lambda m, a, b, equal_nan=equal_nan: m.isclose(m.log(a), m.log(b), atol=0.5, equal_nan=equal_nan),
             shapes=broadcasting(**SIDE), domains=INTEGRAL, order=0, id=f"isclose_log_equal_nan_{equal_nan}")
      for equal_nan in (False, True)],
    OpInfo("glassgrad.isclose", call("isclose", rtol=0.25, atol=1.0), shapes=broadcasting(**SIDE), domains=INT, order=0,
           id="isclose_int"),
    OpInfo("glassgrad.isclose", call("isclose", atol=1.0), shapes=broadcasting(**SIDE), domains=BOOL, order=0, id="isclose_bool"),
    OpInfo("glassgrad.isclose", call("isclose", rtol=1e-3, atol=1e-3), shapes=broadcasting(**SIDE), domains=HALF, order=0,
           id="isclose_float16"),
    OpInfo("Tensor.isclose", method("isclose", rtol=0.1), shapes=broadcasting(**SIDE), domains=NEAR, order=0,
           errors=(lambda m: m.ones(2).isclose(1.0), lambda m: m.ones(2).isclose(m.ones(2, dtype=m.float64)))),
    OpInfo("glassgrad.allclose", as_tensor("allclose", rtol=0.1), shapes=broadcasting(**SIDE), domains=NEAR, order=0,
           errors=tolerance_errors("allclose")),
    OpInfo("glassgrad.allclose", as_tensor("allclose", equal_nan=True), shapes=broadcasting(**SIDE), domains=BINARY, order=0,
           id="allclose_equal_nan"),
    OpInfo("Tensor.allclose", method("allclose", atol=0.1), shapes=broadcasting(**SIDE), domains=NEAR, order=0,
           errors=(lambda m: m.ones(2).allclose([1.0, 1.0]),)),
    OpInfo("glassgrad.equal", as_tensor("equal"), shapes=same_shape(), domains=BINARY, order=0,
           errors=(lambda m: m.equal(m.ones(2), 1.0), lambda m: m.equal(None, m.ones(2)))),
    OpInfo("glassgrad.equal", as_tensor("equal"), shapes=broadcasting(**SIDE), domains=BINARY, order=0, id="equal_shapes"),
    OpInfo("glassgrad.equal", as_tensor("equal"), shapes=same_shape(), domains=(Domain(0, 1, dtype="int64"), BINARY), order=0,
           id="equal_promoted"),
    OpInfo("glassgrad.equal", lambda m, a, b: m.tensor(m.equal(m.log(a), m.log(a))), shapes=same_shape(), domains=INTEGRAL,
           order=0, id="equal_nan"),
    OpInfo("Tensor.equal", method("equal"), shapes=same_shape(), domains=(BOOL, BOOL), order=0,
           errors=(lambda m: m.ones(2).equal([1.0, 1.0]),)),
]
