"""The glassgrad command.

- `glassgrad run [--nproc N] script.py [args]`: run an unmodified PyTorch program on glassgrad (`import torch`
  gives glassgrad for that run); with --nproc, N ranks of a torch.distributed program under MPI.
- `glassgrad doctor [--engine glassgrad|torch] [--json OUT.json] [--html OUT.html] script.py [args]`: run it
  with the glass on and report what its graphs did: the errors explained, warnings with the lines to change,
  live saved bytes per step, and the graphs still alive at the end. Exits with the script's status.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

from . import doctor as doctor_


def _mpiexec() -> str:
    """The MPI launcher: the one installed beside this Python (pip's MPICH), else the first on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise SystemExit(
            "glassgrad: --nproc needs an MPI launcher (mpiexec), and none was found: pip install 'glassgrad[distributed]' "
            "installs MPICH with its mpiexec beside Python."
        )
    return found


def _launch(nproc: int, arguments: list[str]) -> int:
    """`glassgrad <arguments>` in `nproc` processes under MPI: one rank each (see glassgrad.distributed)."""
    launcher = _mpiexec()
    version = subprocess.run([launcher, "--version"], capture_output=True, text=True, check=False).stdout
    spare_cores = ["--oversubscribe"] if "Open MPI" in version else []  # MPICH runs more ranks than cores as it is
    return subprocess.call([launcher, *spare_cores, "-n", str(nproc), sys.executable, "-m", "glassgrad", *arguments])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="glassgrad", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run a PyTorch program on glassgrad, unchanged")
    doctor_parser = commands.add_parser("doctor", help="run a program with the glass on and report")
    doctor_parser.add_argument(
        "--engine", choices=doctor_.ENGINES,
        help="the engine to run on (default: the one the script imports; real PyTorch for `import torch` when installed)",
    )
    doctor_parser.add_argument("--json", metavar="OUT.json", help="also write the report as JSON")
    doctor_parser.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    for command in (run_parser, doctor_parser):
        command.add_argument(
            "--nproc", type=int, metavar="N", help="run N processes under MPI (mpiexec -n N), for torch.distributed programs"
        )
        command.add_argument("script")
        command.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)

    if options.nproc is not None:
        forwarded = [f"--{name}={value}" for name in ("engine", "json", "html") if (value := getattr(options, name, None))]
        return _launch(options.nproc, [options.command, *forwarded, options.script, *options.args])
    if options.command == "run":
        status, _, error = doctor_.run(options.script, options.args, alias=True)
        if error is not None:
            traceback.print_exception(error)
        return status

    try:
        report = doctor_.diagnose(options.script, options.args, options.engine)
    except doctor_.UsageError as error:
        parser.error(str(error))
    doctor_.render(report)
    if options.json is not None:
        Path(doctor_.per_rank(options.json, report.rank)).write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    if options.html is not None:
        html = doctor_.per_rank(options.html, report.rank)
        Path(html).write_text(doctor_.html(report), encoding="utf-8")
        print(f"HTML report written to {html}", file=sys.stderr)
    return report.exit_status


if __name__ == "__main__":
    sys.exit(main())
