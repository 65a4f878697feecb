"""A literal, slow, pure-Python legal-play generator for the variants (for tests).

It follows the rule texts summarised in :mod:`mathbg.rules.variants.rules` as directly as
possible, sharing no code with the numba kernel: every checker, every die, every order
(both orders of a non-double, four dice of a double with no ordering shortcut); every
partial play is a candidate; the end-of-play rules filter the candidates; then the plays
that open a trapping block are preferred (Fevga, when the turn starts with one), then
those using the most dice, then, for one die of a non-double, the larger die. Points are
1..24 in the mover's numbering, 25 the bar, 0 off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mathbg.rules.variants.geometry import Contact, Movement, opponent_point
from mathbg.rules.variants.position import VariantPosition
from mathbg.rules.variants.rules import PrimeRule

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.variants.rules import VariantRuleSet

__all__ = ["reference_plays"]


@dataclass
class _State:
    me: list[int]  # mover's counts: index p = point p (1..24), 25 = bar; index 0 unused
    opp: list[int]  # opponent's counts in ITS numbering, same indexing
    my_pinned: set[int]  # mover's points holding a pinned mover checker
    opp_pinned: set[int]  # opponent's points (its numbering) holding a pinned checker
    stopped: set[int]  # Tavla: mover's points where a checker hit and must stay
    head_moves: int = 0

    def copy(self) -> _State:
        return _State(
            self.me.copy(),
            self.opp.copy(),
            set(self.my_pinned),
            set(self.opp_pinned),
            set(self.stopped),
            self.head_moves,
        )


def _off(counts: list[int]) -> int:
    return 15 - sum(counts[1:26])


def _trapping_block(st: _State, movement: Movement) -> bool:
    """Six consecutive points held by the mover along the opponent's route, with no
    opposing checker ahead of them (beyond, in the opponent's direction, or borne off)."""
    if _off(st.opp) > 0:
        return False
    held = [False] * 25  # in the opponent's numbering
    for q in range(1, 25):
        held[q] = st.me[opponent_point(q, movement)] > 0
    for low in range(1, 20):  # block on the opponent's points low..low+5
        if all(held[low + i] for i in range(6)):
            ahead = any(st.opp[q] for q in range(1, low))
            if not ahead:
                return True
    return False


def _step(
    rules: VariantRuleSet, st: _State, src: int, die: int, first_roll_two: bool, passed: bool
) -> tuple[_State, int] | None:
    """Move one of the mover's checkers from ``src`` by ``die``; None when illegal."""
    movement, contact = rules.movement, rules.contact
    me = st.me
    if me[src] == 0:
        return None
    if me[25] and src != 25:
        return None  # checkers on the bar enter first
    if src in st.my_pinned or src in st.stopped:
        if me[src] - 1 <= 0:
            return None  # the only checker there may not move
    if src == 24 and rules.head_limit:
        limit = 2 if first_roll_two else rules.head_limit
        if st.head_moves >= limit:
            return None
    if src == 24 and rules.first_checker_passes:
        away = 15 - me[24]
        if away > 0 and not passed:
            return None
    dest = src - die
    new = st.copy()
    new.me[src] -= 1
    if src == 24:
        new.head_moves += 1
    if contact == Contact.PIN and new.me[src] == 0:
        new.opp_pinned.discard(opponent_point(src, movement))  # released
    if dest >= 1:
        q = opponent_point(dest, movement)
        theirs = st.opp[q]
        if contact == Contact.BLOCK:
            if theirs:
                return None
        elif contact == Contact.HIT:
            if theirs >= 2:
                return None
            if theirs == 1:
                new.opp[q] = 0
                new.opp[25] += 1
                if not rules.home_hit_and_run and dest <= 6:
                    new.stopped.add(dest)
        else:  # PIN
            if dest in st.my_pinned:
                return None  # the opponent's pinning checker holds the point
            if theirs >= 2:
                return None
            if theirs == 1 and q not in st.opp_pinned:
                new.opp_pinned.add(q)
        new.me[dest] += 1
        return new, dest
    # bearing off: all checkers in the home board, none pinned
    if any(me[p] for p in range(7, 26)) or st.my_pinned:
        return None
    if dest < 0 and any(me[p] for p in range(src + 1, 7)):
        return None
    return new, 0


def reference_plays(
    rules: VariantRuleSet, position: VariantPosition, roll: tuple[int, int]
) -> dict[VariantPosition, list[tuple[int, int, int]]]:
    """Legal plays by brute force: ``{resulting position: one move sequence}``.

    Moves are ``(from, to, die)`` with point numbers (25 = bar, 0 = off). Slow: tests only.
    """
    movement = rules.movement
    c = position.cells
    me = [0, *c[25:50]]
    opp = [0, *c[0:25]]
    my_pinned = {k + 1 for k in range(24) if (position.pins >> k) & 1}
    opp_pinned = {k + 1 for k in range(24) if (position.pins >> (24 + k)) & 1}
    root = _State(me, opp, my_pinned, opp_pinned, set())
    d1, d2 = roll
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    first_roll_two = d1 == d2 and d1 in rules.first_roll_doubles and me[24] == 15
    started_trapped = rules.prime_rule == PrimeRule.OPEN and _trapping_block(root, movement)

    def is_passed(st: _State) -> bool:
        return _off(st.me) > 0 or any(st.me[p] for p in range(1, 12))

    # candidates: (state, dice used, moves)
    cands: list[tuple[_State, list[int], list[tuple[int, int, int]]]] = [(root, [], [])]

    def rec(st: _State, dice: list[int], used: list[int], path: list[Any]) -> None:
        if not dice:
            return
        die = dice[0]
        for src in range(25, 0, -1):
            res = _step(rules, st, src, die, first_roll_two, is_passed(st))
            if res is None:
                continue
            new, dest = res
            step = (src, dest, die)
            cands.append((new, [*used, die], [*path, step]))
            rec(new, dice[1:], [*used, die], [*path, step])

    for order in orders:
        rec(root, order, [], [])

    def score(st: _State, used: list[int]) -> tuple[int, int, int] | None:
        if rules.start_quarter_rule and all(st.me[p] for p in range(19, 25)):
            return None
        trap = None
        if rules.prime_rule != PrimeRule.ALLOWED:
            trap = _trapping_block(st, movement)
            if trap and rules.prime_rule == PrimeRule.BAN:
                return None
        bonus = 1 if started_trapped and not trap else 0
        return bonus, len(used), sum(used)

    scored = []
    for st, used, path in cands:
        s = score(st, used)
        if s is not None:
            scored.append((s, st, path))
    if not scored:
        return {}
    best = max(s for s, _, _ in scored)
    if best[1] == 0:
        return {}  # nothing can be played
    out: dict[VariantPosition, list[tuple[int, int, int]]] = {}
    for s, st, path in scored:
        if s != best:
            continue
        cells = bytes(st.opp[1:26] + st.me[1:26])
        pins = 0
        for p in st.my_pinned:
            pins |= 1 << (p - 1)
        for q in st.opp_pinned:
            pins |= 1 << (24 + q - 1)
        out.setdefault(VariantPosition(cells, position.variant, pins), path)
    return out
