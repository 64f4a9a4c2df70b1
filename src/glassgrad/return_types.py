"""torch.return_types: the named tuples that ops returning several tensors give back (max, sort, linalg_qr, ...).

Each is the very class the op returns, so `isinstance(x.max(0), torch.return_types.max)` holds and the fields
have PyTorch's names. PyTorch makes a second type per op for its out= form (max_out); here the out= form
returns the same tuple, so <name>_out is the same class. torch.slogdet and torch.linalg.slogdet (likewise
qr) share one class here, where PyTorch has two with the same fields.
"""

from __future__ import annotations

from ._missing import module_getattr as _module_getattr
from .ops import (
    histograms,
    householder,
    linalg_decomp,
    linalg_derived,
    linalg_eig,
    linalg_lu,
    numeric,
    reduction,
    scans,
    sorting,
    statistics,
)

_TYPES: dict[str, type] = {
    "aminmax": statistics.aminmax_result,
    "cummax": scans.cummax_result,
    "cummin": scans.cummin_result,
    "frexp": numeric.frexp_result,
    "geqrf": householder.geqrf_result,
    "histogram": histograms.histogram_result,
    "histogramdd": histograms.histogramdd_result,
    "kthvalue": sorting.kthvalue_result,
    "linalg_cholesky_ex": linalg_lu.CholeskyExResult,
    "linalg_eig": linalg_eig.EigResult,
    "linalg_eigh": linalg_decomp.EighResult,
    "linalg_inv_ex": linalg_lu.InvExResult,
    "linalg_ldl_factor": linalg_lu.LdlFactorResult,
    "linalg_ldl_factor_ex": linalg_lu.LdlFactorExResult,
    "linalg_lstsq": linalg_decomp.LstsqResult,
    "linalg_lu": linalg_lu.LuResult,
    "linalg_lu_factor": linalg_lu.LuFactorResult,
    "linalg_lu_factor_ex": linalg_lu.LuFactorExResult,
    "linalg_qr": linalg_decomp.QRResult,
    "linalg_slogdet": linalg_decomp.SlogdetResult,
    "linalg_solve_ex": linalg_lu.SolveExResult,
    "linalg_svd": linalg_decomp.SVDResult,
    "lu_unpack": linalg_lu.LuUnpackResult,
    "max": reduction.max_result,
    "median": sorting.median_result,
    "min": reduction.min_result,
    "mode": sorting.mode_result,
    "nanmedian": sorting.nanmedian_result,
    "qr": linalg_decomp.QRResult,
    "slogdet": linalg_decomp.SlogdetResult,
    "sort": sorting.sort_result,
    "svd": linalg_derived.svd_result,
    "topk": sorting.topk_result,
}
_NO_OUT_FORM = ("histogramdd",)  # PyTorch has no histogramdd_out type either

globals().update(_TYPES)
globals().update({f"{name}_out": cls for name, cls in _TYPES.items() if name not in _NO_OUT_FORM})

all_return_types: list[type] = list(dict.fromkeys(_TYPES.values()))

__all__ = ["all_return_types", *sorted(_TYPES), *sorted(f"{n}_out" for n in _TYPES if n not in _NO_OUT_FORM)]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
