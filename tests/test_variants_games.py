"""Whole games of every variant, the generator against the literal reference, matches and
match equity, self-play statistics and the ``mathbg selfplay`` command."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg.cli import main
from mathbg.errors import IllegalActionError, InvalidParameterError, InvalidScoreError
from mathbg.met import cubeless, match_mwc, rotation_met
from mathbg.rules.dice import ROLLS
from mathbg.rules.game import GameResult, Phase, play_random_game
from mathbg.rules.match import ResultKind
from mathbg.rules.ruleset import get_ruleset
from mathbg.rules.variants import FEVGA, LONG_NARDI, PLAKOTO, VariantPosition
from mathbg.rules.variants.match import VariantMatch
from mathbg.rules.variants.reference import reference_plays
from mathbg.rules.variants.selfplay import play_game, play_match, selfplay

VARIANTS = ["portes", "plakoto", "fevga", "tavla", "long-nardi"]


def _check_final(name: str, rec) -> str:
    """Assert that a finished game ended in a result its rules allow; return its name."""
    rs = get_ruleset(name)
    res = rec.result
    final = rec.final
    pos = final.position  # seen from the player who made the last play
    c = pos.cells
    assert res.name in rs.result_names
    if res.reason == "played":
        assert res.winner == final.turn and not any(c[25:])
        expected = ResultKind.SINGLE if pos.opponent_off > 0 else ResultKind.GAMMON
        assert res.kind == expected and res.points == int(expected)
    elif res.reason == "mother":
        # the loser's last checker on its start (the winner's 1-point) is pinned and the
        # winner has no free checker left on its own start
        assert name == "plakoto" and res.winner == final.turn
        assert c[23] == 1 and (pos.pins >> 47) & 1
        assert c[48] - ((pos.pins >> 23) & 1) == 0
        assert res.kind == ResultKind.GAMMON and res.points == 2
    else:
        assert res.reason == "draw" and name == "plakoto"
        assert res.winner is None and res.kind is None and res.points == 0
        assert c[23] == 1 and (pos.pins >> 47) & 1 and c[48] == 1 and (pos.pins >> 23) & 1
    return res.name


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
def test_1000_random_games_end_in_a_legal_result(name: str) -> None:
    counts: dict[str, int] = {}
    for seed in range(1000):
        rec = play_random_game(random.Random(seed), variant=name)
        kind = _check_final(name, rec)
        counts[kind] = counts.get(kind, 0) + 1
        for s in rec.states[:: 9 if seed % 50 else 1]:
            assert sum(s.position.player) <= 15 and sum(s.position.opponent) <= 15
            if seed % 50 == 0:  # every position of one game in fifty, fully checked
                assert s.position.is_valid(), (seed, s.position.problems())
    assert sum(counts.values()) == 1000
    assert counts.get("single", 0) > 0 and counts.get("gammon", 0) > 0


# ---------------------------------------------------------------------------- generator


def _sampled_positions(name: str, games: int, every: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        rec = play_random_game(rng, variant=name)
        out += [s.position for s in rec.states[::every] if s.phase == Phase.ROLL]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
def test_kernel_matches_the_literal_reference_on_game_positions(name: str) -> None:
    rs = get_ruleset(name)
    rng = random.Random(1)
    positions = _sampled_positions(name, games=6, every=7)
    assert len(positions) >= 40
    for pos in positions:
        for roll in rng.sample(ROLLS, 3):
            got = {p.result for p in rs.legal_plays(pos, roll)}
            assert got == set(reference_plays(rs, pos, roll)), (pos.text, roll)


@st.composite
def block_positions(draw: st.DrawFn, variant: str) -> VariantPosition:
    """Fevga / Long Nardi positions with long blocks: the mover's checkers mostly one a
    point on a window, the opponent's 15 checkers on the points left free."""
    start = draw(st.integers(1, 19))
    length = draw(st.integers(4, 7))
    me = [0] * 25
    window = [p for p in range(start, min(24, start + length - 1) + 1)]
    for p in window:
        me[p - 1] = 1
    for _ in range(15 - len(window)):
        me[draw(st.integers(0, 23))] += 1
    from mathbg.rules.variants.geometry import Movement, opponent_point

    free = [q for q in range(1, 25) if me[opponent_point(q, Movement.SAME) - 1] == 0]
    opp = [0] * 25
    for _ in range(15):
        opp[draw(st.sampled_from(free)) - 1] += 1
    return VariantPosition.from_counts(me, opp, variant=variant)


@pytest.mark.slow
@given(
    st.sampled_from(["fevga", "long-nardi"]).flatmap(
        lambda v: st.tuples(st.just(v), block_positions(v))
    ),
    st.sampled_from(ROLLS),
    st.sampled_from(["default", "ban", "allowed"]),
)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kernel_matches_reference_on_blocking_positions(case, roll, prime) -> None:
    name, pos = case
    rs = get_ruleset(name)
    if prime != "default":
        rs = rs.with_options(prime_rule=prime)
    got = {p.result for p in rs.legal_plays(pos, roll)}
    assert got == set(reference_plays(rs, pos, roll))


@st.composite
def plakoto_positions(draw: st.DrawFn) -> VariantPosition:
    """Plakoto positions with pins on both sides (opposite movement)."""
    me = [0] * 25
    opp = [0] * 25
    pins_me, pins_opp = [], []
    points = draw(st.permutations(list(range(1, 25))))
    left_me, left_opp = 15, 15
    for p in points[: draw(st.integers(2, 10))]:
        kind = draw(st.sampled_from(["me", "opp", "me_pinned", "opp_pinned"]))
        q = 25 - p
        if kind == "me" and left_me:
            n = draw(st.integers(1, min(4, left_me)))
            me[p - 1] = n
            left_me -= n
        elif kind == "opp" and left_opp:
            n = draw(st.integers(1, min(4, left_opp)))
            opp[q - 1] = n
            left_opp -= n
        elif kind == "me_pinned" and left_me and left_opp:
            me[p - 1] = 1
            opp[q - 1] = 1
            left_me -= 1
            left_opp -= 1
            pins_me.append(p)
        elif kind == "opp_pinned" and left_me and left_opp:
            n = draw(st.integers(1, min(3, left_me)))
            me[p - 1] = n
            opp[q - 1] = 1
            left_me -= n
            left_opp -= 1
            pins_opp.append(q)
    pos = VariantPosition.from_counts(
        me, opp, variant="plakoto", pinned=pins_me, pinned_opponent=pins_opp
    )
    assert pos.is_valid(), pos.problems()
    return pos


@pytest.mark.slow
@given(plakoto_positions(), st.sampled_from(ROLLS))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kernel_matches_reference_on_pinned_positions(pos, roll) -> None:
    got = {p.result for p in PLAKOTO.legal_plays(pos, roll)}
    assert got == set(reference_plays(PLAKOTO, pos, roll))


def test_plays_conserve_checkers_and_pips() -> None:
    # no hitting in Plakoto, Fevga, Long Nardi: the mover's pips fall by exactly the dice
    # it plays (bear-offs from below the die excepted), the opponent's never change
    for name in ("plakoto", "fevga", "long-nardi"):
        for pos in _sampled_positions(name, games=3, every=11):
            for roll in ((6, 5), (2, 2)):
                for p in pos.legal_plays(roll):
                    r = p.result
                    assert r.opponent == pos.opponent
                    assert sum(r.player) + r.player_off == 15
                    moved = sum(f - t for f, t in p.moves)
                    assert pos.pips()[0] - r.pips()[0] == moved <= sum(p.dice)


# ---------------------------------------------------------------------------- matches


def test_tavli_match_rotation_scoring_and_starter() -> None:
    m = VariantMatch.tavli(5)
    assert [m.next_ruleset.name] == ["portes"]
    assert m.new_game().phase == Phase.OPENING
    m1 = m.after_game(GameResult(winner=1, kind=ResultKind.GAMMON, cube=1, points=2))
    assert (m1.score, m1.games, m1.next_ruleset.name, m1.starter) == ((0, 2), 1, "plakoto", 1)
    g = m1.new_game()  # the winner starts the next game and rolls both dice
    assert (g.turn, g.phase, g.ruleset.name) == (1, Phase.ROLL, "plakoto")
    draw = GameResult(winner=None, kind=None, cube=1, points=0, reason="draw")
    m2 = m1.after_game(draw)  # a drawn Plakoto game scores nothing; Fevga is next
    assert (m2.score, m2.next_ruleset.name, m2.starter) == ((0, 2), "fevga", None)
    m3 = m2.after_game(GameResult(winner=1, kind=ResultKind.GAMMON, cube=1, points=2))
    assert m3.next_ruleset.name == "portes" and m3.score == (0, 4)
    m4 = m3.after_game(GameResult(winner=1, kind=ResultKind.GAMMON, cube=1, points=2))
    assert m4.score == (0, 5) and m4.is_over and m4.winner == 1  # no credit beyond 5
    with pytest.raises(InvalidScoreError, match="over"):
        m4.after_game(draw)
    with pytest.raises(InvalidScoreError, match="over"):
        m4.new_game()


def test_match_validation() -> None:
    with pytest.raises(InvalidScoreError, match="positive"):
        VariantMatch.tavli(0)
    with pytest.raises(InvalidScoreError, match="impossible"):
        VariantMatch(length=3, rotation=("tavla",), score=(4, 0))
    with pytest.raises(InvalidParameterError, match="no cube"):
        VariantMatch.single("backgammon", 5)
    with pytest.raises(InvalidParameterError, match="no cube"):
        VariantMatch.single(get_ruleset("portes").with_options(cube=True), 5)


@pytest.mark.parametrize("length", [3, 5, 7])
def test_random_tavli_matches_play_to_the_end(length: int) -> None:
    for seed in range(3):
        rec = play_match(VariantMatch.tavli(length), rng=seed)
        assert rec.final.is_over and max(rec.final.score) == length
        names = [name for name, _ in rec.games]
        assert names == [("portes", "plakoto", "fevga")[i % 3] for i in range(len(names))]
        # scores add up, capped at the target
        total = [0, 0]
        for _, g in rec.games:
            if g.result.winner is not None:
                total[g.result.winner] = min(length, total[g.result.winner] + g.result.points)
        assert tuple(total) == rec.final.score


def test_single_variant_match_and_no_cube() -> None:
    rec = play_match(VariantMatch.single("long-nardi", 3), rng=4, players="heuristic")
    assert rec.final.is_over and {n for n, _ in rec.games} == {"long-nardi"}
    g = VariantMatch.single("tavla", 3).new_game().opening(6, 2)
    with pytest.raises(IllegalActionError, match="without the cube"):
        g.double()


def test_match_equity_single_variant_is_the_cubeless_met() -> None:
    # one variant: the cubeless MET with its gammon rate, no backgammons
    met = cubeless(7, gammon_rate=0.25, backgammon_rate=0.0, one_away=None)
    m = VariantMatch(length=7, rotation=("fevga",), score=(2, 4))
    assert match_mwc(m, 0, gammon_rates=[0.25]) == pytest.approx(met.mwc((5, 3)), abs=1e-12)
    assert match_mwc(m, 1, gammon_rates=[0.25]) == pytest.approx(met.mwc((3, 5)), abs=1e-12)


def test_rotation_met_by_hand_and_limits() -> None:
    # equal gammon rates: exactly the cubeless MET, whatever the rotation and draw rates
    met = cubeless(6, gammon_rate=0.2, backgammon_rate=0.0, one_away=None)
    m = rotation_met(6, [0.2, 0.2, 0.2], [0.0, 0.3, 0.0])
    for k in range(3):
        for i in range(1, 7):
            for j in range(1, 7):
                assert m[k, i, j] == pytest.approx(met.mwc((i, j)), abs=1e-12)
    # 1-away vs 2-away, next game k with gammon rate G: win it (1/2) and the match is won;
    # lose a single (1/2 (1 - G)) and the next game decides (1/2): 1/2 + (1 - G)/4
    m = rotation_met(2, [0.1, 0.3, 0.2], [0.0, 0.0, 0.0])
    for k, g in enumerate([0.1, 0.3, 0.2]):
        assert m[k, 1, 2] == pytest.approx(0.5 + (1 - g) / 4, abs=1e-15)
        assert m[k, 2, 1] == pytest.approx(1 - m[k, 1, 2], abs=1e-15)
        assert m[k, 1, 1] == 0.5
    # a drawn game only passes the turn to the next variant: x_1 = D x_2 + (1 - D) b_1
    d = 0.3
    m = rotation_met(2, [0.1, 0.3, 0.2], [0.0, d, 0.0])
    b1 = 0.5 + (1 - 0.3) / 4
    assert m[1, 1, 2] == pytest.approx(d * m[2, 1, 2] + (1 - d) * b1, abs=1e-15)
    # the Tavli match reads it at the next game of the rotation
    tav = VariantMatch(length=2, rotation=("portes", "plakoto", "fevga"), score=(1, 0), games=4)
    assert match_mwc(tav, 0, gammon_rates=[0.1, 0.3, 0.2], draw_rates=[0, d, 0]) == m[1, 1, 2]
    with pytest.raises(InvalidParameterError, match="rotation of 3"):
        match_mwc(tav, 0, gammon_rates=[0.1, 0.3])
    with pytest.raises(InvalidParameterError):
        rotation_met(3, [1.5])


# ---------------------------------------------------------------------------- self-play


@pytest.mark.slow
def test_selfplay_statistics_are_consistent() -> None:
    stats = selfplay("plakoto", games=60, seed=3, player="random")
    assert stats["variant"] == "plakoto" and stats["games"] == 60
    assert set(stats["results"]) == {"single", "gammon", "mother", "draw"}
    assert sum(stats["results"].values()) == 60
    decisive = 60 - stats["results"]["draw"]
    two = stats["results"]["gammon"] + stats["results"]["mother"]
    assert stats["gammon_rate"] == pytest.approx(two / decisive)
    assert stats["mean_plies"] > 10
    assert selfplay("plakoto", games=60, seed=3) == stats  # seeded: reproducible


@pytest.mark.slow
def test_heuristic_player_beats_random_play() -> None:
    # a sanity check of the documented heuristic (greedy one-ply) against random choices
    for name in ("portes", "long-nardi"):
        rng = random.Random(9)
        wins = 0
        for i in range(60):
            players = ("heuristic", "random") if i % 2 == 0 else ("random", "heuristic")
            res = play_game(name, rng, players).result
            wins += res.winner == i % 2
        assert wins >= 40, (name, wins)


@pytest.mark.slow
def test_selfplay_cli_json(capsys: pytest.CaptureFixture) -> None:
    for name in ("backgammon", "long-nardi"):
        assert main(["selfplay", "--variant", name, "--games", "20", "--seed", "2", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert {"variant", "games", "results", "mean_plies", "gammon_rate"} <= set(out)
        assert out["variant"] == name and out["games"] == 20
        assert sum(out["results"].values()) == 20
        # a backgammon is a result of the standard game only (Long Nardi has none)
        assert ("backgammon" in out["results"]) == (name == "backgammon")
    assert main(["selfplay", "--variant", "fevga", "--games", "5", "--player", "heuristic"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("fevga: 5 games, heuristic player") and "gammon rate" in text
    assert main(["selfplay", "--variant", "chess", "--games", "5"]) == 2
    assert "unknown variant 'chess'" in capsys.readouterr().err


def test_game_state_flow_of_each_variant_keeps_the_variant() -> None:
    for rs in (FEVGA, LONG_NARDI):
        rec = play_random_game(random.Random(2), variant=rs)
        assert all(s.position.variant == rs.variant for s in rec.states)
