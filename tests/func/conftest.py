"""The oracle fixture of tests/autograd, shared: each program runs on torch and on glassgrad and must agree."""

from __future__ import annotations

from tests.autograd.conftest import oracle  # noqa: F401  (a fixture, registered by being imported here)
