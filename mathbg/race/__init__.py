"""Race evaluation: counts, winning chances and cube advice for positions without contact.

- :mod:`mathbg.race.counts`: pip, Keith, Thorp, Kleinman, 8-9-12, Trice (rule 62) and
  Isight counts with each count's cube advice; pure vectorised functions over point-count
  arrays (a side's points 1..24 in its own numbering, then the bar).
- :mod:`mathbg.race.evaluate`: the winning chances of the side on roll (exact from the
  two-sided database, from the one-sided databases, or a one-sided rollout for longer
  races), race cube decisions (money or a match score), and :func:`evaluate_race`, which
  gathers everything (the ``mathbg race`` command).
- :mod:`mathbg.race.sample`: random race positions (test and benchmark data).

Imported lazily: ``from mathbg.race import evaluate_race`` loads the evaluator (and the
bearoff databases only when first needed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg._lazy import lazy_exports

__all__ = [
    "RaceChances",
    "RaceEvaluation",
    "evaluate_race",
    "race_chances",
    "race_cube_decision",
    "roll_distribution",
]

_LAZY = {name: "mathbg.race.evaluate" for name in __all__}

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.race.evaluate import (
        RaceChances,
        RaceEvaluation,
        evaluate_race,
        race_chances,
        race_cube_decision,
        roll_distribution,
    )


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
