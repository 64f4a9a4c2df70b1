"""glassgrad.nn.modules: each layer at PyTorch's class path (glassgrad.nn.modules.linear.Linear, ...)."""

from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .module import Module
