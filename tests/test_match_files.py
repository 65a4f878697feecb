"""Match records: the .mat and .sgf readers and writers, and the replay of real matches.

Reference numbers come from the files themselves, read here with independent regular
expressions (every ``Wins N point`` line, every score line, every roll and double), from
the rules (a play is legal or not), and from gnubg 1.07 (``tests/test_match_gnubg.py``).
"""

from __future__ import annotations

import itertools
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.cli import main
from mathbg.errors import MatchFileError, MatchReplayError, TargetExistsError
from mathbg.rules import (
    Decision,
    GameOutcome,
    GameRecord,
    MatchRecord,
    MatchRules,
    Move,
    Pass,
    Take,
    read_match,
)
from mathbg.rules.formats import render_match, write_match
from mathbg.rules.formats.fields import written_points
from mathbg.rules.game import GameState, Phase
from mathbg.rules.match import GameStatus, MatchState
from mathbg.rules.record import Beaver, Double

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "matches"
#: The shared collection beside the repository (CI has it), or MATHBG_SHARED_MATCHES.
SHARED = Path(
    os.environ.get("MATHBG_SHARED_MATCHES", HERE.parent.parent / "shared" / "matches" / "galaxy")
)
BUNDLED = sorted(DATA.glob("*.txt"))
SHARED_FILES = sorted(SHARED.glob("*.txt")) if SHARED.is_dir() else []


# ------------------------------------------------------------------ independent file facts


def file_facts(text: str) -> dict[str, list]:
    """What a Galaxy .mat file says, read with plain regular expressions."""
    scores = [
        (int(m.group(1)), int(m.group(2)))
        for m in re.finditer(r"^\s*Game \d+\s*\n\s*\S.*? : (\d+)\s+\S.*? : (\d+)\s*$", text, re.M)
    ]
    return {
        "wins": [int(x) for x in re.findall(r"Wins (\d+) point", text)],
        "scores": scores,
        "rolls": re.findall(r"\b([1-6][1-6]):", text),
        "doubles": [int(x) for x in re.findall(r"Doubles => (\d+)", text)],
        "match_won": ["and the match" in text],
    }


def check_against_file(path: Path) -> MatchRecord:
    rec = read_match(path)  # replays every game, every play checked
    facts = file_facts(path.read_text())
    assert [g.score for g in rec.games] == facts["scores"][: len(rec.games)]
    # the points as written; a match resigned scores what the resignation is worth (gnubg)
    assert [written_points(rec, i)[0] for i in range(len(rec.games))] == facts["wins"]
    moves = [a for g in rec.games for a in g.actions if isinstance(a, Move)]
    assert [f"{a.dice[0]}{a.dice[1]}" for a in moves] == facts["rolls"]
    doubles = [a.value for g in rec.games for a in g.actions if isinstance(a, Double)]
    assert doubles == facts["doubles"]
    # the points of every game add up to the next game's score line and the final score
    score = rec.games[0].score
    for g in rec.games:
        assert g.score == score
        assert g.result is not None
        s = list(score)
        s[g.result.winner] = min(rec.length, s[g.result.winner] + g.result.points)
        score = (s[0], s[1])
    assert rec.final_score == score
    if facts["match_won"][0]:
        resigned = rec.games[-1].result.match_resigned
        assert rec.winner is not None and (max(score) == rec.length or resigned)
    return rec


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_matches_replay_and_agree_with_their_wins_lines(path: Path) -> None:
    check_against_file(path)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_FILES, reason="the shared match collection is not beside the repo")
def test_every_shared_match_replays_and_agrees_with_its_wins_lines() -> None:
    assert len(SHARED_FILES) == 212
    kinds: dict[str, int] = {}
    for path in SHARED_FILES:
        rec = check_against_file(path)
        for g in rec.games:
            assert g.result is not None
            kinds[g.result.kind] = kinds.get(g.result.kind, 0) + 1
    assert set(kinds) == {"single", "gammon", "backgammon", "pass", "resign"}


# ------------------------------------------------------------------ the record and replay


def test_record_fields_and_decisions_of_a_real_match() -> None:
    rec = read_match(DATA / "match10014006.txt")
    assert rec.length == 5 and rec.players == ("lasse", "leon77")
    assert rec.rules == MatchRules(crawford=True, cube_limit=1024)
    assert rec.tags["Site"] == "BackgammonGalaxy" and "Crawford" not in rec.tags
    assert [g.score for g in rec.games] == [(0, 0), (0, 2), (0, 4)]
    assert rec.final_score == (0, 5) and rec.winner == 1
    g1 = rec.games[0]
    assert g1.result == GameOutcome(winner=1, points=2, kind="single", cube=2)
    assert g1.actions[0] == Move(1, (5, 4), ((24, 20), (13, 8)))
    # line 6 of game 1: leon77 doubles, lasse takes on line 7
    dec = [d for d in rec.replay() if d.game == 1]
    double = next(d for d in dec if isinstance(d.action, Double))
    take = dec[double.index + 1]
    assert (double.move, double.player, double.cube, double.cube_owner) == (6, 1, 1, None)
    assert isinstance(take.action, Take) and (take.move, take.player, take.on_roll) == (7, 0, 1)
    assert take.match.doubled and take.match.turn == 0
    after = dec[double.index + 2]
    assert after.cube == 2 and after.cube_owner == 0
    # gnubg's IDs of these decisions (its 'export match text' of this file)
    assert (dec[0].position_id, dec[0].match_id) == ("4HPwATDgc/ABMA", "cIiyAAAAAAAE")
    assert (dec[1].position_id, dec[1].match_id) == ("4PPgASHgc/ABMA", "MIGuAAAAAAAE")
    assert (double.position_id, double.match_id) == ("xPMcGBDkdoMBAw", "cAmgAAAAAAAE")
    assert (take.position_id, take.match_id) == ("xPMcGBDkdoMBAw", "cBGgAAAAAAAE")
    assert all(isinstance(d, Decision) for d in dec)
    assert all(d.play is not None for d in dec if isinstance(d.action, Move) and d.action.moves)


def test_crawford_game_and_post_crawford_are_derived_from_the_scores() -> None:
    rec = read_match(DATA / "match1209610.txt")  # 3-point match: 0-2, then 1-2
    crawford = {d.game: d.crawford for d in rec.replay()}
    assert [g.score for g in rec.games] == [(0, 0), (0, 2), (1, 2)]
    assert crawford == {1: False, 2: True, 3: False}
    assert not any(isinstance(a, Double) for a in rec.games[1].actions)


def test_replay_names_file_game_move_and_play_of_an_illegal_play() -> None:
    rec = read_match(DATA / "match10014006.txt")
    g = rec.games[0]
    bad = Move(0, (5, 3), ((13, 8), (13, 10)))  # 13/10 is a 3, not the 5-3's second die... legal
    assert bad.dice == (5, 3)
    illegal = Move(0, (5, 3), ((13, 8), (8, 2)))  # 8/2 with a 3
    actions = (g.actions[0], illegal, *g.actions[2:])
    broken = MatchRecord(rec.length, rec.players, (GameRecord(1, (0, 0), actions, g.result),),
                         rec.rules, rec.tags, source="m.mat")
    with pytest.raises(MatchReplayError, match=r"m\.mat: game 1, move 2: 53: '13/8 8/2'"):
        broken.validate()


def test_a_forced_play_left_blank_is_filled_and_a_dance_is_empty() -> None:
    text = (DATA / "match10014006.txt").read_text()
    # game 1 ends with leon77's forced 21: 1/0 (one checker left): blank it
    blanked = text.replace(" 23) 41: 4/0 3/2                 21: 1/0",
                           " 23) 41: 4/0 3/2                 21:", 1)
    assert blanked != text
    rec = read_match(blanked)
    last = list(d for d in rec.replay() if d.game == 1)[-1]
    assert isinstance(last.action, Move) and last.action.moves == ()
    assert last.play is not None and last.play.moves == ((1, 0),)
    assert rec.games[0].result == read_match(text).games[0].result
    dance = next(d for d in rec.replay() if isinstance(d.action, Move) and not d.action.moves
                 and d.play is None)
    assert len(dance.position.legal_plays(dance.action.dice)) == 0
    # normalized() fills the blank in
    assert rec.normalized() == read_match(text).normalized()


# ------------------------------------------------------------------ dialects

CLASSIC = """\
; [Site "Somewhere"]
; [Event "Dialect test"]
# a comment of the kind Jellyfish writes

 3 point match

 Game 1
 Ann Lee : 0                    Bob : 0
  1)                             54: 24/20 13/8
  2) 53: 13/8/5*                 53: bar/20* 13/10
  3) 42: bar/21 24/22            63: 13/7 10/7
  4) 65: 22/16 21/16             54: 24/20 8/3
  5) 51: 24/23 13/8              11: 8/7 6/5(3)
  6) 33: 13/10(3) 6/3             Doubles => 2
  7)  Drops
                                  Wins 1 point

 Game 2
 Ann Lee : 0                    Bob : 1
  1) 62: 24/18/16                31: 8/5 6/5
  2) 41: 13/9 24/23               Doubles => 2
  3)  Takes                      43:
      Wins 2 points
"""


def test_classic_gnubg_jellyfish_dialect() -> None:
    rec = read_match(CLASSIC)
    assert rec.players == ("Ann Lee", "Bob") and rec.length == 3
    assert rec.tags == {"Site": "Somewhere", "Event": "Dialect test"}
    g1, g2 = rec.games
    assert g1.actions[1] == Move(0, (5, 3), ((13, 8), (8, 5)))  # 13/8/5*: two steps
    assert g1.actions[8] == Move(1, (1, 1), ((8, 7), (6, 5), (6, 5), (6, 5)))  # (3)
    assert isinstance(g1.actions[-1], Pass)
    assert g1.result == GameOutcome(1, 1, "pass", cube=1)
    # Bob rolled 43, wrote no play and resigned: a single at cube 2
    assert g2.actions[-1] == Move(1, (4, 3), ())
    assert g2.result == GameOutcome(0, 2, "resign", cube=2, resign_level=1)
    assert rec.final_score == (2, 1) and rec.winner is None
    hits = [d.play.hits for d in rec.replay() if d.play is not None and d.play.hits]
    assert hits == [(5,), (20,)]


XG = """\ufeff; [Site "eXtreme Gammon"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [EventDate "2024.01.02"]
; [Variation "Backgammon"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [Crawford "On"]
; [CubeLimit "1024"]

5 point match

 Game 1
 Ann : 0                              Bob : 0
  1) 31: 8/5 6/5                      64: 24/18 13/9
  2) 61: 13/7* 8/7                    65: Cannot Move
  3) 42: 8/4 6/4                      43: ???
      Wins 1 point
"""


def test_xg_export_dialect_bom_cannot_move_and_question_marks() -> None:
    rec = read_match(XG)
    g = rec.games[0]
    assert g.actions[3] == Move(1, (6, 5), ())  # Cannot Move: a dance
    assert g.actions[-1] == Move(1, (4, 3), ())  # ???: rolled, then resigned
    assert g.result == GameOutcome(0, 1, "resign", cube=1, resign_level=1)
    assert rec.rules == MatchRules(crawford=True, jacoby=False, beavers=False, cube_limit=1024)


def test_opengammon_resigned_game_and_games_after_the_match_was_decided() -> None:
    text = """\
 1 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5                 Resigned Game
                                  Wins 1 point and the match

 Game 2
 Ann : 0                        Bob : 1
  1) 42: 8/4 6/4
"""
    rec = read_match(text)
    assert len(rec.games) == 1  # game 2 starts after the match was decided: ignored (gnubg)
    assert rec.games[0].result == GameOutcome(1, 1, "resign", cube=1, resign_level=1)
    assert rec.winner == 1 and rec.final_score == (0, 1)


def test_galaxy_quirks() -> None:
    # 'Losses N point' written by the resigning side; a whole match resigned ('Wins 4
    # point and the match' at 2-1 of 5, cube 1): gnubg scores the backgammon resignation,
    # 3 points, and the record says the match was resigned
    rec = read_match(DATA / "match1988690.txt")
    last = rec.games[-1]
    assert last.score == (2, 1)
    assert last.result == GameOutcome(1, 3, "resign", cube=1, resign_level=3,
                                      match_resigned=True)
    assert rec.final_score == (2, 4) and rec.winner == 1
    # a 1-away player's gammon at cube 2 written as 'Wins 3 point' in a 3-point match
    rec = read_match(DATA / "match1209610.txt")
    g3 = rec.games[2].result
    assert g3 == GameOutcome(1, 3, "gammon", cube=2) and rec.final_score == (1, 3)
    # a gammon scored single with the cube centred: the match shows the Jacoby rule
    rec = read_match(DATA / "match8239468.txt")
    assert rec.rules.jacoby and rec.games[0].result == GameOutcome(1, 1, "gammon", cube=1)


# ------------------------------------------------------------------ bad input


def _error_line(exc: pytest.ExceptionInfo[MatchFileError]) -> int | None:
    return exc.value.line


BAD_CASES = {
    "not a match": ("hello\nworld\n", 1, "not a match file"),
    "unknown entry": (CLASSIC.replace("  7)  Drops", "  7)  Frobs"), 15,
                      "unknown entry 'Frobs'"),
    "three columns": (CLASSIC.replace("  3) 42: bar/21 24/22", "  3) 42: bar/21 24/22  Foo bar"),
                      11, "cannot tell the two players' columns apart"),
    "illegal play": (CLASSIC.replace("bar/21 24/22", "bar/21 24/21"), 11, "not a legal play"),
    "score line": (CLASSIC.replace(" Ann Lee : 0                    Bob : 1",
                                   " Ann Lee : 0                    Bob : 2"), 19,
                   "the score line says 0-2, the games before it give 0-1"),
    "cube": (CLASSIC.replace("Doubles => 2\n  7)  Drops", "Doubles => 3\n  7)  Drops"), 14,
             "the cube value is 3, not a power of two"),
    "truncated": ("\n".join(CLASSIC.splitlines()[:21]) + "\n", 21, "has no result"),
    "wins contradicts": (CLASSIC.replace("                                  Wins 1 point",
                                         "                                  Wins 2 point"), 16,
                         "awards 2 points"),
    "bad notation": (CLASSIC.replace("24/20 8/3", "24/20 8/x"), 12, "cannot read the play"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_one_error_naming_the_file_and_line(case: str, tmp_path: Path) -> None:
    text, line, message = BAD_CASES[case]
    path = tmp_path / "bad.mat"
    path.write_text(text)
    with pytest.raises(MatchFileError) as exc:
        read_match(path)
    assert exc.value.line == line
    assert str(exc.value).startswith(f"{path}, line {line}: ")
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_binary_file_and_an_sgf_of_another_game(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    path.write_bytes(b"\x89PNG\x00\x01\x02" * 20)
    with pytest.raises(MatchFileError, match="binary file"):
        read_match(path)
    path = tmp_path / "m.xg"  # XG's binary format starts with "RGMH"
    path.write_bytes(b"RGMH\x00\x01\x02" * 20)
    with pytest.raises(MatchFileError, match=r"eXtreme Gammon binary match \(\.xg\)"):
        read_match(path)
    with pytest.raises(MatchFileError, match=r"GM\[1\] is not a backgammon game"):
        read_match("(;FF[4]GM[1]SZ[19]\n;B[pd])\n")
    with pytest.raises(MatchFileError, match=r"line 2: .*truncated"):
        read_match("(;FF[4]GM[6]MI[length:3]\n;W[31")


def test_illegal_move_in_sgf_names_the_node_line() -> None:
    sgf = render_match(read_match(DATA / "match10014006.txt"), "sgf")
    lines = sgf.splitlines()
    assert lines[2] == ";W[53mhhe]"  # lasse's 53: 13/8 8/5
    lines[2] = ";W[53mhhf]"  # 13/8 8/6: the 5 and a 2
    with pytest.raises(MatchReplayError, match=r"line 3: game 1, move 2: 53: '13/8 8/6'"):
        read_match("\n".join(lines) + "\n")


# ------------------------------------------------------------------ writing and round trips


@pytest.mark.parametrize("fmt", ["mat", "sgf"])
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_read_write_read_is_the_same_record(path: Path, fmt: str) -> None:
    rec = read_match(path)
    again = read_match(render_match(rec, fmt))
    assert again == rec
    assert again.rules == rec.rules and again.tags == rec.tags


def test_the_dialects_round_trip_too() -> None:
    for text in (CLASSIC, XG):
        rec = read_match(text)
        for fmt in ("mat", "sgf"):
            assert read_match(render_match(rec, fmt)) == rec


def test_write_picks_the_format_from_the_name_and_never_replaces_foreign_files(
    tmp_path: Path,
) -> None:
    rec = read_match(CLASSIC)
    out = write_match(rec, tmp_path / "m.sgf")
    assert out.read_text().startswith("(;FF[4]GM[6]")
    write_match(rec, tmp_path / "m.sgf")  # ours: replaced
    mat = write_match(rec, tmp_path / "m.mat")
    assert mat.read_text().startswith("; written by mathbg")
    foreign = tmp_path / "notes.txt"
    foreign.write_text("mine")
    with pytest.raises(TargetExistsError):
        write_match(rec, foreign)
    assert foreign.read_text() == "mine"
    write_match(rec, foreign, force=True)
    assert read_match(foreign) == rec


def _random_match(
    seed: int, length: int, names: tuple[str, str], variant: str = "backgammon"
) -> MatchRecord:
    """A match played with random legal choices by the rules model's game state machine
    (cube actions and resignations included), recorded as a MatchRecord; ``variant``: the
    rule set (tests/test_hyper_matchfiles.py plays Nackgammon and Hypergammon)."""
    rng = random.Random(seed)
    m = MatchState(length=length, status=GameStatus.NONE)
    games = []
    number = 1
    while not m.is_over and number <= 5:
        state = GameState.new(match=m, variant=variant)
        actions: list = []
        resigned = 0
        while state.phase == Phase.OPENING:
            state = state.opening(rng.randint(1, 6), rng.randint(1, 6))
        while state.phase != Phase.OVER:
            if state.phase == Phase.MOVE:
                plays = state.legal_plays()
                play = plays[rng.randrange(len(plays))] if len(plays) else None
                assert state.dice is not None
                actions.append(Move(state.turn, state.dice, play.moves if play else ()))
                state = state.play(play)
            elif state.can_double() and rng.random() < 0.08:
                actions.append(Double(state.turn, 2 * state.cube.value))
                state = state.double()
                if rng.random() < 0.6:
                    actions.append(Take(1 - state.turn))
                    state = state.take()
                else:
                    actions.append(Pass(1 - state.turn))
                    state = state.drop()
            elif rng.random() < 0.01:
                resigned = rng.randint(1, 3)
                state = state.resign(resigned).accept_resignation()
            else:
                state = state.roll((rng.randint(1, 6), rng.randint(1, 6)))
        res = state.result
        assert res is not None and res.winner is not None
        points = min(res.points, length - m.score[res.winner])  # capped at what was needed
        kind = {"played": res.name, "dropped": "pass", "resigned": "resign"}[res.reason]
        outcome = GameOutcome(res.winner, points, kind, res.cube, resigned)  # type: ignore[arg-type]
        games.append(GameRecord(number, m.score, tuple(actions), outcome))
        m = m.after_game(res.winner, res.points)
        number += 1
    rules = MatchRules(variant=variant)
    return MatchRecord(length, names, tuple(games), rules, {"Event": "random"})


NAMES = st.text(alphabet="abcdefXYZ _-.0123", min_size=1, max_size=12).map(str.strip).filter(
    bool)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.sampled_from([1, 3, 5, 7]), a=NAMES, b=NAMES)
def test_random_matches_replay_and_round_trip(seed: int, length: int, a: str, b: str) -> None:
    rec = _random_match(seed, length, (a, b))
    rec.validate()
    for fmt in ("mat", "sgf"):
        assert read_match(render_match(rec, fmt)) == rec
    # the replay's positions are the game state machine's: each Move's play leads to the
    # position the next decision starts from (the other side's view)
    decisions = list(rec.replay())
    for d, nxt in itertools.pairwise(decisions):
        if d.game == nxt.game and isinstance(d.action, Move) and isinstance(nxt.action, Move):
            expected = d.play.next_position if d.play is not None else d.position.swap()
            assert nxt.position == expected


def test_a_resignation_worth_more_than_was_needed_keeps_its_level() -> None:
    """A gammon resigned at cube 2 to a side 2 points from winning scores 2 points. Written
    as those 2 points ('Wins 2 points'), it would read back as a single (gnubg's reading:
    the level is the points over the cube), so both files write its value, 4 points, as
    gnubg writes every resignation (``export.c``: ``nResigned * nFileCube``; ``sgf.c``:
    ``RE[B+4R]`` from ``nPoints``), and the record reads back whole. (A resignation whose
    capped points read back as its level keeps the points the sites write: match10147827's
    single at cube 4, 'Wins 2 point and the match', in the bundled-matches test.)"""
    opening = Move(0, (3, 1), ((8, 5), (6, 5)))
    games = (
        GameRecord(1, (0, 0), (opening,), GameOutcome(1, 1, "resign", cube=1, resign_level=1)),
        GameRecord(2, (0, 1), (opening, Double(1, 2), Take(0)),
                   GameOutcome(1, 2, "resign", cube=2, resign_level=2)),
    )
    rec = MatchRecord(3, ("Ann", "Bob"), games, MatchRules())
    rec.validate()
    assert rec.final_score == (0, 3) and rec.winner == 1
    sgf, mat = render_match(rec, "sgf"), render_match(rec, "mat")
    assert "RE[B+4R]" in sgf and "Wins 4 points and the match" in mat
    assert read_match(sgf) == rec and read_match(mat) == rec


# ------------------------------------------------------------------ the CLI


def test_cli_convert_round_trip_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    src = DATA / "match10014006.txt"
    sgf, mat = tmp_path / "m.sgf", tmp_path / "m.mat"
    assert main(["convert", str(src), str(sgf)]) == 0
    assert main(["convert", str(sgf), str(mat)]) == 0
    out = capsys.readouterr().out
    assert "5-point match, lasse 0 - 5 leon77, 3 games" in out
    assert read_match(mat) == read_match(src)
    foreign = tmp_path / "keep.txt"
    foreign.write_text("mine")
    assert main(["convert", str(src), str(foreign)]) == 2
    assert foreign.read_text() == "mine"
    assert "exists and mathbg did not write it" in capsys.readouterr().err
    bad = tmp_path / "bad.mat"
    bad.write_text(CLASSIC.replace("bar/21 24/22", "bar/21 24/21"))
    assert main(["convert", str(bad), str(tmp_path / "x.sgf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mathbg convert: error: {bad}, line 11: ")
    assert not (tmp_path / "x.sgf").exists()
    assert main(["convert", str(src), str(tmp_path / "x.doc")]) == 2


def test_money_session_with_a_beaver_replays_and_round_trips() -> None:
    opening = Move(0, (3, 1), ((8, 5), (6, 5)))
    taken = (opening, Double(1, 2), Beaver(0, 4), Take(1), Move(1, (6, 4), ((24, 18), (13, 9))))
    rules = MatchRules(crawford=False, beavers=True)
    rec = MatchRecord(0, ("A", "B"), (GameRecord(1, (0, 0), taken, None),), rules)
    cube = [(type(d.action).__name__, d.cube, d.cube_owner) for d in rec.replay()]
    # the beaver's author (A, player 0) keeps the cube at 4 once B takes
    assert cube[-1] == ("Move", 4, 0)
    dropped = (opening, Double(1, 2), Beaver(0, 4), Pass(1))
    rec = MatchRecord(0, ("A", "B"), (GameRecord(1, (0, 0), dropped,
                                                 GameOutcome(0, 2, "pass", cube=2)),), rules)
    rec.validate()  # B loses twice the original value by passing the beaver
    for fmt in ("mat", "sgf"):
        assert read_match(render_match(rec, fmt)) == rec
    with pytest.raises(MatchReplayError, match="beavers are not allowed"):
        MatchRecord(0, ("A", "B"), (GameRecord(1, (0, 0), dropped, None),),
                    MatchRules(crawford=False)).validate()


def test_before_roll_is_the_cube_decision_state_gnubg_prints() -> None:
    rec = read_match(DATA / "match10014006.txt")
    decisions = list(rec.replay())
    doubles = [d for d in decisions if isinstance(d.action, Double)]
    assert doubles and all(d.before_roll == d.match for d in doubles)
    # gnubg's "leon77 on roll, cube decision?" of game 1, move 6 (its text export)
    assert doubles[0].before_roll.id == "cAmgAAAAAAAE"
    move = next(d for d in decisions if isinstance(d.action, Move) and d.index > 0)
    assert move.before_roll.dice is None and move.before_roll.cube == move.cube


@settings(max_examples=60, deadline=None)
@given(data=st.data(), fmt=st.sampled_from(["mat", "sgf"]))
def test_damaged_files_fail_with_one_match_file_error(data: st.DataObject, fmt: str) -> None:
    """Any damage to a match file (characters cut, changed or inserted) either still reads
    or fails with a MatchFileError naming the file: never another exception."""
    text = render_match(read_match(CLASSIC), fmt)
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i, min(len(text), i + 40)))
    junk = data.draw(st.text(alphabet="0123456789/:*()[]; abxyzWBDoublesTakeWins\n", max_size=8))
    damaged = text[:i] + junk + text[j:]
    try:
        read_match(damaged.encode())
    except MatchFileError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("<bytes>")
