"""The backgammon position: an immutable value object seen from the side on roll.

:class:`Position` is the checker layout of :class:`~mathbg.rules.board.BasePosition`
(layout, views, validity and the Position ID are documented there) plus what needs the rest
of the rules model: its legal plays (:mod:`mathbg.rules.plays`), its diagram
(:mod:`mathbg.rules.diagram`) and the starting position of a variant. The split follows
python-chess's ``BaseBoard`` / ``Board``: the lower modules (move generator, notation,
diagrams) take a :class:`~mathbg.rules.board.BasePosition` and build their results with
the class of the position they were given, so they never import this module.

Point numbers in the public API are 1..24 from the side concerned, 25 is the bar and 0 is
"off", as in gnubg's move notation. Construction is lenient; :meth:`Position.check` and
:meth:`Position.from_id` are strict (see :class:`PositionStatus`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mathbg.rules.board import (
    BAR,
    CHECKERS,
    OFF,
    BasePosition,
    PositionStatus,
    new_position,
)
from mathbg.rules.board import row_from_counts as row_from_counts  # as before the split
from mathbg.rules.diagram import render
from mathbg.rules.registry import lookup

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.plays import Plays

__all__ = ["BAR", "CHECKERS", "OFF", "Position", "PositionStatus"]


class Position(BasePosition):
    """A backgammon position from the point of view of the side on roll.

    The checker layout of :class:`~mathbg.rules.board.BasePosition` (its layout, views,
    validity, equality and Position ID are documented there) plus its legal plays, its
    diagram and the starting positions of the variants.

    Parameters
    ----------
    cells : bytes or str
        The 50 checker counts or a gnubg Position ID, as for
        :class:`~mathbg.rules.board.BasePosition`. Most users build positions with
        :meth:`from_id`, :meth:`from_counts` or :meth:`initial`.
    """

    __slots__ = ()

    @classmethod
    def initial(cls, variant: str = "backgammon") -> Position:
        """The starting position of ``variant``: ``"backgammon"`` (a Position) or a
        regional variant, ``"portes"``, ``"plakoto"``, ``"fevga"``, ``"tavla"``,
        ``"long-nardi"`` (a :class:`~mathbg.rules.variants.position.VariantPosition`).

        Raises
        ------
        UnknownVariantError
            For a variant name mathbg does not know.
        """
        start: Position = lookup(variant).initial_position()  # see mathbg.rules.registry
        return start

    def legal_plays(self, roll: Any) -> Plays[Position]:
        """Every legal play of ``roll`` for the side on roll (standard backgammon rules).

        Parameters
        ----------
        roll : (int, int) or str
            Two dice 1..6 in either order, e.g. ``(6, 4)``, ``(4, 6)`` or ``"64"``.

        Returns
        -------
        Plays
            A sequence of :class:`~mathbg.rules.plays.Play`, one per distinct resulting
            position (hits included), as gnubg counts them; empty when the roll cannot be
            played at all. Each play's ``.result`` is still seen from the mover's side;
            ``.next_position`` is the swapped view for the opponent's turn.

        Raises
        ------
        InvalidRollError
            If ``roll`` is not two dice 1..6.
        InvalidPositionError
            If the position is impossible (:meth:`check`: more than 15 checkers a side,
            a point held by both sides, ...): it has no legal plays to list.
        """
        # imported here: the move generator loads numba, which `import mathbg` must not
        from mathbg.rules.plays import legal_plays

        self.check("position")
        return legal_plays(self, roll)

    @property
    def position_class(self) -> str:
        """The position's class for the cube: ``"contact"``, ``"race"`` or ``"bearoff"``.

        ``"contact"`` while the sides can still hit (:meth:`has_contact`); ``"bearoff"``
        once no contact is left and every checker of both sides is on its home board
        (points 1..6, gnubg's one-sided bearoff class); else ``"race"``. The cube-life
        model :func:`mathbg.cube.life.cube_life` takes this class.

        Returns
        -------
        str
            One of ``"contact"``, ``"race"``, ``"bearoff"``.

        Examples
        --------
        >>> Position.initial().position_class
        'contact'
        >>> Position.from_counts({6: 5, 8: 5, 10: 5}, {6: 5, 8: 5, 9: 5}).position_class
        'race'
        >>> Position.from_counts({1: 2, 3: 2}, {2: 3}).position_class
        'bearoff'
        """
        if self.has_contact():
            return "contact"
        c = self.cells
        home = all(c[k] == 0 and c[25 + k] == 0 for k in range(6, 25))
        return "bearoff" if home else "race"

    def diagram(self, *, match: Any = None, roll: Any = None) -> str:
        """An ASCII diagram of the board from the side on roll (X, at the bottom)."""
        return render(self, match=match, roll=roll)

    def __str__(self) -> str:
        return self.diagram()


def make_position(cells: bytes) -> Position:
    """A Position from 50 trusted cells without any checking (internal fast path)."""
    return new_position(Position, cells)


_INITIAL_ROW = bytes([0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0])

# The standard starting position, built once.
INITIAL = make_position(_INITIAL_ROW + _INITIAL_ROW)
