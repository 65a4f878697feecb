"""Benchmark: legal-play generation, mathbg vs gnubg.

Work: every legal play (distinct resulting position) for all 21 rolls over a fixed seeded
set of 10,000 positions reached by random play (the side on roll's view before rolling).

Prints, for mathbg (one core):

- position-rolls per second of the numba kernel, counting plays (``count_plays``) and
  materialising every resulting board (``successors``), for all positions and for the
  contact positions only (the issue's goal: >= 50,000 position-rolls/s for contact);
- the time of one ``Position.legal_plays(roll)`` call on typical positions, Play objects
  built lazily (goal: < 50 microseconds), once the kernel serves them; and what a process
  pays for its first positions: the kernel compiled ahead of time (:mod:`mathbg._native`)
  from the first call; without it, the pure-Python port (``movegen.generate_python``, used
  for a process's first ``movegen.PORT_CALLS`` positions) per call, against numba's
  kernel's first call in a fresh process (numba's import and the cached kernel's load,
  CPU-s).

and for gnubg 1.07 (the reference peer), two comparable jobs, with the ratio:

- contact play: gnubg lists every legal play only together with an evaluation of each, so
  we time its ``analyse match`` (GenerateMoves + a 0-ply neural-net evaluation of every
  play) over the first 1,000 of the positions x 21 rolls, recorded as in
  tests/test_rules_gnubg_diff.py;
- bear-off: ``makebearoff -o 6`` generates the plays of all 54,264 one-sided 6-point
  positions x 21 rolls (and fills the database from them); mathbg's ``successors`` does the
  generation part for the same 1,139,544 position-rolls.

Usage: ``python benchmarks/bench_movegen.py [--positions 10000] [--no-gnubg]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import add_tests_to_path, best_of, gnubg_peer

from mathbg import Position
from mathbg.rules import movegen
from mathbg.rules.dice import ROLLS
from mathbg.rules.game import Phase, play_random_game

SEED = 12345


def sample_positions(n: int, seed: int = SEED) -> list[Position]:
    """``n`` positions (side on roll, before rolling) from seeded random games."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        for st in play_random_game(rng).states:
            if st.phase == Phase.ROLL:
                out.append(st.position)
    return out[:n]


def bearoff_boards(points: int = 6, checkers: int = 15) -> np.ndarray:
    """All one-sided bearoff positions (<= checkers on the first ``points`` points), as
    TanBoards with an empty opponent: C(points + checkers, points) of them."""
    rows: list[list[int]] = []

    def rec(prefix: list[int], left: int) -> None:
        if len(prefix) == points:
            rows.append(prefix)
            return
        for c in range(left + 1):
            rec([*prefix, c], left - c)

    rec([], checkers)
    boards = np.zeros((len(rows), 2, 25), dtype=np.uint8)
    boards[:, 1, :points] = np.array(rows, dtype=np.uint8)
    return boards


def rate(fn, work: int, repeat: int = 3) -> tuple[float, object]:
    """Best-of-``repeat`` throughput of fn() in work units per second."""
    best, result = best_of(fn, repeat)
    return work / best, result


def successors_chunked(boards: np.ndarray, chunk: int = 1000) -> int:
    total = 0
    for i in range(0, len(boards), chunk):
        _, res = movegen.successors(boards[i : i + chunk])
        total += len(res)
    return total


def per_call_us(pos: Position, roll: tuple[int, int], n: int = 20000) -> float:
    pos.legal_plays(roll)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            pos.legal_plays(roll)
        times.append((time.perf_counter() - t) / n * 1e6)
    return min(times)


_FIRST_CALL = """
import time
import numpy as np
from mathbg.rules import movegen
from mathbg.rules.position import INITIAL
movegen._port_calls_left = 0  # straight to the kernel
t = time.process_time()
movegen.generate(INITIAL.cells, 6, 4)
print(time.process_time() - t)
"""


def kernel_first_call_cpu(repeat: int = 3, numba: bool = False) -> float:
    """CPU seconds of the kernel's first call in a fresh process (warm cache), best of
    ``repeat``: the kernel compiled ahead of time when built, or (``numba``, or not built)
    numba's (its import and its cache's load)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, MATHBG_NATIVE="0") if numba else None
    runs = [float(subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True,
                                 text=True, check=True, env=env).stdout)
            for _ in range(repeat)]  # fmt: skip
    return min(runs)


def gnubg_analyse_rate(positions: list[Position]) -> tuple[float, int] | None:
    """gnubg's position-rolls per second generating + 0-ply evaluating every play (the
    time of its ``analyse match`` over the recorded positions x 21 rolls)."""
    peer = gnubg_peer()
    if peer is None:
        return None
    add_tests_to_path()  # the gnubg helpers shared with the tests
    from gnubg_plays import gnubg_play_sets

    items = [(pos, roll) for pos in positions for roll in ROLLS]
    _, info = gnubg_play_sets(peer.run_python, items)
    return info["recorded"] / info["analyse_seconds"], info["recorded"]


def gnubg_makebearoff_seconds() -> float | None:
    peer = gnubg_peer()
    if peer is None or peer.makebearoff is None:
        return None
    with tempfile.TemporaryDirectory() as home:
        cmd = [str(peer.makebearoff), "-o", "6", "-f", str(Path(home) / "os.bd")]
        env = dict(os.environ, HOME=home)
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        return best_of(lambda: subprocess.run(cmd, env=env, check=True, **quiet), 2)[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=10_000)
    ap.add_argument("--gnubg-positions", type=int, default=1_000)
    ap.add_argument("--no-gnubg", action="store_true")
    args = ap.parse_args(argv)

    t = time.perf_counter()
    positions = sample_positions(args.positions)
    boards = np.stack([p.board for p in positions])
    contact = np.array([p.has_contact() for p in positions])
    print(
        f"{len(positions)} positions from seeded random games (seed {SEED}) in "
        f"{time.perf_counter() - t:.1f} s; {contact.sum()} with contact"
    )
    movegen.count_plays(boards[:2])  # compile / load the numba cache
    movegen.successors(boards[:2])

    nr = len(ROLLS)
    r_all, counts = rate(lambda: movegen.count_plays(boards), len(boards) * nr)
    r_con, _ = rate(lambda: movegen.count_plays(boards[contact]), int(contact.sum()) * nr)
    s_all, nres = rate(lambda: successors_chunked(boards), len(boards) * nr)
    s_con, _ = rate(lambda: successors_chunked(boards[contact]), int(contact.sum()) * nr)
    print(
        f"mean legal plays per position-roll: {counts.mean():.1f} "
        f"(max {counts.max()}); {nres} resulting positions in all"
    )
    print("mathbg, one core, position-rolls per second:")
    print(f"  count_plays  all {r_all:12,.0f}   contact {r_con:12,.0f}")
    print(f"  successors   all {s_all:12,.0f}   contact {s_con:12,.0f}   (goal >= 50,000)")

    typical = [positions[i] for i in np.flatnonzero(contact)[:200:20]]
    per = []
    for pos in typical:
        for roll in ((6, 4), (3, 1), (5, 5)):
            per.append(per_call_us(pos, roll, n=2000))
    start = Position.initial()
    print("Position.legal_plays(roll), one call (goal < 50 us):")
    print(
        f"  start 6-4 {per_call_us(start, (6, 4)):.1f} us, start 4-4 "
        f"{per_call_us(start, (4, 4)):.1f} us; 10 random contact positions x "
        f"(64, 31, 55): median {statistics.median(per):.1f} us, max {max(per):.1f} us"
    )

    port = []
    for pos in typical:
        for roll in ((6, 4), (3, 1), (5, 5)):
            t = time.perf_counter()
            for _ in range(200):
                movegen.generate_python(pos.cells, *roll)
            port.append((time.perf_counter() - t) / 200 * 1e6)
    from mathbg._native import compiled

    first = kernel_first_call_cpu()
    jit_first = kernel_first_call_cpu(numba=True)
    if compiled("movegen_generate") is not None:
        print(f"  the kernel compiled ahead of time serves every call from the first: its "
              f"first call in a fresh process {first:.3f} CPU-s")  # fmt: skip
    print(
        f"  without it (MATHBG_NATIVE=0, or no C compiler at install) a process's first "
        f"{movegen.PORT_CALLS} positions come from the pure-Python port: median "
        f"{statistics.median(port):.0f} us, max {max(port):.0f} us a call; numba's kernel's "
        f"first call in a fresh process: {jit_first:.2f} CPU-s (so the port is cheaper for "
        f"the first {jit_first / (statistics.median(port) * 1e-6):,.0f} positions)"
    )

    bo = bearoff_boards()
    b_rate, _ = rate(lambda: successors_chunked(bo, 5000), len(bo) * nr)
    print(
        f"bear-off: {len(bo)} one-sided 6-point positions x 21 rolls: mathbg successors "
        f"{b_rate:,.0f} position-rolls/s ({len(bo) * nr / b_rate:.2f} s)"
    )

    if args.no_gnubg:
        return 0
    g = gnubg_analyse_rate(positions[: args.gnubg_positions])
    if g is None:
        print("gnubg not installed: no comparison")
        return 0
    g_rate, n_rec = g
    print(
        f"gnubg 'analyse match' (generate + 0-ply evaluate every play), {n_rec} "
        f"position-rolls: {g_rate:,.0f} position-rolls/s; mathbg successors all / gnubg = "
        f"{s_all / g_rate:.1f}x"
    )
    mb = gnubg_makebearoff_seconds()
    if mb is not None:
        mb_rate = len(bo) * nr / mb
        print(
            f"gnubg makebearoff -o 6 (generate + build the database): {mb:.2f} s = "
            f"{mb_rate:,.0f} position-rolls/s; mathbg successors / gnubg = "
            f"{b_rate / mb_rate:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
