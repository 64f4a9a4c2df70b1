"""Optimizer: param groups, per-parameter state, state_dict in PyTorch's layout, and one shared step loop.

Each optimizer writes its update rule once, as `_update(param, grad, state, group)` on NumPy arrays
(the parameter's own buffer and its gradient) returning the new value: the buffer itself when the
rule updated it in place, as SGD and Adam do (PyTorch's add_/addcdiv_, no copy of the parameter),
or a new array that the base class writes into it. The base class runs it under no_grad for every
parameter that has a gradient and bumps the parameter's version once per step: a graph that saved a
parameter before `step()` then fails in backward exactly as PyTorch's does.

SGD's and Adam's rules also have a one-pass compiled loop (`_fused.pyx`), which `_update` takes where
`one_pass` says it applies; it computes the NumPy route's bits, so the route stays the rule's definition.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import numpy as np

from .. import _dtype, _native
from .._quiet import quietly
from ..autograd import grad_mode, seams
from ..autograd.inplace import bump_version
from ..nn.modules.module import typename, zero_grads
from ..tensor import Tensor


class _RequiredParameter:
    """Singleton marking a default that every param group must supply (e.g. a custom optimizer's lr)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def scalar_tensor(value: float) -> Tensor:
    """State scalars ('step', NAdam's 'mu_product') are 0-d tensors, float64 only when that is the default dtype."""
    dtype = np.float64 if _dtype.get_default_dtype() is _dtype.float64 else np.float32
    return Tensor._wrap(np.array(value, dtype=dtype))


def _pairs(array: np.ndarray) -> np.ndarray:
    """A complex array's real and imaginary parts as a trailing dim of 2 (a view)."""
    return array[..., None].view(array.real.dtype)


# The one-pass loops of SGD and Adam (_fused.pyx); None on the pure path, or where they were not built.
fused = _native.kernels("glassgrad.optim._fused")
_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def one_pass(*arrays: np.ndarray | None) -> list[np.ndarray | None] | None:
    """The arrays (None kept) as the flat views `fused`'s loops take, or None where those do not apply: on
    the pure path, or unless every array is contiguous and all share one float dtype."""
    if fused is None:
        return None
    present = [a for a in arrays if a is not None]
    dtype = present[0].dtype
    if dtype not in _FUSED_DTYPES or not all(a.dtype == dtype and a.flags.c_contiguous for a in present):
        return None
    return [None if a is None else a.reshape(-1) for a in arrays]


def zeros_state(param: np.ndarray) -> Tensor:
    return Tensor._wrap(np.zeros_like(param))


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """start.lerp_(end, weight) with ATen's two-sided formula, so float64 trajectories match PyTorch's bit for bit;
    one temporary, for end - start."""
    diff = np.subtract(end, start, dtype=start.dtype)
    if weight < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= 1 - weight
        np.subtract(end, diff, out=start, casting="unsafe")


def weight_decayed(param: np.ndarray, grad: np.ndarray, group: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """L2 weight decay folded into the gradient (a new array, as PyTorch's grad.add), or decoupled (AdamW-style)
    decay applied to the parameter in place (PyTorch's param.mul_)."""
    wd = group["weight_decay"]
    if wd == 0:
        return param, grad
    if group.get("decoupled_weight_decay", False):
        param *= 1 - group["lr"] * wd
        return param, grad
    return param, grad + wd * param


def _stepped() -> None:
    """Every optimizer step tells the watches that an iteration ended."""
    if seams.watcher is not None:
        seams.watcher.optimizer_stepped()


class Optimizer:
    """Base class: subclasses give defaults and implement `_update` (or override `step`, as LBFGS does)."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Learning-rate schedulers warn when they step before the optimizer did: overriding step()s record it too.
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            original = cls.step

            @functools.wraps(original)
            def step(self: Optimizer, *args: Any, **kw: Any) -> Any:
                self._opt_called = True
                result = original(self, *args, **kw)
                _stepped()
                return result

            cls.step = step  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in "
                "sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        named = [p for p in param_group["params"] if isinstance(p, tuple)]
        if named:
            if len(named) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = [name for name, _ in named]
            param_group["params"] = [p for _, p in named]
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            import warnings

            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    # -- the shared step loop ---------------------------------------------------------------------
    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def _sparse_gradient(self, grad: Tensor, group: dict[str, Any]) -> Any:
        """What `_update` takes for a sparse gradient; the optimizers PyTorch runs on sparse gradients override it."""
        raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")

    @staticmethod
    def _write(param: Tensor, value: np.ndarray) -> None:
        if value is not param._data:  # else the update was made in place
            np.copyto(param._data, value, casting="unsafe")
        bump_version(param)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        self._opt_called = True
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            quietly(self._step_parameters)  # NaN and inf are values in an update, as in PyTorch's, not NumPy warnings
        _stepped()
        return loss

    def _step_parameters(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data if not p.grad.is_sparse else self._sparse_gradient(p.grad, group)
                if group.get("maximize", False):
                    grad = -grad
                state = self.state.get(p, {})
                param = p._data
                if param.dtype.kind == "c":  # PyTorch steps a complex parameter as its real pairs (view_as_real)
                    updated = self._update(_pairs(param), _pairs(grad), state, group)
                    self._write(p, np.ascontiguousarray(updated).view(param.dtype)[..., 0])
                elif _dtype.is_low_precision(param.dtype):
                    self._write(p, self._update_in_float32(param, grad, state, group))
                else:
                    self._write(p, self._update(param, grad, state, group))
                if state:  # plain SGD keeps no state, and its state_dict shows none, as in PyTorch
                    self.state[p] = state

    def _update_in_float32(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        """A bfloat16 or float8 parameter's update, computed in float32 and rounded once into the parameter and into
        its state, which keeps the parameter's dtype (PyTorch rounds after each op of the update: the two agree to
        the dtype's precision)."""
        narrow = {k: v for k, v in state.items() if _follows_param(k, v)}
        for k, v in narrow.items():
            state[k] = Tensor._wrap(_dtype.widened(v._data))
        updated = self._update(_dtype.widened(param), _dtype.widened(grad), state, group)
        for k, v in state.items():
            if k in narrow:
                np.copyto(narrow[k]._data, v._data, casting="unsafe")  # in place: whoever holds the state sees it
                state[k] = narrow[k]
            elif _follows_param(k, v):
                state[k] = Tensor._wrap(v._data.astype(param.dtype))
        return updated

    # -- state_dict --------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}, indices counted across groups."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(k)] if isinstance(k, Tensor) else k: v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups, strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in self.param_groups),
                strict=True,
            )
        )

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            # State follows its parameter's floating dtype, except 'step', which keeps its own.
            if isinstance(value, Tensor):
                return value if key == "step" or not param.is_floating_point() else value.to(param.dtype)
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        for group, saved in zip(self.param_groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _follows_param(key: Any, value: Any) -> bool:
    """Whether a state entry has its parameter's floating dtype: every floating tensor but 'step', which keeps
    its own."""
    return key != "step" and isinstance(value, Tensor) and _dtype.is_floating(value._data.dtype)


def counted(state: dict[str, Any]) -> float:
    """Count one more step in the state's 'step'; the step number."""
    state["step"]._data += 1
    return float(state["step"].item())


def update_moments(grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> None:
    """exp_avg <- lerp(exp_avg, grad, 1 - beta1), exp_avg_sq <- beta2 exp_avg_sq + (1 - beta2) grad^2."""
    beta1, beta2 = group["betas"]
    lerp_(state["exp_avg"]._data, grad, 1 - beta1)
    exp_avg_sq = state["exp_avg_sq"]._data
    exp_avg_sq *= beta2
    squares = np.multiply(grad, 1 - beta2, dtype=exp_avg_sq.dtype)  # addcmul's (value * g) * g, in one temporary
    squares *= grad
    exp_avg_sq += squares


def adam_moments(param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, float]:
    """What Adam's NumPy route, NAdam and RAdam share: count the step, apply weight decay, update the moments.
    Returns the decayed param and grad, and the step number."""
    step = counted(state)
    param, grad = weight_decayed(param, grad, group)
    update_moments(grad, state, group)
    return param, grad, step


def check_hyperparameters(
    lr: float, *, eps: float | None = None, betas: tuple[float, float] | None = None, weight_decay: float = 0.0,
    momentum: float | None = None, alpha: float | None = None,
) -> None:
    """PyTorch's constructor checks, with its messages; `not x >= 0` also rejects NaN."""
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not eps >= 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if momentum is not None and not momentum >= 0.0:
        raise ValueError(f"Invalid momentum value: {momentum}")
    if alpha is not None and not alpha >= 0.0:
        raise ValueError(f"Invalid alpha value: {alpha}")
    if not weight_decay >= 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
