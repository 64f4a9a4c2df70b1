"""glassgrad.nn, laid out like torch.nn: modules, parameters, init, utils and functional."""

from . import functional, init, utils
from .modules import (
    Bilinear,
    Flatten,
    Identity,
    Linear,
    Module,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
    Unflatten,
)
from .parameter import Buffer, Parameter
