"""The numba kernels that turn a board into gnubg's network inputs (internal).

Boards are gnubg ``TanBoard`` rows of 25 ``uint8`` (points 1..24 in the side's own
numbering, then its bar). The contact and crashed networks read 250 inputs, the race
network 214; :mod:`mathbg.analysis.net` lists what they mean. Every input is a float32
computed with float32 arithmetic, as gnubg computes it, so that the networks see the same
bits. The tables below are gnubg's (``eval.c``): how many rolls let a checker pass a
stretch of points, and the ways a roll hits a blot at a distance.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from mathbg._native import no_refcounts

__all__ = [
    "HALF_CONTACT",
    "RACE_INPUTS",
    "contact_inputs",
    "race_inputs",
]

# The kernels compile without numba's reference counts (:func:`mathbg._native.no_refcounts`):
# they allocate nothing and keep no array.

#: Inputs of the race network: 107 a side.
RACE_INPUTS = 214
#: Offset of the 25 hand-made inputs of the first half (the second half follows).
HALF_CONTACT = 200

F32 = np.float32


def _inverse(c: float) -> np.float32:
    return np.float32(1.0) / np.float32(c)


# gnubg is built with -ffast-math, so its divisions by a constant are multiplications by the
# constant's float32 reciprocal (the same input to the last bit needs the same)
_INV3, _INV5, _INV6, _INV10, _INV11, _INV24 = (_inverse(c) for c in (3, 5, 6, 10, 11, 24))
_INV36, _INV100, _INV167, _INV294 = (_inverse(c) for c in (36, 100, 167, 294))
_INV400, _INV432, _INV3600 = (_inverse(c) for c in (400, 432, 3600))


def _escape_tables() -> tuple[Any, Any]:
    """``ESCAPES[m]``, ``ESCAPES1[m]``: the rolls (of 36) that carry a checker past the
    12 points ahead of it, point ``i`` blocked when bit ``i`` of ``m`` is set (gnubg's
    ``anEscapes``; ``anEscapes1`` counts only the rolls that also pass the first blocked
    point)."""
    m = np.arange(4096, dtype=np.int64)
    low = np.full(4096, 12, dtype=np.int64)
    for bit in range(11, -1, -1):
        low = np.where(m & (1 << bit), bit, low)
    esc = np.zeros(4096, dtype=np.int32)
    esc1 = np.zeros(4096, dtype=np.int32)
    for a in range(6):
        for b in range(a + 1):
            lands = (m >> (a + b + 1)) & 1  # the point the whole roll reaches
            both = ((m >> a) & 1) & ((m >> b) & 1)  # both single dice blocked
            free = (lands == 0) & (both == 0)
            weight = 1 if a == b else 2
            esc += weight * free
            esc1 += weight * (free & (a + b + 1 > low))
    esc1[0] = 0
    return esc, esc1


ESCAPES, ESCAPES1 = _escape_tables()

# The ways to hit a blot (gnubg's aIntermediate): whether every intermediate point must be
# open (else one of two), the intermediate distances, the number of dice used and the pips.
_WAYS = np.array([
    (1, 0, 0, 0, 1, 1), (1, 0, 0, 0, 1, 2), (1, 1, 0, 0, 2, 2), (1, 0, 0, 0, 1, 3),
    (0, 1, 2, 0, 2, 3), (1, 1, 2, 0, 3, 3), (1, 0, 0, 0, 1, 4), (0, 1, 3, 0, 2, 4),
    (1, 2, 0, 0, 2, 4), (1, 1, 2, 3, 4, 4), (1, 0, 0, 0, 1, 5), (0, 1, 4, 0, 2, 5),
    (0, 2, 3, 0, 2, 5), (1, 0, 0, 0, 1, 6), (0, 1, 5, 0, 2, 6), (0, 2, 4, 0, 2, 6),
    (1, 3, 0, 0, 2, 6), (1, 2, 4, 0, 3, 6), (0, 1, 6, 0, 2, 7), (0, 2, 5, 0, 2, 7),
    (0, 3, 4, 0, 2, 7), (0, 2, 6, 0, 2, 8), (0, 3, 5, 0, 2, 8), (1, 4, 0, 0, 2, 8),
    (1, 2, 4, 6, 4, 8), (0, 3, 6, 0, 2, 9), (0, 4, 5, 0, 2, 9), (1, 3, 6, 0, 3, 9),
    (0, 4, 6, 0, 2, 10), (1, 5, 0, 0, 2, 10), (0, 5, 6, 0, 2, 11), (1, 6, 0, 0, 2, 12),
    (1, 4, 8, 0, 3, 12), (1, 3, 6, 9, 4, 12), (1, 5, 10, 0, 3, 15), (1, 4, 8, 12, 4, 16),
    (1, 6, 12, 0, 3, 18), (1, 5, 10, 15, 4, 20), (1, 6, 12, 18, 4, 24),
], dtype=np.int64)  # fmt: skip
WAY_ALL = _WAYS[:, 0].copy()
WAY_STEPS = _WAYS[:, 1:4].copy()
WAY_DICE = _WAYS[:, 4].copy()
WAY_PIPS = _WAYS[:, 5].copy()
# For a distance d = 1..24 (row d - 1), the ways that hit from it (-1: no more).
_BY_DISTANCE = np.full((24, 5), -1, dtype=np.int64)
for _w in range(len(_WAYS)):
    _row = _BY_DISTANCE[_WAYS[_w, 5] - 1]
    _row[int(np.argmax(_row < 0))] = _w
BY_DISTANCE = _BY_DISTANCE
# For each of the 21 rolls (11, 21, 22, 31, ..., 66), the ways it hits (-1: no more).
ROLL_WAYS = np.array([
    (0, 2, 5, 9), (0, 1, 4, -1), (1, 8, 17, 24), (0, 3, 7, -1), (1, 3, 12, -1),
    (3, 16, 27, 33), (0, 6, 11, -1), (1, 6, 15, -1), (3, 6, 20, -1), (6, 23, 32, 35),
    (0, 10, 14, -1), (1, 10, 19, -1), (3, 10, 22, -1), (6, 10, 26, -1), (10, 29, 34, 37),
    (0, 13, 18, -1), (1, 13, 21, -1), (3, 13, 25, -1), (6, 13, 28, -1), (10, 13, 30, -1),
    (13, 31, 36, 38),
], dtype=np.int64)  # fmt: skip
#: Each roll's ways as bits (a roll none of whose ways hits adds no shot).
ROLL_MASK = np.array([sum(1 << int(w) for w in row if w >= 0) for row in ROLL_WAYS],
                     dtype=np.int64)  # fmt: skip


@nb.njit(cache=True, inline="always")
def _msb(x: Any) -> Any:
    """The highest set bit of ``0 < x < 2**32``."""
    k = 0
    if x >= 1 << 16:
        x >>= 16
        k += 16
    if x >= 1 << 8:
        x >>= 8
        k += 8
    if x >= 1 << 4:
        x >>= 4
        k += 4
    if x >= 1 << 2:
        x >>= 2
        k += 2
    if x >= 2:
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def _escapes(made: Any, n: Any, table: Any) -> Any:
    """Rolls of 36 that escape past the (at most 12) points ``24 - n .. 24 - n + 11`` of a
    side whose made points (two or more checkers) are the bits of ``made``."""
    m = min(n, 12)
    return table[(made >> (24 - n)) & ((1 << m) - 1)]


@no_refcounts
def masks(row: Any) -> Any:
    """A side's points as bits: made (two or more), occupied, blots."""
    made = 0
    occupied = 0
    blots = 0
    for i in range(25):
        c = row[i]
        if c:
            occupied |= 1 << i
            if c == 1:
                blots |= 1 << i
            else:
                made |= 1 << i
    return made, occupied, blots


@no_refcounts
def _top(board: Any) -> Any:
    """The highest occupied index of a row (-1 when empty)."""
    for i in range(24, -1, -1):
        if board[i]:
            return i
    return -1


@no_refcounts
def _hits(me: Any, me_occupied: Any, opp_made: Any, opp_blots: Any, nboard: Any,
          hit: Any) -> Any:  # fmt: skip
    """``hit[w]``: bit ``j`` set when way ``w`` hits a blot of the opponent from ``me``'s
    point ``j`` (anchors of the home board are not broken to hit; with fewer than 3 home
    points made, blots on the opponent's last two points are left alone); ``hit[39 + w]``
    its highest bit. Returns the ways that hit, as bits."""
    for w in range(78):
        hit[w] = 0
    ways = 0
    start = 23 if nboard > 2 else 21
    blots = opp_blots & ((1 << (start + 1)) - 1)
    while blots:
        i = _msb(blots)
        blots ^= 1 << i
        hitters = me_occupied & ~((1 << (24 - i)) - 1)
        while hitters:
            j = _msb(hitters)
            hitters ^= 1 << j
            if j < 6 and me[j] == 2:
                continue
            for t in range(5):
                w = BY_DISTANCE[j - 24 + i, t]
                if w < 0:
                    break
                blocked = False
                if WAY_ALL[w]:
                    if WAY_DICE[w] > 1:
                        for k in range(3):
                            st = WAY_STEPS[w, k]
                            if st <= 0:
                                break
                            if (opp_made >> (i - st)) & 1:
                                blocked = True
                                break
                elif (opp_made >> (i - WAY_STEPS[w, 0])) & 1 and (
                    opp_made >> (i - WAY_STEPS[w, 1])
                ) & 1:
                    blocked = True
                if not blocked:
                    ways |= 1 << w
                    hit[w] |= 1 << j
                    if j > hit[39 + w]:
                        hit[39 + w] = j
    return ways


@no_refcounts
def _shots(me: Any, opp: Any, hit: Any, ways: Any) -> Any:
    """The shots of the 21 rolls (gnubg's heuristics: from the bar only what enters): the
    pips the opponent loses at most, summed over the 36 rolls, and the rolls (of 36) that
    hit at least one checker and at least two; ``ways`` the ways that hit (:func:`_hits`),
    as bits."""
    lost = 0
    one = 0
    two = 0
    bar = me[24]
    if ways == 0:
        return lost, one, two
    for r in range(21):
        if not (ROLL_MASK[r] & ways):
            continue
        pips = 0
        checkers = 0
        weight = 1 if ROLL_WAYS[r, 3] > 0 else 2
        if bar == 0:
            last = -1
            for jj in range(4):
                w = ROLL_WAYS[r, jj]
                if w < 0:
                    break
                if hit[w] == 0:
                    continue
                k = hit[39 + w]  # the most advanced hitter (never the bar here)
                if WAY_DICE[w] == 1:
                    if last != k or me[k] > 1:
                        checkers += 1
                    last = k
                    pips = max(pips, k - WAY_PIPS[w] + 1)
                    if ROLL_WAYS[r, 3] >= 0 and (hit[w] & ~(1 << k)):
                        checkers += 1
                else:
                    if checkers == 0:
                        checkers = 1
                    pips = max(pips, k - WAY_PIPS[w] + 1)
                    for t in range(3):
                        s = WAY_STEPS[w, t]
                        if s <= 0:
                            break
                        if opp[23 - k + s] == 1:
                            checkers += 1
                            break
        elif bar == 1:
            entered = 0
            for jj in range(4):
                w = ROLL_WAYS[r, jj]
                if w < 0:
                    break
                if hit[w] == 0:
                    continue
                if WAY_DICE[w] == 1:
                    bits = hit[w] & ~1
                    while bits:  # the hitters, the most advanced first
                        k = _msb(bits)
                        bits ^= 1 << k
                        if entered and k != 24:
                            break
                        if k != 24:
                            # the other die enters (gnubg reads the roll's next way; for
                            # doubles that is the two-dice way)
                            other = ROLL_WAYS[r, 1 - jj]
                            if opp[WAY_PIPS[other] - 1] > 1:
                                break
                            entered = 1
                        checkers += 1
                        pips = max(pips, k - WAY_PIPS[w] + 1)
                else:
                    if not (hit[w] & (1 << 24)):
                        continue
                    if checkers == 0:
                        checkers = 1
                    pips = max(pips, 25 - WAY_PIPS[w])
                    for t in range(3):
                        s = WAY_STEPS[w, t]
                        if s <= 0:
                            break
                        if opp[s + 1] == 1:
                            checkers += 1
                            break
        else:
            for jj in range(2):
                w = ROLL_WAYS[r, jj]
                if not (hit[w] & (1 << 24)) or WAY_DICE[w] != 1:
                    continue
                checkers += 1
                pips = max(pips, 25 - WAY_PIPS[w])
        lost += pips * weight
        if checkers > 0:
            one += weight
            if checkers > 1:
                two += weight
    return lost, one, two


@no_refcounts
def _timing(me: Any, opp_back: Any) -> Any:
    """Pips the side can play before it must break its home board (gnubg's I_TIMING)."""
    t = 24 * int(me[24])
    spare = int(me[24])
    i = 23
    while i >= 12 and i > opp_back:
        c = int(me[i])
        if c and c != 2:
            n = c - 2 if c > 2 else 1
            spare += n
            t += i * n
        i -= 1
    while i >= 6:
        c = int(me[i])
        if c:
            spare += c
            t += i * c
        i -= 1
    for i in range(5, -1, -1):
        c = int(me[i])
        if c > 2:
            t += i * (c - 2)
            spare += c - 2
        elif c < 2:
            n = 2 - c
            if spare >= n:
                t -= i * n
                spare -= n
    return max(t, 0)


@no_refcounts
def _anchors(me: Any, out: Any, o: Any) -> None:
    """Back checker, back anchor and forward anchor (I_BACK_CHEQUER .. I_FORWARD_ANCHOR)."""
    back = _top(me)
    out[o + 4] = F32(back) * _INV24
    i = 23 if back == 24 else back
    while i >= 0 and me[i] < 2:
        i -= 1
    out[o + 5] = F32(i) * _INV24
    n = 0
    for j in range(18, i + 1):
        if me[j] >= 2:
            n = 24 - j
            break
    if n == 0:
        for j in range(17, 11, -1):
            if me[j] >= 2:
                n = 24 - j
                break
    out[o + 6] = F32(2.0) if n == 0 else F32(n) * _INV6


@nb.njit(cache=True, inline="always")
def _fewest_escapes(made: Any, start: Any, stop: Any, n: Any) -> Any:
    """The fewest escaping rolls (at most ``n``) over the stretches ``start .. stop - 1``."""
    for i in range(start, stop):
        e = _escapes(made, i, ESCAPES)
        if e < n:
            n = e
    return n


@no_refcounts
def _containment(me: Any, me_made: Any, opp_made: Any, opp_back: Any, out: Any,
                 o: Any) -> None:  # fmt: skip
    """Escapes of the opponent's back checker, containment and mobility."""
    out[o + 10] = F32(_escapes(me_made, 23 - opp_back, ESCAPES)) * _INV36
    out[o + 24] = F32(_escapes(me_made, 23 - opp_back, ESCAPES1)) * _INV36
    n = _fewest_escapes(me_made, 15, 24 - opp_back, 36)
    a = F32(36 - n) * _INV36
    out[o + 11] = a
    out[o + 12] = a * a
    if opp_back < 0:  # the opponent on the bar: start again without point 24
        n = _fewest_escapes(me_made, 15, 24, 36)
    else:  # the points beyond the back checker too
        n = _fewest_escapes(me_made, max(15, 24 - opp_back), 24, n)
    c = F32(36 - n) * _INV36
    out[o + 13] = c
    out[o + 14] = c * c
    mob = 0
    for i in range(6, 25):
        if me[i]:
            mob += (i - 5) * int(me[i]) * _escapes(opp_made, i, ESCAPES)
    out[o + 15] = F32(mob) * _INV3600


@no_refcounts
def _moment(me: Any) -> Any:
    """The one-sided second moment of the checkers beyond their mean point (I_MOMENT2)."""
    total = 0
    s = 0
    for i in range(25):
        c = int(me[i])
        if c:
            total += c
            s += i * c
    mean = (s + total - 1) // total if total else s
    total = 0
    k = 0
    for i in range(mean + 1, 25):
        c = int(me[i])
        if c:
            total += c
            k += c * (i - mean) * (i - mean)
    if total:
        k = (k + total - 1) // total
    return k


@no_refcounts
def _entering(me: Any, opp: Any, out: Any, o: Any) -> None:
    """Pips lost entering from the bar (I_ENTER) and the chance of staying out (I_ENTER2)."""
    if me[24] > 0:
        loss = 0
        two = me[24] > 1
        for i in range(6):
            if opp[i] > 1:
                loss += 4 * (i + 1)
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (i + j + 2)
                    elif two:
                        loss += 2 * (i + 1)
            elif two:
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (j + 1)
        out[o + 17] = F32(loss) * _INV294
    else:
        out[o + 17] = F32(0.0)
    n = 0
    for i in range(6):
        if opp[i] > 1:
            n += 1
    out[o + 18] = F32(36 - (n - 6) * (n - 6)) * _INV36


@no_refcounts
def _backbone(me: Any) -> Any:
    """How well the points behind the side's front anchor connect to it (I_BACKBONE)."""
    front = -1
    w = 0
    tot = 0
    for p in range(23, 0, -1):
        if me[p] >= 2:
            if front == -1:
                front = p
                continue
            d = front - p
            c = 11 if d <= 6 else (13 - d if d <= 11 else 0)
            w += c * int(me[front])
            tot += int(me[front])
    if tot:
        # -ffast-math: 1 - w / (11 tot) as 1 - (w * (1 / 11)) / tot
        return F32(1.0) - (F32(w) * _INV11) / F32(tot)
    return F32(0.0)


@no_refcounts
def half_inputs(me: Any, opp: Any, me_masks: Any, opp_masks: Any, out: Any, o: Any,
                hit: Any) -> None:  # fmt: skip
    """The hand-made inputs 3..24 of the side ``me`` against ``opp`` at ``out[o:]``
    (gnubg's ``CalculateHalfInputs``); ``me_masks``, ``opp_masks`` are their
    :func:`masks`, ``hit`` scratch."""
    me_made, me_occupied, _ = me_masks
    opp_made, opp_occupied, opp_blots = opp_masks
    opp_back = 23 - (_msb(opp_occupied) if opp_occupied else -1)
    n = 0
    for i in range(opp_back + 1, 25):
        if me[i]:
            n += (i + 1 - opp_back) * int(me[i])
    out[o + 3] = F32(n) * _INV167
    free = 0
    for i in range(opp_back):
        if me[i]:
            free += (i + 1) * int(me[i])
    out[o + 23] = F32(free) * _INV100
    out[o + 19] = F32(_timing(me, opp_back)) * _INV100
    _anchors(me, out, o)
    nboard = np.int64(0)  # not a literal 0: the callee compiles once
    for i in range(6):
        if me[i]:
            nboard += 1
    ways = _hits(me, me_occupied, opp_made, opp_blots, nboard, hit)
    lost, one, two = _shots(me, opp, hit, ways)
    out[o + 7] = F32(lost) * _INV432
    out[o + 8] = F32(one) * _INV36
    out[o + 9] = F32(two) * _INV36
    _containment(me, me_made, opp_made, opp_back, out, o)
    out[o + 16] = F32(_moment(me)) * _INV400
    _entering(me, opp, out, o)
    out[o + 20] = _backbone(me)
    anchors = 0
    for i in range(18, 24):
        if me[i] > 1:
            anchors += 1
    out[o + 21] = F32(0.0)
    out[o + 22] = F32(0.0)
    if anchors >= 1:
        tot = 0
        for i in range(18, 25):
            tot += int(me[i])
        if anchors > 1:
            out[o + 21] = F32(tot - 3) / F32(4.0)
        else:
            out[o + 22] = F32(tot) / F32(8.0)


@no_refcounts
def _men_off(me: Any, out: Any, o: Any, crashed: Any) -> None:
    """Checkers borne off as three inputs (by fives for the crashed network, by threes for
    the contact network)."""
    off = 15
    for i in range(25):
        off -= int(me[i])
    step = 5 if crashed else 3
    inv = _INV5 if crashed else _INV3
    if off > 2 * step:
        out[o] = F32(1.0)
        out[o + 1] = F32(1.0)
        out[o + 2] = F32(off - 2 * step) * inv
    elif off > step:
        out[o] = F32(1.0)
        out[o + 1] = F32(off - step) * inv
        out[o + 2] = F32(0.0)
    else:
        out[o] = F32(off) * inv if off else F32(0.0)
        out[o + 1] = F32(0.0)
        out[o + 2] = F32(0.0)


@no_refcounts
def point_inputs(row: Any, out: Any, o: Any, bar: Any) -> None:
    """Four inputs a point: exactly 1, exactly 2 (on the bar: at least 1, 2, 3), at least
    3, and half of the checkers beyond 3."""
    for i in range(25):
        c = int(row[i])
        k = o + 4 * i
        if i == 24 and bar:
            out[k] = F32(1.0) if c >= 1 else F32(0.0)
            out[k + 1] = F32(1.0) if c >= 2 else F32(0.0)
        else:
            out[k] = F32(1.0) if c == 1 else F32(0.0)
            out[k + 1] = F32(1.0) if c == 2 else F32(0.0)
        out[k + 2] = F32(1.0) if c >= 3 else F32(0.0)
        out[k + 3] = F32(c - 3) / F32(2.0) if c > 3 else F32(0.0)


@no_refcounts
def contact_inputs(board: Any, crashed: Any, out: Any, hit: Any) -> None:
    """The 250 inputs of the contact (``crashed`` False) or crashed network for a flat
    board (cells 0..24 the side not on roll, 25..49 the side on roll)."""
    opp = board[0:25]
    me = board[25:50]
    # offsets as int64 values (a literal argument would compile a callee once per value)
    point_inputs(opp, out, np.int64(0), True)
    point_inputs(me, out, np.int64(100), True)
    # gnubg's contact network was trained with the men-off inputs of the two halves swapped
    me_masks = masks(me)
    opp_masks = masks(opp)
    half = np.int64(HALF_CONTACT)
    _men_off(me if crashed else opp, out, half, crashed)
    half_inputs(me, opp, me_masks, opp_masks, out, half, hit)
    _men_off(opp if crashed else me, out, half + 25, crashed)
    half_inputs(opp, me, opp_masks, me_masks, out, half + 25, hit)


@no_refcounts
def race_inputs(board: Any, out: Any) -> None:
    """The 214 inputs of the race network: per side its points 1..23 (four inputs each),
    the checkers off (one of 14 set) and the crossovers still to make, divided by 10."""
    for side in range(2):
        row = board[25 * side : 25 * side + 25]
        o = 107 * side
        off = 15
        for i in range(23):
            c = int(row[i])
            off -= c
            k = o + 4 * i
            out[k] = F32(1.0) if c == 1 else F32(0.0)
            out[k + 1] = F32(1.0) if c == 2 else F32(0.0)
            out[k + 2] = F32(1.0) if c >= 3 else F32(0.0)
            out[k + 3] = F32(c - 3) / F32(2.0) if c > 3 else F32(0.0)
        for k in range(14):
            out[o + 92 + k] = F32(1.0) if off == k + 1 else F32(0.0)
        cross = 0
        for q in range(1, 4):
            for i in range(6 * q, 6 * q + 6):
                cross += int(row[i]) * q
        out[o + 106] = F32(cross) * _INV10
