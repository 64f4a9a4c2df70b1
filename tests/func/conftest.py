"""Fixtures shared with tests/autograd: the PyTorch oracle, and the collector switched off for leak tests; and
no_fallback, for tests that must pass through vmap's batching rules alone."""

from __future__ import annotations

from typing import Any

import pytest

from glassgrad.func import _dispatch
from tests.autograd.conftest import oracle  # noqa: F401  (fixtures, registered by being imported here)
from tests.autograd.test_memory import no_gc  # noqa: F401


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """vmap's fallback loop raises: what runs must run through batching rules."""

    def refuse(self: Any, level: Any, args: Any, kwargs: Any) -> Any:
        raise AssertionError(f"{self.name} fell back to the loop")

    monkeypatch.setattr(_dispatch.Op, "_loop", refuse)
