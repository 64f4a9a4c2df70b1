"""torch.jit for programs that script or trace and then simply run: everything runs eagerly.

glassgrad has no TorchScript compiler. script() and trace() hand back the module or function they
were given, which then runs as ordinary Python with the same results (and with glassgrad's graph
records, which a compiled program would hide). The decorators (ignore, unused, export, ...) leave
functions as they are. A scripted module is marked as a ScriptModule so that
`isinstance(m, torch.jit.ScriptModule)` holds; what needs a compiled program (saving one, loading
one, its code or graph) raises NotImplementedError saying what to do instead.

Unlike PyTorch, which builds a second module tree sharing the parameters, the mark is put on the
module itself: `scripted.eval()` also switches the original, and `type(original)` becomes the
marker subclass (same name, pickled as the original class). A second tree would diverge silently
wherever a module keeps a submodule outside its registry (a plain list of layers, say).

Like PyTorch's, these calls warn that TorchScript is deprecated (DeprecationWarning, attributed to
glassgrad, so hidden unless warnings are turned on).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeVar  # Final: torch.jit.Final is typing.Final

from .nn.modules.module import Module

__all__ = [
    "Final", "Future", "ScriptModule", "annotate", "export", "fork", "freeze", "ignore", "interface", "is_scripting",
    "is_tracing", "load", "optimize_for_inference", "save", "script", "script_if_tracing", "script_method", "trace",
    "trace_module", "unused", "wait",
]

T = TypeVar("T")

_NO_ARTIFACT = (
    "glassgrad runs TorchScript programs eagerly: torch.jit.script and torch.jit.trace return the module itself, "
    "so there is no compiled program to {what}."
)
_SAVE_WEIGHTS = (
    " Save the weights instead, torch.save(model.state_dict(), path), and load them into a module built from its "
    "Python class with model.load_state_dict(torch.load(path))."
)


def _deprecated(name: str, instead: str = "switch to `torch.compile` or `torch.export`") -> None:
    # stacklevel 1 attributes the warning to glassgrad, as PyTorch's is to torch: hidden unless warnings are on.
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please {instead}.", DeprecationWarning, stacklevel=1)


class ScriptModule(Module):
    """What script() and trace() make of a module: the module, running eagerly, with a compiled program's API refusing."""

    def save(self, f: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_NO_ARTIFACT.format(what="save") + _SAVE_WEIGHTS)

    @property
    def code(self) -> str:
        raise NotImplementedError(_NO_ARTIFACT.format(what="show the code of") + " Read the module's Python source instead.")

    @property
    def graph(self) -> Any:
        raise NotImplementedError(
            _NO_ARTIFACT.format(what="show the graph of")
            + " glassgrad records the autograd graph as the module runs: look at an output's grad_fn."
        )


_SCRIPTED: dict[type, type] = {}


def _as_script_module(module: Module) -> Module:
    """Mark `module` as scripted, in place: its class becomes a ScriptModule subclass of the same name."""
    cls = type(module)
    if isinstance(module, ScriptModule):
        return module
    if cls not in _SCRIPTED:
        _SCRIPTED[cls] = type(cls.__name__, (cls, ScriptModule), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__, "__reduce_ex__": _reduce_as(cls),
        })
    module.__class__ = _SCRIPTED[cls]
    return module


def _reduce_as(cls: type) -> Callable[[Any, Any], Any]:
    """Pickle (torch.save, copy.deepcopy) a scripted module as the plain module it is; its marker class is not importable."""

    def __reduce_ex__(self: Any, protocol: Any) -> Any:
        return _new_module, (cls,), self.__dict__

    return __reduce_ex__


def _new_module(cls: type[Module]) -> Module:
    return cls.__new__(cls)  # Module.__setstate__ then restores its attributes


def script(obj: T, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, example_inputs: Any = None) -> T:
    """The module (marked as a ScriptModule) or the function itself, which runs eagerly."""
    _deprecated("script")
    return _as_script_module(obj) if isinstance(obj, Module) else obj  # type: ignore[return-value]


def trace(func: T, example_inputs: Any = None, *args: Any, example_kwarg_inputs: Any = None, **kwargs: Any) -> T:
    """The module (marked as a ScriptModule) or the function itself, which runs eagerly: nothing is recorded.

    A function runs once on the example inputs, as tracing runs it, so that what it raises is raised here."""
    _deprecated("trace")
    if example_inputs is None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if not isinstance(func, Module):
        if example_inputs is None:
            func(**example_kwarg_inputs)
        else:
            func(*(example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)))
        return func
    _deprecated("trace_method")  # PyTorch traces a module's forward through trace_method, which warns too
    return _as_script_module(func)  # type: ignore[return-value]


def trace_module(mod: T, inputs: Any = None, *args: Any, **kwargs: Any) -> T:
    _deprecated("trace_module")
    return _as_script_module(mod) if isinstance(mod, Module) else mod  # type: ignore[return-value]


def freeze(mod: T, preserved_attrs: Any = None, optimize_numerics: bool = True) -> T:
    """PyTorch's checks before freezing; the module itself is what runs afterwards."""
    _deprecated("freeze", "use `torch.compile` instead")
    _require_scripted(mod, "Freezing")
    if mod.training:  # type: ignore[attr-defined]
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call .eval() on your module before freezing."
        )
    return mod


def optimize_for_inference(mod: T, other_methods: Any = None) -> T:
    _deprecated("optimize_for_inference", "use `torch.compile` instead")
    _require_scripted(mod, "optimize_for_inference")
    return freeze(mod.eval())  # type: ignore[attr-defined]  # PyTorch switches to eval mode first


def _require_scripted(mod: Any, what: str) -> None:
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            f"{what} expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace to script your 'nn.Module'."
        )


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """m.save(f): a scripted module refuses; anything else has no save() to call, as in PyTorch."""
    _deprecated("save", "switch to `torch.export`")
    m.save(f, _extra_files=_extra_files)


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False) -> Any:
    _deprecated("load", "switch to `torch.export`")
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {os.fspath(f)} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {os.fspath(f)} is a directory")
    elif not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")
    raise NotImplementedError(
        "glassgrad cannot load a TorchScript archive: it has no TorchScript interpreter and runs Python modules eagerly. "
        "Build the module from its Python class and load weights saved with torch.save(model.state_dict(), path) "
        "into it with model.load_state_dict(torch.load(path))."
    )


# -- decorators and annotations: an eager program needs none of them ------------------------------------
def ignore(drop: Any = False, **kwargs: Any) -> Any:
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    if drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function call on compilation. Use "
            "torch.jit.unused now. {}", FutureWarning, stacklevel=2,
        )
    return lambda fn: fn


def unused(fn: T) -> T:
    return fn


def export(fn: T) -> T:
    return fn


def script_method(fn: T) -> T:
    return fn


def script_if_tracing(fn: T) -> T:
    return fn


def interface(obj: T) -> T:
    return obj


def annotate(the_type: Any, the_value: T) -> T:
    return the_value


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


class Future:
    """What fork() returns: the call already ran, so wait() only hands back its value."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        return self._value

    def value(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    _deprecated("fork", "use `torch.compile` instead")
    return torch_fork(func, *args, **kwargs)


def wait(future: Future) -> Any:
    _deprecated("wait", "use `torch.compile` instead")
    return torch_wait(future)


def torch_fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """torch.fork: torch.jit.fork without the deprecation warning; the call runs now."""
    if not callable(func):
        raise TypeError(f"Object of type '{type(func).__name__}' is not an instance of 'function'")
    return Future(func(*args, **kwargs))


def torch_wait(future: Future) -> Any:
    """torch.wait: the value of a torch.fork call."""
    if not isinstance(future, Future):
        raise TypeError("wait(): incompatible function arguments. The following argument types are supported:")
    return future.wait()


_fork, _wait = fork, wait  # the names PyTorch's own tests call (deprecated as well)


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend: torch.compile was given a backend name PyTorch does not register."""


# The backend names PyTorch 2.13's torch._dynamo.list_backends(exclude_tags=None) lists, and its compile modes.
_BACKENDS = frozenset({
    "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
    "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug", "eager_noexcept", "inductor",
    "invoke_subgraph", "openxla", "openxla_eval", "pre_dispatch_eager", "ts", "tvm",
})
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(
    model: Callable[..., Any] | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
    backend: str | Callable[..., Any] | None = "inductor", mode: str | None = None, options: dict[str, Any] | None = None,
    name: str | None = None, disable: bool = False, recompile_limit: int | None = None, isolate_recompiles: bool = False,
    shapes_spec: Any = None,
) -> Any:
    """torch.compile: the function or module itself, which runs eagerly (with or without arguments, as a decorator)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(
            f"Invalid backend: '{backend}', see `torch._dynamo.list_backends()` for available backends."
        )
    if model is None:
        return lambda fn: compile(fn, backend=backend, mode=mode, options=options)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
