"""The score matrix's typed rows, MET resolution and explicit keywords."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import mathbg.met as metmod
from mathbg.analysis import analyze, analyze_many, position_matrix
from mathbg.analysis.matrix import COLUMNS, MatrixKeywords, MatrixOptions, MatrixRow
from mathbg.cube.cubeful import cube_decision
from mathbg.errors import InvalidParameterError, UnknownTableError

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


def test_one_typed_options_object() -> None:
    """The three entry points take one MatrixOptions (and its attributes as keywords, typed
    by MatrixKeywords); an unknown keyword is refused naming the options."""
    names = {f.name for f in dataclasses.fields(MatrixOptions)}
    assert set(MatrixKeywords.__annotations__) == names
    for fn in (analyze, analyze_many, position_matrix):
        params = inspect.signature(fn).parameters
        assert "options" in params, fn.__name__
        assert not names & set(params), fn.__name__  # no option spelled out twice
    opts = MatrixOptions(length=3, probabilities=PROBS)
    by_object, by_keywords = analyze(START, opts), analyze(START, length=3, probabilities=PROBS)
    assert by_object.to_frame().equals(by_keywords.to_frame())
    assert analyze(START, opts, length=5).length == 5  # keywords over the object
    with pytest.raises(InvalidParameterError, match=r"unknown option.*the options are length"):
        analyze(START, length=3, probabilities=PROBS, lenght=4)  # type: ignore[call-arg]


@pytest.mark.parametrize("take_points", [True, False])
def test_rows_at_each_own_state_equal_the_matrix_rows(take_points: bool) -> None:
    """rows_at values each position at its own state only (a paired block); its rows are
    the full matrix's rows at those states, to the bit, for every action the matrix shows
    (no double, double/take, double/pass, too good, cube not available)."""
    from mathbg.analysis.evaluation import Evaluation
    from mathbg.analysis.matrix import MatrixState, rows_at
    from mathbg.rules.position import Position

    chances = [PROBS, (0.5, 0.15, 0.01, 0.12, 0.005), (0.85, 0.5, 0.05, 0.02, 0.0),
               (0.62, 0.0, 0.0, 0.0, 0.0), (0.3, 0.05, 0.0, 0.25, 0.02)]  # fmt: skip
    matrices = [analyze(START, length=7, probabilities=p) for p in chances]
    picks = [(m, r) for m in matrices for r in m.rows if r.away is not None][::3]
    states = [MatrixState(r.away, r.crawford, r.cube, r.owner) for _, r in picks]
    evaluations: list[Evaluation] = [m.evaluation for m, _ in picks]
    rows = rows_at([Position.from_id(START)] * len(picks), evaluations, states, "kazaross-xg2",
                   lengths=[7] * len(picks), exact=False, take_points=take_points)  # fmt: skip
    assert len({r.action for _, r in picks}) >= 4
    for (_, want), got in zip(picks, rows, strict=True):
        for f in dataclasses.fields(MatrixRow):
            a, b = getattr(want, f.name), getattr(got, f.name)
            if f.name in ("take_point", "take_margin") and not take_points:
                assert b != b or a != a  # NaN: no take point search
            elif isinstance(a, float) and a != a:
                assert b != b, f.name
            else:
                assert a == b, (f.name, want.away, want.cube, want.owner)
