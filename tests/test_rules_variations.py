"""Nackgammon and Hypergammon 1-3 (mathbg.rules.variations): starts, plays, results, IDs.

The starting positions are gnubg's (``set variation ...`` then ``new session`` prints
them: the differential test reads the Position ID); the legal plays are backgammon's,
checked against gnubg on positions of seeded random games of each variation.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg import Position
from mathbg.errors import InvalidParameterError, InvalidPositionError, UnknownVariantError
from mathbg.rules.game import Phase, play_random_game
from mathbg.rules.match import ResultKind
from mathbg.rules.ruleset import classify_result, get_ruleset
from mathbg.rules.variations import (
    Hypergammon1Position,
    Hypergammon3Position,
    HypergammonPosition,
    hypergammon_position,
)

#: gnubg 1.07.001 InitBoard (gnubg.c), also printed by `new session` below.
GNUBG_STARTS = {
    "nackgammon": "4Dl4ADbgOXgANg",
    "hypergammon1": "AACAAAAAAgAAAA",
    "hypergammon2": "AABAAQAACgAAAA",
    "hypergammon3": "AACgAgAAKgAAAA",
}
GNUBG_NAMES = {
    "nackgammon": "nackgammon",
    "hypergammon1": "1-chequer-hypergammon",
    "hypergammon2": "2-chequer-hypergammon",
    "hypergammon3": "3-chequer-hypergammon",
}


@pytest.mark.parametrize("variant", sorted(GNUBG_STARTS))
def test_starting_positions(variant):
    start = Position.initial(variant)
    assert start.id == GNUBG_STARTS[variant]
    assert start.off == (0, 0)
    assert start.pips() == start.swap().pips()
    rs = get_ruleset(variant)
    assert rs.name == variant and rs.gammons and rs.backgammons and rs.cube
    assert rs.checkers == (15 if variant == "nackgammon" else int(variant[-1]))


def test_nackgammon_layout():
    start = Position.initial("nackgammon")
    assert {p + 1: n for p, n in enumerate(start.player) if n} == {24: 2, 23: 2, 13: 4, 8: 3,
                                                                   6: 4}  # fmt: skip
    assert type(start) is Position


@pytest.mark.parametrize(
    "name, expected",
    [("Hypergammon", "hypergammon3"), ("3-chequer-hypergammon", "hypergammon3"),
     ("hypergammon_1", "hypergammon1"), ("HyperGammon 2", "hypergammon2"),
     ("NackGammon", "nackgammon")],
)  # fmt: skip
def test_names_and_aliases(name, expected):
    assert get_ruleset(name).name == expected


def test_unknown_variant_is_named():
    with pytest.raises(UnknownVariantError, match="hypergammon4"):
        Position.initial("hypergammon4")


def test_hypergammon_positions_count_their_checkers():
    p = hypergammon_position("ADAAAQAkIAAAAA", 3)
    assert isinstance(p, Hypergammon3Position) and p.checkers == 3
    assert p.off == (0, 0)
    assert hypergammon_position(Position.from_counts({6: 2}, {1: 1}), 3).off == (1, 2)
    assert hypergammon_position(p, 3) == p
    with pytest.raises(InvalidPositionError, match="at most 1"):
        hypergammon_position("ADAAAQAkIAAAAA", 1)
    with pytest.raises(InvalidParameterError, match="1, 2 or 3"):
        hypergammon_position("AACAAAAAAgAAAA", 4)
    one = Position.initial("hypergammon1")
    assert isinstance(one, Hypergammon1Position) and isinstance(one, HypergammonPosition)
    assert "0 off" in one.diagram()


def test_plays_keep_the_position_class():
    for n in (1, 2, 3):
        start = Position.initial(f"hypergammon{n}")
        plays = get_ruleset(f"hypergammon{n}").legal_plays(start, (6, 5))
        assert plays and all(type(p.result) is type(start) for p in plays)
        assert all(p.result.off == (0, 0) for p in plays)


def test_results_count_the_hypergammon_checkers():
    rs3 = get_ruleset("hypergammon3")
    # the winner has borne off everything; the loser has all 3 on the board: gammon
    won = Position.from_counts({}, {6: 3})
    assert classify_result(won, rs3) == ResultKind.GAMMON
    assert classify_result(won) == ResultKind.SINGLE  # 15 checkers: 12 are off
    # one still in the winner's home board (the loser's 19..24): backgammon
    assert classify_result(Position.from_counts({}, {6: 2, 20: 1}), rs3) == ResultKind.BACKGAMMON
    assert classify_result(Position.from_counts({}, {6: 2}), rs3) == ResultKind.SINGLE
    # one checker: every win is a gammon or a backgammon
    rs1 = get_ruleset("hypergammon1")
    assert classify_result(Position.from_counts({}, {6: 1}), rs1) == ResultKind.GAMMON


def test_random_games_end_as_the_rules_say():
    counts = {n: Counter() for n in (1, 2, 3)}
    for n in counts:
        for seed in range(40):
            counts[n][play_random_game(seed, variant=f"hypergammon{n}").result.name] += 1
    assert counts[1]["single"] == 0  # one checker: the loser has borne off none
    assert counts[3]["single"] > 0 and counts[3]["gammon"] > 0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from((1, 2, 3)))
def test_random_game_positions_round_trip_ids(seed, n):
    game = play_random_game(seed, variant=f"hypergammon{n}")
    for state in game.states[::5]:
        pos = state.position
        assert sum(pos.player) <= n and sum(pos.opponent) <= n
        assert hypergammon_position(pos.id, n) == pos


# ------------------------------------------------------------------------------ gnubg


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # four gnubg start-ups, about 3 CPU-s
def test_starting_positions_equal_gnubg(gnubg):
    for variant, gname in GNUBG_NAMES.items():
        out = gnubg.run_commands(["set player 0 human", "set player 1 human",
                                  f"set variation {gname}", "new session"])  # fmt: skip
        ids = re.findall(r"Position ID: (\S+)", out)
        assert ids and ids[0] == GNUBG_STARTS[variant] == Position.initial(variant).id


def _sample_positions(variant: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    chosen: dict[Position, None] = {}
    while len(chosen) < count:
        for state in play_random_game(rng, variant=variant).states:
            pos = state.position
            if state.phase == Phase.ROLL and rng.random() < 0.3 and not pos.is_game_over():
                chosen[pos] = None
    return list(chosen)[:count]


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg lists ~5,000 position-rolls: about 10 CPU-s
def test_legal_plays_equal_gnubg(gnubg):
    from gnubg_plays import gnubg_play_sets

    from mathbg.rules.dice import ROLLS

    # gnubg's move generator does not depend on the variation: its standard variation
    # accepts boards with fewer checkers (set.c CorrectNumberOfChequers: <= 15)
    positions = [p for n in (1, 2, 3) for p in _sample_positions(f"hypergammon{n}", 60, n)]
    positions += _sample_positions("nackgammon", 40, 7)
    items = [(pos, roll) for pos in positions for roll in ROLLS]
    plain = [(Position(p.cells), r) for p, r in items]
    theirs, info = gnubg_play_sets(gnubg.run_python, plain)
    assert not info["rejected"]
    bad = [(p.id, r) for (p, r), t in zip(items, theirs, strict=True)
           if {q.cells for q in p.legal_plays(r).results} != t]  # fmt: skip
    assert not bad, bad[:10]
