"""Benchmark: exact Hypergammon (``mathbg.hyper``) against gnubg's ``makehyper``.

gnubg's ``makehyper -c C`` solves C-checker Hypergammon money play (cubeless and cubeful
values of every position pair) by value iteration and stops when an iteration changed no
value by more than its threshold (default 1e-5, "norm of delta"). mathbg solves the same
game (``mathbg hyper``, :func:`mathbg.hyper.solve_money`) and then every match score.

What runs (every gnubg figure is a whole process, ``/usr/games/makehyper``, in a temporary
directory that is also its ``$HOME``; CPU seconds and peak memory from ``wait4``):

- 1 and 2 checkers: ``makehyper -c C`` to convergence against ``mathbg hyper START
  --checkers C`` as a user types it (whole process, progress bar on, default cache in a
  temporary ``MATHBG_DATA``) at makehyper's tolerance 1e-5 and at mathbg's default 1e-9,
  the first-ever run (empty numba cache) and the solve in-process; then the equality of
  every position's values with makehyper's database (mathbg with ``gnubg_dance``, the rule
  makehyper 1.07.001 applies when a roll cannot be played; see :mod:`mathbg.hyper.money`).
- 3 checkers: makehyper -c 3 costs about 365 CPU-s an iteration, so it runs only
  ``--iterations`` iterations (default 2) and is stopped; its full cost is *projected* by
  its own rule (iterate until the norm of delta is at most 1e-5) from the rate of the norms
  it printed (a lower bound: the first iterations contract fastest) and from the rate of
  mathbg's last sweeps (the same value iteration). Meanwhile (the other core) ``mathbg
  hyper`` solves 3 checkers in full at the same tolerance (``--tolerance``, default
  makehyper's 1e-5). The opening equity is compared with Tom Keith's published
  +0.0836795444708631. Then (unless ``--no-sample``) mathbg solves again with
  ``gnubg_dance``, writes the result as gnubg's ``hyper3.bd`` and lets makehyper run one
  iteration from it (``-r``): the norm of delta it prints is the largest change gnubg's
  own iteration makes to mathbg's values over all 10.7 M pairs, and its output is compared
  with mathbg's values on a sample of 10,000 pairs.
- The 3-checker 9-point MET: *projected*. Measured: the 2-checker MET to ``--length``
  (sweeps each game needs), one sweep of a few 3-checker games with different numbers of
  cube states (CPU a sweep and peak memory, each in its own process); projected: each of
  the 53 games of a 9-point table costs (its sweeps) x (a sweep's cost for its cube
  states), with its sweeps the 2-checker game's scaled by the ratio of the money solves'
  sweeps (3 over 2 checkers), games beyond the measured length taking the largest count
  measured.

The load average is printed: the machine is shared and a busy core slows everything.

Usage::

    python benchmarks/bench_hyper.py                 # everything (an hour or more: the
                                                     # 3-checker solves dominate)
    python benchmarks/bench_hyper.py --no-three      # 1 and 2 checkers only (about 3 min)
    python benchmarks/bench_hyper.py --iterations 3  # more makehyper -c 3 iterations
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KEITH = 0.0836795444708631  # Tom Keith, 3-checker Hypergammon opening equity
STARTS = {1: "AACAAAAAAgAAAA", 2: "AABAAQAACgAAAA", 3: "AACgAgAAKgAAAA"}
GNUBG_TOL = 1e-5
TIME = "/usr/bin/time"
MAKEHYPER = shutil.which("makehyper") or "/usr/games/makehyper"
NORM = re.compile(rb"norm of delta: (\S+)")


@dataclass
class Run:
    """One whole process: CPU seconds (user + system), wall seconds, peak RSS bytes."""

    cpu: float
    wall: float
    peak: int
    out: bytes = b""
    norms: list[float] = field(default_factory=list)


def run(cmd: list[str], env: dict[str, str], cwd: Path, stop_after: int | None = None) -> Run:
    """Run ``cmd`` under ``/usr/bin/time`` (its peak RSS is the command's own, not that of
    the Python process it was forked from); with ``stop_after`` kill the command once it
    printed that many norms of delta."""
    stats = Path(tempfile.mkstemp(prefix="bench-hyper-time-")[1])
    t0 = time.perf_counter()
    proc = subprocess.Popen([TIME, "-o", str(stats), "-f", "%U %S %M", *cmd], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    chunks: list[bytes] = []
    norms: list[float] = []

    def stop() -> None:  # the command is time's only child
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        for pid in children:
            os.kill(int(pid), signal.SIGKILL)

    def read() -> None:
        assert proc.stdout is not None
        tail = b""
        while block := proc.stdout.read1(65536):  # type: ignore[attr-defined]
            chunks.append(block)
            tail = (tail + block)[-4096:]
            found = [float(x) for x in NORM.findall(tail)]
            if found:
                norms.extend(found)
                tail = tail[tail.rfind(b"norm of delta") + 14:]
                if stop_after is not None and len(norms) >= stop_after:
                    stop()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code = proc.wait()
    reader.join()
    wall = time.perf_counter() - t0
    out = b"".join(chunks)
    if stop_after is None and code != 0:
        raise RuntimeError(f"{cmd[:3]} exited {code}: {out[-800:]!r}")
    user, system, peak_kb = stats.read_text().split()[-3:]
    stats.unlink()
    return Run(float(user) + float(system), wall, int(peak_kb) * 1024, out, norms)


def _gb(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def mathbg_cmd(checkers: int, *extra: str) -> list[str]:
    exe = shutil.which("mathbg", path=str(Path(sys.executable).parent)) or "mathbg"
    return [exe, "hyper", STARTS[checkers], "--checkers", str(checkers), *extra]


def makehyper_iterations_to(norms: list[float], tol: float) -> tuple[int, float]:
    """makehyper's own rule (iterate until the norm of delta <= tol), projected from the
    geometric rate of its last two norms: (total iterations, the rate)."""
    rate = norms[-1] / norms[-2]
    if norms[-1] <= tol:
        return len(norms), rate
    more = math.ceil(math.log(tol / norms[-1]) / math.log(rate))
    return len(norms) + more, rate


def small_sizes(tmp: Path, env: dict[str, str]) -> dict[int, Run]:
    """1 and 2 checkers: makehyper to convergence, mathbg whole process and in-process, and
    the equality of every position's values."""
    from mathbg.hyper import _layout as k
    from mathbg.hyper.gnubg_hyper import read_gnubg_hyper
    from mathbg.hyper.money import solve_money
    from mathbg.hyper.space import space

    gnubg_runs = {}
    for c in (1, 2):
        home = tmp / f"mh{c}"
        home.mkdir()
        g = run([MAKEHYPER, "-c", str(c), "-n", "-f", str(home / f"hyper{c}.bd")],
                dict(env, HOME=str(home)), home)  # fmt: skip
        gnubg_runs[c] = g
        data = tmp / f"data{c}"
        m5 = run(mathbg_cmd(c, "--tolerance", "1e-5"), dict(env, MATHBG_DATA=str(data)), tmp)
        m9 = run(mathbg_cmd(c), dict(env, MATHBG_DATA=str(data / "default")), tmp)
        cold_env = dict(env, MATHBG_DATA=str(data / "cold"), NUMBA_CACHE_DIR=str(tmp / f"nb{c}"))
        cold = run(mathbg_cmd(c), cold_env, tmp) if c == 2 else None
        t = time.process_time()
        sol = solve_money(c, store=False, tolerance=GNUBG_TOL)
        inproc = time.process_time() - t
        print(f"\n{c} checker{'s' * (c > 1)} ({space(c).n ** 2:,} pairs), money:")
        print(f"  gnubg makehyper -c {c} (whole process, threshold 1e-5): {g.cpu:.2f} CPU-s, "
              f"{len(g.norms)} iterations, peak {_gb(g.peak)}")
        print(f"  mathbg hyper --checkers {c} --tolerance 1e-5 (whole process, warm): "
              f"{m5.cpu:.2f} CPU-s, peak {_gb(m5.peak)}; ratio gnubg/mathbg {g.cpu / m5.cpu:.1f}x")
        print(f"  mathbg hyper --checkers {c} (default tolerance 1e-9, whole process, warm): "
              f"{m9.cpu:.2f} CPU-s, peak {_gb(m9.peak)}; ratio {g.cpu / m9.cpu:.1f}x")
        if cold is not None:
            print(f"  the same, first-ever (empty numba cache): {cold.cpu:.1f} CPU-s, "
                  f"{cold.wall:.1f} s wall")
        print(f"  solve_money({c}, tolerance=1e-5) in-process: {inproc:.3f} CPU-s, "
              f"{len(sol.residuals)} sweeps, residual {sol.residual:.2g}")
        # equality with makehyper's database, every legal pair
        theirs = read_gnubg_hyper(home / f"hyper{c}.bd")
        quirk = solve_money(c, store=False, gnubg_dance=True)
        legal = space(c).legal
        v = np.transpose(quirk.values, (1, 0, 2))[legal]
        cols = [k.OWNED, k.CENTRE, k.JACOBY, k.OPPONENT]
        eq_gap = np.abs(v[:, cols] - theirs.equities[legal]).max()
        cl_gap = np.abs(v[:, 0] - theirs.cubeless[legal]).max()
        pr_gap = np.abs(v[:, 5:] - theirs.probabilities[legal]).max(axis=1)
        print(f"  equality with makehyper's hyper{c}.bd over all {int(legal.sum()):,} legal "
              f"pairs (mathbg with gnubg_dance, 1e-9): cubeful max |diff| {eq_gap:.2g}, "
              f"cubeless {cl_gap:.2g}, probabilities within 1e-4 in "
              f"{100 * np.mean(pr_gap < 1e-4):.2f} % of pairs (ties between plays of equal "
              f"cubeless equity split them differently)")
        correct = solve_money(c, store=False)
        gap = np.abs(np.transpose(correct.values, (1, 0, 2))[legal][:, cols]
                     - theirs.equities[legal]).max()  # fmt: skip
        print(f"  with the correct dance rule (mathbg's default): cubeful max |diff| {gap:.2g}")
    return gnubg_runs


def _tail_rate(residuals: list[float]) -> float:
    """The median ratio of mathbg's last six residuals (the value iteration's own rate)."""
    tail = residuals[-7:]
    return float(np.median([b / a for a, b in itertools.pairwise(tail) if a > 0]))


def three_money(tmp: Path, env: dict[str, str], args: argparse.Namespace,
                c2: Run | None) -> int:
    """3 checkers: makehyper's first iterations (projected) beside mathbg's full solve."""
    from mathbg.hyper.gnubg_hyper import read_gnubg_hyper, write_gnubg_hyper
    from mathbg.hyper.money import solve_money
    from mathbg.hyper.space import space

    tol = args.tolerance
    home = tmp / "mh3"
    home.mkdir()
    result: dict[str, Run] = {}
    gnubg = threading.Thread(target=lambda: result.update(fresh=run(
        [MAKEHYPER, "-c", "3", "-n", "-f", str(home / "fresh.bd")], dict(env, HOME=str(home)),
        home, stop_after=args.iterations)))  # fmt: skip
    gnubg.start()
    data = tmp / "data3"
    ours = run(mathbg_cmd(3, "--tolerance", f"{tol:g}"), dict(env, MATHBG_DATA=str(data)), tmp)
    os.environ["MATHBG_DATA"] = str(data)
    sol = solve_money(3, tolerance=tol)  # the solve above, from the store
    res = list(sol.residuals)
    print(f"\n3 checkers ({space(3).n ** 2:,} pairs), money:")
    print(f"  mathbg hyper {STARTS[3]} --tolerance {tol:g} (whole process, warm): "
          f"{ours.cpu:.0f} CPU-s ({ours.wall:.0f} s wall), {len(res)} sweeps "
          f"({ours.cpu / len(res):.0f} CPU-s a sweep), residual {sol.residual:.2g}, "
          f"peak {_gb(ours.peak)}")
    o = sol.opening()
    print(f"  opening (the opening roll's winner): cubeless {o.cubeless:+.10f} (Keith "
          f"{KEITH:+.10f}, diff {o.cubeless - KEITH:+.1e}, residual {sol.residual:.1e}); "
          f"cubeful centred {o.centre:+.7f}, Jacoby {o.centre_jacoby:+.7f}")
    quirk = None
    if args.sample:  # makehyper 1.07.001's dance rule, for gnubg's own iteration below
        t = time.process_time()
        quirk = solve_money(3, store=False, gnubg_dance=True, tolerance=tol)
        print(f"  solve_money(3, gnubg_dance=True, tolerance={tol:g}) in-process: "
              f"{time.process_time() - t:.0f} CPU-s, {len(quirk.residuals)} sweeps")
    gnubg.join()
    fresh = result["fresh"]
    per_it = fresh.cpu / len(fresh.norms)
    low, rate = makehyper_iterations_to(fresh.norms, GNUBG_TOL)
    ours_rate = _tail_rate(res)
    at_ours = len(fresh.norms) + math.ceil(math.log(GNUBG_TOL / fresh.norms[-1])
                                           / math.log(ours_rate))  # fmt: skip
    print(f"  gnubg makehyper -c 3 (whole process), MEASURED {len(fresh.norms)} iterations "
          f"(norms of delta {fresh.norms}): {fresh.cpu:.0f} CPU-s, {per_it:.0f} CPU-s an "
          f"iteration, peak {_gb(fresh.peak)}; stopped")
    print(f"  PROJECTED by its own rule (iterate until the norm <= 1e-5): at the rate of its "
          f"last two norms ({rate:.3f}) {low} iterations, {per_it * low:.0f} CPU-s (a lower "
          f"bound: the first iterations contract fastest); at the rate of mathbg's last "
          f"sweeps ({ours_rate:.3f}) {at_ours} iterations, {per_it * at_ours:.0f} CPU-s"
          + (f" (makehyper -c 2 took {len(c2.norms)})" if c2 is not None else ""))
    print(f"  ratio projected gnubg / mathbg at tolerance {tol:g}: {per_it * low / ours.cpu:.1f}x "
          f"(lower bound) to {per_it * at_ours / ours.cpu:.1f}x (goal >= 2x)")
    if quirk is None:
        return len(res)
    start = write_gnubg_hyper(quirk, home / "ours.bd")
    again = run([MAKEHYPER, "-c", "3", "-n", "-t", "1", "-r", str(start), "-f",
                 str(home / "again.bd")], dict(env, HOME=str(home)), home)  # fmt: skip
    print(f"  makehyper -c 3 -r (mathbg's table) -t 1: one iteration, {again.cpu:.0f} CPU-s; "
          f"norm of delta over every pair {again.norms} (its threshold 1e-5)")
    theirs = read_gnubg_hyper(home / "again.bd")
    legal = np.argwhere(space(3).legal)
    rng = np.random.default_rng(35)
    pick = legal[rng.choice(len(legal), 10_000, replace=False)]
    i, j = pick[:, 0], pick[:, 1]
    v = quirk.values[j, i]
    eq_gap = np.abs(v[:, [1, 2, 3, 4]] - theirs.equities[i, j]).max()
    cl_gap = np.abs(v[:, 0] - theirs.cubeless[i, j]).max()
    print(f"  10,000 random legal pairs (seed 35), gnubg's values after that iteration vs "
          f"mathbg's: cubeful max |diff| {eq_gap:.2g}, cubeless {cl_gap:.2g}")
    return len(res)


def _one_sweep(c: int, a: int, b: int, kind: str) -> str:
    return (
        "import time, warnings\n"
        "from mathbg.hyper.space import space\n"
        "from mathbg.hyper.match import solve_game\n"
        f"space({c}).tables\n"
        "warnings.simplefilter('ignore')\n"
        "t = time.process_time()\n"
        f"solve_game({c}, ({a}, {b}), {kind!r}, lambda x, y, k: 0.5 + 0.04 * (y - x), "
        "store=False, max_sweeps=1)\n"
        "print('SWEEP', time.process_time() - t)\n"
    )


def met_projection(tmp: Path, env: dict[str, str], length: int, games3: list[tuple],
                   money3_sweeps: int | None, tol: float) -> None:
    """The 3-checker 9-point MET, projected from measured per-score costs."""
    from mathbg.hyper.match import game_list, hyper_met, reachable_states
    from mathbg.hyper.money import solve_money

    t = time.process_time()
    met2 = hyper_met(2, length, store=False)
    cpu2 = time.process_time() - t
    g2 = met2.frames["games"]
    sweeps2 = {(a, b, str(kind)): int(s) for (a, b), kind, s in
               zip(g2["away"], g2["game"], g2["sweeps"], strict=True)}  # fmt: skip
    # the money solves' sweeps at the same tolerance: their ratio scales the games' sweeps
    m2 = len(solve_money(2, store=False, tolerance=tol).residuals)
    m3 = money3_sweeps  # None with --met-only and no count: the projection per unit ratio
    print("\nthe 3-checker 9-point MET (tolerance 1e-9):")
    print(f"  MEASURED: the 2-checker MET to {length} points, {len(g2)} games, {cpu2:.0f} CPU-s "
          f"in-process; sweeps a game {min(sweeps2.values())}..{max(sweeps2.values())}; "
          f"money sweeps at {tol:g}: 2 checkers {m2}, 3 checkers {m3}")
    costs = []
    for a, b, kind in games3:
        r = run([sys.executable, "-c", _one_sweep(3, a, b, kind)], env, tmp)
        cpu = float(re.findall(rb"SWEEP (\S+)", r.out)[-1])
        s = len(reachable_states(a, b, kind))
        costs.append((s, cpu))
        print(f"  MEASURED: one sweep of the 3-checker game {a}-away/{b}-away ({kind}, {s} "
              f"cube states): {cpu:.0f} CPU-s, peak {_gb(r.peak)} (own process)")
    S = np.array([s for s, _ in costs], float)
    C = np.array([c for _, c in costs])
    beta, alpha = np.polyfit(S, C, 1) if len(costs) > 1 else (C[0] / S[0], 0.0)
    scale = m3 / m2 if m3 is not None else 1.0
    biggest = max(sweeps2.values())
    total, wall2, peak_states = 0.0, 0.0, 0
    diagonals: dict[int, list[float]] = {}
    for a, b, kind in game_list(9):
        s = len(reachable_states(a, b, kind))
        peak_states = max(peak_states, s)
        sweeps = scale * sweeps2.get((a, b, str(kind)), biggest)
        cost = sweeps * (alpha + beta * s)
        total += cost
        diagonals.setdefault(a + b, []).append(cost)
    for costs_d in diagonals.values():  # the games of an anti-diagonal run in parallel
        wall2 += max(max(costs_d), sum(costs_d) / 2)
    n = 3276
    print(f"  a sweep costs {alpha:.1f} + {beta:.2f} x (cube states) CPU-s (fitted)")
    if m3 is None:
        print(f"  PROJECTED per unit of r = (3-checker money sweeps) / ({m2}, the 2-checker "
              f"money sweeps): {total / 3600:.2f} x r CPU-h, on 2 cores about "
              f"{wall2 / 3600:.2f} x r h (a full run prints r)")
    else:
        print(f"  PROJECTED: sweeps a game = the 2-checker game's x {scale:.2f} (beyond "
              f"{length}-away: {biggest} x {scale:.2f}); 53 games: {total / 3600:.1f} CPU-h, "
              f"on 2 cores about {wall2 / 3600:.1f} h (goal < 24 h)")
    print(f"  PROJECTED memory of the largest game ({peak_states} cube states): the table "
          f"16 n^2 S = {_gb(16 * n * n * peak_states)}, with the extrapolation's copy "
          f"{_gb(32 * n * n * peak_states)} (goal within 8 GiB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-three", action="store_true", help="1 and 2 checkers only")
    parser.add_argument("--iterations", type=int, default=2,
                        help="makehyper -c 3 iterations to measure (default 2)")
    parser.add_argument("--tolerance", type=float, default=GNUBG_TOL,
                        help="the 3-checker money solves' tolerance (default makehyper's 1e-5)")
    parser.add_argument("--no-sample", dest="sample", action="store_false",
                        help="skip the 3-checker check against makehyper (a second solve "
                        "and one makehyper iteration)")
    parser.add_argument("--met-only", action="store_true",
                        help="only the 9-point MET projection")
    parser.add_argument("--money-sweeps", type=int, default=None,
                        help="with --met-only: the 3-checker money solve's sweeps at --tolerance "
                        "(as a full run prints them)")
    parser.add_argument("--length", type=int, default=3,
                        help="the 2-checker MET measured for the projection (default 3)")
    args = parser.parse_args(argv)
    if not Path(MAKEHYPER).exists():
        print("makehyper not found (apt-get install gnubg)")
        return 1
    import numba

    from mathbg.hyper.money import solve_money

    print(f"load average at start: {os.getloadavg()}; cpus: {os.cpu_count()}; "
          f"numba threads {numba.get_num_threads()}")
    t0 = time.perf_counter()
    solve_money(1, store=False)
    print(f"warm-up (compile or load kernels): {time.perf_counter() - t0:.1f} s")
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="bench-hyper-") as name:
        tmp = Path(name)
        # mathbg's runs keep the user's numba cache (warm); makehyper's get a temporary HOME
        env = {k: v for k, v in os.environ.items() if k not in ("MATHBG_DATA", "NUMBA_CACHE_DIR")}
        games3 = [(1, 1, "post-crawford"), (3, 3, "normal"), (9, 9, "normal")]
        if args.met_only:
            met_projection(tmp, env, args.length, games3, args.money_sweeps, args.tolerance)
            return 0
        runs = small_sizes(tmp, env)
        if not args.no_three:
            m3 = three_money(tmp, env, args, runs.get(2))
            met_projection(tmp, env, args.length, games3, m3, args.tolerance)
    print(f"\nload average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
