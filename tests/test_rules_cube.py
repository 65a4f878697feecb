"""Cube rules and transitions (bkgm.com rules, gnubg manual "Optional rules", seed texts)."""

from __future__ import annotations

import pytest

from mathbg.errors import IllegalActionError, InvalidParameterError
from mathbg.rules.cube import ONLINE_RULES, CubeRules, CubeState, OfferKind
from mathbg.rules.match import MatchState, game_points

BEAVERS = CubeRules(beavers=True, raccoons=True)


def test_double_take_gives_the_taker_the_cube():
    c = CubeState().double(0)
    assert c.offer.by == 0 and c.offer.value == 2 and c.offer.responder == 1
    c = c.take(1)
    assert (c.value, c.owner, c.offer) == (2, 1, None)
    # only the owner may redouble
    with pytest.raises(IllegalActionError, match="does not own the cube"):
        c.double(0)
    c = c.double(1).take(0)
    assert (c.value, c.owner) == (4, 0)


def test_drop_loses_the_value_before_the_double():
    c = CubeState(value=4, owner=1).double(1)
    assert c.drop(0) == (1, 4)


def test_only_the_responder_answers():
    c = CubeState().double(0)
    with pytest.raises(IllegalActionError, match="player 1 must answer"):
        c.take(0)
    with pytest.raises(IllegalActionError, match="no cube offer"):
        CubeState().take(1)
    with pytest.raises(IllegalActionError, match="already pending"):
        c.double(0)


def test_cap():
    # online rules: the cube goes up to 64 and no further
    c = CubeState(value=32, owner=0).double(0, ONLINE_RULES).take(1)
    assert c.value == 64
    with pytest.raises(IllegalActionError, match="capped at 64"):
        c.double(1, ONLINE_RULES)
    assert c.can_double(1)  # no cap by default


def test_beaver_and_raccoon():
    # A doubles to 2; B beavers (takes and redoubles to 4, keeping the cube)
    c = CubeState().double(0, BEAVERS).beaver(1, BEAVERS)
    assert c.offer.kind == OfferKind.BEAVER and c.offer.value == 4 and c.offer.by == 1
    assert c.take(0) == CubeState(value=4, owner=1)
    # dropping the beaver loses the 2 already accepted
    assert c.drop(0) == (1, 2)
    # A raccoons (8, keeping the cube); B takes or drops (losing 4)
    r = c.raccoon(0, BEAVERS)
    assert r.offer.kind == OfferKind.RACCOON and r.offer.value == 8
    assert r.take(1) == CubeState(value=8, owner=0)
    assert r.drop(1) == (0, 4)


def test_beaver_conditions():
    c = CubeState().double(0)
    with pytest.raises(IllegalActionError, match="beavers are not allowed"):
        c.beaver(1)
    with pytest.raises(IllegalActionError, match="only in money play"):
        c.beaver(1, BEAVERS, MatchState(length=5))
    with pytest.raises(IllegalActionError, match="raccoon answers a beaver"):
        c.raccoon(1, BEAVERS)
    b = c.beaver(1, CubeRules(beavers=True))
    with pytest.raises(IllegalActionError, match="raccoons are not allowed"):
        b.raccoon(0, CubeRules(beavers=True))
    with pytest.raises(IllegalActionError, match="capped"):
        CubeState(value=2, owner=0).double(0).beaver(1, CubeRules(beavers=True, cap=4))


def test_match_play_cube_restrictions():
    # Crawford game: no doubling
    m = MatchState(length=5, score=(4, 2), crawford=True)
    assert "Crawford" in CubeState().double_refusal(1, match=m)
    # post-Crawford: the trailer may double, the leader's cube is dead (needs 1 <= cube)
    m = MatchState(length=5, score=(4, 2))
    assert m.post_crawford
    assert CubeState().can_double(1, match=m)
    assert "dead" in CubeState().double_refusal(0, match=m)
    # 3-away with a 4-cube: dead for that player
    m = MatchState(length=5, score=(2, 0), cube=4, cube_owner=0)
    assert "dead" in CubeState(value=4, owner=0).double_refusal(0, match=m)


def test_automatic_doubles():
    rules = CubeRules(automatic_doubles=2)
    c = CubeState()
    c1 = c.automatic_double(rules, 0)
    c2 = c1.automatic_double(rules, 1)
    c3 = c2.automatic_double(rules, 2)  # the maximum reached
    assert (c1.value, c2.value, c3.value) == (2, 4, 4)
    assert c2.centred
    assert c.automatic_double(CubeRules(), 0) == c  # off by default
    assert c.automatic_double(rules, 0, money=False) == c  # never in a match


def test_money_only_options_refused_in_match_play():
    for rules in (CubeRules(beavers=True), CubeRules(jacoby=True), CubeRules(automatic_doubles=1)):
        with pytest.raises(InvalidParameterError, match="money-play options"):
            rules.check_match_play()
    CubeRules(cap=64).check_match_play()


def test_rule_parameters_validated():
    with pytest.raises(InvalidParameterError, match="power of two"):
        CubeRules(cap=48)
    with pytest.raises(InvalidParameterError, match="raccoons need beavers"):
        CubeRules(raccoons=True)
    with pytest.raises(InvalidParameterError):
        CubeState(value=3)


def test_jacoby_money_only():
    # Jacoby: gammons count single with a centred cube, in money play only
    assert game_points(2, 1, jacoby=True, cube_centred=True, money=True) == 1
    assert game_points(3, 1, jacoby=True, cube_centred=True, money=True) == 1
    assert game_points(2, 2, jacoby=True, cube_centred=False, money=True) == 4
    assert game_points(2, 1, jacoby=True, cube_centred=True, money=False) == 2
    assert game_points(3, 4, jacoby=False) == 12


def test_cube_owner_is_one_vocabulary():
    import json

    from mathbg.cube.inputs import OWNERS
    from mathbg.rules.cube import CubeOwner

    assert tuple(CubeOwner) == OWNERS == ("centre", "player", "opponent")
    assert json.dumps(CubeOwner.PLAYER) == '"player"'
    assert CubeOwner.parse("PLAYER") is CubeOwner.PLAYER
    assert CubeOwner.of(None, 0) is CubeOwner.CENTRE
    assert CubeOwner.of(1, 1) is CubeOwner.PLAYER and CubeOwner.of(0, 1) is CubeOwner.OPPONENT
    with pytest.raises(InvalidParameterError, match="centre, player, opponent"):
        CubeOwner.parse("nobody")


@pytest.mark.parametrize("old", ["roller", "owned", "centred", "center", "opponent_owns"])
def test_cube_owner_has_no_other_spellings(old):
    # the unreleased spellings are gone (CHANGELOG 0.1.0), not silently mapped
    from mathbg.rules.cube import CubeOwner

    with pytest.raises(InvalidParameterError, match="centre, player, opponent"):
        CubeOwner.parse(old)
