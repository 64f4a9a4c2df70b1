# The C layout of graph.py's classes when Cython compiles it (the .py file is unchanged by this): compiled code
# reads and writes these fields as struct members; `public` gives Python code (the diagnostics, custom Functions)
# the same attributes as the pure-Python path.
cimport cython

from glassgrad.tensor cimport TensorBase, VersionCounter, wrap_array


cdef class SavedTensor

cdef dict _steps_vars, _seams_vars, _anomaly_vars  # read by every new node
cdef object _UNSAVED_WRAPPED_NUMBER  # read by every saved tensor


cdef class NodeBase:
    cdef object __weakref__
    cdef public object _freed_by, _hooks, _input_meta, _position, _pre_hooks, _retained_by, _retains_grad
    cdef public object _saved, _seq_nr, _step, _tensor_pre_hooks, next_functions

    cdef _begin(self, inputs, position)

    @cython.locals(t=TensorBase)
    cdef _connect(self, inputs, position)

    @cython.locals(saved=SavedTensor)
    cpdef release(self, freed_by)


cdef _edge_to_input(TensorBase t, position)

cdef _gradient_meta(TensorBase t)

@cython.locals(node=NodeBase, saved=SavedTensor, total=object)
cpdef live_saved_bytes(nodes)

cpdef grad_accumulator(TensorBase leaf, position)

@cython.locals(number=TensorBase)
cpdef wrapped_number(array)


cdef class AccumulateGrad(NodeBase):
    cdef public object variable


cdef class SavedTensor:
    cdef object __weakref__
    cdef public object _data, _history, _packed, _tensor, _unpack_hook, dtype, is_leaf, is_output, name, output_nr, released
    cdef public object requires_grad, saved_version, shape, tangent
    cdef public VersionCounter version_counter

    @cython.locals(tensor=TensorBase, counter=VersionCounter)
    cdef _capture(self, name, tensor, is_output)

    @cython.locals(tensor=TensorBase)
    cpdef unpack(self, node=*)

    cpdef release(self)
