"""Benchmark: legal plays and whole games of the regional variants.

gnubg plays only standard backgammon, so there is no reference peer to compare with; the
script prints our own rates next to the standard game's (same machine, same run):

- position-rolls per second of ``RuleSet.legal_plays`` (the Python call, plays built
  lazily) over positions sampled from seeded random games of each variant, all 21 rolls;
- random games per second through the game state machine (``play_random_game``), which
  is what the 1,000-games-per-variant test does.

Usage: ``python benchmarks/bench_variants.py [--games 200]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from mathbg.rules.dice import ROLLS
from mathbg.rules.game import Phase, play_random_game
from mathbg.rules.ruleset import get_ruleset

NAMES = ["backgammon", "portes", "tavla", "plakoto", "fevga", "long-nardi"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--positions", type=int, default=1000)
    args = ap.parse_args(argv)
    print(f"{'variant':<12} {'position-rolls/s':>17} {'us/call':>8} {'games/s':>8} {'plies':>6}")
    for name in NAMES:
        rs = get_ruleset(name)
        rng = random.Random(1)
        positions = []
        while len(positions) < args.positions:
            rec = play_random_game(rng, variant=name)
            positions += [s.position for s in rec.states if s.phase == Phase.ROLL]
        positions = positions[: args.positions]
        for roll in ROLLS:  # compile / warm up
            rs.legal_plays(positions[0], roll)
        t = time.perf_counter()
        for pos in positions:
            for roll in ROLLS:
                rs.legal_plays(pos, roll)
        dt = time.perf_counter() - t
        n = len(positions) * len(ROLLS)
        t = time.perf_counter()
        plies = 0
        for seed in range(args.games):
            rec = play_random_game(seed, variant=name)
            plies += sum(1 for s in rec.states if s.phase == Phase.MOVE)
        gdt = time.perf_counter() - t
        print(
            f"{name:<12} {n / dt:17,.0f} {dt / n * 1e6:8.1f} {args.games / gdt:8.1f} "
            f"{plies / args.games:6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
