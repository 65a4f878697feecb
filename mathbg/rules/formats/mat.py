"""Jellyfish/gnubg ``.mat`` match files: reader (every dialect below) and writer (gnubg's
export style).

The format has no formal definition; this follows gnubg's importer (``import.c``) and the
files real programs write:

- A header of comments (``;`` or ``#``), tags written ``; [Key "Value"]``, then
  ``N point match`` (0 for a money session; at most 64, as gnubg).
- Each game: ``Game N``, a score line ``name : points   name : points`` (player 0 on the
  left; an empty name is the side's number), numbered lines ``k) left  right`` holding
  one turn of each player, and a ``Wins N point(s)`` line in the winner's column
  (``Wins N point and the match`` when it won the match).
- A turn is ``dd: moves`` (``bar/23 6/off 8/5*(2) 13/7/1``; Backgammon Galaxy and Studio
  write ``25/20`` and ``5/0`` and no hit marks; a blank play is a dance or a forced play;
  XG writes ``Cannot Move`` for a dance and ``???`` for a roll its player resigned after),
  or a cube action: ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``.
- ``Wins N points`` with no play ending the game is a resignation, its level read from
  the points and the cube as gnubg reads it; Galaxy writes ``Losses N point`` for the
  resigning side, OpenGammon ``Resigned Game``. Nothing but results follows a result.
- The variation tag (``; [Variation "NackGammon"]``) names the rule set
  (:data:`mathbg.rules.formats.fields.VARIATIONS`).
- Games that start after the match was decided are ignored, as gnubg does.

Columns: two entries on a line are told apart by a run of two or more spaces; a single
entry starting beyond column 15 is the right player's (gnubg's rule).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from mathbg.errors import InvalidNotationError, InvalidParameterError, MatchFileError
from mathbg.rules.formats.fields import (
    MAX_CUBE,
    MAX_GAMES,
    MAX_MATCH_LENGTH,
    MAX_POINTS,
    VARIATIONS,
    cube_value,
    player_name,
    read_number,
    text_field,
    variation_of_mat,
    writable_text,
    written_points,
)
from mathbg.rules.notation import parse_notation
from mathbg.rules.record import Beaver, Double, GameDraft, MatchBuilder, Move, Pass, Take

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import Action, MatchRecord, MatchRules, Moves

__all__ = ["MAX_LINE", "parse_moves", "read", "render"]

#: Longest line read (characters): real lines are under a hundred.
MAX_LINE = 1 << 16

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LENGTH = re.compile(r"^([+-]?[0-9]+)\s+point\s+match$", re.IGNORECASE)
_GAME = re.compile(r"^Game\s+([+-]?[0-9]+)$", re.IGNORECASE)
_SCORE_LEFT = re.compile(r"^(.*?):\s*([+-]?[0-9]+)\s+(.*)$")
_SCORE_RIGHT = re.compile(r"^\s*([+-]?[0-9]+)\s*$")
_NUMBERED = re.compile(r"^\s*\d+\)(.*)$")
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
_CUBE_VALUE = re.compile(r"=>\s*([+-]?[0-9]+)")
_POINTS = re.compile(r"^\w+\s+([+-]?[0-9]+)\s+points?\b(.*)$", re.IGNORECASE)
_AND_THE_MATCH = re.compile(r"\band\s+the\s+match\b", re.IGNORECASE)
_LONG_NUMBER = re.compile(r"[0-9]{3,}")

#: Tags that set the rules (taken out of the record's tags, written back from its rules).
_RULE_TAGS = ("Crawford", "Jacoby", "Beaver", "CubeLimit", "Variation")
#: Longest play text read (a play of four single-die steps is under 40 characters).
_MAX_PLAY = 120


def parse_moves(text: str) -> Moves:
    """The checker steps of a play written in any .mat dialect, as (from, to) pairs in
    the mover's numbering (25 = bar, 0 = off): ``13/7/1`` gives two steps, ``(2)``
    repeats, ``*`` marks are dropped (the replay finds the hits).

    Raises
    ------
    InvalidNotationError
        For text that is no play (a number of three or more digits, more than four
        checker steps, ...).

    Examples
    --------
    >>> parse_moves("13/7/1 6/off(2)")
    ((13, 7), (7, 1), (6, 0), (6, 0))
    """
    if len(text) > _MAX_PLAY:
        raise InvalidNotationError(f"{len(text)} characters: too long for a play")
    if _LONG_NUMBER.search(text):
        raise InvalidNotationError("a number of three or more digits is no point or count")
    fast: list[tuple[int, int]] = []
    for token in text.split():
        m = _SIMPLE_STEP.match(token)
        if m is None:
            break
        a, t = m.group(1), m.group(2)
        fast.append((25 if a.lower() == "bar" else int(a), 0 if t.lower() == "off" else int(t)))
    else:
        if all(0 < a <= 25 and 0 <= t < a and t <= 24 for a, t in fast):
            return _at_most_four(tuple(fast))
    parsed = parse_notation(text)
    steps: list[tuple[int, int]] = []
    for points, _, count in parsed.paths:
        for _ in range(count):
            steps.extend(itertools.pairwise(points))
    return _at_most_four(tuple(steps))


def _at_most_four(steps: Moves) -> Moves:
    if len(steps) > 4:
        raise InvalidNotationError(f"{len(steps)} checker steps: a roll plays at most four")
    return steps


def _tag(comment: str) -> tuple[str, str] | None:
    """``(key, value)`` of a ``[Key "Value"]`` comment, or None."""
    body = comment.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    inner = body[1:-1].rstrip()
    q = inner.find('"')
    if q < 1 or not inner[q - 1].isspace() or len(inner) < q + 2 or not inner.endswith('"'):
        return None
    key = inner[:q].strip()
    return (key, inner[q + 1 : -1]) if key else None


class _Reader:
    def __init__(self, text: str, name: str | None):
        self.name = name
        self.lines = _LINE_BREAK.split(text.lstrip("\ufeff"))
        self.tags: dict[str, str] = {}
        self.tag_lines: dict[str, int] = {}
        self.length = 0
        self.players: tuple[str, str] | None = None
        self.from_losses: set[int] = set()
        self.result_line: int | None = None  # the line of the game's first result
        self.cube = 1  # the game's cube value, and the value on offer (for a bare
        self.offered = 1  # "Doubles" or "Beavers" line: twice the one before)

    def error(self, message: str, line: int | None) -> MatchFileError:
        return MatchFileError(message, self.name, line)

    def line_text(self, i: int) -> str:
        raw = self.lines[i]
        if len(raw) > MAX_LINE:
            raise self.error(f"a line of {len(raw)} characters: a .mat line is at most "
                             f"{MAX_LINE}", i + 1)
        return raw

    # ------------------------------------------------------------------ header
    def header(self) -> int:
        for i in range(len(self.lines)):
            n = i + 1
            s = self.line_text(i).strip()
            if not s:
                continue
            if s[0] in ";#":
                tag = _tag(s[1:])
                if tag:
                    key = text_field(tag[0], "a tag's name", source=self.name, line=n)
                    value = tag[1]  # a rule's value is read by its own bounded reader
                    if key not in _RULE_TAGS:
                        value = text_field(value, f"the tag {key[:40]!r}", source=self.name,
                                           line=n)
                    self.tags[key] = value
                    self.tag_lines[key] = n
                continue
            m = _LENGTH.match(s)
            if m:
                self.length = read_number(m.group(1), "the match length", 0, MAX_MATCH_LENGTH,
                                          source=self.name, line=n)
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
            raise self.error(f"tag {key} must be On or Off, not {v[:40]!r}", self.tag_lines[key])

        limit: int | None = None
        if "CubeLimit" in self.tags:
            limit = cube_value(self.tags["CubeLimit"], "the cube limit", MAX_CUBE,
                               source=self.name, line=self.tag_lines["CubeLimit"], lo=1)
        from mathbg.rules.record import MatchRules

        return MatchRules(
            crawford=flag("Crawford", True) and bool(self.length),
            jacoby=flag("Jacoby", False),
            beavers=flag("Beaver", False),
            cube_limit=limit,
            variant=self.variant(),
        )

    def variant(self) -> str:
        name = self.tags.get("Variation", "Backgammon").strip()
        found = variation_of_mat(name)
        line = self.tag_lines.get("Variation")
        if found is None:
            raise self.error(f"variation {name[:40]!r}: not a game mathbg or gnubg plays "
                             "(Backgammon, NackGammon, HyperGammon (1), (2), (3))", line)
        from mathbg.errors import UnknownVariantError
        from mathbg.rules.ruleset import get_ruleset

        try:
            get_ruleset(found.ruleset)
        except UnknownVariantError:
            raise self.error(f"variation {name!r} ({found.ruleset}) is not supported yet",
                             line) from None
        return found.ruleset

    # ------------------------------------------------------------------ games
    def games(self, start: int) -> Iterator[GameDraft]:
        """The games, each yielded when the next begins (or the file ends)."""
        draft: GameDraft | None = None
        expect_score = False
        for i in range(start, len(self.lines)):
            n = i + 1
            raw = self.line_text(i).rstrip()
            s = raw.strip()
            if not s:
                continue
            m = _GAME.match(s)
            if m:
                if expect_score:
                    assert draft is not None
                    raise self.error(f"expected the score line of game {draft.number}, found "
                                     f"{s[:40]!r}", n)
                if draft is not None:
                    yield draft
                number = read_number(m.group(1), "the game number", 1, MAX_GAMES,
                                     source=self.name, line=n)
                draft = GameDraft(number=number, score=(0, 0))
                self.result_line = None
                self.cube = self.offered = 1
                expect_score = True
                continue
            if draft is None:
                if s[0] in ";#":
                    continue
                raise self.error(f"expected 'Game 1', found {s[:40]!r}", n)
            if expect_score:
                self.score_line(s, n, draft)
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
        if draft is not None:
            yield draft

    def score_line(self, s: str, n: int, draft: GameDraft) -> None:
        left, colon, right = s.rpartition(":")
        lm = _SCORE_LEFT.match(left) if colon else None
        rm = _SCORE_RIGHT.match(right) if lm else None
        if lm is None or rm is None:
            raise self.error(f"expected the score line 'name : n   name : n', found "
                             f"{s[:40]!r}", n)
        names = (self.name_of(lm.group(1), 0, n), self.name_of(lm.group(3), 1, n))
        if self.players is None:
            self.players = names
        elif names != self.players:
            raise self.error(f"the players change: {names[0]} and {names[1]}, not "
                             f"{self.players[0]} and {self.players[1]}", n)
        top = self.length or MAX_POINTS
        draft.score = tuple(  # type: ignore[assignment]
            read_number(v, f"{who}'s score", 0, top, source=self.name, line=n)
            for v, who in ((lm.group(2), names[0]), (rm.group(1), names[1])))
        draft.score_line = n

    def name_of(self, text: str, side: int, n: int) -> str:
        """A score line's name; an empty one is the ``Player N`` tag's, or the side's
        number."""
        if text.strip():
            return player_name(text, side, source=self.name, line=n)
        return player_name(self.tags.get(f"Player {side + 1}", ""), side)

    def line(self, raw: str, n: int, draft: GameDraft) -> None:
        m = _NUMBERED.match(raw)
        if m:
            offset = m.start(1)
            rest = m.group(1)
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
            raise self.error(f"cannot tell the two players' columns apart in "
                             f"{raw.strip()[:60]!r}", n)
        if len(merged) == 2:
            entries = [(0, merged[0][1]), (1, merged[1][1])]
        elif len(merged) == 1:
            entries = [(1 if merged[0][0] > 15 else 0, merged[0][1])]
        else:
            entries = []
        for player, text in entries:
            self.entry(text, player, n, draft)

    def action(self, draft: GameDraft, action: Action, n: int) -> None:
        """Add a play or cube action; none may follow the game's result."""
        if self.result_line is not None:
            raise self.error(
                f"game {draft.number}: a {'roll' if isinstance(action, Move) else 'cube action'}"
                f" after the game's result (line {self.result_line}): a result in the middle "
                "of a game", n)
        draft.add(action, n)

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
                    raise self.error(f"cannot read the play {body[:40]!r}: {exc}", n) from None
            self._implicit_take(player, n, draft)
            self.action(draft, Move(player, dice, moves), n)
            return
        if low.startswith(("double", "beaver")):
            beaver = low.startswith("beaver")
            vm = _CUBE_VALUE.search(text)
            if vm:
                value = cube_value(vm.group(1), "the cube value", MAX_CUBE, source=self.name,
                                   line=n)
            else:  # gnubg writes no value after a beaver: twice what is on offer
                value = min(2 * (self.offered if beaver else self.cube), 2 * MAX_CUBE)
            if not beaver:
                self._implicit_take(player, n, draft)
            self.action(draft, (Beaver if beaver else Double)(player, value), n)
            self.offered = value
            return
        if low.startswith("raccoon"):
            raise self.error("raccoons are not supported", n)
        if low.startswith(("take", "accept")):
            self.action(draft, Take(player), n)
            self.cube = self.offered
            return
        if low.startswith(("drop", "pass", "reject")):
            self.action(draft, Pass(player), n)
            return
        if low.startswith("win"):
            points, rest = self._points(text, n)
            if (draft.wins is not None and draft.wins != (player, points)
                    and draft.wins_line not in self.from_losses):
                raise self.error("a second, different result for the game", n)
            draft.wins, draft.wins_line = (player, points), n
            draft.ends_match = draft.ends_match or bool(_AND_THE_MATCH.search(rest))
            self.result_line = self.result_line or n
            return
        if low.startswith(("loses", "losses")):
            points, _ = self._points(text, n)
            # the resigning side's line; its column is not reliable (Galaxy writes it at
            # the start of a line), so a Wins line, before or after it, decides the winner
            draft.resigned = True
            if draft.wins is None:
                draft.wins, draft.wins_line = (1 - player, points), n
                self.from_losses.add(n)
            self.result_line = self.result_line or n
            return
        if low.startswith("resign"):
            draft.resigned = True
            return
        raise self.error(f"unknown entry {text[:40]!r} (not a roll, cube action or result)", n)

    def _points(self, text: str, n: int) -> tuple[int, str]:
        pm = _POINTS.match(text)
        if not pm:
            raise self.error(f"cannot read the result {text[:40]!r}", n)
        return read_number(pm.group(1), "the number of points won", 1, MAX_POINTS,
                           source=self.name, line=n), pm.group(2)

    def _implicit_take(self, player: int, n: int, draft: GameDraft) -> None:
        # after a beaver, the original doubler's next roll or double means they took it
        if draft.actions and isinstance(draft.actions[-1], Beaver):
            if draft.actions[-1].player != player:
                self.action(draft, Take(player), n)
                self.cube = self.offered


def read(text: str, *, name: str | None = None, check: bool = True) -> MatchRecord:
    """Read a ``.mat`` file's text (see the module docstring), refusing it at its first
    error: each game is replayed as soon as it is read."""
    r = _Reader(text, name)
    start = r.header()
    builder = MatchBuilder(r.length, rules=r.rules(), source=name, check=check)
    for draft in r.games(start):
        builder.add(draft)
    if not builder.games:
        raise r.error("no games in the match file", None)
    assert r.players is not None
    tags = {k: v for k, v in r.tags.items() if k not in _RULE_TAGS}
    return builder.finish(r.players, tags=tags)


# ----------------------------------------------------------------------------- writing


def _move_text(moves: Moves, hits: tuple[int, ...]) -> str:
    """gnubg's export style: one step per die, 25 for the bar, 0 for off, ``*`` on the
    first step landing on each point the play hits (the steps as the record has them)."""
    marks = list(hits)
    out = []
    for a, t in moves:
        hit = t in marks
        if hit:
            marks.remove(t)
        out.append(f"{a}/{t}{'*' if hit else ''}")
    return " ".join(out)


def _entry(action: Action, hits: tuple[int, ...]) -> str:
    if isinstance(action, Move):
        d1, d2 = action.dice
        moves = _move_text(action.moves, hits)
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


def _name(text: str, side: int) -> str:
    """A player's name as a .mat file holds it (no colon: it separates the score)."""
    writable_text(text, f"the name of player {side}")
    if ":" in text:
        raise InvalidParameterError(f"the name of player {side} {text[:40]!r} cannot be "
                                    "written in a .mat file (a colon separates a name from "
                                    "its score)")
    return text


def _header(record: MatchRecord) -> list[str]:
    from mathbg._files import marker

    rules = record.rules
    out: list[str] = [f"; written by {marker()}"]
    for key, value in record.tags.items():
        writable_text(key, "the tag name")
        writable_text(value, f"the value of the tag {key[:40]!r}", strip=False)
        if '"' in key or key in _RULE_TAGS:
            raise InvalidParameterError(f"the tag name {key[:40]!r} cannot be written in a "
                                        ".mat file")
        out.append(f'; [{key} "{value}"]')
    variation = VARIATIONS.get(rules.variant)
    if variation is None:
        raise InvalidParameterError(f"a .mat file cannot hold the variant {rules.variant!r}")
    out.append(f'; [Variation "{variation.mat}"]')
    if record.length:
        out.append(f'; [Crawford "{"On" if rules.crawford else "Off"}"]')
    out.append(f'; [Jacoby "{"On" if rules.jacoby else "Off"}"]')
    out.append(f'; [Beaver "{"On" if rules.beavers else "Off"}"]')
    if rules.cube_limit is not None:
        out.append(f'; [CubeLimit "{rules.cube_limit}"]')
    out.append("")
    out.append(f" {record.length} point match")
    out.append("")
    return out


def render(record: MatchRecord) -> str:
    """The record as ``.mat`` text in gnubg's export style (tags as ``; [Key "Value"]``).

    Raises
    ------
    InvalidParameterError
        For a name, tag or variant a .mat file cannot hold.
    """
    from mathbg.rules.record import Accept, Reject, Resign, replay_indexed

    p0, p1 = _name(record.players[0], 0), _name(record.players[1], 1)
    out = _header(record)
    hits_of: dict[tuple[int, int], tuple[int, ...]] = {}
    for gi, d in replay_indexed(record, check=True):  # the legal plays: their hits
        if isinstance(d.action, Move) and d.action.moves and d.play is not None:
            hits_of[(gi, d.index)] = d.play.hits
    for gi, g in enumerate(record.games):
        out.append(f" Game {g.number}")
        left = f" {p0} : {g.score[0]}"
        out.append(left.ljust(32) if len(left) < 30 else left + "    ")
        out[-1] += f"{p1} : {g.score[1]}"
        rows: dict[int, list[str]] = {}
        slot = 0
        for i, a in enumerate(g.actions):
            if isinstance(a, Resign | Accept | Reject):
                continue
            if slot % 2 != a.player:
                slot += 1
            rows.setdefault(slot // 2 + 1, ["", ""])[a.player] = _entry(
                a, hits_of.get((gi, i), ()))
            slot += 1
        wins_line = None
        if g.result is not None:
            r = g.result
            points, won = written_points(record, gi)
            text = (f"Wins {points} point{'s' if points != 1 else ''}"
                    f"{' and the match' if won else ''}")
            if r.winner == 1 and slot % 2 == 1:
                # the winner's next turn is on the last line: gnubg writes it there
                rows[slot // 2 + 1][1] = " " + text
            else:
                wins_line = (" " * 34 if r.winner == 1 else " " * 6) + text
        for k in sorted(rows):
            left_entry, right = rows[k]
            line = f"{k:3d}) " + (left_entry.ljust(28) + right if right else left_entry)
            out.append(line.rstrip() if not right else line)
        if wins_line is not None:
            out.append(wins_line)
        out.append("")
    return "\n".join(out) + "\n"
