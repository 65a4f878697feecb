"""Benchmark: the cube audit of real matches and the corpus statistics (issue 24).

Run: ``python benchmarks/bench_audit.py [--match FILE] [--folder DIR] [--repeat 3]
[--no-gnubg] [--no-corpus] [--no-dask]``.

1. One match (default: the longest shared one, a 7-point match of 112 cube decisions; the
   shared collection has no finished 13-point match) audited with ``gnubg-nn`` 0-ply,
   reading and replaying included (goal: under 2 s), beside gnubg 1.07 importing the same
   file and running ``analyse match`` at 0-ply (checker play and cube; timed inside
   gnubg's embedded Python, and the whole process): both times and their ratio.
2. The corpus statistics with the audit over every shared match (goal: under 3 minutes on
   2 cores): locally (one process), and on a Dask ``LocalCluster`` of 2 single-threaded
   worker processes (goal: within 1.3x of local... on 2 cores the cluster runs two files
   at once); the two results must be identical.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _common import TESTS, best_of

from mathbg.analysis import audit, corpus_stats
from mathbg.analysis.gnubg_program import find_gnubg, run_gnubg_script
from mathbg.rules import read_match

ROOT = Path(__file__).resolve().parent.parent
#: The shared collection: the first ``shared/matches/galaxy`` above the checkout.
SHARED = next((d / "shared" / "matches" / "galaxy" for d in ROOT.parents
               if (d / "shared" / "matches" / "galaxy").is_dir()), ROOT / "missing")  # fmt: skip
LONGEST = "match2287710.txt"

PEER_SCRIPT = r"""
import gnubg, json, time
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
for what in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %%s evaluation plies 0" %% what)
start = time.perf_counter()
gnubg.command("import mat %(path)s")
read = time.perf_counter() - start
gnubg.command("analyse match")
total = time.perf_counter() - start
print("JSON>>>" + json.dumps({"import": read, "seconds": total}))
"""


def _match_file(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    for folder in (SHARED, TESTS / "data" / "matches"):
        if (folder / LONGEST).exists():
            return folder / LONGEST
    raise SystemExit(f"no {LONGEST}: give --match FILE")


def bench_one(path: Path, repeat: int, gnubg: bool) -> None:
    record = read_match(path)
    n = len(audit(record, engine="gnubg-nn", exact=False).decisions)  # warm (numba, nets)

    def whole() -> object:
        return audit(read_match(path), engine="gnubg-nn", exact=False)

    ours, _ = best_of(whole, repeat)
    audit_only, _ = best_of(lambda: audit(record, engine="gnubg-nn", exact=False), repeat)
    print(f"1. {path.name} ({record.length}-point match, {len(record.games)} games, "
          f"{n} cube decisions)")  # fmt: skip
    print(f"   mathbg audit, gnubg-nn 0-ply, read + replay + audit: {ours:.3f} s "
          f"(audit alone {audit_only:.3f} s; goal < 2 s)")  # fmt: skip
    if not gnubg:
        return
    exe = find_gnubg()
    if exe is None:
        print("   gnubg not installed: no peer time")
        return
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as home:
        script = Path(home) / "run.py"
        script.write_text(PEER_SCRIPT % {"path": path.resolve()})
        start = time.perf_counter()
        proc = run_gnubg_script(exe, "-p", script, home, 600)
        process = time.perf_counter() - start
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("JSON>>>"))
    peer = json.loads(line[7:])
    print(f"   gnubg 1.07 import + analyse match, 0-ply (checker play and cube): "
          f"{peer['seconds']:.3f} s inside gnubg, {process:.3f} s the whole process")
    print(f"   ratio mathbg / gnubg (inside): {ours / peer['seconds']:.2f}x "
          "(gnubg also analyses every checker play; mathbg only the cube)")


def bench_corpus(folder: Path, dask: bool) -> None:
    files = sorted(folder.glob("*.txt")) + sorted(folder.glob("*.mat"))
    import os

    start, cpu = time.perf_counter(), time.process_time()
    local = corpus_stats(files, audit=True, engine="gnubg-nn", progress=False)
    t_local, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"2. corpus statistics + audit of {local.files} files ({len(local.skipped)} skipped), "
          f"{local.games} games, {local.overall['audit']['decisions']} cube decisions")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"   local, one process: {t_local:.1f} s wall, {cpu:.1f} s CPU (goal < 180 s on 2 "
          f"cores; load average {load:.1f})")
    if not dask:
        return
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        client.run(lambda: audit(files[0], engine="gnubg-nn", exact=False))  # warm workers
        start = time.perf_counter()
        remote = corpus_stats(files, audit=True, engine="gnubg-nn", client=client)
        t_dask = time.perf_counter() - start
    same = remote.as_dict() == local.as_dict()
    print(f"   Dask LocalCluster (2 workers): {t_dask:.1f} s, {t_dask / t_local:.2f}x local "
          f"(goal within 1.3x); identical numbers: {same}")
    if not same:
        sys.exit("Dask and local results differ")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--match", help="the match to audit (default: the longest shared)")
    ap.add_argument("--folder", help="the collection (default: the shared matches)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    bench_one(_match_file(args.match), args.repeat, not args.no_gnubg)
    if not args.no_corpus:
        folder = Path(args.folder) if args.folder else (
            SHARED if SHARED.is_dir() else TESTS / "data" / "matches")  # fmt: skip
        bench_corpus(folder, not args.no_dask)


if __name__ == "__main__":
    main()
