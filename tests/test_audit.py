"""The cube audit of real matches (mathbg.analysis.audit).

References: gnubg 1.07's own ``analyse match`` (tests/gnubg_match_peer.py) decision by
decision; the published Kazaross-XG2 table for the exact cases; gnubg's category names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mathbg.analysis import audit
from mathbg.analysis.match_audit import DECISION_COLUMNS, DoublerValues, judge
from mathbg.cube.decisions import classify
from mathbg.errors import InvalidParameterError
from mathbg.met import as_met
from mathbg.rules.match import MatchState

DATA = Path(__file__).parent / "data" / "matches"
FIVE = DATA / "match10014006.txt"  # 5-point match, 3 games, 2 doubles
SEVEN = DATA / "match2287710.txt"  # 7-point match, long, 8 doubles


# ----------------------------------------------------------------------------- judging


def _values(nd: float, dt: float, dp: float, action: str) -> DoublerValues:
    # EMG on a scale where MWC 0 -> -1 and MWC 1 -> +1 (any affine map works for errors)
    return DoublerValues(action, nd, dt, dp, (2 * nd - 1, 2 * dt - 1, 2 * dp - 1), None, None,
                         0.68)


def test_judge_roller() -> None:
    v = _values(0.60, 0.66, 0.70, "double, take")
    assert judge(v, "double", "double") == ("double", 0.0, 0.0, None)
    best, err, err_emg, cat = judge(v, "double", "no double")
    assert (best, cat) == ("double", "missed double")
    assert err == pytest.approx(0.06) and err_emg == pytest.approx(0.12)
    # double/pass: doubling is worth DP (the taker's best reply)
    v = _values(0.60, 0.80, 0.70, "double, pass")
    assert judge(v, "double", "no double")[1] == pytest.approx(0.10)
    # no double: a double costs ND - min(DT, DP)
    v = _values(0.60, 0.55, 0.70, "no double, take")
    best, err, _, cat = judge(v, "double", "double")
    assert (best, cat) == ("no double", "wrong double") and err == pytest.approx(0.05)
    # too good: doubling cashes DP instead of playing on for ND
    v = _values(0.80, 0.85, 0.75, "too good, pass")
    best, err, _, cat = judge(v, "double", "double")
    assert (best, cat) == ("no double", "wrong double (too good)")
    assert err == pytest.approx(0.05)


def test_judge_taker() -> None:
    v = _values(0.60, 0.66, 0.70, "double, take")  # DT < DP: take
    assert judge(v, "take", "take") == ("take", 0.0, 0.0, None)
    best, err, err_emg, cat = judge(v, "take", "pass")
    assert (best, cat) == ("take", "wrong pass")
    assert err == pytest.approx(0.04) and err_emg == pytest.approx(0.08)
    v = _values(0.60, 0.75, 0.70, "double, pass")
    best, err, _, cat = judge(v, "take", "take")
    assert (best, cat) == ("pass", "wrong take") and err == pytest.approx(0.05)
    assert judge(v, "take", "beaver")[3] == "wrong take"
    with pytest.raises(InvalidParameterError):
        judge(v, "take", "no double")


def test_cube_access() -> None:
    # 5-point match at 0-0, centred: both may double
    m = MatchState(length=5, score=(0, 0))
    assert m.cube_available(0) and m.cube_available(1)
    # the opponent owns the cube
    m = MatchState(length=5, score=(0, 0), cube=2, cube_owner=1)
    assert not m.cube_available(0) and m.cube_available(1)
    # Crawford game: nobody; post-Crawford: the trailer only
    assert not MatchState(length=5, score=(4, 2), crawford=True).cube_available(1)
    post = MatchState(length=5, score=(4, 2))
    assert post.cube_available(1) and not post.cube_available(0)
    # dead cube: the roller needs no more than the cube (2-away on a 2-cube)
    m = MatchState(length=5, score=(3, 0), cube=2, cube_owner=0)
    assert not m.cube_available(0)
    # the cube limit
    m = MatchState(length=0, cube=4, cube_owner=0)
    assert m.cube_available(0) and not m.cube_available(0, cube_limit=4)


# ----------------------------------------------------------------------------- exact


def _last_roll_successes(x: int, y: int) -> int:
    """Rolls (of 36) that bear off two checkers on points x >= y: each die takes one
    checker (the larger die the higher one), a double moves four times."""
    ok = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                ok += -(-x // a) - (-y // a) <= 4
            else:
                ok += max(a, b) >= x and min(a, b) >= y
    return ok


@pytest.mark.slow
def test_hand_built_missed_double_in_a_last_roll_bearoff() -> None:
    """A hand-built 5-point match: a race played to the last roll, where Alice (two
    checkers on her 2-point, Bob one on his ace and sure to finish) rolls without
    doubling at 0-0. The exact answer is arithmetic on the Kazaross-XG2 table: with p her
    chance to bear off both, no double = p W1 + (1-p) L1, double/take = p W2 + (1-p) L2,
    double/pass = W1 (W_k / L_k: MWC after winning / losing k points); Bob's redouble or
    pass after a miss changes nothing (he wins the cube either way)."""
    res = audit(DATA / "handbuilt_last_roll.mat", engine="auto")
    d = res.decisions[-1]
    assert (d.game, d.move, d.player, d.kind, d.taken) == (1, 37, "Alice", "double",
                                                           "no double")  # fmt: skip
    assert d.away == (5, 5) and d.cube == 1 and d.owner == "centre"
    met = as_met("kazaross-xg2")
    w1, w2 = met.mwc((4, 5)), met.mwc((3, 5))
    l1, l2 = 1 - w1, 1 - w2
    p = _last_roll_successes(2, 2) / 36
    assert p == 26 / 36
    nd, dt, dp = p * w1 + (1 - p) * l1, p * w2 + (1 - p) * l2, w1
    assert nd < dt < dp  # double, take: doubling is right, Bob should take
    ex = d.values.exact
    assert ex is not None and str(ex.action) == "double, take"
    assert ex.no_double == pytest.approx(nd, abs=1e-12)
    assert ex.double_take == pytest.approx(dt, abs=1e-12)
    assert ex.double_pass == pytest.approx(dp, abs=1e-12)
    assert d.exact_best == "double" and d.exact_error_mwc == pytest.approx(dt - nd, abs=1e-12)
    # the approximation (gnubg's rule in the two-sided database) agrees here exactly, to
    # its single precision
    assert (d.best, d.category) == ("double", "missed double")
    assert d.error_mwc == pytest.approx(dt - nd, abs=1e-7)
    # EMG: 2 (MWC - L1) / (W1 - L1) - 1, so no double is 2p - 1
    assert d.values.emg[0] == pytest.approx(2 * p - 1, abs=1e-6)
    assert d.error_emg == pytest.approx(2 * (dt - nd) / (w1 - l1), abs=1e-6)
    # every other decision of the game is a roller's "no double" (the cube never moved)
    assert all(x.kind == "double" and x.taken == "no double" for x in res.decisions)


# ----------------------------------------------------------------------------- results


@pytest.mark.extra("engine")
def test_audit_json_schema() -> None:
    res = audit(FIVE, engine="gnubg-nn")
    out = res.as_dict()
    (m,) = out["matches"]
    assert m["length"] == 5 and m["players"] == ["lasse", "leon77"]
    assert m["engine"]["name"] == "gnubg-nn" and m["engine"]["plies"] == 0
    assert m["engine"]["requested"] == "gnubg-nn" and m["engine"]["version"]
    assert m["met"] == "kazaross-xg2"
    assert set(m["rules"]) >= {"crawford", "jacoby", "beavers", "cube_limit"}
    assert [g["game"] for g in m["games"]] == [1, 2, 3]
    assert m["games"][0] == {"game": 1, "score": [0, 0], "winner": "leon77", "points": 2,
                             "result": "single", "cube": 2}  # fmt: skip
    keys = {"game", "move", "player", "position_id", "match_id", "away", "cube", "owner",
            "kind", "taken", "best", "action", "mwc", "equities", "error_emg", "error_mwc",
            "category", "mark", "exact"}  # fmt: skip
    for d in m["decisions"]:
        assert set(d) == keys
        assert set(d["equities"]) == {"no_double", "double_take", "double_pass"}
        assert d["taken"] in (("no double", "double") if d["kind"] == "double"
                              else ("take", "pass", "beaver"))  # fmt: skip
        assert d["best"] in (("no double", "double") if d["kind"] == "double"
                             else ("take", "pass"))  # fmt: skip
        assert (d["category"] is None) == (d["error_emg"] <= 1e-9)
    assert set(m["summary"]) == {"lasse", "leon77"}
    s = m["summary"]["lasse"]
    assert s["decisions"] == sum(d["player"] == "lasse" for d in m["decisions"])
    assert s["errors"] == sum(d["player"] == "lasse" and d["category"] is not None
                              for d in m["decisions"])  # fmt: skip
    assert s["cube_loss_per_decision"] == pytest.approx(
        1000 * sum(d["error_emg"] for d in m["decisions"] if d["player"] == "lasse")
        / s["decisions"])  # fmt: skip
    from mathbg._output import dumps

    json.loads(dumps(out))  # JSON-clean (no NaN)
    frame = res.to_frame()
    assert list(frame.columns) == list(DECISION_COLUMNS)
    assert len(frame) == len(m["decisions"]) + len(m["plays"])
    assert (frame["kind"] == "move").sum() == len(m["plays"]) > 0


@pytest.mark.extra("engine")
def test_audit_player_filter_and_errors() -> None:
    res = audit(FIVE, engine="gnubg-nn", player="LASSE", exact=False)
    assert {d.player for d in res.decisions} == {"lasse"}
    with pytest.raises(InvalidParameterError, match="nobody"):
        audit(FIVE, engine="gnubg-nn", player="nobody")


@pytest.mark.extra("engine")
@pytest.mark.slow
def test_compare_met_lists_exactly_the_changed_verdicts() -> None:
    first = audit(SEVEN, engine="gnubg-nn", exact=False, checker=False).to_frame()
    second = audit(SEVEN, engine="gnubg-nn", met="woolsey", exact=False, checker=False).to_frame()
    res = audit(SEVEN, engine="gnubg-nn", compare_met="woolsey", exact=False, checker=False)
    changed = (first["best"] != second["best"]) | (
        first["category"].fillna("") != second["category"].fillna(""))
    expected = list(zip(first[changed]["game"], first[changed]["move"],
                        first[changed]["kind"], second[changed]["best"], strict=True))
    got = [(c.game, c.move, c.kind, c.compare_best) for c in res.matches[0].compare]
    assert got == expected
    assert res.as_dict()["matches"][0]["compare"]["met"] == "woolsey"


# ----------------------------------------------------------------------------- gnubg


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow
@pytest.mark.parametrize("path", [FIVE, SEVEN, DATA / "match1032950.txt"], ids=lambda p: p.stem)
def test_gnubg_engine_equals_gnubg_analyse_match(gnubg, path: Path) -> None:
    """With the gnubg engine at 0-ply, every cube decision's values and best action are
    gnubg 1.07's own ``analyse match`` (its single-precision floats: 2e-5)."""
    from gnubg_match_peer import cube_decisions, gnubg_match_dict

    ref = cube_decisions(gnubg_match_dict(gnubg, path, plies=0))
    res = audit(path, engine="gnubg", plies=0, exact=False)
    ours = res.decisions
    assert len(ours) == len(ref)
    met = as_met("kazaross-xg2")
    del met
    for d, r in zip(ours, ref, strict=True):
        assert (d.game, d.kind, d.taken, d.position_id) == (r["game"], r["kind"], r["taken"],
                                                            r["position_id"])  # fmt: skip
        v = d.values
        assert v.no_double == pytest.approx(r["no_double"], abs=2e-5)
        assert v.double_take == pytest.approx(r["double_take"], abs=2e-5)
        # gnubg's best from its own values (the double/pass MWC is the MET's)
        nd, dt, dp = r["no_double"], r["double_take"], v.double_pass
        if min(abs(nd - min(dt, dp)), abs(dt - dp)) > 1e-4:  # not a tie within rounding
            if d.kind == "double":
                assert d.best == ("double" if min(dt, dp) >= nd else "no double")
            else:
                assert d.best == ("take" if dt <= dp else "pass")


@pytest.mark.extra("engine")
@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow
def test_gnubg_nn_within_engine_distance(gnubg) -> None:
    """gnubg-nn's networks are not 1.07's (docs: mean win difference 0.001 in contact):
    the values stay within a few tenths of a percent and the verdicts agree almost
    everywhere."""
    from gnubg_match_peer import cube_decisions, gnubg_match_dict

    ref = cube_decisions(gnubg_match_dict(gnubg, SEVEN, plies=0))
    ours = audit(SEVEN, engine="gnubg-nn", exact=False).decisions
    assert len(ours) == len(ref)
    diffs = [abs(d.values.no_double - r["no_double"]) for d, r in zip(ours, ref, strict=True)]
    assert sum(diffs) / len(diffs) < 0.003 and max(diffs) < 0.03
    agree = sum(d.best == ("double" if min(r["double_take"], d.values.double_pass)
                           >= r["no_double"] else "no double")
                for d, r in zip(ours, ref, strict=True) if d.kind == "double")  # fmt: skip
    n = sum(d.kind == "double" for d in ours)
    assert agree >= 0.97 * n


# ----------------------------------------------------------------------------- properties

_mwc = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(_mwc, _mwc, _mwc, st.booleans())
def test_judge_properties(nd: float, dt: float, dp: float, gammons: bool) -> None:
    """For any values: errors are >= 0, the best decision costs nothing, the roller's best
    is "double" exactly when gnubg's classification doubles, and the error of the other
    decision is the value difference (the double worth min(DT, DP)). Without gammons a
    position cannot be worth more than cashing (ND <= DP; gnubg then names "too good" as
    double/pass)."""
    assume(gammons or nd <= dp)
    action = str(classify(nd, dt, dp, can_gammon=gammons, money=False))
    v = _values(nd, dt, dp, action)
    best = "double" if action.startswith("double") else "no double"
    value = {"no double": nd, "double": min(dt, dp)}
    for taken in ("no double", "double"):
        b, err, err_emg, cat = judge(v, "double", taken)
        assert b == best and err >= 0 and err_emg >= 0
        assert err == pytest.approx(value[best] - value[taken], abs=1e-12)
        assert (cat is None) == (err_emg <= 1e-9)
    for taken in ("take", "pass"):
        b, err, _, _ = judge(v, "take", taken)
        assert b == ("take" if dt <= dp else "pass")
        assert err == (0.0 if taken == b else pytest.approx(abs(dt - dp)))


@pytest.mark.extra("engine")
def test_money_session_with_a_beaver_option() -> None:
    """A money session (Jacoby, beavers): equities per unit cube, no MWC; when gnubg's
    action says beaver the taker's best answer is the beaver (2 DT to the doubler), and a
    plain take misses it by -DT (DT < 0 there)."""
    from mathbg.rules import record as r


    game = r.GameRecord(1, (0, 0), (
        r.Move(0, (3, 1), ((8, 5), (6, 5))), r.Double(1, 2), r.Take(0),
        r.Move(1, (3, 1), ((8, 5), (6, 5))), r.Move(0, (4, 2), ((8, 4), (6, 4))),
        r.Resign(1, 1), r.Accept(0)), r.GameOutcome(0, 2, "resign", 2, 1))  # fmt: skip
    rules = r.MatchRules(crawford=False, jacoby=True, beavers=True)
    record = r.MatchRecord(0, ("A", "B"), (game,), rules)
    res = audit(record, engine="gnubg-nn")
    double, take = res.decisions[:2]
    assert double.away is None and double.error_mwc is None and take.error_mwc is None
    assert double.taken == "double" and double.category == "wrong double"
    dt = take.values.double_take
    assert take.values.action == "no double, beaver" and -2.0 <= dt <= 0.0
    assert (take.best, take.category) == ("beaver", "missed beaver")
    assert take.error_emg == pytest.approx(dt - 2 * dt)
    assert res.matches[0].summary()["A"].mwc_lost is None


@pytest.mark.gnubg(kind="exact")
def test_auto_without_gnubg_nn_takes_the_native_engine_then_the_gnubg_program(
    gnubg, monkeypatch
) -> None:
    """The audit's ``auto`` on an install without the engine extra: at 0 plies the native
    engine (nothing to install); deeper the gnubg program (its own analysis of the match),
    recorded as such; without it mathbg's own 2-ply search, and deeper than that the error
    names the extra."""
    from mathbg.analysis import evaluation
    from mathbg.analysis.match_audit import resolve_engine
    from mathbg.errors import EngineNotAvailableError

    monkeypatch.setattr(evaluation, "gnubg_nn_installed", lambda: False)
    evaluator, info = resolve_engine("auto", None)
    assert (info.requested, info.name, info.plies) == ("auto", "native", 0)
    assert info.cube_step == "0-ply cube step"
    evaluator, info = resolve_engine("auto", 2)
    assert (evaluator.name, info.requested, info.name, info.plies) == ("gnubg", "auto", "gnubg", 2)
    assert info.cube_step == "gnubg's own cubeful analysis"
    monkeypatch.setattr(evaluation, "gnubg_program_installed", lambda: False)
    evaluator, info = resolve_engine("auto", 2)  # gnubg's n-ply analysis in mathbg's kernels
    assert (evaluator.name, info.name, info.plies) == ("native", "native", 2)
    with pytest.raises(EngineNotAvailableError, match=r"mathbg\[engine\]"):
        resolve_engine("auto", 3)


@pytest.mark.gnubg(kind="exact")
def test_auto_deeper_than_0_ply_takes_the_gnubg_program(gnubg, monkeypatch) -> None:
    """At 1 ply or more ``auto`` takes the gnubg program when it is installed (its pruned
    search, gnubg's own numbers); at 0 ply the native engine with the exact database;
    without the program mathbg's own n-ply search at 1 and 2 plies, gnubg-nn deeper."""
    pytest.importorskip("gnubg_nn")
    from mathbg.analysis import evaluation
    from mathbg.analysis.match_audit import resolve_engine

    for plies in (1, 2):
        info = resolve_engine("auto", plies)[1]
        assert (info.name, info.plies) == ("gnubg", plies)
    assert resolve_engine("auto", 0)[1].name == "native"
    monkeypatch.setattr(evaluation, "gnubg_program_installed", lambda: False)
    assert resolve_engine("auto", 2)[1].name == "native"  # mathbg's own n-ply search
    assert resolve_engine("auto", 3)[1].name == "gnubg-nn"


@pytest.mark.slow  # the exact two-sided database, built on first use
def test_money_cube_decision_inside_the_two_sided_database_sees_the_owned_cube(tmp_path) -> None:
    """A money session's cube decisions with the cube owned by the roller, inside the
    two-sided database: no double is the database's value of the owned cube and
    double/take twice the taker's (gnubg's rule; the audit took every money cube as
    centred, 0.04 too low here)."""
    import dataclasses
    import re
    import warnings

    import numpy as np

    from mathbg.analysis.base import evaluation_class
    from mathbg.bearoff import TwoSided
    from mathbg.errors import MathbgWarning
    from mathbg.rules.formats import read_match
    from mathbg.rules.position import Position

    path = tmp_path / "money.txt"
    path.write_text(re.sub(r"(?m)^ *\d+ point match", " 0 point match",
                           (DATA / "match1071157.txt").read_text()))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MathbgWarning)
        rec = read_match(path)
    rec = dataclasses.replace(rec, rules=dataclasses.replace(rec.rules, jacoby=True))
    db = TwoSided.largest(cubeful=True) or TwoSided.build(6, 6)
    owned = 0
    for exact in (False, True):
        for d in audit(rec, engine="auto", exact=exact, take_points=False).decisions:
            pos = Position.from_id(d.position_id)
            if d.kind != "double" or evaluation_class(pos) != "two-sided bearoff":
                continue
            cells = np.frombuffer(pos.cells, np.uint8).astype(np.int64)
            v = db.values(cells[25:31], cells[0:6])
            column = {"centre": 2, "player": 1, "opponent": 3}[d.owner]
            assert d.values.no_double == pytest.approx(float(v[column]), abs=1e-12)
            assert d.values.double_take == pytest.approx(2 * float(v[3]), abs=1e-12)
            owned += d.owner == "player"
    assert owned >= 2


def test_the_audit_keeps_the_exact_solutions_on_disk_and_reads_them_back(tmp_path, monkeypatch):
    """``disk_cache`` (what ``mathbg audit`` sets): the first audit writes the score's exact
    bearoff solution to the cache directory, a later process reads it instead of solving,
    and the exact values are the same."""
    from mathbg.analysis import get_evaluator
    from mathbg.bearoff.exact import match as M

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    M._MEMORY.clear()
    chances = get_evaluator("given", probabilities=[0.7, 0.0, 0.0, 0.0, 0.0])
    path = DATA / "handbuilt_last_roll.mat"
    first = audit(path, engine=chances, checker=False, take_points=False, disk_cache=True)
    assert list((tmp_path / "bearoff" / "match").glob("match-*.npz"))
    M._MEMORY.clear()

    def refuse(*args, **kwargs):
        raise AssertionError("solved again instead of read")

    monkeypatch.setattr(M, "solve_game", refuse)
    again = audit(path, engine=chances, checker=False, take_points=False, disk_cache=True)
    exact = [d.values.exact for d in first.decisions]
    assert exact[-1] is not None and str(exact[-1].action) == "double, take"
    assert [d.values.exact for d in again.decisions] == exact
    M._MEMORY.clear()
