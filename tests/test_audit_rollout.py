"""Issue 31: ``audit --rollout-errors K``: the costliest cube errors re-checked by rollout.

Truth: in a bearoff inside the exact match solver every trial ends at once with the exact
value, so the rollout's values, action and verdict are the exact solver's, and there (the
hand-built last-roll match of tests/test_audit.py) they are arithmetic on the MET: with
p = 26/36 the chance to bear off both checkers from the 2-point, ND = p W1 + (1-p) L1,
DT = p W2 + (1-p) L2, DP = W1. Everywhere DP is the cube's points won at the score (the
same MET entry as the audit's), the error is 0 exactly when the decision taken is the
rollout's best, the margin's sign says the rollout's best, and the verdict follows from
the margin and its standard error. Bad settings are refused in one line before any work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_messages import refused, run

from mathbg.analysis import audit
from mathbg.analysis.match_audit import RecheckOptions, RolloutCheck, recheck
from mathbg.analysis.match_audit.recheck import verdict
from mathbg.errors import InvalidParameterError
from mathbg.met import as_met

DATA = Path(__file__).parent / "data" / "matches"
LAST_ROLL = DATA / "handbuilt_last_roll.mat"
FIVE = DATA / "match10014006.txt"
engine = pytest.mark.extra("engine")


def consistent(c: RolloutCheck) -> None:
    """The invariants every re-checked decision keeps."""
    assert c.kind in ("double", "take")
    assert c.best in (("double", "no double") if c.kind == "double" else ("take", "pass", "beaver"))
    assert c.error >= 0.0 and c.error_emg >= 0.0
    assert (c.error == 0.0) == (c.best == c.taken or (c.taken == "beaver" and c.best == "take"))
    nd, dt, dp = c.no_double, c.double_take, c.double_pass
    assert c.margin >= 0.0
    if c.kind == "double":
        # doubling is worth min(DT, DP) to the doubler (the taker answers at their best)
        assert c.margin == pytest.approx(abs(min(dt, dp) - nd))
        assert (c.best == "double") == (min(dt, dp) >= nd) == c.action.startswith("double")
    elif "beaver" not in c.action:
        assert c.margin == pytest.approx(abs(dp - dt))
        assert (c.best == "take") == (dt <= dp)
    assert c.difference == pytest.approx(dt - nd, abs=1e-12)
    if c.margin < 2 * c.margin_stderr:
        assert c.verdict == "unresolved"
    else:
        assert c.verdict == ("kept" if c.best == c.audit_best else "changed")
    assert c.trials % 36 == 0 and c.trials > 0


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("argv, words", [
    (["--rollout-errors", "0"], "--rollout-errors must be >= 1, got 0"),
    (["--rollout-errors", "-2"], "--rollout-errors must be >= 1, got -2"),
    (["--rollout-errors", "1", "--rollout-trials", "0"], "--rollout-trials must be >= 1, got 0"),
    (["--rollout-trials", "36"], "--rollout-trials goes with --rollout-errors"),
    (["--rollout-errors", "1", "--rollout-trials", "9999999"], "trials must lie in 1..3600000"),
])  # fmt: skip
def test_bad_rollout_settings_are_one_line_before_any_work(argv: list[str], words: str) -> None:
    # a missing match file: the settings are refused before the file is read
    line = refused("audit", "no-such-match.mat", *argv)
    assert words in line, line


def test_bad_settings_in_the_api() -> None:
    with pytest.raises(InvalidParameterError, match="must lie in >= 1, got 0"):
        RecheckOptions(0)
    with pytest.raises(InvalidParameterError, match=r"trials must lie in 1\.\.3600000, got 0"):
        RecheckOptions(1, trials=0)
    with pytest.raises(InvalidParameterError, match="whole number"):
        RecheckOptions(True)  # type: ignore[arg-type]


def test_missing_engine_is_one_line_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    from mathbg.analysis import evaluation
    from mathbg.analysis.match_audit import RecheckOptions
    from mathbg.errors import EngineNotAvailableError

    monkeypatch.setattr(evaluation, "gnubg_nn_installed", lambda: False)
    # the re-check's rollouts play with the native engine (nothing to install); an engine
    # that is not installed is refused when the options are made, before any work
    assert RecheckOptions(1).engine == "auto"
    with pytest.raises(EngineNotAvailableError, match=r"mathbg\[engine\]"):
        RecheckOptions(1, engine="gnubg-nn")


def test_the_default_trials_are_the_rollouts() -> None:
    """The re-check's and the command's defaults are written out (an audit does not import
    the rollouts): they are the rollouts' own."""
    from mathbg.analysis.match_audit.recheck import TRIALS, RecheckOptions
    from mathbg.analysis.rollouts import DEFAULT_TRIALS
    from mathbg.cli import audit as command

    assert TRIALS == command.DEFAULT_TRIALS == RecheckOptions(1).trials == DEFAULT_TRIALS


def test_verdict_rule() -> None:
    # 2 standard errors either way: unresolved; beyond, the rollout's best against the audit's
    assert verdict("double", "double", 0.0039, 0.002) == "unresolved"
    assert verdict("double", "double", 0.0041, 0.002) == "kept"
    assert verdict("no double", "double", 0.0041, 0.002) == "changed"
    assert verdict("take", "take", 0.0, 0.0) == "kept"


# ----------------------------------------------------------------------------- rollouts


@engine
def test_exact_bearoff_verdict_is_the_exact_solvers() -> None:
    m = audit(LAST_ROLL, engine="auto", checker=False, luck=False).matches[0]
    (d,) = m.costliest(1, "cube")
    assert (d.game, d.move, d.player, d.taken) == (1, 37, "Alice", "no double")
    (c,) = recheck(m, 1, trials=36, progress=False)
    consistent(c)
    assert (c.game, c.move, c.player, c.away, c.cube, c.owner) == (1, 37, "Alice", (5, 5), 1,
                                                                   "centre")  # fmt: skip
    assert c.no_double_stderr == pytest.approx(0.0, abs=1e-12)
    assert c.double_take_stderr == pytest.approx(0.0, abs=1e-12)
    ex = d.values.exact
    assert ex is not None and c.action == str(ex.action) == "double, take"
    met = as_met("kazaross-xg2")
    w1, w2 = met.mwc((4, 5)), met.mwc((3, 5))
    p = 26 / 36
    nd, dt = p * w1 + (1 - p) * (1 - w1), p * w2 + (1 - p) * (1 - w2)
    assert c.no_double == pytest.approx(nd, abs=1e-12)
    assert c.double_take == pytest.approx(dt, abs=1e-12)
    assert c.double_pass == pytest.approx(w1, abs=1e-12)
    assert (c.best, c.verdict) == ("double", "kept")
    assert c.error == pytest.approx(dt - nd, abs=1e-12)
    out = c.as_dict()
    assert out["away"] == [5, 5] and out["verdict"] == "kept"
    m.rollouts = [c]
    assert m.as_dict()["rollouts"] == [out]


@engine
def test_cli_json_and_text_report() -> None:
    status, out, _ = run("audit", str(LAST_ROLL), "--cube-only", "--rollout-errors", "1",
                         "--rollout-trials", "30", "--json")  # fmt: skip
    assert status == 0
    (m,) = json.loads(out)["matches"]
    (c,) = m["rollouts"]
    assert (c["game"], c["move"], c["action"], c["verdict"]) == (1, 37, "double, take", "kept")
    assert c["trials"] == 36  # 30 rounded up to the 36 first rolls
    status, out, _ = run("audit", str(LAST_ROLL), "--cube-only", "--no-exact",
                         "--rollout-errors", "1", "--rollout-trials", "36")  # fmt: skip
    assert status == 0
    assert "rollouts of the 1 costliest cube error(s) (36 trials each" in out
    assert "game 1 move 37 Alice (double: no double)" in out and out.rstrip().endswith("kept")


@engine
@pytest.mark.slow  # two 36-trial rollouts of contact positions: about 10 CPU-s
def test_contact_errors_rechecked() -> None:
    m = audit(FIVE, engine="gnubg-nn", checker=False, luck=False, exact=False).matches[0]
    checks = recheck(m, 1, trials=36, progress=False)
    (c,) = checks
    (d,) = m.costliest(1, "cube")
    assert (c.game, c.move, c.player, c.kind, c.taken) == (d.game, d.move, d.player, d.kind,
                                                           d.taken)  # fmt: skip
    assert (c.audit_best, c.audit_error_mwc) == (d.best, d.error_mwc)
    consistent(c)
    # the audit's value is gnubg's single-precision one
    assert c.double_pass == pytest.approx(d.values.double_pass, abs=1e-7)
    assert c.no_double_stderr > 0 and c.difference_stderr > 0
    (b,) = recheck(m, 1, trials=36, progress=False, player="LEON77")
    assert b.player == "leon77"
    consistent(b)
    json.dumps(b.as_dict())


@engine
@pytest.mark.slow  # two 36-trial rollouts of an opening position: about 6 CPU-s
def test_money_session_with_beavers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Money play with beavers (tests/test_audit.py's session): equities per unit cube, no
    MWC; where the rollout's DT lies in [-2, 0] the taker's best answer is the beaver (2 DT
    to the doubler, below DT and below DP = +1). The rollouts play the session's own money
    rules (here the Jacoby rule and beavers)."""
    from mathbg.analysis.match_audit import RecheckOptions
    from mathbg.rules import record as r

    asked: list[dict[str, object]] = []
    made = RecheckOptions.rollout_options

    def spy(self: RecheckOptions, position: str, **score: object) -> object:
        asked.append(score)
        return made(self, position, **score)  # type: ignore[arg-type]

    monkeypatch.setattr(RecheckOptions, "rollout_options", spy)

    game = r.GameRecord(1, (0, 0), (
        r.Move(0, (3, 1), ((8, 5), (6, 5))), r.Double(1, 2), r.Take(0),
        r.Move(1, (3, 1), ((8, 5), (6, 5))), r.Move(0, (4, 2), ((8, 4), (6, 4))),
        r.Resign(1, 1), r.Accept(0)), r.GameOutcome(0, 2, "resign", 2, 1))  # fmt: skip
    rules = r.MatchRules(crawford=False, jacoby=True, beavers=True)
    m = audit(r.MatchRecord(0, ("A", "B"), (game,), rules), engine="gnubg-nn", checker=False,
              luck=False).matches[0]  # fmt: skip
    checks = recheck(m, 2, trials=36, progress=False)
    assert [(a["jacoby"], a["beavers"]) for a in asked[1:]] == [(True, True)] * 2
    assert {c.kind for c in checks} == {"double", "take"}
    for c in checks:
        consistent(c)
        assert c.away is None and c.unit == "equity" and c.double_pass == 1.0
        assert c.audit_error_mwc is None
        if c.kind == "take" and -2.0 <= c.double_take <= 0.0:
            assert c.best == "beaver" and "beaver" in c.action
            assert c.margin == pytest.approx(min(-c.double_take, 1.0 - 2 * c.double_take))
