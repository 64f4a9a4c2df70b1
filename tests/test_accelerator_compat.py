"""torch.accelerator against PyTorch's CPU-only build: each call answers, or fails, as there.

PyTorch's own examples (mnist, vae, word_language_model, ...) pick their device with
`torch.accelerator.is_available()` since 2.6; on a build without an accelerator they must fall
back to the CPU, and the calls that need a device fail as they do there.
"""

from __future__ import annotations

import pytest

from .outcome import assert_same_outcome, expression, statements

pytestmark = pytest.mark.torch_oracle


CALLS = [
    expression(source)
    for source in (
        "m.accelerator.is_available()", "m.accelerator.device_count()", "m.accelerator.current_accelerator()",
        "m.accelerator.current_accelerator(check_available=True)", "m.accelerator.current_device_index()",
        "m.accelerator.current_device_idx()", "m.accelerator.set_device_index(0)",
        "m.accelerator.set_device_index(None)", "m.accelerator.set_device_idx(0)", "m.accelerator.set_stream(None)",
        "m.accelerator.synchronize()", "m.accelerator.synchronize(0)", "m.accelerator.current_stream()",
        "m.accelerator.get_device_capability()", "m.accelerator.empty_cache()", "m.accelerator.empty_host_cache()",
        "m.accelerator.memory_allocated()", "m.accelerator.max_memory_allocated(0)",
        "m.accelerator.memory_reserved()", "m.accelerator.max_memory_reserved()", "m.accelerator.memory_stats()",
        "m.accelerator.reset_peak_memory_stats()", "m.accelerator.reset_accumulated_memory_stats()",
        "m.accelerator.get_memory_info()",
    )
]

CONTEXTS = [
    statements(source)
    for source in (
        "with m.accelerator.device_index(None): r = 1",
        "with m.accelerator.device_index(0): r = 1",
        # the examples' device choice
        "r = m.accelerator.current_accelerator() if m.accelerator.is_available() else m.device('cpu')",
        "import importlib\nr = importlib.import_module(m.__name__ + '.accelerator').is_available()",
    )
]


@pytest.mark.parametrize("snippet", CALLS + CONTEXTS)
def test_accelerator_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)
