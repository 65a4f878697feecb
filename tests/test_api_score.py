"""One spelling of a match score in the Python API: ``away=(player_away, opponent_away)``.

The walk below reads every public module's ``__all__`` (functions, and the constructors
and methods of classes) and fails on a signature that still takes the score as two
separate parameters; the validator's own errors are checked with the values from the
command line's ``--away 3,5`` and the JSON's ``"away": [3, 5]``.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from typing import Any

import numpy as np
import pytest
from package_modules import public_modules

from mathbg import _validate
from mathbg.errors import InvalidScoreError

#: Names that spell the second half of a score as its own parameter.
SECOND_HALF = {"opp_away", "opponent_away", "other_away", "their_away", "away2", "b_away"}

def _callables() -> dict[str, Any]:
    """Every public function, class constructor and method, by its defining name."""
    out: dict[str, Any] = {}
    for name in [m for m in public_modules() if "cli" not in m.split(".")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if inspect.isfunction(obj):
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
            elif inspect.isclass(obj) and obj.__module__.startswith("mathbg"):
                where = f"{obj.__module__}.{obj.__qualname__}"
                out[where] = obj
                for key, member in vars(obj).items():
                    if key.startswith("_") and key != "__init__":
                        continue
                    func = getattr(member, "__func__", member)
                    if inspect.isfunction(func):
                        out[f"{where}.{key}"] = func
    return out


CALLABLES = _callables()


def _score_halves(obj: Any) -> list[str]:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return []
    names = [n for n in params if n not in ("self", "cls")]
    halves = [n for n in names if n in SECOND_HALF]
    aways = [n for n in names if "away" in n]
    return halves or (aways if len(aways) > 1 else [])


def test_the_walk_sees_the_score_taking_api() -> None:
    for name in ("mathbg.cube.match.take_point", "mathbg.cube.cubeful.cube_decision",
                 "mathbg.met.table.MET.mwc", "mathbg.race.evaluate.race_cube_decision",
                 "mathbg.bearoff.exact.match.match_equity", "mathbg.plots.take_point_vs_cube_life",
                 "mathbg.met.approx.janowski"):  # fmt: skip
        assert name in CALLABLES
        assert "away" in inspect.signature(CALLABLES[name]).parameters
    assert len(CALLABLES) > 300


def test_no_public_function_takes_the_score_as_two_parameters() -> None:
    offenders = {name: halves for name, obj in CALLABLES.items() if (halves := _score_halves(obj))}
    assert not offenders, f"give the score as one pair away=(player, opponent): {offenders}"


def test_the_rule_catches_the_old_spelling() -> None:
    def old(met: Any, away: int, opp_away: int) -> None: ...

    def other(player_away: int, opponent_away: int) -> None: ...

    assert _score_halves(old) == ["opp_away"]
    assert _score_halves(other) == ["opponent_away"]


@pytest.mark.parametrize("value", [(3, 5), [3, 5], np.array([3, 5]), (np.int64(3), 5.0)])
def test_a_pair_in_any_sequence_is_a_score(value: Any) -> None:
    assert _validate.away_score(value) == (3, 5)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (3, r"away must be a pair \(player_away, opponent_away\).*got 3"),
        ("3,5", r"must be a pair.*got '3,5'"),
        ((3, 5, 7), r"must be a pair.*got \(3, 5, 7\)"),
        ({"a": 3, "b": 5}, "must be a pair"),
        (None, "must be a pair.*got None"),
        ((3, 2.5), r"away\[1\] \(the opponent's points away\) must be a whole number, got 2.5"),
        ((0, 5), r"away\[0\] \(the player's points away\) must be at least 1 .*; got 0"),
        ((3, 2000), r"away\[1\].*must lie in 1..1024, got 2000"),
        ((True, 5), r"away\[0\].*must be a whole number, got True"),
    ],
)
def test_a_bad_score_is_named(value: Any, match: str) -> None:
    with pytest.raises(InvalidScoreError, match=match):
        _validate.away_score(value)


def test_a_pair_of_arrays_is_kept_for_the_vectorised_functions() -> None:
    first, second = _validate.away_pair((np.arange(1, 4), 5))
    assert first.tolist() == [1, 2, 3] and second == 5


def test_every_entry_refuses_two_numbers_with_the_same_error() -> None:
    from mathbg.cube import cube_decision, market_window, points, take_point
    from mathbg.met import as_met
    from mathbg.race import race_cube_decision
    from mathbg.race.evaluate import RaceChances

    kxg2 = as_met("kazaross-xg2")
    probs = [0.7, 0.1, 0.0, 0.05, 0.0]
    side = [0] * 24
    side[5], side[7] = 8, 7  # 15 checkers on the 6 and 8 points, both sides
    chances = RaceChances(0.7, 0.0, 0.0, 0.0, 0.0, "one-sided rollout")
    calls = [
        lambda: take_point(kxg2, 3, 5),
        lambda: points(kxg2, 3),
        lambda: market_window(kxg2, 3),
        lambda: cube_decision(probs, kxg2, 3),
        lambda: kxg2.mwc(3),
        lambda: race_cube_decision((side, side), chances=chances, met=kxg2, away=3),
    ]
    for call in calls:
        with pytest.raises(InvalidScoreError, match="must be a pair"):
            call()
