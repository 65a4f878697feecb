"""What the ``native`` engine's kernels read: the networks and gnubg's bearoff tables.

:func:`model` assembles, once a process, the tuple the kernels of
:mod:`mathbg.analysis.net._kernels` take: gnubg 1.07's contact, race and crashed networks
(:func:`~mathbg.analysis.net.weights.shipped_networks`), the one-sided 6 x 15 bearoff
distributions and the two-sided 6 x 6 cubeless equities in gnubg's 16-bit fixed point
(mathbg builds them on first use into its cache, byte for byte what gnubg's
``makebearoff`` writes: ``gnubg_os0.bd``, ``gnubg_ts0.bd``), and gnubg's race backgammon
table (``data/gnubg/race-backgammon.txt``).

The race backgammon table: when a side in a race may still be backgammoned (all 15 on the
board, some on the winner's home points 6..2), gnubg does not take the network's
backgammon chance but counts it: for the loser's checkers there it knows, for ``j`` = 1..5
rolls, how many of the :math:`36^j` roll sequences see the last of them leave on roll
``j``, and combines that with the winner's distribution of rolls to bear off.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.net.weights import Network, shipped_networks
from mathbg.errors import DatabaseCorruptError

__all__ = ["Model", "model", "point_tables", "pruning_networks", "race_backgammon_table",
           "two_sided_table"]

Model = tuple[Any, ...]


@lru_cache(maxsize=1)
def race_backgammon_table() -> NDArray[np.int64]:
    """gnubg's race backgammon counts, shape (31 groups, 20 indices, 5 rolls) (zeros where
    a group has fewer positions)."""
    from mathbg._paths import published_dir

    source = published_dir("gnubg") / "race-backgammon.txt"
    table = np.zeros((31, 20, 5), dtype=np.int64)
    for number, line in enumerate(source.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        try:
            group, index, *counts = (int(f) for f in fields)
            if len(counts) != 5 or not (1 <= group <= 31 and 0 <= index < 20):
                raise ValueError
        except ValueError:
            raise DatabaseCorruptError(f"{source}, line {number}: not a race backgammon row: "
                                       f"{line.strip()!r}") from None  # fmt: skip
        table[group - 1, index] = counts
    return table


@lru_cache(maxsize=1)
def two_sided_table(progress: bool = False) -> Any:
    """gnubg's two-sided 6 x 6 database (``gnubg_ts0.bd``: 16-bit, cubeful), built on
    first use (a few seconds) into ``cache_dir("native")``: apart from the bearoff cache,
    where the exact engine takes the finest two-sided table it finds."""
    from mathbg._paths import cache_dir
    from mathbg.bearoff import TwoSided

    return TwoSided.build(6, 6, dtype="u16", progress=progress,
                          path=cache_dir("native") / "twosided-06x06-u16")  # fmt: skip


def point_tables(net: Network) -> NDArray[np.float32]:
    """A pruning network's hidden sums by board cell.

    ``table[c, n]`` adds the four inputs of a board cell ``c`` (0..49) holding ``n``
    checkers (0..15) to the hidden layer, so that a board's hidden sums are the thresholds
    plus one row per occupied cell (the order of the sums differs from gnubg's: for
    ranking plays, not for gnubg's own values).

    Parameters
    ----------
    net : Network
        A network of the 200 point inputs (gnubg's pruning networks).

    Returns
    -------
    float32 array (50, 16, hidden)
        The rows.

    Examples
    --------
    >>> from mathbg.analysis.net.weights import shipped_networks
    >>> point_tables(shipped_networks().prune_contact).shape
    (50, 16, 16)
    """
    # the four inputs of n checkers on a point (on the bar, cell 24 of a side: the first
    # two count "at least"), for every point and count at once
    n = np.arange(16, dtype=np.float64)
    v = np.zeros((25, 16, 4), dtype=np.float64)
    v[:, :, 0], v[:, :, 1], v[:, :, 2] = n == 1, n == 2, n >= 3
    v[24, :, 0], v[24, :, 1] = n >= 1, n >= 2
    v[:, :, 3] = np.where(n > 3, (n - 3) / 2, 0.0)
    w = net.hidden_weights.astype(np.float64)[:200].reshape(2, 25, 1, 4, net.hidden)
    v = v[None, :, :, :, None]
    # the four products summed in order, in double precision: exact for float32 weights
    # (each product has at most 28 significant bits), so the same as any order; + 0.0
    # writes a sum of zeros as +0
    table = ((v[..., 0, :] * w[..., 0, :] + v[..., 1, :] * w[..., 1, :])
             + v[..., 2, :] * w[..., 2, :]) + v[..., 3, :] * w[..., 3, :] + 0.0  # fmt: skip
    return table.reshape(50, 16, net.hidden).astype(np.float32)


def _network(net: Network) -> tuple[Any, ...]:
    return (net.hidden_weights, net.output_weights, net.hidden_threshold,
            net.output_threshold, np.float32(net.beta_hidden),
            np.float32(net.beta_output))  # fmt: skip


@lru_cache(maxsize=1)
def model(progress: bool = False) -> Model:
    """The kernels' tuple: the contact, race and crashed networks (each its hidden and
    output weights, hidden and output thresholds and two sigmoid scales), the one-sided
    distributions (rows of 64), the two-sided cubeless equities
    (924 x 924), the race backgammon table, and the contact, race and crashed pruning
    networks (:func:`point_tables`, padded to 16 hidden units).

    The bearoff databases are built on first use (a second or so) and then read from the
    cache.
    """
    from mathbg.bearoff import OneSided

    nets = shipped_networks()
    one = OneSided.build(6, 15, progress=progress)
    table = one.gnubg_table
    if table is None:  # pragma: no cover - the gnubg policy always keeps its table
        raise DatabaseCorruptError(f"{one.path}: the one-sided database has no gnubg table")
    two = two_sided_table(progress)
    cubeless = np.ascontiguousarray(np.asarray(two.stored)[:, :, 0], dtype=np.uint16)
    dist = np.ascontiguousarray(table, dtype=np.uint16)
    return (_network(nets.contact), _network(nets.race), _network(nets.crashed), dist,
            cubeless, race_backgammon_table(),
            _pruning(nets.prune_contact), _pruning(nets.prune_race),
            _pruning(nets.prune_crashed))  # fmt: skip


@lru_cache(maxsize=1)
def pruning_networks() -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """gnubg's contact, race and crashed pruning networks as
    :func:`~mathbg.analysis.net._kernels.forward` reads them: exact, as gnubg's n-ply
    search ranks the plays with them (:func:`model`'s are the point tables of the
    0-ply player's fast ranking)."""
    nets = shipped_networks()
    return (_network(nets.prune_contact), _network(nets.prune_race),
            _network(nets.prune_crashed))  # fmt: skip


def _pruning(net: Network) -> tuple[Any, ...]:
    """A pruning network as the kernels rank plays with it: its point tables, output
    weights and thresholds padded to 16 hidden units (units of no weight), the scales."""
    nh = net.hidden
    table = np.zeros((50, 16, 16), dtype=np.float32)
    table[:, :, :nh] = point_tables(net)
    ow = np.zeros((5, 16), dtype=np.float32)
    ow[:, :nh] = net.output_weights
    ht = np.zeros(16, dtype=np.float32)
    ht[:nh] = net.hidden_threshold
    return (table, ow, ht, net.output_threshold, np.float32(net.beta_hidden),
            np.float32(net.beta_output))  # fmt: skip
