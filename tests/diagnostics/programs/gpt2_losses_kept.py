"""A tiny GPT-2 whose losses are kept in a list for logging: each one holds its step's whole graph.

The loss is made inside transformers (its loss function); the line to change is the user's append.
"""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=0))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
losses = []
for _ in range(6):
    tokens = torch.randint(0, 64, (2, 16))
    loss = model(input_ids=tokens, labels=tokens).loss  # @loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss)  # @append
