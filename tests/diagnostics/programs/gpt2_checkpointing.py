"""A tiny GPT-2 (random weights from a config, nothing downloaded) trained with gradient checkpointing."""

import torch
from _digest import state_digest
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=2)
model = GPT2LMHeadModel(config)
model.gradient_checkpointing_enable()
model.train()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(4):
    tokens = torch.randint(0, 64, (2, 16))
    loss = model(input_ids=tokens, labels=tokens).loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, repr(loss.item()))
print(state_digest(model))
