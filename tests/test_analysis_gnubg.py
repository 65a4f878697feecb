"""Differential tests of mathbg.analysis against gnubg 1.07.001 (the reference peer).

For generated contact and race positions (random games: contact, races and one-sided
bearoffs), every row of the 5-, 7- and 11-point score matrices (Crawford game,
post-Crawford, 1-cube centred and 2-cube owned by the roller) and the money row must give
gnubg's own 0-ply cubeful evaluation (``cfevaluate``): the action and the normalised
equities (EMG) of no double and double/take. Once with the ``gnubg`` engine (its
probabilities read from gnubg in one subprocess) and once with the same probabilities
given by hand (the ``given`` engine).

The gnubg-nn engine must return what ``gnubg_nn.probabilities`` returns for the same boards;
its board orientation is checked on asymmetric positions against gnubg's own evaluation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from gnubg_peer import GNUBG_CUBE_ACTIONS

from mathbg.analysis import analyze, analyze_many
from mathbg.analysis.evaluation import GivenEvaluator, gnubg_nn_installed
from mathbg.analysis.gnubg_program import Situation, run_gnubg
from mathbg.analysis.matrix import matrix_states
from mathbg.analysis.sample import random_positions
from mathbg.cube.decisions import CubeAction

pytestmark = [pytest.mark.gnubg(kind="exact"), pytest.mark.slow]

LENGTHS = (5, 7, 11)
TOL = 2e-5  # gnubg's floats are single precision

_GNUBG = GNUBG_CUBE_ACTIONS | {
    "No double, beaver": CubeAction.NO_DOUBLE_BEAVER,
    "No redouble, beaver": CubeAction.NO_DOUBLE_BEAVER,
    "Double, beaver": CubeAction.DOUBLE_BEAVER,
    "Redouble, beaver": CubeAction.DOUBLE_BEAVER,
    "Optional double, beaver": CubeAction.DOUBLE_BEAVER,
}
#: Where one side is evaluated without beavers: compare beavers as the plain take.
_NO_BEAVER = {CubeAction.NO_DOUBLE_BEAVER: CubeAction.NO_DOUBLE_TAKE,
              CubeAction.DOUBLE_BEAVER: CubeAction.DOUBLE_TAKE}  # fmt: skip


@pytest.fixture(scope="module")
def positions():
    contact = random_positions(3, seed=11, kind="contact")
    races = random_positions(3, seed=12, kind="race")
    return contact + races


#: The 2-cube rows at 5 and 7 points (the 11-point matrix: the centred cube only).
MAX_CUBE = {5: 2, 7: 2, 11: 1}


def _situations(length: int) -> list[Situation]:
    return [Situation.at(length, st.away, crawford=st.crawford, cube=st.cube, owner=st.owner)
            for st in matrix_states(length, max_cube=MAX_CUBE[length])]  # fmt: skip


@pytest.fixture(scope="module")
def reference(gnubg, positions):
    """gnubg's cubeful decisions at every state of each length, and money (Jacoby on)."""
    sits = [Situation(jacoby=True, beavers=False)]
    for n in LENGTHS:
        sits += _situations(n)
    raw = run_gnubg([p.board for p in positions], [sits] * len(positions))
    return sits, raw


def _check(analyses, sits, raw, length):
    n_rows = 0
    seen = set()
    for an, r in zip(analyses, raw, strict=True):
        by_state = {}
        for s, d in zip(sits, r["decisions"], strict=True):
            if s.length in (0, length):
                by_state[(s.length, s.score, s.crawford, s.cube, s.owner)] = d
        for row in an.rows:
            if row.state == "money":
                key = (0, (0, 0), False, 1, "centre")
            else:
                score = (length - row.away[0], length - row.away[1])
                key = (length, score, bool(row.crawford), row.cube, row.owner)
            d = by_state[key]
            where = (an.position, key, d["text"], row.action)
            assert row.emg_no_double == pytest.approx(d["no_double"], abs=TOL), where
            expected = _GNUBG[d["text"]]
            action = CubeAction(row.action)
            assert _NO_BEAVER.get(action, action) == expected, where
            if expected != CubeAction.NOT_AVAILABLE:
                assert row.emg_double_take == pytest.approx(d["double_take"], abs=TOL), where
                assert row.emg_double_pass == pytest.approx(d["double_pass"], abs=TOL), where
            seen.add(expected)
            n_rows += 1
    return n_rows, seen


@pytest.mark.parametrize("length", LENGTHS)
def test_gnubg_engine_matrix_equals_gnubg_cfevaluate(positions, reference, length):
    sits, raw = reference
    analyses = analyze_many(positions, length=length, engine="gnubg", max_cube=MAX_CUBE[length],
                            exact=False, beavers=False)  # fmt: skip
    assert {a.evaluation.engine for a in analyses} == {"gnubg"}
    assert {a.evaluation.plies for a in analyses} == {0}
    for a, r in zip(analyses, raw, strict=True):  # same numbers as the reference run
        assert a.evaluation.probabilities == pytest.approx(r["probs"], abs=1e-7)
    for a in analyses:  # the engine's own cubeful decision (money: no match state given)
        money = next(r for r in a.rows if r.state == "money")
        action = CubeAction(money.action)
        # the engine's reference is evaluated with beavers (its "rules" say so), this
        # analysis without: compare them with beavers read as takes
        ref = _GNUBG[a.evaluation.gnubg["text"]]
        assert a.evaluation.gnubg["rules"]["beavers"] is True
        assert _NO_BEAVER.get(ref, ref) == _NO_BEAVER.get(action, action)
    n_rows, seen = _check(analyses, sits, raw, length)
    assert n_rows == len(positions) * (len(matrix_states(length, MAX_CUBE[length])) + 1)
    assert {CubeAction.NO_DOUBLE_TAKE, CubeAction.DOUBLE_TAKE, CubeAction.NOT_AVAILABLE} <= seen
    crawford_rows = [r for a in analyses for r in a.rows if r.crawford]
    post_rows = [r for a in analyses for r in a.rows if r.state == "post-crawford"]
    two_cube = [r for a in analyses for r in a.rows if r.cube == 2]
    assert crawford_rows and post_rows and (two_cube or MAX_CUBE[length] == 1)


def test_given_probabilities_give_the_same_matrix(positions, reference):
    sits, raw = reference
    for length in LENGTHS:
        analyses = [
            analyze_many([p], length=length, engine=GivenEvaluator(r["probs"]),
                         max_cube=MAX_CUBE[length], exact=False, beavers=False)[0]
            for p, r in zip(positions, raw, strict=True)
        ]  # fmt: skip
        _check(analyses, sits, raw, length)


def test_cube_life_by_class_matches_gnubg_classes(positions, reference):
    _, raw = reference
    # gnubg 1.07 classes: 6 BEAROFF1, 8 RACE, 9 CRASHED, 10 CONTACT
    names = {6: "one-sided bearoff", 8: "race", 9: "contact", 10: "contact"}
    analyses = analyze_many(positions, length=3, engine=GivenEvaluator([0.5, 0, 0, 0, 0]))
    for a, r in zip(analyses, raw, strict=True):
        assert a.evaluation.evaluation_class == names[r["class"]]


# ----------------------------------------------------------------------------- gnubg-nn

needs_nn = pytest.mark.skipif(not gnubg_nn_installed(), reason="gnubg-nn is not installed")


@needs_nn
def test_gnubg_nn_engine_returns_gnubg_nn_probabilities(positions):
    import gnubg_nn

    analyses = analyze_many(positions, length=3, engine="gnubg-nn", exact=False)
    for pos, a in zip(positions, analyses, strict=True):
        b = pos.board
        board = [[int(v) for v in b[0]], [int(v) for v in b[1]]]
        assert a.evaluation.probabilities == pytest.approx(gnubg_nn.probabilities(board, 0))
        assert (a.evaluation.engine, a.evaluation.plies) == ("gnubg-nn", 0)


@needs_nn
def test_gnubg_nn_orientation_against_gnubg(gnubg, positions):
    """Asymmetric positions: gnubg-nn and gnubg 1.07 agree closely as given, and the
    swapped board (the other side on roll) is far from both: the rows are not mixed up."""
    from mathbg.analysis.gnubg_nn import nn_probabilities

    raw = run_gnubg([p.board for p in positions])
    nn = nn_probabilities([p.board for p in positions])
    swapped = nn_probabilities([p.swap().board for p in positions])
    asym = 0
    for g, a, s in zip(raw, nn, swapped, strict=True):
        assert abs(a[0] - g["probs"][0]) < 0.03
        if abs(g["probs"][0] - 0.5) > 0.1:
            asym += 1
            assert abs(s[0] - g["probs"][0]) > 0.1
    assert asym >= 3


@needs_nn
def test_gnubg_nn_distance_from_gnubg_networks(gnubg):
    """The figures quoted in mathbg.analysis.gnubg_nn's docstring (mean and max |dW|,
    |dWG|) stay within their stated bounds on the documented sample."""
    from mathbg.analysis.gnubg_nn import nn_probabilities

    pos = random_positions(100, seed=5, kind="contact") + random_positions(100, seed=6, kind="race")
    raw = run_gnubg([p.board for p in pos])
    g = np.array([r["probs"] for r in raw])
    a = np.array(nn_probabilities([p.board for p in pos]))
    dw = np.abs(a[:, 0] - g[:, 0])
    dg = np.abs(a[:, 1] - g[:, 1])
    contact, race = slice(0, 100), slice(100, 200)
    assert dw[contact].mean() < 0.002 and dw[contact].max() < 0.02
    assert dg[contact].mean() < 0.002 and dg[contact].max() < 0.03
    assert dw[race].max() < 1e-3 and dg[race].max() < 1e-3


def test_gnubg_engine_decides_at_the_match_ids_score(positions):
    """A Match ID's score reaches gnubg seen from the side on roll: gnubg's own decision
    there is the action of the matrix's current row (7-point match at 3-2, the side on
    roll on 2: 5-away/4-away; and the Crawford game of a 5-point match)."""
    from mathbg.rules.match import MatchState

    for match in (MatchState(length=7, score=(3, 2), on_roll=1),
                  MatchState(length=7, score=(2, 3), on_roll=0),
                  MatchState(length=5, score=(4, 2), on_roll=1, crawford=True)):  # fmt: skip
        ids = [f"{p.id}:{match.id}" for p in positions[:3]]
        for an in analyze_many(ids, engine="gnubg", exact=False):
            (cur,) = [r for r in an.rows if r.current]
            action = CubeAction(cur.action)
            assert _GNUBG[an.evaluation.gnubg["text"]] == _NO_BEAVER.get(action, action)
            assert cur.emg_no_double == pytest.approx(an.evaluation.gnubg["no_double"],
                                                         abs=TOL)  # fmt: skip


def test_cli_with_the_gnubg_engine(positions, capsys):
    import json

    from mathbg.cli import main

    code = main(["analyze", positions[0].id, "--length", "3", "--engine", "gnubg", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["engine"] == {"name": "gnubg", "plies": 0}
    assert set(out["gnubg"]) >= {"optimal", "no_double", "double_take", "double_pass", "text"}
    assert len(out["scores"]) == 9 + 4


@pytest.mark.parametrize("n", [0, -3, 2.5])
def test_random_positions_refuses_a_count_below_one_at_once(n):
    from mathbg.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="n must"):
        random_positions(n)  # was: 100 n + 100 games played, then "found only 0"


_OWNED_SCRIPT = """
import gnubg, json
gnubg.command("new session")
board = gnubg.positionfromid("4HPwATDgc/ABMA")
ec = gnubg.evalcontext(1, 0, 0, 1, 0.0)
out = []
for length, score in ((0, (0, 0)), (7, (1, 3))):
    for owner in (0, 1):
        ci = gnubg.cubeinfo(2, owner, 0, length, score, 0, 0)
        if not length:
            ci["jacoby"], ci["beavers"] = 1, 3
        cf = gnubg.cfevaluate(board, ci, ec)
        nd = gnubg.eq2mwc(cf[1], ci) if length else cf[1]
        out.append({"length": length, "owner": owner, "no_double": nd, "text": cf[5]})
print("JSON>>>" + json.dumps(out))
"""


@pytest.mark.gnubg(kind="exact")
def test_an_id_s_owned_cube_is_valued_as_gnubg_values_it(gnubg):
    """The opening position with a 2-cube owned by the roller (gnubg's owner 0) or by the
    opponent, money and 6-away/4-away: the row of the ID's cube state has gnubg's 0-ply
    no double (gnubg's ``cfevaluate``), with mathbg's cube step and with gnubg's own."""
    out = gnubg.run_python(_OWNED_SCRIPT, timeout=120)
    refs = json.loads(out.split("JSON>>>")[1].strip().splitlines()[0])
    for ref in refs:
        owner = "player" if ref["owner"] == 0 else "opponent"
        xgid_owner = 1 if ref["owner"] == 0 else -1
        score = "0:0:0:0" if ref["length"] == 0 else "1:3:0:7"
        xgid = f"XGID=-b----E-C---eE---c-e----B-:1:{xgid_owner}:1:00:{score}:10"
        for kwargs in ({"engine": "native"}, {"engine": "gnubg", "cube_eval": "engine"}):
            (row,) = [r for r in analyze(xgid, **kwargs).rows if r.current]
            assert (row.cube, str(row.owner)) == (2, owner)
            assert row.no_double == pytest.approx(ref["no_double"], abs=2e-5), (ref, kwargs)
            assert (str(row.action) == "cube not available") == (owner == "opponent")
