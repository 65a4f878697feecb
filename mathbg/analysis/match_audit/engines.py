"""Where a match audit's values come from: the audit's ``auto`` engine, deeper plies, and
the gnubg program's own analysis read back.

- :class:`AuditAutoEvaluator`: exact chances inside the two-sided bearoff database,
  the native engine elsewhere at 0 plies, ``gnubg-nn`` deeper (one engine for every play
  of a match).
- :func:`deeper_plays`: the roll's best plays again with the engine's n-ply chances
  (gnubg's analysis move filter).
- :func:`from_gnubg`: the gnubg program's ``analyse match`` dictionary aligned with
  mathbg's replay: its chances and cubeful values of every cube decision, every play of
  every roll (its ``score``) and every roll's luck.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import BatchEvaluator, EngineNotAvailableError, Evaluation
from mathbg.analysis.match_audit.checker import MatchValues, TurnValues
from mathbg.analysis.match_audit.cube import CubePoint, given_values
from mathbg.errors import MatchReplayError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.base import Evaluator
    from mathbg.analysis.gnubg_program import GnubgDocument
    from mathbg.analysis.match_audit.turns import Turn
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position
    from mathbg.rules.record import MatchRecord

__all__ = [
    "FILTER_EXTRA",
    "FILTER_THRESHOLD",
    "AuditAutoEvaluator",
    "deeper_plays",
    "from_gnubg",
    "two_sided_database",
    "zero_ply",
]

#: gnubg's default analysis move filter before an n-ply evaluation (``MOVEFILTER_LARGE``):
#: up to 16 plays within 0.32 EMG of the best at 0 plies.
FILTER_EXTRA = 16
FILTER_THRESHOLD = 0.32

F64 = NDArray[np.float64]


def _gnubg_nn_two_sided() -> Any:
    """gnubg-nn's copy of gnubg's two-sided database (its 16-bit equities), if found."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("gnubg_nn")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "data" / "gnubg_ts0.bd"
    if not path.exists():
        return None
    from mathbg.bearoff import TwoSided

    return TwoSided.open(path)


def two_sided_database(evaluator: Evaluator) -> Any:
    """The two-sided bearoff database whose money equities the engine's cube lives are
    backed out of (gnubg's rule): the evaluator's own (``two_sided_database()``), gnubg's
    16-bit file for ``gnubg-nn`` and ``gnubg``, else mathbg's exact one (the largest built,
    else 6 x 6 built on first use).

    Parameters
    ----------
    evaluator : Evaluator
        The engine.

    Returns
    -------
    TwoSided
        The database (opened or built).

    Examples
    --------
    >>> from mathbg.analysis import get_evaluator
    >>> two_sided_database(get_evaluator("race")).points
    6
    """
    own = getattr(evaluator, "two_sided_database", None)
    if own is not None:
        return own()
    if evaluator.name in ("gnubg-nn", "gnubg"):
        db = _gnubg_nn_two_sided()
        if db is not None:
            return db
    from mathbg.bearoff import TwoSided

    return TwoSided.largest(cubeful=True) or TwoSided.build(6, 6)


class AuditAutoEvaluator(BatchEvaluator):
    """The audit's ``auto``: the two-sided database's exact chances where both sides are
    in it (6 points, 6 checkers: no gammons, the exact probability of bearing off first),
    elsewhere the native engine at 0 plies (gnubg 1.07's networks, no extra needed) and
    ``gnubg-nn`` deeper; ``engine_name`` says which."""

    name = "auto"
    note = "exact inside the two-sided bearoff database"

    def __init__(self, plies: int | None = None) -> None:
        from mathbg.analysis.evaluation import ExactEvaluator

        self.plies = plies
        self._exact = ExactEvaluator()
        self._nn: Evaluator
        if plies:
            from mathbg.analysis.evaluation import INSTALL, gnubg_nn_installed

            if not gnubg_nn_installed():
                raise EngineNotAvailableError(INSTALL["gnubg-nn"])
            from mathbg.analysis.gnubg_nn import GnubgNNEvaluator

            self._nn = GnubgNNEvaluator(plies=plies)
            self.engine_name = "gnubg-nn"
        else:
            from mathbg.analysis.net.engine import NativeEvaluator

            self._nn = NativeEvaluator()
            self.engine_name = "native"
        self._db: Any = None

    def two_sided_database(self) -> Any:
        """mathbg's exact two-sided database (the chances there are exact)."""
        if self._db is None:
            from mathbg.bearoff import TwoSided

            self._db = TwoSided.largest(cubeful=True) or TwoSided.build(6, 6)
        return self._db

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        """The exact database's chances where it covers a position, gnubg-nn's (else the
        gnubg program's) elsewhere, the rest in one batch."""
        out: list[Evaluation | None] = [None] * len(positions)
        rest = []
        for i, p in enumerate(positions):
            if self._exact.covers(p):
                out[i] = self._exact.evaluate(p)
            else:
                rest.append(i)
        if rest:
            for i, ev in zip(rest, self._nn.evaluate_many([positions[i] for i in rest]),
                             strict=True):  # fmt: skip
                out[i] = ev
        return [e for e in out if e is not None]

    def board_chances(self, boards: NDArray[np.uint8]) -> F64:
        """The chances :meth:`evaluate_many` gives, of boards (flat ``TanBoard``, the side
        on roll in cells 25-49; games not over): away from the bearoff databases (contact
        and races) the engine's in one call, the others position by position."""
        from mathbg.analysis.match_audit.plays import CLASS_NAMES, board_classes
        from mathbg.rules.position import make_position

        classes, _ = board_classes(boards)
        far = (classes == CLASS_NAMES.index("contact")) | (classes == CLASS_NAMES.index("race"))
        out = np.empty((boards.shape[0], 5))
        fast = getattr(self._nn, "board_chances", None)
        if fast is None:
            far[:] = False
        rows = np.flatnonzero(far)
        if rows.size and fast is not None:
            out[rows] = fast(np.ascontiguousarray(boards[rows]))
        rest = np.flatnonzero(~far)
        if rest.size:
            evs = self.evaluate_many([make_position(bytes(boards[i])) for i in rest])
            out[rest] = np.array([e.probabilities for e in evs], dtype=np.float64).reshape(-1, 5)
        return out

    def evaluate_plays(
        self, boards: NDArray[np.uint8], rolls: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.uint8], F64]:
        """The engine's plays with their 0-ply outputs, the exact chances where both sides
        are in the two-sided database."""
        from mathbg.analysis.match_audit.plays import board_classes

        ptr, results, probs = self._nn.evaluate_plays(boards, rolls)  # type: ignore[attr-defined]
        classes, _ = board_classes(results)
        rows = np.nonzero(classes == 4)[0]
        if rows.size:
            b = np.asarray(results[rows], dtype=np.int64)
            p = np.asarray(self.two_sided_database().win_probability(b[:, 25:31], b[:, 0:6]),
                           dtype=np.float64).reshape(-1)  # fmt: skip
            probs[rows] = 0.0
            probs[rows, 0] = p
        return ptr, results, probs


def zero_ply(evaluator: Evaluator) -> Evaluator:
    """The same engine at 0 plies (the checker play's first pass and the luck).

    Parameters
    ----------
    evaluator : Evaluator
        The engine, at any plies.

    Returns
    -------
    Evaluator
        A new evaluator of the same type at 0 plies, else ``evaluator`` itself.

    Examples
    --------
    >>> from mathbg.analysis import get_evaluator
    >>> zero_ply(get_evaluator("race")).name
    'race'
    """
    if not evaluator.plies:
        return evaluator
    try:
        return type(evaluator)(plies=0)  # type: ignore[call-arg]
    except TypeError:  # pragma: no cover - an engine without plies
        return evaluator


def deeper_plays(
    turns: Sequence[Turn], values: Sequence[TurnValues], evaluator: Evaluator, met: MET,
    two_sided: Any = None,
) -> list[TurnValues]:
    """Each roll's best plays (and the one made) again with the engine's n-ply chances: the
    plays within :data:`FILTER_THRESHOLD` of the best at 0 plies, at most
    :data:`FILTER_EXTRA`, ranked by their n-ply values above the others (gnubg's
    ``FindnSaveBestMoves``).

    Parameters
    ----------
    turns, values : sequences
        The rolls and their 0-ply values.
    evaluator : Evaluator
        The n-ply engine.
    met : MET
        The match equity table.
    two_sided : TwoSided, optional
        The database of the cube lives inside it.

    Returns
    -------
    list of TurnValues

    Examples
    --------
    >>> deeper_plays([], [], None, None)  # doctest: +SKIP
    []
    """
    from mathbg.analysis.match_audit.checker import deeper

    return deeper(turns, values, evaluator, met, FILTER_EXTRA, FILTER_THRESHOLD, two_sided)


# ----------------------------------------------------------------------------- gnubg


def _text(steps: Sequence[Sequence[int]]) -> str:
    return " ".join(f"{'bar' if f == 25 else f}/{'off' if t == 0 else t}" for f, t in steps)


def _stepped(cells: bytes, steps: Sequence[Sequence[int]]) -> bytes | None:
    """The board (mover's view: the mover in cells 25-49) after gnubg's single-die steps
    ``(from, to)`` (25 the bar, 0 off), a blot landed on sent to the bar; None when a step
    starts where the mover has no checker or goes beyond the board."""
    b = bytearray(cells)
    for step in steps:
        f, t = int(step[0]), int(step[1])
        if not (1 <= f <= 25 and 0 <= t < f) or b[24 + f] == 0:
            return None
        b[24 + f] -= 1
        if t:
            b[24 + t] += 1
            if b[24 - t] == 1:  # the opponent's blot on the mover's point t: hit
                b[24 - t] = 0
                b[24] += 1
    return bytes(b)


def _result(plays: Any, cells: bytes, steps: Sequence[Sequence[int]]) -> bytes:
    """The result of the legal play gnubg wrote as ``steps`` (mover's view): its steps
    applied to the board when that leads to a legal play's result, else the notation
    resolved among the legal plays (which names a play that is not legal)."""
    board = _stepped(cells, steps)
    if board is not None and plays.find_index(board) >= 0:
        return board
    return bytes(plays.parse(_text(steps)).result.cells)


def _gnubg_turn(t: Turn, record: GnubgDocument) -> TurnValues:
    """A gnubg move record's analysis as :class:`TurnValues` (the plays in gnubg's order,
    its scores)."""
    an = record.get("analysis") or {}
    moves = an.get("moves") or []
    luck = an.get("luck-value")
    if not moves:  # a roll that could not be played
        cells = np.frombuffer(t.position.cells, dtype=np.uint8)[None].copy()
        return TurnValues(cells, np.zeros(1), None, np.zeros((1, 5)), 0,
                          None if luck is None else float(luck), 0)  # fmt: skip
    plays = t.legal_plays()
    results = np.array([np.frombuffer(_result(plays, t.position.cells, m["move"]), dtype=np.uint8)
                        for m in moves])  # fmt: skip
    equity = np.array([float(m["score"]) for m in moves])
    probs = np.array([m["probs"] for m in moves], dtype=np.float64)
    played = int(an.get("imove", -1))
    return TurnValues(results, equity, None, probs, played,
                      None if luck is None else float(luck), len(moves))  # fmt: skip


def _records(analysis: GnubgDocument, kinds: tuple[str, ...]) -> list[tuple[int, GnubgDocument]]:
    return [(g, a) for g, game in enumerate(analysis.get("games") or [], start=1)
            for a in game.get("game") or [] if a.get("action") in kinds]  # fmt: skip


def _mismatch(what: str, ours: int, theirs: int) -> MatchReplayError:
    return MatchReplayError(f"gnubg read the match differently: {ours} {what} in mathbg's "
                            f"replay, {theirs} in gnubg's analysis")  # fmt: skip


def from_gnubg(
    record: MatchRecord, analysis: GnubgDocument, points: Sequence[CubePoint],
    turns: Sequence[Turn], met: MET, checker: bool,
) -> MatchValues:  # fmt: skip
    """mathbg's cube points and turns valued by gnubg's own analysis (see the module notes).

    Parameters
    ----------
    record : MatchRecord
        The match.
    analysis : GnubgDocument
        gnubg's ``gnubg.match()`` dictionary of it (``GnubgEvaluator.analyse_match``).
    points : sequence of CubePoint
        The cube decisions.
    turns : sequence of Turn
        The rolls (empty: found here).
    met : MET
        The match equity table.
    checker : bool
        Keep the checker play and luck.

    Returns
    -------
    MatchValues

    Examples
    --------
    >>> from mathbg.analysis.gnubg_program import GnubgEvaluator  # doctest: +SKIP
    >>> from mathbg.rules.formats.example import example_match  # doctest: +SKIP
    >>> rec = example_match()  # doctest: +SKIP
    >>> from_gnubg(rec, GnubgEvaluator().analyse_match(rec), [], [], None, True)  # doctest: +SKIP

    Raises
    ------
    MatchReplayError
        When gnubg's records do not line up with mathbg's replay.
    """
    from mathbg.analysis.match_audit.turns import match_turns

    every = list(turns) if turns else match_turns(record)
    moves = _records(analysis, ("move",))
    if len(moves) != len(every):
        raise _mismatch("rolls", len(every), len(moves))
    by_turn = {(t.game, t.move, t.player): rec for (_, rec), t in zip(moves, every, strict=True)}
    doubles = [a for _, a in _records(analysis, ("double",))]
    own = _cube_values(points, by_turn, doubles)
    values = given_values(points, own, met)
    tv = [_gnubg_turn(t, by_turn[(t.game, t.move, t.player)]) for t in every] if checker else []
    return MatchValues(list(points), values, every if checker else [], tv)


def _cube_values(
    points: Sequence[CubePoint], by_turn: dict[tuple[int, int, int], GnubgDocument],
    doubles: list[GnubgDocument],
) -> list[tuple[list[float], float, float]]:  # fmt: skip
    """gnubg's (chances, no double, double/take) of each cube point, in order."""
    out: list[tuple[list[float], float, float]] = []
    offers = [a.get("analysis") or {} for a in doubles]
    di = 0
    last: GnubgDocument | None = None
    for p in points:
        if p.kind == "double" and p.taken == "no double":
            rec = (by_turn.get((p.game, p.move, p.player)) or {}).get("analysis") or {}
        elif p.kind == "double":
            rec = last = offers[di] if di < len(offers) else {}
            di += 1
        else:
            rec = last or {}
        if "nd-cubeful-eq" not in rec:
            raise MatchReplayError(f"gnubg read the match differently: no cube analysis of "
                                   f"game {p.game}, move {p.move} ({p.kind}, {p.taken})")
        out.append((list(rec["probs"]), float(rec["nd-cubeful-eq"]), float(rec["dt-cubeful-eq"])))
    return out
