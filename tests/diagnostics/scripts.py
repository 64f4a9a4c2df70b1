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

TWO_ACCUMULATORS = """
torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
x = torch.randn(2, 4)
total, norm = 0, 0
for step in range(6):
    out = (x @ w).tanh()
    loss = out.sum()
    loss.backward()
    total = total + loss  # @total
    norm += out.pow(2).mean()  # @norm
    w.grad = None
"""

PENALTY_RETAINED_FOR_THE_LOSS = """
torch.manual_seed(0)
g = torch.randn(3, 3, requires_grad=True)
c = torch.randn(3, 1, requires_grad=True)
for step in range(3):
    fake = torch.tanh(torch.randn(4, 3) @ g)
    mixed = 0.5 * torch.randn(4, 3) + 0.5 * fake
    score = torch.nn.functional.leaky_relu(mixed @ c, 0.2) @ c.T
    grad = torch.autograd.grad(score.sum(), mixed, create_graph=True)[0]
    penalty = grad.pow(2).sum()
    loss = (fake @ c).mean()
    penalty.backward(retain_graph=True)
    loss.backward()
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

OPTIMIZER_STEP_BETWEEN_BACKWARDS = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(torch.randn(5, 3))  # @saved
loss_a = out.sum()
loss_b = (out ** 2).mean()
loss_a.backward(retain_graph=True)
optimizer.step()  # @modified
loss_b.backward()
"""

# Correct loops: the watches must stay silent on every one of them, for a thousand steps.
CORRECT_LOOPS = {
    "two_losses_shared_trunk": """
torch.manual_seed(0)
trunk, head_a, head_b = torch.nn.Linear(4, 8), torch.nn.Linear(8, 1), torch.nn.Linear(8, 2)
params = [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.SGD(params, lr=1e-3)
for step in range(1000):
    features = torch.tanh(trunk(torch.randn(16, 4)))
    loss_a = head_a(features).pow(2).mean()
    loss_b = head_b(features).abs().mean()
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    optimizer.step()
""",
    "gradient_accumulation": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
running = 0.0
for step in range(1000):
    optimizer.zero_grad()
    for micro in range(2):
        x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
        loss = torch.nn.functional.cross_entropy(model(x), y) / 2
        loss.backward()
        running += loss.item()
    optimizer.step()
""",
    "truncated_bptt": """
torch.manual_seed(0)
rnn, head = torch.nn.GRU(3, 8), torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=1e-3)
hidden = torch.zeros(1, 2, 8)
for step in range(1000):
    hidden = hidden.detach()
    out, hidden = rnn(torch.randn(4, 2, 3), hidden)
    loss = head(out).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    "gan_steps": """
torch.manual_seed(0)
generator, critic = torch.nn.Linear(2, 4), torch.nn.Linear(4, 1)
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)
for step in range(1000):
    fake = generator(torch.randn(8, 2))
    d_loss = torch.nn.functional.softplus(-critic(torch.randn(8, 4))).mean() + torch.nn.functional.softplus(critic(fake.detach())).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = torch.nn.functional.softplus(-critic(fake)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
""",
    "gradient_penalty": """
torch.manual_seed(0)
critic = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4)
for step in range(1000):
    x = torch.randn(8, 4, requires_grad=True)
    score = critic(x)
    (grad,) = torch.autograd.grad(score.sum(), x, create_graph=True)
    penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
    loss = score.mean() + 10 * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
}

# torch.func and torch.autograd.functional run backwards and retains of their own: correct programs using them
# must stay as silent as the loops above.
TRANSFORM_LOOPS = {
    "vjp_called_twice": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(16, 4)
for step in range(30):
    out, vjp_fn = torch.func.vjp(lambda p: torch.func.functional_call(model, p, (x,)), params)
    first = vjp_fn(torch.ones_like(out))
    second = vjp_fn(2 * torch.ones_like(out))
    params = {k: params[k] - 1e-3 * (first[0][k] + second[0][k]) for k in params}
""",
    "jacobians_and_hessians": """
torch.manual_seed(0)
x = torch.randn(4)
for step in range(30):
    J = torch.func.jacrev(lambda t: torch.tanh(t) * 2)(x)
    H = torch.func.hessian(lambda t: (t.sin() ** 2).sum())(x)
    J2 = torch.autograd.functional.jacobian(lambda t: t.exp() * t, x)
    H2 = torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), x)
    _, hv = torch.autograd.functional.hvp(lambda t: (t.cos() * t).sum(), x, torch.ones(4))
    x = x - 0.01 * (J.sum(0) + H.sum(0) + J2.sum(0) + H2.sum(0) + hv)
""",
    "maml_inner_step": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
params = {k: v.detach().clone().requires_grad_() for k, v in model.named_parameters()}
optimizer = torch.optim.SGD(params.values(), lr=0.01)
x, y = torch.randn(10, 3), torch.randn(10, 1)
def loss_fn(p, x, y):
    return ((torch.func.functional_call(model, p, (x,)) - y) ** 2).mean()
for step in range(30):
    optimizer.zero_grad()
    inner = torch.func.grad(loss_fn)(params, x, y)
    adapted = {k: params[k] - 0.1 * inner[k] for k in params}
    loss_fn(adapted, x, y).backward()
    optimizer.step()
""",
    "per_sample_gradients": """
torch.manual_seed(0)
model = torch.nn.Linear(5, 3)
params = {k: v.detach() for k, v in model.named_parameters()}
x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
def loss_fn(p, xi, yi):
    logits = torch.func.functional_call(model, p, (xi.unsqueeze(0),))
    return torch.nn.functional.cross_entropy(logits, yi.unsqueeze(0))
for step in range(30):
    grads = torch.func.vmap(torch.func.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
    params = {k: params[k] - 0.1 * grads[k].mean(0) for k in params}
""",
}

# A gradient from torch.func.grad of a parameter that requires grad carries a graph: kept, they pile up.
TRANSFORM_RESULTS_KEPT = """
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
history = []
for step in range(6):
    g = torch.func.grad(lambda w: (w.sin() * x).sum())(w)  # @made
    history.append(g)  # @append
"""

# An in-place change inside the transformed function, to a value its backward needs.
MODIFIED_INSIDE_TRANSFORM = """
def f(w):
    y = w.exp()  # @saved
    y.mul_(2)  # @modified
    return y.sum()
g = torch.func.grad(f)(torch.ones(3))  # @called
"""
