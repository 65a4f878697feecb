"""The build: the options of a self-play table (:class:`SelfPlayOptions`), checked before
any game, and :func:`selfplay_met`, which plays the entries level by level (locally or on
Dask, resuming from a store) and returns the :class:`~mathbg.met.MET`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg._validate import options_or_keywords, strict_integer
from mathbg.analysis.base import Player
from mathbg.analysis.selfplay.batch import Batch, start_board
from mathbg.analysis.selfplay.estimates import (
    CubeLifeFit,
    CubeShare,
    Jacobian,
    ScoreRow,
    entry_stats,
    estimate,
    fit_cube_life,
    plan_batches,
    propagate,
    record,
)
from mathbg.analysis.selfplay.exact import exact_space
from mathbg.analysis.selfplay.games import run_batch
from mathbg.analysis.selfplay.players import make_player, parse_player, player_settings
from mathbg.analysis.selfplay.store import SelfPlayStore
from mathbg.analysis.selfplay.table import Entry, ScoreTable, entries
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met.table import MET
from mathbg.rules.match import ScoreState

__all__ = ["BATCH_SIZE", "MAX_GAMES", "MAX_LENGTH", "SelfPlayOptions", "selfplay_met"]

#: Longest table self-play builds (a + b levels, each needs the ones below).
MAX_LENGTH = 25
#: Most games per entry (the bound on ``games``).
MAX_GAMES = 10**8
#: Default games per batch (a multiple of the 30 and 72 strata).
BATCH_SIZE = 3600
#: The manifest's version (a store of another version is refused, not read).
VERSION = 3


def _check_length(value: object) -> None:
    if not 1 <= strict_integer(value, "length") <= MAX_LENGTH:
        raise InvalidScoreError(
            f"self-play table length must lie in 1..{MAX_LENGTH} (each level of a + b "
            f"needs the ones below; longer tables: extend a shorter one), got {value}"
        )


@dataclass(frozen=True)
class SelfPlayOptions:
    """What a self-play table is: everything that fixes its bits, checked at once.

    Attributes
    ----------
    length : int
        Table length N (1..:data:`MAX_LENGTH`).
    games : int
        Games for each entry (rounded up to a multiple of the strata: 30 from the opening,
        72 from ``start``; :attr:`games_per_entry`). With ``target_stderr``: the first
        round's games of each entry (rounded up to whole batches), the sample the later
        rounds are planned from.
    engine, plies : str, int
        Both players' engine (any engine with the ``play`` capability:
        :func:`mathbg.analysis.registry.engines` ``("play")``) unless ``players`` says
        otherwise.
    seed : int
        The seed; with the other options it fixes every bit of the table.
    crawford : bool
        The Crawford rule (False: every game at a 1-away score is like a post-Crawford
        game, the cube alive from the first game at 1-away).
    cube_limit : int or None
        Largest cube value (a power of two; 1: no cube). Not with ``exact``.
    players : (player, player)
        Player 0's and player 1's engine: None (``engine``/``plies``), a string
        (``"gnubg-nn:plies=1,noise=0.05"``, ``"ENGINE:W,WG,WB,LG,LB"``) or a
        :class:`PlayerSpec`; checked into two specs. Unequal players give an unequal
        table (player 0 the row player), every entry played.
    start : position, str, (counts, counts) or None
        Every game starts here with the first roller (a fair coin) on roll, who may double
        before his first roll (as :func:`mathbg.bearoff.exact.match.race_met`): a
        Position / Position ID, or the checker counts on points 1..6 of the first roller
        and of the other side.
    batch_size : int
        Games per batch (one task; a multiple of the strata count), part of the seeding.
    fit_cube_life : bool
        Also fit each score's cube life (:func:`~mathbg.analysis.selfplay.fit_cube_life`;
        board players, equal players) into ``frames["cube_life"]``.
    target_stderr : float or None
        Play each entry in rounds of whole batches until its standard error (the one
        reported, with the errors of the entries it reads) is at most this (a fraction:
        0.005 is 0.5 pp); see :func:`~mathbg.analysis.selfplay.plan_batches`.
    max_games : int or None
        With ``target_stderr``: at most this many games an entry (rounded down to whole
        batches, at least the first round); default :data:`MAX_GAMES`.
    luck_rolls : int
        A control variate (players that measure it, gnubg-nn): the luck of the first
        ``luck_rolls`` rolls after the opening roll (0..3), each the roller's 0-ply
        cubeless equity after the best play for the roll thrown minus its mean over the 21
        rolls (known mean zero), subtracted with least-squares coefficients within the
        strata.

    Raises
    ------
    InvalidParameterError
        For a value out of range, an engine that cannot play, or the exact engine against
        another, without a bearoff start or with a cube limit.
    InvalidScoreError
        For a length out of range.
    EngineNotAvailableError
        For an engine that is not installed.

    Examples
    --------
    >>> opts = SelfPlayOptions(3, games=100, engine="exact", start=([0] * 5 + [2],) * 2)
    >>> opts.games_per_entry, opts.strata, opts.players[0].engine
    (144, 72, 'exact')
    """

    length: int
    games: int = 10_000
    engine: str = "gnubg-nn"
    plies: int = 0
    seed: int = 0
    crawford: bool = True
    cube_limit: int | None = None
    players: tuple[Any, Any] = (None, None)
    start: Any = None
    batch_size: int = BATCH_SIZE
    fit_cube_life: bool = False
    target_stderr: float | None = None
    max_games: int | None = None
    luck_rolls: int = 0
    _made: tuple[Player, Player] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_length(self.length)
        strict_integer(self.games, "games", 1, MAX_GAMES)
        strict_integer(self.seed, "seed", 0, 2**63 - 1)
        strict_integer(self.batch_size, "batch_size", 1, 10**7)
        limit = self.cube_limit
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1
            or limit & (limit - 1)
        ):  # fmt: skip
            raise InvalidParameterError(
                f"the cube limit must be a power of two (1, 2, 4, ...), got {limit!r}"
            )
        self._check_target()
        rolls = self.luck_rolls
        if isinstance(rolls, bool) or not isinstance(rolls, int) or not 0 <= rolls <= 3:
            raise InvalidParameterError(f"luck_rolls must be 0, 1, 2 or 3, got {rolls!r}")
        made = [make_player(parse_player(p, self.engine, self.plies)) for p in self.players]
        object.__setattr__(self, "players", (made[0][0], made[1][0]))
        object.__setattr__(self, "_made", (made[0][1], made[1][1]))
        own = [p.own_cube for p in self._made]
        if any(own):
            if not all(own) or not self.equal:
                raise InvalidParameterError(
                    f"the {self.players[own.index(True)].engine} engine plays only against itself"
                )
            if limit is not None:
                raise InvalidParameterError("the exact bearoff solver has no cube limit")
            exact_space(self.start)
        elif self.start is not None:
            start_board(self.start)
        if self.batch_size % self.strata:
            raise InvalidParameterError(
                f"batch_size must be a multiple of {self.strata} (the strata)"
            )

    def _check_target(self) -> None:
        target = self.target_stderr
        if target is None:
            if self.max_games is not None:
                raise InvalidParameterError("max_games goes with target_stderr")
            return
        from mathbg._validate import finite_float

        target = finite_float(target, "target_stderr")
        if not 0.0 < target < 0.5:
            raise InvalidParameterError(
                f"target_stderr is a fraction in (0, 0.5) (0.005 is 0.5 pp), got {target}"
            )
        object.__setattr__(self, "target_stderr", target)
        if self.max_games is not None:
            strict_integer(self.max_games, "max_games", 1, MAX_GAMES)

    @property
    def equal(self) -> bool:
        """The same player on both sides (a symmetric table, each pair played once)."""
        return bool(self.players[0] == self.players[1])

    @property
    def strata(self) -> int:
        """The strata of the first rolls: 30 from the opening, 72 from a start."""
        return 72 if self.start is not None else 30

    @property
    def games_per_entry(self) -> int:
        """``games`` rounded up to a multiple of :attr:`strata`."""
        return -(-int(self.games) // self.strata) * self.strata

    def made_players(self) -> tuple[Player, Player]:
        """The two players (from the engine registry)."""
        return self._made

    def manifest(self) -> dict[str, object]:
        """The build's parameters in JSON's own types: the table's ``metadata`` and the
        store's ``manifest.json`` (a store of other parameters is refused)."""
        start = self.start
        if start is not None:
            start = (
                [list(map(int, s)) for s in start]
                if isinstance(start, tuple) and not isinstance(start[0], str)
                else str(getattr(start, "id", start))
            )
        params: dict[str, Any] = {
            "method": "selfplay", "version": VERSION, "length": int(self.length),
            "games": self.games_per_entry, "seed": int(self.seed),
            "players": [player_settings(s) for s in self.players],
            "crawford": bool(self.crawford), "cube_limit": self.cube_limit, "start": start,
            "batch_size": int(self.batch_size),
        }  # fmt: skip
        if self.target_stderr is not None:
            params["target_stderr"] = float(self.target_stderr)
            params["max_games"] = int(self.max_games or MAX_GAMES)
        if self.luck_rolls:
            params["luck_rolls"] = int(self.luck_rolls)
        result: dict[str, object] = json.loads(json.dumps(params))  # what a file gives back
        return result


class _Build:
    """One build in progress: the table so far, the finished entries' estimates and rows."""

    def __init__(self, opts: SelfPlayOptions, client: Any, store: SelfPlayStore | None,
                 bar: Any) -> None:  # fmt: skip
        self.opts, self.client, self.store, self.bar = opts, client, store, bar
        self.entries = entries(int(opts.length), bool(opts.crawford), opts.equal)
        self.table = ScoreTable(int(opts.length), bool(opts.crawford), opts.equal)
        size, per = opts.batch_size, opts.games_per_entry
        self.first = -(-per // size)  # batches of the first (with no target: only) round
        self.cap = self.first
        if opts.target_stderr is not None:
            self.cap = max(self.first, int(opts.max_games or MAX_GAMES) // size)
        self.rows: list[ScoreRow] = []
        self.cubes: list[CubeShare] = []
        self.lives: list[CubeLifeFit] = []
        self.own: dict[Entry, float] = {}
        self.jac: dict[Entry, Jacobian] = {}

    def size(self, k: int) -> int:
        """Games of batch ``k`` of an entry."""
        opts = self.opts
        if opts.target_stderr is not None:
            return opts.batch_size
        return min(opts.batch_size, opts.games_per_entry - k * opts.batch_size)

    def run(self) -> None:
        for level in sorted({e.level for e in self.entries}):
            todo = [e for e in self.entries if e.level == level]
            met = self.table.met()
            results: dict[tuple[Entry, int], dict[str, NDArray[Any]]] = {}
            planned = dict.fromkeys(todo, self.first)
            pending = list(todo)
            while pending:  # rounds: every pending entry's planned batches, then decide
                self.play(pending, planned, results, met)
                still = []
                for e in pending:
                    parts = [results[(e, k)] for k in range(planned[e])]
                    merged = {f: np.concatenate([p[f] for p in parts]) for f in parts[0]}
                    more = self.finish(e, merged, met, planned[e])
                    if more:
                        planned[e] += more
                        still.append(e)
                        if self.bar is not None:
                            self.bar.total += more * self.opts.batch_size
                            self.bar.refresh()
                pending = still

    def play(
        self,
        pending: list[Entry],
        planned: dict[Entry, int],
        results: dict[tuple[Entry, int], dict[str, NDArray[Any]]],
        met: MET,
    ) -> None:
        """Every planned batch of the pending entries: from the store, or played."""
        opts, jobs = self.opts, []
        players = opts.made_players()
        for e in pending:
            for k in range(planned[e]):
                if (e, k) in results:
                    continue
                got = self.store.get_batch(e, k) if self.store is not None else None
                if got is not None:
                    results[(e, k)] = got
                    if self.bar is not None:
                        self.bar.total -= self.size(k)
                        self.bar.refresh()
                else:
                    jobs.append(Batch(e, k, self.size(k), int(opts.seed), players, opts.equal,
                                      opts.start, opts.cube_limit, bool(opts.crawford),
                                      np.array(met.pre), np.array(met.post),
                                      int(opts.luck_rolls)))  # fmt: skip
        for job, res in _execute(jobs, self.client):
            results[(job.entry, job.batch)] = res
            if self.store is not None:
                self.store.put_batch(job.entry, job.batch, res)
            if self.bar is not None:
                self.bar.update(job.games)

    def finish(self, e: Entry, merged: dict[str, NDArray[Any]], met: MET, batches: int) -> int:
        """Estimate an entry from its games; the batches it still needs (0: recorded)."""
        opts = self.opts
        luck = [merged[f"luck{t}"] for t in range(1, opts.luck_rolls + 1) if f"luck{t}" in merged]
        controls = np.stack(luck, axis=1) if luck else None
        mean, se, plain = estimate(merged["value"], merged["stratum"], controls)
        row_jac = propagate(e, merged, self.jac, opts.equal, bool(opts.crawford))
        inherited = math.sqrt(sum(w * w * self.own[k] ** 2 for k, w in row_jac.items() if k != e))
        target = opts.target_stderr
        if target is not None:
            more = plan_batches(batches, opts.batch_size, se, inherited, target, self.cap)
            if more:
                return more
        self.own[e] = se
        self.jac[e] = row_jac
        total = math.sqrt(se * se + inherited * inherited)
        self.table.set(e, mean, total, len(merged["value"]))
        reached = None if target is None else bool(total <= target)
        row = ScoreRow(**asdict(entry_stats(e, merged)), mwc=mean, stderr=total, stderr_own=se,
                       plain_stderr_own=plain, reached=reached)  # fmt: skip
        self.rows.append(row)
        board_players = not any(p.own_cube for p in opts.made_players())
        if opts.fit_cube_life and opts.equal and board_players and e.state != ScoreState.CRAWFORD:
            self.lives.append(fit_cube_life(e, merged, met))
        levels, counts = np.unique(merged["cube"], return_counts=True)
        for c, cnt in zip(levels, counts, strict=True):
            self.cubes.append(CubeShare(e.state.value, e.away, int(c), cnt / len(merged["cube"])))
        return 0


def _execute(jobs: list[Batch], client: Any) -> Iterator[tuple[Batch, dict[str, NDArray[Any]]]]:
    """Yield ``(job, result)`` as batches finish, locally or on a Dask client."""
    if client is None:
        for job in jobs:
            yield job, run_batch(job)
        return
    from mathbg._dask import as_finished

    futures = [client.submit(run_batch, job, pure=False) for job in jobs]
    for i, res in as_finished(client, futures, "self-play run"):
        yield jobs[i], res


def selfplay_met(
    length: int | SelfPlayOptions,
    *,
    client: Any = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = True,
    **options: Any,
) -> MET:
    """A match equity table measured by self-play at every score, with standard errors.

    Parameters
    ----------
    length : int or SelfPlayOptions
        The table's length (the other options as keywords), or all the options.
    client : dask.distributed.Client, optional
        Run the batches on this cluster (same bits as without).
    store : str or path, optional
        Directory or URL (fsspec: ``pip install 'mathbg[dask]'``) for finished batches: a
        killed run resumes from it, to the bits of an uninterrupted one.
    progress : bool
        A tqdm bar over the games (its ETA from the games finished in this run).
    **options
        The fields of :class:`SelfPlayOptions` (``games``, ``engine``, ``plies``,
        ``seed``, ``crawford``, ``cube_limit``, ``players``, ``start``, ``batch_size``,
        ``fit_cube_life``, ``target_stderr``, ``max_games``, ``luck_rolls``).

    Returns
    -------
    mathbg.met.MET
        ``pre``/``post`` with ``stderr``/``post_stderr`` (NaN where exact), ``games``/
        ``post_games``, ``metadata`` (:meth:`SelfPlayOptions.manifest`: everything needed
        to rebuild it) and ``frames``: ``"scores"`` (a
        :class:`~mathbg.analysis.selfplay.ScoreRow` per played entry: value, SE, plain SE,
        gammon, backgammon and pass rates, first double and its pass rate, mean cube, game
        length in rolls), ``"cubes"`` (final cube level shares by entry) and, with
        ``fit_cube_life``, ``"cube_life"`` (the fitted cube life per entry with its
        standard error).

    Raises
    ------
    InvalidParameterError
        For options out of range (:class:`SelfPlayOptions`), both ``length`` as options
        and keywords, or a store URL without fsspec.
    StoreMismatchError
        For a store holding another build.

    Examples
    --------
    With the exact bearoff solver playing a race of two checkers a side on the 6-point
    (checkers and cube), beside the exact table of that game:

    >>> from mathbg.bearoff.exact.match import race_met
    >>> start = [0, 0, 0, 0, 0, 2]
    >>> met = selfplay_met(2, games=144, engine="exact", start=(start, start), progress=False)
    >>> exact = race_met(start, length=2, progress=False)
    >>> bool(abs(met.pre[1, 0] - exact.pre[1, 0]) < 3 * met.stderr[1, 0])
    True
    >>> met.frames["scores"][["state", "away", "opp_away", "games"]].values.tolist()
    [['crawford', 2, 1, 144], ['post-crawford', 2, 1, 144]]
    """
    opts = options_or_keywords(length, options, SelfPlayOptions, "options")
    st = SelfPlayStore(store) if store is not None else None
    if st is not None:
        st.check_manifest(opts.manifest())
    bar = _progress_bar(opts) if progress else None
    build = _Build(opts, client, st, bar)
    try:
        build.run()
    finally:
        if bar is not None:
            bar.close()
    return _result(build)


def _progress_bar(opts: SelfPlayOptions) -> Any:
    """A tqdm bar over the games of the first round (later rounds add to its total)."""
    from tqdm.auto import tqdm

    per = opts.games_per_entry
    n = len(entries(int(opts.length), bool(opts.crawford), opts.equal))
    first = -(-per // opts.batch_size) * opts.batch_size
    return tqdm(total=n * (first if opts.target_stderr is not None else per),
                desc=f"self-play MET to {opts.length}", unit="game", leave=False)  # fmt: skip


def _result(build: _Build) -> MET:
    import pandas as pd

    opts, table = build.opts, build.table
    params = opts.manifest()
    order = {e: i for i, e in enumerate(build.entries)}

    def key(row: ScoreRow | CubeShare | CubeLifeFit) -> int:
        return order[Entry(ScoreState(row.state), row.away)]

    scores = pd.DataFrame([record(r) for r in sorted(build.rows, key=key)])
    if opts.target_stderr is None and len(scores):
        scores = scores.drop(columns="reached")
    cubes = pd.DataFrame([record(r) for r in sorted(build.cubes, key=key)])
    lives = pd.DataFrame([record(r) for r in sorted(build.lives, key=key)])
    p0, p1 = opts.made_players()
    label = p0.label if opts.equal else f"{p0.label} vs {p1.label}"
    rules = "Crawford rule" if opts.crawford else "no Crawford rule"
    if opts.cube_limit is not None:
        rules += f", cube limit {opts.cube_limit}"
    games = f"{opts.games_per_entry} games an entry"
    if opts.target_stderr is not None and len(scores):
        games = (f"games to SE <= {100 * opts.target_stderr:g} pp an entry "
                 f"({int(scores['games'].min())}..{int(scores['games'].max())})")  # fmt: skip
    return MET(
        pre=np.clip(table.pre, 0.0, 1.0),
        post=np.clip(table.post, 0.0, 1.0),
        name="selfplay",
        source=f"mathbg self-play, {label}, {games}, seed {opts.seed}, {rules}",
        model="selfplay",
        title="Self-play MET",
        description="Match equity measured by self-play at every score, with standard errors",
        notes=json.dumps(params, sort_keys=True),
        stderr=table.pre_se,
        post_stderr=table.post_se,
        games=table.pre_n,
        post_games=table.post_n,
        metadata=params,
        frames={"scores": scores, "cubes": cubes, "cube_life": lives},
    )

