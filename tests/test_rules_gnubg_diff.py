"""Differential test of the legal-play generator against gnubg (the reference peer).

At least 500 positions reached by seeded random play, chosen to cover bar entry, dancing,
hits, bear-offs with overshoot and partly playable rolls, plus every row of
tests/data/movecounts.txt; for each position and each of the 21 rolls the SET of resulting
positions must equal gnubg's. gnubg lists the plays of all of them in one process (see
gnubg_plays.py for how, in about 10 s instead of the 2 minutes ``hint`` would take).
"""

from __future__ import annotations

import random

import pytest
from gnubg_plays import gnubg_play_sets
from rules_strategies import read_movecounts

from mathbg import Position
from mathbg.rules import movegen
from mathbg.rules.dice import ROLLS
from mathbg.rules.game import Phase, play_random_game

SEED = 20240229
N_RANDOM = 520


def _features(pos: Position) -> dict[str, bool]:
    """Which situations the 21 rolls of ``pos`` exercise (selection only)."""
    me = pos.player
    f = {
        "bar": me[24] > 0,
        "dance": False,
        "hit": False,
        "partial": False,
        "overshoot": False,
    }
    home_only = not any(me[6:])
    f["overshoot"] = home_only and me[5] == 0 and sum(me) > 0
    for roll in ROLLS:
        boards, moves = movegen.generate(pos.cells, *roll)
        if len(boards) == 0:
            f["dance"] = True
            continue
        if (boards[:, 24] > pos.cells[24]).any():
            f["hit"] = True
        full = 4 if roll[0] == roll[1] else 2
        if (moves[0, :, 0] >= 0).sum() < full:
            f["partial"] = True
    return f


def select_positions() -> list[Position]:
    """At least N_RANDOM distinct positions from seeded random games, with quotas.

    Positions are taken (with probability 1/4, to spread them over many games) while they
    add to an unfilled quota; then random other positions fill up to N_RANDOM.
    """
    rng = random.Random(SEED)
    quotas = {"bar": 110, "dance": 60, "hit": 110, "partial": 90, "overshoot": 90}
    chosen: dict[Position, None] = {}
    counts = dict.fromkeys(quotas, 0)
    for _ in range(2000):
        if len(chosen) >= N_RANDOM:
            break
        filled = all(counts[k] >= q for k, q in quotas.items())
        for st in play_random_game(rng).states:
            if st.phase != Phase.ROLL or st.position in chosen or rng.random() > 0.25:
                continue
            if filled:
                chosen[st.position] = None
                break
            f = _features(st.position)
            if any(f[k] and counts[k] < q for k, q in quotas.items()):
                chosen[st.position] = None
                for k in quotas:
                    counts[k] += f[k]
    assert all(counts[k] >= q for k, q in quotas.items()), counts
    return list(chosen)


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow
def test_legal_plays_equal_gnubg(gnubg):
    positions = select_positions()
    assert len(positions) >= 500
    published = [(Position.from_id(pid), roll, n) for pid, roll, n in read_movecounts()]
    items = [(pos, roll) for pos in positions for roll in ROLLS]
    items += [(pos, roll) for pos, roll, _ in published]
    gnubg_sets, info = gnubg_play_sets(gnubg.run_python, items)
    assert not info["rejected"], f"gnubg rejects these plays of mathbg: {info['rejected'][:10]}"

    mismatches = []
    for (pos, roll), theirs in zip(items, gnubg_sets, strict=True):
        ours = {p.cells for p in pos.legal_plays(roll).results}
        if ours != theirs:
            mismatches.append((pos.id, roll, len(ours), len(theirs)))
    assert not mismatches, mismatches[:20]

    # the published counts agree with gnubg too
    n = len(positions) * 21
    for (pos, roll, count), theirs in zip(published, gnubg_sets[n:], strict=True):
        assert len(theirs) == count, (pos.id, roll)

    # coverage of the situations the issue names
    stats = {"bar": 0, "dance": 0, "hit": 0, "partial": 0, "overshoot": 0}
    for pos in positions:
        for k, v in _features(pos).items():
            stats[k] += v
    assert all(v >= 60 for v in stats.values()), stats
