"""The score matrix: layout, agreement with the one-score functions, Crawford handling."""

from __future__ import annotations

import numpy as np
import pytest

import mathbg.met as metmod
from mathbg.cube import match
from mathbg.cube.matrix import COLUMNS, score_matrix, take_point_table
from mathbg.errors import InvalidParameterError, InvalidScoreError

KXG2 = metmod.load("kazaross-xg2")
G, B = (0.22, 0.18), (0.01, 0.02)


@pytest.fixture(scope="module")
def full():
    return score_matrix(KXG2, gammons=G, backgammons=B, cube_life=0.68)


def test_layout(full):
    n = 25
    # cube 1: one centred row per score; cubes 2..64: a row per holder
    assert len(full) == n * n * (1 + 2 * 6)
    assert list(full.columns) == [*COLUMNS, "take_x", "cash_x"]
    assert set(full["owner"].unique()) == {"centre", "player", "opponent"}
    assert sorted(full["cube"].unique()) == [1, 2, 4, 8, 16, 32, 64]
    held = full[full["owner"] == "player"]
    # issue 14: NaN where a point does not apply: a doubler who needs <= cube
    # issue 23: and post-Crawford above the 1-cube (the leader holds it, nothing to double for)
    assert held["take_dead"].isna().all()
    post = held["state"] == "post-crawford"
    assert held["double"].notna().eq((held["away"] > held["cube"]) & ~post).all()
    facing = full[full["owner"] == "opponent"]
    assert facing["double"].isna().all()
    post = facing["state"] == "post-crawford"
    assert facing["take_dead"].notna().eq((facing["opp_away"] > facing["cube"]) & ~post).all()
    assert not facing["may_double"].any()
    states = full.groupby("state", observed=True).size()
    assert states["dmp"] == 13 and states["post-crawford"] == 13 * 48
    assert full.attrs["met"] == "kazaross-xg2"


@pytest.mark.parametrize(("a", "b", "c"), [(3, 3, 1), (7, 4, 2), (11, 13, 4), (1, 6, 1), (2, 9, 2)])
def test_agrees_with_scalar_functions(full, a, b, c):
    owner_take = "centre" if c == 1 else "opponent"
    owner_double = "centre" if c == 1 else "player"
    sel = (full["away"] == a) & (full["opp_away"] == b) & (full["cube"] == c)
    row_t = full[sel & (full["owner"] == owner_take)].iloc[0]
    row_d = full[sel & (full["owner"] == owner_double)].iloc[0]
    args = (KXG2, (a, b), c, G, B)
    if a <= c:  # issue 14: nothing to double for -> NaN in the frame (limits in the functions)
        assert row_d[["double", "cash_dead", "cash_live", "too_good"]].isna().all()
        assert match.double_point(*args) == 1.0
        return
    assert row_t["take_dead"] == pytest.approx(match.take_point_dead(*args))
    assert row_t["take_live"] == pytest.approx(match.take_point_live(*args))
    assert row_t["take_x"] == pytest.approx(match.take_point(*args, cube_life=0.68))
    assert row_d["double"] == pytest.approx(match.double_point(*args))
    assert row_d["cash_dead"] == pytest.approx(match.cash_point_dead(*args))
    assert row_d["cash_live"] == pytest.approx(match.cash_point_live(*args))
    assert row_d["cash_x"] == pytest.approx(match.cash_point(*args, cube_life=0.68))
    assert row_d["too_good"] == pytest.approx(match.too_good_point(*args))
    assert row_d["gammon_value"] == pytest.approx(match.gammon_value(KXG2, (a, b), c))
    assert row_d["opp_backgammon_value"] == pytest.approx(match.backgammon_value(KXG2, (b, a), c))


def test_take_point_table():
    df = score_matrix(KXG2, 7, cubes=(1, 2))
    table = take_point_table(df, 1)
    assert table.shape == (7, 7)
    assert round(100 * table.loc[3, 3], 2) == 30.17
    assert round(100 * take_point_table(df, 1, "take_live").loc[3, 3], 2) == 22.65
    assert round(100 * table.loc[4, 2], 2) == 18.56
    with pytest.raises(InvalidParameterError):
        take_point_table(df, 1, "nonsense")
    with pytest.raises(InvalidParameterError):
        take_point_table(df, 8)


def test_crawford_rows():
    df = score_matrix(KXG2, 5, cubes=(1,), crawford=True)
    craw = df[df["state"] == "crawford"]
    assert len(craw) == 8
    assert craw[["take_dead", "double", "cash_live"]].isna().all().all()
    assert craw["gammon_value"].notna().all()
    normal = df[df["state"] == "normal"]
    assert normal["take_dead"].notna().all()


def test_symmetric_matrix():
    df = score_matrix(KXG2, 9, cubes=(1,), gammons=(0.2, 0.2))
    t = take_point_table(df, 1)
    c = take_point_table(df, 1, "cash_dead")
    # the player's take point at (a, b) is 1 - the player's cash point at (b, a)
    np.testing.assert_allclose(t.to_numpy(), 1.0 - c.to_numpy().T, atol=1e-12)


def test_bad_arguments():
    with pytest.raises(InvalidScoreError):
        score_matrix(KXG2, 5, cubes=(1, 3))
    with pytest.raises(InvalidScoreError):
        score_matrix(KXG2, 0)
    with pytest.raises(InvalidParameterError):
        score_matrix(KXG2, 5, gammons=(0.1, 0.2), backgammons=(0.3, 0.0))
