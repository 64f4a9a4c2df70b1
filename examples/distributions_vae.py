"""A variational autoencoder on 8x8 binary images of bars, written against PyTorch's API (`import torch`).

Run it on glassgrad unchanged with `glassgrad run examples/distributions_vae.py`, or on PyTorch with
`python examples/distributions_vae.py`. The encoder gives a diagonal Normal posterior; the latent code is drawn
with `rsample()` (the reparameterization trick, so gradients reach the encoder) and the loss is the negative
ELBO: a Bernoulli reconstruction term plus `kl_divergence(posterior, prior)` between two Independent
Normals. A normalizing flow then fits the 2-D latent codes with a TransformedDistribution.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.distributions import Bernoulli, Independent, Normal, TransformedDistribution, kl_divergence
from torch.distributions.transforms import AffineTransform, TanhTransform

LATENT = 2
EPOCHS = 15
BATCH = 64


class VAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 64))

    def posterior(self, x: torch.Tensor) -> Independent:
        loc, log_scale = self.encoder(x).chunk(2, dim=-1)
        return Independent(Normal(loc, log_scale.exp()), 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self.posterior(x)
        z = q.rsample()
        likelihood = Independent(Bernoulli(logits=self.decoder(z)), 1)
        prior = Independent(Normal(torch.zeros_like(z), torch.ones_like(z)), 1)
        return -(likelihood.log_prob(x) - kl_divergence(q, prior)).mean()


def fit_flow(codes: torch.Tensor) -> tuple[float, float]:
    """Maximum likelihood for a small flow: Normal base, then affine, tanh and affine. The first and last loss."""
    shift = torch.zeros(LATENT, requires_grad=True)
    log_scale = torch.zeros(LATENT, requires_grad=True)
    outer = torch.ones(LATENT, requires_grad=True)
    optimizer = torch.optim.Adam([shift, log_scale, outer], lr=0.05)
    base = Independent(Normal(torch.zeros(LATENT), torch.ones(LATENT)), 1)
    losses = []
    for _ in range(200):
        flow = TransformedDistribution(
            base, [AffineTransform(shift, log_scale.exp()), TanhTransform(), AffineTransform(0.0, outer.abs() + 3.0)]
        )
        loss = -flow.log_prob(codes.clamp(-2.9, 2.9)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses[0], losses[-1]


def bars(count: int) -> torch.Tensor:
    """8x8 images, each one horizontal and one vertical bar, with 3% of the pixels flipped."""
    rows, cols = torch.randint(0, 8, (count,)), torch.randint(0, 8, (count,))
    images = torch.zeros(count, 8, 8)
    images[torch.arange(count), rows, :] = 1.0
    images[torch.arange(count), :, cols] = 1.0
    flips = (torch.rand(count, 8, 8) < 0.03).float()
    return (images + flips - 2 * images * flips).reshape(count, 64)


def main() -> tuple[float, tuple[float, float]]:
    torch.manual_seed(0)
    binary = bars(2000)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(EPOCHS):
        order = torch.randperm(len(binary))
        total = 0.0
        for start in range(0, len(binary), BATCH):
            batch = binary[order[start : start + BATCH]]
            loss = model(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        elbo = total / len(binary)
        if epoch % 5 == 0 or epoch == EPOCHS - 1:
            print(f"epoch {epoch:2d}: negative ELBO {elbo:.2f} nats")
    with torch.no_grad():
        codes = model.posterior(binary).mean
    flow_nll = fit_flow(codes)
    print(f"flow on the latent codes: {flow_nll[0]:.3f} -> {flow_nll[1]:.3f} nats per code")
    return elbo, flow_nll


if __name__ == "__main__":
    main()
