"""Pip-ordered layout of a two-sided bearoff space: pip classes, blocks, layers, windows.

A two-sided table ``E[i, j]`` (roller i, opponent j) is cut into **blocks** by pip count:
one-side positions are ordered by (pip count, gnubg index) and class ``c`` holds the
positions with ``c`` pips. Block ``(a, b)`` is ``E[class a, class b]``. A play removes
2..24 pips (or bears the last checker off), so block ``(a, b)`` reads only the blocks
``(b, c)`` with ``c`` in ``[max(1, a - 24), a - 2]`` (one row band, a contiguous column
range) plus the constant "all off" column; every input lies on a lower **layer**
``a + b``. The blocks of one layer are independent, so a build runs layer by layer, and a
block of layer ``L`` is last read on layer ``L + 24``: only that **live window** of layers
needs to be in memory.

Blocks ``(0, b)`` (the roller has borne off: +1) and ``(a, 0)``, ``a > 0`` (the opponent
has: -1) are constants.

References
----------
``shared/reference/distributed-bearoff.md`` (sections 2 and 7: the block DAG, the live
window and the owner placement); Lake, Schaeffer & Lu (1993) and Irving (2014) for
slice-by-slice retrograde builds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.index import all_positions, n_positions, pips
from mathbg.errors import DatabaseError

__all__ = ["MAX_DROP", "ArenaPlan", "PipLayout", "layout"]

#: Most pips one roll removes (6-6 played four times).
MAX_DROP = 24
#: Fewest pips a roll removes when the side does not bear its last checker off.
MIN_DROP = 2


@dataclass(frozen=True)
class PipLayout:
    """Positions of a P x C space ordered by (pip count, gnubg index), and the blocks.

    Attributes
    ----------
    points, checkers : int
        The space.
    order : numpy.ndarray of int64, shape (n,)
        ``order[p]`` = gnubg index of the p-th position in pip order.
    offsets : numpy.ndarray of int64, shape (n_classes + 1,)
        Class ``c`` is pip-order positions ``offsets[c] .. offsets[c + 1] - 1``.
    """

    points: int
    checkers: int
    order: NDArray[np.int64]
    offsets: NDArray[np.int64]
    _cache: dict[int, list[tuple[int, int]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def n(self) -> int:
        """Positions per side, C(P + C, P)."""
        return len(self.order)

    @property
    def n_classes(self) -> int:
        """Pip classes 0..P*C."""
        return len(self.offsets) - 1

    @cached_property
    def sizes(self) -> NDArray[np.int64]:
        """Positions per pip class."""
        return np.diff(self.offsets)

    @cached_property
    def rank_of(self) -> NDArray[np.int64]:
        """Inverse of :attr:`order`: pip-order position of each gnubg index."""
        inv = np.empty(self.n, np.int64)
        inv[self.order] = np.arange(self.n)
        return inv

    @property
    def n_layers(self) -> int:
        """Layers 0 .. 2 (n_classes - 1)."""
        return 2 * self.n_classes - 1

    def block_pairs(self, a: int, b: int) -> int:
        """Pairs in block (a, b)."""
        return int(self.sizes[a] * self.sizes[b])

    def inputs(self, a: int, b: int) -> range:
        """Column classes c of the blocks (b, c) that block (a, b) reads (empty for constants)."""
        if a == 0 or b == 0:
            return range(0)
        return range(max(1, a - MAX_DROP), a - MIN_DROP + 1)

    def last_reader_layer(self, a: int, b: int) -> int:
        """The highest layer that reads block (a, b) (its own layer when nobody does)."""
        # (a, b) is read by blocks (x, a) with x in [b + 2, b + 24], x < n_classes, a > 0
        if a == 0 or b == 0:
            return a + b
        top = min(b + MAX_DROP, self.n_classes - 1)
        if top < b + MIN_DROP:
            return a + b
        return a + top

    def layer_blocks(self, layer: int) -> list[tuple[int, int]]:
        """Blocks (a, b) with a + b = layer, largest first (longest-task-first scheduling)."""
        cached = self._cache.get(layer)
        if cached is None:
            k = self.n_classes
            cached = [(a, layer - a) for a in range(max(0, layer - k + 1), min(layer, k - 1) + 1)]
            cached.sort(key=lambda ab: -self.block_pairs(*ab))
            self._cache[layer] = cached
        return list(cached)

    @cached_property
    def layer_pairs(self) -> NDArray[np.int64]:
        """Pairs per layer."""
        s = self.sizes
        return np.convolve(s, s).astype(np.int64)

    def pip_of_class_positions(self) -> NDArray[np.int64]:
        """Pip count of each pip-order position."""
        return np.repeat(np.arange(self.n_classes), self.sizes)

    def window_pairs(self) -> int:
        """Largest number of pairs held at once by a layer-by-layer build (no fusion)."""
        lp = self.layer_pairs
        best = 0
        for k in range(len(lp)):
            best = max(best, int(lp[max(0, k - MAX_DROP) : k + 1].sum()))
        return best


def layout(points: int, checkers: int) -> PipLayout:
    """The pip-ordered layout of the ``points`` x ``checkers`` space."""
    boards = all_positions(points, checkers)
    pip = np.asarray(pips(boards), dtype=np.int64)
    order = np.lexsort((np.arange(len(pip)), pip)).astype(np.int64)
    counts = np.bincount(pip, minlength=points * checkers + 1)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    assert offsets[-1] == n_positions(points, checkers)
    return PipLayout(int(points), int(checkers), order, offsets)


@dataclass(frozen=True)
class ArenaPlan:
    """Where each block lives in a ring-buffer arena during a layer-by-layer build.

    Layers are processed in groups of ``fuse`` consecutive layers (a layer needs only
    layers at least 2 below it, so two layers can run together). A group's blocks are
    allocated contiguously; the blocks of a layer are dropped once every later group that
    reads them has run (first-in, first-out, so a ring buffer suffices).

    Attributes
    ----------
    capacity : int
        Arena size in values.
    start : dict
        ``start[(a, b)]`` = offset (in values) of block (a, b) in the arena.
    groups : list of list of int
        The layers of each group, in build order.
    keep_all : bool
        The whole table fits: nothing is dropped.
    """

    capacity: int
    start: dict[tuple[int, int], int]
    groups: list[list[int]]
    keep_all: bool
    needed: int

    @classmethod
    def make(cls, lay: PipLayout, nv: int, capacity: int | None, fuse: int = 2) -> ArenaPlan:
        """Plan the arena; ``capacity=None`` holds the whole table.

        Raises
        ------
        DatabaseError
            When ``capacity`` values cannot hold the live window (the message says how much
            is needed).
        """
        nl = lay.n_layers
        groups = [list(range(g, min(g + fuse, nl))) for g in range(0, nl, fuse)]
        sizes = {}
        for layer in range(nl):
            for ab in lay.layer_blocks(layer):
                sizes[ab] = lay.block_pairs(*ab) * nv
        total = sum(sizes.values())
        if capacity is None or capacity >= total:
            start, pos = {}, 0
            for g in groups:
                for layer in g:
                    for ab in lay.layer_blocks(layer):
                        start[ab] = pos
                        pos += sizes[ab]
            return cls(total, start, groups, True, total)
        needed = cls._minimum(lay, groups, sizes)
        if capacity < needed:
            raise DatabaseError(
                f"the live window needs {needed} values ({needed / total:.0%} of the table)"
            )
        ring = cls._simulate(lay, groups, sizes, capacity)
        assert ring is not None
        return cls(capacity, ring, groups, False, needed)

    @classmethod
    def minimum_values(cls, lay: PipLayout, nv: int, fuse: int = 2) -> int:
        """Smallest arena (in values) that holds the live window of a build."""
        nl = lay.n_layers
        groups = [list(range(g, min(g + fuse, nl))) for g in range(0, nl, fuse)]
        sizes = {
            ab: lay.block_pairs(*ab) * nv for layer in range(nl) for ab in lay.layer_blocks(layer)
        }
        return cls._minimum(lay, groups, sizes)

    @staticmethod
    def _simulate(
        lay: PipLayout, groups: list[list[int]], sizes: dict[tuple[int, int], int], capacity: int
    ) -> dict[tuple[int, int], int] | None:
        """Ring allocation; None when ``capacity`` is too small."""
        start: dict[tuple[int, int], int] = {}
        live: list[tuple[int, int, int]] = []  # (last reader layer, begin, end), FIFO order
        head = 0
        for g in groups:
            first = g[0]
            # drop regions no layer >= first reads (FIFO: regions were allocated in order)
            while live and live[0][0] < first:
                live.pop(0)
            need = sum(sizes[ab] for layer in g for ab in lay.layer_blocks(layer))
            begin = head if head + need <= capacity else 0
            end = begin + need
            if end > capacity:
                return None
            for _, lo, hi in live:
                if lo < end and begin < hi:
                    return None
            pos = begin
            last = 0
            for layer in g:
                for ab in lay.layer_blocks(layer):
                    start[ab] = pos
                    pos += sizes[ab]
                    last = max(last, lay.last_reader_layer(*ab))
            live.append((last, begin, end))
            head = end
        return start

    @classmethod
    def _minimum(
        cls, lay: PipLayout, groups: list[list[int]], sizes: dict[tuple[int, int], int]
    ) -> int:
        """Smallest capacity the ring allocation accepts (bisection)."""
        total = sum(sizes.values())
        lo, hi = 1, total
        while lo < hi:
            mid = (lo + hi) // 2
            if cls._simulate(lay, groups, sizes, mid) is None:
                lo = mid + 1
            else:
                hi = mid
        return lo
