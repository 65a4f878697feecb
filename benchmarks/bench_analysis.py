"""Benchmark: a position's score matrix (mathbg.analysis) against gnubg doing the same.

Run: ``python benchmarks/bench_analysis.py [--positions 1000] [--peer-positions 20]
[--repeat 5] [--no-gnubg]``.

1. One position, 7-point match, every score, cubes 1 and 2 (and money), from given
   probabilities: best warm time in-process (issue 15 goal: under 50 ms), the whole
   ``mathbg analyze ... --json`` process (warm, and first-ever with an empty
   ``NUMBA_CACHE_DIR``), and gnubg 1.07 making the same cubeful decisions itself
   (``cfevaluate`` at 0-ply for every row, timed inside gnubg's embedded Python).
2. ``--positions`` contact positions from random games through ``gnubg-nn`` 0-ply and
   their 7-point matrices (cubes 1 and 2): evaluation and matrices timed apart (goal:
   under 30 s for 1,000).
3. The same positions through the gnubg program in one batch (one subprocess for the
   evaluations; goal: under 60 s), and gnubg making every row's cubeful decision itself
   (``cfevaluate``) on ``--peer-positions`` of them, extrapolated per position (gnubg
   1.07 spends about 10 ms per ``cfevaluate``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import best_of

from mathbg.analysis import analyze, analyze_many
from mathbg.analysis.evaluation import GivenEvaluator, gnubg_nn_installed
from mathbg.analysis.gnubg_program import Situation, find_gnubg, run_gnubg
from mathbg.analysis.matrix import matrix_states
from mathbg.analysis.sample import random_positions

ROOT = Path(__file__).resolve().parent.parent
POSITION = "4HPwATDgc/ABMA"
PROBS = (0.70, 0.20, 0.01, 0.05, 0.002)
LENGTH, MAX_CUBE = 7, 2

PEER_SCRIPT = r"""
import gnubg, json, time
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
job = json.load(open(%(job)r))
ec = gnubg.evalcontext(1, 0, 1, 0, 0.0)
start = time.perf_counter()
n = 0
for board in job["boards"]:
    board = (list(board[0]), list(board[1]))
    for s in job["situations"]:
        ci = gnubg.cubeinfo(s[3], s[4], 0, s[0], (s[1], s[2]), s[5], 0)
        gnubg.cfevaluate(board, ci, ec)
        n += 1
print("JSON>>>" + json.dumps({"seconds": time.perf_counter() - start, "calls": n}))
"""


def _situations() -> list[Situation]:
    return [Situation.at(LENGTH, s.away, crawford=s.crawford, cube=s.cube, owner=s.owner)
            for s in matrix_states(LENGTH, MAX_CUBE)]  # fmt: skip


def gnubg_cfevaluate_seconds(boards: list, situations: list[Situation]) -> tuple[float, int]:
    """gnubg's own time for ``cfevaluate`` at every situation of every board."""
    exe = find_gnubg()
    assert exe is not None
    code = {"centre": -1, "player": 0, "opponent": 1}
    sits = [[s.length, s.score[0], s.score[1], s.cube, code[s.owner], int(s.crawford)]
            for s in situations]  # fmt: skip
    with tempfile.TemporaryDirectory() as home:
        job = Path(home) / "job.json"
        job.write_text(json.dumps({"boards": [[[int(v) for v in r] for r in b] for b in boards],
                                   "situations": sits}))  # fmt: skip
        script = Path(home) / "peer.py"
        script.write_text(PEER_SCRIPT % {"job": str(job)})
        out = subprocess.run([str(exe), "-t", "-q", "-r", "-p", str(script)], cwd=home,
                             env=dict(os.environ, HOME=home), capture_output=True, text=True,
                             check=True, stdin=subprocess.DEVNULL).stdout  # fmt: skip
    data = json.loads(out.split("JSON>>>", 1)[1])
    return float(data["seconds"]), int(data["calls"])


def whole_process(cold: bool) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as cache:
        if cold:
            env["NUMBA_CACHE_DIR"] = cache
        argv = [
            sys.executable,
            "-m",
            "mathbg",
            "analyze",
            POSITION,
            "--length",
            str(LENGTH),
            "--max-cube",
            str(MAX_CUBE),
            "--probs",
            ",".join(map(str, PROBS)),
            "--json",
        ]
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--peer-positions", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-gnubg", action="store_true")
    args = ap.parse_args()
    gnubg = find_gnubg() is not None and not args.no_gnubg
    rows = len(matrix_states(LENGTH, MAX_CUBE))

    print(f"1. one position, {LENGTH}-point matrix, cubes 1-{MAX_CUBE} ({rows} rows + money)")
    one, _ = best_of(lambda: analyze(POSITION, length=LENGTH, probabilities=PROBS,
                                     max_cube=MAX_CUBE), args.repeat, warmup=True)  # fmt: skip
    print(f"   mathbg in-process, warm      {1000 * one:9.1f} ms   (goal < 50 ms)")
    print(f"   mathbg whole process, warm   {1000 * whole_process(False):9.1f} ms")
    print(f"   mathbg whole process, cold   {1000 * whole_process(True):9.1f} ms "
          "(empty NUMBA_CACHE_DIR)")  # fmt: skip
    if gnubg:
        from mathbg.rules.position import Position

        secs, calls = gnubg_cfevaluate_seconds([Position.from_id(POSITION).board],
                                               _situations())  # fmt: skip
        print(
            f"   gnubg cfevaluate x {calls}      {1000 * secs:9.1f} ms   "
            f"ratio gnubg/mathbg {secs / one:.2f}"
        )

    n = args.positions
    positions = random_positions(n, seed=2026, kind="contact")
    print(f"2. {n} contact positions, {LENGTH}-point matrices")
    if gnubg_nn_installed():
        from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

        nn = GnubgNNEvaluator(0)
        t0 = time.perf_counter()
        evs = nn.evaluate_many(positions)
        t1 = time.perf_counter()
        analyze_many(positions, length=LENGTH, evaluations=evs, max_cube=MAX_CUBE, exact=False)
        t2 = time.perf_counter()
        print(f"   gnubg-nn 0-ply evaluation    {t1 - t0:9.2f} s")
        print(f"   matrices (vectorised)        {t2 - t1:9.2f} s")
        print(f"   total                        {t2 - t0:9.2f} s   (goal < 30 s)")
    else:
        print("   gnubg-nn not installed: pip install 'mathbg[engine]'")
    if gnubg:
        t0 = time.perf_counter()
        raw = run_gnubg([p.board for p in positions])
        t1 = time.perf_counter()
        evs = [GivenEvaluator(r["probs"]).evaluate(p) for p, r in zip(positions, raw, strict=True)]
        analyze_many(positions, length=LENGTH, evaluations=evs, max_cube=MAX_CUBE, exact=False)
        t2 = time.perf_counter()
        total = t2 - t0
        print(f"3. gnubg program, one batch     {t1 - t0:9.2f} s evaluation (whole subprocess)")
        print(f"   + matrices                   {t2 - t1:9.2f} s")
        print(f"   total                        {total:9.2f} s   (goal < 60 s)")
        k = min(args.peer_positions, n)
        secs, calls = gnubg_cfevaluate_seconds([p.board for p in positions[:k]], _situations())
        per = secs / k
        print(f"   gnubg cfevaluate itself      {secs:9.2f} s for {k} positions ({calls} calls)")
        print(
            f"   extrapolated to {n}          {per * n:9.1f} s   ratio gnubg/mathbg "
            f"{per * n / total:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
