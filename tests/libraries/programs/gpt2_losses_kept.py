"""A tiny GPT-2 whose loop keeps each step's loss tensor for logging: every step's graph stays alive."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(config)
tokens = (torch.arange(2 * 8) * 7 % config.vocab_size).view(2, 8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
losses = []
for _ in range(6):
    out = model(input_ids=tokens, labels=tokens)  # @loss
    optimizer.zero_grad()
    out.loss.backward()
    optimizer.step()
    losses.append(out.loss)  # @append
print("last loss", float(losses[-1]))
