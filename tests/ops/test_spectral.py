"""stft and istft beyond the OpInfos: PyTorch's error messages, its warnings (once per process), and a signal
surviving the round trip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import glassgrad

from ..outcome import assert_same_outcome

pytestmark = pytest.mark.torch_oracle

ERRORS = [
    "m.stft(m.ones(10), 4, window=m.ones(4))",
    "m.stft(m.ones(10, dtype=m.int64), 4, window=m.ones(4), return_complex=True)",
    "m.stft(m.ones(2, 2, 10), 4, window=m.ones(4), return_complex=True)",
    "m.stft(m.ones(10), 16, window=m.ones(16), return_complex=True, center=False)",
    "m.stft(m.ones(10), 4, 0, window=m.ones(4), return_complex=True)",
    "m.stft(m.ones(10), 4, window=m.ones(5), return_complex=True)",
    "m.stft(m.ones(10), 4, window=m.ones(4), return_complex=True, align_to_window=False)",
    "m.stft(m.ones(10), 4, window=m.ones(4, dtype=m.complex64), return_complex=True, onesided=True)",
    "m.stft(m.ones(3), 8, window=m.ones(8), return_complex=True)",
    "m.istft(m.ones(3, 4), 4, window=m.ones(4))",
    "m.istft(m.ones(3, 0, dtype=m.complex64), 4, window=m.ones(4))",
    "m.istft(m.ones(3, dtype=m.complex64), 4, window=m.ones(4))",
    "m.istft(m.ones(5, 5, dtype=m.complex64), 4, window=m.ones(4))",
    "m.istft(m.ones(3, 5, dtype=m.complex64), 4, 5, window=m.ones(4))",
    "m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.ones(3))",
    "m.istft(m.ones(4, 5, dtype=m.complex64), 4, window=m.ones(4, dtype=m.complex64))",
    "m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.tensor([1.0, 0.0, 0.0, 0.0]), center=False)",
]


@pytest.mark.parametrize("source", ERRORS)
def test_errors_match_torch(source: str) -> None:
    assert_same_outcome(lambda m: eval(source, {"m": m}), compare_warnings=False)


WARNING_SCRIPT = """
import sys, warnings
import {library} as torch
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    x = torch.randn(20, dtype=torch.float64)
    s = torch.stft(x, 8, return_complex=True)
    torch.stft(x, 8, return_complex=True)
    torch.stft(x, 8, window=torch.ones(8, dtype=torch.float64), return_complex=False)
    torch.stft(x, 8, window=torch.ones(8, dtype=torch.float64), return_complex=False)
    torch.istft(s, 8)
    torch.istft(s, 8)
    torch.istft(s, 8, window=torch.ones(8, dtype=torch.float64), length=40)
    torch.istft(s, 8, window=torch.ones(8, dtype=torch.float64), length=40)
for w in caught:
    print(w.category.__name__, str(w.message).split(" (Triggered internally")[0].replace(chr(10), " "))
"""


def _warnings(library: str) -> list[str]:
    """The warnings of WARNING_SCRIPT in a fresh process (each library warns once per process), importing this
    checkout's glassgrad."""
    source = str(Path(glassgrad.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-c", WARNING_SCRIPT.format(library=library)], capture_output=True, text=True,
                         check=True, env=env, timeout=120)
    return run.stdout.splitlines()


def test_warnings_match_torch_once_per_process() -> None:
    expected = _warnings("torch")
    assert len(expected) == 4  # the stft window, return_complex=False, the istft window, the padded length
    assert _warnings("glassgrad") == expected


def test_istft_inverts_stft_of_a_batch() -> None:
    x = glassgrad.tensor(np.random.default_rng(0).standard_normal((3, 50)))
    window = glassgrad.hann_window(16, dtype=glassgrad.float64)
    spectrum = x.stft(16, 4, window=window, return_complex=True)
    back = spectrum.istft(16, 4, window=window, length=50)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)

