"""Match records: real matches as data, independent of any file format.

A :class:`MatchRecord` is what a match file says: the match length, the two players, the
rules in force (:class:`MatchRules`), the event tags, and the games. A
:class:`GameRecord` is one game: its number, the score before it, its actions in order and
its result (:class:`GameOutcome`). The actions are value objects:

=================  ====================================================================
action             meaning
=================  ====================================================================
:class:`Move`      ``player`` rolled ``dice`` and played ``moves`` (empty: no play)
:class:`Double`    ``player`` doubled; ``value`` is the cube value if taken
:class:`Take`      ``player`` took the double on offer
:class:`Pass`      ``player`` passed (dropped) the double on offer and lost the game
:class:`Beaver`    ``player`` beavered (took and redoubled to ``value``, money play)
:class:`Resign`    ``player`` offered to resign at ``level`` (1 single, 2 gammon, 3 bg)
:class:`Accept`    ``player`` accepted the resignation on offer (the game ends)
:class:`Reject`    ``player`` rejected the resignation on offer (play goes on)
=================  ====================================================================

Players are 0 and 1: player 0 is the first-named player of the file (the left column of a
``.mat`` file), as gnubg numbers them after importing it. Points in ``Move.moves`` are in
the mover's own numbering, 1..24, 25 = the bar and 0 = off, one ``(from, to)`` pair per
checker step as written (a path ``13/7/1`` is two steps, ``6/off(2)`` two pairs).

Replaying (:func:`replay`, :meth:`MatchRecord.replay`) walks every action with the rules
model and yields one :class:`Decision` per action: the position and match state *before*
the action, with the Position ID and Match ID as gnubg prints them for that decision.
Every play is checked against the legal plays of the position; an illegal play, a cube
action the state does not allow, or a result the record contradicts raises a
:class:`~mathbg.errors.MatchFileError` naming the file, game and move.

The record knows no file format. The formats live in :mod:`mathbg.rules.formats` (one
module each, above this one): :func:`~mathbg.rules.formats.read_match` reads a file,
:func:`~mathbg.rules.formats.write_match` writes one; a reader hands its games to a
:class:`MatchBuilder`, which replays each as it comes and settles its result.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.plays import Play, Plays
    from mathbg.rules.position import Position
    from mathbg.rules.ruleset import RuleSet

__all__ = [
    "RESULT_KINDS",
    "Accept",
    "Action",
    "Beaver",
    "Decision",
    "Double",
    "GameDraft",
    "GameOutcome",
    "GameRecord",
    "MatchBuilder",
    "MatchRecord",
    "MatchRules",
    "Move",
    "Pass",
    "Reject",
    "Resign",
    "Take",
    "replay",
    "replay_indexed",
    "resignation",
]

#: The ways a game ends, as :attr:`GameOutcome.kind` spells them.
RESULT_KINDS = ("single", "gammon", "backgammon", "pass", "resign")
ResultName: TypeAlias = Literal["single", "gammon", "backgammon", "pass", "resign"]

Moves: TypeAlias = tuple[tuple[int, int], ...]


# ----------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class MatchRules:
    """The rules a match was played under.

    Attributes
    ----------
    crawford : bool
        The Crawford rule (match play; on by default).
    jacoby : bool
        The Jacoby rule: a gammon or backgammon counts single while the cube is centred
        (a money-play option; a match file whose games score such a gammon as a single
        shows it in force, as some Backgammon Galaxy matches do, and the reader sets it).
    beavers : bool
        Beavers allowed (money play only).
    cube_limit : int or None
        Highest cube value allowed (a power of two), None for no limit.
    variant : str
        The rule set the games are played under, by its name in the rule-set registry
        (:func:`mathbg.rules.ruleset.get_ruleset`): ``"backgammon"``, or ``"nackgammon"``,
        ``"hypergammon1"``... as a file's variation names it. The replay starts every game
        from that rule set's initial position and checks the plays with its generator.
    """

    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    variant: str = "backgammon"


# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Move:
    """A roll and its play.

    Attributes
    ----------
    player : int
        The player who rolled (0 or 1).
    dice : (int, int)
        The two dice as written (the replay orders them, higher first).
    moves : tuple of (from, to)
        Checker steps in the mover's numbering (25 = bar, 0 = off); empty when the roll
        could not be played (a dance) or the file left a forced play blank.
    """

    player: int
    dice: tuple[int, int]
    moves: Moves = ()


@dataclass(frozen=True, slots=True)
class Double:
    """``player`` doubles (before rolling); ``value`` is the cube value if taken."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Take:
    """``player`` takes the double on offer."""

    player: int


@dataclass(frozen=True, slots=True)
class Pass:
    """``player`` passes (drops) the double on offer and loses the game at the cube value
    before the double."""

    player: int


@dataclass(frozen=True, slots=True)
class Beaver:
    """``player`` beavers the double on offer: takes and redoubles to ``value`` at once
    (money play, when beavers are allowed)."""

    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` offers to resign a single (1), gammon (2) or backgammon (3)."""

    player: int
    level: int


@dataclass(frozen=True, slots=True)
class Accept:
    """``player`` accepts the resignation on offer: the game ends."""

    player: int


@dataclass(frozen=True, slots=True)
class Reject:
    """``player`` rejects the resignation on offer: play goes on."""

    player: int


Action: TypeAlias = Move | Double | Take | Pass | Beaver | Resign | Accept | Reject


# ----------------------------------------------------------------------------- games


@dataclass(frozen=True)
class GameOutcome:
    """How a game ended.

    Attributes
    ----------
    winner : int
        The player who won the game (0 or 1).
    points : int
        Points the game scored: for a game played out or passed, as the file says
        (``Wins N points``; in match play at most the points the winner still needed, as
        files cap them); for a resignation, as gnubg scores it (the level times the cube,
        capped at what the winner needed). The replay checks them against the rules.
    kind : str
        ``"single"``, ``"gammon"`` or ``"backgammon"`` for a game played out; ``"pass"``
        for a dropped double; ``"resign"`` for an accepted resignation.
    cube : int
        The cube value the game ended at (for a pass: the value before the double).
    resign_level : int
        For ``"resign"``: the level accepted, 1 (single), 2 (gammon) or 3 (backgammon);
        0 otherwise. A file says it only through the points (``Wins 2 points`` at cube 1):
        gnubg's reading, :func:`resignation`.
    match_resigned : bool
        For ``"resign"``: the loser resigned the whole match. The file awards the winner
        the points they needed, more than any resignation is worth at this cube (online
        servers write ``Wins 4 point and the match`` for it, Backgammon Studio ``Wins 4016
        points`` for a forfeit); ``points`` is still the resignation's value, as gnubg
        scores it, and the winner has won the match (:attr:`MatchRecord.winner`).
    """

    winner: int
    points: int
    kind: ResultName
    cube: int = 1
    resign_level: int = 0
    match_resigned: bool = False


@dataclass(frozen=True)
class GameRecord:
    """One game of a match.

    Attributes
    ----------
    number : int
        The game number (1-based, as in the file).
    score : (int, int)
        Points of players 0 and 1 before the game.
    actions : tuple of Action
        Everything that happened, in order.
    result : GameOutcome or None
        How the game ended; None for a game the file leaves unfinished.
    """

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...] = ()
    result: GameOutcome | None = None

    @property
    def first_player(self) -> int | None:
        """The player who acted first (None for a game without actions)."""
        return self.actions[0].player if self.actions else None


# ----------------------------------------------------------------------------- matches


@dataclass(frozen=True)
class MatchRecord:
    """A match as recorded in a file.

    Attributes
    ----------
    length : int
        The match length in points; 0 for a money session.
    players : (str, str)
        Names of players 0 and 1.
    games : tuple of GameRecord
    rules : MatchRules
    tags : dict of str to str
        Event tags as the file gives them (``Site``, ``EventDate``, ``Player 1 Elo``...),
        minus those the other fields already hold.
    source : str or None
        The file the record was read from (for messages; not compared).
    """

    length: int
    players: tuple[str, str]
    games: tuple[GameRecord, ...] = ()
    rules: MatchRules = field(default_factory=MatchRules)
    tags: Mapping[str, str] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False, repr=False)

    # -------------------------------------------------------------- derived
    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last finished game (capped at the match length)."""
        if not self.games:
            return (0, 0)
        last = self.games[-1]
        if last.result is None:
            return last.score
        return _score_after(self.length, last.score, last.result)

    @property
    def winner(self) -> int | None:
        """The player who won the match (by reaching its length, or because the loser
        resigned the match), None if it is unfinished (or money play)."""
        if not self.length or not self.games:
            return None
        last = self.games[-1].result
        if last is not None and last.match_resigned:
            return last.winner
        a, b = self.final_score
        if max(a, b) < self.length:
            return None
        return 0 if a >= self.length else 1

    def crawford_games(self) -> tuple[bool, ...]:
        """For each game, whether it is the Crawford game (gnubg's rule: the first game in
        which exactly one player is 1-away, when the Crawford rule is in force)."""
        seen = False
        out = []
        for g in self.games:
            c = _is_crawford(self.length, self.rules, g.score, seen)
            seen = seen or c
            out.append(c)
        return tuple(out)

    # -------------------------------------------------------------- replay
    def replay(self, *, check: bool = True) -> Iterator[Decision]:
        """Every action of every game with the state before it: see :func:`replay`."""
        return replay(self, check=check)

    def validate(self) -> MatchRecord:
        """Replay the whole match, checking every play, cube action and result.

        Returns the record itself; raises :class:`~mathbg.errors.MatchFileError` (or
        its subclass :class:`~mathbg.errors.MatchReplayError`) at the first problem.
        """
        for _ in replay(self, check=True):
            pass
        return self

    def normalized(self) -> MatchRecord:
        """The same match with every play written as the rules model writes it (one
        legal order of single-die steps; a forced play left blank filled in): two records
        of the same match read from different dialects compare equal after this."""
        from dataclasses import replace

        new_actions: list[list[Action]] = [[] for _ in self.games]
        for k, d in replay_indexed(self, check=True):
            a = d.action
            if isinstance(a, Move):
                moves = d.play.moves if d.play is not None else ()
                a = Move(a.player, (max(a.dice), min(a.dice)), tuple(moves))
            new_actions[k].append(a)
        games = tuple(
            replace(g, actions=tuple(acts)) for g, acts in zip(self.games, new_actions, strict=True)
        )
        return replace(self, games=games)


def _score_after(length: int, score: tuple[int, int], result: GameOutcome) -> tuple[int, int]:
    s = [score[0], score[1]]
    s[result.winner] += result.points
    if length:
        s[result.winner] = min(s[result.winner], length)
    return (s[0], s[1])


# ----------------------------------------------------------------------------- replay


class Decision:
    """One action of a replayed match with everything known before it (read-only).

    Attributes
    ----------
    game : int
        The game number (1-based).
    move : int
        The move number as a ``.mat`` file numbers its lines (1-based; a line holds a
        turn of each player, a cube action takes a turn's place).
    index : int
        The action's index within the game's actions (0-based).
    player : int
        The player who acts (the roller for a move or a double; the doubled player for a
        take, pass or beaver; the resigning side's opponent for accept/reject).
    on_roll : int
        The player on roll (whose turn it is).
    position : Position
        The board before the action, from ``on_roll``'s side.
    action : Action
        What was done.

    Notes
    -----
    The properties ``match`` (the :class:`~mathbg.rules.match.MatchState` before the
    action: score, cube value and owner, Crawford, the dice for a move, ``doubled`` set for
    a take or pass) and ``play`` (the legal play a :class:`Move` resolves to) are built
    when first read, so a replay that only checks the match costs no more than the check.
    """

    __slots__ = (
        "_match",
        "_match_args",
        "_play",
        "_play_index",
        "_plays",
        "action",
        "game",
        "index",
        "move",
        "on_roll",
        "player",
        "position",
    )

    def __init__(
        self,
        game: int,
        move: int,
        index: int,
        player: int,
        on_roll: int,
        position: Position,
        match: MatchState | dict[str, Any],
        action: Action,
        play: Play[Position] | None = None,
        *,
        plays: Any = None,
        play_index: int = -1,
    ) -> None:
        self.game = game
        self.move = move
        self.index = index
        self.player = player
        self.on_roll = on_roll
        self.position = position
        self.action = action
        if isinstance(match, dict):
            self._match: MatchState | None = None
            self._match_args: dict[str, Any] | None = match
        else:
            self._match, self._match_args = match, None
        self._play = play
        self._plays = plays
        self._play_index = play_index

    @property
    def match(self) -> MatchState:
        """The match state before the action (see the class docstring)."""
        if self._match is None:
            from mathbg.rules.match import MatchState

            assert self._match_args is not None
            self._match = MatchState(**self._match_args)
        return self._match

    @property
    def play(self) -> Play[Position] | None:
        """For a :class:`Move`, the legal play it resolves to (None for a dance)."""
        if self._play is None and self._plays is not None and self._play_index >= 0:
            self._play = self._plays[self._play_index]
        return self._play

    @property
    def plays(self) -> Plays[Position] | None:
        """For a :class:`Move` of a checked replay, the legal plays of its roll (the
        replay's own, which a caller that wants them again need not generate); None for
        another action or an unchecked replay."""
        return cast("Plays[Position] | None", self._plays)

    @property
    def before_roll(self) -> MatchState:
        """The match state of the on-roll player's cube decision before this turn's roll
        (no dice, nothing on offer): for a :class:`Move` or a :class:`Double`, the state in
        which the roller could double; its ``.id`` is the Match ID gnubg prints for that
        cube decision."""
        from dataclasses import replace

        from mathbg.rules.match import GameStatus

        return replace(self.match, dice=None, turn=self.on_roll, doubled=False, resigned=0,
                       status=GameStatus.PLAYING)

    def _key(self) -> tuple[Any, ...]:
        return (self.game, self.index, self.player, self.on_roll, self.position, self.match,
                self.action)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.game, self.index, self.position))

    def __repr__(self) -> str:
        return (f"Decision(game={self.game}, move={self.move}, index={self.index}, "
                f"player={self.player}, action={self.action!r}, "
                f"ids={self.position_id}:{self.match_id})")

    @property
    def cube(self) -> int:
        """The cube value before the action."""
        return self.match.cube

    @property
    def cube_owner(self) -> int | None:
        """The cube's owner before the action (0, 1, or None when centred)."""
        return self.match.cube_owner

    @property
    def crawford(self) -> bool:
        """This is the Crawford game."""
        return self.match.crawford

    @property
    def position_id(self) -> str:
        """gnubg's Position ID for this decision (the roller's view)."""
        return self.position.id

    @property
    def match_id(self) -> str:
        """gnubg's Match ID for this decision, as gnubg prints it there (its game state
        field says "no game" at the opening roll, as gnubg's does)."""
        return self.match.id


def replay(record: MatchRecord, *, check: bool = True) -> Iterator[Decision]:
    """Replay ``record`` with the rules model, one :class:`Decision` per action.

    Parameters
    ----------
    record : MatchRecord
    check : bool
        Check every play against the legal plays and every result against the rules
        (default). Without it, plays are applied as written (faster, for trusted input).

    Yields
    ------
    Decision
        In game order, the state before each action.

    Raises
    ------
    MatchReplayError
        For an illegal play (naming the file, game, move number and the play), a cube
        action the state does not allow, or a result or score the record contradicts.
    """
    for _, decision in replay_indexed(record, check=check):
        yield decision


def replay_indexed(record: MatchRecord, *, check: bool = True) -> Iterator[tuple[int, Decision]]:
    """:func:`replay`, each decision with the index of its game in ``record.games`` (game
    numbers as a file writes them need not be unique)."""
    from mathbg.errors import MatchReplayError

    length, rules = record.length, record.rules
    ruleset = _ruleset(rules.variant, record.source)
    crawford_seen = False
    for k, game in enumerate(record.games):
        if length and max(game.score) >= length:
            raise MatchReplayError(
                f"game {game.number}: the score {game.score[0]}-{game.score[1]} is not "
                f"below the length of a {length}-point match", record.source, None)
        crawford = _is_crawford(length, rules, game.score, crawford_seen)
        crawford_seen = crawford_seen or crawford
        end = _GameEnd()
        for decision in _replay_game(
            length, rules, ruleset, game.number, game.score, crawford, game.actions, None,
            record.source, check, end,
            game.result is not None and game.result.kind == "resign",
        ):
            yield k, decision
        if check:
            _check_result(length, game, end, record.source, None)


def _ruleset(variant: str, source: str | None) -> RuleSet:
    """The rule set of ``variant``; a name no rule set is registered under is a
    :class:`~mathbg.errors.MatchFileError` ("not supported yet")."""
    from mathbg.errors import MatchFileError, UnknownVariantError
    from mathbg.rules.ruleset import get_ruleset

    try:
        return get_ruleset(variant)
    except UnknownVariantError:
        raise MatchFileError(
            f"the variant {variant!r} is not supported yet (no rule set of that name is "
            "registered)", source, None) from None


def _is_crawford(length: int, rules: MatchRules, score: tuple[int, int], seen: bool) -> bool:
    """gnubg's rule: the first game where exactly one player is 1-away."""
    if not length or not rules.crawford or seen:
        return False
    return (score[0] == length - 1) != (score[1] == length - 1)


class _GameEnd:
    """What the replay of one game found (filled in as it goes)."""

    __slots__ = ("centred", "cube", "kind", "level", "offered_cube", "over", "points",
                 "unplayed", "winner")

    def __init__(self) -> None:
        self.over = False
        self.winner: int | None = None
        self.kind: ResultName | None = None
        self.points = 0
        self.cube = 1
        self.level = 0
        self.offered_cube = 1
        self.unplayed = False  # a roll recorded without its play (resigned after rolling)
        self.centred = True


_PLAYS_CACHE: dict[tuple[str, bytes, int, int], Any] = {}

#: :class:`~mathbg.rules.match.ResultKind` values (1, 2, 3) by name, as a record spells them.
_KIND_NAMES: tuple[ResultName, ...] = ("single", "gammon", "backgammon")


def _legal_plays(ruleset: RuleSet, position: Position, d1: int, d2: int) -> Any:
    key = (ruleset.name, position.cells, d1, d2)
    plays = _PLAYS_CACHE.get(key)
    if plays is None:
        plays = ruleset.legal_plays(position, (d1, d2))
        if len(_PLAYS_CACHE) > 4096:
            _PLAYS_CACHE.clear()
        _PLAYS_CACHE[key] = plays
    return plays


def _apply(cells: bytes, moves: Moves) -> bytes | None:
    """The board after ``moves`` applied as written (a landing on a blot hits it); None
    when a move takes a checker from an empty point or lands on a made point."""
    b = bytearray(cells)
    for a, t in moves:
        if not 0 < a <= 25:
            return None
        src = 25 + (24 if a == 25 else a - 1)
        if b[src] == 0:
            return None
        b[src] -= 1
        if t == 0:
            continue
        if not 1 <= t <= 24 or t >= a:
            return None
        opp = 24 - t
        if b[opp] >= 2:
            return None
        if b[opp] == 1:
            b[opp] = 0
            b[24] += 1
        b[25 + t - 1] += 1
    return bytes(b)


def _play_text(moves: Moves) -> str:
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if t == 0 else t}" for a, t in moves)


def _double_refused(
    length: int,
    score: tuple[int, int],
    player: int,
    cube: int,
    owner: int | None,
    crawford: bool,
    cube_limit: int | None,
) -> str | None:
    """Why ``player`` may not double (None when they may). Whether they may is
    :func:`mathbg.rules.match.may_double`'s answer, the one rule of mathbg; the rest only
    words the reason for the message."""
    from mathbg.rules.match import may_double

    away = (length - score[player], length - score[1 - player]) if length else None
    side = "centre" if owner is None else "player" if owner == player else "opponent"
    if may_double(away, cube, side, crawford=crawford, cube_limit=cube_limit):
        return None
    if crawford:
        return "no doubling in the Crawford game"
    if side == "opponent":
        return f"player {player} doubles a cube owned by player {owner}"
    if cube_limit is not None and 2 * cube > cube_limit:
        return f"double to {2 * cube} above the cube limit {cube_limit}"
    assert away is not None
    return (f"player {player} doubles a dead cube (the cube at {cube} already gives the "
            f"{away[0]} points they need)")


def _replay_game(
    length: int,
    rules: MatchRules,
    ruleset: RuleSet,
    number: int,
    score: tuple[int, int],
    crawford: bool,
    actions: Sequence[Action],
    lines: Sequence[int | None] | None,
    source: str | None,
    check: bool,
    end: _GameEnd,
    allow_unplayed: bool,
) -> Iterator[Decision]:
    from mathbg.errors import MatchReplayError
    from mathbg.rules.match import GameStatus, game_points
    from mathbg.rules.position import make_position

    position = ruleset.initial_position()
    cube, owner = 1, None
    on_roll: int | None = None
    offer: tuple[int, int] | None = None  # (doubler, value if taken)
    beavered = False  # the offer on the table is a beaver
    resign: tuple[int, int] | None = None  # (by, level)
    slot = 0
    jacoby = rules.jacoby if not length else False  # the Match ID's flag: money play only
    n_actions = len(actions)

    def fail(i: int, message: str, move: int) -> MatchReplayError:
        return MatchReplayError(
            f"game {number}, move {move}: {message}",
            source,
            lines[i] if lines is not None and i < len(lines) else None,
        )

    for i, action in enumerate(actions):
        p = action.player
        if p not in (0, 1):
            raise fail(i, f"player {p!r} is not 0 or 1", slot // 2 + 1)
        if slot % 2 != p:
            slot += 1
        move_no = slot // 2 + 1
        slot += 1
        if end.over:
            raise fail(i, f"{_describe(action)} after the game ended", move_no)
        if on_roll is None:
            on_roll = p
            if p == 1:
                position = position.swap()
        kind = type(action)
        if kind is Move:
            assert isinstance(action, Move)
            if offer is not None or resign is not None:
                raise fail(i, f"{_describe(action)} while a {'double' if offer else 'resignation'} "
                           "waits for an answer", move_no)
            if p != on_roll:
                raise fail(i, f"{_describe(action)}: it is player {on_roll}'s turn", move_no)
            d1, d2 = action.dice
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise fail(i, f"dice {d1}{d2} are not two values 1..6", move_no)
            hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
            ms = dict(
                length=length, score=score, crawford=crawford, cube=cube, cube_owner=owner,
                on_roll=p, turn=p, dice=(hi, lo), jacoby=jacoby,
                # gnubg's Match ID of the opening roll still says "no game" (status 0)
                status=GameStatus.NONE if i == 0 else GameStatus.PLAYING,
            )
            play = None
            plays_of, play_index = None, -1
            if check:
                plays = plays_of = _legal_plays(ruleset, position, hi, lo)
                if not action.moves:
                    if len(plays) == 0:
                        result = position
                    elif len(plays) == 1:
                        play = plays[0]
                        result = play.result
                    elif allow_unplayed and i == n_actions - 1:
                        end.unplayed = True
                        result = position
                    else:
                        raise fail(i, f"{hi}{lo}: no play written, but {len(plays)} legal plays "
                                   "exist", move_no)
                else:
                    target = _apply(position.cells, action.moves)
                    k = plays.find_index(target) if target is not None else -1
                    if k >= 0:
                        assert target is not None
                        result = make_position(target)
                        plays_of, play_index = plays, k
                    else:
                        try:
                            play = plays.parse(_play_text(action.moves))
                        except ValueError as exc:
                            raise fail(
                                i, f"{hi}{lo}: {_play_text(action.moves)!r} is not a legal play "
                                f"({exc})", move_no) from None
                        result = play.result
            else:
                target = _apply(position.cells, action.moves) if action.moves else position.cells
                if target is None:
                    raise fail(i, f"{hi}{lo}: {_play_text(action.moves)!r} cannot be applied",
                               move_no)
                result = make_position(target)
            yield Decision(number, move_no, i, p, p, position, ms, action, play,
                           plays=plays_of, play_index=play_index)
            finished = None if end.unplayed else ruleset.game_end(result)
            if finished is not None:
                won, _ = finished
                if won is None:
                    raise fail(i, "the game ends in a draw, which no match file scores", move_no)
                end.over, end.winner, end.cube = True, p, cube
                end.kind = _KIND_NAMES[int(won) - 1]
                # the rules' Jacoby flag as the file has it (some online matches play it)
                end.points = game_points(int(won), cube, jacoby=rules.jacoby,
                                         cube_centred=owner is None)
                end.centred = owner is None
                position = result
            else:
                position = result.swap()
                on_roll = 1 - p
        elif kind is Double or kind is Beaver:
            value = action.value  # type: ignore[union-attr]
            beaver = kind is Beaver
            if beaver:
                if offer is None or p == offer[0]:
                    raise fail(i, "a beaver answers a double on offer", move_no)
                roller = offer[0]
            else:
                if offer is not None or resign is not None:
                    raise fail(i, "a double while another offer waits for an answer", move_no)
                if p != on_roll:
                    raise fail(i, f"player {p} doubles on player {on_roll}'s turn", move_no)
                roller = p
            ms = dict(
                length=length, score=score, crawford=crawford, cube=cube, cube_owner=owner,
                on_roll=roller, turn=p, doubled=beaver, status=GameStatus.PLAYING, jacoby=jacoby,
            )
            if check:
                base = offer[1] if beaver and offer is not None else cube
                if value != 2 * base:
                    raise fail(i, f"{'beaver' if beaver else 'double'} to {value}: the cube is "
                               f"at {base}, a double makes it {2 * base}", move_no)
                if not ruleset.cube:
                    raise fail(i, f"{ruleset.name} is played without the cube", move_no)
                if beaver:
                    if rules.cube_limit is not None and value > rules.cube_limit:
                        raise fail(i, f"beaver to {value} above the cube limit "
                                   f"{rules.cube_limit}", move_no)
                    if length or not rules.beavers:
                        raise fail(i, "beavers are not allowed under these rules", move_no)
                else:
                    refused = _double_refused(length, score, p, cube, owner, crawford,
                                              rules.cube_limit)
                    if refused is not None:
                        raise fail(i, refused, move_no)
            yield Decision(number, move_no, i, p, roller, position, ms, action, None)
            offer = (p, value)
            beavered = beaver
        elif kind is Take or kind is Pass:
            if offer is None:
                raise fail(i, f"{_describe(action)} but no double is on offer", move_no)
            doubler, value = offer
            if p == doubler:
                raise fail(i, f"player {p} answers their own double", move_no)
            roller = on_roll if on_roll is not None else doubler
            ms = dict(
                length=length, score=score, crawford=crawford, cube=cube, cube_owner=owner,
                on_roll=roller, turn=p, doubled=True, status=GameStatus.PLAYING, jacoby=jacoby,
            )
            yield Decision(number, move_no, i, p, roller, position, ms, action, None)
            offer = None
            if kind is Take:
                # the taker owns the cube; after a beaver, its author keeps it
                cube, owner = value, (doubler if beavered else p)
            else:
                end.over, end.winner, end.kind = True, doubler, "pass"
                end.cube = value // 2
                end.points = value // 2
        elif kind is Resign:
            level = action.level  # type: ignore[union-attr]
            if level not in (1, 2, 3):
                raise fail(i, f"resignation level {level!r} is not 1, 2 or 3", move_no)
            roller = on_roll if on_roll is not None else p
            ms = dict(
                length=length, score=score, crawford=crawford, cube=cube, cube_owner=owner,
                on_roll=roller, turn=p, status=GameStatus.PLAYING, jacoby=jacoby,
            )
            yield Decision(number, move_no, i, p, roller, position, ms, action, None)
            resign = (p, level)
        elif kind is Accept or kind is Reject:
            if resign is None:
                raise fail(i, f"{_describe(action)} but no resignation is on offer", move_no)
            by, level = resign
            roller = on_roll if on_roll is not None else by
            ms = dict(
                length=length, score=score, crawford=crawford, cube=cube, cube_owner=owner,
                on_roll=roller, turn=p, resigned=level, status=GameStatus.PLAYING,
                jacoby=jacoby,
            )
            yield Decision(number, move_no, i, p, roller, position, ms, action, None)
            resign = None
            if kind is Accept:
                end.over, end.winner, end.kind = True, 1 - by, "resign"
                end.level, end.cube, end.points = level, cube, level * cube
        else:
            raise fail(i, f"unknown action {action!r}", move_no)
    end.offered_cube = cube


def _describe(action: Action) -> str:
    if isinstance(action, Move):
        return f"{action.dice[0]}{action.dice[1]}: {_play_text(action.moves) or '(no play)'}"
    if isinstance(action, Double | Beaver):
        return f"{type(action).__name__.lower()} to {action.value}"
    return type(action).__name__.lower()


def _needed(length: int, score: tuple[int, int], winner: int) -> int | None:
    return length - score[winner] if length else None


def _points_ok(declared: int, raw: int, needed: int | None, length: int = 0) -> bool:
    """The points a file gives agree with the game's value: as they are, capped at what the
    winner needed (gnubg, Jellyfish), or capped at the match length (Backgammon Galaxy
    writes ``Wins 3 point`` for a 1-away player's gammon at cube 2 in a 3-point match)."""
    if declared == raw:
        return True
    if needed is None:
        return False
    return declared == min(raw, needed) or (needed <= declared == min(raw, length))


def resignation(
    winner: int, written: int, cube: int, needed: int | None, length: int = 0
) -> tuple[GameOutcome, bool]:
    """A game a file ends with ``Wins N points`` and no play ending it, read as gnubg
    reads it (``import.c``): the loser resigned a single if ``N <= cube``, a gammon if
    ``N <= 2 x cube``, else a backgammon, and the game scores that level times the cube,
    capped at the points the winner ``needed`` (None in money play).

    When ``N`` reaches what the winner needed and is more than the resignation is worth,
    the loser resigned the whole match (``match_resigned``): gnubg still scores the
    resignation's value. Returns the outcome and whether ``N`` is a plausible value (the
    resignation's value, capped at what was needed or at the match ``length`` as files
    cap it, or exactly what was needed for a match resigned); an implausible value is
    read the same way (the readers warn).

    Examples
    --------
    >>> outcome, plausible = resignation(1, 2, 2, 5)  # "Wins 2 points" at cube 2: a single
    >>> outcome.points, outcome.resign_level, outcome.match_resigned, plausible
    (2, 1, False, True)
    >>> outcome, plausible = resignation(1, 5, 1, 5)  # 5 points at cube 1 in a 5-point match
    >>> outcome.points, outcome.resign_level, outcome.match_resigned, plausible
    (3, 3, True, True)
    >>> resignation(0, 4016, 1, 4)[0].points, resignation(0, 4016, 1, 4)[1]  # a forfeit
    (3, False)
    """
    level = 1 if written <= cube else 2 if written <= 2 * cube else 3
    value = level * cube
    points = value if needed is None else min(value, needed)
    whole = needed is not None and written >= needed > value
    plausible = _points_ok(written, value, needed, length) or (whole and written == needed)
    return GameOutcome(winner, points, "resign", cube, level, whole), plausible


def _check_result(
    length: int,
    game: GameRecord,
    end: _GameEnd,
    source: str | None,
    line: int | None,
) -> None:
    """The record's result agrees with what the replay found."""
    from mathbg.errors import MatchReplayError

    res = game.result
    where = f"game {game.number}"
    if res is None:
        if end.over:
            raise MatchReplayError(f"{where}: the game ended but the record has no result",
                                   source, line)
        return
    if res.winner not in (0, 1):
        raise MatchReplayError(f"{where}: winner {res.winner!r} is not player 0 or 1",
                               source, line)
    needed = _needed(length, game.score, res.winner)
    if end.over:
        if res.winner != end.winner or res.kind != end.kind:
            raise MatchReplayError(
                f"{where}: the record says player {res.winner} won ({res.kind}); the replay "
                f"gives player {end.winner} ({end.kind})", source, line)
        if not _points_ok(res.points, end.points, needed, length):
            raise MatchReplayError(
                f"{where}: the record awards {res.points} points; the game is worth "
                f"{end.points}", source, line)
        return
    if res.kind != "resign":
        raise MatchReplayError(
            f"{where}: the record says {res.kind}, but the game was not played to its end",
            source, line)
    cube = end.offered_cube
    value = res.resign_level * cube
    if not 1 <= res.resign_level <= 3 or not _points_ok(res.points, value, needed, length):
        raise MatchReplayError(
            f"{where}: {res.points} points for a resignation at cube {cube}", source, line)
    if res.match_resigned and (needed is None or needed <= value):
        raise MatchReplayError(
            f"{where}: a match resigned, but the resignation at cube {cube} already gives "
            f"what the winner needed", source, line)


# ----------------------------------------------------------------------------- building


@dataclass
class GameDraft:
    """A game as a file format reader found it, before the replay settles its result
    (for the readers in :mod:`mathbg.rules.formats`).

    ``lines`` holds the file line of each action (for messages); ``wins`` the winner and
    points of a ``Wins N points`` line (or an SGF ``RE``), ``wins_line`` its line;
    ``resigned`` is set when the file says the loser resigned; ``ends_match`` when it
    says the game won the match (``Wins 3 points and the match``).
    """

    number: int
    score: tuple[int, int]
    score_line: int | None = None
    actions: list[Action] = field(default_factory=list)
    lines: list[int | None] = field(default_factory=list)
    wins: tuple[int, int] | None = None
    wins_line: int | None = None
    resigned: bool = False
    ends_match: bool = False

    def add(self, action: Action, line: int | None) -> None:
        """Append an action read at ``line``."""
        self.actions.append(action)
        self.lines.append(line)


class MatchBuilder:
    """Builds a :class:`MatchRecord` from a reader's games, one game at a time.

    :meth:`add` replays each game as it comes (checking every play when ``check``),
    settles its result (played out, passed or resigned) against the file's ``Wins`` line
    and checks its score line against the games before it, so a reader refuses a file at
    its first error, in file order. :meth:`finish` gives the record.

    The match's own consistency is checked as gnubg reads it: a score line at or past
    the match length before the match was won, a result in a game begun after it was
    won, a game the file says won the match ("and the match") while its points leave the
    winner short of the length: each a :class:`~mathbg.errors.MatchFileError` naming the
    line. A game begun after the match was won without a result is left out, as gnubg
    does. A resignation whose points are not plausible (:func:`resignation`) is read as
    gnubg reads it, with a :class:`~mathbg.errors.MathbgWarning` naming the line.

    Parameters
    ----------
    length : int
        The match length (0: a money session).
    rules : MatchRules, optional
    source : str, optional
        The file's name, for messages.
    check : bool
        Check every play against the legal plays (default).

    Examples
    --------
    >>> from mathbg.rules.record import GameDraft, MatchBuilder, Move, Take, Double, Pass
    >>> draft = GameDraft(number=1, score=(0, 0))
    >>> for action in (Move(0, (3, 1), ((8, 5), (6, 5))), Double(1, 2), Pass(0)):
    ...     draft.add(action, None)
    >>> builder = MatchBuilder(3)
    >>> builder.add(draft)
    >>> record = builder.finish(("Ann", "Bob"))
    >>> record.games[0].result.kind, record.final_score
    ('pass', (0, 1))
    """

    def __init__(
        self,
        length: int,
        *,
        rules: MatchRules | None = None,
        source: str | None = None,
        check: bool = True,
    ) -> None:
        self.length = length
        self.rules = rules or MatchRules()
        self.source = source
        self.check = check
        self.games: list[GameRecord] = []
        self._ruleset = _ruleset(self.rules.variant, source)
        self._expected: tuple[int, int] | None = None
        self._crawford_seen = False
        self._jacoby_refuted = False
        self._won = False

    def _error(self, message: str, line: int | None) -> Exception:
        from mathbg.errors import MatchFileError

        return MatchFileError(message, self.source, line)

    def add(self, draft: GameDraft) -> None:
        """Replay ``draft``, settle its result and append it (see the class notes).

        Raises
        ------
        MatchFileError, MatchReplayError
            Naming the file and the line.
        """
        d, length = draft, self.length
        expected = self._expected
        if expected is not None and d.score != expected:
            raise self._error(
                f"game {d.number}: the score line says {d.score[0]}-{d.score[1]}, the games "
                f"before it give {expected[0]}-{expected[1]}", d.score_line)
        if self._won:
            if d.wins is not None:
                raise self._error(
                    f"game {d.number} has a result, but the match was won before it "
                    f"({d.score[0]}-{d.score[1]} in a {length}-point match): the file goes "
                    "on past the match's length", d.wins_line)
            return  # a game begun after the match was won: left out, as gnubg does
        if length and max(d.score) >= length:
            raise self._error(
                f"game {d.number}: the score line says {d.score[0]}-{d.score[1]}, but a "
                f"{length}-point match is over at {length} points", d.score_line)
        crawford = _is_crawford(length, self.rules, d.score, self._crawford_seen)
        self._crawford_seen = self._crawford_seen or crawford
        end = _GameEnd()
        for _ in _replay_game(length, self.rules, self._ruleset, d.number, d.score, crawford,
                              d.actions, d.lines, self.source, self.check, end,
                              d.wins is not None):
            pass
        result = self._settle(d, end)
        self._check_match_end(d)
        self.games.append(GameRecord(d.number, d.score, tuple(d.actions), result))
        self._expected = _score_after(length, d.score, result)
        self._won = bool(length) and (max(self._expected) >= length or result.match_resigned)

    def _settle(self, d: GameDraft, end: _GameEnd) -> GameOutcome:
        """The game's result from the replay and the file's ``Wins`` line."""
        from dataclasses import replace

        from mathbg.errors import MatchReplayError

        length, line = self.length, d.wins_line
        if end.over:
            assert end.winner is not None and end.kind is not None
            needed = _needed(length, d.score, end.winner)
            points = end.points if needed is None else min(end.points, needed)
            if d.wins is not None:
                if d.wins[0] != end.winner:
                    raise MatchReplayError(
                        f"game {d.number}: the file says player {d.wins[0]} won; the replay "
                        f"gives player {end.winner} ({end.kind})", self.source, line)
                if (not _points_ok(d.wins[1], end.points, needed, length) and length
                        and not self.rules.jacoby and end.kind != "single" and end.centred
                        and d.wins[1] == end.cube and not self._jacoby_refuted):
                    # a gammon scored single with the cube centred: the file's matches are
                    # played with the Jacoby rule (some Backgammon Galaxy matches are)
                    self.rules = replace(self.rules, jacoby=True)
                    end.points = end.cube
                if not _points_ok(d.wins[1], end.points, needed, length):
                    raise MatchReplayError(
                        f"game {d.number}: the file awards {d.wins[1]} points; the game "
                        f"({end.kind}, cube {end.cube}) is worth {end.points}", self.source,
                        line)
                points = d.wins[1]
            if end.kind in ("gammon", "backgammon") and end.centred:
                self._jacoby_refuted = self._jacoby_refuted or points > end.cube
            return GameOutcome(end.winner, points, end.kind, end.cube, end.level)
        if d.wins is not None:
            winner, written = d.wins
            cube = end.offered_cube
            outcome, plausible = resignation(winner, written, cube,
                                             _needed(length, d.score, winner), length)
            if not plausible:
                from mathbg.errors import MathbgWarning

                what = ("the match resigned; the game scores" if outcome.match_resigned
                        else "scored")
                text = (f"game {d.number}: {written} points for a resignation at cube "
                        f"{cube}: read as gnubg reads it, a "
                        f"{_KIND_NAMES[outcome.resign_level - 1]} resigned ({what} "
                        f"{outcome.points})")
                warnings.warn(MathbgWarning(str(self._error(text, line))), stacklevel=3)
            return outcome
        last = d.lines[-1] if d.lines else d.score_line
        raise self._error(
            f"game {d.number} has no result (the file ends in the middle of it: truncated?)",
            last)

    def _check_match_end(self, d: GameDraft) -> None:
        """A game the file says won the match ("and the match") brings its winner to the
        match's length by the file's own points; else the match contradicts its length."""
        if not (d.ends_match and self.length and d.wins is not None):
            return
        winner, written = d.wins
        reached = d.score[winner] + written
        if reached < self.length:
            raise self._error(
                f"game {d.number}: the file says this game won the match ('and the "
                f"match'), at {reached} points, but the match is played to {self.length}: "
                "the match contradicts its own length", d.wins_line)

    def finish(
        self, players: tuple[str, str], *, tags: Mapping[str, str] | None = None
    ) -> MatchRecord:
        """The record of the games added so far."""
        return MatchRecord(
            length=self.length,
            players=players,
            games=tuple(self.games),
            rules=self.rules,
            tags=dict(tags or {}),
            source=self.source,
        )
