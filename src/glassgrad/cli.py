"""The glassgrad command.

- `glassgrad run script.py [args]`: run an unmodified PyTorch program on glassgrad (`import torch` gives
  glassgrad for that run).
- `glassgrad doctor [--engine glassgrad|torch] [--json OUT.json] [--html OUT.html] script.py [args]`: run it
  with the glass on and report what its graphs did: the errors explained, warnings with the lines to change,
  live saved bytes per step, and the graphs still alive at the end. Exits with the script's status.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

from . import doctor as doctor_


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
        command.add_argument("script")
        command.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)

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
        Path(options.json).write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    if options.html is not None:
        Path(options.html).write_text(doctor_.html(report), encoding="utf-8")
        print(f"HTML report written to {options.html}", file=sys.stderr)
    return report.exit_status


if __name__ == "__main__":
    sys.exit(main())
