"""A BERT classifier fine-tuned with gradient accumulation: loss divided by the steps, step every N batches.

Source: https://github.com/ThilinaRajapakse/BERT_binary_text_classification/issues/15
Title: Gradient Accumulation Steps
Pattern: correct program: `loss = loss / GRADIENT_ACCUMULATION_STEPS` then backward on every batch, and
  optimizer.step() with zero_grad() once every GRADIENT_ACCUMULATION_STEPS batches; each batch's graph is freed by
  its backward.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True), 1)
classifier, embeddings = torch.nn.Linear(16, 2), torch.nn.Embedding(100, 16)
params = [*encoder.parameters(), *classifier.parameters(), *embeddings.parameters()]
optimizer = torch.optim.Adam(params, lr=2e-5)
GRADIENT_ACCUMULATION_STEPS = 2
tr_loss, global_step = 0.0, 0
for step in range(6):
    input_ids, label_ids = torch.randint(0, 100, (4, 7)), torch.randint(0, 2, (4,))
    logits = classifier(encoder(embeddings(input_ids))[:, 0])
    loss = torch.nn.functional.cross_entropy(logits, label_ids)
    if GRADIENT_ACCUMULATION_STEPS > 1:
        loss = loss / GRADIENT_ACCUMULATION_STEPS
    loss.backward()
    tr_loss += loss.item()
    if (step + 1) % GRADIENT_ACCUMULATION_STEPS == 0:
        optimizer.step()
        optimizer.zero_grad()
        global_step += 1
