"""The self-play MET (:func:`mathbg.analysis.selfplay_met`): exact cases, bits, bad input.

The ``instant`` test engine is registered by ``tests/instant_engine.py`` (not shipped).

Every reference number comes from theory: the cubeless MET of a game with fixed outcome
rates (:func:`mathbg.met.cubeless`, Zoidis's recurrence) and the exact race-game MET of
the bearoff match solver (:func:`mathbg.bearoff.exact.match.race_met`). Statistical
agreement is checked within 3 standard errors of the self-play entries.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import instant_engine
import numpy as np
import pytest

from mathbg.analysis import selfplay_met
from mathbg.analysis.selfplay import MAX_LENGTH, StoreMismatchError
from mathbg.errors import (
    DatabaseCorruptError,
    InvalidParameterError,
    InvalidScoreError,
    MathbgError,
)
from mathbg.met import cubeless

# the first roller's chances: win 0.55 (gammons 0.20, backgammons 0.02), loses gammons 0.15
# (backgammons 0.01); each side wins half the games, G = 0.20 + 0.15, B = 0.02 + 0.01
INSTANT = "instant:0.55,0.2,0.02,0.15,0.01"
G, B = 0.35, 0.03


def _z(met, ref) -> np.ndarray:
    """Differences in standard errors over every played entry (pre and post)."""
    pre = (met.pre - ref.pre) / met.stderr
    post = (met.post - ref.post) / met.post_stderr
    return np.concatenate([pre[np.isfinite(pre)], post[np.isfinite(post)]])


def _same_bits(m1, m2) -> bool:
    return (
        np.array_equal(m1.pre, m2.pre)
        and np.array_equal(m1.post, m2.post)
        and np.array_equal(m1.stderr, m2.stderr, equal_nan=True)
        and np.array_equal(m1.post_stderr, m2.post_stderr, equal_nan=True)
    )


@pytest.mark.parametrize("crawford", [True, False])
def test_instant_game_without_cube_is_the_cubeless_met(crawford: bool) -> None:
    met = selfplay_met(5, games=3000, players=(INSTANT, INSTANT), cube_limit=1, seed=3,
                       crawford=crawford, progress=False)  # fmt: skip
    ref = cubeless(5, G, B, one_away=None)
    z = _z(met, ref)
    assert len(z) == 2 * 10 + 2 * 4  # 10 scores a < b mirrored, 4 post-Crawford entries x 2
    assert np.all(np.abs(z) < 3.0), z
    assert np.all(np.diag(met.pre) == 0.5) and np.all(np.isnan(np.diag(met.stderr)))
    assert met.post[0, 0] == 0.5 and np.isnan(met.post_stderr[0, 0])
    np.testing.assert_allclose(met.pre + met.pre.T, 1.0, atol=1e-15)
    scores = met.frames["scores"]
    # every game is decided at once: one roll, no cube
    assert (scores["mean_rolls"] == 1).all() and (scores["mean_cube"] == 1).all()
    np.testing.assert_allclose(scores["gammon_rate"] + scores["backgammon_rate"], G, atol=0.04)
    assert met.metadata["games"] == 3000 and met.metadata["seed"] == 3
    assert met.games is not None and met.games[1, 2] == 3000


def test_games_round_up_to_the_strata_and_are_recorded() -> None:
    met = selfplay_met(2, games=31, players=(INSTANT, INSTANT), cube_limit=1, progress=False)
    assert met.metadata["games"] == 60  # 30 strata (first roller x opening roll)
    assert set(met.frames["scores"]["games"]) == {60}


def _cubeless_unequal(n: int, p0: tuple[float, float, float], p1: tuple[float, float, float]):
    """The cubeless recurrence with each player's own (single, gammon, backgammon) chances."""
    m = np.zeros((n + 4, n + 4))

    def mwc(i: int, j: int) -> float:
        return 1.0 if i <= 0 else 0.0 if j <= 0 else m[i, j]

    for total in range(2, 2 * n + 1):
        for i in range(1, n + 1):
            j = total - i
            if 1 <= j <= n:
                m[i, j] = sum(p0[k] * mwc(i - k - 1, j) + p1[k] * mwc(i, j - k - 1)
                              for k in range(3))  # fmt: skip
    return m[1 : n + 1, 1 : n + 1]


def test_unequal_players_fill_every_entry() -> None:
    # player 0 rolls first half the time: wins 0.6 (gammons 0.2, bg 0.02) as first roller,
    # 1 - 0.55 (gammons 0.15, bg 0.01) as second; player 1 the other way round
    strong = "instant:0.6,0.2,0.02,0.15,0.01"
    met = selfplay_met(3, games=3000, players=(strong, INSTANT), cube_limit=1, seed=4,
                       progress=False)  # fmt: skip
    win0 = 0.5 * (0.6 + 0.45)
    g0, b0 = 0.5 * (0.2 + 0.15), 0.5 * (0.02 + 0.01)
    g1, b1 = 0.5 * (0.15 + 0.2), 0.5 * (0.01 + 0.02)
    ref = _cubeless_unequal(3, (win0 - g0, g0 - b0, b0), (1 - win0 - g1, g1 - b1, b1))
    assert np.all(np.isfinite(met.stderr)) and np.all(np.isfinite(met.post_stderr))
    assert np.all(np.abs((met.pre - ref) / met.stderr) < 3.0)
    assert np.all(np.abs((met.post[0] - ref[:, 0]) / met.post_stderr[0]) < 3.0)
    assert met.pre[0, 0] == met.post[0, 0] == 1.0 - met.post[1, 0]
    assert not met.is_symmetric()


@pytest.mark.slow
def test_exact_bearoff_race_converges_to_the_exact_race_met() -> None:
    """The 4-checkers-on-the-6-point race (a small space, so the test takes ~40 s): both
    checker play and cube from the exact solver, every entry within 3 SE of the exact
    table of the same game."""
    from mathbg.bearoff.exact.match import race_met

    start = [0, 0, 0, 0, 0, 4]
    ref = race_met(start, length=5, progress=False)
    met = selfplay_met(5, games=2160, engine="exact", start=(start, start), seed=1,
                       batch_size=2160, progress=False)  # fmt: skip
    z = _z(met, ref)
    assert len(z) == 2 * 10 + 2 * 4
    assert np.all(np.abs(z) < 3.0), z
    # a race without gammons: every game single or passed
    scores = met.frames["scores"]
    assert (scores["gammon_rate"] == 0).all()


def test_same_seed_same_bits_and_resume_from_store(tmp_path: Path) -> None:
    kw = {"games": 600, "players": (INSTANT, INSTANT), "cube_limit": 1, "progress": False,
          "batch_size": 120, "seed": 7}  # fmt: skip
    m1 = selfplay_met(4, **kw)
    m2 = selfplay_met(4, **kw)
    assert _same_bits(m1, m2)
    full = tmp_path / "full"
    m3 = selfplay_met(4, store=full, **kw)
    assert _same_bits(m1, m3)
    # a run killed part-way: some batches written, one half-written temporary file
    part = tmp_path / "part"
    part.mkdir()
    shutil.copy(full / "manifest.json", part / "manifest.json")
    batches = sorted(full.glob("*/batch-*.npz"))
    for f in batches[: len(batches) // 2]:
        (part / f.parent.name).mkdir(exist_ok=True)
        shutil.copy(f, part / f.parent.name / f.name)
    (part / batches[-1].parent.name).mkdir(exist_ok=True)
    (part / batches[-1].parent.name / (batches[-1].name + ".tmp-1")).write_bytes(b"junk")
    m4 = selfplay_met(4, store=part, **kw)
    assert _same_bits(m1, m4)
    assert len(list(part.glob("*/batch-*.npz"))) == len(batches)
    with pytest.raises(StoreMismatchError):
        selfplay_met(4, store=part, **{**kw, "seed": 8})
    m5 = selfplay_met(4, **{**kw, "seed": 8})
    assert not _same_bits(m1, m5)


@pytest.mark.parametrize("damage", ["other-batch", "other-score", "other-build", "flip"])
def test_a_stored_batch_is_bound_to_what_it_is(tmp_path: Path, damage: str) -> None:
    """Issue 25: a stored piece carries its identity; a batch copied from another batch,
    score or build, or damaged, is refused in one line naming the file, never served;
    deleting it plays that batch again, to the clean run's bits."""
    kw = {"games": 240, "players": (INSTANT, INSTANT), "cube_limit": 1, "progress": False,
          "batch_size": 120, "seed": 7}  # fmt: skip
    clean = selfplay_met(3, store=tmp_path / "a", **kw)
    store = tmp_path / "a"
    target = store / "normal-002-003" / "batch-00001.npz"
    if damage == "other-batch":
        shutil.copy(store / "normal-002-003" / "batch-00000.npz", target)
    elif damage == "other-score":
        shutil.copy(store / "post-crawford-003-001" / "batch-00001.npz", target)
    elif damage == "other-build":
        selfplay_met(3, store=tmp_path / "b", **{**kw, "seed": 8})
        shutil.copy(tmp_path / "b" / "normal-002-003" / "batch-00001.npz", target)
    else:
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x10
        target.write_bytes(bytes(data))
    with pytest.raises(DatabaseCorruptError) as err:
        selfplay_met(3, store=store, **kw)
    message = str(err.value)
    assert "\n" not in message and str(target) in message and "delete" in message
    target.unlink()
    assert _same_bits(selfplay_met(3, store=store, **kw), clean)


@pytest.mark.extra("engine")
def test_gnubg_nn_same_bits_twice() -> None:
    pytest.importorskip("gnubg_nn")
    m1 = selfplay_met(2, games=60, batch_size=60, seed=2, progress=False)
    m2 = selfplay_met(2, games=60, batch_size=60, seed=2, progress=False)
    assert _same_bits(m1, m2)
    scores = m1.frames["scores"].set_index("state")
    # post-Crawford 2-away/1-away: the trailer doubles at his first turn
    assert scores.loc["post-crawford", "first_double_rate"] > 0.9
    assert scores.loc["crawford", "mean_cube"] == 1.0


@pytest.mark.extra("engine")
@pytest.mark.dask
@pytest.mark.slow
def test_local_cluster_gives_the_same_bits() -> None:
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("gnubg_nn")
    kw = {"games": 60, "batch_size": 30, "seed": 5, "progress": False}
    local = selfplay_met(3, **kw)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,  # fmt: skip
        distributed.Client(cluster) as client,
    ):
        remote = selfplay_met(3, client=client, **kw)
    assert _same_bits(local, remote)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"length": 0}, InvalidScoreError, "length must lie in 1.."),
        ({"length": MAX_LENGTH + 1}, InvalidScoreError, "length must lie in 1.."),
        ({"games": 0}, InvalidParameterError, "games must lie in 1..100000000"),
        ({"games": -5}, InvalidParameterError, "games must lie"),
        ({"games": 10**9}, InvalidParameterError, "games must lie"),
        ({"cube_limit": 3}, InvalidParameterError, "power of two"),
        ({"cube_limit": 0}, InvalidParameterError, "power of two"),
        ({"engine": "foo"}, InvalidParameterError, "unknown self-play engine 'foo'"),
        ({"engine": "gnubg"}, InvalidParameterError, "cannot play games here"),
        ({"engine": "exact"}, InvalidParameterError, "start=(counts, counts)"),
        (
            {"engine": "exact", "start": ([0, 0, 0, 0, 0, 2],) * 2, "cube_limit": 4},
            InvalidParameterError,
            "no cube limit",
        ),
        ({"players": ("instant:0.5,0.1", None)}, InvalidParameterError, "5 probabilities"),
        ({"batch_size": 100, "players": (INSTANT, INSTANT)}, InvalidParameterError,
         "multiple of 30"),
    ],
)
def test_bad_input_fails_before_any_work(kwargs, error, words) -> None:
    args = {"length": 3, "games": 10, "progress": False, **kwargs}
    with pytest.raises(error, match=None) as info:
        selfplay_met(**args)
    assert words in str(info.value)
    assert "\n" not in str(info.value)


def test_engine_not_installed_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import mathbg.analysis.evaluation as ev

    monkeypatch.setattr(ev, "gnubg_nn_installed", lambda: False)
    with pytest.raises(MathbgError, match=r"mathbg\[engine\]"):
        selfplay_met(3, games=10, progress=False)


@pytest.mark.slow  # compiles the self-play kernels: about 6 CPU-s
def test_cli_selfplay_table_with_errors_and_compare(capsys: pytest.CaptureFixture[str]) -> None:
    from mathbg.cli import main

    rc = main(["met", "--model", "selfplay", "--length", "2", "--games", "30",
               "--engine", "exact", "--start", "0,0,0,0,0,2/0,0,0,0,0,2", "--games", "72",
               "--compare", "kazaross-xg2"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0
    assert "±" in out and "differences from kazaross-xg2" in out and "largest" in out


def test_cli_selfplay_target_se_and_players(capsys: pytest.CaptureFixture[str]) -> None:
    from mathbg.cli import main

    rc = main(["met", "--model", "selfplay", "--length", "3", "--games", "60",
               "--players", INSTANT, INSTANT, "--cube-limit", "1", "--target-se", "0.03",
               "--format", "json"])  # fmt: skip
    import json

    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["metadata"]["target_stderr"] == 0.03
    assert out["metadata"]["players"][0]["probabilities"] == [0.55, 0.2, 0.02, 0.15, 0.01]
    se = [v for row in out["stderr"] for v in row if v is not None]
    assert se and max(se) <= 0.03


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--games", "0"], "games must lie"),
        (["--cube-limit", "6"], "power of two"),
        (["--engine", "nope"], "invalid choice: 'nope'"),
        (["--length", "30"], "length must lie"),
        (["--start", "1,2"], "--start wants two sides"),
        (["--target-se", "0"], "target_stderr is a fraction"),
        (["--max-games", "100"], "max_games goes with target_stderr"),
        (["--players", "gnubg-nn:noise=x", "gnubg-nn"], "ENGINE:plies=K,noise=S"),
    ],
)
def test_cli_selfplay_bad_input_exit_2(argv, words, capsys: pytest.CaptureFixture[str]) -> None:
    from mathbg.cli import main

    rc = main(["met", "--model", "selfplay", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and err.count("\n") == 1


@pytest.mark.slow
def test_killed_process_resumes_to_the_same_bits(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    store = tmp_path / "store"
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import instant_engine\n"
        "from mathbg.analysis import selfplay_met\n"
        f"selfplay_met(6, games=6000, players=({INSTANT!r},) * 2, cube_limit=1, seed=9, "
        f"batch_size=120, progress=False, store={str(store)!r})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(store.glob("*/batch-*.npz"))) >= 40:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    done = len(list(store.glob("*/batch-*.npz")))
    assert 40 <= done < 20 * 50  # killed part-way
    kw = {"games": 6000, "players": (INSTANT, INSTANT), "cube_limit": 1, "seed": 9,
          "batch_size": 120, "progress": False}  # fmt: skip
    resumed = selfplay_met(6, store=store, **kw)
    assert _same_bits(resumed, selfplay_met(6, **kw))


@pytest.mark.parametrize("entry", [("normal", 3, 5), ("post-crawford", 4, 1), ("normal", 2, 3)])
def test_a_score_reads_only_entries_of_lower_level(entry) -> None:
    """Cube decisions and game values at (a, b) read only scores of smaller a + b: the
    table's entries at or above that level (still placeholders during a build) change no
    bit of the batch."""
    from mathbg.analysis.selfplay.batch import Batch
    from mathbg.analysis.selfplay.games import run_batch
    from mathbg.analysis.selfplay.table import Entry
    from mathbg.met import load
    from mathbg.rules.match import ScoreState

    entry = Entry(ScoreState(entry[0]), (entry[1], entry[2]))
    xg = load("kazaross-xg2").extend(6)
    level = entry.level
    a, b = np.meshgrid(np.arange(1, 7), np.arange(1, 7), indexing="ij")
    pre = np.where(a + b >= level, 0.5 * xg.pre, xg.pre)
    post = np.array(xg.post)
    post[:, np.arange(1, 7) + 1 >= level] = 0.9
    player = instant_engine.InstantPlayer((0.72, 0.05, 0.0, 0.02, 0.0))

    def run(p: np.ndarray, q: np.ndarray) -> dict:
        job = Batch(entry, 0, 720, 1, (player, player), True, ([0, 0, 0, 0, 0, 2],) * 2, None,
                    True, p, q)  # fmt: skip
        return run_batch(job)

    one, two = run(np.array(xg.pre), np.array(xg.post)), run(pre, post)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert (one["first_double"] >= 0).any()  # the cube was used


@pytest.mark.slow  # about 5 CPU-s
def test_vectorised_decisions_agree_with_cube_decision() -> None:
    """The batch's cube decisions are mathbg's scalar cube_decision, element by element."""
    from mathbg.analysis.selfplay.table import decide as _decide
    from mathbg.cube.cubeful import cube_decision
    from mathbg.met import load

    xg = load("kazaross-xg2").extend(7)
    rng = np.random.default_rng(0)
    n = 200
    w = rng.uniform(0.3, 0.95, n)
    wg = w * rng.uniform(0, 0.4, n)
    lg = (1 - w) * rng.uniform(0, 0.4, n)
    probs = np.stack([w, wg, wg * 0.1, lg, lg * 0.1], axis=1)
    ar = rng.integers(2, 8, n)
    br = rng.integers(1, 8, n)
    cube = np.where(ar > 2, rng.choice([1, 2], n), 1)
    centred = (cube == 1) & (rng.random(n) < 0.7)
    x = rng.uniform(0.6, 0.7, n)
    nd, dt = _decide(probs, x, [xg], np.zeros(n, dtype=np.int64), ar, br, cube, centred)
    for i in range(n):
        owner = "centre" if centred[i] else "player"
        d = cube_decision(probs[i], xg, (int(ar[i]), int(br[i])), cube=int(cube[i]),
                          owner=owner, cube_life=float(x[i]))  # fmt: skip
        assert nd[i] == pytest.approx(d.no_double, abs=1e-12)
        assert dt[i] == pytest.approx(d.double_take, abs=1e-12)
        assert ((dt[i] >= nd[i]) and (d.double_pass >= nd[i])) == d.action.doubles


def test_json_keeps_the_error_bars_and_metadata() -> None:
    from mathbg.met.formats import render
    from mathbg.met.formats.text import parse_json

    met = selfplay_met(3, games=60, players=(INSTANT, INSTANT), cube_limit=1, progress=False)
    back = parse_json(render(met, "json"))
    np.testing.assert_allclose(back.stderr, met.stderr, rtol=1e-13)
    np.testing.assert_allclose(back.post_stderr, met.post_stderr, rtol=1e-13)
    assert np.array_equal(back.games, met.games)
    assert dict(back.metadata) == dict(met.metadata)


def test_cube_life_fit_recovers_a_known_cube_life() -> None:
    """Games whose realised MWC is the 0-ply prediction at x = 0.5 give back x = 0.5."""
    from mathbg.analysis.selfplay import Entry, fit_cube_life
    from mathbg.analysis.selfplay.batch import FIELDS as _FIELDS
    from mathbg.analysis.selfplay.table import after
    from mathbg.analysis.selfplay.table import decide as _decide
    from mathbg.met import load
    from mathbg.rules.match import ScoreState

    xg = load("kazaross-xg2").extend(5)
    entry = Entry(ScoreState.NORMAL, (3, 4))
    rng = np.random.default_rng(1)
    m = 400
    w = rng.uniform(0.55, 0.85, m)
    probs = np.stack([w, 0.2 * w, 0.01 * w, 0.15 * (1 - w), 0.005 * (1 - w)], axis=1)
    games = {f: np.zeros(m) for f in _FIELDS}
    games["first"] = rng.integers(0, 2, m)
    games["dec_turn"] = np.zeros(m, dtype=np.int64)
    for i in range(5):
        games[f"dec_p{i}"] = probs[:, i]
    roller = games["first"]
    ar, br = np.where(roller == 0, 3, 4), np.where(roller == 0, 4, 3)
    ones = np.ones(m, dtype=np.int64)
    nd, dt = _decide(probs, np.full(m, 0.5), [xg], 0 * ones, ar, br, ones, ones == 1)
    dp = np.where(roller == 0, after(xg, entry, 1, 0), 1 - after(xg, entry, 0, 1))
    value = np.maximum(nd, np.minimum(dt, dp))
    games["value"] = np.where(roller == 0, value, 1 - value)
    row = fit_cube_life(entry, games, xg)
    assert row.cube_life == pytest.approx(0.5, abs=1e-9) and row.decisions == m


@pytest.mark.extra("engine")
def test_cube_life_frame_with_gnubg_nn() -> None:
    pytest.importorskip("gnubg_nn")
    met = selfplay_met(2, games=60, batch_size=60, seed=3, fit_cube_life=True, progress=False)
    life = met.frames["cube_life"]
    assert list(life["state"]) == ["post-crawford"] and life["decisions"].iloc[0] > 0


# ----------------------------------------------------------------------------- target SE

TARGET_KW = {"games": 120, "batch_size": 120, "players": (INSTANT, INSTANT), "cube_limit": 1,
             "seed": 11, "progress": False, "target_stderr": 0.02}  # fmt: skip


def test_target_stderr_is_reached_and_the_table_is_right() -> None:
    met = selfplay_met(4, **TARGET_KW)
    scores = met.frames["scores"]
    # every entry's reported error (own and inherited) at or below the target, in whole
    # batches, and more than the first round where one batch was not enough
    assert (scores["stderr"] <= 0.02).all() and scores["reached"].all()
    assert (scores["games"] % 120 == 0).all() and scores["games"].max() > 120
    se = np.concatenate([met.stderr[np.isfinite(met.stderr)], met.post_stderr[0][1:]])
    assert se.max() <= 0.02
    # the games per entry are about what the target asks: sigma^2 / target^2 within a
    # batch and the 5 % margin (sigma from the entry's own error)
    sigma2 = scores["stderr_own"] ** 2 * scores["games"]
    own_target2 = 0.02**2 - (scores["stderr"] ** 2 - scores["stderr_own"] ** 2)
    assert (scores["games"] <= 1.05 * sigma2 / own_target2 * 1.3 + 120).all()
    # and the values are the cubeless table's within 3 standard errors
    assert np.all(np.abs(_z(met, cubeless(4, gammon_rate=G, backgammon_rate=B))) < 3.0)
    assert met.metadata["target_stderr"] == 0.02 and "SE <= 2 pp" in met.source
    # a 1-point table of equal players has nothing to play
    assert selfplay_met(1, **TARGET_KW).pre[0, 0] == 0.5


def test_target_stderr_same_bits_twice_and_capped() -> None:
    m1 = selfplay_met(3, **TARGET_KW)
    m2 = selfplay_met(3, **TARGET_KW)
    assert _same_bits(m1, m2)
    assert m1.frames["scores"].equals(m2.frames["scores"])
    capped = selfplay_met(3, **{**TARGET_KW, "max_games": 240})
    scores = capped.frames["scores"]
    assert scores["games"].max() == 240 and not scores["reached"].all()
    assert (scores["stderr"] > 0.02).any()


@pytest.mark.parametrize("cut", [3, 10, 15])  # inside the second rounds of levels 3, 4, 5
def test_target_stderr_interrupted_run_resumes_to_the_same_bits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: int
) -> None:
    import mathbg.analysis.selfplay.driver as mp

    whole = selfplay_met(4, **TARGET_KW)
    store = tmp_path / f"cut{cut}"
    real, calls = mp.run_batch, []

    def dies(job):  # the process killed when it starts batch number `cut`
        calls.append(job)
        if len(calls) > cut:
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(mp, "run_batch", dies)
    with pytest.raises(KeyboardInterrupt):
        selfplay_met(4, store=store, **TARGET_KW)
    monkeypatch.setattr(mp, "run_batch", real)
    assert len(list(store.glob("*/batch-*.npz"))) == cut
    resumed = selfplay_met(4, store=store, **TARGET_KW)
    assert _same_bits(whole, resumed)
    total = int(whole.frames["scores"]["games"].sum()) // 120
    assert len(list(store.glob("*/batch-*.npz"))) == total > 15


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"target_stderr": 0.0}, "target_stderr is a fraction in (0, 0.5)"),
        ({"target_stderr": 0.5}, "target_stderr is a fraction"),
        ({"target_stderr": float("nan")}, "target_stderr"),
        ({"target_stderr": 0.01, "max_games": 0}, "max_games must lie in 1.."),
        ({"max_games": 1000}, "max_games goes with target_stderr"),
    ],
)
def test_target_stderr_bad_input(kwargs, words) -> None:
    with pytest.raises(InvalidParameterError) as info:
        selfplay_met(3, games=30, players=(INSTANT, INSTANT), progress=False, **kwargs)
    assert words in str(info.value)


# ----------------------------------------------------------------------------- noisy players


@pytest.mark.extra("engine")
def test_noise_zero_is_the_plain_player_bit_for_bit() -> None:
    nn = pytest.importorskip("gnubg_nn")
    from mathbg.analysis.gnubg_nn import noisy_move
    from mathbg.analysis.selfplay import PlayerSpec

    # the noisy play with no noise is gnubg-nn's best play, along a game's positions
    rng, noise = np.random.default_rng(5), np.random.default_rng(6)
    board = ((0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),) * 2
    for _ in range(60):
        d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
        _, best = nn.best_move(board, d1, d2, n=0, b=1)
        assert noisy_move(nn, board, d1, d2, 0, 0.0, noise) == best
        board = nn.board_from_position_key(best)
        if not any(board[0]):
            board = ((0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
                      0),) * 2  # fmt: skip
    kw = {"games": 60, "batch_size": 60, "seed": 2, "progress": False}
    plain = selfplay_met(2, **kw)
    for zero in ("gnubg-nn:noise=0", PlayerSpec("gnubg-nn", 0, None, 0.0)):
        assert _same_bits(plain, selfplay_met(2, players=(zero, "gnubg-nn"), **kw))


@pytest.mark.extra("engine")
def test_a_noisy_player_loses() -> None:
    pytest.importorskip("gnubg_nn")
    # noise of 0.1 points a play (twice gnubg's "beginner") against the plain network at
    # double match point: the noisy row player wins clearly less than half the games
    met = selfplay_met(1, games=300, batch_size=300, seed=1, progress=False,
                       players=("gnubg-nn:noise=0.1", "gnubg-nn"))  # fmt: skip
    mwc, se = float(met.pre[0, 0]), float(met.stderr[0, 0])
    assert 0.5 - mwc > 3 * se
    assert met.metadata["players"][0]["noise"] == 0.1
    assert "noise" not in met.metadata["players"][1]
    assert "noise 0.1 vs gnubg-nn 0-ply" in met.source


@pytest.mark.parametrize(
    ("player", "words"),
    [
        ("gnubg-nn:noise=abc", "ENGINE:plies=K,noise=S"),
        ("gnubg-nn:speed=2", "ENGINE:plies=K,noise=S"),
        ("gnubg-nn:noise=-1", "noise must be a number in 0..10"),
        ("gnubg-nn:noise=nan", "noise must be a number"),
        ("gnubg-nn:plies=9", "gnubg-nn offers plies"),
    ],
)
@pytest.mark.extra("engine")
def test_bad_player_settings(player: str, words: str) -> None:
    pytest.importorskip("gnubg_nn")
    with pytest.raises(InvalidParameterError) as info:
        selfplay_met(2, games=30, players=(player, None), progress=False)
    assert words in str(info.value)
    from mathbg.analysis.selfplay import PlayerSpec

    with pytest.raises(InvalidParameterError, match="noise applies to gnubg-nn"):
        selfplay_met(2, games=30, players=(PlayerSpec("instant", 0, (0.5, 0, 0, 0, 0), 0.1),
                                           None), progress=False)  # fmt: skip


# ----------------------------------------------------------------------------- luck control


def test_regression_estimator_removes_a_control_exactly() -> None:
    from mathbg.analysis.selfplay.estimates import estimate as _estimate

    rng = np.random.default_rng(0)
    strata = np.repeat(np.arange(30), 40)
    x = rng.standard_normal((1200, 2))
    values = 0.3 + 0.1 * strata / 30 + 2.0 * x[:, 0] - 0.5 * x[:, 1]
    mean, se, plain = _estimate(values, strata, x)
    # the adjusted values are the stratum constants: no error left; the mean is theirs
    # plus the sample's (nonzero) control means times the coefficients removed
    assert se < 1e-12 and plain > 0.05
    assert mean == pytest.approx(values.mean() - x.mean(axis=0) @ np.array([2.0, -0.5]))
    # a control with no spread is left out (the instant engine's luck is all zeros)
    assert _estimate(values, strata, np.zeros((1200, 1))) == _estimate(values, strata)


@pytest.mark.extra("engine")
@pytest.mark.slow
def test_luck_of_the_first_rolls_keeps_the_table() -> None:
    pytest.importorskip("gnubg_nn")
    kw = {"games": 600, "batch_size": 600, "seed": 3, "progress": False}
    plain = selfplay_met(2, **kw)
    lucky = selfplay_met(2, luck_rolls=2, **kw)
    assert lucky.metadata["luck_rolls"] == 2 and "luck_rolls" not in plain.metadata
    # the same games (the luck is measured, not drawn): the raw spread is the same, and
    # the adjusted estimate lies within its errors of the plain one
    a, b = plain.frames["scores"], lucky.frames["scores"]
    assert np.array_equal(a["plain_stderr_own"], b["plain_stderr_own"])
    assert np.all(np.abs(a["mwc"] - b["mwc"]) < 3 * a["stderr_own"])
    assert (b["stderr_own"] <= b["plain_stderr_own"] * 1.001).all()


# ----------------------------------------------------------------------------- store, fsspec


def test_a_local_store_needs_no_fsspec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: ``--store DIR`` on an install without fsspec (no dask extra) works through
    pathlib; a store URL there is refused in one line naming the extra."""
    import sys

    from mathbg.cli import main

    monkeypatch.setitem(sys.modules, "fsspec", None)  # `import fsspec` fails, as uninstalled
    argv = ["met", "--model", "selfplay", "--length", "2", "--games", "30",
            "--players", INSTANT, INSTANT, "--cube-limit", "1", "--store"]  # fmt: skip
    assert main([*argv, str(tmp_path / "run")]) == 0
    capsys.readouterr()
    assert len(list((tmp_path / "run").glob("*/batch-*.npz"))) == 2
    assert main([*argv, str(tmp_path / "run")]) == 0  # resumed from it
    assert main([*argv, "memory://run"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'mathbg[dask]'" in err and "memory://run" in err and err.count("\n") == 1


@pytest.mark.extra("dask")
def test_a_store_url_works_with_fsspec() -> None:
    pytest.importorskip("fsspec")
    kw = {"games": 60, "players": (INSTANT, INSTANT), "cube_limit": 1, "progress": False}
    url = f"memory://selfplay-{np.random.default_rng().integers(1 << 40)}"
    first = selfplay_met(2, store=url, **kw)
    assert _same_bits(first, selfplay_met(2, store=url, **kw))


# ----------------------------------------------------------------------------- issue 34


def test_json_with_compare_is_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34.1: with --format json, the comparison goes inside the document."""
    import json

    from mathbg.cli import main

    assert main(["met", "--model", "selfplay", "--length", "2", "--games", "30", "--seed", "1",
                 "--players", INSTANT, INSTANT, "--compare", "kazaross-xg2",
                 "--format", "json"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # nothing but the document on stdout
    cmp = doc["comparison"]
    # the Crawford game from both sides and the post-Crawford trailer (the table is symmetric)
    assert cmp["other"] == "kazaross-xg2" and cmp["entries"] == 3 == len(cmp["rows"])
    assert {r["state"] for r in cmp["rows"]} == {"crawford", "post-crawford"}
    assert cmp["max_abs_diff"] >= cmp["mean_abs_diff"] > 0 and "suspect_reads" in cmp
    # other machine formats: the comparison on stderr, the file alone on stdout
    assert main(["met", "--model", "selfplay", "--length", "2", "--games", "30",
                 "--players", INSTANT, INSTANT, "--compare", "kazaross-xg2",
                 "--format", "csv"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    assert "differences from kazaross-xg2" in captured.err
    assert "differences" not in captured.out and captured.out.startswith("away")


@pytest.mark.parametrize(("games", "start", "rounded"), [("10", None, 30), ("1000", None, 1020),
                                                         ("100", "0,0,0,0,0,2/0,0,0,0,0,2", 144),
                                                         ("60", None, None)])  # fmt: skip
def test_games_rounded_up_to_the_strata_says_so(
    games: str, start: str | None, rounded: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34.10: --games N rounded up to the strata is said on stderr."""
    from mathbg.cli import main

    argv = ["met", "--model", "selfplay", "--length", "1", "--games", games,
            "--players", INSTANT, INSTANT]  # fmt: skip
    assert main(argv + (["--start", start] if start else [])) == 0
    err = capsys.readouterr().err
    if rounded is None:
        assert "rounded" not in err
    else:
        assert f"--games {games} rounded up to {rounded} an entry" in err


def test_json_post_vectors_have_one_shape() -> None:
    """Issue 34.11: post, post_stderr and post_games are vectors of the same length (and
    player 1's beside them for an unequal table)."""
    import json

    from mathbg.met.formats import render
    from mathbg.met.formats.text import parse_json

    for players in ((INSTANT, INSTANT), ("instant:0.6,0.2,0.02,0.15,0.01", INSTANT)):
        met = selfplay_met(3, games=60, players=players, cube_limit=1, progress=False)
        doc = json.loads(render(met, "json"))
        shapes = {k: np.shape(doc[k]) for k in doc if k.startswith("post")}
        assert set(shapes.values()) == {(3,)}, shapes
        two = players[0] != players[1]
        assert ("post_player1" in doc) == ("post_stderr_player1" in doc) == two
        back = parse_json(render(met, "json"))
        np.testing.assert_allclose(back.post_stderr, met.post_stderr, rtol=1e-13)
        assert np.array_equal(back.post_games, met.post_games)


def test_entries_read_more_than_2_se_off_are_flagged() -> None:
    """Issue 34.5: the scores whose cube decisions read an entry more than 2 SE from the
    published table are flagged: a reference moved by 3 SE at post-Crawford 3a/1a flags
    the two entries that read it (the 4a/1a Crawford game and post-Crawford game)."""
    from mathbg.analysis.selfplay import suspect_reads
    from mathbg.met import MET

    met = selfplay_met(4, games=300, players=(INSTANT, INSTANT), seed=2, progress=False)
    post = np.array(met.post)
    post[:, 2] += 3 * met.post_stderr[0, 2]
    rows = suspect_reads(met, MET(pre=met.pre, post=post, name="moved"))
    flagged = rows[rows["suspect_reads"] != ""]
    assert sorted(zip(flagged["state"], flagged["away"], strict=True)) == [
        ("crawford", 4), ("post-crawford", 4)]  # fmt: skip
    assert set(flagged["suspect_reads"]) == {"post-crawford 3a/1a (-3.0 SE)"}
    own = rows.set_index(["state", "away"]).loc[("post-crawford", 3), "z"]
    assert own == pytest.approx(-3.0)
    with pytest.raises(InvalidParameterError, match="not a self-play table"):
        suspect_reads(cubeless(3, G, B), met)
