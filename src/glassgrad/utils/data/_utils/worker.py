"""get_worker_info at torch.utils.data._utils.worker.

glassgrad's DataLoader loads every batch in the calling process (num_workers is accepted and ignored), so no
code ever runs in a worker and the answer is always the main process's: None.
"""

from __future__ import annotations

from typing import Any


def get_worker_info() -> Any:
    """None: this is the main process, as it is for every dataset glassgrad's DataLoader reads."""
    return None
