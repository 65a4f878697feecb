"""mathbg's n-ply search of a match (:mod:`mathbg.analysis.match_audit.search`) against
the gnubg program's own analysis: the same cube decisions, plays, values, ranks and luck,
to the bit; the move filter's rules as gnubg's ``FindnSaveBestMoves`` states them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathbg.analysis.match_audit.checker import TurnValues
from mathbg.analysis.match_audit.search import DOUBTFUL, SearchEvaluator, _plan
from mathbg.errors import InvalidParameterError

DATA = Path(__file__).parent / "data" / "matches"


def _turn(equity: list[float], played: int) -> TurnValues:
    n = len(equity)
    return TurnValues(np.zeros((n, 50), np.uint8), np.array(equity), None, np.zeros((n, 5)),
                      played, None, n)  # fmt: skip


def test_the_move_filter_keeps_what_gnubgs_findnsavebestmoves_keeps() -> None:
    """gnubg's analysis filter (``MOVEFILTER_LARGE``: accept 0, extra 16, threshold 0.32
    EMG): the plays within 0.32 of the best, at most 16, go to the top ply, and the play
    made too; when only the best is left it keeps its 0-ply value, unless the play made is
    more than the doubtful mark (0.04) behind it: then both go."""
    assert _plan(_turn([0.5, 0.3, 0.19, 0.17], 3), 2).rows == [0, 1, 2, 3]
    assert _plan(_turn([0.5, 0.3, 0.17, 0.1], 0), 2).rows == [0, 1]
    assert _plan(_turn([0.5, 0.3, 0.17, 0.1], 3), 2).rows == [0, 1, 3]
    assert _plan(_turn([0.0] * 20, 19), 1).rows == [*range(16), 19]
    assert _plan(_turn([0.5, 0.1], 0), 2).rows == []
    assert _plan(_turn([0.5, 0.1], 1), 2).rows == [0, 1]
    assert _plan(_turn([0.5, 0.5 - DOUBTFUL / 2], 1), 2).rows == [0, 1]  # within 0.32
    assert _plan(_turn([0.5], 0), 2).rows == []  # one legal play: 0 plies
    with pytest.raises(InvalidParameterError, match="1 to 2 plies"):
        SearchEvaluator(3)


def _same_turns(ours: list[TurnValues], theirs: list[TurnValues]) -> int:
    for a, b in zip(ours, theirs, strict=True):
        assert np.array_equal(a.results, b.results)
        assert np.array_equal(a.equity, b.equity)
        assert np.array_equal(a.probs.astype(np.float32), b.probs.astype(np.float32))
        assert (a.played, a.luck, a.legal) == (b.played, b.luck, b.legal)
    return len(ours)


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg's 1-ply analysis of a 7-point match and its cube-only 2-ply one
def test_the_native_search_is_gnubgs_analysis_to_the_bit(gnubg) -> None:
    """Every cube decision, every play of every roll (the plays gnubg values at 1 ply and
    the ones it leaves at 0, in its order, the play made among them) and every roll's luck
    of a 7-point match at 1 ply, and every cube decision at 2 plies, equal to the gnubg
    program's own analysis, with one process or two (a game each); the audit's report
    through ``engine="native"`` is the one through the gnubg program."""
    from mathbg.analysis import audit
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.analysis.match_audit.cube import cube_points
    from mathbg.analysis.match_audit.engines import from_gnubg
    from mathbg.analysis.match_audit.search import search_values
    from mathbg.analysis.match_audit.turns import match_turns
    from mathbg.met import as_met
    from mathbg.rules.formats import read_match

    rec = read_match(DATA / "match2287710.txt")
    met = as_met("kazaross-xg2")
    points, turns = cube_points(rec), match_turns(rec)
    doc = GnubgEvaluator(plies=1).analyse_match(rec)
    theirs = from_gnubg(rec, doc, points, turns, met, True)
    ours = search_values(rec, points, turns, met, 1, progress=False, threads=2)
    assert ours.values == theirs.values and len(points) >= 40
    assert _same_turns(ours.turn_values, theirs.turn_values) >= 200
    alone = search_values(rec, points, turns, met, 1, progress=False, threads=1)
    assert alone.values == ours.values  # one process or a game per worker: the same bits
    assert _same_turns(alone.turn_values, ours.turn_values) >= 200
    cube = GnubgEvaluator(plies=2).analyse_match(rec, checker=False)
    two = from_gnubg(rec, cube, points, [], met, False)
    assert search_values(rec, points, [], met, 2, checker=False).values == two.values
    options = {"exact": False, "take_points": False, "plies": 1}
    a = audit(rec, engine="native", **options).matches[0]
    b = audit(rec, engine=GnubgEvaluator(plies=1), **options).matches[0]
    assert (a.engine.name, a.engine.plies, a.engine.cube_step) == (
        "native", 1, "gnubg's cubeful n-ply search")
    assert (a.decisions, a.plays, a.statistics, a.game_statistics) \
        == (b.decisions, b.plays, b.statistics, b.game_statistics)
