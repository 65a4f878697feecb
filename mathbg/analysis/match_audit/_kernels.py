"""numba kernel of :func:`mathbg.analysis.match_audit.plays.board_classes` (internal).

A match's audit classifies every play of every roll it values (two hundred thousand boards
for a 13-point match): one pass over each board's 50 cells instead of a dozen numpy passes
over all of them.
"""

from __future__ import annotations

from typing import Any

from mathbg._native import no_refcounts

#: Class codes (:data:`mathbg.analysis.match_audit.plays.CLASS_NAMES`).
OVER, CONTACT, RACE, BEAROFF1, BEAROFF2 = 0, 1, 2, 3, 4


@no_refcounts
def classes_into(boards: Any, classes: Any, pips: Any) -> None:
    """Each board's class and the pips of the side on roll (cells 25-49) into ``classes``
    and ``pips``: a side with no checkers, the game is over; both sides within their home
    boards, a bearoff (two-sided with at most 6 checkers a side); the two backmost
    checkers' points (0-based, the bar 24) summing to at most 22, a race; else contact."""
    for j in range(boards.shape[0]):
        total_off = 0
        total_on = 0
        back_off = -1
        back_on = -1
        outside = False
        pip = 0
        for i in range(25):
            a = int(boards[j, i])
            b = int(boards[j, 25 + i])
            total_off += a
            total_on += b
            pip += (i + 1) * b
            if a > 0:
                back_off = i
                if i >= 6:
                    outside = True
            if b > 0:
                back_on = i
                if i >= 6:
                    outside = True
        if total_off == 0 or total_on == 0:
            k = OVER
        elif not outside:
            k = BEAROFF2 if total_off <= 6 and total_on <= 6 else BEAROFF1
        elif back_off + back_on > 22:
            k = CONTACT
        else:
            k = RACE
        classes[j] = k
        pips[j] = pip
