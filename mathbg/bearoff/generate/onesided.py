"""One-sided bearoff distributions: generation.

For a side alone on the board, ``dist[n]`` is the probability of needing exactly ``n``
rolls to bear off all its checkers, and the "gammon" distribution ``gdist[n]`` the
probability that the first checker comes off on roll ``n`` (meaningful only when all
15 checkers are on the board; otherwise it is a unit mass at 0).

Move policy
-----------
A one-sided distribution depends on how the side plays. Two policies are offered:

- ``"gnubg"`` (default): the plays gnubg's ``makebearoff`` chooses, so that results are
  comparable with gnubg's databases. For each roll, the play minimising the expected
  number of rolls to bear off (``RollsOS``), and separately, for the gammon
  distribution, the play minimising the expected rolls until the first checker is off;
  as gnubg, the expectations are those of its 16-bit fixed-point distributions and the
  first strict minimum in its move-generation order wins. Those rounded expectations
  mislead gnubg in 117 of the 1,139,523 position-rolls of the 6x15 space (plays worse by
  at most 2e-4 expected rolls); the distributions are then computed exactly (float64)
  for the chosen plays.
- ``"min-rolls"``: the play of minimum expected rolls computed in float64 (ties within
  ``tol`` go to the first play in gnubg's order). By Bellman's principle this minimises
  the expected number of rolls of every position.

Either is a policy, not optimal play against an opponent: the play that maximises the
chance of winning a race depends on the opponent's position (only the two-sided database
is exact for that; see :mod:`mathbg.bearoff.generate.twosided`).

Recursion (float64, exact up to rounding), over positions in increasing pip count (every
play lowers the pip count, so successors are done; positions of one pip layer are
independent). Builds with gnubg's policy up to about 6x15 run on numpy alone
(:mod:`mathbg.bearoff.generate._os_vector`: no compilation, no numba start-up); the ``"min-rolls"``
policy and bigger spaces run the numba kernel, in parallel for big spaces:

.. math::

    d_i[n] = \\sum_{r} \\frac{w_r}{36} d_{s^*(i, r)}[n - 1], \\qquad
    s^*(i, r) = \\arg\\min_{s \\in S(i, r)} E[N_s], \\qquad d_0 = \\delta_0

with weights ``w_r`` 1 (double) or 2 and ``S(i, r)`` the positions reachable with roll r.

The statistics of a distribution (mean, variance, EPC, wastage) and the database class
are in :mod:`mathbg.bearoff.onesided`.

References
----------
gnubg ``makebearoff.c`` (``BearOff``, ``RollsOS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.index import (
    all_positions,
    binomial_table,
    block_start,
    check_size,
    n_positions,
    pips,
)

__all__ = [
    "POLICIES",
    "OneSidedArrays",
    "build_arrays",
    "build_gnubg_arrays",
    "compile_kernels",
    "pip_layers",
    "progress_bar",
]

#: Default tie tolerance (rolls) between plays of equal expected rolls.
TIE_TOLERANCE = 1e-9

ProgressHook = Callable[[int], None]

#: Layers (two pip counts) with at least this many positions run in parallel
#: (see ``_schedule``).
_PARALLEL_LAYER = 1000
#: Positions per kernel call at most (progress granularity) for serial layers.
_BATCH = 20000
#: Spaces with fewer positions are built on one thread: the whole 6x15 build takes about
#: 0.2 s serially, less than compiling the parallel kernel costs on first use.
_PARALLEL_MIN_POSITIONS = 200_000


def pip_layers(points: int, checkers: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Positions in increasing pip count: ``order`` and layer bounds ``starts``.

    Layer ``p`` (pip count p) is ``order[starts[p]:starts[p + 1]]``. Every bearoff play
    lowers the pip count, so a layer depends only on earlier layers.
    """
    pip = pips(all_positions(points, checkers))
    order = np.argsort(pip, kind="stable")
    starts = np.searchsorted(pip[order], np.arange(int(pip.max()) + 2))
    return order.astype(np.int64), starts.astype(np.int64)


#: Move policies: ``"gnubg"`` takes the play gnubg's makebearoff takes (minimum expected
#: rolls computed in its 16-bit fixed point; first strict minimum in its move order);
#: ``"min-rolls"`` the play of minimum expected rolls in float64 (ties within the
#: tolerance go to the first play in gnubg's order).
POLICIES = ("gnubg", "min-rolls")


@dataclass(frozen=True)
class OneSidedArrays:
    """The arrays of a float64 one-sided database (see :func:`build_arrays`)."""

    dist: NDArray[np.float64]  #: [N, nb] P(exactly n rolls to bear off all)
    gammon: NDArray[np.float64]  #: [N15, nbg] P(first checker off on roll n), 15-checker block
    gammon_start: int  #: index of the first 15-checker position (N when none)
    gnubg: NDArray[np.uint16] | None = None  #: [N, 64] gnubg's fixed-point table (optional)


def progress_bar(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar counting positions (None when not ``enabled``)."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="pos", unit_scale=True, leave=False)


def _trim(a: NDArray[np.float64], minimum: int = 1) -> NDArray[np.float64]:
    nz = np.nonzero(np.any(a != 0.0, axis=0))[0]
    width = max(minimum, int(nz[-1]) + 1 if len(nz) else 1)
    return np.ascontiguousarray(a[:, :width])


def _parallel_build(points: int, checkers: int) -> bool:
    """Whether the build of this space uses the parallel kernel (big spaces, several threads)."""
    from mathbg.bearoff.generate._schedule import threads

    return n_positions(points, checkers) >= _PARALLEL_MIN_POSITIONS and threads() > 1


def _vectorised(points: int, checkers: int, flags: int) -> bool:
    """Whether a build runs on the numpy path (:mod:`mathbg.bearoff.generate._os_vector`): gnubg's
    policy on a space of at most about 6x15 (nothing to compile, no numba to load)."""
    from mathbg.bearoff.generate import _os_vector

    return bool(flags & 4) and _os_vector.fits(points, checkers)


def compile_kernels(points: int, checkers: int, *, policy: str = "gnubg") -> None:
    """Compile (or load from numba's cache) the kernels a ``points`` x ``checkers`` build uses.

    Runs the build of a tiny space with the same argument types, under
    :func:`mathbg._compile.compile_notice`, so a caller can start its progress bar after
    the compiler has finished (an honest ETA). Milliseconds once numba's cache is warm;
    nothing at all for the builds of the numpy path (gnubg's policy, up to about 6x15).
    """
    from mathbg._compile import compile_notice

    if _vectorised(points, checkers, 4 if policy == "gnubg" else 0):
        return
    with compile_notice("the bearoff kernels"):
        _generate(3, 3, 7, TIE_TOLERANCE, None, vectorised=False)
        if _parallel_build(points, checkers):
            _generate(3, 3, 7, TIE_TOLERANCE, None, force_parallel=True)


def _generate(
    points: int,
    checkers: int,
    flags: int,
    tol: float,
    progress: ProgressHook | None,
    *,
    force_parallel: bool = False,
    vectorised: bool | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, NDArray[np.uint16]]:
    check_size(points, checkers)
    if vectorised is None:
        vectorised = not force_parallel and _vectorised(points, checkers, flags)
    if vectorised:
        from mathbg.bearoff.generate import _os_vector

        return _os_vector.build(points, checkers, progress, want_float=bool(flags & 1))
    from mathbg.bearoff.generate._onesided_kernels import os_layer_parallel, os_layers_serial
    from mathbg.bearoff.generate._schedule import dynamic_chunks, plan, threads
    from mathbg.bearoff.plays import move_table

    n = n_positions(points, checkers)
    boards = all_positions(points, checkers)
    order, starts = pip_layers(points, checkers)
    max_pips = len(starts) - 2
    gstart = block_start(points, 15) if checkers == 15 else n
    want_float = bool(flags & 1)
    # A roll that bears nothing off moves >= 3 pips, and at most `checkers` rolls bear off.
    nb = max_pips // 3 + checkers + 2 if want_float else 1
    nbg = max_pips // 3 + 2 if want_float else 1
    dist = np.zeros((n if want_float else 1, nb))
    mean = np.zeros(n)
    gdist = np.zeros((n - gstart if want_float else 0, nbg))
    gmean = np.zeros(n)
    dist[0, 0] = 1.0
    want_int = bool(flags & 2)
    tab = np.zeros((n if want_int else 1, 64), np.uint16)
    rolls = np.zeros((n if want_int else 1, 2), np.int64)
    tab[0, 0] = tab[0, 32] = 0xFFFF
    win = np.zeros((n if want_float else 1, 4), np.int64)  # window [0, 0] for index 0
    binom = binomial_table()
    moves, outside2 = move_table(points, checkers)
    n_threads = threads() if force_parallel or n >= _PARALLEL_MIN_POSITIONS else 1
    # Every roll lowers the pip count by at least 2 (while a checker is left both dice
    # can be played, each moving or bearing off at least one pip) unless it bears off the
    # last checker (successor: the empty board, done first). So positions whose pip
    # counts differ by one never depend on each other: a layer holds two pip counts.
    bounds = np.unique(np.append(starts[::2], starts[-1]))
    bounds[0] = 1  # position 0 (the empty board) is the base case
    # binom=None: the kernels follow the move table and never compile the checker-moving path
    kernel_binom = None if moves.shape[0] > 1 else binom
    arrays = (
        boards, kernel_binom, moves, outside2, dist, mean, gdist, gmean, gstart, tol, tab, rolls,
        win, flags,
    )  # fmt: skip
    layers = np.diff(bounds)
    parallel_min = 0 if force_parallel else _PARALLEL_LAYER
    chunks = plan(layers, parallel_min=parallel_min, batch=_BATCH, n_threads=n_threads)
    for a, b, parallel in chunks:
        lo, hi = int(bounds[a]), int(bounds[b])
        if parallel:
            with dynamic_chunks():
                for p in range(a, b):
                    l0, l1 = int(bounds[p]), int(bounds[p + 1])
                    os_layer_parallel(order, l0, l1, *arrays, min(l1 - l0, 32 * n_threads))
        else:
            os_layers_serial(order, lo, hi, *arrays)
        if progress is not None:
            progress(hi - lo)
    return dist, gdist, gstart, tab


def build_arrays(
    points: int,
    checkers: int,
    *,
    policy: str = "gnubg",
    tol: float = TIE_TOLERANCE,
    progress: ProgressHook | None = None,
    gnubg_table: bool = False,
) -> OneSidedArrays:
    """Generate the one-sided distributions of every position, in float64.

    Parameters
    ----------
    points, checkers : int
        The space: at most ``checkers`` (1..15) checkers on points 1..``points``.
    policy : {"gnubg", "min-rolls"}
        Which play is chosen for each roll (see :data:`POLICIES`). ``"gnubg"`` makes the
        distributions comparable with gnubg's files (same plays; gnubg's 16-bit rounding
        makes it choose a slightly worse play in a few cases: 117 of the 1.1 million
        position-rolls of 6x15, changing some probabilities by up to 0.003).
    tol : float
        For ``"min-rolls"``: plays whose expected rolls differ by less than ``tol`` are
        tied; the first in gnubg's move order wins the tie.
    progress : callable, optional
        Called with the number of positions finished after each pip layer.
    gnubg_table : bool
        With ``policy="gnubg"``: also return gnubg's own fixed-point table (computed on
        the way, see :func:`build_gnubg_arrays`).

    Returns
    -------
    OneSidedArrays
        ``dist`` has as many bins as the longest possible bearoff needs (no truncation,
        unlike gnubg's 32 bins); ``gammon`` covers the block of 15-checker positions.
    """
    if policy not in POLICIES:
        from mathbg.errors import InvalidParameterError

        raise InvalidParameterError(f"policy must be one of {POLICIES}, got {policy!r}")
    if gnubg_table and policy != "gnubg":
        from mathbg.errors import InvalidParameterError

        raise InvalidParameterError("gnubg's fixed-point table exists only for policy 'gnubg'")
    flags = 1 | (6 if policy == "gnubg" else 0)
    dist, gdist, gstart, tab = _generate(points, checkers, flags, tol, progress)
    return OneSidedArrays(
        dist=_trim(dist),
        gammon=_trim(gdist, 2),
        gammon_start=gstart,
        gnubg=tab if gnubg_table else None,
    )


def build_gnubg_arrays(
    points: int,
    checkers: int = 15,
    *,
    progress: ProgressHook | None = None,
) -> NDArray[np.uint16]:
    """The one-sided database exactly as gnubg's ``makebearoff -o P`` computes it.

    16-bit fixed point (0xFFFF = 1), 32 bins per distribution, gnubg's integer
    arithmetic and tie-breaks (see
    :func:`mathbg.bearoff.generate._onesided_kernels.os_layers_serial`). Returns
    ``uint16[N, 64]`` (distribution, then gammon distribution); written with
    :func:`mathbg.bearoff.gnubg_bd.write_onesided` it reproduces gnubg's file byte for byte.
    """
    return _generate(points, checkers, 2 | 4, 0.0, progress)[3]
