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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from mathbg._output import FrameMixin, JSONObject
from mathbg.errors import EngineNotAvailableError, InvalidParameterError, InvalidPositionError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.cube.decisions import CubeAction
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "CLASSES",
    "TWO_SIDED_CHECKERS",
    "TWO_SIDED_POINTS",
    "BatchEvaluator",
    "Board",
    "Candidates",
    "CubeSetting",
    "CubefulEvaluator",
    "EngineCubeDecision",
    "EngineNotAvailableError",
    "Evaluation",
    "Evaluator",
    "GameEnd",
    "Player",
    "as_position",
    "check_probabilities",
    "clip_chances",
    "evaluation_class",
    "match_list",
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


def evaluation_class(position: Position) -> str:
    """Which evaluation serves a position: gnubg's classes as its evaluator splits them.

    :attr:`Position.position_class <mathbg.rules.position.Position.position_class>` (the
    rules' class, what the cube-life model takes) with its bearoffs split by the two-sided
    database's reach: the finer class decides whether an engine looks the position up in a
    database, and :func:`mathbg.cube.life.cube_life` maps it back to the rules' class.

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
    >>> evaluation_class(Position.from_counts({1: 2, 3: 2}, {2: 3}))
    'two-sided bearoff'
    >>> evaluation_class(Position.from_counts({1: 5, 3: 5}, {2: 3}))
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
        For anything but five finite numbers, or five out of order (not
        ``0 <= WB <= WG <= W <= 1`` and ``0 <= LB <= LG <= 1 - W``).

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
    evaluation_class : str
        :func:`evaluation_class`.
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
    evaluation_class: str
    cube_life: float
    method: str = ""
    exact: bool = False
    gnubg: JSONObject | None = field(default=None, compare=False)

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

    def engine_dict(self) -> JSONObject:
        """``{"name": engine, "plies": plies}`` (the JSON ``engine`` object)."""
        return {"name": self.engine, "plies": self.plies}

    def as_dict(self) -> JSONObject:
        """JSON-ready: engine, plies, the five probabilities, class, cube life, method."""
        return {"engine": self.engine_dict(), "probabilities": self.probabilities_dict(),
                "evaluation_class": self.evaluation_class, "cube_life": self.cube_life,
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


@dataclass(frozen=True)
class CubeSetting:
    """A score and cube state at which an engine takes its own cube decision.

    Attributes
    ----------
    length : int or None
        The match length; None for money.
    away : (int, int) or None
        (roller's, opponent's) points to go; None for money.
    crawford : bool
        The Crawford game.
    cube : int
        The cube's value.
    owner : str
        ``"centre"``, ``"player"`` (the roller) or ``"opponent"``.
    jacoby, beavers : bool
        Money play's rules (ignored at a match score).
    """

    length: int | None = None
    away: tuple[int, int] | None = None
    crawford: bool = False
    cube: int = 1
    owner: str = "centre"
    jacoby: bool = True
    beavers: bool = True


class EngineCubeDecision(NamedTuple):
    """An engine's own cubeful cube decision: its words, its action, and its values in MWC
    (at a match score; cubeful equity for money) and in EMG, as the engine gives them."""

    text: str
    action: CubeAction
    optimal: float
    no_double: float
    double_take: float
    double_pass: float
    emg_no_double: float
    emg_double_take: float
    emg_double_pass: float


@runtime_checkable
class CubefulEvaluator(Evaluator, Protocol):
    """An evaluator that also takes its own n-ply cubeful cube decision (the registry's
    ``cubeful`` capability: the ``gnubg`` engine), instead of mathbg's 0-ply cubeless ->
    cubeful step (:func:`mathbg.analysis.analyze`'s ``cube_eval="engine"``)."""

    #: The match equity table of the engine's own cube decisions (its own default).
    cube_met: str

    def cube_decisions(
        self, positions: Sequence[Position], settings: Sequence[Sequence[CubeSetting]]
    ) -> list[list[EngineCubeDecision]]:
        """Each position's cube decision at each of its settings (one batch)."""
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


def clip_chances(probs: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rows of chances made consistent: NaN read as 0, then each clipped into its bounds
    (``0 <= WB <= WG <= W <= 1``, ``0 <= LB <= LG <= 1 - W``), as gnubg's sanity check.

    Parameters
    ----------
    probs : ndarray, shape (k, 5)
        Chances as an engine gives them.

    Returns
    -------
    ndarray, shape (k, 5)
        Each row within its bounds (consistent rows unchanged).

    Examples
    --------
    >>> clip_chances(np.array([[0.97, 0.9800001, 0.01, 0.0300002, -1e-7]])).round(6).tolist()
    [[0.97, 0.97, 0.01, 0.03, 0.0]]
    """
    p = np.where(np.isnan(probs), 0.0, probs)
    out = np.empty_like(p)
    out[:, 0] = np.clip(p[:, 0], 0.0, 1.0)
    out[:, 1] = np.minimum(np.maximum(p[:, 1], 0.0), out[:, 0])
    out[:, 2] = np.minimum(np.maximum(p[:, 2], 0.0), out[:, 1])
    out[:, 3] = np.minimum(np.maximum(p[:, 3], 0.0), 1.0 - out[:, 0])
    out[:, 4] = np.minimum(np.maximum(p[:, 4], 0.0), out[:, 3])
    return out


class Candidates(NamedTuple):
    """Every legal play of a roll, as a player sees them: the next side on roll's cubeless
    chances after each play, and the boards on demand (a rollout ranks the plays by the
    match score's values and asks for the board of the one it plays).

    Attributes
    ----------
    chances : ndarray, shape (k, 5)
        The next side on roll's chances after play ``i`` (gnubg's five outputs, cumulative
        gammons) as the engine gives them (a network's may break their bounds by a little
        or be NaN: :func:`clip_chances` makes the ones a caller uses consistent); a play
        that ends the game has the chances of the finished game (0 wins for the next side
        on roll).
    keys : sequence
        One key per play, for :attr:`after`.
    after : callable
        ``after(key)``: the board after the play seen by the next side on roll, or
        :class:`GameEnd` when the play ends the game.
    """

    chances: NDArray[np.float64]
    keys: Sequence[Any]
    after: Callable[[Any], Board | GameEnd]


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

    def candidates(self, board: Board, d1: int, d2: int, plies: int | None = None) -> Candidates:
        """Every legal play of the roll ``d1, d2`` with the next side's chances after it,
        evaluated at ``plies`` (None: the player's own), for a caller that chooses the play
        itself (the rollouts: by the match score's values); a roll without a legal play
        gives the one "play" that passes the turn."""
        ...
