# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""One-pass optimizer updates for contiguous float32 and float64 parameters.

The NumPy route of an update rule (sgd.py, adam.py) makes a pass over the parameter, or over a state
buffer, for every arithmetic step: Adam's takes thirteen, each a separate read and write of the
whole array. These loops take one, doing the same arithmetic in the same order element by element,
each step rounded to the array's dtype as NumPy rounds it (setup.py compiles this file without
contracting a * b + c into one fused multiply-add), so the two routes agree bit for bit:
tests/optim/test_fused_updates.py checks that they do.

Hyperparameters arrive as Python floats; NumPy casts a Python float to the array's dtype before it
multiplies, and so do these loops. Anything a rule computes from them in Python first (1 - beta,
a bias correction) is computed by the caller, in double precision, exactly as the NumPy route does.

Like ops/_loops.pyx, this file is not a .py file run as it is: a loop over elements is only fast
compiled. Where it is not built, or under GLASSGRAD_PURE=1, the NumPy routes run.
"""

from libc.math cimport sqrt, sqrtf

ctypedef fused real:
    float
    double


cdef inline real _square_root(real value) noexcept nogil:
    if real is float:
        return sqrtf(value)
    else:
        return sqrt(value)


cdef inline real _maximum(real a, real b) noexcept nogil:
    """np.maximum: NaN if either is NaN. (A bitwise or: `or` would branch, and keep the loop from vectorizing.)"""
    return a if (a > b) | (a != a) else b


cdef enum Decay:
    NO_DECAY, L2, DECOUPLED  # weight decay: none, added to the gradient, or applied to the parameter (AdamW)


# Each loop is an inline function whose flags the callers below pass as constants, so the compiler makes one
# branch-free loop per case: a store under a condition keeps a loop from being vectorized (Adam's took four times
# as long written with its flags inside the loop).

cdef inline void _sgd_loop(real* param, const real* grad, real* buffer, Py_ssize_t size, Decay decay,
                           bint has_buffer, bint update_buffer, bint nesterov, real rate, real momentum, real kept,
                           real weight_decay) noexcept nogil:
    cdef Py_ssize_t i
    cdef real g, b
    for i in range(size):
        g = grad[i]
        if decay == L2:
            g = g + weight_decay * param[i]
        if has_buffer:
            # the step that creates the buffer takes the gradient as it is
            b = buffer[i] * momentum + g * kept if update_buffer else g  # dampening 0: times 1, exact
            buffer[i] = b
            g = g + b * momentum if nesterov else b
        param[i] = param[i] - g * rate


cdef inline void _adam_loop(real* param, const real* grad, real* exp_avg, real* exp_avg_sq, real* max_exp_avg_sq,
                            Py_ssize_t size, Decay decay, bint amsgrad, bint near_start, real lerp_scale,
                            real decay2, real gain2, real correction, real epsilon, real step_size,
                            real weight_decay) noexcept nogil:
    cdef Py_ssize_t i
    cdef real p, g, m, v, second
    for i in range(size):
        p = param[i]
        g = grad[i]
        if decay == L2:
            g = g + weight_decay * p
        elif decay == DECOUPLED:
            p = p * weight_decay  # weight_decay holds 1 - lr * decay here
        m = exp_avg[i]
        # ATen's two-sided lerp (optimizer.lerp_): m + (g - m) w, or g - (g - m)(1 - w) = g + (g - m)(w - 1)
        m = (m if near_start else g) + (g - m) * lerp_scale
        exp_avg[i] = m
        v = exp_avg_sq[i] * decay2 + g * gain2 * g
        exp_avg_sq[i] = v
        second = v
        if amsgrad:
            second = _maximum(max_exp_avg_sq[i], v)
            max_exp_avg_sq[i] = second
        param[i] = p - m / (_square_root(second) / correction + epsilon) * step_size


cdef inline void _sgd_decayed(Decay decay, real* p, const real* g, real* b, Py_ssize_t size, bint has_buffer,
                              bint update_buffer, bint nesterov, real rate, real mom, real kept,
                              real wd) noexcept nogil:
    """The loop for one kind of decay, its flags passed on as constants."""
    if not has_buffer:
        _sgd_loop(p, g, NULL, size, decay, False, False, False, rate, mom, kept, wd)
    elif not update_buffer:  # once per buffer: no need for a loop of its own
        _sgd_loop(p, g, b, size, decay, True, False, nesterov, rate, mom, kept, wd)
    elif nesterov:
        _sgd_loop(p, g, b, size, decay, True, True, True, rate, mom, kept, wd)
    else:
        _sgd_loop(p, g, b, size, decay, True, True, False, rate, mom, kept, wd)


cdef void _sgd(real[::1] param, const real[::1] grad, real[::1] buffer, bint has_buffer, bint update_buffer,
               double lr, double momentum, double dampening, bint nesterov, double weight_decay) noexcept nogil:
    cdef real rate = <real>lr, mom = <real>momentum, kept = <real>(1 - dampening), wd = <real>weight_decay
    if weight_decay == 0:
        _sgd_decayed(NO_DECAY, &param[0], &grad[0], &buffer[0], param.shape[0], has_buffer, update_buffer, nesterov,
                     rate, mom, kept, wd)
    else:
        _sgd_decayed(L2, &param[0], &grad[0], &buffer[0], param.shape[0], has_buffer, update_buffer, nesterov,
                     rate, mom, kept, wd)


cdef inline void _adam_decayed(Decay decay, real* p, const real* g, real* m, real* v, real* most, Py_ssize_t n,
                               bint amsgrad, bint near_start, real lerp_scale, real decay2, real gain2,
                               real correction, real epsilon, real size, real wd) noexcept nogil:
    """The loop for one kind of decay, amsgrad passed on as a constant."""
    if amsgrad:
        _adam_loop(p, g, m, v, most, n, decay, True, near_start, lerp_scale, decay2, gain2, correction, epsilon, size, wd)
    else:
        _adam_loop(p, g, m, v, NULL, n, decay, False, near_start, lerp_scale, decay2, gain2, correction, epsilon, size, wd)


cdef void _adam(real[::1] param, const real[::1] grad, real[::1] exp_avg, real[::1] exp_avg_sq,
                real[::1] max_exp_avg_sq, bint amsgrad, double beta1, double beta2, double step_size,
                double bias_correction2_sqrt, double eps, double weight_decay, bint decoupled,
                double lr) noexcept nogil:
    cdef double weight = 1 - beta1
    cdef bint near_start = weight < 0.5
    cdef real lerp_scale = <real>weight if near_start else -<real>(1 - weight)
    cdef real decay2 = <real>beta2, gain2 = <real>(1 - beta2)
    cdef real correction = <real>bias_correction2_sqrt, epsilon = <real>eps, size = <real>step_size
    cdef real* p = &param[0]
    cdef const real* g = &grad[0]
    cdef real* m = &exp_avg[0]
    cdef real* v = &exp_avg_sq[0]
    cdef real* most = &max_exp_avg_sq[0]
    cdef Py_ssize_t n = param.shape[0]
    if weight_decay == 0:
        _adam_decayed(NO_DECAY, p, g, m, v, most, n, amsgrad, near_start, lerp_scale, decay2, gain2, correction,
                      epsilon, size, 0)
    elif decoupled:  # the loop multiplies the parameter by 1 - lr * weight_decay
        _adam_decayed(DECOUPLED, p, g, m, v, most, n, amsgrad, near_start, lerp_scale, decay2, gain2, correction,
                      epsilon, size, <real>(1 - lr * weight_decay))
    else:
        _adam_decayed(L2, p, g, m, v, most, n, amsgrad, near_start, lerp_scale, decay2, gain2, correction, epsilon,
                      size, <real>weight_decay)


def sgd(param, grad, buffer, bint update_buffer, double lr, double momentum, double dampening, bint nesterov,
        double weight_decay) -> None:
    """param -= lr * (grad with L2 weight decay added, or the momentum buffer updated with it, Nesterov's
    look-ahead on it).

    Every array 1-D, contiguous and of one dtype; buffer None without momentum; update_buffer False on
    the step that creates the buffer (the loop fills it with the gradient).
    """
    has_buffer = buffer is not None
    if param.dtype.itemsize == 4:
        _sgd[float](param, grad, buffer if has_buffer else param, has_buffer, update_buffer, lr, momentum,
                    dampening, nesterov, weight_decay)
    else:
        _sgd[double](param, grad, buffer if has_buffer else param, has_buffer, update_buffer, lr, momentum,
                     dampening, nesterov, weight_decay)


def adam(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, double beta1, double beta2, double step_size,
         double bias_correction2_sqrt, double eps, double weight_decay, bint decoupled, double lr) -> None:
    """Adam's weight decay (added to the gradient, or AdamW's decoupled one), moments and step, in place:
    PyTorch's lerp_, mul_/addcmul_, and addcdiv_ by sqrt(v) / bias_correction2_sqrt + eps, with amsgrad's running
    maximum when max_exp_avg_sq is given.

    Every array 1-D, contiguous and of one dtype.
    """
    amsgrad = max_exp_avg_sq is not None
    if param.dtype.itemsize == 4:
        _adam[float](param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq if amsgrad else exp_avg_sq, amsgrad, beta1,
                     beta2, step_size, bias_correction2_sqrt, eps, weight_decay, decoupled, lr)
    else:
        _adam[double](param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq if amsgrad else exp_avg_sq, amsgrad, beta1,
                      beta2, step_size, bias_correction2_sqrt, eps, weight_decay, decoupled, lr)
