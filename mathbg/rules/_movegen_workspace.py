"""The move generator's workspace: the dedup hash table and the entry buffers its kernels
(:mod:`mathbg.rules._movegen_kernels`, the compiled extension :mod:`mathbg._native`) fill,
kept apart from the kernels so that a process running the compiled extension never imports
numba.
"""

from __future__ import annotations

import numpy as np

__all__ = ["WORKSPACE", "Workspace"]


class Workspace:
    """Hash table and entry buffers reused across kernel calls (guarded by the GIL)."""

    def __init__(self, log2_slots: int = 14) -> None:
        self.resize(log2_slots)

    def resize(self, log2_slots: int) -> None:
        slots = 1 << log2_slots
        self.log2 = log2_slots
        self.tab_stamp = np.full(slots, -1, np.int64)
        self.tab_idx = np.zeros(slots, np.int32)
        self.stamp = np.zeros(1, np.int64)
        self.keys = np.empty((slots // 2, 3), np.int64)
        self.moves = np.empty((slots // 2, 4, 3), np.int8)

    def args(self) -> tuple[np.ndarray, ...]:
        return self.tab_stamp, self.tab_idx, self.stamp, self.keys, self.moves

    def grow(self) -> None:
        if self.log2 >= 24:  # pragma: no cover - no backgammon position has 8M plays
            raise RuntimeError("legal-play table overflow")
        self.resize(self.log2 + 2)


WORKSPACE = Workspace()
