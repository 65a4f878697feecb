"""The sweep loop shared by the money and the match solves: convergence, progress, ETA.

A solve repeats in-place sweeps over every pair until the largest change of a value in
one sweep (the *residual*, gnubg's "norm of delta") is at most the tolerance. The bar
counts pair updates; its total is the sweeps done plus those still expected from the
convergence rate measured so far (the residual shrinks geometrically), so the ETA is
re-estimated after every sweep. Sweeps run in chunks of shells (about 1/40 of a sweep)
so the bar moves; a checkpoint callback is offered the table after whole sweeps.

Extrapolation: once the residuals shrink at a steady rate ``rho`` (three ratios within
10 % of each other), the slowest error mode dominates and ``V + (V - V_prev) rho / (1 -
rho)`` jumps most of the way to the fixed point (Aitken's delta-squared applied to the
whole table). It only changes where the sweeps start from, never the answer: the solve
still stops only when a plain sweep changes no value by more than the tolerance. It
halves the sweeps of the 2- and 3-checker solves; the copy it needs (the tables' size
again: count it in the memory a solve needs) is taken only before a sweep that may be
extrapolated. The schedule depends only on the residuals, so a solve resumed from a
checkpoint (taken after the extrapolation of its sweep) gives the same bits as one never
interrupted.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg._validate import finite_float
from mathbg.errors import InvalidParameterError
from mathbg.hyper.store import Store

__all__ = [
    "as_store",
    "check_tolerance",
    "expected_sweeps",
    "finish",
    "run_sweeps",
    "shell_chunks",
    "steady_rate",
]

#: Chunks of shells per sweep (progress granularity).
_CHUNKS = 40
#: Extrapolate after every this many sweeps (when the rate is steady).
_EVERY = 4


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


def steady_rate(deltas: list[float]) -> float | None:
    """The residuals' rate of decrease when the last three ratios agree within 10 %."""
    if len(deltas) < 4 or min(deltas[-4:]) <= 0:
        return None
    ratios = [b / a for a, b in pairwise(deltas[-4:])]
    if max(ratios) > 1.1 * min(ratios) or not 0.05 < max(ratios) < 0.98:
        return None
    return math.exp(sum(map(math.log, ratios)) / 3)


def _extrapolate(arrays: list[Any], previous: list[Any], rate: float) -> None:
    factor = rate / (1.0 - rate)
    for arr, prev in zip(arrays, previous, strict=True):
        prev -= arr  # prev := -(V - V_prev)
        prev *= -factor
        arr += prev.astype(arr.dtype, copy=False)


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
    arrays: list[Any] | None = None,
) -> list[float]:
    """Sweep until the residual is at most ``tolerance``; return every sweep's residual.

    ``sweep(m0, m1)`` updates shells ``m0 <= m < m1`` and returns their largest change;
    ``deltas`` are the residuals of sweeps already done (a resumed solve); ``arrays`` are
    the tables the sweeps update, extrapolated as the module docs say (None: never).
    """
    done = list(deltas or [])
    previous: list[Any] = []
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=desc or "sweeps", unit="pair", unit_scale=True, leave=False,
                   total=None, initial=len(done) * n * n)
    chunks = shell_chunks(n)
    last_save = time.monotonic()
    try:
        while not done or (done[-1] > tolerance and len(done) < max_sweeps):
            if arrays is not None and len(done) >= 3 and (len(done) + 1) % _EVERY == 0:
                previous = [a.copy() for a in arrays]  # this sweep may be extrapolated
            delta = 0.0
            for m0, m1 in chunks:
                delta = max(delta, sweep(m0, m1))
                if bar is not None:
                    bar.update(m1 * m1 - m0 * m0)
            done.append(float(delta))
            rate = steady_rate(done) if arrays is not None else None
            if rate is not None and delta > tolerance and previous:
                _extrapolate(arrays or [], previous, rate)
            previous = []
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


def as_store(store: Store | str | os.PathLike[str] | bool | None) -> Store | None:
    """A :class:`Store` from the ``store`` argument: None/True the default one, False
    none, a path or a Store as given."""
    if store is False:
        return None
    if store is None or store is True:
        return Store()
    return store if isinstance(store, Store) else Store(store)


def check_tolerance(tolerance: Any) -> float:
    """A tolerance in (0, 0.1].

    Raises
    ------
    InvalidParameterError
        Otherwise.
    """
    tol = finite_float(tolerance, "tolerance")
    if not 0.0 < tol <= 0.1:
        raise InvalidParameterError(f"tolerance must be in (0, 0.1], got {tolerance!r}")
    return tol


def finish(
    st: Store | None,
    name: str,
    arrays: dict[str, NDArray[Any]],
    ident: dict[str, Any],
    meta: dict[str, Any],
    tolerance: float,
) -> bool:
    """Store a finished solve (and drop its checkpoint); an unconverged one is kept as a
    checkpoint, with a warning. Returns whether it converged."""
    import warnings

    from mathbg.errors import MathbgWarning

    residual = meta["residuals"][-1]
    if residual > tolerance:
        if st is not None:
            st.save(name + ".partial", arrays, ident, meta)
        warnings.warn(f"{name}: stopped after {len(meta['residuals'])} sweeps with residual "
                      f"{residual:.3g} > tolerance {tolerance:g}", MathbgWarning, stacklevel=3)
        return False
    if st is not None:
        st.save(name, arrays, ident, meta)
        st.remove(name + ".partial")
    return True
