"""Helpers shared by the benchmark scripts: timing and the gnubg peer.

The scripts run as ``python benchmarks/bench_x.py``, so this directory is on ``sys.path``
and they import these helpers as ``from _common import ...``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"

# A user's install carries its bytecode (pip compiles it): the benchmarks' processes, and
# the warm-up runs before a whole process is timed, write it too, whatever the shell says.
# Without it every timed process would compile mathbg's sources first (about 0.2 CPU-s).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
# Nor does a user's shell unbuffer Python's output: the timed processes write their reports
# through the buffer, as they do there.
os.environ.pop("PYTHONUNBUFFERED", None)


def timed(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    """Wall time in seconds of one call ``func(*args, **kwargs)``, and its result."""
    start = time.perf_counter()
    result = func(*args, **kwargs)
    return time.perf_counter() - start, result


def best_of(func: Callable[[], Any], repeat: int, *, warmup: bool = False) -> tuple[float, Any]:
    """Fastest of ``repeat`` calls of ``func()`` (after one untimed call with ``warmup``:
    numba compiles or loads its cache), and the last result."""
    if warmup:
        func()
    best = float("inf")
    result = None
    for _ in range(repeat):
        seconds, result = timed(func)
        best = min(best, seconds)
    return best, result


def best_time(func: Callable[[], Any], repeat: int) -> float:
    """Fastest of ``repeat`` timed calls after a warm-up call."""
    return best_of(func, repeat, warmup=True)[0]


def add_tests_to_path() -> None:
    """Make the test helpers (``gnubg_peer``, ``gnubg_plays``) importable."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))


def gnubg_peer() -> Any:
    """The gnubg reference peer of the tests (:mod:`gnubg_peer`), or None without gnubg."""
    add_tests_to_path()
    try:
        from gnubg_peer import find_peer
    except ImportError:  # pragma: no cover
        return None
    return find_peer()


def descendants(root: int) -> dict[int, float]:
    """``root`` and every process below it, each with its CPU-s (user + system) so far, from
    ``/proc`` (a process killed under a killed parent is never waited for: the
    ``RUSAGE_CHILDREN`` of this one misses it)."""
    parent, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(stat.parent.name)
        parent[pid] = int(fields[1])  # ppid; utime and stime at 11 and 12
        cpu[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    tree, grew = {root}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree} - tree
        tree |= more
        grew = bool(more)
    return {p: cpu.get(p, 0.0) for p in tree}


def killed_when(argv: list[str], ready: Callable[[], bool], env: dict[str, str] | None = None
                ) -> tuple[float, float]:  # fmt: skip
    """Run ``argv`` until ``ready()`` (polled every 50 ms), then SIGKILL it and everything
    it started (as a kill of the terminal would): its CPU-s, all processes, and wall-s."""
    import signal
    import subprocess

    wall = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    seen: dict[int, float] = {}
    while proc.poll() is None and not ready():
        seen.update(descendants(proc.pid))
        time.sleep(0.05)
    if proc.poll() is None:
        tree = descendants(proc.pid)
        seen.update(tree)
        for pid in [*(p for p in tree if p != proc.pid), proc.pid]:  # the terminal last
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    proc.wait()
    return sum(seen.values()), time.perf_counter() - wall
