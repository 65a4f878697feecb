"""Analyses on the exact match-play bearoff solver, the CLI and the plots.

Expected numbers: the take points of mathbg.cube.match (its dead and no-redouble market
window, written independently of these analyses), the MET, gnubg's cubeful blend
(mathbg.cube.cubeful), Zadeh's model with known parameters, and the solver's own
decisions (consistency between views of the same solution).
"""

from __future__ import annotations

import json

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from mathbg import met as metmod
from mathbg.bearoff.exact import analysis as A
from mathbg.bearoff.exact import match as M
from mathbg.cube.match import market_window, take_point_dead, take_point_live
from mathbg.errors import InvalidParameterError

KXG2 = metmod.load("kazaross-xg2")
SMALL = {"points": 6, "checkers": 4}


@pytest.fixture(scope="module")
def boundary33():
    return A.take_boundary((3, 3), doubles_only=False, **SMALL)


def test_take_boundary_rules_are_the_cube_module_points(boundary33):
    df = boundary33
    assert df.attrs["tp_gnubg"] == pytest.approx(take_point_dead(KXG2, (3, 3)), abs=1e-12)
    assert df.attrs["tp_live"] == pytest.approx(take_point_live(KXG2, (3, 3)), abs=1e-12)
    nored = 1.0 - market_window(KXG2, (3, 3))[0].cash_point_no_recube
    # issue 14: the rule without any recube is "no_recube" (mathbg's "dead" is gnubg's)
    assert df.attrs["tp_no_recube"] == pytest.approx(nored, abs=1e-12)
    # 3a/3a: no automatic redouble, so gnubg's convention is the no-recube rule
    assert df.attrs["tp_no_recube"] == pytest.approx(df.attrs["tp_gnubg"], abs=1e-12)


def test_take_boundary_rows_are_the_solver_decisions(boundary33):
    df = boundary33
    n = M.n_positions(6, 4) - 1
    assert len(df) == n * n
    sol = M.solve_score((3, 3), **SMALL)
    for k in (0, 17, 4000, len(df) - 1):
        row = df.iloc[k]
        roller = [int(x) for x in row["roller"].split(",")]
        opponent = [int(x) for x in row["opponent"].split(",")]
        eq = sol.decision(roller, opponent)
        assert row["no_double"] == eq.no_double and row["double_take"] == eq.double_take
        assert row["exact_take"] == (eq.double_take < eq.double_pass)
        assert row["p_taker"] == pytest.approx(1.0 - eq.p_win, abs=1e-15)
    # an error costs |DP - DT| exactly where the rule disagrees with the exact decision
    for rule in A.RULES:
        wrong = df[f"take_{rule}"] != df["exact_take"]
        cost = (df["double_pass"] - df["double_take"]).abs()
        np.testing.assert_allclose(df.loc[wrong, f"error_{rule}"], cost[wrong])
        assert (df.loc[~wrong, f"error_{rule}"] == 0).all()


def test_take_boundary_summary(boundary33):
    summary = A.take_boundary_summary(boundary33)
    assert list(summary.index) == list(A.RULES)
    df = boundary33
    for rule in A.RULES:
        says, take = df[f"take_{rule}"], df["exact_take"]
        assert summary.loc[rule, "wrong_takes"] == int((says & ~take).sum())
        assert summary.loc[rule, "wrong_passes"] == int((~says & take).sum())
    # the no-recube rule never takes a pass here (a recube only adds to the taker's MWC),
    # but passes some exact takes; the fully live rule errs the other way
    nr = summary.loc["no_recube"]
    assert nr["wrong_takes"] == 0 and nr["wrong_passes"] > 0
    assert summary.loc["live", "wrong_passes"] == 0
    assert (df["recube_vig"] >= -1e-12).all()


def test_take_boundary_automatic_redouble():
    # the doubler 2-away, the taker 4-away: gnubg's convention stakes 4 at once, so its
    # take point is MET(4a, 1a Crawford); without the recube it is much higher
    df = A.take_boundary((2, 4), **SMALL)
    assert df.attrs["auto_redouble"]
    assert df.attrs["tp_gnubg"] == pytest.approx(KXG2.mwc((4, 1), crawford=True), abs=1e-12)
    assert df.attrs["tp_no_recube"] > df.attrs["tp_gnubg"] + 0.1
    assert df["doubles"].all()


@pytest.mark.parametrize(
    ("away", "kwargs"),
    [((1, 3), {"crawford": True}), ((3, 3), {"cube": 2, "owner": "opponent"}), ((1, 4), {})],
)
def test_take_boundary_without_access(away, kwargs):
    with pytest.raises(InvalidParameterError, match="cannot double"):
        A.take_boundary(away, **kwargs, **SMALL)


def test_implied_cube_life_round_trip():
    from mathbg.cube.cubeful import cubeful_mwc

    df = A.implied_cube_life((4, 5), **SMALL)
    ok = df["x"].notna()
    assert ok.mean() > 0.5
    blend = (1 - df.loc[ok, "x"]) * df.loc[ok, "dead"] + df.loc[ok, "x"] * df.loc[ok, "live"]
    np.testing.assert_allclose(blend, df.loc[ok, "exact"], rtol=0, atol=1e-9)
    # the dead value is the cubeless MWC p W + (1 - p) L at the score
    w, lo = KXG2.mwc((3, 5)), KXG2.mwc((4, 4))
    np.testing.assert_allclose(df["dead"], df["p"] * w + (1 - df["p"]) * lo, atol=1e-12)
    # and gnubg's blend at one pair's x gives that pair's exact value
    row = df[ok & df["x"].between(0.2, 0.9)].iloc[100]
    probs = [row["p"], 0, 0, 0, 0]
    value = cubeful_mwc(probs, KXG2, (4, 5), cube_life=row["x"])
    assert value == pytest.approx(row["exact"], abs=1e-9)


def test_implied_cube_life_undefined_where_gnubg_is_cubeless():
    # gnubg treats 2a/2a and DMP as cubeless: live = dead, no x
    for away in ((2, 2), (1, 1)):
        df = A.implied_cube_life(away, **SMALL)
        assert len(df) > 0 and df["x"].isna().all()


@pytest.mark.slow
def test_cube_life_table():
    table = A.cube_life_table([(3, 3), (5, 4)], **SMALL)
    assert set(table.columns) >= {"away", "opp_away", "pips", "n", "x_median", "x_q25"}
    assert set(zip(table["away"], table["opp_away"], strict=True)) == {(3, 3), (5, 4)}
    per_score = table.groupby(["away", "opp_away"])["n"].sum()
    df = A.implied_cube_life((3, 3), **SMALL)
    assert per_score[(3, 3)] == df["x"].notna().sum()
    with pytest.raises(InvalidParameterError, match="by must"):
        A.cube_life_table([(3, 3)], by="cube", **SMALL)


def test_fit_recovers_zadeh_parameters():
    target = metmod.zadeh(7, delta=0.1, delta_bar=0.03)
    fit = A.fit_met_model(target, "zadeh", parameters=("delta", "delta_bar"))
    assert fit.parameters["delta"] == pytest.approx(0.1, abs=1e-6)
    assert fit.parameters["delta_bar"] == pytest.approx(0.03, abs=1e-6)
    assert fit.rms < 1e-8 and fit.max_abs < 1e-7


def test_fit_to_a_race_met():
    race = M.race_met([0, 0, 0, 1, 1, 0], length=7, progress=False)
    default_rms = A.fit_met_model(race, "mec", parameters=()).rms
    fit = A.fit_met_model(race, "mec")
    assert fit.rms < default_rms
    assert fit.residuals.shape == (7, 7) and len(fit.post_residuals) == 6
    with pytest.raises(InvalidParameterError, match="model"):
        A.fit_met_model(race, "jacobs")
    with pytest.raises(InvalidParameterError, match="no parameter"):
        A.fit_met_model(race, "mec", parameters=("delta",))


# ----------------------------------------------------------------------------- CLI


def test_cli_json(capsys):
    from mathbg.cli import main

    code = main(["bearoff", "match", "0,0,0,0,0,1", "0,0,0,0,0,1", "--away", "3,3",
                 "--checkers", "1", "--json"])  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_win"] == 0.8125
    assert out["mwc_double_pass"] == pytest.approx(KXG2.mwc((2, 3)), abs=1e-15)
    best = max(out["mwc_no_double"], min(out["mwc_double_take"], out["mwc_double_pass"]))
    assert out["mwc_optimal"] == best
    assert out["action"] == "double, pass"


def test_cli_text_and_errors(capsys):
    from mathbg.cli import main

    assert main(["bearoff", "match", "0,0,0,0,0,1", "1", "--away", "1,4", "--crawford",
                 "--checkers", "1"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "Crawford game" in text and "cube not available" in text
    assert main(["bearoff", "match", "0,0,1", "1", "--away", "3,x"]) == 2
    assert "--away" in capsys.readouterr().err
    assert main(["bearoff", "match", "0,0,1", "1", "--away", "3,3", "--cube", "3"]) == 2


# ----------------------------------------------------------------------------- plots


def test_plots(boundary33):
    from mathbg import plots

    ax = plots.exact_take_boundary(boundary33, max_points=500)
    assert ax.get_xlabel().startswith("taker")
    table = A.cube_life_table([(3, 3)], **SMALL)
    ax = plots.implied_cube_life(table)
    assert ax.get_ylabel() == "implied cube life x"
    import matplotlib.pyplot as plt

    plt.close("all")
