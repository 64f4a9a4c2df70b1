"""SummaryWriter.add_graph on glassgrad: the model's graph read from the autograd graph of one forward call.

PyTorch traces the model with torch.jit and draws its ATen ops; glassgrad has no tracer, so the nodes drawn are the
ones backward would run (`AddmmBackward0` for a linear layer's addmm), named by the module they were made in
(`Net/Linear[fc1]/AddmmBackward0_3`), with the parameters as `Net/Linear[fc1]/weight`, the inputs by the forward's
argument names (`input/x`) and the outputs as `output/output.N`, as PyTorch names them. Ops that need no grad (on
integer inputs, say, or under no_grad) leave no node and are not drawn.
"""

from __future__ import annotations

import inspect
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


def _input_names(model: Any, count: int) -> list[str]:
    """The forward's parameter names, as PyTorch's trace names the graph's inputs (input.N past them)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in inspect.signature(model.forward).parameters.values() if p.kind in kinds]
    return [names[i] if i < len(names) else f"input.{i}" for i in range(count)]


def graph_def(model: Any, input_to_model: Any = None) -> GraphDef:
    """Run `model` once on `input_to_model` (a tensor or a tuple of arguments) with grad on, and draw what it made.
    Floating-point inputs are fed as copies that require grad, so that the ops reading them are recorded too."""
    args = () if input_to_model is None else tuple(input_to_model) if isinstance(input_to_model, (list, tuple)) \
        else (input_to_model,)
    args = tuple(a.detach().requires_grad_() if isinstance(a, Tensor) and a.is_floating_point() else a for a in args)
    scopes = _scopes(model)
    owner: dict[Any, str] = {}  # autograd node -> the innermost module whose forward made it

    def claim(path: str, module: Any, inputs: Any, output: Any) -> None:
        before = {t.grad_fn for t in _tensors(inputs)} | set(owner)
        for node in _ancestors([t.grad_fn for t in _tensors(output)], before):
            owner.setdefault(node, path)

    handles = [m.register_forward_hook(lambda mod, a, o, p=path: claim(p, mod, a, o))
               for path, m in model.named_modules()]
    try:
        with enable_grad():
            outputs = _tensors(model(*args))
    finally:
        for handle in handles:
            handle.remove()

    inputs = {id(a): f"input/{name}" for a, name in zip(args, _input_names(model, len(args)), strict=True)
              if isinstance(a, Tensor)}
    every = list(_ancestors([t.grad_fn for t in outputs], set()))
    names = _names(every, owner, scopes, {id(p): n for n, p in model.named_parameters()}, inputs)
    nodes = [NodeDef(name=inputs[id(a)], op="IO Node", attr=_shape_attr(a)) for a in args if id(a) in inputs]
    for node in every:
        variable = getattr(node, "variable", None)  # an AccumulateGrad: the leaf is the node
        if variable is None:
            sources = [names[child] for child, _ in node.next_functions if child is not None]
            nodes.append(NodeDef(name=names[node], op=node.name(), input=sources))
        elif id(variable) not in inputs:
            nodes.append(NodeDef(name=names[node], op="Parameter", attr=_shape_attr(variable)))
    for i, tensor in enumerate(outputs, 1):
        source = [names[tensor.grad_fn]] if tensor.grad_fn is not None else []
        nodes.append(NodeDef(name=f"output/output.{i}", op="IO Node", input=source, attr=_shape_attr(tensor)))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def _names(every: list[Any], owner: dict[Any, str], scopes: dict[str, str], params: dict[int, str],
           inputs: dict[int, str]) -> dict[Any, str]:
    """A unique name per node: inputs and parameters by their own names, ops by module scope, numbered."""
    names = {}
    for number, node in enumerate(reversed(every)):
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) in inputs:
            names[node] = inputs[id(variable)]
        elif variable is not None and id(variable) in params:
            module, _, leaf = params[id(variable)].rpartition(".")
            names[node] = f"{scopes[module]}/{leaf}"
        else:
            names[node] = f"{scopes[owner.get(node, '')]}/{node.name()}_{number}"
    return names
