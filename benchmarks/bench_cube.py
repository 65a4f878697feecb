"""Benchmark: the full cube-point score matrix in mathbg vs gnubg's market windows.

Run: ``python benchmarks/bench_cube.py [--repeat N] [--n 25] [--no-gnubg]``.

mathbg: best time of ``score_matrix(kazaross-xg2, 25, cubes=1..64, gammons=(0.25, 0.2),
backgammons=(0.01, 0.01))``: every score 1..25-away x 1..25-away and 7 cube levels, dead
and live take, double, cash and too-good points and both sides' gammon values (issue 4
target: under 0.5 s).

gnubg 1.07: the same work, as gnubg offers it: for every score of a 25-point match and
cube 1..64, ``show marketwindow 0.25 0.2 0.01 0.01`` (dead and live windows of both
players) and ``show gammonvalues``, looped inside gnubg's embedded Python and timed there
(start-up excluded). gnubg formats text for each score, so the ratio measures the tools
as a user meets them rather than the bare arithmetic.
"""

from __future__ import annotations

import argparse
import json
import sys

from _common import best_time, gnubg_peer

import mathbg.met as metmod
from mathbg.cube.matrix import score_matrix

CUBES = (1, 2, 4, 8, 16, 32, 64)
GAMMONS, BACKGAMMONS = (0.25, 0.2), (0.01, 0.01)

GNUBG_SCRIPT = """
import gnubg, json, time
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new match %(n)d")
best = None
for rep in range(%(repeat)d):
    start = time.perf_counter()
    count = 0
    for s0 in range(%(n)d):
        for s1 in range(%(n)d):
            gnubg.command("set score %%d %%d" %% (s0, s1))
            for cube in %(cubes)r:
                gnubg.command("set cube value %%d" %% cube)
                gnubg.show("marketwindow 0.25 0.2 0.01 0.01")
                gnubg.show("gammonvalues")
                count += 1
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
print("JSON>>>" + json.dumps({"seconds": best, "count": count}))
"""


def gnubg_time(n: int, repeat: int) -> tuple[float, int] | None:
    peer = gnubg_peer()
    if peer is None:
        return None
    out = peer.run_python(GNUBG_SCRIPT % {"n": n, "repeat": repeat, "cubes": CUBES}, timeout=900)
    res = json.loads(out.split("JSON>>>", 1)[1])
    return res["seconds"], res["count"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--n", type=int, default=25, help="scores up to n-away (default 25)")
    parser.add_argument("--no-gnubg", action="store_true", help="skip gnubg")
    args = parser.parse_args()

    met = metmod.load("kazaross-xg2")

    def work():
        return score_matrix(met, args.n, cubes=CUBES, gammons=GAMMONS, backgammons=BACKGAMMONS)

    ours = best_time(work, args.repeat)
    df = work()
    print(
        f"mathbg score_matrix {args.n}x{args.n}x{len(CUBES)} (dead + live, {len(df)} rows): "
        f"{1e3 * ours:.1f} ms (target < 500 ms: {'ok' if ours < 0.5 else 'MISSED'})"
    )
    if args.no_gnubg:
        return 0
    theirs = gnubg_time(args.n, max(1, min(args.repeat, 2)))
    if theirs is None:
        print("gnubg not found: no comparison")
        return 0
    seconds, count = theirs
    print(
        f"gnubg 1.07 show marketwindow + gammonvalues for the same {count} score/cube "
        f"pairs: {seconds:.2f} s"
    )
    print(f"ratio gnubg / mathbg: {seconds / ours:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
