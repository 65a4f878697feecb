"""The score matrix's typed rows, MET resolution and explicit keywords."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import mathbg.met as metmod
from mathbg.analysis import analyze, analyze_many, position_matrix
from mathbg.analysis.matrix import COLUMNS, MatrixRow
from mathbg.cube.cubeful import cube_decision
from mathbg.errors import UnknownTableError

START = "4HPwATDgc/ABMA"
PROBS = (0.7, 0.2, 0.01, 0.05, 0.002)


def test_rows_are_typed_and_give_the_columns() -> None:
    an = analyze(START, length=3, probabilities=PROBS)
    assert all(isinstance(r, MatrixRow) for r in an.rows)
    names = [f.name for f in dataclasses.fields(MatrixRow)]  # the score pair: two columns
    i = names.index("away")
    assert COLUMNS == (*names[:i], "away", "opp_away", *names[i + 1 :])
    assert list(an.to_frame().columns) == list(COLUMNS)


def test_met_by_name_resolves_like_the_cube_functions() -> None:
    # "zadeh" is a model name: mathbg.met.as_met builds it, as cube.match.take_point does
    an = analyze(START, length=3, probabilities=PROBS, met="zadeh")
    assert an.met == "zadeh"
    (row,) = [r for r in an.rows if (r.away, r.cube) == ((3, 3), 1)]
    dec = cube_decision(PROBS, metmod.as_met("zadeh"), (3, 3), cube_life=row.cube_life)
    assert row.no_double == pytest.approx(dec.no_double, abs=1e-12)
    assert row.action == dec.action
    with pytest.raises(UnknownTableError):
        analyze(START, length=3, probabilities=PROBS, met="no-such-table")


def test_explicit_keywords() -> None:
    for fn in (analyze, analyze_many, position_matrix):
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, fn.__name__
    with pytest.raises(TypeError):
        analyze(START, length=3, probabilities=PROBS, options=1)  # type: ignore[call-arg]
