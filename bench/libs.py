"""One small adapter per library: the ops the workloads use and the library's own way to differentiate.

The workloads in workloads.py are written once against `Ops`; an adapter only says how its
library spells each op, how it makes tensors, and how it gets gradients (tape libraries read
`.grad` after `backward()`, HIPS autograd is functional). Libraries are imported lazily, inside
the benchmark process, after the thread environment variables are set.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

LIBRARY_NAMES = ("glassgrad", "torch", "autograd", "mygrad")
# glassgrad's two engines: the compiled core when its extension imports, the pure-Python one otherwise or with
# GLASSGRAD_PURE=1 set before import. `glassgrad._compiled` says which one a process got.
PURE_VARIABLE = "GLASSGRAD_PURE"


def glassgrad_path(module: Any) -> str:
    """"compiled" or "pure": the engine this process's glassgrad runs on."""
    return "compiled" if getattr(module, "_compiled", False) else "pure"


class NotSupported(Exception):
    """The library has no way to run this workload; the row says n/a with this reason."""


@dataclass(frozen=True, slots=True)
class Ops:
    """The functions the workloads call; arithmetic, `@` and indexing are the tensors' own operators."""

    exp: Callable[[Any], Any]
    sin: Callable[[Any], Any]
    tanh: Callable[[Any], Any]
    log: Callable[[Any], Any]
    relu: Callable[[Any], Any]
    sum: Callable[..., Any]  # sum(x) or sum(x, axis)
    rowmax: Callable[[Any], Any]  # max over axis 1, keeping the axis


LossFn = Callable[[Ops, Sequence[Any], Sequence[Any]], Any]  # loss(ops, params, data) -> scalar tensor
ValueAndGrad = Callable[[Sequence[Any], Sequence[Any]], tuple[Any, list[Any]]]
Hvp = Callable[[Sequence[Any], Sequence[Any], Any], Any]  # hvp(params, data, v): d/dparams[0] <grad, v>


class Library(ABC):
    """What every library offers the workloads."""

    name: str
    version: str
    ops: Ops

    @abstractmethod
    def set_threads(self, threads: int) -> None:
        """Intra-op threads beyond the BLAS environment variables (only PyTorch has a knob)."""

    @abstractmethod
    def leaf(self, array: np.ndarray) -> Any:
        """A trainable tensor holding its own copy of `array` (SGD updates it in place)."""

    @abstractmethod
    def data(self, array: np.ndarray) -> Any:
        """A constant: float arrays become tensors without grad, integer arrays become index arrays."""

    @abstractmethod
    def value_and_grad(self, loss_fn: LossFn) -> ValueAndGrad:
        """A function (params, data) -> (loss, grads): zero_grad, forward, backward."""

    @abstractmethod
    def sgd_(self, params: Sequence[Any], grads: Sequence[Any], lr: float) -> None:
        """p -= lr * g for each parameter, in place and outside the graph."""

    @abstractmethod
    def hvp(self, loss_fn: LossFn) -> Hvp:
        """Hessian-vector product with respect to params[0]: grad, dot with v, grad again."""

    @abstractmethod
    def zero_grad(self, params: Sequence[Any]) -> None:
        """Drop gradients the library keeps on its tensors."""

    def torch_like(self) -> tuple[Any, Any]:
        """(module, float dtype) for the user-path workloads, which are PyTorch programs (nn, F, optim)."""
        raise NotSupported(f"{self.name} has no nn, nn.functional or optim: the user-path rows are PyTorch programs")

    @abstractmethod
    def to_numpy(self, value: Any) -> np.ndarray:
        """A result as a NumPy array (dtype kept, so a float64 detour shows)."""


class TapeLibrary(Library):
    """Libraries that record a tape and leave gradients in `.grad` after `backward()`."""

    def value_and_grad(self, loss_fn: LossFn) -> ValueAndGrad:
        ops, zero_grad = self.ops, self.zero_grad

        def run(params: Sequence[Any], data: Sequence[Any]) -> tuple[Any, list[Any]]:
            zero_grad(params)
            loss = loss_fn(ops, params, data)
            loss.backward()
            return loss, [p.grad for p in params]

        return run


class TorchLike(TapeLibrary):
    """PyTorch and glassgrad: the same code, since glassgrad is imported as torch."""

    def __init__(self, module_name: str, dtype_name: str = "float32") -> None:
        self.module = importlib.import_module(module_name)
        label = f"{module_name} {glassgrad_path(self.module)}" if module_name == "glassgrad" else module_name
        self.name = label if dtype_name == "float32" else f"{label} {dtype_name}"
        self.version = self.module.__version__
        self.dtype = getattr(self.module, dtype_name)
        m = self.module
        self.ops = Ops(
            exp=m.exp,
            sin=m.sin,
            tanh=m.tanh,
            log=m.log,
            relu=m.relu,
            sum=m.sum,
            rowmax=lambda x: m.max(x, 1, keepdim=True).values,
        )

    def set_threads(self, threads: int) -> None:
        if hasattr(self.module, "set_num_threads"):  # glassgrad relies on the BLAS environment variables
            self.module.set_num_threads(threads)

    def leaf(self, array: np.ndarray) -> Any:
        return self.module.tensor(array.copy(), dtype=self.dtype, requires_grad=True)

    def data(self, array: np.ndarray) -> Any:
        if array.dtype.kind in "iu":
            return self.module.from_numpy(array.astype(np.int64))
        return self.module.tensor(array.copy(), dtype=self.dtype)

    def sgd_(self, params: Sequence[Any], grads: Sequence[Any], lr: float) -> None:
        with self.module.no_grad():
            for p, g in zip(params, grads, strict=True):
                p -= lr * g

    def hvp(self, loss_fn: LossFn) -> Hvp:
        ops, grad = self.ops, self.module.autograd.grad

        def run(params: Sequence[Any], data: Sequence[Any], v: Any) -> Any:
            loss = loss_fn(ops, params, data)
            (g,) = grad(loss, params[0], create_graph=True)
            (h,) = grad(ops.sum(g * v), params[0])
            return h

        return run

    def zero_grad(self, params: Sequence[Any]) -> None:
        for p in params:
            p.grad = None

    def to_numpy(self, value: Any) -> np.ndarray:
        return np.asarray(value.detach().numpy())

    def torch_like(self) -> tuple[Any, Any]:
        return self.module, self.dtype


class HipsAutograd(Library):
    """HIPS autograd: functional, differentiates Python functions of NumPy arrays."""

    def __init__(self) -> None:
        import autograd.numpy as anp

        import autograd

        self.autograd, self.name = autograd, "autograd"
        self.version = _dist_version("autograd")

        def relu(x: Any) -> Any:
            return anp.maximum(x, 0.0)

        def rowmax(x: Any) -> Any:
            return anp.max(x, axis=1, keepdims=True)

        self.ops = Ops(exp=anp.exp, sin=anp.sin, tanh=anp.tanh, log=anp.log, relu=relu, sum=anp.sum, rowmax=rowmax)

    def set_threads(self, threads: int) -> None:
        """NumPy's BLAS reads its thread count from the environment at import."""

    def leaf(self, array: np.ndarray) -> Any:
        return array.copy()

    def data(self, array: np.ndarray) -> Any:
        return array.copy()

    def value_and_grad(self, loss_fn: LossFn) -> ValueAndGrad:
        ops = self.ops
        return self.autograd.value_and_grad(lambda params, data: loss_fn(ops, params, data))

    def sgd_(self, params: Sequence[Any], grads: Sequence[Any], lr: float) -> None:
        for p, g in zip(params, grads, strict=True):
            p -= lr * g

    def hvp(self, loss_fn: LossFn) -> Hvp:
        ops, grad = self.ops, self.autograd.grad
        loss_of_first = grad(lambda w, rest, data: loss_fn(ops, [w, *rest], data))
        hvp_of_first = grad(lambda w, rest, data, v: ops.sum(loss_of_first(w, rest, data) * v))
        return lambda params, data, v: hvp_of_first(params[0], params[1:], data, v)

    def zero_grad(self, params: Sequence[Any]) -> None:
        """Gradients are return values; nothing is kept on the arrays."""

    def to_numpy(self, value: Any) -> np.ndarray:
        return np.asarray(value)


class MyGrad(TapeLibrary):
    """MyGrad: tape-based, gradients land in `.grad` as NumPy arrays."""

    def __init__(self) -> None:
        import mygrad
        from mygrad.nnet.activations import relu

        self.mg, self.name, self.version = mygrad, "mygrad", mygrad.__version__

        def rowmax(x: Any) -> Any:
            return mygrad.max(x, axis=1, keepdims=True)

        self.ops = Ops(
            exp=mygrad.exp, sin=mygrad.sin, tanh=mygrad.tanh, log=mygrad.log, relu=relu, sum=mygrad.sum, rowmax=rowmax
        )

    def set_threads(self, threads: int) -> None:
        """NumPy's BLAS reads its thread count from the environment at import."""

    def leaf(self, array: np.ndarray) -> Any:
        return self.mg.tensor(array.copy())

    def data(self, array: np.ndarray) -> Any:
        return array.copy() if array.dtype.kind in "iu" else self.mg.tensor(array.copy(), constant=True)

    def sgd_(self, params: Sequence[Any], grads: Sequence[Any], lr: float) -> None:
        with self.mg.no_autodiff:
            for p, g in zip(params, grads, strict=True):
                p -= lr * g

    def hvp(self, loss_fn: LossFn) -> Hvp:
        raise NotSupported(
            f"mygrad {self.version} has no higher-order derivatives: backward() stores plain NumPy arrays "
            "in .grad and there is no autograd.grad/create_graph, so a gradient cannot be differentiated again"
        )

    def zero_grad(self, params: Sequence[Any]) -> None:
        for p in params:
            p.null_grad()

    def to_numpy(self, value: Any) -> np.ndarray:
        return np.asarray(value.data if isinstance(value, self.mg.Tensor) else value)


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def load(name: str) -> Library:
    """The adapter for one of LIBRARY_NAMES."""
    if name in ("glassgrad", "torch"):
        return TorchLike(name)
    if name == "autograd":
        return HipsAutograd()
    if name == "mygrad":
        return MyGrad()
    raise ValueError(f"unknown library {name!r}; choose from {', '.join(LIBRARY_NAMES)}")


def reference() -> Library:
    """The float64 oracle: the torch-like code run by PyTorch in float64."""
    return TorchLike("torch", "float64")
