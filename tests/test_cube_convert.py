"""Cubeless -> cubeful conversions (gnubg's blend), EMG and cube decisions, from theory.

The differential test against gnubg's own 0-ply cubeful evaluations is in
test_cube_gnubg.py; here the construction is checked node by node: the live MWC is
piecewise linear through the live cash points, the dead one is the probability-weighted
MWC of the outcomes, and the blend is linear in the cube life.
"""

from __future__ import annotations

import numpy as np
import pytest

import mathbg.met as metmod
from mathbg.cube import cubeful, match, money
from mathbg.cube.decisions import CubeAction
from mathbg.errors import InvalidParameterError, InvalidScoreError

KXG2 = metmod.load("kazaross-xg2")


def probs_for(p: float, g0=0.2, b0=0.01, g1=0.15, b1=0.02):
    """gnubg outputs (cumulative gammons) for win chance p and disjoint rates."""
    return np.array([p, p * (g0 + b0), p * b0, (1 - p) * (g1 + b1), (1 - p) * b1])


def mwc(a, b):
    return KXG2.mwc((a, b))


def test_cubeless_mwc_is_outcome_weighted():
    a, b = 5, 4
    pr = probs_for(0.6)
    w, wg, wb, lg, lb = pr
    expected = (
        (w - wg) * mwc(4, 4)
        + (wg - wb) * mwc(3, 4)
        + wb * mwc(2, 4)
        + (1 - w - lg) * mwc(5, 3)
        + (lg - lb) * mwc(5, 2)
        + lb * KXG2.mwc((5, 1), crawford=True)
    )
    assert cubeful.cubeless_mwc(pr, KXG2, (a, b)) == pytest.approx(expected)
    assert cubeful.cubeful_mwc(pr, KXG2, (a, b), cube_life=0.0) == pytest.approx(expected)


def test_live_nodes_centred_owned_unavailable():
    a, b, c = 6, 5, 1
    g = dict(g0=0.2, b0=0.01, g1=0.15, b1=0.02)
    rates = ((0.2, 0.15), (0.01, 0.02))
    cp = match.cash_point_live(KXG2, (a, b), c, *rates)
    opp_tg = 1 - match.cash_point_live(KXG2, (b, a), c, (0.15, 0.2), (0.02, 0.01))
    win, lose = mwc(a - c, b), mwc(a, b - c)
    f = cubeful.cubeful_mwc
    # centred: (oppTG, MWC lose 1) and (CP, MWC win 1) are nodes of the live line
    assert f(probs_for(cp, **g), KXG2, (a, b), cube_life=1.0) == pytest.approx(win)
    assert f(probs_for(opp_tg, **g), KXG2, (a, b), cube_life=1.0) == pytest.approx(lose)
    # owned: the player's cash point is a node; unavailable: the opponent's
    assert f(probs_for(cp, **g), KXG2, (a, b), owner="player", cube_life=1.0) == pytest.approx(win)
    assert f(
        probs_for(opp_tg, **g), KXG2, (a, b), owner="opponent", cube_life=1.0
    ) == pytest.approx(lose)
    # end points: certain win / loss give the gammon-weighted outcome MWCs
    win_g = 0.79 * win + 0.2 * mwc(a - 2, b) + 0.01 * mwc(a - 3, b)
    assert f(probs_for(1.0, **g), KXG2, (a, b), cube_life=1.0) == pytest.approx(win_g)
    # linear in x
    pr = probs_for(0.62, **g)
    v0, v1 = f(pr, KXG2, (a, b), cube_life=0.0), f(pr, KXG2, (a, b), cube_life=1.0)
    assert f(pr, KXG2, (a, b), cube_life=0.3) == pytest.approx(0.7 * v0 + 0.3 * v1)
    # vectorised over positions
    many = np.stack([probs_for(p, **g) for p in (0.3, 0.5, 0.7)])
    assert f(many, KXG2, (a, b)).shape == (3,)


def test_cubeless_where_gnubg_is_cubeless():
    pr = probs_for(0.66)
    for a, b, kw in ((2, 2, {}), (1, 4, {"crawford": True}), (2, 3, {"cube": 4})):
        cube = kw.get("cube", 1)
        cubeless = cubeful.cubeless_mwc(pr, KXG2, (a, b), cube, crawford=kw.get("crawford", False))
        assert cubeful.cubeful_mwc(pr, KXG2, (a, b), cube_life=1.0, **kw) == pytest.approx(cubeless)


def test_emg():
    a, b, c = 4, 6, 2
    win, lose = mwc(a - c, b), mwc(a, b - c)
    assert cubeful.emg(win, KXG2, (a, b), c) == pytest.approx(1.0)
    assert cubeful.emg(lose, KXG2, (a, b), c) == pytest.approx(-1.0)
    assert cubeful.emg(0.5 * (win + lose), KXG2, (a, b), c) == pytest.approx(0.0)
    # agrees with the MET's gnubg-style mwc2eq
    assert cubeful.emg(0.45, KXG2, (a, b), c) == pytest.approx(KXG2.mwc2eq(0.45, (a, b), c))
    with pytest.raises(InvalidScoreError):
        cubeful.emg(0.5, KXG2, (0, 3))


def test_money_conversion():
    pr = probs_for(0.6, g0=0.2, b0=0.0, g1=0.1, b1=0.0)
    w, l_ = 1.2, 1.1
    for owner in ("centre", "player", "opponent"):
        assert cubeful.cubeful_equity(pr, owner=owner, cube_life=0.68) == pytest.approx(
            money.cubeful_equity(0.6, w, l_, 0.68, owner)
        )
    # a sure win is the cubeless equity
    assert cubeful.cubeful_equity(probs_for(1.0, g0=0.3, b0=0.0)) == pytest.approx(1.3)
    assert cubeful.cubeful_equity(pr, cube_life=0.0) == pytest.approx(0.6 * 2.3 - 1.1)


def test_cube_decisions():
    # money: a big gammonish edge is too good; a modest one is no double
    assert cubeful.cube_decision(probs_for(0.92, g0=0.5, b0=0.0)).action.too_good
    assert cubeful.cube_decision(probs_for(0.55)).action == CubeAction.NO_DOUBLE_TAKE
    assert cubeful.cube_decision(probs_for(0.6), owner="opponent").action == (
        CubeAction.NOT_AVAILABLE
    )
    # match: DP is the MWC of winning the cube, DT uses a 2-cube held by the opponent
    dec = cubeful.cube_decision(probs_for(0.8, g0=0.1, b0=0.0), KXG2, (5, 5))
    assert dec.double_pass == pytest.approx(mwc(4, 5))
    assert dec.emg[2] == pytest.approx(1.0)
    assert dec.action in (CubeAction.DOUBLE_PASS, CubeAction.DOUBLE_TAKE)
    # no cube for the post-Crawford leader, in the Crawford game, at DMP
    for a, b, kw in ((1, 4, {}), (1, 4, {"crawford": True}), (1, 1, {})):
        d = cubeful.cube_decision(probs_for(0.7), KXG2, (a, b), **kw)
        assert d.action == CubeAction.NOT_AVAILABLE and d.double_take is None


def test_bad_probabilities():
    with pytest.raises(InvalidParameterError, match="probabilities"):
        cubeful.cubeful_mwc([0.6, 0.7, 0.0, 0.1, 0.0], KXG2, (3, 3))
    with pytest.raises(InvalidParameterError):
        cubeful.cubeful_mwc([0.6, 0.1, 0.0, 0.5, 0.0], KXG2, (3, 3))
    with pytest.raises(InvalidParameterError):
        cubeful.cubeful_mwc([0.6, 0.1], KXG2, (3, 3))
    with pytest.raises(InvalidParameterError):
        cubeful.cube_decision(np.zeros((2, 5)))
    with pytest.raises(InvalidScoreError):
        cubeful.cube_decision(probs_for(0.6), KXG2, 3)


def _rows(n, seed):
    """Random consistent outputs (the first rows certain wins and losses: the rates' 0/0
    branches), scores beyond the table's length among them, every cube and owner."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0, 1, n)
    wg = w * rng.uniform(0, 1, n)
    wb = wg * rng.uniform(0, 1, n)
    lg = (1 - w) * rng.uniform(0, 1, n)
    lb = lg * rng.uniform(0, 1, n)
    p = np.stack([w, wg, wb, lg, lb], axis=1)
    p[:10] = [0.0, 0.0, 0.0, 0.4, 0.1]
    p[10:20] = [1.0, 0.3, 0.1, 0.0, 0.0]
    a, b = rng.integers(1, 30, n), rng.integers(1, 30, n)
    cube = 2 ** rng.integers(0, 5, n)
    owner = rng.integers(0, 3, n)
    life = np.where(rng.uniform(0, 1, n) < 0.1, 1.0, rng.uniform(0, 1, n))
    return p, a, b, cube, owner, life


@pytest.mark.parametrize("crawford", [False, True])
def test_cubeful_rows_are_cubeful_mwc_bit_for_bit(crawford):
    """The compiled rows against the vectorised conversion, owner by owner: the same bits
    (centred, owned and unavailable cubes, dead and live, Crawford and post-Crawford)."""
    p, a, b, cube, owner, life = _rows(3000, 7)
    if crawford:  # a side 1-away in every row
        b = np.where(np.arange(len(a)) % 2 == 0, 1, np.maximum(b, 2))
        a = np.where(b == 1, np.maximum(a, 2), 1)
    got = cubeful.cubeful_mwc_rows(p, KXG2, (a, b), cube, owner, life, crawford=crawford)
    assert got.shape == (len(p),)
    for name, code in cubeful.OWNER_CODES.items():
        g = owner == code
        want = cubeful.cubeful_mwc(p[g], KXG2, (a[g], b[g]), cube=cube[g], owner=name,
                                   cube_life=life[g], crawford=crawford)  # fmt: skip
        assert got[g].tobytes() == np.asarray(want, dtype=np.float64).tobytes(), name


def test_cubeful_rows_take_scalars_and_no_rows():
    p = probs_for(0.7)[None]
    one = cubeful.cubeful_mwc(p[0], KXG2, (4, 6), cube=2, owner="opponent", cube_life=0.5)
    assert cubeful.cubeful_mwc_rows(p, KXG2, (4, 6), 2, 2, 0.5)[0] == one
    assert cubeful.cubeful_mwc_rows(np.zeros((0, 5)), KXG2, (4, 6), 1, 0, 0.68).shape == (0,)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"owner": 3}, InvalidParameterError),
        ({"owner": -1}, InvalidParameterError),
        ({"crawford": True}, InvalidScoreError),  # 3-away/5-away has no side 1-away
        ({"away": (0, 5)}, InvalidScoreError),
        ({"cube": 3}, InvalidScoreError),
        ({"cube_life": 1.5}, InvalidParameterError),
        ({"probs": [0.6, 0.1, 0.0, 0.1, 0.0]}, InvalidParameterError),  # not (n, 5)
        ({"probs": [[0.6, 0.7, 0.0, 0.1, 0.0]]}, InvalidParameterError),  # wg > w
        ({"away": ([3, 4], 5)}, InvalidParameterError),  # two scores for one row
        ({"owner": [[0]]}, InvalidParameterError),
    ],
)
def test_cubeful_rows_refuse_bad_input(kwargs, error):
    args = {"probs": [probs_for(0.6)], "met": KXG2, "away": (3, 5), "cube": 1, "owner": 0,
            "cube_life": 0.68, **kwargs}  # fmt: skip
    crawford = args.pop("crawford", False)
    with pytest.raises(error):
        cubeful.cubeful_mwc_rows(**args, crawford=crawford)
