"""torch.distributed.launcher.api: `elastic_launch` runs a function in nproc_per_node ranks on this machine.

PyTorch's version starts an elastic agent with a rendezvous store, restarts and monitoring. Here the ranks are
processes started with multiprocessing's spawn method, each given the environment variables torchrun gives
(RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...), so that `init_process_group()` joins them over TCP.
One machine only, no restarts: a rank that fails fails the launch.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import multiprocessing as glassgrad_mp


@dataclass
class LaunchConfig:
    """PyTorch's launch settings; glassgrad uses nproc_per_node, run_id, rdzv_endpoint's host and start_method."""

    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    logs_specs: Any = None
    run_id: str = ""
    role: str = "default_role"
    rdzv_endpoint: str = ""
    rdzv_backend: str = "etcd"
    rdzv_configs: dict[str, Any] = field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 0.1
    start_method: str = "spawn"
    log_line_prefix_template: str | None = None
    metrics_cfg: dict[str, str] = field(default_factory=dict)
    local_addr: str | None = None


class elastic_launch:  # PyTorch's name, a class called like a function
    """`elastic_launch(config, entrypoint)(*args)`: {rank: entrypoint(*args)} for every rank."""

    def __init__(self, config: LaunchConfig, entrypoint: Callable[..., Any] | str | None) -> None:
        self._config, self._entrypoint = config, entrypoint

    def __call__(self, *args: Any) -> dict[int, Any]:
        return launch_agent(self._config, self._entrypoint, list(args))


def launch_agent(config: LaunchConfig, entrypoint: Callable[..., Any] | str | None, args: list[Any]) -> dict[int, Any]:
    if not callable(entrypoint):
        raise NotImplementedError("glassgrad's elastic_launch runs a Python function; start a command with torchrun")
    if config.max_nodes > 1:
        raise NotImplementedError(
            "glassgrad's elastic_launch starts the ranks of one machine (max_nodes=1); across machines, start each "
            "machine's ranks with the same MASTER_ADDR and MASTER_PORT, or use mpirun"
        )
    host = config.rdzv_endpoint.rpartition(":")[0] if ":" in config.rdzv_endpoint else config.rdzv_endpoint
    environment = {
        "WORLD_SIZE": str(config.nproc_per_node), "LOCAL_WORLD_SIZE": str(config.nproc_per_node), "GROUP_RANK": "0",
        "MASTER_ADDR": host or "localhost", "MASTER_PORT": str(_free_port()), "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": str(config.max_restarts), "TORCHELASTIC_RUN_ID": config.run_id or uuid.uuid4().hex,
    }
    results = multiprocessing.get_context(config.start_method).SimpleQueue()
    glassgrad_mp.start_processes(
        _rank, args=(environment, entrypoint, args, results), nprocs=config.nproc_per_node, start_method=config.start_method
    )
    return dict(sorted(pickle.loads(results.get()) for _ in range(config.nproc_per_node)))


def _rank(local_rank: int, environment: dict[str, str], entrypoint: Callable[..., Any], args: list[Any], results: Any) -> None:
    os.environ.update(environment, RANK=str(local_rank), LOCAL_RANK=str(local_rank))
    # Plain pickle writes a tensor's bytes: multiprocessing's pickler would send a shared-memory handle that dies
    # with this process, which exits before the parent reads the queue.
    results.put(pickle.dumps((local_rank, entrypoint(*args))))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return int(probe.getsockname()[1])
