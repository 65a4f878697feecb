"""Game flow: opening, cube actions, plays, results, resignation, random games."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg import MatchState, Position
from mathbg.errors import IllegalActionError, IllegalPlayError, InvalidParameterError
from mathbg.rules.cube import CubeRules, CubeState
from mathbg.rules.game import GameState, Phase, classify_result, play_random_game
from mathbg.rules.match import GameStatus, ResultKind


def P(player: dict, opponent: dict) -> Position:
    return Position.from_counts(player, opponent)


def test_opening_roll():
    g = GameState.new()
    assert g.phase == Phase.OPENING
    assert g.opening(4, 4) == g  # a tie is rolled again (no automatic doubles by default)
    g1 = g.opening(1, 3)  # player 1's die is higher: player 1 plays 3-1
    assert (g1.turn, g1.phase, g1.dice) == (1, Phase.MOVE, (3, 1))
    assert g1.position == Position.initial()
    assert len(g1.legal_plays()) == 16  # published: start position 3-1 has 16 plays


def test_automatic_doubles_on_opening_ties():
    g = GameState.new(cube_rules=CubeRules(automatic_doubles=2))
    g = g.opening(2, 2).opening(5, 5).opening(6, 6)
    assert g.cube.value == 4 and g.cube.centred and g.phase == Phase.OPENING
    assert g.opening(6, 5).phase == Phase.MOVE


def test_turn_sequence_cube_roll_play():
    g = GameState.new().opening(3, 1).play("8/5 6/5")
    assert (g.turn, g.phase, g.dice) == (1, Phase.ROLL, None)
    # the position is now seen from player 1 (on roll)
    assert g.position.opponent[4] == 2  # player 0's 5-point made
    g = g.double()
    assert g.phase == Phase.CUBE and g.cube.offer.by == 1
    with pytest.raises(IllegalActionError, match="phase 'cube'"):
        g.roll((6, 5))
    g = g.take()
    assert g.phase == Phase.ROLL and g.cube == CubeState(value=2, owner=0) and g.turn == 1
    with pytest.raises(IllegalActionError, match="does not own"):
        g.double()
    g = g.roll((6, 5))
    with pytest.raises(IllegalActionError, match="before rolling"):
        g.double()
    g = g.play("24/13")
    assert g.turn == 0 and g.phase == Phase.ROLL


def test_play_forms_and_errors():
    g = GameState.new().opening(6, 5)
    plays = g.legal_plays()
    assert g.play(plays[0]).position == plays[0].next_position
    assert g.play(plays[0].result) == g.play(plays[0])
    assert g.play("24/13").position == g.play(plays.parse("24/13")).position
    with pytest.raises(IllegalPlayError):
        g.play(None)  # 6-5 can be played
    with pytest.raises(IllegalPlayError):
        g.play(Position.initial())
    other = Position.initial().legal_plays((3, 1))[0]
    with pytest.raises(IllegalPlayError):
        g.play(other)


def test_dance_passes_the_turn():
    pos = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    g = GameState(position=pos, turn=0, phase=Phase.MOVE, dice=(5, 4))
    assert len(g.legal_plays()) == 0
    g2 = g.play(None)
    assert g2.turn == 1 and g2.position == pos.swap()


def test_drop_ends_the_game():
    g = GameState.new().opening(3, 1).play("8/5 6/5").double().drop()
    assert g.phase == Phase.OVER
    assert (g.result.winner, g.result.points, g.result.reason) == (1, 1, "dropped")
    with pytest.raises(IllegalActionError):
        g.roll((3, 1))


def test_beaver_in_a_game():
    rules = CubeRules(beavers=True)
    g = GameState.new(cube_rules=rules).opening(3, 1).play("8/5 6/5").double().beaver()
    assert g.phase == Phase.CUBE and g.cube.offer.value == 4
    g = g.take()
    assert g.cube == CubeState(value=4, owner=0) and g.turn == 1 and g.phase == Phase.ROLL


@pytest.mark.parametrize(
    ("loser", "kind"),
    [
        ({6: 14}, ResultKind.SINGLE),  # one checker off
        ({6: 15}, ResultKind.GAMMON),  # none off, all in its home board
        ({13: 15}, ResultKind.GAMMON),  # none off, outside the winner's home board
        ({19: 1, 6: 14}, ResultKind.BACKGAMMON),  # in the winner's home board (its 19-24)
        ({25: 1, 6: 14}, ResultKind.BACKGAMMON),  # on the bar
        ({18: 1, 6: 14}, ResultKind.GAMMON),  # its 18 is the winner's 7: not home
    ],
)
def test_classify_result(loser, kind):
    assert classify_result(P({}, loser)) == kind
    assert classify_result(P({1: 1}, loser)) is None


def test_game_end_by_play_scores_kind_times_cube():
    # the mover bears off its last checker; the loser has a checker on its 20 (= the
    # winner's 5, home board) and none off: backgammon, 3 x cube 2 = 6
    loser = {20: 1, 6: 14}
    pos = P({1: 1}, loser)
    g = GameState(
        position=pos, turn=1, phase=Phase.MOVE, dice=(2, 1), cube=CubeState(value=2, owner=1)
    )
    end = g.play("1/off")
    assert end.phase == Phase.OVER
    assert (end.result.winner, end.result.kind, end.result.points) == (1, ResultKind.BACKGAMMON, 6)
    assert end.match_state().status == GameStatus.OVER


def test_jacoby_in_games():
    pos = P({1: 1}, {20: 1, 6: 14})
    money = GameState(
        position=pos, phase=Phase.MOVE, dice=(2, 1), cube_rules=CubeRules(jacoby=True)
    )
    assert money.play("1/off").result.points == 1  # centred cube: counts single
    owned = GameState(
        position=pos,
        phase=Phase.MOVE,
        dice=(2, 1),
        cube_rules=CubeRules(jacoby=True),
        cube=CubeState(value=2, owner=0),
    )
    assert owned.play("1/off").result.points == 6
    with pytest.raises(InvalidParameterError, match="money-play"):
        GameState.new(match=MatchState(length=5), cube_rules=CubeRules(jacoby=True))


def test_crawford_game_has_no_cube():
    g = GameState.new(match=MatchState(length=5, score=(4, 2), crawford=True)).opening(3, 1)
    g = g.play("8/5 6/5")
    assert not g.can_double() and "Crawford" in g.double_refusal()
    post = GameState.new(match=MatchState(length=5, score=(4, 2))).opening(1, 3)
    post = post.play("8/5 6/5")  # player 1 (trailer, 2 points) moved; player 0 on roll
    assert post.turn == 0 and "dead" in post.double_refusal()  # the leader may not double


def test_resignation():
    g = GameState.new().opening(3, 1)  # player 0 to play
    r = g.resign(2)
    assert r.phase == Phase.RESIGNATION and r.resignation.kind == ResultKind.GAMMON
    assert r.match_state().resigned == 2 and r.match_state().turn == 1
    done = r.accept_resignation()
    assert (done.result.winner, done.result.kind, done.result.points) == (1, 2, 2)
    assert done.result.reason == "resigned"
    back = r.reject_resignation()
    assert back.phase == Phase.MOVE and back.declined == 2 and back.dice == (3, 1)
    with pytest.raises(IllegalActionError, match="already declined"):
        back.resign(1)
    with pytest.raises(IllegalActionError, match="already declined"):
        back.resign(2)
    assert back.resign(3).resignation.kind == ResultKind.BACKGAMMON
    # the record of a declined offer resets at the next turn
    nxt = back.play("8/5 6/5")
    assert nxt.declined == 0
    with pytest.raises(IllegalActionError, match="level"):
        nxt.resign(4)
    # a resignation is worth its level times the cube
    cubed = GameState(phase=Phase.ROLL, cube=CubeState(value=4, owner=0))
    assert cubed.resign(1).accept_resignation().result.points == 4


@pytest.mark.slow
@given(st.integers(0, 2**32 - 1), st.booleans())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_terminate_with_a_legal_result(seed, cube):
    rec = play_random_game(
        seed,
        cube_actions=cube,
        resignations=cube,
        cube_rules=CubeRules(beavers=True, raccoons=True) if cube else None,
    )
    res = rec.result
    assert res.winner in (0, 1)
    assert res.kind in tuple(ResultKind)
    assert res.cube >= 1 and res.cube & (res.cube - 1) == 0
    if res.reason == "played":
        final = rec.final.position
        # the final position is seen from the winner, who has borne off everything
        assert rec.final.turn == res.winner and not any(final.player)
        assert classify_result(final) == res.kind
        assert res.points == int(res.kind) * res.cube
    elif res.reason == "dropped":
        assert res.kind == ResultKind.SINGLE
    for st_ in rec.states:
        assert st_.position.is_valid() or not any(st_.position.player)
        assert sum(st_.position.player) <= 15 and sum(st_.position.opponent) <= 15


def test_random_game_without_cube_ends_by_play():
    for seed in range(5):
        rec = play_random_game(seed)
        assert rec.result.reason == "played" and rec.result.cube == 1
