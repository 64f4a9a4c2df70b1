"""What a PyTorch program meets where glassgrad lacks a name: an error that names it, and the user's line.

glassgrad's namespaces mirror torch's (glassgrad.nn.functional is torch.nn.functional), so a name
missing here is the PyTorch name with `torch` in front. The error is an AttributeError, so that
`hasattr(torch, "compile")` and `getattr(F, name, None)` keep working.
"""

from __future__ import annotations

from typing import Any

from . import _sites as sites


class NotImplementedInGlassgrad(AttributeError):
    """A PyTorch name glassgrad does not implement (yet)."""


def torch_name(qualified: str) -> str:
    """glassgrad.nn.functional.x -> torch.nn.functional.x"""
    return "torch" + qualified.removeprefix("glassgrad")


def used_at() -> str:
    """Where the user's code asked for the name (import machinery and glassgrad frames skipped)."""
    return sites.format_site(sites.resolve(sites.caller_position(1)))


def missing(owner: str, name: str, plain: str) -> AttributeError:
    """The error for `<owner>.<name>`, `owner` being glassgrad's qualified module or class name; `plain` is
    Python's own sentence for the miss."""
    if name.startswith("_"):  # protocols probe private and dunder names all the time: a plain miss
        return AttributeError(plain)
    return NotImplementedInGlassgrad(
        f"{plain}: glassgrad does not implement {torch_name(owner)}.{name} yet (used at {used_at()})"
    )


def module_getattr(module: str) -> Any:
    """A module-level __getattr__ for glassgrad's namespace `module`."""

    def __getattr__(name: str) -> Any:
        raise missing(module, name, f"module '{module}' has no attribute '{name}'")

    return __getattr__


def unimplemented(qualified: str) -> type:
    """A PyTorch class or function glassgrad names but does not implement, `qualified` being glassgrad's name for
    it. Libraries import such names at module level and test `isinstance` against them (False for everything
    glassgrad makes); making or calling one raises."""

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedInGlassgrad(f"glassgrad does not implement {torch_name(qualified)} yet (used at {used_at()})")

    module, _, name = qualified.rpartition(".")
    return type(name, (), {"__new__": __new__, "__module__": module, "__doc__": f"Not implemented: {torch_name(qualified)}."})


def no_mode_dispatch(qualified: str) -> NotImplementedInGlassgrad:
    """The error for entering a PyTorch mode (TorchFunctionMode, FlopCounterMode): glassgrad's ops do not
    dispatch to modes, so one would see nothing."""
    return NotImplementedInGlassgrad(
        f"glassgrad does not implement {torch_name(qualified)} yet: its ops do not dispatch to modes (entered at {used_at()})"
    )


def unprovided_module(module: str, reason: str) -> Any:
    """A module-level __getattr__ for a PyTorch module glassgrad cannot have (torch.export, torch.xpu): importing
    it works, as on PyTorch's CPU build, and any public name of it raises, saying why."""

    def __getattr__(name: str) -> Any:
        plain = f"module '{module}' has no attribute '{name}'"
        if name.startswith("_"):  # protocols probe private and dunder names: a plain miss
            raise AttributeError(plain)
        raise NotImplementedInGlassgrad(
            f"{plain}: glassgrad does not provide {torch_name(module)}: {reason} (used at {used_at()})"
        )

    return __getattr__
