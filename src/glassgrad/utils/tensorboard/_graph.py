"""SummaryWriter.add_graph on glassgrad: the model's graph read from the autograd graph of one forward call.

PyTorch traces the model with torch.jit and draws its ATen ops; glassgrad has no tracer, so the nodes drawn are the
ones backward would run (`AddmmBackward0` for a linear layer's addmm), named by the module they were made in
(`Net/Linear[fc1]/AddmmBackward0_3`), with the parameters as `Net/Linear[fc1]/weight` and the inputs and outputs as
`input/input.N` and `output/output.N`, as PyTorch names them. Ops on inputs that need no grad, and ops that need no
grad at all, leave no node and are not drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tensorboardX.proto.attr_value_pb2 import AttrValue
from tensorboardX.proto.graph_pb2 import GraphDef
from tensorboardX.proto.node_def_pb2 import NodeDef
from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboardX.proto.versions_pb2 import VersionDef

from ...autograd.grad_mode import enable_grad
from ...tensor import Tensor


def _tensors(value: Any) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []


def _ancestors(roots: list[Any], stop: set[Any]) -> Iterator[Any]:
    """The autograd nodes reachable from `roots`, not walking into or past the nodes in `stop`."""
    seen, todo = set(stop), [r for r in roots if r is not None]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        todo.extend(child for child, _ in node.next_functions if child is not None)


def _scopes(model: Any) -> dict[str, str]:
    """Each submodule's qualified name -> its scope as PyTorch spells it: Net/Sequential[body]/Linear[0]."""
    scopes = {"": type(model).__name__}
    for name, module in model.named_modules():
        if name:
            parent, _, own = name.rpartition(".")
            scopes[name] = f"{scopes[parent]}/{type(module).__name__}[{own}]"
    return scopes


def _shape_attr(tensor: Tensor) -> dict[str, AttrValue]:
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=size) for size in tensor.shape])
    return {"_output_shapes": AttrValue(list=AttrValue.ListValue(shape=[shape]))}


def graph_def(model: Any, input_to_model: Any = None) -> GraphDef:
    """Run `model` once on `input_to_model` (a tensor or a sequence of them) with grad on, and draw what it made."""
    inputs = [] if input_to_model is None else _tensors(input_to_model)
    scopes = _scopes(model)
    owner: dict[Any, str] = {}  # autograd node -> the innermost module whose forward made it

    def claim(path: str, module: Any, args: Any, output: Any) -> None:
        before = {t.grad_fn for t in _tensors(args)} | set(owner)
        for node in _ancestors([t.grad_fn for t in _tensors(output)], before):
            owner.setdefault(node, path)

    handles = [m.register_forward_hook(lambda mod, a, o, p=path: claim(p, mod, a, o))
               for path, m in model.named_modules()]
    try:
        with enable_grad():
            outputs = _tensors(model(*inputs) if input_to_model is not None else model())
    finally:
        for handle in handles:
            handle.remove()

    every = list(_ancestors([t.grad_fn for t in outputs], set()))
    names = _names(every, owner, scopes, {id(p): n for n, p in model.named_parameters()}, {id(t): i for i, t in enumerate(inputs)})
    nodes = [NodeDef(name=f"input/input.{i}", op="IO Node", attr=_shape_attr(t)) for i, t in enumerate(inputs)]
    for node in every:
        variable = getattr(node, "variable", None)  # an AccumulateGrad: the leaf is the node
        if variable is None:
            sources = [names[child] for child, _ in node.next_functions if child is not None]
            nodes.append(NodeDef(name=names[node], op=node.name(), input=sources))
        elif not names[node].startswith("input/"):
            nodes.append(NodeDef(name=names[node], op="Parameter", attr=_shape_attr(variable)))
    for i, tensor in enumerate(outputs):
        source = [names[tensor.grad_fn]] if tensor.grad_fn is not None else []
        nodes.append(NodeDef(name=f"output/output.{i}", op="IO Node", input=source, attr=_shape_attr(tensor)))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def _names(every: list[Any], owner: dict[Any, str], scopes: dict[str, str], params: dict[int, str],
           inputs: dict[int, int]) -> dict[Any, str]:
    """A unique name per node: inputs and parameters by their own names, ops by module scope, numbered."""
    names = {}
    for number, node in enumerate(reversed(every)):
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) in inputs:
            names[node] = f"input/input.{inputs[id(variable)]}"
        elif variable is not None and id(variable) in params:
            module, _, leaf = params[id(variable)].rpartition(".")
            names[node] = f"{scopes[module]}/{leaf}"
        else:
            names[node] = f"{scopes[owner.get(node, '')]}/{node.name()}_{number}"
    return names
