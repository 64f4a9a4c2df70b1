# Types for the error-state switch when Cython compiles _quiet.py (the .py file is unchanged by this): the hot
# kernels of the elementwise ops and the engine's gradient sums enter the quiet context with a C call.

cpdef run_kernel(tuple call)
