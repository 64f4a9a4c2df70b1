# The C layout of tensor.py's classes when Cython compiles it (the .py file is unchanged by this): compiled code
# reads and writes these fields as struct members; `public` gives Python code the same attributes as the pure path.
cimport cython

from glassgrad.autograd.grad_mode cimport _Usage

cdef _Usage mode_usage  # read by every new tensor

cdef class VersionCounter:
    cdef public object modified_at, value

cdef class TensorBase:
    cdef object __weakref__
    cdef public object _accumulator, _backward_hooks, _base, _counter, _data, _grad, _grad_dtype, _is_inference
    cdef public object _output_nr, _post_accumulate_hooks, _requires_grad, _retains_grad, _view_chain, _views, grad_fn
    cpdef _init(self, array)
    cpdef _with_history(self, node, output_nr)
    cpdef _shared_counter(self)

@cython.locals(t=TensorBase)
cpdef wrap_array(array)
