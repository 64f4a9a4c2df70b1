"""glassgrad.distributed without MPI: ranks started PyTorch's way (torchrun's environment variables,
torch.multiprocessing.spawn, tcp:// and file:// init methods) join over TCP; `glassgrad run` hands the torch
alias to spawned children; PyTorch's rendezvous errors and timeouts; a rank that dies stops the others.

The collectives themselves are checked on both transports by test_collectives.py."""

from __future__ import annotations

import datetime
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import glassgrad
import glassgrad.distributed as dist

from ..nn.oracle import assert_raises_like_torch

WORKERS = Path(__file__).resolve().parent / "workers"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ranks_from_environment(world: int, *command: str, env: dict[str, str] | None = None) -> list[subprocess.CompletedProcess[str]]:
    """`command` in `world` processes started as torchrun starts them: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT."""
    port = str(free_port())
    processes = [
        subprocess.Popen(
            [sys.executable, *command],
            env={**os.environ, **(env or {}), "RANK": str(r), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for r in range(world)
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)  # a rank that hangs fails the test instead of the suite
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


def test_the_doctor_reports_each_rank_that_torchrun_started(tmp_path: Path) -> None:
    report = str(tmp_path / "r.json")
    results = ranks_from_environment(2, "-m", "glassgrad", "doctor", "--engine", "glassgrad", "--json", report, str(WORKERS / "rank_leak.py"))
    assert all(result.returncode == 0 for result in results), [result.stderr for result in results]
    reports = [json.loads((tmp_path / f"r.rank{rank}.json").read_text()) for rank in (0, 1)]
    assert [(r["rank"], r["world_size"]) for r in reports] == [(0, 2), (1, 2)]
    assert reports[0]["warnings"] == [] and len(reports[1]["warnings"]) == 1
    assert "warning (rank 1 of 2)" in results[1].stderr


def test_a_torch_evaluation_started_like_torchrun_runs_unchanged() -> None:
    results = ranks_from_environment(3, "-m", "glassgrad", "run", str(WORKERS / "torch_eval_objects.py"))
    for rank, result in enumerate(results):
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"rank {rank} of 3: accuracy "), result.stdout
    assert len({result.stdout.rpartition(" ")[2] for result in results}) == 1  # rank 0's summary, broadcast


@pytest.mark.parametrize("method", ["tcp", "file"])
def test_tcp_and_file_init_methods_with_rank_and_world_size(method: str, tmp_path: Path) -> None:
    init_method = f"tcp://127.0.0.1:{free_port()}" if method == "tcp" else f"file://{tmp_path / 'rendezvous'}"
    program = (
        "import sys, glassgrad as torch, glassgrad.distributed as dist\n"
        "rank = int(sys.argv[1])\n"
        f"dist.init_process_group('gloo', init_method={init_method!r}, rank=rank, world_size=2)\n"
        "t = torch.tensor([rank + 1.0])\n"
        "dist.all_reduce(t)\n"
        "print(dist.get_rank(), dist.get_world_size(), dist.get_backend(), t.item())\n"
    )
    processes = [subprocess.Popen([sys.executable, "-c", program, str(r)], stdout=subprocess.PIPE, text=True) for r in range(2)]
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    assert outputs == ["0 2 gloo 3.0\n", "1 2 gloo 3.0\n"]
    assert not (tmp_path / "rendezvous").exists()  # rank 0 removes the file once every rank has read it


def test_spawned_children_of_glassgrad_run_import_glassgrad_as_torch(tmp_path: Path) -> None:
    # docs/real-programs.md, "Runner observations": the reproduction, for both start methods that re-import the
    # script, and a DataLoader's workers started by spawn
    script = tmp_path / "children.py"
    script.write_text(
        "import multiprocessing as mp\nimport torch\n\n"
        "def work(q):\n    q.put(torch.__name__)\n\n"
        "def engine(i):\n    return torch.__name__\n\n"
        "if __name__ == '__main__':\n"
        "    for method in ('spawn', 'forkserver'):\n"
        "        ctx = mp.get_context(method)\n"
        "        q = ctx.Queue()\n"
        "        p = ctx.Process(target=work, args=(q,))\n"
        "        p.start()\n"
        "        print(method, 'parent:', torch.__name__, 'child:', q.get())\n"
        "        p.join()\n"
        "    loader = torch.utils.data.DataLoader(range(2), batch_size=None, num_workers=2, multiprocessing_context='spawn',\n"
        "                                         collate_fn=engine)\n"
        "    print('workers:', sorted(loader))\n"
    )
    result = subprocess.run([sys.executable, "-m", "glassgrad", "run", str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert result.stdout.splitlines() == [
        "spawn parent: glassgrad child: glassgrad", "forkserver parent: glassgrad child: glassgrad", "workers: ['glassgrad', 'glassgrad']",
    ], result.stderr


@pytest.mark.torch_oracle
def test_ranks_started_by_pytorchs_torchrun_join_over_tcp(tmp_path: Path) -> None:
    # torchrun's agent holds MASTER_PORT for its own store; the ranks meet beside it
    torchrun = str(Path(sys.executable).parent / "torchrun")
    result = subprocess.run(
        [torchrun, "--nproc-per-node", "2", "-m", "glassgrad", "run", str(WORKERS / "torch_eval_objects.py")],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(re.findall(r"rank (\d) of 2: accuracy", result.stdout)) == ["0", "1"], result.stdout


def test_a_torch_multiprocessing_spawn_ddp_program_runs_unchanged_under_glassgrad_run() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "glassgrad", "run", str(WORKERS / "torch_spawned.py"), "3", str(free_port())],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    # the ranks print at once into one pipe, so their lines may interleave
    assert sorted(re.findall(r"rank (\d) of 3: torch is \['glassgrad'\]", result.stdout)) == ["0", "1", "2"], result.stdout


def test_elastic_launch_runs_a_function_in_each_rank_and_returns_what_each_returned() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "glassgrad", "run", str(WORKERS / "torch_elastic_launch.py")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    every = [(r, "glassgrad") for r in range(3)]
    assert result.stdout == f"{ {0: (every, [0]), 1: (every, [10]), 2: (every, [20])} }\n"


def test_a_rank_that_dies_makes_the_others_raise_instead_of_hanging() -> None:
    rank0, rank1 = ranks_from_environment(2, str(WORKERS / "one_rank_fails.py"))
    assert rank1.returncode != 0 and "ValueError: rank 1 found bad data" in rank1.stderr
    assert rank0.returncode != 0
    assert "RuntimeError: glassgrad.distributed: rank 1 is gone" in rank0.stderr, rank0.stderr


# -- rendezvous errors, in this process (no rank joins) -------------------------------------------------------------
@pytest.fixture
def no_rendezvous_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.torch_oracle
@pytest.mark.parametrize("present", [(), ("RANK",), ("RANK", "WORLD_SIZE"), ("RANK", "WORLD_SIZE", "MASTER_ADDR")])
def test_env_init_names_the_first_missing_variable_as_pytorch_does(present: tuple[str, ...], no_rendezvous_variables: pytest.MonkeyPatch) -> None:
    for name, value in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"}.items():
        if name in present:
            no_rendezvous_variables.setenv(name, value)
    assert_raises_like_torch(lambda lib: lib.distributed.init_process_group("gloo"))


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "arguments",
    [{"init_method": "tcp://127.0.0.1:1"}, {"init_method": "tcp://127.0.0.1:1", "rank": 0},
     {"init_method": "file:///nonexistent/rendezvous", "rank": 0}, {"init_method": "nowhere://x", "rank": 0, "world_size": 1}],
)
def test_init_method_arguments_are_checked_as_pytorch_does(arguments: dict, no_rendezvous_variables: pytest.MonkeyPatch) -> None:
    assert_raises_like_torch(lambda lib: lib.distributed.init_process_group("gloo", **arguments))


def test_rank_zero_times_out_waiting_for_a_rank_that_never_arrives(no_rendezvous_variables: pytest.MonkeyPatch) -> None:
    with pytest.raises(dist.DistStoreError, match=r"^Timed out after 0 seconds waiting for clients. 1/2 clients joined.$"):
        dist.init_process_group("gloo", f"tcp://127.0.0.1:{free_port()}", datetime.timedelta(seconds=0.3), world_size=2, rank=0)
    assert not dist.is_initialized()


def test_a_rank_times_out_when_rank_zero_never_listens(no_rendezvous_variables: pytest.MonkeyPatch) -> None:
    port = free_port()
    expected = rf"^The client socket has timed out after 300ms while trying to connect to \(127.0.0.1, {port}\).$"
    with pytest.raises(dist.DistNetworkError, match=expected):
        dist.init_process_group("gloo", f"tcp://127.0.0.1:{port}", datetime.timedelta(seconds=0.3), world_size=2, rank=1)
    assert isinstance(dist.DistNetworkError("x"), RuntimeError)  # as in PyTorch: handlers of RuntimeError catch it


def test_one_rank_alone_needs_no_peer_and_is_its_own_world(no_rendezvous_variables: pytest.MonkeyPatch) -> None:
    hook = sys.excepthook
    dist.init_process_group(init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
    try:
        t = glassgrad.tensor([2.0, 3.0])
        dist.all_reduce(t, dist.ReduceOp.AVG)
        objects = [None]
        dist.all_gather_object(objects, {"a": 1})
        assert (t.tolist(), objects, dist.get_backend(), dist.get_world_size()) == ([2.0, 3.0], [{"a": 1}], "gloo", 1)
        assert "gloo over TCP" in repr(dist.group.WORLD)
    finally:
        dist.destroy_process_group()
    assert sys.excepthook is hook  # the rank's stop-every-rank hook ends with its group
