"""No op escapes testing: every entry of glassgrad.ops.REGISTRY has an OpInfo."""

from __future__ import annotations

from glassgrad.ops import INPLACE, REGISTRY

from .opinfos import OPS


def test_every_registered_op_has_an_opinfo() -> None:
    named = {name for op in OPS for name in op.covers()}
    unknown = sorted(named - set(REGISTRY))
    assert not unknown, f"OpInfos name ops that are not registered: {unknown}"
    # A method or alias that is the very same function as a tested entry is tested by it;
    # in-place methods wrap their function, so each needs an OpInfo of its own.
    tested_functions = {id(REGISTRY[name]) for name in named}
    inplace = {f"Tensor.{name}" for name in INPLACE}
    missing = sorted(
        name for name, fn in REGISTRY.items() if name not in named and (name in inplace or id(fn) not in tested_functions)
    )
    assert not missing, f"{len(missing)} registered ops have no OpInfo: {missing}"
