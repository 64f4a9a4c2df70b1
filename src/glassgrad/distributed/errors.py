"""torch.distributed's exception types: each a RuntimeError, as in PyTorch."""


class DistError(RuntimeError):
    """An error in torch.distributed."""


class DistBackendError(DistError):
    """An error in a collective's backend."""


class DistNetworkError(DistError):
    """A network error, such as a rank that cannot be reached."""


class DistStoreError(DistError):
    """An error of the rendezvous store, such as ranks that did not all arrive in time."""
