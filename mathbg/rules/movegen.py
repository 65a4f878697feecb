"""Legal-play generation for standard backgammon: a numba kernel and a reference generator.

The rules (gnubg manual "Rules of the game"; bkgm.com/rules.html), as implemented:

1. A roll is played die by die; doubles are played four times.
2. A checker may land on an empty point, a point of its own, or a point holding exactly one
   opposing checker (a blot), which is hit and goes to the opponent's bar. A point with two
   or more opposing checkers is blocked.
3. Checkers on the bar must all enter (on the opponent's home board: die ``d`` enters on
   point ``25 - d``) before any other checker moves; dice that cannot enter are forfeited.
4. Bearing off needs all the side's checkers (those borne off included) in its home board
   (points 1-6). A die ``d`` bears off a checker from point ``d``; a higher die bears off
   from the highest occupied point only when no checker stands higher. A checker that
   reaches home with the first die lets the second die bear off.
5. As many dice as possible must be played (both, or up to four for doubles); if only one
   die of a non-double can be played, the larger one must be played when either could.

Rule 5 is applied as gnubg does (``eval.c:GenerateMoves``/``SaveMoves``): among all
maximal sequences keep those that play the most dice and, among them, the most pips of
dice (for non-doubles playing one die, that is "the larger die"). Plays are identified
by their resulting position, hits included, and each appears once.

Implementation
--------------
:func:`generate` (one board, one roll) and :func:`successors` (many boards, all 21 rolls)
run an iterative depth-first search in numba over the dice. Non-doubles are searched in
both die orders; for doubles the source point never increases along a sequence (any
legal sequence of four equal dice can be reordered that way with the same result), which
removes permutations. Results are deduplicated by an exact key (the mover's 25 counts as
nibbles plus a bit mask of the points where a blot was hit) in an open-addressing table
whose entries are invalidated by a stamp, so nothing is cleared between calls.

:func:`reference_results` is a small, slow, pure-Python generator that follows the rules
text literally (every order of every die for every checker, then the "most dice, larger
die" filter); the tests check the kernel against it.

Kernel arrays use gnubg ``TanBoard`` order flattened to 50 ``uint8``: the side not on roll
(points 1..24, bar) then the side on roll; a move is ``(from, to, die)`` with 0-based
indices (24 = bar, -1 = off).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numba as nb
import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.board import BasePosition

__all__ = ["generate", "reference_results", "successors"]

# Hash multipliers (odd 64-bit constants from splitmix64), as signed int64.
_C1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15
_C2 = np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9
_C3 = np.int64(-7723592293110705685)  # 0x94D049BB133111EB


@nb.njit(cache=True)
def leaf(
    k1: Any, k2: Any, k3: Any, score: Any, nmv: Any, mv: Any, best: Any, n: Any, stamp: Any, ws: Any
) -> Any:
    """Record a finished sequence; returns (best, n, stamp); n = -1 on table overflow.

    ``ws`` is the workspace tuple ``(tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves)``.
    """
    tab_stamp, tab_idx, _, ent_keys, ent_moves = ws
    if score < best:
        return best, n, stamp
    if score > best:
        best = score
        n = 0
        stamp += 1
    mask = tab_stamp.shape[0] - 1
    h = (k1 * _C1) ^ (k2 * _C2) ^ (k3 * _C3)
    h ^= h >> 29
    slot = h & mask
    while tab_stamp[slot] == stamp:
        j = tab_idx[slot]
        if ent_keys[j, 0] == k1 and ent_keys[j, 1] == k2 and ent_keys[j, 2] == k3:
            return best, n, stamp
        slot = (slot + 1) & mask
    if n >= ent_keys.shape[0]:
        return best, -1, stamp
    tab_stamp[slot] = stamp
    tab_idx[slot] = n
    ent_keys[n, 0] = k1
    ent_keys[n, 1] = k2
    ent_keys[n, 2] = k3
    for m in range(4):
        if m < nmv:
            ent_moves[n, m, 0] = mv[m, 0]
            ent_moves[n, m, 1] = mv[m, 1]
            ent_moves[n, m, 2] = mv[m, 2]
        else:
            ent_moves[n, m, 0] = -1
            ent_moves[n, m, 1] = -1
            ent_moves[n, m, 2] = 0
    return best, n + 1, stamp


# Small pieces of the search shared with the variants' kernel
# (:mod:`mathbg.rules.variants._kernel`); numba inlines them.


@nb.njit(cache=True, inline="always")
def load_board(board: Any, me: Any, w1: Any, w2: Any, out: Any) -> Any:
    """Level 0 of the search state from the mover's counts (``board[25:50]``): ``me[0]``
    the counts, ``w1[0]``/``w2[0]`` their nibble keys (indices 0-14, 15-24), ``out[0]``
    the checkers outside the home board. Returns the mover's checkers on the board."""
    total = np.int64(0)
    for i in range(25):
        c = np.int64(board[25 + i])
        me[0, i] = c
        total += c
        if i < 15:
            w1[0] += c << (4 * i)
        else:
            w2[0] += c << (4 * (i - 15))
        if i >= 6:
            out[0] += c
    return total


@nb.njit(cache=True, inline="always")
def dice_order(dseq: Any, d1: Any, d2: Any, order: Any) -> None:
    """The dice of search order 0 (d1 first) or 1 (d2 first); dice 3 and 4 are d1."""
    if order == 0:
        dseq[0] = d1
        dseq[1] = d2
    else:
        dseq[0] = d2
        dseq[1] = d1
    dseq[2] = d1
    dseq[3] = d1


@nb.njit(cache=True, inline="always")
def bears_off(me: Any, lvl: Any, s: Any, t: Any) -> Any:
    """With every checker home, may the checker on index ``s`` bear off, landing at
    ``t < 0``? Exactly (``t == -1``), or with a larger die from the highest point."""
    if t == -1:
        return True
    for i in range(s + 1, 6):
        if me[lvl, i] > 0:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _nibble(a1: Any, a2: Any, i: Any, delta: Any) -> Any:
    """The nibble keys with ``delta`` added to the count of index ``i``."""
    if i < 15:
        a1 += np.int64(delta) << (4 * i)
    else:
        a2 += np.int64(delta) << (4 * (i - 15))
    return a1, a2


@nb.njit(cache=True, inline="always")
def advance(me: Any, w1: Any, w2: Any, out: Any, lvl: Any, found: Any, t: Any) -> None:
    """Level ``lvl + 1`` of the search state: level ``lvl`` with a checker moved from
    index ``found`` to ``t`` (``t < 0``: borne off)."""
    nl = lvl + 1
    for i in range(25):
        me[nl, i] = me[lvl, i]
    me[nl, found] -= 1
    a1, a2 = _nibble(w1[lvl], w2[lvl], found, -1)
    o = out[lvl]
    if t >= 0:
        me[nl, t] += 1
        a1, a2 = _nibble(a1, a2, t, 1)
        if found >= 6 and t < 6:
            o -= 1
    w1[nl] = a1
    w2[nl] = a2
    out[nl] = o


@nb.njit(cache=True, inline="always")
def dice_pips(dseq: Any, k: Any) -> Any:
    """Pips of the first ``k`` dice of the order."""
    pips = 0
    for i in range(k):
        pips += dseq[i]
    return pips


@nb.njit(cache=True, inline="always")
def unpack(board: Any, k1: Any, k2: Any, dest: Any, r: Any) -> None:
    """Row ``r`` of ``dest``: the opponent's cells of ``board`` and the mover's counts
    from the nibble keys."""
    for i in range(25):
        dest[r, i] = board[i]
    for i in range(15):
        dest[r, 25 + i] = (k1 >> (4 * i)) & 15
    for i in range(10):
        dest[r, 40 + i] = (k2 >> (4 * i)) & 15


@nb.njit(cache=True, inline="always")
def hits_to_bar(k3: Any, dest: Any, r: Any) -> None:
    """Move the opposing blots of hit mask ``k3`` (mover's indices) to their bar."""
    if k3 != 0:
        for t in range(24):
            if (k3 >> t) & 1:
                dest[r, 23 - t] = 0
                dest[r, 24] += 1


@nb.njit(cache=True)
def _search(board: Any, d1: Any, d2: Any, ws: Any) -> Any:
    """Fill the workspace ``ws`` with the distinct legal plays; return their number.

    Returns -1 when the workspace is too small (the caller enlarges it and retries).
    """
    stamp_box = ws[2]
    me = np.empty((5, 25), np.int32)
    w1 = np.zeros(5, np.int64)
    w2 = np.zeros(5, np.int64)
    hit = np.zeros(5, np.int64)
    out = np.zeros(5, np.int32)
    src = np.zeros(4, np.int32)
    moved = np.zeros(4, np.bool_)
    mv = np.zeros((4, 3), np.int32)
    dseq = np.empty(4, np.int32)
    load_board(board, me, w1, w2, out)
    doubles = d1 == d2
    nd = 4 if doubles else 2
    norders = 1 if doubles else 2
    # int64 from the start: a literal first value would make numba compile ``leaf`` for
    # the literal types too, then again for int64 (twice the compile time for nothing)
    best = np.int64(-1)
    n = np.int64(0)
    stamp = stamp_box[0]
    for order in range(norders):
        dice_order(dseq, d1, d2, order)
        lvl = np.int64(0)
        src[0] = 24
        moved[0] = False
        while lvl >= 0:
            d = dseq[lvl]
            s = src[lvl]
            found = -1
            t = 0
            if me[lvl, 24] > 0:
                # checkers on the bar: the bar is the only source
                if s == 24 and board[d - 1] < 2:
                    found = 24
                    t = 24 - d
            else:
                while s >= 0:
                    if me[lvl, s] > 0:
                        t = s - d
                        if t >= 0:
                            if board[23 - t] < 2:
                                found = s
                                break
                        elif out[lvl] == 0 and bears_off(me, lvl, s, t):
                            found = s
                            break
                    s -= 1
            if found < 0:
                if lvl > 0 and not moved[lvl]:
                    score = lvl * 64 + dice_pips(dseq, lvl)
                    best, n, stamp = leaf(
                        w1[lvl], w2[lvl], hit[lvl], score, lvl, mv, best, n, stamp, ws
                    )
                    if n < 0:
                        stamp_box[0] = stamp
                        return -1
                lvl -= 1
                continue
            src[lvl] = found - 1
            moved[lvl] = True
            nl = lvl + 1
            advance(me, w1, w2, out, lvl, found, t)
            h = hit[lvl]
            if t >= 0:
                if board[23 - t] == 1 and ((h >> t) & 1) == 0:
                    h |= np.int64(1) << t
            else:
                t = -1
            hit[nl] = h
            mv[lvl, 0] = found
            mv[lvl, 1] = t
            mv[lvl, 2] = d
            if nl == nd:
                score = nd * 64 + dice_pips(dseq, nd)
                best, n, stamp = leaf(w1[nl], w2[nl], h, score, nd, mv, best, n, stamp, ws)
                if n < 0:
                    stamp_box[0] = stamp
                    return -1
            else:
                lvl = nl
                src[lvl] = found if doubles else 24
                moved[lvl] = False
    stamp_box[0] = stamp + 1
    return n


@nb.njit(cache=True)
def _materialize(board: Any, ent_keys: Any, n: Any, dest: Any, row0: Any) -> None:
    """Write the resulting boards of entries 0..n-1 into dest[row0:row0+n]."""
    for j in range(n):
        r = row0 + j
        unpack(board, ent_keys[j, 0], ent_keys[j, 1], dest, r)
        hits_to_bar(ent_keys[j, 2], dest, r)


@nb.njit(cache=True)
def _generate(
    board: Any,
    d1: Any,
    d2: Any,
    tab_stamp: Any,
    tab_idx: Any,
    stamp_box: Any,
    ent_keys: Any,
    ent_moves: Any,
) -> Any:
    n = _search(board, d1, d2, (tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves))
    if n < 0:
        return n, np.empty((0, 50), np.uint8), np.empty((0, 4, 3), np.int8)
    boards = np.empty((n, 50), np.uint8)
    _materialize(board, ent_keys, n, boards, 0)
    moves = np.empty((n, 4, 3), np.int8)
    for j in range(n):
        for m in range(4):
            for c in range(3):
                moves[j, m, c] = ent_moves[j, m, c]
    return n, boards, moves


# The batch entry points (_successors, _count_plays, ...) each take the workspace arrays
# one by one and loop over (board, roll) themselves: sharing that loop would put a
# callback or a mode switch into kernels that now compile straight (kept separate).
@nb.njit(cache=True)
def _successors(
    boards: Any,
    dice: Any,
    tab_stamp: Any,
    tab_idx: Any,
    stamp_box: Any,
    ent_keys: Any,
    ent_moves: Any,
) -> Any:
    """Resulting boards for every (board, roll); CSR layout. Returns (ptr, results, ok)."""
    ws = (tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves)
    nb_ = boards.shape[0]
    nr = dice.shape[0]
    ptr = np.zeros(nb_ * nr + 1, np.int64)
    cap = max(1024, nb_ * nr * 8)
    res = np.empty((cap, 50), np.uint8)
    total = 0
    for b in range(nb_):
        for r in range(nr):
            n = _search(boards[b], dice[r, 0], dice[r, 1], ws)
            if n < 0:
                return ptr, res[:0], False
            if total + n > cap:
                while total + n > cap:
                    cap *= 2
                bigger = np.empty((cap, 50), np.uint8)
                bigger[:total] = res[:total]
                res = bigger
            _materialize(boards[b], ent_keys, n, res, total)
            total += n
            ptr[b * nr + r + 1] = total
    return ptr, res[:total].copy(), True


@nb.njit(cache=True)
def _count_plays(
    boards: Any,
    dice: Any,
    tab_stamp: Any,
    tab_idx: Any,
    stamp_box: Any,
    ent_keys: Any,
    ent_moves: Any,
) -> Any:
    """Number of legal plays for every (board, roll); -1 entries flag overflow."""
    ws = (tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves)
    out = np.empty((boards.shape[0], dice.shape[0]), np.int32)
    for b in range(boards.shape[0]):
        for r in range(dice.shape[0]):
            out[b, r] = _search(boards[b], dice[r, 0], dice[r, 1], ws)
    return out


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


_WS = Workspace()

_ALL_DICE = np.array([(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)], dtype=np.int32)


def _too_many() -> None:
    from mathbg.errors import InvalidPositionError

    raise InvalidPositionError(
        "legal plays need at most 15 checkers on a point (the kernel packs counts in 4 bits)"
    )


def _as_boards(boards: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(boards, dtype=np.uint8).reshape(-1, 50))
    if arr.size and arr.max() > 15:
        _too_many()
    return arr


def generate(cells: bytes | np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, np.ndarray]:
    """All distinct legal plays of one roll.

    Parameters
    ----------
    cells : bytes or uint8 array of 50
        The board in flattened gnubg ``TanBoard`` order (side on roll in cells 25..49).
    d1, d2 : int
        The dice (any order, 1..6; not validated here).

    Returns
    -------
    boards : uint8 array (n, 50)
        The resulting boards, still from the mover's point of view (mover in 25..49).
    moves : int8 array (n, 4, 3)
        For each play its moves in play order as ``(from, to, die)``: 0-based indices of
        the mover's points, 24 = bar, ``to = -1`` = off; unused rows are ``(-1, -1, 0)``.
    """
    board = np.frombuffer(cells, dtype=np.uint8) if isinstance(cells, bytes) else cells
    if (max(cells) if isinstance(cells, bytes) else int(board.max())) > 15:
        _too_many()
    while True:
        n, boards, moves = _generate(board, d1, d2, *_WS.args())
        if n >= 0:
            return boards, moves
        _WS.grow()


def successors(
    boards: np.ndarray, rolls: Iterable[tuple[int, int]] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Resulting positions of every legal play, for many boards and rolls (CSR layout).

    Parameters
    ----------
    boards : uint8 array (N, 50) or (N, 2, 25)
        Boards in gnubg ``TanBoard`` layout (side on roll = row 1).
    rolls : iterable of (int, int), optional
        Rolls to play; default the 21 rolls of :data:`mathbg.rules.dice.ROLLS` in that
        order.

    Returns
    -------
    ptr : int64 array (N * R + 1,)
        Plays of board ``b`` and roll ``r`` are ``results[ptr[b*R + r]:ptr[b*R + r + 1]]``.
    results : uint8 array (M, 50)
        The resulting boards, from the mover's point of view (not swapped).
    """
    arr = _as_boards(boards)
    dice = _ALL_DICE if rolls is None else np.array(list(rolls), dtype=np.int32).reshape(-1, 2)
    while True:
        ptr, res, ok = _successors(arr, dice, *_WS.args())
        if ok:
            return ptr, res
        _WS.grow()


def count_plays(boards: np.ndarray, rolls: Iterable[tuple[int, int]] | None = None) -> np.ndarray:
    """Number of legal plays (distinct resulting positions) for many boards and rolls.

    Returns an int32 array of shape (N, R), rolls defaulting to the 21 of
    :data:`mathbg.rules.dice.ROLLS`.
    """
    arr = _as_boards(boards)
    dice = _ALL_DICE if rolls is None else np.array(list(rolls), dtype=np.int32).reshape(-1, 2)
    while True:
        counts = _count_plays(arr, dice, *_WS.args())
        if counts.size == 0 or counts.min() >= 0:
            return np.asarray(counts)
        _WS.grow()


# ----------------------------------------------------------------------------------------
# Reference generator (pure Python, literal reading of the rules; for tests)


def _ref_step(me: list[int], opp: list[int], src: int, die: int) -> tuple[int, bool] | None:
    """Destination of moving one checker of ``me`` from ``src`` by ``die``.

    ``me``/``opp`` are 25 counts (0-based own points, 24 = bar). Returns ``(dest, hit)``
    with dest -1 for borne off, or None if the move is illegal.
    """
    if me[src] == 0:
        return None
    if me[24] > 0 and src != 24:  # everything on the bar must enter first
        return None
    dest = src - die
    if dest >= 0:
        opposing = opp[23 - dest]  # my point dest+1 is the opponent's point 24-dest
        if opposing >= 2:
            return None
        return dest, opposing == 1
    # bearing off: every checker must be in the home board (points 1..6)
    if any(me[i] for i in range(6, 25)):
        return None
    if dest == -1:  # exact
        return -1, False
    # a larger die bears off only from the highest occupied point
    if any(me[i] for i in range(src + 1, 6)):
        return None
    return -1, False


def reference_results(
    position: BasePosition, roll: tuple[int, int]
) -> dict[bytes, list[tuple[int, ...]]]:
    """Legal plays by brute force: ``{resulting cells: [moves of one way to play it]}``.

    Tries every checker for every die in every order (both orders of a non-double, all
    four dice of a double with no ordering shortcut), keeps the sequences that cannot be
    extended, then applies the rules literally: keep those using the most dice; if that
    is a single die of a non-double and the larger die can be played, keep only plays of
    the larger die. Moves are ``(from, to, die)`` with public point numbers (25 = bar,
    0 = off). Slow: for tests only.
    """
    d1, d2 = roll
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    cells = position.cells
    found: dict[bytes, tuple[list[tuple[int, ...]], list[int]]] = {}

    def rec(
        me: list[int], opp: list[int], dice: list[int], used: list[int], path: list[Any]
    ) -> None:
        extended = False
        if dice:
            die = dice[0]
            for src in range(24, -1, -1):
                step = _ref_step(me, opp, src, die)
                if step is None:
                    continue
                dest, hit = step
                me2, opp2 = me.copy(), opp.copy()
                me2[src] -= 1
                if dest >= 0:
                    me2[dest] += 1
                    if hit:
                        opp2[23 - dest] = 0
                        opp2[24] += 1
                extended = True
                rec(me2, opp2, dice[1:], [*used, die], [*path, (src + 1, dest + 1, die)])
        if not extended and used:
            key = bytes(opp) + bytes(me)
            # one way to reach each result: prefer more dice, then (one die) the larger
            if key not in found or (len(used), sum(used)) > (
                len(found[key][1]),
                sum(found[key][1]),
            ):
                found[key] = (path, used)

    for order in orders:
        rec(list(cells[25:]), list(cells[:25]), order, [], [])
    if not found:
        return {}
    most = max(len(u) for _, u in found.values())
    keep = {k: v for k, v in found.items() if len(v[1]) == most}
    if d1 != d2 and most == 1:
        larger = max(d1, d2)
        if any(u[0] == larger for _, u in keep.values()):
            keep = {k: v for k, v in keep.items() if v[1][0] == larger}
    return {k: v[0] for k, v in keep.items()}
