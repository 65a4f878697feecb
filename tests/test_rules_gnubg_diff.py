"""Differential test of the legal-play generator against gnubg (the reference peer).

At least 500 positions reached by seeded random play, chosen to cover bar entry, dancing,
hits, bear-offs with overshoot and partly playable rolls, plus every row of
tests/data/movecounts.txt; for each position and each of the 21 rolls the SET of resulting
positions must equal gnubg's.

How gnubg lists every legal play quickly: its ``hint`` command waits at least 10 ms per
call (multithread.c polls the worker every 10 ms), i.e. ~2 minutes for 10,500 calls. So,
in ONE gnubg process, we record games (of 250 moves each: gnubg's cost per recorded move
grows with the game's length): for each (position, roll) ``set board``, ``set
dice`` and ``move`` (a legal play, preferably one that does not end the game), then
``analyse match`` at 0 ply once. gnubg's analysis keeps, for every move record, the full
list of legal plays (eval.c FindnSaveBestMoves keeps all of them at 0 ply), which
``gnubg.match(analysis=True)`` returns as move tuples ((from, to), ...) with 1-based
points, 25 = bar, 0 = off. The few rolls whose every play ends the game cannot be recorded
that way (the game would end); those use ``hint``. The resulting positions are rebuilt
here from gnubg's move tuples by a plain applicator (not mathbg's generator).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mathbg import Position
from mathbg.rules import movegen
from mathbg.rules.dice import ROLLS
from mathbg.rules.game import Phase, play_random_game

DATA = Path(__file__).parent / "data" / "movecounts.txt"

SEED = 20240229
N_RANDOM = 520

GNUBG_SCRIPT = r"""
import gnubg, json, sys
items = json.load(open(ITEMS_PATH))
for c in ("set display off", "set player 0 human", "set player 1 human",
          "set analysis chequerplay evaluation plies 0", "set analysis cube off",
          "set analysis luck off", "set evaluation chequerplay evaluation plies 0",
          "new game"):
    gnubg.command(c)
hinted = {}
rejected = []
for i, (pid, d1, d2, mv) in enumerate(items):
    if i and i % 250 == 0:
        # gnubg's cost per recorded move grows with the game's length: end the game
        # (resign, accept) and start another; the session keeps every game for analysis
        for c in ("resign single", "accept", "new game"):
            gnubg.command(c)
    gnubg.command("set board " + pid)
    gnubg.command("set dice %d %d" % (d1, d2))
    if mv is not None:
        gnubg.command("move " + mv)
        if tuple(gnubg.posinfo()["dice"]) == (0, 0):
            continue
        rejected.append(i)  # gnubg refused the play: still list gnubg's plays by hint
    h = gnubg.hint(100000)
    hinted[i] = [list(gnubg.parsemove(x["move"])) for x in h["hint"]]
gnubg.command("analyse match")
recorded = []
for g in gnubg.match(analysis=True)["games"]:
    for act in g["game"]:
        if act.get("action") == "move":
            a = act.get("analysis", {})
            recorded.append([act.get("board"), list(act.get("dice")),
                             [list(m["move"]) for m in a.get("moves", ())]])
json.dump({"hinted": hinted, "recorded": recorded, "rejected": rejected},
          open(OUT_PATH, "w"))
"""


def _features(pos: Position) -> dict[str, bool]:
    """Which situations the 21 rolls of ``pos`` exercise (selection only)."""
    me = pos.player
    f = {
        "bar": me[24] > 0,
        "dance": False,
        "hit": False,
        "partial": False,
        "overshoot": False,
    }
    home_only = not any(me[6:])
    f["overshoot"] = home_only and me[5] == 0 and sum(me) > 0
    for roll in ROLLS:
        boards, moves = movegen.generate(pos.cells, *roll)
        if len(boards) == 0:
            f["dance"] = True
            continue
        if (boards[:, 24] > pos.cells[24]).any():
            f["hit"] = True
        full = 4 if roll[0] == roll[1] else 2
        if (moves[0, :, 0] >= 0).sum() < full:
            f["partial"] = True
    return f


def select_positions() -> list[Position]:
    """At least N_RANDOM distinct positions from seeded random games, with quotas.

    Positions are taken (with probability 1/4, to spread them over many games) while they
    add to an unfilled quota; then random other positions fill up to N_RANDOM.
    """
    rng = random.Random(SEED)
    quotas = {"bar": 110, "dance": 60, "hit": 110, "partial": 90, "overshoot": 90}
    chosen: dict[Position, None] = {}
    counts = dict.fromkeys(quotas, 0)
    for _ in range(2000):
        if len(chosen) >= N_RANDOM:
            break
        filled = all(counts[k] >= q for k, q in quotas.items())
        for st in play_random_game(rng).states:
            if st.phase != Phase.ROLL or st.position in chosen or rng.random() > 0.25:
                continue
            if filled:
                chosen[st.position] = None
                break
            f = _features(st.position)
            if any(f[k] and counts[k] < q for k, q in quotas.items()):
                chosen[st.position] = None
                for k in quotas:
                    counts[k] += f[k]
    assert all(counts[k] >= q for k, q in quotas.items()), counts
    return list(chosen)


def apply_gnubg_move(pos: Position, move: list[list[int]]) -> bytes:
    """Apply gnubg move tuples (1-based points, 25 = bar, 0 = off) to ``pos``."""
    me = list(pos.player)
    opp = list(pos.opponent)
    for f, t in move:
        me[f - 1] -= 1
        assert me[f - 1] >= 0, (pos, move)
        if t > 0:
            me[t - 1] += 1
            cell = 24 - t  # the opponent's cell for the mover's point t
            if opp[cell] == 1:
                opp[cell] = 0
                opp[24] += 1
            assert opp[cell] == 0, (pos, move)
    return bytes(opp) + bytes(me)


def _move_text(pos: Position, roll) -> str | None:
    """A legal play to record (one that does not end the game), '' to dance, None if
    every play ends the game."""
    plays = pos.legal_plays(roll)
    if len(plays) == 0:
        return ""
    for p in plays:
        if any(p.result.player):
            return p.notation
    return None


@pytest.mark.gnubg
@pytest.mark.slow
def test_legal_plays_equal_gnubg(gnubg, tmp_path):
    positions = select_positions()
    assert len(positions) >= 500
    published = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        fields = line.split("#")[0].split()
        if fields:
            published.append(
                (
                    Position.from_id(fields[0]),
                    (int(fields[1][0]), int(fields[1][1])),
                    int(fields[2]),
                )
            )
    items = []
    for pos in positions:
        for roll in ROLLS:
            items.append((pos, roll))
    items += [(pos, roll) for pos, roll, _ in published]
    payload = [(pos.id, roll[0], roll[1], _move_text(pos, roll)) for pos, roll in items]
    items_path = tmp_path / "items.json"
    out_path = tmp_path / "out.json"
    items_path.write_text(json.dumps(payload))
    script = GNUBG_SCRIPT.replace("ITEMS_PATH", repr(str(items_path))).replace(
        "OUT_PATH", repr(str(out_path))
    )
    gnubg.run_python(script, timeout=900)
    out = json.loads(out_path.read_text())
    rejected = [(items[i][0].id, items[i][1], payload[i][3]) for i in out["rejected"]]
    assert not rejected, f"gnubg rejects these plays of mathbg: {rejected[:10]}"
    hinted = {int(k): v for k, v in out["hinted"].items()}
    recorded = iter(out["recorded"])
    gnubg_sets: list[set[bytes]] = []
    for i, (pos, roll) in enumerate(items):
        if i in hinted:
            moves = hinted[i]
        else:
            board, dice, moves = next(recorded)
            assert board in (pos.id, pos.swap().id), (i, pos, board)
            assert sorted(dice) == sorted(roll), (i, pos, dice, roll)
        gnubg_sets.append({apply_gnubg_move(pos, m) for m in moves})
    assert next(recorded, None) is None, "gnubg recorded more moves than submitted"

    mismatches = []
    for (pos, roll), theirs in zip(items, gnubg_sets, strict=True):
        ours = {p.cells for p in pos.legal_plays(roll).results}
        if ours != theirs:
            mismatches.append((pos.id, roll, len(ours), len(theirs)))
    assert not mismatches, mismatches[:20]

    # the published counts agree with gnubg too
    n = len(positions) * 21
    for (pos, roll, count), theirs in zip(published, gnubg_sets[n:], strict=True):
        assert len(theirs) == count, (pos.id, roll)

    # coverage of the situations the issue names
    stats = {"bar": 0, "dance": 0, "hit": 0, "partial": 0, "overshoot": 0}
    for pos in positions:
        for k, v in _features(pos).items():
            stats[k] += v
    assert all(v >= 60 for v in stats.values()), stats
