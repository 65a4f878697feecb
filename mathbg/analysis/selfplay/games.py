"""The game loop of board players: one batch of games in lockstep, turn by turn.

The cube decisions of every roller with access to the cube at once (mathbg's cube theory
on the players' cubeless chances, under the table below the entry), then every roll and
play (:meth:`mathbg.analysis.base.Player.play`). Players that decide their own cube (the
exact bearoff solver) play the exact engine's games instead
(:mod:`mathbg.analysis.selfplay.exact`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import Board, GameEnd
from mathbg.analysis.selfplay.batch import Batch, new_arrays, start_board, strata
from mathbg.analysis.selfplay.exact import play_exact
from mathbg.analysis.selfplay.table import after, decide, swapped
from mathbg.met.table import MET
from mathbg.rules.dice import ROLL_INDEX
from mathbg.rules.match import ScoreState

__all__ = ["run_batch"]


def run_batch(job: Batch) -> dict[str, NDArray[Any]]:
    """Play one batch; its per-game arrays (:data:`FIELDS`).

    Parameters
    ----------
    job : Batch
        The entry (a score) and how many of its games to play, with the players, the
        seed and the table built so far.

    Returns
    -------
    dict of str to ndarray
        One value per game in each field (and ``luck1``.. with ``luck_rolls``).

    Examples
    --------
    The exact solver's games at post-Crawford 2-away/1-away, one checker a side: the 72
    strata (first roller x first roll) once each.

    >>> from mathbg.analysis.registry import get_player
    >>> from mathbg.analysis.selfplay.table import Entry
    >>> from mathbg.met import load
    >>> xg, exact = load("kazaross-xg2", length=2), get_player("exact")
    >>> job = Batch(Entry(ScoreState.POST_CRAWFORD, (2, 1)), 0, 72, 0, (exact, exact), True,
    ...             ([0, 0, 0, 0, 0, 1],) * 2, None, True, np.array(xg.pre), np.array(xg.post))
    >>> games = run_batch(job)
    >>> len(games["value"]), sorted(set(games["stratum"].tolist())) == list(range(72))
    (72, True)
    """
    rng, noise = job.streams()
    met = MET(pre=job.pre, post=job.post, name="selfplay")
    if any(p.own_cube for p in job.players):
        return play_exact(job, met, rng)
    return _BoardGames(job, met).run(rng, noise)


class _BoardGames:
    """The games of a batch of board players, in lockstep (one turn of every game at a
    time), with the cube decisions of mathbg's cube theory."""

    def __init__(self, job: Batch, met: MET) -> None:
        self.job, self.met = job, met
        n = self.n = job.games
        self.views = [met] if job.equal else [met, swapped(met)]
        self.away = job.entry.away
        self.limit = job.cube_limit or 1 << 30
        self.values: dict[tuple[int, int], float] = {}
        self.out = new_arrays(n, job.luck_rolls)
        count, stratum = strata(job.start)
        board = start_board(job.start)
        self.roller = np.empty(n, dtype=np.int64)
        self.boards: list[Board] = [board] * n
        self.first_roll: list[tuple[int, int]] = []
        for g in range(n):
            h = g % count
            first, roll = stratum(h)
            self.out["stratum"][g], self.out["first"][g] = h, first
            self.roller[g] = first
            self.first_roll.append(roll)
        self.cube = np.ones(n, dtype=np.int64)
        self.owner = np.full(n, -1, dtype=np.int64)  # -1 centre, else the player holding it
        self.active = np.ones(n, dtype=bool)

    def value(self, won0: int, won1: int) -> float:
        """Player 0's MWC after the game, by the points each side scored (cached)."""
        key = (won0, won1)
        if key not in self.values:
            self.values[key] = after(self.met, self.job.entry, won0, won1)
        return self.values[key]

    def finish(self, g: int, winner: int, pts: int, result: int) -> None:
        out = self.out
        self.active[g] = False
        out["winner"][g], out["points"][g], out["result"][g] = winner, pts, result
        out["cube"][g] = self.cube[g]
        out["value"][g] = self.value(pts, 0) if winner == 0 else self.value(0, pts)

    def run(self, rng: np.random.Generator, noise: np.random.Generator) -> dict[str, NDArray[Any]]:
        turn = 0
        cubeless = self.job.entry.state is ScoreState.CRAWFORD
        while self.active.any():
            dice = rng.integers(1, 7, size=(self.n, 2))
            uniform = rng.random(self.n)
            live = np.flatnonzero(self.active)
            if not (self.job.start is None and turn == 0) and not cubeless:
                self.cube_turn(turn)
            self.roll_turn(turn, live, dice, uniform, noise)
            turn += 1
        return self.out

    def cube_turn(self, turn: int) -> None:
        """The cube decisions of every roller with access to the cube."""
        roller, cube, owner, out = self.roller, self.cube, self.owner, self.out
        ar = np.where(roller == 0, self.away[0], self.away[1])
        br = np.where(roller == 0, self.away[1], self.away[0])
        may = self.active & (ar > cube) & ((owner == -1) | (owner == roller))
        asking = np.flatnonzero(may & (2 * cube <= self.limit))
        if not len(asking):
            return
        probs = np.empty((len(asking), 5))
        x = np.empty(len(asking))
        for k, g in enumerate(asking.tolist()):
            player = self.job.players[roller[g]]
            probs[k] = player.chances(self.boards[g])
            x[k] = player.cube_life(self.boards[g])
        for k, g in enumerate(asking.tolist()):  # the first decision (cube life fit)
            if out["dec_turn"][g] < 0:
                out["dec_turn"][g] = turn
                for i in range(5):
                    out[f"dec_p{i}"][g] = probs[k, i]
                out["dec_x"][g] = x[k]
        view = roller[asking] if not self.job.equal else np.zeros(len(asking), dtype=np.int64)
        centred = owner[asking] == -1
        nd, dt = decide(probs, x, self.views, view, ar[asking], br[asking], cube[asking], centred)
        dp = np.array([self.value(int(cube[g]), 0) if roller[g] == 0
                       else 1.0 - self.value(0, int(cube[g])) for g in asking])  # fmt: skip
        doubles = (dt >= nd) & (dp >= nd)
        takes = dt < dp
        if not self.job.equal and doubles.any():  # the taker judges with its own engine
            d = np.flatnonzero(doubles)
            tprobs = np.empty((len(d), 5))
            for k, i in enumerate(d.tolist()):
                g = int(asking[i])
                tprobs[k] = self.job.players[1 - roller[g]].chances(self.boards[g])
            _, dtt = decide(tprobs, x[d], self.views, view[d], ar[asking][d], br[asking][d],
                            cube[asking][d], centred[d])  # fmt: skip
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
                self.finish(g, int(roller[g]), int(cube[g]), 0)

    def roll_turn(
        self,
        turn: int,
        live: NDArray[np.int64],
        dice: NDArray[np.int64],
        uniform: NDArray[np.float64],
        noise: np.random.Generator,
    ) -> None:
        """Every live game's roll and play."""
        out, roller = self.out, self.roller
        for g in live.tolist():
            if not self.active[g]:
                continue
            player = self.job.players[roller[g]]
            d1, d2 = self.first_roll[g] if turn == 0 else (int(dice[g, 0]), int(dice[g, 1]))
            out["rolls"][g] += 1
            if 0 < turn <= self.job.luck_rolls:
                eqs = player.roll_equities(self.boards[g])
                if eqs is not None:
                    luck = eqs[ROLL_INDEX[(max(d1, d2), min(d1, d2))]] - eqs[-1]
                    out[f"luck{turn}"][g] = luck if roller[g] == 0 else -luck
            played = player.play(self.boards[g], d1, d2, float(uniform[g]), noise)
            if isinstance(played, GameEnd):
                winner = int(roller[g]) if played.mover_wins else 1 - int(roller[g])
                self.finish(g, winner, played.result * int(self.cube[g]), played.result)
            else:
                self.boards[g] = played
                roller[g] = 1 - roller[g]
