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

File formats live in :mod:`mathbg.rules.formats` (one module each) and never leak into
these classes: :func:`read_match` detects the format by content, :meth:`MatchRecord.write`
chooses it from the file name (or ``format=``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.plays import Play
    from mathbg.rules.position import Position

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
    "MatchRecord",
    "MatchRules",
    "Move",
    "Pass",
    "Reject",
    "Resign",
    "Take",
    "assemble_match",
    "read_match",
    "replay",
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
        The game played; ``"backgammon"`` (the only one replayed this round).
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
        Points awarded as the file says (``Wins N points``): in match play at most the
        points the winner still needed (files cap them, as gnubg does); the replay checks
        them against the rules.
    kind : str
        ``"single"``, ``"gammon"`` or ``"backgammon"`` for a game played out; ``"pass"``
        for a dropped double; ``"resign"`` for an accepted resignation.
    cube : int
        The cube value the game ended at (for a pass: the value before the double).
    resign_level : int
        For ``"resign"``: the level accepted, 1 (single), 2 (gammon) or 3 (backgammon);
        0 otherwise (or when the file does not say).
    """

    winner: int
    points: int
    kind: ResultName
    cube: int = 1
    resign_level: int = 0


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
        """The player who won the match, None if it is unfinished (or money play)."""
        a, b = self.final_score
        if not self.length or max(a, b) < self.length:
            return None
        return 0 if a >= self.length else 1

    def crawford_games(self) -> tuple[bool, ...]:
        """For each game, whether it is the Crawford game (gnubg's rule: the first game in
        which exactly one player is 1-away, when the Crawford rule is in force)."""
        seen = False
        out = []
        for g in self.games:
            c = _is_crawford(self, g.score, seen)
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

        new_actions: dict[int, list[Action]] = {}
        for d in replay(self, check=True):
            acts = new_actions.setdefault(d.game, [])
            a = d.action
            if isinstance(a, Move):
                moves = d.play.moves if d.play is not None else ()
                a = Move(a.player, (max(a.dice), min(a.dice)), tuple(moves))
            acts.append(a)
        games = tuple(
            replace(g, actions=tuple(new_actions.get(g.number, ()))) for g in self.games
        )
        return replace(self, games=games)

    # -------------------------------------------------------------- output
    def dumps(self, format: str = "mat") -> str:
        """The record as the text of a ``format`` file (``"mat"`` or ``"sgf"``)."""
        return _formats().writer(format)(self)  # type: ignore[no-any-return]

    def write(
        self, path: str | os.PathLike[str], format: str | None = None, *, force: bool = False
    ) -> Path:
        """Write the record to ``path`` as ``format`` (default: from the file name's
        extension, ``.mat``/``.txt`` or ``.sgf``). Returns the path written.

        The file is written beside the target and renamed into place (a failure leaves
        the target as it was). An existing file is replaced only when mathbg wrote it
        (its ``; written by mathbg`` line or ``AP[mathbg...]``), or with ``force``.

        Raises
        ------
        InvalidParameterError
            For a format mathbg cannot write (or an extension that names none).
        TargetExistsError
            The target exists and mathbg did not write it (without ``force``).
        """
        from mathbg._files import write_output

        formats = _formats()
        target = Path(path)
        fmt = format or formats.format_for_path(target)
        text = self.dumps(fmt)
        return write_output(target, text, what=f".{fmt} match file", force=force,
                            is_ours=formats.written_by_mathbg)


def _formats() -> Any:
    from mathbg.rules.registry import match_formats

    return match_formats()


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
    crawford_seen = False
    for game in record.games:
        crawford = _is_crawford(record, game.score, crawford_seen)
        crawford_seen = crawford_seen or crawford
        end = _GameEnd()
        yield from _replay_game(
            record.length,
            record.rules,
            game.number,
            game.score,
            crawford,
            game.actions,
            None,
            record.source,
            check,
            end,
            game.result is not None and game.result.kind == "resign",
        )
        if check:
            _check_result(record.length, record.rules, game, end, record.source, None)


def _is_crawford(record_or_length: MatchRecord | int, score: tuple[int, int], seen: bool,
                 rules: MatchRules | None = None) -> bool:
    """gnubg's rule: the first game where exactly one player is 1-away."""
    if isinstance(record_or_length, MatchRecord):
        length, rules = record_or_length.length, record_or_length.rules
    else:
        length = record_or_length
    assert rules is not None
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


_PLAYS_CACHE: dict[tuple[bytes, int, int], Any] = {}


def _legal_plays(position: Position, d1: int, d2: int) -> Any:
    key = (position.cells, d1, d2)
    plays = _PLAYS_CACHE.get(key)
    if plays is None:
        from mathbg.rules.plays import legal_plays

        plays = legal_plays(position, (d1, d2))
        if len(_PLAYS_CACHE) > 4096:
            _PLAYS_CACHE.clear()
        _PLAYS_CACHE[key] = plays
    return plays


def _apply(cells: bytes, moves: Moves) -> bytes | None:
    """The board after ``moves`` applied as written (a landing on a blot hits it); None
    when a move takes a checker from an empty point or lands on a made point."""
    b = bytearray(cells)
    for a, t in moves:
        src = 25 + (24 if a == 25 else a - 1)
        if not 0 <= a <= 25 or a == 0 or b[src] == 0:
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


def _replay_game(
    length: int,
    rules: MatchRules,
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
    from mathbg.rules.match import GameStatus
    from mathbg.rules.position import INITIAL, make_position

    position = INITIAL
    cube, owner = 1, None
    on_roll: int | None = None
    offer: tuple[int, int] | None = None  # (doubler, value if taken)
    beavered = False  # the offer on the table is a beaver
    resign: tuple[int, int] | None = None  # (by, level)
    slot = 0
    jacoby = rules.jacoby if not length else False
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
                plays = _legal_plays(position, hi, lo)
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
            cells = result.cells
            if not any(cells[25:50]) and not end.unplayed:
                # the mover has borne off every checker
                opp = cells[:25]
                off = 15 - sum(opp)
                if off > 0:
                    k = 1
                elif opp[24] or any(opp[18:24]):
                    k = 3
                else:
                    k = 2
                end.over, end.winner, end.cube = True, p, cube
                end.kind = ("single", "gammon", "backgammon")[k - 1]
                end.points = (1 if (rules.jacoby and owner is None) else k) * cube
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
                if crawford:
                    raise fail(i, "no doubling in the Crawford game", move_no)
                if not beaver and owner is not None and owner != p:
                    raise fail(i, f"player {p} doubles a cube owned by player {owner}", move_no)
                if rules.cube_limit is not None and value > rules.cube_limit:
                    raise fail(i, f"double to {value} above the cube limit "
                               f"{rules.cube_limit}", move_no)
                if beaver and (length or not rules.beavers):
                    raise fail(i, "beavers are not allowed under these rules", move_no)
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


def _check_result(
    length: int,
    rules: MatchRules,
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
    if not 1 <= res.resign_level <= 3 or not (
        _points_ok(res.points, res.resign_level * cube, needed, length) or res.points == needed
    ):
        raise MatchReplayError(
            f"{where}: {res.points} points for a resignation at cube {cube}", source, line)


# ----------------------------------------------------------------------------- building


@dataclass
class GameDraft:
    """A game as a file format reader found it, before the replay settles its result
    (for the readers in :mod:`mathbg.rules.formats`).

    ``lines`` holds the file line of each action (for messages); ``wins`` the winner and
    points of a ``Wins N points`` line (or an SGF ``RE``), ``wins_line`` its line;
    ``resigned`` is set when the file says the loser resigned.
    """

    number: int
    score: tuple[int, int]
    score_line: int | None = None
    actions: list[Action] = field(default_factory=list)
    lines: list[int | None] = field(default_factory=list)
    wins: tuple[int, int] | None = None
    wins_line: int | None = None
    resigned: bool = False

    def add(self, action: Action, line: int | None) -> None:
        """Append an action read at ``line``."""
        self.actions.append(action)
        self.lines.append(line)


def assemble_match(
    length: int,
    players: tuple[str, str],
    drafts: Sequence[GameDraft],
    *,
    rules: MatchRules | None = None,
    tags: Mapping[str, str] | None = None,
    source: str | None = None,
    check: bool = True,
) -> MatchRecord:
    """Build a :class:`MatchRecord` from a reader's games: replay each (checking every
    play when ``check``), settle its result (played out, passed or resigned) against the
    file's ``Wins`` line, and check every score line against the games before it.

    Games that start after the match was decided are left out, as gnubg does.

    Raises
    ------
    MatchFileError, MatchReplayError
        Naming the file and the line.
    """
    from dataclasses import replace

    from mathbg.errors import MatchFileError, MatchReplayError

    rules = rules or MatchRules()
    games: list[GameRecord] = []
    expected: tuple[int, int] | None = None
    crawford_seen = False
    jacoby_refuted = False
    for d in drafts:
        if expected is not None and d.score != expected:
            raise MatchFileError(
                f"game {d.number}: the score line says {d.score[0]}-{d.score[1]}, the games "
                f"before it give {expected[0]}-{expected[1]}", source, d.score_line)
        if length and max(d.score) >= length:
            break  # games after the match was decided
        crawford = _is_crawford(length, d.score, crawford_seen, rules)
        crawford_seen = crawford_seen or crawford
        end = _GameEnd()
        for _ in _replay_game(length, rules, d.number, d.score, crawford, d.actions, d.lines,
                              source, check, end, d.wins is not None):
            pass
        result: GameOutcome | None
        line = d.wins_line
        if end.over:
            assert end.winner is not None and end.kind is not None
            needed = _needed(length, d.score, end.winner)
            points = end.points if needed is None else min(end.points, needed)
            if d.wins is not None:
                if d.wins[0] != end.winner:
                    raise MatchReplayError(
                        f"game {d.number}: the file says player {d.wins[0]} won; the replay "
                        f"gives player {end.winner} ({end.kind})", source, line)
                if (not _points_ok(d.wins[1], end.points, needed, length) and length
                        and not rules.jacoby and end.kind != "single" and end.centred
                        and d.wins[1] == end.cube and not jacoby_refuted):
                    # a gammon scored single with the cube centred: the file's matches are
                    # played with the Jacoby rule (some Backgammon Galaxy matches are)
                    rules = replace(rules, jacoby=True)
                    end.points = end.cube
                if not _points_ok(d.wins[1], end.points, needed, length):
                    raise MatchReplayError(
                        f"game {d.number}: the file awards {d.wins[1]} points; the game "
                        f"({end.kind}, cube {end.cube}) is worth {end.points}", source, line)
                points = d.wins[1]
            if end.kind != "single" and end.centred and end.kind in ("gammon", "backgammon"):
                jacoby_refuted = jacoby_refuted or points > end.cube
            result = GameOutcome(end.winner, points, end.kind, end.cube, end.level)
        elif d.wins is not None:
            winner, points = d.wins
            cube = end.offered_cube
            level = 1 if points <= cube else 2 if points <= 2 * cube else 3
            needed = _needed(length, d.score, winner)
            # a resignation of the whole match (online servers) awards what the winner needed
            if points < 1 or not (_points_ok(points, level * cube, needed, length)
                                  or points == needed):
                raise MatchReplayError(
                    f"game {d.number}: {points} points for a resignation at cube {cube}",
                    source, line)
            result = GameOutcome(winner, points, "resign", cube, level)
        else:
            last = d.lines[-1] if d.lines else d.score_line
            raise MatchFileError(
                f"game {d.number} has no result (the file ends in the middle of it: "
                "truncated?)", source, last)
        games.append(GameRecord(d.number, d.score, tuple(d.actions), result))
        expected = _score_after(length, d.score, result)
    return MatchRecord(
        length=length,
        players=players,
        games=tuple(games),
        rules=rules,
        tags=dict(tags or {}),
        source=source,
    )


# ----------------------------------------------------------------------------- files


def read_match(
    source: str | os.PathLike[str] | bytes, *, format: str | None = None, check: bool = True
) -> MatchRecord:
    """Read a match file (``.mat`` in all its dialects, or gnubg ``.sgf``).

    Parameters
    ----------
    source : path, str or bytes
        A file path, or the file's contents (a ``str`` holding a newline, or ``bytes``).
    format : str, optional
        ``"mat"`` or ``"sgf"``; detected from the contents by default.
    check : bool
        Replay the match to check every play and result (default).

    Raises
    ------
    MatchFileError
        For a file that is not a match, is truncated, binary, holds an unknown line, a
        score contradicting the results before it, a cube value that is not a power of
        two, or (with ``check``) an illegal play: one line naming the file and the line.
    """
    return _formats().read_source(source, format=format, check=check)  # type: ignore[no-any-return]
