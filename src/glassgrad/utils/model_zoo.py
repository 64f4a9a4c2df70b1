"""torch.utils.model_zoo: the older name of torch.hub's checkpoint loader (torchvision imports tqdm from here)."""

from ..hub import load_state_dict_from_url as load_url
from ..hub import tqdm

__all__ = ["load_url", "tqdm"]
