"""Tests of mathbg.analysis: the score matrix of a position, its JSON and its CLI.

Reference numbers come from theory-and-sources.md: Janowski's money take points (25 %
dead, 21.43 % at x = 2/3, gammonless), the dead gammonless take points of Kazaross-XG2
(taker x-away, doubler y-away) and the live 3-away/3-away take point 22.65 %.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mathbg.met as metmod
from mathbg.analysis import analyze, analyze_many, get_evaluator, position_matrix
from mathbg.analysis import evaluation as evmod
from mathbg.analysis.evaluation import EngineNotAvailableError, evaluation_class
from mathbg.analysis.matrix import COLUMNS, matrix_states
from mathbg.cli import main
from mathbg.cube.cubeful import cube_decision
from mathbg.errors import InvalidParameterError, InvalidPositionError, InvalidScoreError
from mathbg.rules.position import Position

KXG2 = metmod.load("kazaross-xg2")
START = "4HPwATDgc/ABMA"
PROBS = (0.70, 0.20, 0.01, 0.05, 0.002)
GAMMONLESS = (0.7, 0.0, 0.0, 0.0, 0.0)
#: Match IDs (built with MatchState(...).id): 7-point match at 3-2 with player 1 (the
#: side on roll) on 2; 5-point match at 4-2, the Crawford game, player 1 on roll on 2.
SCORED = "cAngADAAEAAA"
CRAWFORD = "8AmgAEAAEAAA"


def _row(an, away, opp_away, cube=1, crawford=False):
    (row,) = [r for r in an.rows if r.away == (away, opp_away)
              and r.cube == cube and r.crawford == crawford]  # fmt: skip
    return row


# ----------------------------------------------------------------------------- states


@pytest.mark.parametrize("n", [1, 2, 3, 7, 11])
def test_matrix_states_count(n):
    # n*n scores, and the 2(n-1) scores with exactly one side 1-away twice (Crawford, post)
    states = matrix_states(n)
    assert len(states) == n * n + 2 * (n - 1)
    assert len({(s.away, s.crawford) for s in states}) == len(states)


def test_matrix_states_cube_levels():
    # a roller-owned cube c only where the roller needs more than c and the opponent
    # needed more than c/2 (it doubled to c); never at 1-away scores
    states = matrix_states(7, max_cube=64)
    for s in states:
        if s.cube > 1:
            a, b = s.away
            assert s.owner == "player" and a > s.cube and 2 * b > s.cube and b > 1
    assert max(s.cube for s in states) == 4  # 8 needs a > 8
    assert {s.away for s in states if s.cube == 4} == {(a, b) for a in (5, 6, 7)
                                                       for b in (3, 4, 5, 6, 7)}  # fmt: skip
    with pytest.raises(InvalidParameterError):
        matrix_states(7, max_cube=3)


# ----------------------------------------------------------------------------- values


def test_rows_equal_the_cube_decision_at_each_state():
    an = analyze(START, length=5, probabilities=PROBS, max_cube=2)
    assert an.evaluation.engine == "given" and an.evaluation.cube_life == 0.68
    for row in an.rows:
        if row.state == "money":
            dec = cube_decision(PROBS, cube_life=0.68, jacoby=True, beavers=True)
        else:
            dec = cube_decision(PROBS, KXG2, row.away, cube=row.cube,
                                owner=row.owner, cube_life=0.68,
                                crawford=row.crawford)  # fmt: skip
        assert row.action == dec.action
        assert row.no_double == pytest.approx(dec.no_double, abs=1e-12)
        if dec.double_take is None:
            assert np.isnan(row.double_take) and np.isnan(row.take_point)
        else:
            assert row.double_take == pytest.approx(dec.double_take, abs=1e-12)
            assert row.optimal == pytest.approx(dec.optimal, abs=1e-12)


@pytest.mark.parametrize(
    ("doubler", "taker", "tp"),
    [
        (3, 3, 0.302),
        (3, 5, 0.287),
        (5, 2, 0.173),
        (7, 7, 0.252),
        (4, 6, 0.294),
        (6, 4, 0.258),
        (2, 2, 0.323),
    ],
)
def test_dead_gammonless_take_points_kxg2(doubler, taker, tp):
    # (the table's doubler-2-away entries assume the taker's automatic recube, which the
    # dead cube of gnubg's 0-ply blend (x = 0) does not make: not compared)
    an = analyze(START, length=7, probabilities=GAMMONLESS, cube_life=0.0)
    row = _row(an, doubler, taker)
    assert row.take_point == pytest.approx(tp, abs=6e-4)
    assert row.take_margin == pytest.approx(0.3 - row.take_point, abs=1e-12)


def test_live_take_point_3away_3away():
    an = analyze(START, length=3, probabilities=GAMMONLESS, cube_life=1.0)
    assert _row(an, 3, 3).take_point == pytest.approx(0.2265, abs=1e-4)


@pytest.mark.parametrize(("x", "tp"), [(0.0, 0.25), (2 / 3, 0.2142857), (1.0, 0.2)])
def test_money_take_point_janowski(x, tp):
    an = analyze(START, money=True, probabilities=GAMMONLESS, cube_life=x)
    (row,) = an.rows
    assert row.state == "money" and row.unit == "equity"
    assert row.take_point == pytest.approx(tp, abs=1e-6)


@settings(max_examples=15, deadline=None)
@given(
    w=st.floats(0.3, 0.95),
    g0=st.floats(0.0, 0.4),
    g1=st.floats(0.0, 0.4),
    x=st.sampled_from([0.0, 0.5, 0.68, 1.0]),
)
def test_take_margin_sign_is_the_take_decision(w, g0, g1, x):
    probs = (w, w * g0, w * g0 * 0.1, (1 - w) * g1, (1 - w) * g1 * 0.1)
    an = analyze(START, length=4, probabilities=probs, cube_life=x, max_cube=2)
    for row in an.rows:
        if np.isnan(row.take_point):
            continue
        gap = row.double_pass - row.double_take  # > 0: taking is better for the taker
        if abs(gap) > 1e-9 and abs(row.take_margin) > 1e-9:
            assert (row.take_margin > 0) == (gap > 0), row


# ----------------------------------------------------------------------------- engines


@pytest.mark.slow  # 28 s of CPU on a cold numba cache (the exact and race engines)
def test_engine_choice_and_errors(monkeypatch):
    race = Position.from_counts({6: 5, 8: 5, 10: 5}, {6: 5, 8: 5, 9: 5})
    bearoff = Position.from_counts({1: 2, 3: 2}, {2: 3})
    assert evaluation_class(race) == "race" and evaluation_class(bearoff) == "two-sided bearoff"
    assert evaluation_class(Position.from_id(START)) == "contact"
    ev = get_evaluator("auto")
    assert ev.evaluate(race).engine == "race"
    assert ev.evaluate(bearoff).engine == "exact" and ev.evaluate(bearoff).exact
    assert ev.evaluate(race).cube_life == pytest.approx(0.55 + 0.00125 * race.pips()[0])
    with pytest.raises(EngineNotAvailableError, match="race engine"):
        get_evaluator("race").evaluate(Position.from_id(START))
    with pytest.raises(EngineNotAvailableError, match="exact engine"):
        get_evaluator("exact").evaluate(race)
    monkeypatch.setattr(evmod, "gnubg_nn_installed", lambda: False)
    monkeypatch.setattr(evmod, "gnubg_program_installed", lambda: False)
    # at 0 plies auto's contact engine is the native one (nothing to install); deeper it
    # needs gnubg-nn or the gnubg program
    assert get_evaluator("auto").evaluate(Position.from_id(START)).engine == "native"
    with pytest.raises(EngineNotAvailableError, match=r"mathbg\[engine\]"):
        get_evaluator("auto", plies=1).evaluate(Position.from_id(START))
    with pytest.raises(EngineNotAvailableError, match="gnubg-nn"):
        get_evaluator("gnubg-nn")
    with pytest.raises(InvalidParameterError):
        get_evaluator("nope")
    with pytest.raises(InvalidParameterError):
        get_evaluator("given")
    with pytest.raises(InvalidParameterError, match="plies"):
        get_evaluator("exact", plies=2)


def test_bad_inputs():
    with pytest.raises(InvalidParameterError):
        analyze(START, length=5, probabilities=(0.7, 0.8, 0, 0, 0))  # WG > W
    with pytest.raises(InvalidPositionError, match="game is over"):
        analyze(Position.from_counts({}, {1: 1}), length=5, probabilities=GAMMONLESS)
    with pytest.raises(InvalidScoreError, match="under the current score"):
        analyze(START + ":" + SCORED, length=3, probabilities=GAMMONLESS)
    with pytest.raises(InvalidScoreError):
        analyze(START, probabilities=GAMMONLESS)  # no length, no money, no Match ID


# ----------------------------------------------------------------------------- output


def test_json_contract_and_current_score():
    # 4HPwATDgc/ABMA:cAmgAAAAAAAA: 5-point match at 0-0
    an = analyze(START + ":cAmgAAAAAAAA", probabilities=PROBS, compare_met="woolsey")
    out = json.loads(json.dumps(an.as_dict()))
    assert out["position"] == START and out["length"] == 5
    assert out["engine"] == {"name": "given", "plies": None}
    names = ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"]
    assert out["probabilities"] == dict(zip(names, PROBS, strict=True))
    keys = {"away", "crawford", "cube", "owner", "action", "no_double", "double_take",
            "double_pass", "optimal", "emg", "take_point", "exact"}  # fmt: skip
    assert len(out["scores"]) == 25 + 8
    for s in out["scores"]:
        assert keys <= set(s)
        assert s["owner"] in ("centre", "player") and s["exact"] is None
        assert s["crawford"] == (s["state"] == "crawford")
        if s["action"] == "cube not available":
            assert s["double_take"] is None and s["take_point"] is None
        else:
            assert 0 <= s["no_double"] <= 1 and 0 <= s["double_take"] <= 1
    current = [s for s in out["scores"] if s["current"]]
    assert [c["away"] for c in current] == [[5, 5]]
    assert out["money"]["away"] is None and out["money"]["unit"] == "equity"
    assert out["compare"]["met"] == "woolsey"


def test_current_score_from_the_match_id():
    an = analyze(START + ":" + SCORED, probabilities=PROBS)
    assert an.length == 7 and an.current == ((5, 4), False)
    assert [r.away for r in an.rows if r.current] == [(5, 4)]
    an = analyze(START + ":" + CRAWFORD, probabilities=PROBS)
    assert an.current == ((3, 1), True)
    (cur,) = [r for r in an.rows if r.current]
    assert cur.crawford and cur.action == "cube not available"
    longer = analyze(START + ":" + SCORED, length=9, probabilities=PROBS)
    assert longer.current == ((7, 6), False)
    # a cube the matrix does not list: the opponent's 2-cube gets its own (current) row
    from mathbg.rules.match import MatchState

    owned = MatchState(length=7, score=(3, 2), on_roll=1, cube=2, cube_owner=0).id
    an = analyze(START + ":" + owned, probabilities=PROBS)
    (cur,) = [r for r in an.rows if r.current]
    assert (*cur.away, cur.cube, cur.owner) == (5, 4, 2, "opponent")
    assert cur.action == "cube not available"


def test_a_money_id_s_cube_state_gets_its_own_current_money_row(capsys):
    """A money Match ID with a cube owned: its money row beside the centred one, marked.
    Dead cubes (cube life 0) make the values theory's: the centred cube under the Jacoby
    rule is worth 2W - 1 (gammons do not count), an owned cube the cubeless equity
    2W - 1 + WG - LG + WB - LB, and doubled twice that (a double, take: under the pass's
    1); the opponent's cube leaves no decision."""
    from mathbg.rules.match import MatchState

    probs = [0.6, 0.2, 0.02, 0.1, 0.01]
    cubeless = 2 * 0.6 - 1 + 0.2 - 0.1 + 0.02 - 0.01
    for owner, action in ((1, "double, take"), (0, "cube not available")):  # roller: side 1
        mid = MatchState(length=0, score=(0, 0), on_roll=1, cube=2, cube_owner=owner).id
        an = analyze(START + ":" + mid, probabilities=probs, cube_life=0.0)
        centred, own = an.rows
        assert (centred.cube, centred.owner, centred.current) == (1, "centre", False)
        assert (own.cube, own.owner, own.current) == (2, "player" if owner else "opponent",
                                                      True)  # fmt: skip
        assert centred.no_double == pytest.approx(2 * 0.6 - 1, abs=1e-12)
        assert own.no_double == pytest.approx(cubeless, abs=1e-12)
        assert str(own.action) == action
        if owner:
            assert own.double_take == pytest.approx(2 * cubeless, abs=1e-12)
            assert own.double_pass == 1.0
        else:
            assert np.isnan(own.take_point) and np.isnan(own.double_take)
        code, out, _ = _cli(capsys, START + ":" + mid, "--probs", "0.6,0.2,0.02,0.1,0.01",
                              "--cube-life", "0", "--json")  # fmt: skip
        data = json.loads(out)
        assert code == 0 and data["money"]["owner"] == "centre" and not data["money"]["current"]
        assert data["money_current"]["cube"] == 2 and data["money_current"]["current"]
    centred_id = MatchState(length=0, score=(0, 0), on_roll=1, cube=1, cube_owner=None).id
    (row,) = analyze(START + ":" + centred_id, probabilities=probs).rows
    assert row.current and row.owner == "centre"


def test_a_money_id_s_rules_hold_for_the_money_rows(capsys):
    """An XGID's rules field (bit 0 the Jacoby rule, bit 1 beavers) and a Match ID's Jacoby
    flag hold for the money rows, as for a rollout of the same ID; the options only turn a
    rule off. Dead cubes make the values theory's: without the Jacoby rule a centred cube is
    worth the cubeless equity 2W - 1 + WG - LG + WB - LB, with it 2W - 1; a take with the
    taker ahead after it (the doubled cubeless equity below 0) is a beaver when allowed."""
    from mathbg.rules.match import MatchState

    probs = [0.6, 0.2, 0.02, 0.1, 0.01]
    gammons = 2 * 0.6 - 1 + 0.2 - 0.1 + 0.02 - 0.01
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{}:0:10"
    for field, jacoby, beavers in ((0, False, False), (1, True, False), (2, False, True),
                                   (3, True, True)):  # fmt: skip
        an = analyze(xgid.format(field), probabilities=probs, cube_life=0.0)
        (row,) = an.rows
        assert an.money_rules == (jacoby, beavers) == (row.jacoby, row.beavers)
        frame = an.to_frame()  # and so the CSV of a batch
        assert (bool(frame["jacoby"][0]), bool(frame["beavers"][0])) == (jacoby, beavers)
        assert row.no_double == pytest.approx(2 * 0.6 - 1 if jacoby else gammons, abs=1e-12)
        behind = analyze(xgid.format(field), probabilities=[0.4, 0, 0, 0, 0], cube_life=0.0)
        assert str(behind.rows[0].action) == ("no double, beaver" if beavers
                                              else "no double, take")  # fmt: skip
    an = analyze(xgid.format(3), probabilities=probs, cube_life=0.0, jacoby=False)
    assert an.money_rules == (False, True)  # an option turns a rule off
    off = MatchState(jacoby=False).id
    assert analyze(f"{START}:{off}", probabilities=probs).money_rules == (False, True)
    # a match ID's money row keeps the options' rules (its rules field is the Crawford flag)
    scored = analyze(START + ":" + SCORED, probabilities=probs)
    assert scored.money_rules == (True, True)
    assert {(r.jacoby, r.beavers) for r in scored.rows if r.away is not None} == {(None, None)}
    code, out, _ = _cli(capsys, xgid.format(0), "--probs", "0.6,0.2,0.02,0.1,0.01", "--json")
    assert code == 0 and json.loads(out)["money_rules"] == {"jacoby": False, "beavers": False}
    code, out, _ = _cli(capsys, xgid.format(0), "--probs", "0.6,0.2,0.02,0.1,0.01")
    assert "money play: no Jacoby rule, no beavers" in out.splitlines()


def test_met_sensitivity_lists_every_changed_row():
    an = analyze(START, length=7, probabilities=(0.72, 0.22, 0.01, 0.06, 0.002),
                 compare_met="woolsey", max_cube=2)  # fmt: skip
    other = analyze(START, length=7, probabilities=(0.72, 0.22, 0.01, 0.06, 0.002),
                    met="woolsey", max_cube=2)  # fmt: skip
    changed = {(*r.away, r.crawford, r.cube)
               for r, o in zip(an.rows, other.rows, strict=True)
               if r.state != "money" and r.action != o.action}  # fmt: skip
    ch = an.met_changes()
    assert {(r.away, r.opp_away, r.crawford, r.cube) for r in ch.itertuples()} == changed
    assert len(changed) > 0
    same = analyze(START, length=7, probabilities=PROBS, compare_met="kazaross-xg2")
    assert same.met_changes().empty


def test_frame_is_tidy():
    frame = position_matrix(START, length=7, probabilities=PROBS, max_cube=2)
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 1 + len(matrix_states(7, 2))
    assert not frame.duplicated(["away", "opp_away", "crawford", "cube", "owner"]).any()


def test_batch_vectorised_equals_one_by_one():
    pos = [START, "4HPwATCwt8EBMA", "jGfkATDg8+ABUA"]
    probs = [(0.6, 0.15, 0.01, 0.1, 0.003), (0.7, 0.2, 0.01, 0.05, 0.0), (0.45, 0.1, 0, 0.2, 0)]
    from mathbg.analysis.evaluation import GivenEvaluator

    evs = [GivenEvaluator(p).evaluate(Position.from_id(i)) for p, i in zip(probs, pos, strict=True)]
    many = analyze_many(pos, length=5, evaluations=evs, max_cube=2)
    for i, p, m in zip(pos, probs, many, strict=True):
        one = analyze(i, length=5, probabilities=p, max_cube=2)
        for a, b in zip(one.rows, m.rows, strict=True):
            assert a.action == b.action
            assert a.optimal == pytest.approx(b.optimal, abs=1e-12)


def test_plot_grid():
    import matplotlib

    matplotlib.use("Agg")
    from mathbg.plots import cube_action_grid

    an = analyze(START, length=5, probabilities=PROBS, max_cube=2)
    ax = cube_action_grid(an)
    img = ax.images[0].get_array()
    assert img.shape == (5, 5)
    assert len(ax.texts) == int(np.isfinite(an.to_frame().query(
        "cube == 1 and not crawford and state != 'money'")["take_margin"]).sum())  # fmt: skip
    ax2 = cube_action_grid(an, cube=2)
    assert np.ma.getmaskarray(ax2.images[0].get_array())[0].all()  # no 2-cube at 1-away


# ----------------------------------------------------------------------------- CLI


def _cli(capsys, *argv):
    code = main(["analyze", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json(capsys):
    code, out, err = _cli(capsys, START, "--length", "3", "--probs", "0.7,0.2,0.01,0.05,0.002",
                          "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["engine"]["name"] == "given" and len(data["scores"]) == 9 + 4
    code, out, _ = _cli(capsys, START, "--length", "3", "--probs", "0.7,0.2,0.01,0.05,0.002",
                        "--json", "--decimals", "3")  # fmt: skip
    assert code == 0 and json.loads(out)["scores"][-1]["no_double"] * 1000 % 1 == 0


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["AAAAAAAAAAAAAA", "--length", "5", "--probs", "0.5,0,0,0,0"], "Position ID"),
        (["//////////AAAA", "--length", "5", "--probs", "0.5,0,0,0,0"], "invalid"),
        (["AwAAAAAAAAAAAA", "--length", "5", "--probs", "0.5,0,0,0,0"], "game is over"),
        ([START + ":cAngADAAEAAA", "--length", "3", "--probs", "0.5,0,0,0,0"], "under"),
        ([START, "--length", "5", "--probs", "0.5,0.6,0,0,0"], "inconsistent"),
        ([START, "--length", "5", "--engine", "race"], "contact"),
        ([START, "--length", "5", "--probs", "1,2"], "W,WG,WB,LG,LB"),
        ([START, "--length", "5", "--max-cube", "3", "--probs", "0.5,0,0,0,0"], "power of two"),
    ],
)
def test_cli_bad_input_one_line_exit_2(capsys, argv, needle):
    code, _, err = _cli(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_cli_engine_not_installed(capsys, monkeypatch):
    monkeypatch.setattr(evmod, "gnubg_nn_installed", lambda: False)
    code, _, err = _cli(capsys, START, "--length", "5", "--engine", "gnubg-nn")
    assert code == 2 and "pip install 'mathbg[engine]'" in err and err.count("\n") == 1


def test_cli_batch_csv(capsys, tmp_path):
    import pandas as pd

    ids = tmp_path / "ids.txt"
    ids.write_text(f"# three positions\n{START}\n4HPwATCwt8EBMA\n\n{START}:cAmgAAAAAAAA\n")
    out = tmp_path / "out.csv"
    code, _, err = _cli(capsys, "--file", str(ids), "--length", "5", "--probs",
                        "0.6,0.15,0.01,0.1,0.003", "--csv", str(out))  # fmt: skip
    assert code == 0, err
    frame = pd.read_csv(out)
    assert len(frame) == 3 * (1 + len(matrix_states(5)))
    text = out.read_text()
    assert "nan" not in text.lower()  # not applicable: an empty cell
    assert frame["position"].nunique() == 2
    ids.write_text(f"{START}\nnot-an-id\n")
    code, _, err = _cli(capsys, "--file", str(ids), "--length", "5", "--probs",
                        "0.6,0.15,0.01,0.1,0.003", "--csv", str(out))  # fmt: skip
    assert code == 2 and "line 2" in err
