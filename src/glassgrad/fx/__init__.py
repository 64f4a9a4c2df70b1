"""torch.fx: glassgrad traces no programs into graphs (it records autograd graphs as they run, which is
another thing). Libraries name GraphModule in annotations and test `isinstance(x, Proxy)`, False here."""

from .._missing import module_getattr as _module_getattr
from .._missing import unimplemented

GraphModule = unimplemented(__name__ + ".GraphModule")
Graph = unimplemented(__name__ + ".Graph")
Proxy = unimplemented(__name__ + ".Proxy")
symbolic_trace = unimplemented(__name__ + ".symbolic_trace")

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
