# Types for the backward loop when Cython compiles engine.py (the .py file is unchanged by this): nodes and
# gradients are read as C structs.
cimport cython

from glassgrad.tensor cimport TensorBase
from glassgrad.autograd.graph cimport NodeBase
cimport glassgrad._quiet as quiet

cdef dict _anomaly_vars  # read per node


@cython.locals(node=NodeBase, child=NodeBase, grad=TensorBase, i=cython.Py_ssize_t)
cpdef _run(task, roots, root_grads, keep_graph, create_graph, capture, accumulate, freed_by)


@cython.locals(node=NodeBase)
cpdef dict _dependencies(list roots)


@cython.locals(total=TensorBase, addend=TensorBase)
cdef _sum(list buf, nr, grad, create_graph)
