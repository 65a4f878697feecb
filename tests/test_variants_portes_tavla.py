"""Portes and Tavla: backgammon movement with their own opening, scoring and cube rules.

Expected plays are derived by hand from the rule texts (Wikipedia "Tavla": the opening
winner re-rolls, no hit-and-run in the home board, single 1 / mars 2, no backgammon, no
cube; Portes: backgammon without backgammons and without the cube).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from mathbg import Position
from mathbg.errors import IllegalActionError, InvalidParameterError, InvalidPositionError
from mathbg.rules import movegen
from mathbg.rules.dice import ROLLS
from mathbg.rules.game import GameState, Phase, play_random_game
from mathbg.rules.match import ResultKind
from mathbg.rules.ruleset import get_ruleset
from mathbg.rules.variants import PORTES, TAVLA, VariantPosition
from mathbg.rules.variants import _kernel as kernel


def V(name: str, player: dict, opponent: dict) -> VariantPosition:
    return VariantPosition.from_counts(player, opponent, variant=name)


@pytest.mark.parametrize("name", ["portes", "tavla"])
def test_published_counts_from_the_start(name: str) -> None:
    # published standard counts (issue 2): start 3-1 -> 16 plays, 4-4 -> 52; no hit is
    # possible from the start, so Tavla's home rule changes nothing there
    start = Position.initial(name)
    assert len(start.legal_plays((3, 1))) == 16
    assert len(start.legal_plays((4, 4))) == 52


def test_start_6_6_by_hand() -> None:
    # 6-6 from the start: 24/18 (18/12 blocked), 13/7 (7/1 blocked), 8/2 (no bear-off):
    # a <= 2 back checkers, c <= 3 from the 8-point, b from the 13, a + b + c = 4 -> 11
    plays = Position.initial("tavla").legal_plays((6, 6))
    assert len(plays) == 11
    assert "24/18(2) 13/7(2)" in plays.notations() and "13/7(4)" in plays.notations()


def test_tavla_opening_winner_rerolls_so_doubles_happen() -> None:
    g = GameState.new(variant="tavla")
    g1 = g.opening(2, 5)  # player 1's die is higher: player 1 rolls both dice again
    assert (g1.turn, g1.phase, g1.dice) == (1, Phase.ROLL, None)
    g2 = g1.roll((6, 6))  # an opening double
    assert g2.phase == Phase.MOVE and len(g2.legal_plays()) == 11
    assert g.opening(3, 3) == g  # ties are still rolled again
    # backgammon: the winner plays the two opening dice
    b = GameState.new().opening(2, 5)
    assert (b.turn, b.phase, b.dice) == (1, Phase.MOVE, (5, 2))
    # and so do the Greek games and Long Nardi (re-roll), per their rule texts
    for name in ("portes", "plakoto", "fevga", "long-nardi"):
        assert GameState.new(variant=name).opening(6, 1).phase == Phase.ROLL


# X (on roll): one checker on 8, two on 13; O: a blot on X's 5 (O's 20), two on X's 19.
HIT_RUN = ({8: 1, 13: 2}, {20: 1, 6: 2})


def test_tavla_no_hit_and_run_in_the_home_board() -> None:
    # 3-2 by hand: single moves 13/10, 13/11, 8/5* (a hit in the home board), 8/6.
    # Two-dice plays: 13/10 13/11, 13/8, 13/10 8/6, 13/11 8/5*, 8/3 (via 6, no hit) and
    # the hit-and-run 8/5*/3, which Tavla forbids (the hitter stops on the 5-point).
    standard = {"13/11 13/10", "13/8", "13/10 8/6", "13/11 8/5*", "8/3", "8/5*/3"}
    pos = V("tavla", *HIT_RUN)
    assert set(pos.legal_plays((3, 2)).notations()) == standard - {"8/5*/3"}
    free = TAVLA.with_options(home_hit_and_run=True)
    assert set(free.legal_plays(pos, (3, 2)).notations()) == standard
    # ... which are exactly backgammon's plays
    std = Position.from_counts(*HIT_RUN)
    assert set(std.legal_plays((3, 2)).notations()) == standard
    assert set(V("portes", *HIT_RUN).legal_plays((3, 2)).notations()) == standard


def test_tavla_hitter_outside_home_may_run() -> None:
    # a hit on the 9-point (outside the home board) and on: allowed in Tavla
    pos = V("tavla", {12: 1}, {16: 1, 6: 2})  # O's blot on X's 9
    assert "12/9*/7" in pos.legal_plays((3, 2)).notations()


def test_tavla_stopped_hitter_counts_as_a_checker_for_the_larger_die() -> None:
    # X's only checker hits on 5 with the 3 and must stop: the 2 cannot be played by it;
    # playing the 2 first (8/6) then 6/3 works: both dice -> only 8/3 (no hit) is legal.
    pos = V("tavla", {8: 1}, {20: 1, 6: 2})
    assert pos.legal_plays((3, 2)).notations() == ["8/3"]
    # block the 6-point: now only one die can be played; the larger (3) must be: 8/5*
    blocked = V("tavla", {8: 1}, {20: 1, 19: 2})
    assert blocked.legal_plays((3, 2)).notations() == ["8/5*"]


def test_results_have_no_backgammon_and_no_cube() -> None:
    # X has borne everything off; O has none off and a checker in X's home board: a
    # backgammon in the standard game, a gammon ("mars") in Portes and Tavla
    final = {}, {22: 1, 13: 14}  # O's 22-point is X's 3-point
    assert get_ruleset("backgammon").game_end(Position.from_counts(*final)) == (
        ResultKind.BACKGAMMON,
        "played",
    )
    for name in ("portes", "tavla"):
        rs = get_ruleset(name)
        assert rs.game_end(V(name, *final)) == (ResultKind.GAMMON, "played")
        assert rs.game_end(V(name, {}, {22: 1, 13: 13})) == (ResultKind.SINGLE, "played")
        assert rs.game_end(V(name, {1: 1}, {22: 1, 13: 14})) is None
        assert not GameState.new(variant=name).opening(5, 2).can_double()
        with pytest.raises(IllegalActionError, match="without the cube"):
            GameState.new(variant=name).opening(5, 2).double()


def test_portes_plays_are_backgammon_plays_along_a_game() -> None:
    rec = play_random_game(random.Random(5), variant="portes")
    positions = [s.position for s in rec.states if s.phase == Phase.ROLL]
    assert len(positions) > 20
    for pos in positions[::3]:
        for roll in ((6, 5), (2, 1), (4, 4)):
            mine = {p.result.to_standard() for p in pos.legal_plays(roll)}
            assert mine == set(pos.to_standard().legal_plays(roll).results)


@pytest.mark.slow
def test_variant_kernel_hit_mode_equals_the_standard_kernel() -> None:
    # the variant kernel with plain hitting rules reproduces the dedicated standard kernel
    rng = random.Random(11)
    boards = []
    while len(boards) < 300:
        for s in play_random_game(rng).states[::5]:
            if s.phase == Phase.ROLL:
                boards.append(s.position.cells)
    for cells in boards:
        for d1, d2 in ROLLS:
            std, _ = movegen.generate(cells, d1, d2)
            var, masks, _ = kernel.generate(cells, d1, d2, kernel.HIT, 0)
            assert {r.tobytes() for r in std} == {r.tobytes() for r in var}
            assert len(std) == len(var) and not np.any(masks)


def test_options_are_checked() -> None:
    with pytest.raises(InvalidParameterError, match="unknown portes option"):
        PORTES.with_options(hitting=False)
    with pytest.raises(InvalidParameterError, match="the mother rule needs"):
        PORTES.with_options(mother_rule=True)
    with pytest.raises(InvalidParameterError, match="prime rules need"):
        TAVLA.with_options(prime_rule="ban")
    assert PORTES.with_options(cube=True).cube  # a cube can be switched on explicitly


def test_resignation_levels_follow_the_scoring() -> None:
    g = GameState.new(variant="tavla").opening(5, 2)
    with pytest.raises(IllegalActionError, match="tavla has no backgammons"):
        g.resign(3)
    done = g.resign(2).accept_resignation()
    # player 0 (on roll after winning the opening) resigns: player 1 wins a gammon
    assert (done.result.winner, done.result.points, done.result.name) == (1, 2, "gammon")
    # random games with resignations never offer a level the variant lacks
    for seed in range(20):
        rec = play_random_game(random.Random(seed), variant="portes", resignations=True)
        assert rec.result.points <= 2


def test_a_rule_set_refuses_another_games_position() -> None:
    with pytest.raises(InvalidPositionError, match="plays portes positions, not a backgammon"):
        PORTES.legal_plays(Position.initial(), (6, 5))
    with pytest.raises(InvalidPositionError, match="not a tavla position"):
        PORTES.legal_plays(Position.initial("tavla"), (6, 5))
