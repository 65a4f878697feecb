"""gnubg 1.07's own ``analyse match``, as the reference of the cube audit.

:func:`gnubg_cube_analysis` imports a ``.mat`` file into gnubg, analyses the whole match
(chequer play and cube, at ``plies``), and reads gnubg's analysis back through its
embedded Python (``gnubg.match(analysis=1, verbose=1)``). It returns one dict per cube
decision gnubg analysed, in the match's order:

- ``game`` (1-based), ``player`` (0 = the file's first-named player, gnubg's ``X``),
  ``kind`` (``"double"``: a turn with gnubg's cube analysis, doubled or not; ``"take"``:
  a take or a drop, valued with the double's analysis, as gnubg does),
  ``taken`` (``"double"`` / ``"no double"`` / ``"take"`` / ``"pass"``);
- ``position_id``: the board gnubg recorded (the roller's view);
- ``probs`` (gnubg's five cubeless outputs), ``no_double`` and ``double_take``: gnubg's
  cubeful values (``nd-cubeful-eq`` and ``dt-cubeful-eq``: MWC in match play);
- ``score`` (points of players 0 and 1 before the game), ``cube``, ``owner`` (0, 1 or
  None) tracked through the game's doubles, ``crawford`` (the Crawford game).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from gnubg_peer import GnubgPeer

_SCRIPT = r"""
import gnubg, json
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
for what in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %s evaluation plies %d" % (what, {plies}))
    gnubg.command("set analysis %s evaluation prune off" % what)
gnubg.command("import mat {path}")
gnubg.command("analyse match")
m = gnubg.match(analysis=1, boards=1, statistics=0, verbose=1)
def conv(o):
    if isinstance(o, dict):
        return {{str(k): conv(v) for k, v in o.items()}}
    if isinstance(o, (list, tuple)):
        return [conv(v) for v in o]
    return o if isinstance(o, (int, float, str, type(None))) else str(o)
json.dump(conv(m), open({out!r}, "w"))
"""


def gnubg_match_dict(peer: GnubgPeer, path: str | Path, plies: int = 0) -> dict[str, Any]:
    """gnubg's ``gnubg.match()`` dictionary of ``path`` after ``analyse match``."""
    with tempfile.TemporaryDirectory(prefix="gnubg-match-") as tmp:
        out = Path(tmp) / "match.json"
        peer.run_python(_SCRIPT.format(plies=int(plies), path=Path(path).resolve(),
                                       out=str(out)))  # fmt: skip
        return dict(json.loads(out.read_text()))


def cube_decisions(match: dict[str, Any]) -> list[dict[str, Any]]:
    """The cube decisions of a ``gnubg.match()`` dictionary (see the module notes)."""
    length = int(match["match-info"]["match-length"])
    crawford_rule = "Crawford" in (match["match-info"].get("rules") or [])
    seen_crawford = False
    out = []
    for g, game in enumerate(match["games"], start=1):
        info = game["info"]
        score = (int(info["score-X"]), int(info["score-O"]))
        crawford = False
        if crawford_rule and not seen_crawford and length - 1 in score and length not in score:
            crawford = seen_crawford = True
        cube, owner = 1, None
        last: dict[str, Any] | None = None
        for action in game["game"]:
            who = 0 if action.get("player") == "X" else 1
            kind = action.get("action")
            an = action.get("analysis") or {}
            if kind in ("move", "double") and "nd-cubeful-eq" in an:
                row = {"game": g, "player": who, "kind": "double",
                       "taken": "double" if kind == "double" else "no double",
                       "position_id": action["board"], "probs": list(an["probs"]),
                       "no_double": an["nd-cubeful-eq"], "double_take": an["dt-cubeful-eq"],
                       "score": score, "cube": cube, "owner": owner,
                       "crawford": crawford}  # fmt: skip
                out.append(row)
                if kind == "double":
                    last = row
            elif kind == "double":
                last = None
            if kind in ("take", "drop") and last is not None:
                out.append(dict(last, kind="take", player=who,
                                taken="take" if kind == "take" else "pass"))  # fmt: skip
            if kind == "take":
                cube, owner = 2 * cube, who
    return out


_HINTS = r"""
import gnubg, json
for cmd in ("set player 0 human", "set player 1 human",
            "set evaluation chequerplay evaluation plies 0", "new match 7"):
    gnubg.command(cmd)
out = []
for pid, d1, d2 in json.load(open({job!r})):
    gnubg.command("set board " + pid)
    gnubg.command("set dice %d %d" % (d1, d2))
    h = gnubg.hint(999) or {{"hint": []}}
    out.append([[x["move"], list(x["details"]["probs"])] for x in h["hint"]])
json.dump(out, open({out!r}, "w"))
"""


def gnubg_hints(
    peer: GnubgPeer, items: list[tuple[str, int, int]]
) -> list[list[tuple[str, list[float]]]]:
    """gnubg's 0-ply ``hint`` of each (Position ID, die, die): every legal play as gnubg
    writes it with the mover's five outputs after it (an empty list: no legal play)."""
    with tempfile.TemporaryDirectory(prefix="gnubg-hints-") as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job.write_text(json.dumps(items))
        peer.run_python(_HINTS.format(job=str(job), out=str(out)), timeout=1800)
        return [[(m, p) for m, p in plays] for plays in json.loads(out.read_text())]


def statistics_block(text: str) -> list[str]:
    """The lines of gnubg's last ``show statistics`` table in ``text`` (trailing blanks
    and blank lines at the end removed)."""
    lines = [line.rstrip() for line in text.splitlines()]
    start = max(i for i, line in enumerate(lines) if line.startswith("Player   "))
    block = lines[start:]
    while block and not block[-1]:
        block.pop()
    return block
