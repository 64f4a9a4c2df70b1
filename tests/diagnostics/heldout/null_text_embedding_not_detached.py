"""Null-text inversion: the conditional text embedding is computed once by a trainable text encoder, not detached.

Source: https://github.com/tejank10/null-text-inversion/issues/1
Title: I got RuntimeError: Trying to backward through the graph a second time
Pattern: a value that should be a constant is precomputed with a graph: the prompt's embedding comes out of the text
  encoder (whose parameters require grad) before the optimization of the unconditional embedding starts, and
  every inner step's loss reaches back into the encoder's graph, freed by the first backward.
Fault: the text embedding computed before the loop.
Fix (the maintainer's answer): detach the text embedding before the training starts.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-input"}

torch.manual_seed(0)
token_embedding = torch.nn.Embedding(20, 8)
text_projection = torch.nn.Linear(8, 8)
unet = torch.nn.Linear(8 + 4, 4)
tokens = torch.tensor([3, 7, 1, 0])
text_embedding = text_projection(token_embedding(tokens)).mean(0)  # <- culprit
latent = torch.randn(4)
uncond_embedding = torch.zeros(8, requires_grad=True)
optimizer = torch.optim.Adam([uncond_embedding], lr=1e-2)
guidance_scale = 7.5
for _timestep in range(2):
    target = torch.randn(4)
    for _inner_step in range(2):
        noise_uncond = unet(torch.cat([uncond_embedding, latent]))
        noise_text = unet(torch.cat([text_embedding, latent]))
        noise_pred = noise_uncond + guidance_scale * (noise_text - noise_uncond)
        loss = torch.nn.functional.mse_loss(noise_pred, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
