"""Corpus statistics (mathbg.analysis.corpus_stats) on a synthetic collection written by
the test with known rates, on bad files, and Dask against local."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.analysis import corpus_stats
from mathbg.analysis.corpus import wilson

DATA = Path(__file__).parent / "data" / "matches"

#: Game kinds of the synthetic collection and their probabilities. Every game opens with
#: the first player's 31 (8/5 6/5); then:
#: "single": the opener wins a single by resignation; "gammon": a gammon by resignation;
#: "pass": the second player doubles, the opener passes; "take": the second player
#: doubles, the opener takes, the doubler plays 31 and the opener resigns a single.
KINDS = {"single": 0.4, "gammon": 0.2, "pass": 0.2, "take": 0.2}
RATES = {"gammon_rate": 0.2, "double_rate": 0.4, "pass_rate": 0.5, "resign_rate": 0.8,
         "backgammon_rate": 0.0}  # fmt: skip


def _cell(text: str) -> str:
    return f"{text:<28} "


def _game(number: int, score: tuple[int, int], kind: str) -> tuple[list[str], tuple[int, int]]:
    lines = ["", f" Game {number}", f" {'Ann : ' + str(score[0]):<33}Ben : {score[1]}"]
    opening = _cell("31: 8/5 6/5")
    if kind in ("single", "gammon"):
        points = 1 if kind == "single" else 2
        lines += [f"  1) {opening}", f"      Wins {points} point" + ("s" if points > 1 else "")]
        return lines, (score[0] + points, score[1])
    lines.append(f"  1) {opening}Doubles => 2")
    if kind == "pass":
        lines.append(f"  2) {_cell(' Drops')}Wins 1 point")
        return lines, (score[0], score[1] + 1)
    lines += [f"  2) {_cell(' Takes')}31: 8/5 6/5", f"  3) {_cell('')}Wins 2 points"]
    return lines, (score[0], score[1] + 2)


def write_collection(folder: Path, files: int, games: int, seed: int) -> dict[str, int]:
    """Write ``files`` 25-point matches of ``games`` games each; return the kind counts."""
    rng = random.Random(seed)
    counts = dict.fromkeys(KINDS, 0)
    for f in range(files):
        lines = [f'; [Match ID "{f}"]', "", " 25 point match"]
        score = (0, 0)
        for g in range(1, games + 1):
            kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
            counts[kind] += 1
            more, score = _game(g, score, kind)
            lines += more
        (folder / f"m{f:03d}.mat").write_text("\n".join(lines) + "\n")
    return counts


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    folder = tmp_path_factory.mktemp("corpus")
    counts = write_collection(folder, files=30, games=10, seed=7)
    (folder / "notes.txt").write_text("these are my notes, not a match\n")
    bad = (folder / "m000.mat").read_text().replace("31: 8/5 6/5", "31: 8/4 6/5", 1)
    (folder / "zz_illegal.mat").write_text(bad)
    return folder, counts


def test_wilson() -> None:
    # Wilson (1927): 0 of 10 -> [0, z^2 / (n + z^2)]; symmetric about 1/2 at k = n/2
    lo, hi = wilson(0, 10) or (None, None)
    assert lo == 0.0 and hi == pytest.approx(1.959963984540054**2 / (10 + 1.959963984540054**2))
    lo, hi = wilson(50, 100) or (None, None)
    assert lo + hi == pytest.approx(1.0) and lo == pytest.approx(0.4038, abs=1e-4)
    assert wilson(0, 0) is None


def test_synthetic_collection(collection: tuple[Path, dict[str, int]]) -> None:
    folder, counts = collection
    stats = corpus_stats(folder)
    assert stats.files == 32
    skipped = {Path(s.file).name: s.error for s in stats.skipped}
    assert set(skipped) == {"notes.txt", "zz_illegal.mat"}
    assert all(msg and "\n" not in msg for msg in skipped.values())
    n = sum(counts.values())
    assert stats.games == n == 300
    o = stats.overall
    # the counts are exactly what was written
    assert o.counts == {"gammons": counts["gammon"], "backgammons": 0,
                           "doubled": counts["pass"] + counts["take"],
                           "passes": counts["pass"], "resigns": n - counts["pass"]}  # fmt: skip
    assert o.cube_max == {"1": counts["single"] + counts["gammon"] + counts["pass"],
                             "2": counts["take"]}  # fmt: skip
    # and the true rates lie in the 95 % intervals
    for key, rate in RATES.items():
        lo, hi = o.ci95[key] or (None, None)
        assert lo <= rate <= hi, key
    # by score: every game counted once; no Crawford rows in a 25-point match at <= 20
    assert sum(r.games for r in stats.by_score) == n
    assert all(r.leader_away <= r.trailer_away and not r.crawford for r in stats.by_score)
    # each rate says what it is over: games, or games with a double for the pass rate
    assert o.n["gammon_rate"] == n and o.n["pass_rate"] == counts["pass"] + counts["take"]
    frame = stats.to_frame()
    assert len(frame) == len(stats.by_score) + 1 and frame["games"].iloc[-1] == n


def test_crawford_rows_of_a_real_match() -> None:
    """A 3-point match: the Crawford game (a side 1-away, first time) on its own row."""
    from mathbg.rules import read_match

    path = DATA / "match1032950.txt"
    rec = read_match(path)
    stats = corpus_stats([path])
    assert stats.games == sum(g.result is not None for g in rec.games)
    expected = []
    seen = False
    for g in rec.games:
        away = sorted(3 - s for s in g.score)
        crawford = away[0] == 1 and away[1] > 1 and not seen
        seen = seen or crawford
        expected.append((tuple(away), crawford))
    got = {((r.leader_away, r.trailer_away), r.crawford): r.games for r in stats.by_score}
    for key in set(expected):
        assert got[key] == expected.count(key)


@pytest.mark.dask
@pytest.mark.slow
def test_dask_equals_local(collection: tuple[Path, dict[str, int]]) -> None:
    distributed = pytest.importorskip("dask.distributed")
    folder, _ = collection
    local = corpus_stats(folder)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:  # fmt: skip
        with distributed.Client(cluster) as client:
            remote = corpus_stats(folder, client=client)
    assert remote.as_dict() == local.as_dict()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5000), st.data())
def test_wilson_interval_holds_the_estimate(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n))
    lo, hi = wilson(k, n) or (None, None)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    assert (lo == 0.0) == (k == 0) and (hi == 1.0) == (k == n)


def test_a_resigned_match_is_no_backgammon(tmp_path: Path) -> None:
    """A match resigned after one move (gnubg scores it as a backgammon resigned at cube 1,
    3 points: issue 33.5) is a resignation, not a gammon or backgammon of play."""
    path = tmp_path / "resigned.mat"
    path.write_text(" 5 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
                    "  1) 31: 8/5 6/5\n" + " " * 34 + "Wins 5 points and the match\n")  # fmt: skip
    o = corpus_stats([path]).overall
    assert o.counts["resigns"] == 1 and o.counts["gammons"] == o.counts["backgammons"] == 0
