"""Split a sequence of dependent work units into serial and parallel kernel calls.

The bearoff generators process units (pip layers, two-sided shells) in order; the
entries of one unit are independent. A parallel region (numba ``prange``) costs a thread
wake-up and a barrier, which is cheap on an idle machine but can take milliseconds when
other processes compete for the cores. So small units run on one thread, several per
call, and only units with enough work use all threads.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from numpy.typing import NDArray

__all__ = ["dynamic_chunks", "plan", "threads"]


def threads() -> int:
    """numba's current thread count."""
    import numba

    return int(numba.get_num_threads())


def plan(
    work: NDArray[np.floating] | NDArray[np.integer],
    *,
    parallel_min: float,
    batch: float,
    n_threads: int | None = None,
) -> Iterator[tuple[int, int, bool]]:
    """Yield ``(lo, hi, parallel)``: consecutive units ``lo..hi-1`` for one kernel call.

    Units with ``work >= parallel_min`` run in parallel (when more than one thread is
    available); consecutive units of the same kind are grouped until their work reaches
    ``batch`` (progress granularity).
    """
    n_threads = threads() if n_threads is None else n_threads
    work = np.asarray(work, dtype=np.float64)
    lo = 0
    total = 0.0
    kind = None
    for u, w in enumerate(work):
        par = n_threads > 1 and w >= parallel_min
        if kind is not None and (par != kind or total >= batch):
            yield lo, u, kind
            lo, total = u, 0.0
        kind = par
        total += w
    if kind is not None:
        yield lo, len(work), kind


@contextmanager
def dynamic_chunks() -> Iterator[None]:
    """Let numba hand out ``prange`` iterations one at a time (dynamic scheduling).

    The kernels split their work into contiguous chunks of uneven cost; static
    scheduling would give each thread one half of them.
    """
    import numba

    previous = numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(previous)
