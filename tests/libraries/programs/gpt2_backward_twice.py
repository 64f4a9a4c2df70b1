"""A tiny GPT-2 step that calls backward on the same loss twice, the second time without retain_graph."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(config)
tokens = (torch.arange(2 * 8) * 7 % config.vocab_size).view(2, 8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
loss = model(input_ids=tokens, labels=tokens).loss  # @loss
optimizer.zero_grad()
loss.backward()  # @first
loss.backward()  # @second
optimizer.step()
