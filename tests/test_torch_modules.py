"""torch.random, torch.return_types, torch.types, torch.overrides and the modules glassgrad cannot have
(torch.export, torch.ao.quantization, torch.xpu, torch.mtia, torch.mps), against PyTorch."""

from __future__ import annotations

import gc
import importlib
import typing

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

LIBS = pytest.mark.parametrize("m", [torch, glassgrad], ids=["torch", "glassgrad"])


# -- torch.random -------------------------------------------------------------------------------------


@LIBS
def test_fork_rng_puts_the_stream_and_the_seed_back(m) -> None:
    m.random.manual_seed(7)
    m.rand(3)
    before = m.random.get_rng_state()
    with m.random.fork_rng():
        m.random.manual_seed(123)
        m.randn(5)
        assert m.random.initial_seed() == 123
    assert m.random.initial_seed() == 7
    assert m.random.get_rng_state().tolist() == before.tolist()
    expected = m.rand(4).tolist()
    m.random.set_rng_state(before)
    assert m.rand(4).tolist() == expected


@LIBS
def test_fork_rng_disabled_or_on_an_empty_device_list_as_pytorchs(m) -> None:
    m.random.manual_seed(1)
    with m.random.fork_rng(enabled=False):
        m.random.manual_seed(2)
    assert m.random.initial_seed() == 2
    with m.random.fork_rng(devices=[], device_type="cpu"):
        m.random.manual_seed(3)
    assert m.random.initial_seed() == 2


def test_fork_rng_on_a_cuda_device_fails_as_on_pytorchs_cpu_build() -> None:
    errors = []
    for lib in (torch, glassgrad):
        with pytest.raises(Exception) as info, lib.random.fork_rng(devices=[0]):
            pass
        errors.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("device_type", [None, "cpu", "mps", "xpu", "meta", "foo"])
def test_fork_rng_per_device_type_as_pytorchs_cpu_build(device_type: str | None) -> None:
    outcomes = []
    for lib in (torch, glassgrad):
        try:
            with lib.random.fork_rng(device_type=device_type):
                pass
            outcomes.append("ok")
        except (AttributeError, RuntimeError) as error:
            outcomes.append(f"{type(error).__name__}: {str(error).replace('glassgrad', 'torch').splitlines()[0]}")
    assert outcomes[0] == outcomes[1]
    if device_type in ("mps", "xpu"):
        assert glassgrad.get_device_module(device_type) is getattr(glassgrad, device_type)


@LIBS
def test_random_names_are_the_top_level_ones(m) -> None:
    assert m.random.manual_seed is m.manual_seed or m.random.manual_seed(5).initial_seed() == 5
    assert m.random.get_rng_state is m.get_rng_state and m.random.set_rng_state is m.set_rng_state
    assert m.random.initial_seed is m.initial_seed and m.random.seed is m.seed
    assert m.random.default_generator is m.default_generator
    assert m.random.thread_safe_generator() is None  # outside a DataLoader thread worker


# -- torch.return_types ----------------------------------------------------------------------------------


CALLS = {
    "max": lambda m, x: m.max(x, 0), "min": lambda m, x: x.min(1), "sort": lambda m, x: m.sort(x),
    "topk": lambda m, x: m.topk(x, 2), "kthvalue": lambda m, x: m.kthvalue(x, 2), "median": lambda m, x: x.median(0),
    "mode": lambda m, x: m.mode(x), "nanmedian": lambda m, x: m.nanmedian(x, 1), "cummax": lambda m, x: m.cummax(x, 0),
    "cummin": lambda m, x: m.cummin(x, 1), "aminmax": lambda m, x: m.aminmax(x), "frexp": lambda m, x: m.frexp(x),
    "histogram": lambda m, x: m.histogram(x.flatten(), 4), "linalg_qr": lambda m, x: m.linalg.qr(x),
    "linalg_slogdet": lambda m, x: m.linalg.slogdet(x), "linalg_eigh": lambda m, x: m.linalg.eigh(x @ x.mT),
    "linalg_svd": lambda m, x: m.linalg.svd(x), "linalg_lu_factor": lambda m, x: m.linalg.lu_factor(x),
    "linalg_inv_ex": lambda m, x: m.linalg.inv_ex(x), "linalg_cholesky_ex": lambda m, x: m.linalg.cholesky_ex(x @ x.mT),
    "geqrf": lambda m, x: m.geqrf(x), "svd": lambda m, x: m.svd(x),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_ops_return_the_named_tuple_of_return_types(name: str) -> None:
    data = np.random.default_rng(0).standard_normal((4, 4))
    results = [CALLS[name](m, m.tensor(data)) for m in (torch, glassgrad)]
    for m, result in zip((torch, glassgrad), results, strict=True):
        assert isinstance(result, getattr(m.return_types, name)) and isinstance(result, tuple)
    theirs, ours = results
    fields = [f for f in dir(theirs) if not f.startswith("_") and f not in ("count", "index", "n_fields", "n_sequence_fields", "n_unnamed_fields")]
    assert len(ours) == len(theirs) and all(hasattr(ours, f) for f in fields), fields


def test_return_types_names_match_pytorchs() -> None:
    # torch.triangular_solve is deprecated (docs/coverage.md's exclusions), so glassgrad has no tuple for it
    unmatched = {"pytree_register_structseq", "triangular_solve", "triangular_solve_out"}
    assert set(glassgrad.return_types.__all__) == set(torch.return_types.__all__) - unmatched
    assert glassgrad.return_types.max_out is glassgrad.return_types.max
    assert set(glassgrad.return_types.all_return_types) >= {glassgrad.return_types.sort, glassgrad.return_types.linalg_qr}


# -- torch.types ---------------------------------------------------------------------------------------


def test_types_aliases_accept_what_pytorchs_do() -> None:
    assert set(glassgrad.types.__all__) == set(torch.types.__all__)
    for value in (1, 2.5, True):
        assert isinstance(value, glassgrad.types.Number) == isinstance(value, torch.types.Number)
    assert isinstance("cpu", glassgrad.types.Device) and isinstance(glassgrad.device("cpu"), glassgrad.types.Device)
    assert [str(t) for t in typing.get_args(glassgrad.types.FileLike)] == [str(t) for t in typing.get_args(torch.types.FileLike)]


# -- torch.overrides -----------------------------------------------------------------------------------


class Wrapped:
    """A tensor-like of a library: answers every torch function it is handed."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return (cls.__name__, func.__name__, [t.__name__ for t in types], len(args))


class SubWrapped(Wrapped):
    pass


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def _library_function(m):
    def scale(x, factor=2):
        if m.overrides.has_torch_function((x,)):
            return m.overrides.handle_torch_function(scale, (x,), x, factor=factor)
        return x * factor

    return scale


@LIBS
def test_a_library_function_hands_itself_to_torch_function(m) -> None:
    scale = _library_function(m)
    assert scale(Wrapped()) == ("Wrapped", "scale", ["Wrapped"], 1)
    assert m.overrides.has_torch_function_unary(Wrapped()) and m.overrides.has_torch_function_variadic(1, Wrapped())
    assert not m.overrides.has_torch_function((m.ones(1), 3)) and not m.overrides.has_torch_function_unary(m.ones(1))
    assert scale(m.ones(2)).tolist() == [2.0, 2.0]
    # a subclass goes first, whatever the order of the arguments
    assert m.overrides.handle_torch_function(scale, (Wrapped(), SubWrapped()), 0) == ("SubWrapped", "scale", ["SubWrapped", "Wrapped"], 1)


def test_handle_torch_function_error_matches_pytorchs() -> None:
    messages = []
    for m in (torch, glassgrad):
        with pytest.raises(TypeError) as info:
            m.overrides.handle_torch_function(_library_function(m), (Declines(),), Declines())
        messages.append(str(info.value).split(":")[0])
    assert messages[0] == messages[1].replace("glassgrad", "torch")


@LIBS
def test_wrap_torch_function_and_is_tensor_like(m) -> None:
    @m.overrides.wrap_torch_function(lambda a, b=0: (a,))
    def add(a, b=0):
        return a + b

    assert add(3, 4) == 7 and add(Wrapped(), 4) == ("Wrapped", "add", ["Wrapped"], 2)
    assert m.overrides.is_tensor_like(m.ones(1)) and m.overrides.is_tensor_like(Wrapped()) and m.overrides.is_tensor_like(Wrapped)
    assert not m.overrides.is_tensor_like(np.ones(1))


# -- modules glassgrad cannot have -------------------------------------------------------------------


@pytest.mark.parametrize("module", ["xpu", "mtia", "mps"])
def test_other_accelerators_report_no_device_as_the_cpu_build_does(module: str) -> None:
    theirs, ours = getattr(torch, module), importlib.import_module(f"glassgrad.{module}")
    assert ours.is_available() is theirs.is_available() is False
    assert ours.device_count() == theirs.device_count() == 0
    with pytest.raises(AttributeError, match=f"glassgrad does not provide torch.{module}"):
        ours.synchronize()


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("export", "export"), ("ao.quantization", "quantize_dynamic"), ("ao", "nn"), ("quantization", "quantize"),
        ("nested", "nested_tensor"), ("package", "PackageExporter"),
    ],
)
def test_modules_glassgrad_cannot_have_import_and_refuse_use(module: str, name: str) -> None:
    importlib.import_module(f"torch.{module}")
    ours = importlib.import_module(f"glassgrad.{module}")
    with pytest.raises(AttributeError, match=rf"glassgrad does not provide torch.{module}: .* \(used at "):
        getattr(ours, name)
    with pytest.raises(AttributeError, match=r"has no attribute '_private'$"):
        ours._private  # noqa: B018


# -- torch.quasirandom ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dimension", [1, 2, 7, 300, 21201])
def test_unscrambled_sobol_points_are_pytorchs_bit_for_bit(dimension: int) -> None:
    engines = [m.quasirandom.SobolEngine(dimension) for m in (torch, glassgrad)]

    def steps(m, engine):
        yield engine.draw(5, dtype=m.float64)
        yield engine.fast_forward(8).draw(3)  # 16 drawn, so draw_base2 may follow
        yield engine.draw_base2(4)
        yield engine.reset().draw(1)
        yield engine.fast_forward(2).draw(2, dtype=m.float64)

    for theirs, ours in zip(steps(torch, engines[0]), steps(glassgrad, engines[1]), strict=True):
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert engines[1].num_generated == engines[0].num_generated


def test_sobol_out_repr_and_errors_as_pytorchs() -> None:
    for m in (torch, glassgrad):
        engine = m.quasirandom.SobolEngine(3, scramble=True, seed=4)
        out = m.empty(0)
        assert engine.draw(4, out=out) is out and tuple(out.shape) == (4, 3)
        assert repr(engine) == "SobolEngine(dimension=3, scramble=True, seed=4)"
        assert repr(m.quasirandom.SobolEngine(2)) == "SobolEngine(dimension=2)"
    messages = []
    for m in (torch, glassgrad):
        with pytest.raises(ValueError) as bad_dimension:
            m.quasirandom.SobolEngine(21202)
        with pytest.raises(ValueError) as not_power_of_two:
            m.quasirandom.SobolEngine(2).fast_forward(3).draw_base2(2)
        messages.append((str(bad_dimension.value), str(not_power_of_two.value)))
    assert messages[0] == messages[1]


def test_scrambled_sobol_points_are_balanced_and_repeat_with_a_seed() -> None:
    points = glassgrad.quasirandom.SobolEngine(6, scramble=True, seed=11).draw_base2(7, dtype=glassgrad.float64).numpy()
    again = glassgrad.quasirandom.SobolEngine(6, scramble=True, seed=11).draw(128, dtype=glassgrad.float64).numpy()
    other = glassgrad.quasirandom.SobolEngine(6, scramble=True, seed=12).draw(128, dtype=glassgrad.float64).numpy()
    np.testing.assert_array_equal(points, again)
    assert not np.array_equal(points, other) and ((points >= 0) & (points < 1)).all()
    for d in range(6):  # a (0, m, 1)-net in every dimension, as unscrambled: one point per interval of width 1/128
        assert np.array_equal(np.sort(np.floor(points[:, d] * 128)), np.arange(128))
    pairs = np.floor(points[:, :2] * 8)  # and in two dimensions at once: two points in each of the 64 squares
    assert (np.unique(pairs[:, 0] * 8 + pairs[:, 1], return_counts=True)[1] == 2).all()


@LIBS
def test_is_tensor_method_or_property(m) -> None:
    assert m.overrides.is_tensor_method_or_property(m.Tensor.add)
    assert m.overrides.is_tensor_method_or_property(m.Tensor.shape.__get__)
    assert not m.overrides.is_tensor_method_or_property(m.cat) and not m.overrides.is_tensor_method_or_property(len)


# -- torch.utils.hooks ---------------------------------------------------------------------------------


def test_warn_if_has_hooks_and_unserializable_hook_as_pytorchs() -> None:
    for m in (torch, glassgrad):
        t = m.ones(2, requires_grad=True)
        m.utils.hooks.warn_if_has_hooks(t)  # no hooks: silent (filterwarnings=error would fail otherwise)
        handle = t.register_hook(lambda grad: grad)
        with pytest.warns(UserWarning, match=r"^backward hook .* on tensor will not be serialized\.  If this is expected"):
            m.utils.hooks.warn_if_has_hooks(t)
        handle.remove()
        marked = m.utils.hooks.unserializable_hook(lambda grad: grad)
        assert marked.__torch_unserializable__ is True
        t.register_hook(marked)
        m.utils.hooks.warn_if_has_hooks(t)
        assert isinstance(handle, m.utils.hooks.RemovableHandle)


# -- torch.utils.weak ----------------------------------------------------------------------------------


@LIBS
def test_weak_id_key_dictionary_keys_by_identity_and_forgets_collected_keys(m) -> None:
    weak = m.utils.weak
    assert weak.WeakTensorKeyDictionary is weak.WeakIdKeyDictionary
    first, second = m.ones(2), m.ones(2)  # equal values, two keys
    table = weak.WeakIdKeyDictionary({first: "first"})
    table[second] = "second"
    assert len(table) == 2 and table[first] == "first" and table[second] == "second"
    assert first in table and m.ones(2) not in table and 3 not in table
    del table[first]
    assert list(table.values()) == ["second"]
    del second
    gc.collect()
    assert len(table) == 0 and list(table) == []


@LIBS
def test_weak_id_ref_and_tensor_weak_ref(m) -> None:
    weak = m.utils.weak
    t = m.zeros(1)
    a, b, other = weak.WeakIdRef(t), weak.WeakIdRef(t), weak.WeakIdRef(m.zeros(1))
    assert a == b and hash(a) == hash(b) == id(t) and a != other
    ref = weak.TensorWeakRef(t)
    assert ref() is t
    del t, a, b
    gc.collect()
    assert ref() is None


def test_tensor_weak_ref_refuses_a_non_tensor_as_pytorchs() -> None:
    messages = []
    for m in (torch, glassgrad):
        with pytest.raises(AssertionError) as info:
            m.utils.weak.TensorWeakRef([1])
        messages.append(str(info.value))
    assert messages[0] == messages[1]
