"""Jellyfish/gnubg ``.mat`` match files: reader (every dialect below) and writer (gnubg's
export style).

The format has no formal definition; this follows gnubg's importer (``import.c``) and the
files real programs write:

- A header of comments (``;`` or ``#``), tags written ``; [Key "Value"]``, then
  ``N point match`` (0 for a money session).
- Each game: ``Game N``, a score line ``name : points   name : points`` (player 0 on the
  left), numbered lines ``k) left  right`` holding one turn of each player, and a
  ``Wins N point(s)`` line in the winner's column.
- A turn is ``dd: moves`` (``bar/23 6/off 8/5*(2) 13/7/1``; Backgammon Galaxy and Studio
  write ``25/20`` and ``5/0`` and no hit marks; a blank play is a dance or a forced play;
  XG writes ``Cannot Move`` for a dance and ``???`` for a roll its player resigned after),
  or a cube action: ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``.
- ``Wins N points`` with no play ending the game is a resignation (gnubg's reading);
  Galaxy writes ``Losses N point`` for the resigning side, OpenGammon ``Resigned Game``.
- Games that start after the match was decided are ignored, as gnubg does.

Columns: two entries on a line are told apart by a run of two or more spaces; a single
entry starting beyond column 15 is the right player's (gnubg's rule).
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from mathbg.errors import InvalidNotationError, MatchFileError
from mathbg.rules.notation import parse_notation
from mathbg.rules.record import (
    Beaver,
    Double,
    GameDraft,
    MatchRecord,
    MatchRules,
    Move,
    Pass,
    Take,
    assemble_match,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import Action, Moves

__all__ = ["dumps", "parse_moves", "read"]

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_TAG = re.compile(r'^\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$')
_SCORE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)(.*)$")
_SEGMENT = re.compile(r"\S+(?: \S+)*")
_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")
_BARE_ROLL = re.compile(r"^[1-6][1-6]:$")
_ENTRY_START = re.compile(
    r"^(?:[1-6][1-6]:|doubles?\b|beavers?\b|raccoons?\b|takes?\b|accepts?\b|drops?\b|"
    r"pass(?:es)?\b|rejects?\b|wins?\b|loses\b|losses\b|resign)",
    re.IGNORECASE,
)
# an entry glued to the previous one by a single space (a long left column)
_GLUED = re.compile(
    r" (?=[1-6][1-6]:|(?:doubles?|beavers?|raccoons?|takes?|accepts?|drops?|passes|rejects?|"
    r"wins?|loses|losses)\b)",
    re.IGNORECASE,
)
_SIMPLE_STEP = re.compile(r"^(\d{1,2}|bar)/(\d{1,2}|off)\*?$", re.IGNORECASE)
_CUBE_VALUE = re.compile(r"=>\s*(\d+)")
_POINTS = re.compile(r"^\w+\s+(\d+)\s+points?\b", re.IGNORECASE)

#: Tags that set the rules (taken out of the record's tags, written back from its rules).
_RULE_TAGS = ("Crawford", "Jacoby", "Beaver", "CubeLimit", "Variation")


def parse_moves(text: str) -> Moves:
    """The checker steps of a play written in any .mat dialect, as (from, to) pairs in
    the mover's numbering (25 = bar, 0 = off): ``13/7/1`` gives two steps, ``(2)``
    repeats, ``*`` marks are dropped (the replay finds the hits).

    Raises
    ------
    InvalidNotationError
    """
    fast: list[tuple[int, int]] = []
    for token in text.split():
        m = _SIMPLE_STEP.match(token)
        if m is None:
            break
        a, t = m.group(1), m.group(2)
        fast.append((25 if a.lower() == "bar" else int(a), 0 if t.lower() == "off" else int(t)))
    else:
        if all(0 < a <= 25 and 0 <= t < a and t <= 24 for a, t in fast):
            return tuple(fast)
    parsed = parse_notation(text)
    steps: list[tuple[int, int]] = []
    for points, _, count in parsed.paths:
        for _ in range(count):
            steps.extend(itertools.pairwise(points))
    return tuple(steps)


class _Reader:
    def __init__(self, text: str, name: str | None):
        self.name = name
        self.lines = text.lstrip("\ufeff").splitlines()
        self.tags: dict[str, str] = {}
        self.tag_lines: dict[str, int] = {}
        self.length: int | None = None
        self.players: tuple[str, str] | None = None
        self.drafts: list[GameDraft] = []
        self.from_losses: set[int] = set()

    def error(self, message: str, line: int | None) -> MatchFileError:
        return MatchFileError(message, self.name, line)

    # ------------------------------------------------------------------ header
    def header(self) -> int:
        for i, raw in enumerate(self.lines):
            n = i + 1
            s = raw.strip()
            if not s:
                continue
            if s[0] in ";#":
                m = _TAG.match(s[1:].strip())
                if m:
                    self.tags[m.group(1)] = m.group(2)
                    self.tag_lines[m.group(1)] = n
                continue
            m = _LENGTH.match(s)
            if m:
                self.length = int(m.group(1))
                return i + 1
            raise self.error(
                f"not a .mat match file: expected tags or 'N point match', found {s[:40]!r}", n)
        raise self.error("not a .mat match file: no 'N point match' line", None)

    def rules(self) -> MatchRules:
        def flag(key: str, default: bool) -> bool:
            v = self.tags.get(key)
            if v is None:
                return default
            if v.strip().lower() in ("on", "yes", "true", "1"):
                return True
            if v.strip().lower() in ("off", "no", "false", "0"):
                return False
            raise self.error(f"tag {key} must be On or Off, not {v!r}", self.tag_lines[key])

        limit: int | None = None
        if "CubeLimit" in self.tags:
            v = self.tags["CubeLimit"].strip()
            if not v.isdigit() or int(v) < 1 or int(v) & (int(v) - 1):
                raise self.error(f"CubeLimit {v!r} is not a power of two",
                                 self.tag_lines["CubeLimit"])
            limit = int(v)
        variant = self.tags.get("Variation", "Backgammon").strip()
        if variant.lower() not in ("backgammon", "standard"):
            raise self.error(f"variation {variant!r}: only standard backgammon is replayed",
                             self.tag_lines.get("Variation"))
        return MatchRules(
            crawford=flag("Crawford", True) and bool(self.length),
            jacoby=flag("Jacoby", False),
            beavers=flag("Beaver", False),
            cube_limit=limit,
        )

    # ------------------------------------------------------------------ games
    def games(self, start: int) -> None:
        draft: GameDraft | None = None
        expect_score = False
        for i in range(start, len(self.lines)):
            n = i + 1
            raw = self.lines[i].rstrip()
            s = raw.strip()
            if not s:
                continue
            m = _GAME.match(s)
            if m:
                draft = GameDraft(number=int(m.group(1)), score=(0, 0))
                self.drafts.append(draft)
                expect_score = True
                continue
            if draft is None:
                if s[0] in ";#":
                    continue
                raise self.error(f"expected 'Game 1', found {s[:40]!r}", n)
            if expect_score:
                sm = _SCORE.match(s)
                if not sm:
                    raise self.error(f"expected the score line 'name : n   name : n', found "
                                     f"{s[:40]!r}", n)
                names = (sm.group(1), sm.group(3))
                if self.players is None:
                    self.players = names
                elif names != self.players:
                    raise self.error(f"the players change: {names[0]} and {names[1]}, not "
                                     f"{self.players[0]} and {self.players[1]}", n)
                draft.score = (int(sm.group(2)), int(sm.group(4)))
                draft.score_line = n
                expect_score = False
                continue
            if s[0] in ";#":
                if s[1:].strip().lower().startswith("set pos"):
                    raise self.error("XG's 'Set Pos' (a game from a set-up position) is not "
                                     "supported", n)
                continue
            self.line(raw, n, draft)
        if expect_score:
            raise self.error("the file ends after a game header (truncated?)", len(self.lines))

    def line(self, raw: str, n: int, draft: GameDraft) -> None:
        m = _NUMBERED.match(raw)
        if m:
            offset = m.start(2)
            rest = m.group(2)
        else:
            offset, rest = 0, raw
        segs = []
        for x in _SEGMENT.finditer(rest):
            col = x.start() + offset
            for part in _GLUED.split(x.group()):
                segs.append((col, part))
                col += len(part) + 1
        merged: list[tuple[int, str]] = []
        for col, text in segs:
            if merged and not _ENTRY_START.match(text) and _BARE_ROLL.match(merged[-1][1]):
                pcol, ptext = merged[-1]
                merged[-1] = (pcol, f"{ptext} {text}")
            else:
                merged.append((col, text))
        if len(merged) > 2:
            raise self.error(f"cannot tell the two players' columns apart in {raw.strip()!r}",
                             n)
        if len(merged) == 2:
            entries = [(0, merged[0][1]), (1, merged[1][1])]
        elif len(merged) == 1:
            entries = [(1 if merged[0][0] > 15 else 0, merged[0][1])]
        else:
            entries = []
        for player, text in entries:
            self.entry(text, player, n, draft)

    def entry(self, text: str, player: int, n: int, draft: GameDraft) -> None:
        m = _ROLL.match(text)
        low = text.lower()
        if m:
            dice = (int(m.group(1)), int(m.group(2)))
            body = m.group(3).strip()
            lowb = body.lower()
            moves: Moves = ()
            if body.startswith("?") or lowb.startswith(("cannot move", "can't move")):
                moves = ()
            elif lowb.startswith("illegal play"):
                raise self.error("'Illegal play' records (Snowie) are not supported", n)
            elif body:
                try:
                    moves = parse_moves(body)
                except InvalidNotationError as exc:
                    raise self.error(f"cannot read the play {body!r}: {exc}", n) from None
            self._implicit_take(player, n, draft)
            draft.add(Move(player, dice, moves), n)
            return
        if low.startswith(("double", "beaver")):
            vm = _CUBE_VALUE.search(text)
            if vm:
                value = int(vm.group(1))
            else:
                value = 2 * self._cube_before(draft, beaver=low.startswith("beaver"))
            if value < 2 or value & (value - 1):
                raise self.error(f"cube value {value} is not a power of two", n)
            if low.startswith("beaver"):
                draft.add(Beaver(player, value), n)
            else:
                self._implicit_take(player, n, draft)
                draft.add(Double(player, value), n)
            return
        if low.startswith("raccoon"):
            raise self.error("raccoons are not supported", n)
        if low.startswith(("take", "accept")):
            draft.add(Take(player), n)
            return
        if low.startswith(("drop", "pass", "reject")):
            draft.add(Pass(player), n)
            return
        if low.startswith("win"):
            pm = _POINTS.match(text)
            if not pm:
                raise self.error(f"cannot read the result {text!r}", n)
            if (draft.wins is not None and draft.wins != (player, int(pm.group(1)))
                    and draft.wins_line not in self.from_losses):
                raise self.error("a second, different result for the game", n)
            draft.wins, draft.wins_line = (player, int(pm.group(1))), n
            return
        if low.startswith(("loses", "losses")):
            pm = _POINTS.match(text)
            if not pm:
                raise self.error(f"cannot read the result {text!r}", n)
            # the resigning side's line; its column is not reliable (Galaxy writes it at
            # the start of a line), so a Wins line, before or after it, decides the winner
            draft.resigned = True
            if draft.wins is None:
                draft.wins, draft.wins_line = (1 - player, int(pm.group(1))), n
                self.from_losses.add(n)
            return
        if low.startswith("resign"):
            draft.resigned = True
            return
        raise self.error(f"unknown entry {text!r} (not a roll, cube action or result)", n)

    @staticmethod
    def _cube_before(draft: GameDraft, beaver: bool) -> int:
        cube, pending = 1, 0
        for a in draft.actions:
            if isinstance(a, Double | Beaver):
                pending = a.value
            elif isinstance(a, Take):
                cube = pending
        return pending if beaver else cube

    @staticmethod
    def _implicit_take(player: int, n: int, draft: GameDraft) -> None:
        # after a beaver, the original doubler's next roll or double means they took it
        if draft.actions and isinstance(draft.actions[-1], Beaver):
            if draft.actions[-1].player != player:
                draft.add(Take(player), n)


def read(text: str, *, name: str | None = None, check: bool = True) -> MatchRecord:
    """Read a ``.mat`` file's text (see the module docstring)."""
    r = _Reader(text, name)
    start = r.header()
    r.games(start)
    if not r.drafts:
        raise r.error("no games in the match file", None)
    assert r.length is not None and r.players is not None
    rules = r.rules()
    tags = {k: v for k, v in r.tags.items() if k not in _RULE_TAGS}
    return assemble_match(r.length, r.players, r.drafts, rules=rules, tags=tags, source=name,
                          check=check)


# ----------------------------------------------------------------------------- writing


def _point(p: int) -> str:
    return str(p)


def _move_text(cells: bytes, moves: Moves) -> str:
    """gnubg's export style: one step per die, 25 for the bar, 0 for off, ``*`` hits."""
    b = bytearray(cells)
    out = []
    for a, t in moves:
        hit = False
        b[25 + (24 if a == 25 else a - 1)] -= 1
        if t:
            if b[24 - t] == 1:
                hit = True
                b[24 - t] = 0
                b[24] += 1
            b[25 + t - 1] += 1
        out.append(f"{_point(a)}/{_point(t)}{'*' if hit else ''}")
    return " ".join(out)


def _entry(action: Action, cells: bytes | None) -> str:
    if isinstance(action, Move):
        d1, d2 = action.dice
        moves = _move_text(cells, action.moves) if cells is not None else ""
        return f"{d1}{d2}: {moves}".rstrip() + " " if moves else f"{d1}{d2}:"
    if isinstance(action, Double):
        return f" Doubles => {action.value}"
    if isinstance(action, Beaver):
        return f" Beavers => {action.value}"
    if isinstance(action, Take):
        return " Takes"
    if isinstance(action, Pass):
        return " Drops"
    return ""  # resignations are written as the result line only, as gnubg does


def dumps(record: MatchRecord) -> str:
    """The record as ``.mat`` text in gnubg's export style (tags as ``; [Key "Value"]``)."""
    from mathbg._files import marker
    from mathbg.rules.record import Accept, Reject, Resign, replay

    out: list[str] = [f"; written by {marker()}"]
    tags = dict(record.tags)
    rules = record.rules
    for key, value in tags.items():
        out.append(f'; [{key} "{value}"]')
    out.append('; [Variation "Backgammon"]')
    if record.length:
        out.append(f'; [Crawford "{"On" if rules.crawford else "Off"}"]')
    else:
        out.append(f'; [Jacoby "{"On" if rules.jacoby else "Off"}"]')
        out.append(f'; [Beaver "{"On" if rules.beavers else "Off"}"]')
    if rules.cube_limit is not None:
        out.append(f'; [CubeLimit "{rules.cube_limit}"]')
    out.append("")
    out.append(f" {record.length} point match")
    out.append("")
    cells_of: dict[tuple[int, int], bytes] = {}
    for d in replay(record, check=False):
        if isinstance(d.action, Move):
            cells_of[(d.game, d.index)] = d.position.cells
    p0, p1 = record.players
    for g in record.games:
        out.append(f" Game {g.number}")
        out.append(f" {p0} : {g.score[0]}".ljust(32) + f"{p1} : {g.score[1]}")
        rows: dict[int, list[str]] = {}
        slot = 0
        for i, a in enumerate(g.actions):
            if isinstance(a, Resign | Accept | Reject):
                continue
            if slot % 2 != a.player:
                slot += 1
            rows.setdefault(slot // 2 + 1, ["", ""])[a.player] = _entry(
                a, cells_of.get((g.number, i)))
            slot += 1
        wins_line = None
        if g.result is not None:
            r = g.result
            text = f"Wins {r.points} point{'s' if r.points != 1 else ''}"
            if r.winner == 1 and slot % 2 == 1:
                # the winner's next turn is on the last line: gnubg writes it there
                rows[slot // 2 + 1][1] = " " + text
            else:
                wins_line = (" " * 34 if r.winner == 1 else " " * 6) + text
        for k in sorted(rows):
            left, right = rows[k]
            line = f"{k:3d}) " + (left.ljust(28) + right if right else left)
            out.append(line.rstrip() if not right else line)
        if wins_line is not None:
            out.append(wins_line)
        out.append("")
    return "\n".join(out) + "\n"
