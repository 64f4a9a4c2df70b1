"""torch.jit and torch.onnx: scripted and traced programs run eagerly with PyTorch's results; compiled artifacts refuse.

Where PyTorch and glassgrad agree (results, decorators, errors before anything is compiled) the
outcomes are compared; where PyTorch produces a compiled program (saving, loading, exporting) glassgrad
must refuse with NotImplementedError that says what to do instead.
"""

from __future__ import annotations

import os
import warnings

import pytest
import torch

import glassgrad

from .outcome import assert_same_outcome

pytestmark = pytest.mark.torch_oracle


def make_net(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(3, 2)

        @m.jit.export
        def double(self, x):
            return self.fc(x) * 2

        @m.jit.ignore
        def as_list(self, x):
            return x.tolist()

        def forward(self, x):
            return m.relu(self.fc(x))

    net = Net()
    with m.no_grad():
        net.fc.weight.copy_(m.tensor([[0.5, -1.0, 0.25], [1.0, 0.5, -0.5]]))
        net.fc.bias.copy_(m.tensor([0.1, -0.2]))
    return net


def affine(x, y):
    return x * y + 1


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return -x


def refuses(x):
    raise NotImplementedError("no trace")


def statements(source: str) -> pytest.param:
    def run(m):
        scope = {"m": m, "make_net": make_net, "affine": affine, "branchy": branchy, "refuses": refuses}
        exec(source, scope)
        return scope.get("r")

    return pytest.param(run, id=source)


CASES = [
    statements(source)
    for source in (
        "r = [m.jit.is_scripting(), m.jit.is_tracing()]",
        "import typing\nr = m.jit.Final is typing.Final",
        "r = m.jit.annotate(int, 3)",
        # (the decorators mark what they are given in PyTorch, so each gets a function of its own)
        "f = lambda x: x\nr = m.jit.ignore(f) is f", "f = lambda x: x\nr = m.jit.unused(f) is f",
        "f = lambda x: x\nr = m.jit.export(f) is f", "f = lambda x: x\nr = m.jit.ignore(drop=False)(f) is f",
        "f = lambda x: x\nr = m.jit.ignore(drop=True)(f) is f", "r = m.jit.ignore(3)",
        "r = m.jit.script_if_tracing(lambda x: x + 1)(m.ones(2))",
        # scripted and traced programs give eager results
        "r = m.jit.script(affine)(m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0]))",
        "r = m.jit.script(branchy)(m.tensor([-1.0, -2.0]))",
        "r = m.jit.trace(affine, (m.ones(2), m.ones(2)))(m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0]))",
        "s = m.jit.script(make_net(m))\nx = m.tensor([[1.0, 2.0, 3.0]])\nr = [s(x), s.double(x), s.as_list(x)]",
        "s = m.jit.trace(make_net(m), m.ones(1, 3))\nr = s(m.tensor([[1.0, 2.0, 3.0]]))",
        "s = m.jit.script(make_net(m))\nr = isinstance(s, m.jit.ScriptModule) and isinstance(s, m.nn.Module)",
        "s = m.jit.trace(make_net(m), m.ones(1, 3))\nr = isinstance(s, m.jit.ScriptModule)",
        "net = make_net(m)\ns = m.jit.script(net)\nr = s.fc.weight is net.fc.weight",
        "s = m.jit.script(make_net(m))\nr = m.jit.script(s) is s",
        "s = m.jit.script(make_net(m))\nr = sorted(s.state_dict())",
        "s = m.jit.script(make_net(m))\nloss = s(m.tensor([[1.0, 2.0, 3.0]])).sum()\nloss.backward()\nr = s.fc.weight.grad",
        "r = m.jit.trace(make_net(m))",
        # tracing runs a function once on the example inputs: what it raises is raised by trace
        "r = m.jit.trace(refuses, (m.ones(2),))",
        "r = m.jit.trace(refuses, m.ones(2))",
        # freezing checks before anything is compiled
        "r = m.jit.freeze(make_net(m))", "r = m.jit.freeze(m.jit.script(make_net(m)))",
        "r = m.jit.freeze(m.jit.script(make_net(m)).eval())(m.tensor([[1.0, 2.0, 3.0]]))",
        "r = m.jit.optimize_for_inference(make_net(m))",
        "r = m.jit.optimize_for_inference(m.jit.script(make_net(m)).eval())(m.tensor([[1.0, 2.0, 3.0]]))",
        "r = m.jit.optimize_for_inference(m.jit.script(make_net(m)))(m.tensor([[1.0, 2.0, 3.0]]))",
        "r = m.jit.wait(m.jit.fork(affine, m.ones(2), m.tensor([2.0, 3.0])))",
        # saving what was not scripted, loading what is not there
        "m.jit.save(make_net(m), 'never-written.pt')", "m.jit.save(affine, 'never-written.pt')",
        "r = m.jit.load('no/such/file.pt')", "import os\nr = m.jit.load(os.getcwd())", "r = m.jit.load(123)",
        "import torch.onnx, glassgrad.onnx\nr = m.onnx.is_in_onnx_export()",
    )
]


@pytest.mark.parametrize("snippet", CASES)
def test_jit_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_a_scripted_module_pickles_as_the_plain_module(tmp_path) -> None:
    net = glassgrad.nn.Sequential(glassgrad.nn.Linear(3, 2), glassgrad.nn.ReLU())  # a class pickle can import
    eager_class = type(net)
    with pytest.warns(DeprecationWarning, match="torch.jit.script"):
        scripted = glassgrad.jit.script(net)
    path = os.fspath(tmp_path / "net.pt")
    glassgrad.save(scripted, path)
    restored = glassgrad.load(path, weights_only=False)
    assert type(restored) is eager_class
    x = glassgrad.tensor([[1.0, 2.0, 3.0]])
    assert restored(x).tolist() == scripted(x).tolist()


@pytest.mark.parametrize("save", [
    pytest.param(lambda s, path: glassgrad.jit.save(s, path), id="jit.save"),
    pytest.param(lambda s, path: s.save(path), id="scripted.save"),
])
@pytest.mark.parametrize("make", [
    pytest.param(lambda net: glassgrad.jit.script(net), id="script"),
    pytest.param(lambda net: glassgrad.jit.trace(net, glassgrad.ones(1, 3)), id="trace"),
])
def test_saving_a_compiled_program_says_to_save_the_weights(tmp_path, make, save) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = make(make_net(glassgrad))
        path = os.fspath(tmp_path / "net.pt")
        with pytest.raises(NotImplementedError, match=r"no compiled program to save.*state_dict"):
            save(scripted, path)
    assert not os.path.exists(path)


def test_loading_torchscript_says_what_to_do_instead(tmp_path) -> None:
    path = tmp_path / "net.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.script(make_net(torch)), os.fspath(path))
        with pytest.raises(NotImplementedError, match=r"TorchScript archive.*load_state_dict"):
            glassgrad.jit.load(os.fspath(path))


def test_the_graph_and_code_of_a_scripted_module_are_refused_with_an_alternative() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        scripted = glassgrad.jit.script(make_net(glassgrad))
    with pytest.raises(NotImplementedError, match="grad_fn"):
        scripted.graph  # noqa: B018
    with pytest.raises(NotImplementedError, match="Python source"):
        scripted.code  # noqa: B018


def test_onnx_export_is_refused_with_the_way_to_export() -> None:
    import glassgrad.onnx

    with pytest.raises(NotImplementedError, match=r"ONNX.*save_safetensors.*torch\.onnx\.export"):
        glassgrad.onnx.export(make_net(glassgrad), (glassgrad.ones(1, 3),), "net.onnx")
