"""torch._dynamo.eval_frame: whether frames can be traced here (never: glassgrad runs every frame eagerly)."""

from . import is_dynamo_supported

__all__ = ["is_dynamo_supported"]
