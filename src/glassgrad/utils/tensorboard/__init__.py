"""torch.utils.tensorboard: SummaryWriter with PyTorch's signatures, writing TensorBoard event files through tensorboardX.

PyTorch's module needs the `tensorboard` package and fails to import without it; glassgrad's needs tensorboardX
(its protobuf messages and event file writer, with only numpy and protobuf beneath) and fails the same way.
"""

try:
    import tensorboardX
except ModuleNotFoundError as error:
    if error.name != "tensorboardX":
        raise
    raise ModuleNotFoundError(
        "No module named 'tensorboardX': glassgrad's torch.utils.tensorboard writes event files through tensorboardX "
        "(pip install tensorboardX==2.6.5, or glassgrad[tensorboard]), where PyTorch's needs the tensorboard package",
        name="tensorboardX",
    ) from None

from tensorboardX.record_writer import RecordWriter

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
