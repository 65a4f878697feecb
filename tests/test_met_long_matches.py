"""Issue 23: the MET models at long match lengths, and the error that names the length.

Zadeh and MEC at 150 points used to fail with "outside [0, 1]": at lopsided scores (2-away
vs 148-away) winning and losing the doubled game give the same MWC to machine precision, and
the drop point came out 0/0. The models now compute such tables; a table of length n agrees
with the corner of a longer one (the recurrences only look down and left).
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.errors import InvalidParameterError
from mathbg.met import mec, zadeh
from mathbg.met._core import check_equities


@pytest.mark.slow
@pytest.mark.parametrize(
    "build",
    [lambda n: zadeh(n), lambda n: mec(n, gammon_rate=0.2), lambda n: mec(n)],
    ids=["zadeh", "mec20", "mec26"],
)
def test_models_hold_at_150_points(build) -> None:
    long, short = build(150), build(128)
    for arr in (long.pre, *long.post):
        assert np.all(np.isfinite(arr)) and arr.min() >= 0.0 and arr.max() <= 1.0
    assert np.abs(long.pre[:128, :128] - short.pre).max() < 1e-12
    # the matches are symmetric and the leader is ahead
    assert long.mwc((75, 75)) == pytest.approx(0.5, abs=1e-12)
    assert long.mwc((100, 150)) > long.mwc((150, 150)) > long.mwc((150, 100))


def test_breakdown_names_the_length_and_where_the_model_still_holds() -> None:
    with pytest.raises(
        InvalidParameterError, match=r"at length 40: valid up to about (\d+)-away"
    ) as info:
        zadeh(40, delta=0.3)
    n = int(str(info.value).split("valid up to about ")[1].split("-away")[0])
    assert 2 <= n < 40
    zadeh(n, delta=0.3)  # the named length does work


def test_check_equities_reports_the_first_bad_score() -> None:
    table = np.full((6, 6), 0.5)
    table[4, 2] = 1.2  # 5-away/3-away out of range: valid up to 4-away
    with pytest.raises(InvalidParameterError, match="valid up to about 4-away"):
        check_equities((table,), "test", {})


def test_emg_undefined_is_nan_on_request() -> None:
    from mathbg.cube.cubeful import emg
    from mathbg.errors import InvalidScoreError

    # 2-away vs 93-away: winning and losing the 1-cube both leave the MWC at 1.0 in float64
    with pytest.raises(InvalidScoreError, match="EMG is undefined"):
        emg(0.9, "kazaross-xg2", (2, 93))
    out = np.asarray(emg(0.6, "kazaross-xg2", ([3, 2], [3, 93]), undefined="nan"))
    assert np.isnan(out[1]) and out[0] == pytest.approx(emg(0.6, "kazaross-xg2", (3, 3)))


@pytest.mark.slow
def test_analyze_goes_on_past_an_undefined_cell(capsys) -> None:
    import json

    from mathbg.cli import main

    argv = ["analyze", "4HPwATCwt8EBMA", "--length", "93", "--json",
            "--probs", "0.68063,0.2418,0.0151,0.0714,0.00263"]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["scores"]
    cell = next(r for r in rows if r["away"] == [2, 93] and r["cube"] == 1)
    assert cell["emg"]["no_double"] is None and cell["no_double"] is not None
    # the table is extended beyond its 25 points: one line says so
    notes = [line for line in captured.err.splitlines() if "note:" in line]
    assert len(notes) == 1 and "25 points long" in notes[0] and "93-away" in notes[0]


def test_takepoint_notes_an_extended_table(capsys) -> None:
    from mathbg.cli import main

    assert main(["takepoint", "--away", "200,150"]) == 0
    err = capsys.readouterr().err
    assert "kazaross-xg2 is 25 points long" in err and "200-away" in err
    assert main(["takepoint", "--away", "25,25"]) == 0
    assert "note:" not in capsys.readouterr().err
