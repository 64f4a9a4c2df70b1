"""glassgrad against PyTorch eager, HIPS autograd and MyGrad: W1-W5 timings and W6 peak memory.

    python bench/run.py                # everything (make bench)
    python bench/run.py --quick        # few rounds, a smoke test
    python bench/run.py --only W1,W6   # W2 also selects its user-path variants W2-nn and W2-adam
    python bench/run.py --only W2-nn   # one variant alone

Each thread-count group of W1-W5 runs in its own subprocess, because BLAS thread counts are fixed
when NumPy and PyTorch are imported; inside it every library runs in the same process,
interleaved round-robin after warm-up. W6 runs one fresh subprocess per library.

When glassgrad's compiled core imports, its rows say "glassgrad compiled", and every group runs
once more with GLASSGRAD_PURE=1 for the "glassgrad pure" rows (timed against PyTorch in that same
process). Without the compiled core there is one glassgrad row, "glassgrad pure".
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEYS = ("W1", "W2", "W2-nn", "W2-adam", "W3", "W3-nn", "W4", "W5", "W6", "W6-nn")
THREADS = {"W1": 1, "W2": 1, "W3": 2, "W4": 1, "W5": 1, "W6": 2}
THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


@dataclass
class Row:
    """One library on one workload, as the worker reports it."""

    workload: str
    library: str
    version: str = ""
    status: str = "ok"  # ok | FAILED (wrong answer) | error (raised) | n/a (library cannot)
    message: str = ""
    note: str = ""  # float32 results that came back in another dtype
    rel_err: float = float("nan")
    samples: list[float] = field(default_factory=list)
    alone: list[float] = field(default_factory=list)  # consecutive calls, after the interleaved rounds
    pure_rerun: bool = False  # timed in the GLASSGRAD_PURE=1 process: its ratios are to that process's PyTorch


# --- worker: one thread-count group, all libraries in this process ------------------------------


@dataclass
class Case:
    row: Row
    step: Callable[[], object] | None = None


def warm_up(step: Callable[[], object], quick: bool) -> float:
    """Run until warm (at least 2-3 calls and 0.3 s); the last call's time estimates one call."""
    start, calls, last = time.perf_counter(), 0, 0.0
    while calls < (2 if quick else 3) or (not quick and time.perf_counter() - start < 0.3 and calls < 50):
        t0 = time.perf_counter()
        step()
        last = time.perf_counter() - t0
        calls += 1
    return last


def prepare_case(lib: Any, wl: Any, problem: Any, expected: dict[str, Any], quick: bool) -> tuple[Case, float]:
    """Check one library's answer, build its timed step and warm it up; failures become the row's status."""
    from libs import NotSupported
    from workloads import compare, make_step, outputs

    case = Case(Row(wl.key, lib.name, lib.version))
    try:
        check = compare(outputs(lib, wl, problem), expected, wl.tol)
        case.row.rel_err, case.row.note = check.rel_err, check.notes
        if not check.passed:
            case.row.status, case.row.message = "FAILED", check.problems
        case.step = make_step(lib, wl, problem)
        return case, warm_up(case.step, quick)
    except NotSupported as e:
        case.row.status, case.row.message = "n/a", str(e)
    except Exception as e:
        case.row.status, case.row.message = "error", f"{type(e).__name__}: {e}"
    case.step = None
    return case, 0.0


def time_rounds(cases: list[Case], rounds: int, settle_s: float) -> None:
    """Round-robin: each round times one call of every library, starting one library later each round.

    With several threads, `settle_s` of sleep before each call lets the previous library's worker
    threads stop spinning (OpenBLAS spins about 0.1 s after a call, OpenMP also spins), so that they
    do not take the cores from the library being timed.
    """
    for r in range(rounds):
        k = r % len(cases)
        for case in cases[k:] + cases[:k]:
            if case.step is None:
                continue
            time.sleep(settle_s)
            t0 = time.perf_counter()
            try:
                case.step()
            except Exception as e:
                case.row.status, case.row.message, case.step = "error", f"during timing: {type(e).__name__}: {e}", None
                continue
            case.row.samples.append(time.perf_counter() - t0)


def time_alone(cases: list[Case], calls: int, settle_s: float) -> None:
    """Each library on its own: `calls` consecutive calls, one library after the other.

    Interleaving is fair to a library whose cost does not depend on what ran before it; PyTorch's
    W2 time does (its median moved between 1.7 and 2.6 ms with its neighbours in session 3's runs),
    so the table shows both.
    """
    for case in cases:
        step = case.step
        if step is None:
            continue
        for _ in range(calls):
            time.sleep(settle_s)
            t0 = time.perf_counter()
            step()
            case.row.alone.append(time.perf_counter() - t0)


def bench_workload(key: str, libraries: list[Any], oracle: Any, quick: bool) -> list[Row]:
    import numpy as np
    from workloads import SEED, WORKLOADS, outputs

    wl = WORKLOADS[key]
    problem = wl.make_problem(np.random.default_rng(SEED))
    expected = {k: v.astype(np.float64) for k, v in outputs(oracle, wl, problem).items()}
    print(f"{key}: checking and warming up {', '.join(lib.name for lib in libraries)}", file=sys.stderr, flush=True)
    prepared = [prepare_case(lib, wl, problem, expected, quick) for lib in libraries]
    cases = [case for case, _ in prepared]
    per_round = sum(estimate + wl.settle_s for _, estimate in prepared) or 1e-3
    budget = wl.budget_s / 15 if quick else wl.budget_s
    rounds = max(3 if quick else 5, min(wl.max_rounds, int(budget / per_round)))
    print(f"{key}: {rounds} interleaved rounds, about {rounds * per_round:.0f} s", file=sys.stderr, flush=True)
    gc.collect()
    time_rounds(cases, rounds, wl.settle_s)
    time_alone(cases, max(3, rounds // 2), wl.settle_s)
    return [case.row for case in cases]


def load_libraries(threads: int, names: list[str]) -> tuple[list[Any], dict[str, str]]:
    """The adapters that import; a library that fails to import is an error row, not a crash."""
    from libs import load

    libraries, failed = [], {}
    for name in names:
        try:
            lib = load(name)
            lib.set_threads(threads)
            libraries.append(lib)
        except Exception as e:
            failed[name] = f"import: {type(e).__name__}: {e}"
    return libraries, failed


def worker(keys: list[str], threads: int, quick: bool, out: Path, names: list[str]) -> None:
    for var in THREAD_VARS:
        if os.environ.get(var) != str(threads):
            raise SystemExit(f"worker expects {var}={threads} set before NumPy is imported")
    import numpy
    import torch
    from libs import PURE_VARIABLE, reference

    libraries, failed = load_libraries(threads, names)
    oracle = reference()
    rows = []
    for key in keys:
        rows += bench_workload(key, libraries, oracle, quick)
        rows += [Row(key, name, status="error", message=message) for name, message in failed.items()]
    for row in rows:
        row.pure_rerun = os.environ.get(PURE_VARIABLE) == "1"
    info = {"threads": threads, "torch_threads": torch.get_num_threads(), "numpy": numpy.__version__}
    out.write_text(json.dumps({"info": info, "rows": [asdict(r) for r in rows]}))


# --- parent: subprocesses, W6, the tables -------------------------------------------------------


def child_env(threads: int, **extra: str) -> dict[str, str]:
    env = dict(os.environ) | {var: str(threads) for var in THREAD_VARS} | extra
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH", "")]))
    return env


def glassgrad_compiled() -> bool:
    """Whether glassgrad imports with its compiled core here (asked in a child, as the workers will import it)."""
    probe = "import glassgrad, libs; print(libs.glassgrad_path(glassgrad))"
    done = subprocess.run([sys.executable, "-c", probe], env=child_env(1), capture_output=True, text=True)
    return done.stdout.strip() == "compiled"


def run_group(keys: list[str], threads: int, quick: bool, compiled: bool) -> tuple[list[Row], dict[str, Any]]:
    """All libraries on `keys` in one process, then (when glassgrad is compiled) its pure path against PyTorch again."""
    from libs import LIBRARY_NAMES, PURE_VARIABLE

    rows, info = run_worker(keys, threads, quick, list(LIBRARY_NAMES), {})
    if compiled:
        pure_rows, _ = run_worker(keys, threads, quick, ["glassgrad", "torch"], {PURE_VARIABLE: "1"})
        rows += pure_rows
    return rows, info


def run_worker(keys: list[str], threads: int, quick: bool, names: list[str], extra_env: dict[str, str]) -> tuple[list[Row], dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [
            sys.executable,
            str(HERE / "run.py"),
            "--worker",
            "--threads",
            str(threads),
            "--only",
            ",".join(keys),
            "--json",
            str(out),
            "--libraries",
            ",".join(names),
        ]
        cmd += ["--quick"] if quick else []
        subprocess.run(cmd, env=child_env(threads, **extra_env), check=True)
        payload = json.loads(out.read_text())
    return [Row(**r) for r in payload["rows"]], payload["info"]


def run_memory(keys: list[str], compiled: bool) -> list[dict[str, Any]]:
    """W6 (raw: every library, then utils.checkpoint on every layer) and W6-nn (nn.Linear), a fresh process each."""
    from libs import LIBRARY_NAMES, PURE_VARIABLE

    runs: list[tuple[str, ...]] = []
    if "W6" in keys:
        runs += [*((n,) for n in LIBRARY_NAMES), ("glassgrad", "--checkpoint"), ("torch", "--checkpoint")]
    if "W6-nn" in keys:
        runs += [("glassgrad", "--nn"), ("torch", "--nn")]
    pure = {PURE_VARIABLE: "1"}
    runs_env = [(run, {}) for run in runs] + [(run, pure) for run in runs if compiled and run[0] == "glassgrad"]
    results = []
    for (name, *extra), extra_env in runs_env:
        print(f"W6: {name} {' '.join(extra)} in a fresh process", file=sys.stderr, flush=True)
        env = child_env(THREADS["W6"], MALLOC_MMAP_THRESHOLD_="65536", **extra_env)
        done = subprocess.run([sys.executable, str(HERE / "memory.py"), name, *extra], env=env, capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        if done.returncode or not lines:
            results.append({"library": name, "error": f"exit {done.returncode}: {done.stderr.strip()[-500:]}"})
        else:
            results.append(json.loads(lines[-1]))
    return results


def fmt(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def check_text(row: Row) -> str:
    if row.status == "ok":
        return f"ok (rel {row.rel_err:.1e})" + (" *dtype" if row.note else "")
    return f"<<< {row.status} >>>"


def print_timings(rows: list[Row]) -> None:
    from workloads import WORKLOADS

    header = (
        f"{'':8} {'thr':>3}  {'library':<18} {'median':>8} {'min':>8} {'max':>8}  {'unit':<5} {'vs torch':>9} {'rounds':>6}"
        f"  {'alone':>8} {'vs torch':>9}  check"
    )
    print(header)
    print("-" * len(header))
    for key in [k for k in KEYS if any(r.workload == k for r in rows)]:
        wl = WORKLOADS[key]
        group = sorted((r for r in rows if r.workload == key), key=library_order)
        print(f"{key:<8} {wl.title}")
        for r in group:
            if r.pure_rerun and r.library == "torch":
                continue  # the pure rows' reference, not a row of its own
            torch_row = next((t for t in group if t.library == "torch" and t.pure_rerun == r.pure_rerun and t.samples), None)
            torch_median = statistics.median(torch_row.samples) if torch_row else None
            torch_alone = statistics.median(torch_row.alone) if torch_row and torch_row.alone else None
            if not r.samples:
                print(
                    f"{'':8} {wl.threads:>3}  {r.library:<18} {'-':>8} {'-':>8} {'-':>8}  {wl.unit:<5} {'-':>9} {0:>6}"
                    f"  {'-':>8} {'-':>9}  {check_text(r)}"
                )
                continue
            med = statistics.median(r.samples)
            alone = statistics.median(r.alone) if r.alone else None
            cells = " ".join(f"{fmt(wl.scale(v)):>8}" for v in (med, min(r.samples), max(r.samples)))
            print(
                f"{'':8} {wl.threads:>3}  {r.library:<18} {cells}  {wl.unit:<5} {ratio_text(r, med, torch_median):>9}"
                f" {len(r.samples):>6}  {fmt(wl.scale(alone)) if alone else '-':>8} {ratio_text(r, alone, torch_alone):>9}"
                f"  {check_text(r)}"
            )


def library_order(row: Row) -> tuple[int, bool]:
    """LIBRARY_NAMES' order ("glassgrad compiled" and "glassgrad pure" where glassgrad is), compiled first."""
    from libs import LIBRARY_NAMES

    return LIBRARY_NAMES.index(row.library.split()[0]), row.pure_rerun


def ratio_text(row: Row, time_s: float | None, torch_s: float | None) -> str:
    if time_s is None or torch_s is None:
        return "-"
    ratio = f"{time_s / torch_s:.2f}x"
    return ratio if row.status == "ok" else f"({ratio})"  # a wrong answer's time does not count


def print_memory(results: list[dict[str, Any]]) -> None:
    from memory import BATCH, theoretical_minimum

    t = theoretical_minimum()
    print(f"\nW6  peak memory of one W3 forward+backward at batch {BATCH} (2 threads), fresh process per library")
    print(
        f"    theoretical minimum {t['minimum_mib']:.0f} MiB = max(3 activations + 2 weight grads, 1 activation + 3 weight grads)"
    )
    print(
        f"    with one activation {t['activation_mib']:.0f} MiB and one weight gradient {t['weight_grad_mib']:.0f} MiB; the issue's wording"
    )
    print(
        f"    'three saved tanh outputs plus the weight gradients' would sum to {t['saved_plus_grads_mib']:.0f} MiB, but those are never all live at once"
    )
    header = (
        f"{'':4} {'library':<28} {'peak-base MiB':>13} {'vs minimum':>10} {'vs torch':>9} {'kept after':>10}  check"
    )
    print(header)
    print("-" * len(header))
    torch_peaks = {r["variant"]: r["peak_above_baseline_mib"] for r in results if r["library"].startswith("torch") and "error" not in r}
    for r in results:
        torch_peak = torch_peaks.get(r.get("variant", ""))
        if "error" in r:
            print(f"{'':4} {r['library']:<28} {'-':>13} {'-':>10} {'-':>9} {'-':>10}  <<< error >>>")
            continue
        peak = r["peak_above_baseline_mib"]
        vs_torch = f"{peak / torch_peak:.2f}x" if torch_peak else "-"
        check = f"ok (rel {r['rel_err']:.1e})" + (" *dtype" if r["note"] else "") if r["passed"] else "<<< FAILED >>>"
        print(
            f"{'':4} {r['library']:<28} {peak:>13.1f} {peak / t['minimum_mib']:>9.2f}x {vs_torch:>9} {r['after_above_baseline_mib']:>10.1f}  {check}"
        )


def print_failures(rows: list[Row], memory: list[dict[str, Any]]) -> bool:
    """The loud part: every wrong answer and every error, in full. True if there was any."""
    bad = [f"{r.workload} {r.library}: {r.status}: {r.message}" for r in rows if r.status in ("FAILED", "error")]
    bad += [f"W6 {m['library']}: error: {m['error']}" for m in memory if "error" in m]
    bad += [f"W6 {m['library']}: FAILED: {m['problems']}" for m in memory if "error" not in m and not m["passed"]]
    na = [f"{r.workload} {r.library}: n/a: {r.message}" for r in rows if r.status == "n/a"]
    na += [f"W6 {m['library']}: *dtype: {m['note']}" for m in memory if m.get("note")]
    if bad:
        print("\n" + "!" * 100)
        print("!!! WRONG ANSWERS OR ERRORS: these rows do not count")
        for line in bad:
            print("!!! " + line)
        print("!" * 100)
    na += [
        f"{r.workload} {r.library}: *dtype: float32 in, {r.note} out (the answer is right but left float32 on the way; not failed)"
        for r in rows
        if r.note
    ]
    if na:
        print("\nNotes:")
        for line in na:
            print("  " + line)
    return bool(bad)


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few rounds: a smoke test, not a measurement")
    ap.add_argument(
        "--only", default=",".join(KEYS), help="comma-separated workloads, e.g. W1,W3,W6 (W2 includes W2-nn and W2-adam)"
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--libraries", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    asked = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = {k for k in asked if k.upper() not in {key.upper() for key in KEYS}}
    if unknown:
        ap.error(f"unknown workload(s) {', '.join(sorted(unknown))}; choose from {', '.join(KEYS)}")
    # a raw workload brings its user-path variants along; a variant named alone comes alone
    args.keys = [key for key in KEYS if any(key.upper() == k.upper() or key.split("-")[0] == k.upper() for k in asked)]
    args.libraries = [n for n in args.libraries.split(",") if n]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        worker(args.keys, args.threads, args.quick, args.json, args.libraries)
        return 0
    timed = [k for k in args.keys if not k.startswith("W6")]
    compiled = glassgrad_compiled()
    rows: list[Row] = []
    infos = []
    for threads in sorted({THREADS[k.split("-")[0]] for k in timed}):
        group_rows, info = run_group([k for k in timed if THREADS[k.split("-")[0]] == threads], threads, args.quick, compiled)
        rows += group_rows
        infos.append(info)
    memory = run_memory(args.keys, compiled) if any(k.startswith("W6") for k in args.keys) else []

    versions = {r.library: r.version for r in rows} | {m["library"]: m.get("version", "?") for m in memory}
    print(f"\nmachine: {machine()}")
    print(
        "versions: "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + (f", numpy {infos[0]['numpy']}" if infos else "")
    )
    print(
        "threads: 1 for W1 W2 W4 W5, 2 for W3 W6 (torch.set_num_threads and OMP/OPENBLAS/MKL_NUM_THREADS before import)"
    )
    for info in infos:
        print(f"  {info['threads']}-thread process: torch.get_num_threads() = {info['torch_threads']}")
    if args.quick:
        print("QUICK RUN: a smoke test, not a measurement")
    print(
        "times: median/min/max of interleaved rounds after warm-up; 'vs torch' = median / PyTorch median (below 1 is faster);\n"
        "  'alone': median of consecutive calls of one library after those rounds, and its ratio to PyTorch's\n"
    )
    if rows:
        print_timings(rows)
    if memory:
        print_memory(memory)
    return 1 if print_failures(rows, memory) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
