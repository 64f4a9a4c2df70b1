"""Tensor repr in PyTorch's style: `tensor([1.5000, 2.0000], requires_grad=True)`, and torch.set_printoptions.

The layout follows PyTorch's torch/_tensor_str.py step for step (one width for every element, chosen from the
nonzero finite values; rows wrapped at `linewidth`; edges of each dimension shown with `...` past `threshold`),
so that what a program prints reads the same under glassgrad.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._dtype import is_floating, is_low_precision

if TYPE_CHECKING:
    from .tensor import Tensor


class PrintOptions:
    def __init__(
        self, precision: int = 4, threshold: float = 1000, edgeitems: int = 3, linewidth: int = 80,
        sci_mode: bool | None = None,
    ) -> None:
        self.precision, self.threshold, self.edgeitems, self.linewidth = precision, threshold, edgeitems, linewidth
        self.sci_mode = sci_mode


OPTIONS = PrintOptions()
_PROFILES = {
    "default": PrintOptions(), "short": PrintOptions(precision=2, edgeitems=2), "full": PrintOptions(threshold=math.inf),
}


def set_printoptions(
    precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
    linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None,
) -> None:
    """Options for printing tensors: a profile ("default", "short", "full") and then any option given; sci_mode
    is reset to automatic unless given, as in PyTorch."""
    if profile in _PROFILES:
        chosen = _PROFILES[profile]
        OPTIONS.precision, OPTIONS.threshold = chosen.precision, chosen.threshold
        OPTIONS.edgeitems, OPTIONS.linewidth = chosen.edgeitems, chosen.linewidth
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


class _Formatter:
    """One width and notation for all elements of a real array (or of one part of a complex one)."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = is_floating(values.dtype)
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.ravel()
        if not self.floating:
            self.max_width = max((len(str(v)) for v in flat.tolist()), default=1)  # ints, and bools as True
            return
        nonzero = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if nonzero.size == 0:
            return
        magnitude = np.abs(nonzero)
        smallest, largest = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        automatic = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        self.sci_mode = automatic if OPTIONS.sci_mode is None else OPTIONS.sci_mode
        if self.sci_mode:
            texts = [f"{v:.{OPTIONS.precision}e}" for v in nonzero.tolist()]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in nonzero.tolist()]
        else:
            texts = [f"{v:.{OPTIONS.precision}f}" for v in nonzero.tolist()]
        self.max_width = max(len(t) for t in texts)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{OPTIONS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{OPTIONS.precision}f}"
        return text.rjust(self.max_width)


class _Cells:
    """Formats elements of a real or complex array: the real and imaginary parts each with their own formatter."""

    def __init__(self, sample: np.ndarray) -> None:
        complex_valued = sample.dtype.kind == "c"
        self.real = _Formatter(sample.real if complex_valued else sample)
        self.imag = _Formatter(sample.imag) if complex_valued else None

    def width(self) -> int:
        return self.real.max_width + 2 + (0 if self.imag is None else self.imag.max_width + 1)

    def format(self, value: Any) -> str:
        if self.imag is None:
            return self.real.format(value)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + (imag if imag[0] in "+-" else "+" + imag)


def _vector(data: np.ndarray, indent: int, summarize: bool, cells: _Cells) -> str:
    per_line = max(1, math.floor((OPTIONS.linewidth - indent) / cells.width()))
    edge = OPTIONS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = [*map(cells.format, data[:edge].tolist()), " ...", *map(cells.format, data[-edge:].tolist())]
    else:
        items = [cells.format(v) for v in data.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(data: np.ndarray, indent: int, summarize: bool, cells: _Cells) -> str:
    if data.ndim == 0:
        return cells.format(data.item())
    if data.ndim == 1:
        return _vector(data, indent, summarize, cells)
    edge, count = OPTIONS.edgeitems, data.shape[0]
    if summarize and count > 2 * edge:
        rows = [*(_nested(data[i], indent + 1, summarize, cells) for i in range(edge)), "...",
                *(_nested(data[i], indent + 1, summarize, cells) for i in range(count - edge, count))]
    else:
        rows = [_nested(data[i], indent + 1, summarize, cells) for i in range(count)]
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(data: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows, which are the ones its widths are chosen from."""
    edge = OPTIONS.edgeitems
    if data.ndim == 0:
        return data
    if data.ndim == 1:
        return np.concatenate((data[:edge], data[-edge:])) if data.shape[0] > 2 * edge else data
    if not edge:
        return data[(slice(0, 0),) * data.ndim]
    rows = [*range(edge), *range(data.shape[0] - edge, data.shape[0])] if data.shape[0] > 2 * edge else range(data.shape[0])
    return np.stack([_summarized(data[i]) for i in rows])


def _body(data: np.ndarray, indent: int) -> str:
    if data.size == 0:
        return "[]"
    summarize = data.size > OPTIONS.threshold
    cells = _Cells(_summarized(data) if summarize else data)
    return _nested(data, indent, summarize, cells)


def _with_suffixes(text: str, suffixes: list[str], indent: int, newline_first: bool = False) -> str:
    """text, then its suffixes wrapped at the line width (a sparse tensor's first suffix on a line of its own)."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if newline_first or last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
            newline_first = False
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def format_tensor(t: Tensor) -> str:
    from ._dtype import get_default_dtype

    data, dtype = t._data, t.dtype
    if is_low_precision(data.dtype):  # bfloat16 and float8 (ml_dtypes): printed through float32, which holds them exactly
        data = data.astype(np.float32)
    default_float = get_default_dtype()
    prefix = "tensor("
    suffixes = []
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if dtype is not default_float:
            suffixes.append(f"dtype={dtype}")
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        if not _prints_without_dtype(dtype):
            suffixes.append(f"dtype={dtype}")
    return _with_suffixes(prefix + _body(data, len(prefix)), suffixes + _autograd_suffix(t), len(prefix))


def format_sparse(t: Tensor, arrays: tuple[tuple[str, np.ndarray], ...], nnz: int) -> str:
    """A sparse tensor as PyTorch prints one: its named arrays (indices and values for COO; the compressed
    layouts' index arrays and values), then size, nnz, dtype and layout (COO's on a line of their own)."""
    indent = len("tensor(")
    parts = []
    for name, data in arrays:
        prefix = f"{name}=tensor("
        body = _body(data, indent + len(prefix)) + (f", size={tuple(data.shape)}" if data.size == 0 else "")
        parts.append(prefix + body + ")")
    suffixes = [f"size={tuple(t._data.shape)}", f"nnz={nnz}"]
    if not _prints_without_dtype(t.dtype):
        suffixes.append(f"dtype={t.dtype}")
    suffixes += [f"layout={t.layout}", *_autograd_suffix(t)]
    newline_first = t.layout.name == "sparse_coo"
    return _with_suffixes("tensor(" + (",\n" + " " * indent).join(parts), suffixes, indent, newline_first)


def _prints_without_dtype(dtype: Any) -> bool:
    from ._dtype import bool_, get_default_dtype, int64

    default_float = get_default_dtype()
    return dtype in (default_float, _default_complex(default_float), int64, bool_)


def _autograd_suffix(t: Tensor) -> list[str]:
    from .autograd.forward_ad import tangent_of

    if t.grad_fn is not None:
        suffixes = [f"grad_fn=<{t.grad_fn.name()}>"]
    else:
        suffixes = ["requires_grad=True"] if t._requires_grad else []
    tangent = tangent_of(t)
    return suffixes if tangent is None else [*suffixes, f"tangent={tangent}"]


def _default_complex(default_float: Any) -> Any:
    from ._dtype import complex64, complex128, float64

    return complex128 if default_float is float64 else complex64
