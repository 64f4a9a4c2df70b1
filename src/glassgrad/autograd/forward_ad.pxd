# The C layout of forward_ad.py's state when Cython compiles it (the .py file is unchanged by this): every
# recorded op reads `propagating`, as a struct member where it would otherwise be an attribute lookup.
cdef class _ForwardState:
    cdef public object enabled, generation, level, propagating, tangents
