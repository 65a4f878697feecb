"""Benchmark: mathbg's cubeful rollout (``mathbg rollout``) against gnubg 1.07's ``rollout``.

Measured side by side in one run, both as a whole process, one thread, the same position
and score, the same settings (checker play and cube decisions at the same plies, cubeful,
no truncation of gnubg's rollouts, Kazaross-XG2):

1. Efficiency (issue 31's goal: mathbg's at most half of gnubg's at 0 ply with variance
   reduction): standard error of the cubeful MWC x sqrt(CPU-s) of the cube decision's two
   lines, no double and double/take. mathbg plays both lines in one process on the same
   dice (``mathbg rollout POS --away A,B --trials N --json``, as a user types it, with
   its default exact truncation); gnubg rolls out one line per run (``rollout`` with the
   cube set), so its CPU is the sum of the two runs. Printed: each side's SE of the no
   double line, CPU-s, trials, SE x sqrt(CPU-s) and the ratio mathbg / gnubg; with and
   without variance reduction, at 0 ply and 1 ply. Also the paired SE of DT - ND (mathbg)
   against gnubg's unpaired one (two independent runs: sqrt(SE1^2 + SE2^2)).
2. Dask: the same rollout with ``--scheduler local:2`` against locally, wall time ratio, at
   144 and 1,296 trials (``--dask-trials``)
   (goal <= 1.3) and whether the numbers are identical.
3. As typed (``--typed-trials``, default the command's own 1,296): ``mathbg rollout
   4HPwATDgc/ABMA --away 3,5`` exactly so, on a terminal (under ``script``: the progress
   bar on), against the same with ``--json`` off a terminal (the bar off), and with
   ``--store DIR`` killed (SIGKILL) once half its batches are stored, then typed again: the
   resumed process's CPU, the killed one's, and whether its output is the uninterrupted
   run's to the last digit. gnubg 1.07 rolls the same out with the same trials, and the
   ratio of SE x sqrt(CPU-s) is printed for the run as typed.

CPU time is the child process's (``resource.getrusage(RUSAGE_CHILDREN)``); gnubg runs under
``script`` (it prints rollout results only on a terminal). The machine is shared, so wall
times are printed with the load average.

Usage::

    python benchmarks/bench_rollout.py              # a few minutes
    python benchmarks/bench_rollout.py --trials 720 # bigger samples
    python benchmarks/bench_rollout.py --repeat 2   # each program twice, turn about
    python benchmarks/bench_rollout.py --blas       # one BLAS thread against two
    python benchmarks/bench_rollout.py --typed      # only section 3 (about 6 minutes)
    python benchmarks/bench_rollout.py --dask       # only section 2
    python benchmarks/bench_rollout.py --no-typed   # sections 1-2 only

mathbg's runs share a data cache of the benchmark's own (``MATHBG_DATA``, empty at the
start): the first 0-ply run is printed apart as the first-ever one (it solves and writes
the score's exact bearoff solutions); the measured runs read them, as a user's later runs
do.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import add_tests_to_path, gnubg_peer, killed_when

POSITION = "4HPwATDgc/ABMA"  # the opening position (the 3-away/5-away contact case)
AWAY = (3, 5)


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


#: The runs' data cache (``MATHBG_DATA``): a fresh directory of this benchmark's own, so
#: that the first run is a first-ever one (the exact truncation's solutions of the score
#: solved and written) and the later ones read them, as a user's second run does.
DATA: str | None = None


def mathbg_run(trials: int, plies: int, vr: bool, scheduler: str | None = None,
               blas_threads: int | None = None) -> tuple[dict, float, float]:  # fmt: skip
    """``mathbg rollout`` as a whole process: its JSON, CPU-s and wall-s."""
    argv = [sys.executable, "-m", "mathbg", "rollout", POSITION, "--away", f"{AWAY[0]},{AWAY[1]}",
            "--trials", str(trials), "--plies", str(plies), "--json"]  # fmt: skip
    if not vr:
        argv.append("--no-variance-reduction")
    if scheduler:
        argv += ["--scheduler", scheduler]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    if DATA is not None:
        env["MATHBG_DATA"] = DATA
    if blas_threads is not None:  # else the command's default, one BLAS thread
        env["OPENBLAS_NUM_THREADS"] = str(blas_threads)
    cpu, wall = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout), _children_cpu() - cpu, time.perf_counter() - wall


def gnubg_lines(gnubg: Path, trials: int, plies: int, vr: bool) -> tuple[list, float]:
    """gnubg's two lines (no double; double/take) and the CPU-s of both runs."""
    add_tests_to_path()
    from gnubg_rollout import gnubg_rollout_line

    lines = [gnubg_rollout_line(gnubg, POSITION, AWAY, cube=c, owner=o, trials=trials,
                                plies=plies, variance_reduction=vr, seed=1)
             for c, o in ((1, "centre"), (2, "opponent"))]  # fmt: skip
    return lines, sum(ln.cpu for ln in lines)


def efficiency(trials: int, plies: int, vr: bool, gnubg: Path | None, repeat: int = 1) -> None:
    """SE x sqrt(CPU-s) of both programs; with ``repeat`` > 1 they run turn about that many
    times (the same dice each time: the same SE) and each keeps its least CPU, so that a
    shared host's drifting speed weighs on both alike."""
    runs, g_runs = [], []
    first = None
    if DATA is not None and not os.listdir(DATA):
        first = mathbg_run(trials, plies, vr)  # the first-ever run (empty data cache)
    for _ in range(max(1, repeat)):
        runs.append(mathbg_run(trials, plies, vr))
        if gnubg is not None:
            g_runs.append(gnubg_lines(gnubg, trials, plies, vr))
    doc, cpu, _ = min(runs, key=lambda r: r[1])
    nd, dt = doc["lines"]
    diff = doc["differences"][0]
    ours = nd["stderr"] * math.sqrt(cpu)
    label = f"{plies}-ply, {'with' if vr else 'without'} variance reduction, {trials} trials"
    print(f"\n== {label}")
    print(f"mathbg: ND {100 * nd['value']:.2f}% SE {100 * nd['stderr']:.3f} pp, DT "
          f"{100 * dt['value']:.2f}% SE {100 * dt['stderr']:.3f} pp; DT-ND SE "
          f"{100 * diff['stderr']:.3f} pp paired; {cpu:.1f} CPU-s ({trials / cpu:.1f} "
          f"trials/CPU-s, both lines); SE x sqrt(CPU-s) {ours:.4f}")  # fmt: skip
    if first is not None:
        print(f"mathbg's first-ever run (empty data cache: the score's exact bearoff solutions "
              f"solved and written): {first[1]:.1f} CPU-s; the runs above read them")
    if gnubg is None:
        print("gnubg: not installed (no ratio)")
        return
    (gnd, gdt), gcpu = min(g_runs, key=lambda r: r[1])
    theirs = gnd.stderr * math.sqrt(gcpu)
    print(f"gnubg:  ND {100 * gnd.mwc:.2f}% SE {100 * gnd.stderr:.3f} pp, DT {100 * gdt.mwc:.2f}%"
          f" SE {100 * gdt.stderr:.3f} pp; DT-ND SE {100 * math.hypot(gnd.stderr, gdt.stderr):.3f}"
          f" pp unpaired; {gcpu:.1f} CPU-s ({trials / gcpu:.1f} trials/CPU-s a line, two runs);"
          f" SE x sqrt(CPU-s) {theirs:.4f}")  # fmt: skip
    print(f"ratio mathbg / gnubg (SE x sqrt(CPU-s), no double line): {ours / theirs:.2f}"
          + ("   (goal <= 0.5)" if plies == 0 and vr else ""))
    dtr = (dt["stderr"] * math.sqrt(cpu)) / (gdt.stderr * math.sqrt(gcpu))
    dfr = diff["stderr"] / math.hypot(gnd.stderr, gdt.stderr) * math.sqrt(cpu / gcpu)
    print(f"ratio on the double/take line: {dtr:.2f}; on DT - ND (paired vs unpaired): {dfr:.2f}")


def blas_ratio(trials: int, repeat: int) -> None:
    """The 0-ply rollout as typed (one BLAS thread, the command's default) against the same
    with two OpenBLAS threads, turn about, each its least CPU: what spinning BLAS threads
    cost."""
    one, two = [], []
    if DATA is not None and not os.listdir(DATA):
        mathbg_run(trials, 0, True)  # fill the data cache first: both sides then read it
    for _ in range(max(1, repeat)):
        one.append(mathbg_run(trials, 0, True)[1])
        two.append(mathbg_run(trials, 0, True, blas_threads=2)[1])
    print(f"\n== BLAS threads: {trials} trials, 0-ply with variance reduction: {min(one):.1f} "
          f"CPU-s with one (the default), {min(two):.1f} with OPENBLAS_NUM_THREADS=2 "
          f"({min(two) / min(one):.2f}x)")  # fmt: skip


def dask_ratio(trials: int) -> None:
    local, _, wall_local = mathbg_run(trials, 0, True)
    remote, _, wall_dask = mathbg_run(trials, 0, True, scheduler="local:2")
    print(f"\n== Dask: {trials} trials, 0-ply with variance reduction")
    print(f"local {wall_local:.1f} s wall, --scheduler local:2 {wall_dask:.1f} s wall: ratio "
          f"{wall_dask / wall_local:.2f} (goal <= 1.3); identical numbers: {local == remote}; "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip


def _mathbg_command() -> list[str]:
    """``mathbg`` as a user types it: the console script beside this Python, else
    ``python -m mathbg``."""
    script = Path(sys.executable).with_name("mathbg")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mathbg"]


def _on_a_terminal(argv: list[str]) -> list[str]:
    """``argv`` run under ``script`` (a pseudo-terminal: the progress bar is drawn)."""
    return ["script", "-qfec", " ".join(argv), "/dev/null"]


def _typed_env() -> dict[str, str]:
    env = {**os.environ}
    if DATA is not None:
        env["MATHBG_DATA"] = DATA
    return env


def _table(text: str) -> list[str]:
    """The result lines of the text output (after the progress bar's carriage returns)."""
    lines = [ln.rsplit("\r", 1)[-1].strip() for ln in text.replace("\r\n", "\n").split("\n")]
    start = next((i for i, ln in enumerate(lines) if ln.startswith("position ")), len(lines))
    return [ln for ln in lines[start:] if ln]


def _timed(argv: list[str]) -> tuple[str, float, float]:
    cpu, wall = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=_typed_env(), check=True)
    return proc.stdout, _children_cpu() - cpu, time.perf_counter() - wall


def _killed_half_way(argv: list[str], store: Path, batches: int) -> tuple[float, float, int]:
    """Run ``argv`` until half its batches are in ``store``, then SIGKILL it and everything
    it started: CPU-s, wall-s and the batches kept."""
    cpu, wall = killed_when(argv, lambda: len(list(store.glob("trials-*.npz")))
                            >= (batches + 1) // 2, _typed_env())  # fmt: skip
    return cpu, wall, len(list(store.glob("trials-*.npz")))


def as_typed(trials: int, gnubg: Path | None) -> None:
    """Section 3: the command as typed, on a terminal, and after a kill and a resume."""
    typed = [*_mathbg_command(), "rollout", POSITION, "--away", f"{AWAY[0]},{AWAY[1]}"]
    if trials != 1296:
        typed += ["--trials", str(trials)]
    print(f"\n== as typed: {' '.join(['mathbg', *typed[len(_mathbg_command()):]])}")
    if DATA is not None and not os.listdir(DATA):
        _timed(typed)  # the first-ever run at the score fills the data cache (section 1)
    out, cpu, wall = _timed(_on_a_terminal(typed))
    table = _table(out)
    nd = next(ln for ln in table if ln.startswith("no_double"))
    se = float(nd.split()[2].lstrip("±")) / 100  # the SE column, in pp
    print(f"on a terminal (progress bar on): {cpu:.1f} CPU-s, {wall:.1f} s wall; no double "
          f"{nd.split()[1]} SE {100 * se:.3f} pp; SE x sqrt(CPU-s) {se * math.sqrt(cpu):.4f}")
    _, j_cpu, j_wall = _timed([*typed, "--json"])
    print(f"--json off a terminal (no bar): {j_cpu:.1f} CPU-s, {j_wall:.1f} s wall "
          f"(the bar's cost: {cpu / j_cpu:.3f}x)")
    with tempfile.TemporaryDirectory(prefix="mathbg-bench-store-") as tmp:
        store = Path(tmp) / "store"
        stored = [*typed, "--store", str(store)]
        batches = -(-trials // 144)
        k_cpu, k_wall, kept = _killed_half_way(_on_a_terminal(stored), store, batches)
        again, r_cpu, r_wall = _timed(_on_a_terminal(stored))
        same = _table(again) == table
    print(f"--store, killed after {k_wall:.1f} s wall ({k_cpu:.1f} CPU-s) with {kept} of "
          f"{batches} batches kept; typed again, it resumed in {r_cpu:.1f} CPU-s, {r_wall:.1f} s "
          f"wall (killed + resumed: {k_cpu + r_cpu:.1f} CPU-s, {(k_cpu + r_cpu) / cpu:.2f}x the "
          f"uninterrupted run); the output is the uninterrupted run's: {same}")  # fmt: skip
    if gnubg is None:
        print("gnubg: not installed (no ratio)")
        return
    (gnd, _), gcpu = gnubg_lines(gnubg, trials, 0, True)
    theirs = gnd.stderr * math.sqrt(gcpu)
    print(f"gnubg, the same trials (two runs, one a line): {gcpu:.1f} CPU-s, no double SE "
          f"{100 * gnd.stderr:.3f} pp; SE x sqrt(CPU-s) {theirs:.4f}; ratio mathbg as typed / "
          f"gnubg {se * math.sqrt(cpu) / theirs:.2f} (goal <= 0.5)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=144, help="trials at 0 ply (default 144)")
    parser.add_argument("--trials-1ply", type=int, default=36, help="trials at 1 ply")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask comparison")
    parser.add_argument("--dask-trials", type=int, nargs="+", default=[144, 1296],
                        help="trials of the Dask comparison, each size in turn (default 144 "
                        "and 1296: a LocalCluster's start-up is a fixed cost, a user's run "
                        "the command's own 1,296 trials)")
    parser.add_argument("--blas", action="store_true",
                        help="only time one against two BLAS threads (0-ply rollout)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each program, turn about, the least CPU kept (default 1)")
    typed = parser.add_mutually_exclusive_group()
    typed.add_argument("--typed", action="store_true", help="only the command as typed (3.)")
    typed.add_argument("--dask", action="store_true", help="only the Dask comparison (2.)")
    typed.add_argument("--no-typed", action="store_true", help="skip the command as typed")
    parser.add_argument("--typed-trials", type=int, default=1296,
                        help="trials of the command as typed (default 1296, its own)")
    args = parser.parse_args()
    global DATA
    DATA = tempfile.mkdtemp(prefix="mathbg-bench-rollout-")
    try:
        run_all(args)
    finally:
        shutil.rmtree(DATA, ignore_errors=True)  # this benchmark's own directory


def run_all(args: argparse.Namespace) -> None:
    peer = gnubg_peer()
    gnubg = None if peer is None else peer.gnubg
    print(f"position {POSITION} at {AWAY[0]}-away/{AWAY[1]}-away, Kazaross-XG2; whole "
          "processes, one thread; gnubg 1.07 `rollout` (cubeful, quasi-random dice, no "
          "truncation) vs `mathbg rollout` (exact truncation, the default)")
    if args.blas:
        return blas_ratio(args.trials, args.repeat)
    if args.typed:
        return as_typed(args.typed_trials, gnubg)
    if args.dask:
        mathbg_run(36, 0, True)  # the first-ever run (solves the score's exact solutions)
        for trials in args.dask_trials:
            dask_ratio(trials)
        return None
    for vr in (True, False):
        efficiency(args.trials, 0, vr, gnubg, args.repeat)
    efficiency(args.trials_1ply, 1, True, gnubg, args.repeat)
    if not args.no_dask:
        for trials in args.dask_trials:
            dask_ratio(trials)
    if not args.no_typed:
        as_typed(args.typed_trials, gnubg)


if __name__ == "__main__":
    main()
