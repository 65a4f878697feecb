"""The interfaces shared by every engine of :mod:`mathbg.analysis`.

An engine *evaluates* (:class:`Evaluator`: positions -> :class:`Evaluation`, cubeless
probabilities with the engine's name and plies, the position class and gnubg 1.07's 0-ply
cube life for it) and/or *plays* (:class:`Player`: the play for a board and a roll, and the
cubeless chances the cube decisions read); the registry (:mod:`mathbg.analysis.registry`)
hands out both. Also the position checks and classes, and :class:`EngineNotAvailableError`.
The engines themselves
live in :mod:`~mathbg.analysis.evaluation` (exact, race, given, auto),
:mod:`~mathbg.analysis.gnubg_nn` and :mod:`~mathbg.analysis.gnubg_program`.

Cube life: :func:`mathbg.cube.life.cube_life` of the position's class (gnubg 1.07.001's
0-ply cube efficiency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from mathbg._output import FrameMixin
from mathbg.errors import EngineNotAvailableError, InvalidParameterError, InvalidPositionError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "CLASSES",
    "TWO_SIDED_CHECKERS",
    "TWO_SIDED_POINTS",
    "BatchEvaluator",
    "Board",
    "EngineNotAvailableError",
    "Evaluation",
    "Evaluator",
    "GameEnd",
    "Player",
    "as_position",
    "check_probabilities",
    "match_list",
    "position_class",
    "top_point",
]

#: Position classes (gnubg's, merged where the cube life is the same).
CLASSES: tuple[str, ...] = ("contact", "race", "one-sided bearoff", "two-sided bearoff")
#: The two-sided database the exact engine and gnubg's BEAROFF2 class cover.
TWO_SIDED_POINTS = 6
TWO_SIDED_CHECKERS = 6


# ----------------------------------------------------------------------------- positions


def as_position(position: Any) -> tuple[Position, MatchState | None]:
    """A checked, playable position and its match state (or None) from any input.

    ``position`` is a :class:`~mathbg.rules.position.Position`, a gnubg Position ID,
    ``POSID:MATCHID`` or an XGID. Raises :class:`~mathbg.errors.InvalidPositionError` for
    an impossible or finished position (a side with no checker left).

    Parameters
    ----------
    position : Position or str
        A position, a gnubg Position ID, ``POSID:MATCHID`` or an XGID.

    Returns
    -------
    (Position, MatchState or None)
        The checked position and the match state the ID carries (None without one).

    Raises
    ------
    InvalidPositionError
        For an impossible or finished position, or an input of another type.
    InvalidIdError
        For an ID that cannot be decoded.

    Examples
    --------
    >>> pos, match = as_position("4HPwATDgc/ABMA")
    >>> pos.position_class, match is None
    ('contact', True)
    """
    from mathbg.rules.position import Position

    match = None
    if isinstance(position, Position):
        pos = position.check()
    elif isinstance(position, str):
        from mathbg.rules.ids import parse_id

        pos, match = parse_id(position)
    else:
        raise InvalidPositionError(
            "a position is a Position or a Position ID / POSID:MATCHID / XGID string; "
            f"got {type(position).__name__}"
        )
    if pos.is_game_over():
        raise InvalidPositionError(
            f"position {pos.id}: the game is over (a side has no checker left)"
        )
    if match is not None and match.is_over:
        raise InvalidPositionError("the match is over: nothing left to analyse")
    return pos, match


def top_point(row: Sequence[int]) -> int:
    """Highest occupied point of a side (bar = 25), 0 when all are off.

    Parameters
    ----------
    row : sequence of int
        A side's checker counts on points 1..25.

    Returns
    -------
    int
        The highest occupied point, 0 when the side has borne off.

    Examples
    --------
    >>> top_point([2, 0, 3, 0, 0, 0]), top_point([0, 0, 0])
    (3, 0)
    """
    return next((k + 1 for k in range(len(row) - 1, -1, -1) if row[k]), 0)


def position_class(position: Position) -> str:
    """gnubg's position class as far as the cube life goes.

    :attr:`Position.position_class <mathbg.rules.position.Position.position_class>` with
    its bearoffs split by the two-sided database's reach.

    Parameters
    ----------
    position : Position
        The position (side on roll's view).

    Returns
    -------
    str
        ``"contact"`` (gnubg's contact and crashed classes), ``"race"``, ``"one-sided
        bearoff"`` (both sides on their home points, gnubg BEAROFF1) or ``"two-sided
        bearoff"`` (both sides within 6 points and 6 checkers, gnubg BEAROFF2).

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> position_class(Position.from_counts({1: 2, 3: 2}, {2: 3}))
    'two-sided bearoff'
    >>> position_class(Position.from_counts({1: 5, 3: 5}, {2: 3}))
    'one-sided bearoff'
    """
    klass = position.position_class
    if klass != "bearoff":
        return klass
    if sum(position.player) <= TWO_SIDED_CHECKERS and sum(position.opponent) <= TWO_SIDED_CHECKERS:
        return "two-sided bearoff"
    return "one-sided bearoff"


def check_probabilities(probs: Any) -> tuple[float, float, float, float, float]:
    """Validate gnubg's five outputs (cumulative gammons) and return them as floats.

    Needs ``0 <= win_bg <= win_gammon <= win <= 1`` and ``0 <= lose_bg <= lose_gammon
    <= 1 - win``.

    Parameters
    ----------
    probs : array_like of 5 floats
        ``W, WG, WB, LG, LB`` (cumulative gammons).

    Returns
    -------
    tuple of 5 floats
        The values, clipped into their bounds (gnubg's outputs are single precision).

    Raises
    ------
    InvalidParameterError
        For a wrong count or inconsistent values.

    Examples
    --------
    >>> check_probabilities([0.7, 0.2, 0.01, 0.05, 0.002])
    (0.7, 0.2, 0.01, 0.05, 0.002)
    """
    try:
        p = np.asarray(probs, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"probabilities must be 5 numbers, got {probs!r}") from None
    if p.shape != (5,):
        raise InvalidParameterError(
            "give 5 probabilities W,WG,WB,LG,LB (win, win gammon, win backgammon, lose "
            f"gammon, lose backgammon; cumulative gammons), got {p.size}"
        )
    w, wg, wb, lg, lb = (float(v) for v in p)
    tol = 1e-6  # gnubg's outputs are single precision
    if not (
        np.all(np.isfinite(p))
        and -tol <= wb <= wg + tol
        and wg <= w + tol
        and w <= 1 + tol
        and -tol <= lb <= lg + tol
        and lg <= 1 - w + tol
    ):
        raise InvalidParameterError(
            "inconsistent probabilities: need 0 <= WB <= WG <= W <= 1 and "
            f"0 <= LB <= LG <= 1 - W (cumulative gammons); got {w}, {wg}, {wb}, {lg}, {lb}"
        )
    w = min(max(w, 0.0), 1.0)
    wg = min(max(wg, 0.0), w)
    wb = min(max(wb, 0.0), wg)
    lg = min(max(lg, 0.0), 1.0 - w)
    lb = min(max(lb, 0.0), lg)
    return (w, wg, wb, lg, lb)


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Evaluation(FrameMixin):
    """Cubeless probabilities of the side on roll and where they came from.

    Attributes
    ----------
    probabilities : tuple of 5 floats
        ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, cumulative
        gammons (gnubg's outputs).
    engine : str
        The engine that produced them (``exact``, ``race``, ``gnubg-nn``, ``gnubg``,
        ``given``).
    plies : int or None
        Its search depth (None where plies do not apply: exact, race, given).
    position_class : str
        :func:`position_class`.
    cube_life : float
        gnubg 1.07's 0-ply cube life for the class (:func:`cube_life`).
    method : str
        A finer description (e.g. the race evaluator's method).
    exact : bool
        The probabilities are exact (the two-sided bearoff database).
    gnubg : dict or None
        The gnubg engine's own 0-ply cubeful decision at the position's match state
        (``optimal``, ``no_double``, ``double_take``, ``double_pass`` as gnubg's
        normalised equities, ``action`` as gnubg words it), else None.
    """

    probabilities: tuple[float, float, float, float, float]
    engine: str
    plies: int | None
    position_class: str
    cube_life: float
    method: str = ""
    exact: bool = False
    gnubg: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def win(self) -> float:
        return self.probabilities[0]

    @property
    def win_gammon(self) -> float:
        return self.probabilities[1]

    @property
    def win_backgammon(self) -> float:
        return self.probabilities[2]

    @property
    def lose_gammon(self) -> float:
        return self.probabilities[3]

    @property
    def lose_backgammon(self) -> float:
        return self.probabilities[4]

    def probabilities_dict(self) -> dict[str, float]:
        """The five probabilities by name (the JSON ``probabilities`` object)."""
        names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
        return dict(zip(names, self.probabilities, strict=True))

    def engine_dict(self) -> dict[str, Any]:
        """``{"name": engine, "plies": plies}`` (the JSON ``engine`` object)."""
        return {"name": self.engine, "plies": self.plies}

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: engine, plies, the five probabilities, class, cube life, method."""
        return {"engine": self.engine_dict(), "probabilities": self.probabilities_dict(),
                "position_class": self.position_class, "cube_life": self.cube_life,
                "method": self.method, "exact": self.exact, "gnubg": self.gnubg}  # fmt: skip


@runtime_checkable
class Evaluator(Protocol):
    """Anything that turns positions into :class:`Evaluation` objects."""

    name: str
    plies: int | None

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        """Evaluate one position (the side on roll's view)."""
        ...

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        """Evaluate many positions (batched where the engine can)."""
        ...


def match_list(
    positions: Sequence[Position], matches: Sequence[MatchState | None] | None
) -> list[MatchState | None]:
    """The match state of each of ``positions``: ``matches`` as a list, or money (``None``)
    for every position when ``matches`` is ``None``.

    Parameters
    ----------
    positions : sequence of Position
        The positions.
    matches : sequence of MatchState or None, or None
        Their match states.

    Returns
    -------
    list of MatchState or None
        One entry per position.

    Examples
    --------
    >>> match_list([None, None], None)  # doctest: +ELLIPSIS
    [None, None]
    """
    return list(matches) if matches is not None else [None] * len(positions)


class BatchEvaluator:
    """Base of the engines that evaluate a whole batch at once: :meth:`evaluate` is a batch
    of one; subclasses implement :meth:`evaluate_many`."""

    name = ""
    plies: int | None = None

    def evaluate(self, position: Position, match: MatchState | None = None) -> Evaluation:
        return self.evaluate_many([position], [match])[0]

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        raise NotImplementedError  # pragma: no cover


# ----------------------------------------------------------------------------- players

#: A board as the players see it: gnubg's ``TanBoard`` (:attr:`Position.board
#: <mathbg.rules.board.BasePosition.board>`), two rows of 25 counts, row 0 the side not on
#: roll and row 1 the side on roll, each in its own numbering with the bar last.
Board = Sequence[Sequence[int]]


class GameEnd(NamedTuple):
    """A play that ended the game: did the side that played win, and how.

    Attributes
    ----------
    mover_wins : bool
        The player who played (the side on roll before the play) won.
    result : int
        1 single, 2 gammon, 3 backgammon (times the cube).
    """

    mover_wins: bool
    result: int


@runtime_checkable
class Player(Protocol):
    """Anything that plays backgammon: the ``play`` capability of an engine.

    The self-play tables and the rollouts obtain players from the registry
    (:func:`mathbg.analysis.registry.get_player`) and drive them through these methods;
    the cube decisions are mathbg's (its cube theory reads :meth:`chances` and
    :meth:`cube_life`), unless the player decides its own cube (``own_cube``: the exact
    bearoff solver, which plays its own games).

    Attributes
    ----------
    name : str
        The engine's name.
    label : str
        How a table's source names the player (e.g. ``"gnubg-nn 0-ply"``).
    own_cube : bool
        The player takes its own cube decisions with its checker play (its games are the
        engine's own, not the board loop's).
    """

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def own_cube(self) -> bool: ...

    def chances(self, board: Board) -> tuple[float, float, float, float, float]:
        """The side on roll's cubeless chances (gnubg's five outputs, cumulative gammons),
        each within its bounds."""
        ...

    def cube_life(self, board: Board) -> float:
        """The cube life x the 0-ply cubeless -> cubeful step uses for this board."""
        ...

    def play(
        self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator
    ) -> Board | GameEnd:
        """The play for the roll ``d1, d2``: the board after it seen by the next side on
        roll (rows exchanged), or :class:`GameEnd` when the play ends the game. ``u`` is a
        uniform number drawn for this turn and ``noise`` a stream of its own, for players
        that draw (the dice never see either)."""
        ...

    def roll_equities(self, board: Board) -> tuple[float, ...] | None:
        """The side on roll's 0-ply cubeless equity after its play for each of the 21 rolls
        (:data:`mathbg.rules.dice.ROLLS` order) and their dice-weighted mean last, or None
        when the player does not measure the luck of a roll."""
        ...
