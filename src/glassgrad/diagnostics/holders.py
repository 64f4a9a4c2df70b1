"""Who keeps a graph alive: the variable, container or attribute that holds the tensor at a graph's root.

Asked only when a watch is about to warn, so it may look at the whole heap: the garbage collector's
referrers of the tensor, and the variables of the frames running the user's code.
"""

from __future__ import annotations

import gc
import linecache
import re
import sys
from dataclasses import dataclass
from types import CodeType, FrameType, ModuleType
from typing import Any

from .. import _sites as sites
from .._sites import Site

_CONTAINERS = (list, tuple, dict, set)


@dataclass(frozen=True)
class Holder:
    """What holds a tensor, in the user's words: "list `history` (global)"."""

    description: str
    name: str  # the variable or attribute name, to find the line that adds to it
    filename: str | None  # the file whose lines use that name

    def adding_line(self) -> Site | None:
        """The user's line that adds to the holder (history.append(loss), total = total + loss), if one is found."""
        if self.filename is None:
            return None
        name = re.escape(self.name)
        pattern = re.compile(
            rf"(?<![\w]){name}\s*(\.\s*(append|extend|insert|add)\s*\(|\+=|\[[^\]]*\]\s*=(?!=)|=\s*{name}\s*\+)"
        )
        lines = linecache.getlines(self.filename)
        for number, text in enumerate(lines, start=1):
            if pattern.search(text):
                try:
                    module = compile("".join(lines), self.filename, "exec")
                except (SyntaxError, ValueError):
                    return None
                code = _code_at(module, number)
                return (code, number) if code is not None else None
        return None


def _code_at(code: CodeType, line: int) -> CodeType | None:
    """The innermost code object under `code` (functions nested in it included) that runs `line`."""
    for const in code.co_consts:
        if isinstance(const, CodeType):
            inner = _code_at(const, line)
            if inner is not None:
                return inner
    return code if any(ln == line for _, _, ln in code.co_lines()) else None


def _user_frames() -> list[FrameType]:
    frames = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if not sites.is_internal(frame.f_code.co_filename):
            frames.append(frame)
        frame = frame.f_back
    return frames


def _name_in_frames(obj: Any, frames: list[FrameType]) -> tuple[str, str, str] | None:
    """(name, "global" or "local in f", file) of a variable of a user frame bound to obj."""
    for frame in frames:
        module_level = frame.f_locals is frame.f_globals
        for name, value in frame.f_locals.items():
            if value is obj:
                return name, "global" if module_level else f"local in {frame.f_code.co_name}", frame.f_code.co_filename
        if not module_level:
            for name, value in frame.f_globals.items():
                if value is obj:
                    return name, "global", frame.f_code.co_filename
    return None


def _kind(container: Any) -> str:
    return type(container).__name__


def holder_of(obj: Any, ignore: set[int]) -> Holder | None:
    """The best description of what holds `obj`: a variable, else a named container or an object's attribute.

    `ignore` holds the ids of the caller's own lists and frames, which refer to `obj` too.
    """
    frames = _user_frames()
    named = _name_in_frames(obj, frames)
    if named is not None:
        name, scope, code = named
        return Holder(f"variable `{name}` ({scope})", name, code)
    ignore = ignore | {id(frames)}
    for referrer in gc.get_referrers(obj):
        if id(referrer) in ignore or isinstance(referrer, (FrameType, ModuleType)):
            continue
        if isinstance(referrer, _CONTAINERS):
            named = _name_in_frames(referrer, frames)
            if named is not None:
                name, scope, code = named
                return Holder(f"{_kind(referrer)} `{name}` ({scope})", name, code)
            owner = _attribute_owner(referrer, ignore | {id(referrer)})
            if owner is not None:
                return owner
        elif hasattr(referrer, "__dict__"):
            attribute = _attribute_name(referrer, obj)
            if attribute is not None:
                return Holder(f"attribute `{attribute}` of a {type(referrer).__name__}", attribute, _defining_file(referrer))
    return None


def _attribute_owner(container: Any, ignore: set[int]) -> Holder | None:
    """A container that is some object's attribute: `self.losses`."""
    for referrer in gc.get_referrers(container):
        if id(referrer) in ignore or isinstance(referrer, (FrameType, ModuleType, dict)):
            continue
        attribute = _attribute_name(referrer, container)
        if attribute is not None:
            description = f"{_kind(container)} `{attribute}`, an attribute of a {type(referrer).__name__}"
            return Holder(description, attribute, _defining_file(referrer))
    return None


def _attribute_name(owner: Any, value: Any) -> str | None:
    try:
        attributes = vars(owner)
    except TypeError:
        return None
    return next((name for name, v in attributes.items() if v is value), None)


def _defining_file(owner: Any) -> str | None:
    """The file that defines the owner's class: where `self.<name>.append(...)` is written."""
    for value in vars(type(owner)).values():
        code = getattr(value, "__code__", None)
        if isinstance(code, CodeType):
            return code.co_filename
    return getattr(sys.modules.get(type(owner).__module__), "__file__", None)
