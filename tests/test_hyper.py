"""The exact Hypergammon solver (mathbg.hyper): plays, money, match play, the store, the CLI.

Every number here comes from the rules model, hand analysis of a small case, gnubg's
``makehyper`` (run fresh into a temporary directory), or a limit the theory fixes
(money play as the limit of a long match with an affine table). The 3-checker sizes are
measured by ``benchmarks/bench_hyper.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from mathbg import Position
from mathbg.errors import InvalidParameterError, InvalidPositionError, MathbgWarning
from mathbg.hyper import _layout as k
from mathbg.hyper._compiled import kernel
from mathbg.hyper.gnubg_hyper import read_gnubg_hyper, write_gnubg_hyper
from mathbg.hyper.match import build_states, game_list, hyper_met, solve_game
from mathbg.hyper.money import solve_money
from mathbg.hyper.space import HyperSpace, space
from mathbg.hyper.store import Store
from mathbg.rules.dice import ROLLS

# --------------------------------------------------------------------------- the space


def test_space_sizes_and_classes_equal_makehyper():
    # makehyper -c 1 / -c 2 print these counts (game over, non-contact, contact, illegal)
    expected = {1: (26, 51, 276, 325, 24), 2: (351, 701, 19826, 86726, 15948)}
    for c, (n, over, race, contact, illegal) in expected.items():
        sp = space(c)
        assert sp.n == n
        legal = sp.legal
        assert legal.sum() == race + contact
        held = sp.tables["opp"][:, k.BLOCK] | sp.tables["opp"][:, k.BLOTS]
        shared = (sp.tables["opp"][:, k.OCC][:, None] & held[None, :]) != 0
        assert shared.sum() == illegal
        assert n * n - legal.sum() - illegal == over
    assert HyperSpace(3).n == 3276


def test_index_is_gnubgs_and_round_trips():
    sp = space(2)
    assert sp.rank([0] * 25) == 0
    for idx in (0, 1, 25, 26, 350):
        assert sp.rank(sp.sides[idx]) == idx
    assert sp.rank([1] + [0] * 24) == 1  # one checker on the ace point
    pos = Position.initial("hypergammon2")
    i, j = sp.pair(pos)
    assert sp.position(i, j) == pos
    with pytest.raises(InvalidPositionError, match="at most 2"):
        sp.pair(Position.initial("hypergammon3"))
    with pytest.raises(InvalidPositionError, match="game is over"):
        sp.pair(Position.from_counts({6: 1}, {}))


def _plays_from_tables(sp, i, j):
    out = np.empty((1024, 3), dtype=np.int64)
    start = np.empty(22, dtype=np.int64)
    t = sp.tables
    kernel("pair_plays")(int(i), int(j), t["ptr"], t["cand"], t["opp"], out, start)
    sets = []
    for r in range(21):
        rows = out[start[r]:start[r + 1]]
        if rows[0, 2] == -1:
            sets.append(set())
        else:
            sets.append({("win", int(a)) if kind > 0 else (int(a), int(b))
                         for a, b, kind in rows})
    return sets


def _plays_from_rules(sp, pos):
    sets = []
    for d0, d1 in k.ROLL_DICE:
        got = set()
        for play in pos.legal_plays((int(d0), int(d1))):
            res = play.result
            s, o = sp.rank(res.player), sp.rank(res.opponent)
            got.add(("win", o) if s == 0 else (o, s))
        sets.append(got)
    return sets


@pytest.mark.parametrize("checkers, sample", [(1, None), (2, 400), (3, 80)])
def test_play_tables_equal_the_rules_model(checkers, sample):
    # the rules model's generator is itself checked against gnubg (test_rules_gnubg_diff)
    sp = space(checkers)
    pairs = np.argwhere(sp.legal)
    if sample is not None:
        pairs = pairs[np.random.default_rng(checkers).choice(len(pairs), sample, replace=False)]
    for i, j in pairs:
        assert _plays_from_tables(sp, i, j) == _plays_from_rules(sp, sp.position(i, j)), (i, j)
    assert sorted(map(tuple, k.ROLL_DICE.tolist())) == sorted(
        (max(r), min(r)) for r in ROLLS
    )


# --------------------------------------------------------------------------- money


@pytest.fixture(scope="module")
def money1():
    return solve_money(1, store=False, tolerance=1e-12)


def test_one_checker_race_by_hand(money1):
    # 1@6 vs 1@6: the roller bears off at once with 27/36 (everything but 21, 31, 41, 32
    # and 11), else the opponent with 27/36, else the roller surely; every win is a gammon
    # (the loser has borne off none of his one checker), none a backgammon.
    p = 27 / 36 + (9 / 36) ** 2
    e = money1.equity(Position.from_counts({6: 1}, {6: 1}))
    assert e.probabilities == pytest.approx((p, p, 0.0, 1 - p, 0.0), abs=1e-12)
    assert e.cubeless == pytest.approx(2 * (2 * p - 1), abs=1e-12)
    # after a miss the opponent's 2 * (27 - 9) / 36 = 1 is a double/pass: -1 for the roller
    assert e.centre == e.player == e.opponent == pytest.approx(27 / 36 * 2 - 9 / 36, abs=1e-12)
    assert e.centre_jacoby == pytest.approx(27 / 36 - 9 / 36, abs=1e-12)  # singles, then -1


def test_money_values_are_consistent(money1):
    v = money1.values[np.transpose(space(1).legal)]
    assert np.all(np.abs(v[:, :5]) <= 3.0 + 1e-12)
    assert np.all((v[:, 5:] >= -1e-12) & (v[:, 5:] <= 1 + 1e-12))
    assert np.all(v[:, k.OWNED] >= v[:, k.OPPONENT] - 1e-12)  # owning the cube never hurts
    # the cubeless equity is its probabilities' utility (gnubg's Utility)
    utility = 2 * v[:, 5] - 1 + v[:, 6] - v[:, 8] + v[:, 7] - v[:, 9]
    assert np.abs(utility - v[:, 0]).max() < 1e-10
    assert money1.residual <= money1.tolerance


@pytest.fixture(scope="module")
def makehyper(gnubg, tmp_path_factory):
    if gnubg.makehyper is None:
        pytest.fail("gnubg is installed without makehyper")
    home = tmp_path_factory.mktemp("makehyper")

    def run(checkers: int, *extra: str) -> tuple:
        out = home / f"hyper{checkers}-{len(extra)}.bd"
        proc = subprocess.run([str(gnubg.makehyper), "-c", str(checkers), "-n", "-f", str(out),
                               *extra], cwd=home, env={"HOME": str(home), "PATH": "/usr/bin"},
                              capture_output=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-500:]
        text = proc.stdout.decode(errors="replace").replace("\r", "\n")
        return read_gnubg_hyper(out), text

    return run


def _compare_with_makehyper(ours, theirs, checkers):
    legal = space(checkers).legal
    v = np.transpose(ours.values, (1, 0, 2))[legal]
    eq = theirs.equities[legal]
    cols = [k.OWNED, k.CENTRE, k.JACOBY, k.OPPONENT]
    equity_gap = np.abs(v[:, cols] - eq).max(axis=0)
    cubeless_gap = np.abs(v[:, 0] - theirs.cubeless[legal]).max()
    prob_gap = np.abs(v[:, 5:] - theirs.probabilities[legal]).max(axis=1)
    return equity_gap, cubeless_gap, prob_gap


@pytest.mark.gnubg(kind="exact")
def test_one_checker_equals_makehyper(makehyper, money1):
    theirs, text = makehyper(1)
    assert "Number of illegal positions:         24" in text
    equity_gap, cubeless_gap, prob_gap = _compare_with_makehyper(money1, theirs, 1)
    # makehyper stops at a change of 1e-5 per iteration in float32 and stores 24 bits:
    # measured 7e-7; no roll is ever unplayable with one checker (no dance quirk)
    # (the cubeless equity sums five rounded probabilities: measured 2.1e-6)
    assert equity_gap.max() < 2e-6 and cubeless_gap < 5e-6 and prob_gap.max() < 2e-6


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow  # makehyper -c 2 (about 35 CPU-s) and two 2-checker solves (10 CPU-s)
def test_two_checkers_equal_makehyper(makehyper):
    theirs, _ = makehyper(2)
    quirk = solve_money(2, store=False, gnubg_dance=True)
    equity_gap, cubeless_gap, prob_gap = _compare_with_makehyper(quirk, theirs, 2)
    assert equity_gap.max() < 2e-6 and cubeless_gap < 5e-6  # measured 9.2e-7, 6.0e-7
    # plays of equal cubeless equity split the probabilities differently (gnubg keeps the
    # last in its move order, mathbg the first): measured in 0.17 % of the pairs
    assert np.mean(prob_gap < 1e-4) > 0.995
    correct = solve_money(2, store=False)
    equity_gap, cubeless_gap, _ = _compare_with_makehyper(correct, theirs, 2)
    assert cubeless_gap < 5e-6  # the dance rule never changes a cubeless value
    assert 0.005 < equity_gap.max() < 0.05  # measured 0.021: makehyper's dance quirk


@pytest.mark.gnubg(kind="exact")
def test_makehyper_restarted_from_our_file_stays_put(makehyper, money1, tmp_path):
    quirk = solve_money(1, store=False, tolerance=1e-12, gnubg_dance=True)
    ours = write_gnubg_hyper(quirk, tmp_path / "hyper1.bd")
    back = read_gnubg_hyper(ours)
    assert np.abs(back.equities - read_gnubg_hyper(ours).equities).max() == 0
    _, text = makehyper(1, "-r", str(ours))
    norms = [float(x) for x in __import__("re").findall(r"norm of delta: (\S+)", text)]
    assert len(norms) == 1 and norms[0] < 1e-5  # gnubg's own iteration moves nothing


def test_gnubg_file_round_trip(money1, tmp_path):
    path = write_gnubg_hyper(money1, tmp_path / "hyper1.bd")
    assert path.read_bytes()[:8] == b"gnubg-H1"
    back = read_gnubg_hyper(path)
    legal = space(1).legal
    v = np.transpose(money1.values, (1, 0, 2))
    assert np.abs(back.equities - v[..., [1, 2, 3, 4]])[legal].max() < 4e-7
    assert np.abs(back.probabilities - v[..., 5:])[legal].max() < 1e-7
    from mathbg.errors import TargetExistsError

    with pytest.raises(TargetExistsError):
        write_gnubg_hyper(money1, path)  # an existing file is refused without force


# --------------------------------------------------------------------------- match play


def test_match_play_tends_to_money_play():
    # with an endless affine MET (a match to 4096 with MWC = 1/2 + points / (2 * 3 * 4096))
    # the match equities per unit cube are the money equities (13 cube levels)
    a = 4096
    scale = 2 * 3.0 * a

    def affine(x, y, kind):
        return 0.5 + ((a - x) - (a - y)) / scale

    sol = solve_game(1, (a, a), "normal", affine, store=False, tolerance=1e-12)
    money = solve_money(1, store=False, tolerance=1e-12)
    q = sol.states.cls[(0, 0, 0)]
    owned = sol.states.cls[(0, 1, 1)]
    gaps = []
    for i, j in np.argwhere(space(1).legal):
        nv, _, _ = sol._pair_values(i, j)
        gaps.append(abs(scale * (nv[q] - 0.5) - money.values[j, i, k.CENTRE]))
        gaps.append(abs(scale * (nv[owned] - 0.5) / 2 - money.values[j, i, k.OWNED]))
    assert max(gaps) < 1e-6


def test_one_checker_scores_by_hand():
    # one checker: every win is a gammon, so at 1-away/2-away (Crawford or not) whoever
    # wins the game wins the match, and the opening is fair
    met = hyper_met(1, 4, store=False)
    assert met.pre[0, 1] == pytest.approx(0.5, abs=1e-9)
    assert met.post[0, 1] == pytest.approx(0.5, abs=1e-9)
    assert met.is_symmetric(atol=1e-12)
    assert met.pre[1, 1] == pytest.approx(0.5, abs=1e-12)
    assert met.metadata["residual"] <= met.metadata["tolerance"]
    assert "largest residual" in met.description
    # needing more points never helps
    assert np.all(np.diff(met.pre, axis=0) <= 1e-12)


def test_orientation_mirror():
    from mathbg.bearoff.exact.match import met_mwc
    from mathbg.met import as_met

    mwc = met_mwc(as_met("kazaross-xg2"))
    a = solve_game(1, (2, 3), "normal", mwc, store=False).opening()[0]
    b = solve_game(1, (3, 2), "normal", mwc, store=False).opening()[0]
    assert a + b == pytest.approx(1.0, abs=1e-9)


def test_states_merge_and_dead_cubes():
    st = build_states(1, 5, "crawford", lambda x, y, kind: 0.5)
    assert not st.can_double.any()  # no cube in the Crawford game
    post = build_states(1, 4, "post-crawford", lambda x, y, kind: 0.5)
    leader = {post.cls[st] for st in post.cls if st[0] == 0}  # player 0 is 1-away
    assert not post.can_double[sorted(leader)].any()  # the leader never doubles
    assert post.can_double[post.cls[(1, 0, 0)]]  # the trailer does
    assert [g[:2] for g in game_list(3)][:4] == [(1, 1), (1, 2), (1, 2), (1, 3)]


def test_only_reachable_states_are_solved():
    from mathbg.hyper.match import check_state, reachable_states

    # the Crawford game has no cube; after it only the trailer doubles, once
    assert reachable_states(1, 7, "crawford") == [(0, 0, 0), (1, 0, 0)]
    assert reachable_states(1, 7, "post-crawford") == [(0, 0, 0), (0, 1, 1), (1, 0, 0),
                                                       (1, 1, 2)]
    # 2-away/4-away: the 2-away side doubles to 2 at most, the 4-away side redoubles to 4
    got = set(reachable_states(2, 4, "normal"))
    assert (0, 1, 2) in got and (1, 2, 2) in got and (0, 2, 2) not in got
    with pytest.raises(InvalidParameterError, match="does not occur"):
        check_state(2, "opponent", (1, 7), "post-crawford")  # the trailer never owns it
    assert check_state(2, "player", (1, 7), "post-crawford") == (0, 1, 1)


def test_cube_action_at_a_score():
    from mathbg.hyper.match import cube_action

    d = cube_action(Position.from_counts({6: 1}, {6: 1}), (2, 2), checkers=1, store=False)
    # 2-away/2-away, one checker: any win is a gammon and wins the match: doubling gains
    # nothing and costs nothing; the MWC is the cubeless winning chance
    assert d.optimal == pytest.approx(27 / 36 + (9 / 36) ** 2, abs=1e-9)
    assert d.as_dict()["variant"] == "hypergammon1"


# --------------------------------------------------------------------------- the store


def test_store_reuses_refuses_damage_and_resumes(tmp_path):
    store = Store(tmp_path)
    ref = solve_money(1, store=False)
    with pytest.warns(MathbgWarning, match="stopped after 3 sweeps"):
        part = solve_money(1, store=store, max_sweeps=3)
    assert part.sweeps == 3 and (tmp_path / next(p.name for p in tmp_path.iterdir())).exists()
    full = solve_money(1, store=store)  # resumed from the checkpoint of sweep 3
    assert np.array_equal(full.values, ref.values) and full.residuals == ref.residuals
    assert not any(p.name.endswith(".partial") for p in tmp_path.iterdir())
    again = solve_money(1, store=store)
    assert np.array_equal(again.values, ref.values)
    # a damaged array is reported and solved again, never served
    table = next(p for p in tmp_path.iterdir() if p.is_dir())
    raw = bytearray((table / "values.npy").read_bytes())
    raw[-9] ^= 0xFF
    (table / "values.npy").write_bytes(bytes(raw))
    fresh = Store(tmp_path)  # a new process: nothing verified yet
    with pytest.warns(MathbgWarning, match="damaged"):
        healed = solve_money(1, store=fresh)
    assert np.array_equal(healed.values, ref.values)
    # another identity (options) is another table
    assert solve_money(1, store=fresh, beavers=True).beavers


def test_foreign_header_is_not_served(tmp_path):
    store = Store(tmp_path)
    solve_money(1, store=store)
    table = next(p for p in tmp_path.iterdir() if p.is_dir())
    header = json.loads((table / "header.json").read_text())
    header["identity"]["tolerance"] = 0.5  # a table of another solve under this name
    (table / "header.json").write_text(json.dumps(header))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Store(tmp_path).load(table.name, {"kind": "money"}) is None


# --------------------------------------------------------------------------- the CLI


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "mathbg", "hyper", *args], capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.mark.parametrize(
    "args, word",
    [
        (["AACAAAAAAgAAAA", "--checkers", "4"], "1, 2 or 3"),
        (["AACgAgAAKgAAAA", "--checkers", "1"], "at most 1"),
        (["AACAAAAAAgAAAA", "--checkers", "1", "--away", "30,2"], "25-away"),
        (["AACAAAAAAgAAAA", "--variant", "hypergammon4"], "hypergammon4"),
        (["AACAAAAAAgAAAA", "--variant", "plakoto"], "not a Hypergammon"),
        (["AACAAAAAAgAAAA", "--checkers", "1", "--cube", "3", "--owner", "player"],
         "power of two"),
        (["4HPwATDgc/ABMA"], "at most 3"),
        (["AACAAAAAAgAAAA", "--checkers", "1", "--away", "1,4", "--cube", "2", "--owner",
          "opponent"], "does not occur"),
    ],
)
def test_cli_bad_input_is_one_line(args, word, tmp_path):
    env = {"MATHBG_DATA": str(tmp_path), "PATH": "/usr/bin"}
    proc = _cli(*args, env=env)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and word in proc.stderr
    assert not any(tmp_path.iterdir())  # refused before any work


def test_cli_money_and_score(tmp_path):
    from mathbg.cli import main

    store = str(tmp_path)
    assert main(["hyper", "IAAAgAAAAAAAAA", "--checkers", "1", "--store", store, "--json"]) == 0
    assert main(["hyper", "IAAAgAAAAAAAAA", "--checkers", "1", "--store", store,
                 "--away", "2,2"]) == 0


def test_met_model_hypergammon_writes_the_exact_table(tmp_path):
    from mathbg.cli import main
    from mathbg.met import read

    out = tmp_path / "hyper1.xml"
    store = tmp_path / "store"
    assert main(["met", "--model", "hypergammon1", "--length", "4", "--store", str(store),
                 "--format", "gnubg-xml", "--out", str(out)]) == 0
    exact = hyper_met(1, 4, store=False)
    back = read(out)
    assert np.abs(back.pre - exact.pre).max() < 1e-7  # 8 significant digits
    assert np.abs(back.post - exact.post).max() < 1e-7
    assert "largest residual" in out.read_text()  # the convergence residual travels along
    xg = tmp_path / "hyper1.met"
    assert main(["met", "--model", "hypergammon1", "--length", "4", "--store", str(store),
                 "--format", "xg", "--out", str(xg)]) == 0
    assert "largest residual" in xg.read_text()
    assert np.abs(read(xg).pre - exact.pre).max() < 1e-4  # XG's .met holds 4 decimals


@pytest.mark.parametrize("args, word", [
    (["--length", "26"], "1..25"),
    (["--gammon-rate", "0.2"], "do not apply"),
    (["--store", "s3://bucket/x"], "directory"),
])  # fmt: skip
def test_met_model_hypergammon_bad_input(args, word, tmp_path, capsys):
    from mathbg.cli import main

    code = main(["met", "--model", "hypergammon2", *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and word in err
