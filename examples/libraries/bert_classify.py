"""BERT from a small config (random weights, nothing downloaded) fine-tuned for sequence classification with
gradient accumulation, AdamW and a warmup schedule. Runs on PyTorch, or unchanged on glassgrad with
`glassgrad run`.

    python bert_classify.py [--steps N] [--init state.pt] [--save-init state.pt] [--losses out.json]
"""

import argparse
import json
import time

import torch
from transformers import BertConfig, BertForSequenceClassification, get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20, help="optimizer steps")
parser.add_argument("--accumulate", type=int, default=2, help="micro-batches per optimizer step")
parser.add_argument("--init", help="a state_dict to start from (saved by torch.save)")
parser.add_argument("--save-init", help="save the initial state_dict here")
parser.add_argument("--losses", help="write the losses here as JSON")
args = parser.parse_args()

torch.manual_seed(0)
config = BertConfig(
    vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    max_position_embeddings=32, num_labels=3, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
)
model = BertForSequenceClassification(config)
if args.init:
    model.load_state_dict(torch.load(args.init))
if args.save_init:
    torch.save(model.state_dict(), args.save_init)

# data from arithmetic, not a random stream: the two engines' generators draw different numbers
input_ids = (torch.arange(16 * 12) * 29 % config.vocab_size).view(16, 12)
attention_mask = torch.ones_like(input_ids)
attention_mask[::3, 9:] = 0  # some padded sequences
labels = torch.arange(16) % config.num_labels

optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=3, num_training_steps=args.steps)
model.train()
losses = []
start = time.perf_counter()
micro = 16 // args.accumulate
for _ in range(args.steps):
    step_loss = 0.0
    for part in range(args.accumulate):
        rows = slice(part * micro, (part + 1) * micro)
        out = model(input_ids=input_ids[rows], attention_mask=attention_mask[rows], labels=labels[rows])
        (out.loss / args.accumulate).backward()
        step_loss += out.loss.item() / args.accumulate
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    losses.append(step_loss)
train_seconds = time.perf_counter() - start
print("losses", [round(x, 4) for x in losses])
if args.losses:
    with open(args.losses, "w") as f:
        json.dump({"train_seconds": train_seconds, "losses": losses}, f)
