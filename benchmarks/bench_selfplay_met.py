"""Benchmark: the self-play MET (``mathbg.analysis.selfplay_met``) against gnubg-nn's own loop.

Measured side by side in one run (goals from the issue):

1. Throughput: games per CPU-second of mathbg's self-play (gnubg-nn 0-ply checker play and
   mathbg's match cube decision at every turn, the 3-point table's five entries) against
   gnubg-nn's own cubeless self-play loop (``best_move`` from the opening, nothing else):
   the ratio (goal >= 0.5).
2. Variance reduction (stratified first rolls): the measured gain ``plain SE^2 /
   stratified SE^2`` per entry and the effective games per CPU-second; and the same for
   the luck of the two rolls after the opening as a control variate (``luck_rolls=2``),
   against plain self-play (effective games per CPU-second: games / CPU-s x gain).
3. The 5-point table (2- to 5-away, Crawford and post-Crawford): the standard errors at a
   small size, extrapolated to every SE <= 0.5 pp (games per entry, CPU time, wall time on
   2 cores); with ``--full`` that table is built once, as ``mathbg met --model selfplay
   --length 5 --target-se 0.005 --scheduler local:2`` builds it (``target_stderr=0.005``
   on a LocalCluster of 2 workers: each entry played in rounds of batches until its SE is
   at most 0.5 pp), timed (wall, and the CPU seconds of the workers and of the driver),
   and compared with Kazaross-XG2 (mean and largest differences in pp and SE; goal:
   within 3 SE + 0.3 pp, in under 30 minutes).
4. Dask: the same small table on one process and on a LocalCluster of 2 workers, the
   time ratio (goal <= 1.2) and that the bits agree.
5. The cost of a 9-point table at 0.05 pp per entry in CPU-hours, from the measured rate
   and per-game spread.

CPU time is the process's own (``time.process_time``); the machine is shared, so wall
times are printed with the load average.

Usage::

    python benchmarks/bench_selfplay_met.py               # a few minutes
    python benchmarks/bench_selfplay_met.py --games 1800  # bigger samples
    python benchmarks/bench_selfplay_met.py --full        # also the 0.5 pp 5-point table
    python benchmarks/bench_selfplay_met.py --only-full   # just that table (~30 min)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

BATCH = 1800  # games per task of the full table (a multiple of the 30 strata)
BASELINE_BOARD = ((0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),) * 2


def gnubg_nn_loop(games: int, seed: int = 0) -> tuple[float, float]:
    """gnubg-nn's own cubeless self-play from the opening: games and rolls per CPU-second."""
    import gnubg_nn as nn

    rng = np.random.default_rng(seed)
    rolls = 0
    t0 = time.process_time()
    for _ in range(games):
        board = BASELINE_BOARD
        while True:
            d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
            _, key = nn.best_move(board, d1, d2, n=0, b=1)
            rolls += 1
            board = nn.board_from_position_key(key)
            if not any(board[0]):
                break
    cpu = time.process_time() - t0
    return games / cpu, rolls / cpu


def ours(length: int, games: int, seed: int, client=None, store=None, batch_size=None, **kw):
    from mathbg.analysis import selfplay_met

    c0, w0 = time.process_time(), time.perf_counter()
    met = selfplay_met(length, games=games, seed=seed, client=client, store=store,
                       batch_size=batch_size or games, progress=False, **kw)  # fmt: skip
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return met, cpu, wall


def _warm() -> None:
    """Load what a batch needs (networks, cube theory) in a worker before timing."""
    import gnubg_nn

    import mathbg.analysis.selfplay
    import mathbg.cube.cubeful  # noqa: F401

    gnubg_nn.probabilities([list(b) for b in BASELINE_BOARD], 0)


def full_table(
    store: str | None, length: int = 5, target: float = 0.005, batch_size: int = 3600
) -> None:
    """The 5-point table to SE <= 0.5 pp on a LocalCluster of 2 workers, timed and compared.

    What ``mathbg met --model selfplay --length 5 --target-se 0.005 --scheduler local:2``
    runs (seed 0, first round 1000 games rounded up to one batch of 3600).
    """
    import distributed

    from mathbg.analysis import selfplay_met
    from mathbg.met import load

    xg = load("kazaross-xg2").extend(length)
    loads = [os.getloadavg()]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,  # fmt: skip
        distributed.Client(cluster) as client,
    ):
        cpu0 = sum(client.run(time.process_time).values()) + time.process_time()
        w0 = time.perf_counter()
        full = selfplay_met(length, games=1000, seed=0, client=client, store=store,
                            target_stderr=target, batch_size=batch_size,
                            progress=True)  # fmt: skip
        wall = time.perf_counter() - w0
        cpu = sum(client.run(time.process_time).values()) + time.process_time() - cpu0
    loads.append(os.getloadavg())
    sc = full.frames["scores"]
    d = np.concatenate([(full.pre - xg.pre)[np.isfinite(full.stderr)],
                        (full.post[0] - xg.post[0])[1:]])  # fmt: skip
    s = np.concatenate([full.stderr[np.isfinite(full.stderr)], full.post_stderr[0][1:]])
    print(f"{length}-point table to SE <= {100 * target:g} pp: {int(sc['games'].sum())} games "
          f"({int(sc['games'].min())}..{int(sc['games'].max())} an entry), {wall / 60:.1f} min "
          f"wall, {cpu:.0f} CPU-s ({cpu / 120:.1f} min on 2 free cores; goal for 5 points at "
          f"0.5 pp: < 30 min), "
          f"{int(sc['games'].sum()) / cpu:.0f} games per CPU-second; load average "
          f"{loads[0][0]:.1f} at start, {loads[1][0]:.1f} at end (15-min "
          f"{loads[1][2]:.1f})")  # fmt: skip
    print(f"largest SE {100 * s.max():.3f} pp; vs Kazaross-XG2 mean |diff| "
          f"{100 * np.abs(d).mean():.2f} pp, largest {100 * np.abs(d).max():.2f} pp, "
          f"in SE mean {np.abs(d / s).mean():.2f}, largest {np.abs(d / s).max():.2f}; "
          f"within 3 SE + 0.3 pp: {bool(np.all(np.abs(d) <= 3 * s + 0.003))}")  # fmt: skip
    worst = np.argmax(np.abs(d) - 3 * s)
    print(f"closest to the bound: |diff| {100 * abs(d[worst]):.2f} pp against 3 SE + 0.3 pp = "
          f"{100 * (3 * s[worst] + 0.003):.2f} pp")  # fmt: skip


def luck_gain(games: int, seed: int = 12) -> None:
    """Effective games per CPU-second: plain, stratified, stratified + luck of 2 rolls."""
    out = {}
    for rolls in (0, 2):
        met, cpu, _ = ours(5, games, seed=seed, luck_rolls=rolls)
        sc = met.frames["scores"]
        rate = int(sc["games"].sum()) / cpu
        gain = float((sc["plain_stderr_own"] ** 2 / sc["stderr_own"] ** 2).mean())
        out[rolls] = (rate, gain, cpu)
    (r0, g0, c0), (r2, g2, c2) = out[0], out[2]
    print(f"variance reduction, 5-point table at {games} games an entry (effective games per "
          f"CPU-second = games / CPU-s x mean variance gain): plain {r0:.0f}; stratified "
          f"first rolls {r0 * g0:.0f} (gain {g0:.3f}); + luck of 2 rolls {r2 * g2:.0f} (gain "
          f"{g2:.3f}, CPU {c2:.0f} s against {c0:.0f} s): ratio to plain "
          f"{r2 * g2 / r0:.3f}")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=600, help="games per entry (default 600)")
    ap.add_argument("--baseline-games", type=int, default=300)
    ap.add_argument("--full", action="store_true", help="build the 0.5 pp 5-point table")
    ap.add_argument("--only-full", action="store_true", help="only the 0.5 pp 5-point table")
    ap.add_argument("--store", help="with --full: keep the batches here (resume a killed run)")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    import pandas as pd

    from mathbg.met import load

    pd.set_option("display.width", 200)
    print(f"load average at start: {os.getloadavg()}")
    if args.only_full:
        full_table(args.store)
        print(f"load average at end: {os.getloadavg()}")
        return 0
    gnubg_nn_loop(20)  # warm up the networks
    base, base_rolls = gnubg_nn_loop(args.baseline_games)
    print(f"gnubg-nn cubeless loop: {base:.0f} games ({base_rolls:.0f} rolls) per CPU-second")

    met3, cpu3, _ = ours(3, args.games, seed=11)
    n3 = int(met3.frames["scores"]["games"].sum())
    rate = n3 / cpu3
    sc3 = met3.frames["scores"]
    rolls3 = float((sc3["mean_rolls"] * sc3["games"]).sum()) / cpu3
    print(f"mathbg self-play with cube decisions (3-point table, {n3} games): "
          f"{rate:.0f} games per CPU-second, ratio {rate / base:.2f} (goal >= 0.5); "
          f"{rolls3:.0f} rolls per CPU-second, ratio {rolls3 / base_rolls:.2f} (doubles "
          f"and passes shorten the match games)")  # fmt: skip

    met5, cpu5, wall5 = ours(5, args.games, seed=12)
    sc = met5.frames["scores"]
    rate5 = int(sc["games"].sum()) / cpu5
    gain = (sc["plain_stderr_own"] ** 2 / sc["stderr_own"] ** 2).to_numpy()
    print(f"5-point table at {args.games} games an entry: {rate5:.0f} games per CPU-second, "
          f"{cpu5:.0f} CPU-s, {wall5:.0f} s wall")  # fmt: skip
    print(f"stratified first rolls: variance gain mean {gain.mean():.3f} (range "
          f"{gain.min():.3f}..{gain.max():.3f}); effective {rate5 * gain.mean():.0f} games per "
          f"CPU-second against {rate5:.0f} plain")  # fmt: skip
    luck_gain(args.games)
    se_max = float(np.nanmax(np.concatenate([met5.stderr.ravel(), met5.post_stderr[0]])))
    need = int(np.ceil(args.games * (se_max / 0.005) ** 2 / BATCH) * BATCH)
    total = need * len(sc)
    cpu_need = total / rate5
    print(f"largest SE {100 * se_max:.2f} pp at {args.games} games: SE <= 0.5 pp needs "
          f"{need} games an entry, {total} games, {cpu_need / 60:.0f} CPU-minutes, "
          f"~{cpu_need / 120:.0f} min on 2 free cores (goal < 30 min)")  # fmt: skip
    xg = load("kazaross-xg2").extend(5)
    diff = np.concatenate([(met5.pre - xg.pre)[np.isfinite(met5.stderr)],
                           (met5.post[0] - xg.post[0])[1:]])  # fmt: skip
    ses = np.concatenate([met5.stderr[np.isfinite(met5.stderr)], met5.post_stderr[0][1:]])
    print(f"vs Kazaross-XG2 at {args.games} games: mean |diff| {100 * np.abs(diff).mean():.2f} "
          f"pp, largest {100 * np.abs(diff).max():.2f} pp; in SE mean "
          f"{np.abs(diff / ses).mean():.2f}, largest {np.abs(diff / ses).max():.2f}")  # fmt: skip

    # the 9-point table at 0.05 pp: 8 post-Crawford, 8 Crawford and 28 other entries
    sd = float(np.nanmax(sc["stderr"] * np.sqrt(sc["games"])))
    games9 = (sd / 0.0005) ** 2
    hours = 44 * games9 / rate5 / 3600
    print(f"9-point table at 0.05 pp: ~{games9:,.0f} games an entry (largest per-game spread "
          f"of the 5-point table, {sd:.3f}), {44 * games9:,.0f} games, ~{hours:,.0f} CPU-hours "
          f"at {rate5:.0f} games per CPU-second")  # fmt: skip

    if not args.no_dask:
        import distributed

        small = max(60, args.games // 60 * 30)
        batch = small // 2 // 30 * 30 or 30
        local, _, wall_l = ours(4, small, seed=13, batch_size=batch)
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, dashboard_address=None
            ) as cluster,  # fmt: skip
            distributed.Client(cluster) as client,
        ):
            client.run(_warm)  # workers up, networks loaded (the local process has them)
            remote, _, wall_r = ours(4, small, seed=13, client=client, batch_size=batch)
        same = np.array_equal(local.pre, remote.pre) and np.array_equal(local.post, remote.post)
        print(f"Dask LocalCluster (2 workers) {wall_r:.1f} s vs local {wall_l:.1f} s: ratio "
              f"{wall_r / wall_l:.2f} (goal <= 1.2), same bits: {same}")  # fmt: skip

    if args.full:
        full_table(args.store)
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
