"""A seq2seq summarizer whose encoder hidden state is initialised once and then fed back, batch after batch.

Source: https://github.com/JulesBelveze/text-summarizer/pull/8
Title: fix: init hidden state encoder at each batch
Pattern: carried state: `encoder_hidden` is made before the epoch loop and rebound from the encoder's output at
  every batch, so the second batch's graph starts from the first batch's, which its backward freed.
Fault: feeding the previous batch's encoder state into this batch's encoder.
Fix (the merged PR): initialise the encoder's hidden state at each batch, which cuts it from the previous graph.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}

torch.manual_seed(0)
embedding = torch.nn.Embedding(40, 16)
encoder, decoder = torch.nn.GRU(16, 16), torch.nn.GRU(16, 16)
generator = torch.nn.Linear(16, 40)
params = [*embedding.parameters(), *encoder.parameters(), *decoder.parameters(), *generator.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
encoder_hidden = torch.zeros(1, 4, 16)
for _batch in range(3):
    article, summary = torch.randint(0, 40, (7, 4)), torch.randint(0, 40, (3, 4))
    _, encoder_hidden = encoder(embedding(article), encoder_hidden)  # <- culprit
    decoder_out, _ = decoder(embedding(summary), encoder_hidden)
    loss = torch.nn.functional.cross_entropy(generator(decoder_out).reshape(-1, 40), summary.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
