"""The sweep loop shared by the money and the match solves: convergence, progress, ETA.

A solve repeats in-place sweeps over every pair until the largest change of a value in
one sweep (the *residual*, gnubg's "norm of delta") is at most the tolerance. The bar
counts pair updates; its total is the sweeps done plus those still expected from the
convergence rate measured so far (the residual shrinks geometrically), so the ETA is
re-estimated after every sweep. Sweeps run in chunks of shells (about 1/40 of a sweep)
so the bar moves; a checkpoint callback is offered the table after whole sweeps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np

__all__ = ["expected_sweeps", "run_sweeps", "shell_chunks"]

#: Chunks of shells per sweep (progress granularity).
_CHUNKS = 40


def shell_chunks(n: int, chunks: int = _CHUNKS) -> list[tuple[int, int]]:
    """Shell ranges ``[m0, m1)`` of about equal work (shell ``m`` holds ``2 m + 1`` pairs)."""
    edges = np.unique(np.round(n * np.sqrt(np.linspace(0.0, 1.0, chunks + 1))).astype(int))
    edges[0], edges[-1] = 0, n
    return [(int(a), int(b)) for a, b in pairwise(edges) if b > a]


def expected_sweeps(deltas: list[float], tolerance: float) -> int | None:
    """Sweeps still expected from the residuals so far (None before a rate is known)."""
    if not deltas or deltas[-1] <= tolerance:
        return 0
    if len(deltas) < 3:
        return None
    last = deltas[-4:]
    recent = [b / a for a, b in pairwise(last) if a > 0 and b > 0]
    if not recent:
        return None
    rate = min(max(math.exp(sum(map(math.log, recent)) / len(recent)), 1e-3), 0.995)
    return max(1, math.ceil(math.log(tolerance / deltas[-1]) / math.log(rate)))


def run_sweeps(
    sweep: Callable[[int, int], float],
    n: int,
    *,
    tolerance: float,
    max_sweeps: int,
    deltas: list[float] | None = None,
    progress: bool = False,
    desc: str = "",
    checkpoint: Callable[[list[float]], None] | None = None,
    checkpoint_seconds: float = 300.0,
) -> list[float]:
    """Sweep until the residual is at most ``tolerance``; return every sweep's residual.

    ``sweep(m0, m1)`` updates shells ``m0 <= m < m1`` and returns their largest change;
    ``deltas`` are the residuals of sweeps already done (a resumed solve).
    """
    done = list(deltas or [])
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=desc or "sweeps", unit="pair", unit_scale=True, leave=False,
                   total=None, initial=len(done) * n * n)
    chunks = shell_chunks(n)
    last_save = time.monotonic()
    try:
        while not done or (done[-1] > tolerance and len(done) < max_sweeps):
            delta = 0.0
            for m0, m1 in chunks:
                delta = max(delta, sweep(m0, m1))
                if bar is not None:
                    bar.update(m1 * m1 - m0 * m0)
            done.append(float(delta))
            if bar is not None:
                left = expected_sweeps(done, tolerance)
                if left is not None:
                    bar.total = (len(done) + left) * n * n
                bar.set_postfix_str(f"sweep {len(done)}, residual {delta:.2e}")
            if checkpoint is not None and done[-1] > tolerance:
                now = time.monotonic()
                if now - last_save >= checkpoint_seconds:
                    checkpoint(done)
                    last_save = time.monotonic()
    finally:
        if bar is not None:
            bar.close()
    return done
