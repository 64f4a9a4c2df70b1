"""The glass on real PyTorch counts torch.func's transform calls as glassgrad counts its own.

See autograd/transform_calls.py for why the watches need them. torch's transforms cannot be marked at
their definition, so while the glass is on, the public names are wrapped. That is enough: a transform built
from others (hessian from jacfwd and jacrev) calls them inside the outermost call, and a program imports
them (`from torch.func import grad`) after the glass is installed.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from types import ModuleType

from ..autograd.transform_calls import TransformCalls

# torch's transforms that differentiate, by submodule. vmap runs no backward of its own (and warnings it gives
# must keep pointing at the caller's line): the transforms it maps are counted when they run.
TRANSFORMS: dict[str, tuple[str, ...]] = {
    "func": ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"),
    "autograd.functional": ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"),
}


def install(torch: ModuleType, calls: TransformCalls) -> list[Callable[[], None]]:
    """Wrap torch's transforms to count into `calls`; returns the steps that put them back."""
    undo: list[Callable[[], None]] = []
    for path, names in TRANSFORMS.items():
        module = importlib.import_module(f"{torch.__name__}.{path}")
        for name in names:
            original = vars(module)[name]
            setattr(module, name, calls.wrap(original))
            undo.append(functools.partial(setattr, module, name, original))
    return undo
