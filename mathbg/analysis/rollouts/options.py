"""What a rollout is: :class:`RolloutOptions`, every parameter checked before any trial.

The position and its match state (a Match ID or XGID gives the score, the cube and the
Crawford flag; explicit keywords override it), the score's values (MET, Crawford,
cube limit), the player from the engine registry, the lines and the trials. A bad value
raises one :class:`~mathbg.errors.MathbgError` naming it, before any work.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mathbg._validate import strict_integer
from mathbg.analysis.base import Board, Player
from mathbg.analysis.rollouts.trials import Line
from mathbg.analysis.rollouts.values import MatchValues, MoneyValues, ScoreValues, table_digest
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met.table import MET
from mathbg.rules.match import may_double

__all__ = ["DEFAULT_TRIALS", "LINES", "MAX_TRIALS", "STRATA", "TRUNCATIONS", "RolloutOptions"]

#: Trials are played in multiples of the 36 first rolls of the dice rotation.
STRATA = 36
#: Trials without ``target_se`` (36 x 36: every pair of first and second roll once).
DEFAULT_TRIALS = 1296
#: Most trials of one rollout (and the default cap with ``target_se``).
MAX_TRIALS = 36 * 100_000
#: The lines a rollout can play: no double (the position's cube), double/take (the cube
#: doubled and owned by the opponent).
LINES: tuple[str, ...] = ("no_double", "double_take")
#: Where a trial may stop early (None: every game is played out).
TRUNCATIONS: tuple[str, ...] = ("exact", "race")
#: The manifest's version (a store of another version is refused).
VERSION = 1
_OWNERS = ("centre", "player", "opponent")


@dataclass(frozen=True)
class RolloutOptions:
    """A rollout's parameters, checked at once (bad input stops here, before any trial).

    Attributes
    ----------
    position : Position or str
        A position (the side on roll before rolling), gnubg Position ID, ``POSID:MATCHID``
        or XGID; a Match ID or XGID gives the score, cube, owner and Crawford flag.
    away : (int, int), "money" or None
        The score ``(player_away, opponent_away)``; ``"money"`` for money play; None: the
        Match ID's, else money.
    cube, owner, crawford : optional
        The cube value (default the Match ID's, else 1), who holds it (``"centre"``,
        ``"player"``, ``"opponent"``) and the Crawford game (a side 1-away).
    cube_limit : int or None
        The largest cube value (a power of two).
    jacoby, beavers : bool or None
        Money play's rules, gnubg's defaults: the Jacoby rule (a gammon counts one point
        while the cube is centred; default the money Match ID's or XGID's flag, else on)
        and beavers (default the XGID's flag, else on); not at a match score.
    met : MET or str
        The match equity table of the trials' values and cube decisions.
    engine, plies : str, int
        The checker player (an engine with the ``play`` capability that plays on the board:
        ``auto``, the default, is the native engine at 0 plies and ``gnubg-nn`` deeper;
        ``native``, ``gnubg-nn``) and its plies.
    trials : int or None
        Trials, rounded up to a multiple of :data:`STRATA` (default :data:`DEFAULT_TRIALS`);
        with ``target_se``, the most trials (default :data:`MAX_TRIALS`).
    target_se : float or None
        Play rounds of trials until every line's standard error is at most this (MWC at
        a match score, equity in money play).
    seed : int
        The seed; with the other options it fixes every bit of the result.
    variance_reduction : bool
        Subtract the luck of every roll (gnubg's lookahead).
    truncate : {"exact", "race"} or None
        End a trial inside the exact bearoff solver (6 x 6) or at the first race.
    lines : tuple of str or None
        The lines (:data:`LINES`); default both when the player may double, else
        ``("no_double",)``.
    batch_size : int
        Trials per batch (a task, a stored file; a multiple of :data:`STRATA`, default
        144): any batch size gives the same bits.

    Raises
    ------
    InvalidPositionError, InvalidIdError
        For an illegal, finished or unreadable position.
    InvalidScoreError
        For a score beyond the table, or a cube state that cannot be.
    InvalidParameterError
        For trials < 1, a target SE <= 0, an unknown line or truncation, or an engine
        that cannot roll out.
    EngineNotAvailableError
        For an engine that is not installed.

    Examples
    --------
    >>> opts = RolloutOptions("4HPwATDgc/ABMA", away=(3, 5), trials=100, engine="exact")
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: the exact engine plays its own bearoff games; ...
    """

    position: Any
    away: tuple[int, int] | str | None = None
    cube: int | None = None
    owner: str | None = None
    crawford: bool | None = None
    cube_limit: int | None = None
    jacoby: bool | None = None
    beavers: bool | None = None
    met: MET | str = "kazaross-xg2"
    engine: str = "auto"
    plies: int = 0
    trials: int | None = None
    target_se: float | None = None
    seed: int = 0
    variance_reduction: bool = True
    truncate: str | None = "exact"
    lines: tuple[str, ...] | None = None
    batch_size: int = 4 * STRATA
    _derived: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from mathbg.analysis.base import as_position

        pos, match = as_position(self.position)
        d: dict[str, Any] = {"id": str(pos.id)}
        d["board"] = tuple(tuple(int(v) for v in row) for row in pos.board)
        object.__setattr__(self, "_derived", d)
        self._score(match)
        self._counts()
        self._lines()
        self._player()  # last: the other checks need no engine installed
        if d.get("dice") is not None:  # after the checks: bad input stays one line
            import warnings

            from mathbg.errors import MathbgWarning

            d1, d2 = d["dice"]
            warnings.warn(MathbgWarning(
                f"the dice {d1}{d2} in the position's ID are not used: a rollout starts "
                f"before the roll (the cube decision of the player on roll)"), stacklevel=3)

    def _score(self, match: Any) -> None:
        """The score, cube and owner (from the keywords, else the Match ID)."""
        from mathbg._validate import away_score
        from mathbg.met.catalogue import as_met
        from mathbg.rules.cube import CubeOwner

        d = self._derived
        on, cube, owner, crawford = 0, 1, "centre", False
        from mathbg.rules.ids import money_rules

        jacoby, beavers = money_rules(self.position, match)
        away: tuple[int, int] | None = None
        if match is not None:
            on = match.on_roll  # the owner is seen from the side on roll, money play too
        if match is not None and not match.is_money:
            away = (match.length - match.score[on], match.length - match.score[1 - on])
            crawford = bool(match.crawford) and 1 in away and away != (1, 1)
        if match is not None:
            cube, owner = int(match.cube), CubeOwner.of(match.cube_owner, on).value
            d["dice"] = match.dice  # not used: said once the options are good
        if isinstance(self.away, str):
            if self.away.strip().lower() != "money":
                raise InvalidScoreError(f"away is a pair (3, 5) or 'money', got {self.away!r}")
            away, crawford = None, False
        elif self.away is not None:
            away = away_score(self.away)
        cube = cube if self.cube is None else self.cube
        owner = owner if self.owner is None else CubeOwner.parse(self.owner).value
        crawford = crawford if self.crawford is None else bool(self.crawford)
        met = as_met(self.met)
        self._check_cube(away, cube, owner, crawford, met)
        d.update(away=away, cube=int(cube), owner=str(owner), crawford=crawford, met=met)
        rules = {k: getattr(self, k) for k in ("jacoby", "beavers") if getattr(self, k) is not None}
        for k, v in rules.items():
            if not isinstance(v, bool | np.bool_):
                raise InvalidParameterError(f"{k} is True or False, got {v!r}")
        if away is not None and rules:
            raise InvalidParameterError(
                f"{' and '.join(rules)} {'are' if len(rules) > 1 else 'is'} money play's "
                f"rule{'s' if len(rules) > 1 else ''}; this rollout is at {away[0]}-away/"
                f"{away[1]}-away"
            )
        d["jacoby"] = d["beavers"] = None
        if away is None:
            d["jacoby"] = jacoby if self.jacoby is None else bool(self.jacoby)
            d["beavers"] = beavers if self.beavers is None else bool(self.beavers)
            d["values"] = MoneyValues(int(cube), self.cube_limit, jacoby=d["jacoby"],
                                      beavers=d["beavers"])  # fmt: skip
        else:
            d["values"] = MatchValues(met, away, crawford, int(cube), self.cube_limit)

    def _check_cube(self, away: tuple[int, int] | None, cube: Any, owner: str, crawford: bool,
                    met: MET) -> None:  # fmt: skip
        from mathbg._validate import cube_state, cube_value

        c = cube_value(cube, "cube")
        if owner == "centre" and c != 1:
            raise InvalidScoreError(f"a centred cube is on 1, got cube {c} centred")
        limit = self.cube_limit
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1 \
                    or limit & (limit - 1):  # fmt: skip
                raise InvalidScoreError(f"the cube limit must be a power of two, got {limit!r}")
            if c > limit:
                raise InvalidScoreError(f"cube {c} is above the cube limit {limit}")
        if away is None:
            if crawford:
                raise InvalidScoreError("money play has no Crawford game")
            return
        if max(away) > met.length:
            raise InvalidScoreError(
                f"score {away[0]}-away/{away[1]}-away is beyond the {met.length}-point table "
                f"{met.name} (give a longer table)"
            )
        from mathbg.rules.match import ScoreState

        ScoreState.of(away, crawford=crawford)  # a Crawford game needs a side 1-away
        cube_state(c, owner == "centre", crawford)

    def _counts(self) -> None:
        """Trials, the target, the seed, the batch size and the truncation."""
        d = self._derived
        if self.target_se is not None:
            from mathbg._validate import finite_float

            target = finite_float(self.target_se, "target_se")
            if not target > 0.0:
                raise InvalidParameterError(f"the target standard error must be > 0, got {target}")
            d["target"] = target
        else:
            d["target"] = None
        default = DEFAULT_TRIALS if self.target_se is None else MAX_TRIALS
        n = default if self.trials is None else strict_integer(self.trials, "trials", 1, MAX_TRIALS)
        d["trials"] = -(-n // STRATA) * STRATA
        strict_integer(self.seed, "seed", 0, 2**63 - 1)
        size = strict_integer(self.batch_size, "batch_size", STRATA, 36_000)
        if size % STRATA:
            raise InvalidParameterError(f"batch_size must be a multiple of {STRATA}, got {size}")
        if self.truncate is not None and self.truncate not in TRUNCATIONS:
            raise InvalidParameterError(
                f"truncate is one of {', '.join(TRUNCATIONS)} or None, got {self.truncate!r}"
            )

    def _player(self) -> None:
        from mathbg.analysis.registry import engine_spec, get_player

        takes = "plies" in engine_spec(self.engine).player_options
        player = get_player(self.engine, plies=self.plies if takes or self.plies else None)
        if player.own_cube:
            raise InvalidParameterError(
                f"the {player.name} engine plays its own bearoff games; a rollout needs an "
                "engine that plays on the board: native or gnubg-nn"
            )
        self._derived["player"] = player

    def _lines(self) -> None:
        d = self._derived
        away, cube, owner = d["away"], d["cube"], d["owner"]
        may = may_double(away, cube, owner, crawford=d["crawford"], cube_limit=self.cube_limit)
        names = self.lines if self.lines is not None else LINES if may else LINES[:1]
        names = tuple(names)
        odd = [n for n in names if n not in LINES]
        if odd or not names or len(set(names)) != len(names):
            raise InvalidParameterError(
                f"lines are distinct names from {', '.join(LINES)}; got "
                f"{', '.join(map(str, names)) or 'none'}"
            )
        if "double_take" in names and not may:
            where = "money play" if away is None else f"{away[0]}-away/{away[1]}-away"
            raise InvalidParameterError(
                f"the player on roll may not double at {where} with cube {cube} {owner}"
                f"{' (the Crawford game)' if d['crawford'] else ''}: roll out the no_double "
                "line only"
            )
        own = {"centre": -1, "player": 0, "opponent": 1}[owner]
        made = [Line(n, cube, own) if n == "no_double" else Line(n, 2 * cube, 1) for n in names]
        d["lines"] = tuple(made)
        d["line_owners"] = tuple(owner if n == "no_double" else "opponent" for n in names)

    # ------------------------------------------------------------------ what it derived

    @property
    def board(self) -> Board:
        """The position's board (gnubg's ``TanBoard``, the player on roll in row 1)."""
        board: Board = self._derived["board"]
        return board

    @property
    def position_id(self) -> str:
        """The position's gnubg Position ID."""
        return str(self._derived["id"])

    @property
    def score(self) -> tuple[int, int] | None:
        """The score ``(player_away, opponent_away)``, None for money play."""
        away: tuple[int, int] | None = self._derived["away"]
        return away

    @property
    def cube_state(self) -> tuple[int, str, bool]:
        """The cube value, its owner and the Crawford flag."""
        d = self._derived
        return int(d["cube"]), str(d["owner"]), bool(d["crawford"])

    @property
    def money_rules(self) -> tuple[bool | None, bool | None]:
        """The Jacoby rule and beavers in force (None, None at a match score)."""
        d = self._derived
        return d["jacoby"], d["beavers"]

    @property
    def values(self) -> ScoreValues:
        """The score's values (:class:`~mathbg.analysis.rollouts.values.ScoreValues`)."""
        values: ScoreValues = self._derived["values"]
        return values

    @property
    def table(self) -> MET:
        """The match equity table."""
        met: MET = self._derived["met"]
        return met

    @property
    def made_player(self) -> Player:
        """The checker player (from the engine registry)."""
        player: Player = self._derived["player"]
        return player

    @property
    def made_lines(self) -> tuple[Line, ...]:
        """The lines played."""
        lines: tuple[Line, ...] = self._derived["lines"]
        return lines

    @property
    def line_owners(self) -> tuple[str, ...]:
        """Each line's cube owner in words."""
        owners: tuple[str, ...] = self._derived["line_owners"]
        return owners

    @property
    def total_trials(self) -> int:
        """Trials to play (the most, with ``target_se``), a multiple of :data:`STRATA`."""
        return int(self._derived["trials"])

    @property
    def target(self) -> float | None:
        """The target standard error, or None."""
        target: float | None = self._derived["target"]
        return target

    def manifest(self) -> dict[str, object]:
        """What fixes the trials' bits, in JSON's own types (a store's ``manifest.json``;
        the trial count, the target and the batch size are not in it: a store serves any
        run of the same rollout, longer or shorter)."""
        cube, owner, crawford = self.cube_state
        met = self.table
        params: dict[str, Any] = {
            "method": "rollout", "version": VERSION, "position": self.position_id,
            "board": [list(r) for r in self.board], "away": self.score, "cube": cube,
            "owner": owner, "crawford": crawford, "cube_limit": self.cube_limit,
            "jacoby": self.money_rules[0], "beavers": self.money_rules[1],
            "met": met.name if self.score is not None else None,
            "met_digest": table_digest(met) if self.score is not None else None,
            "player": self.made_player.label, "plies": int(self.plies), "seed": int(self.seed),
            "variance_reduction": bool(self.variance_reduction), "truncate": self.truncate,
            "lines": [ln.name for ln in self.made_lines],
        }  # fmt: skip
        result: dict[str, object] = json.loads(json.dumps(params))
        return result

    def context(self) -> str:
        """What makes two rollouts' positions worth the same to the lookahead (score,
        cube limit, table, player): the key of its per-process cache."""
        m = self.manifest()
        keep = ("away", "crawford", "cube_limit", "jacoby", "beavers", "met_digest", "player",
                "plies")  # fmt: skip
        return json.dumps({k: m[k] for k in keep}, sort_keys=True)

    def rounds(self, done: int, worst_se: float) -> int:
        """Trials still to play after ``done`` (0: finished): all of them without a target;
        with one, what the worst line's standard error says is needed, in whole batches,
        within the cap.

        Parameters
        ----------
        done : int
            Trials played.
        worst_se : float
            The largest standard error of the lines so far.

        Returns
        -------
        int
            The trials of the next round.
        """
        cap = self.total_trials
        if self.target is None or done >= cap:
            return max(cap - done, 0)
        if done and worst_se == worst_se and worst_se <= self.target:
            return 0
        if not done or worst_se != worst_se:
            first = min(cap, max(10 * self.batch_size, 324))
            return -(-first // STRATA) * STRATA - done
        need = math.ceil(done * (worst_se / self.target) ** 2 * 1.05)
        need = -(-need // self.batch_size) * self.batch_size
        return int(min(cap, max(need, done + self.batch_size)) - done)
