# Types for the elementwise ops when Cython compiles elementwise.py (the .py file is unchanged by this): the hot
# paths are C functions whose tensors' fields are read as struct members, and they hand their result to the table
# entry with a C call.
cimport cython

from glassgrad.autograd.graph cimport wrapped_number
from glassgrad.ops.table cimport Derivative
from glassgrad.tensor cimport TensorBase
cimport glassgrad._quiet as quiet


cdef _record(Derivative entry, out, inputs, attrs)

@cython.locals(first=TensorBase, second=TensorBase)
cdef _binary_with(Derivative entry, kernel, input, other, bint to_float, attrs)

@cython.locals(tensor=TensorBase)
cdef _float_result(name, Derivative entry, kernel, input)

@cython.locals(first=TensorBase, second=TensorBase)
cdef _fused_backward_with(Derivative entry, kernel, grad_output, output, attrs)

cdef _run_on(tuple call)

cdef _from_add_stub(TensorBase out)
