"""Benchmark: exact match play in bearoffs (``mathbg.bearoff.exact.match``).

gnubg has no equivalent (its two-sided database is exact for money only; at a match score
it converts money equities with a cube life), so the reference is the closest work gnubg
does: ``makebearoff -t 6x6``, the money cubeful two-sided 6x6 database (same pairs, four
values instead of every cube state of a score). The ratio printed is mathbg's time for
one score, every cube state, all 853,776 pairs, divided by makebearoff's 6x6 build.

Measured (goals from the issue):

- one score, every cube state, all 6x6 pairs, for a few scores (goal < 10 s each);
- the exact MET of a race game (every game from 6 checkers on the 6-point each, coin for
  the first roller) to 11 points (goal < 2 min);
- the money limit (endless affine MET, 12 cube levels) against mathbg's own money
  two-sided build.

Each measurement runs after a warm-up that compiles (or loads from numba's cache) the
kernels. The load average is printed: the machine is shared, and a busy second core
slows everything.

Usage::

    python benchmarks/bench_bearoff_match.py            # everything (~1-2 min)
    python benchmarks/bench_bearoff_match.py --no-gnubg # without makebearoff
    python benchmarks/bench_bearoff_match.py --length 7 # a shorter race MET
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import timed

SCORES = [(3, 3), (2, 4), (5, 7), (11, 11), (2, 11), (1, 5)]


def makebearoff_6x6() -> float | None:
    exe = shutil.which("makebearoff") or "/usr/games/makebearoff"
    if not Path(exe).exists():
        return None
    with tempfile.TemporaryDirectory(prefix="bench-match-") as tmp:
        cmd = [exe, "-t", "6x6", "-f", str(Path(tmp) / "ts.bd")]
        env = dict(os.environ, HOME=tmp)
        return timed(subprocess.run, cmd, check=True, capture_output=True, env=env)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-gnubg", action="store_true", help="skip makebearoff")
    parser.add_argument("--length", type=int, default=11, help="race MET length (default 11)")
    args = parser.parse_args(argv)

    import numba

    from mathbg.bearoff.exact import match as M
    from mathbg.bearoff.generate.twosided import build_arrays
    from mathbg.met import as_met

    print(
        f"load average at start: {os.getloadavg()}; cpus: {os.cpu_count()}; "
        f"numba threads {numba.get_num_threads()}"
    )
    t0 = time.perf_counter()
    M.solve_score((3, 3), checkers=2)
    M.race_met([1], length=3, progress=False)
    build_arrays(6, 2)
    print(f"warm-up (compile or load kernels, successor tables): {time.perf_counter() - t0:.1f} s")
    M.solve_score((2, 2), checkers=6)  # the 6x6 successor table
    M._MEMORY.clear()

    gnubg = None if args.no_gnubg else makebearoff_6x6()
    if gnubg is not None:
        print(f"gnubg makebearoff -t 6x6 (money, 4 values per pair): {gnubg:.2f} s")

    print("\none score, every cube state, all 853,776 pairs of 6x6 (goal < 10 s):")
    print(f"{'score':<14}{'states':>7}{'seconds':>9}{'vs makebearoff':>16}")
    worst = 0.0
    for a, b in SCORES:
        crawford = False
        seconds, sol = timed(M.solve_score, (a, b), crawford=crawford, points=6, checkers=6)
        worst = max(worst, seconds)
        states = M.build_states(a, b, sol.kind, M.met_mwc(as_met("kazaross-xg2"))).n
        ratio = f"{seconds / gnubg:16.3f}" if gnubg else f"{'-':>16}"
        print(f"{f'{a}a/{b}a':<14}{states:>7}{seconds:9.2f}{ratio}")
        M._MEMORY.clear()
        del sol

    money = timed(M.money_limit, 6, 6, levels=12)[0]
    ts = timed(build_arrays, 6, 6)[0]
    print(
        f"\nmoney limit (affine MET, 12 levels) {money:.2f} s; mathbg money two-sided 6x6 "
        f"{ts:.2f} s" + (f"; makebearoff {gnubg:.2f} s" if gnubg else "")
    )

    start = [0, 0, 0, 0, 0, 6]
    race = timed(M.race_met, start, length=args.length, progress=sys.stderr.isatty())[0]
    print(
        f"race-game MET to {args.length} points (6@6 vs 6@6, 6x6 space): {race:.1f} s "
        f"(goal < 120 s)"
    )
    print(f"\nslowest score {worst:.2f} s (goal 10 s); load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
