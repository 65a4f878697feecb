"""An audited match written back as gnubg ``.sgf`` with the analysis in gnubg's own properties.

gnubg 1.07 reads its analysis of a move record from these properties (sgf.c, format
version 3), so it opens the file analysed (its statistics recomputed from them):

``DA[E ver 3 <plies>C 1 0.000000 1 <14 numbers>]``
    the roller's cube analysis before the roll (on a roll, a double, a take or a drop):
    for no double and for double/take, the five cubeless outputs, the cubeless equity and
    the cubeful value (MWC in match play; money: the equity, double/take per the current
    cube);
``A[<i>][<play> E ver 3 <five outputs> <value> <plies>C 0 1 0.000000 1]...``
    the roll's plays (the best first, and the one made), ``i`` the play made; each with
    the mover's outputs after it and its value (EMG; money per unit cube);
``LU[<luck>]``, ``GW``/``GB``
    the roll's luck (EMG) and gnubg's luck marks (``[1]`` lucky or unlucky, ``[2]`` very);
``BM[2]``, ``BM[1]``, ``DO[]``; ``BC[2]``, ``BC[1]``, ``DC[]``
    the play's and the cube decision's skill marks (very bad, bad, doubtful).

Values are written with 9 significant digits (gnubg writes 6 decimals and reads any), so
that gnubg's statistics of the file are the audit's to the digit. The moves and the game
records are mathbg's ``.sgf`` writer's (``MatchRecord.dumps``): each of its nodes gets the
analysis of its record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mathbg.analysis.match_audit.results import AuditedDecision, CheckerDecision

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.match_audit.results import MatchAudit
    from mathbg.rules.record import MatchRecord

__all__ = ["SGF_VERSION", "analysed_sgf"]

#: gnubg's SGF analysis format version (``SGF_FORMAT_VER``).
SGF_VERSION = 3

_SKILL = {"very bad": "2", "bad": "1"}


def _context(plies: int, move: bool) -> str:
    return f"{plies}C {'0 ' if move else ''}1 0.000000 1"


def _num(v: float) -> str:
    """A value with the 9 significant digits that keep a single-precision number exact
    (gnubg writes 6 decimals, and reads any)."""
    return f"{v:.9g}"


def _letter(point: int, player: int) -> str:
    """gnubg's letter of a point (the mover's numbering, 25 the bar, 0 off)."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("a") + 24 - point)


def _cube(d: AuditedDecision, plies: int) -> str:
    v = d.values
    probs = list(v.probabilities) or [0.0] * 5
    nd = [*probs, v.emg[0], v.no_double]
    dt = [*probs, v.emg[1], v.double_take]
    numbers = " ".join(_num(x) for x in (*nd, *dt))
    mark = ""
    if d.mark is not None:
        mark = f"BC[{_SKILL[d.mark]}]" if d.mark in _SKILL else "DC[]"
    return f"DA[E ver {SGF_VERSION} {_context(plies, False)} {numbers}]" + mark


def _plays(record_player: int, p: CheckerDecision, steps: list[tuple[tuple[int, int], ...]],
           plies: int) -> str:  # fmt: skip
    if not p.options:
        return ""
    played = next((i for i, o in enumerate(p.options) if o.play == p.played), 0)
    parts = [f"A[{played}]"]
    for o, st in zip(p.options, steps, strict=True):
        move = "".join(_letter(f, record_player) + _letter(t, record_player) for f, t in st)
        outs = " ".join(_num(x) for x in (*o.probabilities, o.equity))
        parts.append(f"[{move} E ver {SGF_VERSION} {outs} {_context(plies, True)}]")
    parts.append("MR[]")
    return "".join(parts)


def _luck(player: int, p: CheckerDecision) -> str:
    if p.luck_emg is None:
        return ""
    out = f"LU[{_num(p.luck_emg)}]"
    bad = "W" if player else "B"
    good = "B" if player else "W"
    marks = {"very unlucky": f"G{bad}[2]", "unlucky": f"G{bad}[1]", "lucky": f"G{good}[1]",
             "very lucky": f"G{good}[2]"}  # fmt: skip
    return out + marks.get(p.luck_mark or "", "")


def _skill(p: CheckerDecision) -> str:
    if p.mark is None:
        return ""
    return f"BM[{_SKILL[p.mark]}]" if p.mark in _SKILL else "DO[]"


def analysed_sgf(record: MatchRecord, audit: MatchAudit) -> str:
    """The match as gnubg ``.sgf`` text with the audit's analysis (see the module notes).

    Parameters
    ----------
    record : MatchRecord
        The match audited.
    audit : MatchAudit
        Its audit (every player's decisions: not filtered by player).

    Returns
    -------
    str

    Examples
    --------
    >>> from mathbg.analysis import audit, get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
    >>> m = audit(example_match(), engine=given, exact=False).matches[0]
    >>> text = analysed_sgf(example_match(), m)
    >>> text.count("MR[]") == len(m.plays), text.count("DA[E ver 3") == len(m.decisions)
    (True, True)
    """
    from mathbg.rules.formats import render_match
    from mathbg.rules.ids import parse_id
    from mathbg.rules.record import Beaver, Double, Move, Pass, Take

    plies = audit.engine.plies or 0
    plays = {(p.game, p.move, p.player): p for p in audit.plays}
    rolls = {(d.game, d.move, d.player): d for d in audit.decisions if d.taken == "no double"}
    answers = [d for d in audit.decisions if d.taken != "no double"]
    games = render_match(record, "sgf").rstrip("\n").split("\n")
    out, g = [], 0
    queue = list(answers)
    actions: list[object] = []
    ai = 0
    for line in games:
        if line.startswith("(;"):
            g += 1
            actions = [a for a in record.games[g - 1].actions
                       if isinstance(a, (Move, Double, Beaver, Take, Pass))]  # fmt: skip
            ai = 0
            out.append(line)
            continue
        a = actions[ai]
        ai += 1
        extra = ""
        name = record.players[a.player]  # type: ignore[attr-defined]
        move_no = _move_number(record, g, ai - 1)
        if isinstance(a, Move):
            roll = rolls.get((g, move_no, name))
            if roll is not None:
                extra += _cube(roll, plies)
            p = plays.get((g, move_no, name))
            if p is not None:
                pos, _ = parse_id(p.position_id)
                legal = pos.legal_plays(p.dice) if p.plays else None
                steps = [legal.parse(o.play).moves if legal is not None and o.play else ()
                         for o in p.options]  # fmt: skip
                extra += _plays(a.player, p, steps, plies) + _luck(a.player, p) + _skill(p)
        elif queue and queue[0].game == g and queue[0].player == name:
            extra += _cube(queue.pop(0), plies)
        body, tail = (line[:-1], ")") if line.endswith(")") else (line, "")
        out.append(body + extra + tail)
    return "\n".join(out) + "\n"


def _move_number(record: MatchRecord, game: int, index: int) -> int:
    """The ``.mat`` move number of a game's ``index``-th Move/Double/Take/Pass action (as
    the replay numbers it: a line holds a turn of each player)."""
    from mathbg.rules.record import Beaver, Double, Move, Pass, Take

    slot, k = 0, -1
    for a in record.games[game - 1].actions:
        if slot % 2 != a.player:
            slot += 1
        number = slot // 2 + 1
        slot += 1
        if isinstance(a, (Move, Double, Beaver, Take, Pass)):
            k += 1
            if k == index:
                return number
    return -1
