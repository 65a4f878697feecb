"""gnubg's variations of backgammon: Nackgammon and Hypergammon with 1, 2 or 3 checkers.

Both are standard backgammon (the same legal plays, gammons, backgammons and cube) from
another starting position:

- **Nackgammon** (Nack Ballard's variation): 15 checkers a side, two on the 24-point, two
  on the 23-point, four on the 13-point, three on the 8-point and four on the 6-point.
- **Hypergammon** with ``n`` = 1, 2 or 3 checkers a side, starting on the 24-point, then
  the 23- and 22-points. A side that has borne off none of its ``n`` checkers when the
  other finishes loses a gammon (a backgammon with one still on the bar or in the
  winner's home board). Hypergammon positions are :class:`HypergammonPosition` objects,
  whose borne-off counts and validity count ``n`` checkers a side.

The starting positions are gnubg's (``InitBoard`` in ``gnubg.c``; Position IDs
``4Dl4ADbgOXgANg``, ``AACAAAAAAgAAAA``, ``AABAAQAACgAAAA``, ``AACgAgAAKgAAAA``), checked
against ``gnubg``'s ``set variation ...`` / ``new game`` in the tests. The rule sets are
registered as ``nackgammon``, ``hypergammon1``, ``hypergammon2``, ``hypergammon3``
(``hypergammon`` alone is the 3-checker game, gnubg's ``3-chequer-hypergammon``)::

    >>> from mathbg.rules.position import Position
    >>> Position.initial("hypergammon3").id
    'AACgAgAAKgAAAA'
    >>> Position.initial("nackgammon").id
    '4Dl4ADbgOXgANg'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from mathbg.errors import InvalidParameterError
from mathbg.rules.board import new_position, row_from_counts
from mathbg.rules.plays import Plays, legal_plays
from mathbg.rules.position import Position
from mathbg.rules.registry import register
from mathbg.rules.ruleset import RuleSet

__all__ = [
    "HYPERGAMMON",
    "HYPERGAMMON_CHECKERS",
    "NACKGAMMON",
    "VARIATION_RULESETS",
    "Hypergammon1Position",
    "Hypergammon2Position",
    "Hypergammon3Position",
    "HypergammonPosition",
    "hypergammon_position",
]

#: The checker counts Hypergammon is played with.
HYPERGAMMON_CHECKERS: tuple[int, ...] = (1, 2, 3)


class HypergammonPosition(Position):
    """A Hypergammon position: :attr:`checkers` (1, 2 or 3) checkers a side.

    A :class:`~mathbg.rules.position.Position` whose borne-off counts and validity check
    count the Hypergammon checkers; its legal plays are backgammon's. Use the subclass of
    a checker count (:class:`Hypergammon3Position`, ...) or :func:`hypergammon_position`.

    Examples
    --------
    >>> p = Position.initial("hypergammon2")
    >>> type(p).__name__, p.checkers, p.off
    ('Hypergammon2Position', 2, (0, 0))
    """

    __slots__ = ()
    checkers: ClassVar[int] = 3


class Hypergammon1Position(HypergammonPosition):
    """A 1-checker Hypergammon position."""

    __slots__ = ()
    checkers: ClassVar[int] = 1


class Hypergammon2Position(HypergammonPosition):
    """A 2-checker Hypergammon position."""

    __slots__ = ()
    checkers: ClassVar[int] = 2


class Hypergammon3Position(HypergammonPosition):
    """A 3-checker Hypergammon position."""

    __slots__ = ()
    checkers: ClassVar[int] = 3


_CLASSES: dict[int, type[HypergammonPosition]] = {
    1: Hypergammon1Position,
    2: Hypergammon2Position,
    3: Hypergammon3Position,
}


def _check_count(checkers: Any) -> int:
    if isinstance(checkers, bool) or checkers not in HYPERGAMMON_CHECKERS:
        raise InvalidParameterError(
            f"Hypergammon is played with 1, 2 or 3 checkers a side, got {checkers!r}"
        )
    return int(checkers)


def hypergammon_position(position: Position | str, checkers: int = 3) -> HypergammonPosition:
    """``position`` as a Hypergammon position of ``checkers`` a side, checked.

    Parameters
    ----------
    position : Position or str
        A position or a gnubg Position ID.
    checkers : {1, 2, 3}
        Checkers a side.

    Raises
    ------
    InvalidParameterError
        For a checker count other than 1, 2, 3.
    InvalidIdError
        For a malformed Position ID.
    InvalidPositionError
        When a side has more than ``checkers`` checkers on the board, or the position is
        impossible (a point held by both sides, ...).

    Examples
    --------
    >>> hypergammon_position("ADAAAQAkIAAAAA").off  # gnubg manual's example: 3 a side
    (0, 0)
    >>> hypergammon_position(Position.from_counts({6: 2}, {1: 1}), 3).off
    (1, 2)
    >>> hypergammon_position("4HPwATDgc/ABMA")
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidPositionError: invalid 3-checker Hypergammon position 4HPwATDgc/ABMA: \
the side on roll has 15 checkers (at most 3); the side not on roll has 15 checkers (at most 3)
    """
    cls = _CLASSES[_check_count(checkers)]
    if isinstance(position, str):
        from mathbg.rules.idcodec import decode_position_id

        text = position.strip()
        pos = new_position(cls, decode_position_id(text))
    else:
        pos = new_position(cls, position.cells)
        text = pos.id if max(sum(pos.cells[:25]), sum(pos.cells[25:])) <= 15 else "position"
    return pos.check(f"{checkers}-checker Hypergammon position {text}")


def _as(cls: type[Position], position: Position) -> Position:
    return position if type(position) is cls else new_position(cls, position.cells)


def _start(rows: dict[int, int], cls: type[Position]) -> Position:
    row = row_from_counts(rows, "start")
    return new_position(cls, row + row)


def _hyper_start(checkers: int) -> Position:
    return _start({24 - k: 1 for k in range(checkers)}, _CLASSES[checkers])


def _nack_start() -> Position:
    return _start({24: 2, 23: 2, 13: 4, 8: 3, 6: 4}, Position)


def _hyper_initial(checkers: int) -> Callable[[], Position]:
    return partial(_hyper_start, checkers)


def _hyper_plays(checkers: int) -> Any:
    cls = _CLASSES[checkers]

    def plays(position: Position, roll: Any) -> Plays[Position]:
        start = _as(cls, position)
        start.check(f"{checkers}-checker Hypergammon position")
        return legal_plays(start, roll)

    return plays


def _nack_plays(position: Position, roll: Any) -> Plays[Position]:
    position.check("position")
    return legal_plays(position, roll)


#: Nackgammon: backgammon from Nack Ballard's starting position.
NACKGAMMON = RuleSet(name="nackgammon", initial=_nack_start, plays=_nack_plays)

#: Hypergammon with 1, 2 or 3 checkers a side, by checker count.
HYPERGAMMON: dict[int, RuleSet] = {
    n: RuleSet(
        name=f"hypergammon{n}", initial=_hyper_initial(n), plays=_hyper_plays(n), checkers=n
    )
    for n in HYPERGAMMON_CHECKERS
}

#: The rule sets of this module by name.
VARIATION_RULESETS: dict[str, RuleSet] = {
    "nackgammon": NACKGAMMON,
    **{rs.name: rs for rs in HYPERGAMMON.values()},
}

register(VARIATION_RULESETS)
