"""The explanations that follow PyTorch's first sentence in graph errors.

Each one names what failed (node, buffer, tensor), where it was made in the
user's code, which call freed or modified it, and the fix for the pattern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _sites as sites
from .._sites import Site, format_site, source_line
from .inspect import SavedBuffer

if TYPE_CHECKING:
    from ..autograd.graph import Node, SavedTensor
    from ..tensor import Tensor
    from .views import Crossing

HEADER = "\n\nglassgrad:"


def _at(site: Site | None) -> str:
    code = source_line(site)
    return format_site(site) + (f"\n        {code}" if code else "")


def _buffer(buffer: SavedBuffer) -> str:
    shape = "x".join(map(str, buffer.shape)) or "scalar"
    return f"'{buffer.name}' ({shape} {buffer.dtype}, {buffer.nbytes:,} bytes)"


def _carried(carried: tuple[tuple[int, ...], str] | None) -> str:
    if carried is None:
        return ""
    shape, dtype = carried
    return f" ({'x'.join(map(str, shape)) or 'scalar'} {dtype})"


def freed_text(
    node_name: str,
    node_site: Site | None,
    buffer: SavedBuffer | None,
    freed_by: Site | bool | None,
    crossing: Crossing | None,
    read_outside_backward: bool = False,
) -> str:
    """After PyTorch's 'second time' sentence: what needed the freed buffer, who freed it, and the fix.

    `freed_by` is the site of the backward call that freed it, or False where no backward the glass saw did;
    `read_outside_backward`: a custom Function's ctx.saved_tensors read after the free.
    """
    needs = f"its saved {_buffer(buffer)}" if buffer is not None else "the in-place op it recorded"
    lines = [f"{HEADER} {node_name} needs {needs},", f"  recorded at {_at(node_site)}"]
    if freed_by is not False:
        lines.append(f"  It was freed by the backward call at {_at(freed_by)}")
    if read_outside_backward:
        lines += [
            "Fix: ctx.saved_tensors was read after the graph was freed. Read it only inside backward, or pass",
            "  retain_graph=True to the backward call above if you need it afterwards.",
        ]
    elif crossing is not None:
        lines += [
            f"This backward reaches into a graph built before that call: the tensor{_carried(crossing.carried)} made by "
            f"{crossing.child_name} at",
            f"  {_at(crossing.child_site)}",
            f"  is used again at {_at(crossing.parent_site)}",
            "Fix: if this is a training loop carrying that tensor from one iteration to the next (a recurrent",
            "  hidden state, a running statistic), detach() it where the iteration starts, e.g. h = h.detach().",
            "  If two losses share that part of the graph on purpose, add them and call backward once.",
        ]
    else:
        lines += [
            "Fix: this graph was already backwarded. To backpropagate several losses through one graph, add them",
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
) -> str:
    """After PyTorch's in-place sentence: the saved value, where it was saved and where it was overwritten
    (`modified_by`: the call whose `inplace=True` overwrote it, ReLU(inplace=True) or relu(..., inplace=True))."""
    lines = [
        f"{HEADER} {node_name} saved {_buffer(buffer)} at version {saved_version},",
        f"  recorded at {_at(node_site)}",
    ]
    if modified_at is not None:
        by = f" by {modified_by}, called" if modified_by is not None else ""
        lines.append(f"  It was then modified in place (now version {current_version}), last{by} at {_at(modified_at)}")
    if modified_by is not None:
        lines.append(f"Fix: {modified_by} overwrote its input, which this backward still needs: pass inplace=False there.")
        return "\n".join(lines)
    lines += [
        "Fix: an in-place change (x += ..., x.add_(...), x[i] = ..., or optimizer.step()) overwrote a value that",
        "  this backward still needs. Finish every backward over this graph before the in-place change (call",
        "  optimizer.step() after the last backward, or recompute the forward after it), or use the",
        "  out-of-place form (x = x + ...) so the saved value stays intact.",
    ]
    return "\n".join(lines)


# -- glassgrad's own engine: the facts come straight from its nodes ------------------------------------------
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
    )


def version(node: Node, saved: SavedTensor) -> str:
    counter = saved.version_counter
    return version_text(
        node.name(), node._site, SavedBuffer.of(saved, node), saved.saved_version, counter.value, sites.resolve(counter.modified_at)
    )


def no_grad_fn(tensor: Tensor) -> str:
    from ..autograd import grad_mode

    what = f"a {'x'.join(map(str, tensor.shape)) or 'scalar'} {tensor.dtype.name} tensor with no graph"
    reasons = (
        "grad mode is off right now (inside no_grad() or inference_mode())"
        if not grad_mode.state.grad_enabled
        else "it was computed under no_grad()/inference_mode(), from tensors none of which requires grad, "
        "or it was detach()ed or built with .item()/.numpy()"
    )
    return (
        f"{HEADER} the tensor to differentiate is {what}: {reasons}.\n"
        "Fix: make the parameters requires_grad=True (nn.Parameter does this) and compute the loss from them "
        "with grad mode on."
    )


def non_scalar_root(tensor: Tensor) -> str:
    shape = list(tensor.shape)
    made = f", made at {_at(tensor.grad_fn._site)}" if tensor.grad_fn is not None else ""
    return (
        f"{HEADER} the tensor to differentiate has shape {shape}{made}\n"
        "Fix: reduce it to a scalar first (loss.sum() or loss.mean()), or pass the vector to multiply the "
        "Jacobian by: loss.backward(gradient=torch.ones_like(loss))."
    )


def leaf_inplace(tensor: Tensor, view: bool) -> str:
    what = "a view of a leaf" if view else "a leaf"
    return (
        f"{HEADER} the tensor changed in place is {what} that requires grad "
        f"({'x'.join(map(str, tensor.shape)) or 'scalar'} {tensor.dtype.name}), a parameter or input whose "
        "gradient autograd accumulates.\n"
        "Fix: wrap updates of parameters in `with torch.no_grad():` (as optimizers do), or make a new tensor "
        "out of place (w = w - lr * g)."
    )
