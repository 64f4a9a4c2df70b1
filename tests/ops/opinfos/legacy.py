"""OpInfos of the legacy constructors and Tensor.type (glassgrad/ops/legacy.py). Nothing here is differentiable
but type's cast; the full behaviour (aliasing, isinstance, every signature) is in test_legacy.py."""

from __future__ import annotations

from ..opinfo import Domain, OpInfo

_NONNEGATIVE = Domain(0, 2)  # ByteTensor and BoolTensor of negative data: PyTorch raises, NumPy wraps
_TYPED = {"FloatTensor": Domain(), "DoubleTensor": Domain(), "HalfTensor": Domain(), "LongTensor": Domain(),
          "IntTensor": Domain(), "ShortTensor": Domain(), "CharTensor": Domain(), "ByteTensor": _NONNEGATIVE,
          "BoolTensor": _NONNEGATIVE}


def _typed(name: str, domain: Domain) -> list[OpInfo]:
    return [
        OpInfo(f"glassgrad.{name}", lambda m, x: getattr(m, name)(x.tolist()), domains=domain, order=0,
               errors=(lambda m: getattr(m, name)(2.5), lambda m: getattr(m, name)(-1),
                       lambda m: getattr(m, name)(m.ones(1, dtype=m.float64 if name != "DoubleTensor" else m.float32)))),
        OpInfo(f"glassgrad.{name}", lambda m, x: getattr(m, name)(*x.shape), order=0, values=False, id=f"{name}_sizes"),
    ]


OPS = [
    *(op for name, domain in _TYPED.items() for op in _typed(name, domain)),
    OpInfo("Tensor.new", lambda m, x: x.detach().new(x.tolist()), order=0,
           errors=(lambda m: m.ones(1).new(m.ones(1, dtype=m.int64)), lambda m: m.ones(1).new(2, dtype=m.float64))),
    OpInfo("Tensor.new", lambda m, x: x.new(*x.shape), order=0, values=False, id="new_sizes"),
    OpInfo("Tensor.type", lambda m, x: x.type(m.DoubleTensor), errors=(lambda m: m.ones(1).type("float"),)),
    OpInfo("Tensor.type", lambda m, x: x.type("torch.LongTensor"), order=0, id="type_string"),
    OpInfo("Tensor.type_as", lambda m, x: x.type_as(m.ones(1, dtype=m.float64)), errors=(lambda m: m.ones(1).type_as(3),)),
    OpInfo("Tensor.type_as", lambda m, x: x.type_as(m.ones(1, dtype=m.int16)), order=0, id="type_as_integer"),
]
