# Types for the derivative table when Cython compiles table.py (the .py file is unchanged by this): a table entry
# and a built-in op's node are C structs, and recording reads tensors' fields directly.
cimport cython

from glassgrad.tensor cimport TensorBase
from glassgrad.autograd.graph cimport Node


cdef class Derivative:
    cdef public object name, inputs, formulas, needs, rows, _plans, node_class, complex, jvp, jvp_needs

    @cython.locals(result=TensorBase, t=TensorBase)
    cpdef _record(self, out, inputs, attrs)

    @cython.locals(node=Node, result=TensorBase)
    cpdef _record_node(self, result, inputs, attrs)


cdef class OpNode(Node):
    pass
