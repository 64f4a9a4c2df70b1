"""OpInfos of dequantize (glassgrad/ops/quantized.py): a plain tensor comes back as float32, and its node refuses
to differentiate, as in PyTorch (the refusal is compared in test_quantized.py)."""

from __future__ import annotations

from ..opinfo import OpInfo

OPS = [
    OpInfo("glassgrad.dequantize", lambda m, x: m.dequantize(x.detach()), order=0, also=("Tensor.dequantize",),
           errors=(lambda m: m.dequantize([m.ones(2)]), lambda m: m.dequantize(3))),
    OpInfo("glassgrad.dequantize", lambda m, x: (x.detach() * 4).long().dequantize(), order=0, id="dequantize_integer"),
]
