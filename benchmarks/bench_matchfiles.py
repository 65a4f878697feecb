"""Benchmark: reading and replaying real match files, mathbg vs gnubg.

Work: every match of the shared Backgammon Galaxy collection (212 ``.mat`` files, found
beside the repository in ``../shared/matches/galaxy``; else the ten bundled with the tests),
read and replayed with every play checked against the legal plays of the rules model
(``mathbg.rules.read_match``), in one process on one core after a warm-up read (numba
loads its compiled kernels). The issue's goal: under 10 s for the 212 matches.

gnubg 1.07 does the same work in one run: a ``gnubg -t`` Python script that imports each
file (``import mat``: gnubg checks each play against its own move generator as it
imports). Its start-up (an empty script) is timed separately and taken off.

Prints wall and CPU seconds of both, per match, and the ratio.

Usage: ``python benchmarks/bench_matchfiles.py [DIR] [--no-gnubg] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import gnubg_peer

from mathbg.rules import read_match

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "matches" / "galaxy"
BUNDLED = ROOT / "tests" / "data" / "matches"


def mathbg_run(files: list[Path]) -> tuple[float, float, int]:
    """Wall and CPU seconds to read and replay ``files``; the number of actions."""
    wall, cpu = time.perf_counter(), time.process_time()
    actions = 0
    for f in files:
        rec = read_match(f)
        actions += sum(len(g.actions) for g in rec.games)
    return time.perf_counter() - wall, time.process_time() - cpu, actions


def gnubg_run(exe: Path, files: list[Path]) -> tuple[float, float]:
    """Wall and CPU seconds of one gnubg process importing ``files`` (``import mat``)."""
    lines = ["import gnubg"] + [f"gnubg.command({f'import mat {f}'!r})" for f in files]
    with tempfile.TemporaryDirectory(prefix="gnubg-home-") as home:
        script = Path(home) / "import.py"
        script.write_text("\n".join(lines) + "\n")
        env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([str(exe), "-t", "-q", "-r", "-p", str(script)], env=env, cwd=home,
                       stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=3600)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir", nargs="?", type=Path, help="folder of .mat/.txt match files")
    parser.add_argument("--no-gnubg", action="store_true", help="time mathbg only")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    folder = args.dir or (SHARED if SHARED.is_dir() else BUNDLED)
    files = sorted(p for p in folder.iterdir() if p.suffix in (".txt", ".mat"))
    if not files:
        print(f"no match files in {folder}", file=sys.stderr)
        return 2
    n = len(files)
    print(f"{n} match files from {folder}")
    read_match(files[0])  # warm-up: numba loads the move generator
    best = min((mathbg_run(files) for _ in range(args.repeat)), key=lambda r: r[1])
    wall, cpu, actions = best
    print(f"mathbg read + replay (every play checked): {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"({1000 * cpu / n:.1f} ms CPU a match, {actions} actions; goal < 10 s)")
    peer = None if args.no_gnubg else gnubg_peer()
    if peer is None:
        if not args.no_gnubg:
            print("gnubg not found: no comparison")
        return 0
    base_wall, base_cpu = min((gnubg_run(peer.gnubg, []) for _ in range(args.repeat)),
                              key=lambda r: r[1])
    g_wall, g_cpu = min((gnubg_run(peer.gnubg, files) for _ in range(args.repeat)),
                        key=lambda r: r[1])
    net_wall, net_cpu = g_wall - base_wall, g_cpu - base_cpu
    print(f"gnubg 1.07 import mat of the same files: {g_wall:.2f} s wall, {g_cpu:.2f} s CPU "
          f"(start-up {base_cpu:.2f} s CPU taken off: {net_cpu:.2f} s, "
          f"{1000 * net_cpu / n:.1f} ms a match)")
    print(f"ratio mathbg / gnubg (CPU, start-up excluded): {cpu / net_cpu:.2f}x; "
          f"wall {wall / max(net_wall, 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
