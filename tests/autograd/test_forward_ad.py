"""torch.autograd.forward_ad against PyTorch: the API and its errors, tangents through grad modes, in-place ops
and views, custom Functions' jvp, forward over reverse (Hessian-vector products) and reverse over forward."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import glassgrad

pytestmark = [
    pytest.mark.torch_oracle,
    # PyTorch's first make_dual loads its JVP decompositions through the deprecated torch.jit.script
    pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning"),
]


def _x(m: ModuleType) -> Any:
    return m.tensor([0.5, -1.0, 2.0], dtype=m.float64)


def _v(m: ModuleType) -> Any:
    return m.tensor([1.0, 0.25, -0.5], dtype=m.float64)


def _tangent_of(m: ModuleType, fn: Callable[[Any], Any]) -> Any:
    """(primal, tangent) of fn(dual x) inside one dual level."""
    fw = m.autograd.forward_ad
    with fw.dual_level():
        out = fn(fw.make_dual(_x(m), _v(m)))
        return tuple(fw.unpack_dual(out))


API_ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "make_dual_outside_level": lambda m: m.autograd.forward_ad.make_dual(_x(m), _v(m)),
    "exit_without_level": lambda m: m.autograd.forward_ad.exit_dual_level(),
}


def _inside(body: Callable[[ModuleType, Any], Any]) -> Callable[[ModuleType], Any]:
    def run(m: ModuleType) -> Any:
        with m.autograd.forward_ad.dual_level():
            return body(m, m.autograd.forward_ad)

    return run


API_ERRORS |= {
    "nested_level": _inside(lambda m, fw: fw.enter_dual_level()),
    "tangent_size": _inside(lambda m, fw: fw.make_dual(_x(m), m.ones(4, dtype=m.float64))),
    "integer_primal": _inside(lambda m, fw: fw.make_dual(m.arange(3), _v(m))),
    "integer_tangent": _inside(lambda m, fw: fw.make_dual(_x(m), m.arange(3))),
    "dual_of_dual": _inside(lambda m, fw: fw.make_dual(fw.make_dual(_x(m), _v(m)), _v(m))),
    "tangent_is_dual": _inside(lambda m, fw: fw.make_dual(_x(m), fw.make_dual(_v(m), _v(m)))),
    # a dual tangent is refused before its size is looked at
    "dual_tangent_of_other_size": _inside(lambda m, fw: fw.make_dual(m.ones(4, dtype=m.float64), fw.make_dual(_v(m), _v(m)))),
    "exit_other_level": _inside(lambda m, fw: fw.exit_dual_level(level=3)),
    "unsupported_op": _inside(lambda m, fw: m.cdist(fw.make_dual(_x(m), _v(m))[None, :, None], _x(m)[None, :, None])),
}


@pytest.mark.parametrize("case", sorted(API_ERRORS))
def test_api_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: API_ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


def test_api(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        x, v = _x(m), _v(m)
        with fw.dual_level() as level:
            dual = fw.make_dual(x, v)
            primal, tangent = fw.unpack_dual(dual)
            unpacked = fw.unpack_dual(dual)
            facts = (
                level, tangent is v, dual._base is x, primal.data_ptr() == x.data_ptr(), fw.unpack_dual(x).tangent,
                type(unpacked).__name__, unpacked.primal is not None,
            )
            out = (dual * dual).sin()
        return facts, fw.unpack_dual(out).tangent, out, primal

    oracle.check(program)


def test_tangents_vanish_with_their_level(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(_x(m), _v(m))
            out = dual.exp()
        with fw.dual_level():
            inside_next = fw.unpack_dual(out).tangent
        return fw.unpack_dual(out).tangent, fw.unpack_dual(dual).tangent, inside_next

    oracle.check(program)


def test_modes(oracle: Any) -> None:
    """Forward AD does not depend on grad mode; detach drops the tangent; requires_grad flows as PyTorch's."""

    def program(m: ModuleType) -> Any:
        def under_no_grad(d: Any) -> Any:
            with m.no_grad():
                return d * d.tanh()

        return (
            _tangent_of(m, under_no_grad),
            _tangent_of(m, lambda d: d.detach() * 2),
            _tangent_of(m, lambda d: d.clone().requires_grad_(False) + 1),
        )

    oracle.check(program)


def test_inplace_and_views(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(_x(m), _v(m))
            a = _x(m).clone()
            a.mul_(dual)  # a plain tensor becomes dual
            b = _x(m).clone()
            view = b[:2]
            other_view = b[1:]
            view.mul_(dual[:2])  # through a view: the base and its other views see it
            c = dual.clone()
            c.t_()
            c.unsqueeze_(0)
            d = dual.clone()
            d += 1
            d.sin_()
            e = fw.make_dual(_x(m), _v(m))
            e.mul_(2)  # in place on make_dual's own output (a view of the primal)
            f = fw.make_dual(_x(m), _v(m))
            f.exponential_()  # a random fill replaces the values: the tangent becomes zero
            return [fw.unpack_dual(t).tangent for t in (a, b, view, other_view, c, d, e, f)]

    oracle.check(program)


def test_inplace_updates_the_tangent_in_place(oracle: Any) -> None:
    """An in-place op on a dual writes its new tangent into the old one (the caller's tensor, when make_dual kept
    it), never into the primal's: make_dual's result and unpack_dual's primal are views that forward AD does not
    see as views. A view of the dual carries its change to the dual's tangent; a detached alias carries none."""

    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        x, v = _x(m), _v(m)
        with fw.dual_level():
            dual = fw.make_dual(x, v)
            dual *= 2
            primal, tangent = fw.unpack_dual(dual)
            primal_had = fw.unpack_dual(primal).tangent
            primal *= 3  # the primal alone changes
            tangent += 1  # the dual's tangent changes, being that tensor
            view = dual.narrow(0, 1, 2)
            view *= 2  # the dual's tangent, through its view
            plain = _x(m).clone()
            plain[0] = dual[2]  # a tensor without tangent gets zeros but where it was written
            detached = _x(m).clone()
            alias = detached.detach()
            alias += dual
            return (
                fw.unpack_dual(x).tangent, v, tuple(fw.unpack_dual(dual)), primal_had, fw.unpack_dual(view).tangent,
                fw.unpack_dual(plain).tangent, fw.unpack_dual(detached).tangent, fw.unpack_dual(alias).tangent,
            )

    oracle.check(program)


def test_make_dual_in_inference_mode(oracle: Any) -> None:
    """Inference mode leaves forward AD out: make_dual aliases its primal (a view only of a normal tensor) and
    gives it no tangent."""

    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        normal = _x(m)
        with m.inference_mode():
            inference = _x(m)
            with fw.dual_level():
                dual = fw.make_dual(inference, _v(m))
                facts = (dual._is_view(), fw.unpack_dual(dual).tangent)
                dual += 1
                of_normal = fw.make_dual(normal, _v(m))
                facts += (of_normal._is_view(), of_normal._base is normal, fw.unpack_dual(of_normal).tangent)
            with fw.dual_level():
                outside = fw.make_dual(normal, _v(m))
                with m.inference_mode():  # a dual made outside shows no tangent inside, and ops give none
                    inside = (fw.unpack_dual(outside).tangent, fw.unpack_dual(outside * 2).tangent, "tangent=" in str(outside))
                    outside.mul_(2)
                    inside += (fw.unpack_dual(m.mm(outside[None], outside[:, None])).tangent,)
                facts += (*inside, fw.unpack_dual(outside).tangent)
        return facts, inference

    oracle.check(program)


def test_func_transforms_leave_inference_mode(oracle: Any) -> None:
    """torch.func's jvp and jacfwd run their function outside inference mode, so its tangents are seen there;
    autograd.functional's forward-mode jacobian does not, and sees none."""

    def program(m: ModuleType) -> Any:
        def f(x: Any) -> Any:
            return x.sin() + m.is_inference_mode_enabled()

        with m.inference_mode():
            return (
                m.func.jvp(f, (_x(m),), (_v(m),)), m.func.jacfwd(f)(_x(m)),
                m.autograd.functional.jacobian(f, _x(m), strategy="forward-mode", vectorize=True),
            )

    oracle.check(program)


def test_dual_prints_its_tangent(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        x = m.tensor([0.5, -1.0, 2.0])
        with fw.dual_level():
            dual = fw.make_dual(x, m.tensor([1.0, 0.25, -0.5]))
            primal, tangent = fw.unpack_dual(dual)
            return [str(t) for t in (x, dual, primal, tangent, dual * 2)]

    oracle.check(program)


def test_custom_function_jvp(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad

        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, y: Any, k: float) -> Any:
                ctx.save_for_forward(x, y)
                ctx.k = k
                return x * y * k, x + 1

            @staticmethod
            def jvp(ctx: Any, x_t: Any, y_t: Any, k_t: Any) -> Any:
                x, y = ctx.saved_tensors
                assert k_t is None
                return (x_t * y + x * y_t) * ctx.k, x_t

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                return None, None, None

        class Square(m.autograd.Function):
            @staticmethod
            def forward(x: Any) -> Any:
                return x * x

            @staticmethod
            def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
                ctx.save_for_forward(inputs[0])

            @staticmethod
            def jvp(ctx: Any, x_t: Any) -> Any:
                return 2 * ctx.saved_tensors[0] * x_t

        class NoJvp(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        class TooMany(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def jvp(ctx: Any, x_t: Any) -> Any:
                return x_t, x_t

        with fw.dual_level():
            dual = fw.make_dual(_x(m), _v(m))
            a, b = Scale.apply(dual, _x(m) + 2, 3.0)
            squared = Square.apply(dual)
            return (
                fw.unpack_dual(a).tangent, fw.unpack_dual(b).tangent, fw.unpack_dual(squared).tangent,
                m.func.jvp(Square.apply, (_x(m),), (_v(m),)),
                oracle.attempt(lambda: NoJvp.apply(dual)),
                oracle.attempt(lambda: TooMany.apply(dual)),
            )

    oracle.check(program)


def _cross_entropy_mlp(m: ModuleType, w1: Any, w2: Any) -> Any:
    x = m.tensor([[0.3, -0.6, 0.9, 0.1], [-0.2, 0.4, 0.0, -0.8], [0.7, 0.5, -0.3, 0.2]], dtype=m.float64)
    hidden = m.relu(x @ w1 + 0.1)
    return m.nn.functional.cross_entropy(hidden @ w2, m.tensor([2, 0, 1]))


def _weights(m: ModuleType) -> tuple[Any, Any]:
    w1 = m.tensor([[0.1 * ((i * 5 + j) % 7 - 3) for j in range(5)] for i in range(4)], dtype=m.float64)
    w2 = m.tensor([[0.2 * ((i * 3 + j) % 4 - 1.5) for j in range(3)] for i in range(5)], dtype=m.float64)
    return w1, w2


HVP_FUNCTIONS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "softmax": lambda m, x: (m.softmax(x, 0) * m.arange(3, dtype=m.float64)).sum(),
    "log_sum_exp": lambda m, x: m.logsumexp(x * x, 0),
    "norm": lambda m, x: m.linalg.vector_norm(x.exp()),
    "prod_cumsum": lambda m, x: (m.cumsum(x, 0) * x.prod()).sum(),
    "matmul_tanh": lambda m, x: (m.outer(x, x).tanh() @ x).sum(),
    "max_where": lambda m, x: m.where(x > 0, x**3, x.sin()).amax(),
    "layer_norm": lambda m, x: (m.nn.functional.layer_norm(x * x, (3,)) ** 3).sum(),
    "nll_loss": lambda m, x: m.nn.functional.nll_loss((x * x).log_softmax(0)[None], m.tensor([1])),
    "linear_t": lambda m, x: m.nn.functional.linear(x[None], m.outer(x, x).tanh()).sin().sum(),
}


@pytest.mark.parametrize("name", sorted(HVP_FUNCTIONS))
def test_forward_over_reverse_hvp(oracle: Any, name: str) -> None:
    """Hessian-vector products as jvp(grad(f)): the backward formulas run on dual tensors."""

    def program(m: ModuleType) -> Any:
        f = HVP_FUNCTIONS[name]
        return m.func.jvp(m.func.grad(lambda x: f(m, x)), (_x(m),), (_v(m),))

    oracle.check(program)


def test_forward_over_reverse_mlp(oracle: Any) -> None:
    """An MLP with cross-entropy: Hessian-vector products with the autograd API (the engine's accumulation of dual
    gradients included) and with torch.func."""

    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        w1, w2 = _weights(m)
        v1, v2 = w1.cos(), w2.sin()
        with fw.dual_level():
            d1 = fw.make_dual(w1.clone().requires_grad_(), v1)
            d2 = fw.make_dual(w2.clone().requires_grad_(), v2)
            g1, g2 = m.autograd.grad(_cross_entropy_mlp(m, d1, d2), (d1, d2))
            by_api = (g1.detach(), fw.unpack_dual(g1).tangent, fw.unpack_dual(g2).tangent)
        by_func = m.func.jvp(m.func.grad(lambda a, b: _cross_entropy_mlp(m, a, b), argnums=(0, 1)), (w1, w2), (v1, v2))
        return by_api, by_func

    oracle.check(program)


def test_reverse_over_forward(oracle: Any) -> None:
    """Tangents keep a graph in grad mode: the gradient of a JVP with respect to the primal and the tangent."""

    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        x = _x(m).requires_grad_()
        v = _v(m).requires_grad_()
        with fw.dual_level():
            out = (fw.make_dual(x, v).sin() * 3).exp().sum()
            tangent = fw.unpack_dual(out).tangent
        return m.autograd.grad(tangent, (x, v))

    oracle.check(program)


def test_no_tangent_work_without_a_level() -> None:
    """Outside a dual level no tensor carries a tangent and the ops read a single flag."""
    assert not glassgrad.autograd.forward_ad.state.propagating
    x = glassgrad.ones(3)
    assert glassgrad.autograd.forward_ad.unpack_dual(x * 2).tangent is None
    assert glassgrad.autograd.forward_ad.state.tangents == {}


def test_aten_zeros_laid_out_as_a_tangent(oracle: Any) -> None:
    """aten's _new_zeros_with_same_feature_meta: zeros with the target's strides and storage offset in each batch
    element, over a storage as long as the target's per element."""

    def program(m: ModuleType) -> Any:
        make = m.ops.aten._new_zeros_with_same_feature_meta
        targets = (m.zeros(2, 3).t(), m.zeros(5).narrow(0, 1, 2), m.zeros(3, dtype=m.float64), m.tensor(1.0))
        facts = []
        for target in targets:
            for batch in (0, 1, 2):
                r = make(m.zeros(4, 2), target, self_num_batch_dims=batch)
                facts.append((r, r.stride(), r.storage_offset(), r.untyped_storage().nbytes(), r.is_contiguous()))
        return facts

    oracle.check(program)


def test_aten_convolution_backward(oracle: Any) -> None:
    """aten's convolution_backward: the masked gradients are None, also when the weight is dual."""

    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad
        x = m.linspace(-1, 1, 2 * 2 * 5 * 5, dtype=m.float64).reshape(2, 2, 5, 5)
        w = m.linspace(1, -0.5, 3 * 2 * 3 * 3, dtype=m.float64).reshape(3, 2, 3, 3)
        grad = m.linspace(0, 1, 2 * 3 * 3 * 3, dtype=m.float64).reshape(2, 3, 3, 3)
        geometry = ((0,), (2, 2), (1, 1), (1, 1), False, (0, 0), 1)
        backward = m.ops.aten.convolution_backward
        everything = backward(grad, x, w, *geometry, (True, True, True))
        with fw.dual_level():
            dual = fw.make_dual(w, m.ones_like(w))
            masked = backward(grad, x, dual, *geometry, (False, True, False))
            masked = (masked[0], fw.unpack_dual(masked[1]).primal, masked[2])
        return everything, masked, str(backward), backward.default(grad, x, w, *geometry, (True, False, False))

    oracle.check(program)
