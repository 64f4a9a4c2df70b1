"""Compiles glassgrad's hot core with Cython; where no C compiler works, installs the pure-Python path instead.

The compiled modules are the unchanged .py files (Cython's pure-Python mode), listed once in
src/glassgrad/_native.py; the wheel carries both, and GLASSGRAD_PURE=1 picks the sources at import.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = runpy.run_path(str(Path("src") / "glassgrad" / "_native.py"))
COMPILED_MODULES, KERNEL_MODULES = NATIVE["COMPILED_MODULES"], NATIVE["KERNEL_MODULES"]

# Python's semantics exactly: annotations are documentation here, not C types (an `int` annotation would
# otherwise reject a NumPy integer), and integer division and indexing behave as in Python.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


# After Python's own -O3 -g: debug info and -O3's extra inlining double the compile time of Cython's large C files
# (grad_mode.c: 1.2 s of CPU at -O1 -g0, 3.3 s at -O3 -g) for code that spends its time in libpython anyway. -O2
# against -O1: 1.6% fewer instructions per W1 op (callgrind), 1 to 3% less time, for 43 -> 67 s of CPU per build.
COMPILE_ARGS = ["-O2", "-g0"]
# The kernels' loops: -O3 vectorizes them; no fused multiply-add contraction, so each step rounds as NumPy's does
# (their routes agree bit for bit). Neither sqrt's errno nor floating-point exception flags are kept, which is what
# lets sqrt and a comparison vectorize; neither changes a result.
KERNEL_COMPILE_ARGS = ["-O3", "-g0", "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math"]


def extension(name: str, suffix: str, arguments: list[str]) -> Extension:
    return Extension(name, [str(Path("src", *name.split(".")).with_suffix(suffix))], extra_compile_args=arguments)


class BuildExtOrPure(build_ext):
    """Builds the extension modules in parallel; a failed compile leaves the install on the pure-Python path."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.parallel = self.parallel or True  # setuptools: True means one job per CPU

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler, or it failed: the sources work alone
            for path in self.get_outputs():  # a partial build would mix the two paths
                Path(path).unlink(missing_ok=True)
            reason = str(error).splitlines()[0][:120]
            print(f"glassgrad: the compiled core was not built ({reason}); installing the pure-Python path", file=sys.stderr)


setup(
    ext_modules=cythonize(
        [extension(name, ".py", COMPILE_ARGS) for name in COMPILED_MODULES]
        + [extension(name, ".pyx", KERNEL_COMPILE_ARGS) for name in KERNEL_MODULES],
        compiler_directives=DIRECTIVES,
        build_dir="build/cython",
        quiet=True,
    ),
    cmdclass={"build_ext": BuildExtOrPure},
)
