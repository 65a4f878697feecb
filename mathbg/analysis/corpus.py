"""Statistics of a collection of real matches, by score: :func:`corpus_stats`.

Over a folder (or a list) of match files, or match records, per game: who was how many
points away (``leader_away <= trailer_away``: the score seen from the side that leads; a
tie's leader is either side), whether it was the Crawford game or a post-Crawford game,
how it ended and what the cube did. Per score (and overall), a :class:`ScoreRow`:

- ``games``: finished games;
- ``gammon_rate``: games ending in a gammon or a backgammon (either side, played out or
  resigned at that level; a resigned match is neither), over games; ``backgammon_rate``
  likewise;
- ``double_rate``: games with at least one double, over games;
- ``pass_rate``: first doubles of a game that were passed, over games with a double;
- ``resign_rate``: games that ended by an accepted resignation, over games;
- ``cube_max``: how many games ended at each cube value (a passed double counts the value
  before it);
- ``ci95``: Wilson's 95 % score interval of each rate (None without games), and ``n`` the
  number each rate is over (games, or games with a double).

With ``audit=True`` the match audit (:func:`mathbg.analysis.audit`, exact solver off) runs
on every match and its totals are added per score (the game's score): cube decisions,
errors, MWC and EMG lost and the loss per cube decision; checker plays, unforced plays and
the EMG lost per unforced play (gnubg's checker error rate). ``player`` keeps one player's
decisions only (a player who plays many matches of a corpus: their own numbers).

A file that cannot be read or replayed (:class:`mathbg.errors.MathbgError`, an unreadable
file) is skipped and listed in ``skipped`` with its one-line error; the rest is counted.
Locally the files run one after the other with a progress bar; with a Dask ``client``
each file is one task (``client.map``) and the results are gathered in the files' order,
so the numbers are the same, also when a worker dies mid-run (its tasks run again
elsewhere); a run on which nothing runs any more stops with one line (see
``mathbg._dask``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mathbg._output import FrameMixin, JSONObject
from mathbg.errors import InvalidParameterError, MathbgError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.analysis.match_audit import AuditOptions
    from mathbg.rules.record import MatchRecord

__all__ = [
    "MATCH_SUFFIXES",
    "MIN_N",
    "RATES",
    "AuditTotals",
    "CorpusStats",
    "DecisionFacts",
    "FileFacts",
    "GameFacts",
    "ScoreRow",
    "SkippedFile",
    "corpus_stats",
    "file_stats",
    "match_files",
    "sample_matches",
    "wilson",
]

#: File name endings taken when a folder is given.
MATCH_SUFFIXES = (".mat", ".txt", ".sgf")
#: The rates of a score row, with (numerator, denominator) counter names.
RATES: dict[str, tuple[str, str]] = {
    "gammon_rate": ("gammons", "games"),
    "backgammon_rate": ("backgammons", "games"),
    "pass_rate": ("passes", "doubled"),
    "double_rate": ("doubled", "games"),
    "resign_rate": ("resigns", "games"),
}
#: Below this many games (or doubles) the text output marks a rate as not worth reading.
MIN_N = 20
#: Standard normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson's score interval of a proportion ``k / n`` (None for ``n = 0``).

    Parameters
    ----------
    k : int
        Successes.
    n : int
        Trials.
    z : float, optional
        Standard normal quantile of the interval (default: two-sided 95 %).

    Returns
    -------
    (lo, hi) : (float, float) or None
        The interval, clipped to [0, 1] and exact at ``k = 0`` and ``k = n``; None
        without trials.

    Examples
    --------
    >>> lo, hi = wilson(5, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.2366, 0.7634)
    >>> wilson(0, 10)[0], wilson(10, 10)[1], wilson(0, 0)
    (0.0, 1.0, None)
    """
    if n <= 0:
        return None
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends at k = 0 and k = n
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def match_files(paths: str | os.PathLike[str] | Iterable[Any]) -> list[Path]:
    """The files of ``paths``: files as given, folders searched (recursively, sorted)
    for names ending in :data:`MATCH_SUFFIXES`.

    Parameters
    ----------
    paths : path or iterable of paths
        Files (kept as given, whether or not they exist) and folders.

    Returns
    -------
    list of Path
        The files, in the order given, each folder's files sorted (hidden files left out).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for name in ("b.mat", "a.sgf", "notes.md", ".hidden.mat"):
    ...         _ = (Path(folder) / name).write_text("")
    ...     [p.name for p in match_files([folder, "other.txt"])]
    ['a.sgf', 'b.mat', 'other.txt']
    """
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file()
                              and f.suffix.lower() in MATCH_SUFFIXES
                              and not f.name.startswith(".")))  # fmt: skip
        else:
            out.append(p)
    return out


def sample_matches() -> list[Path]:
    """The small corpus of real matches shipped with mathbg (package data, read through
    :mod:`importlib.resources`): 30 Backgammon Galaxy matches, MIT licence.

    Returns
    -------
    list of Path
        The files, sorted by name; ``match12148956.txt`` is the notebooks' example match.

    Examples
    --------
    >>> files = sample_matches()
    >>> len(files), files[0].suffix, any(f.name == "match12148956.txt" for f in files)
    (30, '.txt', True)
    """
    from mathbg._paths import published_files

    return [Path(str(t)) for _, t in sorted(published_files("matches", ".txt").items())]


# ----------------------------------------------------------------------------- one file


class _Score:
    """``leader_away`` and ``trailer_away`` of a row whose ``score`` is (leader's away,
    trailer's away) or None (money play)."""

    score: tuple[int, int] | None

    @property
    def leader_away(self) -> int | None:
        """Points the leader needs (None in money play)."""
        return None if self.score is None else self.score[0]

    @property
    def trailer_away(self) -> int | None:
        """Points the trailer needs (None in money play)."""
        return None if self.score is None else self.score[1]


@dataclass(frozen=True)
class GameFacts(_Score):
    """One finished game of a file: the score key ``score = (leader_away, trailer_away)``
    (``leader_away <= trailer_away``; None in money play), Crawford flags, how it ended
    and the cube."""

    game: int
    score: tuple[int, int] | None
    crawford: bool
    post_crawford: bool
    gammon: bool
    backgammon: bool
    doubled: bool
    passed: bool
    resigned: bool
    cube: int


@dataclass(frozen=True)
class DecisionFacts(_Score):
    """One audited decision of a file at its game's score key (``score``, as
    :class:`GameFacts`): ``kind`` ``"cube"`` or ``"move"``, who decided, whether it was an
    error, its EMG and MWC cost; for a move whether it was unforced."""

    score: tuple[int, int] | None
    crawford: bool
    player: str
    kind: str
    error: bool
    error_emg: float
    error_mwc: float | None
    unforced: bool = False


@dataclass(frozen=True)
class FileFacts:
    """The unit of work of :func:`corpus_stats` (one Dask task): a file's games and
    audited decisions, or its one-line ``error``."""

    file: str
    games: tuple[GameFacts, ...] = ()
    decisions: tuple[DecisionFacts, ...] = ()
    error: str | None = None


def _score_key(length: int, score: tuple[int, int]) -> tuple[int, int] | None:
    if not length:
        return None
    a, b = sorted((length - score[0], length - score[1]))
    return a, b


def _game_rows(record: MatchRecord) -> list[GameFacts]:
    """One row per finished game: score key, Crawford flags, result and cube facts."""
    from mathbg.rules.record import Double, Pass

    n = record.length
    rows = []
    for g, crawford in zip(record.games, record.crawford_games(), strict=True):
        r = g.result
        if r is None:
            continue
        one = [n - s == 1 for s in g.score] if n else [False, False]
        post = any(one) and not all(one) and not crawford
        first_pass = doubled = False
        for i, a in enumerate(g.actions):
            if isinstance(a, Double):
                doubled = True
                nxt = g.actions[i + 1] if i + 1 < len(g.actions) else None
                first_pass = isinstance(nxt, Pass) or (nxt is None and r.kind == "pass")
                break
        # a resigned match is no gammon or backgammon of play, whatever level gnubg scores
        level = r.resign_level if r.kind == "resign" and not r.match_resigned else 0
        rows.append(GameFacts(g.number, _score_key(n, g.score), crawford, post,
                              r.kind in ("gammon", "backgammon") or level >= 2,
                              r.kind == "backgammon" or level == 3, doubled,
                              doubled and first_pass, r.kind == "resign", int(r.cube)))
    return rows


def _audit_rows(record: MatchRecord, options: AuditOptions) -> list[DecisionFacts]:
    from mathbg.analysis.match_audit import audit

    res = audit(record, options)
    m = res.matches[0]
    key = {g.number: _score_key(record.length, g.score) for g in record.games}
    crawford = dict(zip((g.number for g in record.games), record.crawford_games(), strict=True))
    out = []
    for d in m.decisions:
        out.append(DecisionFacts(key.get(d.game), crawford.get(d.game, False), d.player,
                                 "cube", d.is_error, d.error_emg, d.error_mwc))  # fmt: skip
    for p in m.plays:
        out.append(DecisionFacts(key.get(p.game), crawford.get(p.game, False), p.player,
                                 "move", p.is_error, p.error_emg, p.error_mwc,
                                 p.plays > 1))  # fmt: skip
    return out


def file_stats(
    path: Any, audit: bool = False, options: AuditOptions | None = None
) -> FileFacts:
    """The per-game facts (and audited decisions) of one match file or record: the unit of
    work of :func:`corpus_stats` (one Dask task). Never raises for a bad file: returns its
    one-line ``error`` instead.

    Parameters
    ----------
    path : path or MatchRecord
        A match file (any format :func:`mathbg.rules.read_match` reads) or a record.
    audit : bool, optional
        Also audit the match (one row per decision).
    options : AuditOptions, optional
        The audit's engine, plies, MET, player, ... (the exact solver and the take points
        are always off here).

    Returns
    -------
    FileFacts

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> facts = file_stats(example_match())
    >>> [(g.score, g.doubled, g.passed, g.cube) for g in facts.games]
    [((3, 3), True, True, 1), ((2, 3), True, False, 2)]
    >>> file_stats("no-such-file.mat").error
    'no-such-file.mat: cannot read: ...'
    """
    from mathbg.analysis.match_audit import AuditOptions
    from mathbg.analysis.match_audit.driver import expect_native
    from mathbg.rules.formats import read_match
    from mathbg.rules.record import MatchRecord

    if audit:
        o = options or AuditOptions()
        expect_native(o.engine, o.plies)  # the replay with the move kernel when numba comes
    name = str(getattr(path, "source", None) or path) if isinstance(path, MatchRecord) \
        else str(path)  # fmt: skip
    try:
        record = path if isinstance(path, MatchRecord) else read_match(path)
        if isinstance(path, MatchRecord):
            record.validate()
        games = _game_rows(record)
        decisions: list[DecisionFacts] = []
        if audit:
            o = replace(options or AuditOptions(), exact=False, take_points=False, player=None,
                        progress=False)  # the files' bar is the corpus's
            decisions = _audit_rows(record, o)
    except (MathbgError, OSError, UnicodeDecodeError, ValueError) as exc:
        return FileFacts(name, error=str(exc).splitlines()[0] if str(exc) else
                         type(exc).__name__)  # fmt: skip
    return FileFacts(name, tuple(games), tuple(decisions))


# ----------------------------------------------------------------------------- totals


@dataclass(frozen=True)
class AuditTotals:
    """The audit's totals of a score row: cube ``decisions``, ``errors``, ``mwc_lost``
    (None when a decision has no MWC: money), ``emg_lost``, ``cube_loss_per_decision`` (1000
    x EMG per cube decision); checker ``plays``, ``unforced``, ``checker_emg_lost`` and
    ``checker_error_rate`` (1000 x EMG per unforced play, gnubg's)."""

    decisions: int
    errors: int
    mwc_lost: float | None
    emg_lost: float
    cube_loss_per_decision: float | None
    plays: int = 0
    unforced: int = 0
    checker_emg_lost: float = 0.0
    checker_error_rate: float | None = None


@dataclass(frozen=True)
class ScoreRow(_Score, FrameMixin):
    """One score of a corpus, ``score = (leader_away, trailer_away)`` (None: money play,
    or with ``overall`` the whole corpus): games, the rates (:data:`RATES`), the number
    each rate is over (``n``), their Wilson 95 % intervals, the counts, the cube levels
    reached and the audit's totals."""

    score: tuple[int, int] | None
    crawford: bool
    post_crawford: bool
    games: int
    rates: dict[str, float | None]
    n: dict[str, int]
    ci95: dict[str, tuple[float, float] | None]
    counts: dict[str, int]
    cube_max: dict[str, int]
    audit: AuditTotals | None = None
    overall: bool = False

    def as_dict(self) -> JSONObject:
        """The JSON object of the row (``mathbg corpus --json``'s ``by_score`` items)."""
        out: JSONObject = {
            "leader_away": self.leader_away, "trailer_away": self.trailer_away,
            "crawford": self.crawford, "post_crawford": self.post_crawford, "games": self.games,
            **self.rates, "n": dict(self.n),
            "ci95": {k: None if v is None else list(v) for k, v in self.ci95.items()},
            "counts": dict(self.counts), "cube_max": dict(self.cube_max),
        }  # fmt: skip
        if self.audit is not None:
            out["audit"] = asdict(self.audit)
        return out


@dataclass
class _Counter:
    games: int = 0
    gammons: int = 0
    backgammons: int = 0
    doubled: int = 0
    passes: int = 0
    resigns: int = 0
    cube_max: dict[int, int] = field(default_factory=dict)
    decisions: int = 0
    errors: int = 0
    mwc_lost: float = 0.0
    emg_lost: float = 0.0
    mwc_known: bool = True
    plays: int = 0
    unforced: int = 0
    checker_emg: float = 0.0

    def add_game(self, g: GameFacts) -> None:
        self.games += 1
        self.gammons += g.gammon
        self.backgammons += g.backgammon
        self.doubled += g.doubled
        self.passes += g.passed
        self.resigns += g.resigned
        self.cube_max[g.cube] = self.cube_max.get(g.cube, 0) + 1

    def add_decision(self, d: DecisionFacts) -> None:
        if d.kind == "move":
            self.plays += 1
            self.unforced += d.unforced
            self.checker_emg += d.error_emg
            return
        self.decisions += 1
        self.errors += d.error
        self.emg_lost += d.error_emg
        if d.error_mwc is None:
            self.mwc_known = False
        else:
            self.mwc_lost += d.error_mwc

    def row(self, key: tuple[tuple[int, int] | None, bool, bool], audited: bool,
            overall: bool = False) -> ScoreRow:  # fmt: skip
        rates: dict[str, float | None] = {}
        n: dict[str, int] = {}
        ci: dict[str, tuple[float, float] | None] = {}
        for name, (num, den) in RATES.items():
            k, m = getattr(self, num), getattr(self, den)
            rates[name] = k / m if m else None
            n[name] = m
            ci[name] = wilson(k, m)
        counts = {"gammons": self.gammons, "backgammons": self.backgammons,
                  "doubled": self.doubled, "passes": self.passes, "resigns": self.resigns}
        cube = {str(c): self.cube_max[c] for c in sorted(self.cube_max)}
        totals = None
        if audited:
            d = self.decisions
            totals = AuditTotals(d, self.errors, self.mwc_lost if self.mwc_known else None,
                                 self.emg_lost, 1000.0 * self.emg_lost / d if d else None,
                                 self.plays, self.unforced, self.checker_emg,
                                 1000.0 * self.checker_emg / self.unforced if self.unforced
                                 else None)  # fmt: skip
        return ScoreRow(key[0], key[1], key[2], self.games, rates, n, ci, counts, cube, totals,
                        overall)


@dataclass(frozen=True)
class SkippedFile:
    """A file the corpus could not read, and why (one line)."""

    file: str
    error: str


@dataclass
class CorpusStats(FrameMixin):
    """The statistics of a collection (:func:`corpus_stats`): ``as_dict`` (the JSON of
    ``mathbg corpus --json``), ``to_frame`` (one row per score, then the overall row)."""

    files: int
    skipped: list[SkippedFile]
    games: int
    overall: ScoreRow
    by_score: list[ScoreRow]
    audited: bool = False
    player: str | None = None

    def as_dict(self) -> JSONObject:
        """The JSON document of ``mathbg corpus --json``."""
        return {"files": self.files, "skipped": [asdict(s) for s in self.skipped],
                "games": self.games, "player": self.player, "overall": self.overall.as_dict(),
                "by_score": [r.as_dict() for r in self.by_score]}  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per score and the overall row last (``mathbg corpus --csv``): the rates,
        each with ``_n``, ``_lo`` and ``_hi`` (its Wilson 95 % interval), the cube levels
        reached and the audit's totals (``audit_...``)."""
        import pandas as pd

        rows = []
        for entry in [*self.by_score, self.overall]:
            row: dict[str, Any] = {
                "leader_away": entry.leader_away, "trailer_away": entry.trailer_away,
                "crawford": None if entry.overall else entry.crawford,
                "post_crawford": None if entry.overall else entry.post_crawford,
                "games": entry.games,
            }  # fmt: skip
            for key in RATES:
                ci = entry.ci95[key]
                row[key] = entry.rates[key]
                row[key + "_n"] = entry.n[key]
                row[key + "_lo"] = None if ci is None else ci[0]
                row[key + "_hi"] = None if ci is None else ci[1]
            for c, count in entry.cube_max.items():
                row["cube_max_" + c] = count
            if entry.audit is not None:
                for name, v in asdict(entry.audit).items():
                    row["audit_" + name] = v
            rows.append(row)
        return pd.DataFrame(rows)


def _key(score: tuple[int, int] | None, crawford: bool) -> tuple[Any, ...]:
    return (score is None, score or (0, 0), bool(crawford))


def _aggregate(results: Sequence[FileFacts], audited: bool, player: str | None) -> CorpusStats:
    skipped = [SkippedFile(r.file, r.error) for r in results if r.error is not None]
    overall = _Counter()
    by: dict[tuple[Any, ...], _Counter] = {}
    meta: dict[tuple[Any, ...], tuple[tuple[int, int] | None, bool, bool]] = {}
    who = None if player is None else player.lower()
    for r in results:
        if r.error is not None:
            continue
        for g in r.games:
            overall.add_game(g)
            k = _key(g.score, g.crawford)
            by.setdefault(k, _Counter()).add_game(g)
            meta.setdefault(k, (g.score, g.crawford, g.post_crawford))
        for d in r.decisions:
            if who is not None and d.player.lower() != who:
                continue
            overall.add_decision(d)
            k = _key(d.score, d.crawford)
            by.setdefault(k, _Counter()).add_decision(d)
            if k not in meta:
                post = d.leader_away == 1 and not d.crawford and d.trailer_away != 1
                meta[k] = (d.score, d.crawford, post)
    rows = [by[k].row(meta[k], audited) for k in sorted(by)]
    return CorpusStats(len(results), skipped, overall.games,
                       overall.row((None, False, False), audited, overall=True), rows,
                       audited, player)  # fmt: skip


def _items(paths: Any) -> list[Any]:
    from mathbg.rules.record import MatchRecord

    if isinstance(paths, MatchRecord):
        items: list[Any] = [paths]
    elif isinstance(paths, (str, os.PathLike)):
        items = list(match_files(paths))
    else:
        items = []
        for p in paths:
            items.extend([p] if isinstance(p, MatchRecord) else match_files(p))
    if not items:
        raise InvalidParameterError(f"no match files found in {paths!r}")
    for p in items:
        if isinstance(p, Path) and not p.exists():
            raise InvalidParameterError(f"{p}: no such file or folder")
    return [str(p) if isinstance(p, Path) else p for p in items]


def corpus_stats(
    paths: Any,
    *,
    audit: bool = False,
    options: AuditOptions | None = None,
    client: Any = None,
    progress: bool | None = None,
    on_file: Callable[[FileFacts], None] | None = None,
) -> CorpusStats:
    """Statistics of a collection of matches by score (see the module notes).

    Parameters
    ----------
    paths : path, folder, MatchRecord, or a sequence of them
        Match files (any format :func:`mathbg.rules.read_match` reads), folders (searched
        for :data:`MATCH_SUFFIXES`) or records.
    audit : bool
        Also run the match audit and total its errors by score.
    options : AuditOptions, optional
        The audit's engine, plies, MET (:class:`mathbg.analysis.AuditOptions`); its
        ``player`` keeps that player's decisions only; ``checker=False`` audits the cube
        decisions alone (several times faster).
    client : dask.distributed.Client, optional
        Run one task per file on this cluster (same numbers as local).
    progress : bool, optional
        Show a progress bar (default: when the output is a terminal).
    on_file : callable, optional
        Called with each file's :func:`file_stats` result as it finishes (local runs only).

    Returns
    -------
    CorpusStats

    Raises
    ------
    InvalidParameterError
        When no match file is found, a named file or folder does not exist, or the
        ``player`` plays no match of the corpus.

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> stats = corpus_stats(example_match(), progress=False)
    >>> stats.files, stats.games, stats.overall.rates["double_rate"], stats.overall.n["pass_rate"]
    (1, 2, 1.0, 2)
    >>> [row.score for row in stats.by_score]
    [(2, 3), (3, 3)]
    """
    items = _items(paths)
    player = None if options is None else options.player
    results: list[FileFacts]
    if client is not None:
        from mathbg._dask import as_finished

        futures = client.map(file_stats, items, [audit] * len(items), [options] * len(items),
                             pure=False)  # fmt: skip
        got = dict(as_finished(client, futures, "corpus run"))
        results = [got[i] for i in range(len(futures))]
    else:
        from tqdm.auto import tqdm

        results = []
        for p in tqdm(items, desc="matches", unit="file", disable=not progress if progress
                      is not None else None, leave=False):  # fmt: skip
            r = file_stats(p, audit, options)
            results.append(r)
            if on_file is not None:
                on_file(r)
    if player is not None and audit:
        plays = {d.player.lower() for r in results for d in r.decisions}
        if player.lower() not in plays:
            raise InvalidParameterError(f"player {player!r} plays no match of the corpus")
    return _aggregate(results, audit, player)
