"""Issue 23: what ``--cube`` means in ``mathbg takepoint`` and :func:`mathbg.cube.match.points`.

``--cube 1`` is the initial double (1 -> 2), ``--cube 2`` a redouble (2 -> 4) by the side that
holds the 2-cube; a centred cube above 1 does not arise in match play. Expected values are
the dead take point ``(DTW - DP) / (DTW - DTL)`` written out from the table's own entries.
"""

from __future__ import annotations

import contextlib
import io
import math

import pytest

import mathbg.met as met
from mathbg.cli import main
from mathbg.cube import match
from mathbg.cube.matrix import score_matrix
from mathbg.errors import InvalidScoreError

KXG2 = met.load("kazaross-xg2")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def mwc(a: int, b: int, crawford: bool = False) -> float:
    return KXG2.mwc((a, b), crawford=crawford)


def test_initial_double_header_and_take_point() -> None:
    # 5-away doubles the 3-away player from 1 to 2: win 2 -> 3/3-away, lose 2 -> the taker
    # reaches 1-away (Crawford game), pass -> 4-away/3-away (doubler's MWCs)
    dtw, dtl, dp = 1 - mwc(3, 3), 1 - mwc(1, 5, crawford=True), 1 - mwc(3, 4)
    expected = (dtw - dp) / (dtw - dtl)
    assert round(100 * expected, 2) == 20.92  # the number (gnubg's market window)
    status, out, _ = run("takepoint", "--away", "3,5", "--cube", "1")
    assert status == 0
    assert out.splitlines()[0] == (
        "kazaross-xg2: 3-away vs 5-away, cube 1 -> 2 (initial double), normal game"
    )
    assert f"{100 * expected:.2f}%" in out
    assert match.points(KXG2, (3, 5)).owner == "centre"


def test_redouble_header_and_each_side_holding_the_cube() -> None:
    status, out, _ = run("takepoint", "--away", "3,5", "--cube", "2")
    assert status == 0
    assert "cube 2 -> 4 (redouble)" in out.splitlines()[0]
    sp = match.points(KXG2, (3, 5), cube=2)
    assert sp.owner == "each"
    me, him = sp.players
    # the 5-away player redoubles to 4: win 4 -> it is 1-away (Crawford), lose 4 -> match lost
    dtw, dp = 1 - mwc(3, 1, crawford=True), 1 - mwc(3, 3)
    assert me.take_point_dead == pytest.approx((dtw - dp) / dtw, abs=1e-12)
    assert round(100 * me.take_point_dead, 2) == 33.40
    # the 3-away player redoubles to 4: the 5-away taker redoubles to 8 at once (free)
    dp = mwc(1, 5, crawford=True)
    assert him.take_point_dead == pytest.approx(1 - dp, abs=1e-12)
    assert him.take_point_no_recube == pytest.approx((1 - dp) / (1 - mwc(3, 1, True)))
    assert me.may_double and him.may_double


def test_centred_cube_above_one_is_refused() -> None:
    with pytest.raises(InvalidScoreError, match="centred cube above 1"):
        match.points(KXG2, (3, 5), cube=2, owner="centre")
    status, _, err = run("takepoint", "--away", "3,5", "--cube", "2", "--owner", "centre")
    assert status == 2 and "centred cube above 1" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("cube", [1, 2])
def test_the_double_of_the_side_without_the_cube_does_not_apply(cube: int) -> None:
    # --owner player: the opponent cannot double. score_matrix's "player" row (the player
    # holds the cube) has NaN take points; the points() answer is None, printed "-"
    sp = match.points(KXG2, (3, 5), cube=cube, owner="player")
    me, him = sp.players
    assert me.take_point_dead is None and me.take_point_live is None
    assert him.double_point_dead is None and him.cash_point_dead is None
    assert not him.may_double and me.may_double
    assert him.take_point_dead is not None and me.double_point_dead is not None
    if cube > 1:
        sm = score_matrix(KXG2, 5, cubes=(1, cube))
        row = sm[(sm.away == 3) & (sm.opp_away == 5) & (sm.cube == cube) & (sm.owner == "player")]
        assert math.isnan(row["take_dead"].iloc[0])
        assert row["double"].iloc[0] == pytest.approx(me.double_point_dead)
    _, out, _ = run("takepoint", "--away", "3,5", "--cube", str(cube), "--owner", "player")
    line = next(x for x in out.splitlines() if x.startswith("take point, dead"))
    assert line.split()[3] == "-"
    assert next(x for x in out.splitlines() if x.startswith("may double")).split()[2:] == [
        "yes",
        "no",
    ]


def test_post_crawford_redouble_does_not_arise() -> None:
    # post-Crawford only the trailer doubles; the leader holds the 2-cube and needs 1 point
    sp = match.points(KXG2, (1, 4), cube=2)
    for p in sp.players:
        assert p.take_point_dead is None and p.double_point_dead is None
        assert not p.may_double
    sm = score_matrix(KXG2, 6, cubes=(1, 2))
    post = sm[(sm.cube == 2) & (sm.state == "post-crawford")]
    assert post[["take_dead", "take_live", "double", "cash_dead"]].isna().all().all()
    assert not post["may_double"].any()
    # on the 1-cube the trailer's double stays: the leader's take point at 3-away is 2.4 %
    assert round(100 * match.points(KXG2, (1, 3)).players[0].take_point_dead, 1) == 2.4


def test_market_window_result_has_a_frame_and_one_no_recube_spelling() -> None:
    # issue 23: a result with to_frame(), and "no_recube" as ScorePoints spells it
    windows = match.market_window(KXG2, (2, 4))
    mine, his = windows  # unpacks as before
    df = windows.to_frame()
    assert list(df.index) == ["player", "opponent"]
    assert df.loc["player", "cash_point_no_recube"] == mine.cash_point_no_recube
    assert df.loc["opponent", "double_point"] == his.double_point
    # the 2-away player's window: its no-recube cash point is 1 - the taker's no-recube
    # take point (the 4-away taker's free redouble ignored), from points()
    sp = match.points(KXG2, (2, 4))
    assert mine.cash_point_no_recube == pytest.approx(1 - sp.players[1].take_point_no_recube)
    assert not any("redouble" in c for c in df.columns if c != "auto_redouble")
