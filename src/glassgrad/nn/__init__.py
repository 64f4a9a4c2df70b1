"""glassgrad.nn, laid out like torch.nn: modules, parameters, init, utils and functional."""

from . import functional, init, utils
from .modules import *
from .parameter import Buffer, Parameter
