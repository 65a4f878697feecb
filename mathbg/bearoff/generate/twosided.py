"""Two-sided bearoff tables in memory: the exact money equities of every pair.

The table holds, for every pair (roller's position i, opponent's position j) of a P x C
space, the four values :mod:`mathbg.bearoff.twosided` describes (0: cubeless ``2p - 1``;
1, 2, 3: the cubeful money equities per unit cube with the cube owned by the roller,
centred, owned by the opponent), before the roller's own cube decision, as gnubg's
``makebearoff -t PxC`` computes them (``makebearoff.c:BearOff2``).

Recursion (float64). With ``S(i, r)`` the positions the roller can reach with roll r,
weights ``w_r`` 1 (doubles) or 2 out of 36, and ``x = E[j, s]`` the values with the
opponent on roll:

.. math::

    E_v[i, j] = \\sum_r \\frac{w_r}{36} \\max_{s \\in S(i, r)} g_v(E[j, s])

    g_0 = -x_0, \\quad g_1 = -x_3, \\quad
    g_2 = -\\max(x_2, \\min(2 x_3, 1)), \\quad g_3 = -\\max(x_1, \\min(2 x_3, 1))

with ``E[0, j] = +1`` (the roller has borne off) and ``E[i, 0] = -1`` (i > 0). In
``g_2``/``g_3`` the opponent, on roll with access to the cube (centred, or owning it),
doubles when double/take ``2 x_3`` or double/pass ``+1`` (the taker picks the smaller,
``min(2 x_3, 1)``) is at least its no-double value; after a double/take the roller owns
the cube. When the roller owns the cube (``g_1``) the opponent cannot double.

One builder computes the table, block by block in pip-count classes
(:mod:`mathbg.bearoff.generate.blockbuild`; a roll lowers the pip count, so a block needs
only blocks of lower classes): :meth:`mathbg.bearoff.TwoSided.build` writes it to disk
(out of core, resumable, or on a Dask cluster), :func:`build_arrays` returns it in memory.

``gnubg=True`` reproduces gnubg's 16-bit integer arithmetic exactly (``~x`` negation,
its ``CubeEquity`` with C integer division, sum / 36 truncated), which gives its
``.bd`` file byte for byte.

References
----------
gnubg ``makebearoff.c`` (``BearOff2``, ``CubeEquity``), ``eval.c``
(``EvaluatePerfectCubeful``); Hugh Sconyers' bearoff databases (four cube states).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.generate import blockbuild
from mathbg.bearoff.index import check_size

__all__ = ["build_arrays", "compile_kernels"]


def build_arrays(points: int, checkers: int, *, gnubg: bool = False) -> NDArray[Any]:
    """Compute the two-sided table ``E[roller, opponent, value]`` of a P x C space in memory.

    Parameters
    ----------
    points, checkers : int
        The space: at most ``checkers`` checkers a side on points 1..``points``.
    gnubg : bool
        False: float64 equities (exact up to float rounding). True: gnubg's int16
        fixed point (equity ``x / 32767.5`` after ``x + 32768`` is stored as uint16).

    Returns
    -------
    numpy.ndarray
        ``E`` of shape (n, n, 4), n = C(P + C, P): float64, or int16 when ``gnubg``
        (the 16-bit database's ``uint16`` values minus 32768).
    """
    check_size(points, checkers)
    spec = blockbuild.BuildSpec(int(points), int(checkers), True, "u16" if gnubg else "f64")
    values = blockbuild.table(spec)
    if gnubg:
        return (values.astype(np.int32) - 0x8000).astype(np.int16)
    return values


def compile_kernels(points: int, checkers: int, *, gnubg: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels a ``points`` x ``checkers`` build uses.

    Builds the table of a tiny space with the same argument types (and compiles the
    parallel block kernel when the real build will use it), under
    :func:`mathbg._compile.compile_notice`, so a caller can start its progress bar after the
    compiler has finished. Milliseconds once numba's cache is warm.
    """
    from mathbg._compile import compile_notice
    from mathbg.bearoff.generate._schedule import threads

    with compile_notice("the bearoff kernels"):
        build_arrays(2, 2, gnubg=gnubg)
        spec = blockbuild.BuildSpec(int(points), int(checkers), True, "u16" if gnubg else "f64")
        if threads() > 1 and blockbuild.uses_parallel(spec):
            blockbuild.compile_kernels(spec, parallel=True)
