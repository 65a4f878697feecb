"""Legal-play generation for the regional variants: one numba kernel for every rule set.

The standard game keeps its own dedicated kernel (:mod:`mathbg.rules.movegen`); this one
adds what the variants need, selected per call so that no variant pays for another's
rules:

- contact ``HIT`` (Portes, Tavla: blots are hit to the bar, as in backgammon), ``PIN``
  (Plakoto: a blot is pinned, a pinned checker cannot move, a point held by a pinning
  checker is closed) or ``BLOCK`` (Fevga, Long Nardi: any opposing checker holds a point);
- same-direction geometry (the opponent's point ``q`` is the mover's ``q +/- 12``);
- Tavla: a checker that hits in the mover's home board stops there for the turn;
- Long Nardi: at most ``head_limit`` checkers leave the head (own 24-point) per turn;
- Fevga: no second checker leaves the start before one has passed the opponent's start;
- end-of-play conditions: not all six points of the start quarter held (Fevga); no block
  of six points with every opposing checker behind it (Long Nardi, Fevga's alternative);
  or, when the turn starts with such a block, the obligation to open it (Fevga).

The search is the standard one (depth-first over the dice, both orders of a non-double)
with every move legal at the time it is made. A play is a sequence of moves; its result
must satisfy the end-of-play conditions. Among the valid plays, those opening a trapping
block are preferred when the turn starts with one (Fevga), then those playing the most
dice, then (one die of a non-double) the larger die: the standard "use as many dice as
possible, else the larger" rule applied to the plays the variant allows. For doubles the
source point never increases along a sequence, as in the standard kernel, except while
Fevga's start rule can still bite (its legality depends on the order of the moves).

Results are deduplicated by the mover's 25 counts (nibbles) plus a 24-bit mask in the
mover's numbering: the blots hit (``HIT``) or the opposing checkers pinned by the mover
after the play (``PIN``); the dedup table and the move buffers are the standard kernel's.

Code shared with the standard kernel: the dedup table (``leaf``, ``Workspace``) and the
small inlined steps of the search (loading the counts, the dice orders, the bear-off test,
moving a checker, unpacking a result). The search loop itself stays separate: the
variants' extra state (pins, locks, head and start counters, end-of-play rules) would cost
the standard kernel time on every move if one loop served both.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from mathbg.rules._movegen_kernels import (
    advance,
    bears_off,
    dice_order,
    dice_pips,
    hits_to_bar,
    leaf,
    load_board,
    unpack,
)
from mathbg.rules._movegen_workspace import Workspace

__all__ = ["BLOCK", "HIT", "PIN", "generate"]

HIT = 0
PIN = 1
BLOCK = 2

#: rule flags
F_ROTATED = 1  # same-direction geometry
F_HOME_NO_HIT_RUN = 2  # Tavla: a hitter in the home board stops
F_HEAD = 4  # Long Nardi: head_limit checkers leave the head per turn
F_FEVGA_START = 8  # Fevga: first checker passes the opponent's start before a second leaves
F_START_QUARTER = 16  # Fevga: not all six of own points 19-24 held at the end of a play
F_PRIME_BAN = 32  # no six-block with every opposing checker behind it (end of play)
F_PRIME_OPEN = 64  # a trapping six-block at the start of the turn must be opened if possible

_END_FLAGS = F_START_QUARTER | F_PRIME_BAN | F_PRIME_OPEN
_BONUS = 4096


@nb.njit(cache=True)
def _trapping(me: Any, lvl: Any, rotated: Any, min_opp: Any) -> Any:
    """A block of six of the mover's points along the opponent's route, with no opposing
    checker ahead of it: a run of six held points among the opponent's indices
    ``0..min_opp-1`` (``min_opp`` = the opponent's most advanced occupied index, 0 when it
    has borne a checker off)."""
    run = 0
    for q in range(min_opp):
        t = (q + 12) % 24 if rotated else 23 - q
        if me[lvl, t] > 0:
            run += 1
            if run >= 6:
                return True
        else:
            run = 0
    return False


@nb.njit(cache=True)
def _end_score(
    me: Any, lvl: Any, flags: Any, rotated: Any, min_opp: Any, started_trapped: Any
) -> Any:
    """-1 if the position at ``lvl`` breaks an end-of-play rule, else the preference
    bonus (1 for opening a trapping block that existed at the start of the turn)."""
    if flags & F_START_QUARTER:
        full = True
        for t in range(18, 24):
            if me[lvl, t] == 0:
                full = False
                break
        if full:
            return -1
    if flags & (F_PRIME_BAN | F_PRIME_OPEN):
        trap = _trapping(me, lvl, rotated, min_opp)
        if trap and (flags & F_PRIME_BAN):
            return -1
        if started_trapped and not trap:
            return 1
    return 0


@nb.njit(cache=True)
def _land(board: Any, t: Any, contact: Any, rotated: Any, pinned_me: Any, k3: Any) -> Any:
    """Can a checker of the mover land on its index ``t``? -1 no, 0 yes, 1 yes and it hits
    (HIT) or pins (PIN) a single opposing checker."""
    if contact == HIT:
        o = board[23 - t]
        if o >= 2:
            return -1
        if o == 1 and ((k3 >> t) & 1) == 0:
            return 1
        return 0
    if contact == PIN:
        if (pinned_me >> t) & 1:
            return -1  # the opponent's checker pinning mine holds the point
        o = board[23 - t]
        if o == 0 or ((k3 >> t) & 1):
            return 0  # empty, or a point where the mover already pins
        if o == 1:
            return 1
        return -1
    o = board[(t + 12) % 24] if rotated else board[23 - t]
    if o > 0:
        return -1
    return 0


@nb.njit(cache=True)
def _vsearch(
    board: Any,
    d1: Any,
    d2: Any,
    contact: Any,
    flags: Any,
    head_limit: Any,
    pinned_me: Any,
    opp_pins: Any,
    ws: Any,
) -> Any:
    """Fill the workspace ``ws`` with the distinct legal plays; return their number
    (0 when the roll cannot be played, -1 when the workspace is too small)."""
    stamp_box = ws[2]
    rotated = (flags & F_ROTATED) != 0
    me = np.empty((5, 25), np.int32)
    w1 = np.zeros(5, np.int64)
    w2 = np.zeros(5, np.int64)
    k3 = np.zeros(5, np.int64)
    lock = np.zeros(5, np.int64)
    out = np.zeros(5, np.int32)
    headmv = np.zeros(5, np.int32)
    away = np.zeros(5, np.int32)
    passed = np.zeros(5, np.bool_)
    src = np.zeros(4, np.int32)
    moved = np.zeros(4, np.bool_)
    mv = np.zeros((4, 3), np.int32)
    dseq = np.empty(4, np.int32)
    off = 15 - load_board(board, me, w1, w2, out)
    if contact == PIN:
        k3[0] = opp_pins
    passed[0] = off > 0
    for i in range(11):
        if me[0, i] > 0:
            passed[0] = True
    away[0] = 15 - me[0, 23]
    opp_on = 0
    min_opp = 24
    for q in range(24, -1, -1):
        if board[q] > 0:
            opp_on += board[q]
            if q < 24:
                min_opp = q
    if opp_on < 15:
        min_opp = 0  # a checker borne off is ahead of everything
    can_bear = pinned_me == 0
    need_all = (flags & _END_FLAGS) != 0
    started_trapped = False
    if flags & F_PRIME_OPEN:
        started_trapped = _trapping(me, 0, rotated, min_opp)
    fevga_active = (flags & F_FEVGA_START) != 0 and not passed[0]
    doubles = d1 == d2
    prune = doubles and not fevga_active
    nd = 4 if doubles else 2
    norders = 1 if doubles else 2
    # int64 from the start, as in ``mathbg.rules._movegen_kernels.search``: literal values
    # would make numba compile ``leaf`` for their literal types as well
    best = np.int64(-1)
    n = np.int64(0)
    stamp = stamp_box[0]
    if need_all:
        bonus = _end_score(me, 0, flags, rotated, min_opp, started_trapped)
        if bonus >= 0:
            best, n, stamp = leaf(
                w1[0], w2[0], k3[0], bonus * _BONUS, np.int64(0), mv, best, n, stamp, ws
            )
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
            code = 0
            if me[lvl, 24] > 0:
                # checkers on the bar (HIT only): the bar is the only source
                if s == 24:
                    t = 24 - d
                    code = _land(board, t, contact, rotated, pinned_me, k3[lvl])
                    if code >= 0:
                        found = 24
            else:
                if s > 23:
                    s = 23
                while s >= 0:
                    free = me[lvl, s] - ((pinned_me >> s) & 1) - ((lock[lvl] >> s) & 1)
                    ok = free > 0
                    if ok and s == 23:
                        if (flags & F_HEAD) and headmv[lvl] >= head_limit:
                            ok = False
                        if (flags & F_FEVGA_START) and away[lvl] > 0 and not passed[lvl]:
                            ok = False
                    if ok:
                        t = s - d
                        if t >= 0:
                            code = _land(board, t, contact, rotated, pinned_me, k3[lvl])
                            if code >= 0:
                                found = s
                                break
                        elif out[lvl] == 0 and can_bear and bears_off(me, lvl, s, t):
                            found = s
                            break
                    s -= 1
            if found < 0:
                if lvl > 0 and not moved[lvl] and not need_all:
                    score = lvl * 64 + dice_pips(dseq, lvl)
                    best, n, stamp = leaf(
                        w1[lvl], w2[lvl], k3[lvl], score, lvl, mv, best, n, stamp, ws
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
            h = k3[lvl]
            lk = lock[lvl]
            hm = headmv[lvl]
            aw = away[lvl]
            ps = passed[lvl]
            if contact == PIN and me[nl, found] == 0 and ((h >> found) & 1):
                h &= ~(np.int64(1) << found)  # the last pinning checker leaves: released
            if found == 23:
                hm += 1
                aw += 1
            if t >= 0:
                if code == 1:
                    h |= np.int64(1) << t
                    if (flags & F_HOME_NO_HIT_RUN) and t < 6:
                        lk |= np.int64(1) << t
                if t <= 10:
                    ps = True
            else:
                t = -1
                ps = True
            k3[nl] = h
            lock[nl] = lk
            headmv[nl] = hm
            away[nl] = aw
            passed[nl] = ps
            mv[lvl, 0] = found
            mv[lvl, 1] = t
            mv[lvl, 2] = d
            if need_all or nl == nd:
                bonus = 0
                if need_all:
                    bonus = _end_score(me, nl, flags, rotated, min_opp, started_trapped)
                if bonus >= 0:
                    score = bonus * _BONUS + nl * 64 + dice_pips(dseq, nl)
                    best, n, stamp = leaf(w1[nl], w2[nl], h, score, nl, mv, best, n, stamp, ws)
                    if n < 0:
                        stamp_box[0] = stamp
                        return -1
            if nl < nd:
                lvl = nl
                src[lvl] = found if prune else 24
                moved[lvl] = False
    stamp_box[0] = stamp + 1
    if n == 0 or best % _BONUS < 64:
        return 0  # the best "play" moves nothing: the roll cannot be played
    return n


@nb.njit(cache=True)
def _vgenerate(
    board: Any, d1: Any, d2: Any, contact: Any, flags: Any, head_limit: Any, pinned_me: Any,
    opp_pins: Any, tab_stamp: Any, tab_idx: Any,
    stamp_box: Any, ent_keys: Any, ent_moves: Any,
) -> Any:  # fmt: skip
    ws = (tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves)
    n = _vsearch(board, d1, d2, contact, flags, head_limit, pinned_me, opp_pins, ws)
    if n < 0:
        return n, np.empty((0, 50), np.uint8), np.empty(0, np.int64), np.empty((0, 4, 3), np.int8)
    boards = np.empty((n, 50), np.uint8)
    masks = np.zeros(n, np.int64)
    moves = np.empty((n, 4, 3), np.int8)
    for j in range(n):
        unpack(board, ent_keys[j, 0], ent_keys[j, 1], boards, j)
        if contact == HIT:
            hits_to_bar(ent_keys[j, 2], boards, j)
        elif contact == PIN:
            masks[j] = ent_keys[j, 2]
        for m in range(4):
            for c in range(3):
                moves[j, m, c] = ent_moves[j, m, c]
    return n, boards, masks, moves


_WS = Workspace()


def generate(
    cells: bytes,
    d1: int,
    d2: int,
    contact: int,
    flags: int,
    head_limit: int = 0,
    pinned_me: int = 0,
    opp_pins: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All distinct legal plays of one roll under a variant's rules.

    Parameters
    ----------
    cells : bytes
        50 counts in ``TanBoard`` order (side on roll in cells 25..49), at most 15 a point.
    d1, d2 : int
        The dice.
    contact : int
        :data:`HIT`, :data:`PIN` or :data:`BLOCK`.
    flags : int
        ``F_*`` rule flags of this module.
    head_limit : int
        Checkers allowed to leave the head this turn (with ``F_HEAD``).
    pinned_me : int
        ``PIN``: bit ``k`` set = the mover's checker on its index ``k`` is pinned.
    opp_pins : int
        ``PIN``: bit ``k`` set = the mover pins the opposing checker on the mover's index
        ``k``.

    Returns
    -------
    boards : uint8 array (n, 50)
        The resulting boards (mover's view).
    masks : int64 array (n,)
        ``PIN``: the opposing checkers pinned by the mover after each play (mover's
        indices); zeros otherwise.
    moves : int8 array (n, 4, 3)
        Moves ``(from, to, die)`` as the standard kernel gives them (0-based, 24 = bar,
        -1 = off; unused rows ``(-1, -1, 0)``).
    """
    board = np.frombuffer(cells, dtype=np.uint8)
    while True:
        n, boards, masks, moves = _vgenerate(
            board, d1, d2, contact, flags, head_limit, pinned_me, opp_pins, *_WS.table()
        )
        if n >= 0:
            return boards, masks, moves
        _WS.grow()
