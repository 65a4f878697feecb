"""gnubg's statistics of a match from its audited decisions, record by record.

:func:`match_statistics` walks the record as gnubg's ``updateStatcontext`` walks its move
records: each game starts with its actual result, each roll adds its cube analysis (a
missed double), its luck and its checker play, each double, take and pass its cube
decision; the values enter in single precision, converted as gnubg converts them
(``mwc2eq`` of the cube values, ``eq2mwc`` of the errors and luck at the deciding score).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from mathbg.analysis.match_audit.cube import CubePoint, DoublerValues
from mathbg.analysis.match_audit.equity import scale_of
from mathbg.analysis.match_audit.statistics import (
    CubeEvent,
    MatchStatistics,
    Statistics,
    TurnEvent,
    result_gain,
    sum_games,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.match_audit.checker import TurnValues
    from mathbg.analysis.match_audit.turns import Turn
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState
    from mathbg.rules.record import Decision, MatchRecord

__all__ = ["ar_double", "match_statistics"]

f32 = np.float32


def ar_double(values: DoublerValues, win: float, lose: float) -> tuple[float, float, float, float]:
    """gnubg's ``arDouble`` of a cube decision: optimal, no double, double/take and
    double/pass, normalised (``mwc2eq`` in single precision at the doubler's score; money:
    the equities, double/pass 1), the optimal by ``FindBestCubeDecision``'s rule.

    Parameters
    ----------
    values : DoublerValues
        The doubler's values.
    win, lose : float
        The doubler's MWC after winning and losing the cube
        (:func:`~mathbg.analysis.match_audit.equity.win_lose`).

    Returns
    -------
    (optimal, no_double, double_take, double_pass)

    Examples
    --------
    >>> v = DoublerValues("double, take", 0.55, 0.6, 0.7, (0.1, 0.2, 0.4), None, None, 0.68)
    >>> [round(x, 6) for x in ar_double(v, 0.7, 0.2)]
    [0.6, 0.4, 0.6, 1.0]
    """
    if values.money:
        nd, dt, dp = (f32(x) for x in (values.no_double, values.double_take, 1.0))
    else:
        w, lo = f32(win), f32(lose)
        nd, dt, dp = (f32((f32(2.0) * f32(x) - f32(w + lo)) / f32(w - lo))
                      for x in (values.no_double, values.double_take, values.double_pass))
    if dt >= nd and dp >= nd:
        opt = dp if dt >= dp else dt
    else:
        opt = nd
    return float(opt), float(nd), float(dt), float(dp)


def _scale(met: MET, match: MatchState, player: int) -> tuple[float, float, int, bool]:
    """The deciding player's (win, lose) MWC of the cube, the cube, money."""
    wl = scale_of(met, match, player)
    if wl is None:
        return 0.0, 0.0, match.cube, True
    return wl[0], wl[1], match.cube, False


def _turn_event(t: Turn, tv: TurnValues | None, cube: tuple[float, float, float, float] | None,
                met: MET) -> TurnEvent:  # fmt: skip
    w, lo, c, money = _scale(met, t.match, t.player)
    if tv is None:
        return TurnEvent(t.player, cube, 0, None, None, w, lo, c, money)
    skill = 0.0
    if tv.legal and tv.played >= 0:
        skill = float(f32(f32(tv.equity[tv.played]) - f32(tv.equity[0])))
    return TurnEvent(t.player, cube, tv.legal, skill, tv.luck, w, lo, c, money)


def _game_context(record: MatchRecord, game: int, met: MET) -> Statistics:
    g = record.games[game - 1]
    sc = Statistics()
    r = g.result
    crawford = record.crawford_games()[game - 1]
    if r is None:
        sc.start_game(None, 0.0)
    else:
        sc.start_game(r.winner, result_gain(met, record.length, g.score, r.winner, r.points,
                                            crawford))  # fmt: skip
    return sc


def match_statistics(
    record: MatchRecord,
    points: Sequence[CubePoint],
    values: Sequence[DoublerValues],
    turns: Sequence[Turn],
    turn_values: Sequence[TurnValues],
    met: MET,
    checker: bool = True,
    *,
    decisions: Sequence[Decision] | None = None,
) -> tuple[list[MatchStatistics], MatchStatistics]:
    """gnubg's statistics of each game and of the match (see the module notes).

    Parameters
    ----------
    record : MatchRecord
        The match.
    points, values : sequences
        The cube decisions (:func:`~mathbg.analysis.match_audit.cube.cube_points`) and their
        values.
    turns, turn_values : sequences
        The rolls and their checker play and luck (empty without checker analysis).
    met : MET
        The match equity table.
    checker : bool, optional
        Whether the checker play was analysed (gnubg's ``fMoves``/``fDice``).
    decisions : sequence of Decision, optional
        The record's checked replay (``list(record.replay())``) when the caller has it;
        default: replayed here.

    Returns
    -------
    (per game, match) : (list of MatchStatistics, MatchStatistics)

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.rules.formats.example import example_match
    >>> games, whole = match_statistics(example_match(), [], [], [], [], as_met("kazaross-xg2"),
    ...                                 checker=False)
    >>> len(games), whole.games, [p.total_moves for p in whole.players]
    (2, 2, [0, 0])
    """
    from mathbg.rules.record import Beaver, Double, Move, Pass, Take

    names = record.players
    contexts: dict[int, Statistics] = {}
    pi = ti = 0
    for d in record.replay() if decisions is None else decisions:
        sc = contexts.get(d.game)
        if sc is None:
            sc = contexts[d.game] = _game_context(record, d.game, met)
        a = d.action
        here = points[pi] if pi < len(points) else None
        if isinstance(a, Move):
            cube = None
            if here is not None and here.kind == "double" and here.taken == "no double" \
                    and (here.game, here.move, here.player) == (d.game, d.move, d.player):
                w, lo, _, _ = _scale(met, here.match, here.roller)
                cube = ar_double(values[pi], w, lo)
                pi += 1
            if checker:
                sc.add_turn(_turn_event(turns[ti], turn_values[ti], cube, met))
                ti += 1
            elif cube is not None:
                sc.add_turn(TurnEvent(d.player, cube, 0, None, None, 0.0, 0.0, 1, False))
        elif isinstance(a, (Double, Take, Pass, Beaver)) and here is not None \
                and here.game == d.game and (here.taken == "double") == isinstance(a, Double) \
                and here.kind == ("double" if isinstance(a, Double) else "take"):
            pi += 1
            if isinstance(a, Beaver) or here.taken == "beaver":
                continue  # gnubg does not analyse beavers
            w, lo, c, money = _scale(met, here.match, here.roller)
            kind = "double" if isinstance(a, Double) else "take" if isinstance(a, Take) else "pass"
            sc.add_cube(CubeEvent(d.player, kind, ar_double(values[pi - 1], w, lo), w, lo, c,
                                  money))  # fmt: skip
    games = []
    for number in sorted(contexts):
        games.append(MatchStatistics.of(contexts[number], names, record.length))
    whole = MatchStatistics.of(sum_games(contexts[n] for n in sorted(contexts)), names,
                               record.length)  # fmt: skip
    return games, whole
