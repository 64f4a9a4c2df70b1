"""Creation sites: the first frame outside glassgrad, kept as (code object, line number).

This runs for every recorded node, so it stays cheap: frames are walked by
code object, and whether a code object belongs to glassgrad is cached.
"""

from __future__ import annotations

import linecache
import os
import sys
from types import CodeType

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
enabled = True  # always on in normal use; bench/diagnostics_overhead.py turns it off to measure its cost
_internal: dict[str, bool] = {}  # by file name: str caches its hash, a code object recomputes it every time

Site = tuple[CodeType, int]


def _is_internal(code: CodeType) -> bool:
    filename = code.co_filename
    internal = _internal.get(filename)
    if internal is None:
        internal = _internal[filename] = filename.startswith(_PACKAGE_DIR)
    return internal


def creation_site() -> Site | None:
    """The user's frame that caused the current glassgrad call."""
    if not enabled:
        return None
    frame = sys._getframe(2)
    while frame is not None and _is_internal(frame.f_code):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None
    return (frame.f_code, frame.f_lineno)


def format_site(site: Site | None) -> str:
    if site is None:
        return "<unknown>"
    code, line = site
    return f"{code.co_filename}:{line} in {code.co_name}"


def source_line(site: Site | None) -> str:
    """The text of the site's line, stripped, or '' where the source is not available."""
    if site is None:
        return ""
    code, line = site
    return linecache.getline(code.co_filename, line).strip()
