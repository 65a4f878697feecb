"""Legal plays: published counts, every rule on a constructed position, properties.

Expected values come from (a) tests/data/movecounts.txt (published counts, source cited in
the file), (b) hand enumeration from the rules for small constructed positions (the
reasoning is in each test's comment), (c) the brute-force reference generator, which
reads the rules literally (every order of every die for every checker), for the
property tests. The differential test against gnubg is in test_rules_gnubg_diff.py.

Position.from_counts(player, opponent) takes each side in its own numbering: the
opponent's point q is the mover's point 25 - q. Entering with die d lands on the mover's
point 25 - d (the opponent's point d).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from rules_strategies import game_positions, read_movecounts, rolls, valid_positions

from mathbg import Position
from mathbg.errors import InvalidRollError
from mathbg.rules import movegen
from mathbg.rules.dice import ROLLS

MOVECOUNTS = read_movecounts()


def results(pos: Position, roll) -> set[Position]:
    return set(pos.legal_plays(roll).results)


def P(player: dict, opponent: dict) -> Position:
    return Position.from_counts(player, opponent)


# ----------------------------------------------------------------------------- published


def test_movecounts_file_has_the_issue_rows():
    rows = {(p, d): c for p, d, c in MOVECOUNTS}
    assert len(MOVECOUNTS) >= 16
    assert rows[("4HPwATDgc/ABMA", (4, 4))] == 52
    assert rows[("4HPwATDgc/ABMA", (3, 1))] == 16
    assert rows[("0HPwATDgc/ABMA", (6, 4))] == 15
    assert rows[("AACAkCRJqqoAAA", (1, 1))] == 2220


@pytest.mark.parametrize(("pid", "roll", "count"), MOVECOUNTS)
def test_published_counts(pid, roll, count):
    assert len(Position.from_id(pid).legal_plays(roll)) == count


def test_plays_identified_by_result_including_hits():
    # code-anchors 0.6: 0HPwATDgc/ABMA 6-4 has 15 plays but only 14 distinct layouts of the
    # mover's own checkers: 24/14 exists with and without the hit on 20.
    plays = Position.from_id("0HPwATDgc/ABMA").legal_plays((6, 4))
    assert len(plays) == 15
    assert len({p.result.player for p in plays}) == 14
    assert {"24/14", "24/20*/14"} <= set(plays.notations())


def test_roll_order_and_validation():
    pos = Position.from_id("0HPwATDgc/ABMA")
    assert set(pos.legal_plays((6, 4)).results) == set(pos.legal_plays((4, 6)).results)
    assert pos.legal_plays("46").roll == (6, 4)
    with pytest.raises(InvalidRollError):
        pos.legal_plays((7, 1))


# ----------------------------------------------------------------------------- the rules

# an opponent holding its points 1-5 (the mover's 20-24 entry points), 5 more on its 13
FIVE_POINT_BOARD = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}


def test_bar_entry_then_free_die():
    # one on the bar, entry 25 - 6 = 19 open, 25 - 5 = 20 blocked. 6-5: enter with the 6,
    # then the 5 by any checker: 19/14 or 13/8.
    pos = P({25: 1, 13: 14}, FIVE_POINT_BOARD)
    assert results(pos, (6, 5)) == {
        P({14: 1, 13: 14}, FIVE_POINT_BOARD),
        P({19: 1, 13: 13, 8: 1}, FIVE_POINT_BOARD),
    }
    assert set(pos.legal_plays((6, 5)).notations()) == {"bar/14", "bar/19 13/8"}


def test_dancing_gives_no_play():
    # 5-4: both entry points (20, 21) blocked; the 13s may not move while on the bar.
    pos = P({25: 1, 13: 14}, FIVE_POINT_BOARD)
    assert len(pos.legal_plays((5, 4))) == 0
    assert len(pos.legal_plays((5, 5))) == 0


def test_cannot_enter_all_forfeits_the_rest():
    # two on the bar, 6-5: one enters with the 6; the 5 cannot enter and nothing else may
    # move while a checker is on the bar: the only play is bar/19.
    pos = P({25: 2, 13: 13}, FIVE_POINT_BOARD)
    assert results(pos, (6, 5)) == {P({25: 1, 19: 1, 13: 13}, FIVE_POINT_BOARD)}
    # 6-6: both enter, then two more sixes from 19 or 13 (13 -> 7 -> 1 all open):
    # {19/13, 19/13}, {19/13, 13/7} (= 19/7), {13/7, 13/7}, {13/7, 7/1}
    assert results(pos, (6, 6)) == {
        P({13: 15}, FIVE_POINT_BOARD),
        P({19: 1, 13: 13, 7: 1}, FIVE_POINT_BOARD),
        P({19: 2, 13: 11, 7: 2}, FIVE_POINT_BOARD),
        P({19: 2, 13: 12, 1: 1}, FIVE_POINT_BOARD),
    }


def test_entering_with_a_hit():
    # the opponent's blot on its 3 = the mover's 22 (entered with a 3)
    opp = {3: 1, 12: 14}
    pos = P({25: 1, 6: 14}, opp)
    plays = pos.legal_plays((3, 1))
    assert "bar/22*" in " ".join(plays.notations())
    hit = [p for p in plays if 22 in p.hits]
    assert hit and all(p.result.opponent[24] == 1 for p in hit)


def test_higher_die_rule():
    # one checker on 24; the opponent blocks the mover's 13 (its 12). 6-5: 24/18 then 18/13
    # is blocked, 24/19 then 19/13 is blocked: only one die can be played, so the 6.
    opp = {12: 2, 2: 13}  # its 2 = the mover's 23, out of the way
    pos = P({24: 1}, opp)
    assert results(pos, (6, 5)) == {P({18: 1}, opp)}
    # if the 6 cannot be played at all (the mover's 18 = its 7 blocked), the 5 is played
    opp2 = {7: 2, 12: 2, 2: 11}
    assert results(P({24: 1}, opp2), (6, 5)) == {P({19: 1}, opp2)}


def test_smaller_die_first_to_play_both():
    # 24/18 is blocked (its 7), but 24/23 then 23/17 is open: both dice must be used, so
    # the only play is 24/17 (24/23 alone is not legal).
    opp = {7: 2, 3: 13}
    pos = P({24: 1}, opp)
    assert results(pos, (6, 1)) == {P({17: 1}, opp)}
    assert pos.legal_plays((6, 1)).notations() == ["24/17"]


def test_doubles_as_many_as_possible():
    # 2-2 from 24: 22 and 20 open, 18 (its 7) blocked: two 2s only, 24/20.
    opp = {7: 2, 12: 13}
    assert results(P({24: 1}, opp), (2, 2)) == {P({20: 1}, opp)}


def test_bear_off_exact_and_highest_point():
    # 6 and 4 in, 13 off; opponent far away (its 6-point = the mover's 19). 6-4:
    # 6/off + 4/off; or 4 first 6/2, then the 6 bears off from the highest point, 4.
    opp = {6: 15}
    pos = P({6: 1, 4: 1}, opp)
    assert results(pos, (6, 4)) == {P({}, opp), P({2: 1}, opp)}


def test_overshoot_only_from_highest_point():
    # 5 and 2; 6-1: the 6 bears off only from the highest occupied point (5), never the 2
    # while the 5 stands. 6 then 1: 5/off 2/1. 1 then 6: 5/4 then 4/off, or 2/1 then 5/off.
    opp = {6: 15}
    pos = P({5: 1, 2: 1}, opp)
    assert results(pos, (6, 1)) == {P({2: 1}, opp), P({1: 1}, opp)}


def test_fifteen_on_six_point_cannot_bear_off_with_5_3():
    # code-anchors 0.7: 6/1 then the 3 cannot bear off (the 6-point is occupied);
    # the only play is 6/3 6/1.
    opp = {6: 15}
    pos = P({6: 15}, opp)
    assert results(pos, (5, 3)) == {P({6: 13, 3: 1, 1: 1}, opp)}


def test_checker_arriving_home_lets_the_other_die_bear_off():
    # one on 8, fourteen on 6. 6-2: 8/6 then 6/off (or 8/2 2/off): one checker off;
    # or 8/2 6/4. (6/off first is illegal: the 8 is outside.)
    opp = {6: 15}
    pos = P({8: 1, 6: 14}, opp)
    assert results(pos, (6, 2)) == {P({6: 14}, opp), P({6: 13, 4: 1, 2: 1}, opp)}
    assert any(p.result.player_off == 1 for p in pos.legal_plays((2, 6)))


def test_hitting_while_bearing_off():
    # 6 and 4 in; an opposing blot on the mover's 2 (its 23). 4-2:
    # 6/2* 2/off (hit, one on 4), 6/2* 4/2 (hit, two on 2), 4/off 6/4 (no hit, one on 4).
    # The first and last have the same own checkers but differ by the hit: two plays.
    opp = {23: 1, 1: 14}
    opp_hit = {25: 1, 1: 14}
    pos = P({6: 1, 4: 1}, opp)
    assert results(pos, (4, 2)) == {P({4: 1}, opp_hit), P({2: 2}, opp_hit), P({4: 1}, opp)}
    assert set(pos.legal_plays((4, 2)).notations()) == {"6/2*/off", "6/2* 4/2", "6/off"}


def test_hit_checker_must_come_home_before_bearing_off_again():
    # fourteen on 6 and one on the bar: 6-1 enters (19 or 24) and can never bear off.
    # 6 first: bar/19 then 19/18 or 6/5; 1 first: bar/24 then 24/18.
    opp = {12: 15}
    pos = P({25: 1, 6: 14}, opp)
    assert results(pos, (6, 1)) == {P({18: 1, 6: 14}, opp), P({19: 1, 6: 13, 5: 1}, opp)}


def test_notation_examples():
    start = Position.initial()
    assert "8/5(2) 6/3(2)" in start.legal_plays((3, 3)).notations()
    assert "24/18(2) 13/7(2)" in start.legal_plays((6, 6)).notations()
    assert "8/5 6/5" in start.legal_plays((3, 1)).notations()
    assert P({6: 2}, {6: 15}).legal_plays((6, 6)).notations() == ["6/off(2)"]


# ----------------------------------------------------------------------------- batch APIs


@pytest.mark.slow
def test_successors_and_count_plays_agree_with_single_calls():
    ids = ["4HPwATDgc/ABMA", "0HPwATDgc/ABMA", "AACAkCRJqqoAAA", "4HPwATDgc/ABUA"]
    positions = [Position.from_id(i) for i in ids]
    boards = np.stack([p.board for p in positions])
    ptr, res = movegen.successors(boards)
    counts = movegen.count_plays(boards)
    assert counts.shape == (4, 21)
    for b, pos in enumerate(positions):
        for r, roll in enumerate(ROLLS):
            single = set(pos.legal_plays(roll).results)
            lo, hi = ptr[b * 21 + r], ptr[b * 21 + r + 1]
            batch = {Position(res[j].tobytes()) for j in range(lo, hi)}
            assert batch == single
            assert counts[b, r] == len(single)


def test_more_than_15_on_a_point_is_refused():
    from mathbg.errors import InvalidPositionError

    with pytest.raises(InvalidPositionError, match=r"16 checkers \(at most 15"):
        Position.from_counts({6: 16}, {}).legal_plays((3, 1))  # refused by Position.check
    with pytest.raises(InvalidPositionError):
        movegen.count_plays(np.full((1, 50), 16))


@pytest.mark.slow
def test_workspace_grows_when_needed(monkeypatch):
    from mathbg.rules import _movegen_workspace as movegen_workspace

    pos = Position.from_id("AACAkCRJqqoAAA")
    monkeypatch.setattr(movegen, "_port_calls_left", 0)  # the kernel, not the port
    # 8 entries: too small for 2220 plays
    monkeypatch.setattr(movegen_workspace, "WORKSPACE", movegen_workspace.Workspace(log2_slots=4))
    assert len(pos.legal_plays((1, 1))) == 2220
    assert movegen.count_plays(pos.board[None])[0, 0] == 2220


def kernel_plays(cells: bytes, roll: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    from mathbg.rules._movegen_kernels import generate_kernel
    from mathbg.rules._movegen_workspace import WORKSPACE

    board = np.frombuffer(cells, dtype=np.uint8)
    while True:
        n, boards, moves = generate_kernel(board, roll[0], roll[1], WORKSPACE.args())
        if n >= 0:
            return boards, moves
        WORKSPACE.grow()


def assert_port_is_kernel(cells: bytes, roll: tuple[int, int]) -> None:
    """The pure-Python port finds the kernel's plays, in its order, with its moves."""
    boards, moves = movegen.generate_python(cells, *roll)
    k_boards, k_moves = kernel_plays(cells, roll)
    np.testing.assert_array_equal(boards, k_boards)
    np.testing.assert_array_equal(moves, k_moves)


def test_generate_switches_from_the_port_to_the_kernel(monkeypatch):
    from mathbg import _native

    pos = Position.from_id("0HPwATDgc/ABMA")
    compiled = _native.compiled("movegen_generate") is not None
    monkeypatch.setattr(movegen, "_port_calls_left", 1)
    if compiled:  # the kernel compiled ahead of time serves every call: the port is not used
        movegen.generate(pos.cells, 6, 4)
        assert movegen._port_calls_left == 1
        monkeypatch.setattr(_native, "_module", None)  # numba's kernel from here on
    first = movegen.generate(pos.cells, 6, 4)  # the port
    assert movegen._port_calls_left == 0
    second = movegen.generate(pos.cells, 6, 4)  # numba's kernel
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert len(first[0]) == 15  # published (tests/data/movecounts.txt)


def test_a_kernel_user_sends_generate_to_the_kernel(monkeypatch):
    monkeypatch.setattr(movegen, "_port_calls_left", movegen.PORT_CALLS)
    movegen.workspace()  # what the native engine asks for before its kernel runs
    assert movegen._port_calls_left == 0


def test_reading_a_match_file_imports_no_numba(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    match = sorted((Path(__file__).parent.parent / "data" / "matches").glob("*.txt"))[0]
    code = ("import sys; from mathbg.rules.formats import read_match; "
            f"r = read_match({str(match)!r}); assert r.games; "
            "assert 'numba' not in sys.modules, 'numba imported'")  # fmt: skip
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


@pytest.mark.slow
@given(valid_positions(), rolls)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_port_equals_kernel(pos, roll):
    assert_port_is_kernel(pos.cells, roll)


@pytest.mark.slow
@given(game_positions(), rolls)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_port_equals_kernel_on_game_positions(pos, roll):
    assert_port_is_kernel(pos.cells, roll)


@pytest.mark.slow
def test_port_equals_kernel_on_real_matches():
    # every position of ten shipped Galaxy matches, with each of the 21 rolls (~20k cases)
    from pathlib import Path

    from mathbg.rules.formats import read_match

    files = sorted((Path(__file__).parent.parent / "data" / "matches").glob("*.txt"))[:10]
    seen = set()
    for f in files:
        for d in read_match(f).replay():
            if getattr(d.action, "dice", None) and d.position.cells not in seen:
                seen.add(d.position.cells)
                for roll in ROLLS:
                    assert_port_is_kernel(d.position.cells, tuple(roll))
    assert len(seen) > 500


# ----------------------------------------------------------------------------- properties


@pytest.mark.slow
@given(valid_positions(), rolls)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kernel_equals_reference_generator(pos, roll):
    ref = movegen.reference_results(pos, roll)
    assert {p.cells for p in pos.legal_plays(roll).results} == set(ref)
    boards, _ = kernel_plays(pos.cells, roll)
    assert {b.tobytes() for b in boards} == set(ref)


@pytest.mark.slow
@given(game_positions(), rolls)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kernel_equals_reference_on_game_positions(pos, roll):
    ref = movegen.reference_results(pos, roll)
    assert {p.cells for p in pos.legal_plays(roll).results} == set(ref)


@pytest.mark.slow
@given(valid_positions(), rolls)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_conservation_and_pip_accounting(pos, roll):
    plays = pos.legal_plays(roll)
    before_me, before_opp = pos.pips()
    n_dice = {len(p.moves) for p in plays}
    assert len(n_dice) <= 1  # every legal play uses the same (maximal) number of dice
    for p in plays:
        r = p.result
        offs = sum(1 for _, to in p.moves if to == 0)
        # checkers conserved: the mover's only leave by bearing off, the opponent's never
        assert sum(r.player) == sum(pos.player) - offs
        assert r.player_off == pos.player_off + offs
        assert sum(r.opponent) == sum(pos.opponent)
        assert r.opponent[24] == pos.opponent[24] + len(p.hits)
        # each move travels its die, except a bear-off which may overshoot (die >= point)
        for (f, t), d in zip(p.moves, p.dice, strict=True):
            assert f - t == d if t else d >= f
        after_me, after_opp = r.pips()
        travelled = sum(f - t for f, t in p.moves)
        assert before_me - after_me == travelled
        assert sum(p.dice) - travelled == sum(
            d - f for (f, t), d in zip(p.moves, p.dice, strict=True) if t == 0
        )
        # a hit on the mover's point t sends the checker from its point 25 - t to its bar
        assert after_opp - before_opp == sum(p.hits)
        assert sum(p.dice) <= (4 * roll[0] if roll[0] == roll[1] else roll[0] + roll[1])


@pytest.mark.slow
@given(game_positions(), rolls)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_notation_round_trip(pos, roll):
    plays = pos.legal_plays(roll)
    for p in list(plays)[:300]:
        assert plays.parse(p.notation) == p
        assert p in plays and p.notation in plays


@given(game_positions(), rolls)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_with_net_is_the_plays_of_that_net_change(pos, roll):
    # reading notation finds its candidates by net change (Plays.with_net): the same plays,
    # in the same order, as testing each play's play_net one by one
    from mathbg.rules.notation import play_net

    plays = pos.legal_plays(roll)
    nets = [play_net(pos, p.result) for p in plays]
    for net in set(nets):
        assert plays.with_net(net) == [p for p, n in zip(plays, nets, strict=True) if n == net]
    assert plays.with_net((9,) * 26) == []
    assert plays.with_net((0,) * 25) == []  # not 26 counts: nothing has it
