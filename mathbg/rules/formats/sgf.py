"""gnubg's ``.sgf`` match files (Smart Game Format, ``GM[6]``): reader and writer.

Facts from gnubg's ``sgf.c`` (written here in our own code):

- A file is a collection of game trees, one per game. The root node holds ``MI`` (match
  information: ``[length:N][game:i][ws:a][bs:b]``, game numbered from 0, ``ws``/``bs``
  the scores of White = player 0 and Black = player 1 before the game), ``PW``/``PB``
  (names), ``RU`` (rules, joined by colons: ``Crawford``, ``CrawfordGame``, ``Jacoby``,
  ``NoCube``, and the variation ``Nackgammon``, ``Hypergammon1``..``3``), ``RE``
  (result: ``W+2``, ``B+1``, ``B+3R`` for a resignation), ``DT``, ``PC``, ``EV``, ``RO``.
  A resignation's ``RE`` holds its value, level times cube, even where the winner needed
  fewer points (gnubg's ``nPoints``): gnubg reads the level back as those points over the
  cube.
- Each later node is one action: ``W[...]`` by player 0 or ``B[...]`` by player 1, with
  ``double``, ``take``, ``drop``, or a move: the two dice then one letter pair per
  checker step. Letters are points of the board seen from player 0: ``a`` is player 0's
  point 1 (player 1's point 24) ... ``x`` player 0's 24; ``y`` is the bar and ``z`` off.
- A beaver is written as a ``double`` by the doubled player (gnubg's ``double`` while
  doubled).
- gnubg 1.07 records a dance twice when it imports a Galaxy match whose loser danced and
  then resigned (``Losses N point``), and saves both nodes: the second is read once, with
  a warning naming its line.

mathbg keeps what gnubg's format has no room for (the cube limit, the beaver rule, the
event tags) in its own root property ``MX`` (``[cube_limit:64][beavers:1][tag:Key=Value]``,
``%`` and ``=`` in a tag's name written ``%25`` and ``%3D``), which gnubg ignores.

The reader is linear in the file's length: one pass of regular expressions over the
text, line numbers from one index of its line breaks, each game replayed as soon as its
tree is read (so a file is refused at its first error).
"""

from __future__ import annotations

import re
import warnings
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mathbg.errors import InvalidParameterError, MatchFileError, MathbgWarning
from mathbg.rules.formats import fields
from mathbg.rules.record import Beaver, Double, GameDraft, MatchBuilder, Move, Pass, Take

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import MatchRecord, MatchRules

__all__ = ["read", "render"]

_WS = re.compile(r"\s*")
_OPENS = re.compile(r"\(+")
_CLOSES = re.compile(r"\)+")
_IDENT = re.compile(r"[A-Za-z]+")
_VALUE = re.compile(r"\[([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.S)
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\n|\r|.)", re.S)
_MOVE = re.compile(r"[1-6][1-6](?:[a-z]{2}){0,4}")
_RESULT = re.compile(r"^([WB])\+([0-9]+)(R?)", re.IGNORECASE)
#: Event tags gnubg keeps in root properties (the MX tags override them).
_TAG_PROPS = (("PC", "Site"), ("EV", "Event"), ("RO", "Round"))
#: ``.mat`` rule tags: never event tags (a file with one in MX is refused).
_RULE_TAGS = ("Crawford", "Jacoby", "Beaver", "CubeLimit", "Variation")


@dataclass
class _Node:
    props: dict[str, list[str]] = field(default_factory=dict)
    line: int = 0


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    return _ESCAPE.sub(lambda m: "" if m.group(1) in ("\n", "\r", "\r\n", "\n\r")
                       else m.group(1), value)


class _Parser:
    """A small SGF parser: the main line of every game tree (variations are skipped),
    without recursion (a tree nested a million deep is read like any other)."""

    def __init__(self, text: str, name: str | None):
        self.text = text
        self.name = name
        self.n = len(text)
        self._breaks: list[int] | None = None

    def line(self, pos: int) -> int:
        if self._breaks is None:  # one index of the line breaks, built on first use
            self._breaks = [m.start() for m in re.finditer("\n", self.text)]
        return bisect_left(self._breaks, pos) + 1

    def error(self, message: str, pos: int) -> MatchFileError:
        return MatchFileError(message, self.name, self.line(pos))

    def skip(self, pos: int) -> int:
        m = _WS.match(self.text, pos)
        assert m is not None
        return m.end()

    def run(self, brackets: re.Pattern[str], pos: int) -> int:
        """The length of the run of one bracket starting at ``pos``."""
        m = brackets.match(self.text, pos)
        assert m is not None
        return m.end() - pos

    def trees(self) -> Iterator[list[_Node]]:
        """The main line of each game tree, yielded as soon as the tree is read."""
        pos = self.skip(0)
        if pos >= self.n:
            raise self.error("no game tree in the SGF file", pos)
        while pos < self.n:
            if self.text[pos] != "(":
                raise self.error(f"expected '(' to open a game tree, found "
                                 f"{self.text[pos:pos + 20]!r}", pos)
            nodes, pos = self.tree(pos)
            yield nodes
            pos = self.skip(pos)

    def tree(self, start: int) -> tuple[list[_Node], int]:
        text = self.text
        nodes: list[_Node] = []
        stack = [[True, False]]  # per open tree: on the main line, has a variation
        pos = start + 1
        while True:
            pos = self.skip(pos)
            if pos >= self.n:
                raise self.error("the file ends inside a game tree (truncated?)", start)
            c = text[pos]
            frame = stack[-1]
            if c == ";":
                if frame[1]:
                    raise self.error("a node after a variation", pos)
                node, pos = self.node(pos)
                if frame[0]:
                    nodes.append(node)
            elif c == "(":
                # a run of k opens k trees, each the first variation of the one before: all
                # on the main line when the first is, all but the last holding a variation
                k = self.run(_OPENS, pos)
                main = frame[0] and not frame[1]
                frame[1] = True
                stack.extend([main, True] for _ in range(k - 1))
                stack.append([main, False])
                pos += k
            elif c == ")":
                k = self.run(_CLOSES, pos)  # a run of k closes ends k trees
                if k >= len(stack):
                    return nodes, pos + len(stack)
                del stack[len(stack) - k:]
                pos += k
            else:
                raise self.error(f"unexpected {c!r} in a game tree", pos)

    def node(self, start: int) -> tuple[_Node, int]:
        text = self.text
        node = _Node(line=self.line(start))
        pos = start + 1
        while True:
            pos = self.skip(pos)
            m = _IDENT.match(text, pos)
            if not m:
                return node, pos
            ident = "".join(ch for ch in m.group() if ch.isupper())
            pos = self.skip(m.end())
            values = []
            while pos < self.n and text[pos] == "[":
                vm = _VALUE.match(text, pos)
                if vm is None:
                    raise self.error("a property value is not closed (truncated?)", pos)
                values.append(_unescape(vm.group(1)))
                pos = self.skip(vm.end())
            if not values:
                raise self.error(f"property {ident or m.group()[:20]} has no value", pos)
            node.props.setdefault(ident, []).extend(values)


def _point(ch: str, player: int, err: MatchFileError) -> int:
    if ch == "y":
        return 25
    if ch == "z":
        return 0
    if "a" <= ch <= "x":
        idx = ord(ch) - ord("a")
        return idx + 1 if player == 0 else 24 - idx
    raise err


def _letter(p: int, player: int) -> str:
    if p == 25:
        return "y"
    if p == 0:
        return "z"
    return chr(ord("a") + p - 1) if player == 0 else chr(ord("a") + 24 - p)


def _tag_name(text: str, decode: bool) -> str:
    if decode:
        return text.replace("%3D", "=").replace("%3d", "=").replace("%25", "%")
    return text.replace("%", "%25").replace("=", "%3D")


@dataclass
class _Root:
    """What a game tree's root says about the match."""

    length: int
    number: int
    score: tuple[int, int]
    players: tuple[str, str]
    rules: MatchRules
    tags: dict[str, str]
    mx_tags: dict[str, str] | None


class _Reading:
    """The interpretation of each game tree (its root, then its actions)."""

    def __init__(self, name: str | None):
        self.name = name
        self.games = 0

    def error(self, message: str, line: int) -> MatchFileError:
        return MatchFileError(message, self.name, line)

    def text(self, text: str, what: str, line: int) -> str:
        return fields.text_field(text, what, source=self.name, line=line)

    def number(self, text: str, what: str, lo: int, hi: int, line: int) -> int:
        return fields.read_number(text, what, lo, hi, source=self.name, line=line)

    def root(self, root: _Node) -> _Root:
        props, line = root.props, root.line
        gm = props.get("GM", ["1"])[0].strip()
        if gm != "6":
            raise self.error(f"GM[{gm[:20]}] is not a backgammon game (GM[6])", line)
        mi: dict[str, str] = {}
        for v in props.get("MI", []):
            k, _, val = v.partition(":")
            mi[k.strip()] = val.strip()
        length = self.number(mi.get("length", "0"), "the match length (MI length)", 0,
                             fields.MAX_MATCH_LENGTH, line)
        number = self.games + 1
        if "game" in mi:
            number = self.number(mi["game"], "the game number (MI game)", 0,
                                 fields.MAX_GAMES - 1, line) + 1
        top = length or fields.MAX_POINTS
        score = (self.number(mi.get("ws", "0"), "White's score (MI ws)", 0, top, line),
                 self.number(mi.get("bs", "0"), "Black's score (MI bs)", 0, top, line))
        players = (fields.player_name(props.get("PW", [""])[0], 0, source=self.name, line=line),
                   fields.player_name(props.get("PB", [""])[0], 1, source=self.name, line=line))
        tags: dict[str, str] = {}
        for prop, key in (*_TAG_PROPS, ("DT", "EventDate")):
            if prop in props:
                value = self.text(props[prop][0], f"{prop}", line)
                tags[key] = value.replace("-", ".") if prop == "DT" else value
        rules, mx_tags = self.rules(props, length, line)
        self.games += 1
        return _Root(length, number, score, players, rules, tags, mx_tags)

    def rules(self, props: dict[str, list[str]], length: int, line: int
              ) -> tuple[MatchRules, dict[str, str] | None]:
        crawford = jacoby = beavers = no_cube = False
        variant = "backgammon"
        for rule in props.get("RU", []):
            for token in (t.strip() for t in rule.split(":")):
                low = token.lower()
                if low == "crawford":
                    crawford = True
                elif low == "jacoby":
                    jacoby = True
                elif low == "nocube":
                    no_cube = True
                elif low in ("crawfordgame", ""):
                    continue
                elif (found := fields.variation_of_rule(token)) is not None:
                    variant = self.registered(found.ruleset, token, line)
                else:
                    raise self.error(f"rules RU[{rule[:40]}]: {token[:20]!r} is not a rule "
                                     "gnubg writes", line)
        cube_limit: int | None = 1 if no_cube else None
        mx_tags: dict[str, str] | None = None
        for v in props.get("MX", []):
            k, _, val = v.partition(":")
            if k == "cube_limit":
                cube_limit = fields.cube_value(val, "the cube limit (MX cube_limit)",
                                               fields.MAX_CUBE, source=self.name, line=line,
                                               lo=1)
            elif k == "beavers":
                beavers = val.strip() == "1"
            elif k == "tag":
                key, _, value = val.partition("=")
                key = _tag_name(self.text(key, "an MX tag's name", line).strip(), decode=True)
                if not key or '"' in key or key in _RULE_TAGS:
                    raise self.error(f"MX tag {key[:40]!r} is not an event tag's name", line)
                if mx_tags is None:
                    mx_tags = {}
                mx_tags[key] = self.text(value, f"the MX tag {key[:40]!r}", line)
        from mathbg.rules.record import MatchRules

        rules = MatchRules(crawford=crawford and bool(length), jacoby=jacoby, beavers=beavers,
                           cube_limit=cube_limit, variant=variant)
        return rules, mx_tags

    def registered(self, ruleset: str, token: str, line: int) -> str:
        from mathbg.errors import UnknownVariantError
        from mathbg.rules.ruleset import get_ruleset

        try:
            get_ruleset(ruleset)
        except UnknownVariantError:
            raise self.error(f"variation {token!r} ({ruleset}) is not supported yet",
                             line) from None
        return ruleset

    def draft(self, tree: list[_Node], root: _Root) -> GameDraft:
        draft = GameDraft(number=root.number, score=root.score, score_line=tree[0].line)
        props = tree[0].props
        if "RE" in props:
            value = props["RE"][0].strip()
            m = _RESULT.match(value)
            if not m:
                raise self.error(f"cannot read the result RE[{value[:20]}]", tree[0].line)
            points = self.number(m.group(2), "the number of points won (RE)", 1, fields.MAX_POINTS,
                                 tree[0].line)
            draft.wins = (0 if m.group(1).upper() == "W" else 1, points)
            draft.wins_line = tree[0].line
            draft.resigned = bool(m.group(3))
        state = _CubeState()
        for node in tree[1:]:
            self.action(node, draft, state)
        return draft

    def action(self, node: _Node, draft: GameDraft, state: _CubeState) -> None:
        for bad_prop in ("AE", "AB", "AW", "PL"):
            if bad_prop in node.props:
                raise self.error(f"{bad_prop}: games from a set-up position are not supported",
                                 node.line)
        who = [k for k in ("W", "B") if k in node.props]
        if not who:
            return
        if len(who) > 1:
            raise self.error("a node with moves of both players", node.line)
        player = 0 if who[0] == "W" else 1
        value = node.props[who[0]][0].strip()
        low = value.lower()
        if low == "double":
            if state.doubler is not None and state.doubler != player:
                state.offered = min(2 * state.offered, 2 * fields.MAX_CUBE)
                draft.add(Beaver(player, state.offered), node.line)
                state.beaver = True
            else:
                state.offered = min(2 * state.cube, 2 * fields.MAX_CUBE)
                draft.add(Double(player, state.offered), node.line)
                state.beaver = False
            state.doubler = player
        elif low == "take":
            draft.add(Take(player), node.line)
            state.cube, state.doubler = state.offered, None
        elif low == "drop":
            draft.add(Pass(player), node.line)
            state.doubler = None
        elif _MOVE.fullmatch(low):
            bad = self.error(f"cannot read the move {value!r}", node.line)
            steps = tuple((_point(low[k], player, bad), _point(low[k + 1], player, bad))
                          for k in range(2, len(low), 2))
            if state.doubler is not None and state.doubler != player and state.beaver:
                # a roll by the beaver's target answers the beaver with a take
                draft.add(Take(player), node.line)
                state.cube, state.doubler = state.offered, None
            move = Move(player, (int(low[0]), int(low[1])), steps)
            if not steps and draft.actions and draft.actions[-1] == move:
                # gnubg 1.07 records a dance twice when it imports a Galaxy match whose
                # loser resigned after dancing ("Losses N point"), and saves both
                warnings.warn(MathbgWarning(str(self.error(
                    f"{who[0]}[{value}]: the same player's dance again, as gnubg writes a "
                    f"dance before a resignation: read once", node.line))), stacklevel=2)
                return
            draft.add(move, node.line)
        else:
            raise self.error(f"unknown action {who[0]}[{value[:20]}]", node.line)


@dataclass
class _CubeState:
    """The cube as a game's nodes move it (gnubg writes no cube values)."""

    cube: int = 1
    offered: int = 1
    doubler: int | None = None  # the author of the double or beaver waiting for an answer
    beaver: bool = False


def read(text: str, *, name: str | None = None, check: bool = True) -> MatchRecord:
    """Read a gnubg ``.sgf`` file's text (see the module docstring)."""
    parser = _Parser(text.lstrip("\ufeff"), name)
    reading = _Reading(name)
    builder: MatchBuilder | None = None
    first: _Root | None = None
    tags: dict[str, str] = {}
    mx_tags: dict[str, str] | None = None
    for tree in parser.trees():
        if not tree:
            continue
        root = reading.root(tree[0])
        if first is None:
            first = root
            builder = MatchBuilder(root.length, rules=root.rules, source=name, check=check)
        elif root.length != first.length:
            raise reading.error(f"the match length changes from {first.length} to "
                                f"{root.length}", tree[0].line)
        elif root.rules != first.rules:
            raise reading.error("the rules change from game to game", tree[0].line)
        for key, value in root.tags.items():
            tags.setdefault(key, value)
        if root.mx_tags is not None:
            mx_tags = {**(mx_tags or {}), **root.mx_tags}
        assert builder is not None
        builder.add(reading.draft(tree, root))
    if builder is None or first is None or not builder.games:
        raise MatchFileError("no backgammon game in the SGF file", name, None)
    return builder.finish(first.players, tags=mx_tags if mx_tags is not None else tags)


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _root_rules(record: MatchRecord, crawford_game: bool) -> list[str]:
    rules = record.rules
    tokens = []
    if rules.cube_limit == 1:
        tokens.append("NoCube")
    if rules.crawford and record.length:
        tokens.append("Crawford")
        if crawford_game:
            tokens.append("CrawfordGame")
    if rules.jacoby:
        tokens.append("Jacoby")
    variation = fields.VARIATIONS.get(rules.variant)
    if variation is None:
        raise InvalidParameterError(f"an .sgf file cannot hold the variant {rules.variant!r}")
    if variation.sgf:
        tokens.append(variation.sgf)
    return [f"RU[{':'.join(tokens)}]"] if tokens else []


def render(record: MatchRecord) -> str:
    """The record as gnubg ``.sgf`` text, one game tree per game.

    Raises
    ------
    InvalidParameterError
        For a name or tag that is not one line of text, or a variant gnubg does not
        play.
    """
    from mathbg._files import marker

    version = marker().split(" ", 1)[1]
    for side, name in enumerate(record.players):
        fields.writable_text(name, f"the name of player {side}")
    for key, value in record.tags.items():
        fields.writable_text(key, "the tag name")
        fields.writable_text(value, f"the value of the tag {key[:40]!r}", strip=False)
    out = []
    rules = record.rules
    p0, p1 = record.players
    for gi, (g, crawford) in enumerate(zip(record.games, record.crawford_games(), strict=True)):
        root = [
            f"(;FF[4]GM[6]CA[UTF-8]AP[mathbg:{version}]",
            f"MI[length:{record.length}][game:{g.number - 1}][ws:{g.score[0]}][bs:{g.score[1]}]",
            f"PW[{_esc(p0)}]PB[{_esc(p1)}]",
        ]
        if gi == 0:
            date = record.tags.get("EventDate")
            if date and re.fullmatch(r"\d{4}\.\d{1,2}\.\d{1,2}", date):
                root.append(f"DT[{date.replace('.', '-')}]")
            for prop, key in _TAG_PROPS:
                if key in record.tags:
                    root.append(f"{prop}[{_esc(record.tags[key])}]")
        root.extend(_root_rules(record, crawford))
        if g.result is not None:
            r = g.result
            points, _ = fields.written_points(record, gi, resignation_value=True)
            root.append(f"RE[{'WB'[r.winner]}+{points}{'R' if r.kind == 'resign' else ''}]")
        mx = []
        if rules.cube_limit is not None:
            mx.append(f"[cube_limit:{rules.cube_limit}]")
        if rules.beavers:
            mx.append("[beavers:1]")
        mx.extend(f"[tag:{_esc(_tag_name(k, decode=False))}={_esc(v)}]"
                  for k, v in record.tags.items())
        if mx:
            root.append("MX" + "".join(mx))
        lines = ["".join(root)]
        for a in g.actions:
            who = "WB"[a.player]
            if isinstance(a, Move):
                steps = "".join(_letter(f, a.player) + _letter(t, a.player) for f, t in a.moves)
                lines.append(f";{who}[{a.dice[0]}{a.dice[1]}{steps}]")
            elif isinstance(a, Double | Beaver):
                lines.append(f";{who}[double]")
            elif isinstance(a, Take):
                lines.append(f";{who}[take]")
            elif isinstance(a, Pass):
                lines.append(f";{who}[drop]")
            # resignations: the result's R says it, as in gnubg's files
        out.append("\n".join(lines) + ")")
    return "\n".join(out) + "\n"
