"""A LightningModule (a small MLP regressor) trained by Lightning's Trainer on the CPU. Runs on PyTorch, or
unchanged on glassgrad with `glassgrad run`.

    python lightning_train.py [--steps N] [--init state.pt] [--save-init state.pt] [--losses out.json]
"""

import argparse
import json
import time

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--init", help="a state_dict to start from (saved by torch.save)")
parser.add_argument("--save-init", help="save the initial state_dict here")
parser.add_argument("--losses", help="write the losses here as JSON")
args = parser.parse_args()


class Regressor(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
        self.losses: list[float] = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss)
        self.losses.append(loss.item())
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
        return [optimizer], [scheduler]


torch.manual_seed(0)
model = Regressor()
if args.init:
    model.load_state_dict(torch.load(args.init))
if args.save_init:
    torch.save(model.state_dict(), args.save_init)

# data from arithmetic, not a random stream: the two engines' generators draw different numbers
x = torch.linspace(-1, 1, 64 * 4).view(64, 4)
y = (x * torch.tensor([0.5, -1.0, 2.0, 0.25])).sum(1, keepdim=True).sin()
loader = DataLoader(TensorDataset(x, y), batch_size=16)  # no shuffling: the same batches on both engines

trainer = L.Trainer(
    accelerator="cpu", max_steps=args.steps, logger=False, enable_checkpointing=False, enable_progress_bar=False
)
start = time.perf_counter()
trainer.fit(model, loader)
train_seconds = time.perf_counter() - start
print("losses", [round(v, 5) for v in model.losses])
if args.losses:
    with open(args.losses, "w") as f:
        json.dump({"train_seconds": train_seconds, "losses": model.losses}, f)
