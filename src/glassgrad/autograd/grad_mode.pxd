# The C layout of grad_mode.py's process-wide switch when Cython compiles it (the .py file is unchanged by this):
# every new tensor reads it, as a struct member where it would otherwise be an attribute lookup.
cdef class _Usage:
    cdef public object inference
    cdef public set grad_disabled
