"""Matrix products (and linalg.multi_dot). Formulas hand transposed views to BLAS rather than copying."""

from __future__ import annotations

import string
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtype, _native
from ..tensor import Tensor
from .elementwise import _TYPE_NAMES
from .linalg_decomp import cross as linalg_cross
from .linalg_decomp import det, inv, logdet, matrix_power, pinverse, slogdet
from .shape import expand, mT, reshape, squeeze, transposed, unsqueeze, view
from .table import derivative, formulas_record

MmBackward0 = derivative(
    "MmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: matmul_transposed(grad, mat2, transpose_b=True),
    mat2=lambda grad, self: matmul_transposed(self, grad, transpose_a=True),
    jvp=lambda self_t, mat2_t, self, mat2: matmul(self_t, mat2) + matmul(self, mat2_t),
)
DotBackward0 = derivative(
    "DotBackward0", ("self", "tensor"),
    self=lambda grad, tensor: grad * tensor,
    tensor=lambda grad, self: grad * self,
)
MvBackward0 = derivative(
    "MvBackward0", ("self", "vec"),
    self=lambda grad, vec: unsqueeze(grad, -1) * vec,
    vec=lambda grad, self: _matvec_back(self, grad),
)
VmBackward = derivative(
    "MmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: squeeze(matmul(unsqueeze(grad, -2), mT(mat2)), -2),
    mat2=lambda grad, self: unsqueeze(self, -1) * unsqueeze(grad, -2),
)
BmmBackward0 = derivative(
    "BmmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: matmul_transposed(grad, mat2, transpose_b=True),
    mat2=lambda grad, self: matmul_transposed(self, grad, transpose_a=True),
    jvp=lambda self_t, mat2_t, self, mat2: matmul(self_t, mat2) + matmul(self, mat2_t),
)


def matmul_transposed(a: Tensor, b: Tensor, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    """A formula's product with one operand's last two dims swapped: `mT(a) @ b` or `a @ mT(b)`.

    With no graph to record (backward without create_graph) the swap is NumPy's alone: BLAS reads the
    transposed operand in place and no view tensor is made for a value nobody else sees. With a graph it
    is the recorded mT view, so the product differentiates again.
    """
    if formulas_record():
        return matmul(mT(a) if transpose_a else a, mT(b) if transpose_b else b)
    x, y = a._data, b._data
    x, y = x.swapaxes(-1, -2) if transpose_a else x, y.swapaxes(-1, -2) if transpose_b else y
    if x.shape[-1] == 1:  # outer products (per-sample weight gradients under vmap): NumPy's matmul is far slower
        return Tensor._wrap(np.multiply(x, y))
    return Tensor._wrap(matrix_product(x, y) if x.ndim == 2 and y.ndim == 2 else product(x, y))


_F32 = np.dtype(np.float32)
_loops = _native.kernels("glassgrad.ops._loops")  # None on the pure path


def matrix_product(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """a @ b (+ bias, added as NumPy broadcasts it) for two matrices, as a new row-major array.

    OpenBLAS's float32 product of a row-major matrix with few rows and a transposed one (a linear layer's
    x @ W.T on a small batch, or a gradient times a weight's transpose) runs up to three times slower than
    the same product taken the other way round, W @ x.T, whose small result is then copied transposed
    (ops/_loops.pyx's tiled copy, which adds a bias row in the same pass). The region where that wins was
    measured (bench/gemm_orientation.py; see bench/RESULTS.md): 2 to 64 rows, at least twice as many columns
    and 2048 results in all, and an inner size of at least 32 and twice the rows. Outside it, and for every
    other dtype, NumPy's own call is as fast or faster.
    """
    m, k = a.shape
    n = b.shape[1]
    if (
        2 <= m <= 64 and n >= 2 * m and m * n >= 2048 and k >= 32 and k >= 2 * m
        and a.dtype is _F32 and b.dtype is _F32 and a.flags.c_contiguous and b.flags.f_contiguous
    ):
        swapped = np.matmul(b.T, a.T)
        if _loops is not None and (bias is None or (bias.ndim == 1 and bias.flags.c_contiguous)):
            return _loops.transposed(swapped, bias)
        out = np.ascontiguousarray(swapped.T)
    else:
        out = product(a, b)
    if bias is not None:
        np.add(out, bias, out=out)
    return out


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.matmul, except that bfloat16 and float8 operands are multiplied in float32 and the result rounded once,
    as PyTorch's CPU does (ml_dtypes' matmul would hand back float32)."""
    if a.dtype is not _F32 and _dtype.is_low_precision(a.dtype):  # the default dtype pays a test, not a call
        return np.matmul(_dtype.widened(a), _dtype.widened(b)).astype(a.dtype)
    return np.matmul(a, b)


def _matvec_back(matrix: Tensor, grad: Tensor) -> Tensor:
    return squeeze(matmul(mT(matrix), unsqueeze(grad, -1)), -1)


def _check_dtypes(a: Tensor, b: Tensor, op: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_dtype.CPP_NAMES[a.dtype]} != {_dtype.CPP_NAMES[b.dtype]}"
            if op == "mm"
            else f"expected both operands of {op} to have the same dtype, but got {a.dtype.name} and {b.dtype.name}"
        )


def matmul(input: Tensor, other: Tensor) -> Tensor:
    if isinstance(input, Tensor) and isinstance(other, Tensor):  # the hot path: two matrices that fit
        a, b = input._data, other._data
        if a.ndim == 2 and b.ndim == 2 and a.dtype is b.dtype and a.shape[1] == b.shape[0]:
            return MmBackward0.record(matrix_product(a, b), (input, other))
    for name, x in (("input", input), ("other", other)):
        if not isinstance(x, Tensor):
            raise TypeError(f"matmul(): argument '{name}' must be Tensor, not {type(x).__name__}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and {other.ndim}D"
        )
    _check_dtypes(input, other, "mm")
    a, b = input._data, other._data
    contracted = (a.shape[-1], b.shape[0] if b.ndim == 1 else b.shape[-2])
    if contracted[0] != contracted[1]:
        if a.ndim <= 2 and b.ndim <= 2:
            rows = a.shape[0] if a.ndim == 2 else 1
            cols = b.shape[1] if b.ndim == 2 else 1
            if a.ndim == 1 and b.ndim == 1:
                raise RuntimeError(
                    f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have the "
                    "same number of elements, but got "
                    f"{a.shape[0]} and {b.shape[0]} elements respectively"
                )
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and {contracted[1]}x{cols})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b.shape[0] if b.ndim > 2 else 1}, "
            f"{a.shape[-1]}] but got: [{b.shape[0] if b.ndim > 2 else 1}, {contracted[1]}]."
        )
    try:
        out = product(a, b)
    except ValueError as err:
        raise RuntimeError(f"matmul: batch dimensions do not broadcast: {list(a.shape)} @ {list(b.shape)} ({err})") from None
    if a.ndim == 1 and b.ndim == 1:
        return DotBackward0.record(np.asarray(out), (input, other))
    if b.ndim == 1:
        return MvBackward0.record(out, (input, other))
    if a.ndim == 1:
        return VmBackward.record(out, (input, other))
    if a.ndim == 2 and b.ndim == 2:
        return MmBackward0.record(out, (input, other))
    return BmmBackward0.record(out, (input, other))


def _mm_checked(input: Tensor, mat2: Tensor) -> tuple[Tensor, Tensor]:
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    return input, mat2


def _bmm_checked(batch1: Tensor, batch2: Tensor) -> tuple[Tensor, Tensor]:
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, {batch1.shape[2]}] but "
            f"got: [{batch2.shape[0]}, {batch2.shape[1]}]."
        )
    return batch1, batch2


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    return matmul(*_mm_checked(input, mat2))


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    return matmul(*_bmm_checked(input, mat2))


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors"
        )
    return matmul(input, tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    return matmul(input, vec)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    _check_dtypes(input, other, "vdot")
    if input.shape != other.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have the same "
            f"number of elements, but got {input.shape[0]} and {other.shape[0]} elements respectively"
        )
    return VdotBackward0.record(np.asarray(np.vdot(input._data, other._data)), (input, other))


VdotBackward0 = derivative(
    "VdotBackward0", ("self", "other"),
    self=lambda grad, other: grad * other,
    other=lambda grad, self: grad * self,
)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    for name, x in (("self", input), ("vec2", vec2)):
        if x.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {x.ndim}-D")
    return unsqueeze(input, -1) * vec2


# -- multi_dot: a chain of products in the cheapest order -----------------------------------------------
def _chain_order(dims: list[int]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i..j splits (dims[i] x dims[i + 1] is matrix i), the first
    of several equally cheap splits winning, as in PyTorch's matrix_chain_order."""
    n = len(dims) - 1
    cost: list[list[float]] = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chained(matrices: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_chained(matrices, split, i, k), _chained(matrices, split, k + 1, j))


def _chain_matrices(tensors: Sequence[Tensor]) -> tuple[list[Tensor], list[int]]:
    """The operands as matrices (a first vector as a row, a last one as a column) and the result's shape."""
    first, last = tensors[0], tensors[-1]
    shape: list[int] = []
    for which, x in (("first", first), ("last", last)):
        if x.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {x.ndim}D")
    for i, x in enumerate(tensors[1:-1], 1):
        if x.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {x.ndim}D")
    matrices = list(tensors)
    if first.ndim == 1:
        matrices[0] = unsqueeze(first, 0)
    else:
        shape.append(first.shape[0])
    if last.ndim == 1:
        matrices[-1] = unsqueeze(last, -1)
    else:
        shape.append(last.shape[1])
    for i in range(1, len(tensors)):
        if tensors[i].dtype is not first.dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {_TYPE_NAMES[first.dtype.name]} and "
                f"tensor {i} {_TYPE_NAMES[tensors[i].dtype.name]}"
            )
        if matrices[i - 1].shape[-1] != matrices[i].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} and "
                f"{list(tensors[i].shape)} cannot be multiplied"
            )
    return matrices, shape


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices, the first and last of which may be vectors, in PyTorch's order: mm nodes
    and one view to the result's shape."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    matrices, shape = _chain_matrices(tensors)
    if len(matrices) == 3:  # PyTorch's own rule for three, which breaks a tie the other way from the general one
        a, b, c, d = matrices[0].shape[0], matrices[1].shape[0], matrices[2].shape[0], matrices[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            product = mm(matrices[0], mm(matrices[1], matrices[2]))
        else:
            product = mm(mm(matrices[0], matrices[1]), matrices[2])
    else:
        dims = [x.shape[0] for x in matrices] + [matrices[-1].shape[1]]
        product = _chained(matrices, _chain_order(dims), 0, len(matrices) - 1)
    return view(product, shape)


# -- beta * input + alpha * (product) ----------------------------------------------------------------
def _scaled(grad: Tensor, factor: float) -> Tensor:
    return grad if factor == 1 else grad * factor


def _fused(
    entry: Any, input: Tensor, product: Tensor, factors: tuple[Tensor, Tensor], beta: float, alpha: float, **attrs: Any
) -> Tensor:
    """beta * input + alpha * product, recorded as one node; beta == 0 ignores input's values (NaN included).

    The product is the caller's fresh array, so the sum is made in it: the op allocates its output once.
    """
    try:
        shape = np.broadcast_shapes(input.shape, product.shape)
    except ValueError:
        shape = None
    if shape != product.shape:
        raise RuntimeError(
            f"The size of tensor a ({input.shape[-1] if input.ndim else 1}) must match the size of tensor b "
            f"({product.shape[-1]}) at non-singleton dimension {product.ndim - 1}"
        )
    _check_dtypes(input, factors[0], "mm")
    out = np.asarray(product._data)
    if alpha != 1:
        np.multiply(out, alpha, out=out, casting="unsafe")
    if beta != 0:
        np.add(out, beta * input._data if beta != 1 else input._data, out=out, casting="unsafe")
    return entry.record(out, (input, *factors), beta=beta, alpha=alpha, **attrs)


def _element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def _addmm_mat2_grad(grad: Tensor, mat1: Tensor, alpha: float, mat2_sym_strides: tuple[int, ...]) -> Tensor:
    """PyTorch's mm_mat2_backward: a column-major mat2 (a linear layer's weight.t()) gets a column-major gradient,
    (grad^T mat1)^T, so that TBackward0 hands the weight a row-major gradient it keeps without a copy."""
    if mat2_sym_strides[0] == 1 and mat2_sym_strides[1] == mat1.shape[1]:
        return _scaled(transposed(matmul_transposed(grad, mat1, transpose_a=True)), alpha)
    return _scaled(matmul_transposed(mat1, grad, transpose_a=True), alpha)


AddmmBackward0 = derivative(
    "AddmmBackward0", ("self", "mat1", "mat2"),
    self=lambda grad, beta: _scaled(grad, beta),
    mat1=lambda grad, mat2, alpha: _scaled(matmul_transposed(grad, mat2, transpose_b=True), alpha),
    mat2=_addmm_mat2_grad,
)
BaddbmmBackward0 = derivative(
    "BaddbmmBackward0", ("self", "batch1", "batch2"),
    self=lambda grad, beta: _scaled(grad, beta),
    batch1=lambda grad, batch2, alpha: _scaled(matmul_transposed(grad, batch2, transpose_b=True), alpha),
    batch2=lambda grad, batch1, alpha: _scaled(matmul_transposed(batch1, grad, transpose_a=True), alpha),
)
AddmvBackward0 = derivative(
    "AddmvBackward0", ("self", "mat", "vec"),
    self=lambda grad, beta: _scaled(grad, beta),
    mat=lambda grad, vec, alpha: _scaled(unsqueeze(grad, -1) * vec, alpha),
    vec=lambda grad, mat, alpha: _scaled(_matvec_back(mat, grad), alpha),
)


def _product(a: Tensor, b: Tensor) -> Tensor:
    """The product of an add*-op, computed without a graph: the fused node differentiates it."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return matmul(a, b)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    a, b, c = mat1._data, mat2._data, input._data
    if (  # the hot path, a linear layer's: two matrices that fit and a bias of the output's dtype
        beta == 1 and alpha == 1 and a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype is b.dtype
        and c.dtype is a.dtype and (c.shape == (b.shape[1],) or c.shape == (a.shape[0], b.shape[1]))
    ):
        out = matrix_product(a, b, c)
        return AddmmBackward0.record(out, (input, mat1, mat2), beta=1, alpha=1, mat2_sym_strides=_element_strides(b))
    mat1, mat2 = _mm_checked(mat1, mat2)
    return _fused(AddmmBackward0, input, _product(mat1, mat2), (mat1, mat2), beta, alpha, mat2_sym_strides=_element_strides(b))


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    return _fused(BaddbmmBackward0, input, _product(*_bmm_checked(batch1, batch2)), (batch1, batch2), beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    return _fused(AddmvBackward0, input, _product(mat, vec), (mat, vec), beta, alpha)


# -- einsum: pairwise contractions, each a node whose gradients are einsums again --------------------
def _diagonal_mask(labels: str, shape: tuple[int, ...]) -> np.ndarray:
    """True where every repeated label indexes the same position."""
    index = np.indices(shape, sparse=True)
    mask = np.ones(shape, dtype=bool)
    for p, label in enumerate(labels):
        first = labels.index(label)
        if first != p:
            mask = mask & (index[p] == index[first])
    return mask


def _einsum_grad(grad: Tensor, grad_labels: str, others: tuple[tuple[Tensor, str], ...], target: str, shape: tuple[int, ...]) -> Tensor:
    """The gradient of an einsum operand with labels `target`: the grad contracted with the other operands.

    Labels the operand sums away alone are broadcast back; repeated labels (diagonals) are placed on their diagonal.
    """
    unique = "".join(dict.fromkeys(target))
    available = set(grad_labels).union(*(labels for _, labels in others))
    present = "".join(label for label in unique if label in available)
    g = _contract(((grad, grad_labels), *others), present)
    for axis, label in enumerate(unique):
        if label not in present:
            g = unsqueeze(g, axis)
    for p, label in enumerate(target):
        if target.index(label) != p:
            g = unsqueeze(g, p)
    g = expand(g, shape)
    if len(unique) < len(target):
        g = g * Tensor._wrap(_diagonal_mask(target, shape).astype(g._data.dtype))
    return g


EinsumBackward0 = derivative(
    "EinsumBackward0", ("self", "other"),
    self=lambda grad, other, spec, self_shape: _einsum_grad(grad, spec[2], ((other, spec[1]),), spec[0], self_shape),
    other=lambda grad, self, spec, other_shape: _einsum_grad(grad, spec[2], ((self, spec[0]),), spec[1], other_shape),
)
UnaryEinsumBackward0 = derivative(
    "EinsumBackward0", ("self",), self=lambda grad, spec, self_shape: _einsum_grad(grad, spec[2], (), spec[0], self_shape)
)


def _contract(operands: Sequence[tuple[Tensor, str]], out: str) -> Tensor:
    """One einsum of one or two operands, whose labels carry no ellipsis."""
    (a, la), *rest = operands
    if not rest:
        if la == out:
            return a
        spec = (la, "", out)
        data = np.einsum(f"{la}->{out}", _dtype.widened(a._data)).astype(a._data.dtype, copy=False)
        return UnaryEinsumBackward0.record(data, (a,), spec=spec, self_shape=a.shape)
    (b, lb), = rest
    data = np.einsum(f"{la},{lb}->{out}", _dtype.widened(a._data), _dtype.widened(b._data), optimize=True)
    data = np.asarray(data).astype(a._data.dtype, copy=False)  # bfloat16 rounded once, at the end
    return EinsumBackward0.record(data, (a, b), spec=(la, lb, out), self_shape=a.shape, other_shape=b.shape)


def _einsum_labels(equation: str, operands: Sequence[Tensor]) -> tuple[list[str], str]:
    """Each operand's labels and the output's, with every ellipsis spelled out in spare letters."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        more = "more" if len(operands) > len(terms) else "fewer"
        raise RuntimeError(f"einsum(): {more} operands were provided than specified in the equation")
    for c in equation.replace("...", "").replace(",", "").replace("->", ""):
        if c not in string.ascii_letters:
            raise RuntimeError(f"einsum(): invalid subscript given at index {equation.index(c)} in the equation string, subscripts must be in [a-zA-Z]")
    spare = [c for c in string.ascii_letters if c not in equation]
    widths = [x.ndim - len(t) + 3 for t, x in zip(terms, operands, strict=True) if "..." in t]
    ellipsis = "".join(spare[: max(widths, default=0)])
    labels = []
    for i, (term, x) in enumerate(zip(terms, operands, strict=True)):
        before, dots, after = term.partition("...")
        width = x.ndim - len(before) - len(after)
        if (dots and width < 0) or (not dots and width != 0):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(before) + len(after)}) does not match the number "
                f"of dimensions ({x.ndim}) for operand {i}{'' if dots else ' and no ellipsis was given'}"
            )
        labels.append(before + (ellipsis[len(ellipsis) - width :] if dots else "") + after)
    if arrow:
        output = rhs.replace("...", ellipsis)
    else:
        named = "".join(terms).replace("...", "")
        output = ellipsis + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    for c in output:
        if output.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        if not any(c in term for term in labels):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
    return labels, output


def _broadcast_labels(operands: Sequence[Tensor], labels: list[str]) -> list[Tensor]:
    """Size-1 dimensions broadcast against their label's size elsewhere, as in PyTorch."""
    sizes: dict[str, int] = {}
    for i, (x, term) in enumerate(zip(operands, labels, strict=True)):
        for label, size in zip(term, x.shape, strict=True):
            seen = sizes.setdefault(label, size)
            if seen != size and 1 not in (seen, size):
                raise RuntimeError(
                    f"einsum(): subscript {label} has size {size} for operand {i} which does not broadcast with "
                    f"previously seen size {seen}"
                )
            sizes[label] = size if seen == 1 else seen
    return [
        expand(x, tuple(sizes[label] for label in term)) if any(s != sizes[label] for label, s in zip(term, x.shape, strict=True)) else x
        for x, term in zip(operands, labels, strict=True)
    ]


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for x in operands[1:]:
        _check_dtypes(operands[0], x, "einsum")
    labels, output = _einsum_labels(equation, operands)
    tensors = _broadcast_labels(operands, labels)
    result, current = tensors[0], labels[0]
    if len(tensors) == 1:
        return _contract(((result, current),), output)
    for k in range(1, len(tensors)):  # left to right, as PyTorch contracts without opt_einsum
        later = set(output).union(*labels[k + 1 :])
        keep = output if k == len(tensors) - 1 else "".join(dict.fromkeys(c for c in current + labels[k] if c in later))
        result, current = _contract(((result, current), (tensors[k], labels[k])), keep), keep
    return result


def tensordot(a: Tensor, b: Tensor, dims: int | Sequence[Sequence[int]] = 2) -> Tensor:
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    letters = iter(string.ascii_letters)
    la = [next(letters) for _ in range(a.ndim)]
    lb = [next(letters) for _ in range(b.ndim)]
    for da, db in zip(dims_a, dims_b, strict=True):
        da, db = a._wrap_dim(da), b._wrap_dim(db)
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} and second has size "
                f"{b.shape[db]} in dim {db}"
            )
        lb[db] = la[da]
    output = "".join(c for c in la + lb if (la + lb).count(c) == 1)
    return einsum(f"{''.join(la)},{''.join(lb)}->{output}", a, b)


def kron(input: Tensor, other: Tensor) -> Tensor:
    n = max(input.ndim, other.ndim)
    a_shape = (1,) * (n - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (n - other.ndim) + tuple(other.shape)
    a = reshape(input, tuple(s for d in a_shape for s in (d, 1)))
    b = reshape(other, tuple(s for d in b_shape for s in (1, d)))
    return reshape(a * b, tuple(x * y for x, y in zip(a_shape, b_shape, strict=True)))


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or "
            "simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross "
            "in a future release.", UserWarning, stacklevel=2,
        )
        shape = np.broadcast_shapes(input.shape, other.shape)
        dim = next((d for d, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "mv": mv, "vdot": vdot, "outer": outer, "ger": outer,
    "addmm": addmm, "baddbmm": baddbmm, "addmv": addmv, "kron": kron, "cross": cross, "det": det, "inverse": inv,
    "pinverse": pinverse, "slogdet": slogdet, "logdet": logdet, "matrix_power": matrix_power,
}
FUNCTIONS = {**_BOTH, "einsum": einsum, "tensordot": tensordot}
METHODS = dict(_BOTH)
ALSO = {"glassgrad.linalg": {"multi_dot": multi_dot, "matmul": matmul}}
INPLACE = ("addmm", "baddbmm", "addmv")
