"""The array layout of the play values' kernel (internal), without numba: the tables
:func:`mathbg.analysis.match_audit.plays.state_tables` writes and
:func:`mathbg.analysis.match_audit._kernels.play_values_into` reads.

A cube state (a score, cube and owner, a player on roll) is one row of integers and one of
float32 match equities, looked up once for all of its plays:

- integers: the cube is alive (:data:`ALIVE`), the player on roll (:data:`MOVE`), the
  owner (:data:`OWNER`: :data:`OWNED` by the player on roll, :data:`CENTRED`,
  :data:`OTHER`), the top level of the cash points' recursion (:data:`TOP`, gnubg
  ``GetPoints``: the cube values from the dead cube down to the state's), then each level's
  kind from :data:`LEVELS` on (1: the cube after a redouble is dead for a player, the live
  cash point comes from the double/take and double/pass values; 0: from the next level's);
- float32: the gammon prices of the player on roll and the opponent (:data:`GP_ME` ..
  :data:`BP_OP`), the MWC after a single win and loss at the cube (:data:`CASH`,
  :data:`OPP_CASH`: also what ``eq2mwc`` and ``mwc2eq`` interpolate between), after a
  gammon and a backgammon loss and win (:data:`LOSE_G` .. :data:`WIN_B`), then from
  :data:`GET_POINTS` on 7 values for each level ``n`` and player ``k`` (column
  ``GET_POINTS + 14 n + 7 k``).

A group of plays (one mover's state) is cube states ``2 g`` (the opponent on roll) and
``2 g + 1`` (after its double and a take), whether that opponent may double, and a float32
row: the double/pass MWC (:data:`DP`), the mover's MWC after the cube is won and lost
(:data:`MOVER_WIN`, :data:`MOVER_LOSE`). A cube decision is valued from the same tables:
its roller is the opponent on roll after the mover's play (state ``2 g``, the double/take
state ``2 g + 1``, the double/pass :data:`DP`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ALIVE",
    "BP_ME",
    "BP_OP",
    "CASH",
    "CENTRED",
    "DP",
    "GET_POINTS",
    "GP_ME",
    "GP_OP",
    "LEVELS",
    "LEVEL_WIDTH",
    "LOSE_B",
    "LOSE_G",
    "MOVE",
    "MOVER_LOSE",
    "MOVER_WIN",
    "OPP_CASH",
    "OTHER",
    "OWNED",
    "OWNER",
    "TOP",
    "WIN_B",
    "WIN_G",
]

ALIVE, MOVE, OWNER, TOP, LEVELS = 0, 1, 2, 3, 4
OWNED, CENTRED, OTHER = 0, 1, 2
GP_ME, GP_OP, BP_ME, BP_OP = 0, 1, 2, 3
CASH, OPP_CASH, LOSE_G, LOSE_B, WIN_G, WIN_B = 4, 5, 6, 7, 8, 9
GET_POINTS = 10
#: The float32 columns of one level (7 for each player).
LEVEL_WIDTH = 14
DP, MOVER_WIN, MOVER_LOSE = 0, 1, 2

# ----------------------------------------------------------------------------- n-ply search

#: The most cube states a node of the n-ply search carries (a cube decision's two, each
#: doubled at every ply below).
SEARCH_STATES = 16
#: The search kernel's results: done, the move generator's workspace too small, the plays'
#: scratch too small.
SEARCH_DONE, SEARCH_WORKSPACE, SEARCH_PLAYS = 0, 1, 2


def search_scratch(plays: int = 4096) -> tuple[np.ndarray, ...]:
    """The n-ply search kernel's scratch arrays (nothing is allocated inside it): the plays
    of a roll, their candidates and pruning values, the pruning network's inputs and
    outputs, a play's chances, the database's equities, each ply's cube states, sums,
    chances and values and the child board (rows 1 and 2), the root's states and values."""
    n = 2 * SEARCH_STATES
    return (np.empty((plays, 50), np.uint8), np.empty(plays, np.int64),
            np.empty(plays, np.float32), np.zeros(200, np.float32),
            np.empty(5, np.float32), np.empty(5, np.float32), np.empty(4, np.float32),
            np.empty((3, n), np.int64), np.empty((3, 5), np.float32),
            np.empty((3, n), np.float32), np.empty((3, 5), np.float32),
            np.empty((3, n), np.float32), np.empty((3, 50), np.uint8),
            np.empty(2, np.int64), np.empty(2, np.float32))  # fmt: skip


def node_cache(slots: int = 1 << 18) -> tuple[np.ndarray, ...]:
    """The n-ply search's cache of 1-ply nodes (gnubg's cache of cubeful evaluations):
    each slot's key (the board's four words, the last with the score's tables, the mover's
    and the cube state's rows), chances, cubeful value and stamp; then the current stamp,
    the count and the score's tables (set before each call: their number), and a key's
    scratch. ``slots`` a power of two; at most half of them in use, then it starts
    again."""
    return (np.zeros((slots, 4), np.int64), np.zeros((slots, 5), np.float32),
            np.zeros(slots, np.float32), np.zeros(slots, np.int64),
            np.array([1, 0, 0], np.int64), np.zeros(4, np.int64))  # fmt: skip
