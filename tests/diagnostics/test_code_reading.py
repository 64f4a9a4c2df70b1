"""The code reading under the glass's fixes: what a loop does with a variable, decided from the `ast`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from glassgrad.diagnostics import code

PROGRAM = """
import torch
scale = log_scale.exp()  # @precomputed
h = torch.zeros(4)
total = 0
losses = []
by_step = {}
for step in range(10):
    x = torch.randn(4)  # @start
    h = cell(x, h)  # @carried
    loss = (h * scale).sum()  # @fresh
    total += loss  # @accumulated
    losses.append(loss)  # @appended
    by_step[step] = loss  # @item
    losses.append(loss.item())
    loss.backward()  # @backward
    other = (h * 2).sum()
    other.backward()  # @second
def log(value):
    losses.append(value.item())
"""


ATTRIBUTE = """
class Tagger:
    def forward(self, x):
        out, self.hidden = self.lstm(x, self.hidden)  # @state
        return out
model = Tagger()
for step in range(3):
    loss = model(x).sum()
    loss.backward()  # @backward
"""


def lines(text: str) -> dict[str, int]:
    return {line.rsplit("# @", 1)[1]: n for n, line in enumerate(text.splitlines(), 1) if "# @" in line}


def compiled(tmp_path: Path, text: str) -> tuple[object, dict[str, int]]:
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(text))
    return compile(path.read_text(), str(path), "exec"), lines(path.read_text())


@pytest.mark.parametrize(
    ("marker", "kind", "name"),
    [
        ("precomputed", "precomputed", "scale"),
        ("carried", "carried", "h"),
        ("fresh", "fresh", "loss"),
        ("accumulated", "accumulated", "total"),
    ],
)
def test_what_the_loop_does_with_the_variable_made_at_a_line(tmp_path: Path, marker: str, kind: str, name: str) -> None:
    module, at = compiled(tmp_path, PROGRAM)
    reading = code.read((module, at[marker]), (module, at["backward"]))
    assert reading is not None and reading.variable is not None
    assert (reading.variable.kind, reading.variable.name) == (kind, name)
    assert reading.place == ("before" if kind == "precomputed" else "inside")
    if kind == "carried":
        assert reading.variable.iteration_start == at["start"]


def test_a_state_kept_in_an_attribute_is_carried_by_the_method_the_loop_calls(tmp_path: Path) -> None:
    module, at = compiled(tmp_path, ATTRIBUTE)
    reading = code.read((module, at["state"]), (module, at["backward"]))
    assert reading is not None and reading.place == "called"
    assert reading.variable == code.Variable("self.hidden", "carried", at["state"])


def test_the_statement_that_adds_a_tensor_is_found_and_one_that_adds_a_number_is_not(tmp_path: Path) -> None:
    _, at = compiled(tmp_path, '"""losses.append(loss) in a docstring."""' + PROGRAM)
    path = str(tmp_path / "program.py")
    assert code.adding_statement(path, "losses") == at["appended"]
    assert code.adding_statement(path, "by_step") == at["item"]
    assert code.adding_statement(path, "total") == at["accumulated"]
    assert code.adding_statement(path, "nothing") is None


METER = """
class Meter:
    def update(self, val, n=1):
        self.sum += val * n  # @adds
        self.count += n
        self.total += self.sum  # @own
def log(meter, value):
    meter.update(value)  # @outside
meter = Meter()
for step in range(3):
    meter.update(loss.item(), 4)
    meter.update(loss, 4)  # @call
"""


def test_a_method_adding_its_parameter_is_traced_to_the_call_in_a_loop_that_passes_a_tensor(tmp_path: Path) -> None:
    _, at = compiled(tmp_path, METER)
    path = str(tmp_path / "program.py")
    assert code.passing_calls(path, at["adds"]) == [at["call"]]  # not the .item() call, nor the one outside a loop
    assert code.passing_calls(path, at["own"]) == []  # what a method adds from `self` is its own
    assert code.passing_calls(path, at["call"]) == []  # at module level: no function to be called


TRAINER = """
class Meter:
    def update(self, val, n=1):
        self.sum += val * n  # @adds
        self.avg = self.sum / n
class Trainer:
    def step(self, x):
        loss = net(x)
        self.log({"loss": loss}, x.shape[0])  # @step
    def log(self, stats, batch_size):
        for name, val in stats.items():
            self.meters[name].update(val, batch_size)  # @update
trainer = Trainer()
for i in range(3):
    trainer.step(data[i])
"""


def test_the_calls_that_handed_the_tensor_down_are_followed_up_to_the_one_that_made_it_theirs(tmp_path: Path) -> None:
    _, at = compiled(tmp_path, TRAINER)
    path = str(tmp_path / "program.py")
    # the meter's update is given it by log(), which was given it by step(); step() passes its own tensor (and a size)
    assert code.passing_calls(path, at["adds"]) == [at["update"], at["step"]]
    assert code.adding_statement(path, "avg") == at["adds"]  # an average is added to where its sum is


def test_two_backwards_share_an_iteration_only_as_two_statements_of_one_loop(tmp_path: Path) -> None:
    module, at = compiled(tmp_path, PROGRAM)
    backward, second = (module, at["backward"]), (module, at["second"])
    assert code.same_iteration(backward, second) is True
    assert code.same_iteration(backward, backward) is False
    assert code.same_iteration(None, backward) is None


@pytest.mark.parametrize(
    ("body", "how", "name"),
    [
        ("y = (w * 2).detach()\nz = y * 3\nz.sum().backward()\n", "detach()", "y"),
        ("value = loss.item()\nt = torch.tensor(value)\nt.backward()\n", "torch.tensor(...)", "t"),
        ("with torch.no_grad():\n    y = w * 2\ntorch.autograd.grad(y.sum(), w)\n", "a `with torch.no_grad():` block", "y"),
        ("y = w.data * 2\ny.sum().backward()\n", ".data", "y"),
        ("idx = torch.argmax(scores, 1)\nloss = (idx.float() - t).abs().mean()\nloss.backward()\n", "argmax()", "idx"),
        # a module class of the file: its forward, which sets the grad mode from self.training
        (
            "class Lin(nn.Linear):\n    def forward(self, x):\n        with torch.set_grad_enabled(self.training):\n"
            "            return x @ self.weight\nm = Lin(2, 2).eval()\ntorch.autograd.grad(m(x).sum(), x)\n",
            "a `with torch.set_grad_enabled(self.training):` block",
            "forward",
        ),
    ],
)
def test_the_statement_that_cut_the_graph(tmp_path: Path, body: str, how: str, name: str) -> None:
    module, _ = compiled(tmp_path, body)
    failing = len(body.splitlines())
    [cut] = code.cuts((module, failing))
    assert (cut.how, cut.name) == (how, name)


@pytest.mark.parametrize(
    ("body", "found"),
    [
        # a constant made without requires_grad, reached through a function of the file and its return
        ("def f(n):\n    zero = torch.tensor(0.0)\n    return zero * n\nloss = f(3)\nloss.backward()\n", [(2, "created")]),
        # every definition of a list grown item by item: the one made under no_grad is named with its block
        (
            "qs = [0.0, 0.0]\nwith torch.no_grad():\n    qs[1] += w.sum()\nfor k in range(0):\n    qs[1] += w.sum()\n"
            "qs[-1].backward()\n",
            [(3, "grad-mode")],
        ),
        # a cut of a graph wins over a constant beside it (torch.tensor over tensors, over literals)
        ("y = torch.tensor([a, b])\nm = torch.tensor([1.0])\n(y * m).sum().backward()\n", [(1, "cut")]),
        ("z = checkpoint(block, x, use_reentrant=True)\nz.sum().backward()\n", [(1, "checkpoint")]),
        ("z = checkpoint(block, x, use_reentrant=False)\nz.sum().backward()\n", []),
        # nothing cut a graph: the parameters frozen in the file come with the constant the loss starts from
        (
            "for p in net.parameters():\n    p.requires_grad = False\nhead.requires_grad_(False)\nx = torch.randn(2)\n"
            "head(net(x)).sum().backward()\n",
            [(2, "frozen"), (3, "frozen"), (4, "created")],
        ),
        # a cut of a graph wins over frozen parameters
        ("p.requires_grad = False\ny = torch.tensor([a, b])\ny.sum().backward()\n", [(2, "cut")]),
    ],
    ids=[
        "constant_returned", "grown_under_no_grad", "cut_over_constant", "reentrant_checkpoint", "plain_checkpoint",
        "frozen_parameters", "cut_over_frozen",
    ],
)
def test_each_statement_that_cut_or_never_made_the_graph(tmp_path: Path, body: str, found: list[tuple[int, str]]) -> None:
    module, _ = compiled(tmp_path, body)
    cuts = code.cuts((module, len(body.splitlines())))
    assert [(c.line, c.kind) for c in cuts] == found


def test_the_grad_mode_block_is_found_in_a_caller(tmp_path: Path) -> None:
    body = "@torch.inference_mode()\ndef step():\n    loss.backward()\nwith torch.no_grad():\n    step()\n"
    module, _ = compiled(tmp_path, body)
    assert code.grad_off_caller([(module, 3), (module, 5)])[1:] == (1, "@torch.inference_mode()")
    assert code.grad_off_caller([(module, 5)])[1:] == (4, "`with torch.no_grad():`")
    assert code.grad_off_caller([(module, 1)]) is None


def test_a_loss_made_before_the_loop_that_backwards_it(tmp_path: Path) -> None:
    body = "loss = (w * 2).sum()\nfor _ in range(3):\n    loss.backward()\n"
    module, _ = compiled(tmp_path, body)
    root = code.precomputed_root((module, 3))
    assert root is not None and (root.name, root.line) == ("loss", 1)
    fresh = "for _ in range(3):\n    loss = (w * 2).sum()\n    loss.backward()\n"
    (tmp_path / "fresh").mkdir()  # another file: the parsed source is cached per file and modification time
    module, _ = compiled(tmp_path / "fresh", fresh)
    assert code.precomputed_root((module, 3)) is None


def test_the_first_of_two_losses_that_read_a_tensor(tmp_path: Path) -> None:
    body = "for _ in range(2):\n    fake = G(z)\n    errD = D(fake)\n    errD.backward()\n    errG = D(fake)\n    errG.backward()\n"
    module, _ = compiled(tmp_path, body)
    assert code.first_loss_use((module, 2), (module, 4)) == ("fake", 3)
    assert code.first_loss_use((module, 3), (module, 4)) is None  # errD does not read itself


def test_the_modules_constructed_in_place_inside_a_model_call(tmp_path: Path) -> None:
    body = (
        "class Net(nn.Module):\n    def __init__(self):\n        self.act = nn.ReLU(inplace=True)\n"
        "D = nn.Sequential(nn.LeakyReLU(inplace=True), nn.Dropout(0.3, inplace=True), nn.Dropout(0.3))\n"
        "net = Net()\nout = D(x) + net(x)\n"
    )
    module, _ = compiled(tmp_path, body)
    assert code.inplace_constructions((module, 6)) == [3, 4]
    assert code.inplace_constructions((module, 6), "Dropout") == [4]
    assert code.inplace_constructions((module, 5)) == [3]


def test_a_module_called_through_self_is_found_where_its_class_assigns_it(tmp_path: Path) -> None:
    body = (
        "class Block(nn.Module):\n    def __init__(self):\n        self.activ = nn.ReLU(inplace=True)\n"
        "        self.other = nn.ReLU(inplace=True)\n    def forward(self, x):\n        x = self.activ(x)\n"
    )
    module, _ = compiled(tmp_path, body)
    assert code.inplace_constructions((module, 6)) == [3]


def test_state_carried_alongside_in_the_same_method(tmp_path: Path) -> None:
    body = (
        "class Memory:\n    def forward(self, k, v):\n        self.M = self.M + k.T @ v\n"
        "        self.z = self.z + k.sum(0)\n        self.steps = self.steps + 1\n"
    )
    module, _ = compiled(tmp_path, body)
    assert [(v.name, v.line) for v in code.carried_alongside((module, 3), "self.M")] == [("self.z", 4)]
