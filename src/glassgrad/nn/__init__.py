"""glassgrad.nn, laid out like torch.nn: modules, parameters, init, utils and functional."""

from .._missing import module_getattr as _module_getattr
from . import functional, grad, init, parallel, utils
from .modules import *
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
