"""Benchmark: ``mathbg audit`` and ``mathbg corpus --audit`` as a user runs them (issue 34.6).

Run: ``python benchmarks/bench_audit.py [--matches DIR] [--repeat 2] [--no-gnubg]
[--no-corpus] [--no-dask]``.

1. Every match of a folder (default: the 12 real matches of ``tests/data/matches``) run as
   the user types it: ``mathbg audit FILE`` (the whole match: checker play, cube, luck;
   default settings) and ``mathbg audit FILE --cube-only`` (the cube decisions alone), one
   whole process each, CPU seconds (user + system) and wall, warm (best of ``--repeat``
   after a first run). Beside them gnubg 1.07 on the same file, ``import mat`` and ``analyse
   match`` at 0 plies (checker play and cube), measured as a whole ``gnubg -t`` process and
   inside one (its embedded Python's clock around ``analyse match``; start-up apart).
   Totals and ratios over the folder.
2. ``mathbg corpus DIR --audit`` over the shared collection (212 matches), cube decisions
   only (``--cube-only``) and the whole analysis, as whole processes, and the same with
   ``--scheduler local:2`` (a Dask cluster of 2 workers); the numbers must be identical.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from _common import TESTS, gnubg_peer
from bench_match_analysis import (
    INSIDE,
    SHARED,
    analysis_settings,
    best,
    dask_verdict,
    gnubg_script,
    run,
)


def _gnubg(path: Path, gnubg: Path, home: str, repeat: int) -> tuple[float, float]:
    env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C")
    text = "\n".join([*analysis_settings(0), f"import mat {path}", "analyse match"]) + "\n"
    whole, _, _ = best(gnubg_script(gnubg, home, text, "-c"), repeat, env=env, cwd=home)
    _, _, out = run(gnubg_script(gnubg, home, INSIDE % {"plies": 0, "path": path}), env=env,
                    cwd=home)  # fmt: skip
    line = next(ln for ln in out.splitlines() if ln.startswith("INSIDE"))
    return whole, float(line.split()[1])


def bench_matches(folder: Path, repeat: int, with_gnubg: bool) -> None:
    peer = gnubg_peer() if with_gnubg else None
    files = sorted(folder.glob("*.txt"))
    totals = [0.0] * 4
    print(f"1. {len(files)} matches of {folder}: CPU-s of each process, warm "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"   {'match':22} {'audit':>7} {'--cube-only':>11} {'gnubg':>7} {'inside':>7}")
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as home:
        start_up = 0.0
        if peer is not None:
            start_up, _, _ = best(gnubg_script(peer.gnubg, home, "set player 0 human\n", "-c"),
                                  repeat, env=dict(os.environ, HOME=home), cwd=home)  # fmt: skip
        for path in files:
            mathbg = [sys.executable, "-m", "mathbg", "audit", str(path)]
            whole, _, _ = best(mathbg, repeat)
            cube, _, _ = best([*mathbg, "--cube-only"], repeat)
            g_whole = g_inside = float("nan")
            if peer is not None:
                g_whole, g_inside = _gnubg(path, peer.gnubg, home, repeat)
            for i, v in enumerate((whole, cube, g_whole, g_inside)):
                totals[i] += v
            print(f"   {path.name:22} {whole:7.2f} {cube:11.2f} {g_whole:7.2f} {g_inside:7.2f}")
    whole, cube, g_whole, g_inside = totals
    print(f"   {'total':22} {whole:7.2f} {cube:11.2f} {g_whole:7.2f} {g_inside:7.2f}")
    if peer is not None:
        print(f"   mathbg audit / gnubg: {whole / g_whole:.2f}x whole processes "
              f"({whole / g_inside:.2f}x gnubg's analysis alone); --cube-only "
              f"{cube / g_whole:.2f}x; gnubg's start-up {start_up:.2f} CPU-s a process")


def bench_corpus(folder: Path, dask: bool) -> None:
    print(f"2. mathbg corpus {folder.name}/ --audit ({len(list(folder.glob('*.txt')))} files)")
    for extra in (["--cube-only"], []):
        base = [sys.executable, "-m", "mathbg", "corpus", str(folder), "--audit", "--json",
                *extra]  # fmt: skip
        cpu, wall, out = run(base)
        label = " ".join(["--audit", *extra])
        print(f"   {label:22} local: {cpu:6.1f} CPU-s, {wall:6.1f} s wall")
        if not dask:
            continue
        _, d_wall, d_out = run([*base, "--scheduler", "local:2"])
        dask_verdict(f"   {label:22} --scheduler local:2:", d_wall, wall,
                     json.loads(d_out) == json.loads(out))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", help="folder of matches (default tests/data/matches)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    folder = Path(args.matches) if args.matches else TESTS / "data" / "matches"
    bench_matches(folder, args.repeat, not args.no_gnubg)
    if not args.no_corpus:
        bench_corpus(SHARED, not args.no_dask)


if __name__ == "__main__":
    main()
