"""Match play: scoring, the Crawford rule exactly once, post-Crawford, money sessions."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg import MatchState
from mathbg.errors import InvalidScoreError
from mathbg.rules.game import play_random_match
from mathbg.rules.match import GameStatus


def test_no_credit_beyond_the_match_length():
    m = MatchState(length=5, score=(3, 0))
    after = m.after_game(0, 4)
    assert after.score == (5, 0) and after.is_over and after.winner == 0


def test_crawford_game_follows_first_reaching_one_away():
    m = MatchState(length=5, score=(3, 2))
    c = m.after_game(0, 1)  # 4-2: player 0 is 1-away for the first time
    assert c.crawford and not c.post_crawford
    p = c.after_game(1, 1)  # the Crawford game is played; 4-3
    assert not p.crawford and p.post_crawford
    q = p.after_game(1, 1)  # 4-4: double match point, still post-Crawford
    assert not q.crawford and q.post_crawford
    # not yet 1-away: no Crawford game
    assert not MatchState(length=5, score=(2, 0)).after_game(0, 1).crawford
    # reaching 1-away after the Crawford game already happened: no second Crawford game
    assert not MatchState(length=7, score=(6, 3)).after_game(1, 3).crawford


def test_after_game_resets_the_cube():
    m = MatchState(length=7, score=(1, 1), cube=4, cube_owner=1, dice=(3, 1))
    n = m.after_game(1, 4)
    assert (n.cube, n.cube_owner, n.dice, n.status) == (1, None, None, GameStatus.NONE)
    assert n.score == (1, 5)


def test_money_session_has_no_length():
    m = MatchState()
    assert m.is_money and not m.is_over
    m = m.after_game(1, 8).after_game(1, 16)
    assert m.score == (0, 24) and not m.is_over and not m.post_crawford
    with pytest.raises(InvalidScoreError):
        m.away(0)


def test_points_for_with_jacoby():
    money = MatchState(jacoby=True)
    assert money.points_for(2) == 1  # centred cube: a gammon counts single
    assert MatchState(jacoby=True, cube=2, cube_owner=0).points_for(2) == 4
    assert MatchState(jacoby=False).points_for(3) == 3
    assert MatchState(length=5, jacoby=True).points_for(2) == 2  # Jacoby is money only


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"length": 5, "score": (6, 0)}, "exceeds"),
        ({"length": 5, "score": (5, 5)}, "both players"),
        ({"cube": 3}, "power of two"),
        ({"crawford": True}, "money play has no Crawford"),
        ({"length": 5, "score": (2, 2), "crawford": True}, "1-away"),
        ({"length": 5, "score": (4, 2), "crawford": True, "cube": 2}, "not used"),
        ({"cube_owner": 2}, "cube owner"),
        ({"dice": (7, 1)}, "dice"),
        ({"doubled": True, "dice": (3, 1)}, "before rolling"),
    ],
)
def test_invalid_states(kwargs, message):
    with pytest.raises(InvalidScoreError, match=message):
        MatchState(**kwargs)


def test_after_game_errors():
    with pytest.raises(InvalidScoreError, match="over"):
        MatchState(length=3, score=(3, 0)).after_game(0, 1)
    with pytest.raises(InvalidScoreError, match="winner"):
        MatchState(length=3).after_game(2, 1)


def test_cube_available():
    assert MatchState().cube_available(0)
    assert not MatchState(length=3, score=(2, 0), crawford=True).cube_available(1)
    assert not MatchState(cube=2, cube_owner=1).cube_available(0)


@pytest.mark.slow
@given(st.integers(1, 11), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_crawford_exactly_once_in_random_matches(length, seed):
    """The Crawford game is the first game after a player first needs one point."""
    rec = play_random_match(length, seed, cube_actions=True)
    scores = [m.score for m, _ in rec.games]
    flags = [m.crawford for m, _ in rec.games]
    for k, (m, result) in enumerate(rec.games):
        # (a 1-point match starts at 1-away: no game follows a player *reaching* it)
        first_time = (
            k > 0 and length - 1 in scores[k] and all(length - 1 not in s for s in scores[:k])
        )
        assert flags[k] == first_time, (scores, flags)
        if m.crawford:
            assert result.cube == 1  # no doubling in the Crawford game
    assert sum(flags) <= 1
    # the score adds up, capped at the length
    final = rec.final
    assert final.is_over and max(final.score) == length
    total = [0, 0]
    for _, result in rec.games:
        total[result.winner] = min(length, total[result.winner] + result.points)
    assert tuple(total) == final.score


@pytest.mark.slow
def test_post_crawford_doubling_happens():
    # across random matches, some post-Crawford game is played with a turned cube
    seen = False
    for seed in range(40):
        for m, result in play_random_match(5, seed).games:
            if m.post_crawford and result.cube > 1:
                seen = True
    assert seen


def test_may_double_reads_the_cube_owners_words():
    """rules.match sits below rules.cube: it reads CubeOwner's words, the same three."""
    from mathbg.rules import match
    from mathbg.rules.cube import CubeOwner

    assert match._OWNERS == tuple(o.value for o in CubeOwner)
    assert match.may_double((3, 3), 1, CubeOwner.PLAYER) and match.may_double((3, 3), 1, "Centre")
    import pytest

    from mathbg.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="cube owner"):
        match.may_double((3, 3), 1, "roller")
