"""First-ever and warm wall time of every mathbg command, next to gnubg's for the same work.

Each command runs as a whole process, first with an empty numba cache (``NUMBA_CACHE_DIR``)
and an empty data directory (``MATHBG_DATA``), so the first-ever run includes compiling its
kernels and building any database it needs, then warm (best and median of ``--repeat`` runs
with both caches filled). By default the process is ``python -m mathbg ...`` of this
checkout; ``--installed`` measures as a user runs it: the wheel is built, installed into a
fresh virtual environment (its dependencies from the package index) and its ``mathbg``
command run from an empty directory. gnubg 1.07 runs the comparable work as a
whole process where one exists (``makebearoff -o 6`` for the one-sided build, ``gnubg -t``
command scripts for tables, market windows and race counts); ``--two-sided-peer`` also runs
``makebearoff -t 6x6`` (about 25 s), the work behind the first two-sided ``bearoff show``.

Goals (issue 14, 2 cores): the first-ever one-sided 6x15 build under 10 s; every other
command's first run under 5 s (issue 34.7: the first ``mathbg audit``, the whole match
analysed, under 8 s of CPU); the warm 6x15 build at most 0.25x ``makebearoff -o 6``.

    python benchmarks/bench_first_use.py [--only NAME ...] [--repeat 3] [--two-sided-peer]
                                         [--installed [--extras engine]]
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
from dataclasses import dataclass
from pathlib import Path

from _common import gnubg_peer

REPO = Path(__file__).resolve().parent.parent
#: A real 5-point match shipped with mathbg (package data: data/matches).
MATCH = str(REPO / "data" / "matches" / "match10014006.txt")


@dataclass(frozen=True)
class Command:
    name: str
    argv: tuple[str, ...]
    goal: float  # first-ever seconds
    peer: str = ""  # key into PEERS


COMMANDS = [
    Command("position --roll", ("position", "4HPwATDgc/ABMA", "--roll", "31"), 5.0, "position"),
    Command("met", ("met", "--model", "kazaross-xg2", "--length", "7"), 5.0, "met"),
    Command("met --model zadeh", ("met", "--model", "zadeh", "--length", "25"), 5.0),
    Command("takepoint", ("takepoint", "--away", "3,5", "--cube", "2"), 5.0, "takepoint"),
    Command("cube money", ("cube", "money", "--gammons", "0.2,0.2"), 5.0),
    Command(
        "cube decide",
        ("cube", "decide", "--probs", "0.72,0.25,0.01,0.05,0.002", "--away", "3,5"),
        5.0,
    ),
    Command(
        "bearoff build 6x15",
        ("bearoff", "build", "--points", "6", "--checkers", "15", "--quiet", "--rebuild"),
        10.0,
        "makebearoff-o6",
    ),
    Command("bearoff show", ("bearoff", "show", "0,0,0,3,5,7"), 10.0),
    Command(
        "bearoff show --two-sided",
        ("bearoff", "show", "--two-sided", "0,0,0,0,0,1", "0,0,0,0,0,1"),
        5.0,
        "makebearoff-t6x6",
    ),
    Command("race", ("race", "/38AAADfAwAAAA"), 5.0, "race"),
    Command("selfplay --games 100", ("selfplay", "--games", "100", "--seed", "1"), 5.0),
    Command(
        "bearoff match",
        ("bearoff", "match", "0,0,1,1,1,1", "0,0,0,2,1,1", "--away", "3,3"),
        5.0,
    ),
    Command(
        "analyze --probs",
        ("analyze", "4HPwATDgc/ABMA", "--length", "7", "--probs", "0.70,0.20,0.01,0.05,0.002"),
        5.0,
    ),
    # the whole match analysed (checker play, cube, luck) as a user runs it; issue 34.7's goal
    # for the first-ever audit is 8 s of CPU
    Command("audit", ("audit", MATCH), 8.0, "audit"),
    Command("corpus", ("corpus", str(REPO / "data" / "matches")), 5.0),
    Command("convert", ("convert", MATCH, "converted.sgf", "--force"), 5.0, "convert"),
    # a 72-trial cubeful rollout (the native engine: nothing extra to install) and a
    # 1-checker Hypergammon solve
    Command("rollout", ("rollout", "bVsAANi2AgAAAA", "--away", "4,4", "--trials", "72"), 5.0),
    Command("hyper", ("hyper", "AACAAAAAAgAAAA", "--checkers", "1", "--away", "3,3"), 5.0),
]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_mathbg(
    argv: tuple[str, ...], env: dict[str, str], cwd: Path, command: list[str]
) -> tuple[float, float]:
    """Wall and CPU time of one ``COMMAND ARGV`` process (raises when it fails)."""
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(
        [*command, *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"mathbg {' '.join(argv)} failed: {proc.stderr[-1500:]}")
    return seconds, _children_cpu() - cpu


def install_wheel(tmp: Path, extras: str = "") -> Path:
    """Build the wheel of this checkout, install it (with ``extras``, e.g. ``engine``) into a
    fresh virtual environment under ``tmp`` and return that environment's ``mathbg`` command."""
    dist = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "-q", "-w", "-o", str(dist), str(REPO)],
        check=True, capture_output=True,
    )  # fmt: skip
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next(dist.glob("mathbg-*.whl"))
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
         "--disable-pip-version-check", f"{wheel}[{extras}]" if extras else str(wheel)],
        check=True,
    )  # fmt: skip
    return venv / "bin" / "mathbg"


def _gnubg_commands(commands: list[str]) -> Callable[[], float]:
    peer = gnubg_peer()

    def run() -> float:
        start = time.perf_counter()
        peer.run_commands(commands)
        return time.perf_counter() - start

    return run


def _makebearoff(flag: list[str]) -> Callable[[], float]:
    peer = gnubg_peer()

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="makebearoff-") as tmp:
            env = dict(os.environ, HOME=tmp)
            start = time.perf_counter()
            subprocess.run(
                [str(peer.makebearoff), *flag, "-f", str(Path(tmp) / "out.bd")],
                env=env,
                cwd=tmp,
                check=True,
                capture_output=True,
                stdin=subprocess.DEVNULL,
            )
            return time.perf_counter() - start

    return run


_HUMANS = ["set player 0 human", "set player 1 human"]
_ZERO_PLY = [f"set analysis {w} evaluation plies 0" for w in ("chequerplay", "cubedecision")]
PEERS: dict[str, tuple[str, Callable[[], Callable[[], float]]]] = {
    "makebearoff-o6": ("makebearoff -o 6", lambda: _makebearoff(["-o", "6"])),
    "makebearoff-t6x6": ("makebearoff -t 6x6", lambda: _makebearoff(["-t", "6x6"])),
    "met": (
        "gnubg -t: show matchequitytable 7",
        lambda: _gnubg_commands(["show matchequitytable 7"]),
    ),
    "takepoint": (
        "gnubg -t: new match 7, score, show marketwindow",
        lambda: _gnubg_commands(
            [*_HUMANS, "new match 7", "set score 4 2", "set cube value 2", "show marketwindow"]
        ),
    ),
    "position": (
        "gnubg -t: set board, set dice 3 1, show board",
        lambda: _gnubg_commands(
            [*_HUMANS, "new game", "set board 4HPwATDgc/ABMA", "set dice 3 1", "show board"]
        ),
    ),
    "audit": (
        "gnubg -t: import mat, analyse match at 0-ply",
        lambda: _gnubg_commands([*_HUMANS, *_ZERO_PLY, f"import mat {MATCH}", "analyse match"]),
    ),
    "convert": (
        "gnubg -t: import mat, save match .sgf",
        lambda: _gnubg_commands([*_HUMANS, f"import mat {MATCH}", "save match converted.sgf"]),
    ),
    "race": (
        "gnubg -t: show pipcount/keith/thorp/kleinman/8912/isight",
        lambda: _gnubg_commands(
            [*_HUMANS, "new game"]
            + [
                f"show {c} /38AAADfAwAAAA"
                for c in ("pipcount", "keith", "thorp", "kleinman", "8912", "isight")
            ]
        ),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="command names to run (substring match)")
    parser.add_argument("--repeat", type=int, default=2, help="warm runs, best taken")
    parser.add_argument("--two-sided-peer", action="store_true", help="also makebearoff -t 6x6")
    parser.add_argument("--no-peer", action="store_true", help="skip gnubg")
    parser.add_argument(
        "--installed", action="store_true",
        help="run the built wheel, installed in a fresh virtual environment",
    )  # fmt: skip
    parser.add_argument(
        "--extras", default="",
        help="with --installed: the extras to install too (e.g. 'engine' for gnubg-nn)",
    )  # fmt: skip
    args = parser.parse_args()

    have_gnubg = not args.no_peer and gnubg_peer() is not None
    chosen = [
        c for c in COMMANDS if not args.only or any(s in c.name for s in args.only)
    ]
    header = (
        f"{'command':26} {'first-ever':>10} {'(cpu)':>7} {'warm':>7} {'(cpu)':>7} "
        f"{'median':>7} {'goal':>5}  gnubg (whole process)"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="mathbg-first-use-") as tmp:
        cwd = Path(tmp) / "cwd"
        cwd.mkdir()
        if args.installed:
            mathbg = [str(install_wheel(Path(tmp), args.extras))]
            print(f"(the wheel, installed in a fresh virtual environment: {mathbg[0]})")
            version = subprocess.run([*mathbg, "--version"], capture_output=True, text=True,
                                     check=True).stdout.split("\n", 1)[1].strip()  # fmt: skip
            print(f"(its {version})")
        else:
            mathbg = [sys.executable, "-m", "mathbg"]
        for i, cmd in enumerate(chosen):
            env = dict(os.environ)
            if args.installed:
                env.pop("PYTHONPATH", None)
            else:
                env["PYTHONPATH"] = str(REPO)
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / f"numba-{i}")
            env["MATHBG_DATA"] = str(Path(tmp) / f"data-{i}")
            env.setdefault("MPLBACKEND", "Agg")
            cold, cold_cpu = run_mathbg(cmd.argv, env, cwd, mathbg)
            warm_runs = sorted(
                run_mathbg(cmd.argv, env, cwd, mathbg) for _ in range(max(1, args.repeat))
            )
            warm, warm_cpu = warm_runs[0]
            median = warm_runs[len(warm_runs) // 2][0]
            measured = cold_cpu if cmd.name == "audit" else cold  # the audit's goal is CPU
            flag = "" if measured <= cmd.goal else "  (over goal)"
            peer_text = ""
            if have_gnubg and cmd.peer and (cmd.peer != "makebearoff-t6x6" or args.two_sided_peer):
                label, make = PEERS[cmd.peer]
                run = make()
                cpu0 = _children_cpu()
                runs = max(1, args.repeat)
                peer_runs = sorted(run() for _ in range(runs))
                seconds = peer_runs[0]
                peer_cpu = (_children_cpu() - cpu0) / runs
                peer_text = (
                    f"{seconds:.2f} s, {peer_cpu:.2f} s cpu ({label}); warm ratio "
                    f"{warm / seconds:.2f} (cpu {warm_cpu / peer_cpu:.2f}, medians "
                    f"{median / peer_runs[len(peer_runs) // 2]:.2f})"
                )
            print(
                f"{cmd.name:26} {cold:9.2f}s {cold_cpu:6.2f}s {warm:6.2f}s {warm_cpu:6.2f}s "
                f"{median:6.2f}s {cmd.goal:4.0f}s  {peer_text}{flag}",
                flush=True,
            )
    print("\nwarm: best (and median) of", args.repeat, "runs with the numba cache and databases")
    print("in place;")
    print("first-ever: empty NUMBA_CACHE_DIR and MATHBG_DATA (compiles and builds included).")
    print("(cpu): user + system CPU seconds of the process (wall time inflates on a busy machine;")
    print("a parallel build uses more CPU than wall time). Load average:", os.getloadavg())


if __name__ == "__main__":
    main()
