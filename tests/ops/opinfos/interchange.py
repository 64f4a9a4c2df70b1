"""OpInfos of asarray, frombuffer and DLPack (glassgrad/ops/interchange.py); tests/ops/test_interchange.py
checks which of them share memory, and how asarray treats a tensor's graph."""

from __future__ import annotations

from typing import Any

from ..opinfo import OpInfo


def _bytes(m: Any, x: Any) -> Any:
    """x's bytes through a Python buffer, back as float64."""
    return m.frombuffer(bytearray(x.detach().numpy().tobytes()), dtype=m.float64) if x.numel() else m.zeros(0, dtype=m.float64)


def _through_dlpack(m: Any, x: Any) -> Any:
    return m.from_dlpack(m.to_dlpack(x.detach())).reshape(x.shape)


OPS = [
    # copy=True clones, and a clone is differentiable: the graph goes through. (requires_grad is passed: left out,
    # it follows the tensor's with a warning that PyTorch gives once per process.)
    OpInfo("glassgrad.asarray", lambda m, x: m.asarray(x, copy=True, requires_grad=x.requires_grad), errors=(lambda m: m.asarray([1, 2], copy=False),)),
    OpInfo("glassgrad.asarray", lambda m, x: m.asarray(x, dtype=m.float32, requires_grad=False), order=0, rtol=1e-6, id="asarray_dtype"),
    OpInfo("glassgrad.asarray", lambda m, x: m.asarray(x.tolist()), order=0, id="asarray_list"),
    OpInfo("glassgrad.asarray", lambda m, x: m.asarray(x.detach().numpy(), requires_grad=True), order=0, id="asarray_numpy"),
    OpInfo("glassgrad.frombuffer", _bytes, order=0, errors=(lambda m: m.frombuffer(bytearray(7), dtype=m.float32),)),
    OpInfo("glassgrad.from_dlpack", _through_dlpack, order=0, also=("glassgrad.to_dlpack",),
           errors=(lambda m: m.to_dlpack([1.0]),)),
    OpInfo("glassgrad.from_dlpack", lambda m, x: m.from_dlpack(x.detach()), order=0, id="from_dlpack_tensor",
           also=("Tensor.__dlpack__", "Tensor.__dlpack_device__"), errors=(lambda m: m.from_dlpack(m.ones(1, requires_grad=True)),)),
]
