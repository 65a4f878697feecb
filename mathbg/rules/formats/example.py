"""A short example match (two games of a 3-point match, written for mathbg) in the classic
gnubg/Jellyfish ``.mat`` dialect: ``bar/20*`` entries, a chained ``13/8/5*``, ``(3)``
repeats, a dropped double and a resignation after a roll. ``mathbg convert --example``
starts from it; :func:`example_match` reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import MatchRecord

__all__ = ["EXAMPLE_MAT", "example_match"]

EXAMPLE_MAT = """\
; [Site "mathbg"]
; [Event "mathbg example"]

 3 point match

 Game 1
 Ann Lee : 0                    Bob : 0
  1)                             54: 24/20 13/8
  2) 53: 13/8/5*                 53: bar/20* 13/10
  3) 42: bar/21 24/22            63: 13/7 10/7
  4) 65: 22/16 21/16             54: 24/20 8/3
  5) 51: 24/23 13/8              11: 8/7 6/5(3)
  6) 33: 13/10(3) 6/3             Doubles => 2
  7)  Drops
                                  Wins 1 point

 Game 2
 Ann Lee : 0                    Bob : 1
  1) 62: 24/18/16                31: 8/5 6/5
  2) 41: 13/9 24/23               Doubles => 2
  3)  Takes                      43:
      Wins 2 points
"""


def example_match() -> MatchRecord:
    """The example match, read and replayed."""
    from mathbg.rules.formats import read_match

    return read_match(EXAMPLE_MAT, name="<example>")
