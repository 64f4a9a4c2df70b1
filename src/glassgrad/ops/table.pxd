# Types for the derivative table when Cython compiles table.py (the .py file is unchanged by this): a table entry
# and a built-in op's node are C structs, and recording reads tensors' fields directly.
cimport cython

from glassgrad.tensor cimport TensorBase, wrap_array
cimport glassgrad._sites as sites
from glassgrad.autograd.graph cimport NodeBase, SavedTensor
from glassgrad.autograd.forward_ad cimport _ForwardState
from glassgrad.autograd.grad_mode cimport _Usage

cdef _ForwardState forward_state  # read by every recorded op
cdef _Usage mode_usage  # read by every recorded op


cdef class Derivative:
    cdef public object name, inputs, formulas, needs, rows, shared, _plans, node_class, complex, jvp, jvp_needs

    @cython.locals(result=TensorBase)
    cpdef _record(self, out, inputs, attrs)

    @cython.locals(result=TensorBase)
    cpdef _record_real(self, out, inputs, attrs)

    @cython.locals(t=TensorBase, entry=Derivative)
    cdef _join_graph(self, result, inputs, attrs, bint is_complex)

    @cython.locals(node=NodeBase, node_class=type, result=TensorBase, first=TensorBase, second=TensorBase)
    cpdef _record_node(self, result, inputs, attrs)


@cython.locals(saved=SavedTensor)
cdef _save(name, tensor, is_output)


cdef class OpNode(NodeBase):
    @cython.locals(derivative=Derivative, i=cython.Py_ssize_t)
    cpdef apply(self, grad_outputs, needed=*)


@cython.locals(saved_tensor=SavedTensor)
cdef _unpacked(value, NodeBase node)
