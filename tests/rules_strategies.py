"""Hypothesis strategies and helpers shared by the rules tests."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import assume
from hypothesis import strategies as st

from mathbg.rules.dice import ROLLS
from mathbg.rules.position import Position

rolls = st.sampled_from(ROLLS)

MOVECOUNTS_FILE = Path(__file__).parent / "data" / "movecounts.txt"


def read_movecounts() -> list[tuple[str, tuple[int, int], int]]:
    """The published legal-play counts: (Position ID, roll, count) rows."""
    rows = []
    for line in MOVECOUNTS_FILE.read_text(encoding="utf-8").splitlines():
        fields = line.split("#")[0].split()
        if fields:
            pid, dice, count = fields
            rows.append((pid, (int(dice[0]), int(dice[1])), int(count)))
    return rows


@st.composite
def valid_positions(draw: st.DrawFn, max_checkers: int = 15) -> Position:
    """Any valid position: each side 0..15 checkers anywhere, no point shared."""
    n_me = draw(st.integers(0, max_checkers))
    n_opp = draw(st.integers(0, max_checkers))
    me = [0] * 25
    for _ in range(n_me):
        me[draw(st.integers(0, 24))] += 1
    # the opponent's cell k (its point k + 1) is the mover's point 24 - k (cell 23 - k)
    allowed = [k for k in range(25) if k == 24 or me[23 - k] == 0]
    opp = [0] * 25
    for _ in range(n_opp):
        opp[draw(st.sampled_from(allowed))] += 1
    pos = Position.from_counts(me, opp)
    assume(pos.is_valid())
    return pos


@st.composite
def game_positions(draw: st.DrawFn) -> Position:
    """A position reached by random play from the start (seeded by hypothesis)."""
    from mathbg.rules.game import Phase, play_random_game

    seed = draw(st.integers(0, 2**32 - 1))
    rec = play_random_game(random.Random(seed))
    states = [s for s in rec.states if s.phase == Phase.ROLL]
    assume(states)
    return states[draw(st.integers(0, len(states) - 1))].position
