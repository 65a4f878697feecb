"""The match equity table value object, :class:`MET`.

Conventions (gnubg's, see ``matchequity.c``):

- ``pre[a-1, b-1]`` is the match winning chance (MWC) of player 0 when player 0 needs ``a``
  points and player 1 needs ``b``, at the start of a game with the cube centred at 1.
  Entries with a side 1-away are Crawford-game values (no cube in that game).
- ``post[p, n-1]`` is the MWC of player ``p`` needing ``n`` against the other player needing 1,
  post-Crawford (cube available to the trailer). ``post[p, 0]`` is double match point: 1/2
  for equal players, the favourite's game-winning chance in an unequal-skill table.
- For equal players ``pre[a-1, b-1] + pre[b-1, a-1] = 1`` and ``post[0] == post[1]``. Tables for
  unequal players (player 0 the favourite) need neither.

Scores beyond the table's length are extended on the fly: pre-Crawford entries by
Montgomery's normal model, the post-Crawford vector by Zadeh's recurrence, exactly as
:func:`mathbg.met.extend` (and gnubg's ``ExtendMET``) does.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from mathbg._validate import away_pair
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met._core import (
    MAX_LENGTH,
    check_length,
    continue_post_crawford,
    montgomery_array,
    montgomery_mwc,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["MET", "METComparison"]


def _readonly(array: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    out = np.array(array, dtype=np.float64, copy=True)
    if out.shape != shape:
        raise InvalidParameterError(f"MET {what} must have shape {shape}, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise InvalidParameterError(f"MET {what} holds a non-finite value")
    if out.size and (out.min() < 0.0 or out.max() > 1.0):
        raise InvalidParameterError(
            f"MET {what} values must lie in [0, 1], found {out.min():.6g}..{out.max():.6g}"
        )
    out.setflags(write=False)
    return out


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            return int(value)
        raise InvalidScoreError(f"{what} must be an integer number of points away, got {value!r}")
    return int(value)


def _check_pair(away: Any) -> tuple[int, int]:
    first, second = away_pair(away)
    return _check_int(first, "away[0]"), _check_int(second, "away[1]")


@dataclass(frozen=True, eq=False)
class MET:
    """A match equity table: pre-Crawford matrix, post-Crawford vectors and provenance.

    Parameters
    ----------
    pre : array_like, shape (N, N)
        ``pre[a-1, b-1]`` = MWC of player 0 at a-away vs player 1 at b-away, game start,
        cube centred; a row or column with a 1-away side holds Crawford-game values.
    post : array_like, shape (2, N) or (N,)
        ``post[p, n-1]`` = MWC of player ``p`` at n-away vs the other at 1-away,
        post-Crawford. A single vector is used for both players.
    name : str
        Short identifier (``"kazaross-xg2"``, ``"zadeh"``, ...).
    source : str
        Where the numbers come from (publication, program, file).
    parameters : Mapping[str, float]
        Model parameters (empty for published tables).
    model : str
        ``"published"``, ``"explicit"``, ``"zadeh"``, ``"mec"``, ``"cubeless"``,
        ``"montgomery"``, or a model with ``"+montgomery"`` when extended.
    title, description : str
        Human-readable title and description (gnubg XML ``<name>``, ``<description>``).
    notice : str
        Copyright and licence notice carried with the numbers.
    native_length : int or None
        Number of leading rows that come from the source; rows beyond it were extended
        with Montgomery's model. ``None`` means all of them.
    notes : str
        Anything else worth knowing (e.g. which entries are not from the source).
    stderr : array_like, shape (N, N), optional
        Standard error of each ``pre`` entry of a measured table (self-play), NaN where
        the entry is exact (``M(a, a) = 1/2`` for equal players); an entry filled from
        ``M(b, a) = 1 - M(a, b)`` carries the played entry's error. ``None``: a
        published or model table without error bars.
    post_stderr : array_like, shape (2, N), optional
        The same for ``post``.
    games : array_like, shape (N, N), optional
        Games played for each ``pre`` entry (0 where exact; a mirrored entry counts
        the played entry's games).
    post_games : array_like, shape (2, N), optional
        The same for ``post``.
    metadata : Mapping[str, Any]
        How a measured table was made (engine, plies, seed, rules, games, ...), enough
        to rebuild it bit for bit.
    frames : Mapping[str, Any]
        By-products of a measured table as tidy DataFrames (gammon rates, cube use, ...).

    Notes
    -----
    The object is immutable: the arrays are read-only copies. Equality is identity; compare
    tables with :meth:`allclose`.
    """

    pre: np.ndarray
    post: np.ndarray
    name: str = "custom"
    source: str = ""
    parameters: Mapping[str, float] = field(default_factory=dict)
    model: str = "explicit"
    title: str = ""
    description: str = ""
    notice: str = ""
    native_length: int | None = None
    notes: str = ""
    stderr: np.ndarray | None = field(default=None, repr=False)
    post_stderr: np.ndarray | None = field(default=None, repr=False)
    games: np.ndarray | None = field(default=None, repr=False)
    post_games: np.ndarray | None = field(default=None, repr=False)
    metadata: Mapping[str, Any] = field(default_factory=dict, repr=False)
    frames: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        pre = np.asarray(self.pre, dtype=np.float64)
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise InvalidParameterError(f"MET pre must be a square (N, N) array, got {pre.shape}")
        n = pre.shape[0]
        if n > MAX_LENGTH:
            raise InvalidParameterError(f"MET length {n} exceeds the maximum {MAX_LENGTH}")
        post = np.asarray(self.post, dtype=np.float64)
        if post.ndim == 1:
            post = np.vstack([post, post])
        object.__setattr__(self, "pre", _readonly(pre, (n, n), "pre"))
        object.__setattr__(self, "post", _readonly(post, (2, n), "post"))
        params = {str(k): float(v) for k, v in dict(self.parameters).items()}
        object.__setattr__(self, "parameters", MappingProxyType(params))
        if self.native_length is not None and not 1 <= self.native_length <= n:
            raise InvalidParameterError(f"native_length {self.native_length} must lie in 1..{n}")
        for name, shape in (("stderr", (n, n)), ("post_stderr", (2, n)),
                            ("games", (n, n)), ("post_games", (2, n))):  # fmt: skip
            value = getattr(self, name)
            if value is not None:
                arr = np.array(value, dtype=np.float64, copy=True)
                if arr.shape != shape:
                    raise InvalidParameterError(
                        f"MET {name} must have shape {shape}, got {arr.shape}"
                    )
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        object.__setattr__(self, "frames", MappingProxyType(dict(self.frames)))

    # ------------------------------------------------------------------ basics
    @property
    def length(self) -> int:
        """Table length N (the largest away score held explicitly)."""
        return int(self.pre.shape[0])

    def is_symmetric(self, atol: float = 1e-9) -> bool:
        """True for an equal-players table: ``pre + pre.T == 1`` and ``post[0] == post[1]``."""
        return bool(
            np.allclose(self.pre + self.pre.T, 1.0, rtol=0.0, atol=atol)
            and np.allclose(self.post[0], self.post[1], rtol=0.0, atol=atol)
        )

    def allclose(self, other: MET, atol: float = 0.0) -> bool:
        """True when ``other`` has the same length and numbers (to ``atol``)."""
        return (
            self.length == other.length
            and bool(np.allclose(self.pre, other.pre, rtol=0.0, atol=atol))
            and bool(np.allclose(self.post, other.post, rtol=0.0, atol=atol))
        )

    def with_metadata(self, **changes: Any) -> MET:
        """A copy with some metadata fields (``name``, ``source``, ...) replaced."""
        return replace(self, **changes)

    def extend(self, length: int) -> MET:
        """This table lengthened to ``length`` with Montgomery's model, or cut down to it.

        Entries with both scores within the table are kept; every entry with a score beyond
        it gets Montgomery's normal-model value (trailer ``Phi(6) - Phi((a - b) / sigma)``,
        leader the complement, see :func:`mathbg.met.montgomery`), as gnubg's ``ExtendMET``
        fills its 64 x 64 table. Each post-Crawford vector is continued by Zadeh's
        recurrence (g = 0.25, free drops 0.015 and 0.004 where they fall in the new part).
        Unlike gnubg, the table's own last post-Crawford entry is kept rather than
        recomputed. A shorter ``length`` returns the leading block. The metadata is kept
        (:func:`dataclasses.replace`); an extension records itself in ``model`` and
        ``notes``.
        """
        n_new = check_length(length)
        n_old = self.length
        if n_new == n_old:
            return self
        native = self.native_length if self.native_length is not None else n_old
        if n_new < n_old:
            return replace(
                self,
                pre=self.pre[:n_new, :n_new],
                post=self.post[:, :n_new],
                stderr=None if self.stderr is None else self.stderr[:n_new, :n_new],
                post_stderr=None if self.post_stderr is None else self.post_stderr[:, :n_new],
                games=None if self.games is None else self.games[:n_new, :n_new],
                post_games=None if self.post_games is None else self.post_games[:, :n_new],
                native_length=min(native, n_new) if self.native_length is not None else None,
            )
        aways = np.arange(1, n_new + 1)
        pre = montgomery_array(aways[:, None], aways[None, :])
        pre[:n_old, :n_old] = self.pre
        post = np.vstack([continue_post_crawford(self.post[p], n_new) for p in (0, 1)])
        model = self.model if self.model.endswith("+montgomery") else self.model + "+montgomery"
        note = f"extended from {n_old} to {n_new} points with Montgomery's model"
        return replace(
            self,
            pre=pre,
            post=post,
            stderr=None,  # the model's entries have no error bars
            post_stderr=None,
            games=None,
            post_games=None,
            model=model,
            native_length=native,
            notes=f"{self.notes}; {note}" if self.notes else note,
        )

    # ------------------------------------------------------------------ lookups
    @functools.lru_cache(maxsize=8)  # noqa: B019 - MET is immutable and hashed by identity
    def _post_extended(self, length: int) -> np.ndarray:
        out = np.vstack([continue_post_crawford(self.post[p], length) for p in (0, 1)])
        out.setflags(write=False)
        return out

    def _post_value(self, player: int, n: int) -> float:
        if n <= self.length:
            return float(self.post[player, n - 1])
        return float(self._post_extended(n)[player, n - 1])

    def _pre_value(self, a: int, b: int) -> float:
        if a <= self.length and b <= self.length:
            return float(self.pre[a - 1, b - 1])
        return montgomery_mwc(a, b)

    def mwc(
        self,
        away: tuple[int, int],
        *,
        crawford: bool = False,
        post_crawford: bool | None = None,
        player: int = 0,
    ) -> float:
        """MWC of ``player`` at the score ``away = (player_away, opponent_away)``.

        Parameters
        ----------
        away : (int, int)
            Points needed by ``player`` and by the opponent. ``player_away <= 0`` means
            ``player`` has won (1.0); otherwise ``opponent_away <= 0`` means the opponent has
            won (0.0).
        crawford : bool
            This is the Crawford game (requires a side at 1-away): the pre-Crawford table's
            Crawford entry is used.
        post_crawford : bool or None
            Force the post-Crawford vector (requires a side at 1-away). ``None`` infers it:
            post-Crawford iff a side is 1-away and ``crawford`` is False.
        player : {0, 1}
            Whose MWC: player 0 is the table's row player; for player 1 the pre-Crawford
            value is ``1 - pre[opponent_away-1, player_away-1]``.

        Returns
        -------
        float
            MWC in [0, 1]. Scores beyond :attr:`length` (up to 1024-away) use Montgomery's
            normal model (pre-Crawford) and Zadeh's recurrence (post-Crawford), as gnubg
            does.

        Raises
        ------
        InvalidScoreError
            Non-integer scores, a bad player, or Crawford/post-Crawford flags that the score
            does not allow.
        """
        a, b = _check_pair(away)
        if player not in (0, 1):
            raise InvalidScoreError(f"player must be 0 or 1, got {player!r}")
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if a > MAX_LENGTH or b > MAX_LENGTH:
            raise InvalidScoreError(
                f"scores beyond {MAX_LENGTH}-away are not supported, got {a}-away vs {b}-away"
            )
        one_away = a == 1 or b == 1
        if crawford and post_crawford:
            raise InvalidScoreError("a game cannot be both the Crawford game and post-Crawford")
        if (crawford or post_crawford) and not one_away:
            kind = "the Crawford game" if crawford else "post-Crawford"
            raise InvalidScoreError(
                f"{kind} needs a side at 1-away, the score is {a}-away vs {b}-away"
            )
        post = (not crawford) and one_away if post_crawford is None else bool(post_crawford)
        if post:
            if b == 1:
                return self._post_value(player, a)
            return 1.0 - self._post_value(1 - player, b)
        if player == 0:
            return self._pre_value(a, b)
        return 1.0 - self._pre_value(b, a)

    def mwc_array(
        self,
        away: tuple[Any, Any],
        *,
        crawford: Any = False,
        post_crawford: Any = None,
        player: int = 0,
    ) -> np.ndarray:
        """Vectorised :meth:`mwc`: ``away`` is a pair of arrays, broadcast with the flags.

        ``post_crawford=None`` infers per element. Returns a float64 array of the broadcast
        shape (0-d for scalars).
        """
        if player not in (0, 1):
            raise InvalidScoreError(f"player must be 0 or 1, got {player!r}")
        first, second = away_pair(away)
        a_in = np.asarray(first)
        b_in = np.asarray(second)
        for arr, what in ((a_in, "away[0]"), (b_in, "away[1]")):
            if arr.dtype.kind not in "iu":
                if (
                    arr.dtype.kind == "f"
                    and np.all(np.isfinite(arr))
                    and np.all(arr == np.floor(arr))
                ):
                    continue
                raise InvalidScoreError(f"{what} must hold integer numbers of points away")
        craw_in = np.asarray(crawford, dtype=bool)
        infer = post_crawford is None
        post_in = np.asarray(False if infer else post_crawford, dtype=bool)
        a, b, craw, post_flag = np.broadcast_arrays(
            a_in.astype(np.int64), b_in.astype(np.int64), craw_in, post_in
        )
        live = (a > 0) & (b > 0)
        if np.any(live & ((a > MAX_LENGTH) | (b > MAX_LENGTH))):
            raise InvalidScoreError(f"scores beyond {MAX_LENGTH}-away are not supported")
        one_away = (a == 1) | (b == 1)
        if np.any(live & craw & post_flag):
            raise InvalidScoreError("a game cannot be both the Crawford game and post-Crawford")
        if np.any(live & (craw | post_flag) & ~one_away):
            raise InvalidScoreError("Crawford/post-Crawford flags need a side at 1-away")
        use_post = (one_away & ~craw) if infer else post_flag
        out = np.empty(a.shape, dtype=np.float64)
        out[a <= 0] = 1.0
        out[(a > 0) & (b <= 0)] = 0.0

        # pre-Crawford (incl. Crawford-game) entries, from player 0's row and column
        pre_mask = live & ~use_post
        if np.any(pre_mask):
            r, c = (a, b) if player == 0 else (b, a)
            r, c = r[pre_mask], c[pre_mask]
            vals = np.empty(r.shape, dtype=np.float64)
            inside = (r <= self.length) & (c <= self.length)
            vals[inside] = self.pre[r[inside] - 1, c[inside] - 1]
            if not np.all(inside):
                vals[~inside] = montgomery_array(r[~inside], c[~inside])
            out[pre_mask] = vals if player == 0 else 1.0 - vals

        post_mask = live & use_post
        if np.any(post_mask):
            pa, pb = a[post_mask], b[post_mask]
            nmax = int(max(pa.max(), pb.max()))
            table = self.post if nmax <= self.length else self._post_extended(nmax)
            trailing = pb == 1  # the opponent is the 1-away leader (or DMP)
            vals = np.where(
                trailing, table[player, pa - 1], 1.0 - table[1 - player, np.maximum(pb, 1) - 1]
            )
            out[post_mask] = vals
        return out

    # ------------------------------------------------------------------ equity <-> MWC
    def _win_lose(
        self,
        away: tuple[int, int],
        cube: int,
        crawford: bool,
        post_crawford: bool | None,
        player: int,
    ) -> tuple[float, float]:
        a, b = _check_pair(away)
        c = _check_int(cube, "cube")
        if a <= 0 or b <= 0:
            raise InvalidScoreError(f"the match is over at {a}-away vs {b}-away")
        if c < 1:
            raise InvalidScoreError(f"cube must be a positive integer, got {c}")
        # validate the flags for the current game (raises on nonsense)
        self.mwc((a, b), crawford=crawford, post_crawford=post_crawford, player=player)
        if a == 1 or b == 1:
            # the current game is the Crawford game or post-Crawford: the next one is post-Crawford
            win = self.mwc((a - c, b), post_crawford=True if a - c > 0 else None, player=player)
            lose = self.mwc((a, b - c), post_crawford=True if b - c > 0 else None, player=player)
        else:
            win = self.mwc((a - c, b), crawford=a - c == 1, player=player)
            lose = self.mwc((a, b - c), crawford=b - c == 1, player=player)
        return win, lose

    def eq2mwc(
        self,
        eq: float,
        away: tuple[int, int],
        cube: int = 1,
        *,
        crawford: bool = False,
        post_crawford: bool | None = None,
        player: int = 0,
    ) -> float:
        """Convert a cubeful game equity (money-like scale) to MWC, as gnubg's ``eq2mwc``.

        The map is affine through ``(-1, MWC if the player loses cube points)`` and
        ``(+1, MWC if the player wins cube points)``::

            mwc = (eq (W - L) + (W + L)) / 2.

        The next game after a win or loss is post-Crawford when a side is 1-away now, the
        Crawford game when a side reaches 1-away, else an ordinary game.
        """
        win, lose = self._win_lose(away, cube, crawford, post_crawford, player)
        return 0.5 * (float(eq) * (win - lose) + (win + lose))

    def mwc2eq(
        self,
        mwc: float,
        away: tuple[int, int],
        cube: int = 1,
        *,
        crawford: bool = False,
        post_crawford: bool | None = None,
        player: int = 0,
    ) -> float:
        """Inverse of :meth:`eq2mwc`: ``eq = (2 mwc - (W + L)) / (W - L)`` (gnubg ``mwc2eq``)."""
        win, lose = self._win_lose(away, cube, crawford, post_crawford, player)
        if win == lose:
            raise InvalidScoreError(
                f"winning and losing {cube} point(s) give the same MWC at {away[0]}-away vs "
                f"{away[1]}-away: equity is undefined"
            )
        return (2.0 * float(mwc) - (win + lose)) / (win - lose)

    # ------------------------------------------------------------------ export
    def to_frame(self, one_away: str = "crawford") -> pd.DataFrame:
        """The table as a DataFrame: player 0's MWC, index ``"away"``, columns ``"opp_away"``.

        Index and columns are the integer away scores 1..N, so ``met.to_frame().loc[3, 5]``
        is player 0's MWC at 3-away vs 5-away, ``== met.mwc(3, 5)``.

        Parameters
        ----------
        one_away : {"crawford", "post-crawford"}
            What row and column 1 (a side 1-away) hold. ``"crawford"`` (the default, the
            pre-Crawford table as published): the Crawford game, ``loc[a, 1] ==
            mwc(a, 1, crawford=True)``. ``"post-crawford"``: post-Crawford games, what
            :meth:`mwc` returns by default, ``loc[a, 1] == mwc(a, 1)``. The choice is stated
            in ``df.attrs["name"]`` and ``df.attrs["one_away"]``.
        """
        import pandas as pd

        if one_away not in ("crawford", "post-crawford"):
            raise InvalidParameterError(
                f"one_away must be 'crawford' or 'post-crawford'; got {one_away!r}"
            )
        labels = pd.Index(range(1, self.length + 1), name="away")
        data = np.array(self.pre)
        if one_away == "post-crawford":
            for n in range(2, self.length + 1):
                data[n - 1, 0] = self.mwc((n, 1))
                data[0, n - 1] = self.mwc((1, n))
        df = pd.DataFrame(data, index=labels, columns=labels.rename("opp_away"))
        game = "the Crawford game" if one_away == "crawford" else "post-Crawford games"
        df.attrs.update(
            name=f"{self.name}: MWC of player 0 (rows: away, columns: opp_away); "
            f"row and column 1 (a side 1-away): {game}",
            one_away=one_away,
            met=self.name,
        )
        return df

    def post_frame(self) -> pd.DataFrame:
        """The post-Crawford vectors as a DataFrame: index ``"away"`` 1..N, columns players 0, 1.

        ``loc[n, p]`` is player ``p``'s MWC at n-away against the other at 1-away after the
        Crawford game.
        """
        import pandas as pd

        df = pd.DataFrame(
            np.array(self.post).T,
            index=pd.Index(range(1, self.length + 1), name="away"),
            columns=pd.Index([0, 1], name="player"),
        )
        df.attrs.update(
            name=f"{self.name}: post-Crawford MWC of the n-away player vs the 1-away leader",
            met=self.name,
        )
        return df

    def compare(self, other: MET) -> METComparison:
        """This table minus ``other``, entry by entry, and in standard errors where this
        table has them (a measured table: the self-play MET).

        ``other`` is extended or cut to this table's length (:meth:`extend`). The summary
        reads the measured entries (those with a finite standard error) when this table has
        standard errors, else every entry; the post-Crawford vector of player 1 counts only
        where the players' vectors differ.

        Parameters
        ----------
        other : MET
            The table to compare with (a published one).

        Returns
        -------
        METComparison
            The differences, the z-scores, a frame and their summary.

        Examples
        --------
        Two published tables (no standard errors): every entry of the 5 x 5 table and of
        the post-Crawford vector counts.

        >>> from mathbg.met import load
        >>> xg, rk = load("kazaross-xg2", length=5), load("rockwell-kazaross", length=5)
        >>> c = xg.compare(rk)
        >>> c.entries, c.max_abs_z
        (30, nan)
        >>> bool(c.frame().loc[("normal", 3, 5), "diff"] == xg.mwc((3, 5)) - rk.mwc((3, 5)))
        True
        """
        ref = other.extend(self.length) if other.length != self.length else other
        pre = self.pre - ref.pre
        post = self.post - ref.post
        pre_z = post_z = None
        if self.stderr is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                pre_z = pre / self.stderr
        if self.post_stderr is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                post_z = post / self.post_stderr
        two = not (self.is_symmetric() and ref.is_symmetric())
        return METComparison(self.name, ref.name, pre, post, pre_z, post_z, self.stderr,
                             self.post_stderr, self.pre, ref.pre, self.post, ref.post,
                             two)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python form: ``name``, ``length``, ``pre`` (rows a = 1..N), ``post`` (n = 1..N).

        ``post_player1`` is added for tables whose players' post-Crawford vectors differ;
        ``stderr``, ``games`` (shaped as ``pre``), ``post_stderr``, ``post_games`` (shaped as
        ``post``, with ``post_stderr_player1``, ``post_games_player1`` beside
        ``post_player1``; None where exact) and ``metadata`` for a measured table.
        """
        out: dict[str, Any] = {
            "name": self.name,
            "length": self.length,
            "model": self.model,
            "source": self.source,
            "parameters": dict(self.parameters),
            "pre": [[float(x) for x in row] for row in self.pre],
            "post": [float(x) for x in self.post[0]],
        }
        two = not np.array_equal(self.post[0], self.post[1])
        if two:
            out["post_player1"] = [float(x) for x in self.post[1]]

        def cells(row: Any) -> list[float | None]:
            return [float(x) if np.isfinite(x) else None for x in row]

        for key in ("stderr", "games"):
            arr = getattr(self, key)
            if arr is not None:  # a measured table's error bars (null where exact)
                out[key] = [cells(row) for row in arr]
        for key in ("post_stderr", "post_games"):  # shaped as post (and post_player1)
            arr = getattr(self, key)
            if arr is not None:
                out[key] = cells(arr[0])
                if two or not np.array_equal(arr[0], arr[1], equal_nan=True):
                    out[f"{key}_player1"] = cells(arr[1])
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v:g}" for k, v in self.parameters.items())
        extra = f", {params}" if params else ""
        return f"MET(name={self.name!r}, length={self.length}, model={self.model!r}{extra})"

    def _repr_html_(self) -> str:
        import html

        frame = self.to_frame().map(lambda x: f"{100 * x:.1f}")
        post = self.post_frame().T.map(lambda x: f"{100 * x:.1f}")
        post.index = [f"post-Crawford, player {p}" for p in post.index]
        if self.is_symmetric():
            post = post.iloc[:1]
            post.index = ["post-Crawford trailer"]
        head = f"<b>{html.escape(self.name)}</b> (length {self.length}, MWC %"
        head += f"; {html.escape(self.source)})" if self.source else ")"
        return (
            f"<div>{head}<br>row: player 0 away, column: opponent away"
            f"{frame.to_html()}{post.to_html()}</div>"
        )


@dataclass(frozen=True)
class METComparison:
    """A table beside another: ``MET.compare``'s result (``table - other`` in MWC).

    Attributes
    ----------
    name, other : str
        The two tables' names.
    pre, post : ndarray
        The differences, shaped as :attr:`MET.pre` (N, N) and :attr:`MET.post` (2, N).
    pre_z, post_z : ndarray or None
        The differences over the table's standard errors (NaN where exact), None for a
        table without them.
    stderr, post_stderr : ndarray or None
        The table's standard errors.
    values, other_values, post_values, other_post_values : ndarray
        Both tables' entries.
    two_post : bool
        The post-Crawford vectors of the players differ (player 1's counts too).
    """

    name: str
    other: str
    pre: np.ndarray
    post: np.ndarray
    pre_z: np.ndarray | None
    post_z: np.ndarray | None
    stderr: np.ndarray | None = field(repr=False)
    post_stderr: np.ndarray | None = field(repr=False)
    values: np.ndarray = field(repr=False)
    other_values: np.ndarray = field(repr=False)
    post_values: np.ndarray = field(repr=False)
    other_post_values: np.ndarray = field(repr=False)
    two_post: bool = False

    def _counted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The counted entries: pre and post masks (the post one shaped (2, N)) and the
        post rows that count."""
        rows = np.array([True, self.two_post])
        if self.stderr is None or self.post_stderr is None:
            pre = np.ones(self.pre.shape, dtype=bool)
            post = np.ones(self.post.shape, dtype=bool)
        else:
            pre, post = np.isfinite(self.stderr), np.isfinite(self.post_stderr)
        return pre, post & rows[:, None], rows

    def _diffs(self) -> tuple[np.ndarray, np.ndarray]:
        pre, post, _ = self._counted()
        d = np.concatenate([self.pre[pre], self.post[post]])
        if self.pre_z is None or self.post_z is None:
            return d, np.full(len(d), np.nan)
        return d, np.concatenate([self.pre_z[pre], self.post_z[post]])

    @property
    def entries(self) -> int:
        """How many entries the summary reads."""
        return len(self._diffs()[0])

    def _summary(self, which: int, how: str) -> float:
        values = np.abs(self._diffs()[which])
        if not len(values):
            return float("nan")
        return float(values.mean() if how == "mean" else values.max())

    @property
    def mean_abs_diff(self) -> float:
        """Mean absolute difference (MWC, a fraction)."""
        return self._summary(0, "mean")

    @property
    def max_abs_diff(self) -> float:
        """Largest absolute difference (MWC, a fraction)."""
        return self._summary(0, "max")

    @property
    def mean_abs_z(self) -> float:
        """Mean absolute difference in standard errors (NaN without them)."""
        return self._summary(1, "mean")

    @property
    def max_abs_z(self) -> float:
        """Largest absolute difference in standard errors (NaN without them)."""
        return self._summary(1, "max")

    def frame(self) -> pd.DataFrame:
        """The counted entries, one row each: index ``(state, away, opp_away)`` (``state``
        ``normal``, ``crawford`` (a pre-Crawford entry with a side 1-away), ``dmp`` or
        ``post-crawford``; player 0's away score first), columns ``value``, ``other``,
        ``diff``, ``stderr``, ``z`` (NaN where exact or without standard errors)."""
        import pandas as pd

        pre, post, _ = self._counted()
        rows = []
        n = self.pre.shape[0]
        for a in range(1, n + 1):
            for b in range(1, n + 1):
                if pre[a - 1, b - 1]:
                    state = "dmp" if a == b == 1 else "crawford" if 1 in (a, b) else "normal"
                    rows.append(self._row(state, a, b, "pre", (a - 1, b - 1)))
        for p in (0, 1):
            for m in range(1, n + 1):
                if post[p, m - 1]:
                    away = (m, 1) if p == 0 else (1, m)
                    rows.append(self._row("post-crawford", *away, "post", (p, m - 1)))
        columns = ["state", "away", "opp_away", "value", "other", "diff", "stderr", "z"]
        out = pd.DataFrame(rows, columns=columns).set_index(["state", "away", "opp_away"])
        out.attrs.update(name=f"{self.name} minus {self.other}")
        return out

    def _row(self, state: str, a: int, b: int, part: str, idx: tuple[int, int]) -> tuple[Any, ...]:
        pre = part == "pre"
        value = (self.values if pre else self.post_values)[idx]
        other = (self.other_values if pre else self.other_post_values)[idx]
        se = self.stderr if pre else self.post_stderr
        z = self.pre_z if pre else self.post_z
        value, other = (value, other) if pre or idx[0] == 0 else (1 - value, 1 - other)
        return (state, a, b, float(value), float(other), float(value - other),
                float(se[idx]) if se is not None else float("nan"),
                float(z[idx]) * (1 if pre or idx[0] == 0 else -1) if z is not None
                else float("nan"))  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the names, the summary (``entries``, ``mean_abs_diff``,
        ``max_abs_diff``, ``mean_abs_z``, ``max_abs_z``; fractions) and ``rows`` (the
        frame's rows as objects)."""
        frame = self.frame().reset_index()
        return {"table": self.name, "other": self.other, "entries": self.entries,
                "mean_abs_diff": self.mean_abs_diff, "max_abs_diff": self.max_abs_diff,
                "mean_abs_z": self.mean_abs_z, "max_abs_z": self.max_abs_z,
                "rows": frame.to_dict(orient="records")}  # fmt: skip
