"""The native engine (``mathbg.analysis.net``): gnubg 1.07's networks in mathbg's kernels.

Its outputs are checked against gnubg itself in ``test_net_gnubg.py``; here, what can be
checked without the peer: the weights file and its readers, gnubg's tables carried over
(their numbers from gnubg's source, their invariants), the outputs' invariants on random
games, finished games and exact bearoffs, the plays against the move generator, and the
engine's place in the registry.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mathbg.analysis import get_evaluator, get_player
from mathbg.analysis.net import _kernels as nk
from mathbg.analysis.net.engine import (
    NativeEvaluator,
    NativePlayer,
    best_plays,
    cached_outputs,
    evaluate_boards,
    play_outputs,
)
from mathbg.analysis.net.tables import race_backgammon_table
from mathbg.analysis.net.weights import read_networks, shipped_networks
from mathbg.errors import DatabaseCorruptError, InvalidParameterError
from mathbg.rules.dice import ROLLS
from mathbg.rules.movegen import successors
from mathbg.rules.position import Position

MONEY = np.array([-2.0, -1.0, -1.0, 1.0, 1.0])  # the mover's weights of the next side's outputs


def _cells(pos: Position) -> np.ndarray:
    return np.frombuffer(pos.cells, dtype=np.uint8).copy()


def _swap(boards: np.ndarray) -> np.ndarray:
    return np.concatenate([boards[:, 25:], boards[:, :25]], axis=1)


# ----------------------------------------------------------------------------- weights


def test_shipped_weights_are_gnubg_107s_six_networks():
    nets = shipped_networks()
    shapes = [(n.inputs, n.hidden, n.output_weights.shape[0])
              for n in (nets.contact, nets.race, nets.crashed, nets.prune_contact,
                        nets.prune_crashed, nets.prune_race)]  # fmt: skip
    assert shapes == [(250, 128, 5), (214, 128, 5), (250, 128, 5), (200, 16, 5), (200, 16, 5),
                      (200, 8, 5)]  # fmt: skip
    assert nets.contact.beta_hidden == float(np.float32(0.1)) and nets.race.beta_output == 1.0


def _binary(nets) -> bytes:
    out = [struct.pack("<ff", 472.3782, 1.0)]
    for n in (nets.contact, nets.race, nets.crashed, nets.prune_contact, nets.prune_crashed,
              nets.prune_race):  # fmt: skip
        out.append(struct.pack("<4i2f", n.inputs, n.hidden, 5, 1, n.beta_hidden, n.beta_output))
        for a in (n.hidden_weights, n.output_weights, n.hidden_threshold, n.output_threshold):
            out.append(np.ascontiguousarray(a, dtype="<f4").tobytes())
    return b"".join(out)


def test_binary_and_text_weights_read_the_same_numbers(tmp_path):
    nets = shipped_networks()
    binary = tmp_path / "gnubg.wd"
    binary.write_bytes(_binary(nets))
    lines = ["GNU Backgammon 1.00"]
    for name, n in (("contact", nets.contact), ("race", nets.race), ("crashed", nets.crashed),
                    ("pcontact", nets.prune_contact), ("pcrashed", nets.prune_crashed),
                    ("prace", nets.prune_race)):  # fmt: skip
        lines.append(name)  # gnubg-nn's files name each network; gnubg's do not
        lines.append(f"{n.inputs} {n.hidden} 5 1 {n.beta_hidden!r} {n.beta_output!r}")
        for a in (n.hidden_weights, n.output_weights, n.hidden_threshold, n.output_threshold):
            lines += [repr(float(v)) for v in a.reshape(-1)]
    text = tmp_path / "gnubg.weights"
    text.write_text("\n".join(lines) + "\n")
    for path in (binary, text):
        got = read_networks(path)
        for a, b in ((got.contact, nets.contact), (got.prune_race, nets.prune_race)):
            assert np.array_equal(a.hidden_weights, b.hidden_weights)
            assert np.array_equal(a.output_threshold, b.output_threshold)


@pytest.mark.parametrize("damage", ["magic", "short", "long", "counts"])
def test_a_damaged_weights_file_is_refused_with_its_name(tmp_path, damage):
    data = bytearray(_binary(shipped_networks()))
    if damage == "magic":
        data[:4] = struct.pack("<f", 1.0)
    elif damage == "short":
        data = data[:-7]
    elif damage == "long":
        data += b"\0" * 4
    else:
        data[8:12] = struct.pack("<i", 249)
    path = tmp_path / "weights.wd"
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseCorruptError, match=r"weights\.wd"):
        read_networks(path)


def test_a_missing_weights_file_says_so(tmp_path):
    with pytest.raises(DatabaseCorruptError, match="cannot read"):
        read_networks(tmp_path / "nothing.wd")


# ----------------------------------------------------------------------------- gnubg's tables


def test_sigmoid_table_is_gnubgs():
    # sigmoid.h: e[k] = exp(k/10)/10 as float literals, the last repeated
    for k, literal in ((0, 0.10000000000000001), (7, 0.20137527074704767),
                       (55, 24.469193226422039), (99, 1993.0370438230298),
                       (100, 1993.0370438230298)):  # fmt: skip
        assert nk._E[k] == np.float32(literal)


def test_race_backgammon_rows_are_distributions():
    table = race_backgammon_table()
    used = table.sum(axis=2) > 0
    assert used.sum() == 461  # the rows of bearoffgammon.c's y1..y31
    total = sum(table[:, :, j] / 36.0 ** (j + 1) for j in range(5))
    assert np.allclose(total[used], 1.0, rtol=0, atol=1e-12)  # every loser leaves in 5 rolls
    # y1: one checker on the winner's 6-point leaves at once; three need a double at once
    assert table[0, 0].tolist() == [36, 0, 0, 0, 0]
    assert table[0, 2].tolist() == [6, 1080, 0, 0, 0]


# ----------------------------------------------------------------------------- outputs


def test_finished_games_are_exact():
    won = Position.from_counts({}, {1: 3})  # the side on roll has borne off: it won
    cells = _cells(won)
    probs, classes = evaluate_boards(cells[None])
    assert classes[0] == nk.OVER and probs[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    lost = np.zeros(50, np.uint8)
    lost[25 + 23], lost[25 + 5] = 1, 14  # 15 on the board, one in the winner's home: backgammon
    probs, classes = evaluate_boards(lost[None])
    assert probs[0].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


def test_bearoffs_come_from_the_databases():
    # one checker each on the ace point: the roller bears off first
    pos = Position.from_counts({1: 1}, {1: 1})
    probs, classes = evaluate_boards(_cells(pos)[None])
    assert classes[0] == nk.BEAROFF2 and probs[0, 0] == 1.0
    # 15 checkers each on the 6-point: the one-sided database; with one distribution p
    # for both sides the roller wins sum_i p_i sum_{j >= i} p_j = (1 + sum p_i^2) / 2
    from mathbg.bearoff import OneSided

    pos = Position.from_counts({6: 15}, {6: 15})
    probs, classes = evaluate_boards(_cells(pos)[None])
    one = OneSided.build(6, 15, progress=False)
    p = one.gnubg_table[one.index([0, 0, 0, 0, 0, 15]), :32] / 65535.0
    assert classes[0] == nk.BEAROFF1 and abs(probs[0, 0] - (1 + p @ p) / 2) < 1e-6
    assert 0 < probs[0, 1] < 1e-6 and 0 < probs[0, 3] < 1e-6  # a gammon: nearly impossible


#: One single-precision unit above 1: gnubg 1.07's own one-sided bearoff sum gives a
#: certain win as 0x3f800001 (1.0000001192...), e.g. 3y8GAIB/AAAAAA, and the native engine,
#: bit for bit gnubg's, does too (the evaluators' Evaluation clips it to 1).
ONE_ULP = 2.0**-23


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
@example(73)  # the random race positions of seed 73 hold 3y8GAIB/AAAAAA
@example(23375)  # and those of seed 23375 v18FAAADAAAAAA (below)
def test_outputs_are_consistent_chances_on_random_games(seed):
    from mathbg.analysis.sample import random_positions

    kind = ("contact", "race")[seed % 2]
    pos = random_positions(3, seed=seed, kind=kind)
    probs, classes = evaluate_boards(np.array([_cells(p) for p in pos]))
    w, wg, wb, lg, lb = probs.T
    # gnubg 1.07's one-sided bearoff gives v18FAAADAAAAAA a certain gammon below its win
    # by one unit: W 0x3f7fffff (0.99999994), WG 0x3f800000 (its gnubg.evaluate at 0 ply)
    assert np.all((0 <= wb) & (wb <= wg) & (wg <= w + ONE_ULP) & (w <= 1 + ONE_ULP))
    assert np.all((0 <= lb) & (lb <= lg) & (lg <= 1 - w + ONE_ULP))
    expect = {"contact": (nk.CRASHED, nk.CONTACT), "race": (nk.BEAROFF2, nk.BEAROFF1, nk.RACE)}
    assert set(classes.tolist()) <= set(expect[kind])


def test_the_evaluator_reads_like_every_engine():
    ev = NativeEvaluator().evaluate(Position.initial())
    assert ev.engine == "native" and ev.plies == 0 and ev.evaluation_class == "contact"
    probs, _ = evaluate_boards(_cells(Position.initial())[None])
    assert ev.probabilities == tuple(float(v) for v in probs[0])
    with pytest.raises(InvalidParameterError, match="0 plies"):
        NativeEvaluator(plies=1)
    cached, _, _ = cached_outputs(_cells(Position.initial())[None])
    assert np.array_equal(cached.astype(np.float64), probs)


# ----------------------------------------------------------------------------- plays


@pytest.fixture(scope="module")
def boards():
    from mathbg.analysis.sample import random_positions

    pos = random_positions(20, seed=3, kind="contact") + random_positions(10, seed=4, kind="race")
    return np.array([_cells(p) for p in pos])


def test_plays_are_the_move_generators_with_their_outputs(boards):
    rolls = np.array([ROLLS[i % 21] for i in range(len(boards))])
    ptr, results, probs = play_outputs(boards, rolls)
    for i, (b, r) in enumerate(zip(boards, rolls, strict=True)):
        _, res = successors(b[None], [tuple(r)])
        assert np.array_equal(results[ptr[i] : ptr[i + 1]], _swap(res))
    again, _ = evaluate_boards(results)
    assert np.array_equal(probs, again)


def test_a_play_reached_by_several_rolls_is_valued_as_the_position(boards):
    """A board's rows in a run (its 21 rolls, as the audit asks them) share a cache: a
    position that another roll reaches again is looked up. Every output is the position's
    own evaluation, also where the run goes back to an earlier board."""
    order = [*range(len(boards)), 0, 1, 0]  # back to earlier boards: the cache was emptied
    rows = np.repeat(boards[order], 21, axis=0)
    rolls = np.array(ROLLS * len(order))
    ptr, results, probs = play_outputs(rows, rolls)
    again, _ = evaluate_boards(results)
    assert np.array_equal(probs, again)
    for i in range(len(rows)):
        _, res = successors(rows[i][None], [tuple(rolls[i])])
        assert np.array_equal(results[ptr[i] : ptr[i + 1]], _swap(res))
    # the run does reach positions again (else the cache was never read)
    first = {bytes(r) for r in results[ptr[0] : ptr[21]]}
    assert len(first) < ptr[21] - ptr[0]


def test_the_best_play_is_the_largest_value_and_pruning_keeps_a_legal_one(boards):
    rolls = np.array([ROLLS[(3 * i) % 21] for i in range(len(boards))])
    weights = np.tile(MONEY, (len(boards), 1))
    ptr, results, probs = play_outputs(boards, rolls)
    after, _, _, pips = best_plays(boards, rolls, weights)
    pruned, _, _, _ = best_plays(boards, rolls, weights, keep=2)
    for i in range(len(boards)):
        rows = slice(ptr[i], ptr[i + 1])
        if ptr[i] == ptr[i + 1]:  # no legal play: the turn passes
            assert np.array_equal(after[i], _swap(boards[i : i + 1])[0])
            continue
        best = ptr[i] + int(np.argmax(probs[rows] @ MONEY))
        assert np.array_equal(after[i], results[best])
        assert any(np.array_equal(pruned[i], r) for r in results[rows])
    assert np.array_equal(pips, np.array([sum((k + 1) * int(c) for k, c in enumerate(a[25:]))
                                          for a in after]))  # fmt: skip


#: Rolls of the shared Galaxy matches whose plays leave positions of two network classes
#: (race and contact) and where the pruning networks' best five miss the full network's
#: best play (found by comparing the two searches over 14,664 rolls).
MIXED_CLASSES = [("Rm+DBwBwP1kGAA", (4, 4)), ("m7sDAMDeTYEAAg", (5, 3)),
                 ("W94PAABtuwMABg", (5, 4)), ("2fk8AADcbgsAAw", (5, 4)),
                 ("tzvDAAC27RIAAw", (4, 4))]  # fmt: skip


def test_the_pruned_search_values_every_play_when_the_plays_classes_differ():
    """gnubg's ``FindBestMoveInEval`` prunes only when every play leaves a position of the
    first play's class (eval.c: it stops at a play of another class and values them all):
    there the pruned search plays the full network's best play."""
    from mathbg.rules.idcodec import decode_position_id

    boards = np.array([np.frombuffer(decode_position_id(pid), dtype=np.uint8)
                       for pid, _ in MIXED_CLASSES])  # fmt: skip
    rolls = np.array([roll for _, roll in MIXED_CLASSES])
    weights = np.tile(MONEY, (len(boards), 1))
    ptr, results, _ = play_outputs(boards, rolls)
    _, classes, _ = cached_outputs(results)
    full, _, _, _ = best_plays(boards, rolls, weights)
    pruned, _, _, _ = best_plays(boards, rolls, weights, keep=5)
    for i in range(len(boards)):
        mixed = classes[ptr[i] : ptr[i + 1]]
        assert ptr[i + 1] - ptr[i] > 5 and {int(c) for c in mixed} == {nk.RACE, nk.CONTACT}
        assert np.array_equal(pruned[i], full[i]), MIXED_CLASSES[i]


def test_the_player_plays_its_best_play():
    player = get_player("native")
    assert isinstance(player, NativePlayer) and player.label.startswith("native 0-ply")
    board = Position.initial().board
    cands = player.candidates(board, 6, 5)
    best = int(np.argmax(cands.chances @ MONEY))
    played = player.play(board, 6, 5, 0.5, np.random.default_rng(0))
    assert tuple(map(tuple, played)) == tuple(map(tuple, cands.after(cands.keys[best])))
    eqs = player.roll_equities(board)
    assert len(eqs) == 22 and math.isclose(eqs[-1], float(np.dot(np.array(
        [1 if a == b else 2 for a, b in ROLLS]) / 36, eqs[:21])))  # fmt: skip


def test_registry_offers_native_and_auto_takes_it_at_zero_plies():
    assert get_evaluator("native").name == "native"
    auto = get_evaluator("auto")
    assert auto.contact_engine().name == "native"  # type: ignore[attr-defined]
    assert isinstance(get_player("auto"), NativePlayer)


def test_hidden_sums_in_registers_are_the_plain_loops_bits_and_refuse_other_arrays():
    """The intrinsic that sums the hidden layer in 8-lane registers adds the same products
    in the same order as one unit at a time (float32, product then sum), so the same bits;
    rows that are not contiguous float32 are a typing error, never a wrong sum."""
    import numba as nb
    from numba.core.errors import TypingError

    @nb.njit
    def add(hidden, rows, inputs, active, n):  # pragma: no cover - compiled
        nk._ADD_SCALED_128(hidden, rows, inputs, active, n)

    rng = np.random.default_rng(7)
    rows = rng.normal(size=(250, 128)).astype(np.float32)
    inputs = np.where(rng.random(250) < 0.2, rng.random(250) * 3, 0).astype(np.float32)
    inputs[::17] = 1.0
    active = np.flatnonzero(inputs).astype(np.int64)
    start = rng.normal(size=128).astype(np.float32)
    hidden = start.copy()
    add(hidden, rows, inputs, active, np.int64(active.size))
    expected = start.copy()
    for i in active:  # numpy float32: a product, then a sum, input after input
        expected = expected + rows[i] * inputs[i]
    assert hidden.tobytes() == expected.tobytes()
    with pytest.raises(TypingError):
        add(start.copy(), np.zeros((250, 256), np.float32)[:, ::2], inputs, active,
            np.int64(active.size))  # fmt: skip
    with pytest.raises(TypingError):
        add(start.copy(), rows.astype(np.float64), inputs, active, np.int64(active.size))


def _point_inputs_of(n: int, bar: bool) -> tuple[float, ...]:
    """gnubg's four inputs of a point holding ``n`` checkers (``baseInputs``; on the bar
    the first two count at least one and at least two)."""
    return (float(n >= 1 if bar else n == 1), float(n >= 2 if bar else n == 2), float(n >= 3),
            (n - 3) / 2 if n > 3 else 0.0)  # fmt: skip


def _point_table_of(weights: np.ndarray) -> np.ndarray:
    hidden = weights.shape[1]
    table = np.zeros((50, 16, hidden), dtype=np.float32)
    for c in range(50):
        side, i = divmod(c, 25)
        rows = weights[100 * side + 4 * i : 100 * side + 4 * i + 4].astype(np.float64)
        for n in range(1, 16):
            v = _point_inputs_of(n, i == 24)
            for h in range(hidden):  # the exactly rounded sum: no order in it
                table[c, n, h] = math.fsum(v[k] * rows[k, h] for k in range(4)) + 0.0
    return table


def test_the_pruning_point_tables_are_each_cells_inputs_times_its_weights() -> None:
    """``point_tables[c, n]``: the four inputs of ``n`` checkers on cell ``c`` times their
    rows of hidden weights, summed (exactly, then rounded to single precision; a sum of
    zeros is +0), for gnubg's three pruning networks and a network of random weights."""
    from dataclasses import replace

    from mathbg.analysis.net.tables import point_tables

    nets = shipped_networks()
    rng = np.random.default_rng(32)
    random = replace(nets.prune_race,
                     hidden_weights=rng.normal(0, 2, (200, 8)).astype(np.float32))
    for net in (nets.prune_contact, nets.prune_crashed, nets.prune_race, random):
        got = point_tables(net)
        want = _point_table_of(net.hidden_weights)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
