"""glassgrad.utils, laid out like torch.utils."""

from . import data
