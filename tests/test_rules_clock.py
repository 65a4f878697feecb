"""The delay + reserve + bonus + cap clock (online rules of the seed texts)."""

from __future__ import annotations

import pytest

from mathbg.errors import IllegalActionError, InvalidParameterError
from mathbg.rules.clock import ClockRules, ClockState


def test_defaults_are_the_online_rules():
    r = ClockRules()
    assert (r.delay, r.reserve, r.bonus, r.cap) == (15, 20, 5, 120)


def test_delay_first_then_reserve():
    c = ClockState.start()
    assert c.time_left(0) == 35
    c = c.spend(0, 25)  # 15 s of delay, 10 s of reserve, no bonus
    assert c.reserve == (10, 20) and c.flagged is None


def test_bonus_is_larger_for_faster_moves():
    c = ClockState.start()
    assert c.spend(0, 0).reserve[0] == 25  # instant: the full 5 s
    assert c.spend(0, 7.5).reserve[0] == pytest.approx(22.5)  # half the delay: 2.5 s
    assert c.spend(0, 15).reserve[0] == 20  # the whole delay: nothing
    fixed = ClockState.start(ClockRules(bonus_rule="fixed"))
    assert fixed.spend(1, 14).reserve[1] == 25


def test_reserve_capped():
    c = ClockState.start()
    for _ in range(100):
        c = c.spend(0, 0)
    assert c.reserve[0] == 120


def test_running_out_loses():
    c = ClockState.start().spend(1, 15 + 20)  # exactly delay + reserve: reserve hits zero
    assert c.flagged == 1 and c.reserve[1] == 0
    with pytest.raises(IllegalActionError, match="lost on time"):
        c.spend(0, 1)
    assert ClockState.start().spend(1, 34.9).flagged is None


def test_parameters_validated():
    with pytest.raises(InvalidParameterError):
        ClockRules(delay=-1)
    with pytest.raises(InvalidParameterError, match="exceeds the cap"):
        ClockRules(reserve=200)
    with pytest.raises(InvalidParameterError):
        ClockState.start().spend(0, -1)
