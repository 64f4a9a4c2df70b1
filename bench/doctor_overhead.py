"""What the doctor costs real training loops on real PyTorch, the leaking ones included.

Each workload is a training loop built afresh (same seed) and run for N steps and for 4N steps, plainly and
under `glassgrad.doctor.watch_torch()` (every op recorded, the watches on for the whole loop, as under
`glassgrad doctor --engine torch`), the settings interleaved round by round; the figure is the median over
rounds. Issue 31's aim: the doctor <= 2x the plain loop for every workload, and the ratio at 4N no larger than
at N (a cost that grows with the step count would show there). Run with `make bench-doctor`
(BENCH_ARGS="--quick" for one round of 8 and 32 steps; --only "gpt2,cnn checkpoint" for some workloads, by name;
--cpu to time the process's CPU seconds instead of the wall clock: on a machine shared with other work, the wall clock
counts the time others ran too, CPU seconds much less).
Started by `glassgrad run` (`python -m glassgrad.cli run bench/doctor_overhead.py`), `import torch` gives
glassgrad and the same loops run on glassgrad's engine, the doctor being its watches (`glassgrad.diagnostics.watch()`,
what `glassgrad doctor --engine glassgrad` turns on); make bench-doctor runs both.

- gpt2, bert: tiny models of transformers, built from configs (random weights, nothing downloaded);
- gpt2 total += loss, gpt2 losses.append(loss): the leaking loops of issue 31 (graphs kept alive every step);
- cnn checkpoint: a CNN with BatchNorm under non-reentrant activation checkpointing, and its two leaking variants;
- lightning: Trainer.fit on CPU (max_steps N), its own setup included.
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from glassgrad.diagnostics import watch
from glassgrad.doctor import watch_torch

Loop = Callable[[int], object]  # runs a fresh training loop of that many steps


def _train(steps: int, optimizer: torch.optim.Optimizer, step_loss: Callable[[], torch.Tensor], leak: str) -> object:
    """The training loop; `leak` says what it keeps of each step's loss: nothing (""), a running total ("total":
    `total_loss += loss`) or a list ("list": `losses.append(loss)`), each keeping every step's graph alive."""
    kept: list[torch.Tensor] = []
    for _ in range(steps):
        loss = step_loss()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if leak == "total":
            kept[:] = [kept[0] + loss] if kept else [loss]
        elif leak == "list":
            kept.append(loss)
    return kept


def _language_model(kind: str, leak: str = "") -> Loop:
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel
    from transformers.utils import logging

    logging.set_verbosity_error()

    def loop(steps: int) -> object:
        torch.manual_seed(0)
        if kind == "gpt2":
            model: nn.Module = GPT2LMHeadModel(GPT2Config(vocab_size=128, n_positions=32, n_embd=64, n_layer=2, n_head=2))
        else:
            model = BertForMaskedLM(
                BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
            )

        def loss() -> torch.Tensor:
            tokens = torch.randint(0, 128, (4, 32))
            return model(input_ids=tokens, labels=tokens).loss

        return _train(steps, torch.optim.AdamW(model.parameters(), lr=1e-3), loss, leak)

    return loop


def _cnn_checkpoint(leak: str = "") -> Loop:
    def loop(steps: int) -> object:
        torch.manual_seed(0)
        block = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1))
        head = nn.Linear(16 * 16 * 16, 10)

        def loss() -> torch.Tensor:
            x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))
            return nn.functional.cross_entropy(head(checkpoint(block, x, use_reentrant=False).flatten(1)), y)

        return _train(steps, torch.optim.SGD([*block.parameters(), *head.parameters()], lr=0.01), loss, leak)

    return loop


def _lightning() -> Loop:
    import logging

    import lightning as L
    from torch.utils.data import DataLoader, TensorDataset

    class Regressor(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 1))

        def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], batch_idx: int) -> torch.Tensor:
            x, y = batch
            return nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.01)

    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)  # its banner at every fit

    def loop(steps: int) -> object:
        torch.manual_seed(0)
        data = DataLoader(TensorDataset(torch.randn(16 * steps, 32), torch.randn(16 * steps, 1)), batch_size=16)
        trainer = L.Trainer(
            max_steps=steps, accelerator="cpu", logger=False, enable_checkpointing=False, enable_progress_bar=False,
            enable_model_summary=False,
        )
        trainer.fit(Regressor(), data)
        return trainer

    return loop


WORKLOADS: dict[str, Callable[[], Loop]] = {
    "gpt2": lambda: _language_model("gpt2"),
    "gpt2 total += loss": lambda: _language_model("gpt2", "total"),
    "gpt2 losses.append(loss)": lambda: _language_model("gpt2", "list"),
    "bert": lambda: _language_model("bert"),
    "cnn checkpoint": _cnn_checkpoint,
    "cnn checkpoint total += loss": lambda: _cnn_checkpoint("total"),
    "cnn checkpoint losses.append(loss)": lambda: _cnn_checkpoint("list"),
    "lightning": _lightning,
}
ON_GLASSGRAD = torch.__name__ == "glassgrad"  # started by `glassgrad run`
SETTINGS: dict[str, Callable[[], AbstractContextManager[object]]] = {
    "plain": nullcontext, "doctor": watch if ON_GLASSGRAD else watch_torch
}


CLOCK = time.process_time if "--cpu" in sys.argv else time.perf_counter


def timed(loop: Loop, steps: int, setting: Callable[[], AbstractContextManager[object]]) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the leaking loops warn under the doctor; the warning is not what is timed
        with setting():
            start = CLOCK()
            loop(steps)
            return CLOCK() - start


def main() -> None:
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    torch.set_num_threads(1)
    rounds, steps = (1, 8) if quick else (3, 10)
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(f"engine: {'glassgrad' if ON_GLASSGRAD else 'torch ' + torch.__version__}, {clock} seconds")
    print(f"{'workload':36}{'steps':>6}{'plain s':>9}{'doctor s':>10}{'ratio':>8}")
    for name, make in WORKLOADS.items():
        if only is not None and name not in only:
            continue
        loop = make()
        timed(loop, 2, nullcontext)  # warm-up: imports, first-call caches
        for n in (steps, 4 * steps):
            samples: dict[str, list[float]] = {key: [] for key in SETTINGS}
            for _ in range(rounds):
                for key, setting in SETTINGS.items():
                    samples[key].append(timed(loop, n, setting))
            plain, doctor = (statistics.median(samples[key]) for key in SETTINGS)
            print(f"{name:36}{n:6}{plain:9.3f}{doctor:10.3f}{doctor / plain:7.2f}x", flush=True)


if __name__ == "__main__":
    main()
