"""Issue 31: ``mathbg rollout`` on the command line: the JSON document, bad input (one line,
exit 2, nothing on stdout, before any work), a damaged or foreign ``--store`` refused in one
line, and the same bits with ``--scheduler local:2`` as locally (slow lane).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_messages import refused, run

from mathbg.rules.position import Position

START = "4HPwATDgc/ABMA"
BEAROFF = str(Position.from_counts([0, 1, 1, 1] + [0] * 20, [1, 0, 1, 1] + [0] * 20).id)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["NOTANID", "--away", "3,5"], "NOTANID"),
        ([START, "--away", "30,5"], "beyond"),
        ([START, "--away", "1,3", "--crawford", "--cube", "2", "--owner", "player"], "Crawford"),
        ([START, "--away", "3,5", "--cube", "4", "--owner", "player", "--cube-limit", "2"],
         "limit"),
        ([START, "--away", "3,5", "--trials", "0"], "trials"),
        ([START, "--away", "3,5", "--target-se", "0"], "> 0"),
        ([START, "--away", "3,5", "--target-se", "-0.01"], "> 0"),
        ([START, "--away", "3,5", "--lines", "double_pass"], "lines"),
        ([START, "--matrix"], "--length"),
        ([START, "--away", "3,5", "--no-jacoby"], "money play's rules"),
        # an ID with a roll in it: the warning about its dice waits for a rollout
        (["XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--trials", "0"], "trials"),
        (["XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--trials", "40",
          "--scheduler", "local:0"], "scheduler"),
        ([START, "--matrix", "--length", "3", "--no-beavers"], "money play's rules"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2(argv: list[str], words: str) -> None:
    assert words in refused("rollout", *argv)


def test_an_engine_not_installed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import mathbg.analysis.evaluation as evmod

    monkeypatch.setattr(evmod, "gnubg_nn_installed", lambda: False)
    line = refused("rollout", START, "--away", "3,5", "--trials", "36", "--engine", "gnubg-nn")
    assert "gnubg-nn" in line or "mathbg[engine]" in line
    # deeper than the native engine's 0 plies, auto needs gnubg-nn too
    line = refused("rollout", START, "--away", "3,5", "--trials", "36", "--plies", "1")
    assert "mathbg[engine]" in line


def test_money_rules_are_named_in_the_text_and_the_json() -> None:
    # a bearoff inside the exact solver: every trial ends at once
    status, out, err = run("rollout", BEAROFF, "--money", "--trials", "36")
    assert status == 0, err
    assert out.startswith(f"position {BEAROFF}, money (Jacoby, beavers), cube 1 centre")
    status, out, err = run("rollout", BEAROFF, "--money", "--trials", "36", "--no-jacoby",
                           "--no-beavers", "--json")  # fmt: skip
    doc = json.loads(out)
    assert (doc["jacoby"], doc["beavers"]) == (False, False)
    status, out, err = run("rollout", BEAROFF, "--away", "3,5", "--trials", "36", "--json")
    assert (json.loads(out)["jacoby"], json.loads(out)["beavers"]) == (None, None)


def test_a_target_the_cap_stops_short_of_is_said() -> None:
    status, out, err = run("rollout", START, "--money", "--target-se", "1e-9",
                           "--max-trials", "10", "--no-variance-reduction")  # fmt: skip
    assert status == 0, err
    assert "--max-trials 10 rounded up to 36" in err
    assert "target SE ±0.0000: NOT reached; stopped at the cap of 36 trials" in out
    assert "rollout: native 0-ply" in out and ", 36 trials," in out


def test_a_matrix_says_which_scores_stopped_short_of_the_target() -> None:
    argv = ["rollout", START, "--matrix", "--length", "2", "--target-se", "1e-9",
            "--max-trials", "10", "--no-variance-reduction"]  # fmt: skip
    status, out, err = run(*argv)
    assert status == 0, err
    assert "--max-trials 10 rounded up to 36" in err
    assert "36 trials a score (target SE ±0.00 pp)" in out
    assert sum(line.endswith("36 !") for line in out.splitlines()) == 2
    assert "the trial cap came before the target SE: 2 of 2 scores" in out
    status, out, err = run(*argv, "--json")
    doc = json.loads(out)
    assert doc["target_se"] == 1e-9
    assert [r["target_reached"] for r in doc["rows"]] == [False, False]


@pytest.mark.extra("engine")
def test_json_inside_the_solver_is_the_exact_value(tmp_path: Path) -> None:
    from mathbg.bearoff.exact.match import match_equity

    status, out, err = run("rollout", BEAROFF, "--away", "3,3", "--trials", "36", "--json")
    assert status == 0, err
    doc = json.loads(out)
    exact = match_equity([0, 1, 1, 1], [1, 0, 1, 1], (3, 3))
    nd, dt = doc["lines"]
    assert nd["value"] == pytest.approx(exact.no_double, abs=1e-9)
    assert dt["value"] == pytest.approx(exact.double_take, abs=1e-9)
    assert doc["trials"] == 36 and doc["away"] == [3, 3]


@pytest.mark.extra("engine")
def test_a_damaged_or_foreign_store_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "store"
    base = ("rollout", BEAROFF, "--away", "3,3", "--trials", "72", "--json", "--store",
            str(store))  # fmt: skip
    status, first, err = run(*base)
    assert status == 0, err
    status, again, _ = run(*base)
    assert status == 0 and json.loads(again) == json.loads(first)
    line = refused(*base, "--seed", "9")
    assert "holds another rollout run" in line
    batch = next(iter(sorted(store.glob("trials-*.npz"))))
    batch.write_bytes(batch.read_bytes()[:100])
    line = refused(*base)
    assert batch.name in line and "delete" in line


def test_one_batch_is_played_here_without_starting_a_local_cluster(monkeypatch) -> None:
    """``--scheduler local:2`` on a run of one batch (at most 144 trials): a LocalCluster
    would have nothing to share out, so the command plays it here, says so, and gives the
    numbers of the run without a scheduler."""
    from mathbg import _dask

    argv = ("rollout", START, "--away", "3,5", "--trials", "36", "--no-variance-reduction",
            "--json")  # fmt: skip
    status, local, err = run(*argv)
    assert status == 0, err
    real = _dask.dask_client

    def no_cluster(scheduler):
        assert scheduler is None, "a LocalCluster was started for one batch"
        return real(scheduler)

    monkeypatch.setattr(_dask, "dask_client", no_cluster)
    status, here, err = run(*argv, "--scheduler", "local:2")
    assert status == 0, err
    assert json.loads(here) == json.loads(local)
    assert "36 trials are one batch" in err and "LocalCluster" in err


@pytest.mark.slow  # a LocalCluster of 2 workers: ~15 CPU-s, its start-up mostly
@pytest.mark.dask
@pytest.mark.extra("engine", "dask")
def test_local_2_gives_the_same_bits(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    # two batches of 144 (one batch is played without the cluster)
    argv = ("rollout", START, "--away", "3,5", "--trials", "288", "--no-variance-reduction",
            "--json")  # fmt: skip
    status, local, err = run(*argv)
    assert status == 0, err
    status, remote, err = run(*argv, "--scheduler", "local:2")
    assert status == 0, err
    assert json.loads(remote) == json.loads(local)


@pytest.mark.slow  # a LocalCluster of 2 workers and 144 trials with the lookahead
@pytest.mark.dask
@pytest.mark.extra("engine", "dask")
def test_a_client_gives_the_same_bits() -> None:
    distributed = pytest.importorskip("distributed")
    from mathbg.analysis import rollout

    kw = {"away": (3, 5), "trials": 72, "batch_size": 36, "seed": 3, "progress": False}
    local = rollout(START, **kw)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,  # fmt: skip
        distributed.Client(cluster) as client,
    ):
        remote = rollout(START, client=client, **kw)
    assert remote == local


def test_analyze_rollout_bad_input_before_any_work() -> None:
    assert "trials must lie in 1.." in refused("analyze", START, "--length", "3", "--rollout", "0")
    assert "scores of a match" in refused("analyze", START, "--money", "--rollout", "36")
    assert "--plot" in refused("analyze", START, "--length", "3", "--rollout", "36", "--plot",
                               "x.png")  # fmt: skip


@pytest.mark.extra("engine")
def test_analyze_rollout_puts_the_rollout_matrix_beside() -> None:
    """``analyze --rollout N --json``: the analysis and the rollout matrix of the same
    position and length; inside the exact solver every rollout value is the exact one, so
    the rollout's action is the exact solver's (the analysis' exact column)."""
    status, out, err = run("analyze", BEAROFF, "--length", "2", "--rollout", "36", "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert set(doc) == {"analysis", "rollout"}
    rows = doc["rollout"]["rows"]
    assert len(rows) == 2 and doc["rollout"]["trials"] == 36
    exact = {tuple(r["away"]): r["exact"]["action"] for r in doc["analysis"]["scores"]
             if r["cube"] == 1 and not r["crawford"] and r["owner"] == "centre"}
    for r in rows:
        assert r["action"] == exact[(r["away"], r["opp_away"])], r
