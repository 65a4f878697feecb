"""A match equity table from first principles: self-play at every score, with error bars.

:func:`selfplay_met` builds a MET the way the published tables were made (Rockwell-
Kazaross, Kazaross-XG2: games played out at each score by a strong bot), automated and
reproducible, each entry with its standard error.

Method
------
- Entries are played in increasing order of ``a + b`` (``a``, ``b`` the away scores). The
  MWC of a score is the mean, over games played from the opening (a non-double opening
  roll, cube centred; or from ``start``), of the table's value at the score after the
  game; every later score reads the table built so far. The Crawford game has no cube;
  post-Crawford the trailer doubles when the cube theory says so (the free drop is in
  the table the theory reads); ``M(b, a) = 1 - M(a, b)`` and ``M(a, a) = 1/2`` for equal
  players (exact: NaN standard error).
- Checker play by the engine (``gnubg-nn`` at ``plies``; ``exact``: the two-sided
  bearoff solution). Cube decisions of the cube-theory engines come from the engine's
  cubeless chances through mathbg's 0-ply cubeless -> cubeful step
  (:func:`mathbg.cube.cubeful.cubeful_mwc`, gnubg's ``Cl2CfMatch``, cube life by position
  class as gnubg's ``EvalEfficiency``) under the table built so far: double when
  ``DT >= ND`` and ``DP >= ND`` (gnubg's ``FindBestCubeDecision``), take when ``DT < DP``.
  The ``exact`` engine takes both checker play and cube decisions from the exact match
  bearoff solver (:func:`mathbg.bearoff.exact.match.solve_game`) under that table.
  Doubles follow gnubg's access rules (:func:`mathbg.rules.match.may_double`) and the cube
  limit.
- Variance reduction: stratified first rolls. Each batch plays the 30 (first roller,
  non-double opening roll) pairs (72 (first roller, first roll) pairs from ``start``) in
  equal numbers; the estimate is the mean of the stratum means and its standard error the
  stratified one, ``SE^2 = sum_h s_h^2 / n_h / H^2``. The benchmark reports the measured
  gain against the plain standard error (small from the opening: about 1.00; larger from a
  bearoff start, where the first roll decides more). Each entry's standard error adds, to
  first order, the errors of the entries its games reach, weighted by how often they are
  reached (the dependence of the cube decisions on the table is left out).
- Reproducibility: one batch of games of one score is one task, its dice drawn from
  ``numpy.random.SeedSequence(seed, spawn_key=(kind, a, b, batch))``; a batch depends only
  on its key and the entries of lower ``a + b``, so one process, a Dask LocalCluster and a
  remote cluster give the same bits, and a run resumed from its store gives the bits of an
  uninterrupted one.

The engine ``instant`` is a test engine: the game ends at once, its result drawn from the
given probabilities of the first roller (``players=("instant:W,WG,WB,LG,LB", ...)`` or
:class:`PlayerSpec`). With no cube (``cube_limit=1``) its table is
:func:`mathbg.met.cubeless` with gammon rate ``WG + LG`` and backgammon rate ``WB + LB``.

The function lives here, in the analysis layer, not in :mod:`mathbg.met` (which sits
below the engines and the cube theory it needs); it returns a :class:`mathbg.met.MET`.

References
----------
- J. Kazaross, "XG2 match equity table" (2010): rollouts of every score with a bot.
- GNU Backgammon eval.c (``Cl2CfMatch``, ``EvalEfficiency``, ``FindBestCubeDecision``).
- W. G. Cochran, *Sampling Techniques* (1977), ch. 5: stratified sampling.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _npy
from mathbg.cube.life import CONTACT_CUBE_LIFE, cube_life
from mathbg.errors import (
    DatabaseCorruptError,
    InvalidParameterError,
    InvalidScoreError,
    MathbgError,
)

__all__ = [
    "ENGINES",
    "MAX_GAMES",
    "MAX_LENGTH",
    "PlayerSpec",
    "SelfPlayStore",
    "StoreMismatchError",
    "entry_frame",
    "fit_cube_life",
    "noisy_move",
    "plan_batches",
    "selfplay_met",
]

#: Engines that can play games here.
ENGINES: tuple[str, ...] = ("gnubg-nn", "exact", "instant")
#: Longest table self-play builds (a + b levels, each needs the ones below).
MAX_LENGTH = 25
#: Most games per entry (the bound on ``games``).
MAX_GAMES = 10**8
#: Default games per batch (a multiple of the 30 and 72 strata).
BATCH_SIZE = 3600
_KINDS = ("normal", "crawford", "post")
_OPENING = tuple((hi, lo) for hi in range(2, 7) for lo in range(1, hi))  # 15 non-doubles


class StoreMismatchError(MathbgError):
    """The store holds batches of a different build (other parameters)."""


# ----------------------------------------------------------------------------- players


@dataclass(frozen=True)
class PlayerSpec:
    """One player's engine: ``gnubg-nn`` (``plies``, ``noise``), ``exact`` or ``instant``.

    ``probabilities`` (the first roller's W, WG, WB, LG, LB, cumulative gammons) is
    required by ``instant`` (a test engine) and refused by the others. ``noise`` (gnubg-nn
    only) makes a weaker player as gnubg's noisy players are made: Gaussian noise of this
    standard deviation (cubeless equity, in points a game) is added to each candidate
    play's equity before the best is chosen, drawn from the batch's own seeded noise
    stream (the dice are untouched, so ``noise=0`` is the plain player bit for bit). Cube
    decisions stay noise-free. As a string: ``"gnubg-nn:plies=1,noise=0.05"``.
    """

    engine: str = "gnubg-nn"
    plies: int = 0
    probabilities: tuple[float, ...] | None = None
    noise: float = 0.0

    def label(self) -> str:
        if self.engine == "gnubg-nn":
            extra = f", noise {self.noise:g}" if self.noise else ""
            return f"gnubg-nn {self.plies}-ply{extra}"
        if self.engine == "instant":
            return "instant:" + ",".join(f"{p:g}" for p in self.probabilities or ())
        return self.engine


def _spec(value: Any, engine: str, plies: int) -> PlayerSpec:
    value = _parse_spec(value, engine, plies)
    _check_spec(value)
    if value.engine == "instant":
        from mathbg.analysis.base import check_probabilities

        if value.probabilities is None:
            raise InvalidParameterError("the instant engine needs probabilities W,WG,WB,LG,LB")
        return PlayerSpec("instant", 0, tuple(check_probabilities(value.probabilities)))
    if value.probabilities is not None:
        raise InvalidParameterError(f"probabilities go with the instant engine, not {value.engine}")
    return PlayerSpec(value.engine, value.plies, None, value.noise)


def _parse_spec(value: Any, engine: str, plies: int) -> PlayerSpec:
    if value is None:
        value = PlayerSpec(engine, plies)
    elif isinstance(value, str):
        name, _, probs = value.partition(":")
        name = name.strip().lower()
        if name == "instant":
            try:
                parsed = tuple(float(v) for v in probs.split(","))
            except ValueError:
                raise InvalidParameterError(
                    f"instant engine: give instant:W,WG,WB,LG,LB, got {value!r}"
                ) from None
            value = PlayerSpec("instant", 0, parsed)
        else:
            value = _parse_settings(value, name, probs, plies)
    elif isinstance(value, dict):
        value = PlayerSpec(**value)
    if not isinstance(value, PlayerSpec):
        raise InvalidParameterError(f"a player is an engine name or a PlayerSpec, got {value!r}")
    return value


def _spec_dict(spec: PlayerSpec) -> dict[str, Any]:
    """A player's settings for the metadata (``noise`` only when set)."""
    return {k: v for k, v in asdict(spec).items() if k != "noise" or v}


def _parse_settings(text: str, name: str, settings: str, plies: int) -> PlayerSpec:
    """``name`` or ``name:plies=K,noise=S`` (either setting, any order)."""
    got: dict[str, Any] = {"plies": plies, "noise": 0.0}
    for item in filter(None, (t.strip() for t in settings.split(","))):
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        try:
            if not eq or key not in got:
                raise ValueError
            got[key] = int(val) if key == "plies" else float(val)
        except ValueError:
            raise InvalidParameterError(
                f"a player is ENGINE or ENGINE:plies=K,noise=S (e.g. gnubg-nn:noise=0.05), "
                f"got {text!r}"
            ) from None
    return PlayerSpec(name, got["plies"], None, got["noise"])


def _check_spec(value: PlayerSpec) -> None:
    if value.engine not in ENGINES:
        from mathbg.analysis.registry import ENGINES as ANALYZE

        extra = (
            " (it evaluates positions but cannot play games here)"
            if value.engine in ANALYZE
            else ""
        )
        raise InvalidParameterError(
            f"unknown self-play engine {value.engine!r}{extra}; choose one of " + ", ".join(ENGINES)
        )
    if isinstance(value.plies, bool) or not isinstance(value.plies, int) or value.plies < 0:
        raise InvalidParameterError(f"plies must be a non-negative integer, got {value.plies!r}")
    noise = value.noise
    if (
        isinstance(noise, bool)
        or not isinstance(noise, int | float)
        or not math.isfinite(noise)
        or not 0 <= noise <= 10
    ):
        raise InvalidParameterError(f"noise must be a number in 0..10, got {noise!r}")
    if noise and value.engine != "gnubg-nn":
        raise InvalidParameterError(f"noise applies to gnubg-nn, not to {value.engine}")
    if value.engine == "gnubg-nn":
        from mathbg.analysis.evaluation import gnubg_nn_installed
        from mathbg.analysis.gnubg_nn import MAX_PLIES

        if not gnubg_nn_installed():
            from mathbg.errors import EngineNotAvailableError

            raise EngineNotAvailableError(
                "the gnubg-nn package is not installed: pip install 'mathbg[engine]' "
                "(or pip install gnubg-nn)"
            )
        if value.plies > MAX_PLIES:
            raise InvalidParameterError(f"gnubg-nn offers plies 0..{MAX_PLIES}, got {value.plies}")
    elif value.plies:
        raise InvalidParameterError(f"plies apply to gnubg-nn, not to {value.engine}")


# ----------------------------------------------------------------------------- the table


def _entries(length: int, crawford: bool, equal: bool) -> list[tuple[str, int, int]]:
    """Entries to play, ``(kind, a, b)`` with player 0 needing ``a``, sorted by level."""
    out: list[tuple[str, int, int]] = []
    for n in range(1 if not equal else 2, length + 1):
        out.append(("post", n, 1))
        if not equal and n > 1:
            out.append(("post", 1, n))
    if crawford:
        for n in range(2, length + 1):
            out.append(("crawford", n, 1))
            if not equal:
                out.append(("crawford", 1, n))
    for a in range(2, length + 1):
        for b in range(2, length + 1):
            if (equal and a < b) or (not equal):
                out.append(("normal", a, b))
    return sorted(out, key=lambda e: (e[1] + e[2], _KINDS.index(e[0]), e[1]))


def _level(entry: tuple[str, int, int]) -> int:
    return entry[1] + entry[2]


class _Table:
    """The table built so far: values and errors by entry, and a MET view of them."""

    def __init__(self, length: int, crawford: bool, equal: bool) -> None:
        from mathbg.met import montgomery

        self.length, self.crawford, self.equal = length, crawford, equal
        base = montgomery(max(length, 2))  # placeholders, never read (see _check_reads)
        n = length
        self.pre = np.array(base.pre[:n, :n])
        self.post = np.array(base.post[:, :n])
        self.pre_se = np.full((n, n), np.nan)
        self.post_se = np.full((2, n), np.nan)
        self.pre_n = np.zeros((n, n))
        self.post_n = np.zeros((2, n))
        if equal:
            for a in range(1, n + 1):
                self.pre[a - 1, a - 1] = 0.5
            self.post[:, 0] = 0.5

    def set(self, entry: tuple[str, int, int], value: float, se: float, games: int) -> None:
        kind, a, b = entry
        cells: list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
                          tuple[int, int], float]] = []  # fmt: skip
        if kind == "post":
            if b == 1:
                cells.append((self.post, self.post_se, self.post_n, (0, a - 1), value))
                if self.equal:
                    cells.append((self.post, self.post_se, self.post_n, (1, a - 1), value))
                if a == 1:  # DMP (unequal players)
                    cells.append((self.post, self.post_se, self.post_n, (1, 0), 1.0 - value))
                    cells.append((self.pre, self.pre_se, self.pre_n, (0, 0), value))
            else:
                cells.append((self.post, self.post_se, self.post_n, (1, b - 1), 1.0 - value))
            if not self.crawford and a != b:  # no Crawford rule: 1-away games are all alike
                cells.append((self.pre, self.pre_se, self.pre_n, (a - 1, b - 1), value))
                if self.equal:
                    cells.append((self.pre, self.pre_se, self.pre_n, (b - 1, a - 1), 1 - value))
        else:
            cells.append((self.pre, self.pre_se, self.pre_n, (a - 1, b - 1), value))
            if self.equal:
                cells.append((self.pre, self.pre_se, self.pre_n, (b - 1, a - 1), 1.0 - value))
        for arr, err, cnt, idx, v in cells:
            arr[idx] = v
            err[idx] = se
            cnt[idx] = games

    def met(self) -> Any:
        from mathbg.met import MET

        return MET(pre=np.clip(self.pre, 0, 1), post=np.clip(self.post, 0, 1), name="selfplay")


def _swapped(met: Any) -> Any:
    """The same table seen by player 1 (rows: player 1's away score)."""
    from mathbg.met import MET

    return MET(pre=1.0 - met.pre.T, post=met.post[::-1], name=met.name + "-swapped")


def _after(met: Any, a: int, b: int, kind: str, won0: int, won1: int) -> float:
    """Player 0's MWC after a game at (a, b) in which players 0 and 1 scored these points."""
    a2, b2 = a - won0, b - won1
    if a2 <= 0:
        return 1.0
    if b2 <= 0:
        return 0.0
    if kind != "normal":
        return float(met.mwc((a2, b2), post_crawford=True))
    if a2 == 1 or b2 == 1:
        return float(met.mwc((a2, b2), crawford=True))
    return float(met.mwc((a2, b2)))


# ----------------------------------------------------------------------------- engines


def _cube_life(nn: Any, board: Any) -> float:
    klass = int(nn.classify([list(board[0]), list(board[1])]))
    if klass in (nn.c_contact, nn.c_crashed):
        return CONTACT_CUBE_LIFE
    if klass == nn.c_race:
        pips = sum((i + 1) * c for i, c in enumerate(board[1]))
        return float(cube_life("race", pips))
    return cube_life("bearoff")


_OPENING_BOARD = ((0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0),) * 2


def _start_board(start: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg-nn's board (side not on roll, side on roll) of the first roller's turn."""
    if start is None:
        return _OPENING_BOARD[0], _OPENING_BOARD[1]
    if isinstance(start, tuple) and len(start) == 2 and not isinstance(start[0], str):
        roller, other = (list(map(int, s)) + [0] * 25 for s in start)
        return tuple(other[:25]), tuple(roller[:25])
    from mathbg.analysis.base import as_position

    pos, _ = as_position(start)
    return tuple(int(v) for v in pos.board[0]), tuple(int(v) for v in pos.board[1])


# ----------------------------------------------------------------------------- one batch


@dataclass(frozen=True)
class _Job:
    """Everything one batch needs (picklable, small)."""

    entry: tuple[str, int, int]
    batch: int
    games: int
    seed: int
    players: tuple[PlayerSpec, PlayerSpec]
    start: Any
    cube_limit: int | None
    crawford: bool
    pre: NDArray[np.float64]
    post: NDArray[np.float64]
    luck_rolls: int = 0


_FIELDS = ("value", "stratum", "first", "winner", "points", "result", "cube", "first_double",
           "first_passed", "rolls", "dec_turn", "dec_p0", "dec_p1", "dec_p2", "dec_p3",
           "dec_p4", "dec_x")  # fmt: skip
_FLOATS = {"value", "dec_p0", "dec_p1", "dec_p2", "dec_p3", "dec_p4", "dec_x"}


def _strata(job: _Job) -> tuple[int, Callable[[int], tuple[int, tuple[int, int] | None]]]:
    if job.start is None:

        def opening(h: int) -> tuple[int, tuple[int, int] | None]:
            return h % 2, _OPENING[h // 2]

        return 30, opening

    def first(h: int) -> tuple[int, tuple[int, int] | None]:
        return h % 2, (h // 2 // 6 + 1, h // 2 % 6 + 1)

    return 72, first


def _run_job(job: _Job) -> dict[str, NDArray[Any]]:
    """Play one batch; per-game arrays (see :data:`_FIELDS`)."""
    from mathbg.met import MET

    kind, a, b = job.entry
    rng = np.random.default_rng(
        np.random.SeedSequence(job.seed, spawn_key=(_KINDS.index(kind), a, b, job.batch))
    )
    met = MET(pre=job.pre, post=job.post, name="selfplay")
    engines = {p.engine for p in job.players}
    if engines == {"exact"}:
        return _play_exact(job, met, rng)
    noise = np.random.default_rng(  # a stream of its own: the dice do not see it
        np.random.SeedSequence(job.seed, spawn_key=(_KINDS.index(kind), a, b, job.batch, 1))
    )
    return _play_theory(job, met, rng, noise)


_ROLLS21 = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))
_ROLL_INDEX = {(d1, d2): _ROLLS21.index((max(d1, d2), min(d1, d2)))
               for d1 in range(1, 7) for d2 in range(1, 7)}  # fmt: skip
_ROLL_WEIGHTS = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in _ROLLS21]) / 36.0


@lru_cache(maxsize=65536)
def _roll_equities_cached(
    nn: Any, board: tuple[tuple[int, ...], tuple[int, ...]]
) -> tuple[float, ...]:
    eqs = []
    for d1, d2 in _ROLLS21:
        _, key, cands = nn.best_move(board, d1, d2, n=0, b=1, list=1)
        if cands:
            eqs.append(float(cands[0][3]))
        else:  # no legal play: the opponent's 0-ply cubeless equity, negated
            w, wg, wb, lg, lb = nn.probabilities(nn.board_from_position_key(key), 0)
            eqs.append(-(2 * w - 1 + wg + wb - lg - lb))
    return (*eqs, float(np.dot(_ROLL_WEIGHTS, eqs)))


def _roll_equities(nn: Any, board: Any) -> tuple[float, ...]:
    """The roller's 0-ply cubeless equity after gnubg-nn's best play, for each of the 21
    rolls, and their dice-weighted mean last (cached: the first turns' positions repeat)."""
    return _roll_equities_cached(nn, (tuple(board[0]), tuple(board[1])))


def noisy_move(
    nn: Any, board: Any, d1: int, d2: int, plies: int, sigma: float, rng: np.random.Generator
) -> str:
    """The position key of a noisy player's play (gnubg-nn's candidates, equity + noise).

    Each candidate play gnubg-nn lists (at ``plies``) gets ``sigma * N(0, 1)`` added to
    its cubeless equity; the largest wins (the first of equals, as gnubg-nn's own order).
    One normal is drawn per candidate of a roll with a choice. ``sigma = 0`` is
    ``best_move``'s play.

    Parameters
    ----------
    nn : module
        ``gnubg_nn``.
    board : pair of 25-tuples
        gnubg-nn's board (side not on roll, side on roll).
    d1, d2 : int
        The dice.
    plies : int
        The evaluation depth.
    sigma : float
        The noise's standard deviation.
    rng : numpy.random.Generator
        The noise stream.

    Returns
    -------
    str
        The key of the position after the play (``board_from_position_key`` reads it).

    Examples
    --------
    A stand-in for gnubg-nn with two candidate plays, of equities 0.10 and 0.12: without
    noise the better one; with a noise far larger than their difference, either.

    >>> class Net:
    ...     @staticmethod
    ...     def best_move(board, d1, d2, n, b, list):
    ...         return None, "B", [("A", 0, 0, 0.10), ("B", 0, 0, 0.12)]
    >>> rng = np.random.default_rng(1)
    >>> noisy_move(Net, None, 3, 1, 0, 0.0, rng)
    'B'
    >>> sorted({noisy_move(Net, None, 3, 1, 0, 1.0, rng) for _ in range(50)})
    ['A', 'B']
    """
    _, key, cands = nn.best_move(board, d1, d2, n=plies, b=1, list=1)
    if len(cands) < 2:
        return str(key)
    eq = np.array([c[3] for c in cands]) + sigma * rng.standard_normal(len(cands))
    return str(cands[int(np.argmax(eq))][0])


def _sane(probs: Sequence[float]) -> tuple[float, float, float, float, float]:
    """gnubg-nn's five outputs made consistent (as gnubg's own sanity check does).

    The network's float32 outputs can break ``0 <= WB <= WG <= W <= 1``, ``0 <= LB <= LG
    <= 1 - W`` by a little in rare positions; each is clipped into its bounds (consistent
    chances are returned unchanged).

    Examples
    --------
    >>> _sane([0.97, 0.9800001, 0.01, 0.0300002, -1e-7])
    (0.97, 0.97, 0.01, 0.030000000000000027, 0.0)
    """
    w = min(max(float(probs[0]), 0.0), 1.0)
    wg = min(max(float(probs[1]), 0.0), w)
    wb = min(max(float(probs[2]), 0.0), wg)
    lg = min(max(float(probs[3]), 0.0), 1.0 - w)
    lb = min(max(float(probs[4]), 0.0), lg)
    return w, wg, wb, lg, lb


def _decide(
    probs: NDArray[np.float64],
    x: NDArray[np.float64],
    views: Sequence[Any],
    view: NDArray[np.int64],
    ar: NDArray[np.int64],
    br: NDArray[np.int64],
    cube: NDArray[np.int64],
    centred: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ND and DT (the roller's MWC) by mathbg's cube theory, vectorised by groups."""
    from mathbg.cube.cubeful import cubeful_mwc

    nd = np.empty(len(probs))
    dt = np.empty(len(probs))
    for v in np.unique(view):
        for own in (True, False):
            g = (view == v) & (centred == own)
            if g.any():
                owner = "centre" if own else "player"
                nd[g] = cubeful_mwc(probs[g], views[v], (ar[g], br[g]), cube=cube[g],
                                    owner=owner, cube_life=x[g])  # fmt: skip
        g = view == v
        dt[g] = cubeful_mwc(probs[g], views[v], (ar[g], br[g]), cube=2 * cube[g],
                            owner="opponent", cube_life=x[g])  # fmt: skip
    return nd, dt


def _play_theory(
    job: _Job, met: Any, rng: np.random.Generator, noise: np.random.Generator
) -> dict[str, NDArray[Any]]:
    """gnubg-nn / instant players, cube decisions by the cube theory, games in lockstep."""
    kind, a, b = job.entry
    n = job.games
    H, stratum_of = _strata(job)
    equal = job.players[0] == job.players[1]
    views = [met] if equal else [met, _swapped(met)]
    nn: Any = None
    if any(p.engine == "gnubg-nn" for p in job.players):
        import gnubg_nn as nn  # type: ignore[import-untyped,no-redef]
    away = (a, b)
    limit = job.cube_limit or 1 << 30
    after: dict[tuple[int, int], float] = {}

    def value(won0: int, won1: int) -> float:
        key = (won0, won1)
        if key not in after:
            after[key] = _after(met, a, b, kind, won0, won1)
        return after[key]

    out = {f: np.zeros(n, dtype=np.float64 if f in _FLOATS else np.int64) for f in _FIELDS}
    out["first_double"][:] = -1
    out["dec_turn"][:] = -1
    for t in range(1, job.luck_rolls + 1):
        out[f"luck{t}"] = np.zeros(n)
    roller = np.empty(n, dtype=np.int64)
    boards: list[Any] = [None] * n
    first_roll: list[tuple[int, int] | None] = [None] * n
    start = _start_board(job.start) if nn is not None else None
    for g in range(n):
        h = g % H
        first, roll = stratum_of(h)
        out["stratum"][g], out["first"][g] = h, first
        roller[g] = first
        boards[g] = start
        first_roll[g] = roll
    cube = np.ones(n, dtype=np.int64)
    owner = np.full(n, -1, dtype=np.int64)  # -1 centre, else the player holding it
    active = np.ones(n, dtype=bool)
    turn = 0
    opening = job.start is None

    def finish(g: int, winner: int, pts: int, result: int) -> None:
        active[g] = False
        out["winner"][g], out["points"][g], out["result"][g] = winner, pts, result
        out["cube"][g] = cube[g]
        out["value"][g] = value(pts, 0) if winner == 0 else value(0, pts)

    while active.any():
        dice = rng.integers(1, 7, size=(n, 2))
        uniform = rng.random(n)
        live = np.flatnonzero(active)
        # ---- cube decisions of the rollers with access
        if not (opening and turn == 0) and kind != "crawford":
            ar = np.where(roller == 0, away[0], away[1])
            br = np.where(roller == 0, away[1], away[0])
            may = active & (ar > cube) & ((owner == -1) | (owner == roller)) & (2 * cube <= limit)
            asking = np.flatnonzero(may)
            if len(asking):
                probs = np.empty((len(asking), 5))
                x = np.empty(len(asking))
                for k, g in enumerate(asking.tolist()):
                    spec = job.players[roller[g]]
                    if spec.engine == "instant":
                        probs[k] = spec.probabilities
                        x[k] = CONTACT_CUBE_LIFE
                    else:
                        probs[k] = _sane(nn.probabilities(boards[g], spec.plies))
                        x[k] = _cube_life(nn, boards[g])
                for k, g in enumerate(asking.tolist()):  # the first decision (cube life fit)
                    if out["dec_turn"][g] < 0:
                        out["dec_turn"][g] = turn
                        for i in range(5):
                            out[f"dec_p{i}"][g] = probs[k, i]
                        out["dec_x"][g] = x[k]
                view = roller[asking] if not equal else np.zeros(len(asking), dtype=np.int64)
                nd, dt = _decide(probs, x, views, view, ar[asking], br[asking], cube[asking],
                                 owner[asking] == -1)  # fmt: skip
                dp = np.array([value(int(cube[g]), 0) if roller[g] == 0
                               else 1.0 - value(0, int(cube[g])) for g in asking])  # fmt: skip
                doubles = (dt >= nd) & (dp >= nd)
                takes = dt < dp
                if not equal and doubles.any():  # the taker judges with its own engine
                    d = np.flatnonzero(doubles)
                    tprobs = np.empty((len(d), 5))
                    for k, i in enumerate(d.tolist()):
                        g = int(asking[i])
                        spec = job.players[1 - roller[g]]
                        tprobs[k] = (
                            spec.probabilities
                            if spec.engine == "instant"
                            else _sane(nn.probabilities(boards[g], spec.plies))
                        )
                    _, dtt = _decide(tprobs, x[d], views, view[d], ar[asking][d],
                                     br[asking][d], cube[asking][d],
                                     owner[asking][d] == -1)  # fmt: skip
                    takes[d] = dtt < dp[d]
                for i in np.flatnonzero(doubles).tolist():
                    g = int(asking[i])
                    if out["first_double"][g] < 0:
                        out["first_double"][g] = turn
                        out["first_passed"][g] = 0 if takes[i] else 1
                    if takes[i]:
                        cube[g] *= 2
                        owner[g] = 1 - roller[g]
                    else:
                        finish(g, int(roller[g]), int(cube[g]), 0)
        # ---- rolls and checker play
        for g in live.tolist():
            if not active[g]:
                continue
            spec = job.players[roller[g]]
            roll = first_roll[g] if turn == 0 else None
            d1, d2 = roll if roll is not None else (int(dice[g, 0]), int(dice[g, 1]))
            out["rolls"][g] += 1
            if 0 < turn <= job.luck_rolls and spec.engine == "gnubg-nn":
                eqs = _roll_equities(nn, boards[g])
                luck = eqs[_ROLL_INDEX[(d1, d2)]] - eqs[-1]
                out[f"luck{turn}"][g] = luck if roller[g] == 0 else -luck
            if spec.engine == "instant":
                p = spec.probabilities or ()
                u = uniform[g]
                mover = int(roller[g])
                if u < p[0]:
                    result = 3 if u < p[2] else 2 if u < p[1] else 1
                    finish(g, mover, result * int(cube[g]), result)
                else:
                    u -= p[0]
                    result = 3 if u < p[4] else 2 if u < p[3] else 1
                    finish(g, 1 - mover, result * int(cube[g]), result)
                continue
            if spec.noise:
                key = noisy_move(nn, boards[g], d1, d2, spec.plies, spec.noise, noise)
            else:
                _, key = nn.best_move(boards[g], d1, d2, n=spec.plies, b=1)
            board = nn.board_from_position_key(key)  # (mover, other): the next roller's view
            if not any(board[0]):
                other = board[1]
                result = 1
                if sum(other) == 15:
                    result = 3 if any(other[18:]) else 2
                finish(g, int(roller[g]), result * int(cube[g]), result)
            else:
                boards[g] = board
                roller[g] = 1 - roller[g]
        turn += 1
    return out


# ----------------------------------------------------------------------------- exact engine


def _exact_space(start: Any) -> tuple[int, int, int, int]:
    from mathbg.bearoff.index import rank, validate_counts

    if not (isinstance(start, tuple) and len(start) == 2):
        raise InvalidParameterError(
            "the exact engine plays bearoff races: give start=(counts, counts), checker "
            "counts on points 1..6 of the first roller and of the other side"
        )
    r = validate_counts(start[0], 6, 14, what="start roller")
    o = validate_counts(start[1], 6, 14, what="start opponent")
    if not r.any() or not o.any():
        raise InvalidParameterError("both starting positions need a checker on the board")
    checkers = int(max(r.sum(), o.sum()))
    return 6, checkers, int(rank(r, 6)), int(rank(o, 6))


@lru_cache(maxsize=2)
def _exact_solutions(
    points: int, checkers: int, entry: tuple[str, int, int], digest: str, table: Any
) -> tuple[Any, Any]:
    """Both rollers' exact solutions of one entry under the table (cached per process)."""
    from mathbg.bearoff.exact.match import solve_game

    kind, a, b = entry
    met = table[0]

    def mwc0(x: int, y: int, k: str) -> float:
        if k == "post":
            return float(met.mwc((x, y), post_crawford=True))
        if k == "crawford":
            return float(met.mwc((x, y), crawford=True))
        return float(met.mwc((x, y)))

    def mwc1(x: int, y: int, k: str) -> float:
        return 1.0 - mwc0(y, x, k)

    return (
        solve_game(points, checkers, (a, b), kind, mwc0),
        solve_game(points, checkers, (b, a), kind, mwc1),
    )


class _Boxed:
    """Hash a MET by a digest (for the solution cache)."""

    def __init__(self, met: Any, digest: str) -> None:
        self.met, self.digest = met, digest

    def __getitem__(self, i: int) -> Any:
        return self.met

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Boxed) and other.digest == self.digest


def _play_exact(job: _Job, met: Any, rng: np.random.Generator) -> dict[str, NDArray[Any]]:
    """Both players exact: the bearoff solver's checker play and cube decisions."""
    from mathbg.bearoff.plays import successors

    kind, a, b = job.entry
    points, checkers, x0, y0 = _exact_space(job.start)
    digest = hashlib.sha256(job.pre.tobytes() + job.post.tobytes()).hexdigest()
    sols = _exact_solutions(points, checkers, job.entry, digest, _Boxed(met, digest))
    table = successors(points, checkers)
    arrays: dict[tuple[int, int, int], dict[str, Any]] = {}

    def arr(view: int, c: int, own: int) -> dict[str, Any]:
        key = (view, c, own)
        if key not in arrays:
            name = "centre" if own < 0 else "player" if own == view else "opponent"
            arrays[key] = sols[view].decision_arrays(c, name)
        return arrays[key]

    n = job.games
    H, stratum_of = _strata(job)
    out = {f: np.zeros(n, dtype=np.float64 if f in _FLOATS else np.int64) for f in _FIELDS}
    out["first_double"][:] = -1
    out["dec_turn"][:] = -1
    away = (a, b)
    from mathbg.bearoff.plays import roll_index

    rolls = {(d1, d2): roll_index((max(d1, d2), min(d1, d2)))
             for d1 in range(1, 7) for d2 in range(1, 7)}  # fmt: skip
    for g in range(n):
        h = g % H
        first, roll = stratum_of(h)
        out["stratum"][g], out["first"][g] = h, first
        r, i, j = first, x0, y0
        c, own, turn = 1, -1, 0
        while True:
            if kind != "crawford" and (own in (-1, r)) and away[r] > c:
                d = arr(r, c, own)
                if d["access"]:
                    nd = d["no_double"][i, j]
                    dt = d["double_take"][i, j]
                    dp = float(d["double_pass"][i, j])
                    if dt >= nd and dp >= nd:
                        if out["first_double"][g] < 0:
                            out["first_double"][g] = turn
                            out["first_passed"][g] = 0 if dt < dp else 1
                        if dt < dp:
                            c, own = 2 * c, 1 - r
                        else:
                            out["winner"][g], out["points"][g], out["cube"][g] = r, c, c
                            break
            if turn == 0 and roll is not None:
                d1, d2 = roll
            else:
                d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
            out["rolls"][g] += 1
            k = rolls[(d1, d2)]
            succ = table.succ[table.ptr[i * 21 + k] : table.ptr[i * 21 + k + 1]]
            if (succ == 0).any():
                out["winner"][g], out["points"][g], out["cube"][g] = r, c, c
                out["result"][g] = 1
                break
            opt = arr(1 - r, c, own)["optimal"]
            s = int(succ[int(np.argmin(opt[j, succ]))])
            r, i, j = 1 - r, j, s
            turn += 1
        w, pts = int(out["winner"][g]), int(out["points"][g])
        out["value"][g] = _after(met, a, b, kind, pts if w == 0 else 0, pts if w == 1 else 0)
    return out


# ----------------------------------------------------------------------------- store


class SelfPlayStore:
    """Finished batches of a self-play build: a local directory or an fsspec URL.

    One ``.npz`` per batch, ``{kind}-{a:03d}-{b:03d}/batch-{k:05d}.npz``, written under a
    temporary name and moved into place (a file exists only when complete), holding the
    batch's identity (a SHA-256 of the build's manifest, the entry, the batch number and
    the arrays: a damaged file or one copied from another batch, score or build is
    refused with one line, never served), and
    ``manifest.json`` with the build's parameters: a store made by another build is
    refused (:class:`StoreMismatchError`).
    """

    def __init__(self, location: Any) -> None:
        loc = str(location)
        if "://" in loc:
            import fsspec

            self.fs, self.root = fsspec.core.url_to_fs(loc)
        else:
            from fsspec.implementations.local import LocalFileSystem

            self.fs, self.root = LocalFileSystem(), str(location)
        self.location = loc
        self._manifest_digest = b""  # set by check_manifest

    def _path(self, name: str) -> str:
        return f"{self.root.rstrip('/')}/{name}"

    def _write(self, name: str, data: bytes) -> None:
        path = self._path(name)
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        tmp = f"{path}.tmp-{np.random.default_rng().integers(1 << 62):x}"
        with self.fs.open(tmp, "wb") as fh:
            fh.write(data)
        self.fs.mv(tmp, path)

    def check_manifest(self, params: dict[str, Any]) -> None:
        """Write the manifest, or refuse a store holding another build."""
        text = json.dumps(params, sort_keys=True, indent=1)
        self._manifest_digest = hashlib.sha256(
            json.dumps(params, sort_keys=True).encode()
        ).digest()
        path = self._path("manifest.json")
        if self.fs.exists(path):
            with self.fs.open(path, "rb") as fh:
                old = fh.read().decode()
            if json.loads(old) != json.loads(text):
                raise StoreMismatchError(
                    f"store {self.location} holds another self-play build (its manifest.json "
                    "differs from these parameters): use a new store"
                )
            return
        self._write("manifest.json", text.encode())

    @staticmethod
    def _name(entry: tuple[str, int, int], batch: int) -> str:
        kind, a, b = entry
        return f"{kind}-{a:03d}-{b:03d}/batch-{batch:05d}.npz"

    def _identity(
        self, entry: tuple[str, int, int], batch: int, arrays: dict[str, Any]
    ) -> NDArray[np.uint8]:
        """SHA-256 of what a batch is (this build's manifest, its entry and number) and of
        what it holds (every array's name, dtype, shape and bytes)."""
        h = hashlib.sha256(b"mathbg self-play batch 1\0")
        h.update(self._manifest_digest)
        h.update(json.dumps([list(entry), batch]).encode())
        for name in sorted(arrays):
            arr = np.ascontiguousarray(arrays[name])
            h.update(json.dumps([name, arr.dtype.str, list(arr.shape)]).encode())
            h.update(arr.tobytes())
        return np.frombuffer(h.digest(), dtype=np.uint8)

    def get(self, entry: tuple[str, int, int], batch: int) -> dict[str, NDArray[Any]] | None:
        """A finished batch, or None.

        Raises
        ------
        DatabaseCorruptError
            The file is damaged, or is not this build's batch ``batch`` of ``entry`` (a
            copy of another batch, score or build): the message names it; deleting it
            makes the next run play it again.
        """
        name = self._name(entry, batch)
        path = self._path(name)
        if not self.fs.exists(path):
            return None
        with self.fs.open(path, "rb") as fh:
            data = fh.read()
        way_out = f"delete {path} to play that batch again"
        try:
            arrays = _npy.decode_npz(data, path)
        except DatabaseCorruptError as exc:
            raise DatabaseCorruptError(f"{exc}; {way_out}") from None
        stored = arrays.pop("identity", None)
        if stored is None or not np.array_equal(stored, self._identity(entry, batch, arrays)):
            raise DatabaseCorruptError(
                f"store {self.location}: {name} is not batch {batch} of {entry[0]} "
                f"{entry[1]}-away/{entry[2]}-away of this build (damaged, or copied from "
                f"another batch, score or build); {way_out}"
            )
        return arrays

    def put(self, entry: tuple[str, int, int], batch: int, arrays: dict[str, Any]) -> None:
        """Store a finished batch, with its identity (:meth:`get` checks it)."""
        if "identity" in arrays:
            raise ValueError("a batch array may not be called 'identity'")
        buf = io.BytesIO()
        np.savez(buf, identity=self._identity(entry, batch, arrays), **arrays)
        self._write(self._name(entry, batch), buf.getvalue())


# ----------------------------------------------------------------------------- estimates


def _estimate(
    values: NDArray[np.float64],
    strata: NDArray[np.int64],
    controls: NDArray[np.float64] | None = None,
) -> tuple[float, float, float]:
    """Mean, stratified SE and plain SE of one entry's game values.

    ``controls`` (games x k, each of known mean zero: the luck of the first rolls) are
    subtracted with the within-stratum least-squares coefficients first (a regression
    estimator, Cochran ch. 7); the plain SE is that of the raw values.
    """
    n = len(values)
    if controls is not None and controls.size and n > controls.shape[1] + 1:
        hs = np.unique(strata)
        y = values.astype(np.float64).copy()
        x = controls.astype(np.float64).copy()
        for h in hs:
            m = strata == h
            y[m] -= y[m].mean()
            x[m] -= x[m].mean(axis=0)
        keep = x.std(axis=0) > 0
        if keep.any():
            beta = np.linalg.lstsq(x[:, keep], y, rcond=None)[0]
            adjusted = values - controls[:, keep] @ beta
            mean, se, _ = _estimate(adjusted, strata)
            return mean, se, float(values.std(ddof=1) / math.sqrt(n))
    mean = float(values.mean())
    plain = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    hs = np.unique(strata)
    counts = np.array([(strata == h).sum() for h in hs])
    if counts.min() < 2 or counts.min() != counts.max():
        return mean, plain, plain
    var = sum(float(values[strata == h].var(ddof=1)) / c for h, c in zip(hs, counts, strict=True))
    return mean, math.sqrt(var) / len(hs), plain


def _source(
    kind: str, a: int, b: int, equal: bool, crawford: bool
) -> tuple[tuple[str, int, int], float] | None:
    """The played entry a later-game score reads, and the sign (-1: ``1 - M``); None if
    the value is exact."""
    if a <= 0 or b <= 0:
        return None
    if kind == "crawford" and not crawford:
        kind = "post"
    if not equal:
        return (kind, a, b), 1.0
    if a == b:
        return None
    if kind == "normal":
        return (("normal", a, b), 1.0) if a < b else (("normal", b, a), -1.0)
    return ((kind, a, 1), 1.0) if b == 1 else ((kind, b, 1), -1.0)


def _propagate(
    entry: tuple[str, int, int],
    games: dict[str, NDArray[Any]],
    jac: dict[tuple[str, int, int], dict[tuple[str, int, int], float]],
    equal: bool,
    crawford: bool,
) -> dict[tuple[str, int, int], float]:
    """d(entry)/d(sampling error of each earlier entry), to first order.

    The entry is the mean of the table at the scores its games reach, so its error is its
    own sampling error plus the reached entries' errors weighted by how often they were
    reached (the errors of different entries come from different games: independent).
    """
    kind, a, b = entry
    row: dict[tuple[str, int, int], float] = {entry: 1.0}
    n = len(games["value"])
    won = np.stack([np.where(games["winner"] == 0, games["points"], 0),
                    np.where(games["winner"] == 1, games["points"], 0)], axis=1)  # fmt: skip
    keys, counts = np.unique(won, axis=0, return_counts=True)
    for (w0, w1), cnt in zip(keys.tolist(), counts.tolist(), strict=True):
        a2, b2 = a - w0, b - w1
        nxt = "post" if kind != "normal" or a2 == 1 or b2 == 1 else "normal"
        if kind == "normal" and (a2 == 1 or b2 == 1):
            nxt = "crawford"
        src = _source(nxt, a2, b2, equal, crawford)
        if src is None:
            continue
        for k, d in jac[src[0]].items():
            row[k] = row.get(k, 0.0) + cnt / n * src[1] * d
    return row


def fit_cube_life(
    entry: tuple[str, int, int], games: dict[str, NDArray[Any]], met: Any
) -> dict[str, Any]:
    """The cube life x that makes the 0-ply decisions' predicted MWC match the realised one.

    At each game's first cube decision (cube 1, centred) the roller's predicted MWC is
    ``max(ND(x), min(DT(x), DP))`` from the recorded cubeless chances; the realised MWC is
    the table's value after the game. ``x`` solves ``mean(predicted) = mean(realised)`` on
    a grid of 0, 0.1, ..., 1 (linear in between; NaN without a root), its standard error
    the realised-minus-predicted one over the slope. Equal players only.

    Parameters
    ----------
    entry : (kind, away, opp_away)
        The table entry played.
    games : dict of str to ndarray
        The entry's per-game arrays: ``value`` (player 0's MWC after the game), ``first``
        (the first roller), ``dec_turn`` (turn of the first cube decision, -1 without)
        and ``dec_p0`` .. ``dec_p4`` (the roller's cubeless chances there).
    met : MET
        The table the games were played with.

    Returns
    -------
    dict
        ``kind``, ``away``, ``opp_away``, ``cube_life``, ``stderr`` and ``decisions``
        (NaN values with fewer than 10 decisions).

    Examples
    --------
    Ten first decisions with the same chances, realised MWC 0.57 on average:

    >>> import numpy as np
    >>> from mathbg.met import as_met
    >>> games = {"dec_turn": np.zeros(10, dtype=int), "first": np.zeros(10, dtype=int),
    ...          "value": np.array([0.56, 0.58] * 5)}
    >>> for i, p in enumerate([0.65, 0.15, 0.01, 0.1, 0.005]):
    ...     games[f"dec_p{i}"] = np.full(10, p)
    >>> row = fit_cube_life(("normal", 3, 3), games, as_met("Kazaross-XG2"))
    >>> row["decisions"], round(row["cube_life"], 2), round(row["stderr"], 3)
    (10, 0.44, 0.083)
    """
    kind, a, b = entry
    row: dict[str, Any] = {"kind": kind, "away": a, "opp_away": b, "cube_life": math.nan,
                           "stderr": math.nan, "decisions": 0}  # fmt: skip
    d = games["dec_turn"] >= 0
    m = int(d.sum())
    row["decisions"] = m
    if m < 10:
        return row
    first = games["first"][d]
    roller = np.where(games["dec_turn"][d] % 2 == 0, first, 1 - first)
    probs = np.stack([games[f"dec_p{i}"][d] for i in range(5)], axis=1)
    ar, br = np.where(roller == 0, a, b), np.where(roller == 0, b, a)
    realised = np.where(roller == 0, games["value"][d], 1.0 - games["value"][d])
    win = {0: _after(met, a, b, kind, 1, 0), 1: 1.0 - _after(met, a, b, kind, 0, 1)}
    dp = np.array([win[int(r)] for r in roller])
    grid = np.linspace(0.0, 1.0, 11)
    ones = np.ones(m, dtype=np.int64)
    preds = []
    for xv in grid:
        nd, dt = _decide(probs, np.full(m, xv), [met], 0 * ones, ar, br, ones, ones == 1)
        preds.append(np.maximum(nd, np.minimum(dt, dp)))
    gap = np.array([p.mean() for p in preds]) - realised.mean()
    for i in range(len(grid) - 1):
        if gap[i] == 0 or gap[i] * gap[i + 1] < 0:
            t = gap[i] / (gap[i] - gap[i + 1]) if gap[i] != gap[i + 1] else 0.0
            slope = (gap[i + 1] - gap[i]) / (grid[i + 1] - grid[i])
            resid = realised - ((1 - t) * preds[i] + t * preds[i + 1])
            row["cube_life"] = float(grid[i] + t * (grid[i + 1] - grid[i]))
            if slope != 0:
                row["stderr"] = float(resid.std(ddof=1) / math.sqrt(m) / abs(slope))
            break
    return row


def entry_frame(entry: tuple[str, int, int], games: dict[str, NDArray[Any]]) -> dict[str, Any]:
    """One entry's by-products (a row of ``met.frames["scores"]``).

    Parameters
    ----------
    entry : (kind, away, opp_away)
        The table entry played.
    games : dict of str to ndarray
        The entry's per-game arrays: ``value``, ``result`` (0 passed, 1 single,
        2 gammon, 3 backgammon), ``first_double`` (-1 without a double),
        ``first_passed``, ``cube``, ``rolls`` and ``winner``.

    Returns
    -------
    dict
        ``kind``, ``away``, ``opp_away``, ``games`` and the rates and means (NaN for the
        first double's pass rate without doubles).

    Examples
    --------
    >>> import numpy as np
    >>> games = {"value": np.array([1.0, 0.0, 1.0, 0.0]), "result": np.array([1, 2, 0, 1]),
    ...          "first_double": np.array([-1, 3, 5, -1]),
    ...          "first_passed": np.array([0, 0, 1, 0]), "cube": np.array([1, 2, 1, 1]),
    ...          "rolls": np.array([30, 41, 12, 25]), "winner": np.array([0, 1, 0, 1])}
    >>> row = entry_frame(("normal", 3, 3), games)
    >>> row["games"], row["pass_rate"], row["gammon_rate"], row["first_double_pass_rate"]
    (4, 0.25, 0.25, 0.5)
    >>> row["mean_cube"], row["mean_rolls"], row["player0_win_rate"]
    (1.25, 27.0, 0.5)
    """
    kind, a, b = entry
    n = len(games["value"])
    passed = games["result"] == 0
    played = ~passed
    first = games["first_double"] >= 0
    row: dict[str, Any] = {"kind": kind, "away": a, "opp_away": b, "games": n}
    row["pass_rate"] = float(passed.mean())
    for r, name in ((1, "single"), (2, "gammon"), (3, "backgammon")):
        row[f"{name}_rate"] = float((games["result"] == r).mean())
    row["gammon_rate_played"] = (
        float((games["result"][played] >= 2).mean()) if played.any() else 0.0
    )
    row["first_double_rate"] = float(first.mean())
    row["first_double_pass_rate"] = (
        float(games["first_passed"][first].mean()) if first.any() else math.nan
    )
    row["mean_cube"] = float(games["cube"].mean())
    row["mean_rolls"] = float(games["rolls"].mean())
    row["player0_win_rate"] = float((games["winner"] == 0).mean())
    return row


# ----------------------------------------------------------------------------- driver


def _check_args(length: Any, games: Any, seed: Any, cube_limit: Any, batch_size: Any) -> None:
    for value, what, low, high in (
        (length, "length", 1, MAX_LENGTH),
        (games, "games", 1, MAX_GAMES),
        (seed, "seed", 0, 2**63 - 1),
        (batch_size, "batch_size", 1, 10**7),
    ):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise InvalidParameterError(f"{what} must be an integer, got {value!r}")
        if not low <= value <= high:
            if what == "length":
                raise InvalidScoreError(
                    f"self-play table length must lie in 1..{MAX_LENGTH} (each level of a + b "
                    f"needs the ones below; longer tables: extend a shorter one), got {value}"
                )
            raise InvalidParameterError(f"{what} must lie in {low}..{high}, got {value}")
    if cube_limit is not None:
        if (
            isinstance(cube_limit, bool)
            or not isinstance(cube_limit, int | np.integer)
            or cube_limit < 1
            or cube_limit & (cube_limit - 1)
        ):
            raise InvalidParameterError(
                f"the cube limit must be a power of two (1, 2, 4, ...), got {cube_limit!r}"
            )


def selfplay_met(
    length: int,
    games: int = 10_000,
    engine: str = "gnubg-nn",
    plies: int = 0,
    seed: int = 0,
    crawford: bool = True,
    cube_limit: int | None = None,
    players: tuple[Any, Any] = (None, None),
    start: Any = None,
    client: Any = None,
    store: Any = None,
    progress: bool = True,
    batch_size: int = BATCH_SIZE,
    cube_life: bool = False,
    target_stderr: float | None = None,
    max_games: int | None = None,
    luck_rolls: int = 0,
) -> Any:
    """A match equity table measured by self-play at every score, with standard errors.

    Parameters
    ----------
    length : int
        Table length N (1..:data:`MAX_LENGTH`).
    games : int
        Games for each entry (rounded up to a multiple of the strata: 30 from the opening,
        72 from ``start``). With ``target_stderr``: the first round's games of each entry
        (rounded up to whole batches), the sample the later rounds are planned from.
    engine, plies : str, int
        Both players' engine (:data:`ENGINES`) unless ``players`` says otherwise.
    seed : int
        The seed; with the other parameters it fixes every bit of the table.
    crawford : bool
        The Crawford rule (False: every game at a 1-away score is like a post-Crawford
        game, the cube alive from the first game at 1-away).
    cube_limit : int, optional
        Largest cube value (a power of two; 1: no cube). Not with ``exact``.
    players : (player, player)
        Player 0's and player 1's engine: None (``engine``/``plies``), an engine name,
        ``"instant:W,WG,WB,LG,LB"`` or a :class:`PlayerSpec`. Unequal players give an
        unequal table (player 0 the row player), every entry played.
    start : position or (counts, counts), optional
        Every game starts here with the first roller (a fair coin) on roll, who may double
        before his first roll (as :func:`mathbg.bearoff.exact.match.race_met`): a
        Position / Position ID, or the checker counts on points 1..6 of the first roller
        and of the other side.
    client : dask.distributed.Client, optional
        Run the batches on this cluster (same bits as without).
    store : str or path, optional
        Directory or fsspec URL for finished batches: a killed run resumes from it.
    progress : bool
        A tqdm bar over the games (its ETA from the games finished in this run).
    batch_size : int
        Games per batch (one task; a multiple of the strata count), part of the seeding.
    cube_life : bool
        Also fit each score's cube life (:func:`fit_cube_life`; gnubg-nn and instant
        engines, equal players) into ``frames["cube_life"]``.
    target_stderr : float, optional
        Play each entry in rounds of whole batches until its standard error (the one
        reported, with the errors of the entries it reads) is at most this (a fraction:
        0.005 is 0.5 pp); see :func:`plan_batches`. The decision after each round reads
        only the finished batches, so local, Dask and resumed runs give the same bits.
    max_games : int, optional
        With ``target_stderr``: at most this many games an entry (rounded down to whole
        batches, at least the first round); default :data:`MAX_GAMES`. An entry that stops
        here, or whose error from the entries it reads alone exceeds the target, keeps the
        larger error (``frames["scores"]["reached"]`` is False).
    luck_rolls : int
        A control variate (gnubg-nn players): the luck of the first ``luck_rolls`` rolls
        after the opening roll (0..3), each the roller's 0-ply cubeless equity after the
        best play for the roll thrown minus its mean over the 21 rolls (known mean zero),
        subtracted with least-squares coefficients within the strata. The positions of
        the first turns repeat, so the 21-roll equities are cached per process.

    Returns
    -------
    mathbg.met.MET
        ``pre``/``post`` with ``stderr``/``post_stderr`` (NaN where exact), ``games``/
        ``post_games``, ``metadata`` (everything needed to rebuild it) and ``frames``:
        ``"scores"`` (a row per played entry: value, SE, plain SE, gammon, backgammon and
        pass rates, first double and its pass rate, mean cube, game length in rolls) and
        ``"cubes"`` (final cube level shares by entry) and, with ``cube_life``,
        ``"cube_life"`` (the fitted cube life per entry with its standard error).

    Raises
    ------
    InvalidParameterError
        For a length, game count, seed, cube limit, batch size or start out of range, an
        unknown engine, or the exact engine against another or with a cube limit.

    Examples
    --------
    With the ``instant`` test engine (the first roller wins half the games; a tenth of
    them are his gammons, a tenth his opponent's) and no cube:

    >>> met = selfplay_met(2, games=30, players=("instant:0.5,0.1,0,0.1,0",) * 2,
    ...                    cube_limit=1, progress=False)
    >>> round(float(met.pre[0][1]), 4), round(float(met.stderr[0][1]), 4)
    (0.7167, 0.0665)
    >>> met.frames["scores"][["kind", "away", "opp_away", "games"]].values.tolist()
    [['crawford', 2, 1, 30], ['post', 2, 1, 30]]
    """
    _check_args(length, games, seed, cube_limit, batch_size)
    if target_stderr is not None:
        from mathbg._validate import finite_float

        target_stderr = finite_float(target_stderr, "target_stderr")
        if not 0.0 < target_stderr < 0.5:
            raise InvalidParameterError(
                f"target_stderr is a fraction in (0, 0.5) (0.005 is 0.5 pp), got {target_stderr}"
            )
        if max_games is None:
            max_games = MAX_GAMES
        if isinstance(max_games, bool) or not isinstance(max_games, int | np.integer):
            raise InvalidParameterError(f"max_games must be an integer, got {max_games!r}")
        if not 1 <= max_games <= MAX_GAMES:
            raise InvalidParameterError(f"max_games must lie in 1..{MAX_GAMES}, got {max_games}")
    elif max_games is not None:
        raise InvalidParameterError("max_games goes with target_stderr")
    if isinstance(luck_rolls, bool) or not isinstance(luck_rolls, int) or not 0 <= luck_rolls <= 3:
        raise InvalidParameterError(f"luck_rolls must be 0, 1, 2 or 3, got {luck_rolls!r}")
    specs = (_spec(players[0], engine, plies), _spec(players[1], engine, plies))
    kinds = {s.engine for s in specs}
    if "exact" in kinds:
        if kinds != {"exact"}:
            raise InvalidParameterError("the exact engine plays only against itself")
        if cube_limit is not None:
            raise InvalidParameterError("the exact bearoff solver has no cube limit")
        _exact_space(start)
    elif start is not None:
        _start_board(start)
    equal = specs[0] == specs[1]
    strata = 72 if start is not None else 30
    if batch_size % strata:
        raise InvalidParameterError(f"batch_size must be a multiple of {strata} (the strata)")
    per_entry = -(-int(games) // strata) * strata
    start_json = (
        None
        if start is None
        else [list(map(int, s)) for s in start]
        if isinstance(start, tuple) and not isinstance(start[0], str)
        else str(getattr(start, "id", start))
    )
    params: dict[str, Any] = {
        "method": "selfplay",
        "version": 2,
        "length": int(length),
        "games": per_entry,
        "seed": int(seed),
        "players": [_spec_dict(s) for s in specs],
        "crawford": bool(crawford),
        "cube_limit": cube_limit,
        "start": start_json,
        "batch_size": int(batch_size),
    }
    if target_stderr is not None:
        params["target_stderr"] = float(target_stderr)
        params["max_games"] = int(max_games or MAX_GAMES)
    if luck_rolls:
        params["luck_rolls"] = int(luck_rolls)
    params = json.loads(json.dumps(params))  # JSON's own types: what a file gives back
    st = SelfPlayStore(store) if store is not None else None
    if st is not None:
        st.check_manifest(params)
    entries = _entries(int(length), bool(crawford), equal)
    table = _Table(int(length), bool(crawford), equal)
    first = -(-per_entry // batch_size)  # batches of the first (with no target: only) round
    cap = first if target_stderr is None else max(first, int(max_games or 0) // batch_size)

    def size(k: int) -> int:
        if target_stderr is not None:
            return batch_size
        return min(batch_size, per_entry - k * batch_size)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(entries) * first * batch_size if target_stderr is not None
                   else len(entries) * per_entry, desc=f"self-play MET to {length}",
                   unit="game", leave=False)  # fmt: skip
    rows: list[dict[str, Any]] = []
    cube_rows: list[dict[str, Any]] = []
    life_rows: list[dict[str, Any]] = []
    own: dict[tuple[str, int, int], float] = {}
    jac: dict[tuple[str, int, int], dict[tuple[str, int, int], float]] = {}
    try:
        levels = sorted({_level(e) for e in entries})
        for lev in levels:
            todo = [e for e in entries if _level(e) == lev]
            met = table.met()
            results: dict[tuple[tuple[str, int, int], int], dict[str, Any]] = {}
            planned = dict.fromkeys(todo, first)
            pending = list(todo)
            while pending:  # rounds: every pending entry's planned batches, then decide
                jobs = []
                for e in pending:
                    for k in range(planned[e]):
                        if (e, k) in results:
                            continue
                        got = st.get(e, k) if st is not None else None
                        if got is not None:
                            results[(e, k)] = got
                            if bar is not None:
                                bar.total -= size(k)
                                bar.refresh()
                        else:
                            jobs.append(_Job(e, k, size(k), int(seed), specs, start, cube_limit,
                                             bool(crawford), np.array(met.pre),
                                             np.array(met.post), int(luck_rolls)))  # fmt: skip
                for job, res in _execute(jobs, client):
                    results[(job.entry, job.batch)] = res
                    if st is not None:
                        st.put(job.entry, job.batch, res)
                    if bar is not None:
                        bar.update(job.games)
                still = []
                for e in pending:
                    parts = [results[(e, k)] for k in range(planned[e])]
                    merged = {f: np.concatenate([p[f] for p in parts]) for f in parts[0]}
                    luck = [merged[f"luck{t}"] for t in range(1, luck_rolls + 1)
                            if f"luck{t}" in merged]  # fmt: skip
                    controls = np.stack(luck, axis=1) if luck else None
                    mean, se, plain = _estimate(merged["value"], merged["stratum"], controls)
                    row_jac = _propagate(e, merged, jac, equal, bool(crawford))
                    inherited = math.sqrt(sum(w * w * own[k] ** 2
                                              for k, w in row_jac.items() if k != e))  # fmt: skip
                    more = 0
                    if target_stderr is not None:
                        more = plan_batches(planned[e], batch_size, se, inherited,
                                            target_stderr, cap)  # fmt: skip
                    if more:
                        planned[e] += more
                        still.append(e)
                        if bar is not None:
                            bar.total += more * batch_size
                            bar.refresh()
                        continue
                    own[e] = se
                    jac[e] = row_jac
                    total = math.sqrt(se * se + inherited * inherited)
                    table.set(e, mean, total, len(merged["value"]))
                    row = {**entry_frame(e, merged), "mwc": mean, "stderr": total,
                           "stderr_own": se, "plain_stderr_own": plain}  # fmt: skip
                    if target_stderr is not None:
                        row["reached"] = bool(total <= target_stderr)
                    rows.append(row)
                    if cube_life and equal and kinds != {"exact"} and e[0] != "crawford":
                        life_rows.append(fit_cube_life(e, merged, met))
                    levels_c, counts = np.unique(merged["cube"], return_counts=True)
                    for c, cnt in zip(levels_c, counts, strict=True):
                        share = cnt / len(merged["cube"])
                        cube_rows.append({"kind": e[0], "away": e[1], "opp_away": e[2],
                                          "cube": int(c), "share": share})  # fmt: skip
                pending = still
    finally:
        if bar is not None:
            bar.close()
    order = {e: i for i, e in enumerate(entries)}
    for frame in (rows, cube_rows, life_rows):  # entry order, whatever round finished it
        frame.sort(key=lambda r: order[(r["kind"], r["away"], r["opp_away"])])
    return _result(table, params, specs, rows, cube_rows, life_rows)


def plan_batches(
    batches: int, batch_size: int, own: float, inherited: float, target: float, cap: int
) -> int:
    """How many batches one entry adds in the next round to reach a target standard error.

    The entry's error is ``sqrt(own^2 + inherited^2)``: its own sampling error (falling as
    one over the square root of its games) and the errors of the entries its games reach.
    With ``n`` games played, the own error reaches ``sqrt(target^2 - inherited^2)`` at
    about ``n * (own / that)^2`` games; the next round plays the whole batches to 5 % more
    than that, at least one, at most up to ``cap`` batches. Zero when the target is met,
    when the cap is reached, or when the inherited error alone exceeds the target (more
    games of this entry cannot help). A function of finished batches only: the same plan
    on every scheduler and on resume.

    Parameters
    ----------
    batches, batch_size : int
        Batches played so far and games per batch.
    own, inherited : float
        The entry's own (stratified) standard error and the inherited one.
    target : float
        The target standard error.
    cap : int
        Most batches for the entry.

    Returns
    -------
    int
        Batches to add (0: the entry is finished).

    Examples
    --------
    3600 games gave an own error of 0.8 pp: 0.5 pp needs 2.56 times the games.

    >>> plan_batches(1, 3600, 0.008, 0.0, 0.005, 100)
    2
    >>> plan_batches(3, 3600, 0.0049, 0.0, 0.005, 100)  # met
    0
    >>> plan_batches(3, 3600, 0.004, 0.004, 0.005, 3)  # at the cap
    0
    """
    if math.hypot(own, inherited) <= target or batches >= cap or inherited >= target:
        return 0
    need = batches * batch_size * (own * own / (target * target - inherited * inherited)) * 1.05
    return max(1, min(cap - batches, math.ceil(need / batch_size) - batches))


def _execute(jobs: list[_Job], client: Any) -> Any:
    """Yield ``(job, result)`` as batches finish, locally or on a Dask client."""
    if client is None:
        for job in jobs:
            yield job, _run_job(job)
        return
    from mathbg._dask import as_finished

    futures = [client.submit(_run_job, job, pure=False) for job in jobs]
    for i, res in as_finished(client, futures, "self-play run"):
        yield jobs[i], res


def _result(
    table: _Table,
    params: dict[str, Any],
    specs: tuple[PlayerSpec, PlayerSpec],
    rows: list[dict[str, Any]],
    cube_rows: list[dict[str, Any]],
    life_rows: list[dict[str, Any]],
) -> Any:
    import pandas as pd

    from mathbg.met import MET

    label = (
        specs[0].label() if specs[0] == specs[1] else f"{specs[0].label()} vs {specs[1].label()}"
    )
    rules = "Crawford rule" if params["crawford"] else "no Crawford rule"
    if params["cube_limit"] is not None:
        rules += f", cube limit {params['cube_limit']}"
    scores = pd.DataFrame(rows)
    cubes = pd.DataFrame(cube_rows)
    games = f"{params['games']} games an entry"
    if "target_stderr" in params and len(scores):
        games = (f"games to SE <= {100 * params['target_stderr']:g} pp an entry "
                 f"({int(scores['games'].min())}..{int(scores['games'].max())})")  # fmt: skip
    return MET(
        pre=np.clip(table.pre, 0.0, 1.0),
        post=np.clip(table.post, 0.0, 1.0),
        name="selfplay",
        source=f"mathbg self-play, {label}, {games}, seed {params['seed']}, {rules}",
        model="selfplay",
        title="Self-play MET",
        description="Match equity measured by self-play at every score, with standard errors",
        notes=json.dumps(params, sort_keys=True),
        stderr=table.pre_se,
        post_stderr=table.post_se,
        games=table.pre_n,
        post_games=table.post_n,
        metadata=params,
        frames={"scores": scores, "cubes": cubes, "cube_life": pd.DataFrame(life_rows)},
    )
