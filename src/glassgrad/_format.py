"""Tensor repr in PyTorch's style: `tensor([1.5000, 2.0000], requires_grad=True)`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor


def _float_formatter(values: np.ndarray) -> tuple[str, int]:
    finite = values[np.isfinite(values)].astype(np.float64)
    if finite.size == 0:
        return "fixed", 0
    nonzero = np.abs(finite[finite != 0])
    if np.all(finite == np.round(finite)):
        if nonzero.size and (nonzero.max() >= 1e8):
            return "sci", 4
        return "int", 0
    if nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() >= 1e8 or nonzero.min() < 1e-4):
        return "sci", 4
    return "fixed", 4


def _format_elements(data: np.ndarray) -> list[str]:
    if data.dtype == np.bool_:
        return ["True" if v else "False" for v in data.ravel()]
    if not np.issubdtype(data.dtype, np.floating):
        return [str(v) for v in data.ravel()]
    mode, digits = _float_formatter(data)
    out = []
    for v in data.ravel().astype(np.float64):
        if np.isnan(v):
            out.append("nan")
        elif np.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        elif mode == "int":
            out.append(f"{v:.0f}.")
        elif mode == "sci":
            out.append(f"{v:.{digits}e}")
        else:
            out.append(f"{v:.{digits}f}")
    return out


def _padded(cells: list[str]) -> list[str]:
    width = max((len(c) for c in cells), default=0)
    return [c.rjust(width) for c in cells]


def _cells(data: np.ndarray) -> list[str]:
    """Each element's text, padded to one width; a complex element's parts formatted apart, as PyTorch does."""
    if data.dtype.kind != "c":
        return _padded(_format_elements(data))
    imags = [(i + "j").lstrip() for i in _padded(_format_elements(data.imag))]
    return [r + (i if i[0] in "+-" else "+" + i) for r, i in zip(_padded(_format_elements(data.real)), imags, strict=True)]


def _nest(cells: list[str], shape: tuple[int, ...], indent: int) -> str:
    if not shape:
        return cells[0]
    if len(shape) == 1:
        return "[" + ", ".join(cells) + "]"
    step = len(cells) // shape[0] if shape[0] else 0
    rows = [_nest(cells[i * step : (i + 1) * step], shape[1:], indent + 1) for i in range(shape[0])]
    separator = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def format_tensor(t: Tensor) -> str:
    data = t._data
    summarize = data.size > 1000
    if summarize:
        body = np.array2string(data, threshold=1000, edgeitems=3, separator=", ", prefix="tensor(")
    else:
        body = _nest(_cells(data), data.shape, len("tensor("))
    extras = []
    default_int = data.dtype == np.int64
    default_float = data.dtype == np.float32
    default = default_float or default_int or data.dtype == np.bool_ or data.dtype == np.complex64
    if not default or (data.size == 0 and not default_float):
        extras.append(f"dtype={t.dtype}")
    if data.size == 0 and data.ndim != 1:
        extras.append(f"size=({', '.join(map(str, data.shape))}{',' if data.ndim == 1 else ''})")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body, *extras]) + ")"
