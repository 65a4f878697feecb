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

Then the ``.sgf`` reader's scaling (issue 33: 4x the text took 14.9x the CPU, a 1.8 MB
file ran past 60 s): the games of all the matches as one money session in one ``.sgf``
file, and the same session played four times over (4x the text, about 1.2 MB for the 212
Galaxy matches), read and replayed in-process (every play checked) and converted by
``mathbg convert big.sgf big.mat`` as a user types it (a whole process: its CPU; the
start-up, a one-game file's convert, printed beside it); gnubg's ``load match`` of the same
two files (one gnubg process each, its start-up taken off). The goal: 4x the text in about
4x the CPU.

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

from mathbg.rules import (
    GameOutcome,
    GameRecord,
    MatchRecord,
    MatchRules,
    read_match,
    render_match,
)

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


def gnubg_run(exe: Path, files: list[Path], load: str = "import mat") -> tuple[float, float]:
    """Wall and CPU seconds of one gnubg process importing ``files`` (``import mat``, or
    ``load match`` for .sgf)."""
    lines = ["import gnubg"] + [f"gnubg.command({f'{load} {f}'!r})" for f in files]
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


_KIND_VALUE = {"single": 1, "gammon": 2, "backgammon": 3}


def money_session(records: list[MatchRecord]) -> MatchRecord:
    """The games of ``records`` played one after the other as a money session (each
    game's result valued as money play values it), so that a long file reads to its end."""
    games, score = [], [0, 0]
    for rec in records:
        for g in rec.games:
            r = g.result
            assert r is not None
            if r.kind == "pass":
                points = r.cube
            elif r.kind == "resign":
                points = r.resign_level * r.cube
            else:
                points = _KIND_VALUE[r.kind] * r.cube
            games.append(GameRecord(len(games) + 1, (score[0], score[1]), g.actions,
                                    GameOutcome(r.winner, points, r.kind, r.cube,
                                                r.resign_level)))
            score[r.winner] += points
    return MatchRecord(0, ("A", "B"), tuple(games), MatchRules(crawford=False))


def cpu_of(func: object, repeat: int) -> float:
    """Fewest CPU seconds of ``repeat`` calls of ``func()``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def convert_cpu(src: Path, out: Path) -> float:
    """CPU seconds of ``mathbg convert SRC OUT`` as a user types it (a whole process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "mathbg", "convert", str(src), str(out), "--force"],
                   check=True, capture_output=True, timeout=3600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def sgf_scaling(files: list[Path], repeat: int, peer: object) -> None:
    """Print the .sgf reader's CPU for 1x and about 4x the text (see the docstring)."""
    records = [read_match(f) for f in files]
    small, large = money_session(records), money_session(records * 4)
    with tempfile.TemporaryDirectory(prefix="bench-sgf-") as tmp:
        paths = []
        one = Path(tmp) / "one.sgf"
        one.write_text(render_match(money_session(records[:1]), "sgf"))
        for name, rec in (("1x", small), ("4x", large)):
            path = Path(tmp) / f"{name}.sgf"
            path.write_text(render_match(rec, "sgf"))
            paths.append(path)
        sizes = [p.stat().st_size for p in paths]
        cpus = [cpu_of(lambda p=p: read_match(p), repeat) for p in paths]
        whole = [min(convert_cpu(p, p.with_suffix(".mat")) for _ in range(repeat))
                 for p in (one, *paths)]
        print(f".sgf scaling (a money session of {len(small.games)} and {len(large.games)} "
              f"games, {sizes[0] / 1e6:.2f} MB and {sizes[1] / 1e6:.2f} MB: "
              f"{sizes[1] / sizes[0]:.2f}x the text):")
        print(f"  mathbg read_match (in-process, every play checked): {cpus[0]:.2f} s -> "
              f"{cpus[1]:.2f} s CPU: {cpus[1] / cpus[0]:.2f}x the CPU for "
              f"{sizes[1] / sizes[0]:.2f}x the text (goal about 4x, was 14.9x)")
        net = (whole[2] - whole[0]) / (whole[1] - whole[0])
        print(f"  mathbg convert X.sgf X.mat (whole process): {whole[1]:.2f} s -> "
              f"{whole[2]:.2f} s CPU: {whole[2] / whole[1]:.2f}x; less the start-up (a "
              f"one-game file: {whole[0]:.2f} s): {net:.2f}x")
        if peer is None:
            return
        exe = peer.gnubg  # type: ignore[attr-defined]
        base = min(gnubg_run(exe, [])[1] for _ in range(repeat))
        theirs = [min(gnubg_run(exe, [p], "load match")[1] for _ in range(repeat)) - base
                  for p in paths]
        print(f"  gnubg 1.07 load match (whole process, start-up {base:.2f} s taken off): "
              f"{theirs[0]:.2f} s -> {theirs[1]:.2f} s CPU: "
              f"{theirs[1] / max(theirs[0], 1e-9):.2f}x")


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
        sgf_scaling(files, args.repeat, None)
        return 0
    _, base_cpu = min((gnubg_run(peer.gnubg, []) for _ in range(args.repeat)),
                              key=lambda r: r[1])
    g_wall, g_cpu = min((gnubg_run(peer.gnubg, files) for _ in range(args.repeat)),
                        key=lambda r: r[1])
    net_cpu = g_cpu - base_cpu
    print(f"gnubg 1.07 import mat of the same files: {g_wall:.2f} s wall, {g_cpu:.2f} s CPU "
          f"(start-up {base_cpu:.2f} s CPU taken off: {net_cpu:.2f} s, "
          f"{1000 * net_cpu / n:.1f} ms a match)")
    # mathbg's figure is in-process (its start-up not counted): against gnubg's start-up
    # taken off (CPU), and against gnubg's whole process (wall, start-up included)
    print(f"ratio mathbg / gnubg (CPU, start-up excluded): {cpu / max(net_cpu, 1e-9):.2f}x; "
          f"mathbg in-process wall / gnubg whole-process wall: {wall / g_wall:.2f}x")
    sgf_scaling(files, args.repeat, peer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
