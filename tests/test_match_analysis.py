"""The whole match analysed (issue 32): checker play, luck and gnubg's statistics.

References: exactly solvable cases (a last-roll bearoff, the luck's zero mean over the
rolls), gnubg 1.07's thresholds and labels (analysis.c, formatgs.c), and gnubg itself:
its ``show statistics match`` of the analysis it made, its scores of every play, its luck
of every roll (from its own 0-ply ``hint`` of every roll), and the analysed ``.sgf`` it
opens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gnubg_single_reference as reference
import numpy as np
import pytest

from mathbg.analysis import audit
from mathbg.analysis.match_audit import single
from mathbg.analysis.match_audit.checker import ROLL_WEIGHTS, turn_values
from mathbg.analysis.match_audit.plays import (
    CLASS_NAMES,
    ScoreStates,
    board_classes,
    invert,
    play_values,
)
from mathbg.analysis.match_audit.statistics import (
    CubeEvent,
    MatchStatistics,
    Statistics,
    TurnEvent,
    luck_mark,
    rating,
    skill_mark,
)
from mathbg.analysis.match_audit.turns import match_turns
from mathbg.met import as_met
from mathbg.rules.dice import ROLLS

DATA = Path(__file__).parent / "data" / "matches"
MATCHES = [*sorted(DATA.glob("*.txt")), DATA / "handbuilt_last_roll.mat"]
FIVE = DATA / "match10014006.txt"
KXG2 = as_met("kazaross-xg2")


# ----------------------------------------------------------------------------- exact cases


def test_gnubg_thresholds() -> None:
    """gnubg's arSkillLevel (0.03, 0.06, 0.12), arLuckLevel (0.3, 0.6) and GetRating's
    thresholds (0.002 ... 0.035 EMG per decision), strict as gnubg compares."""
    assert [skill_mark(x) for x in (0.03, 0.0301, 0.06, 0.0601, 0.12, 0.1201)] == \
        [None, "doubtful", "doubtful", "bad", "bad", "very bad"]  # fmt: skip
    assert [luck_mark(x) for x in (0.3, 0.31, 0.61, -0.31, -0.61)] == \
        [None, "lucky", "very lucky", "unlucky", "very unlucky"]  # fmt: skip
    assert [rating(x) for x in (0.0019, 0.002, 0.0049, 0.0079, 0.0119, 0.0179, 0.0259,
                                0.0349, 0.035)] == [
        "Supernatural", "World class", "World class", "Expert", "Advanced", "Intermediate",
        "Casual player", "Beginner", "Awful!"]  # fmt: skip


def test_statistics_of_known_events() -> None:
    """Counts and rates from events whose values are known: the checker error rate divides
    by unforced moves, the cube rate by close or actual decisions (a no double is close
    when doubling costs less than 0.16), PR is 500 x the overall rate, Snowie's divides by
    both players' moves; a missed double with DT > 1 (EMG) is above the cash point."""
    sc = Statistics()
    sc.start_game(0, 0.25)
    w, lo = 0.75, 0.25  # eq2mwc(r) - eq2mwc(0) = r (W - L) / 2 = r / 4
    sc.add_turn(TurnEvent(0, None, 20, -0.05, 0.5, w, lo, 1, False))  # doubtful, lucky
    sc.add_turn(TurnEvent(0, None, 1, 0.0, -0.7, w, lo, 1, False))  # forced, very unlucky
    sc.add_turn(TurnEvent(1, (0.9, 0.8, 1.2, 1.0), 5, -0.13, 0.0, w, lo, 1, False))
    sc.add_turn(TurnEvent(1, (0.9, 0.9, 0.5, 1.0), 5, 0.0, 0.0, w, lo, 1, False))  # far
    sc.add_cube(CubeEvent(0, "double", (0.4, 0.4, 0.3, 1.0), w, lo, 1, False))  # wrong
    s = MatchStatistics.of(sc, ("A", "B"), 5)
    a, b = s.players
    assert (a.total_moves, a.unforced_moves, b.total_moves, b.unforced_moves) == (2, 1, 2, 2)
    assert a.moves_marked["doubtful"] == 1 and b.moves_marked["very bad"] == 1
    assert a.checker_error_emg == pytest.approx(0.05) and a.checker_rate_emg == pytest.approx(0.05)
    assert b.checker_rate_emg == pytest.approx(0.065)
    assert (b.total_cube, b.close_cube) == (2, 1)  # 0.9 - min(1.2, 1) < 0.16, not 0.9 - 0.5
    assert b.cube_errors["missed_double_above_cp"]["count"] == 1
    assert b.cube_errors["missed_double_above_cp"]["emg"] == pytest.approx(0.1)
    assert b.cube_errors["missed_double_above_cp"]["mwc"] == pytest.approx(0.025)
    assert a.cube_errors["wrong_double_below_dp"]["emg"] == pytest.approx(0.1)
    assert a.error_rate_emg == pytest.approx(0.15 / 2) and a.pr == pytest.approx(37.5)
    assert a.snowie_error_rate == pytest.approx(1000 * 0.15 / 4)
    assert (a.rolls_marked["lucky"], a.rolls_marked["very unlucky"]) == (1, 1)
    assert a.luck_emg == pytest.approx(-0.2) and a.luck_mwc == pytest.approx(-0.05)
    assert a.actual_result == pytest.approx(0.25)
    assert a.luck_adjusted_result == pytest.approx(0.25 + 0.05)  # B's luck was 0
    from mathbg.analysis.match_audit.report import gnubg_statistics_text

    assert "Chequerplay statistics" in gnubg_statistics_text(s)


def test_play_value_of_a_known_position() -> None:
    """A play that leaves the opponent (on roll) a 50 % gammonless game at 3-away/3-away,
    cube centred, is worth 0 EMG to the mover (the opponent cannot double profitably); a
    play after which the opponent has lost a single is worth +1 (the cube's value won), both
    to gnubg's single precision (its ``mwc2eq`` of ``1 - 0`` rounds to 1 + 2^-23 here)."""
    from mathbg.rules.position import Position

    board = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    st = ScoreStates(np.array([[3, 3]]), np.array([1]), np.array([0]), np.array([False]))
    v = play_values(board, [[0.5, 0, 0, 0, 0]], st, KXG2)
    assert v.equity[0] == pytest.approx(0.0, abs=1e-12)
    v = play_values(board, [[0.0, 0, 0, 0, 0]], st, KXG2)
    assert v.equity[0] == pytest.approx(1.0, abs=2.0**-22)
    assert invert([0.6, 0.2, 0.01, 0.1, 0.005]).tolist() == pytest.approx(
        [0.4, 0.1, 0.005, 0.2, 0.01])  # fmt: skip


@pytest.mark.extra("engine")
def test_luck_of_the_last_roll_is_exact() -> None:
    """The hand-built match's last roll: Alice bears off both checkers on her 2-point with
    26 rolls of 36 (Bob finishes next roll otherwise). Each roll's best value is +1 (she wins
    a single: the cube's value) or -1 (Bob, on roll, cashes: his double/pass), so the mean
    is 16/36 and her winning roll's luck is 20/36 EMG; in MWC times (W - L) / 2."""
    res = audit(DATA / "handbuilt_last_roll.mat", exact=False, take_points=False)
    last = res.plays[-1]
    assert (last.player, last.dice, last.played) == ("Alice", (6, 5), "2/off(2)")
    # gnubg's LuckNormal sums the 21 rolls in single precision
    assert last.luck_emg == pytest.approx(20 / 36, abs=1e-6)
    w, lo = KXG2.mwc((4, 5)), KXG2.mwc((5, 4))
    # the MWC scale uses the table in single precision, as gnubg's eq2mwc does
    assert last.luck_mwc == pytest.approx(20 / 36 * (w - lo) / 2, abs=1e-7)
    assert last.plays == 1 and last.forced and last.error_emg == 0.0


class _PipEvaluator:
    """A cheap evaluator (win chance from the race), to check the generic path."""

    name = "pips"
    plies = None

    def evaluate_many(self, positions, matches=None):  # type: ignore[no-untyped-def]
        from mathbg.analysis.base import Evaluation

        out = []
        for p in positions:
            me, opp = p.pips()
            w = 1.0 / (1.0 + np.exp((me - opp - 8) / 20.0))
            out.append(Evaluation((float(w), 0.0, 0.0, 0.0, 0.0), "pips", None, "race", 0.68))
        return out


def test_luck_has_mean_zero_over_the_rolls() -> None:
    """The luck of the 36 rolls (weighted: doubles once, the others twice) sums to zero,
    whatever the engine (here mathbg's move generator and a toy evaluator)."""
    from dataclasses import replace

    from mathbg.rules.formats.example import example_match

    turns = [t for t in match_turns(example_match()) if not t.opening][:2]
    for t in turns:
        variants = []
        for r in ROLLS:
            m = replace(t.match, dice=(max(r), min(r)))
            variants.append(replace(t, dice=(max(r), min(r)), match=m))
        values = turn_values(variants, _PipEvaluator(), KXG2)  # type: ignore[arg-type]
        luck = np.array([v.luck for v in values])
        # to gnubg's single precision, in which its LuckNormal sums
        assert float(np.dot(ROLL_WEIGHTS, luck)) == pytest.approx(0.0, abs=1e-5)


@pytest.mark.extra("engine")
def test_audit_json_has_every_decision_and_the_engine() -> None:
    res = audit(FIVE, exact=False, take_points=False)
    (m,) = res.as_dict()["matches"]
    assert m["engine"]["requested"] == "auto" and m["engine"]["name"] == "native"
    assert m["engine"]["plies"] == 0 and m["engine"]["cube_step"] == "0-ply cube step"
    assert len(m["plays"]) == len(match_turns(__import__("mathbg").rules.read_match(FIVE)))
    first = m["plays"][0]
    assert first["options"][0]["play"] == first["best"] and first["rank"] >= 1
    stats = m["statistics"]["players"]
    assert [p["total_moves"] for p in stats] == [88, 89]
    assert all(p["pr"] == pytest.approx(500 * p["error_rate_emg"]) for p in stats)


# ----------------------------------------------------------------------------- gnubg

#: Lines of gnubg's ``show statistics match`` that differ from mathbg's for a reason outside
#: the analysis: how the file's result is read (8239468: lasse bears off against a side that
#: has borne off nothing, which the file scores "Wins 1 point" and gnubg 1.07 re-scores as a
#: gammon). The matches' results are the matchfiles reader's business, not the analysis's;
#: 1988690 (a resignation, then "Wins 4 point and the match") agrees line for line since the
#: reader scores a resignation as gnubg does.
KNOWN = {
    "match8239468.txt": ("Actual result", "Luck adjusted result", "Luck based FIBS rating"),
}


class _Capture:
    """The gnubg engine, keeping gnubg's own statistics text of each analysis."""

    def __init__(self) -> None:
        from mathbg.analysis.gnubg_program import GnubgEvaluator

        self.engine = GnubgEvaluator(plies=0)
        self.name, self.plies, self.texts = "gnubg", 0, []
        self.evaluate_many = self.engine.evaluate_many

    def analyse_match(self, record, progress=None, **options):  # type: ignore[no-untyped-def]
        out = self.engine.analyse_match(record, statistics=True, progress=progress)
        self.texts.append(out["statistics"])
        return out


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 16 matches: about 7 CPU-s
def test_statistics_equal_gnubg_show_statistics(gnubg) -> None:
    """With the gnubg engine every line of gnubg's ``show statistics match`` is mathbg's, to
    the digit (gnubg's own text of the same analysis), but the lines :data:`KNOWN` explains."""
    from gnubg_match_peer import statistics_block

    engine = _Capture()
    for path in MATCHES:
        res = audit(path, engine=engine, exact=False, take_points=False)
        ours = res.matches[0].statistics_text().rstrip("\n").splitlines()
        ref = statistics_block(engine.texts[-1])
        assert len(ours) == len(ref), path.name
        skip = KNOWN.get(path.name, ())
        for a, b in zip(ref, ours, strict=True):
            if not a.startswith(skip):
                assert a == b, (path.name, a, b)


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 16 matches: about 7 CPU-s
def test_native_statistics_equal_gnubg_show_statistics(gnubg) -> None:
    """With the native engine (gnubg 1.07's networks in mathbg's kernels, no gnubg program
    behind it) every line of gnubg's own ``show statistics match`` is mathbg's, to the
    digit, but the lines :data:`KNOWN` explains: the cube step and luck are gnubg's to the
    bit (operation by operation as its compiled code does them in single precision), so
    every total and rating built from them prints gnubg's digits (the 212 shared matches
    too: ``benchmarks/bench_statistics_agreement.py``)."""

    from gnubg_match_peer import statistics_block

    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.rules.formats import read_match

    peer = GnubgEvaluator(plies=0)
    lines = 0
    for path in MATCHES:
        rec = read_match(path)
        ref = statistics_block(peer.analyse_match(rec, statistics=True)["statistics"])
        res = audit(rec, engine="native", exact=False, take_points=False)
        ours = res.matches[0].statistics_text().rstrip("\n").splitlines()
        assert len(ours) == len(ref), path.name
        lines += len(ref)
        skip = KNOWN.get(path.name, ())
        for a, b in zip(ref, ours, strict=True):
            if a.startswith(skip) or a == b:
                continue
            raise AssertionError(f"{path.name}: gnubg {a!r}, mathbg {b!r}")
    assert lines > 900


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 16 matches: about 7 CPU-s
def test_play_scores_equal_gnubg(gnubg) -> None:
    """mathbg's 0-ply cubeful value of every play (from gnubg's cubeless outputs of the
    position it leaves) is gnubg's ``score`` within its single precision, and the best play
    is gnubg's wherever gnubg's two best differ by more than 1e-4. Where the opponent's
    chances are recovered to the bit from gnubg's listing (the mover's W at most 1/2: then
    the opponent's 1 - W is exact in single precision), the value is gnubg's ``score`` to
    the bit: the cube step is gnubg's, operation by operation as its compiled code does them
    in single precision (a double-precision step misses by up to dozens of units), the
    two-sided database's chance and cube lives included."""
    from mathbg.analysis.gnubg_program import gnubg_session
    from mathbg.analysis.match_audit.engines import two_sided_database
    from mathbg.analysis.match_audit.turns import score_states
    from mathbg.rules.formats import read_match, render_match

    db = two_sided_database(_Capture().engine)
    worst, checked, exact = 0.0, 0, 0
    for path in MATCHES:
        rec = read_match(path)
        analysis = gnubg_session().analyse(render_match(rec, "mat"))
        moves = [a for g in analysis["games"] for a in g["game"] if a["action"] == "move"]
        turns = match_turns(rec)
        boards, probs, scores, owners = [], [], [], []
        for t, a in zip(turns, moves, strict=True):
            plays = t.position.legal_plays(t.dice)
            listed = (a.get("analysis") or {}).get("moves") or []
            for e in listed:
                text = " ".join(f"{'bar' if f == 25 else f}/{'off' if s == 0 else s}"
                                for f, s in e["move"])  # fmt: skip
                boards.append(np.frombuffer(plays.parse(text).next_position.cells, np.uint8))
                probs.append(invert(e["probs"]))
                scores.append(e["score"])
                owners.append(t)
            if len(listed) > 1 and listed[0]["score"] - listed[1]["score"] > 1e-4:
                checked += 1
        states = score_states([t.match for t in owners], [t.player for t in owners])
        v = play_values(np.array(boards), np.array(probs), states, KXG2, db)
        worst = max(worst, float(np.abs(v.equity - np.array(scores)).max()))
        bits = np.array(probs)[:, 0] >= 0.5
        np.testing.assert_array_equal(v.equity[bits].astype(np.float32),
                                      np.array(scores)[bits].astype(np.float32))  # fmt: skip
        exact += int(bits.sum())
        ours = audit(rec, engine="gnubg", exact=False, take_points=False).plays
        for p, a in zip(ours, moves, strict=True):
            listed = (a.get("analysis") or {}).get("moves") or []
            if len(listed) > 1 and listed[0]["score"] - listed[1]["score"] > 1e-4:
                assert p.equity_best == pytest.approx(listed[0]["score"], abs=0)
    assert worst < 5e-6 and checked > 1000 and exact > 10_000


def _analysed_in_one(rec: Any, plies: int) -> str:
    """gnubg's own ``analyse match`` of ``rec`` in one process, as canonical JSON."""
    from mathbg.analysis.gnubg_program import gnubg_session
    from mathbg.rules.formats import render_match

    return json.dumps(gnubg_session().analyse(render_match(rec, "mat"), plies=plies),
                      sort_keys=True)  # fmt: skip


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 16 matches four times: about 6 CPU-s
def test_games_analysed_one_by_one_are_gnubgs_analyse_match(gnubg, capsys) -> None:
    """A match analysed game by game (``analyse game``) with 1, 2 or 3 of gnubg's
    calculation threads is gnubg's own ``analyse match`` of it with one thread, document
    for document: every game's analysis and the match's records; a requested progress bar
    counts the rolls."""
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.rules.formats import read_match

    games = 0
    for path in MATCHES:
        rec = read_match(path)
        ref = _analysed_in_one(rec, 0)
        for threads in (1, 2, 3):
            doc = GnubgEvaluator(plies=0, threads=threads).analyse_match(rec)
            assert json.dumps(doc, sort_keys=True) == ref, (path.name, threads)
        games += len(rec.games)
    assert games > 40
    GnubgEvaluator(plies=0).analyse_match(read_match(FIVE), progress=True)
    assert "gnubg 0-ply analysis" in capsys.readouterr().err


def _no_gnubg() -> None:
    raise AssertionError("gnubg was asked")


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses a 5-point match twice: about 1 CPU-s
def test_a_kept_analysis_is_gnubgs_and_serves_the_next_run(gnubg, tmp_path, monkeypatch
                                                           ) -> None:  # fmt: skip
    """With ``disk_cache`` the analysis is kept in the cache directory, and the same match
    at the same plies is then read from there, gnubg not asked: the document is gnubg's
    own ``analyse match``. Other plies, another gnubg, or no ``disk_cache`` ask gnubg."""
    from mathbg.analysis import gnubg_program
    from mathbg.rules.formats import read_match, render_match

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    rec = read_match(FIVE)
    ref = _analysed_in_one(rec, 0)
    engine = gnubg_program.GnubgEvaluator(plies=0)
    assert json.dumps(engine.analyse_match(rec, disk_cache=True), sort_keys=True) == ref
    kept = sorted((tmp_path / "gnubg").iterdir())
    assert kept == [gnubg_program.kept_analysis_path(render_match(rec, "mat"), 0)]
    monkeypatch.setattr(gnubg_program, "gnubg_session", _no_gnubg)
    assert json.dumps(engine.analyse_match(rec, disk_cache=True), sort_keys=True) == ref
    with pytest.raises(AssertionError, match="gnubg was asked"):
        engine.analyse_match(rec)
    with pytest.raises(AssertionError, match="gnubg was asked"):
        gnubg_program.GnubgEvaluator(plies=1).analyse_match(rec, disk_cache=True)
    monkeypatch.setattr(gnubg_program, "_VERSION", "9.99")
    with pytest.raises(AssertionError, match="gnubg was asked"):
        engine.analyse_match(rec, disk_cache=True)
    assert sorted((tmp_path / "gnubg").iterdir()) == kept


def _spoil(path: Path, how: str, other: Path) -> None:
    import gzip

    data = path.read_bytes()
    if how == "another match's file":
        path.write_bytes(other.read_bytes())
    elif how == "a byte changed":
        path.write_bytes(data[:2000] + bytes([data[2000] ^ 0x55]) + data[2001:])
    elif how == "cut short":
        path.write_bytes(data[: len(data) // 2])
    else:  # the document changed, its identity and digest kept: a value of gnubg's altered
        text = gzip.decompress(data).decode()
        i = text.index('"score"')
        j = i + text[i:].index(".") + 1
        digit = "1" if text[j] != "1" else "2"
        path.write_bytes(gzip.compress((text[:j] + digit + text[j + 1:]).encode()))


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses two matches six times: about 3 CPU-s
def test_a_damaged_or_foreign_kept_analysis_is_never_served(gnubg, tmp_path, monkeypatch
                                                            ) -> None:  # fmt: skip
    """A kept file that fails a check (another match's file under this one's name, a byte
    changed, cut short, a value altered under its checksum) is a one-line warning and is
    analysed again, then kept again; a cache directory that cannot be made is a warning,
    the analysis still gnubg's."""
    from mathbg.analysis import gnubg_program
    from mathbg.errors import MathbgWarning
    from mathbg.rules.formats import read_match, render_match

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    rec, other = read_match(FIVE), read_match(DATA / "match2287710.txt")
    ref = _analysed_in_one(rec, 0)
    engine = gnubg_program.GnubgEvaluator(plies=0)
    engine.analyse_match(other, disk_cache=True)
    path = gnubg_program.kept_analysis_path(render_match(rec, "mat"), 0)
    foreign = gnubg_program.kept_analysis_path(render_match(other, "mat"), 0)
    assert path is not None and foreign is not None
    for how, why in [("another match's file", "another match"),
                     ("a byte changed", "(CRC|Error)"), ("cut short", "(EOF|end)"),
                     ("a value altered", "checksum mismatch")]:  # fmt: skip
        engine.analyse_match(rec, disk_cache=True)
        _spoil(path, how, foreign)
        with pytest.warns(MathbgWarning, match=f"damaged kept analysis .*{why}"):
            got = engine.analyse_match(rec, disk_cache=True)
        assert json.dumps(got, sort_keys=True) == ref, how
        kept = gnubg_program.kept_analysis(render_match(rec, "mat"), 0)
        assert json.dumps(kept, sort_keys=True) == ref, how
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("MATHBG_DATA", str(blocked))
    with pytest.warns(MathbgWarning, match="analysis not kept"):
        got = engine.analyse_match(rec, disk_cache=True)
    assert json.dumps(got, sort_keys=True) == ref
    assert blocked.read_text() == "not a directory"


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # two gnubg processes start: about 1 CPU-s
def test_an_interrupted_job_leaves_no_answer_for_the_next(gnubg) -> None:
    """An interrupt while gnubg works (Ctrl-C in a notebook) stops that process: its
    answer would otherwise reach the next job; the next analysis starts a new one."""
    from mathbg.analysis import gnubg_program
    from mathbg.rules.formats import read_match

    session = gnubg_program.gnubg_session()

    class Interrupted:
        def readline(self) -> str:
            raise KeyboardInterrupt

    read, session._read = session._read, Interrupted()
    rec = read_match(FIVE)
    with pytest.raises(KeyboardInterrupt):
        gnubg_program.GnubgEvaluator(plies=0).analyse_match(rec)
    session._read = read
    assert session._proc.poll() is not None
    assert gnubg_program.gnubg_session() is not session
    assert json.dumps(gnubg_program.GnubgEvaluator(plies=0).analyse_match(rec),
                      sort_keys=True) == _analysed_in_one(rec, 0)  # fmt: skip


#: What gnubg's analysis of a cube decision holds.
CUBE_KEYS = ("nd-cubeful-eq", "dt-cubeful-eq", "probs")


def _cube_analyses(doc: dict) -> list[dict]:
    return [{k: (a.get("analysis") or {}).get(k) for k in CUBE_KEYS}
            for g in doc["games"] for a in g["game"]]  # fmt: skip


@pytest.mark.gnubg(kind="multi-ply")
@pytest.mark.slow  # gnubg analyses a 7-point match at 1 ply three times: about 4 CPU-s
def test_a_cube_only_analysis_values_the_cube_as_the_whole_analysis(gnubg, tmp_path,
                                                                    monkeypatch) -> None:
    """gnubg told to analyse the cube decisions only (``set analysis moves off``, ``luck
    off``) gives each one the numbers of its whole ``analyse match`` and values no play; the
    audit's cube decisions are the same. The cube-only analysis is kept apart: it never
    serves a whole audit, and a whole analysis kept serves a cube-only audit."""
    from mathbg.analysis import audit, gnubg_program
    from mathbg.errors import MathbgWarning
    from mathbg.rules.formats import read_match, render_match

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    rec = read_match(DATA / "match2287710.txt")
    text = render_match(rec, "mat")
    whole = json.loads(_analysed_in_one(rec, 1))
    engine = gnubg_program.GnubgEvaluator(plies=1)
    cube = engine.analyse_match(rec, checker=False, disk_cache=True)
    assert _cube_analyses(cube) == _cube_analyses(whole)
    assert sum(c["nd-cubeful-eq"] is not None for c in _cube_analyses(whole)) >= 20
    assert not any((a.get("analysis") or {}).get("moves") for g in cube["games"]
                   for a in g["game"])  # fmt: skip
    kept_cube = gnubg_program.kept_analysis_path(text, 1, checker=False)
    assert kept_cube is not None and sorted((tmp_path / "gnubg").iterdir()) == [kept_cube]
    options = {"engine": engine, "exact": False, "take_points": False}
    assert audit(rec, checker=False, **options).decisions \
        == audit(rec, checker=True, **options).decisions
    session = gnubg_program.gnubg_session
    monkeypatch.setattr(gnubg_program, "gnubg_session", _no_gnubg)
    assert engine.analyse_match(rec, checker=False, disk_cache=True) == cube
    with pytest.raises(AssertionError, match="gnubg was asked"):
        engine.analyse_match(rec, disk_cache=True)  # a whole analysis is not kept
    kept_whole = gnubg_program.kept_analysis_path(text, 1)
    assert kept_whole is not None
    kept_whole.write_bytes(kept_cube.read_bytes())  # the cube-only file under the other name
    with pytest.warns(MathbgWarning, match="damaged kept analysis"), \
            pytest.raises(AssertionError, match="gnubg was asked"):
        engine.analyse_match(rec, disk_cache=True)
    kept_whole.unlink()
    monkeypatch.setattr(gnubg_program, "gnubg_session", session)
    assert json.dumps(engine.analyse_match(rec, disk_cache=True), sort_keys=True) \
        == json.dumps(whole, sort_keys=True)
    kept_cube.unlink()
    monkeypatch.setattr(gnubg_program, "gnubg_session", _no_gnubg)
    assert engine.analyse_match(rec, checker=False, disk_cache=True) == whole


@pytest.mark.gnubg(kind="multi-ply")
@pytest.mark.slow  # gnubg analyses a 7-point match at 1 ply twice: about 2 CPU-s
def test_games_analysed_one_by_one_are_gnubgs_analyse_match_at_one_ply(gnubg) -> None:
    """The same at 1 ply (gnubg's n-ply search with its pruning nets), on this machine."""
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.rules.formats import read_match

    rec = read_match(DATA / "match2287710.txt")
    doc = GnubgEvaluator(plies=1, threads=2).analyse_match(rec)
    assert json.dumps(doc, sort_keys=True) == _analysed_in_one(rec, 1)
    assert all(a.get("analysis") for g in doc["games"] for a in g["game"]
               if a["action"] == "move" and a.get("dice"))


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 3 matches: about 2 CPU-s
def test_cube_values_from_gnubg_chances_equal_gnubg(gnubg) -> None:
    """mathbg's cube step of gnubg's cubeless chances gives gnubg's no double and
    double/take values (MWC) to the bit, inside the two-sided database too (its chance and
    cube lives from gnubg's 16-bit table)."""
    from gnubg_match_peer import cube_decisions, gnubg_match_dict

    from mathbg.analysis.base import Evaluation, evaluation_class
    from mathbg.analysis.match_audit.cube import cube_points, value_points
    from mathbg.analysis.match_audit.engines import two_sided_database
    from mathbg.cube.life import cube_life
    from mathbg.rules.formats import read_match

    db = two_sided_database(_Capture().engine)
    bearoffs = 0
    for path in (FIVE, DATA / "match2287710.txt", DATA / "match1032950.txt",
                 DATA / "match1209610.txt"):  # fmt: skip
        ref = cube_decisions(gnubg_match_dict(gnubg, path, plies=0))
        points = cube_points(read_match(path))
        evs = [Evaluation(tuple(r["probs"]), "gnubg", 0, evaluation_class(p.position),  # type: ignore[arg-type]
                          cube_life(evaluation_class(p.position), p.position.pips()[0]))
               for p, r in zip(points, ref, strict=True)]  # fmt: skip
        values = value_points(points, evs, KXG2, exact=False, take_points=False,
                              two_sided=lambda: db)  # fmt: skip
        for v, r, p in zip(values, ref, points, strict=True):
            assert np.float32(v.no_double) == np.float32(r["no_double"]), (path.name, p.move)
            assert np.float32(v.double_take) == np.float32(r["double_take"])
            bearoffs += evaluation_class(p.position) == "two-sided bearoff"
    assert bearoffs >= 2


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # about 330 gnubg hints (3 s of gnubg's idle waits, 1 CPU-s)
def test_luck_equals_gnubg(gnubg) -> None:
    """mathbg's luck of a roll, valued with gnubg's own 0-ply outputs of every play of
    every roll (gnubg's ``hint``), is gnubg's ``luck-value`` of ``analyse match``: the
    opening (LuckFirst), contact, race and bearoff rolls and a dance."""
    from gnubg_match_peer import gnubg_hints, gnubg_match_dict

    from mathbg.analysis.match_audit.engines import two_sided_database
    from mathbg.rules.position import make_position

    path = DATA / "match1209610.txt"
    turns = match_turns(__import__("mathbg").rules.read_match(path))
    ref = [a for g in gnubg_match_dict(gnubg, path)["games"] for a in g["game"]
           if a["action"] == "move"]  # fmt: skip
    dances = [i for i, t in enumerate(turns) if t.result == t.position.cells][:1]
    bearoffs = [i for i, t in enumerate(turns) if t.position.position_class == "bearoff"][-2:]
    picked = sorted({0, 1, *range(2, len(turns), 10), *dances, *bearoffs})
    items = sorted({(turns[i].position_id, *r) for i in picked for r in ROLLS})
    hints = dict(zip(items, gnubg_hints(gnubg, items), strict=True))

    class Hinted:
        name, plies = "gnubg", 0

        def evaluate_plays(self, boards, rolls):  # type: ignore[no-untyped-def]
            ptr, res, out = [0], [], []
            for b, (d1, d2) in zip(boards, rolls, strict=True):
                pos = make_position(bytes(b))
                plays = pos.legal_plays((int(d1), int(d2)))
                for text, p in hints[(pos.id, int(max(d1, d2)), int(min(d1, d2)))]:
                    res.append(np.frombuffer(plays.parse(text).next_position.cells, np.uint8))
                    out.append(invert(p))
                ptr.append(len(res))
            return (np.array(ptr), np.array(res, dtype=np.uint8).reshape(-1, 50),
                    np.array(out).reshape(-1, 5))

        def evaluate_many(self, positions, matches=None):  # type: ignore[no-untyped-def]
            from mathbg.analysis.gnubg_program import GnubgEvaluator

            return GnubgEvaluator().evaluate_many(positions)

    db = two_sided_database(_Capture().engine)
    values = turn_values([turns[i] for i in picked], Hinted(), KXG2,  # type: ignore[arg-type]
                         two_sided=db)  # fmt: skip
    for i, v in zip(picked, values, strict=True):
        assert v.luck == pytest.approx(ref[i]["analysis"]["luck-value"], abs=2e-5), i
    assert turns[picked[0]].opening
    classes = {turns[i].position.position_class for i in picked}
    assert {"contact", "race", "bearoff"} <= classes and dances


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses and loads a 7-point match: about 3 CPU-s
@pytest.mark.parametrize(
    "engine", [pytest.param("gnubg-nn", marks=pytest.mark.extra("engine")), "gnubg"]
)
def test_gnubg_opens_the_analysed_sgf(gnubg, tmp_path: Path, engine: str) -> None:
    """The match written back as .sgf with the analysis: gnubg loads it and its statistics
    of the file (recomputed from the properties) are the audit's, line for line."""
    from gnubg_match_peer import statistics_block

    from mathbg.analysis.match_audit.sgf import analysed_sgf
    from mathbg.rules.formats import read_match

    rec = read_match(DATA / "match2287710.txt")
    m = audit(rec, engine=engine, exact=False, take_points=False).matches[0]
    sgf = tmp_path / "analysed.sgf"
    sgf.write_text(analysed_sgf(rec, m))
    out = gnubg.run_commands([f"load match {sgf}", "show statistics match"])
    assert statistics_block(out) == m.statistics_text().rstrip("\n").splitlines()


@pytest.mark.extra("engine")
@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg and gnubg-nn analyse 16 matches: about 18 CPU-s
def test_gnubg_nn_within_engine_distance(gnubg) -> None:
    """gnubg-nn's networks are not 1.07's: its error rates stay within a few mEMG of
    gnubg's (measured: see the docs) and its best play is gnubg's on most rolls."""
    diffs, same, n = [], 0, 0
    for path in MATCHES:
        a = audit(path, engine="gnubg", exact=False, take_points=False).matches[0]
        b = audit(path, engine="gnubg-nn", exact=False, take_points=False).matches[0]
        for pa, pb in zip(a.statistics.players, b.statistics.players, strict=True):
            if pa.checker_rate_emg is not None:
                diffs.append(abs(pa.checker_rate_emg - (pb.checker_rate_emg or 0.0)))
        for x, y in zip(a.plays, b.plays, strict=True):
            if x.plays > 1:
                n += 1
                same += x.best == y.best
    assert max(diffs) < 0.005 and same >= 0.9 * n


def test_json_of_known_keys() -> None:
    """The JSON's statistics carry gnubg's names (a schema the CLI prints)."""
    from mathbg.analysis.match_audit.statistics import PlayerStatistics

    names = set(PlayerStatistics.__dataclass_fields__)
    assert {"checker_rate_emg", "cube_rate_emg", "error_rate_emg", "pr", "snowie_error_rate",
            "luck_emg", "luck_adjusted_result", "overall_rating"} <= names
    assert json.dumps(sorted(names))


def test_costliest_lists_the_largest_errors_first() -> None:
    """The decisions a rollout would re-check: every error of the match (and only errors),
    by MWC lost, costliest first; a kind keeps its own; k bounds the list."""
    from mathbg.analysis import get_evaluator
    from mathbg.errors import InvalidParameterError
    from mathbg.rules.formats.example import example_match

    given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
    m = audit(example_match(), engine=given, exact=False, take_points=False,
              checker=False).matches[0]  # fmt: skip
    errors = [d for d in m.decisions if d.error_emg > 1e-9]
    top = m.costliest(100)
    assert len(top) == len(errors) == 4 and all(d in errors for d in top)
    costs = [d.error_mwc for d in top]
    assert costs == sorted(costs, reverse=True) and costs[0] == max(d.error_mwc for d in errors)
    assert m.costliest(2) == top[:2] and m.costliest(0) == []
    assert m.costliest(9, "cube") == top and m.costliest(9, "checker") == []
    with pytest.raises(InvalidParameterError, match="kind must be"):
        m.costliest(3, "moves")
    with pytest.raises(InvalidParameterError, match="k must be"):
        m.costliest(-1)


@pytest.mark.extra("engine")
@pytest.mark.slow  # a 13-point match at 1 ply: about 9 CPU-s
def test_a_play_that_ends_the_game_is_valued_exactly_at_any_ply() -> None:
    """At 1 ply the plays of a roll are valued again; one that bears off the last checker
    ends the game, and its value is the game's result (gnubg's EvalOver), not an engine's
    (which refused a finished game: the audit failed with "the game is over")."""
    from mathbg.cube.cubeful import emg

    match = Path(__file__).parent / "data" / "gnubg_selfplay13.mat"  # gnubg 1.07 vs itself
    plays = audit(match, engine="gnubg-nn", plies=1).matches[0].plays
    by_place = {(p.game, p.move, p.player): p for p in plays}
    # game 8, move 24: gnubg rolls 43 with a checker on its 4- and 3-points: 4/off 3/off wins
    p = by_place[(8, 24, "gnubg")]
    first = p.options[0]
    assert first.play == "4/off 3/off"
    assert first.probabilities == (1.0, 0.0, 0.0, 0.0, 0.0)
    # a single win: EMG +1 by definition (to gnubg's single precision, as all play values)
    assert first.equity == pytest.approx(1.0, abs=1e-6)
    # game 5, move 28: gnubg's 32 bears off its last two checkers for a gammon
    p = by_place[(5, 28, "gnubg")]
    first = p.options[0]
    assert first.probabilities == (1.0, 1.0, 0.0, 0.0, 0.0)
    a, b = p.away
    win2 = KXG2.mwc((a - 2 * p.cube, b))  # the score after a gammon at this cube
    assert first.equity == pytest.approx(emg(win2, KXG2, (a, b), p.cube), abs=1e-6)


def _side(draw: object, spread: str) -> list[int]:
    """One side's 25 counts (points 1-24, bar), at most 15 checkers: all within the home
    board, there with one straggler anywhere, or anywhere."""
    from hypothesis import strategies as st

    cells = 25 if spread == "anywhere" else 6
    counts = draw(st.lists(st.integers(0, 4), min_size=cells, max_size=cells))  # type: ignore[operator]
    counts += [0] * (25 - cells)
    if spread == "straggler":
        counts[draw(st.integers(0, 24))] += 1  # type: ignore[operator]
    while sum(counts) > 15:
        counts[counts.index(max(counts))] -= 1
    return counts


def test_board_classes_follow_their_definition() -> None:
    """Each board's class and pips by the definitions, one board at a time: a side with no
    checkers, the game is over; both sides within their home boards, a bearoff (two-sided
    with at most 6 checkers a side); the two backmost checkers passed (highest occupied
    points summing to at most 22, 0-based, the bar 24), a race; else contact."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mathbg.analysis.match_audit.plays import CLASS_NAMES, board_classes

    @st.composite
    def boards(draw: object) -> list[int]:
        spreads = st.sampled_from(["home", "straggler", "anywhere"])
        return _side(draw, draw(spreads)) + _side(draw, draw(spreads))  # type: ignore[operator]

    def by_definition(b: list[int]) -> tuple[str, int]:
        off, on = b[:25], b[25:]
        pips = sum((i + 1) * n for i, n in enumerate(on))
        if sum(off) == 0 or sum(on) == 0:
            return "over", pips
        if not any(off[6:]) and not any(on[6:]):
            small = sum(off) <= 6 and sum(on) <= 6
            return ("two-sided bearoff" if small else "one-sided bearoff"), pips
        back = max(i for i in range(25) if off[i]) + max(i for i in range(25) if on[i])
        return ("contact" if back > 22 else "race"), pips

    @settings(max_examples=300, deadline=None)
    @given(st.lists(boards(), min_size=1, max_size=8))
    def check(many: list[list[int]]) -> None:
        classes, pips = board_classes(np.array(many, dtype=np.uint8))
        got = [(CLASS_NAMES[int(c)], int(p)) for c, p in zip(classes, pips, strict=True)]
        assert got == [by_definition(b) for b in many]

    check()


def test_the_class_kernel_uses_the_class_codes() -> None:
    from mathbg.analysis.match_audit import _kernels
    from mathbg.analysis.match_audit.plays import CLASS_NAMES

    codes = [_kernels.OVER, _kernels.CONTACT, _kernels.RACE, _kernels.BEAROFF1, _kernels.BEAROFF2]
    assert [CLASS_NAMES[c] for c in codes] == [
        "over", "contact", "race", "one-sided bearoff", "two-sided bearoff"]


def _one_state_value(p: np.ndarray, a: int, b: int, cube: int, owner: int,
                     crawford: bool) -> tuple[float, float, float]:  # fmt: skip
    """One play's EMG, MWC and cubeless EMG with scalar scores (gnubg's rules written out:
    the opponent, on roll, holds the mover's cube state seen from its side and doubles,
    ``GetDPEq``, when not in the Crawford game, from the centre or its own side, needing
    more than the cube; it doubles when double/take and double/pass are both at least no
    double, and then takes the smaller)."""
    from mathbg.cube.cubeful import cubeful_mwc, cubeless_mwc, emg
    from mathbg.cube.life import CONTACT_CUBE_LIFE as X
    from mathbg.rules.cube import CubeOwner

    theirs = [CubeOwner.CENTRE, CubeOwner.OPPONENT, CubeOwner.PLAYER][owner]
    nd = float(cubeful_mwc(p, KXG2, (b, a), cube=cube, owner=theirs, cube_life=X,
                           crawford=crawford))  # fmt: skip
    value = nd
    if theirs is not CubeOwner.OPPONENT and not crawford and b > cube:
        dt = float(cubeful_mwc(p, KXG2, (b, a), cube=2 * cube, owner=CubeOwner.OPPONENT,
                               cube_life=X, crawford=crawford))  # fmt: skip
        dp = float(cubeless_mwc([1.0, 0, 0, 0, 0], KXG2, (b, a), cube, crawford=crawford))
        if dt >= nd and dp >= nd:
            value = min(dt, dp)
    mover = 1.0 - value
    cl = 1.0 - float(cubeless_mwc(p, KXG2, (b, a), cube, crawford=crawford))
    return (float(emg(mover, KXG2, (a, b), cube, crawford=crawford, undefined="nan")), mover,
            float(emg(cl, KXG2, (a, b), cube, crawford=crawford, undefined="nan")))  # fmt: skip


def test_play_values_of_many_states_are_each_state_alone() -> None:
    """The plays of a whole match are valued in one batch, each row at its own score and
    cube state: every row equals, to the bit, its value computed alone, and, to gnubg's
    single precision (the values are its; the reference works in double), gnubg's rules
    written out with scalar scores (random chances, scores to 13-away, cubes 1-8 owned
    anywhere, the Crawford and post-Crawford games; contact positions, cube life 0.68)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mathbg.rules.position import Position

    board = np.frombuffer(Position.initial().cells, dtype=np.uint8)

    @st.composite
    def row(draw: st.DrawFn) -> tuple[list[float], int, int, int, int, bool]:
        a, b = draw(st.integers(1, 13)), draw(st.integers(1, 13))
        crawford = (a == 1) != (b == 1) and draw(st.booleans())
        cube, owner = (1, 0) if crawford else (
            draw(st.sampled_from([1, 2, 4, 8])), draw(st.integers(0, 2)))  # fmt: skip
        if cube == 1:
            owner = 0
        w = draw(st.floats(0.0, 1.0))
        wg = draw(st.floats(0.0, w))
        lg = draw(st.floats(0.0, 1.0 - w))
        probs = [w, wg, draw(st.floats(0.0, wg)), lg, draw(st.floats(0.0, lg))]
        return probs, a, b, cube, owner, crawford

    @settings(max_examples=40, deadline=None)
    @given(st.lists(row(), min_size=1, max_size=12))
    def check(rows: list[tuple[list[float], int, int, int, int, bool]]) -> None:
        p = np.array([r[0] for r in rows])
        states = ScoreStates(np.array([[r[1], r[2]] for r in rows]),
                             np.array([r[3] for r in rows]), np.array([r[4] for r in rows]),
                             np.array([r[5] for r in rows]))  # fmt: skip
        got = play_values(np.repeat(board[None], len(rows), axis=0), p, states, KXG2)
        for k, (probs, a, b, cube, owner, crawford) in enumerate(rows):
            want = _one_state_value(np.array(probs), a, b, cube, owner, crawford)
            have = (float(got.equity[k]), float(got.mwc[k]), float(got.cubeless[k]))
            np.testing.assert_allclose(have, want, rtol=0, atol=2e-5, err_msg=str(rows[k]))
            alone = play_values(board[None], p[k:k + 1], states.take(np.array([k])), KXG2)
            np.testing.assert_array_equal(
                have, (alone.equity[0], alone.mwc[0], alone.cubeless[0]))  # type: ignore[index]

    check()


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses 5 money sessions: about 5 CPU-s
def test_money_session_statistics_equal_gnubg(gnubg, tmp_path) -> None:
    """Money sessions (five of the test matches played as a money session, the Jacoby rule
    on as gnubg imports them): every line of gnubg's ``show statistics match`` is mathbg's
    with the native engine, the points-per-game advantage and gnubg's interval included.
    The sessions turn the cube and own it: a cube decision valued as if the cube were
    centred (gammons ignored under the Jacoby rule) misses gnubg's no-double value by a
    quarter of a point; two have cube decisions inside the two-sided database, valued
    from gnubg's 16-bit table."""
    import dataclasses
    import re
    import warnings

    from gnubg_match_peer import gnubg_match_dict, statistics_block

    from mathbg.analysis.base import evaluation_class
    from mathbg.analysis.gnubg_program import GnubgEvaluator
    from mathbg.errors import MathbgWarning
    from mathbg.rules.formats import read_match
    from mathbg.rules.position import Position

    peer = GnubgEvaluator(plies=0)
    owned = bearoffs = 0
    for name in ("match10147827.txt", "match2287710.txt", "match11357359.txt",
                 "match10014006.txt", "match1071157.txt"):  # the last two: two-sided cubes
        path = tmp_path / name
        path.write_text(re.sub(r"(?m)^ *\d+ point match", " 0 point match",
                               (DATA / name).read_text()))  # fmt: skip
        with warnings.catch_warnings():  # a resignation worth less than a money cube
            warnings.simplefilter("ignore", MathbgWarning)
            rec = read_match(path)
        rec = dataclasses.replace(rec, rules=dataclasses.replace(rec.rules, jacoby=True))
        ref = statistics_block(peer.analyse_match(rec, statistics=True)["statistics"])
        res = audit(rec, engine="native", exact=False, take_points=False)
        assert res.matches[0].statistics_text().rstrip("\n").splitlines() == ref, name
        assert any(line.startswith("Advantage (actual) in ppg") for line in ref)
        owned += sum(d.owner != "centre" for d in res.decisions)
        # the decisions inside the two-sided database: gnubg's values to the bit
        by_board: dict[str, list[dict]] = {}  # type: ignore[type-arg]
        for game in gnubg_match_dict(gnubg, path)["games"]:
            for a in game["game"]:
                if "nd-cubeful-eq" in (a.get("analysis") or {}):
                    by_board.setdefault(a["board"], []).append(a["analysis"])
        for d in res.decisions:
            if d.kind != "double" or not by_board.get(d.position_id):
                continue
            g = by_board[d.position_id].pop(0)
            if evaluation_class(Position.from_id(d.position_id)) == "two-sided bearoff":
                assert np.float32(d.values.no_double) == np.float32(g["nd-cubeful-eq"])
                assert np.float32(d.values.double_take) == np.float32(g["dt-cubeful-eq"])
                bearoffs += 1
    assert owned > 100 and bearoffs >= 3


def test_gnubgs_steps_lead_to_the_plays_results() -> None:
    """The gnubg program's analysis names each play by its single-die steps: applied to
    the board (a blot landed on goes to the bar) they give the legal play's result, for
    every play of random contact, race and bar positions; steps that are no legal play
    are resolved as notation, which refuses them."""
    from mathbg.analysis.match_audit.engines import _result, _stepped
    from mathbg.analysis.sample import random_positions
    from mathbg.errors import MathbgError
    from mathbg.rules.dice import ROLLS

    checked = 0
    for i, pos in enumerate(random_positions(60, seed=11, kind="contact")
                            + random_positions(20, seed=12, kind="race")):  # fmt: skip
        plays = pos.legal_plays(ROLLS[i % len(ROLLS)])
        for play in plays:
            assert _stepped(pos.cells, play.moves) == play.result.cells
            assert _result(plays, pos.cells, play.moves) == play.result.cells
            checked += 1
    assert checked > 1000
    pos = random_positions(1, seed=13, kind="contact")[0]
    plays = pos.legal_plays((6, 5))
    with pytest.raises(MathbgError):
        _result(plays, pos.cells, [(25, 19), (19, 14)])  # no checker on the bar


def _composed_values(p: np.ndarray, mover: single.CubeInfo, x_nd: np.ndarray,
                   x_dt: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """gnubg's ``ScoreMove`` values of plays in single precision, composed of the numpy
    reference's functions (tests/gnubg_single_reference.py): the opponent, on roll,
    doubles when that is right (``GetECF3``), the mover's MWC is one minus the opponent's,
    its EMG ``mwc2eq`` at the mover's state; the cubeless EMG and the EMG as a
    pass-through (the opponent's value, negated)."""
    ci = mover.turned()
    value = reference.cubeful_mwc(p, KXG2, ci, x_nd)
    may, dp = single.double_pass(KXG2, ci)
    if may:
        dt = reference.cubeful_mwc(p, KXG2, ci.doubled(), x_dt)
        doubles = (dt >= value) & (dp >= value)
        value = np.where(doubles, np.where(dt >= dp, dp, dt), value).astype(np.float32)
    mwc = np.float32(1.0) - value
    return (reference.mwc2eq(mwc, KXG2, mover), mwc, -reference.utility(p, KXG2, ci),
            -reference.mwc2eq(value, KXG2, ci))  # fmt: skip


def _assert_single_bits(rows: list[tuple[list[float], int, int, int, int, bool, int, float]],
                        ) -> None:  # fmt: skip
    """:func:`plays._single_values` of ``rows`` (chances, the mover's and the opponent's
    away, cube, owner code, Crawford, the mover's player, cube life) equal
    :func:`_composed_values` to the bit."""
    from mathbg.analysis.match_audit import plays

    p32 = np.array([r[0] for r in rows], dtype=np.float32)
    states = ScoreStates(np.array([[r[1], r[2]] for r in rows]), np.array([r[3] for r in rows]),
                         np.array([r[4] for r in rows]), np.array([r[5] for r in rows]),
                         player=np.array([r[6] for r in rows]))  # fmt: skip
    x = np.array([r[7] for r in rows], dtype=np.float32)
    x_dt = x[::-1].copy()
    got = plays._single_values(p32, (x, x_dt), states, KXG2)
    for k, (_, a, b, cube, owner, crawford, player, _) in enumerate(rows):
        away = (a, b) if player == 0 else (b, a)
        holder = {0: -1, 1: player, 2: 1 - player}[owner]
        mover = single.CubeInfo(away, cube, holder, player, crawford)
        want = _composed_values(p32[k : k + 1], mover, x[k : k + 1], x_dt[k : k + 1])
        have = (got.equity[k], got.mwc[k], got.cubeless[k], got.passed[k])
        for h, w in zip(have, want, strict=True):
            assert np.float64(w[0]).tobytes() == np.float64(h).tobytes(), (rows[k], h, w)


_Row = tuple[list[float], int, int, int, int, bool, int, float]


def _rows_strategy() -> Any:
    """hypothesis rows (chances, the mover's and the opponent's away, cube, owner code,
    Crawford, the mover's player, cube life): scores to 25-away (deep cash-point
    recursions), cubes 1-64 owned anywhere, the Crawford and post-Crawford games, both
    players moving; certain wins and losses, no gammons and all gammons among the
    chances."""
    from hypothesis import strategies as st

    unit = st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0.0, 1.0, width=32))

    @st.composite
    def row(draw: st.DrawFn) -> _Row:
        a, b = draw(st.integers(1, 25)), draw(st.integers(1, 25))
        crawford = (a == 1) != (b == 1) and draw(st.booleans())
        cube, owner = (1, 0) if crawford else (
            draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64])), draw(st.integers(0, 2)))  # fmt: skip
        if cube == 1:
            owner = 0
        w = draw(unit)
        wg = w * draw(unit)
        lg = (1.0 - w) * draw(unit)
        probs = [w, wg, wg * draw(unit), lg, lg * draw(unit)]
        return probs, a, b, cube, owner, crawford, draw(st.integers(0, 1)), draw(unit)

    return st.lists(row(), min_size=1, max_size=20)


def _seeded_rows(n: int = 3000) -> list[_Row]:
    """``n`` rows like :func:`_rows_strategy`'s from a seeded generator (scores to
    13-away, cubes to 8)."""
    rng = np.random.default_rng(32)
    seeded = []
    for _ in range(n):
        a, b = (int(v) for v in rng.integers(1, 14, 2))
        crawford = (a == 1) != (b == 1) and bool(rng.integers(2))
        cube = 1 if crawford else int(2 ** rng.integers(0, 4))
        owner = 0 if cube == 1 else int(rng.integers(3))
        w, u = rng.random(), rng.random(4)
        probs = [w, w * u[0], w * u[0] * u[1], (1 - w) * u[2], (1 - w) * u[2] * u[3]]
        seeded.append((probs, a, b, cube, owner, crawford, int(rng.integers(2)),
                       float(rng.random())))  # fmt: skip
    return seeded


def test_the_play_values_kernel_is_the_reference_arithmetic_to_the_bit() -> None:
    """The kernel that values every play (:func:`play_values`) does the operations of
    gnubg's compiled code in their order, as the numpy reference transcribes them
    (tests/gnubg_single_reference.py): its four values equal the reference's to the bit
    (signed zeros, infinities and NaN included), for random chances, cube lives and
    states; drawn by hypothesis, and 3,000 rows of a seeded generator (a change of one
    operation's order moves the last bit of about one row in a hundred)."""
    from hypothesis import given, settings

    @settings(max_examples=60, deadline=None)
    @given(_rows_strategy())
    def check(rows: list[_Row]) -> None:
        _assert_single_bits(rows)

    check()
    _assert_single_bits(_seeded_rows())


def _assert_cube_bits(rows: list[_Row]) -> None:
    """:func:`plays.single_cube_values` of ``rows`` (the mover of a row is the roller)
    equal the reference's ``cubeful_mwc`` (no double; doubled and taken), ``double_pass``
    and ``mwc2eq`` at the roller's state, to the bit."""
    from mathbg.analysis.match_audit.plays import single_cube_values

    p32 = np.array([r[0] for r in rows], dtype=np.float32)
    x = np.array([r[7] for r in rows], dtype=np.float32)
    x_dt = x[::-1].copy()
    rollers = []
    for _, a, b, cube, owner, crawford, player, _ in rows:
        away = (a, b) if player == 0 else (b, a)
        holder = {0: -1, 1: player, 2: 1 - player}[owner]
        rollers.append(single.CubeInfo(away, cube, holder, player, crawford))
    got = single_cube_values(p32, (x, x_dt), rollers, KXG2)
    for k, ci in enumerate(rollers):
        nd = reference.cubeful_mwc(p32[k : k + 1], KXG2, ci, x[k : k + 1])
        dt = reference.cubeful_mwc(p32[k : k + 1], KXG2, ci.doubled(), x_dt[k : k + 1])
        dp = np.asarray([single.double_pass(KXG2, ci)[1]], dtype=np.float32)
        want = (nd, dt, dp, *(reference.mwc2eq(v, KXG2, ci) for v in (nd, dt, dp)))
        for h, w in zip(got, want, strict=True):
            assert np.float64(w[0]).tobytes() == np.float64(h[k]).tobytes(), (rows[k], h[k], w)


def test_the_cube_decisions_kernel_is_the_reference_arithmetic_to_the_bit() -> None:
    """The audit's cube decisions go through the plays' arithmetic (one implementation of
    gnubg's cube step): no double, double/take, double/pass and the three as EMG equal
    the numpy reference's to the bit, on the same rows as the plays' test (a roller at
    every score, cube and owner)."""
    from hypothesis import given, settings

    @settings(max_examples=60, deadline=None)
    @given(_rows_strategy())
    def check(rows: list[_Row]) -> None:
        _assert_cube_bits(rows)

    check()
    _assert_cube_bits(_seeded_rows(1500))


@pytest.mark.parametrize("money", [False, True])
def test_play_values_of_shared_states_are_those_of_each_plays_own(money: bool) -> None:
    """``state_of`` (each play indexes one of a few states, as a turn's plays share its
    state) gives the values of the states copied to every play, to the bit: contact,
    race and two-sided bearoff boards (whose cube lives come from the database at each
    play's state), match and money states."""
    from mathbg.analysis.sample import random_positions

    rng = np.random.default_rng(7)
    pos = (random_positions(8, seed=3, kind="contact") + random_positions(8, seed=4, kind="race")
           + random_positions(8, seed=5, kind="two-sided bearoff"))  # fmt: skip
    boards = np.array([np.frombuffer(p.cells, dtype=np.uint8) for p in pos])
    boards = boards[rng.integers(0, len(boards), 300)]
    w = rng.random(300)
    probs = np.stack([w, 0.3 * w, 0.1 * w, 0.3 * (1 - w), 0.1 * (1 - w)], axis=1)
    assert (board_classes(boards)[0] == CLASS_NAMES.index("two-sided bearoff")).any()
    if money:
        states = ScoreStates(np.zeros((3, 2), np.int64), np.array([1, 2, 4]), np.array([0, 1, 2]),
                             np.zeros(3, bool), money=True)  # fmt: skip
    else:
        states = ScoreStates(np.array([[3, 5], [7, 2], [1, 4]]), np.array([1, 2, 1]),
                             np.array([0, 2, 0]), np.array([False, False, True]),
                             player=np.array([0, 1, 1]))  # fmt: skip
    state_of = rng.integers(0, 3, 300)
    shared = play_values(boards, probs, states, KXG2, state_of=state_of)
    copied = play_values(boards, probs, states.take(state_of), KXG2)
    for name in ("equity", "mwc", "cubeless", "passed"):
        a, b = getattr(shared, name), getattr(copied, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tobytes() == b.tobytes(), name


def test_a_turn_keeps_the_legal_plays_its_replay_found() -> None:
    """The checker's notations come from the plays the replay generated (not generated
    again): a turn's plays are its replay decision's, the same plays as its position's
    :meth:`legal_plays` of its dice (a turn made without them generates those)."""
    from dataclasses import replace

    from mathbg.rules.formats.example import example_match

    record = example_match()
    turns = match_turns(record)
    moves = [d for d in record.replay() if d.plays is not None]
    assert len(moves) == len(turns) and all(t.plays is not None for t in turns)
    for t in turns:
        want = [p.result for p in t.position.legal_plays(t.dice)]
        assert [p.result for p in t.legal_plays()] == want
        assert [p.result for p in replace(t, plays=None).legal_plays()] == want


def test_one_replay_serves_the_cube_points_turns_and_statistics() -> None:
    """The audit replays a match once: the cube points, the turns and the statistics made
    from that replay's decisions equal those each function replays for itself."""
    from pathlib import Path

    from mathbg.analysis.match_audit.cube import cube_points
    from mathbg.analysis.match_audit.events import match_statistics
    from mathbg.rules.formats import read_match

    record = read_match(Path(__file__).parent / "data" / "matches" / "match10014006.txt")
    replayed = list(record.replay())
    points = cube_points(record)
    assert cube_points(record, decisions=replayed) == points and len(points) > 10
    turns = match_turns(record)
    assert match_turns(record, decisions=replayed) == turns and len(turns) > 50
    alone = match_statistics(record, [], [], [], [], KXG2, checker=False)
    shared = match_statistics(record, [], [], [], [], KXG2, checker=False, decisions=replayed)
    assert shared == alone
