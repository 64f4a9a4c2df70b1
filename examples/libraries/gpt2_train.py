"""GPT-2 from a small config (random weights, nothing downloaded) trained with AdamW and a warmup schedule,
then asked to generate. Runs on PyTorch, or unchanged on glassgrad with `glassgrad run`.

    python gpt2_train.py [--steps N] [--dtype bfloat16] [--init state.pt] [--losses out.json]
"""

import argparse
import json
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel, get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--dtype", default="float32", help="train in this dtype (bfloat16: model.to(torch.bfloat16))")
parser.add_argument("--init", help="a state_dict to start from (saved by torch.save)")
parser.add_argument("--save-init", help="save the initial state_dict here")
parser.add_argument("--losses", help="write the losses here as JSON")
args = parser.parse_args()

torch.manual_seed(0)
config = GPT2Config(
    vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2, attn_pdrop=0.0, embd_pdrop=0.0, resid_pdrop=0.0,
    bos_token_id=0, eos_token_id=0,
)
model = GPT2LMHeadModel(config)
if args.init:
    model.load_state_dict(torch.load(args.init))
if args.save_init:
    torch.save(model.state_dict(), args.save_init)
model.to(getattr(torch, args.dtype))

# tokens from arithmetic, not a random stream: the two engines' generators draw different numbers
tokens = (torch.arange(8 * 16) * 37 % config.vocab_size).view(8, 16)

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=4, num_training_steps=args.steps)
model.train()
losses = []
start = time.perf_counter()
for _ in range(args.steps):
    out = model(input_ids=tokens, labels=tokens)
    optimizer.zero_grad()
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    losses.append(out.loss.item())
train_seconds = time.perf_counter() - start
print("losses", [round(x, 4) for x in losses])

model.eval()
generated = model.generate(tokens[:1, :4], max_new_tokens=8, do_sample=False, pad_token_id=0)
print("generated", generated.tolist())
if args.losses:
    with open(args.losses, "w") as f:
        json.dump({"train_seconds": train_seconds, "losses": losses, "generated": generated.tolist()}, f)
