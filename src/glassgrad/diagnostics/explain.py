"""The explanations that follow PyTorch's first sentence in graph errors.

Each one names what failed (node, buffer, tensor), where it was made in the user's code, which call freed
or modified it, and then the fix. The fix is chosen in two steps kept apart: the facts (the engine's
records, passed in), then the pattern, read from the user's code as code (code.py). Where the facts leave
two patterns open, each fix is given with the condition under which it is right.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import TYPE_CHECKING

from .. import _sites as sites
from .._sites import Site, where  # where: a site in a message, its line, its text, the library line that made it
from . import code
from .inspect import SavedBuffer

if TYPE_CHECKING:
    from ..autograd.graph import Node, SavedTensor
    from ..tensor import Tensor
    from .views import Crossing

HEADER = "\n\nglassgrad:"


def _line(site: Site | None, line: int | None) -> str:
    """`line 12` of the file a site is in, with its text."""
    if site is None or line is None:
        return "<unknown>"
    return where((site[0], line))


def _buffer(buffer: SavedBuffer) -> str:
    shape = "x".join(map(str, buffer.shape)) or "scalar"
    return f"'{buffer.name}' ({shape} {buffer.dtype}, {buffer.nbytes:,} bytes)"


def _carried(carried: tuple[tuple[int, ...], str] | None) -> str:
    if carried is None:
        return ""
    shape, dtype = carried
    return f" ({'x'.join(map(str, shape)) or 'scalar'} {dtype})"


# The fix for each pattern the code reading decides (code.Variable.kind), filled in with the variable's name and lines
_FIX_TEXTS = {
    "carried": (
        "Fix: `{name}` carries state from one iteration to the next, rebound from its previous value at\n"
        "  {line}\n"
        "  and with it the graph of every earlier iteration.\n"
        "  detach() it where the iteration starts, {start}:\n"
        "        {name} = {name}.detach()\n"
        "  (an LSTM's (h, c) pair: {name} = tuple(t.detach() for t in {name})).\n"
        "  Its value carries over; only the graph behind it is cut."
    ),
    "accumulated": (
        "Fix: `{name}` accumulates every iteration's tensor, graph and all, at\n"
        "  {line}\n"
        "  {reset}\n"
        "  At the addition, keep loss.item() (a number) or loss.detach() instead.\n"
        "  If you do mean to backpropagate through the sum, call backward on it once, after the last\n"
        "  addition, and start a new sum after it."
    ),
    "precomputed": (
        "Fix: `{name}` is computed once, before the loop, at\n"
        "  {line}\n"
        "  and every iteration backpropagates through that one graph, which the first backward freed.\n"
        "  Compute it inside the loop, so that each iteration builds its own graph; or, if it is meant\n"
        "  to be a constant, compute it once under `with torch.no_grad():`. Do not detach() it inside the\n"
        "  loop: the parameters it is computed from would silently stop learning."
    ),
}


def variable_fix(site: Site | None, variable: code.Variable) -> list[str] | None:
    """The fix for what the loop does with the variable made at `site`; None for a pattern with no sure fix."""
    text = _FIX_TEXTS.get(variable.kind)
    if text is None:
        return None
    start = (
        f"as the first statement of the loop body (line {variable.iteration_start})"
        if variable.iteration_start is not None
        else "before it is read again"
    )
    if variable.reset is None:
        reset = "It is never reset inside the loop."
    else:
        reset = f"It is reset{' only by the enclosing loop' if variable.reset_outside else ''} at\n  {_line(site, variable.reset)}"
    lines = text.format(name=variable.name, line=_line(site, variable.line), start=start, reset=reset).split("\n")
    if variable.kind == "carried":
        for other in code.carried_alongside(site, variable.name):
            lines += [f"  `{other.name}` is carried the same way, at\n  {_line(site, other.line)}", "  detach() it too."]
    return lines


UNDECIDED_FIX = [
    "Fix: which one applies depends on what that tensor is; the glass could not tell from the code:",
    "  - state carried from one iteration to the next (a recurrent hidden state, a running statistic): detach()",
    "    it where the iteration starts, e.g. h = h.detach();",
    "  - a value computed once before the loop from a parameter: compute it inside the loop instead (detach()",
    "    would silently stop that parameter from learning);",
    "  - two losses that share that part of the graph on purpose: add them and call backward once.",
]

def pattern_fix(made_at: Site | None, backward_at: Site | None) -> list[str] | None:
    """The fix for a tensor made at `made_at` that a backward at `backward_at` reached from a later iteration, from
    what the user's code does with it; None where the code does not say."""
    variable = variable_at(made_at, backward_at)
    return variable_fix(made_at, variable) if variable is not None else None


def _site_of(freed_by: Site | bool | None) -> Site | None:
    return freed_by if isinstance(freed_by, tuple) else None


def _shared_fix(name: str, line: int, site: Site | None, freed_by: Site | None, used_again: Site | None) -> list[str]:
    """Two losses of one iteration read `name`: the first one's loss, at `line`, is where a detach() belongs; where
    the second loss reads it only after the first backward ran (`used_again` below `freed_by`), it can also be
    recomputed for it."""
    lines = [
        f"Fix: `{name}` feeds two losses in one iteration; the backward of the first one, at {where(freed_by)}",
        "  went on through the graph that made it, and freed it. Which fix applies depends on what that loss trains:",
        "  - if it should not train what made `" + name + "` (a GAN's discriminator step must not update the generator):",
        f"    detach() it in that loss, at\n    {_line(site, line)}",
        f"    ({name}.detach() there; the later loss still backpropagates through `{name}`);",
        "  - if both losses should train it: add them and call backward once, or pass retain_graph=True to the first",
        "    backward.",
    ]
    if used_again is not None and freed_by is not None and used_again[0] is freed_by[0] and used_again[1] > freed_by[1]:
        lines += [
            "  - the second loss is built only after that backward (and an optimizer step may come between): if it",
            f"    is a separate update, recompute it for that loss (run the forward that made `{name}` again), so it",
            "    has a graph of its own from the current parameters.",
        ]
    return lines


def freed_text(
    node_name: str,
    node_site: Site | None,
    buffer: SavedBuffer | None,
    freed_by: Site | bool | None,
    crossing: Crossing | None,
    read_outside_backward: bool = False,
    backward_at: Site | None = None,
) -> str:
    """After PyTorch's 'second time' sentence: what needed the freed buffer, who freed it, and the fix.

    `freed_by` is the site of the backward call that freed it, or False where no backward the glass saw did;
    `read_outside_backward`: a custom Function's ctx.saved_tensors read after the free; `backward_at`: the
    failing backward's line (the one that freed it, where not given).
    """
    needs = f"its saved {_buffer(buffer)}" if buffer is not None else "the in-place op it recorded"
    lines = [f"{HEADER} {node_name} needs {needs},", f"  recorded at {where(node_site)}"]
    if freed_by is not False:
        lines.append(f"  It was freed by the backward call at {where(freed_by if freed_by is not True else None)}")
    if read_outside_backward:
        lines += [
            "Fix: ctx.saved_tensors was read after the graph was freed. Read it only inside backward, or pass",
            "  retain_graph=True to the backward call above if you need it afterwards.",
        ]
    elif crossing is not None:
        lines += [
            f"This backward reaches into a graph built before that call: the tensor{_carried(crossing.carried)} made by "
            f"{crossing.child_name} at",
            f"  {where(crossing.child_site)}",
            f"  is used again at {where(crossing.parent_site)}",
        ]
        shared = (
            code.first_loss_use(crossing.child_site, _site_of(freed_by))
            if code.same_iteration(_site_of(freed_by), backward_at) is True
            else None
        )
        fix = pattern_fix(crossing.child_site, backward_at if backward_at is not None else _site_of(freed_by))
        if shared is not None:  # two losses of one iteration share it: the first one's backward freed its graph
            lines += _shared_fix(*shared, crossing.child_site, _site_of(freed_by), crossing.parent_site)
        else:
            lines += fix if fix is not None else UNDECIDED_FIX
    elif code.same_iteration(_site_of(freed_by), backward_at) is False and (root := code.precomputed_root(backward_at)):
        # this same line freed it in an earlier iteration: the loop backwards one graph made before it
        lines += [
            f"Fix: `{root.name}` is computed once, before the loop, at",
            f"  {_line(backward_at, root.line)}",
            "  and every iteration calls backward on that one graph, which the first backward freed.",
            "  Recompute it inside the loop, so that each iteration builds its graph from the updated parameters",
            "  (retain_graph=True would only backpropagate the same stale values again).",
        ]
    else:
        if backward_at is not None and backward_at != _site_of(freed_by):
            lines += [f"  This backward, at {where(backward_at)}", "  goes through that graph again."]
        lines += [
            "Fix: this graph was already backwarded. If one backward of it is all that is meant, remove the other",
            "  one, so that it is backwarded once. To backpropagate several losses through one graph, add them",
            "  and call backward once ((loss1 + loss2).backward()); or pass retain_graph=True to every backward",
            "  but the last one over this graph.",
        ]
    return "\n".join(lines)


def version_text(
    node_name: str,
    node_site: Site | None,
    buffer: SavedBuffer,
    saved_version: int,
    current_version: int,
    modified_at: Site | None,
    modified_by: str | None = None,
    earlier: Crossing | None = None,
    backwards: tuple[Site | None, Site | None] = (None, None),
) -> str:
    """After PyTorch's in-place sentence: the saved value, where it was saved and where it was overwritten.

    `modified_by`: the call whose `inplace=True` overwrote it (ReLU(inplace=True), relu(..., inplace=True));
    `earlier`: the edge by which this backward reaches a graph built before the one that saved the value (the
    stale node belongs to an earlier iteration); `backwards`: the earlier backward that went through the node
    (retain_graph) and the failing one.
    """
    lines = [
        f"{HEADER} {node_name} saved {_buffer(buffer)} at version {saved_version},",
        f"  recorded at {where(node_site)}",
    ]
    if modified_at is not None:
        by = f" by {modified_by}, called" if modified_by is not None else ""
        lines.append(f"  It was then modified in place (now version {current_version}), last{by} at {where(modified_at)}")
    constructed = code.inplace_constructions(modified_at, modified_by.split("(")[0] if modified_by is not None else None)
    if modified_by is not None:
        lines += [f"  {modified_by} is constructed at\n  {_line(modified_at, line)}" for line in constructed]
        lines.append(f"Fix: {modified_by} overwrote its input, which this backward still needs: pass inplace=False there.")
        return "\n".join(lines)
    one_iteration = code.same_iteration(*backwards)
    if earlier is not None and one_iteration is not True:
        lines += [
            "This value belongs to a graph built in an earlier iteration: this backward reaches into it through the",
            f"  tensor{_carried(earlier.carried)} made by {earlier.child_name} at",
            f"  {where(earlier.child_site)}",
            f"  and used again at {where(earlier.parent_site)}",
            "  Reordering the step cannot help, and retain_graph=True only keeps that old graph alive.",
        ]
        variable = variable_at(earlier.child_site, backwards[1])
        if variable is not None and variable.kind == "carried":
            lines += variable_fix(earlier.child_site, variable) or []
        else:
            lines += [
                "Fix: detach() the tensor carried into this iteration where the iteration starts (h = h.detach()),",
                "  and drop retain_graph=True.",
            ]
        return "\n".join(lines)
    lines += [
        "Fix: an in-place change (x += ..., x.add_(...), x[i] = ..., or optimizer.step()) overwrote a value that",
        "  this backward still needs. Finish every backward over this graph before the in-place change (call",
        "  optimizer.step() after the last backward, or recompute the forward after it), or use the",
        "  out-of-place form (x = x + ...) so the saved value stays intact.",
    ]
    if constructed:  # the change ran inside a model call: its modules made with inplace=True are the candidates
        lines += [
            "  The line of the change calls a model with modules constructed with inplace=True, at",
            *(f"  {_line(modified_at, line)}" for line in constructed),
            "  If one of them made the change (one that runs after the op that saved the value), pass inplace=False",
            "  there.",
        ]
    if one_iteration is False:  # the same backward line ran through it before: an earlier iteration's graph?
        lines += [
            "  That holds if this graph is meant to be backwarded again. If it is an earlier iteration's graph,",
            "  reached through state carried into this one, reordering cannot help: detach() that state where the",
            "  iteration starts.",
        ]
    return "\n".join(lines)


def variable_at(made_at: Site | None, backward_at: Site | None) -> code.Variable | None:
    """What the loop running the backward at `backward_at` does with the variable assigned where a tensor was made."""
    reading = code.read(made_at, backward_at)
    return reading.variable if reading is not None else None


def _what(shape: tuple[int, ...], dtype: str) -> str:
    return f"a {'x'.join(map(str, shape)) or 'scalar'} {dtype} tensor with no graph"


_CUT_REASONS = {
    "detach()": "detach() returns a tensor that shares the values but not the graph",
    "detach_()": "detach_() cuts the tensor off its graph in place",
    ".item()": ".item() gives a Python number, which has no graph",
    ".tolist()": ".tolist() gives Python numbers, which have no graph",
    ".data": ".data is the values without the graph",
    **{how: f"{how} gives indices, which are not differentiable" for how in ("argmax()", "argmin()", "argsort()")},
    ".numpy()": "a round-trip through NumPy leaves the graph behind",
    "torch.tensor(...)": "torch.tensor(...) copies values into a new leaf, without the graph",
    "torch.from_numpy(...)": "a tensor built from a NumPy array has no graph",
    "torch.as_tensor(...)": "a tensor built from values has no graph",
}


_INDICES_FIX = (
    "compute the loss from the scores before the {how} (a cross-entropy over them, or a soft-argmax), not from the"
    " indices it returns"
)
_CUT_FIXES = {
    "torch.tensor(...)": "build it with torch.stack([...]) (or torch.cat) over the tensors, which keeps the graph",
    **{how: _INDICES_FIX.format(how=how) for how in ("argmax()", "argmin()", "argsort()")},
}


def _cut_lines(cut: code.Cut, site: Site | None) -> list[str]:
    """What one found statement did, and its fix."""
    at = _line(site, cut.line)
    if cut.kind == "grad-mode":
        return [
            f"`{cut.name}` was computed inside {cut.how}, at\n  {at}",
            f"  under the grad-mode switch at\n  {_line(site, cut.block)}\n  so no graph was recorded for it.",
            f"Fix: compute `{cut.name}` with grad mode on (outside that block, or inside `with torch.enable_grad():`)"
            " if it should be differentiated.",
        ]
    if cut.kind == "created":
        return [
            f"`{cut.name}` was created by {cut.how} without requires_grad=True, at\n  {at}",
            "  so no graph starts there.",
            f"Fix: if `{cut.name}` is what should get gradients, create it with requires_grad=True (or as an"
            " nn.Parameter); if it is a constant (a zero loss term), compute it from the model's output instead"
            " (out.sum() * 0) so that the loss keeps a graph, or skip backward when nothing in it has one.",
        ]
    if cut.kind == "frozen":
        return [
            f"`{cut.name}` was frozen by {cut.how} at\n  {at}",
            "  so nothing computed from it records a graph unless something else on the way requires grad.",
            "Fix: leave requires_grad on for the parameters the loss should train (freeze only part of the model);"
            " if all of it is meant to be frozen, there is nothing to backward.",
        ]
    if cut.kind == "checkpoint":
        return [
            f"`{cut.name}` is the output of a reentrant checkpoint, at\n  {at}",
            "  which records a node only when one of its tensor inputs requires grad (the wrapped",
            "  module's parameters do not count), so its output has no graph.",
            "Fix: make an input require grad (x.requires_grad_()) before the call, or pass use_reentrant=False.",
        ]
    source_hint = f"`{cut.source_name}` (before the cut)" if cut.source_name else "the tensor before the cut"
    fix = _CUT_FIXES.get(cut.how, f"differentiate {source_hint} instead, or drop the {cut.how} there if gradients should flow through it")
    return [f"the graph was cut by {cut.how} at\n  {at}", f"  ({_CUT_REASONS[cut.how]}).", f"Fix: {fix}."]


def no_grad_text(shape: tuple[int, ...], dtype: str, grad_enabled: bool, stack: list[Site]) -> str:
    """After "element 0 of tensors does not require grad": the statements that cut the graph, where the code says.

    `stack`: the user's frames, the failing call first and then its callers outward.
    """
    what = _what(shape, dtype)
    failing_at = stack[0] if stack else None
    if not grad_enabled:  # with grad mode off, that is the reason, whatever came before
        found = code.grad_off_caller(stack)
        if found is not None:
            site, line, text = found
            decorated = text.startswith("@")
            fix = (
                f"Fix: remove {text} from the function that calls backward (tensors made in inference mode cannot "
                "join a graph later)."
                if decorated and "inference_mode" in text
                else "Fix: call backward only where grad mode is on: outside that block, or around the part to "
                "differentiate re-enable it with `with torch.enable_grad():` (a validation step under no_grad "
                "should not backward at all)."
            )
            inside = "in the function decorated with" if decorated else "inside"
            return (
                f"{HEADER} the tensor to differentiate is {what}: grad mode is off here, {inside} {text} at\n"
                f"  {_line(site, line)}\n  so nothing computed under it records a graph.\n{fix}"
            )
    found_cuts = code.cuts(failing_at) if grad_enabled else []
    if len(found_cuts) == 1:
        return f"{HEADER} the tensor to differentiate is {what}: " + "\n".join(_cut_lines(found_cuts[0], failing_at))
    if found_cuts:
        lines = [f"{HEADER} the tensor to differentiate is {what}; what it is computed from was cut off a graph "
                 "(or never had one) at each of these statements, one of which made it:"]
        for each in found_cuts:
            lines += ["- " + "\n  ".join("\n".join(_cut_lines(each, failing_at)).split("\n"))]
        return "\n".join(lines)
    reasons = (
        "grad mode is off right now (inside no_grad() or inference_mode())"
        if not grad_enabled
        else "it was computed under no_grad()/inference_mode(), from tensors none of which requires grad, "
        "or it was detach()ed or built with .item()/.numpy()"
    )
    return (
        f"{HEADER} the tensor to differentiate is {what}: {reasons}.\n"
        "Fix: make the parameters requires_grad=True (nn.Parameter does this) and compute the loss from them "
        "with grad mode on."
    )


def non_scalar_text(shape: tuple[int, ...], made_at: Site | None) -> str:
    """After "grad can be implicitly created only for scalar outputs": the tensor's shape and line, and the fix."""
    made = f", made at {where(made_at)}" if made_at is not None else ""
    return (
        f"{HEADER} the tensor to differentiate has shape {list(shape)}{made}\n"
        "Fix: reduce it to a scalar first (loss.sum() or loss.mean()), or pass the vector to multiply the "
        "Jacobian by: loss.backward(gradient=torch.ones_like(loss))."
    )


def user_stack() -> list[Site]:
    """The user's frames now on the stack, innermost first: the failing call, then its callers."""
    if not sites.enabled:  # the glass records no user lines (caller_position's switch)
        return []
    frame: FrameType | None = sys._getframe(1)
    found: list[Site] = []
    while frame is not None:
        if sites.is_users(frame.f_code.co_filename) and frame.f_lineno is not None:
            found.append((frame.f_code, frame.f_lineno))
        frame = frame.f_back
    return found


# -- glassgrad's own engine: the facts come straight from its nodes ------------------------------------------
def _failing_call() -> Site | None:
    """The user's line running the backward under way (the first frame outside glassgrad)."""
    return sites.resolve(sites.caller_position())


def freed(node: Node, saved: SavedTensor | None) -> str:
    from ..autograd import engine
    from ..autograd.function import BackwardCFunction
    from .views import NATIVE

    freed_by = node._freed_by
    roots = engine.running[-1].roots if engine.running else []
    crossing = NATIVE.crossing(roots, freed_by.step + 1) if freed_by is not None else None
    buffer = SavedBuffer.of(saved, node) if saved is not None else None
    return freed_text(
        node.name(), node._site, buffer, freed_by.site if freed_by is not None else False, crossing,
        read_outside_backward=isinstance(node, BackwardCFunction) and not engine.running,
        backward_at=_failing_call(),
    )


def version(node: Node, saved: SavedTensor) -> str:
    from ..autograd import engine
    from .views import NATIVE

    counter = saved.version_counter
    roots = engine.running[-1].roots if engine.running else []
    earlier = NATIVE.crossing(roots, node._step + 1)
    retained_by = node._retained_by
    return version_text(
        node.name(), node._site, SavedBuffer.of(saved, node), saved.saved_version, counter.value,
        sites.resolve(counter.modified_at), earlier=earlier,
        backwards=(retained_by.site if retained_by is not None else None, _failing_call()),
    )


def no_grad_fn(tensor: Tensor) -> str:
    from ..autograd import grad_mode

    return no_grad_text(tuple(tensor.shape), tensor.dtype.name, grad_mode.state.grad_enabled, user_stack())


def non_scalar_root(tensor: Tensor) -> str:
    return non_scalar_text(tuple(tensor.shape), tensor.grad_fn._site if tensor.grad_fn is not None else None)


def leaf_inplace(tensor: Tensor, view: bool) -> str:
    what = "a view of a leaf" if view else "a leaf"
    return (
        f"{HEADER} the tensor changed in place is {what} that requires grad "
        f"({'x'.join(map(str, tensor.shape)) or 'scalar'} {tensor.dtype.name}), a parameter or input whose "
        "gradient autograd accumulates.\n"
        "Fix: wrap updates of parameters in `with torch.no_grad():` (as optimizers do), or make a new tensor "
        "out of place (w = w - lr * g)."
    )
