"""The example programs that use torch.distributions run unchanged on glassgrad (`glassgrad run`): a
REINFORCE loop with Categorical (sample, log_prob, entropy, backward), and a VAE with Normal.rsample and
kl_divergence followed by a normalizing flow (TransformedDistribution)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "glassgrad.cli", "run", str(EXAMPLES / script)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_reinforce_learns_the_shortest_path() -> None:
    out = _run("distributions_reinforce.py")
    recent = float(re.search(r"last 50 episodes: ([\d.]+)", out).group(1))  # type: ignore[union-attr]
    assert recent < 8.0  # 7 steps is optimal; a random policy takes the 30-step limit


def test_vae_and_flow_train() -> None:
    out = _run("distributions_vae.py")
    elbos = [float(v) for v in re.findall(r"negative ELBO ([\d.]+)", out)]
    assert elbos[-1] < elbos[0] - 5  # the ELBO improves by several nats
    found = re.search(r"flow on the latent codes: (-?[\d.]+) -> (-?[\d.]+)", out)
    assert found is not None
    first, last = map(float, found.groups())
    assert last < first - 0.1
