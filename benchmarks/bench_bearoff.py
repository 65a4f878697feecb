"""Benchmark: mathbg's bearoff generators against gnubg's ``makebearoff`` on the same work.

Builds, in one run, with both programs:

- one-sided 6 points x 15 checkers and 8 x 15 (``makebearoff -o P``; mathbg
  ``OneSided.build`` with gnubg's policy: float64 distributions plus gnubg's own
  fixed-point table, written to disk with a checksum);
- two-sided 6x6 and 6x8 cubeful (``makebearoff -t 6xC``; mathbg ``TwoSided.build``,
  float64, written to disk with a checksum);

and prints each time and the ratio mathbg / makebearoff (goals: one-sided <= 0.25,
two-sided <= 0.10). ``--big`` adds the two-sided 6x10 (64 million pairs; mathbg only,
goal: under 15 minutes within 8 GiB). Each build runs in its own process, ``--repeat``
times (default 3; the fastest run counts, for both programs; gnubg runs longer than a
minute are not repeated); mathbg's
numba kernels are compiled (or loaded from numba's cache) by a small warm-up build first,
and that time is reported separately. The load average is printed before and after:
the machine is shared.

Usage::

    python benchmarks/bench_bearoff.py            # the four comparisons (gnubg 6x8 ~ 8 min)
    python benchmarks/bench_bearoff.py --big      # plus mathbg two-sided 6x10
    python benchmarks/bench_bearoff.py --only os6 ts6  # a subset
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = {
    # name: (kind, points, checkers, makebearoff args)
    "os6": ("one-sided", 6, 15, ["-o", "6"]),
    "os8": ("one-sided", 8, 15, ["-o", "8"]),
    "ts6": ("two-sided", 6, 6, ["-t", "6x6"]),
    "ts8": ("two-sided", 6, 8, ["-t", "6x8"]),
    "ts10": ("two-sided", 6, 10, None),
}
GOALS = {"one-sided": 0.25, "two-sided": 0.10}


def worker(kind: str, points: int, checkers: int, out: str) -> None:
    """Run one mathbg build in this process and print a JSON line with the timings."""
    t0 = time.perf_counter()
    from mathbg.bearoff import OneSided, TwoSided
    from mathbg.bearoff.generate import blockbuild, onesided

    cls = OneSided if kind == "one-sided" else TwoSided
    # warm-up: compile (or load from numba's cache) every kernel the build uses, the
    # parallel variants too (a tiny build runs them when the thresholds are zero)
    saved = onesided._PARALLEL_LAYER, blockbuild._SERIAL_BUILD, blockbuild._PARALLEL_WORK
    onesided._PARALLEL_LAYER, blockbuild._SERIAL_BUILD, blockbuild._PARALLEL_WORK = 0, 0.0, 0.0
    for size in ((3, 3), (3, 15)) if kind == "one-sided" else ((3, 3),):
        cls.build(*size, path=Path(out) / "warmup", progress=False, rebuild=True)
    onesided._PARALLEL_LAYER, blockbuild._SERIAL_BUILD, blockbuild._PARALLEL_WORK = saved
    warm = time.perf_counter() - t0
    t1 = time.perf_counter()
    db = cls.build(points, checkers, path=Path(out) / "db", progress=False, rebuild=True)
    seconds = time.perf_counter() - t1
    size = sum(p.stat().st_size for p in Path(db.path).iterdir())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "warmup": warm, "peak_bytes": peak, "size": size}))


def run_mathbg(kind: str, points: int, checkers: int, tmp: Path) -> dict:
    cmd = [sys.executable, __file__, "--worker", kind, str(points), str(checkers), str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_makebearoff(args: list[str], tmp: Path) -> dict:
    exe = shutil.which("makebearoff") or "/usr/games/makebearoff"
    out = tmp / "gnubg.bd"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [exe, *args, "-f", str(out)],
        check=True,
        capture_output=True,
        env=dict(os.environ, HOME=str(tmp)),
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": seconds, "cpu": cpu, "size": out.stat().st_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", action="store_true", help="also build two-sided 6x10 (mathbg)")
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), help="run these cases only")
    parser.add_argument("--no-gnubg", action="store_true", help="mathbg timings only")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per case, the fastest counts (gnubg runs over a minute are not repeated)",
    )
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        kind, points, checkers, out = args.worker
        worker(kind, int(points), int(checkers), out)
        return 0
    names = args.only or ["os6", "os8", "ts6", "ts8"] + (["ts10"] if args.big else [])
    print(f"load average at start: {os.getloadavg()}; cpus: {os.cpu_count()}")
    header = f"{'database':<22}{'mathbg s':>10}{'gnubg s':>10}{'ratio':>8}{'goal':>7}"
    rows = []
    for name in names:
        kind, points, checkers, mb_args = CASES[name]
        with tempfile.TemporaryDirectory(prefix="bench-bearoff-") as tmp:
            runs = [run_mathbg(kind, points, checkers, Path(tmp)) for _ in range(args.repeat)]
            ours = min(runs, key=lambda r: r["seconds"])
            theirs = None
            if mb_args is not None and not args.no_gnubg:
                runs = [run_makebearoff(mb_args, Path(tmp))]
                while len(runs) < args.repeat and runs[0]["seconds"] < 60:
                    runs.append(run_makebearoff(mb_args, Path(tmp)))
                theirs = min(runs, key=lambda r: r["seconds"])
        label = f"{kind} {points}x{checkers}"
        ratio = ours["seconds"] / theirs["seconds"] if theirs else None
        rows.append((label, ours, theirs, ratio, GOALS[kind]))
        print(
            f"{label}: mathbg {ours['seconds']:.2f} s (warm-up/compile {ours['warmup']:.1f} s, "
            f"peak RSS {ours['peak_bytes'] / 2**30:.2f} GiB, {ours['size'] / 2**20:.1f} MiB)"
            + (
                f"; makebearoff {theirs['seconds']:.2f} s (cpu {theirs['cpu']:.2f} s); "
                f"ratio {ratio:.3f}"
                if theirs
                else ""
            ),
            flush=True,
        )
    print()
    print(header)
    for label, ours, theirs, ratio, goal in rows:
        gnubg_s = f"{theirs['seconds']:10.2f}" if theirs else f"{'-':>10}"
        ratio_s = f"{ratio:8.3f}" if ratio is not None else f"{'-':>8}"
        print(f"{label:<22}{ours['seconds']:10.2f}{gnubg_s}{ratio_s}{goal:7.2f}")
    print(f"\nload average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
