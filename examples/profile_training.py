"""Profile three training steps of a small network, PyTorch-style, and write the Chrome trace.

Only the import line names glassgrad: the same file profiles under PyTorch with `import torch`. The schedule
records steps 1 and 2 (step 0 is warm-up), prints PyTorch's table sorted by total CPU time, and writes the
trace (open it in https://ui.perfetto.dev or chrome://tracing) to the path given, trace.json by default.
"""

from __future__ import annotations

import sys

import glassgrad as torch
from glassgrad.profiler import ProfilerActivity, profile, record_function, schedule


def main(path: str) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))

    def save(prof: profile) -> None:
        print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=12))
        prof.export_chrome_trace(path)

    with profile(
        activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
        on_trace_ready=save, record_shapes=True, profile_memory=True, with_stack=True,
    ) as prof:
        for _ in range(3):
            with record_function("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with record_function("backward"):
                optimizer.zero_grad()
                loss.backward()
            with record_function("optimizer"):
                optimizer.step()
            prof.step()
    print(f"trace written to {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "trace.json")
