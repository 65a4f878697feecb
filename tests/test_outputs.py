"""Issue 14, output rules: one meaning per word, fractions in JSON, null for n/a, no float
noise, ``--decimals``, the cube life printed, ``to_frame()`` on result objects.

Expected numbers come from the published Kazaross-XG2 table (read from its shipped file),
from theory (shared/reference/theory-and-sources.md section 2.3), or from gnubg 1.07.001
(``show marketwindow``), never from mathbg's own output.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mathbg.met as metmod
from mathbg.cli import main

KXG2 = metmod.load("kazaross-xg2")
# the published table: row player a-away vs b-away (Crawford-game values at 1-away)
MET_4_1 = float(KXG2.pre[3, 0])  # 4-away vs 1-away (Crawford): 0.18564 in Kazaross-XG2
MET_2_2 = 0.5


def run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def run_json(capsys, *argv: str):
    return json.loads(run(capsys, *argv))


def walk(obj):
    """Every scalar of a JSON document."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from walk(v)
    else:
        yield obj


def floats_in(text: str) -> list[str]:
    """The numbers as they are written in a JSON text."""
    return re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?", text)


# ----------------------------------------------------------------------------- dead / no recube


def test_dead_and_no_recube_take_points_4away_2away(capsys):
    # theory 2.3: the 4-away taker of a 2-away doubler's cube redoubles at once for free,
    # so its dead take point is MET(4, 1 Crawford) = 18.56 %; with no recube at all it is
    # MET(4, 1 Crawford) / MET(2, 2) = 37.1 %
    assert round(100 * MET_4_1, 2) == 18.56
    out = run_json(capsys, "takepoint", "--away", "4,2", "--json")
    taker = out["players"][0]
    assert taker["take_point_dead"] == pytest.approx(MET_4_1, abs=1e-12)
    assert taker["take_point_no_recube"] == pytest.approx(MET_4_1 / MET_2_2, abs=1e-12)
    assert round(100 * taker["take_point_no_recube"], 1) == 37.1
    # both words are defined in the JSON itself
    assert "free redouble" in out["terms"]["dead"]
    assert "not even" in out["terms"]["no_recube"]
    text = run(capsys, "takepoint", "--away", "4,2")
    assert re.search(r"take point, dead\s+18\.56%", text)
    assert re.search(r"take point, no recube\s+37\.13%", text)
    assert "dead: the cube is not turned again after the take, except the taker's free" in text
    assert "no recube: the cube is not turned again at all" in text


def test_no_recube_line_only_where_it_differs(capsys):
    # 3-away/3-away: nobody's redouble is free, so dead = no recube and one line is shown
    text = run(capsys, "takepoint", "--away", "3,3")
    assert "no recube" not in text
    out = run_json(capsys, "takepoint", "--away", "3,3", "--json")
    for p in out["players"]:
        assert p["take_point_no_recube"] == p["take_point_dead"]
        assert round(100 * p["take_point_dead"], 2) == 30.17  # theory 2.3 / gnubg


def test_matrix_shows_no_recube_table_where_it_differs(capsys):
    text = run(capsys, "takepoint", "--length", "4", "--matrix")
    assert "dead cube (the taker's free redouble counted)" in text
    assert "no recube (not even the taker's free redouble)" in text
    assert "live cube, cube life x = 1" in text


@pytest.mark.gnubg(kind="exact")
def test_no_recube_and_dead_lines_match_gnubg(gnubg, capsys):
    # gnubg 1.07.001: 7-point match at 3-5 (player 0 4-away, player 1 2-away), gammonless
    script = (
        "import gnubg\n"
        "gnubg.command('set player 0 human')\n"
        "gnubg.command('set player 1 human')\n"
        "gnubg.command('new match 7')\n"
        "gnubg.command('set score 3 5')\n"
        "print('OUT>>>' + gnubg.show('marketwindow 0 0 0 0'))\n"
    )
    text = gnubg.run_python(script, timeout=120).split("OUT>>>", 1)[1]
    num = r"\s*([0-9.]+)%\s*-\s*([0-9.]+)%"
    parts = text.split("market window:")[1:]
    assert len(parts) == 2, text
    out = run_json(capsys, "takepoint", "--away", "4,2", "--json")
    player, opponent = out["players"]
    # the 2-away doubler's window: gnubg prints both dead lines (its opponent redoubles)
    doubler = next(p for p in parts if "opponent redoubles" in p)
    no_re = re.search(r"Dead cube \(opponent doesn't redouble\):" + num, doubler).groups()
    re_ = re.search(r"Dead cube \(opponent redoubles\):" + num, doubler).groups()
    assert opponent["double_point_no_recube"] == pytest.approx(float(no_re[0]) / 100, abs=1e-4)
    assert opponent["cash_point_no_recube"] == pytest.approx(float(no_re[1]) / 100, abs=1e-4)
    assert opponent["double_point_dead"] == pytest.approx(float(re_[0]) / 100, abs=1e-4)
    assert opponent["cash_point_dead"] == pytest.approx(float(re_[1]) / 100, abs=1e-4)
    # the taker's take points are one minus the doubler's cash points
    assert player["take_point_no_recube"] == pytest.approx(1 - float(no_re[1]) / 100, abs=1e-4)
    assert player["take_point_dead"] == pytest.approx(1 - float(re_[1]) / 100, abs=1e-4)


# ----------------------------------------------------------------------------- not applicable


def test_not_applicable_is_null_and_dash(capsys):
    # 4-away vs 2-away on a 2-cube: the 2-away side wins the match with any win at the
    # current cube, so it has nothing to double for (theory 2.3): no double, cash or
    # too-good point for it, and no take point for the 4-away side
    out = run_json(capsys, "takepoint", "--away", "4,2", "--cube", "2", "--json")
    player, opponent = out["players"]
    for key in ("double_point_dead", "cash_point_dead", "cash_point_live", "too_good_point"):
        assert opponent[key] is None, key
    assert player["take_point_dead"] is None and player["take_point_live"] is None
    # the 4-away side's double to 4 makes a one-game match: take at 50 % (theory)
    assert opponent["take_point_dead"] == pytest.approx(MET_2_2)
    text = run(capsys, "takepoint", "--away", "4,2", "--cube", "2")
    assert re.search(r"take point, dead\s+-\s+50\.00%", text)
    assert re.search(r"double point, dead\s+0\.00%\s+-\n", text)
    assert "100.00%" not in text.split("too-good point")[0]


def test_matrix_column_one_is_not_applicable(capsys):
    # a 1-away doubler (post-Crawford leader / DMP) may not double: column 1 is n/a
    out = run_json(capsys, "takepoint", "--length", "3", "--matrix", "--json")
    for row in out["rows"]:
        if row["opp_away"] == 1:
            assert row["take_dead"] is None and row["take_live"] is None
        else:
            assert row["take_dead"] is not None
    text = run(capsys, "takepoint", "--length", "3", "--matrix")
    first = text.split("\n\n")[0].splitlines()
    assert all(line.split()[1] == "-" for line in first[3:])  # rows 1..3, column 1


def test_heatmap_leaves_not_applicable_cells_blank():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from mathbg import plots
    from mathbg.cube.matrix import score_matrix

    ax = plots.cube_point_heatmap(score_matrix(KXG2, 4, cubes=(1,)), "take_dead", annotate=True)
    image = ax.images[0]
    data = image.get_array()
    assert np.ma.is_masked(data) and data.mask[:, 0].all() and not data.mask[:, 1:].any()
    assert image.cmap.get_bad()[3] == 0.0  # transparent: a blank cell, not the darkest one
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 4 * 3 and "nan" not in texts and "0" not in texts
    plt.close(ax.figure)


# ----------------------------------------------------------------------------- JSON numbers


def test_json_has_no_float_noise(capsys):
    text = run(capsys, "takepoint", "--away", "4,2", "--json")
    for literal in floats_in(text):
        assert len(literal.lstrip("-").replace(".", "").lstrip("0")) <= 15, literal
    # the Kazaross-XG2 entry 0.18564 (published with 5 decimals) comes out as published
    assert '"take_point_dead": 0.18564,' in text


def test_json_decimals(capsys):
    text = run(capsys, "takepoint", "--away", "3,3", "--json", "--decimals", "4")
    out = json.loads(text)
    assert out["players"][0]["take_point_dead"] == 0.3017  # 30.17 % (theory 2.3)
    for literal in floats_in(text):
        assert len(literal.split(".")[1]) <= 4, literal


def test_clean_number_rules():
    from mathbg._output import clean, clean_number, dumps

    assert clean_number(0.1 + 0.2) == 0.3  # 0.30000000000000004 -> 0.3
    assert repr(clean_number(0.6950000000000001)) == "0.695"
    assert clean_number(float("nan")) is None
    assert clean_number(2.0 / 3.0, 3) == 0.667
    assert clean_number(-1e-20, 3) == 0.0 and repr(clean_number(-1e-20, 3)) == "0.0"
    assert clean_number(True) is True and clean_number(7) == 7
    assert clean({"a": (1.0 / 3.0, None)}, 2) == {"a": [0.33, None]}
    assert dumps({"x": float("nan")}, indent=None) == '{"x": null}'


def test_json_fractions_everywhere(capsys):
    # every winning chance / MWC / point in JSON is a fraction in [0, 1]
    for argv in (
        ("takepoint", "--away", "3,5", "--gammons", "0.2,0.2", "--json"),
        ("cube", "money", "--gammons", "0.2,0.2", "--json"),
        ("cube", "decide", "--probs", "0.72,0.25,0.01,0.05,0.002", "--away", "3,5", "--json"),
    ):
        out = run_json(capsys, *argv)
        for key, value in _point_like(out):
            assert value is None or 0.0 <= value <= 1.0, (argv, key, value)


def _point_like(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _point_like(v, f"{prefix}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            yield from _point_like(v, prefix)
    elif isinstance(obj, float) and re.search(
        r"point|take|cash|double|beaver|raccoon|too_good|p_win|mwc|optimal", prefix
    ):
        if "emg" not in prefix and "value" not in prefix:
            yield prefix, obj


# ----------------------------------------------------------------------------- to_frame


def test_score_points_to_frame():
    from mathbg.cube.match import POINT_FIELDS, points

    sp = points(KXG2, (4, 2), cube=2)
    df = sp.to_frame()
    assert list(df.index) == ["player", "opponent"]
    assert set(POINT_FIELDS) <= set(df.columns)
    assert math.isnan(df.loc["player", "take_point_dead"])  # n/a -> NaN
    assert df.loc["opponent", "take_point_dead"] == pytest.approx(MET_2_2)
    assert df.attrs["cube"] == 2 and df.attrs["met"] == "kazaross-xg2"
    assert df.attrs["cube_life"] == 1.0 and "cube points" in df.attrs["name"]


def test_cube_results_to_frame():
    from mathbg.cube.cubeful import cube_decision
    from mathbg.cube.match import market_window
    from mathbg.cube.money import money_points

    pts = money_points((0.0, 0.0), (0.0, 0.0), 2.0 / 3.0)
    df = pts.to_frame()
    # Janowski, gammonless: take 25 % dead, 20 % live, 21.43 % at x = 2/3 (theory 2.1)
    assert df.loc["take", "dead"] == pytest.approx(0.25)
    assert df.loc["take", "live"] == pytest.approx(0.20)
    assert round(df.loc["take", "x"], 4) == 0.2143
    assert df.attrs["cube_life"] == pytest.approx(2 / 3)
    # a certain win with no gammons: ND = DP = +1 per cube (money), any cube life
    dec = cube_decision([1.0, 0.0, 0.0, 0.0, 0.0], cube_life=0.68)
    row = dec.to_frame().iloc[0]
    assert row["double_pass"] == 1.0 and row["cube_life"] == 0.68
    assert dec.to_frame().attrs["cube_life"] == 0.68
    w, _ = market_window(KXG2, (3, 3))
    assert round(100 * w.to_frame().iloc[0]["cash_point_dead"], 2) == 69.83  # gnubg, theory


def test_cube_decide_prints_cube_life(capsys):
    probs = "0.72,0.25,0.01,0.05,0.002"
    text = run(capsys, "cube", "decide", "--probs", probs, "--away", "3,5")
    assert "cube life x = 0.68" in text.splitlines()[0]
    out = run_json(capsys, "cube", "decide", "--probs", probs, "--cube-life", "0.5", "--json")
    assert out["cube_life"] == 0.5
    text = run(capsys, "cube", "money")
    assert "cube life x = 0.667" in text
    assert run_json(capsys, "cube", "money", "--json", "--decimals", "3")["cube_life"] == 0.667
    text = run(capsys, "takepoint", "--away", "3,3", "--cube-life", "0.68")
    assert "take point, live, x=0.68" in text and "live: cube life x = 0.68" in text
    assert run_json(capsys, "takepoint", "--away", "3,3", "--json")["cube_life"] == 1.0


# ----------------------------------------------------------------------------- race


@pytest.fixture(scope="module")
def short_race():
    from mathbg.race.evaluate import evaluate_race

    return evaluate_race("/38AAADfAwAAAA")


def test_isight_estimate_clamped_and_labelled(short_race, capsys):
    # Isight's counts 21 and 47: GWC = 80 - 21/3 + 2 (47 - 21) = 125 % (gnubg prints it
    # unclamped); as a winning chance it is clamped to 1 and called an estimate
    assert short_race.isight == (21, 47)
    assert short_race.isight_p_win_estimate == 1.0
    from mathbg.race.counts import isight_win_probability

    assert isight_win_probability(*short_race.isight) == pytest.approx(125.0)
    d = short_race.as_dict()
    assert d["isight_p_win_estimate"] == 1.0 and "isight_p_win" not in d
    from mathbg.cli.race import format_text

    text = format_text(short_race)
    assert "P(win) estimate 100.0% (clamped)" in text and "125" not in text
    # 8-9-12: the lead 15 - 13 = 2 pips is 2/13 of the roller's count, a fraction in JSON
    assert d["lead_8912_fraction"] == pytest.approx(2 / 13)
    assert "cube life x = 0.600" in text  # gnubg's one-sided bearoff cube life


def test_race_results_to_frame(short_race):
    df = short_race.to_frame()
    assert len(df) == 1 and df.attrs["cube_life"] == 0.6
    row = df.iloc[0]
    assert row["pips_on_roll"] == 13 and row["pips_opponent"] == 15
    assert row["isight_p_win_estimate"] == 1.0
    assert math.isnan(row["cube_emg"])  # money play: no EMG, NaN
    chances = short_race.chances.to_frame().iloc[0]
    assert 0.0 <= chances["p_win"] <= 1.0
    assert short_race.cube.to_frame().iloc[0]["cube_life"] == 0.6


# ----------------------------------------------------------------------------- MET frames / CSV


def test_met_frame_and_mwc_agree_on_column_one():
    # the published Kazaross-XG2: row 3, column 1 is the Crawford game in the table
    crawford = float(KXG2.pre[2, 0])
    post = float(KXG2.post[0][2])
    assert crawford != post
    df = KXG2.to_frame()
    assert df.loc[3, 1] == crawford == KXG2.mwc((3, 1), crawford=True)
    assert df.attrs["one_away"] == "crawford" and "Crawford game" in df.attrs["name"]
    pc = KXG2.to_frame(one_away="post-crawford")
    assert pc.loc[3, 1] == post == KXG2.mwc((3, 1))
    assert pc.loc[1, 3] == pytest.approx(1 - post) and pc.loc[3, 3] == df.loc[3, 3]
    assert "post-Crawford" in pc.attrs["name"]
    assert "post-Crawford" in KXG2.post_frame().attrs["name"]


def test_met_csv_is_a_clean_matrix(capsys, tmp_path):
    text = run(capsys, "met", "--model", "kazaross-xg2", "--length", "7", "--format", "csv")
    rows = [line.split(",") for line in text.splitlines()]
    assert len(rows) == 8 and all(len(r) == 8 for r in rows)
    assert rows[0] == ["away", "1", "2", "3", "4", "5", "6", "7"]
    assert [r[0] for r in rows[1:]] == [str(a) for a in range(1, 8)]
    out = tmp_path / "k.csv"
    assert main(["met", "--length", "7", "--format", "csv", "--out", str(out)]) == 0
    assert "k.post-crawford.csv" in capsys.readouterr().err
    post = (tmp_path / "k.post-crawford.csv").read_text().splitlines()
    assert post[0] == "away,player_0,player_1" and len(post) == 8
    assert float(post[3].split(",")[1]) == float(KXG2.post[0][2])


def test_met_json_and_csv_decimals_and_no_noise(capsys):
    # a model's table has float noise in the last bits; none of it is written
    text = run(capsys, "met", "--model", "zadeh", "--length", "5", "--format", "json")
    for literal in floats_in(text):
        assert len(literal.lstrip("-").replace(".", "").lstrip("0")) <= 15, literal
    obj = json.loads(run(capsys, "met", "--length", "5", "--format", "json", "--decimals", "2"))
    assert obj["pre"][0][0] == 0.5 and all(round(v, 2) == v for row in obj["pre"] for v in row)
    csv = run(capsys, "met", "--length", "3", "--format", "csv", "--decimals", "3")
    assert csv.splitlines()[1].split(",")[1] == "0.500"


# ----------------------------------------------------------------------------- bearoff results


def test_bearoff_results_to_frame():
    import numpy as np

    from mathbg.bearoff.twosided import Equities, cube_decision

    # Janowski's man-on-6 vs man-on-6 (theory 2.1): the roller wins 27/36 + 9/36 x 1/4 =
    # 81.25 %, cubeless equity 0.625; centred and opponent-owned cubeful values 0.5
    eq = Equities(cubeless=0.625, player=0.625, centre=0.5, opponent=0.5)
    row = eq.to_frame().iloc[0]
    assert row["centre"] == 0.5 and eq.to_frame().attrs["name"] == "Equities"
    dec = cube_decision(np.array([0.625, 0.625, 0.5, 0.5]))
    frame = dec.to_frame()
    assert frame.iloc[0]["double_take"] == 1.0 and frame.iloc[0]["double_pass"] == 1.0
    assert frame.iloc[0]["action"] == "double, pass"
    assert math.isnan(frame.iloc[0]["cube_life"])  # exact: no cube-life model, NaN


def test_count_advice_to_frame():
    from mathbg.race import counts

    # 8-9-12 rule: a lead of 8 % (of the roller's count) doubles, 9 % redoubles, above 12 %
    # passes; 100 vs 113 pips is a 13 % lead: double, pass (test_race_counts' thresholds)
    row = counts.lead_8912_advice(100, 113).to_frame().iloc[0]
    assert row["verdict"] == "double, pass" and not row["take"]


def test_roll_distribution_to_frame(short_race):
    roller, _ = short_race.distributions
    df = roller.to_frame()
    assert df.index.name == "rolls" and df["p_bear_off"].sum() == pytest.approx(1.0)
    # 5 on the 1-point and 4 on the 2-point (gnubg's manual): 4.41 rolls, EPC 36.02
    assert round(df.attrs["mean_rolls"], 2) == 4.41 and round(df.attrs["epc"], 2) == 36.02


def test_met_fit_to_frame():
    from mathbg.bearoff.exact.analysis import fit_met_model

    # fitting Tornberg's model to its own 26 % table recovers the 26 % gammon rate
    fit = fit_met_model(metmod.mec(9, gammon_rate=0.26), "mec")
    row = fit.to_frame().iloc[0]
    assert row["model"] == "mec" and row["gammon_rate"] == pytest.approx(0.26, abs=1e-6)
    assert row["rms"] == pytest.approx(0.0, abs=1e-9)


def test_market_window_plot_shows_no_recube_window_where_it_differs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mathbg import plots
    from mathbg.cube.match import points

    ax = plots.market_window_bars(points(KXG2, (4, 2)))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    # the 2-away doubler's window is met by the 4-away taker's free redouble (gnubg prints
    # two dead lines for it); the 4-away doubler's is not
    assert "opponent (2-away), no recube" in labels
    assert "player (4-away), no recube" not in labels
    plt.close(ax.figure)
    # 2-away on a 2-cube has nothing to double for: no bars for it
    ax = plots.market_window_bars(points(KXG2, (4, 2), cube=2))
    assert not any("opponent" in t.get_text() for t in ax.get_yticklabels())
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "argv",
    [
        ("takepoint", "--away", "3,5", "--gammons", "0.2,0.2", "--json"),
        ("takepoint", "--length", "3", "--matrix", "--json"),
        ("cube", "money", "--gammons", "0.2,0.1", "--json"),
        ("cube", "decide", "--probs", "0.72,0.25,0.01,0.05,0.002", "--away", "3,5", "--json"),
        ("met", "--model", "zadeh", "--length", "5", "--format", "json"),
        ("selfplay", "--variant", "portes", "--games", "3", "--seed", "1", "--json"),
    ],
)
def test_every_json_command_honours_decimals(capsys, argv):
    text = run(capsys, *argv, "--decimals", "3")
    json.loads(text)
    for literal in floats_in(text):
        assert len(literal.split(".")[1]) <= 3, (argv, literal)


# ----------------------------------------------------------------------------- invariants


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_clean_number_keeps_15_digits_and_nothing_else(x):
    from mathbg._output import clean_number

    y = clean_number(x)
    assert y == pytest.approx(x, rel=5e-15, abs=0.0)
    digits = repr(y).lower().split("e")[0].lstrip("-").replace(".", "").strip("0")
    assert len(digits) <= 15


@settings(max_examples=60, deadline=None)
@given(a=st.integers(1, 11), b=st.integers(1, 11), c=st.sampled_from([1, 2, 4]),
       g=st.floats(0.0, 0.4))  # fmt: skip
def test_score_points_json_and_frame_agree(a, b, c, g):
    from mathbg.cube.match import POINT_FIELDS, points

    sp = points(KXG2, (a, b), cube=c, gammons=(g, g))
    df = sp.to_frame()
    for name, p in zip(("player", "opponent"), sp.as_dict()["players"], strict=True):
        for key in POINT_FIELDS:
            v = p[key]
            if key == "may_double":
                assert bool(df.loc[name, key]) == v
            elif v is None:  # not applicable: null in JSON, NaN in the frame
                assert math.isnan(df.loc[name, key])
            else:
                assert df.loc[name, key] == v
                if "point" in key:
                    assert -1e-12 <= v <= 1 + 1e-12


def test_every_result_object_has_to_frame():
    from mathbg.bearoff.exact.analysis import MetFit
    from mathbg.bearoff.exact.match import GameSolution, MatchEquity
    from mathbg.bearoff.twosided import Equities
    from mathbg.cube.decisions import CubeDecision
    from mathbg.cube.match import MarketWindow, PlayerPoints, ScorePoints
    from mathbg.cube.money import CubeActionResult, MoneyPoint, MoneyPoints
    from mathbg.met.table import MET
    from mathbg.race.counts import CountAdvice
    from mathbg.race.evaluate import RaceChances, RaceCubeAdvice, RaceEvaluation, RollDistribution

    classes = (
        Equities, GameSolution, MatchEquity, MetFit, CubeDecision, MarketWindow,
        PlayerPoints, ScorePoints, CubeActionResult, MoneyPoint, MoneyPoints, MET,
        CountAdvice, RaceChances, RaceCubeAdvice, RaceEvaluation, RollDistribution,
    )  # fmt: skip
    for cls in classes:
        assert callable(getattr(cls, "to_frame", None)), cls.__name__


def test_exact_game_solution_to_frame():
    import numpy as np

    from mathbg.bearoff.exact.match import solve_score

    # 2-away/2-away: after a double both sides win the match with any win, so DT is the
    # cubeless chance; a pass leaves 1-away/2-away Crawford (the published table's entry)
    df = solve_score((2, 2), points=3, checkers=2).to_frame()
    np.testing.assert_allclose(df["double_take"], df["p_win"], atol=1e-12)
    assert (df["double_pass"] == KXG2.mwc((1, 2), crawford=True)).all()
    assert df.attrs["cube_life"] is None and "2-away/2-away" in df.attrs["name"]
