"""How much of PyTorch 2.13's public API glassgrad has, namespace by namespace.

    python tools/coverage.py                  # the table (Markdown)
    python tools/coverage.py --list lacking   # and the lacking names, grouped by theme
    python tools/coverage.py --list groups    # the exclusion groups with their counts and reasons
    python tools/coverage.py --list modules   # each measured module: does glassgrad import it
    python tools/coverage.py --namespace torch.random   # only these modules (repeatable), no walk
    python tools/coverage.py --list excluded  # or: present, filtered, stale-exclusions

Run it against the installed PyTorch 2.13 and the glassgrad on the path (`make coverage`). It
measures; it keeps no numbers of its own, so re-running it after names land is all it takes.

The namespaces: every public submodule of the installed PyTorch, found by walking its package with
pkgutil (public: no segment of the dotted path starts with an underscore), plus torch.Tensor and
torch.utils._pytree. A submodule that an exclusion group takes whole (`modules` in
coverage_exclusions.toml: torch.ao, torch.export, torch.fx, torch.xpu, ...) is not walked into, and one
that does not import in this environment (torch.utils.tensorboard without tensorboard) is reported, not
counted. The table has a row per namespace of NAMESPACES (torch, torch.Tensor, torch.nn,
torch.nn.functional, ...) and one per other top-level submodule, which takes the names of every module
under it (torch.nn.utils.rnn counts in torch.nn's row); its `modules` column says how many of a row's
modules glassgrad can import.

A name of a PyTorch namespace is *public* when all of these hold:

1. it is in `dir()` of the namespace and has no leading underscore (which also drops dunders);
2. it is not a module: submodules (torch.nn.init) are namespaces, not names, and the standard-library
   modules that PyTorch's files import (torch.os, torch.nn.functional.warnings) are noise;
3. it is PyTorch's own: a class or function whose `__module__` is outside `torch` (typing.Optional,
   collections.abc.Callable, functools.wraps imported by torch.cuda or torch.optim.lr_scheduler) is an
   import, and a plain value (a dict, str, bool, float) counts only when its type is PyTorch's
   (torch.float32, torch.strided) or the namespace's `__all__` lists it (torch.pi), which drops
   docstring templates such as torch.fft.common_args and flags such as torch.nn.functional.TYPE_CHECKING;
4. outside torch.Tensor, a C++ binding (a builtin function, or a class defined in C: a static type, a
   pybind11 class, or one from torch._C) counts only when it is documented, meaning it carries a
   docstring. PyTorch attaches one to every function of its reference pages (torch/_torch_docs.py,
   add_docstr); in 2.13, the 226 undocumented builtins of `torch` are ATen's internal entry points
   (torch.cudnn_*, torch.native_*, torch.batch_norm_elemt, torch.abs_, ...) and its 104 undocumented
   classes mostly TorchScript's IR and type system (torch.Graph, torch.Node, torch.ListType, ...).
   The `[undocumented_public]` table of coverage_exclusions.toml takes back 35 by hand: bindings
   without a docstring that are on PyTorch's reference pages all the same (torch.Size, torch.dtype,
   torch.FloatTensor) or that programs commonly call (torch.relu, torch.log_softmax);
5. on torch.Tensor every attribute of the class that passes rule 1 counts: the class is the API, and
   its undocumented methods include the core ones (Tensor.data, Tensor.dtype, Tensor.grad_fn);
6. outside NAMESPACES, a module that defines `__all__` exports only what it lists: PyTorch's own rule for
   a module's public API (its test_public_bindings checks it), which keeps out the helpers a module
   imports for itself;
7. a name is counted once: an object that several namespaces expose counts in the shallowest
   (torch.nn.Linear, not torch.nn.modules.linear.Linear), at equal depth in the one whose module defines
   it (torch.overrides.is_tensor_like, not torch.autograd's import of it).

Rules 3 and 4 do not delete names silently: `--list filtered` shows what they dropped.

Each public name is then exactly one of:

- *excluded*: coverage_exclusions.toml lists it (by name or by a glob on the last component) in a
  group with a reason: what glassgrad does not aim to have (sparse and quantized tensors, complex and
  bfloat16 dtypes, compiler internals, CUDA runtime plumbing, ...) and what is not API (internals,
  removed and deprecated names). Excluded names are counted apart and left out of the percentage;
- *present*: glassgrad's matching namespace resolves it (getattr, with AttributeError, including
  glassgrad's NotImplementedInGlassgrad, meaning absent) and it is not a stub, meaning a function (or a
  class's __init__ or __new__) whose whole body raises NotImplementedError;
- *lacking*: the rest. A missing glassgrad namespace (glassgrad.fft) lacks all its names.

present% = present / (present + lacking). An excluded name that glassgrad has anyway is a *stale
exclusion*: it is reported (`--list stale-exclusions`), counted as present, and makes the exit status 1.

How a present name is tested, as far as can be told cheaply:

- *registry*: it is an entry of glassgrad.ops.REGISTRY (or the very same function object as one);
  tests/ops/test_registry_coverage.py makes every entry have an OpInfo, which the property tests run
  against PyTorch (forward, first and second derivatives, errors) and finite differences;
- *tests*: otherwise, the name occurs in a test file under tests/ as an attribute (`lib.nn.Linear`),
  an imported name, a string literal (`getattr(lib.nn, "ReLU")` tables) or an attribute inside a string
  literal that parses as code (`"m.cuda.synchronize()"` evaluated on both libraries). An upper bound:
  something there uses the name, not necessarily comparing it with PyTorch;
- *untested*: neither.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fnmatch
import importlib
import inspect
import pkgutil
import sys
import textwrap
import tomllib
import types
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXCLUSIONS = Path(__file__).with_name("coverage_exclusions.toml")
THEMES = Path(__file__).with_name("coverage_themes.toml")

# The namespaces with a row of their own in the table; every other public submodule counts in the row of
# its top-level package (torch.nn.utils.rnn in torch.nn's). torch.utils._pytree is the one private module
# counted: transformers and Lightning reach it (issue 33).
NAMESPACES = (
    "torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special",
    "torch.autograd", "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.cuda",
    "torch.utils._pytree", "torch.compiler", "torch.multiprocessing",  # what transformers and Lightning reach (issue 33)
)
GOAL_NAMESPACES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional")  # issue 18's >= 97% target
GOAL = 0.97

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: unset for classes defined statically in C
_STUB_ERRORS = {"NotImplementedError", "NotImplementedInGlassgrad"}


@dataclass(frozen=True)
class Group:
    """A set of PyTorch names that one reason keeps out of the count."""

    id: str
    reason: str
    names: frozenset[str]  # qualified: "torch.Tensor.to_sparse"
    patterns: tuple[str, ...]  # "torch.Tensor.*sparse*": the glob applies to the last component only
    modules: tuple[str, ...] = ()  # "torch.ao": whole submodules, with everything under them, never walked

    def matches(self, qualified: str) -> bool:
        return qualified in self.names or any(pattern_matches(p, qualified) for p in self.patterns)

    def covers_module(self, module: str) -> bool:
        return any(module == m or module.startswith(m + ".") for m in self.modules)


def pattern_matches(pattern: str, qualified: str) -> bool:
    """A glob on the last component within one namespace, so "torch.*_" never reaches torch.nn."""
    space, _, glob = pattern.rpartition(".")
    namespace, _, name = qualified.rpartition(".")
    return space == namespace and fnmatch.fnmatchcase(name, glob)


@dataclass(frozen=True)
class Exclusions:
    groups: tuple[Group, ...]
    undocumented_public: frozenset[str]  # rule 4's exceptions, qualified

    def group_of(self, qualified: str) -> list[Group]:
        return [group for group in self.groups if group.matches(qualified)]

    def module_group(self, module: str) -> Group | None:
        return next((group for group in self.groups if group.covers_module(module)), None)


@dataclass
class Name:
    namespace: str  # PyTorch's: "torch.nn.functional"
    name: str
    status: str  # "present", "lacking" or "excluded"
    group: str | None = None  # the exclusion group, also kept for a stale exclusion
    tested: str | None = None  # for present names: "registry", "tests" or "untested"

    @property
    def qualified(self) -> str:
        return f"{self.namespace}.{self.name}"


@dataclass
class Report:
    names: list[Name]
    filtered: dict[str, list[str]]  # namespace -> names that rules 3 and 4 dropped
    modules: dict[str, bool] = field(default_factory=dict)  # each measured module -> glassgrad imports it
    unimportable: dict[str, str] = field(default_factory=dict)  # PyTorch module -> why it does not import here
    excluded_modules: dict[str, str] = field(default_factory=dict)  # whole excluded module -> its group
    unknown_exclusions: list[str] = field(default_factory=list)  # entries naming no public name
    ambiguous: list[str] = field(default_factory=list)  # public names that two groups claim

    def in_namespace(self, namespace: str) -> list[Name]:
        return [n for n in self.names if n.namespace == namespace]

    @property
    def stale(self) -> list[Name]:
        return [n for n in self.names if n.status == "present" and n.group is not None]

    def counts(self, namespace: str) -> Counter[str]:
        return Counter(n.status for n in self.in_namespace(namespace))


# -- which PyTorch names are public -----------------------------------------------------------------


def load_exclusions(path: Path = EXCLUSIONS) -> Exclusions:
    data = tomllib.loads(path.read_text())
    groups = tuple(
        Group(g["id"], g["reason"], frozenset(g.get("names", ())), tuple(g.get("patterns", ())), tuple(g.get("modules", ())))
        for g in data["exclude"]
    )
    return Exclusions(groups, frozenset(data["undocumented_public"]["names"]))


def resolve(namespace: str, root: str) -> Any:
    """The module (or the Tensor class) `namespace` names under `root` ("torch" or "glassgrad"), or None.

    Imported the way a program spells it (`import torch.fft`), so a glassgrad module that exists but
    that glassgrad/__init__.py does not import still counts."""
    path = root + namespace.removeprefix("torch")
    if namespace == "torch.Tensor":
        return importlib.import_module(root).Tensor
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as error:
        if not path.startswith(str(error.name)):  # a module that exists but fails to import is a bug to show
            raise
        return None


def _is_binding(obj: Any) -> bool:
    if isinstance(obj, types.BuiltinFunctionType):
        return True
    return isinstance(obj, type) and (
        not obj.__flags__ & _HEAPTYPE or type(obj).__name__ == "pybind11_type" or obj.__module__.startswith("torch._C")
    )


def _is_documented(obj: Any) -> bool:
    doc = getattr(obj, "__doc__", None)
    return isinstance(doc, str) and bool(doc.strip())


def _own(obj: Any, namespace_all: set[str], name: str) -> bool:
    """Rule 3: PyTorch's own object, not something its source imported."""
    if isinstance(obj, type | types.FunctionType | types.BuiltinFunctionType):
        return str(getattr(obj, "__module__", "") or "").startswith("torch")
    return name in namespace_all or str(type(obj).__module__).startswith("torch")


def public_modules(exclusions: Exclusions) -> tuple[list[str], dict[str, str]]:
    """(modules, excluded): every public submodule of the installed PyTorch (no path segment starts with
    an underscore), shallowest first, found by pkgutil without importing any; and the submodules that
    an exclusion group takes whole, which are not walked into (-> the group's id)."""
    import torch

    modules, excluded = [], {}
    stack = [("torch", list(torch.__path__))]
    while stack:
        package, path = stack.pop()
        for info in pkgutil.iter_modules(path, package + "."):
            if info.name.rpartition(".")[2].startswith("_"):
                continue
            group = exclusions.module_group(info.name)
            if group is not None:
                excluded[info.name] = group.id
                continue
            modules.append(info.name)
            if info.ispkg:
                stack.append((info.name, [str(Path(info.module_finder.path) / info.name.rpartition(".")[2])]))  # type: ignore[union-attr]
    return sorted(modules, key=lambda m: (m.count("."), m)), excluded


def namespaces(exclusions: Exclusions) -> list[str]:
    """What `make coverage` measures: the table's own namespaces, then every other public submodule."""
    modules, _ = public_modules(exclusions)
    return list(NAMESPACES) + [m for m in modules if m not in NAMESPACES]


def public_names(namespace: str, exclusions: Exclusions) -> tuple[list[str], list[str]]:
    """(public, filtered): the names of PyTorch's `namespace` that pass the docstring's rules, and
    those that rules 3 and 4 dropped (rules 1 and 2 drop what nobody would count)."""
    owner = resolve(namespace, "torch")
    namespace_all = set(getattr(owner, "__all__", ()) or ())
    public, filtered = [], []
    for name in sorted(dir(owner)):
        if name.startswith("_"):
            continue
        if namespace not in NAMESPACES and namespace_all and name not in namespace_all:
            continue  # rule 6: outside the table's own namespaces, a module with __all__ says what it exports
        with warnings.catch_warnings():  # reading a deprecated name (torch.cuda.has_half) warns
            warnings.simplefilter("ignore")
            obj = getattr(owner, name)
        if isinstance(obj, types.ModuleType):
            continue
        if namespace != "torch.Tensor" and (
            not _own(obj, namespace_all, name)
            or (_is_binding(obj) and not _is_documented(obj) and f"{namespace}.{name}" not in exclusions.undocumented_public)
        ):
            filtered.append(name)
        else:
            public.append(name)
    return public, filtered


# -- whether glassgrad has a name ------------------------------------------------------------------


def _raises_only_not_implemented(fn: Any) -> bool:
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None or not _STUB_ERRORS & set(code.co_names):  # cheap: most functions never name the error
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef) else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id in _STUB_ERRORS


def is_stub(obj: Any) -> bool:
    """A name that exists only to raise NotImplementedError when used."""
    if isinstance(obj, type):
        return any(
            _raises_only_not_implemented(obj.__dict__[method])
            for method in ("__init__", "__new__")  # an abstract forward or step is not a stub
            if isinstance(obj.__dict__.get(method), types.FunctionType)
        )
    return _raises_only_not_implemented(obj) if callable(obj) else False


def has(owner: Any, name: str) -> bool:
    if owner is None:
        return False
    try:
        obj = getattr(owner, name)
    except AttributeError:  # glassgrad's NotImplementedInGlassgrad is one
        return False
    return not is_stub(obj)


# -- how a present name is tested -------------------------------------------------------------------


def _registry() -> tuple[set[str], set[int]]:
    from glassgrad.ops import REGISTRY

    return set(REGISTRY), {id(fn) for fn in REGISTRY.values()}


def registry_key(namespace: str, name: str) -> str:
    """REGISTRY's key for a PyTorch name: "glassgrad.nn.functional.relu", "Tensor.add_"."""
    if namespace == "torch.Tensor":
        return f"Tensor.{name}"
    return f"glassgrad{namespace.removeprefix('torch')}.{name}"


def names_in_tests(tests: Path = ROOT / "tests") -> set[str]:
    """Attribute names, imported names and identifier-like string literals of every test file, and the
    attribute names inside string literals that are code (tests that eval "m.cuda.synchronize()" on both
    libraries)."""
    found: set[str] = set()

    def collect(tree: ast.AST, strings_are_code: bool) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.ImportFrom):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.isidentifier():
                    found.add(node.value)
                elif strings_are_code:
                    with contextlib.suppress(SyntaxError, ValueError):  # prose, not code
                        collect(ast.parse(node.value.strip()), strings_are_code=False)

    for path in sorted(tests.rglob("*.py")):
        if path.name == "test_coverage_tool.py":  # this tool's own test names PyTorch names without testing them
            continue
        collect(ast.parse(path.read_text(), str(path)), strings_are_code=True)
    return found


# -- the measurement --------------------------------------------------------------------------------


def _audit(exclusions: Exclusions, public: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(entries of the exclusion file that name no public name, public names claimed by two groups)."""
    every = {f"{ns}.{n}" for ns, names in public.items() for n in names}
    unknown = []
    for group in exclusions.groups:
        unknown += [f"{group.id}: {name}" for name in sorted(group.names - every)]
        unknown += [f"{group.id}: {p}" for p in group.patterns if not any(pattern_matches(p, q) for q in every)]
    unknown += [f"undocumented_public: {n}" for n in sorted(exclusions.undocumented_public - every)]
    ambiguous = sorted(q for q in every if len(exclusions.group_of(q)) > 1)
    return unknown, ambiguous


def _identity(namespace: str, name: str, obj: Any) -> object:
    """What makes two public names one: the same object (torch.nn.modules.linear.Linear is torch.nn.Linear),
    except for plain values, which equal ones share by accident."""
    if obj is None or isinstance(obj, bool | int | float | str | bytes | tuple):
        return (namespace, name)
    return id(obj)


def _import_error(namespace: str) -> str | None:
    """Why PyTorch's `namespace` does not import in this environment (an optional dependency such as
    tensorboard is missing), or None."""
    try:
        resolve(namespace, "torch")
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def _count_once(split: dict[str, tuple[list[str], list[str]]]) -> dict[str, tuple[list[str], list[str]]]:
    """Keep each object in one namespace: the shallowest that has it (torch.nn.Linear, not
    torch.nn.modules.linear.Linear); at equal depth the one that defines it (torch.overrides.is_tensor_like,
    not torch.autograd's import of it), then the first in `split`'s order."""
    claims: dict[object, list[tuple[int, bool, int, str]]] = {}
    keys: dict[tuple[str, str], object] = {}
    for order, (namespace, (public, _)) in enumerate(split.items()):
        owner = resolve(namespace, "torch")
        for name in public:
            obj = getattr(owner, name)
            module = str(getattr(obj, "__module__", "") or "")
            elsewhere = not (module == namespace or module.startswith(namespace + "."))
            keys[namespace, name] = key = _identity(namespace, name, obj)
            claims.setdefault(key, []).append((namespace.count("."), elsewhere, order, namespace))
    home = {key: min(claimants)[3] for key, claimants in claims.items()}
    return {ns: ([n for n in public if home[keys[ns, n]] == ns], filtered) for ns, (public, filtered) in split.items()}


def measure(exclusions: Exclusions | None = None, measured: Iterable[str] | None = None) -> Report:
    """Every public name of the `measured` namespaces (by default all, see `namespaces`), classified as the
    module docstring says. A name two namespaces share counts once, in the first: the table's own
    namespaces first, then the shallowest module."""
    exclusions = exclusions or load_exclusions()
    excluded_modules: dict[str, str] = {}
    if measured is None:
        measured = namespaces(exclusions)
        excluded_modules = public_modules(exclusions)[1]
    with warnings.catch_warnings():  # glassgrad's deprecated names warn when read, as PyTorch's do
        warnings.simplefilter("ignore")
        unimportable = {ns: why for ns in measured if (why := _import_error(ns)) is not None}
        split = _count_once({ns: public_names(ns, exclusions) for ns in measured if ns not in unimportable})
        registry_names, registry_ids = _registry()
        mentioned = names_in_tests()
        names, modules = [], {}
        for namespace, (public, _) in split.items():
            mine = resolve(namespace, "glassgrad")
            modules[namespace] = mine is not None
            for name in public:
                groups = exclusions.group_of(f"{namespace}.{name}")
                entry = Name(namespace, name, "lacking", groups[0].id if groups else None)
                if has(mine, name):
                    entry.status = "present"
                    if registry_key(namespace, name) in registry_names or id(getattr(mine, name)) in registry_ids:
                        entry.tested = "registry"
                    else:
                        entry.tested = "tests" if name in mentioned else "untested"
                elif groups:
                    entry.status = "excluded"
                names.append(entry)
    report = Report(names, {ns: filtered for ns, (_, filtered) in split.items()}, modules, unimportable, excluded_modules)
    report.unknown_exclusions, report.ambiguous = _audit(exclusions, {ns: public for ns, (public, _) in split.items()})
    if excluded_modules:  # a whole-module exclusion must name a public module of this PyTorch
        report.unknown_exclusions += [
            f"{group.id}: {module}" for group in exclusions.groups for module in group.modules if module not in excluded_modules
        ]
    return report


# -- output -----------------------------------------------------------------------------------------


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def row_of(namespace: str) -> str:
    """The table row a module's names count in: its own when the table has one, else its top-level package's."""
    own = [ns for ns in NAMESPACES if namespace == ns or (ns != "torch" and namespace.startswith(ns + "."))]
    return max(own, key=len) if own else ".".join(namespace.split(".")[:2])


def table(report: Report) -> str:
    """The Markdown table: a row per namespace of NAMESPACES and per other top-level submodule, one per
    submodule excluded whole, then the goal namespaces' total and the grand total. `modules` says how many
    of the row's public modules glassgrad can import."""
    header = (
        "| namespace | modules | public | excluded | present | lacking | present % | registry | tests | untested |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    )
    rows = [header]

    def row(label: str, selected: list[Name], modules: list[str]) -> str:
        status = Counter(n.status for n in selected)
        tested = Counter(n.tested for n in selected if n.status == "present")
        present, lacking = status["present"], status["lacking"]
        imported = sum(report.modules[m] for m in modules)
        return (
            f"| {label} | {imported}/{len(modules)} | {len(selected)} | {status['excluded']} | {present} | {lacking} "
            f"| {_percent(present, present + lacking)} | {tested['registry']} | {tested['tests']} | {tested['untested']} |"
        )

    labels = list(dict.fromkeys([*NAMESPACES, *sorted({row_of(m) for m in report.modules})]))
    for label in labels:
        modules = [m for m in report.modules if row_of(m) == label]
        if modules:
            rows.append(row(f"`{label}`", [n for n in report.names if row_of(n.namespace) == label], modules))
    for module, group in sorted(report.excluded_modules.items()):
        if row_of(module) == module:  # a top-level package excluded whole; deeper ones are listed by --list groups
            rows.append(f"| `{module}` | excluded: {group} | | | | | | | | |")
    goal = [n for n in report.names if n.namespace in GOAL_NAMESPACES]
    if goal and len(report.modules) > 1:
        rows.append(row(f"**goal namespaces** (target {GOAL:.0%})", goal, [m for m in report.modules if m in GOAL_NAMESPACES]))
        rows.append(row("**all**", report.names, list(report.modules)))
    return "\n".join(rows)


Theme = tuple[str, dict[str, list[str]]]  # (title, {namespace: globs on the last component})


def themes(path: Path = THEMES) -> list[Theme]:
    """The to-do list's themes, in file order: the first whose glob matches a name takes it."""
    return [(t.pop("theme"), t) for t in tomllib.loads(path.read_text())["theme"]]


def by_theme(names: Iterable[Name], theme_list: list[Theme]) -> dict[str, list[Name]]:
    grouped: dict[str, list[Name]] = {title: [] for title, _ in theme_list}
    grouped["other"] = []
    for entry in names:
        title = next(
            (t for t, globs in theme_list if any(fnmatch.fnmatchcase(entry.name, g) for g in globs.get(entry.namespace, ()))),
            "other",
        )
        grouped[title].append(entry)
    return {title: entries for title, entries in grouped.items() if entries}


def _short(entry: Name) -> str:
    return entry.qualified.removeprefix("torch.")


def listing(report: Report, kind: str) -> Iterator[str]:
    if kind == "lacking":
        lacking = [n for n in report.names if n.status == "lacking"]
        for theme, entries in by_theme(lacking, themes()).items():
            yield f"\n**{theme}** ({len(entries)}): " + ", ".join(f"`{_short(e)}`" for e in entries)
    elif kind == "groups":
        yield "| exclusion group | names | whole modules | reason |\n|---|--:|--:|---|"
        counts = Counter(n.group for n in report.names if n.status == "excluded")
        module_counts = Counter(report.excluded_modules.values())
        for group in load_exclusions().groups:
            yield f"| {group.id} | {counts[group.id]} | {module_counts[group.id]} | {group.reason} |"
    elif kind == "excluded":
        exclusions = load_exclusions()
        excluded = [n for n in report.names if n.status == "excluded"]
        for group in exclusions.groups:
            entries = [_short(n) for n in excluded if n.group == group.id]
            entries += [f"{m.removeprefix('torch.')} (module)" for m, g in report.excluded_modules.items() if g == group.id]
            yield f"\n**{group.id}** ({len(entries)}): {group.reason}\n  " + ", ".join(f"`{e}`" for e in entries)
    elif kind == "modules":
        for module, imported in report.modules.items():
            yield f"{module}: {'glassgrad imports it' if imported else 'glassgrad lacks it'}"
        for module, why in report.unimportable.items():
            yield f"{module}: not counted, PyTorch's does not import here ({why})"
    elif kind == "present":
        for tested in ("registry", "tests", "untested"):
            entries = [n for n in report.names if n.status == "present" and n.tested == tested]
            yield f"\n**{tested}** ({len(entries)}): " + ", ".join(f"`{_short(e)}`" for e in entries)
    elif kind == "filtered":
        for namespace, names in report.filtered.items():
            if names:
                yield f"\n**{namespace}** ({len(names)} not public): " + ", ".join(f"`{n}`" for n in names)
    elif kind == "stale-exclusions":
        for entry in report.stale:
            yield f"{entry.qualified}: glassgrad has it, but exclusion group {entry.group!r} lists it"


def provenance() -> str:
    """Which glassgrad was measured against which PyTorch: an environment can import another checkout."""
    import torch

    import glassgrad

    return f"glassgrad {glassgrad.__version__} from {Path(glassgrad.__file__).parent}, PyTorch {torch.__version__}"


def problems(report: Report) -> list[str]:
    """What makes the exclusion list dishonest or out of date."""
    return (
        [f"stale exclusion: glassgrad has {n.qualified} (group {n.group!r}): remove it from the list" for n in report.stale]
        + [f"exclusion names no public PyTorch name: {entry}" for entry in report.unknown_exclusions]
        + [f"two exclusion groups claim {q}" for q in report.ambiguous]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--list", action="append", default=[], choices=("lacking", "groups", "excluded", "modules", "present", "filtered", "stale-exclusions"),
        help="also list these names (repeatable)",
    )
    parser.add_argument("--namespace", action="append", help="measure only these PyTorch modules (repeatable)")
    args = parser.parse_args(argv)
    report = measure(measured=args.namespace)
    print(provenance() + "\n")
    print(table(report))
    for kind in args.list:
        print(f"\n### {kind}")
        for line in listing(report, kind):
            print(line)
    trouble = problems(report) if not args.namespace else [p for p in problems(report) if "names no public" not in p]
    for line in trouble:
        print(f"coverage: {line}", file=sys.stderr)
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
