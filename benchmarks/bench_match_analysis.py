"""Benchmark: the whole match analysed, mathbg against gnubg 1.07 (issue 32).

Run: ``python benchmarks/bench_match_analysis.py [--plies 0 2] [--repeat 2]
[--deep-repeat 1] [--resume [N]] [--cube-only [PLIES ...]] [--cube-only-corpus]
[--corpus-repeat 5] [--no-corpus] [--no-dask] [--blas]``.

1. The same matches analysed by both programs, checker play, cube and luck, at 0 and at 2
   plies: a 13-point match gnubg played against itself (its 0-ply players; kept in
   ``benchmarks/data/selfplay13.mat`` so that every run measures the same match; the shared
   collection has no 13-point match) and the longest shared 7-point match. mathbg runs as
   a user types it, ``mathbg audit FILE`` (default settings: ``auto`` engine, the exact
   bearoff solver beside; ``--plies 2``), one whole process; gnubg runs ``import mat`` and
   ``analyse match`` in one ``gnubg -t`` process, measured as a whole process and inside
   it (its embedded Python's clock around ``analyse match``), its start-up (an empty
   script) apart. At 2 plies both programs run with one calculation thread (gnubg's
   default; ``mathbg audit --threads 1``) and with one a CPU (mathbg's default; gnubg's
   ``set threads N``), the four commands turn about, ``--deep-repeat`` times each without
   a warm-up run (a second is lost in a 2-ply analysis): CPU ratios at the same threads,
   and wall ratios. mathbg's analysis kept from the run before is removed before each of
   these runs (each analyses the match); then ``mathbg audit`` is typed once more and
   reads the analysis the last run kept (its CPU, and whether the report is the same).
   All times are CPU seconds of the process (user + system; the machine is shared, wall
   time is printed beside), warm (best of ``--repeat`` after a first run
   that fills the caches); the two programs' whole processes run turn about, so that the
   host's drifting speed weighs on both alike. Ratios: whole process against whole
   process, in one process against in one process (mathbg's best run after the first in a
   process, gnubg's ``analyse match``), and mathbg's whole process against gnubg's
   analysis alone. At 0 plies mathbg's command also runs with numba's JIT kernels
   (``MATHBG_NATIVE=0``: what a build without a C compiler runs) turn about with the
   kernels compiled ahead of time (:mod:`mathbg._native`), and the two reports are
   compared. Goal: mathbg's 0-ply whole process at most gnubg's CPU for the same match
   (about 1.3-1.5 s for a 13-point match), and mathbg's 2-ply at most gnubg's 2-ply.
   With ``--resume N``: ``mathbg corpus --audit --plies 1`` over N shared matches, as
   typed, uninterrupted, then killed half way and typed again (it reads the analyses the
   killed run kept): the CPU of each and whether the outputs are the same. With
   ``--cube-only``: ``mathbg audit FILE --cube-only --plies 2`` as typed (gnubg analyses
   the cube decisions only), turn about with gnubg doing the same and with gnubg's whole
   analysis; with ``--cube-only-corpus`` the same over the shared matches (``mathbg corpus
   DIR --audit --cube-only --plies 2``).
2. A corpus of 1,000+ matches (the 212 shared matches ``--corpus-repeat`` times) analysed
   by ``corpus_stats(..., audit=True)`` locally (one process) and on a Dask
   ``LocalCluster`` of 2 single-threaded worker processes: wall times, their ratio (goal:
   Dask within 1.3x of local) and whether the numbers are identical.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import gnubg_peer, killed_when

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((d / "shared" / "matches" / "galaxy" for d in ROOT.parents
               if (d / "shared" / "matches" / "galaxy").is_dir()), ROOT / "data" / "matches")
SEVEN = "match2287710.txt"
#: The 13-point match every run measures: one :func:`self_play_match` wrote (gnubg 1.07's 0-ply
#: players against each other), kept so that runs compare (gnubg's self-play is not the same
#: match from run to run on every machine). Delete it to play a new one.
FIXED13 = Path(__file__).resolve().parent / "data" / "selfplay13.mat"

SELF_PLAY = r"""
import gnubg
gnubg.command("set display off")
for side in (0, 1):
    gnubg.command("set player %%d gnubg" %% side)
    for what in ("chequerplay", "cubedecision"):
        gnubg.command("set player %%d %%s evaluation plies 0" %% (side, what))
gnubg.command("new match 13")
gnubg.command("set seed %(seed)d")
for _ in range(100):
    gnubg.nextturn()
    if gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)["match-info"].get("result"):
        break
gnubg.command("export match mat %(out)s")
"""

INSIDE = r"""
import gnubg, time
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
for what in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %%s evaluation plies %(plies)d" %% what)
gnubg.command("import mat %(path)s")
cpu, wall = time.process_time(), time.perf_counter()
gnubg.command("analyse match")
print("INSIDE %%.4f %%.4f" %% (time.process_time() - cpu, time.perf_counter() - wall))
"""


MATHBG_INSIDE = r"""
import contextlib, io, time
from pathlib import Path
import gnubg_nn
from mathbg.cli import main
from mathbg.analysis.net import engine
kernel = [0.0, 0]  # the native engine's kernel: CPU-s, plays valued
_run = engine._run
def timed(mode, boards, *args, **kwargs):
    t = time.process_time()
    out = _run(mode, boards, *args, **kwargs)
    kernel[0] += time.process_time() - t
    kernel[1] += len(out[1]) if mode == engine.ALL_PLAYS else 0
    return out
engine._run = timed
runs = []
for k in range(1 + %(again)d):
    if k:  # fresh caches: the engines' evaluation caches do not hold the earlier positions
        gnubg_nn.net_use(gnubg_nn.net_load(str(Path(gnubg_nn.__file__).parent / "data"
                                               / "gnubg.weights")))
        engine._LOCAL.__dict__.clear()
    kernel[:] = [0.0, 0]
    t = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        main(%(argv)r)
    runs.append((time.process_time() - t, *kernel))
best = min(runs[1:])
print(runs[0][0], *best)
"""


def analysis_settings(plies: int) -> list[str]:
    """gnubg commands: both players human, the analysis (checker play, cube) at ``plies``."""
    what = ("chequerplay", "cubedecision")
    return ["set player 0 human", "set player 1 human",
            *[f"set analysis {w} evaluation plies {plies}" for w in what]]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        before: Callable[[], object] | None = None) -> tuple[float, float, str]:  # fmt: skip
    """CPU and wall seconds of one process, and its stdout (raises when it fails);
    ``before`` is called first, outside the time."""
    if before is not None:
        before()
    cpu, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} failed: {proc.stderr[-1500:]}")
    return _children_cpu() - cpu, wall, proc.stdout


def best(argv: list[str], repeat: int, **kw: object) -> tuple[float, float, str]:
    run(argv, **kw)  # type: ignore[arg-type]  # first run: caches filled
    runs = [run(argv, **kw) for _ in range(max(1, repeat))]  # type: ignore[arg-type]
    return min(runs, key=lambda r: r[0])


def best_pair(first: list[str], second: list[str], repeat: int, kw: dict[str, Any]
              ) -> tuple[tuple[float, float, str], tuple[float, float, str]]:  # fmt: skip
    """:func:`best` of two commands run turn about (``kw`` for the second), so that a
    shared host's speed, which drifts within minutes, weighs on both alike."""
    a, b = best_turns([(first, {}), (second, kw)], repeat)
    return a, b


def best_turns(commands: list[tuple[list[str], dict[str, Any]]], repeat: int,
               warm: bool = True, cpus: list[list[float]] | None = None
               ) -> list[tuple[float, float, str]]:  # fmt: skip
    """:func:`best` of each command (argv, keywords of :func:`run`), all run turn about
    ``repeat`` times after one run each that fills the caches (``warm``); ``cpus`` gets
    every run's CPU seconds, a list per command."""
    if warm:
        for argv, kw in commands:
            run(argv, **kw)
    runs: list[list[tuple[float, float, str]]] = [[] for _ in commands]
    for _ in range(max(1, repeat)):
        for got, (argv, kw) in zip(runs, commands, strict=True):
            got.append(run(argv, **kw))
    if cpus is not None:
        cpus.extend([r[0] for r in got] for got in runs)
    return [min(got, key=lambda r: r[0]) for got in runs]


def gnubg_script(gnubg: Path, home: str, text: str, flag: str = "-p", name: str = "s"
                 ) -> list[str]:  # fmt: skip
    """The command running ``text`` in gnubg (``-p``: Python, ``-c``: gnubg commands), the
    script written to ``home`` as ``name`` (the last script of that name wins)."""
    script = Path(home) / (name + (".py" if flag == "-p" else ".cmd"))
    script.write_text(text)
    return [str(gnubg), "-t", "-q", "-r", flag, str(script)]


def self_play_match(gnubg: Path, home: str, out: Path, rolls: int = 700) -> Path:
    """The first of seeds 1, 2, ... whose self-played 13-point match has at least ``rolls``
    rolls (a long match, as real 13-point matches are; at most 12 tries, else the longest)."""
    longest = (0, "")
    for seed in range(1, 13):
        run(gnubg_script(gnubg, home, SELF_PLAY % {"out": out, "seed": seed}),
            env=_gnubg_env(home), cwd=home)  # fmt: skip
        text = out.read_text()
        n = sum(line.count(":") - (1 if "Game" in line else 0) for line in text.splitlines()
                if ")" in line)  # fmt: skip
        longest = max(longest, (n, text))
        if n >= rolls:
            break
    out.write_text(longest[1])
    return out


def _gnubg_env(home: str) -> dict[str, str]:
    return dict(os.environ, HOME=home, LANG="C", LC_ALL="C")


def _threads() -> int:
    from mathbg.analysis.gnubg_program import analysis_threads

    return analysis_threads()


def native_status() -> str:
    """How a mathbg process runs its kernels here (:func:`mathbg._native.status`)."""
    code = "from mathbg import _native; print(_native.status())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def _forget(rec: Any, plies: int, checker: bool = True) -> Callable[[], None]:
    """Remove the gnubg analysis ``mathbg audit`` keeps of ``rec`` at ``plies`` (in the
    cache directory the benchmark's commands share; ``checker`` False: the cube-only
    analysis of ``--cube-only``), so that the next run analyses."""
    from mathbg.analysis.gnubg_program import kept_analysis_path
    from mathbg.rules.formats import render_match

    path = kept_analysis_path(render_match(rec, "mat"), plies, checker=checker)

    def forget() -> None:
        if path is not None:
            path.unlink(missing_ok=True)

    return forget


def bench_match(path: Path, plies: int, repeat: int, gnubg: Path | None, home: str) -> None:
    from mathbg.rules import read_match

    rec = read_match(path)
    moves = sum(1 for g in rec.games for a in g.actions if type(a).__name__ == "Move")
    print(f"\n{path.name}: {rec.length}-point match, {len(rec.games)} games, {moves} rolls; "
          f"{plies}-ply")  # fmt: skip
    argv = [sys.executable, "-m", "mathbg", "audit", str(path)]
    if plies:
        argv += ["--plies", str(plies)]
    env = _gnubg_env(home)
    cmds = [*analysis_settings(plies), f"import mat {path}", "analyse match"]
    g_argv = (gnubg_script(gnubg, home, "\n".join(cmds) + "\n", "-c") if gnubg is not None
              else None)  # fmt: skip
    one = g_threads = again = None
    cpus: list[list[float]] = []
    if g_argv is None:
        cpu, wall, _ = best(argv, repeat)
        g_best = None
    elif plies:  # mathbg and gnubg, each with one thread and with one a CPU, turn about
        n = _threads()
        g_many = gnubg_script(gnubg, home, f"set threads {n}\n" + "\n".join(cmds) + "\n", "-c",
                              name="threads")  # fmt: skip
        gkw = {"env": env, "cwd": home}
        fresh = {"before": _forget(rec, plies)}  # every run analyses: none kept before it
        (cpu, wall, out), one, g_best, g_threads = best_turns(
            [(argv, fresh), ([*argv, "--threads", "1"], fresh), (g_argv, gkw), (g_many, gkw)],
            repeat, warm=False, cpus=cpus)  # fmt: skip
        again = run(argv)  # typed again: the analysis the last run kept is read
    else:  # the two programs turn about
        (cpu, wall, _), g_best = best_pair(argv, g_argv, repeat, {"env": env, "cwd": home})
    print(f"  mathbg audit (whole process, as typed):       {cpu:7.2f} CPU-s ({wall:.2f} s wall); "
          f"kernels: {native_status()}")  # fmt: skip
    if one is not None and g_best is not None and g_threads is not None and again is not None:
        n = _threads()
        print(f"  mathbg audit --threads 1:                     {one[0]:7.2f} CPU-s "
              f"({one[1]:.2f} s wall; the default gives gnubg {n} calculation threads)")
        print(f"  gnubg with set threads {n} (whole process):     {g_threads[0]:7.2f} CPU-s "
              f"({g_threads[1]:.2f} s wall)")  # fmt: skip
        print(f"  ratios mathbg / gnubg at the same threads: one thread {one[0] / g_best[0]:.2f}x "
              f"CPU; {n} threads {cpu / g_threads[0]:.2f}x CPU, {wall / g_threads[1]:.2f}x wall; "
              f"mathbg's default against gnubg's (one thread): {wall / g_best[1]:.2f}x "
              f"wall")  # fmt: skip
        print(f"  mathbg audit typed again (the analysis kept): {again[0]:7.2f} CPU-s "
              f"({again[1]:.2f} s wall; {again[0] / g_best[0]:.3f}x gnubg's CPU); the same "
              f"report: {again[2] == out}")  # fmt: skip
        names = ("mathbg", "mathbg --threads 1", "gnubg", f"gnubg {n} threads")
        print("  every run's CPU-s, turn about (the host's drift): " + "; ".join(
            f"{name} {', '.join(f'{c:.2f}' for c in got)}"
            for name, got in zip(names, cpus, strict=True)))
    if not plies:  # the same with numba's JIT kernels, turn about with the compiled ones
        jit_env = dict(os.environ, MATHBG_NATIVE="0")
        (aot, _, out), (jit, _, jit_out) = best_pair(argv, argv, repeat, {"env": jit_env})
        print(f"  the same with numba's kernels (MATHBG_NATIVE=0): {jit:.2f} CPU-s against "
              f"{aot:.2f} compiled ahead of time, turn about ({jit / aot:.2f}x); same "
              f"report: {out == jit_out}")  # fmt: skip
    inside = None
    if not plies:  # at 2 plies the start-up is lost in the work: no second run in a process
        code = MATHBG_INSIDE % {"argv": argv[3:], "again": max(1, repeat)}
        _, _, out = run([sys.executable, "-c", code])
        first, inside, kernel, plays = (float(x) for x in out.split()[-4:])
        print(f"  mathbg audit inside one process:              {inside:7.2f} CPU-s, the best "
              f"of {max(1, repeat)} runs after the first (code loaded, the engines' caches "
              f"emptied; the first run {first:.2f}: imports, the kernels loaded, databases "
              f"opened)")  # fmt: skip
        if plays:
            print(f"    of which the native engine's kernel:        {kernel:7.2f} CPU-s, "
                  f"{plays:,.0f} plays generated and valued, {kernel / plays * 1e6:.2f} us "
                  f"each; the rest {inside - kernel:.2f} s")  # fmt: skip
    _bench_gnubg(path, plies, repeat, gnubg, home, (cpu, inside), g_best)


def _bench_gnubg(path: Path, plies: int, repeat: int, gnubg: Path | None, home: str,
                 mathbg: tuple[float, float | None], whole: tuple[float, float, str] | None
                 ) -> None:  # fmt: skip
    """gnubg's analysis of ``path`` at ``plies``, whole process (``whole``, measured turn
    about with mathbg) and inside (best of ``repeat`` processes), and the ratios to
    mathbg's CPU (``mathbg``: whole process, and inside one process or None)."""
    if gnubg is None or whole is None:
        print("  gnubg not installed: no peer")
        return
    env = _gnubg_env(home)
    g_cpu, g_wall, _ = whole
    s_cpu, _, _ = best(gnubg_script(gnubg, home, "set player 0 human\n", "-c"), repeat,
                       env=env, cwd=home)  # fmt: skip
    script = gnubg_script(gnubg, home, INSIDE % {"plies": plies, "path": path})
    insides = []
    for _ in range(max(1, repeat)):
        _, _, out = run(script, env=env, cwd=home)
        line = next(ln for ln in out.splitlines() if ln.startswith("INSIDE"))
        insides.append(tuple(float(x) for x in line.split()[1:]))
    in_cpu, in_wall = min(insides)
    cpu, inside = mathbg
    print(f"  gnubg import + analyse match (whole process): {g_cpu:7.2f} CPU-s "
          f"({g_wall:.2f} s wall), of which start-up {s_cpu:.2f}")
    print(f"  gnubg analyse match (inside the process):     {in_cpu:7.2f} CPU-s "
          f"({in_wall:.2f} s wall)")  # fmt: skip
    in_one = "" if inside is None else f"{inside / max(in_cpu, 1e-9):.2f}x in one process, "
    print(f"  ratio mathbg / gnubg: {cpu / g_cpu:.2f}x whole processes, {in_one}"
          f"{cpu / max(in_cpu, 1e-9):.2f}x mathbg's whole process against gnubg's analysis "
          f"alone")  # fmt: skip


def bench_cube_only(path: Path, plies: int, repeat: int, gnubg: Path, home: str) -> None:
    """``mathbg audit FILE --cube-only --plies P`` as typed (gnubg analyses the cube
    decisions only; the analysis it kept removed before each run), turn about with gnubg
    analysing the same (``set analysis moves off``, ``set analysis luck off``) and with
    gnubg's whole analysis, each a whole process at gnubg's default of one thread."""
    from mathbg.rules import read_match

    rec = read_match(path)
    print(f"\n{path.name}: the cube decisions only, {plies}-ply")
    argv = [sys.executable, "-m", "mathbg", "audit", str(path), "--cube-only",
            "--plies", str(plies)]  # fmt: skip
    settings = analysis_settings(plies)
    cube = [*settings, "set analysis moves off", "set analysis luck off",
            f"import mat {path}", "analyse match"]  # fmt: skip
    whole = [*settings, f"import mat {path}", "analyse match"]
    gkw = {"env": _gnubg_env(home), "cwd": home}
    g_cube = gnubg_script(gnubg, home, "\n".join(cube) + "\n", "-c", name="cube")
    g_whole = gnubg_script(gnubg, home, "\n".join(whole) + "\n", "-c", name="whole")
    cpus: list[list[float]] = []
    mine, theirs, all_of_it = best_turns(
        [(argv, {"before": _forget(rec, plies, checker=False)}), (g_cube, gkw), (g_whole, gkw)],
        repeat, warm=False, cpus=cpus)  # fmt: skip
    again = run(argv)
    print(f"  mathbg audit --cube-only (whole process):     {mine[0]:7.2f} CPU-s "
          f"({mine[1]:.2f} s wall; gnubg's threads: {_threads()})")
    print(f"  gnubg, cube decisions only (whole process):   {theirs[0]:7.2f} CPU-s "
          f"({theirs[1]:.2f} s wall)")
    print(f"  gnubg, the whole analysis (whole process):    {all_of_it[0]:7.2f} CPU-s "
          f"({all_of_it[1]:.2f} s wall)")
    print(f"  ratios: {mine[0] / theirs[0]:.2f}x gnubg's cube-only CPU (the same work); "
          f"{mine[0] / all_of_it[0]:.3f}x the CPU and {mine[1] / all_of_it[1]:.3f}x the wall "
          f"time of gnubg's whole analysis")  # fmt: skip
    print(f"  typed again (the cube analysis kept):          {again[0]:7.2f} CPU-s; the same "
          f"report: {again[2] == mine[2]}")  # fmt: skip
    print("  every run's CPU-s, turn about: " + "; ".join(
        f"{name} {', '.join(f'{c:.2f}' for c in got)}"
        for name, got in zip(("mathbg", "gnubg cube-only", "gnubg whole"), cpus, strict=True)))


def bench_native_search(path: Path, plies: int, repeat: int, gnubg: Path, home: str) -> None:
    """``mathbg audit FILE --engine native --plies P`` as typed (gnubg's n-ply analysis in
    mathbg's kernels, no gnubg program; a game per worker process, one per CPU) and with
    ``--threads 1``, turn about with gnubg's whole analysis of the same match with one
    calculation thread (its default) and with one per CPU, each a whole process; then the
    first-ever run (an empty numba cache and data directory: whatever is not compiled
    ahead of time compiled, the databases built) and the search in-process, warm."""
    import os
    import tempfile
    import time

    from mathbg.analysis.match_audit.cube import cube_points
    from mathbg.analysis.match_audit.search import search_values
    from mathbg.analysis.match_audit.turns import match_turns
    from mathbg.met import as_met
    from mathbg.rules import read_match

    rec = read_match(path)
    cpus_n = os.cpu_count() or 1
    print(f"\n{path.name}: mathbg's native {plies}-ply search against gnubg's {plies}-ply analysis")
    argv = [sys.executable, "-m", "mathbg", "audit", str(path), "--engine", "native",
            "--plies", str(plies)]  # fmt: skip
    whole = [*analysis_settings(plies), f"import mat {path}", "analyse match"]
    gkw = {"env": _gnubg_env(home), "cwd": home}
    g_one = gnubg_script(gnubg, home, "\n".join(whole) + "\n", "-c", name="one")
    g_all = gnubg_script(gnubg, home, "\n".join([f"set threads {cpus_n}", *whole]) + "\n",
                         "-c", name="all")  # fmt: skip
    cpus: list[list[float]] = []
    mine, mine1, theirs, theirs_n = best_turns(
        [(argv, {}), ([*argv, "--threads", "1"], {}), (g_one, gkw), (g_all, gkw)], repeat,
        warm=True, cpus=cpus)  # fmt: skip
    with tempfile.TemporaryDirectory() as fresh:  # nothing compiled, nothing built
        first = run(argv, env={**os.environ, "NUMBA_CACHE_DIR": fresh,
                               "MATHBG_DATA": str(Path(fresh) / "data")})
    points, turns = cube_points(rec), match_turns(rec)
    t0 = time.process_time()
    search_values(rec, points, turns, as_met("kazaross-xg2"), plies, progress=False, threads=1)
    inside = time.process_time() - t0
    print(f"  mathbg audit --engine native (whole process, {cpus_n} workers): {mine[0]:7.2f} "
          f"CPU-s ({mine[1]:.2f} s wall)")
    print(f"  the same with --threads 1:                     {mine1[0]:7.2f} CPU-s "
          f"({mine1[1]:.2f} s wall); the same report: {mine1[2] == mine[2]}")
    print(f"  gnubg's whole analysis, one thread (whole process): {theirs[0]:7.2f} CPU-s "
          f"({theirs[1]:.2f} s wall)")
    print(f"  gnubg's whole analysis, {cpus_n} threads (whole process): {theirs_n[0]:7.2f} CPU-s "
          f"({theirs_n[1]:.2f} s wall)")
    print(f"  ratios: CPU {mine[0] / theirs[0]:.2f}x gnubg's one thread "
          f"({mine1[0] / theirs[0]:.2f}x with --threads 1); wall {mine[1] / theirs_n[1]:.2f}x "
          f"gnubg's with {cpus_n} threads, {mine[1] / theirs[1]:.2f}x its default")  # fmt: skip
    print(f"  first-ever run (empty numba cache and data):   {first[0]:7.2f} CPU-s "
          f"({first[1]:.2f} s wall)")
    print(f"  the search in-process, one process (warm):     {inside:7.2f} CPU-s")
    print("  every run's CPU-s, turn about: " + "; ".join(
        f"{name} {', '.join(f'{c:.2f}' for c in got)}"
        for name, got in zip(("mathbg", "mathbg --threads 1", "gnubg 1 thread",
                              f"gnubg {cpus_n} threads"), cpus, strict=True)))


def bench_cube_only_corpus(plies: int) -> None:
    """``mathbg corpus DIR --audit --cube-only --plies P --json`` as typed over the shared
    matches, in a fresh cache directory after one run that makes its other files (bearoff
    databases): one whole run, the gnubg program analysing every match's cube decisions."""
    import json
    import shutil

    argv = [sys.executable, "-m", "mathbg", "corpus", str(SHARED), "--audit", "--cube-only",
            "--plies", str(plies), "--json"]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-cube-corpus-") as data:
        env = dict(os.environ, MATHBG_DATA=data)
        run(argv, env=env)
        shutil.rmtree(Path(data) / "gnubg")
        cpu, wall, out = run(argv, env=env)
    doc = json.loads(out)
    audit = doc["overall"]["audit"]
    print(f"\ncorpus {SHARED.name}/ --audit --cube-only --plies {plies}, as typed: {doc['files']} "
          f"matches ({len(doc['skipped'])} skipped), {audit['decisions']:,} cube decisions, "
          f"{audit['errors']:,} errors: {cpu:.1f} CPU-s, {wall:.1f} s wall "
          f"({cpu / max(1, doc['files']):.2f} CPU-s a match)")  # fmt: skip


def bench_blas_threads(path: Path, repeat: int) -> None:
    """``mathbg audit`` as typed (one BLAS thread, the command's default) against the same
    with two OpenBLAS threads, whole processes turn about: the CPU that spinning BLAS
    threads cost."""
    argv = [sys.executable, "-m", "mathbg", "audit", str(path)]
    (one, _, _), (two, _, _) = best_pair(argv, argv, repeat,
                                         {"env": dict(os.environ, OPENBLAS_NUM_THREADS="2")})
    print(f"\n{path.name}, 0-ply audit, whole process: {one:.2f} CPU-s with one BLAS thread "
          f"(the default), {two:.2f} with OPENBLAS_NUM_THREADS=2 ({two / one:.2f}x)")


def bench_corpus(repeat: int, dask: bool) -> None:
    from mathbg.analysis import corpus_stats

    files = [str(p) for p in sorted(SHARED.glob("*.txt"))] * repeat
    print(f"\ncorpus: {len(files)} matches ({len(files) // repeat} shared x {repeat}), "
          "corpus_stats(audit=True), gnubg-nn 0-ply")
    start, cpu = time.perf_counter(), time.process_time()
    local = corpus_stats(files, audit=True, progress=False)
    t_local, c_local = time.perf_counter() - start, time.process_time() - cpu
    print(f"  local, one process: {t_local:.1f} s wall, {c_local:.1f} CPU-s")
    if not dask:
        return
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        client.run(lambda: corpus_stats(files[:2], audit=True, progress=False))  # warm workers
        start = time.perf_counter()
        remote = corpus_stats(files, audit=True, client=client)
        t_dask = time.perf_counter() - start
    dask_verdict("  Dask LocalCluster (2 workers):", t_dask, t_local,
                 remote.as_dict() == local.as_dict())  # fmt: skip


def bench_resume(plies: int, count: int) -> None:
    """``mathbg corpus FILES --audit --plies K --json`` as typed over ``count`` shared
    matches (the gnubg program analyses them; off a terminal, so that the outputs compare):
    uninterrupted, then killed (SIGKILL to it and its gnubg) once half the matches' analyses
    are kept and typed again; the CPU of each (all processes) and whether the resumed run
    prints the uninterrupted one's output."""
    import shutil

    files = [str(p) for p in sorted(SHARED.glob("*.txt"))[:count]]
    argv = [sys.executable, "-m", "mathbg", "corpus", *files, "--audit", "--plies", str(plies),
            "--json"]  # fmt: skip
    print(f"\ncorpus --audit --plies {plies} over {len(files)} shared matches, as typed "
          f"(--json), killed half way and typed again")
    with tempfile.TemporaryDirectory(prefix="bench-resume-") as data:
        env = dict(os.environ, MATHBG_DATA=data)
        kept = Path(data) / "gnubg"
        run(argv, env=env)  # the cache directory's other files made (bearoff databases)
        shutil.rmtree(kept)
        cpu, wall, out = run(argv, env=env)
        shutil.rmtree(kept)
        k_cpu, k_wall = killed_when(argv, lambda: kept.is_dir() and len(list(
            kept.glob("*.json.gz"))) >= len(files) // 2, env)  # fmt: skip
        done = len(list(kept.glob("*.json.gz")))
        r_cpu, r_wall, again = run(argv, env=env)
    print(f"  uninterrupted: {cpu:.1f} CPU-s, {wall:.1f} s wall")
    print(f"  killed after {k_wall:.1f} s wall ({k_cpu:.1f} CPU-s) with {done} of {len(files)} "
          f"analyses kept; typed again, it resumed in {r_cpu:.1f} CPU-s, {r_wall:.1f} s wall "
          f"(killed + resumed {(k_cpu + r_cpu) / cpu:.2f}x the uninterrupted run's CPU); the "
          f"output is the uninterrupted run's: {again == out}")  # fmt: skip


def dask_verdict(label: str, t_dask: float, t_local: float, same: bool) -> None:
    """Print Dask's wall time against local's and stop the benchmark when the numbers differ."""
    print(f"{label} {t_dask:.1f} s wall, {t_dask / t_local:.2f}x local (goal: within 1.3x); "
          f"identical numbers: {same}")
    if not same:
        sys.exit("Dask and local results differ")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plies", type=int, nargs="*", default=[0, 2])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--deep-repeat", type=int, default=1,
                    help="runs of each command at plies >= 1, turn about (default 1)")
    ap.add_argument("--corpus-repeat", type=int, default=5)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--resume", type=int, nargs="?", const=12, default=0, metavar="N",
                    help="also time corpus --audit --plies 1 over N shared matches (default "
                         "12), uninterrupted and killed half way then typed again")
    ap.add_argument("--cube-only", type=int, nargs="*", default=None, metavar="PLIES",
                    help="also time audit --cube-only at these plies (default 2) against "
                         "gnubg's cube-only and whole analyses, turn about")
    ap.add_argument("--native", type=int, nargs="*", default=None, metavar="PLIES",
                    help="mathbg's native n-ply search (`audit --engine native --plies P`) "
                         "against gnubg's whole analysis (default: 1 and 2 plies)")
    ap.add_argument("--cube-only-corpus", action="store_true",
                    help="also time corpus --audit --cube-only --plies 2 over the shared "
                         "matches, as typed")
    ap.add_argument("--blas", action="store_true",
                    help="also time the 0-ply audit with OPENBLAS_NUM_THREADS=2 against the "
                         "command's default of one BLAS thread, turn about")  # fmt: skip
    args = ap.parse_args()
    peer = gnubg_peer()
    gnubg = peer.gnubg if peer is not None else None
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-match-") as home:
        matches = []
        if gnubg is not None:
            matches.append(FIXED13 if FIXED13.exists() else
                           self_play_match(gnubg, home, Path(home) / "selfplay13.mat"))
        if (SHARED / SEVEN).exists():
            matches.append(SHARED / SEVEN)
        for plies in args.plies:
            for path in matches:
                bench_match(path, plies, args.repeat if plies == 0 else args.deep_repeat,
                            gnubg, home)  # fmt: skip
        if args.cube_only is not None and gnubg is not None:
            for plies in args.cube_only or [2]:
                for path in matches:
                    bench_cube_only(path, plies, args.deep_repeat, gnubg, home)
        if args.native is not None and gnubg is not None:
            for plies in args.native or [1, 2]:
                bench_native_search(matches[0], plies, args.deep_repeat, gnubg, home)
        if args.blas and matches:
            bench_blas_threads(matches[0], args.repeat)
    if args.cube_only_corpus and gnubg is not None and SHARED.exists():
        bench_cube_only_corpus(2)
    if args.resume and gnubg is not None:
        bench_resume(1, args.resume)
    if not args.no_corpus:
        bench_corpus(args.corpus_repeat, not args.no_dask)


if __name__ == "__main__":
    main()
