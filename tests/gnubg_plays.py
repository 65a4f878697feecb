"""Every legal play of many (position, roll) pairs, listed by gnubg in one process.

gnubg's ``hint`` waits at least 10 ms per call (multithread.c polls its worker thread every
10 ms), so listing the plays of 10,000 position-rolls with it takes minutes. Instead we
record games: for each (position, roll) ``set board``, ``set dice`` and ``move`` (a legal
play, preferably one that does not end the game), then run ``analyse match`` at 0 ply
once. gnubg's analysis keeps, for every move record, the full list of legal plays
(eval.c ``FindnSaveBestMoves`` keeps all of them at 0 ply), which
``gnubg.match(analysis=True)`` returns as move tuples ``((from, to), ...)`` with 1-based
points, 25 = bar, 0 = off. Games are cut every 250 moves (resign, accept, new game): gnubg's
cost per recorded move grows with the game's length. Rolls whose every play ends the game,
and plays gnubg refuses, are listed with ``hint`` instead (and refusals reported).

The resulting positions are rebuilt from gnubg's move tuples by :func:`apply_gnubg_move`,
a plain applicator that does not use mathbg's generator.

Used by tests/test_rules_gnubg_diff.py and benchmarks/bench_movegen.py.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from mathbg import Position

SCRIPT = r"""
import gnubg, json, time
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
        for c in ("resign single", "accept", "new game"):
            gnubg.command(c)
    gnubg.command("set board " + pid)
    gnubg.command("set dice %d %d" % (d1, d2))
    if mv is not None:
        gnubg.command("move " + mv)
        if tuple(gnubg.posinfo()["dice"]) == (0, 0):
            continue
        rejected.append(i)
    h = gnubg.hint(100000)
    hinted[i] = [list(gnubg.parsemove(x["move"])) for x in h["hint"]]
t = time.perf_counter()
gnubg.command("analyse match")
seconds = time.perf_counter() - t
recorded = []
for g in gnubg.match(analysis=True)["games"]:
    for act in g["game"]:
        if act.get("action") == "move":
            a = act.get("analysis", {})
            recorded.append([act.get("board"), list(act.get("dice")),
                             [list(m["move"]) for m in a.get("moves", ())]])
json.dump({"hinted": hinted, "recorded": recorded, "rejected": rejected,
           "analyse_seconds": seconds}, open(OUT_PATH, "w"))
"""


def apply_gnubg_move(pos: Position, move: Sequence[Sequence[int]]) -> bytes:
    """The cells after gnubg move tuples (1-based points, 25 = bar, 0 = off) in ``pos``."""
    me = list(pos.player)
    opp = list(pos.opponent)
    for f, t in move:
        me[f - 1] -= 1
        if me[f - 1] < 0:
            raise AssertionError(f"gnubg move {move} moves a missing checker in {pos!r}")
        if t > 0:
            me[t - 1] += 1
            cell = 24 - t  # the opponent's cell for the mover's point t
            if opp[cell] == 1:
                opp[cell] = 0
                opp[24] += 1
            if opp[cell]:
                raise AssertionError(f"gnubg move {move} lands on a block in {pos!r}")
    return bytes(opp) + bytes(me)


def _play_to_record(pos: Position, roll: tuple[int, int]) -> str | None:
    """A legal play that does not end the game, '' for a dance, None if every play ends
    the game."""
    plays = pos.legal_plays(roll)
    if len(plays) == 0:
        return ""
    for p in plays:
        if any(p.result.player):
            return p.notation
    return None


def gnubg_play_sets(
    run_python: Callable[..., str],
    items: Sequence[tuple[Position, tuple[int, int]]],
) -> tuple[list[set[bytes]], dict]:
    """gnubg's legal plays for each (position, roll), as sets of resulting cells.

    Parameters
    ----------
    run_python : callable
        ``run_python(script, timeout=...)`` runs a script in gnubg's embedded Python
        (:meth:`gnubg_peer.GnubgPeer.run_python`).
    items : sequence of (Position, roll)

    Returns
    -------
    sets : list of set of bytes
        One per item: the resulting positions (mover's view, 50 cells).
    info : dict
        ``rejected``: (position ID, roll, play) gnubg refused to record;
        ``analyse_seconds``: time of gnubg's ``analyse match``; ``recorded``: number of
        move records analysed.
    """
    payload = [(pos.id, roll[0], roll[1], _play_to_record(pos, roll)) for pos, roll in items]
    with tempfile.TemporaryDirectory(prefix="mathbg-gnubg-plays-") as tmp:
        ip, op = Path(tmp) / "items.json", Path(tmp) / "out.json"
        ip.write_text(json.dumps(payload))
        script = SCRIPT.replace("ITEMS_PATH", repr(str(ip))).replace("OUT_PATH", repr(str(op)))
        run_python(script, timeout=1800)
        out = json.loads(op.read_text())
    hinted = {int(k): v for k, v in out["hinted"].items()}
    recorded = iter(out["recorded"])
    sets: list[set[bytes]] = []
    for i, (pos, roll) in enumerate(items):
        if i in hinted:
            moves = hinted[i]
        else:
            board, dice, moves = next(recorded)
            if board not in (pos.id, pos.swap().id) or sorted(dice) != sorted(roll):
                raise AssertionError(
                    f"gnubg record {i} out of step: {board} {dice} vs {pos.id} {roll}"
                )
        sets.append({apply_gnubg_move(pos, m) for m in moves})
    if next(recorded, None) is not None:
        raise AssertionError("gnubg recorded more moves than submitted")
    info = {
        "rejected": [(items[i][0].id, items[i][1], payload[i][3]) for i in out["rejected"]],
        "analyse_seconds": out["analyse_seconds"],
        "recorded": len(out["recorded"]),
    }
    return sets, info
