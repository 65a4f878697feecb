"""Variant names and board geometry: how the two sides' point numberings relate.

Coordinate convention (all variants)
------------------------------------
A variant position keeps the standard layout of :class:`mathbg.rules.position.Position`:
50 counts in gnubg ``TanBoard`` order, row 0 the side not on roll, row 1 the side on roll,
and in each row column ``k`` (0..23) is point ``k + 1`` **in that side's own numbering**,
column 24 its bar. In every variant a side's own point ``p`` is ``p`` pips from bearing off:
each side starts on (or near) its own 24-point, travels down to its home board (own points
1-6) and bears off from there, so pip counts, borne-off counts and :meth:`swap` mean the
same as in backgammon. What differs is where the opponent's points lie:

- **opposite** movement (backgammon, Portes, Tavla, Plakoto): the sides travel in
  opposite directions and the opponent's point ``q`` is the mover's point ``25 - q``
  (gnubg's convention);
- **same** movement (Fevga, Long Nardi): both sides travel anticlockwise, each starting in
  the corner diagonally opposite the other's start, so the numberings are a half-turn
  apart: the opponent's point ``q`` is the mover's point ``q + 12`` (``q <= 12``) or
  ``q - 12`` (``q > 12``). The opponent's start (its 24-point) is the mover's 12-point, and
  the mover's home board (its 1-6) is the opponent's 13-18. White's 24 and Black's 12 in
  White's numbering (Wikipedia "Long Nardy", "Fevga") are exactly the two heads.

Both maps are involutions, so :meth:`swap` (exchanging the rows) needs no re-numbering.
The bar column is used only by the hitting variants (Portes, Tavla).
"""

from __future__ import annotations

import enum

from mathbg.rules.registry import ALIASES as ALIASES
from mathbg.rules.registry import normalise_name as normalise_name

__all__ = ["Contact", "Movement", "Variant", "opponent_point", "variant_from_name"]


class Variant(enum.StrEnum):
    """The games mathbg plays on the 24-point board (values are the rule-set names)."""

    BACKGAMMON = "backgammon"
    PORTES = "portes"
    PLAKOTO = "plakoto"
    FEVGA = "fevga"
    TAVLA = "tavla"
    LONG_NARDI = "long-nardi"


class Movement(enum.StrEnum):
    """Whether the two sides travel in opposite directions or the same direction."""

    OPPOSITE = "opposite"
    SAME = "same"


class Contact(enum.StrEnum):
    """What happens when a checker lands on a single opposing checker.

    ``HIT``: it is hit and goes to the bar (a point with two or more opposing checkers is
    blocked). ``PIN``: it is pinned in place (Plakoto). ``BLOCK``: it cannot land there: a
    single checker holds a point (Fevga, Long Nardi).
    """

    HIT = "hit"
    PIN = "pin"
    BLOCK = "block"


#: Movement and contact of each variant (fixed properties of the game, not options).
GEOMETRY: dict[Variant, tuple[Movement, Contact]] = {
    Variant.BACKGAMMON: (Movement.OPPOSITE, Contact.HIT),
    Variant.PORTES: (Movement.OPPOSITE, Contact.HIT),
    Variant.TAVLA: (Movement.OPPOSITE, Contact.HIT),
    Variant.PLAKOTO: (Movement.OPPOSITE, Contact.PIN),
    Variant.FEVGA: (Movement.SAME, Contact.BLOCK),
    Variant.LONG_NARDI: (Movement.SAME, Contact.BLOCK),
}


class VariantGeometry:
    """Mixin for classes with a ``variant`` attribute: its fixed movement and contact."""

    __slots__ = ()
    variant: Variant

    @property
    def movement(self) -> Movement:
        """Opposite or same direction of travel."""
        return GEOMETRY[self.variant][0]

    @property
    def contact(self) -> Contact:
        """Hit, pin or block."""
        return GEOMETRY[self.variant][1]


def variant_from_name(name: str | Variant) -> Variant:
    """The :class:`Variant` called ``name`` (see :data:`ALIASES`).

    Raises
    ------
    UnknownVariantError
        For a name that is not a known variant.
    """
    from mathbg.errors import UnknownVariantError

    if isinstance(name, Variant):
        return name
    if not isinstance(name, str):
        raise UnknownVariantError(f"a variant name is a string, got {type(name).__name__}")
    try:
        return Variant(normalise_name(name))
    except ValueError:
        known = ", ".join(v.value for v in Variant)
        raise UnknownVariantError(f"unknown variant {name!r}: known variants are {known}") from None


def opponent_point(point: int, movement: Movement) -> int:
    """The opponent's own number for the mover's point ``point`` (1..24).

    ``25 - point`` for opposite movement; the half-turn ``point +/- 12`` for the same
    movement. The map is its own inverse.
    """
    if movement == Movement.OPPOSITE:
        return 25 - point
    return point + 12 if point <= 12 else point - 12
