"""Creation sites: the user's frame, kept as (code object, instruction offset).

The user's line is the first frame outside glassgrad, the libraries the glass sees through (real PyTorch),
site-packages and the standard library: a loss made inside transformers' loss function is named at the
user's call of the model, and the library's frame that made it (the innermost) comes along as context,
shown after the user's line. Where no user frame is on the stack (a library's own thread), the first
library frame is kept instead.

The core records one for every node, in-place change and backward call (that is what makes the glass
native on glassgrad's engine), so this sits on the floor beside the tensor; diagnostics only read them.

This runs for every recorded node, so it stays cheap. Reading a frame in Python 3.11 builds a frame
object for it (about 0.15 us each), so the walk starts above the frames the caller knows are
glassgrad's own; whether a file belongs to glassgrad is cached; and the line number, which CPython
works out by scanning the code's line table, is found only when a site is shown.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES
from sys import _getframe
from types import CodeType

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
enabled = True  # always on in normal use; bench/diagnostics_overhead.py turns it off to measure its cost
USER, INTERNAL, LIBRARY = 0, 1, 2  # what a file is; 0 is the only false one, so the hot path tests it as a bool
_internal: dict[str, int] = {}  # by file name: str caches its hash, a code object recomputes it every time
# The import system's own frames too: a user's `import torch.x` or `from torch import x` is the line to name.
_internal_prefixes: tuple[str, ...] = (_PACKAGE_DIR, "<frozen importlib")


def _library_prefixes() -> tuple[str, ...]:
    """Where installed packages and the standard library live: their frames are not the user's lines."""
    paths = sysconfig.get_paths()
    found = {os.path.abspath(paths[key]) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    found |= {os.path.abspath(p) + os.sep for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    return (*sorted(found), "<frozen ")


_library: tuple[str, ...] = _library_prefixes()

# The frame of caller_position itself: there is none when this module is compiled (it is in _native's list, as it
# runs for every recorded node).
_OWN_FRAME = 0 if __file__.endswith(tuple(EXTENSION_SUFFIXES)) else 1
# Whether any compiled module was imported: set by glassgrad/__init__.py once the core is imported. Frames of
# compiled callers are not on the stack to be skipped. (A global of this module: a cheap read, where another
# module's attribute is a lookup per recorded node.)
frames_elided = False

Site = tuple[CodeType, int]  # a code object and a line number
# A code object and the offset of the instruction running there; then, where the user's code called a library that
# made the node, the library's innermost frame the same way
Position = tuple[CodeType, int] | tuple[CodeType, int, tuple[CodeType, int]]


class LibrarySite(Site):
    """The user's line, where a library's code (`library`: its innermost frame) made the node. Equal to the user's
    plain site, so whatever groups or compares sites still goes by the user's line alone."""

    library: Site


def _learn(filename: str) -> int:
    kind = INTERNAL if filename.startswith(_internal_prefixes) else LIBRARY if filename.startswith(_library) else USER
    _internal[filename] = kind
    return kind


def _kind(filename: str) -> int:
    kind = _internal.get(filename)
    return _learn(filename) if kind is None else kind


def is_internal(filename: str) -> bool:
    """Whether a file is glassgrad's own (or another library the glass sees through)."""
    return _kind(filename) == INTERNAL


def is_users(filename: str) -> bool:
    """Whether a file is the user's: neither glassgrad's, nor an installed package's, nor the standard library's."""
    return _kind(filename) == USER


def treat_as_internal(directory: str) -> None:
    """Frames from files under `directory` are not the user's (real PyTorch's, when the glass watches it)."""
    global _internal_prefixes
    directory = os.path.abspath(directory) + os.sep
    if directory not in _internal_prefixes:
        _internal_prefixes = (*_internal_prefixes, directory)
        _internal.clear()


def caller_position(inside: int = 0) -> Position | None:
    """Where the user's code called into glassgrad; `inside` frames above the caller are known to be glassgrad's."""
    if not enabled:
        return None
    # Compiled callers run without frames: there the nearest frame is the first one that can be the user's.
    frame = _getframe(_OWN_FRAME + (0 if frames_elided else inside + 1))
    known = _internal
    library = None
    while frame is not None:
        code = frame.f_code
        kind = known.get(code.co_filename)
        if kind is None:
            kind = _learn(code.co_filename)
        if not kind:
            return (code, frame.f_lasti) if library is None else (code, frame.f_lasti, library)
        if kind == 2 and library is None:  # LIBRARY, as a literal: compiled, a C comparison, not a global's lookup
            library = (code, frame.f_lasti)
        frame = frame.f_back  # type: ignore[assignment]
    return library


def resolve(position: Position | None) -> Site | None:
    """The (code, line) of a position."""
    if position is None:
        return None
    code, offset = position[0], position[1]
    # Not cached: equal code objects from two files compare equal, so a cache would mix their file names up.
    line = next((ln for start, end, ln in code.co_lines() if start <= offset < end and ln is not None), code.co_firstlineno)
    if len(position) == 2:
        return code, line
    site = LibrarySite((code, line))
    site.library = resolve(position[2])  # type: ignore[misc]
    return site


def format_site(site: Site | None) -> str:
    if site is None:
        return "<unknown>"
    code, line = site
    return f"{code.co_filename}:{line} in {code.co_name}"


def where(site: Site | None) -> str:
    """The site for a message: its file and line, the line's text, and the library's line that made the node."""
    code = source_line(site)
    text = format_site(site) + (f"\n        {code}" if code else "")
    if isinstance(site, LibrarySite):
        text += f"\n        inside {_library_relative(format_site(site.library))}"
    return text


def _library_relative(text: str) -> str:
    """A library's file named from its package (transformers/loss/loss_utils.py), not the site-packages path."""
    prefix = next((p for p in sorted(_library, key=len, reverse=True) if text.startswith(p)), "")
    return text[len(prefix) :]


def source_line(site: Site | None) -> str:
    """The text of the site's line, stripped, or '' where the source is not available."""
    if site is None:
        return ""
    code, line = site
    return linecache.getline(code.co_filename, line).strip()
