"""The native engine against gnubg 1.07.001 itself: the same 0-ply outputs, to the bit.

gnubg's own ``evaluate`` (0 plies) of every position, in one gnubg process, against the
native engine's: contact and crashed positions and races from random games, two-sided and
one-sided bearoffs, and races where a side may still be backgammoned (gnubg counts that
chance from its table of escapes). Every output must be the same float32 number, except
in the one-sided bearoffs, where gnubg's compiler sums the distributions' products in
another order: there within two float32 units.

The fast lane takes seventy positions; the slow lane two thousand.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.analysis.gnubg_program import run_gnubg
from mathbg.analysis.net import _kernels as nk
from mathbg.analysis.net.engine import evaluate_boards, play_outputs
from mathbg.analysis.sample import random_positions
from mathbg.rules.dice import ROLLS

pytestmark = pytest.mark.gnubg(kind="exact")


def _cells(positions) -> np.ndarray:
    return np.array([np.frombuffer(p.cells, dtype=np.uint8) for p in positions])


def _bearoffs(n: int, checkers: int, rng: np.random.Generator) -> np.ndarray:
    """Random bearoffs: each side 1..``checkers`` checkers on its six home points."""
    out = np.zeros((n, 50), np.uint8)
    for b in out:
        for base in (0, 25):
            for _ in range(int(rng.integers(1, checkers + 1))):
                b[base + int(rng.integers(0, 6))] += 1
    return out


def _backgammon_races(n: int, rng: np.random.Generator) -> np.ndarray:
    """Races where the side not on roll (or on roll) may be backgammoned: the winner's
    checkers below point ``6 - d``, up to 8 of the loser's on his points ``19 + d ..
    23`` (the winner's home), the rest of his 15 at home."""
    out = np.zeros((n, 50), np.uint8)
    for k, b in enumerate(out):
        loser, winner = (0, 25) if k % 2 else (25, 0)
        d = int(rng.integers(0, 3))
        for _ in range(int(rng.integers(1, 16))):
            b[winner + int(rng.integers(0, 5 - d))] += 1
        far = int(rng.integers(1, 9))
        for _ in range(far):
            b[loser + 18 + d + int(rng.integers(0, 5 - d))] += 1
        for _ in range(15 - far):
            b[loser + int(rng.integers(0, 6))] += 1
    return out


def _boards(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([
        _cells(random_positions(n, seed=seed, kind="contact")),
        _cells(random_positions(n, seed=seed + 1, kind="race")),
        _bearoffs(n // 2, 6, rng), _bearoffs(n // 2, 15, rng), _backgammon_races(n // 2, rng),
    ])  # fmt: skip


def _compare(boards: np.ndarray) -> dict[int, int]:
    """Assert the native outputs equal gnubg's; return the count of positions by class."""
    ours, classes = evaluate_boards(boards)
    rows = run_gnubg([(b[:25].tolist(), b[25:].tolist()) for b in boards])
    theirs = np.array([r["probs"] for r in rows], dtype=np.float64)
    gnubg_class = np.array([r["class"] for r in rows])
    assert np.array_equal(classes, gnubg_class)
    for klass in np.unique(classes):
        k = classes == klass
        diff = np.abs(ours[k] - theirs[k]).max()
        if klass == nk.BEAROFF1:
            assert diff <= 2.4e-7, (klass, diff)
        else:
            assert diff == 0.0, (klass, diff, boards[k][np.argmax(np.abs(ours[k] - theirs[k])
                                                                 .max(axis=1))].tolist())
    return {int(c): int((classes == c).sum()) for c in np.unique(classes)}


def test_native_outputs_are_gnubgs(gnubg):
    counts = _compare(_boards(20, 11))
    # every class gnubg 1.07 reaches with its standard databases is in the sample
    assert set(counts) == {nk.BEAROFF2, nk.BEAROFF1, nk.RACE, nk.CRASHED, nk.CONTACT}


@pytest.mark.slow
def test_native_outputs_are_gnubgs_on_thousands(gnubg):
    counts = _compare(_boards(600, 21))
    assert sum(counts.values()) == 2100 and counts[nk.CONTACT] > 300


def test_plays_valued_as_gnubg_values_them(gnubg):
    """The plays of a roll are positions like any other (their outputs are the positions'):
    gnubg's values of the positions the plays leave, the opponent on roll."""
    boards = _cells(random_positions(4, seed=31, kind="contact"))
    _, results, probs = play_outputs(np.repeat(boards, 3, axis=0),
                                       np.array([ROLLS[i] for i in (2, 9, 20)] * 4))  # fmt: skip
    rows = run_gnubg([(b[:25].tolist(), b[25:].tolist()) for b in results])
    assert np.array_equal(probs, np.array([r["probs"] for r in rows], dtype=np.float64))
