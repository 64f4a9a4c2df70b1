"""OpInfos of channel_shuffle (glassgrad/ops/rearrange.py): F.channel_shuffle, torch.channel_shuffle and the
native_channel_shuffle twins, which are the same function."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import OpInfo, Shapes


@st.composite
def _channels(draw: Any) -> Shapes:
    """(N, C, *spatial) with C a multiple of 2 and of 3 as often as not, so that groups 2 and 3 divide it."""
    channels = draw(st.sampled_from([2, 3, 6]))
    return ((draw(st.integers(0, 2)), channels, *(draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 2))))),)


def _groups(x: Any) -> int:
    return 3 if x.shape[1] % 3 == 0 else 2


_ERRORS = (
    lambda m: m.nn.functional.channel_shuffle(m.zeros(2, 6), 2),
    lambda m: m.nn.functional.channel_shuffle(m.zeros(2, 6, 3), 0),
    lambda m: m.nn.functional.channel_shuffle(m.zeros(2, 6, 3), 4),
    lambda m: m.nn.functional.channel_shuffle(m.zeros(2, 6, 3), 2.0),
)

OPS = [
    OpInfo("glassgrad.nn.functional.channel_shuffle", lambda m, x: m.nn.functional.channel_shuffle(x, _groups(x)),
           shapes=_channels(), errors=_ERRORS),
    OpInfo("glassgrad.channel_shuffle", lambda m, x: m.channel_shuffle(x, 2 if x.shape[1] % 2 == 0 else 1), shapes=_channels()),
    # PyTorch's native_channel_shuffle has no derivative at all; glassgrad's is channel_shuffle, so forward only.
    OpInfo("glassgrad.native_channel_shuffle", lambda m, x: m.native_channel_shuffle(x, _groups(x)), shapes=_channels(), order=0,
           also=("glassgrad.nn.functional.native_channel_shuffle",)),
]
