"""OpInfos of creation ops (glassgrad/ops/creation.py). Nothing here is differentiable (order=0); random
ops compare only shapes and dtypes, as glassgrad's streams need not match PyTorch's."""

from __future__ import annotations

from ..opinfo import OpInfo, unary

_RANDOM = {"order": 0, "values": False}


def _reseeded(m, x):  # type: ignore[no-untyped-def]
    """manual_seed makes the stream repeat: two draws after the same seed agree (so this is all zeros)."""
    m.manual_seed(3)
    first = m.rand(x.shape)
    m.manual_seed(3)
    return m.rand(x.shape) - first


def _seeded(m, x):  # type: ignore[no-untyped-def]
    chosen = m.seed()
    return m.tensor([m.initial_seed() == chosen])


def _initial(m, x):  # type: ignore[no-untyped-def]
    m.manual_seed(7)
    return m.tensor(m.initial_seed())


def _state_replayed(m, x):  # type: ignore[no-untyped-def]
    """set_rng_state(get_rng_state()) makes the stream repeat: the two draws agree (so this is all zeros)."""
    state = m.get_rng_state()
    first = m.rand(x.shape)
    m.set_rng_state(state)
    return m.rand(x.shape) - first


OPS = [
    OpInfo("glassgrad.tensor", lambda m, x: m.tensor(x.tolist()), order=0,
           errors=(lambda m: m.tensor([[1.0], [2.0, 3.0]]), lambda m: m.tensor("abc"))),
    OpInfo("glassgrad.tensor", lambda m, x: m.tensor((x > 0).tolist()), order=0, id="tensor_bool"),
    OpInfo("glassgrad.as_tensor", lambda m, x: m.as_tensor(x.detach().numpy(), dtype=m.float32), order=0),
    OpInfo("glassgrad.from_numpy", lambda m, x: m.from_numpy(x.detach().numpy().copy()), order=0,
           errors=(lambda m: m.from_numpy([1.0]),)),
    OpInfo("glassgrad.zeros", lambda m, x: m.zeros(x.shape), order=0, errors=(lambda m: m.zeros(-1),)),
    OpInfo("glassgrad.ones", lambda m, x: m.ones(*x.shape, dtype=m.int64), shapes=unary(min_dims=1), order=0,
           errors=(lambda m: m.ones(2, -3),)),
    OpInfo("glassgrad.empty", lambda m, x: m.empty(x.shape, dtype=m.float64), **_RANDOM),
    OpInfo("glassgrad.full", lambda m, x: m.full(x.shape, 2.5), order=0),
    OpInfo("glassgrad.full", lambda m, x: m.full(x.shape, 7), order=0, id="full_int"),
    OpInfo("glassgrad.zeros_like", lambda m, x: m.zeros_like(x), order=0),
    OpInfo("glassgrad.ones_like", lambda m, x: m.ones_like(x, dtype=m.int64), order=0),
    OpInfo("glassgrad.empty_like", lambda m, x: m.empty_like(x), **_RANDOM),
    OpInfo("glassgrad.full_like", lambda m, x: m.full_like(x, -1.5), order=0),
    OpInfo("glassgrad.arange", lambda m, x: m.arange(x.numel()), order=0,
           errors=(lambda m: m.arange(0, 1, 0), lambda m: m.arange(0, 3, -1))),
    OpInfo("glassgrad.arange", lambda m, x: m.arange(1, 2 * x.numel() + 1, 2, dtype=m.float64), order=0, id="arange_step"),
    OpInfo("glassgrad.arange", lambda m, x: m.arange(0.5, x.numel() + 0.5), order=0, id="arange_float"),
    # PyTorch steps in float32 from both ends; glassgrad rounds float64 values: they differ by an ulp.
    OpInfo("glassgrad.linspace", lambda m, x: m.linspace(-1, 2, x.numel()), order=0, rtol=2e-7, atol=1e-7,
           errors=(lambda m: m.linspace(0, 1, -1),)),
    OpInfo("glassgrad.logspace", lambda m, x: m.logspace(-1.5, 2.5, x.numel(), dtype=m.float64), order=0,
           errors=(lambda m: m.logspace(0, 1, -1),)),
    OpInfo("glassgrad.logspace", lambda m, x: m.logspace(2.0, -0.5, x.numel(), 2.5), order=0, rtol=1e-6, id="logspace_base"),
    # an integer dtype truncates start and end first, not the base
    OpInfo("glassgrad.logspace", lambda m, x: m.logspace(0.5, 3.9, x.numel(), 2.5, dtype=m.int64), order=0, id="logspace_int"),
    OpInfo("glassgrad.logspace", lambda m, x: m.view_as_real(m.logspace(0, 2, x.numel(), dtype=m.complex128)), order=0,
           id="logspace_complex"),
    OpInfo("glassgrad.eye", lambda m, x: m.eye(x.numel(), 3), order=0),
    OpInfo("glassgrad.rand", lambda m, x: m.rand(x.shape), **_RANDOM, errors=(lambda m: m.rand(-1),)),
    OpInfo("glassgrad.randn", lambda m, x: m.randn(*x.shape, dtype=m.float64), shapes=unary(min_dims=1), **_RANDOM),
    OpInfo("glassgrad.randint", lambda m, x: m.randint(0, 5, x.shape), **_RANDOM,
           errors=(lambda m: m.randint(5, 2, (3,)),)),
    OpInfo("glassgrad.randint", lambda m, x: m.randint(5, x.shape), id="randint_high", **_RANDOM),
    OpInfo("glassgrad.randperm", lambda m, x: m.randperm(x.numel()), **_RANDOM),
    OpInfo("glassgrad.rand_like", lambda m, x: m.rand_like(x), **_RANDOM),
    OpInfo("glassgrad.randn_like", lambda m, x: m.randn_like(x), **_RANDOM),
    OpInfo("glassgrad.tril_indices", lambda m, x: m.tril_indices(*x.shape[:2], 1 - x.ndim), shapes=unary(min_dims=2, max_dims=3),
           order=0, errors=(lambda m: m.tril_indices(-1, 3), lambda m: m.tril_indices(3, 3, dtype=m.float32))),
    OpInfo("glassgrad.triu_indices", lambda m, x: m.triu_indices(*x.shape[:2], x.ndim - 2, dtype=m.int32),
           shapes=unary(min_dims=2, max_dims=3), order=0, errors=(lambda m: m.triu_indices(3, 3.0),)),
    OpInfo("glassgrad.manual_seed", _reseeded, order=0),
    OpInfo("glassgrad.seed", _seeded, order=0),
    OpInfo("glassgrad.initial_seed", _initial, order=0),
    OpInfo("glassgrad.get_rng_state", _state_replayed, order=0, also=("glassgrad.set_rng_state",),
           errors=(lambda m: m.set_rng_state(m.ones(3)), lambda m: m.set_rng_state(m.ones(3, dtype=m.uint8)))),
    OpInfo("glassgrad.thread_safe_generator", lambda m, x: m.rand(x.shape, generator=m.thread_safe_generator()), **_RANDOM),
    # Tensor.new_*: the tensor's dtype unless dtype= says otherwise (more in test_creation_extra.py)
    OpInfo("Tensor.new_zeros", lambda m, x: x.new_zeros(x.shape), order=0, errors=(lambda m: m.ones(1).new_zeros(-1),)),
    OpInfo("Tensor.new_ones", lambda m, x: x.new_ones(*x.shape, dtype=m.int64), shapes=unary(min_dims=1), order=0,
           errors=(lambda m: m.ones(1).new_ones(),)),
    OpInfo("Tensor.new_empty", lambda m, x: x.new_empty(size=x.shape), **_RANDOM),
    OpInfo("Tensor.new_full", lambda m, x: x.new_full(x.shape, 2.5, requires_grad=True), order=0,
           errors=(lambda m: m.ones(1).new_full(2, 1.0), lambda m: m.ones(1).new_full((2,), m.ones(2)))),
    OpInfo("Tensor.new_empty_strided", lambda m, x: x.new_empty_strided(x.shape, tuple(reversed(range(1, x.ndim + 1)))),
           **_RANDOM, errors=(lambda m: m.ones(1).new_empty_strided((2, 3), (1,)),
                              lambda m: m.ones(1).new_empty_strided((2, 3), (1, -2)))),
    OpInfo("Tensor.new_tensor", lambda m, x: m.ones(1, dtype=m.int64).new_tensor(x.tolist()), order=0,
           errors=(lambda m: m.ones(1).new_tensor("a"),)),
]
