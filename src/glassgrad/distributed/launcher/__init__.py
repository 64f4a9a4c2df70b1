"""torch.distributed.launcher: elastic_launch for the ranks of one machine (see api.py)."""

from .api import LaunchConfig, elastic_launch, launch_agent

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]
