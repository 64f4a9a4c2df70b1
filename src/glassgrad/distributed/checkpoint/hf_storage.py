"""torch.distributed.checkpoint.hf_storage: imported by transformers at module level."""

from ..._missing import unimplemented

HuggingFaceStorageReader = unimplemented(__name__ + ".HuggingFaceStorageReader")
HuggingFaceStorageWriter = unimplemented(__name__ + ".HuggingFaceStorageWriter")
