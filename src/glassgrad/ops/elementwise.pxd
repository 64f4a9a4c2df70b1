# Types for the elementwise ops when Cython compiles elementwise.py (the .py file is unchanged by this): the hot
# paths hand their result to the table entry with a C call.
from glassgrad.ops.table cimport Derivative


cdef _record(Derivative entry, out, inputs, attrs)
