"""`import torch` resolved to glassgrad for one run of an unmodified PyTorch program.

`glassgrad run script.py` and `glassgrad doctor --engine glassgrad script.py` install this finder
for the run: `torch`, `torch.nn`, `torch.nn.functional`, `torch.utils.data`, ... become glassgrad's
modules of the same path. Nothing is written to site-packages and a real PyTorch stays untouched.
A torch module glassgrad lacks fails with an error that names it and the user's import line.

A child process started by multiprocessing's spawn or forkserver method (torch.multiprocessing.spawn, a
DataLoader's spawn workers) is a fresh interpreter that re-imports the main script: it gets the alias from a
`torch` package that only this run puts on sys.path (glassgrad/_spawned), which multiprocessing passes on
to each child. Other subprocesses (`python -c ...`, PYTHONPATH) are untouched and get the installed PyTorch.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ._missing import used_at

SPAWNED_PATH = str(Path(__file__).parent / "_spawned")  # the folder holding the children's `torch` package


def _glassgrad_name(fullname: str) -> str:
    return "glassgrad" + fullname.removeprefix("torch")



def _alias_loaded_submodules(package: str) -> None:
    """Registers each glassgrad module under `package` that is loaded already under its torch name too.

    The import system binds a package's attribute to a submodule when it loads that submodule, so a later
    `import torch.autograd.gradcheck` would rebind torch.autograd.gradcheck (the function) to the module. In PyTorch
    that module was loaded with its package, so the import finds it in sys.modules and binds nothing: as here now.
    """
    prefix = _glassgrad_name(package) + "."
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix):
            sys.modules.setdefault("torch" + name.removeprefix("glassgrad"), module)


class TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch[.x]` as the already importable `glassgrad[.x]`."""

    def __init__(self) -> None:
        self._specs: dict[int, importlib.machinery.ModuleSpec | None] = {}  # glassgrad's own spec, by module id

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        name = _glassgrad_name(fullname)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            raise ModuleNotFoundError(
                f"No module named '{fullname}': glassgrad does not implement {fullname} yet (imported at {used_at()})",
                name=fullname,
            ) from None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = sys.modules[_glassgrad_name(spec.name)]
        self._specs[id(module)] = module.__spec__
        _alias_loaded_submodules(spec.name)
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the alias's spec on glassgrad's own module: give it its own back.
        module.__spec__ = self._specs.pop(id(module))


def install() -> ModuleType:
    """`import torch...` gives glassgrad in this process from now on; returns glassgrad, the new `torch`."""
    sys.meta_path.insert(0, TorchAlias())
    return importlib.import_module("glassgrad")


@contextmanager
def torch_is_glassgrad() -> Iterator[None]:
    """Inside the block `import torch...` gives glassgrad, here and in the spawned children; afterwards the
    modules seen before come back."""
    saved = {name: module for name, module in sys.modules.items() if name == "torch" or name.startswith("torch.")}
    for name in saved:
        del sys.modules[name]
    finder = TorchAlias()
    sys.meta_path.insert(0, finder)
    sys.path.insert(0, SPAWNED_PATH)
    try:
        yield
    finally:
        sys.path.remove(SPAWNED_PATH)
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(saved)
