"""Variations in match files: gnubg's names (``; [Variation "NackGammon"]`` in ``.mat``,
``RU[Nackgammon]`` in ``.sgf``: its ``import.c``, ``export.c`` and ``sgf.c``) read and
written through one table, the replay started from the rule set's own initial position.

The rule sets of nackgammon and hypergammon are registered by their own modules; until
then a file of such a variation is refused in one line ("not supported yet"). Here a
stand-in nackgammon (the standard rules from nackgammon's starting position: 2 checkers
on the 24 and 23 points, 4 on the 13, 3 on the 8, 4 on the 6) is registered, which is all
it takes for such files to be read and written.
"""

from __future__ import annotations

import pytest

from mathbg.errors import MatchFileError
from mathbg.rules import registry
from mathbg.rules.formats import read_match, render_match
from mathbg.rules.formats.fields import VARIATIONS, variation_of_mat, variation_of_rule
from mathbg.rules.plays import legal_plays
from mathbg.rules.position import make_position
from mathbg.rules.ruleset import RuleSet

_ROW = [0] * 25
for _point, _count in ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)):
    _ROW[_point - 1] = _count
NACK_START = make_position(bytes(_ROW) * 2)
STAND_IN = RuleSet(name="nackgammon", initial=lambda: NACK_START, plays=legal_plays)

NACK = """\
; [Variation "NackGammon"]

 3 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Unregister the named rule sets for one test (and load no provider)."""

    def drop(*names: str) -> None:
        kept = {k: v for k, v in registry.RULESETS.items() if k not in names}
        monkeypatch.setattr(registry, "RULESETS", kept)
        monkeypatch.setattr(registry, "PROVIDERS", ())

    registry.lookup("backgammon")
    registry.lookup("portes")  # the built-in providers loaded first
    return drop


def test_the_table_holds_gnubgs_names() -> None:
    assert {v.ruleset: (v.mat, v.sgf) for v in VARIATIONS.values()} == {
        "backgammon": ("Backgammon", None),
        "nackgammon": ("NackGammon", "Nackgammon"),
        "hypergammon1": ("HyperGammon (1)", "Hypergammon1"),
        "hypergammon2": ("HyperGammon (2)", "Hypergammon2"),
        "hypergammon3": ("HyperGammon (3)", "Hypergammon3"),
    }
    assert variation_of_mat("Hypergammon 3") is VARIATIONS["hypergammon3"]
    assert variation_of_mat("Standard") is VARIATIONS["backgammon"]
    assert variation_of_rule("Hypergammon1") is VARIATIONS["hypergammon1"]
    assert variation_of_mat("Acey-deucey") is None


@pytest.mark.parametrize("tag", ["NackGammon", "HyperGammon (2)"])
def test_a_variation_without_its_rule_set_is_refused_in_one_line(without, tag: str) -> None:  # type: ignore[no-untyped-def]
    without("nackgammon", "hypergammon2")
    ruleset = variation_of_mat(tag).ruleset  # type: ignore[union-attr]
    text = NACK.replace("NackGammon", tag)
    with pytest.raises(MatchFileError) as exc:
        read_match(text, name="v.mat")
    assert str(exc.value) == f"v.mat, line 1: variation {tag!r} ({ruleset}) is not supported yet"
    sgf = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[A]PB[B]RU[Crawford:Nackgammon]\n;W[31]"
    with pytest.raises(MatchFileError, match=r"line 1: variation 'Nackgammon' \(nackgammon\) "
                       "is not supported yet"):
        read_match(sgf + ")\n")


def test_an_unknown_variation_is_refused() -> None:
    with pytest.raises(MatchFileError, match=r"line 1: variation 'Acey-deucey': not a game"):
        read_match(NACK.replace("NackGammon", "Acey-deucey"))


def test_registering_the_rule_set_is_all_it_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.RULESETS, "nackgammon", STAND_IN)
    rec = read_match(NACK)
    assert rec.rules.variant == "nackgammon"
    first = next(iter(rec.replay()))
    assert first.position == NACK_START  # the replay starts from the rule set's position
    assert rec.games[0].result is not None and rec.games[0].result.kind == "pass"
    mat, sgf = render_match(rec, "mat"), render_match(rec, "sgf")
    assert '; [Variation "NackGammon"]' in mat.splitlines()
    assert "RU[Crawford:Nackgammon]" in sgf
    assert read_match(mat) == rec and read_match(sgf) == rec
    # a play from nackgammon's 23 point: legal from its start, not from the standard one
    deep = NACK.replace("31: 8/5 6/5", "31: 23/22 23/20")
    assert read_match(deep).games[0].actions[0].moves == ((23, 22), (23, 20))
    with pytest.raises(MatchFileError, match="not a legal play"):
        read_match(deep.replace("NackGammon", "Backgammon"))
