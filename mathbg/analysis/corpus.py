"""Statistics of a collection of real matches, by score: :func:`corpus_stats`.

Over a folder (or a list) of match files, or match records, per game: who was how many
points away (``away = (a, b)``, ``a <= b``: the score seen from the side that leads), whether
it was the Crawford game or a post-Crawford game, how it ended and what the cube did.
Per score (and overall):

- ``games``: finished games;
- ``gammon_rate``: games ending in a gammon or a backgammon (either side, played out or
  resigned at that level), over games; ``backgammon_rate`` likewise;
- ``double_rate``: games with at least one double, over games;
- ``pass_rate``: first doubles of a game that were passed, over games with a double;
- ``resign_rate``: games that ended by an accepted resignation, over games;
- ``cube_max``: how many games ended at each cube value (``{"1": n, "2": n, ...}``; a
  passed double counts the value before it);
- ``ci95``: Wilson's 95 % score interval of each rate (``[lo, hi]``; None without games).

With ``audit=True`` the cube audit (:func:`mathbg.analysis.match_audit.audit`, exact solver off)
runs on every match and its totals are added per score (the game's score): ``decisions``,
``errors``, ``mwc_lost``, ``emg_lost``, ``error_rate`` (see the audit's notes).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mathbg._output import FrameMixin
from mathbg.errors import InvalidParameterError, MathbgError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.rules.record import MatchRecord

__all__ = [
    "MATCH_SUFFIXES",
    "RATES",
    "CorpusStats",
    "corpus_stats",
    "file_stats",
    "match_files",
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


# ----------------------------------------------------------------------------- one file


def _game_rows(record: MatchRecord) -> list[dict[str, Any]]:
    """One dict per finished game: score key, Crawford flags, result and cube facts."""
    from mathbg.rules.record import Double, Pass

    n = record.length
    rows = []
    seen_crawford = False
    for g in record.games:
        r = g.result
        crawford = post = False
        if n:
            one = [n - s == 1 for s in g.score]
            if any(one) and not all(one):
                if record.rules.crawford and not seen_crawford:
                    crawford = seen_crawford = True
                else:
                    post = True
        if r is None:
            continue
        away = None if not n else tuple(sorted((n - g.score[0], n - g.score[1])))
        first_pass = doubled = False
        for i, a in enumerate(g.actions):
            if isinstance(a, Double):
                doubled = True
                nxt = g.actions[i + 1] if i + 1 < len(g.actions) else None
                first_pass = isinstance(nxt, Pass) or (nxt is None and r.kind == "pass")
                break
        level = r.resign_level if r.kind == "resign" else 0
        gammon = r.kind in ("gammon", "backgammon") or level >= 2
        backgammon = r.kind == "backgammon" or level == 3
        rows.append({"game": g.number, "away": away, "crawford": crawford,
                     "post_crawford": post, "gammon": gammon, "backgammon": backgammon,
                     "doubled": doubled, "passed": doubled and first_pass,
                     "resigned": r.kind == "resign", "cube": int(r.cube)})  # fmt: skip
    return rows


def file_stats(
    path: Any,
    audit: bool = False,
    engine: str = "auto",
    plies: int | None = None,
    met: Any = None,
) -> dict[str, Any]:
    """The per-game facts (and audit totals) of one match file or record: the unit of
    work of :func:`corpus_stats` (one Dask task). Never raises for a bad file: returns
    ``{"file": ..., "error": message}`` instead.

    Parameters
    ----------
    path : path or MatchRecord
        A match file (any format :func:`mathbg.rules.read_match` reads) or a record.
    audit : bool, optional
        Also audit the match's cube decisions (one row per decision).
    engine, plies, met
        The audit's engine, depth and MET (see :func:`mathbg.analysis.match_audit.audit`).

    Returns
    -------
    dict
        ``file``, ``games`` (one dict per game: score, Crawford, ending, cube) and
        ``decisions`` (empty without ``audit``); or ``file`` and ``error``.

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> facts = file_stats(example_match())
    >>> [(g["away"], g["doubled"], g["passed"], g["cube"]) for g in facts["games"]]
    [((3, 3), True, True, 1), ((2, 3), True, False, 2)]
    >>> file_stats("no-such-file.mat")["error"]
    'no-such-file.mat: cannot read: ...'
    """
    from mathbg.rules.formats import read_match
    from mathbg.rules.record import MatchRecord

    name = str(getattr(path, "source", None) or path) if isinstance(path, MatchRecord) \
        else str(path)  # fmt: skip
    try:
        record = path if isinstance(path, MatchRecord) else read_match(path)
        if isinstance(path, MatchRecord):
            record.validate()
        games = _game_rows(record)
        decisions: list[dict[str, Any]] = []
        if audit:
            decisions = _audit_rows(record, engine, plies, met)
    except (MathbgError, OSError, UnicodeDecodeError, ValueError) as exc:
        return {"file": name, "error": str(exc).splitlines()[0] if str(exc) else
                type(exc).__name__}  # fmt: skip
    return {"file": name, "games": games, "decisions": decisions}


def _audit_rows(
    record: MatchRecord, engine: str, plies: int | None, met: Any
) -> list[dict[str, Any]]:
    from mathbg.analysis.match_audit import audit
    from mathbg.analysis.matrix import DEFAULT_MET

    res = audit(record, engine=engine, plies=plies, met=met or DEFAULT_MET, exact=False,
                take_points=False)
    n = record.length
    score_of = {g.number: g.score for g in record.games}
    out = []
    for d in res.decisions:
        s = score_of.get(d.game, (0, 0))
        away = None if not n else tuple(sorted((n - s[0], n - s[1])))
        out.append({"away": away, "crawford": d.crawford, "error": d.is_error,
                    "error_emg": d.error_emg, "error_mwc": d.error_mwc})  # fmt: skip
    return out


# ----------------------------------------------------------------------------- totals


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

    def add_game(self, g: dict[str, Any]) -> None:
        self.games += 1
        self.gammons += bool(g["gammon"])
        self.backgammons += bool(g["backgammon"])
        self.doubled += bool(g["doubled"])
        self.passes += bool(g["passed"])
        self.resigns += bool(g["resigned"])
        self.cube_max[g["cube"]] = self.cube_max.get(g["cube"], 0) + 1

    def add_decision(self, d: dict[str, Any]) -> None:
        self.decisions += 1
        self.errors += bool(d["error"])
        self.emg_lost += float(d["error_emg"])
        if d["error_mwc"] is None:
            self.mwc_known = False
        else:
            self.mwc_lost += float(d["error_mwc"])

    def as_dict(self, audited: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"games": self.games}
        ci: dict[str, Any] = {}
        for key, (num, den) in RATES.items():
            k, n = getattr(self, num), getattr(self, den)
            out[key] = k / n if n else None
            interval = wilson(k, n)
            ci[key] = None if interval is None else list(interval)
        out["cube_max"] = {str(c): self.cube_max[c] for c in sorted(self.cube_max)}
        out["counts"] = {"gammons": self.gammons, "backgammons": self.backgammons,
                         "doubled": self.doubled, "passes": self.passes,
                         "resigns": self.resigns}  # fmt: skip
        out["ci95"] = ci
        if audited:
            n = self.decisions
            out["audit"] = {"decisions": n, "errors": self.errors,
                            "mwc_lost": self.mwc_lost if self.mwc_known else None,
                            "emg_lost": self.emg_lost,
                            "error_rate": 1000.0 * self.emg_lost / n if n else None}  # fmt: skip
        return out


def _key(item: dict[str, Any]) -> tuple[Any, ...]:
    away = item["away"]
    return (away is None, away or (0, 0), bool(item["crawford"]))


@dataclass
class CorpusStats(FrameMixin):
    """The statistics of a collection (:func:`corpus_stats`): ``as_dict`` (the JSON of
    ``mathbg corpus --json``), ``to_frame`` (one row per score, then the overall row)."""

    files: int
    skipped: list[dict[str, str]]
    games: int
    overall: dict[str, Any]
    by_score: list[dict[str, Any]]
    audited: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"files": self.files, "skipped": self.skipped, "games": self.games,
                "overall": self.overall, "by_score": self.by_score}  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = []
        for entry in [*self.by_score, dict(self.overall, away=None, crawford=None)]:
            away = entry.get("away")
            row: dict[str, Any] = {
                "away": None if away is None else away[0],
                "opp_away": None if away is None else away[1],
                "crawford": entry.get("crawford"),
                "post_crawford": entry.get("post_crawford"),
                "games": entry["games"],
            }
            for key in RATES:
                ci = entry["ci95"][key]
                row[key] = entry[key]
                row[key + "_lo"] = None if ci is None else ci[0]
                row[key + "_hi"] = None if ci is None else ci[1]
            for c, k in entry["cube_max"].items():
                row["cube_max_" + c] = k
            for k, v in (entry.get("audit") or {}).items():
                row["audit_" + k] = v
            rows.append(row)
        return pd.DataFrame(rows)


def _aggregate(results: Sequence[dict[str, Any]], audited: bool) -> CorpusStats:
    skipped = [{"file": r["file"], "error": r["error"]} for r in results if "error" in r]
    overall = _Counter()
    by: dict[tuple[Any, ...], _Counter] = {}
    meta: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in results:
        if "error" in r:
            continue
        for g in r["games"]:
            overall.add_game(g)
            k = _key(g)
            by.setdefault(k, _Counter()).add_game(g)
            meta.setdefault(k, {"away": g["away"], "crawford": g["crawford"],
                                "post_crawford": g["post_crawford"]})  # fmt: skip
        for d in r["decisions"]:
            overall.add_decision(d)
            k = _key(d)
            by.setdefault(k, _Counter()).add_decision(d)
            if k not in meta:
                away = d["away"]
                post = away is not None and 1 in away and not d["crawford"] and away != (1, 1)
                meta[k] = {"away": away, "crawford": d["crawford"], "post_crawford": post}
    rows = []
    for k in sorted(by):
        m = meta[k]
        entry = {"away": None if m["away"] is None else list(m["away"]),
                 "crawford": m["crawford"], "post_crawford": m["post_crawford"]}  # fmt: skip
        entry.update(by[k].as_dict(audited))
        rows.append(entry)
    files = len(results)
    return CorpusStats(files, skipped, overall.games, overall.as_dict(audited), rows, audited)


def corpus_stats(
    paths: Any,
    *,
    audit: bool = False,
    engine: str = "auto",
    plies: int | None = None,
    met: Any = None,
    client: Any = None,
    progress: bool | None = None,
    on_file: Callable[[dict[str, Any]], None] | None = None,
) -> CorpusStats:
    """Statistics of a collection of matches by score (see the module notes).

    Parameters
    ----------
    paths : path, folder, MatchRecord, or a sequence of them
        Match files (any format :func:`mathbg.rules.read_match` reads), folders (searched
        for :data:`MATCH_SUFFIXES`) or records.
    audit : bool
        Also run the cube audit and total its errors by score.
    engine, plies, met
        The audit's engine, depth and MET.
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
        When no match file is found, or a named file or folder does not exist.

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> stats = corpus_stats(example_match(), progress=False)
    >>> stats.files, stats.games, stats.overall["double_rate"], stats.overall["pass_rate"]
    (1, 2, 1.0, 0.5)
    >>> [row["away"] for row in stats.by_score]
    [[2, 3], [3, 3]]
    """
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
    args = (audit, engine, plies, met)
    results: list[dict[str, Any]]
    if client is not None:
        from mathbg._dask import as_finished

        futures = client.map(file_stats, [str(p) if isinstance(p, Path) else p for p in items],
                             *[[a] * len(items) for a in args], pure=False)  # fmt: skip
        got = dict(as_finished(client, futures, "corpus run"))
        results = [got[i] for i in range(len(futures))]
    else:
        from tqdm.auto import tqdm

        results = []
        for p in tqdm(items, desc="matches", unit="file", disable=not progress if progress
                      is not None else None, leave=False):  # fmt: skip
            r = file_stats(str(p) if isinstance(p, Path) else p, *args)
            results.append(r)
            if on_file is not None:
                on_file(r)
    return _aggregate(results, audit)
