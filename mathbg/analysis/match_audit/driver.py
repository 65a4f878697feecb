"""The audit of a whole match: the engine, the cube decisions, the checker play, the luck,
the statistics.

:func:`audit` takes match records or files and an :class:`AuditOptions`; for each match it
resolves the engine once (:func:`resolve_engine`), values the cube decisions
(:mod:`~mathbg.analysis.match_audit.cube`), the checker play and luck of every roll
(:mod:`~mathbg.analysis.match_audit.checker`), and adds gnubg's statistics of each game
and of the match (:mod:`~mathbg.analysis.match_audit.statistics`).

Engines
-------
``auto``
    The exact two-sided bearoff database where both sides are in it (6 points, 6
    checkers), gnubg's networks from ``gnubg-nn`` elsewhere (races included: mathbg's race
    evaluator is too slow to value every play of a match), else the gnubg program. At
    ``plies`` >= 1 the gnubg program when it is installed (below): its n-ply search uses
    gnubg's pruning nets, which gnubg-nn lacks, so its numbers are gnubg's and it takes
    gnubg's time (gnubg-nn's 2-ply takes twice as long and differs by up to about 3e-4).
``native`` at 1 or 2 plies
    gnubg 1.07's n-ply analysis in mathbg's own kernels
    (:mod:`~mathbg.analysis.match_audit.search`): the same cube decisions, plays, ranks,
    values and luck as the gnubg program's analysis, to the bit (tested), without the
    program; ``auto`` at 1 or 2 plies uses it when the gnubg program is not installed.
``gnubg``
    The gnubg program analyses the whole match: its cubeless chances, its cubeful values of
    each play and cube decision and its luck of each roll: ``analyse game`` of each game in
    one long-lived process, with gnubg's calculation threads (``threads``: one per CPU at
    1 ply or more), which gives gnubg's own ``analyse match`` document game by game.
    With ``disk_cache`` (the commands set it) each match's document is kept in mathbg's
    cache directory and read from there when the same match is audited again at the same
    plies with the same gnubg (:func:`~mathbg.analysis.gnubg_program.kept_analysis`).
    Without ``checker`` gnubg analyses the cube decisions only (``set analysis moves
    off``, ``set analysis luck off``): each one gets the numbers of the whole analysis
    (tested), for about a fifteenth of its CPU at 2 plies.
any other evaluator
    Its chances of every position; mathbg's 0-ply cube step values the plays and cube
    decisions. An evaluator with ``evaluate_plays`` (``gnubg-nn``) values the plays of many
    rolls in one call.

At ``plies`` > 0 the cube decisions take the engine's n-ply chances (with the 0-ply cube
step, as ``mathbg analyze``); the plays of the roll are first valued at 0 plies, then the
best 16 within 0.32 EMG (gnubg's default analysis filter) and the play made again with
n-ply chances; the luck stays at 0 plies, as gnubg's (``ecLuck``).

Re-checking the costliest decisions
-----------------------------------
:meth:`MatchAudit.costliest(k, kind) <mathbg.analysis.match_audit.MatchAudit.costliest>`
lists the ``k`` errors that cost the most (MWC); a stronger method (a rollout of each,
issue 31's ``audit --rollout-errors K``) re-values those decisions after the audit,
without changing how the audit itself values a match.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mathbg.analysis.match_audit.checker import MatchValues, TurnValues, turn_values
from mathbg.analysis.match_audit.cube import (
    DoublerValues,
    cube_points,
    evaluate_points,
    judge,
    matrix_state,
    value_points,
)
from mathbg.analysis.match_audit.results import (
    AuditedDecision,
    AuditResult,
    CheckerDecision,
    EngineInfo,
    GameSummary,
    MatchAudit,
    MetChange,
    PlayOption,
)
from mathbg.analysis.match_audit.statistics import luck_mark, skill_mark
from mathbg.analysis.match_audit.turns import match_turns
from mathbg.analysis.matrix import DEFAULT_MET
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.base import Evaluator
    from mathbg.met.table import MET
    from mathbg.rules.record import MatchRecord

__all__ = ["AuditOptions", "audit", "expect_native", "resolve_engine"]


@dataclass(frozen=True)
class AuditOptions:
    """How to audit a match (every field has a default; ``audit(..., **changes)`` takes
    the same names).

    Attributes
    ----------
    engine : str or Evaluator
        The engine (``auto``, ``gnubg-nn``, ``gnubg``, ... or an evaluator object).
    plies : int or None
        Search depth of ``gnubg-nn`` / ``gnubg`` (default 0).
    met : MET or str
        The match equity table (default Kazaross-XG2, gnubg's and XG's default).
    compare_met : MET or str or None
        A second MET: the cube decisions whose verdict changes under it.
    player : str or None
        List only this player's decisions (case-insensitive name); the statistics keep both.
    exact : bool
        The exact bearoff match solver's cube values beside, where it reaches.
    take_points : bool
        Compute the taker's take point and margin (``False``: None, several times faster).
    checker : bool
        Analyse the checker play (``False``: the cube decisions only; the gnubg program
        then analyses the cube decisions only, with the numbers of its whole analysis).
    luck : bool
        Value every roll's luck (needs ``checker``).
    options : int
        How many of the best plays each checker decision lists.
    disk_cache : bool
        Keep the exact solver's solutions (:func:`mathbg.bearoff.match_equity`) and the
        gnubg program's analyses of whole matches
        (:func:`~mathbg.analysis.gnubg_program.analyse_games`) in mathbg's cache directory
        and read them from there: a match analysed again, or a corpus run that was killed
        and run again, costs gnubg nothing for what it analysed before (the ``mathbg
        audit`` and ``mathbg corpus --audit`` commands do).
    threads : int or None
        gnubg's calculation threads when the gnubg program analyses the match (``gnubg``,
        or ``auto`` at ``plies`` >= 1), the worker processes (a game each) of the native
        n-ply search (``native`` at 1 or 2 plies); default one per CPU at 1 ply or more,
        else one: :func:`~mathbg.analysis.gnubg_program.analysis_threads`. The numbers are
        the same with any count.
    progress : bool or None
        A progress bar over the rolls the gnubg program analyses (default: when the
        output is a terminal).
    """

    engine: str | Evaluator = "auto"
    plies: int | None = None
    met: MET | str = DEFAULT_MET
    compare_met: MET | str | None = None
    player: str | None = None
    exact: bool = True
    take_points: bool = True
    checker: bool = True
    luck: bool = True
    options: int = 5
    disk_cache: bool = False
    threads: int | None = None
    progress: bool | None = None


# ----------------------------------------------------------------------------- engines


def _version(name: str) -> str | None:
    if name == "gnubg-nn":
        from importlib import metadata

        try:
            return metadata.version("gnubg-nn")
        except metadata.PackageNotFoundError:  # pragma: no cover
            return None
    if name == "gnubg":
        from mathbg.analysis.gnubg_program import gnubg_version

        return gnubg_version()
    if name == "native":
        return "(gnubg 1.07.001 networks)"
    return None


def resolve_engine(engine: str | Evaluator, plies: int | None, threads: int | None = None
                   ) -> tuple[Evaluator, EngineInfo]:  # fmt: skip
    """The evaluator of an audit and what it is (:class:`EngineInfo`; see the module notes).

    Parameters
    ----------
    engine : str or Evaluator
        A registered engine name or an evaluator.
    plies : int or None
        The search depth (engines that take it).
    threads : int or None
        gnubg's calculation threads when the engine named is the gnubg program
        (:class:`AuditOptions`); an evaluator given keeps its own.

    Returns
    -------
    (Evaluator, EngineInfo)

    Raises
    ------
    InvalidParameterError
        For an unknown engine, or ``threads`` below 1.

    Examples
    --------
    >>> from mathbg.analysis import get_evaluator
    >>> _, info = resolve_engine(get_evaluator("given", probabilities=[0.5, 0, 0, 0, 0]), None)
    >>> info.name, info.cube_step
    ('given', '0-ply cube step')
    """
    from mathbg.analysis.registry import get_evaluator

    requested = engine if isinstance(engine, str) else getattr(engine, "name", "?")
    if isinstance(engine, str) and engine.strip().lower() == "auto":
        evaluator: Evaluator = _auto(plies)
    elif isinstance(engine, str) and engine.strip().lower() == "native" and plies:
        from mathbg.analysis.match_audit.search import SearchEvaluator

        evaluator = SearchEvaluator(plies)
    elif isinstance(engine, str):
        evaluator = get_evaluator(engine, plies=plies)
    else:
        evaluator = engine
    if threads is not None and int(threads) < 1:
        raise InvalidParameterError(f"threads must be at least 1, got {threads}")
    if isinstance(engine, str) and threads is not None and hasattr(evaluator, "threads"):
        evaluator.threads = int(threads)  # made here: not a caller's object
    name = getattr(evaluator, "engine_name", None) or evaluator.name
    own = hasattr(evaluator, "analyse_match")
    step = ("gnubg's own cubeful analysis" if own
            else "gnubg's cubeful n-ply search" if hasattr(evaluator, "search_values")
            else "0-ply cube step")  # fmt: skip
    ply = evaluator.plies if evaluator.plies is not None else plies
    if ply is None and name in ("native", "gnubg-nn", "gnubg"):
        ply = 0
    note = getattr(evaluator, "note", None)
    return evaluator, EngineInfo(str(requested), name, _version(name), ply, step, note)


def expect_native(engine: str | Evaluator, plies: int | None) -> None:
    """Replay the match files with the move generator's kernel when the engine loads numba.

    The native engine (``auto`` or ``native`` at 0 plies) loads numba anyway, so the
    replay's plays come from the kernel from the first position
    (:func:`~mathbg.rules.movegen.expect_positions`): about 0.1 s less for a 13-point
    match than the pure-Python port, which serves the first 5,000 positions of a process
    that might never need numba.

    Parameters
    ----------
    engine : str or Evaluator
        The audit's engine (as :class:`AuditOptions`).
    plies : int or None
        Its plies.

    Examples
    --------
    >>> expect_native("gnubg-nn", 2)  # another engine: the port keeps its positions
    """
    if isinstance(engine, str) and engine.strip().lower() in ("auto", "native") and not plies:
        from mathbg.rules.movegen import PORT_CALLS, expect_positions

        expect_positions(PORT_CALLS)


def _auto(plies: int | None) -> Evaluator:
    """The audit's ``auto``: at 0 plies the native engine (gnubg 1.07's networks in mathbg's
    kernels) with the exact database where it reaches; deeper, the gnubg program when it is
    installed (its own n-ply analysis of the match, with the pruning nets: gnubg's numbers
    in gnubg's time, half gnubg-nn's at 2 plies), else gnubg-nn; without either, the error
    naming both installs."""
    from mathbg.analysis import evaluation
    from mathbg.analysis.match_audit.engines import AuditAutoEvaluator

    if not plies:
        return AuditAutoEvaluator()
    program = evaluation.gnubg_program_installed()
    if not program:
        from mathbg.analysis.match_audit.search import MAX_PLIES, SearchEvaluator

        if plies <= MAX_PLIES:  # gnubg's n-ply analysis in mathbg's kernels
            return SearchEvaluator(plies)
        return AuditAutoEvaluator(plies=plies)  # without gnubg-nn: says what to install
    from mathbg.analysis.gnubg_program import GnubgEvaluator

    return GnubgEvaluator(plies=plies)


# ----------------------------------------------------------------------------- one match


def _load(item: Any) -> MatchRecord:
    from mathbg.rules.formats import read_match
    from mathbg.rules.record import MatchRecord

    if isinstance(item, MatchRecord):
        return item
    if isinstance(item, (str, os.PathLike, bytes)):
        return read_match(item)
    raise InvalidParameterError(
        f"audit takes a MatchRecord or a match file path, got {type(item).__name__}"
    )


def _games(record: MatchRecord) -> list[GameSummary]:
    out = []
    for g in record.games:
        r = g.result
        out.append(GameSummary(g.number, g.score, None if r is None else record.players[r.winner],
                               None if r is None else r.points, None if r is None else r.kind,
                               None if r is None else r.cube))  # fmt: skip
    return out


def _met_name(met: Any) -> str:
    name = getattr(met, "name", None)
    return str(name if name else met)


def _names(record: MatchRecord) -> tuple[str, str]:
    return record.players[0], record.players[1]


def _value(record: MatchRecord, evaluator: Evaluator, met: MET, o: AuditOptions,
           decisions: list[Any]) -> MatchValues:  # fmt: skip
    points = cube_points(record, decisions=decisions)
    turns = match_turns(record, decisions=decisions) if o.checker else []
    search = getattr(evaluator, "search_values", None)
    if search is not None:  # the native n-ply search
        return search(record, points, turns, met, checker=o.checker, luck=o.luck,  # type: ignore[no-any-return]
                      progress=o.progress)  # fmt: skip
    own = getattr(evaluator, "analyse_match", None)
    if own is not None:
        from mathbg.analysis.match_audit.engines import from_gnubg

        analysis = own(record, progress=o.progress, disk_cache=o.disk_cache, checker=o.checker)
        return from_gnubg(record, analysis, points, turns, met, o.checker)
    from mathbg.analysis.match_audit.engines import two_sided_database

    r = record.rules
    evs = evaluate_points(points, evaluator)
    values = value_points(points, evs, met, exact=o.exact, jacoby=r.jacoby, beavers=r.beavers,
                          take_points=o.take_points, disk_cache=o.disk_cache,
                          two_sided=lambda: two_sided_database(evaluator))  # fmt: skip
    tv: list[TurnValues] = []
    if o.checker:
        from mathbg.analysis.match_audit.engines import deeper_plays, zero_ply

        db = two_sided_database(evaluator)
        tv = turn_values(turns, zero_ply(evaluator), met, luck=o.luck, two_sided=db)
        if evaluator.plies:
            tv = deeper_plays(turns, tv, evaluator, met, db)
    return MatchValues(points, values, turns, tv)


def _decisions(record: MatchRecord, v: MatchValues) -> list[AuditedDecision]:
    out = []
    for p, val in zip(v.points, v.values, strict=True):
        best, err, err_emg, category = judge(val, p.kind, p.taken)
        exact_best = exact_err = None
        ex = val.exact
        if ex is not None and not val.money and ex.double_take is not None:
            probe = DoublerValues(str(ex.action), ex.no_double, ex.double_take,
                                  float(ex.double_pass or 0.0), (0.0, 0.0, 0.0), None, None, 0.0)
            exact_best, exact_err, _, _ = judge(probe, p.kind, p.taken)
        st = matrix_state(p.match, p.roller)
        out.append(AuditedDecision(
            p.game, p.move, record.players[p.player], p.position_id, p.match_id, st.away,
            p.match.cube, str(st.owner), st.crawford, p.kind, p.taken, best, val,
            None if val.money else err, err_emg if not val.money else err, category,
            exact_best, exact_err, skill_mark(err_emg if not val.money else err)))  # fmt: skip
    return out


def _checker(record: MatchRecord, v: MatchValues, met: MET, keep: int) -> list[CheckerDecision]:
    from mathbg.analysis.match_audit.equity import scale_of

    out = []
    for t, tv in zip(v.turns, v.turn_values, strict=True):
        st = matrix_state(t.match, t.player)
        plays = t.legal_plays() if tv.legal else None
        shown = list(range(min(keep, tv.plays)))
        if tv.played >= keep:
            shown.append(tv.played)
        names = {i: _notation(plays, tv, i) for i in {*shown, 0, tv.played}}  # each once
        options = tuple(_option(names[i], tv, i) for i in shown)
        best_eq = float(tv.equity[0])
        played_eq = float(tv.equity[tv.played]) if tv.played >= 0 else None
        err = 0.0 if played_eq is None else max(best_eq - played_eq, 0.0)
        wl = scale_of(met, t.match, t.player)
        scale = None if wl is None else 0.5 * (wl[0] - wl[1])
        luck_mwc = None if tv.luck is None or scale is None else tv.luck * scale
        out.append(CheckerDecision(
            t.game, t.move, record.players[t.player], t.position_id, t.match_id, st.away,
            t.match.cube, str(st.owner), st.crawford, t.dice,
            names.get(tv.played, "") if tv.legal else "",
            names.get(0, "") if tv.legal else "", tv.legal,
            tv.played + 1 if tv.played >= 0 else None, played_eq,
            best_eq if tv.legal else None, err, None if scale is None else err * scale,
            skill_mark(err) if tv.legal > 1 else None, tv.luck, luck_mwc,
            None if tv.luck is None else luck_mark(tv.luck), options))  # fmt: skip
    return out


def _notation(plays: Any, tv: TurnValues, i: int) -> str:
    if plays is None or i < 0:
        return ""
    k = plays.find_index(bytes(tv.results[i]))
    return str(plays[k].notation) if k >= 0 else ""


def _option(name: str, tv: TurnValues, i: int) -> PlayOption:
    p = tuple(float(x) for x in tv.probs[i])
    return PlayOption(name, float(tv.equity[i]),
                      None if tv.mwc is None else float(tv.mwc[i]), p)  # type: ignore[arg-type]


def _compare(record: MatchRecord, v: MatchValues, decisions: list[AuditedDecision], other: MET,
             o: AuditOptions, evaluator: Evaluator) -> list[MetChange]:  # fmt: skip
    r = record.rules
    evs = evaluate_points(v.points, evaluator)
    from mathbg.analysis.match_audit.engines import two_sided_database

    values = value_points(v.points, evs, other, exact=False, jacoby=r.jacoby, beavers=r.beavers,
                          take_points=False,
                          two_sided=lambda: two_sided_database(evaluator))  # fmt: skip
    out = []
    for d, val in zip(decisions, values, strict=True):
        best2, _, err2, cat2 = judge(val, d.kind, d.taken)
        if best2 != d.best or cat2 != d.category:
            out.append(MetChange(d.game, d.move, d.player, d.kind, d.taken, d.best, best2,
                                 d.category, cat2, d.error_emg, err2))  # fmt: skip
    return out


#: The variants the audit's engines evaluate: gnubg's networks (gnubg-nn, the gnubg program)
#: play backgammon and Nackgammon, as gnubg's own ``analyse match`` does; a Hypergammon
#: match would get backgammon numbers, so it is refused.
AUDITED_VARIANTS = ("backgammon", "nackgammon")


def _check_variant(record: MatchRecord) -> None:
    variant = record.rules.variant
    if variant in AUDITED_VARIANTS:
        return
    where = f"{record.source}: " if record.source else ""
    hint = ""
    if variant.startswith("hypergammon"):
        hint = (f"; `mathbg hyper POSITION --checkers {variant[-1]} --away A,B` gives the "
                f"exact cube action of its positions")  # fmt: skip
    raise InvalidParameterError(
        f"{where}the audit has no engine for {variant} matches (its engines evaluate "
        f"{' and '.join(AUDITED_VARIANTS)}){hint}"
    )


def _audit_one(record: MatchRecord, evaluator: Evaluator, info: EngineInfo, met: MET,
               compare: MET | None, o: AuditOptions) -> MatchAudit:  # fmt: skip
    from mathbg.analysis.match_audit.events import match_statistics

    replayed = list(record.replay())  # once for the cube points, the turns and the statistics
    v = _value(record, evaluator, met, o, replayed)
    decisions = _decisions(record, v)
    plays = _checker(record, v, met, o.options) if o.checker else []
    games, whole = match_statistics(record, v.points, v.values, v.turns, v.turn_values, met,
                                    o.checker, decisions=replayed)  # fmt: skip
    result = MatchAudit(record.source, record.length, _names(record), record.rules, info,
                        _met_name(met), _games(record), decisions, plays, whole, games)
    if compare is not None:
        result.compare_met = _met_name(compare)
        result.compare = _compare(record, v, decisions, compare, o, evaluator)
    if o.player is not None:
        who = o.player.lower()
        result.decisions = [d for d in decisions if d.player.lower() == who]
        result.plays = [p for p in plays if p.player.lower() == who]
        result.compare = [c for c in result.compare if c.player.lower() == who]
    return result


def audit(
    record_or_path: Any, options: AuditOptions | None = None, **changes: Any
) -> AuditResult:
    """Audit every decision of one or more matches (see the module notes).

    Parameters
    ----------
    record_or_path : MatchRecord, path, or a sequence of them
        The match(es): records or match files (any format :func:`mathbg.rules.read_match`
        reads).
    options : AuditOptions, optional
        How (default :class:`AuditOptions`).
    **changes
        Fields of :class:`AuditOptions` to change (``engine="gnubg"``, ``plies=2``, ...).

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidParameterError
        When ``player`` is not in the match(es), for an unknown option, engine or MET.

    Examples
    --------
    With the same given chances at every position (fast; a real audit uses an engine):

    >>> from mathbg.analysis import get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
    >>> result = audit(example_match(), engine=given, exact=False, take_points=False,
    ...                checker=False)
    >>> result.summary_frame()[["player", "decisions", "errors"]].values.tolist()
    [['Ann Lee', 8, 2], ['Bob', 7, 2], [nan, 15, 4]]
    >>> audit(example_match(), player="Carl")
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: player 'Carl' is not in the match(es): Ann Lee, Bob
    """
    import mathbg.met as metmod

    o = options or AuditOptions()
    bad = [k for k in changes if k not in AuditOptions.__dataclass_fields__]
    if bad:
        raise InvalidParameterError(f"unknown audit option(s): {', '.join(bad)}; the options "
                                    f"are {', '.join(AuditOptions.__dataclass_fields__)}")
    o = replace(o, **changes)
    items = record_or_path
    if isinstance(items, (str, os.PathLike, bytes)) or not isinstance(items, Sequence):
        items = [items]
    records = [_load(x) for x in items]
    for rec in records:
        _check_variant(rec)
    if o.player is not None:
        names = {n.lower() for rec in records for n in rec.players}
        if o.player.lower() not in names:
            raise InvalidParameterError(
                f"player {o.player!r} is not in the match(es): "
                + ", ".join(sorted({n for rec in records for n in rec.players}))
            )
    evaluator, info = resolve_engine(o.engine, o.plies, o.threads)
    met = metmod.as_met(o.met)
    compare = None if o.compare_met is None else metmod.as_met(o.compare_met)
    return AuditResult([_audit_one(rec, evaluator, info, met, compare, o) for rec in records])

