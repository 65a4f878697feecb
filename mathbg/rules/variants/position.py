"""Variant positions: the standard 50-count layout plus the variant and Plakoto's pins.

:class:`VariantPosition` is a :class:`~mathbg.rules.position.Position` (same ``cells``,
same views, pips and borne-off counts; see :mod:`mathbg.rules.variants.geometry` for the
coordinate convention) that also knows its variant, hence the geometry between the two
rows, and, in Plakoto, which checkers are pinned.

Pins (Plakoto)
--------------
A pinned checker stays on its point under one or more opposing checkers, so in Plakoto a
point may hold checkers of both sides: exactly one pinned checker of one side (counted in
that side's row) and the pinning checkers of the other. ``pins`` is an int of 48 bits:
bit ``k`` (0..23) set means the side on roll's checker on its own point ``k + 1`` is
pinned; bit ``24 + k`` the same for the side not on roll on its own point ``k + 1``.
:meth:`VariantPosition.swap` exchanges the two halves.

Text form
---------
gnubg IDs cover only the standard game, so a variant position is written (and read back
exactly by :meth:`VariantPosition.from_text`) as::

    VARIANT:SIDE_ON_ROLL:OTHER_SIDE

where each side is ``-`` (no checker on the board) or comma-separated entries
``POINTxCOUNT`` in that side's own numbering (``bar`` for the bar), highest point first,
with ``*`` after an entry whose (single) checker is pinned. Checkers not listed are borne
off. Examples: ``plakoto:24x15:24x15`` (the Plakoto start), ``fevga:24x14,13x1:24x15``,
``plakoto:24x13,20x1,6x1*:24x14,19x1`` (the side on roll's checker on its 6-point is
pinned by the opponent's checker on the opponent's 19-point, the same point).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mathbg.errors import InvalidIdError, InvalidPositionError
from mathbg.rules.position import CHECKERS, Position, PositionStatus, row_from_counts
from mathbg.rules.variants.geometry import (
    Contact,
    Movement,
    Variant,
    VariantGeometry,
    opponent_point,
    variant_from_name,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.plays import Plays

__all__ = ["VariantPosition", "mirror_mask", "parse_position"]

_MASK24 = (1 << 24) - 1


_REV8 = tuple(int(f"{b:08b}"[::-1], 2) for b in range(256))


def mirror_mask(mask: int) -> int:
    """A 24-bit point mask re-numbered by ``k -> 23 - k`` (opposite movement)."""
    r = _REV8
    return (r[mask & 255] << 16) | (r[(mask >> 8) & 255] << 8) | r[(mask >> 16) & 255]


def make_variant_position(cells: bytes, variant: Variant, pins: int = 0) -> VariantPosition:
    """A VariantPosition from trusted fields, without checks (internal fast path)."""
    pos = object.__new__(VariantPosition)
    object.__setattr__(pos, "cells", cells)
    object.__setattr__(pos, "variant", variant)
    object.__setattr__(pos, "pins", pins)
    return pos


def _mask_from_points(points: Iterable[int], name: str) -> int:
    mask = 0
    for p in points:
        if not 1 <= int(p) <= 24:
            raise InvalidPositionError(f"{name}: pinned point {p} is not in 1..24")
        mask |= 1 << (int(p) - 1)
    return mask


@dataclass(frozen=True, slots=True, repr=False)
class VariantPosition(Position, VariantGeometry):
    """A position of a regional variant, from the point of view of the side on roll.

    Parameters
    ----------
    cells : bytes or str
        50 counts in gnubg ``TanBoard`` order (see :class:`Position`), or the text form
        (then ``variant`` and ``pins`` come from the text).
    variant : Variant or str
        ``portes``, ``plakoto``, ``fevga``, ``tavla`` or ``long-nardi``.
    pins : int
        Plakoto's pinned checkers (see the module docstring); 0 in the other variants.

    Notes
    -----
    Equality is equality of (cells, variant, pins). A variant position never equals a
    standard :class:`Position`, even with the same checkers. :attr:`id` is the text form.
    """

    variant: Variant = Variant.PORTES
    pins: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.cells, str):
            parsed = VariantPosition.from_text(self.cells)
            object.__setattr__(self, "cells", parsed.cells)
            object.__setattr__(self, "variant", parsed.variant)
            object.__setattr__(self, "pins", parsed.pins)
            return
        Position.__post_init__(self)
        v = variant_from_name(self.variant)
        if v == Variant.BACKGAMMON:
            raise InvalidPositionError(
                "a standard backgammon position is a Position, not a VariantPosition"
            )
        object.__setattr__(self, "variant", v)
        if not isinstance(self.pins, int) or not 0 <= self.pins < (1 << 48):
            raise InvalidPositionError(f"pins must be a 48-bit mask, got {self.pins!r}")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_counts(  # type: ignore[override]
        cls,
        player: Sequence[int] | Mapping[Any, int],
        opponent: Sequence[int] | Mapping[Any, int],
        *,
        variant: Variant | str,
        pinned: Iterable[int] = (),
        pinned_opponent: Iterable[int] = (),
    ) -> VariantPosition:
        """A variant position from each side's counts in its own numbering (lenient).

        Parameters
        ----------
        player, opponent : sequence of 24/25 ints or mapping
            As :meth:`Position.from_counts` (points 1..24, bar 25 or ``"bar"``).
        variant : Variant or str
        pinned, pinned_opponent : iterable of int
            Plakoto: the points (each side's own numbering) where that side has a pinned
            checker.

        Examples
        --------
        >>> VariantPosition.from_counts({24: 15}, {24: 15}, variant="fevga").id
        'fevga:24x15:24x15'
        """
        cells = row_from_counts(opponent, "opponent") + row_from_counts(player, "player")
        pins = _mask_from_points(pinned, "player") | (
            _mask_from_points(pinned_opponent, "opponent") << 24
        )
        return cls(cells, variant_from_name(variant), pins)

    @classmethod
    def from_board(  # type: ignore[override]
        cls, board: Any, *, variant: Variant | str, pins: int = 0
    ) -> VariantPosition:
        """A variant position from a (2, 25) ``TanBoard`` array (lenient)."""
        return cls(Position.from_board(board).cells, variant_from_name(variant), pins)

    @classmethod
    def from_text(cls, text: str) -> VariantPosition:
        """Read the text form (see the module docstring), strictly.

        Raises
        ------
        InvalidIdError
            If the text is malformed, naming the problem.
        InvalidPositionError
            If it describes an impossible position.
        """
        if not isinstance(text, str):
            raise InvalidIdError(f"a variant position text is a string, got {type(text)!r}")
        parts = text.strip().split(":")
        if len(parts) != 3:
            raise InvalidIdError(
                f"invalid variant position {text!r}: expected VARIANT:SIDE:SIDE "
                "(e.g. 'plakoto:24x15:24x15')"
            )
        try:
            variant = variant_from_name(parts[0])
        except ValueError as exc:
            raise InvalidIdError(f"invalid variant position {text!r}: {exc}") from None
        if variant == Variant.BACKGAMMON:
            raise InvalidIdError(
                f"invalid variant position {text!r}: standard positions use gnubg IDs"
            )
        rows = []
        masks = []
        for side, who in ((parts[1], "side on roll"), (parts[2], "other side")):
            row, mask = _parse_side(side, f"{text!r} ({who})")
            rows.append(row)
            masks.append(mask)
        pos = cls(bytes(rows[1] + rows[0]), variant, masks[0] | (masks[1] << 24))
        pos.check(context=f"variant position {text!r}")
        return pos

    from_id = from_text  # type: ignore[assignment]

    # ------------------------------------------------------------------ geometry
    def opponent_point(self, point: int) -> int:
        """The opponent's number for the side on roll's point ``point`` (1..24)."""
        return opponent_point(point, self.movement)

    def _opp_cell(self, k: int) -> int:
        """0-based opponent cell of the side on roll's 0-based point index ``k``."""
        if self.movement == Movement.OPPOSITE:
            return 23 - k
        return (k + 12) % 24

    @property
    def pinned_player(self) -> tuple[int, ...]:
        """Points (own numbering) where the side on roll has a pinned checker."""
        return tuple(k + 1 for k in range(24) if (self.pins >> k) & 1)

    @property
    def pinned_opponent(self) -> tuple[int, ...]:
        """Points (its own numbering) where the side not on roll has a pinned checker."""
        return tuple(k + 1 for k in range(24) if (self.pins >> (24 + k)) & 1)

    def swap(self) -> VariantPosition:
        """The same position seen by the other side (rows and pin halves exchanged)."""
        c = self.cells
        p = self.pins
        return make_variant_position(
            c[25:] + c[:25], self.variant, (p >> 24) | ((p & _MASK24) << 24)
        )

    def has_contact(self) -> bool:
        """True while some checker of one side still has to pass a checker of the other.

        A checker of the side on roll on its point ``p`` still passes the opponent's
        checker on the mover's point ``r`` when ``r < p``; symmetrically in the opponent's
        numbering. With opposite movement this is the standard ``p + q > 25``.
        """
        c = self.cells
        mine = [k for k in range(25) if c[25 + k]]
        theirs = [k for k in range(25) if c[k]]
        if not mine or not theirs:
            return False
        for k in mine:
            for q in theirs:
                if k == 24 or q == 24:
                    return True  # a checker on the bar has the whole board ahead
                r = self._opp_cell(q)  # the opponent's checker on my index r
                if r < k or self._opp_cell(k) < q:
                    return True
        return False

    def markable_points(self) -> set[int]:
        """Points (mover's numbering) where landing hits (Portes, Tavla) or pins (Plakoto)
        a single opposing checker; empty in Fevga and Long Nardi. Used for ``*`` in
        notation."""
        contact = self.contact
        if contact == Contact.BLOCK:
            return set()
        opp = self.cells[:25]
        marks = set()
        for p in range(1, 25):
            if opp[24 - p] != 1:
                continue
            if contact == Contact.PIN and (
                (self.pins >> (p - 1)) & 1 or (self.pins >> (24 + 24 - p)) & 1
            ):
                continue  # the opponent pins my checker there, or is already pinned
            marks.add(p)
        return marks

    def blocked_points(self) -> set[int]:
        """Points (mover's numbering) the side on roll may not land on."""
        out = set()
        contact = self.contact
        for p in range(1, 25):
            o = self.cells[self._opp_cell(p - 1)]
            if contact == Contact.BLOCK:
                if o:
                    out.add(p)
            elif contact == Contact.HIT:
                if o >= 2:
                    out.add(p)
            else:
                mine_pinned = (self.pins >> (p - 1)) & 1
                theirs_pinned = (self.pins >> (24 + 24 - p)) & 1
                if mine_pinned or (o >= 2 and not theirs_pinned):
                    out.add(p)
        return out

    # ------------------------------------------------------------------ validity
    def problems(self) -> list[str]:
        """Every reason the position cannot occur in its variant (empty when valid)."""
        c = self.cells
        out: list[str] = []
        n_me, n_opp = sum(c[25:]), sum(c[:25])
        if n_me > CHECKERS:
            out.append(f"the side on roll has {n_me} checkers (at most 15)")
        if n_opp > CHECKERS:
            out.append(f"the side not on roll has {n_opp} checkers (at most 15)")
        if n_me == 0 and n_opp == 0:
            out.append("neither side has a checker on the board")
        contact = self.contact
        if contact != Contact.HIT and (c[24] or c[49]):
            out.append(f"{self.variant} has no bar, but checkers are on it")
        if contact != Contact.PIN and self.pins:
            out.append(f"{self.variant} has no pinned checkers")
        shared = []
        for k in range(24):
            o = self._opp_cell(k)
            mine, theirs = c[25 + k], c[o]
            me_pinned = (self.pins >> k) & 1
            opp_pinned = (self.pins >> (24 + o)) & 1
            if me_pinned and (mine != 1 or not theirs or opp_pinned):
                out.append(
                    f"the side on roll's pinned checker on its {k + 1}-point needs to be "
                    "alone there under opposing checkers"
                )
            if opp_pinned and (theirs != 1 or not mine):
                out.append(
                    f"the other side's pinned checker on its {o + 1}-point needs to be "
                    "alone there under opposing checkers"
                )
            if mine and theirs and not (me_pinned or opp_pinned):
                shared.append(str(k + 1))
        if shared:
            out.append(
                f"point(s) {', '.join(shared)} (side on roll's numbering) held by both sides"
            )
        return out

    def status(self) -> PositionStatus:
        """The standard :class:`PositionStatus` flags that apply (see :meth:`problems`
        for the complete list, which also covers bars and pins)."""
        c = self.cells
        st = PositionStatus.VALID
        if sum(c[25:]) > CHECKERS:
            st |= PositionStatus.TOO_MANY_CHECKERS_PLAYER
        if sum(c[:25]) > CHECKERS:
            st |= PositionStatus.TOO_MANY_CHECKERS_OPPONENT
        if any("held by both sides" in p for p in self.problems()):
            st |= PositionStatus.SHARED_POINT
        if not any(c):
            st |= PositionStatus.NO_CHECKERS
        return st

    def is_valid(self) -> bool:
        """True when :meth:`problems` finds nothing."""
        return not self.problems()

    def check(self, context: str = "position") -> VariantPosition:
        """Return self if valid, else raise InvalidPositionError naming every problem."""
        problems = self.problems()
        if problems:
            raise InvalidPositionError(f"invalid {context}: " + "; ".join(problems))
        return self

    # ------------------------------------------------------------------ text form
    @property
    def text(self) -> str:
        """The text form (see the module docstring); round-trips with :meth:`from_text`."""
        c = self.cells
        sides = []
        for base, shift in ((25, 0), (0, 24)):
            entries = []
            if c[base + 24]:
                entries.append(f"barx{c[base + 24]}")
            for k in range(23, -1, -1):
                n = c[base + k]
                if n:
                    star = "*" if (self.pins >> (shift + k)) & 1 else ""
                    entries.append(f"{k + 1}x{n}{star}")
            sides.append(",".join(entries) or "-")
        return f"{self.variant.value}:{sides[0]}:{sides[1]}"

    @property
    def id(self) -> str:
        """The text form (variants have no gnubg ID); see :attr:`text`."""
        return self.text

    def to_standard(self) -> Position:
        """The same checkers as a standard :class:`Position` (gnubg layout and IDs).

        Only for opposite-movement variants without pins (Portes, Tavla, and Plakoto
        positions with no pinned checker), where the board means the same as in
        backgammon; e.g. to use the bearoff databases in a Portes race.

        Raises
        ------
        InvalidPositionError
            For same-direction variants or positions with pinned checkers.
        """
        if self.movement != Movement.OPPOSITE or self.pins:
            raise InvalidPositionError(
                f"a {self.variant} position with this geometry or pins is not a standard "
                "backgammon position"
            )
        return Position(self.cells)

    # ------------------------------------------------------------------ plays
    def legal_plays(self, roll: Any) -> Plays[Any]:
        """Every legal play of ``roll`` under the variant's default rules: a
        :class:`~mathbg.rules.variants.plays.VariantPlays` (built by the rule set, above
        this module).

        Use ``get_ruleset(...).with_options(...).legal_plays(position, roll)`` for a rule
        set with non-default options.
        """
        from mathbg.rules.ruleset import get_ruleset

        return get_ruleset(self.variant.value).legal_plays(self, roll)

    # ------------------------------------------------------------------ display
    def diagram(self, *, match: Any = None, roll: Any = None) -> str:
        """An ASCII diagram from the side on roll (X at the bottom, O at the top).

        Points are the side on roll's numbers; the opponent's checkers are drawn on the
        points they occupy under the variant's geometry. A pinned checker is the
        lower-case letter at the base of its stack (``x`` or ``o``), under its pinners.
        """
        return _render(self, roll=roll)

    def __repr__(self) -> str:
        return f"VariantPosition({self.text!r})"

    def __str__(self) -> str:
        return self.diagram()


_ENTRY = re.compile(r"^(?P<point>bar|\d{1,2})x(?P<count>\d{1,3})(?P<star>\*?)$")


def _parse_side(side: str, where: str) -> tuple[list[int], int]:
    """One side of the text form: 25 counts and its 24-bit pin mask."""
    row = [0] * 25
    mask = 0
    side = side.strip()
    if side == "-":
        return row, 0
    if not side:
        raise InvalidIdError(f"invalid variant position {where}: a side is empty (use '-')")
    seen = set()
    for entry in side.split(","):
        m = _ENTRY.match(entry.strip().lower())
        if not m:
            raise InvalidIdError(
                f"invalid variant position {where}: cannot read {entry!r} "
                "(write POINTxCOUNT, e.g. 13x5, bar x1 as 'barx1', '*' for a pinned checker)"
            )
        point = 25 if m.group("point") == "bar" else int(m.group("point"))
        count = int(m.group("count"))
        if m.group("point") != "bar" and not 1 <= point <= 24:
            raise InvalidIdError(
                f"invalid variant position {where}: point {point} not in 1..24 (the bar is 'bar')"
            )
        if point in seen:
            raise InvalidIdError(f"invalid variant position {where}: point {point} listed twice")
        if count < 1:
            raise InvalidIdError(f"invalid variant position {where}: {entry!r} has no checker")
        seen.add(point)
        row[point - 1] = count
        if m.group("star"):
            if point == 25:
                raise InvalidIdError(f"invalid variant position {where}: the bar has no pins")
            mask |= 1 << (point - 1)
    if sum(row) > CHECKERS:
        raise InvalidIdError(
            f"invalid variant position {where}: {sum(row)} checkers (at most 15 a side)"
        )
    return row, mask


def parse_position(text: str) -> Position:
    """A position from any supported text: a variant text form (``fevga:24x15:24x15``)
    gives a :class:`VariantPosition`; anything else is read as a gnubg Position ID.

    Raises
    ------
    InvalidIdError, InvalidPositionError
    """
    t = text.strip()
    if t.count(":") == 2 and not t.upper().startswith("XGID"):
        head = t.split(":", 1)[0]
        if head and not head[0].isdigit() and "/" not in head and "+" not in head:
            return VariantPosition.from_text(t)
    return Position.from_id(t)


# ----------------------------------------------------------------------------------------
# diagram


def _render(position: VariantPosition, *, roll: Any = None) -> str:
    from mathbg.rules.diagram import board_lines, stack_cell

    c = position.cells
    pins = position.pins

    def stack(p: int, row: int) -> str:
        k = p - 1
        mine = c[25 + k]
        o = position._opp_cell(k)
        theirs = c[o]
        me_pinned = (pins >> k) & 1
        opp_pinned = (pins >> (24 + o)) & 1
        if mine and theirs and (me_pinned or opp_pinned):
            base, top, n_top = ("x", "O", theirs) if me_pinned else ("o", "X", mine)
            if row == 0:
                return base
            return stack_cell(n_top, row - 1, top)
        if mine:
            return stack_cell(mine, row, "X")
        if theirs:
            return stack_cell(theirs, row, "O")
        return " "

    if position.movement == Movement.SAME:
        note = "both sides move anticlockwise: O's point q is X's q+12 (q <= 12) or q-12"
    else:
        note = "O's point q is X's point 25 - q"
    text = position.text  # already "variant:..."
    prefix = f"{position.variant.value}:"
    lines = [f" {text}" if text.startswith(prefix) else f" {prefix} {text}"]
    lines += board_lines(position, stack, roll=roll)
    lines.append(f" ({note})")
    if max(c) >= 10:
        lines.append(" (a letter on the fifth row counts a tall stack: A = 10 ... F = 15)")
    if pins:
        lines.append(" (a lower-case x or o at the base of a stack is a pinned checker)")
    return "\n".join(line.rstrip() for line in lines)
