"""ASCII board diagrams.

The board is drawn from the side on roll's point of view in the usual layout: its points
1-12 along the bottom (1 at the right), 13-24 along the top, its checkers ``X`` and the
opponent's ``O``; stacks taller than five show their count in the fifth row. The bar is
the middle column (``X`` checkers on it in the lower half, ``O`` in the upper half).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.board import BasePosition

__all__ = ["render"]

_ROWS = 5


def stack_cell(count: int, row: int, mark: str) -> str:
    """Character of a stack of ``count`` at ``row`` (0 = nearest the edge)."""
    if count <= row:
        return " "
    if row == _ROWS - 1 and count > _ROWS:
        return str(count) if count < 10 else chr(ord("A") + count - 10)
    return mark


def render(position: BasePosition, *, match: Any = None, roll: Any = None) -> str:
    """The board as text (13 lines of board plus a header), side on roll at the bottom.

    Stacks of 10 or more checkers show a letter in the fifth row (A = 10, ..., F = 15).
    """
    me = position.player
    opp = position.opponent

    def stack(p: int, row: int) -> str:
        """Character at ``row`` of the side on roll's point p."""
        if me[p - 1]:
            return stack_cell(me[p - 1], row, "X")
        q = 25 - p  # the opponent's own number for this point
        if opp[q - 1]:
            return stack_cell(opp[q - 1], row, "O")
        return " "

    lines = [f" Position ID: {position.id}" if position.is_valid() else " (invalid position)"]
    if match is not None:
        lines.append(f" Match ID   : {match.id}")
    cube = ""
    if match is not None:
        owner = "centred" if match.cube_owner is None else (
            f"{'X' if match.cube_owner == match.on_roll else 'O'}'s, player {match.cube_owner}")
        cube = f"cube {match.cube} ({owner})"
    lines += board_lines(position, stack, middle=cube, roll=roll)
    return "\n".join(line.rstrip() for line in lines)


def board_lines(
    position: BasePosition, stack: Callable[[int, int], str], *, middle: str = "", roll: Any = None
) -> list[str]:
    """The board's lines, border to border, side on roll at the bottom.

    ``stack(p, row)`` is the character drawn at ``row`` (0 = nearest the edge) of the side
    on roll's point ``p``; the bars, pip counts and borne-off counts come from
    ``position``; ``middle`` is written right of the bar line, the roll right of the lower
    half. Lines may end in spaces.
    """

    def half(points: range, row: int, bar_count: int, bar_mark: str) -> str:
        cells = [" " + stack(p, row) + " " for p in points]
        bar = " " + stack_cell(bar_count, row, bar_mark) + " "
        return f" |{''.join(cells[:6])}|{bar}|{''.join(cells[6:])}|"

    top = range(13, 25)  # left to right
    bottom = range(12, 0, -1)
    pips = position.pips()
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]
    side_top = [f"O: {pips[1]} pips, {position.opponent_off} off", "", "", "", ""]
    for row in range(_ROWS):
        lines.append(half(top, row, position.opponent[24], "O") + "   " + side_top[row])
    lines.append(" |                  |BAR|                  |   " + middle)
    side_bottom = ["", "", "", "", f"X: {pips[0]} pips, {position.player_off} off (on roll)"]
    if roll is not None:
        side_bottom[3] = f"rolled {roll[0]}{roll[1]}"
    for row in range(_ROWS - 1, -1, -1):
        side = side_bottom[_ROWS - 1 - row]
        lines.append(half(bottom, row, position.player[24], "X") + "   " + side)
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    return lines
