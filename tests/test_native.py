"""The compiled core and the switch back to the sources: which files the listed modules come from.

`make test` runs the suite twice, built and under GLASSGRAD_PURE=1; both runs check here that the path they
think they test is the one that runs. A checkout with no build (no compiler) has only the pure path to check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import glassgrad
from glassgrad import _native
from glassgrad import _sites as sites

BUILT = all(
    any(Path(glassgrad.__file__).parent.joinpath(*name.split(".")[1:-1], name.rsplit(".", 1)[1] + suffix).exists()
        for suffix in EXTENSION_SUFFIXES)
    for name in _native.COMPILED_MODULES
)


def _module_files(pure: bool) -> dict[str, str]:
    """The files the compiled modules load from in a fresh interpreter, with GLASSGRAD_PURE set or not."""
    env = {k: v for k, v in os.environ.items() if k != "GLASSGRAD_PURE"} | ({"GLASSGRAD_PURE": "1"} if pure else {})
    code = (
        "import sys, glassgrad\n"
        "print(glassgrad._compiled)\n"
        "for name in glassgrad._native.COMPILED_MODULES: print(name, sys.modules[name].__file__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    compiled, *lines = out.splitlines()
    files = dict(line.split(" ", 1) for line in lines)
    files["_compiled"] = compiled
    return files


def test_this_run_uses_the_path_it_names() -> None:
    files = {name: sys.modules[name].__file__ for name in _native.COMPILED_MODULES}
    kernels = {name: _native.kernels(name) for name in _native.KERNEL_MODULES}
    if _native.PURE or not BUILT:
        assert glassgrad._compiled is False
        assert all(f.endswith(".py") for f in files.values()), files
        assert all(module is None for module in kernels.values()), kernels
    else:
        assert glassgrad._compiled is True
        assert all(f.endswith(tuple(EXTENSION_SUFFIXES)) for f in files.values()), files
        assert all(module is not None for module in kernels.values()), kernels


def test_pure_switch_imports_the_sources() -> None:
    files = _module_files(pure=True)
    assert files.pop("_compiled") == "False"
    assert all(f.endswith(".py") for f in files.values()), files


@pytest.mark.skipif(not BUILT, reason="no compiled core is built in this checkout (no C compiler at install)")
def test_a_build_is_imported_compiled() -> None:
    files = _module_files(pure=False)
    assert files.pop("_compiled") == "True"
    assert all(f.endswith(tuple(EXTENSION_SUFFIXES)) for f in files.values()), files


def test_creation_site_is_the_users_line_on_either_path() -> None:
    x = glassgrad.ones(3, requires_grad=True)
    y = (x * 2).exp().sum()  # the line the nodes name
    here = sys._getframe().f_lineno - 1
    for node in (y.grad_fn, y.grad_fn.next_functions[0][0]):
        code, line = sites.resolve(node._position)
        assert (code.co_filename, line) == (__file__, here)
