"""Nackgammon and Hypergammon matches in ``.mat`` and ``.sgf`` files.

The match-file formats name the variation through one table (gnubg's names:
``; [Variation "HyperGammon (1)"]``, ``RU[Crawford:Hypergammon1]``; ``mathbg.rules.formats
.fields``); the rule sets of :mod:`mathbg.rules.variations` are all it takes for such files
to be read, replayed from the variation's own start and written. Checked here on a
hand-written file (a play legal only from the variation's start), on random matches of
every variation (read back to the same record), and against gnubg 1.07: it imports the
``.mat`` and ``.sgf`` files mathbg writes and prints, decision by decision, the Position
and Match IDs mathbg's replay gives, and its own exports read back to the same record.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_match_files import _random_match

from mathbg.errors import MatchFileError
from mathbg.rules.formats import read_match, render_match, write_match
from mathbg.rules.position import Position
from mathbg.rules.record import Move
from mathbg.rules.variations import HypergammonPosition, hypergammon_position

VARIANTS = ("hypergammon1", "hypergammon2", "hypergammon3", "nackgammon")
#: gnubg 1.07's names (export.c / sgf.c): the .mat tag and the .sgf RU token.
GNUBG_NAMES = {
    "hypergammon1": ("HyperGammon (1)", "Hypergammon1"),
    "hypergammon2": ("HyperGammon (2)", "Hypergammon2"),
    "hypergammon3": ("HyperGammon (3)", "Hypergammon3"),
    "nackgammon": ("NackGammon", "Nackgammon"),
}

HYPER3 = "\n".join([
    '; [Variation "HyperGammon (3)"]', "", " 5 point match", "", " Game 1",
    " Ann : 0                        Bob : 0",
    "  1) 64: 22/16 23/19             31: 24/21 23/22",
    "  2) 21: 19/17 16/15              Doubles => 2",
    "  3)  Drops",
    "                                  Wins 1 point",
    "",
])


def test_a_hypergammon_mat_file_is_read_from_the_variations_start() -> None:
    rec = read_match(HYPER3, name="h.mat")
    assert rec.rules.variant == "hypergammon3"
    first = next(iter(rec.replay()))
    assert first.position == Position.initial("hypergammon3")
    assert isinstance(first.position, HypergammonPosition)
    moves = [a for a in rec.games[0].actions if isinstance(a, Move)]
    assert moves[0].moves == ((22, 16), (23, 19)) and moves[1].moves == ((24, 21), (23, 22))
    assert rec.games[0].result is not None and rec.games[0].result.kind == "pass"
    # the 22 and 23 points are empty in backgammon's start: not a legal play there
    with pytest.raises(MatchFileError, match="not a legal play"):
        read_match(HYPER3.replace("HyperGammon (3)", "Backgammon"))
    mat, sgf = render_match(rec, "mat"), render_match(rec, "sgf")
    assert '; [Variation "HyperGammon (3)"]' in mat.splitlines()
    assert "RU[Crawford:Hypergammon3]" in sgf
    assert read_match(mat) == rec and read_match(sgf) == rec
    # gnubg's other spelling of the tag
    assert read_match(HYPER3.replace("(3)", "3")).rules.variant == "hypergammon3"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_matches_of_each_variation_round_trip(variant: str, seed: int) -> None:
    rec = _random_match(seed, 5, ("Ann", "Bob"), variant)
    mat, sgf = render_match(rec, "mat"), render_match(rec, "sgf")
    tag, token = GNUBG_NAMES[variant]
    assert f'; [Variation "{tag}"]' in mat.splitlines()
    assert f"RU[Crawford:{token}]" in sgf
    assert read_match(mat) == rec and read_match(sgf) == rec
    start = Position.initial(variant)
    decisions = list(rec.replay())  # the replay checks every play, result and score
    assert decisions[0].position == start
    if variant != "nackgammon":
        checkers = int(variant[-1])  # every position of the replay is one of the game
        assert all(hypergammon_position(d.position, checkers).cells == d.position.cells
                   for d in decisions)


# --------------------------------------------------------------------------- gnubg


@pytest.fixture(scope="module")
def exported(gnubg, tmp_path_factory):  # type: ignore[no-untyped-def]
    """gnubg's text, .sgf and .mat exports of mathbg's .mat and .sgf of random matches."""
    from test_match_gnubg import _script

    root = tmp_path_factory.mktemp("gnubg-variations")
    jobs, records = [], {}
    for variant in VARIANTS:
        rec = records[variant] = _random_match(3, 5, ("Ann", "Bob"), variant)
        for fmt, load in (("mat", "import mat"), ("sgf", "load match")):
            out = root / f"{variant}-{fmt}"
            out.mkdir()
            jobs.append((load, str(write_match(rec, root / f"{variant}.{fmt}")), out))
    gnubg.run_python(_script(jobs), timeout=600)
    return root, records


@pytest.mark.gnubg(kind="exact")
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_gnubg_imports_what_mathbg_writes(exported, variant: str, fmt: str) -> None:  # type: ignore[no-untyped-def]
    from test_match_gnubg import _capped, gnubg_decisions, mathbg_decisions

    root, records = exported
    rec = records[variant]
    ours = mathbg_decisions(rec)
    # gnubg starts each game from the variation's position: every ID equals mathbg's
    assert len(ours) > 10 and gnubg_decisions(root / f"{variant}-{fmt}") == ours
    tag, token = GNUBG_NAMES[variant]
    assert f'; [Variation "{tag}"]' in (root / f"{variant}-{fmt}" / "g.mat").read_text()
    assert f":{token}]" in (root / f"{variant}-{fmt}" / "g.sgf").read_text()
    want = rec.normalized()
    for export in ("g.mat", "g.sgf"):  # gnubg's own files read back to the same record
        theirs = read_match(Path(root / f"{variant}-{fmt}" / export)).normalized()
        assert theirs.rules.variant == variant
        assert [g.actions for g in theirs.games] == [g.actions for g in want.games]
        assert [_capped(theirs, g) for g in theirs.games] == [_capped(want, g) for g in
                                                              want.games]


def test_the_audit_refuses_a_hypergammon_match_in_one_line(tmp_path: Path) -> None:
    """gnubg's networks evaluate backgammon positions; a Hypergammon match would get
    backgammon numbers, so the audit refuses it (naming the file and what to use) and the
    corpus's audit skips the file with that line."""
    from mathbg.analysis import audit, corpus_stats
    from mathbg.errors import InvalidParameterError

    src = tmp_path / "h.mat"
    src.write_text(HYPER3 + "\n")
    with pytest.raises(InvalidParameterError, match=r"h\.mat: the audit has no engine for "
                       r"hypergammon3 matches.*mathbg hyper POSITION --checkers 3"):  # fmt: skip
        audit(src)
    stats = corpus_stats([src], audit=True)
    assert stats.games == 0 and len(stats.skipped) == 1
    assert "no engine for hypergammon3" in stats.skipped[0].error
    assert corpus_stats([src]).games == 1  # the counts alone need no engine
