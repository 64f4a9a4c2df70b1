"""W1-W5: fixed float32 problems from one seeded NumPy generator, each loss written once against `Ops`.

Every library runs the same math: the same loss function, the same inputs, the same update.
`make_step` builds the timed closure; `outputs` runs one step from a fresh copy of the problem and
returns what is checked against the float64 reference.

The user-path variants (W2-nn, W2-adam, W3-nn) are the same problems written as PyTorch users write
them: nn.Linear layers in nn.Sequential, F.cross_entropy, optim.SGD or optim.Adam. Only torch-like
libraries run them (glassgrad as torch, and PyTorch itself).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from libs import Library, LossFn, Ops

SEED = 20_240_606
LR = 0.01
CHAIN_CYCLES = 51  # 51 cycles of 5 ops + one final exp = 256 elementwise ops
CHAIN_OPS = 5 * CHAIN_CYCLES + 1

Kind = Literal["grad", "sgd", "hvp", "program"]


@dataclass(frozen=True)
class Problem:
    """NumPy inputs: trainable parameters, constant data (float or integer), and W5's fixed vector."""

    params: list[np.ndarray]
    data: list[np.ndarray]
    vector: np.ndarray | None = None


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    threads: int
    kind: Kind
    loss: LossFn | None  # None for the user-path variants: their program is the math
    make_problem: Callable[[np.random.Generator], Problem]
    unit: str = "ms"
    per: int = 1  # the time is divided by this (W1: per op)
    tol: float = 1e-3  # max |got - ref| / max |ref|, per output
    budget_s: float = 20.0  # timing budget for all libraries together, default run
    max_rounds: int = 200
    settle_s: float = 0.0  # idle pause before each timed call (outside the timer), for multi-threaded rows
    program: Callable[[Any, Any, Problem], Program] | None = None  # kind "program": (torch, dtype, problem) -> Program

    @property
    def base(self) -> str:
        """The raw workload a user-path variant belongs to ("W2" for "W2-nn")."""
        return self.key.split("-")[0]

    def scale(self, seconds: float) -> float:
        """Seconds of one call in this workload's unit."""
        factor = 1e6 if self.unit == "us/op" else 1e3
        return seconds * factor / self.per


# --- the math, written once ---------------------------------------------------------------------


def chain_loss(ops: Ops, params: Sequence[Any], data: Sequence[Any]) -> Any:
    """W1: exp, * constant, + x, sin, tanh, repeated; 256 elementwise ops, then sum."""
    (x,), (c,) = params, data
    exp, sin, tanh = ops.exp, ops.sin, ops.tanh
    y = x
    for _ in range(CHAIN_CYCLES):
        y = tanh(sin(exp(y) * c + x))
    return ops.sum(exp(y))


def mlp(params: Sequence[Any], x: Any, act: Callable[[Any], Any], act_last: bool) -> Any:
    """Linear layers (x @ W + b) from params = [W1, b1, W2, b2, ...], `act` between them."""
    h, last = x, len(params) - 2
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i < last or act_last:
            h = act(h)
    return h


def cross_entropy(ops: Ops, logits: Any, rows: Any, targets: Any) -> Any:
    """Mean cross-entropy: logsumexp (max, exp, sum, log) minus the target logit picked by indexing."""
    m = ops.rowmax(logits)
    lse = ops.sum(ops.log(ops.sum(ops.exp(logits - m), 1))) + ops.sum(m)
    return (lse - ops.sum(logits[rows, targets])) * (1.0 / logits.shape[0])


def classifier_loss(ops: Ops, params: Sequence[Any], data: Sequence[Any]) -> Any:
    """W2 and W5: ReLU MLP, cross-entropy."""
    x, rows, targets = data
    return cross_entropy(ops, mlp(params, x, ops.relu, act_last=False), rows, targets)


def tanh_mlp_loss(ops: Ops, params: Sequence[Any], data: Sequence[Any]) -> Any:
    """W3 and W6: tanh after every layer, loss = sum of the last activation."""
    (x,) = data
    return ops.sum(mlp(params, x, ops.tanh, act_last=True))


def rnn_loss(ops: Ops, params: Sequence[Any], data: Sequence[Any]) -> Any:
    """W4: h = tanh(x_t @ Wx + h @ Wh + b) over the steps, loss = sum of the last state."""
    wx, wh, b = params
    h, *xs = data
    tanh = ops.tanh
    for x in xs:
        h = tanh(x @ wx + h @ wh + b)
    return ops.sum(h)


# --- the user paths: PyTorch programs, run by glassgrad imported as torch and by PyTorch ---------


class Program:
    """One training (or forward+backward) step of an nn.Sequential model, as a PyTorch user writes it."""

    def __init__(self, model: Any, x: Any, target: Any, criterion: Callable[[Any, Any], Any], optimizer: Any = None) -> None:
        self.model, self.x, self.target, self.criterion, self.optimizer = model, x, target, criterion, optimizer
        self.params = list(model.parameters())

    def step(self) -> Any:
        """zero_grad, forward, backward and, with an optimizer, its step; the loss."""
        self.model.zero_grad()
        loss = self.criterion(self.model(self.x), self.target)
        loss.backward()
        if self.optimizer is not None:
            self.optimizer.step()
        return loss

    def outputs(self) -> dict[str, np.ndarray]:
        """One step's loss, gradients and (with an optimizer) the parameters after it."""
        loss = self.step()
        out = {"loss": loss.detach().numpy()} | {f"grad[{i}]": p.grad.numpy() for i, p in enumerate(self.params)}
        if self.optimizer is not None:
            out |= {f"param[{i}] after step": p.detach().numpy() for i, p in enumerate(self.params)}
        return {k: np.array(v) for k, v in out.items()}  # copies: the next step updates the tensors in place


def linear_stack(torch: Any, dtype: Any, params: Sequence[np.ndarray], act: Callable[[], Any], act_last: bool) -> Any:
    """nn.Sequential of nn.Linear layers holding `params` ([W1, b1, ...], W as (in, out)), `act()` between them."""
    layers: list[Any] = []
    last = len(params) - 2
    for i in range(0, len(params), 2):
        w, b = params[i], params[i + 1]
        layer = torch.nn.Linear(w.shape[0], w.shape[1], dtype=dtype)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(w.T.copy(), dtype=dtype))
            layer.bias.copy_(torch.tensor(b, dtype=dtype))
        layers.append(layer)
        if i < last or act_last:
            layers.append(act())
    return torch.nn.Sequential(*layers)


def classifier_program(optimizer: str) -> Callable[[Any, Any, Problem], Program]:
    """W2 written with nn.Linear, nn.ReLU, F.cross_entropy and `optimizer` (SGD at W2's lr, or Adam at its default)."""

    def build(torch: Any, dtype: Any, problem: Problem) -> Program:
        model = linear_stack(torch, dtype, problem.params, torch.nn.ReLU, act_last=False)
        x, _, targets = problem.data
        opt = (
            torch.optim.SGD(model.parameters(), lr=LR) if optimizer == "sgd" else torch.optim.Adam(model.parameters(), lr=1e-3)
        )
        inputs, labels = torch.tensor(x, dtype=dtype), torch.from_numpy(targets)
        return Program(model, inputs, labels, torch.nn.functional.cross_entropy, opt)

    return build


def tanh_mlp_program(torch: Any, dtype: Any, problem: Problem) -> Program:
    """W3 (and W6) written with nn.Linear and nn.Tanh; loss = output.sum()."""
    model = linear_stack(torch, dtype, problem.params, torch.nn.Tanh, act_last=True)
    return Program(model, torch.tensor(problem.data[0], dtype=dtype), None, lambda out, _: out.sum())


# --- fixed inputs -------------------------------------------------------------------------------


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def linear_params(rng: np.random.Generator, sizes: Sequence[int]) -> list[np.ndarray]:
    """[W1, b1, ...] with W of shape (in, out), uniform in +-1/sqrt(in) as torch.nn.Linear."""
    params = []
    for n_in, n_out in itertools.pairwise(sizes):
        bound = 1.0 / np.sqrt(n_in)
        params += [_f32(rng.uniform(-bound, bound, (n_in, n_out))), _f32(rng.uniform(-bound, bound, n_out))]
    return params


def chain_problem(rng: np.random.Generator) -> Problem:
    return Problem([_f32(rng.uniform(-1, 1, 16))], [_f32(rng.uniform(0.5, 1.0, 16))])


def classifier_problem(rng: np.random.Generator, batch: int = 64) -> Problem:
    params = linear_params(rng, (784, 256, 256, 10))
    x = _f32(rng.standard_normal((batch, 784)))
    targets = rng.integers(0, 10, batch, dtype=np.int64)
    vector = _f32(rng.standard_normal((784, 256)))
    return Problem(params, [x, np.arange(batch, dtype=np.int64), targets], vector)


def tanh_mlp_problem(rng: np.random.Generator, batch: int = 512, width: int = 2048) -> Problem:
    params = linear_params(rng, (width,) * 4)
    return Problem(params, [_f32(rng.standard_normal((batch, width)))])


def rnn_problem(
    rng: np.random.Generator, steps: int = 64, batch: int = 32, n_in: int = 64, hidden: int = 128
) -> Problem:
    bound = 1.0 / np.sqrt(hidden)
    wx = _f32(rng.uniform(-bound, bound, (n_in, hidden)))
    wh = _f32(rng.uniform(-bound, bound, (hidden, hidden)))
    b = _f32(rng.uniform(-bound, bound, hidden))
    xs = [_f32(rng.standard_normal((batch, n_in))) for _ in range(steps)]
    return Problem([wx, wh, b], [np.zeros((batch, hidden), np.float32), *xs])


WORKLOADS: dict[str, Workload] = {
    w.key: w
    for w in (
        Workload(
            "W1",
            "per-op overhead: 256 elementwise ops on 16 floats, sum, backward",
            1,
            "grad",
            chain_loss,
            chain_problem,
            unit="us/op",
            per=CHAIN_OPS,
            budget_s=15,
            max_rounds=400,
        ),
        Workload(
            "W2",
            "MLP 784-256-256-10 batch 64, ReLU, cross-entropy, SGD step",
            1,
            "sgd",
            classifier_loss,
            classifier_problem,
            budget_s=20,
            max_rounds=400,
        ),
        Workload(
            "W2-nn",
            "W2 as users write it: nn.Linear, F.cross_entropy, optim.SGD",
            1,
            "program",
            None,
            classifier_problem,
            budget_s=20,
            max_rounds=400,
            program=classifier_program("sgd"),
        ),
        Workload(
            "W2-adam",
            "W2-nn with optim.Adam (lr 1e-3) instead of SGD",
            1,
            "program",
            None,
            classifier_problem,
            budget_s=20,
            max_rounds=400,
            program=classifier_program("adam"),
        ),
        Workload(
            "W3",
            "MLP 3x Linear 2048, batch 512, tanh, loss=sum, fwd+bwd",
            2,
            "grad",
            tanh_mlp_loss,
            tanh_mlp_problem,
            budget_s=60,
            max_rounds=25,
            settle_s=0.15,
        ),
        Workload(
            "W3-nn",
            "W3 as users write it: nn.Linear and nn.Tanh in nn.Sequential",
            2,
            "program",
            None,
            tanh_mlp_problem,
            budget_s=60,
            max_rounds=25,
            settle_s=0.15,
            program=tanh_mlp_program,
        ),
        Workload(
            "W4",
            "tanh RNN 64 steps, hidden 128, batch 32, input 64, fwd+bwd",
            1,
            "grad",
            rnn_loss,
            rnn_problem,
            budget_s=20,
        ),
        Workload(
            "W5",
            "Hessian-vector product of W2's loss wrt its first weight",
            1,
            "hvp",
            classifier_loss,
            classifier_problem,
            budget_s=20,
            max_rounds=400,
        ),
    )
}


# --- running a workload on one library ----------------------------------------------------------


@dataclass
class Prepared:
    params: list[Any]
    data: list[Any]
    vector: Any


def prepare(lib: Library, kind: Kind, problem: Problem) -> Prepared:
    """The problem as this library's tensors; for an HVP only the first weight is differentiated."""
    if kind == "hvp":
        first, *rest = problem.params
        params = [lib.leaf(first), *(lib.data(p) for p in rest)]
    else:
        params = [lib.leaf(p) for p in problem.params]
    vector = None if problem.vector is None else lib.data(problem.vector)
    return Prepared(params, [lib.data(d) for d in problem.data], vector)


def build_program(lib: Library, wl: Workload, problem: Problem) -> Program:
    """A user-path workload's program for this library (NotSupported where the library is not torch-like)."""
    assert wl.program is not None, f"{wl.key} is not a user-path workload"
    torch, dtype = lib.torch_like()
    return wl.program(torch, dtype, problem)


def make_step(lib: Library, wl: Workload, problem: Problem) -> Callable[[], object]:
    """The closure that is timed: W1/W3/W4 zero_grad+forward+backward, W2 adds the SGD step, W5 an HVP."""
    if wl.kind == "program":
        return build_program(lib, wl, problem).step
    p = prepare(lib, wl.kind, problem)
    if wl.kind == "hvp":
        hvp = lib.hvp(wl.loss)
        return lambda: hvp(p.params, p.data, p.vector)
    value_and_grad = lib.value_and_grad(wl.loss)
    if wl.kind == "grad":
        return lambda: value_and_grad(p.params, p.data)

    def sgd_step() -> None:
        _, grads = value_and_grad(p.params, p.data)
        lib.sgd_(p.params, grads, LR)

    return sgd_step


def outputs(lib: Library, wl: Workload, problem: Problem) -> dict[str, np.ndarray]:
    """One step from a fresh copy of the problem, as NumPy arrays, for the correctness check."""
    if wl.kind == "program":
        return build_program(lib, wl, problem).outputs()
    p = prepare(lib, wl.kind, problem)
    if wl.kind == "hvp":
        return {"hvp": lib.to_numpy(lib.hvp(wl.loss)(p.params, p.data, p.vector))}
    loss, grads = lib.value_and_grad(wl.loss)(p.params, p.data)
    out = {"loss": lib.to_numpy(loss)} | {f"grad[{i}]": lib.to_numpy(g) for i, g in enumerate(grads)}
    if wl.kind == "sgd":
        lib.sgd_(p.params, grads, LR)
        out |= {f"param[{i}] after step": lib.to_numpy(q) for i, q in enumerate(p.params)}
    return out


@dataclass
class Check:
    passed: bool
    rel_err: float
    problems: str  # why it failed
    notes: str  # float32 inputs that came back in another dtype: reported, not failed (it costs, it does not win)


def compare(got: dict[str, np.ndarray], ref: dict[str, np.ndarray], tol: float) -> Check:
    """Every output within tol of the float64 reference, as max |got - ref| / max |ref|."""
    worst, problems, notes = 0.0, [], []
    for name, expected in ref.items():
        actual = got.get(name)
        if actual is None or actual.shape != expected.shape:
            problems.append(f"{name}: shape {None if actual is None else actual.shape} != {expected.shape}")
            continue
        if actual.dtype != np.float32:
            notes.append(f"{name} is {actual.dtype}")
        err = float(np.max(np.abs(actual.astype(np.float64) - expected), initial=0.0))
        rel = err / max(float(np.max(np.abs(expected), initial=0.0)), 1e-30)
        if not np.isfinite(rel) or rel > tol:
            problems.append(f"{name}: rel err {rel:.2e} > {tol:.0e}")
        worst = max(worst, rel) if np.isfinite(rel) else float("inf")
    return Check(not problems, worst, "; ".join(problems), ", ".join(notes))
