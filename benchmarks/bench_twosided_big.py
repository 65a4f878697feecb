"""Benchmark: the block-wise two-sided build (local and Dask) against gnubg's makebearoff.

Cases (each mathbg build runs in its own process; wall time of the whole process and of
the build inside it, peak RSS, load average before and after: the machine is shared):

- ``ts8``: 6x8 cubeful, 16-bit (byte-identical to ``makebearoff -t 6x8``), mathbg vs
  makebearoff in one run; goal mathbg / makebearoff <= 0.01. makebearoff takes 5-13
  minutes here: ``--peer-seconds S`` reuses a measured time instead of running it.
- ``dask12``: 6x12 (``--cubeless`` for the cubeless table) local build vs a Dask
  ``LocalCluster(n_workers=2, threads_per_worker=1)`` with owner placement: wall-time
  ratio (goal <= 1.5) and worker-to-worker transfer / database size (goal < 0.7); both
  results are compared byte for byte.
- ``fresh``: the first build in a fresh environment (an empty ``NUMBA_CACHE_DIR``: every
  kernel compiles), 6x6 cubeful 16-bit, reported separately (goal: under 60 s).
- ``ts15``: the full 6x15 database, ``--cubeless`` (goal: under 12 min, peak 14 GiB) or
  cubeful (goal: under 45 min within ``--memory 16GiB``). Not run by default.
- ``user``: ``mathbg bearoff build --two-sided`` exactly as a user types it (default
  memory budget, progress bar on, the database in a temporary ``$MATHBG_DATA``), from a
  clean start and after a kill part way: wall, CPU seconds (all threads) and the cores in
  use, per phase (blocks, assembly, checksum: the ``phases:`` line the command prints)
  and in all, and whether the resumed build gives the same bytes. ``--compare-memory
  14GiB`` adds the same command with that budget. Not run by default.

Usage::

    python benchmarks/bench_twosided_big.py                      # ts8 (with makebearoff), fresh
    python benchmarks/bench_twosided_big.py ts8 --peer-seconds 745
    python benchmarks/bench_twosided_big.py dask12 --cubeless
    python benchmarks/bench_twosided_big.py ts15 --cubeless --memory 14GiB
    python benchmarks/bench_twosided_big.py user --checkers 15 --cubeless   # as a user types it
    python benchmarks/bench_twosided_big.py user --checkers 11 --cubeless --compare-memory 0.5GiB
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def worker(points: int, checkers: int, cubeful: bool, dtype: str, memory: str | None,
           dask: bool, out: str) -> None:  # fmt: skip
    """One build in this process; print a JSON line with its timings."""
    t0 = time.perf_counter()
    from mathbg.bearoff import TwoSided

    client = cluster = None
    if dask:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None, memory_limit="8GiB")  # fmt: skip
        client = Client(cluster)
    t1 = time.perf_counter()
    db = TwoSided.build(points, checkers, cubeful=cubeful, dtype=dtype, memory=memory,
                        client=client, path=out, progress=False, rebuild=True)  # fmt: skip
    t2 = time.perf_counter()
    transfer = None
    if client is not None:
        got = client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
        transfer = int(sum(got.values()))
        client.close()
        cluster.close()
    size = int(db._equity.nbytes)
    print(json.dumps({"build": t2 - t1, "startup": t1 - t0, "transfer": transfer, "size": size,
                      "sha256": _sha(Path(out) / "equity.npy")}))  # fmt: skip


def _sha(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            digest.update(chunk)
    return digest.hexdigest()


def run_worker(points: int, checkers: int, *, cubeful: bool = True, dtype: str = "u16",
               memory: str | None = None, dask: bool = False,
               env: dict[str, str] | None = None) -> dict:  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-ts-", dir=os.environ.get("TMPDIR")) as tmp:
        cmd = [sys.executable, __file__, "--worker", str(points), str(checkers),
               "1" if cubeful else "0", dtype, memory or "-", "1" if dask else "0",
               str(Path(tmp) / "db")]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              cwd=ROOT)  # fmt: skip
        wall = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise SystemExit(f"worker failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process"] = wall
    result["peak_rss_gib"] = max(peak, before) / 2**20
    return result


def makebearoff(points: int, checkers: int, cubeful: bool) -> float:
    exe = shutil.which("makebearoff") or "/usr/games/makebearoff"
    with tempfile.TemporaryDirectory(prefix="bench-mb-") as home:
        args = [exe, "-t", f"{points}x{checkers}", "-f", str(Path(home) / "x.bd")]
        if not cubeful:
            args.insert(3, "-C")
        t0 = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True,
                       env={"HOME": home, "PATH": "/usr/bin:/bin"})  # fmt: skip
        return time.perf_counter() - t0


def case_ts8(args: argparse.Namespace) -> None:
    print(f"== ts8: two-sided 6x8 cubeful u16 vs makebearoff -t 6x8   (load {_load()})")
    run_worker(6, 4)  # warm numba's cache
    ours = min((run_worker(6, 8) for _ in range(args.repeat)), key=lambda r: r["process"])
    if args.peer_seconds:
        peer, source = args.peer_seconds, "given with --peer-seconds"
    else:
        peer, source = makebearoff(6, 8, True), "measured now"
    print(f"mathbg: process {ours['process']:.2f} s (build {ours['build']:.2f} s), "
          f"peak RSS {ours['peak_rss_gib']:.2f} GiB")  # fmt: skip
    print(f"makebearoff: {peer:.1f} s ({source})")
    print(f"ratio mathbg / makebearoff: {ours['process'] / peer:.4f} (whole process), "
          f"{ours['build'] / peer:.4f} (build only); goal <= 0.01   (load {_load()})")  # fmt: skip


def case_dask12(args: argparse.Namespace) -> None:
    cubeful = not args.cubeless
    kind = "cubeful" if cubeful else "cubeless"
    c = args.checkers
    print(f"== dask{c}: two-sided 6x{c} {kind} u16, local vs Dask LocalCluster(2 workers)"
          f"   (load {_load()})")  # fmt: skip
    run_worker(6, 4)
    local = run_worker(6, c, cubeful=cubeful)
    print(f"local: build {local['build']:.1f} s, peak RSS {local['peak_rss_gib']:.2f} GiB")
    dask = run_worker(6, c, cubeful=cubeful, dask=True)
    print(f"dask:  build {dask['build']:.1f} s (cluster start {dask['startup']:.1f} s), "
          f"transfer {dask['transfer'] / 2**30:.2f} GiB")  # fmt: skip
    print(f"wall ratio dask / local: {dask['build'] / local['build']:.2f} (goal <= 1.5); "
          f"transfer / DB size: {dask['transfer'] / dask['size']:.2f} (goal < 0.7); "
          f"same bytes: {dask['sha256'] == local['sha256']}   (load {_load()})")  # fmt: skip


def case_fresh(args: argparse.Namespace) -> None:
    print(f"== fresh: first 6x6 cubeful u16 build with an empty NUMBA_CACHE_DIR   (load {_load()})")
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        first = run_worker(6, 6, env=env)
        warm = run_worker(6, 6, env=env)
    print(f"first ever: process {first['process']:.1f} s (build {first['build']:.1f} s); "
          f"warm: process {warm['process']:.1f} s (build {warm['build']:.2f} s); "
          f"goal first < 60 s")  # fmt: skip


def case_ts15(args: argparse.Namespace) -> None:
    cubeful = not args.cubeless
    memory = args.memory or ("14GiB" if not cubeful else "16GiB")
    print(f"== ts15: two-sided 6x15 {'cubeful' if cubeful else 'cubeless'} u16, "
          f"--memory {memory}   (load {_load()})")  # fmt: skip
    r = run_worker(6, 15, cubeful=cubeful, memory=memory)
    goal = "45 min within 16 GiB" if cubeful else "12 min, peak 14 GiB"
    print(f"build {r['build'] / 60:.1f} min, process {r['process'] / 60:.1f} min, "
          f"peak RSS {r['peak_rss_gib']:.2f} GiB (goal {goal})   (load {_load()})")  # fmt: skip


_PHASE = re.compile(r"(\w+) ([\d.]+) s wall ([\d.]+) s CPU")
_BAR = re.compile(r"two-sided [^\n]*?(\d+)%\|[^\n]*ETA (\d+):(\d\d)")


def _cli(argv: list[str], data: Path, kill_after: float | None = None) -> dict:
    """Run ``mathbg ARGV`` as a user types it (default memory budget, progress bar on, the
    database in ``$MATHBG_DATA``, its own process): wall time, CPU seconds of the process
    (user + system, all threads) and the cores in use (CPU / wall), and the phases the
    command reports (blocks, assembly, checksum: wall and CPU each). ``kill_after``: SIGKILL
    it after that many seconds (a build to resume)."""
    import signal

    env = dict(os.environ, MATHBG_DATA=str(data))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(["mathbg", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result: dict = {"wall": wall, "cpu": cpu, "cores": cpu / wall if wall else 0.0,
                    "code": proc.returncode, "phases": {}, "path": None}  # fmt: skip
    if kill_after is None and proc.returncode != 0:
        raise SystemExit(f"mathbg {' '.join(argv)} failed:\n{err[-3000:]}")
    bars = _BAR.findall(err.replace("\r", "\n"))
    if bars:  # the build's own progress bar: share of pairs and work-weighted time left
        pct, minutes, seconds = bars[-1]
        result["done"] = int(pct) / 100
        result["eta"] = int(minutes) * 60 + int(seconds)
    for line in out.splitlines():
        if line.startswith("phases:"):
            result["phases"] = {m[1]: (float(m[2]), float(m[3])) for m in _PHASE.finditer(line)}
        elif ": " in line and line.startswith("two-sided"):
            result["path"] = Path(line.split(": ", 1)[1])
    return result


def _report(label: str, r: dict) -> None:
    print(f"{label}: wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, {r['cores']:.2f} cores "
          f"in use (whole process)   (load {_load()})")  # fmt: skip
    for name, (wall, cpu) in r["phases"].items():
        cores = cpu / wall if wall else 0.0
        print(f"  {name:9s} wall {wall:8.1f} s  CPU {cpu:8.1f} s  {cores:.2f} cores")


def case_user(args: argparse.Namespace) -> None:
    """The command as a user types it (default memory budget, progress bar on): from a
    clean start, then killed part way (``--kill-at``, a fraction of the clean run's wall
    time) and resumed; CPU and wall per phase as the command reports them. With
    ``--compare-memory SIZE`` the same command with ``--memory SIZE`` too (clean start)."""
    c = args.checkers
    argv = ["bearoff", "build", "--two-sided", "--points", "6", "--checkers", str(c)]
    argv += ["--cubeless-only"] if args.cubeless else []
    print(f"== user: mathbg {' '.join(argv)} (default memory budget)   (load {_load()})")
    with tempfile.TemporaryDirectory(prefix="bench-user-", dir=os.environ.get("TMPDIR")) as tmp:
        clean = _cli(argv, Path(tmp) / "clean", kill_after=args.deadline)
        if clean["code"] != 0:  # killed at --deadline: what it did so far, and a projection
            done, eta = clean.get("done"), clean.get("eta")
            wall, cpu = clean["wall"], clean["cpu"]
            print(f"clean start killed at the deadline after {wall:.0f} s wall, {cpu:.0f} s "
                  f"CPU ({clean['cores']:.2f} cores; load {_load()})")  # fmt: skip
            if done is not None and eta is not None:
                blocks = wall + eta
                print(f"  blocks {done:.0%} of the pairs done; the bar's work-weighted ETA "
                      f"{eta} s: blocks phase about {blocks:.0f} s wall, "
                      f"{cpu * blocks / wall:.0f} s CPU at these cores")  # fmt: skip
            return
        _report("clean start", clean)
        if args.compare_memory:
            budget = _cli([*argv, "--memory", args.compare_memory], Path(tmp) / "budget")
            _report(f"clean start with --memory {args.compare_memory}", budget)
            shutil.rmtree(Path(tmp) / "budget")
        if args.kill_at > 0:
            killed = _cli(argv, Path(tmp) / "resumed", kill_after=clean["wall"] * args.kill_at)
            print(f"killed after {killed['wall']:.1f} s (CPU {killed['cpu']:.1f} s)")
            resumed = _cli(argv, Path(tmp) / "resumed")
            _report("resumed", resumed)
            same = _sha(clean["path"] / "equity.npy") == _sha(resumed["path"] / "equity.npy")
            both = killed["cpu"] + resumed["cpu"]
            print(f"same bytes after the resume: {same}; killed + resumed CPU {both:.1f} s "
                  f"against {clean['cpu']:.1f} s")  # fmt: skip
    peer = args.peer_seconds
    if c <= 11 and peer is None and args.with_peer:
        peer = makebearoff(6, c, not args.cubeless)
    if peer:
        kind = "-C " if args.cubeless else ""
        print(f"makebearoff -t 6x{c} {kind}(gnubg, one thread): {peer:.1f} s; ratio "
              f"mathbg / makebearoff {clean['wall'] / peer:.3f} (wall)")  # fmt: skip
    else:
        print("peer: makebearoff writes at most 6 x 11 (--with-peer runs it there); for "
              "6 x 15 there is none: compare the CPU seconds with the README's table")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        p, c, cf, dtype, mem, dask, out = sys.argv[2:9]
        worker(int(p), int(c), cf == "1", dtype, None if mem == "-" else mem, dask == "1", out)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["ts8", "fresh"],
                        choices=["ts8", "dask12", "fresh", "ts15", "user"])  # fmt: skip
    parser.add_argument("--peer-seconds", type=float, help="makebearoff -t 6x8 time to reuse")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--cubeless", action="store_true", help="dask12/ts15: cubeless only")
    parser.add_argument("--checkers", type=int, default=12,
                        help="dask12, user: checkers (default 12)")  # fmt: skip
    parser.add_argument("--memory", help="ts15: memory budget")
    parser.add_argument("--deadline", type=float,
                        help="user: kill the clean run after this many seconds and report "
                        "its progress and a projection")  # fmt: skip
    parser.add_argument("--kill-at", type=float, default=0.5,
                        help="user: kill the second run after this fraction of the clean "
                        "run's wall time, then resume it (0: no resume)")  # fmt: skip
    parser.add_argument("--compare-memory", metavar="SIZE",
                        help="user: also run the command with --memory SIZE")  # fmt: skip
    parser.add_argument("--with-peer", action="store_true",
                        help="user: run makebearoff when it can (up to 6 x 11)")  # fmt: skip
    args = parser.parse_args()
    for case in args.cases:
        globals()[f"case_{case}"](args)


if __name__ == "__main__":
    main()
