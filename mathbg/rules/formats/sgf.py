"""gnubg's ``.sgf`` match files (Smart Game Format, ``GM[6]``): reader and writer.

Facts from gnubg's ``sgf.c`` (written here in our own code):

- A file is a collection of game trees, one per game. The root node holds ``MI`` (match
  information: ``[length:N][game:i][ws:a][bs:b]``, game numbered from 0, ``ws``/``bs``
  the scores of White = player 0 and Black = player 1 before the game), ``PW``/``PB``
  (names), ``RU`` (rules: ``Crawford``, ``Crawford:CrawfordGame``, ``Jacoby``), ``RE``
  (result: ``W+2``, ``B+1``, ``B+3R`` for a resignation), ``DT``, ``PC``, ``EV``, ``RO``.
- Each later node is one action: ``W[...]`` by player 0 or ``B[...]`` by player 1, with
  ``double``, ``take``, ``drop``, or a move: the two dice then one letter pair per
  checker step. Letters are points of the board seen from player 0: ``a`` is player 0's
  point 1 (player 1's point 24) ... ``x`` player 0's 24; ``y`` is the bar and ``z`` off.
- A beaver is written as a ``double`` by the doubled player (gnubg's ``double`` while
  doubled).

mathbg keeps what gnubg's format has no room for (the cube limit, the beaver rule, the
event tags) in its own root property ``MX`` (``[cube_limit:64][beavers:1][tag:Key=Value]``),
which gnubg ignores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mathbg.errors import MatchFileError
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

__all__ = ["dumps", "read"]


@dataclass
class _Node:
    props: dict[str, list[str]] = field(default_factory=dict)
    line: int = 0


class _Parser:
    """A small SGF parser: the main line of every game tree (variations are skipped)."""

    def __init__(self, text: str, name: str | None):
        self.text = text
        self.name = name
        self.pos = 0
        self.n = len(text)

    def line(self, pos: int | None = None) -> int:
        return self.text.count("\n", 0, self.pos if pos is None else pos) + 1

    def error(self, message: str, pos: int | None = None) -> MatchFileError:
        return MatchFileError(message, self.name, self.line(pos))

    def skip_ws(self) -> None:
        while self.pos < self.n and self.text[self.pos].isspace():
            self.pos += 1

    def collection(self) -> list[list[_Node]]:
        trees = []
        self.skip_ws()
        while self.pos < self.n:
            if self.text[self.pos] != "(":
                raise self.error(f"expected '(' to open a game tree, found "
                                 f"{self.text[self.pos:self.pos + 20]!r}")
            trees.append(self.tree())
            self.skip_ws()
        if not trees:
            raise self.error("no game tree in the SGF file")
        return trees

    def tree(self) -> list[_Node]:
        start = self.pos
        self.pos += 1  # "("
        nodes: list[_Node] = []
        main_taken = False
        while True:
            self.skip_ws()
            if self.pos >= self.n:
                raise self.error("the file ends inside a game tree (truncated?)", start)
            c = self.text[self.pos]
            if c == ";":
                if main_taken:
                    raise self.error("a node after a variation")
                nodes.append(self.node())
            elif c == "(":
                sub = self.tree()
                if not main_taken:
                    nodes.extend(sub)
                    main_taken = True
            elif c == ")":
                self.pos += 1
                return nodes
            else:
                raise self.error(f"unexpected {c!r} in a game tree")

    def node(self) -> _Node:
        node = _Node(line=self.line())
        self.pos += 1  # ";"
        while True:
            self.skip_ws()
            m = re.compile(r"[A-Za-z]+").match(self.text, self.pos)
            if not m:
                return node
            ident = "".join(ch for ch in m.group() if ch.isupper())
            self.pos = m.end()
            values = []
            self.skip_ws()
            if self.pos >= self.n or self.text[self.pos] != "[":
                raise self.error(f"property {ident} has no value")
            while self.pos < self.n and self.text[self.pos] == "[":
                values.append(self.value())
                self.skip_ws()
            node.props.setdefault(ident, []).extend(values)

    def value(self) -> str:
        start = self.pos
        self.pos += 1
        out = []
        while self.pos < self.n:
            c = self.text[self.pos]
            if c == "\\" and self.pos + 1 < self.n:
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            if c == "]":
                self.pos += 1
                return "".join(out)
            out.append(c)
            self.pos += 1
        raise self.error("a property value is not closed (truncated?)", start)


def _point(ch: str, player: int, where: str, err: MatchFileError) -> int:
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


_RESULT = re.compile(r"^([WB])\+(\d+)(R?)", re.IGNORECASE)


def read(text: str, *, name: str | None = None, check: bool = True) -> MatchRecord:
    """Read a gnubg ``.sgf`` file's text (see the module docstring)."""
    parser = _Parser(text.lstrip("\ufeff"), name)
    trees = parser.collection()
    drafts: list[GameDraft] = []
    players: tuple[str, str] | None = None
    length: int | None = None
    crawford = False
    jacoby = False
    beavers = False
    cube_limit: int | None = None
    tags: dict[str, str] = {}
    mx_tags: dict[str, str] | None = None

    def err(msg: str, line: int) -> MatchFileError:
        return MatchFileError(msg, name, line)

    for tree in trees:
        if not tree:
            continue
        root = tree[0]
        gm = root.props.get("GM", ["1"])[0].strip()
        if gm != "6":
            raise err(f"GM[{gm}] is not a backgammon game (GM[6])", root.line)
        mi: dict[str, str] = {}
        for v in root.props.get("MI", []):
            k, _, val = v.partition(":")
            mi[k.strip()] = val.strip()
        try:
            glen = int(mi.get("length", "0"))
            number = int(mi.get("game", str(len(drafts)))) + 1
            score = (int(mi.get("ws", "0")), int(mi.get("bs", "0")))
        except ValueError:
            raise err(f"cannot read MI{root.props.get('MI')}", root.line) from None
        if length is None:
            length = glen
        elif glen != length:
            raise err(f"the match length changes from {length} to {glen}", root.line)
        names = (root.props.get("PW", ["White"])[0], root.props.get("PB", ["Black"])[0])
        if players is None:
            players = names
        for rule in root.props.get("RU", []):
            tokens = {t.strip().lower() for t in rule.split(":")}
            crawford = crawford or "crawford" in tokens
            jacoby = jacoby or "jacoby" in tokens
            unknown = tokens - {"crawford", "crawfordgame", "jacoby", ""}
            if unknown:
                raise err(f"rules RU[{rule}]: only standard backgammon is replayed",
                          root.line)
        for v in root.props.get("MX", []):
            k, _, val = v.partition(":")
            if k == "cube_limit":
                if not val.isdigit() or int(val) < 1 or int(val) & (int(val) - 1):
                    raise err(f"cube limit {val!r} is not a power of two", root.line)
                cube_limit = int(val)
            elif k == "beavers":
                beavers = val.strip() == "1"
            elif k == "tag":
                key, _, tv = val.partition("=")
                if mx_tags is None:
                    mx_tags = {}
                mx_tags[key] = tv
        for prop, key in (("PC", "Site"), ("EV", "Event"), ("RO", "Round")):
            if prop in root.props:
                tags.setdefault(key, root.props[prop][0])
        if "DT" in root.props:
            tags.setdefault("EventDate", root.props["DT"][0].replace("-", "."))
        draft = GameDraft(number=number, score=score, score_line=root.line)
        if "RE" in root.props:
            m = _RESULT.match(root.props["RE"][0].strip())
            if not m:
                raise err(f"cannot read the result RE[{root.props['RE'][0]}]", root.line)
            draft.wins = (0 if m.group(1).upper() == "W" else 1, int(m.group(2)))
            draft.wins_line = root.line
            draft.resigned = bool(m.group(3))
        pending: int | None = None  # the doubler while a double waits
        cube = 1
        offered = 0
        for node in tree[1:]:
            for bad_prop in ("AE", "AB", "AW", "PL"):
                if bad_prop in node.props:
                    raise err(f"{bad_prop}: games from a set-up position are not supported",
                              node.line)
            who = [k for k in ("W", "B") if k in node.props]
            if not who:
                continue
            if len(who) > 1:
                raise err("a node with moves of both players", node.line)
            player = 0 if who[0] == "W" else 1
            value = node.props[who[0]][0].strip()
            low = value.lower()
            if low == "double":
                if pending is not None and pending != player:
                    offered *= 2
                    draft.add(Beaver(player, offered), node.line)
                    pending = player
                else:
                    offered = 2 * cube
                    draft.add(Double(player, offered), node.line)
                    pending = player
            elif low == "take":
                draft.add(Take(player), node.line)
                cube, pending = offered, None
            elif low == "drop":
                draft.add(Pass(player), node.line)
                pending = None
            elif re.fullmatch(r"[1-6][1-6]([a-z]{2}){0,4}", low):
                bad = err(f"cannot read the move {value!r}", node.line)
                steps = tuple(
                    (_point(low[k], player, value, bad), _point(low[k + 1], player, value, bad))
                    for k in range(2, len(low), 2)
                )
                if pending is not None and pending != player:
                    # a roll by the beaver's target answers the beaver with a take
                    draft.add(Take(player), node.line)
                    cube, pending = offered, None
                draft.add(Move(player, (int(low[0]), int(low[1])), steps), node.line)
            else:
                raise err(f"unknown action {who[0]}[{value}]", node.line)
        drafts.append(draft)
    if not drafts or players is None or length is None:
        raise MatchFileError("no backgammon game in the SGF file", name, None)
    rules = MatchRules(crawford=crawford and bool(length), jacoby=jacoby, beavers=beavers,
                       cube_limit=cube_limit)
    return assemble_match(length, players, drafts, rules=rules,
                          tags=mx_tags if mx_tags is not None else tags, source=name,
                          check=check)


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def dumps(record: MatchRecord) -> str:
    """The record as gnubg ``.sgf`` text, one game tree per game."""
    from mathbg._files import marker

    version = marker().split(" ", 1)[1]

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
            for key, prop in (("Site", "PC"), ("Event", "EV"), ("Round", "RO")):
                if key in record.tags:
                    root.append(f"{prop}[{_esc(record.tags[key])}]")
        ru = []
        if rules.crawford and record.length:
            ru.append("Crawford:CrawfordGame" if crawford else "Crawford")
        if rules.jacoby:
            ru.append("Jacoby")
        root.extend(f"RU[{r}]" for r in ru)
        if g.result is not None:
            r = g.result
            root.append(f"RE[{'WB'[r.winner]}+{r.points}{'R' if r.kind == 'resign' else ''}]")
        mx = []
        if rules.cube_limit is not None:
            mx.append(f"[cube_limit:{rules.cube_limit}]")
        if rules.beavers:
            mx.append("[beavers:1]")
        mx.extend(f"[tag:{_esc(k)}={_esc(v)}]" for k, v in record.tags.items())
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
