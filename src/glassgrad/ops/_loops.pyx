# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Loops for steps of a layer that NumPy takes slowly, for float32 and float64 arrays.

- relu: NumPy's maximum against 0 runs at a third of the memory's speed on a 64x256 batch.
- tanh_backward, sigmoid_backward, threshold_backward at 0 (ReLU's): NumPy's routes make three or four passes over
  the gradient, and on 16 values each pass costs a call's half microsecond.
- transposed: ops/linalg.matrix_product computes a small-batch x @ W.T as W @ x.T, whose result must then be
  copied transposed (and, in a linear layer, have the bias added): NumPy's strided copy is twice as slow as a copy
  by tiles that stay in the cache, and the bias takes a pass of its own.

Each gives the NumPy route's result bit for bit: the same operations in the same order, each rounded to the
array's dtype (setup.py compiles this file without fused multiply-adds). ops/elementwise.py and ops/linalg.py
call them where they apply and keep NumPy's route on the pure path; tests/ops/test_loops.py compares the two.

The elementwise loops reach the arrays' memory through the buffer protocol, which also checks that each is
contiguous: a typed memoryview of a reshaped array costs more than the arithmetic on 16 values.
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport strcmp

import numpy as np

ctypedef fused real:
    float
    double

cdef enum Loop:
    RELU, TANH_BACKWARD, SIGMOID_BACKWARD, THRESHOLD_BACKWARD


# The constants are typed: Cython writes a literal 1 as the C double 1.0, which would compute in double precision.
cdef void _elementwise(Loop loop, const real* grad, const real* result, real* out, Py_ssize_t size) noexcept nogil:
    """One pass; `grad` is the input for RELU, which reads no `result`."""
    cdef Py_ssize_t i
    cdef real value, y, zero = 0, one = 1
    cdef Py_ssize_t nan_count = 0
    if loop == RELU:
        for i in range(size):
            value = grad[i]
            out[i] = zero if value < zero else value  # NaN and -0.0 stay, as np.maximum(0, x) keeps them
    elif loop == TANH_BACKWARD:
        for i in range(size):
            y = result[i]
            out[i] = (one - y * y) * grad[i]
    elif loop == SIGMOID_BACKWARD:
        for i in range(size):
            y = result[i]
            out[i] = (one - y) * y * grad[i]
    else:
        # The NumPy route's product with the mask of live units (not result <= 0, so NaN is live): a dead unit passes
        # grad * 0, -0.0 for a negative gradient; and where any product is NaN, every dead unit gets 0 after all.
        for i in range(size):
            value = grad[i] * <real>(not (result[i] <= zero))
            nan_count += value != value
            out[i] = value
        if nan_count:
            for i in range(size):
                if result[i] <= zero:
                    out[i] = zero


cdef int _itemsize(Py_buffer* view) noexcept:
    """4 for a native float32 buffer, 8 for float64, 0 for anything else."""
    if view.format == NULL:
        return 0
    if strcmp(view.format, b"f") == 0:
        return 4
    if strcmp(view.format, b"d") == 0:
        return 8
    return 0


cdef bint _acquire(array, Py_buffer* view, int flags):
    """The contiguous buffer of `array`; False (nothing held) where it has none."""
    try:
        PyObject_GetBuffer(array, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, TypeError, ValueError):
        return False
    return True


cdef bint _run(Loop loop, grad, result, out):
    """The loop over three arrays (`result` is `grad` for RELU), if they are contiguous, of one float dtype and one
    size; False where they are not, having done nothing."""
    cdef Py_buffer g, y, o
    cdef int itemsize
    cdef bint taken
    if not _acquire(grad, &g, 0):
        return False
    if not _acquire(result, &y, 0):
        PyBuffer_Release(&g)
        return False
    if not _acquire(out, &o, PyBUF_WRITABLE):
        PyBuffer_Release(&g)
        PyBuffer_Release(&y)
        return False
    itemsize = _itemsize(&o)
    taken = itemsize != 0 and _itemsize(&g) == itemsize and _itemsize(&y) == itemsize and g.len == o.len == y.len
    if taken:
        if itemsize == 4:
            _elementwise[float](loop, <float*>g.buf, <float*>y.buf, <float*>o.buf, o.len // 4)
        else:
            _elementwise[double](loop, <double*>g.buf, <double*>y.buf, <double*>o.buf, o.len // 8)
    PyBuffer_Release(&g)
    PyBuffer_Release(&y)
    PyBuffer_Release(&o)
    return taken


def relu(source):
    """np.maximum(0, source) as a new array, or None where the loop does not take `source` (it takes contiguous
    float32 and float64 arrays)."""
    out = np.empty_like(source)
    return out if _run(RELU, source, source, out) else None


def tanh_backward(grad, result, out) -> bool:
    """out = (1 - result**2) * grad, if the loop takes these arrays (False: it did nothing)."""
    return _run(TANH_BACKWARD, grad, result, out)


def sigmoid_backward(grad, result, out) -> bool:
    """out = (1 - result) * result * grad, if the loop takes these arrays (False: it did nothing)."""
    return _run(SIGMOID_BACKWARD, grad, result, out)


def threshold_backward(grad, result, out) -> bool:
    """out = grad where `result` is not <= 0 (threshold_backward at 0, ReLU's), as the NumPy route computes it, if the
    loop takes these arrays."""
    return _run(THRESHOLD_BACKWARD, grad, result, out)


cdef inline void _transpose(const real* source, real* out, Py_ssize_t rows, Py_ssize_t cols, const real* bias,
                            bint has_bias) noexcept nogil:
    """out (cols x rows) = source (rows x cols) transposed, plus bias[row] on each of its columns."""
    cdef Py_ssize_t i, j, row_tile, col_tile, row_end, col_end
    # Tiles of 16 x 16: a row of them, of the source and of the result, stays in the first-level cache.
    for row_tile in range(0, rows, 16):
        row_end = min(row_tile + 16, rows)
        for col_tile in range(0, cols, 16):
            col_end = min(col_tile + 16, cols)
            for i in range(col_tile, col_end):
                for j in range(row_tile, row_end):
                    if has_bias:
                        out[i * rows + j] = source[j * cols + i] + bias[j]
                    else:
                        out[i * rows + j] = source[j * cols + i]


cdef void _transposed(const real[:, ::1] source, real[:, ::1] out, const real[::1] bias) noexcept nogil:
    if bias is None:
        _transpose(&source[0, 0], &out[0, 0], source.shape[0], source.shape[1], NULL, False)
    else:
        _transpose(&source[0, 0], &out[0, 0], source.shape[0], source.shape[1], &bias[0], True)


def transposed(source, bias=None):
    """source.T (+ bias) as a new row-major array, for a row-major float32 or float64 matrix and bias of its rows."""
    out = np.empty((source.shape[1], source.shape[0]), source.dtype)
    if source.dtype.itemsize == 4:
        _transposed[float](source, out, bias)
    else:
        _transposed[double](source, out, bias)
    return out
