"""``mathbg audit`` and ``mathbg corpus`` from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "matches"
FIVE = DATA / "match10014006.txt"


def _run(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MATHBG_DATA=str(tmp_path), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "mathbg", *argv], capture_output=True,
                          text=True, env=env, timeout=600)  # fmt: skip


@pytest.mark.extra("engine")
@pytest.mark.slow
def test_audit_json_csv_plot(tmp_path: Path) -> None:
    out_csv, out_png = tmp_path / "d.csv", tmp_path / "m.png"
    proc = _run(["audit", str(FIVE), "--engine", "gnubg-nn", "--no-exact", "--compare-met",
                 "woolsey", "--csv", str(out_csv), "--plot", str(out_png), "--cube-only",
                 "--errors"], tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "cube: 56 decisions, 2 errors" in proc.stdout
    assert "missed double" in proc.stdout and "under woolsey: 3 verdict(s) change" in proc.stdout
    assert out_png.read_bytes().startswith(b"\x89PNG")
    header = out_csv.read_text().splitlines()[0].split(",")
    assert header[:4] == ["file", "game", "move", "player"]
    assert len(out_csv.read_text().splitlines()) == 81
    proc = _run(["audit", str(FIVE), "--engine", "gnubg-nn", "--no-exact", "--json",
                 "--player", "leon77"], tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (m,) = json.loads(proc.stdout)["matches"]
    assert {d["player"] for d in m["decisions"]} == {"leon77"}
    assert m["summary"]["leon77"]["errors"] == 1


@pytest.mark.slow  # CLI subprocesses: about 4 CPU-s
def test_audit_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"\x00\x01\x02 not a match")
    for argv in (["audit", str(bad)], ["audit", str(tmp_path / "missing.mat")],
                 ["audit", str(FIVE), "--player", "nobody", "--engine", "race"]):  # fmt: skip
        proc = _run(argv, tmp_path)
        assert proc.returncode == 2, (argv, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow  # CLI subprocesses: about 3 CPU-s
def test_corpus_json_skips_bad_files(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.txt").write_text(FIVE.read_text())
    (folder / "b.mat").write_text("this is not a match\n")
    proc = _run(["corpus", str(folder), "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["files"] == 2 and out["games"] == 3
    assert [Path(s["file"]).name for s in out["skipped"]] == ["b.mat"]
    assert set(out["overall"]) >= {"games", "gammon_rate", "backgammon_rate", "pass_rate",
                                   "double_rate", "resign_rate", "cube_max", "ci95"}  # fmt: skip
    rows = out["by_score"]
    assert all(r["leader_away"] <= r["trailer_away"] and isinstance(r["crawford"], bool)
               for r in rows)  # fmt: skip
    assert all(set(r["n"]) == set(r["ci95"]) for r in rows)
    assert out["overall"]["cube_max"] == {"1": 1, "2": 2}
    proc = _run(["corpus", str(tmp_path / "nothing-here")], tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "kernel"),
    [([], True), (["--engine", "native"], True), (["--plies", "2"], False),
     (["--engine", "gnubg-nn"], False)],
)  # fmt: skip
def test_the_replay_uses_the_move_kernel_when_the_engine_loads_numba(
    argv: list[str], kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the native engine (``auto`` at 0 plies) numba is loaded anyway, so reading the
    matches replays their plays with the move generator's kernel from the first position;
    a deeper or another engine leaves the pure-Python port its first positions (a process
    that only reads never loads numba)."""
    import mathbg.rules.formats as formats
    from mathbg.cli import main
    from mathbg.errors import MatchFileError
    from mathbg.rules import movegen

    monkeypatch.setattr(movegen, "_port_calls_left", movegen.PORT_CALLS)
    seen: list[int] = []

    def reading(path: object) -> None:
        seen.append(movegen._port_calls_left)
        raise MatchFileError(f"{path}: stop here")

    monkeypatch.setattr(formats, "read_match", reading)
    assert main(["audit", str(FIVE), *argv]) == 2
    if kernel:
        assert seen == [0]
    else:  # refused before reading (gnubg-nn not installed) or read with the port
        assert seen in ([], [movegen.PORT_CALLS])
        assert movegen._port_calls_left == movegen.PORT_CALLS


def test_a_corpus_audit_replays_with_the_move_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """``corpus --audit`` (:func:`file_stats` with ``audit=True``, each Dask task) with the
    native engine switches the replay to the kernel before reading; without the audit the
    port keeps its positions."""
    import mathbg.rules.formats as formats
    from mathbg.analysis.corpus import file_stats
    from mathbg.errors import MatchFileError
    from mathbg.rules import movegen

    seen: list[int] = []

    def reading(path: object) -> None:
        seen.append(movegen._port_calls_left)
        raise MatchFileError(f"{path}: stop here")

    monkeypatch.setattr(formats, "read_match", reading)
    for audit, left in ((False, movegen.PORT_CALLS), (True, 0)):
        monkeypatch.setattr(movegen, "_port_calls_left", movegen.PORT_CALLS)
        assert "stop here" in str(file_stats(str(FIVE), audit=audit).error)
        assert seen.pop() == left


def test_threads_below_one_is_refused_before_any_work(capsys) -> None:
    """``--threads 0`` is one line naming the option (exit 2), before a file is read."""
    from mathbg.cli import main

    assert main(["audit", "no-such-file.mat", "--threads", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--threads" in err and "got 0" in err


@pytest.mark.slow  # a LocalCluster: a few CPU-s
@pytest.mark.dask
def test_a_dask_worker_analyses_with_one_gnubg_thread() -> None:
    """Outside Dask gnubg analyses a match with one thread per CPU this process may use
    (at 0 plies one); inside a Dask worker with one (the cluster already runs a task per
    core)."""
    distributed = pytest.importorskip("distributed")
    from mathbg.analysis.gnubg_program import analysis_threads

    assert analysis_threads() == len(os.sched_getaffinity(0)) and analysis_threads(0) == 1
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:  # fmt: skip
        with distributed.Client(cluster) as client:
            assert client.submit(analysis_threads, pure=False).result() == 1
    assert analysis_threads() == len(os.sched_getaffinity(0))


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # gnubg analyses three small matches about five times: about 3 CPU-s
def test_a_killed_corpus_audit_resumes_from_the_kept_analyses(gnubg, tmp_path, monkeypatch,
                                                              capsys) -> None:  # fmt: skip
    """``mathbg corpus --audit`` and ``mathbg audit`` keep gnubg's analyses in the cache
    directory: a corpus run killed after two of three matches and typed again asks gnubg
    for the third only, and prints what a run that kept nothing prints."""
    from mathbg.analysis import gnubg_program
    from mathbg.analysis.corpus import corpus_stats
    from mathbg.analysis.match_audit import AuditOptions
    from mathbg.cli import main

    files = [str(FIVE), str(DATA / "match2287710.txt"), str(DATA / "match1988690.txt")]
    argv = ["corpus", *files, "--audit", "--engine", "gnubg", "--json"]
    asked: list[int] = []
    session = gnubg_program.gnubg_session
    monkeypatch.setattr(gnubg_program, "gnubg_session", lambda: asked.append(1) or session())
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "fresh"))
    assert main(argv) == 0
    whole = capsys.readouterr().out
    assert len(asked) == 3 and len(list((tmp_path / "fresh" / "gnubg").iterdir())) == 3

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "resumed"))

    def killed(facts: object) -> None:
        if len(asked) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        corpus_stats(files, audit=True, options=AuditOptions(engine="gnubg", disk_cache=True),
                     on_file=killed, progress=False)  # fmt: skip
    assert len(asked) == 5 and len(list((tmp_path / "resumed" / "gnubg").iterdir())) == 2
    assert main(argv) == 0
    assert len(asked) == 6 and capsys.readouterr().out == whole
    assert main(["audit", files[0], "--engine", "gnubg", "--plies", "1"]) == 0
    assert len(asked) == 7 and len(list((tmp_path / "resumed" / "gnubg").iterdir())) == 4
