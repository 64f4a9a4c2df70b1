"""A small LightningModule fitted a few steps by Lightning's Trainer, the loss logged as a float."""

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.losses: list[float] = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss)
        self.losses.append(loss.item())
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


torch.manual_seed(0)
x = torch.linspace(-1, 1, 32 * 4).view(32, 4)
y = x.sum(1, keepdim=True).sin()
model = Regressor()
trainer = L.Trainer(
    accelerator="cpu", max_steps=4, logger=False, enable_checkpointing=False, enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(model, DataLoader(TensorDataset(x, y), batch_size=8))
print("losses", [round(v, 4) for v in model.losses])
