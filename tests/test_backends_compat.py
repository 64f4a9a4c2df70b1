"""torch.backends against PyTorch's CPU-only build: the flags scripts set for reproducibility, and what is available."""

from __future__ import annotations

import pytest
import torch

import glassgrad

from .outcome import assert_same_outcome, statements

pytestmark = pytest.mark.torch_oracle

FLAGS = (
    ("cudnn", "enabled"), ("cudnn", "benchmark"), ("cudnn", "deterministic"), ("cudnn", "allow_tf32"),
    ("cudnn", "benchmark_limit"), ("mkldnn", "enabled"),
)
MATMUL = ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")


@pytest.fixture(autouse=True)
def _flags_restored():
    """The flags are process-wide in both libraries: every test leaves them as it found them."""
    saved = {
        m: ([getattr(getattr(m.backends, module), name) for module, name in FLAGS],
            [getattr(m.backends.cuda.matmul, name) for name in MATMUL])
        for m in (torch, glassgrad)
    }
    yield
    for m, (flags, matmul) in saved.items():
        for (module, name), value in zip(FLAGS, flags, strict=True):
            setattr(getattr(m.backends, module), name, value)
        for name, value in zip(MATMUL, matmul, strict=True):
            setattr(m.backends.cuda.matmul, name, value)


CASES = [
    statements(source)
    for source in (
        "r = [m.backends.cudnn.enabled, m.backends.cudnn.benchmark, m.backends.cudnn.deterministic, m.backends.cudnn.allow_tf32]",
        "r = m.backends.cudnn.benchmark_limit", "r = m.backends.cudnn.is_available()", "r = m.backends.cudnn.version()",
        "r = m.backends.cudnn.is_acceptable(m.ones(1))", "r = m.backends.cudnn.is_acceptable(1)",
        "m.backends.cudnn.deterministic = True\nr = m.backends.cudnn.deterministic",
        "m.backends.cudnn.benchmark = True\nr = m.backends.cudnn.benchmark",
        "m.backends.cudnn.enabled = False\nr = m.backends.cudnn.enabled",
        "m.backends.cudnn.allow_tf32 = False\nr = m.backends.cudnn.allow_tf32",
        "m.backends.cudnn.benchmark_limit = 5\nr = m.backends.cudnn.benchmark_limit",
        "m.backends.cudnn.deterministic = 1", "m.backends.cudnn.deterministic = None", "m.backends.cudnn.benchmark = 1",
        "m.backends.cudnn.enabled = 'yes'", "m.backends.cudnn.allow_tf32 = 1",
        "with m.backends.cudnn.flags(): r = [m.backends.cudnn.enabled, m.backends.cudnn.benchmark, m.backends.cudnn.deterministic, m.backends.cudnn.allow_tf32]",
        "with m.backends.cudnn.flags(enabled=True, deterministic=True): r = [m.backends.cudnn.enabled, m.backends.cudnn.deterministic]",
        "m.backends.cudnn.deterministic = True\nwith m.backends.cudnn.flags(): pass\nr = m.backends.cudnn.deterministic",
        "with m.backends.cudnn.flags(deterministic=1): pass",
        "r = [m.backends.mps.is_available(), m.backends.mps.is_built()]",
        "r = m.backends.cuda.is_built()",
        "r = [getattr(m.backends.cuda.matmul, n) for n in ('allow_tf32', 'allow_fp16_reduced_precision_reduction', 'allow_bf16_reduced_precision_reduction')]",
        "m.backends.cuda.matmul.allow_tf32 = True\nr = m.backends.cuda.matmul.allow_tf32",
        "m.backends.cuda.matmul.allow_tf32 = 1", "m.backends.cuda.matmul.allow_tf32 = None",
        "m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False\nr = m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
        "m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = (False, True)\nr = m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
        "m.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = 1",
        "r = m.backends.cuda.matmul.foo", "m.backends.cuda.matmul.foo = 1",
        "r = [m.backends.cuda.flash_sdp_enabled(), m.backends.cuda.mem_efficient_sdp_enabled(), m.backends.cuda.math_sdp_enabled()]",
        "m.backends.cuda.enable_flash_sdp(False)\nr = m.backends.cuda.flash_sdp_enabled()\nm.backends.cuda.enable_flash_sdp(True)",
        "r = m.backends.mkldnn.enabled", "m.backends.mkldnn.enabled = 1",
        "import glassgrad.backends.cudnn, torch.backends.cudnn\nr = m.backends.cudnn.__name__.rpartition('.')[2]",
    )
]


@pytest.mark.parametrize("snippet", CASES)
def test_backend_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_cpu_libraries_glassgrad_does_not_use_are_reported_missing() -> None:
    # PyTorch's CPU wheel ships oneDNN and OpenMP (both report True there); glassgrad computes with NumPy.
    assert glassgrad.backends.mkldnn.is_available() is False
    assert glassgrad.backends.openmp.is_available() is False
