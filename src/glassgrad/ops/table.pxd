# Types for the derivative table when Cython compiles table.py (the .py file is unchanged by this): a table entry
# and a built-in op's node are C structs, and recording reads tensors' fields directly.
cimport cython

from glassgrad.tensor cimport TensorBase, wrap_array
cimport glassgrad._sites as sites
from glassgrad.autograd.graph cimport Node, SavedTensor


cdef class Derivative:
    cdef public object name, inputs, formulas, needs, rows, _plans, node_class, complex, jvp, jvp_needs

    @cython.locals(result=TensorBase, t=TensorBase, entry=Derivative)
    cpdef _record(self, out, inputs, attrs)

    @cython.locals(node=Node, result=TensorBase)
    cpdef _record_node(self, result, inputs, attrs)


@cython.locals(saved=SavedTensor)
cdef _save(name, tensor, is_output)


cdef class OpNode(Node):
    @cython.locals(saved_tensor=SavedTensor, derivative=Derivative)
    cpdef apply(self, grad_outputs, needed=*)
