"""The glass decides the pattern from the user's code read as code, then gives the fix that fits, on both engines.

Each program is a plain `import torch` script run by `glassgrad doctor` under glassgrad's engine and under real
PyTorch (which raises the same errors: the oracle for which calls fail).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from glassgrad import _sites as sites
from glassgrad.diagnostics import watches

from .test_doctor_engines import ENGINES, FREED, MODIFIED, diagnosed, plain

pytestmark = pytest.mark.torch_oracle

NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"

PRECOMPUTED = """
torch.manual_seed(0)
log_scale = torch.zeros(3, requires_grad=True)
bias = torch.zeros(3, requires_grad=True)
optimizer = torch.optim.SGD([log_scale, bias], lr=0.1)
scale = log_scale.exp()  # @precomputed
for step in range(3):
    x = torch.randn(4, 3)
    loss = ((x * scale + bias) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

CARRIED = """
torch.manual_seed(0)
cell = torch.nn.RNNCell(3, 4)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
h = torch.zeros(1, 4)
for step in range(3):
    x = torch.randn(1, 3)  # @start
    h = cell(x, h)  # @state
    loss = h.pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

ACCUMULATOR_BACKWARDED = """
w = torch.randn(3, requires_grad=True)
total = 0
for step in range(3):
    total = total + w.sin().sum() * step  # @add
    total.backward()
"""

ACCUMULATOR_RESET_PER_EPOCH = """
w = torch.randn(3, requires_grad=True)
for epoch in range(2):
    total = 0  # @reset
    for step in range(3):
        loss = (w.sin() * torch.randn(3)).sum()
        total = total + loss  # @add
        total.backward()
"""

# An LSTM state kept in a module attribute, retain_graph=True, then optimizer.step(): the next iteration's backward
# reaches through the state into the previous graph, whose saved weights the step changed.
STATE_IN_ATTRIBUTE = """
torch.manual_seed(0)
class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.GRUCell(3, 4)
        self.head = torch.nn.Linear(4, 2)
        self.hidden = torch.zeros(1, 4)
    def forward(self, x):
        self.hidden = self.cell(x, self.hidden)  # @state
        return self.head(self.hidden)
model = Tagger()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(1, 3)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # @backward
    optimizer.step()
"""

MAML = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
def forward(params, x):
    h = torch.tanh(x @ params[0].t() + params[1])
    return h @ params[2].t() + params[3]
for outer in range(20):
    meta_opt.zero_grad()
    for task in range(4):
        a = torch.rand(1) * 4 + 1
        xs, xq = torch.rand(10, 1) * 10 - 5, torch.rand(10, 1) * 10 - 5
        params = list(model.parameters())
        for inner in range(2):
            support = ((forward(params, xs) - a * torch.sin(xs)) ** 2).mean()
            grads = torch.autograd.grad(support, params, create_graph=True)
            params = [p - 0.01 * g for p, g in zip(params, grads)]
        query = ((forward(params, xq) - a * torch.sin(xq)) ** 2).mean() / 4
        query.backward()
    meta_opt.step()
"""

GRADIENT_NORMS_KEPT = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
norms = []
for step in range(8):
    loss = model(torch.randn(16, 4)).pow(2).mean()
    grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
    norm = torch.sqrt(sum((g ** 2).sum() for g in grads))  # @norm
    norms.append(norm)  # @append
    optimizer.zero_grad()
    (loss + 0.1 * norm).backward()
    optimizer.step()
"""

DICT_IN_LIST = """
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
outputs = []
for step in range(8):
    loss = model(torch.randn(16, 4)).pow(2).mean()  # @loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    outputs.append({"loss": loss})  # @append
"""

# A docstring and another function mention the holder; neither is the statement that leaks.
HOLDER_MENTIONED_ELSEWHERE = '''
"""Keeps history.append(loss) in mind."""
torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
history = []
def log(x):
    history.append(x.item())
for step in range(8):
    loss = (torch.randn(2, 4) @ w).tanh().sum()
    loss.backward()
    log(loss)
    history.append(loss)  # @append
    w.grad = None
'''


def message(report: dict) -> str:
    return report["error"]["message"]


# (script, the error's first words, what the explanation must say with {marker} for a marked line, what it must not)
CROSSINGS = {
    "precomputed": (
        PRECOMPUTED,
        FREED,
        [
            "`scale` is computed once, before the loop, at\n  {precomputed}",
            "Compute it inside the loop",
            "with torch.no_grad():",
            "Do not detach() it inside the\n  loop: the parameters it is computed from would silently stop learning",
        ],
        ["detach() it where the iteration starts"],
    ),
    "carried": (
        CARRIED,
        FREED,
        [
            "`h` carries state from one iteration to the next, rebound from its previous value at\n  {state}",
            "detach() it where the iteration starts, as the first statement of the loop body (line {start_line}):",
            "        h = h.detach()\n",
        ],
        [],
    ),
    "accumulator": (
        ACCUMULATOR_BACKWARDED,
        FREED,
        ["`total` accumulates every iteration's tensor, graph and all, at\n  {add}", "It is never reset inside the loop"],
        ["carries state"],
    ),
    "accumulator_reset_per_epoch": (
        ACCUMULATOR_RESET_PER_EPOCH,
        FREED,
        [
            "`total` accumulates every iteration's tensor, graph and all, at\n  {add}",
            "It is reset only by the enclosing loop at\n  {reset}",
            "At the addition, keep loss.item() (a number) or loss.detach() instead.",
        ],
        [],
    ),
    # The stale node is from the previous iteration: reordering optimizer.step() cannot help, detaching the state can.
    "stale_from_earlier_iteration": (
        STATE_IN_ATTRIBUTE,
        MODIFIED,
        [
            "This value belongs to a graph built in an earlier iteration",
            "Reordering the step cannot help",
            "`self.hidden` carries state from one iteration to the next, rebound from its previous value at\n  {state}",
            "detach() it where the iteration starts, before it is read again:",
        ],
        ["call optimizer.step() after the last"],
    ),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(CROSSINGS))
def test_the_fix_follows_what_the_loop_does_with_the_tensor(tmp_path: Path, engine: str, name: str) -> None:
    body, first, said, unsaid = CROSSINGS[name]
    script = plain(tmp_path, name, body)
    text = message(diagnosed(script, engine))
    assert text.startswith(first)
    markers = [marker for marker in ("precomputed", "state", "start", "add", "reset") if f"# @{marker}" in body]
    lines = {marker: script.site(marker) for marker in markers} | {f"{m}_line": script.line_of(m) for m in markers}
    for words in said:
        assert words.format(**lines) in text
    for words in unsaid:
        assert words not in text


ACTOR_CRITIC = """
torch.manual_seed(0)
actor, critic = torch.nn.Linear(4, 2), torch.nn.Linear(4, 1)
opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
state = torch.randn(1, 4)
for step in range(60):
    log_probs = torch.log_softmax(actor(state), dim=-1)
    action = torch.multinomial(log_probs.exp().detach(), 1)
    next_state, reward = torch.randn(1, 4), torch.randn(1)
    value, next_value = critic(state), critic(next_state).detach()
    advantage = reward + 0.9 * next_value - value
    opt_critic.zero_grad()
    advantage.pow(2).mean().backward()
    opt_critic.step()
    opt_actor.zero_grad()
    (-log_probs.gather(1, action) * advantage.detach()).mean().backward()
    opt_actor.step()
    state = next_state
"""

CHECKPOINTED = """
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
block = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8))
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD([*block.parameters(), *head.parameters()], lr=1e-3)
for step in range(60):
    x = torch.randn(4, 8, requires_grad=True)
    hidden = checkpoint(block, x, use_reentrant=False)
    loss = head(hidden).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("body", [MAML, ACTOR_CRITIC, CHECKPOINTED], ids=["maml", "actor_critic", "checkpoint"])
def test_correct_loops_with_several_backwards_are_silent(tmp_path: Path, engine: str, body: str) -> None:
    report = diagnosed(plain(tmp_path, "correct", body), engine)
    assert report["error"] is None
    assert report["warnings"] == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("body", "made", "holder"),
    [
        (GRADIENT_NORMS_KEPT, "norm", "list `norms` (global)"),
        (DICT_IN_LIST, "loss", "list `outputs` (global) (through a dict in it)"),
        (HOLDER_MENTIONED_ELSEWHERE, None, "list `history` (global)"),
    ],
    ids=["gradient_norms", "dict_in_list", "mentioned_elsewhere"],
)
def test_graphs_kept_alive_are_named_at_the_statement_that_keeps_them(
    tmp_path: Path, engine: str, body: str, made: str | None, holder: str
) -> None:
    script = plain(tmp_path, "kept", body)
    report = diagnosed(script, engine)
    assert report["error"] is None
    [warning] = report["warnings"]
    if made is not None:
        assert f"end in a tensor made at\n  {script.site(made)}" in warning["message"]
    assert f"It is held by {holder}, added to at\n  {script.site('append')}" in warning["message"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("body", "how"),
    [
        (
            """
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            out = (x ** 3).sum()
            grad_1 = torch.autograd.grad(out, x, create_graph=True)[0]
            grad_1_detached = grad_1.detach()  # @cut
            grad_2 = torch.autograd.grad(grad_1_detached.sum(), x)[0]
            """,
            "the graph was cut by detach() at",
        ),
        (
            """
            w = torch.ones(3, requires_grad=True)
            with torch.no_grad():
                y = w * 2  # @cut
            loss = y.sum()
            loss.backward()
            """,
            "`y` was computed inside a `with torch.no_grad():` block, at",
        ),
        (
            """
            w = torch.ones(3, requires_grad=True)
            values = (w * 2).detach().numpy()
            y = torch.tensor(values)  # @cut
            y.sum().backward()
            """,
            "the graph was cut by torch.tensor(...) at",
        ),
    ],
    ids=["detach", "no_grad", "numpy_round_trip"],
)
def test_a_graph_cut_names_the_statement_that_cut_it(tmp_path: Path, engine: str, body: str, how: str) -> None:
    script = plain(tmp_path, "cut", body)
    text = message(diagnosed(script, engine))
    assert text.startswith(NO_GRAD_FN)
    assert f"{how}\n  {script.site('cut')}" in text


@pytest.mark.parametrize("engine", ENGINES)
def test_a_non_scalar_root_is_explained(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "vector", "x = torch.ones(3, requires_grad=True)\ny = x * 2  # @made\ny.backward()\n")
    text = message(diagnosed(script, engine))
    assert text.startswith("grad can be implicitly created only for scalar outputs")
    assert f"has shape [3], made at {script.site('made')}" in text
    assert "loss.sum() or loss.mean()" in text


@pytest.mark.parametrize("engine", ENGINES)
def test_a_node_made_inside_a_library_is_named_at_the_users_call(tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "site-packages"
    (library / "lossy").mkdir(parents=True)
    (library / "lossy" / "__init__.py").write_text("def loss_of(x, w):\n    return (x @ w).tanh().sum()\n")
    monkeypatch.syspath_prepend(str(library))
    monkeypatch.setattr(sites, "_library", (*sites._library, str(library) + "/"))
    monkeypatch.setattr(sites, "_internal", {})
    monkeypatch.delitem(sys.modules, "lossy", raising=False)
    body = """
    import lossy
    w = torch.randn(4, 4, requires_grad=True)
    history = []
    for step in range(6):
        loss = lossy.loss_of(torch.randn(2, 4), w)  # @call
        loss.backward()
        history.append(loss)  # @append
    """
    script = plain(tmp_path, "library", body)
    [warning] = diagnosed(script, engine)["warnings"]
    assert f"end in a tensor made at\n  {script.site('call')}" in warning["message"]


def test_a_leaking_loop_searches_the_heap_a_logarithmic_number_of_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    searches = []
    search = watches._holders
    monkeypatch.setattr(watches, "_holders", lambda *args: searches.append(1) or search(*args))
    body = "w = torch.randn(3, requires_grad=True)\ntotal = 0\nfor step in range(200):\n    loss = w.sin().sum()\n    loss.backward()\n    total = total + loss\n"
    report = diagnosed(plain(tmp_path, "leak", body), "glassgrad")
    assert len(report["warnings"]) == 1
    assert len(searches) <= 3  # once, then each time the surviving nodes grew 16-fold (200 steps: 2 more at most)


RETAINED_STATE = """
torch.manual_seed(0)
cell = torch.nn.GRUCell(3, 4)
head = torch.nn.Linear(4, 1)
h = torch.zeros(1, 4)
for step in range(8):
    h = cell(torch.randn(1, 3), h)  # @state
    loss = head(h).pow(2).mean()
    loss.backward(retain_graph=True)
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_graph_spanning_iterations_through_a_retained_state_names_the_state(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "retained_state", RETAINED_STATE)
    report = diagnosed(script, engine)
    assert report["error"] is None
    [warning] = [w for w in report["warnings"] if "grows every step" in w["message"]]
    assert f"reaches into the previous one through the tensor made by AddBackward0 at\n  {script.site('state')}" in warning["message"]
    assert "`h` carries state from one iteration to the next" in warning["message"]
    assert "h = h.detach()" in warning["message"]


# Two leaking loops in a row (a notebook's cell run twice): the second is warned about too, though the first one's
# search backed off and what the first left alive outnumbers the second's survivors at first.
TWO_LEAKING_LOOPS = """
w = torch.randn(3, requires_grad=True)
kept = []
for step in range(40):
    loss = w.sin().sum()
    loss.backward()
    kept.append(loss)  # @first
history = []
for step in range(5):
    loss = w.cos().sum()
    loss.backward()
    history.append(loss)  # @second
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_each_leaking_loop_is_searched_for_its_own_holder(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "two_loops", TWO_LEAKING_LOOPS)
    said = [w["message"] for w in diagnosed(script, engine)["warnings"]]
    assert any(f"added to at\n  {script.site('second')}" in m for m in said), said


# A MAML step with more adaptation steps than the growth rule's window, before any optimizer step: the inner graphs
# live until the meta-loss's backward, which goes through all of them.
MAML_MANY_STEPS = MAML.replace("range(2)", "range(6)").replace("range(20)", "range(2)")

# backward(create_graph=True) fills .grad with gradients that carry a graph.
GRAD_WITH_GRAPH = """
w = torch.randn(4, requires_grad=True)
for step in range(3):
    y = torch.tanh(w * 2).sum()
    y.backward(create_graph=True)  # @backward
    penalty = w.grad.pow(2).sum()
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_inner_loop_of_create_graph_steps_is_no_growth(tmp_path: Path, engine: str) -> None:
    report = diagnosed(plain(tmp_path, "maml", MAML_MANY_STEPS), engine)
    assert report["error"] is None
    assert report["warnings"] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_backward_with_create_graph_is_named_with_its_fixes(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "create_graph", GRAD_WITH_GRAPH)
    said = [w["message"] for w in diagnosed(script, engine)["warnings"]]
    [message] = [m for m in said if m.startswith("backward(create_graph=True)")]
    assert f"at {script.site('backward')}" in message
    assert "torch.autograd.grad(..., create_graph=True)" in message and "set the grads to None" in message


# Evaluation with grad on and no backward at all: what the program keeps piles up one graph per batch.
EVALUATION_KEPT = """
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
losses = []
running = 0
for batch in range(4):
    loss = model(torch.randn(2, 4)).pow(2).mean()  # @loss
    losses.append(loss)  # @append
    running += loss  # @running
prediction = model(torch.randn(2, 4))
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_graphs_kept_without_any_backward_are_named_at_the_end(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "evaluation", EVALUATION_KEPT)
    report = diagnosed(script, engine)
    assert report["error"] is None
    said = [w["message"] for w in report["warnings"]]
    assert len(said) == 2, said  # `prediction`, one output of a model with several layers, is no pile
    [listed] = [m for m in said if "list `losses` (global)" in m]
    assert f"made at\n  {script.site('loss')}" in listed and f"added to at\n  {script.site('append')}" in listed
    [summed] = [m for m in said if "variable `running` (global)" in m]
    assert f"added to at\n  {script.site('running')}" in summed
    assert all("torch.no_grad()" in m and "loss.item()" in m for m in said)
