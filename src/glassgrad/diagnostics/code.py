"""The user's code read as code: the `ast` of the files the glass's facts name, never a text search.

The facts (which node was made where, which backward freed it) say *what* happened; this module says
what the user's program *does* at those lines: the loop around the failing backward, whether a tensor's
line is inside that loop, before it, or in a function it calls, and what the loop does with the variable
assigned there (rebinds it from itself, only reads it, grows it, resets it). The patterns and the fixes
(explain.py, watches.py) are chosen from these answers.
"""

from __future__ import annotations

import ast
import linecache
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from .._sites import Site

Loop = ast.For | ast.While | ast.AsyncFor
_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_GROWING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})


@dataclass
class Source:
    """One parsed file, with each node's parent."""

    tree: ast.Module
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def statement_at(self, line: int) -> ast.stmt | None:
        """The innermost statement that covers `line`."""
        covering = [n for n in ast.walk(self.tree) if isinstance(n, ast.stmt) and n.lineno <= line <= (n.end_lineno or n.lineno)]
        return min(reversed(covering), key=_span, default=None)  # the innermost: the shortest, the deepest of equals

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function (or module) whose body holds `node`."""
        return next((a for a in self.ancestors(node) if isinstance(a, _FUNCTIONS)), self.tree)

    def loop_of(self, node: ast.stmt) -> Loop | None:
        """The innermost loop of the same function whose body holds the statement."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, _FUNCTIONS):
                return None
            if isinstance(ancestor, _LOOPS):
                return ancestor
        return None


def _span(node: ast.AST) -> int:
    return (getattr(node, "end_lineno", None) or node.lineno) - node.lineno  # type: ignore[attr-defined]


_cache: dict[str, tuple[object, Source | None]] = {}


def source(filename: str) -> Source | None:
    """The parsed file, cached per file and modification time; None where it cannot be read or parsed."""
    try:
        stamp: object = os.stat(filename).st_mtime_ns
    except OSError:
        stamp = None  # not a file (a notebook cell, exec'd text): linecache may still hold its text
    cached = _cache.get(filename)
    if cached is not None and cached[0] == stamp and stamp is not None:
        return cached[1]
    text = "".join(linecache.getlines(filename))
    parsed: Source | None = None
    if text:
        try:
            parsed = Source(ast.parse(text, filename))
        except (SyntaxError, ValueError):
            parsed = None
    _cache[filename] = (stamp, parsed)
    return parsed


def statement(site: Site | None) -> tuple[Source, ast.stmt] | None:
    """The parsed file and the statement at a site."""
    if site is None:
        return None
    code, line = site
    parsed = source(code.co_filename)
    found = parsed.statement_at(line) if parsed is not None else None
    return (parsed, found) if parsed is not None and found is not None else None


def dotted(node: ast.AST) -> str | None:
    """`h`, `self.hidden`: the name an expression stands for, where it is a plain name or attribute chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _target_names(target: ast.AST) -> list[str]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    name = dotted(target)
    return [name] if name is not None else []


def assigned_names(node: ast.stmt) -> list[str]:
    """The names a statement binds: `out, self.hidden = ...` binds `out` and `self.hidden`."""
    if isinstance(node, ast.Assign):
        return [name for target in node.targets for name in _target_names(target)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return _target_names(node.target)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _target_names(node.target)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [n for item in node.items if item.optional_vars is not None for n in _target_names(item.optional_vars)]
    return []


def reads(node: ast.AST, name: str) -> bool:
    """Whether the expression reads `name` (a plain name or an attribute chain)."""
    return any(dotted(sub) == name and isinstance(getattr(sub, "ctx", None), ast.Load) for sub in ast.walk(node))


Kind = Literal["carried", "accumulated", "precomputed", "fresh", "unknown"]
_RANK = {"accumulated": 0, "carried": 1, "precomputed": 2, "fresh": 3, "unknown": 4}


@dataclass(frozen=True)
class Variable:
    """What a loop does with one variable."""

    name: str
    kind: Kind
    line: int | None = None  # the statement to change: the one that rebinds, adds to, or precomputes it
    reset: int | None = None  # where it is set anew inside the loop, or else an enclosing one (an accumulator's reset)
    reset_outside: bool = False  # the reset is in an enclosing loop: once per pass of that loop, not per iteration
    iteration_start: int | None = None  # the first line of the loop's body: where a carried state is detached


def _in(node: ast.AST, container: ast.AST) -> bool:
    return container.lineno <= node.lineno <= (container.end_lineno or container.lineno)  # type: ignore[attr-defined]


def _growth(node: ast.stmt, name: str) -> bool:
    """Whether the statement grows `name` in place of replacing it: `+=`, `x = x + ...`, `.append(...)`, `x[k] = ...`."""
    if isinstance(node, ast.AugAssign) and dotted(node.target) == name:
        return True
    if isinstance(node, ast.Assign) and any(dotted(t) == name for t in node.targets):
        value = node.value
        return isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) and name in (dotted(value.left), dotted(value.right))
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and dotted(t.value) == name for t in node.targets):
        return True
    return isinstance(node, ast.Expr) and _grows_by_call(node.value, name)


def _grows_by_call(expr: ast.AST, name: str) -> bool:
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in _GROWING_METHODS
        and dotted(expr.func.value) == name
    )


def growing_statements(parsed: Source, name: str, within: ast.AST | None = None) -> list[ast.stmt]:
    """Every statement that grows `name` (inside `within` where given), in line order."""
    root = within if within is not None else parsed.tree
    found = [n for n in ast.walk(root) if isinstance(n, ast.stmt) and _growth(n, name)]
    return sorted(found, key=lambda n: n.lineno)


def classify(parsed: Source, name: str, loop: Loop) -> Variable:
    """What `loop` does with `name`: grows it, rebinds it from itself (carried), only reads a value made before
    it (precomputed), or makes it anew every iteration before reading it (fresh)."""
    body_start = loop.body[0].lineno
    base = {"iteration_start": body_start}
    statements = sorted((n for n in ast.walk(loop) if isinstance(n, ast.stmt) and n is not loop), key=lambda n: n.lineno)
    growing = [n for n in statements if _growth(n, name)]
    binding = [n for n in statements if name in assigned_names(n) and n not in growing]
    if growing:
        resets = [n.lineno for n in binding if not reads(n, name)]
        if resets:
            return Variable(name, "accumulated", growing[0].lineno, resets[0], **base)
        outer = _outer_reset(parsed, name, loop)
        return Variable(name, "accumulated", growing[0].lineno, outer, outer is not None, **base)
    if binding:
        first_bind = binding[0]
        value = getattr(first_bind, "value", None)
        read_before = any(reads(n, name) for n in statements if n.lineno < first_bind.lineno and not _contains(n, first_bind))
        from_itself = value is not None and reads(value, name)
        if from_itself or read_before:
            return Variable(name, "carried", first_bind.lineno, **base)
        return Variable(name, "fresh", first_bind.lineno, **base)
    if any(reads(n, name) for n in statements):
        before = [n for n in ast.walk(parsed.scope_of(loop)) if isinstance(n, ast.stmt) and name in assigned_names(n) and n.lineno < loop.lineno]
        return Variable(name, "precomputed", before[-1].lineno if before else None, **base)
    return Variable(name, "unknown", **base)


def _outer_reset(parsed: Source, name: str, loop: Loop) -> int | None:
    """The line that sets `name` anew (without reading it) in a loop around `loop` (`total = 0` per epoch)."""
    for ancestor in parsed.ancestors(loop):
        if isinstance(ancestor, _FUNCTIONS):
            return None
        if isinstance(ancestor, _LOOPS):
            resets = [
                n.lineno for n in ast.walk(ancestor)
                if isinstance(n, ast.stmt) and name in assigned_names(n) and not _growth(n, name) and not reads(n, name)
            ]
            if resets:
                return min(resets)
    return None


def _contains(outer: ast.stmt, inner: ast.stmt) -> bool:
    return outer is not inner and _in(inner, outer) and not isinstance(outer, ast.Expr)


Place = Literal["inside", "before", "called", "unknown"]


def place(parsed: Source, made: ast.stmt, loop: Loop) -> Place:
    """Where the line that made a tensor stands to the loop that runs the backward."""
    if _in(made, loop) and parsed.scope_of(made) is parsed.scope_of(loop):
        return "inside"
    scope = parsed.scope_of(made)
    if scope is parsed.scope_of(loop):
        return "before" if made.lineno < loop.lineno else "unknown"
    called = {_called_name(n.func) for n in ast.walk(loop) if isinstance(n, ast.Call)}
    name = getattr(scope, "name", None)
    if name is not None and (name in called or (name in ("forward", "__call__") and called)):
        return "called"
    return "unknown"


def _called_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


@dataclass(frozen=True)
class Reading:
    """The user's code around a tensor that a failing or watched backward reached."""

    place: Place
    variable: Variable | None  # what the loop (or, for an attribute, the method) does with the variable made there


def read(made_at: Site | None, backward_at: Site | None) -> Reading | None:
    """Read the code: the loop running the backward at `backward_at`, and the tensor made at `made_at`."""
    made = statement(made_at)
    call = statement(backward_at)
    if made is None:
        return None
    parsed, made_statement = made
    names = assigned_names(made_statement)
    loop = call[0].loop_of(call[1]) if call is not None and call[0] is parsed else None
    if loop is None:
        # No loop around the backward in the same file: the variable may still carry state by itself
        # (`self.hidden = f(self.hidden)` in a forward method), which reading its statement shows.
        attribute = _rebound_attribute(made_statement, names)
        return Reading("called", attribute) if attribute is not None else Reading("unknown", None)
    where = place(parsed, made_statement, loop)
    variable = None
    if where == "called":
        variable = _rebound_attribute(made_statement, names) or _carried_through_call(parsed, made_statement, loop)
    elif names:
        # `out, hidden = rnn(x, hidden)` binds two names: the one the loop carries or grows is the one to name
        variable = min((classify(parsed, name, loop) for name in names), key=lambda v: _RANK[v.kind])
        if where == "before" and variable.kind == "unknown":
            variable = Variable(variable.name, "precomputed", made_statement.lineno)
    return Reading(where, variable)


def _rebound_attribute(made: ast.stmt, names: list[str]) -> Variable | None:
    """An attribute the statement rebinds from its own value (`out, self.hidden = self.lstm(x, self.hidden)`): state
    an object carries from one call to the next."""
    value = getattr(made, "value", made)
    name = next((n for n in names if "." in n and reads(value, n)), None)
    return Variable(name, "carried", made.lineno) if name is not None else None


def _carried_through_call(parsed: Source, made: ast.stmt, loop: Loop) -> Variable | None:
    """A tensor the called function returns, which the loop binds and passes back in (`out, state = cell(x, state)`):
    the variable the loop carries it in."""
    if not isinstance(made, ast.Return):
        return None
    function = getattr(parsed.scope_of(made), "name", None)
    for node in sorted((n for n in ast.walk(loop) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        called = _called_name(node.value.func) if isinstance(node.value, ast.Call) else None
        if called is None or (called != function and function not in ("forward", "__call__")):
            continue
        carried = [v for v in (classify(parsed, name, loop) for name in assigned_names(node)) if v.kind == "carried"]
        if carried:
            return carried[0]
    return None


def carried_alongside(made_at: Site | None, name: str) -> list[Variable]:
    """The other attributes the function of the statement at `made_at` rebinds from their own value together with a
    tensor computed there (`self.z = self.z + k.sum(0)` next to `self.M = self.M + k.T @ v`): they carry the same
    earlier graphs. A counter (`self.steps = self.steps + 1`) reads nothing else and is not one."""
    found = statement(made_at)
    if found is None:
        return []
    parsed, made = found
    scope = parsed.scope_of(made)
    alongside = []
    for node in ast.walk(scope):
        if not isinstance(node, ast.stmt) or node is made or parsed.scope_of(node) is not scope:
            continue
        variable = _rebound_attribute(node, assigned_names(node))
        value = getattr(node, "value", None)
        others = {dotted(n) for n in ast.walk(value) if isinstance(n, (ast.Name, ast.Attribute))} if value else set()
        if variable is not None and variable.name != name and others - {variable.name, None, "self"} - _MODULE_NAMES:
            alongside.append(variable)
    return sorted(alongside, key=lambda v: v.line or 0)


def precomputed_root(backward_at: Site | None) -> Variable | None:
    """The variable a backward in a loop differentiates where the loop only reads it, its value made before the loop
    (`loss = f(W)` then `for ...: loss.backward()`): one graph, backwarded by every iteration."""
    found = statement(backward_at)
    if found is None:
        return None
    parsed, call = found
    loop = parsed.loop_of(call)
    if loop is None:
        return None
    variables = [classify(parsed, name, loop) for name in differentiated(call)]
    return next((v for v in variables if v.kind == "precomputed" and v.line is not None), None)


def first_loss_use(made_at: Site | None, freed_at: Site | None) -> tuple[str, int] | None:
    """Where the loss that the backward at `freed_at` differentiates reads the variable made at `made_at`: the
    variable's name and the loss's line (`errD = bce(netD(fake), ...)` before errD.backward()); None where it does not."""
    made, freeing = statement(made_at), statement(freed_at)
    if made is None or freeing is None or made[0] is not freeing[0]:
        return None
    parsed, call = freeing
    names = assigned_names(made[1])
    scope = parsed.scope_of(call)
    for root in differentiated(call):
        definitions = [d for d in _definitions(parsed, scope, root, call.lineno) if d.lineno > made[1].lineno]
        value = _value(definitions[-1]) if definitions else None
        name = next((n for n in names if value is not None and reads(value, n)), None)
        if name is not None:
            return name, definitions[-1].lineno
    return None


def _inplace_true(call: ast.Call) -> bool:
    return any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def inplace_constructions(modified_at: Site | None, kind: str | None = None) -> list[int]:
    """The lines constructing a module with inplace=True (of class `kind`, where known: `Dropout`) inside the models
    the statement at `modified_at` calls (`D(images)` with `D = nn.Sequential(..., nn.Dropout(0.3, inplace=True))`,
    or a class of the file): the change made inside the model call was one of theirs."""
    found = statement(modified_at)
    if found is None:
        return []
    parsed, changed = found
    calls = [n for n in ast.walk(changed) if isinstance(n, ast.Call)]
    called = {n.func.id for n in calls if isinstance(n.func, ast.Name)}
    # `x = self.activ(x)` in a method: the module is the one its class assigns to self.activ
    own = {dotted(n.func) for n in calls if isinstance(n.func, ast.Attribute) and dotted(n.func.value) == "self"}
    owner = next((a for a in parsed.ancestors(changed) if isinstance(a, ast.ClassDef)), None)
    models: list[ast.AST] = [
        n for n in ast.walk(parsed.tree)
        if (isinstance(n, ast.ClassDef) and n.name in called) or (isinstance(n, ast.Assign) and called & set(assigned_names(n)))
    ]
    models += [n for n in ast.walk(owner) if isinstance(n, ast.Assign) and own & set(assigned_names(n))] if owner else []
    models += [  # `model = Net()`: the class of the file it constructs
        c for m in list(models) if isinstance(m, ast.Assign) for c in ast.walk(parsed.tree)
        if isinstance(c, ast.ClassDef) and c.name in {_called_name(n.func) for n in ast.walk(m.value) if isinstance(n, ast.Call)}
    ]
    lines = {
        n.lineno for model in models for n in ast.walk(model)
        if isinstance(n, ast.Call) and _inplace_true(n) and kind in (None, _called_name(n.func))
    }
    return sorted(lines)


def same_iteration(first: Site | None, second: Site | None) -> bool | None:
    """Whether two backward calls run in one iteration of a loop: True for two statements of one loop body,
    False for one statement run by successive iterations (the same line twice); None where unknown."""
    if first is None or second is None:
        return None
    if first == second:
        return False
    a, b = statement(first), statement(second)
    if a is None or b is None or a[0] is not b[0]:
        return None
    return a[0].loop_of(a[1]) is b[0].loop_of(b[1])


@dataclass(frozen=True)
class Cut:
    """A statement that cut a tensor off its graph (or made it with none), and how."""

    line: int
    how: str  # "detach()", ".item()", "torch.tensor(...)", "a `with torch.no_grad():` block", "torch.rand(...)", ...
    name: str  # the variable the statement binds (or the function that returns it)
    source_name: str | None = None  # the tensor it was cut from, where one is named (`grad_1` in grad_1.detach())
    block: int | None = None  # a grad-mode cut: the `with` line or the decorator's line that turned grad mode off
    kind: Literal["cut", "grad-mode", "created", "checkpoint", "frozen"] = "cut"


_CUTTING_METHODS = {
    "detach": "detach()", "item": ".item()", "numpy": ".numpy()", "tolist": ".tolist()", "detach_": "detach_()",
    "argmax": "argmax()", "argmin": "argmin()", "argsort": "argsort()",  # indices: no gradient flows through them
}
_CUTTING_CALLS = {"tensor": "torch.tensor(...)", "from_numpy": "torch.from_numpy(...)", "as_tensor": "torch.as_tensor(...)"}
# Factories whose tensors require grad only when asked to (requires_grad=True); integer ones never can, so not listed
_CREATING_CALLS = frozenset({
    "rand", "randn", "zeros", "ones", "empty", "full", "tensor", "as_tensor", "arange", "linspace", "eye",
    "rand_like", "randn_like", "zeros_like", "ones_like", "empty_like", "full_like", "FloatTensor", "Tensor",
})
_MODULE_NAMES = frozenset({"torch", "th", "F", "nn", "np"})
_NO_GRAD_BLOCKS = frozenset({"no_grad", "inference_mode"})


def _torch_call(node: ast.AST) -> str | None:
    """`rand` for torch.rand(...) (or th.rand): the name of a call of a torch function, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and dotted(node.func.value) in ("torch", "th"):
        return node.func.attr
    return None


def _reads_a_name(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id not in _MODULE_NAMES for n in ast.walk(node))


def _cut_in(expr: ast.AST) -> tuple[str, str | None] | None:
    """How an expression cuts the graph (and from which name), if it does: torch.tensor(...) only over other
    values (`torch.tensor([a, b])`); over literals it makes a constant, which _created_in reports."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.ctx, ast.Load):
            return ".data", dotted(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            how = _CUTTING_METHODS.get(node.func.attr)
            if how is not None:  # x.argmax(1), or torch.argmax(x, 1): the tensor cut is x
                cut_from = node.args[0] if _torch_call(node) is not None and node.args else node.func.value
                return how, dotted(cut_from)
            how = _CUTTING_CALLS.get(node.func.attr)
            if how is not None and _torch_call(node) is not None and _reads_a_name(node):
                return how, None
    return None


def _requires_grad(call: ast.Call) -> bool:
    return any(k.arg == "requires_grad" and not (isinstance(k.value, ast.Constant) and k.value.value is False) for k in call.keywords)


def _created_in(expr: ast.AST) -> str | None:
    """`torch.rand(...)` where the whole expression is a torch factory call without requires_grad=True: a tensor with no
    graph behind it, and none started."""
    name = _torch_call(expr)
    if name in _CREATING_CALLS and isinstance(expr, ast.Call) and not _requires_grad(expr):
        return f"torch.{name}(...)"
    return None


def _reentrant_checkpoint(expr: ast.AST) -> bool:
    """checkpoint(fn, *inputs) with the reentrant variant (use_reentrant=True, the default of older PyTorch): it records
    a node only when one of its tensor inputs requires grad; the module's parameters do not count."""
    if not (isinstance(expr, ast.Call) and _called_name(expr.func) == "checkpoint"):
        return False
    flag = next((k.value for k in expr.keywords if k.arg == "use_reentrant"), None)
    return not (isinstance(flag, ast.Constant) and flag.value is False)


def _turns_grad_off(call: ast.AST) -> bool:
    """no_grad(), inference_mode(), or set_grad_enabled(<anything but True>): grad mode off, or off when its argument
    says so (`set_grad_enabled(self.training)` in eval mode)."""
    name = _called_name(call.func if isinstance(call, ast.Call) else call)
    if name == "set_grad_enabled" and isinstance(call, ast.Call):
        return not (call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value is True)
    return name in _NO_GRAD_BLOCKS


def grad_off_block(parsed: Source, node: ast.AST) -> tuple[int, str] | None:
    """The `with torch.no_grad():` (inference_mode, set_grad_enabled(flag)) around a statement in its function, or the
    function's @torch.no_grad() / @torch.inference_mode() decorator: its line and its text."""
    for ancestor in parsed.ancestors(node):
        if isinstance(ancestor, (ast.With, ast.AsyncWith)):
            for item in ancestor.items:
                call = item.context_expr
                if _turns_grad_off(call):
                    return ancestor.lineno, f"`with {ast.unparse(call)}:`"
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in ancestor.decorator_list:
                if _called_name(decorator.func if isinstance(decorator, ast.Call) else decorator) in _NO_GRAD_BLOCKS:
                    return decorator.lineno, f"@{ast.unparse(decorator)}"
            return None
        if isinstance(ancestor, ast.Lambda):
            return None
    return None


def grad_off_caller(stack: list[Site]) -> tuple[Site, int, str] | None:
    """The innermost grad-mode block (or decorator) around these frames, the failing call first and then its callers
    outward: the frame it encloses, the block's line and its text."""
    for site in stack:
        found = statement(site)
        block = grad_off_block(*found) if found is not None else None
        if block is not None:
            return (site, *block)
    return None


def differentiated(call: ast.stmt) -> list[str]:
    """The names a failing `x.backward()` or `torch.autograd.grad(x, ...)` differentiates (`y` in y.sum().backward())."""
    for node in ast.walk(call):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node.func)
        if name == "backward" and isinstance(node.func, ast.Attribute) and dotted(node.func.value) != "torch.autograd":
            target: ast.AST = node.func.value
        elif name in ("grad", "backward") and node.args:  # torch.autograd.grad(y, x), torch.autograd.backward(y)
            target = node.args[0]
        else:
            continue
        # y.sum().mean()[0] stands for y; an expression of several tensors for each of them
        expression = target
        while True:
            if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute):
                target = target.func.value
            elif isinstance(target, ast.Subscript):
                target = target.value
            else:
                break
        whole = dotted(target)
        if whole is not None and whole.split(".")[0] not in _MODULE_NAMES:
            return [whole]
        return sorted({n.id for n in ast.walk(expression) if isinstance(n, ast.Name) and n.id not in _MODULE_NAMES})
    return []


def _value(node: ast.stmt) -> ast.AST | None:
    """What a defining statement puts into its variable: the assigned value, the appended arguments, the returned value."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.Tuple(elts=list(node.value.args), ctx=ast.Load())
    return getattr(node, "value", None)


def _definitions(parsed: Source, scope: ast.AST, name: str, before: int) -> list[ast.stmt]:
    """The statements of `scope` before line `before` that bind or grow `name` (`x = ...`, `x[i] += ...`, `x.append(...)`)."""
    return [
        n for n in ast.walk(scope)
        if isinstance(n, ast.stmt) and n.lineno < before and parsed.scope_of(n) is scope
        and (name in assigned_names(n) or _growth(n, name) or _grows_subscript(n, name))
    ]


def _grows_subscript(node: ast.stmt, name: str) -> bool:
    target = node.target if isinstance(node, ast.AugAssign) else None
    return isinstance(target, ast.Subscript) and dotted(target.value) == name


def _functions(parsed: Source) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in ast.walk(parsed.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _forwards(parsed: Source) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The forward method of each class of the file that has one, by class name."""
    return {
        c.name: f for c in ast.walk(parsed.tree) if isinstance(c, ast.ClassDef)
        for f in c.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == "forward"
    }


def cuts(failing_call: Site | None, budget: int = 40) -> list[Cut]:
    """Follow the definitions of what the failing call differentiates back to the statements that cut the graph or
    made a tensor without one: every definition of each name (the code does not say which ran), and the return
    statements of the file's functions it is computed by. Cuts of a graph come first: a tensor created without
    requires_grad is named only where nothing cut a graph."""
    found = statement(failing_call)
    if found is None:
        return []
    parsed, call = found
    functions = _functions(parsed)
    forwards = _forwards(parsed)
    scope = parsed.scope_of(call)
    pending: list[tuple[ast.stmt, str]] = [(d, n) for n in differentiated(call) for d in _definitions(parsed, scope, n, call.lineno)]
    seen: set[ast.stmt] = set()
    result: list[Cut] = []
    while pending and budget > 0:
        definition, name = pending.pop(0)
        if definition in seen:
            continue
        seen.add(definition)
        budget -= 1
        value = _value(definition)
        block = grad_off_block(parsed, definition)
        if block is not None:
            how = f"a {block[1]} block" if block[1].startswith("`") else f"the function decorated with {block[1]}"
            result.append(Cut(definition.lineno, how, name, block=block[0], kind="grad-mode"))
            continue
        if value is None:
            continue
        how = _cut_in(value)
        if how is not None:
            result.append(Cut(definition.lineno, how[0], name, how[1]))
            continue
        if _reentrant_checkpoint(value):
            result.append(Cut(definition.lineno, "checkpoint(..., use_reentrant=True)", name, kind="checkpoint"))
            continue
        created = _created_in(value)
        if created is not None:
            result.append(Cut(definition.lineno, created, name, kind="created"))
            continue
        here = parsed.scope_of(definition)
        for node in ast.walk(value):
            called = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
            # a function of the file, or a module class of the file (its forward computes what calling it returns)
            function = (functions.get(called) or forwards.get(called)) if called is not None else None
            if function is not None:  # its returns make the value: follow them inside the function
                pending += [(r, function.name) for r in ast.walk(function) if isinstance(r, ast.Return) and parsed.scope_of(r) is function]
            elif isinstance(node, ast.Name) and node.id not in _MODULE_NAMES and node.id not in functions:
                pending += [(d, node.id) for d in _definitions(parsed, here, node.id, definition.lineno)]
    cutting = [c for c in result if c.kind != "created"]
    # Nothing cut a graph: the tensors it starts from have none, which parameters frozen in this file explain first
    return sorted(cutting or [*_frozen(parsed), *result], key=lambda c: c.line)


def _frozen(parsed: Source) -> list[Cut]:
    """The statements that turn requires_grad off (`p.requires_grad = False`, `p.requires_grad_(False)`)."""
    found = []
    for node in ast.walk(parsed.tree):
        if isinstance(node, ast.Assign) and _is_false(node.value):
            found += [Cut(node.lineno, "requires_grad = False", dotted(t.value) or "a parameter", kind="frozen")
                      for t in node.targets if isinstance(t, ast.Attribute) and t.attr == "requires_grad"]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_"
              and node.args and _is_false(node.args[0])):
            found.append(Cut(node.lineno, "requires_grad_(False)", dotted(node.func.value) or "a parameter", kind="frozen"))
    return found


def _is_false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def adding_statement(filename: str, name: str) -> int | None:
    """The line of the statement that adds a tensor to the holder `name` (`history.append(loss)`, `total += loss`,
    `self.<name>.append(...)` for an attribute): one inside a loop first; one that adds a number (.item()) or a
    detached tensor is no leak and is never named."""
    parsed = source(filename)
    if parsed is None:
        return None
    found = [
        n for n in ast.walk(parsed.tree)
        if isinstance(n, ast.stmt) and any(_growth(n, candidate) for candidate in _spellings(n, name)) and not _adds_cut_value(n)
    ]
    found.sort(key=lambda n: (parsed.loop_of(n) is None and not _in_called_function(parsed, n), n.lineno))
    if found:
        return found[0].lineno
    # an attribute computed from its object's others (a meter's `self.avg = self.sum / self.count`): what adds to those
    sources = [
        source for node in ast.walk(parsed.tree) if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Attribute) and t.attr == name for t in node.targets)
        for source in _sibling_attributes(node.value, name)
    ]
    lines = [line for line in (adding_statement(filename, s) for s in dict.fromkeys(sources)) if line is not None]
    return min(lines) if lines else None


def _sibling_attributes(value: ast.AST, name: str) -> list[str]:
    """The `self.<attribute>`s other than `name` that an expression reads."""
    return [
        n.attr for n in ast.walk(value)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr != name
    ]


def _spellings(node: ast.stmt, name: str) -> set[str]:
    """`name` and every `<object>.name` the statement mentions (an attribute holder is written self.name)."""
    spelled = {name}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr == name:
            whole = dotted(sub)
            if whole is not None:
                spelled.add(whole)
    return spelled


def _adds_cut_value(node: ast.stmt) -> bool:
    value = node.value if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) else None
    if isinstance(value, ast.Call):  # the arguments of history.append(...)
        return bool(value.args) and all(_cut_in(arg) is not None or _is_number(arg) for arg in value.args)
    return value is not None and (_cut_in(value) is not None or _is_number(value))


def _is_number(node: ast.AST) -> bool:
    """A literal, float(...)/int(...)/len(...), or a size read off a tensor (x.shape[0], x.size(0), x.numel())."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.Call) and _called_name(node.func) in ("float", "int", "len", "size", "numel", "dim")
    )


def _in_called_function(parsed: Source, node: ast.AST) -> bool:
    return not isinstance(parsed.scope_of(node), ast.Module)



def passing_calls(filename: str, line: int, depth: int = 3) -> list[int]:
    """Where the statement at `line` adds a parameter of the function it is in (`self.sum += val * n` in a meter's
    update(self, val, n)), the line of a call to that function, one inside a loop first, that passes it something
    other than a number: the tensor is the caller's, and .item() belongs there. Where that call passes on a value
    its own function was given (a trainer's `_update_stats(stats)` handing each one to a meter), its caller's line
    follows, and so on up to `depth` calls: the way the tensor came, innermost first."""
    parsed = source(filename)
    chain: list[int] = []
    while parsed is not None and len(chain) < depth:
        caller = _passing_call(parsed, line)
        if caller is None or caller in chain:
            break
        chain.append(caller)
        line = caller
    return chain


def _passing_call(parsed: Source, line: int) -> int | None:
    added = parsed.statement_at(line)
    if added is None:
        return None
    function = parsed.scope_of(added)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _adds_parameter(parsed, added, function):
        return None
    calls = [
        n for n in ast.walk(parsed.tree)
        if isinstance(n, ast.Call) and _called_name(n.func) == function.name and not _in(n, function)
        and not all(_cut_in(arg) is not None or _is_number(arg) for arg in (*n.args, *(k.value for k in n.keywords)))
    ]
    statements = [s for s in (parsed.statement_at(call.lineno) for call in calls) if s is not None]
    statements.sort(key=lambda s: (parsed.loop_of(s) is None, s.lineno))
    return statements[0].lineno if statements else None


def _adds_parameter(parsed: Source, node: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the statement adds (or passes on, as a call's argument) a value the function was given: a parameter,
    or a loop variable over one (`for name, val in stats.items()`)."""
    value = _value(node)
    arguments = function.args
    given = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    if isinstance(parsed.parents.get(function), ast.ClassDef):
        given.discard(arguments.args[0].arg if arguments.args else "self")  # what a method adds from `self` is its own
    for loop in sorted((n for n in ast.walk(function) if isinstance(n, ast.For)), key=lambda n: n.lineno):
        if any(reads(loop.iter, g) for g in given):
            given.update(_target_names(loop.target))
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):  # a call passes on what its arguments read
        call = node.value
        passed = [a for a in (*call.args, *(k.value for k in call.keywords)) if not _is_number(a)]
        return any(reads(a, g) for a in passed for g in given)
    return value is not None and any(reads(value, g) for g in given)
