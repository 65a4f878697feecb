"""``mathbg takepoint`` and ``mathbg cube``: options, JSON keys, errors; the cube plots."""

from __future__ import annotations

import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import mathbg.met as metmod
from mathbg import plots
from mathbg.cli import main
from mathbg.cube import match
from mathbg.cube.matrix import score_matrix

KXG2 = metmod.load("kazaross-xg2")
POINT_KEYS = {
    "take_point_dead",
    "take_point_live",
    "double_point_dead",
    "double_point_live",
    "cash_point_dead",
    "cash_point_live",
    "too_good_point",
    "gammon_value",
    "backgammon_value",
}


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_takepoint_json(capsys):
    out = run_json(
        capsys, "takepoint", "--away", "3,3", "--gammons", "0.25,0.25",
        "--backgammons", "0.01,0.01", "--json",
    )  # fmt: skip
    assert out["away"] == [3, 3] and out["cube"] == 1 and out["state"] == "normal"
    assert len(out["players"]) == 2
    p = out["players"][0]
    assert POINT_KEYS <= set(p)
    assert round(100 * p["take_point_dead"], 2) == 34.24
    assert round(100 * p["take_point_live"], 2) == 28.65
    assert p["double_point_live"] == p["double_point_dead"]
    assert all(0.0 <= p[k] <= 1.0 for k in POINT_KEYS if "value" not in k)


def test_takepoint_score_form_and_cube(capsys):
    a = run_json(capsys, "takepoint", "--length", "7", "--score", "4-3", "--cube", "2", "--json")
    b = run_json(capsys, "takepoint", "--away", "3,4", "--cube", "2", "--json")
    assert a == b
    assert a["players"][1]["take_point_dead"] == pytest.approx(
        match.take_point_dead(KXG2, (4, 3), 2)
    )


def test_takepoint_post_crawford_and_crawford(capsys):
    out = run_json(capsys, "takepoint", "--away", "3,1", "--json")
    assert out["state"] == "post-crawford"
    trailer, leader = out["players"]
    # issue 14: not-applicable values are null (post-Crawford: no live points; the leader
    # has nothing to double for, so no doubling points and the trailer no take point)
    assert trailer["take_point_live"] is None and leader["cash_point_live"] is None
    assert leader["double_point_dead"] is None and trailer["take_point_dead"] is None
    assert trailer["double_point_dead"] == 0.0
    assert trailer["cash_point_dead"] == pytest.approx(1 - leader["take_point_dead"])
    assert round(100 * leader["take_point_dead"], 1) == 2.4
    out = run_json(capsys, "takepoint", "--away", "1,2", "--crawford", "--json")
    assert out["state"] == "crawford"
    assert all(not (POINT_KEYS - {"gammon_value", "backgammon_value"})
               & {k for k, v in p.items() if v is not None}
               for p in out["players"])  # fmt: skip
    out = run_json(capsys, "takepoint", "--away", "1,1", "--json")
    assert out["state"] == "dmp"


@pytest.mark.slow
def test_takepoint_text_and_matrix(capsys, tmp_path):
    assert main(["takepoint", "--away", "3,5", "--cube", "2", "--gammons", "0.2,0.2"]) == 0
    text = capsys.readouterr().out
    assert "take point, dead" in text and "gammon value" in text
    png = tmp_path / "m.png"
    assert main(["takepoint", "--length", "7", "--matrix", "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "30.2" in text and "22.6" in text  # 3a/3a dead and live
    assert png.stat().st_size > 1000
    out = run_json(capsys, "takepoint", "--length", "5", "--matrix", "--json")
    assert out["cube"] == 1 and len(out["rows"]) == 25
    png2 = tmp_path / "w.png"
    assert main(["takepoint", "--away", "4,6", "--plot", str(png2)]) == 0
    capsys.readouterr()
    assert png2.stat().st_size > 1000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--length", "5", "--score", "5-2"], "not a running score"),
        (["--length", "5", "--score", "1-7"], "not a running score"),
        (["--away", "3,3", "--cube", "3"], "power of two"),
        (["--away", "3,3", "--gammons", "1.2,0.1"], "[0, 1]"),
        (["--away", "3,3", "--gammons", "0.1,0.1", "--backgammons", "0.2,0"], "above"),
        (["--away", "3,3", "--crawford"], "Crawford"),
        (["--away", "3,3", "--post-crawford"], "post-Crawford"),
        (["--away", "0,3"], "at least 1"),
        (["--matrix"], "--length"),
        (["--away", "3,3", "--met", "nonesuch"], "unknown"),
    ],
)
def test_takepoint_errors(capsys, argv, message):
    assert main(["takepoint", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cube_money(capsys):
    out = run_json(capsys, "cube", "money", "--gammons", "0.2,0.2", "--json")
    assert out["state"] == "money"
    for key in ("take", "beaver", "raccoon", "initial_double", "redouble", "cash", "too_good"):
        assert set(out[key]) == {"dead", "live", "x"}
    assert round(100 * out["take"]["dead"], 3) == 29.167
    assert round(100 * out["too_good"]["live"], 3) == 75.862
    out = run_json(capsys, "cube", "money", "--cube-life", "0.68", "--json")
    assert out["take"]["x"] == pytest.approx(0.5 / 2.34)
    assert main(["cube", "money", "--gammons", "0.3,0.1", "--jacoby", "--beavers"]) == 0
    assert "initial double" in capsys.readouterr().out
    assert main(["cube", "money", "--cube-life", "2"]) == 2
    assert "cube life" in capsys.readouterr().err


def test_cube_decide(capsys):
    out = run_json(capsys, "cube", "decide", "--probs", "0.9,0.5,0.02,0.01,0", "--json")
    assert out["action"].startswith("too good")
    out = run_json(
        capsys, "cube", "decide", "--probs", "0.72,0.2,0.01,0.05,0.002", "--away", "3,5", "--json"
    )
    assert out["unit"] == "mwc" and set(out["emg"]) == {"no_double", "double_take", "double_pass"}
    assert main(["cube", "decide", "--probs", "0.7,0.8,0,0,0"]) == 2
    capsys.readouterr()


@pytest.mark.slow
def test_plots_return_axes():
    df = score_matrix(KXG2, 6, cubes=(1, 2), cube_life=0.5)
    _, axes = plt.subplots(2, 3)
    assert plots.cube_point_heatmap(df, "take_dead", ax=axes[0, 0]) is axes[0, 0]
    assert plots.cube_point_heatmap(df, "double", cube=2, ax=axes[0, 1]) is axes[0, 1]
    assert plots.cube_point_heatmap(df, "gammon_value", ax=axes[0, 2]) is axes[0, 2]
    sp = match.points(KXG2, (3, 5), gammons=(0.25, 0.2))
    assert plots.market_window_bars(sp, ax=axes[1, 0]) is axes[1, 0]
    assert plots.take_point_vs_gammon_rate(KXG2, (3, 5), ax=axes[1, 1]) is axes[1, 1]
    assert plots.take_point_vs_cube_life(ax=axes[1, 2], gammons=(0.2, 0.2)) is axes[1, 2]
    ax = plots.take_point_vs_cube_life(KXG2, (5, 7))
    assert len(ax.lines) == 1
    ax2 = plots.take_point_vs_gammon_rate(KXG2, (4, 4), side="taker")
    assert len(ax2.lines) == 2
    plt.close("all")
