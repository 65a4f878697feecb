"""Issue 31: cubeful rollouts at a match score (``mathbg.analysis.rollout``).

Truth: on bearoffs inside the exact match-play solver (:mod:`mathbg.bearoff.exact`) a
rollout equals the exact cubeful value of every line within 3 standard errors, and the
paired difference between the lines equals the exact DT - ND within 3 of its standard
errors. The trials are made to *play* there: the truncation's space is shrunk to 2 checkers
a side (``driver.EXACT_CHECKERS``), so positions of 3-4 checkers are played out by the
engine, with the cube decisions of the trials, until both sides are down to 2 (where the
exact value ends them), and the exact values of the 4-checker space are the truth.

Statistical invariants (theory, not the code's output): the dice rotation throws every
roll once first and once second in each block of 36 trials and every pair of first and
second roll once in 36 x 36; a trial depends only on its number (any batching gives the
same bits); the lookahead's luck has mean zero (rollouts with and without variance
reduction agree within their combined errors, and it shrinks the error); no gammon is
possible in a bearoff; a stopping rule by standard error stops at or below it.

Every test that plays here plays with the gnubg-nn checker player: ``extra("engine")``.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mathbg.analysis.rollouts.driver as driver
from mathbg.analysis import rollout
from mathbg.analysis.batchstore import StoreMismatchError
from mathbg.analysis.rollouts.trials import first_rolls
from mathbg.bearoff.exact.match import match_equity
from mathbg.errors import DatabaseCorruptError, InvalidParameterError, InvalidScoreError
from mathbg.rules.position import Position

engine = pytest.mark.extra("engine")
START = "4HPwATDgc/ABMA"


def bearoff_id(roller: tuple[int, ...], opponent: tuple[int, ...]) -> str:
    """The Position ID of a bearoff (checkers on points 1..6 of each side)."""
    return str(Position.from_counts(list(roller) + [0] * 18, list(opponent) + [0] * 18).id)


def within(value: float, truth: float, se: float, k: float = 3.0) -> bool:
    return abs(value - truth) <= k * se + 1e-9


# (roller, opponent, away, cube, owner, crawford): 3-4 checkers a side, played until both
# sides have 2 left; money-free match scores, a cube owned, post-Crawford, the Crawford game.
TRUTH_CASES = [
    ((0, 1, 1, 1, 0, 0), (1, 0, 1, 1, 0, 0), (3, 3), 1, "centre", False),
    ((1, 1, 0, 1, 0, 0), (0, 2, 0, 1, 0, 0), (2, 4), 1, "centre", False),
    ((0, 0, 1, 2, 0, 0), (1, 1, 1, 0, 0, 0), (4, 2), 1, "centre", False),
    ((1, 0, 1, 1, 1, 0), (0, 1, 1, 1, 0, 0), (5, 3), 2, "player", False),
    ((0, 1, 0, 1, 1, 0), (1, 1, 0, 1, 0, 0), (3, 1), 1, "centre", False),  # post-Crawford
    ((0, 1, 1, 1, 0, 0), (1, 1, 1, 0, 0, 0), (1, 3), 1, "centre", True),  # Crawford
]


@engine
@pytest.mark.parametrize("case", TRUTH_CASES, ids=lambda c: f"{c[2][0]}a{c[2][1]}a-{c[4]}")
def test_bearoff_rollout_equals_the_exact_solver(
    case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, int], int, str, bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    roller, opponent, away, cube, owner, crawford = case
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    exact = match_equity(list(roller), list(opponent), away, cube, owner, crawford, checkers=4)
    res = rollout(bearoff_id(roller, opponent), away=away, cube=cube, owner=owner,
                  crawford=crawford, trials=720, seed=3, progress=False)  # fmt: skip
    nd = res.line("no_double")
    assert nd.ends.played > 0.1, "the trials play before they reach the exact space"
    assert within(nd.value, exact.no_double, nd.stderr), (nd.value, exact.no_double, nd.stderr)
    if exact.double_take is None:
        assert [ln.line for ln in res.lines] == ["no_double"]
        return
    dt = res.line("double_take")
    assert within(dt.value, exact.double_take, dt.stderr), (dt.value, exact.double_take)
    (diff,) = res.differences
    truth = exact.double_take - exact.no_double
    assert within(diff.value, truth, diff.stderr), (diff.value, truth, diff.stderr)
    assert diff.value == pytest.approx(dt.value - nd.value, abs=1e-12)
    # no gammon in a bearoff (both sides have borne a checker off)
    for ln in res.lines:
        assert ln.chances[1:] == pytest.approx((0.0,) * 4, abs=1e-12)


@engine
def test_inside_the_solver_every_trial_ends_at_once_with_the_exact_value() -> None:
    roller, opponent = (0, 1, 1, 1, 0, 0), (1, 0, 1, 1, 0, 0)
    exact = match_equity(list(roller), list(opponent), (3, 3))
    res = rollout(bearoff_id(roller, opponent), away=(3, 3), trials=36, progress=False)
    for name, truth in (("no_double", exact.no_double), ("double_take", exact.double_take)):
        ln = res.line(name)
        assert ln.ends.exact == 1.0 and ln.stderr < 1e-12
        assert ln.value == pytest.approx(truth, abs=1e-12)
    assert res.decision is not None and res.decision.action == exact.action


@engine
def test_variance_reduction_is_unbiased_and_smaller(monkeypatch: pytest.MonkeyPatch) -> None:
    """The luck of a roll has mean zero given the position: with and without the lookahead
    the rollout estimates the same value (within the combined errors), the lookahead's
    error far below the plain one (``plain_stderr``: the same trials without it)."""
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    pid = bearoff_id((1, 0, 1, 1, 1, 0), (0, 1, 1, 1, 0, 0))
    kw = {"away": (5, 3), "trials": 288, "seed": 11, "progress": False}
    vr = rollout(pid, **kw)
    plain = rollout(pid, variance_reduction=False, **kw)
    for a, b in zip(vr.lines, plain.lines, strict=True):
        assert within(a.value, b.value, math.hypot(a.stderr, b.stderr))
        assert a.stderr < 0.5 * b.stderr
        assert a.plain_stderr == pytest.approx(b.stderr, rel=1e-9)  # the same dice


@engine
def test_the_disk_cache_serves_the_same_bits_without_solving_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``disk_cache=True`` (``mathbg rollout``'s setting) writes the exact solution of each
    side on roll once; a later process reads them instead of solving, and the rollout is
    the same bits as one without the cache."""
    import mathbg.bearoff.exact.match as match

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    pid = bearoff_id((0, 0, 0, 1, 1, 1), (0, 0, 1, 1, 1, 0))  # either side enters it
    kw = {"away": (5, 3), "trials": 72, "seed": 2, "progress": False}
    match._MEMORY.clear()
    plain = rollout(pid, **kw)
    assert not (tmp_path / "bearoff" / "match").exists(), "no cache without disk_cache"
    match._MEMORY.clear()
    cached = rollout(pid, disk_cache=True, **kw)
    files = sorted(p.name for p in (tmp_path / "bearoff" / "match").glob("*.npz"))
    assert len(files) == 2 and "5a3a" in files[0] + files[1] and "3a5a" in files[0] + files[1]
    assert cached == plain

    def no_solving(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved again despite the disk cache")

    match._MEMORY.clear()  # as a new process
    monkeypatch.setattr(match, "solve_game", no_solving)
    assert rollout(pid, disk_cache=True, **kw) == plain


def test_the_chances_reported_are_probabilities() -> None:
    """A luck-adjusted mean of a rare outcome can leave [0, 1]; gnubg's ``rollout.c`` keeps
    each mean of the five chances inside it, and so does a rollout's line (its SE as is)."""
    import numpy as np

    from mathbg.analysis.rollouts.result import line_results
    from mathbg.analysis.rollouts.trials import Line
    from mathbg.analysis.rollouts.values import MoneyValues

    n = 4
    chances = np.tile([1.0, 0.0, 0.0, 0.0, 0.0], (n, 1, 1))
    # the luck taken off: a backgammon's mean at -0.01, the wins' at 1.02
    luck = np.tile([-0.02, -0.03, 0.0, 0.0, 0.01], (n, 1, 1))
    zeros = {f: np.zeros((n, 1, 2), dtype=np.int64) for f in ("doubled", "taken", "passed")}
    games = {"raw": np.ones((n, 1)), "luck": np.zeros((n, 1)), "chances": chances,
             "chances_luck": luck, "turns": np.ones((n, 1)),
             "end": np.zeros((n, 1), dtype=np.int64), **zeros}  # fmt: skip
    (line,) = line_results(games, (Line("no_double", 1, -1),), MoneyValues(1, None), ("centre",))
    assert line.chances == (1.0, 0.03, 0.0, 0.0, 0.0)
    assert line.chances_stderr == (0.0,) * 5


def test_money_scores_a_gammon_single_under_jacoby_while_the_cube_is_centred() -> None:
    """Cube limit 1 (the cube never turns), trials played out without variance reduction:
    under the Jacoby rule every game is worth one point, so the value is ``2 W - 1``
    exactly; without it gammons and backgammons count, ``2 W - 1 + WG - LG + WB - LB``
    (cumulative gammons)."""
    kw = {"away": "money", "cube_limit": 1, "trials": 36, "seed": 3, "truncate": None,
          "variance_reduction": False, "progress": False}  # fmt: skip
    jac = rollout(START, **kw)
    assert (jac.jacoby, jac.beavers) == (True, True)  # gnubg's money defaults
    (ln,) = jac.lines
    assert ln.value == pytest.approx(2.0 * ln.chances[0] - 1.0, abs=1e-12)
    assert ln.chances[1] > 0.05  # gammons were won: the rule had something to do
    plain = rollout(START, jacoby=False, **kw)
    (ln,) = plain.lines
    w, wg, wb, lg, lb = ln.chances
    assert ln.value == pytest.approx(2.0 * w - 1.0 + wg - lg + wb - lb, abs=1e-12)
    assert plain.lines[0].value != jac.lines[0].value


def test_a_double_the_taker_would_beaver_is_not_made() -> None:
    """gnubg's ``FindBestCubeDecision`` in money play with beavers: double/take between -2
    and 0 (the doubler's view, per unit of the cube) with twice it below no double is "no
    double, beaver"; with twice it at or above no double, "double, beaver" (the rollout
    takes it)."""
    import numpy as np

    from mathbg.analysis.rollouts.values import MoneyValues

    nd, dt, dp = np.array([-0.3, -0.5, 0.1]), np.array([-0.2, -0.2, 0.4]), np.ones(3)
    assert MoneyValues(1, None, beavers=True).doubles(nd, dt, dp).tolist() == [False, True, True]
    assert MoneyValues(1, None).doubles(nd, dt, dp).tolist() == [True, True, True]
    # at cube 4 of a rollout from cube 1 the values are 4 times as large: the same calls
    assert MoneyValues(1, None, beavers=True).doubles(4 * nd, 4 * dt, 4 * dp).tolist() == [
        False, True, True]


@given(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0), st.integers(0, 6), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_money_cube_decision_is_per_unit_of_the_cube(
    nd: float, dt: float, level: int, beavers: bool
) -> None:
    """A money rollout's values are per unit of the rolled-out position's cube, so at cube
    ``2^level`` every value (DP = the cube's points) is ``2^level`` times the same
    position's at cube 1: the decision must not change; and beavers only ever take a
    double away."""
    import numpy as np

    from mathbg.analysis.rollouts.values import MoneyValues

    v = MoneyValues(1, None, beavers=beavers)
    k = float(2**level)
    one = v.doubles(np.array([nd]), np.array([dt]), np.array([1.0]))
    scaled = v.doubles(np.array([k * nd]), np.array([k * dt]), np.array([k]))
    assert one.tolist() == scaled.tolist()
    if beavers:
        plain = MoneyValues(1, None).doubles(np.array([nd]), np.array([dt]), np.array([1.0]))
        assert not (one[0] and not plain[0])


def test_dice_in_the_id_are_said_to_be_unused() -> None:
    """A rollout starts before the roll: an XGID with a roll in it is the same rollout as
    the one without, with a warning naming the dice."""
    from mathbg.errors import MathbgWarning

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{}:0:0:3:0:10"
    kw = {"trials": 36, "variance_reduction": False, "progress": False}  # cheap trials
    with pytest.warns(MathbgWarning, match="dice 31 in the position's ID are not used"):
        rolled = rollout(xgid.format("31"), **kw)
    assert rolled == rollout(xgid.format("00"), **kw)


def test_money_rules_are_refused_at_a_match_score() -> None:
    with pytest.raises(InvalidParameterError, match="money play's rule"):
        rollout(START, away=(3, 5), jacoby=False, trials=36, progress=False)
    with pytest.raises(InvalidParameterError, match="True or False"):
        rollout(START, away="money", beavers="no", trials=36, progress=False)


def test_a_money_match_id_or_xgid_gives_its_rules() -> None:
    from mathbg.analysis.rollouts import RolloutOptions
    from mathbg.rules.match import MatchState

    off = MatchState(jacoby=False).id
    assert RolloutOptions(f"{START}:{off}").money_rules == (False, True)
    assert RolloutOptions(f"{START}:{MatchState().id}").money_rules == (True, True)
    assert RolloutOptions(f"{START}:{off}", jacoby=True).money_rules == (True, True)
    # an XGID's money rules field: bit 0 the Jacoby rule, bit 1 beavers
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{}:0:10"
    assert [RolloutOptions(xgid.format(r)).money_rules for r in range(4)] == [
        (False, False), (True, False), (False, True), (True, True)]


def test_a_money_id_s_cube_owner_is_seen_from_the_side_on_roll() -> None:
    """XGID cube position 1 is the bottom player's cube, turn 1 the bottom player's roll: the
    roller owns it (-1: the opponent), in money play as at a match score (the rollout read
    a money XGID's owner from the wrong side)."""
    from mathbg.analysis.rollouts import RolloutOptions

    for length in (0, 7):
        score = "0:0:0:0" if length == 0 else "1:3:0:7"
        for pos, turn, owner in ((1, 1, "player"), (-1, 1, "opponent"), (1, -1, "opponent"),
                                 (-1, -1, "player")):  # fmt: skip
            xgid = f"XGID=-b----E-C---eE---c-e----B-:1:{pos}:{turn}:00:{score}:10"
            assert RolloutOptions(xgid).cube_state == (2, owner, False), (length, pos, turn)


def test_the_dice_rotation_is_stratified() -> None:
    """gnubg's rotation: each block of 36 trials throws every ordered roll once first and
    once second; 36 x 36 trials throw every (first, second) pair once."""
    rolls = [first_rolls(i, 7) for i in range(36 * 36)]
    for block in range(36):
        part = rolls[36 * block : 36 * block + 36]
        assert len({r[0] for r in part}) == 36
        assert len({r[1] for r in part}) == 36
    assert len(set(rolls)) == 36 * 36
    assert Counter(r[0] for r in rolls) == Counter({r: 36 for r in {r[0] for r in rolls}})
    assert {r[0] for r in rolls} == {(a, b) for a in range(1, 7) for b in range(1, 7)}
    assert [first_rolls(i, 8) for i in range(36)] != rolls[:36]  # the seed draws them


@engine
def test_a_trial_depends_only_on_its_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    pid = bearoff_id((0, 1, 1, 1, 0, 0), (1, 0, 1, 1, 0, 0))
    kw = {"away": (3, 3), "seed": 5, "progress": False}
    a = rollout(pid, trials=144, batch_size=36, **kw)
    b = rollout(pid, trials=144, batch_size=144, **kw)
    assert a == b
    c = rollout(pid, trials=144, seed=6, away=(3, 3), progress=False)
    assert c.lines[0].value != a.lines[0].value
    d = rollout(pid, trials=100, **kw)  # rounded up to the strata
    assert d.trials == 108


@engine
def test_a_target_standard_error_stops_at_or_below_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    pid = bearoff_id((0, 1, 1, 1, 0, 0), (1, 0, 1, 1, 0, 0))
    res = rollout(pid, away=(3, 3), target_se=0.002, batch_size=36, progress=False)
    assert max(ln.stderr for ln in res.lines) <= 0.002
    assert res.trials % 36 == 0
    assert (res.target_se, res.target_reached) == (0.002, True)
    capped = rollout(pid, away=(3, 3), target_se=1e-9, trials=72, batch_size=36,
                     progress=False)  # fmt: skip
    assert capped.trials == 72
    # the cap stopped it first, and the result says so
    assert capped.target_reached is False
    assert capped.as_dict()["target_reached"] is False


@engine
def test_resume_after_an_interrupted_store_gives_the_same_bits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver, "EXACT_CHECKERS", 2)
    pid = bearoff_id((1, 0, 1, 1, 1, 0), (0, 1, 1, 1, 0, 0))
    kw = {"away": (5, 3), "trials": 180, "batch_size": 36, "seed": 2, "progress": False}
    clean = rollout(pid, **kw)
    real, calls = driver.run_trials, []

    def killed_after_two(batch: object) -> object:
        calls.append(batch)
        if len(calls) > 2:
            raise KeyboardInterrupt
        return real(batch)  # type: ignore[arg-type]

    monkeypatch.setattr(driver, "run_trials", killed_after_two)
    store = tmp_path / "store"
    with pytest.raises(KeyboardInterrupt):
        rollout(pid, store=store, **kw)
    assert len(list(store.glob("trials-*.npz"))) == 2
    calls.clear()
    monkeypatch.setattr(driver, "run_trials", lambda b: (calls.append(b), real(b))[1])
    resumed = rollout(pid, store=store, **kw)
    assert len(calls) == 3, "only the unfinished batches are played"
    assert resumed == clean
    calls.clear()
    assert rollout(pid, store=store, **kw) == clean and not calls  # all served
    with pytest.raises(StoreMismatchError):
        rollout(pid, store=store, **{**kw, "seed": 3})
    # a damaged batch, and a batch copied from another, are refused
    files = sorted(store.glob("trials-*.npz"))
    good = files[1].read_bytes()
    files[1].write_bytes(good[:-40] + bytes(40))
    with pytest.raises(DatabaseCorruptError, match="trials-000000036"):
        rollout(pid, store=store, **kw)
    files[1].write_bytes(files[0].read_bytes())
    with pytest.raises(DatabaseCorruptError, match=r"not trials 36\.\.71"):
        rollout(pid, store=store, **kw)
    files[1].write_bytes(good)
    assert rollout(pid, store=store, **kw) == clean


@engine
def test_contact_rollout_is_sane() -> None:
    """The opening position at 3-away/5-away: 72 trials (no lookahead and no exact
    truncation, whose first solve at a score costs seconds, to stay in the fast lane), every
    line's chances and events are probabilities."""
    res = rollout(START, away=(3, 5), trials=72, variance_reduction=False, truncate=None,
                  progress=False)  # fmt: skip
    assert [ln.line for ln in res.lines] == ["no_double", "double_take"]
    for ln in res.lines:
        assert 0.0 < ln.value < 1.0 and ln.stderr > 0.0
        assert ln.ends.played + ln.ends.passed + ln.ends.exact + ln.ends.race == pytest.approx(1)
        ev = ln.events
        for share in (ev.player_passed, ev.opponent_passed, ev.never_turned):
            assert 0.0 <= share <= 1.0
    dt = res.line("double_take")
    assert dt.events.player_passed + dt.events.opponent_passed <= 1.0
    assert res.decision is not None and res.decision.double_pass == pytest.approx(
        0.74359, abs=5e-6
    )  # the MET's 3-away/5-away after a won 1-point game: 2-away/5-away, Kazaross-XG2


@pytest.mark.parametrize(
    ("kw", "error", "words"),
    [
        ({"away": (30, 5)}, InvalidScoreError, "beyond"),
        ({"away": (1, 3), "crawford": True, "cube": 2, "owner": "player"}, InvalidScoreError,
         "Crawford"),
        ({"away": (3, 5), "cube": 4, "owner": "player", "cube_limit": 2}, InvalidScoreError,
         "limit"),
        ({"away": (3, 5), "trials": 0}, InvalidParameterError, "trials"),
        ({"away": (3, 5), "target_se": 0.0}, InvalidParameterError, "> 0"),
        ({"away": (3, 5), "target_se": -1.0}, InvalidParameterError, "> 0"),
        ({"away": (3, 5), "truncate": "sometimes"}, InvalidParameterError, "truncate"),
        ({"away": (3, 5), "cube": 3, "owner": "player"}, InvalidScoreError, "3"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_any_trial(
    kw: dict[str, object], error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        rollout(START, progress=False, **kw)  # type: ignore[arg-type]


def test_an_unreadable_position_is_refused() -> None:
    from mathbg.errors import MathbgError

    with pytest.raises(MathbgError):
        rollout("NOTANID", away=(3, 5), progress=False)



@engine
def test_a_forced_play_at_one_ply_is_listed() -> None:
    """gnubg-nn's ``best_move(n=1, list=1)`` crashed on a forced play (two checkers on the
    bar entering with 1-2: the only legal play is bar/24 bar/23), which the 1-ply rollout
    meets; the player lists it as the one candidate."""
    from mathbg.analysis.registry import get_player

    board = ((1, 0, 0, 0, 0, 4, 0, 3, 0, 0, 0, 0, 5) + (0,) * 10 + (2, 0),
             (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 1, 0, 4) + (0,) * 11 + (2,))  # fmt: skip
    cands = get_player("gnubg-nn", plies=1).candidates(board, 1, 2)
    assert len(cands.keys) == 1
