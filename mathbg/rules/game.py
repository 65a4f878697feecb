"""The flow of one game: an immutable state machine, results, and a random game player.

A turn is: an optional cube action, the roll, the play (gnubg manual "Rules of the game").
The states (:class:`Phase`) and the actions allowed in each:

============  ==========================================================================
phase         actions
============  ==========================================================================
OPENING       :meth:`~GameState.opening` (one die each; ties are re-rolled)
ROLL          :meth:`~GameState.double`, :meth:`~GameState.roll`, :meth:`~GameState.resign`
CUBE          :meth:`~GameState.take`, :meth:`~GameState.drop`, :meth:`~GameState.beaver`,
              :meth:`~GameState.raccoon` (by the player the offer is made to)
MOVE          :meth:`~GameState.play`, :meth:`~GameState.resign`
RESIGNATION   :meth:`~GameState.accept_resignation`, :meth:`~GameState.reject_resignation`
OVER          none; :attr:`~GameState.result` holds the result
============  ==========================================================================

Results (bkgm.com/rules.html): the winner bears off all checkers. The loser has borne off
at least one checker: single game (1 x cube). None: gammon (2 x cube). None and a checker
on the bar or in the winner's home board: backgammon (3 x cube). A dropped double ends the
game at the value before the double; an accepted resignation at the level offered x cube
(gnubg's rule). A rejected resignation may be renewed in the same turn only at a higher
level (gnubg's ``fResignationDeclined``); the record resets at the next turn.

The rule set decides the rest (:mod:`mathbg.rules.ruleset`): the legal plays, how a play
ends the game (:meth:`RuleSet.game_end`; Plakoto adds the mother rule and a draw), and,
with ``opening_doubles`` (Tavla, the Greek games, Long Nardi), that the winner of the
opening roll rolls both dice again instead of playing the two opening dice.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mathbg.errors import IllegalActionError, IllegalPlayError
from mathbg.rules.cube import CubeRules, CubeState, OfferKind
from mathbg.rules.dice import Roll, parse_roll
from mathbg.rules.match import GameStatus, MatchState, ResultKind, game_points
from mathbg.rules.position import Position
from mathbg.rules.ruleset import BACKGAMMON, RuleSet, classify_result, get_ruleset

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.plays import Play, Plays

__all__ = [
    "GameResult",
    "GameState",
    "Phase",
    "PlayedGame",
    "PlayedMatch",
    "Resignation",
    "classify_result",
    "play_random_game",
    "play_random_match",
]


class Phase(enum.Enum):
    """Where a game stands (see the module docstring)."""

    OPENING = "opening"
    ROLL = "roll"
    CUBE = "cube"
    MOVE = "move"
    RESIGNATION = "resignation"
    OVER = "over"


@dataclass(frozen=True)
class GameResult:
    """The end of a game.

    Attributes
    ----------
    winner : int or None
        Player 0 or 1; None for a draw (Plakoto, both mothers pinned).
    kind : ResultKind or None
        Single, gammon or backgammon (for a drop: single; for a resignation: the level);
        None for a draw.
    cube : int
        The cube value the game ended at.
    points : int
        Points won before any match cap (kind x cube, or 1 x cube under the Jacoby rule
        with a centred cube; a drop wins the value before the double).
    reason : str
        ``"played"``, ``"dropped"`` or ``"resigned"``; Plakoto also ``"mother"`` (a
        pinned mother: a gammon) and ``"draw"`` (0 points).
    """

    winner: int | None
    kind: ResultKind | None
    cube: int
    points: int
    reason: str = "played"

    @property
    def name(self) -> str:
        """``"single"``, ``"gammon"``, ``"backgammon"``, ``"mother"`` or ``"draw"``."""
        if self.reason in ("mother", "draw") or self.kind is None:
            return self.reason
        return self.kind.name.lower()


@dataclass(frozen=True)
class Resignation:
    """A resignation offer: ``by`` offers to lose ``kind`` (1, 2, 3) x cube."""

    by: int
    kind: ResultKind


@dataclass(frozen=True)
class GameState:
    """A game in progress (immutable; actions return new states).

    Attributes
    ----------
    position : Position
        The board from the point of view of player ``turn`` (the player on roll).
    turn : int
        The player on roll (0 or 1).
    phase : Phase
    cube : CubeState
    dice : (int, int) or None
        The roll being played (phase MOVE), higher die first.
    cube_rules : CubeRules
    ruleset : RuleSet
    match : MatchState or None
        The match context (length, score, Crawford) or None for money play.
    resignation : Resignation or None
        A resignation waiting for an answer.
    declined : int
        Highest resignation level the opponent declined this turn (0 = none).
    resume : Phase or None
        The phase a rejected resignation returns to.
    result : GameResult or None
        Set when the phase is OVER.
    automatic_doubles : int
        Automatic doubles made on opening ties so far.
    """

    position: Position = field(default_factory=Position.initial)
    turn: int = 0
    phase: Phase = Phase.OPENING
    cube: CubeState = field(default_factory=CubeState)
    dice: Roll | None = None
    cube_rules: CubeRules = field(default_factory=CubeRules)
    ruleset: RuleSet = BACKGAMMON
    match: MatchState | None = None
    resignation: Resignation | None = None
    declined: int = 0
    resume: Phase | None = None
    result: GameResult | None = None
    automatic_doubles: int = 0

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(
        cls,
        match: MatchState | None = None,
        cube_rules: CubeRules | None = None,
        variant: str | RuleSet = "backgammon",
    ) -> GameState:
        """A game about to start (phase OPENING).

        Parameters
        ----------
        match : MatchState, optional
            The match context; None (or a money MatchState) for money play. A match that
            is over cannot start a game.
        cube_rules : CubeRules, optional
            Optional cube rules; money-only options are refused in match play.
        variant : str or RuleSet
            The rule set: ``"backgammon"`` (default), ``"portes"``, ``"plakoto"``,
            ``"fevga"``, ``"tavla"``, ``"long-nardi"``, or a RuleSet.
        """
        rules = cube_rules or CubeRules()
        if match is not None and match.length:
            rules.check_match_play()
            if match.is_over:
                raise IllegalActionError("the match is over: no new game")
        rs = get_ruleset(variant)
        return cls(position=rs.initial_position(), cube_rules=rules, ruleset=rs, match=match)

    # ------------------------------------------------------------------ helpers
    @property
    def is_money(self) -> bool:
        return self.match is None or self.match.is_money

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def max_resignation(self) -> int:
        """The highest resignation level the rule set knows: 3 with backgammons, 2 with
        gammons only (the variants), else 1."""
        return 3 if self.ruleset.backgammons else 2 if self.ruleset.gammons else 1

    def _require(self, *phases: Phase, action: str) -> None:
        if self.phase not in phases:
            allowed = " or ".join(p.value for p in phases)
            raise IllegalActionError(
                f"cannot {action} now: the game is in phase {self.phase.value!r} (needs {allowed})"
            )

    def _finish(
        self, winner: int | None, kind: ResultKind | None, points: int, reason: str
    ) -> GameState:
        res = GameResult(
            winner=winner, kind=kind, cube=self.cube.value, points=points, reason=reason
        )
        return replace(self, phase=Phase.OVER, result=res, resignation=None, resume=None)

    # ------------------------------------------------------------------ opening
    def opening(self, die0: int, die1: int) -> GameState:
        """The opening roll: ``die0`` for player 0, ``die1`` for player 1.

        Equal dice are rolled again (the state stays in OPENING, with an automatic double
        if those are enabled); otherwise the higher die's player moves first, playing both
        numbers, or, when the rule set has ``opening_doubles`` (Tavla), rolling both dice
        again (phase ROLL), so the first play may be a double.
        """
        self._require(Phase.OPENING, action="roll the opening")
        d0, d1 = parse_roll((die0, die1))  # validates
        del d0, d1
        if die0 == die1:
            cube = self.cube.automatic_double(
                self.cube_rules, self.automatic_doubles, self.is_money
            )
            if cube is self.cube:
                return self
            return replace(self, cube=cube, automatic_doubles=self.automatic_doubles + 1)
        winner = 0 if die0 > die1 else 1
        pos = self.position if winner == self.turn else self.position.swap()
        if self.ruleset.opening_doubles:
            return replace(self, position=pos, turn=winner, phase=Phase.ROLL, dice=None)
        return replace(
            self,
            position=pos,
            turn=winner,
            phase=Phase.MOVE,
            dice=(max(die0, die1), min(die0, die1)),
        )

    # ------------------------------------------------------------------ cube
    def _cube_match(self) -> MatchState | None:
        if self.match is None:
            return None
        return replace(self.match, cube=self.cube.value, cube_owner=self.cube.owner)

    def double_refusal(self) -> str | None:
        """Why the player on roll may not double now (None if they may)."""
        if self.phase != Phase.ROLL:
            return f"doubling happens before rolling (phase is {self.phase.value!r})"
        if not self.ruleset.cube:
            return f"{self.ruleset.name} is played without the cube"
        return self.cube.double_refusal(self.turn, self.cube_rules, self._cube_match())

    def can_double(self) -> bool:
        return self.double_refusal() is None

    def double(self) -> GameState:
        """The player on roll doubles."""
        why = self.double_refusal()
        if why:
            raise IllegalActionError(f"cannot double: {why}")
        return replace(
            self,
            cube=self.cube.double(self.turn, self.cube_rules, self._cube_match()),
            phase=Phase.CUBE,
        )

    def _responder(self) -> int:
        assert self.cube.offer is not None
        return self.cube.offer.responder

    def take(self) -> GameState:
        """The player the offer was made to takes it; the player on roll then rolls."""
        self._require(Phase.CUBE, action="take")
        return replace(self, cube=self.cube.take(self._responder()), phase=Phase.ROLL)

    def drop(self) -> GameState:
        """The player the offer was made to drops it and loses the game."""
        self._require(Phase.CUBE, action="drop")
        winner, points = self.cube.drop(self._responder())
        return self._finish(winner, ResultKind.SINGLE, points, "dropped")

    def beaver(self) -> GameState:
        """The doubled player beavers (money play, if allowed)."""
        self._require(Phase.CUBE, action="beaver")
        return replace(self, cube=self.cube.beaver(self._responder(), self.cube_rules, self.match))

    def raccoon(self) -> GameState:
        """The original doubler raccoons a beaver (money play, if allowed)."""
        self._require(Phase.CUBE, action="raccoon")
        return replace(self, cube=self.cube.raccoon(self._responder(), self.cube_rules, self.match))

    # ------------------------------------------------------------------ dice and plays
    def roll(self, dice: Any) -> GameState:
        """The player on roll rolls ``dice`` (two values 1..6)."""
        self._require(Phase.ROLL, action="roll")
        return replace(self, dice=parse_roll(dice), phase=Phase.MOVE)

    def legal_plays(self) -> Plays[Position]:
        """The legal plays of the current roll."""
        self._require(Phase.MOVE, action="list plays")
        assert self.dice is not None
        return self.ruleset.legal_plays(self.position, self.dice)

    def play(self, play: Play[Position] | Position | str | None) -> GameState:
        """The player on roll makes a play.

        Parameters
        ----------
        play : Play, Position, str or None
            A legal :class:`Play`, its resulting position (mover's view), its notation; or
            None / ``""`` when the roll cannot be played (the turn passes).

        Raises
        ------
        IllegalPlayError
            If it is not one of the legal plays (or None while a play is possible).
        """
        from mathbg.rules.plays import Play

        self._require(Phase.MOVE, action="play")
        plays = self.legal_plays()
        assert self.dice is not None  # the MOVE phase has dice
        if play is None or (isinstance(play, str) and not play.strip()):
            if len(plays):
                raise IllegalPlayError(
                    f"{self.dice[0]}-{self.dice[1]} can be played: choose one of {len(plays)} plays"
                )
            result = self.position
        elif isinstance(play, str):
            result = plays.parse(play).result
        elif isinstance(play, Play):
            if play.position != self.position or play.result not in plays:
                raise IllegalPlayError(f"{play.notation!r} is not a legal play here")
            result = play.result
        elif isinstance(play, Position):
            if play not in plays:
                raise IllegalPlayError("that position cannot be reached with this roll")
            result = play
        else:
            raise IllegalPlayError(f"not a play: {play!r}")
        end = self.ruleset.game_end(result)
        if end is not None:
            kind, reason = end
            done = replace(self, position=result, dice=None)
            if kind is None:  # a draw (Plakoto: both mothers pinned)
                return done._finish(None, None, 0, reason)
            points = game_points(
                kind,
                self.cube.value,
                jacoby=self.cube_rules.jacoby,
                cube_centred=self.cube.centred,
                money=self.is_money,
            )
            return done._finish(self.turn, kind, points, reason)
        return replace(
            self,
            position=result.swap(),
            turn=1 - self.turn,
            phase=Phase.ROLL,
            dice=None,
            declined=0,
        )

    # ------------------------------------------------------------------ resignation
    def resign(self, kind: int = 1) -> GameState:
        """The player on roll offers to resign a single (1), gammon (2) or backgammon (3)."""
        self._require(Phase.ROLL, Phase.MOVE, action="resign")
        try:
            k = ResultKind(kind)
        except ValueError:
            raise IllegalActionError(
                f"cannot resign: level {kind!r} is not 1 (single), 2 (gammon) or 3 (backgammon)"
            ) from None
        if k <= self.declined:
            raise IllegalActionError(
                f"cannot resign a {k.name.lower()}: the opponent already declined a "
                f"{ResultKind(self.declined).name.lower()} this turn (offer more)"
            )
        if k > self.max_resignation:
            raise IllegalActionError(
                f"cannot resign a {k.name.lower()}: {self.ruleset.name} has no "
                f"{k.name.lower()}s (offer at most a "
                f"{ResultKind(self.max_resignation).name.lower()})"
            )
        return replace(
            self,
            phase=Phase.RESIGNATION,
            resume=self.phase,
            resignation=Resignation(by=self.turn, kind=k),
        )

    def accept_resignation(self) -> GameState:
        """The opponent accepts: the game ends at the level offered x cube."""
        self._require(Phase.RESIGNATION, action="accept a resignation")
        assert self.resignation is not None
        r = self.resignation
        return self._finish(1 - r.by, r.kind, int(r.kind) * self.cube.value, "resigned")

    def reject_resignation(self) -> GameState:
        """The opponent rejects: play continues where it stopped."""
        self._require(Phase.RESIGNATION, action="reject a resignation")
        assert self.resignation is not None and self.resume is not None
        return replace(
            self,
            phase=self.resume,
            resume=None,
            resignation=None,
            declined=int(self.resignation.kind),
        )

    # ------------------------------------------------------------------ gnubg snapshot
    def match_state(self) -> MatchState:
        """This state as a gnubg :class:`MatchState` (for Match IDs)."""
        base = self.match or MatchState(jacoby=self.cube_rules.jacoby)
        status = {
            Phase.OVER: GameStatus.OVER,
            Phase.OPENING: GameStatus.NONE,
        }.get(self.phase, GameStatus.PLAYING)
        if self.result is not None and self.result.reason == "dropped":
            status = GameStatus.DROPPED
        elif self.result is not None and self.result.reason == "resigned":
            status = GameStatus.RESIGNED
        offer = self.cube.offer
        acting = self.turn
        if self.phase == Phase.CUBE and offer is not None:
            acting = offer.responder
        elif self.phase == Phase.RESIGNATION:
            acting = 1 - self.turn
        return replace(
            base,
            cube=self.cube.value
            if offer is None or offer.kind == OfferKind.DOUBLE
            else offer.value // 2,
            cube_owner=self.cube.owner,
            on_roll=self.turn,
            turn=acting,
            dice=self.dice if self.phase == Phase.MOVE else None,
            doubled=self.phase == Phase.CUBE,
            resigned=int(self.resignation.kind) if self.resignation else 0,
            status=status,
        )


# ----------------------------------------------------------------------------------------
# random play


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: every state from the opening to the end, and the result."""

    states: tuple[GameState, ...]
    result: GameResult

    @property
    def final(self) -> GameState:
        return self.states[-1]


def play_random_game(
    rng: random.Random | int | None = None,
    *,
    match: MatchState | None = None,
    cube_rules: CubeRules | None = None,
    cube_actions: bool = False,
    resignations: bool = False,
    max_turns: int = 20_000,
    variant: str | RuleSet = "backgammon",
) -> PlayedGame:
    """Play a game with uniformly random legal choices (for tests and position sampling).

    Parameters
    ----------
    rng : random.Random or int, optional
        Source of dice and choices (an int seeds a new one).
    match, cube_rules : see :meth:`GameState.new`.
    cube_actions : bool
        Let the players double (10 % of chances) and answer doubles at random.
    resignations : bool
        Let the player on roll offer a random resignation now and then (1 %).
    max_turns : int
        Safety limit; reaching it raises RuntimeError (never observed: random games end).
    variant : str or RuleSet
        The rule set (default standard backgammon).
    """
    r = rng if isinstance(rng, random.Random) else random.Random(rng)
    state = GameState.new(match=match, cube_rules=cube_rules, variant=variant)
    states = [state]
    for _ in range(max_turns * 4):
        if state.phase == Phase.OVER:
            assert state.result is not None
            return PlayedGame(states=tuple(states), result=state.result)
        if state.phase == Phase.OPENING:
            state = state.opening(r.randint(1, 6), r.randint(1, 6))
        elif state.phase == Phase.ROLL:
            top = state.max_resignation
            if resignations and state.declined < top and r.random() < 0.01:
                state = state.resign(r.randint(state.declined + 1, top))
            elif cube_actions and state.can_double() and r.random() < 0.1:
                state = state.double()
            else:
                state = state.roll((r.randint(1, 6), r.randint(1, 6)))
        elif state.phase == Phase.CUBE:
            choices = ["take", "drop"]
            for extra in ("beaver", "raccoon"):
                try:
                    getattr(state, extra)()
                    choices.append(extra)
                except IllegalActionError:
                    pass
            state = getattr(state, r.choice(choices))()
        elif state.phase == Phase.RESIGNATION:
            state = state.accept_resignation() if r.random() < 0.5 else state.reject_resignation()
        elif state.phase == Phase.MOVE:
            plays = state.legal_plays()
            state = state.play(plays[r.randrange(len(plays))] if len(plays) else None)
        states.append(state)
    raise RuntimeError(f"random game did not finish in {max_turns} turns")


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match: the state before each game with that game's result, and the end."""

    games: tuple[tuple[MatchState, GameResult], ...]
    final: MatchState


def play_random_match(
    length: int,
    rng: random.Random | int | None = None,
    *,
    cube_actions: bool = True,
) -> PlayedMatch:
    """Play a whole match of ``length`` points with random choices."""
    r = rng if isinstance(rng, random.Random) else random.Random(rng)
    m = MatchState(length=length, status=GameStatus.NONE)
    games = []
    while not m.is_over:
        rec = play_random_game(r, match=m, cube_actions=cube_actions)
        games.append((m, rec.result))
        assert rec.result.winner is not None  # a finished game has a winner
        m = m.after_game(rec.result.winner, rec.result.points)
    return PlayedMatch(games=tuple(games), final=m)
