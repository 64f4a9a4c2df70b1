"""Muon: momentum whose update is orthogonalised by a Newton-Schulz iteration (Keller Jordan's optimizer, as
PyTorch 2.13 has it), for the 2-d weights of hidden layers.

PyTorch runs the iteration in bfloat16, which NumPy lacks; glassgrad runs it in float32 and rounds to
bfloat16 where PyTorch's result is a bfloat16 tensor (the input, the normalised matrix, each product), so
the update carries bfloat16's precision as PyTorch's does and trajectories agree to that precision.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, lerp_, zeros_state

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _bfloat16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16's 8 significant bits (to nearest, ties to even), kept as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return rounded.view(np.float32)


def _zeropower_via_newtonschulz(grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int,
                                eps: float) -> np.ndarray:
    """A matrix near grad's orthogonal factor U V^T: a quintic Newton-Schulz iteration tuned for speed over exactness."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.shape[0] > grad.shape[1]
    ortho = _bfloat16(grad.T if tall else grad)
    norm = _bfloat16(np.float32(np.linalg.norm(ortho)))
    ortho = _bfloat16(ortho / max(norm, _bfloat16(np.float32(eps))))  # spectral norm at most 1
    for _ in range(ns_steps):
        gram = _bfloat16(ortho @ ortho.T)
        gram_update = _bfloat16(b * gram + c * (gram @ gram))
        ortho = _bfloat16(a * ortho + gram_update @ ortho)
    return ortho.T if tall else ortho


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The learning rate scaled for the matrix's shape, so updates of rectangular matrices have comparable RMS."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not momentum >= 0.0:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
            "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: {p.shape}")

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if param.ndim != 2:  # a complex parameter arrives as its real pairs, one dim more
            raise RuntimeError("Muon does not support complex parameters")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_state(grad)
        momentum = group["momentum"]
        buf = state["momentum_buffer"]._data
        lerp_(buf, grad, 1 - momentum)
        if group["nesterov"]:
            update = grad.copy()
            lerp_(update, buf, momentum)
        else:
            update = buf
        ortho = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        lr = float(group["lr"])
        decayed = param * (1 - lr * group["weight_decay"])
        return decayed - _adjust_lr(lr, group["adjust_lr_fn"], param.shape) * ortho
