"""Small realistic scripts with known mistakes, run as files so that line numbers are real.

Lines the tests care about carry a marker comment (`# @name`); `line_of` finds them. Each
script is written against `torch` and run once with `import glassgrad as torch` and once
with real PyTorch, so the first line of each error can be compared with PyTorch's.
"""

from __future__ import annotations

import runpy
import textwrap
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Script:
    path: Path
    text: str

    def line_of(self, marker: str) -> int:
        for number, line in enumerate(self.text.splitlines(), start=1):
            if line.rstrip().endswith(f"# @{marker}"):
                return number
        raise KeyError(marker)

    def site(self, marker: str) -> str:
        return f"{self.path}:{self.line_of(marker)}"

    def run(self, module: str) -> BaseException | None:
        """Run under `module` ("glassgrad" or "torch"); return the exception it ended with."""
        try:
            runpy.run_path(str(self.path), init_globals={"MODULE": module}, run_name="__main__")
        except Exception as error:
            return error
        return None


def write(tmp_path: Path, name: str, body: str) -> Script:
    text = "import importlib\ntorch = importlib.import_module(MODULE)\n" + textwrap.dedent(body)
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return Script(path, text)


SAME_LOSS_TWICE = """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (x.exp() * 2).sum()  # @created
loss.backward()  # @freed
loss.backward()  # @second
"""

RECURRENT_WITHOUT_DETACH = """
torch.manual_seed(0)
w_in = torch.randn(4, 8, requires_grad=True)
w_h = (torch.randn(8, 8) * 0.1).requires_grad_()
hidden = torch.zeros(1, 8)
for step in range(3):
    x = torch.ones(1, 4) * step
    hidden = torch.tanh(x @ w_in + hidden @ w_h)  # @hidden
    loss = (hidden ** 2).sum()
    loss.backward()  # @backward
"""

TWO_LOSSES = """
x = torch.tensor([[1.0, -2.0, 0.5]])
w = torch.tensor([[0.3, -0.1], [0.2, 0.4], [-0.5, 0.1]], requires_grad=True)
features = torch.tanh(x @ w)  # @shared
loss_a = features.sum()
loss_b = (features ** 2).mean()
loss_a.backward()  # @first
loss_b.backward()  # @second
"""

STEP_BETWEEN_BACKWARDS = """
w1 = torch.tensor([[0.5, -0.3], [0.2, 0.8]], requires_grad=True)
w2 = torch.tensor([[1.0], [-1.0]], requires_grad=True)
x = torch.tensor([[1.0, 2.0]])
out = torch.tanh(x @ w1) @ w2  # @saved
loss_a = out.sum()
loss_b = (out ** 2).sum()
loss_a.backward(retain_graph=True)
with torch.no_grad():
    for w in (w1, w2):
        w -= 0.1 * w.grad  # @modified
loss_b.backward()
"""

FUNCTION_AFTER_FREE = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x)  # @created
y.sum().backward()  # @freed
y.grad_fn.saved_tensors  # @read
"""

ACCUMULATOR = """
torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
x = torch.randn(2, 4)
total = 0
for step in range(8):
    loss = (x @ w).tanh().sum()
    loss.backward()
    total = total + loss  # @accumulate
    w.grad = None
"""

LOSSES_KEPT_FOR_LOGGING = """
torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
x = torch.randn(2, 4)
history = []
for step in range(8):
    loss = (x @ w).tanh().sum()  # @loss
    loss.backward()
    history.append(loss)  # @append
    w.grad = None
"""

RETAIN_FOR_NOTHING = """
w = torch.tensor([[0.5, -0.3], [0.2, 0.8]], requires_grad=True)
x = torch.tensor([[1.0, 2.0]])
for step in range(3):
    loss = torch.tanh(x @ w).sum()
    loss.backward(retain_graph=True)  # @retain
"""

CORRECT_LOOP = """
torch.manual_seed(0)
w_in = torch.randn(4, 8, requires_grad=True)
w_h = (torch.randn(8, 8) * 0.1).requires_grad_()
hidden = torch.zeros(1, 8)
total = 0.0
for step in range(1000):
    x = torch.ones(1, 4) * (step % 7)
    hidden = torch.tanh(x @ w_in + hidden.detach() @ w_h)
    loss = (hidden ** 2).sum()
    loss.backward()
    with torch.no_grad():
        for w in (w_in, w_h):
            w -= 0.001 * w.grad
            w.grad = None
    total += loss.item()
"""
