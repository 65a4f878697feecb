"""Match play and money sessions: :class:`MatchState` and scoring.

Rules (bkgm.com/rules.html; gnubg manual "Match play"; the competitive rules in the
project's seed texts):

- A match is played to ``length`` points; a money session has no length (``length = 0``).
- A game is worth ``kind x cube`` points, ``kind`` = 1 (single), 2 (gammon) or 3
  (backgammon); a match gives no credit beyond the points needed to win it.
- Jacoby rule (money only, an option): a gammon or backgammon counts single while the cube
  is centred (never turned).
- Crawford rule: the game right after either player *first* reaches ``length - 1`` points
  (the Crawford game) is played without the cube; every later game is post-Crawford and
  the cube is back. The Crawford game therefore happens at most once per match.

:class:`MatchState` mirrors gnubg's match state as stored in a Match ID (see
:mod:`mathbg.rules.idcodec`): players are 0 and 1 (gnubg's player 1 is the bottom player,
XG's "you"), ``on_roll`` is the player whose turn it is (the Position ID is from their
side) and ``turn`` the player who must act now (the opponent when a double or a
resignation has been offered). Post-Crawford is derived, never stored, as in gnubg.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from mathbg.errors import InvalidIdError, InvalidParameterError, InvalidScoreError
from mathbg.rules.idcodec import match_fields_from_id, match_id_from_fields

__all__ = ["GameStatus", "MatchState", "ResultKind", "ScoreState", "game_points", "may_double"]

#: Largest cube value gnubg supports (``MAX_CUBE``); Match IDs store its log2 in 4 bits.
MAX_CUBE_LOG2 = 15
#: Largest match length / score a Match ID can hold (15 bits); gnubg's MAXSCORE is 64.
MAX_SCORE = (1 << 15) - 1


class GameStatus(enum.IntEnum):
    """State of the current game (Match ID bits 8-10, gnubg ``gamestate``)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class ResultKind(enum.IntEnum):
    """How a game is won (also the levels of a resignation): its multiple of the cube."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


def game_points(
    kind: int, cube: int, *, jacoby: bool = False, cube_centred: bool = True, money: bool = True
) -> int:
    """Points of a game won with ``kind`` (1, 2, 3) at cube value ``cube``.

    ``kind x cube``, except under the Jacoby rule (money play only) where a gammon or
    backgammon counts single while the cube is centred.
    """
    k = int(ResultKind(kind))
    if jacoby and money and cube_centred:
        k = 1
    return k * cube


def _is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


#: The cube owner's words (:class:`mathbg.rules.cube.CubeOwner`'s values).
_OWNERS = ("centre", "player", "opponent")


class ScoreState(enum.StrEnum):
    """What kind of game a score makes: the one word for it everywhere in mathbg (cube
    theory, the score matrix, self-play, the exact bearoff solver, the audit, the JSON).

    ``MONEY``: no match. ``NORMAL``: neither side 1-away. ``CRAWFORD``: the Crawford game
    (a side has just reached 1-away; no cube). ``POST_CRAWFORD``: a later game with one
    side 1-away (only the trailer may double). ``DMP``: double match point, both sides
    1-away (a post-Crawford game in which the cube is dead).
    """

    MONEY = "money"
    NORMAL = "normal"
    CRAWFORD = "crawford"
    POST_CRAWFORD = "post-crawford"
    DMP = "dmp"

    def __repr__(self) -> str:  # as its word: how tables, frames and tuples show it
        return repr(self.value)

    @classmethod
    def of(cls, away: tuple[int, int] | None, *, crawford: bool = False) -> ScoreState:
        """The state of a score (``None``: money).

        A side 1-away means post-Crawford unless ``crawford`` (the Crawford game); both
        1-away is double match point.

        Parameters
        ----------
        away : (int, int) or None
            The score ``(player_away, opponent_away)``, or None for money play.
        crawford : bool, optional
            The Crawford game (a side 1-away).

        Returns
        -------
        ScoreState

        Raises
        ------
        InvalidScoreError
            For a score that is not a pair of whole numbers >= 1, or ``crawford`` without
            exactly one side 1-away.

        Examples
        --------
        >>> [ScoreState.of(s) for s in [(3, 3), (1, 3), (1, 1), None]]
        ['normal', 'post-crawford', 'dmp', 'money']
        >>> ScoreState.of((1, 3), crawford=True) is ScoreState.CRAWFORD
        True
        """
        if away is None:
            if crawford:
                raise InvalidScoreError("money play has no Crawford game")
            return cls.MONEY
        from mathbg._validate import away_score

        a, b = away_score(away)
        if a == 1 and b == 1:
            if crawford:
                raise InvalidScoreError(
                    "1-away/1-away cannot be the Crawford game (only one side reaches 1-away "
                    "first)"
                )
            return cls.DMP
        if a == 1 or b == 1:
            return cls.CRAWFORD if crawford else cls.POST_CRAWFORD
        if crawford:
            raise InvalidScoreError(
                f"the Crawford game needs a side 1-away; the score is {a}-away/{b}-away"
            )
        return cls.NORMAL

    @property
    def post_crawford(self) -> bool:
        """A post-Crawford game (double match point included)."""
        return self in (ScoreState.POST_CRAWFORD, ScoreState.DMP)


def may_double(
    away: tuple[int, int] | None,
    cube: int,
    owner: str,
    *,
    crawford: bool = False,
    cube_limit: int | None = None,
) -> bool:
    """May the first-named player double? The one answer every part of mathbg uses.

    gnubg's rules (``GetDPEq``, ``CommandDouble``): never in the Crawford game, never when
    the player already needs no more than the cube (a dead cube: the post-Crawford leader,
    double match point), only from the centre or the player's own side, and never above
    the cube limit. Money play (``away=None``): centre or own cube, within the limit.

    Parameters
    ----------
    away : (int, int) or None
        The score ``(player_away, opponent_away)``, None for money play.
    cube : int
        The cube value.
    owner : {"centre", "player", "opponent"}
        Who holds the cube, seen from the player: a :class:`~mathbg.rules.cube.CubeOwner`
        (a ``str``) or its word. (This module sits below :mod:`mathbg.rules.cube`, so it
        reads the word.)
    crawford : bool, optional
        The Crawford game.
    cube_limit : int, optional
        The largest cube value allowed (None: no limit).

    Returns
    -------
    bool
        Whether the player may double.

    Raises
    ------
    InvalidScoreError
        For a score that is not a pair of whole numbers >= 1, or a Crawford game without
        exactly one side 1-away.
    InvalidParameterError
        For an unknown owner.

    Examples
    --------
    >>> may_double((3, 3), 1, "centre"), may_double((3, 3), 1, "opponent")
    (True, False)
    >>> may_double((1, 3), 1, "centre")  # the post-Crawford leader
    False
    >>> may_double((3, 3), 2, "player", cube_limit=2), may_double(None, 64, "centre")
    (False, True)
    """
    who = str(owner).strip().lower()
    if who not in _OWNERS:
        raise InvalidParameterError(
            f"cube owner must be one of centre, player, opponent; got {owner!r}"
        )
    if who == "opponent":
        return False
    if cube_limit is not None and 2 * cube > cube_limit:
        return False
    state = ScoreState.of(away, crawford=crawford)
    if state is ScoreState.MONEY:
        return True
    if state is ScoreState.CRAWFORD:
        return False
    assert away is not None
    return int(away[0]) > cube


@dataclass(frozen=True)
class MatchState:
    """The state of a match (or money session) and of its current game, as gnubg keeps it.

    Parameters
    ----------
    length : int
        Match length in points; 0 for money play.
    score : (int, int)
        Points of player 0 and player 1.
    crawford : bool
        The current game is the Crawford game.
    cube : int
        Cube value (a power of two).
    cube_owner : int or None
        0 or 1, or None when the cube is centred.
    on_roll : int
        The player whose turn it is (gnubg ``fMove``).
    turn : int or None
        The player who must act now (gnubg ``fTurn``); defaults to ``on_roll``.
    dice : (int, int) or None
        The dice rolled this turn, or None before rolling.
    doubled : bool
        A double has been offered and not yet answered.
    resigned : int
        A resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon.
    status : GameStatus
        State of the current game.
    jacoby : bool
        The Jacoby rule is in use (money play only; stored in the Match ID as "not in
        use", bit 66).

    Raises
    ------
    InvalidScoreError
        For an impossible combination (score above the length, a Crawford money game, ...).
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    cube: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    turn: int | None = None
    dice: tuple[int, int] | None = None
    doubled: bool = False
    resigned: int = 0
    status: GameStatus = GameStatus.PLAYING
    jacoby: bool = True

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.turn is None:
            set_(self, "turn", self.on_roll)
        set_(self, "score", tuple(int(s) for s in self.score))
        set_(self, "status", GameStatus(self.status))
        if self.dice is not None:
            set_(self, "dice", (int(self.dice[0]), int(self.dice[1])))
        if not 0 <= self.length <= MAX_SCORE:
            raise InvalidScoreError(f"match length {self.length} not in 0..{MAX_SCORE}")
        if len(self.score) != 2 or min(self.score) < 0:
            raise InvalidScoreError(f"scores must be two non-negative integers: {self.score}")
        if self.length and max(self.score) > self.length:
            raise InvalidScoreError(
                f"score {self.score[0]}-{self.score[1]} exceeds the match length {self.length}"
            )
        if self.length and self.score[0] >= self.length and self.score[1] >= self.length:
            raise InvalidScoreError("both players cannot have won the match")
        if self.length and max(self.score) >= self.length and self.status == GameStatus.PLAYING:
            raise InvalidScoreError(
                f"the match is over (score {self.score[0]}-{self.score[1]} in a "
                f"{self.length}-point match): no game is being played"
            )
        if not _is_power_of_two(self.cube) or self.cube > (1 << MAX_CUBE_LOG2):
            raise InvalidScoreError(
                f"cube value {self.cube} is not a power of two up to {1 << MAX_CUBE_LOG2}"
            )
        if self.cube_owner not in (None, 0, 1):
            raise InvalidScoreError(f"cube owner must be 0, 1 or None (centred): {self.cube_owner}")
        if self.on_roll not in (0, 1) or self.turn not in (0, 1):
            raise InvalidScoreError("players are numbered 0 and 1")
        if self.crawford:
            if not self.length:
                raise InvalidScoreError("money play has no Crawford game")
            if self.length - 1 not in self.score:
                raise InvalidScoreError(
                    f"a Crawford game needs a player 1-away: score {self.score[0]}-"
                    f"{self.score[1]} in a {self.length}-point match"
                )
            if self.cube != 1 or self.cube_owner is not None or self.doubled:
                raise InvalidScoreError("the cube is not used in the Crawford game")
        if self.dice is not None:
            if len(self.dice) != 2 or not all(1 <= d <= 6 for d in self.dice):
                raise InvalidScoreError(f"dice must be two values 1..6: {self.dice}")
        if self.resigned not in (0, 1, 2, 3):
            raise InvalidScoreError(f"resignation level {self.resigned} not in 0..3")
        if self.doubled and self.dice is not None:
            raise InvalidScoreError("a double is offered before rolling, not after")

    # ------------------------------------------------------------------ IDs
    @classmethod
    def from_id(cls, mid: str) -> MatchState:
        """Decode a gnubg Match ID (bit 66, "Jacoby not in use", accepted either way).

        Raises
        ------
        InvalidIdError
            If ``mid`` is malformed or its fields are inconsistent, naming the problem.
        """
        fields = match_fields_from_id(mid)
        try:
            return cls(**fields)
        except InvalidScoreError as exc:
            raise InvalidIdError(f"invalid Match ID {mid!r}: {exc}") from None

    @property
    def id(self) -> str:
        """The gnubg Match ID (12 characters); the higher die is written first, as gnubg."""
        # every field passed by name (same shape as other keyword calls, no shared logic)
        return match_id_from_fields(
            length=self.length,
            score=self.score,
            crawford=self.crawford,
            cube=self.cube,
            cube_owner=self.cube_owner,
            on_roll=self.on_roll,
            turn=int(self.on_roll if self.turn is None else self.turn),
            dice=self.dice,
            doubled=self.doubled,
            resigned=self.resigned,
            status=int(self.status),
            jacoby=self.jacoby,
        )

    # ------------------------------------------------------------------ derived
    @property
    def is_money(self) -> bool:
        """True for money play (no match length)."""
        return self.length == 0

    @property
    def post_crawford(self) -> bool:
        """A post-Crawford game: not the Crawford game, and a player is 1-away (gnubg's
        ``fPostCrawford = !fCrawford && some score == length - 1``)."""
        return (
            bool(self.length)
            and not self.crawford
            and not self.is_over
            and self.length - 1 in self.score
        )

    def away(self, player: int) -> int:
        """Points ``player`` still needs (match play only)."""
        if not self.length:
            raise InvalidScoreError("money play has no 'away' score")
        return self.length - self.score[player]

    @property
    def is_over(self) -> bool:
        """The match is won (never for money play)."""
        return bool(self.length) and max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        """The player who has won the match, or None."""
        if not self.is_over:
            return None
        return 0 if self.score[0] >= self.length else 1

    def score_state(self) -> ScoreState:
        """The kind of game this is (:class:`ScoreState`; money for a money session).

        Raises
        ------
        InvalidScoreError
            When the match is over.
        """
        if not self.length:
            return ScoreState.MONEY
        if self.is_over:
            raise InvalidScoreError("the match is over: no game is played at its score")
        away = (self.away(0), self.away(1))
        return ScoreState.of(away, crawford=self.crawford and (1 in away) and away != (1, 1))

    def cube_available(self, player: int, cube_limit: int | None = None) -> bool:
        """May ``player`` double now, as far as the match is concerned?

        :func:`may_double` at this score, seen from ``player``: not in the Crawford game,
        not when the cube is owned by the opponent, not when the cube is dead for
        ``player`` (its value already at least the points ``player`` needs: gnubg's rule
        in ``CommandDouble``, which also forbids the post-Crawford leader to double), and
        not above ``cube_limit``.
        """
        if self.is_over:
            return False
        owner = _OWNERS[0] if self.cube_owner is None else _OWNERS[1 + (self.cube_owner != player)]
        if not self.length:
            return may_double(None, self.cube, owner, cube_limit=cube_limit)
        away, opp = self.away(player), self.away(1 - player)
        crawford = bool(self.crawford) and (away == 1) != (opp == 1)
        return may_double((away, opp), self.cube, owner, crawford=crawford, cube_limit=cube_limit)

    def swap_players(self) -> MatchState:
        """The same state with players 0 and 1 exchanged (gnubg's ``swap players``)."""
        return replace(
            self,
            score=(self.score[1], self.score[0]),
            cube_owner=None if self.cube_owner is None else 1 - self.cube_owner,
            on_roll=1 - self.on_roll,
            turn=1 - int(self.turn or 0),
        )

    # ------------------------------------------------------------------ scoring
    def points_for(self, kind: int, cube: int | None = None) -> int:
        """Points a game won with ``kind`` is worth now (before the match cap)."""
        c = self.cube if cube is None else cube
        return game_points(
            kind, c, jacoby=self.jacoby, cube_centred=self.cube_owner is None, money=self.is_money
        )

    def after_game(self, winner: int, points: int) -> MatchState:
        """The state before the next game, after ``winner`` scored ``points``.

        Match play credits at most the points the winner still needed. The next game is
        the Crawford game iff no player was 1-away before this game and one is after it
        (so the Crawford game happens once); the cube is reset to 1, centred.

        Raises
        ------
        InvalidScoreError
            If the match is already over, or for a bad winner/points value.
        """
        if winner not in (0, 1):
            raise InvalidScoreError(f"winner must be player 0 or 1, got {winner}")
        if points < 1:
            raise InvalidScoreError(f"a game is worth at least one point, got {points}")
        if self.is_over:
            raise InvalidScoreError("the match is over")
        score = list(self.score)
        if self.length:
            score[winner] = min(self.length, score[winner] + points)
            before = self.length - 1 in self.score
            crawford = not before and self.length - 1 in score and max(score) < self.length
        else:
            score[winner] += points
            crawford = False
        return replace(
            self,
            score=(score[0], score[1]),
            crawford=crawford,
            cube=1,
            cube_owner=None,
            dice=None,
            doubled=False,
            resigned=0,
            status=GameStatus.NONE,
            turn=self.on_roll,
        )
