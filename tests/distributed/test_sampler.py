"""DistributedSampler partitions a dataset as PyTorch's does."""

from __future__ import annotations

import pytest
import torch.utils.data

from glassgrad.utils.data import DistributedSampler

pytestmark = pytest.mark.torch_oracle


@pytest.mark.parametrize("size", [1, 5, 10, 11, 17])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_indices_equal_pytorchs(size: int, replicas: int, drop_last: bool) -> None:
    for rank in range(replicas):
        theirs = torch.utils.data.DistributedSampler(range(size), replicas, rank, shuffle=False, drop_last=drop_last)
        ours = DistributedSampler(range(size), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)


@pytest.mark.parametrize(("size", "replicas"), [(10, 3), (17, 4), (8, 2)])
def test_shuffled_ranks_share_one_permutation_and_cover_each_index_once(size: int, replicas: int) -> None:
    for epoch in range(3):
        shares = []
        for rank in range(replicas):
            sampler = DistributedSampler(range(size), replicas, rank, shuffle=True, seed=5)
            sampler.set_epoch(epoch)
            shares.append(list(sampler))
        every = [i for share in shares for i in share]
        assert sorted(set(every)) == list(range(size))  # every index, once per epoch
        assert len(every) == len(shares[0]) * replicas  # padded by wrapping around, as PyTorch pads
        # dealt out from one permutation: taking the ranks' shares in turn gives it back, each index once
        interleaved = [shares[r][k] for k in range(len(shares[0])) for r in range(replicas)]
        assert sorted(interleaved[:size]) == list(range(size))
    first = DistributedSampler(range(size), replicas, 0, seed=5)
    again = DistributedSampler(range(size), replicas, 0, seed=5)
    assert list(first) == list(again)
    first.set_epoch(1)
    assert list(first) != list(again) or size < 3


def test_rank_out_of_range_is_refused_as_in_pytorch() -> None:
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
