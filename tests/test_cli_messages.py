"""Issue 23: the error messages a user meets, one CLI test each.

Each bad command line gets one line on stderr naming the thing that is wrong, exit status 2,
and nothing on stdout (the check comes before any work or output).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from mathbg.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def refused(*argv: str) -> str:
    status, out, err = run(*argv)
    assert status == 2, (status, out, err)
    assert out == "", "nothing is printed before the refusal"
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_missing_met_file_is_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "file.xml"
    line = refused("takepoint", "--away", "3,5", "--met", str(missing))
    assert f"no such file: {missing}" in line
    line = refused("met", "--model", str(missing))
    assert f"no such file: {missing}" in line


def test_missing_analyze_file_in_plain_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = refused("analyze", "--file", "missing.txt", "--length", "7", "--csv", "out.csv")
    assert line.endswith("no such file: missing.txt")
    assert "Errno" not in line
    assert not (tmp_path / "out.csv").exists()


def test_probs_with_two_numbers_names_the_five() -> None:
    line = refused("cube", "decide", "--probs", "0.72,0.25")
    assert "--probs W,WG,WB,LG,LB" in line and "got 2 numbers" in line
    line = refused("analyze", "4HPwATCwt8EBMA", "--length", "3", "--probs", "0.72,0.25")
    assert "--probs W,WG,WB,LG,LB" in line


def test_percentages_are_recognised() -> None:
    line = refused("cube", "decide", "--probs", "72,25,1,5,0.2", "--away", "3,5")
    assert "these look like percentages" in line
    assert "--probs 0.72,0.25,0.01,0.05,0.002" in line


def test_plot_into_a_missing_directory_is_refused_first(tmp_path: Path) -> None:
    target = tmp_path / "nonexistent" / "dir" / "out.png"
    line = refused("takepoint", "--away", "3,5", "--plot", str(target))
    assert f"no such directory: {target.parent}" in line
    assert "tmp" not in line.replace(str(tmp_path), "")  # no internal temporary file named
    line = refused("met", "--model", "mec", "--out", str(target.with_suffix(".xml")))
    assert f"no such directory: {target.parent}" in line


@pytest.mark.parametrize("value", ["-1", "18", "two"])
def test_decimals_out_of_range_is_refused(value: str) -> None:
    line = refused("takepoint", "--away", "3,5", "--decimals", value, "--json")
    assert "--decimals" in line and "0..17" in line


def test_decimals_in_range_still_round() -> None:
    status, out, _ = run("takepoint", "--away", "3,5", "--decimals", "2", "--json")
    assert status == 0 and '"take_point_dead": 0.21' in out


def test_negative_value_gets_the_equals_hint() -> None:
    line = refused("takepoint", "--away", "3,5", "--gammons", "-0.1,0.2")
    assert "--gammons=-0.1,0.2" in line
    # written that way the value reaches the rate check, which refuses a negative rate
    line = refused("takepoint", "--away", "3,5", "--gammons=-0.1,0.2")
    assert "-0.1" in line


def test_a_single_away_is_refused() -> None:
    line = refused("takepoint", "--away", "3")
    assert "--away 3,3" in line
    line = refused("cube", "decide", "--probs", "0.72,0.25,0.01,0.05,0.002", "--away", "3")
    assert "--away 3,3" in line


def test_leniency_that_stays_is_stated_in_help() -> None:
    status, out, _ = run("takepoint", "--help")
    assert status == 0 and "one value for both sides" in " ".join(out.split())
    status, out, _ = run("bearoff", "show", "--help")
    assert status == 0 and "points left out are empty" in " ".join(out.split())


def test_one_name_rule_for_models_and_tables() -> None:
    from mathbg.errors import UnknownTableError
    from mathbg.met import build, load
    from mathbg.met.catalogue import as_met

    # any unambiguous prefix, the same through --model, --met and the Python functions
    assert as_met("kazaross-xg").name == "kazaross-xg2" == load("kazaross-xg").name
    assert as_met("kazaross").name == "kazaross-xg2" == build("KAZAROSS-XG").name
    assert as_met("rock").name == "rockwell-kazaross"
    assert build("mec").name != "mec26"  # an exact name wins over a longer one
    with pytest.raises(UnknownTableError, match=r"ambiguous.*jac050, jac100, jacobs"):
        as_met("jac")
    for argv in (["met", "--model", "kazaross-xg", "--length", "3"],
                 ["takepoint", "--away", "3,5", "--met", "kazaross-xg"]):  # fmt: skip
        status, out, _ = run(*argv)
        assert status == 0 and out.startswith("kazaross-xg2")
    assert "ambiguous" in refused("takepoint", "--away", "3,5", "--met", "jac")


def test_met_help_states_the_mec_free_drop_default() -> None:
    # issue 23: mec's free drop defaults to none, gnubg's mec.xml uses 0.015 / 0.004
    import inspect

    from mathbg.met import mec

    status, out, _ = run("met", "--help")
    text = " ".join(out.split())
    assert status == 0 and "mec 0,0" in text and "0.015,0.004" in text
    params = inspect.signature(mec).parameters
    assert params["free_drop_2"].default == 0.0 and params["free_drop_4"].default == 0.0


def test_analyze_label_says_what_was_computed(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 23: an n-ply engine's chances go through gnubg's 0-ply cubeless -> cubeful step;
    # the label must not read as gnubg's own n-ply cube analysis
    import dataclasses

    from mathbg.analysis import analyze
    from mathbg.cli.analyze import _print

    result = analyze("4HPwATCwt8EBMA", length=3, probabilities=[0.68, 0.24, 0.015, 0.07, 0.003])
    ev = dataclasses.replace(result.evaluation, engine="gnubg", plies=2)
    _print(dataclasses.replace(result, evaluation=ev))
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("engine gnubg, 2-ply cubeless chances, 0-ply cube step")


def test_analyze_frames_have_whole_number_scores() -> None:
    # issue 23: away scores printed as 2.0a/2.0a; nullable integers (<NA> for money)
    from mathbg.analysis import analyze

    result = analyze("4HPwATCwt8EBMA", length=3, probabilities=[0.68, 0.24, 0.015, 0.07, 0.003],
                     compare_met="woolsey")  # fmt: skip
    frame = result.to_frame()
    assert str(frame["away"].dtype) == "Int64" and str(frame["opp_away"].dtype) == "Int64"
    assert frame.loc[frame.state == "money", "away"].isna().all()
    changes = result.met_changes()
    assert all(float(v).is_integer() for v in changes["away"])
    assert ".0" not in changes.to_string()


def test_rollout_names_the_bad_value() -> None:
    """Issue 31: a rollout's bad input names the value, before any trial."""
    line = refused("rollout", "4HPwATDgc/ABMA", "--away", "3,5", "--target-se", "0")
    assert "the target standard error must be > 0, got 0.0" in line
    line = refused("rollout", "4HPwATDgc/ABMA", "--away", "3,5", "--trials", "0")
    assert "trials must lie in 1.." in line and "got 0" in line
    line = refused("rollout", "4HPwATDgc/ABMA", "--away", "30,5")
    assert "30-away/5-away is beyond" in line
