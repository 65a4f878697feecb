"""The native engine's arrays outside its model: the modes of its one entry point, a
thread's scratch arrays and the position cache (internal).

Kept apart from the kernels (:mod:`mathbg.analysis.net._kernels`) so that a process running
the compiled extension (:mod:`mathbg._native`) never imports numba.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ALL_PLAYS",
    "BEST_PLAY",
    "CACHE_SLOTS",
    "CONTACT_INPUTS",
    "EVALUATE",
    "EVALUATE_CACHED",
    "new_cache",
    "scratch",
]

#: Inputs of the contact and crashed networks: 4 a point for 25 points, then 25 more, a side.
CONTACT_INPUTS = 250

#: What the kernel ``run`` does with each row (see there).
EVALUATE, EVALUATE_CACHED, ALL_PLAYS, BEST_PLAY = 0, 1, 2, 3

#: Slots of the position cache (a power of two).
CACHE_SLOTS = 1 << 17

Arrays = tuple[np.ndarray, ...]


def scratch() -> Arrays:
    """The scratch arrays the evaluation works in (one set a thread): the inputs, the
    hidden layer, its denominators, the indices of the non-zero inputs, the hits of each
    way and a board.

    Examples
    --------
    >>> [a.shape for a in scratch()][:2]
    [(250,), (128,)]
    """
    return (np.zeros(CONTACT_INPUTS, np.float32), np.zeros(128, np.float32),
            np.zeros(128, np.float32), np.zeros(CONTACT_INPUTS, np.int64), np.zeros(78, np.int64),
            np.zeros(50, np.uint8))  # fmt: skip


def new_cache(slots: int = CACHE_SLOTS) -> Arrays:
    """An empty position cache: keys (4 words a board), outputs, classes, each slot's
    stamp, and the current stamp and count of entries.

    Parameters
    ----------
    slots : int
        A power of two; a cache of one slot stands in where a kernel's mode has none.

    Examples
    --------
    >>> new_cache()[0].shape
    (131072, 4)
    """
    return (np.zeros((slots, 4), np.int64), np.zeros((slots, 5), np.float32),
            np.zeros(slots, np.int64), np.zeros(slots, np.int64),
            np.ones(2, np.int64))  # fmt: skip
