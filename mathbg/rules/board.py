"""The checkers of a backgammon position: :class:`BasePosition`, the bottom of the rules model.

:class:`BasePosition` holds the checker layout and everything computed from it alone (views,
pip counts, contact, validity, the gnubg Position ID); it imports nothing else of the rules
model, so the move generator, the notation and the diagrams can take it. The full
:class:`~mathbg.rules.position.Position` (the public class, with ``legal_plays``,
``diagram`` and ``initial``) extends it where those are importable, as python-chess's
``Board`` extends its ``BaseBoard``.

Layout
------
A position stores the 50 checker counts of gnubg's ``TanBoard``
(``lib/gnubg-types.h``): row 0 is the side *not* on roll, row 1 the side on roll; in each
row, column ``k`` (0..23) is point ``k + 1`` **from that side's own point of view** and
column 24 is its bar. Borne-off checkers are implicit: ``15 - (checkers on the board)``
(``BasePosition.checkers``: 1, 2 or 3 for a Hypergammon position).
Changing sides (:meth:`BasePosition.swap`) exchanges the rows; nothing is mirrored.

Point numbers in the public API are 1..24 from the side concerned, 25 is the bar and 0 is
"off", as in gnubg's move notation. The side on roll's point ``p`` is the opponent's point
``25 - p``.

Validity
--------
Construction is lenient (analysis positions such as bearoff-only boards are allowed, as in
python-chess); :meth:`BasePosition.status` reports every problem as a :class:`PositionStatus`
flag, mirroring gnubg's ``CheckPosition`` (``positionid.c``), and :meth:`BasePosition.check`
raises :class:`~mathbg.errors.InvalidPositionError` naming them. IDs from users go through
the strict path (:meth:`BasePosition.from_id`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from mathbg.errors import InvalidPositionError
from mathbg.rules.idcodec import decode_position_id, encode_position_id

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "BasePosition",
    "PositionStatus",
    "new_position",
    "row_from_counts",
]

#: Point number of the bar in the public API (and column 24 of a TanBoard row, 0-based).
BAR = 25
#: Point number meaning "borne off".
OFF = 0
#: Checkers per side in the standard game.
CHECKERS = 15


class PositionStatus(enum.IntFlag):
    """Problems of a position; ``VALID`` (0) when there are none.

    Mirrors gnubg's ``CheckPosition`` plus one flag gnubg does not check (``NO_CHECKERS``).
    """

    VALID = 0
    #: The side on roll has more than 15 checkers (its class's ``checkers``).
    TOO_MANY_CHECKERS_PLAYER = enum.auto()
    #: The side not on roll has more than 15 checkers (its class's ``checkers``).
    TOO_MANY_CHECKERS_OPPONENT = enum.auto()
    #: A point is held by checkers of both sides.
    SHARED_POINT = enum.auto()
    #: Both sides have checkers on the bar and both home boards are closed (a deadlock no
    #: game can reach).
    BOTH_CLOSED_OUT = enum.auto()
    #: Neither side has a checker on the board (a game ends when the first side finishes).
    NO_CHECKERS = enum.auto()


_STATUS_TEXT = {
    PositionStatus.TOO_MANY_CHECKERS_PLAYER: "the side on roll has {np} checkers (at most {nc})",
    PositionStatus.TOO_MANY_CHECKERS_OPPONENT: "the side not on roll has {no} checkers "
    "(at most {nc})",
    PositionStatus.SHARED_POINT: "point(s) {shared} (side on roll's numbering) held by both sides",
    PositionStatus.BOTH_CLOSED_OUT: "both sides are on the bar against closed boards",
    PositionStatus.NO_CHECKERS: "neither side has a checker on the board",
}


def row_from_counts(counts: Sequence[int] | Mapping[Any, int], name: str) -> bytes:
    """25 counts (points 1..24 then bar) from a sequence of 24/25 or a mapping."""
    row = [0] * 25
    if isinstance(counts, Mapping):
        for key, n in counts.items():
            if isinstance(key, str):
                if key.lower() != "bar":
                    raise InvalidPositionError(f"{name}: unknown point {key!r}")
                idx = 24
            else:
                if not 1 <= int(key) <= 25:
                    raise InvalidPositionError(f"{name}: point {key} not in 1..24 or 25 (bar)")
                idx = int(key) - 1
            row[idx] += int(n)
    else:
        values = list(counts)
        if len(values) not in (24, 25):
            raise InvalidPositionError(
                f"{name}: expected 24 or 25 counts (points 1..24 [, bar]), got {len(values)}"
            )
        row[: len(values)] = [int(v) for v in values]
    for i, n in enumerate(row):
        if not 0 <= n <= 255:
            where = "bar" if i == 24 else f"point {i + 1}"
            raise InvalidPositionError(f"{name}: {n} checkers on {where}")
    return bytes(row)


_P = TypeVar("_P", bound="BasePosition")


def new_position(cls: type[_P], cells: bytes) -> _P:
    """A position of class ``cls`` from 50 trusted cells, without any checking (the fast
    path used by the move generator's results)."""
    pos = object.__new__(cls)
    object.__setattr__(pos, "cells", cells)
    return pos


@dataclass(frozen=True, slots=True, repr=False)
class BasePosition:
    """The checkers of a backgammon position, seen from the side on roll.

    Parameters
    ----------
    cells : bytes or str
        The 50 checker counts in gnubg ``TanBoard`` order: the side not on roll's points
        1..24 and bar (its own numbering), then the side on roll's; or a gnubg Position ID
        (decoded strictly, as :meth:`from_id`). Most users build positions with
        :meth:`from_id`, :meth:`from_counts` or :meth:`initial`.

    Notes
    -----
    Immutable and hashable; equality is equality of the checker layout, so two positions
    that differ only by a hit checker (on the bar) are different, as in gnubg.

    The class attribute :attr:`checkers` is the number of checkers a side plays with (15;
    a Hypergammon position class sets 1, 2 or 3): the borne-off counts and the validity
    check count from it.
    """

    #: Checkers a side plays with (the borne-off ones are this minus those on the board).
    checkers: ClassVar[int] = CHECKERS

    cells: bytes

    def __post_init__(self) -> None:
        cells = self.cells
        if isinstance(cells, str):  # Position("4HPwATDgc/ABMA"): a gnubg Position ID
            cells = BasePosition.from_id(cells).cells
            object.__setattr__(self, "cells", cells)
        if not isinstance(cells, bytes):
            try:
                cells = bytes(cells)
            except (TypeError, ValueError) as exc:
                raise InvalidPositionError(f"cells must be 50 counts 0..255: {exc}") from None
            object.__setattr__(self, "cells", cells)
        if len(cells) != 50:
            raise InvalidPositionError(f"a position has 50 cells (2 x 25), got {len(cells)}")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_id(cls, pid: str) -> Self:
        """Decode a gnubg Position ID, strictly.

        Raises
        ------
        InvalidIdError
            If ``pid`` is not a well-formed Position ID.
        InvalidPositionError
            If it encodes an impossible position (see :class:`PositionStatus`).
        """
        pos = new_position(cls, decode_position_id(pid))
        pos.check(context=f"Position ID {pid!r}")
        return pos

    @classmethod
    def from_counts(
        cls,
        player: Sequence[int] | Mapping[Any, int],
        opponent: Sequence[int] | Mapping[Any, int],
    ) -> Self:
        """A position from each side's checker counts (lenient: see :meth:`status`).

        Parameters
        ----------
        player, opponent : sequence of 24 or 25 ints, or mapping
            The side on roll and the side not on roll, each in its own numbering: points
            1..24 and optionally the bar; or a mapping ``{point: count}`` with points 1..24
            and ``25`` or ``"bar"`` for the bar. Checkers not placed are borne off.

        Examples
        --------
        >>> BasePosition.from_counts({6: 2}, {1: 1}).pips()
        (12, 1)
        """
        return new_position(
            cls, row_from_counts(opponent, "opponent") + row_from_counts(player, "player")
        )

    @classmethod
    def from_board(cls, board: Any) -> Self:
        """A position from a gnubg ``TanBoard`` array of shape (2, 25) (lenient).

        Row 0 is the side not on roll, row 1 the side on roll.
        """
        arr = np.asarray(board)
        if arr.shape != (2, 25):
            raise InvalidPositionError(f"a TanBoard has shape (2, 25), got {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() > 255):
            raise InvalidPositionError("checker counts must be in 0..255")
        return new_position(cls, arr.astype(np.uint8).tobytes())

    # ------------------------------------------------------------------ views
    @property
    def player(self) -> tuple[int, ...]:
        """The side on roll: 25 counts, points 1..24 (its own numbering) then the bar."""
        return tuple(self.cells[25:])

    @property
    def opponent(self) -> tuple[int, ...]:
        """The side not on roll: 25 counts, points 1..24 (its own numbering) then the bar."""
        return tuple(self.cells[:25])

    def point(self, n: int | str) -> tuple[int, int]:
        """The checkers on point ``n`` (1..24, the side on roll's numbering, as in
        :meth:`from_counts` and move notation): ``(side on roll's, opponent's)``.

        ``n = "bar"`` (or 25) gives both bars. 1-based, unlike the 0-based
        :attr:`player` / :attr:`opponent` tuples (kept for speed):
        ``pos.point(5) == (pos.player[4], pos.opponent[19])``.

        Examples
        --------
        >>> p = BasePosition.from_counts({6: 5, 13: 5, 8: 3, 24: 2}, {6: 5, 13: 5, 8: 3, 24: 2})
        >>> p.point(24), p.point(1), p.point(6)
        ((2, 0), (0, 2), (5, 0))
        """
        if n == "bar" or n == 25:
            return self.cells[49], self.cells[24]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 24:
            raise InvalidPositionError(f"a point is 1..24 or 'bar'; got {n!r}")
        return self.cells[24 + n], self.cells[24 - n]

    @property
    def player_off(self) -> int:
        """Checkers the side on roll has borne off (:attr:`checkers` minus those on the
        board, >= 0)."""
        return max(0, self.checkers - sum(self.cells[25:]))

    @property
    def opponent_off(self) -> int:
        """Checkers the side not on roll has borne off."""
        return max(0, self.checkers - sum(self.cells[:25]))

    @property
    def off(self) -> tuple[int, int]:
        """Borne-off checkers: (side on roll, side not on roll)."""
        return self.player_off, self.opponent_off

    @property
    def board(self) -> np.ndarray:
        """A read-only ``uint8`` array of shape (2, 25) in gnubg ``TanBoard`` layout.

        Row 0 = side not on roll, row 1 = side on roll; column ``k`` = own point ``k + 1``,
        column 24 = bar. A view of the position's bytes: no copy.
        """
        return np.frombuffer(self.cells, dtype=np.uint8).reshape(2, 25)

    def pips(self) -> tuple[int, int]:
        """Pip counts (side on roll, side not on roll): sum of point number x checkers,
        a checker on the bar counting 25."""
        c = self.cells
        return (
            sum((k + 1) * c[25 + k] for k in range(25) if c[25 + k]),
            sum((k + 1) * c[k] for k in range(25) if c[k]),
        )

    def swap(self) -> Self:
        """The same position seen by the other side (the rows exchanged)."""
        c = self.cells
        return new_position(type(self), c[25:] + c[:25])

    def has_contact(self) -> bool:
        """True when some checker of one side still has to pass a checker of the other.

        With ``p`` the side on roll's rearmost occupied point (bar = 25) and ``q`` the
        opponent's (in its own numbering), the sides are in contact iff ``p + q > 25``
        (the opponent's point ``q`` is the side on roll's point ``25 - q``).
        """
        c = self.cells
        p = next((k + 1 for k in range(24, -1, -1) if c[25 + k]), 0)
        q = next((k + 1 for k in range(24, -1, -1) if c[k]), 0)
        return p > 0 and q > 0 and p + q > 25

    def is_race(self) -> bool:
        """True when there is no contact (see :meth:`has_contact`)."""
        return not self.has_contact()

    def is_game_over(self) -> bool:
        """True when a side has no checker left on the board."""
        c = self.cells
        return not any(c[:25]) or not any(c[25:])

    # ------------------------------------------------------------------ validity
    def status(self) -> PositionStatus:
        """Every problem of the position as :class:`PositionStatus` flags (0 = valid)."""
        c = self.cells
        st = PositionStatus.VALID
        n_player, n_opp = sum(c[25:]), sum(c[:25])
        if n_player > self.checkers:
            st |= PositionStatus.TOO_MANY_CHECKERS_PLAYER
        if n_opp > self.checkers:
            st |= PositionStatus.TOO_MANY_CHECKERS_OPPONENT
        if any(c[25 + k] and c[23 - k] for k in range(24)):
            st |= PositionStatus.SHARED_POINT
        if (
            c[24]
            and c[49]
            and all(c[k] >= 2 for k in range(6))
            and all(c[25 + k] >= 2 for k in range(6))
        ):
            st |= PositionStatus.BOTH_CLOSED_OUT
        if n_player == 0 and n_opp == 0:
            st |= PositionStatus.NO_CHECKERS
        return st

    def is_valid(self) -> bool:
        """True when :meth:`status` reports no problem."""
        return self.status() == PositionStatus.VALID

    def check(self, context: str = "position") -> Self:
        """Return self if valid, else raise InvalidPositionError naming every problem."""
        st = self.status()
        if st:
            c = self.cells
            shared = ", ".join(str(k + 1) for k in range(24) if c[25 + k] and c[23 - k])
            fmt = {"np": sum(c[25:]), "no": sum(c[:25]), "shared": shared, "nc": self.checkers}
            problems = [text.format(**fmt) for flag, text in _STATUS_TEXT.items() if flag in st]
            raise InvalidPositionError(f"invalid {context}: " + "; ".join(problems))
        return self

    # ------------------------------------------------------------------ IDs
    @property
    def id(self) -> str:
        """The gnubg Position ID (14 characters)."""
        return encode_position_id(self.cells)

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.is_valid():
            return f"{name}({self.id!r})"
        return f"{name}.from_counts({list(self.player)!r}, {list(self.opponent)!r})"
