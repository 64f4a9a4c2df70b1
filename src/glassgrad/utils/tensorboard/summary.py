"""torch.utils.tensorboard.summary: the protobuf summaries SummaryWriter writes, from NumPy values (glassgrad tensors
are converted first). Programs import `hparams` from here to log hyperparameters into their own run.

tensorboardX builds the pieces (histogram buckets, PNG images, plugin data); the summaries that carry a tag are
assembled here because tensorboardX rewrites tags that PyTorch keeps ("y = 2x" would become "y___2x").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf.struct_pb2 import ListValue, Value
from tensorboardX import summary as _tbx
from tensorboardX.proto.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
from tensorboardX.proto.plugin_hparams_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboardX.utils import convert_to_HWC

from ...tensor import Tensor

__all__ = ["histogram", "hparams", "image", "make_np", "scalar", "tensor_proto", "text"]


def make_np(x: Any) -> Any:
    """A glassgrad tensor as a NumPy array (detached); anything else unchanged, for tensorboardX to convert."""
    return x.detach().numpy() if isinstance(x, Tensor) else x


def _as_float(value: Any) -> float:
    array = np.asarray(make_np(value))
    if array.squeeze().ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {array.size} and {array.ndim} dimensions."
        )
    return float(array.squeeze())


def scalar(name: str, tensor: Any, collections: Any = None, new_style: bool = False,
           double_precision: bool = False) -> Summary:
    """A scalar summary: the classic `simple_value`, or with new_style a tensor the scalars plugin reads faster."""
    value = _as_float(tensor)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


# dtype -> (TensorProto's dtype, the field holding the values, the values as that field takes them)
_TENSOR_FIELDS: dict[str, tuple[str, str, Any]] = {
    # PyTorch stores each half as the bits of the same number in float32 (not its own 16 bits): so do we
    "float16": ("DT_HALF", "half_val", lambda a: a.astype(np.float32).view(np.int32).ravel().tolist()),
    "float32": ("DT_FLOAT", "float_val", lambda a: a.ravel().tolist()),
    "float64": ("DT_DOUBLE", "double_val", lambda a: a.ravel().tolist()),
    "int8": ("DT_INT8", "int_val", lambda a: a.ravel().tolist()),
    "int16": ("DT_INT16", "int_val", lambda a: a.ravel().tolist()),
    "int32": ("DT_INT32", "int_val", lambda a: a.ravel().tolist()),
    "int64": ("DT_INT64", "int64_val", lambda a: a.ravel().tolist()),
    "uint8": ("DT_UINT8", "int_val", lambda a: a.ravel().tolist()),  # PyTorch: uint32_val, which TensorBoard ignores
    "bool": ("DT_BOOL", "bool_val", lambda a: a.ravel().tolist()),
    "complex64": ("DT_COMPLEX64", "scomplex_val", lambda a: a.view(np.float32).ravel().tolist()),
    "complex128": ("DT_COMPLEX128", "dcomplex_val", lambda a: a.view(np.float64).ravel().tolist()),
}


def tensor_proto(tag: str, tensor: Any) -> Summary:
    """A whole tensor, its values flattened, for the tensor plugin."""
    array = np.ascontiguousarray(make_np(tensor))
    if array.nbytes >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if array.dtype.name not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, values = _TENSOR_FIELDS[array.dtype.name]
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=size) for size in array.shape])
    proto = TensorProto(dtype=dtype, tensor_shape=shape, **{field: values(array)})
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=proto)])


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    histo = _tbx.make_histogram(np.asarray(make_np(values)).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=histo)])


def image(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    """A PNG of an image (or a grid of a batch): uint8 values as they are, any other type scaled by 255 and clipped."""
    array = convert_to_HWC(np.asarray(make_np(tensor)), dataformats)
    if array.dtype != np.uint8:
        array = (array.astype(np.float32) * 255).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=_tbx.make_image(array, rescale=rescale))])


def text(tag: str, text: str) -> Summary:
    return _tbx.text(tag, text)


def _hparams_summary(tag: str, **content: Any) -> Summary:
    data = HParamsPluginData(version=0, **content).SerializeToString()
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="hparams", content=data))
    return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])


def hparams(hparam_dict: dict[str, Any] | None = None, metric_dict: dict[str, Any] | None = None,
            hparam_domain_discrete: dict[str, list[Any]] | None = None) -> tuple[Summary, Summary, Summary]:
    """The hparams plugin's experiment, session-start and session-end summaries, as PyTorch writes them: numbers
    (bools among them) as float64, strings as strings, each with its discrete domain if one is given."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for name, domain in domains.items():
        if name not in hparam_dict or not isinstance(domain, list) or \
                not all(isinstance(d, type(hparam_dict[name])) for d in domain):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{name}] should be a list of same type as hparam_dict[{name}]."
            )
    infos, start = [], SessionStartInfo()
    for name, value in hparam_dict.items():
        if isinstance(value, Tensor):
            value = float(make_np(value).reshape(-1)[0])
        if value is None:
            continue
        if isinstance(value, (int, float)):
            field, kind, convert = "number_value", "DATA_TYPE_FLOAT64", float
        elif isinstance(value, str):
            field, kind, convert = "string_value", "DATA_TYPE_STRING", str
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[name], field, convert(value))
        domain = ListValue(values=[Value(**{field: convert(d)}) for d in domains[name]]) if name in domains else None
        infos.append(HParamInfo(name=name, type=DataType.Value(kind), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (_hparams_summary("_hparams_/experiment", experiment=experiment),
            _hparams_summary("_hparams_/session_start_info", session_start_info=start),
            _hparams_summary("_hparams_/session_end_info",
                             session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
