"""Regenerate ``race_long_gnubg.json``: gnubg 1.07's evaluations of the long-race test set.

The 100 races are :func:`mathbg.race.sample.ordinary_races` (seed 2024); gnubg evaluates
each one cubeless at 0, 1, 2 and 3 ply (deterministic, no pruning), with its race neural
net. ``tests/test_race_evaluate.py`` recomputes the 2-ply values live (3 s) and checks
them against this file; the 3-ply values (about 35 s) are shipped here because they are
too slow for every CI run. Usage::

    python tests/data/make_race_long_gnubg.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

SCRIPT = """
import gnubg, json
ids = {ids!r}
ci = gnubg.cubeinfo(1, -1, 1, 0, (0, 0), 0, 0)
out = {{}}
for ply in {plies!r}:
    ec = gnubg.evalcontext(0, ply, 1, 0, 0.0)
    out[ply] = [list(gnubg.evaluate(gnubg.positionfromid(i), ci, ec))[:5] for i in ids]
print("RESULT" + json.dumps(out))
"""


def gnubg_evaluations(peer, ids: list[str], plies: tuple[int, ...]) -> dict[int, list]:
    """gnubg's cubeless outputs (win, wg, wbg, lg, lbg) of each position at each ply."""
    out = peer.run_python(SCRIPT.format(ids=ids, plies=plies))
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    return {int(k): v for k, v in json.loads(line[6:]).items()}


def race_ids() -> list[str]:
    """Position IDs of the long-race test set."""
    from mathbg.race.sample import ordinary_races
    from mathbg.rules.position import Position

    player, opponent = ordinary_races(100, 2024)
    return [Position.from_counts(p.tolist(), o.tolist()).check().id
            for p, o in zip(player, opponent, strict=True)]  # fmt: skip


def main() -> None:
    from gnubg_peer import find_peer

    peer = find_peer()
    if peer is None:
        raise SystemExit("gnubg is not installed")
    ids = race_ids()
    values = gnubg_evaluations(peer, ids, (0, 1, 2, 3))
    data = {
        "description": "gnubg 1.07.001 cubeless evaluations (win, win gammon, win backgammon,"
        " lose gammon, lose backgammon) of mathbg.race.sample.ordinary_races(100, 2024)"
        " at 0-3 ply; regenerate with tests/data/make_race_long_gnubg.py",
        "positions": [
            {"id": pid, **{f"ply{k}": values[k][i] for k in sorted(values)}}
            for i, pid in enumerate(ids)
        ],
    }
    path = HERE / "race_long_gnubg.json"
    rows = ",\n".join("  " + json.dumps(row) for row in data["positions"])
    head = json.dumps(data["description"])
    text = f'{{"description": {head},\n "positions": [\n{rows}\n]}}\n'
    path.write_text(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
