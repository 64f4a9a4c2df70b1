"""Transform calls (func.grad, func.vjp, autograd.functional.jacobian, ...) counted for the watches.

A transform runs backward passes of its own: jacrev one per row of the Jacobian, hessian those of two
nested jacrevs, vjp keeps its graph (retain_graph=True) so that vjp_fn can be called again. Counted as the
user's, each of those backwards would end an iteration and each retain would be the user's mistake, so the
watches would report a hessian as a graph growing every step and every vjp as a useless retain_graph.

So a transform call, and a call of the function it hands back (grad(f), vjp's vjp_fn), counts its nesting
depth and numbers the outermost calls; the watches take one outermost call as one step, whatever number of
backwards it runs, and leave the retains made inside it to the transform, which frees its graphs when it
returns (or, for vjp, when vjp_fn goes). glassgrad's transforms count into CALLS; the glass on real PyTorch
wraps torch.func's the same way (diagnostics/transforms.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import FunctionType, MethodType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class TransformCalls:
    """How deep the program is inside transform calls, and how many outermost calls it has made."""

    def __init__(self, finished: Callable[[Any], None] | None = None) -> None:
        self.depth = 0
        self.serial = 0
        self.finished = finished  # called with what each outermost call returns

    def wrap(self, transform: F) -> F:
        @functools.wraps(transform)
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.depth == 0:
                self.serial += 1
            self.depth += 1
            try:
                result = transform(*args, **kwargs)
            finally:
                self.depth -= 1
            if self.depth == 0 and self.finished is not None:
                self.finished(result)
            return self._wrap_functions(result)

        return call  # type: ignore[return-value]

    def _wrap_functions(self, result: Any) -> Any:
        """What a transform hands back, with the functions in it (grad(f), vjp's vjp_fn) counted as transforms too."""
        if isinstance(result, FunctionType | MethodType | functools.partial):
            return self.wrap(result)
        if type(result) is tuple:
            return tuple(self._wrap_functions(item) for item in result)
        return result


CALLS = TransformCalls()  # glassgrad's own transforms


def transform(function: F) -> F:
    """Mark a public transform of glassgrad's: its calls are counted into CALLS."""
    return CALLS.wrap(function)
