"""glassgrad.func: torch.func's function transforms on glassgrad's reverse-mode engine.

grad, grad_and_value, vjp, jacrev and hessian are exact; vmap batches each op by its batching rule, or runs
an op without one once per batch element (see _vmap.py); jvp and jacfwd need forward-mode AD, which glassgrad
does not have yet, and raise NotImplementedError saying so.
"""

from __future__ import annotations

from .._missing import module_getattr as _module_getattr
from ._eager import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._functional_call import functional_call, stack_module_state
from ._vmap import VmapLoopWarning, vmap

__all__ = [
    "VmapLoopWarning",
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]

__getattr__ = _module_getattr(__name__)  # a torch.func name glassgrad lacks: say so, and where it was used
