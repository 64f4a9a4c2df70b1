"""Who keeps a graph alive: the variable, container or attribute that holds the tensor at a graph's root.

Asked only when a watch is about to warn. First from the user's frames outwards (kept_by_frames: their variables,
the containers and attributes those name), which costs what the program holds there; only where that finds
nothing, from the tensors inwards (holders_of): the garbage collector's referrers, a scan of the whole heap for
the tensors and one for each container on the way out.
"""

from __future__ import annotations

import gc
import linecache
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import CodeType, FrameType, FunctionType, ModuleType
from typing import Any

from .. import _sites as sites
from .._sites import Site
from . import code

_CONTAINERS = (list, tuple, dict, set)


@dataclass(frozen=True)
class Holder:
    """What holds a tensor, in the user's words: "list `history` (global)"."""

    description: str
    name: str  # the variable or attribute name, to find the line that adds to it
    filename: str | None  # the file whose lines use that name

    def adding_line(self) -> Site | None:
        """The user's statement that adds to the holder (history.append(loss), total = total + loss), read from the
        file's code (code.adding_statement), if there is one."""
        if self.filename is None:
            return None
        number = code.adding_statement(self.filename, self.name)
        return _site_at(self.filename, number) if number is not None else None


def passing_lines(adding: Site) -> list[Site]:
    """Where the statement adding to a holder adds a parameter of its function (a meter's `self.sum += val * n`), the
    calls that passed it the tensor, innermost first (code.passing_calls): the outermost caller's line is where the
    fix goes."""
    filename = adding[0].co_filename
    found = (_site_at(filename, number) for number in code.passing_calls(filename, adding[1]))
    return [site for site in found if site is not None]


def _site_at(filename: str, number: int) -> Site | None:
    try:
        module = compile("".join(linecache.getlines(filename)), filename, "exec")
    except (SyntaxError, ValueError):
        return None
    found = _code_at(module, number)
    return (found, number) if found is not None else None


def _code_at(code_object: CodeType, line: int) -> CodeType | None:
    """The innermost code object under `code_object` (functions nested in it included) that runs `line`."""
    for const in code_object.co_consts:
        if isinstance(const, CodeType):
            inner = _code_at(const, line)
            if inner is not None:
                return inner
    return code_object if any(ln == line for _, _, ln in code_object.co_lines()) else None


def _user_frames() -> list[FrameType]:
    frames = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if sites.is_users(frame.f_code.co_filename):
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


def holders_of(objs: list[Any], ignore: set[int]) -> list[Holder | None]:
    """The best description of what holds each of `objs`: a variable, else a named container or an object's attribute.

    One scan of the heap finds the referrers of them all. `ignore` holds the ids of the caller's own lists and
    frames, which refer to the objects too.
    """
    frames = _user_frames()
    referrers = gc.get_referrers(*objs)
    ignore = ignore | {id(frames), id(objs), id(referrers)}
    return [_holder(obj, frames, [r for r in referrers if _refers_to(r, obj)], ignore) for obj in objs]


def _refers_to(referrer: Any, obj: Any) -> bool:
    return any(referent is obj for referent in gc.get_referents(referrer))


def _holder(obj: Any, frames: list[FrameType], referrers: list[Any], ignore: set[int]) -> Holder | None:
    named = _name_in_frames(obj, frames)
    if named is not None:
        name, scope, code = named
        return Holder(f"variable `{name}` ({scope})", name, code)
    for referrer in referrers:
        if id(referrer) in ignore or isinstance(referrer, (FrameType, ModuleType)):
            continue
        if isinstance(referrer, _CONTAINERS):
            found = _container_holder(referrer, frames, ignore, _NESTING)
            if found is not None:
                return found
        elif hasattr(referrer, "__dict__"):
            attribute = _attribute_name(referrer, obj)
            if attribute is not None:
                return Holder(f"attribute `{attribute}` of a {type(referrer).__name__}", attribute, _defining_file(referrer))
    return None


_NESTING = 2  # containers inside containers followed outwards: outputs.append({"loss": loss}) is a dict in a list


def _container_holder(container: Any, frames: list[FrameType], ignore: set[int], depth: int) -> Holder | None:
    """The variable or attribute that holds `container`, or (up to `depth` levels out) a container holding it."""
    named = _name_in_frames(container, frames)
    if named is not None:
        name, scope, filename = named
        return Holder(f"{_kind(container)} `{name}` ({scope})", name, filename)
    ignore = ignore | {id(container)}
    referrers = gc.get_referrers(container)
    owner = _attribute_owner(container, referrers, ignore)
    if owner is not None or depth == 0:
        return owner
    for referrer in referrers:
        if id(referrer) in ignore or not isinstance(referrer, _CONTAINERS) or _is_namespace(referrer, frames):
            continue
        outer = _container_holder(referrer, frames, ignore, depth - 1)
        if outer is not None:
            inner = f"a {_kind(container)} in it" if depth == _NESTING else f"a {_kind(container)} inside"
            return Holder(f"{outer.description} (through {inner})", outer.name, outer.filename)
    return None


def _is_namespace(mapping: Any, frames: list[FrameType]) -> bool:
    """A frame's globals or locals: they hold every variable, not a tensor the user put there."""
    return any(mapping is frame.f_globals or mapping is frame.f_locals for frame in frames)


def _attribute_owner(container: Any, referrers: list[Any], ignore: set[int]) -> Holder | None:
    """A container that is some object's attribute (`self.losses`), among the container's referrers."""
    for referrer in referrers:
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


def kept_by_frames(wanted: Callable[[Any], bool]) -> dict[int, tuple[Any, list[Holder]]]:
    """The objects `wanted` accepts that the user's frames keep, by id, each with what holds it, described as
    holders_of describes it: a variable, a container one names (or a container inside one, _NESTING levels), or an
    attribute of an object one names (`self.losses`). The nearest holder comes first: a variable, then the shallowest
    container, in the frames' order."""
    found: dict[int, tuple[Any, list[Holder]]] = {}
    held = sorted(_kept(_user_frames(), wanted), key=lambda entry: entry[0])  # stable: the frames' order within a depth
    for _, obj, holder in held:
        holders = found.setdefault(id(obj), (obj, []))[1]
        if holder not in holders:
            holders.append(holder)
    return found


def _kept(frames: list[FrameType], wanted: Callable[[Any], bool]) -> Iterator[tuple[int, Any, Holder]]:
    """(depth, object, holder) for every wanted object the frames reach; depth orders the holders as holders_of would
    try them."""
    for frame in frames:
        module_level = frame.f_locals is frame.f_globals
        filename = frame.f_code.co_filename
        scopes = [(frame.f_locals, "global" if module_level else f"local in {frame.f_code.co_name}")]
        if not module_level:
            scopes.append((frame.f_globals, "global"))
        for namespace, scope in scopes:
            for name, value in list(namespace.items()):
                if wanted(value):
                    yield 0, value, Holder(f"variable `{name}` ({scope})", name, filename)
                elif issubclass(type(value), _CONTAINERS):
                    yield from _in_container(value, f"{_kind(value)} `{name}` ({scope})", name, filename, wanted)
                else:
                    yield from _in_attributes(value, wanted)


def _in_container(
    container: Any, description: str, name: str, filename: str | None, wanted: Callable[[Any], bool], through: str = ""
) -> Iterator[tuple[int, Any, Holder]]:
    """The wanted objects in a container named `description`, and in the containers inside it (_NESTING levels);
    `through` says, in holders_of's words, which containers lead from the named one to this one."""
    depth = 1 + through.count("(through")
    items = list(container.values() if issubclass(type(container), dict) else container)
    for item in items:
        if wanted(item):
            yield depth, item, Holder(description + through, name, filename)
    if depth > _NESTING:
        return
    for item in items:
        if issubclass(type(item), _CONTAINERS):
            # from the tensor outwards, the container holding it is "in it", those between it and the named one "inside"
            inner = through.replace(" in it)", " inside)") + f" (through a {_kind(item)} in it)"
            yield from _in_container(item, description, name, filename, wanted, inner)


def _in_attributes(owner: Any, wanted: Callable[[Any], bool]) -> Iterator[tuple[int, Any, Holder]]:
    """The wanted objects an instance's attributes hold, or hold in containers (`self.losses`)."""
    kind = type(owner)
    if kind.__dictoffset__ == 0 or issubclass(kind, (ModuleType, type, FunctionType)):
        return
    try:  # not vars(): a proxy without a __dict__ of its own would answer through its __getattr__
        attributes = object.__getattribute__(owner, "__dict__")
    except AttributeError:
        return
    for attribute, value in list(attributes.items()):
        if wanted(value):
            yield 1, value, Holder(f"attribute `{attribute}` of a {kind.__name__}", attribute, _defining_file(owner))
        elif issubclass(type(value), _CONTAINERS):
            description = f"{_kind(value)} `{attribute}`, an attribute of a {kind.__name__}"
            yield from _in_container(value, description, attribute, _defining_file(owner), wanted)
