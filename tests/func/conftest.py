"""Fixtures shared with tests/autograd: the PyTorch oracle, and the collector switched off for leak tests."""

from __future__ import annotations

from tests.autograd.conftest import oracle  # noqa: F401  (fixtures, registered by being imported here)
from tests.autograd.test_memory import no_gc  # noqa: F401
