"""The move generator's workspace: the dedup hash table and the entry buffers its kernels
(:mod:`mathbg.rules._movegen_kernels`, the compiled extension :mod:`mathbg._native`) fill,
kept apart from the kernels so that a process running the compiled extension never imports
numba.
"""

from __future__ import annotations

import numpy as np

__all__ = ["WORKSPACE", "Workspace"]


class Workspace:
    """Hash table and entry buffers reused across kernel calls (guarded by the GIL), and
    the search's state at each of its five levels (so that a search allocates nothing):
    the mover's counts, the counts' two nibble keys and the hits, the checkers outside the
    home board, the next source point, whether the level has moved and the dice order, and
    the moves made."""

    def __init__(self, log2_slots: int = 14) -> None:
        self.resize(log2_slots)
        self.level_counts = np.zeros((5, 25), np.int32)
        self.level_keys = np.zeros((3, 5), np.int64)
        self.level_marks = np.zeros((4, 5), np.int32)
        self.level_moves = np.zeros((4, 3), np.int32)

    def resize(self, log2_slots: int) -> None:
        slots = 1 << log2_slots
        self.log2 = log2_slots
        self.tab_stamp = np.full(slots, -1, np.int64)
        self.tab_idx = np.zeros(slots, np.int32)
        self.stamp = np.zeros(1, np.int64)
        self.keys = np.empty((slots // 2, 3), np.int64)
        self.moves = np.empty((slots // 2, 4, 3), np.int8)

    def table(self) -> tuple[np.ndarray, ...]:
        """The dedup table and the entries: what :func:`~mathbg.rules._movegen_kernels.leaf`
        reads."""
        return self.tab_stamp, self.tab_idx, self.stamp, self.keys, self.moves

    def args(self) -> tuple[np.ndarray, ...]:
        """The table and the search's levels: what
        :func:`~mathbg.rules._movegen_kernels.search` reads."""
        return (*self.table(), self.level_counts, self.level_keys, self.level_marks,
                self.level_moves)  # fmt: skip

    def grow(self) -> None:
        if self.log2 >= 24:  # pragma: no cover - no backgammon position has 8M plays
            raise RuntimeError("legal-play table overflow")
        self.resize(self.log2 + 2)


WORKSPACE = Workspace()
