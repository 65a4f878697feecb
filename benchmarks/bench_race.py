"""Benchmark: race counts and winning chances for 10,000 positions inside the databases.

mathbg: every count of :mod:`mathbg.race.counts` for both sides (pip, Keith raw and
adjusted, Thorp raw and adjusted, Isight and its GWC, Kleinman's K and chance, the
8-9-12 lead, Trice's adjusted counts and point of last take) with each count's cube
advice, plus the winning and gammon chances and both EPCs from the databases
(:func:`mathbg.race.evaluate.race_chances_batch`: two-sided 6x6 where both sides fit,
else the one-sided 6x15 distributions), for 10,000 random races with every checker on
points 1..6 (:func:`mathbg.race.sample.random_races`, seed 1). Goal: under 2 s.

gnubg, comparable work: its 0-ply evaluation (which reads the same databases) of the
first 1,000 of these positions in its embedded Python (``gnubg.evaluate``, about 10 ms a
call: each call runs in a worker thread), timed inside gnubg (start-up excluded) and
scaled to the same number of positions; and its counts, ``show pipcount | keith | thorp |
kleinman | 8912 | isight`` on all the positions from one command file (best wall time of
two runs minus gnubg's best start-up time of three). The ratios printed are mathbg
(counts + advice + chances) over each.

The databases are built (or loaded from the cache) and numba compiled before timing; the
best of three runs is reported. Usage::

    python benchmarks/bench_race.py [--n 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from _common import best_of, gnubg_peer, timed

GOAL_SECONDS = 2.0

GNUBG_SCRIPT = """
import gnubg, json, time
ids = json.load(open({path!r}))
ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
ec = gnubg.evalcontext(0, 0, 1, 0, 0.0)
boards = [gnubg.positionfromid(i) for i in ids]
t = time.perf_counter()
out = [gnubg.evaluate(b, ci, ec) for b in boards]
print("RESULT" + json.dumps({{"seconds": time.perf_counter() - t, "p0": out[0][0]}}))
"""


def all_counts(player: np.ndarray, opponent: np.ndarray) -> dict[str, object]:
    """Every count and its advice, vectorised over the positions."""
    from mathbg.race import counts as rc

    pp, po = rc.pip_count(player), rc.pip_count(opponent)
    kp, ko = rc.keith_count(player), rc.keith_count(opponent)
    tp, to = rc.thorp_count(player), rc.thorp_count(opponent)
    ip, io = rc.isight_counts(player, opponent)
    trice = rc.trice_adjusted_counts(player, opponent)
    return {
        "pips": (pp, po),
        "keith": (kp, ko, rc.keith_adjusted(kp)),
        "thorp": (tp, to, rc.thorp_adjusted(tp)),
        "isight": (ip, io, rc.isight_win_probability(ip, io)),
        "kleinman": (rc.kleinman_metric(pp, po), rc.kleinman_win_probability(pp, po)),
        "lead_8912": rc.lead_8912(pp, po),
        "trice": (*trice, rc.trice_point_of_last_take(trice[0])),
        "advice": [
            rc.keith_advice(player, opponent).verdict,
            rc.thorp_advice(player, opponent).verdict,
            rc.kleinman_advice(pp, po).verdict,
            rc.lead_8912_advice(pp, po).verdict,
            rc.trice_advice(player, opponent).verdict,
            rc.isight_advice(player, opponent).verdict,
        ],
    }


def run_mathbg(player: np.ndarray, opponent: np.ndarray) -> tuple[float, dict]:
    from mathbg.race.evaluate import race_chances_batch

    def work() -> dict:
        return {
            "counts": all_counts(player, opponent),
            "chances": race_chances_batch(player, opponent),
        }

    return best_of(work, 3)


def run_gnubg(ids: list[str]) -> float | None:
    import tempfile

    peer = gnubg_peer()
    if peer is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ids.json")
        with open(path, "w") as fh:
            json.dump(ids, fh)
        out = peer.run_python(GNUBG_SCRIPT.format(path=path))
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    return float(json.loads(line[6:])["seconds"])


def run_gnubg_counts(ids: list[str]) -> float | None:
    """Wall time of gnubg's six count commands on ``ids``, minus its start-up time."""
    peer = gnubg_peer()
    if peer is None:
        return None
    head = ["set player 0 human", "set player 1 human", "new game"]
    cmds = [f"show {c} {pid}" for pid in ids
            for c in ("pipcount", "keith", "thorp", "kleinman", "8912", "isight")]  # fmt: skip

    def wall(commands: list[str]) -> float:
        return timed(peer.run_commands, commands)[0]

    start = min(wall(head) for _ in range(3))
    return min(wall(head + cmds) for _ in range(2)) - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    args = parser.parse_args()

    from mathbg.race.evaluate import race_chances_batch
    from mathbg.race.sample import random_races
    from mathbg.rules.position import Position

    player, opponent = random_races(args.n, 1, back=(1, 6), checkers=(1, 15))
    t = time.perf_counter()
    race_chances_batch(player[:10], opponent[:10])  # databases built/loaded, numba compiled
    all_counts(player[:10], opponent[:10])
    setup = time.perf_counter() - t
    seconds, result = run_mathbg(player, opponent)
    two = int(result["chances"]["two_sided"].sum())
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(f"setup (databases, compilation): {setup:.2f} s")
    print(f"mathbg: {args.n} races ({two} in the two-sided database), all counts + advice + "
          f"chances + EPC: {seconds:.3f} s  (goal < {GOAL_SECONDS} s: "
          f"{'met' if seconds < GOAL_SECONDS else 'MISSED'})")  # fmt: skip
    ids = [Position.from_counts(p.tolist(), o.tolist()).id
           for p, o in zip(player, opponent, strict=True)]  # fmt: skip
    m = min(args.n, 1000)
    g = run_gnubg(ids[:m])
    if g is None:
        print("gnubg not installed: no comparison")
        return
    scaled = g * args.n / m
    print(f"gnubg 1.07 0-ply evaluate: {g:.3f} s for {m} positions, "
          f"{scaled:.1f} s scaled to {args.n}")  # fmt: skip
    print(f"ratio mathbg / gnubg (chances): {seconds / scaled:.5f}")
    c = run_gnubg_counts(ids)
    if c is not None:
        print(f"gnubg 1.07 show pipcount|keith|thorp|kleinman|8912|isight, {args.n} "
              f"positions: {c:.3f} s")  # fmt: skip
        print(f"ratio mathbg (counts + chances) / gnubg (counts): {seconds / c:.3f}")


if __name__ == "__main__":
    main()
