# Types for the creation sites when Cython compiles _sites.py (the .py file is unchanged by this): recording a node
# asks for its site with a C call.

cpdef caller_position(inside=*)
