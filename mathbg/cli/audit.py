"""``mathbg audit``: a whole match analysed at its score, as gnubg's ``analyse match``."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_decimals,
    add_engine_argument,
    add_force,
    add_met_argument,
    check_output,
    held_warnings,
    load_met,
    print_json,
    save_figure,
)

HELP = "a whole match analysed: plays, cube, luck"
#: ``--rollout-trials``'s default (the rollout's: every pair of first and second roll once).
DEFAULT_TRIALS = 1296
DESCRIPTION = """\
Replay match files (.mat in its dialects, gnubg .sgf) and analyse every decision at its
score, as gnubg 1.07's "analyse match" does at 0 plies: every legal play of every roll
valued by the engine (cubeful, with the match's gammon values), the play made ranked and
priced; every cube decision (each turn where the player about to roll could double, each
double taken or passed) judged with gnubg's categories (missed double, wrong double, wrong
take, wrong pass; too good); the luck of every roll; gnubg's statistics of the match. In a
bearoff of <= 6 checkers a side the exact match solver's cube answer is given beside.

Errors are in EMG (normalised to the cube, as gnubg prints them) and MWC. Marks (gnubg):
doubtful above 0.03 EMG, bad above 0.06, very bad above 0.12; rolls lucky above 0.3 EMG,
very lucky above 0.6 (unlucky below -0.3, -0.6). The measures of skill, per player:

  error rate (gnubg, "show statistics match"): 1000 x the EMG lost / the non-trivial
    decisions (unforced moves + close or actual cube decisions), in mEMG; with the
    checker and cube rates apart (per unforced move, per close cube decision) and
    gnubg's rating label (Supernatural below 2, World class 5, Expert 8, Advanced 12,
    Intermediate 18, Casual player 26, Beginner 35, else Awful!).
  PR (eXtreme Gammon's Performance Rating): 500 x the EMG lost per non-obvious decision
    (here gnubg's non-trivial decisions: half gnubg's error rate; XG also drops plays
    whose options are all equal).
  Snowie error rate (Snowie 4, as gnubg prints it): 1000 x the EMG lost / the moves of
    both players, forced ones included.
  cube loss per decision (mathbg's): 1000 x the cube EMG lost / every cube decision.
Luck: the roll's best play's value minus the mean over the 36 rolls (gnubg's LuckNormal;
from the starting position the 30 non-doubles of both players); the luck-adjusted
result subtracts a player's luck (MWC) from their actual result and adds the opponent's
(Douglas Zare, "Hedging toward skill").

--rollout-errors K re-checks the K costliest cube errors of each match by a cubeful
rollout at their score and cube state (the native engine at 0 plies, --rollout-trials
trials each, both lines on the same dice): each verdict is kept, changed, or unresolved
(the rollout's margin within 2 standard errors). A rollout of 1296 trials of a contact
position takes about a CPU-minute.

--engine auto takes the exact two-sided bearoff database where it reaches and the native
engine (gnubg 1.07's networks in mathbg's own kernels) elsewhere, and with --plies 1 or more
the gnubg program when it is installed (gnubg's own pruned n-ply search: its numbers, in its
time), else gnubg-nn; --engine gnubg lets
the gnubg program analyse each match (one long-lived process) and reads its values back.
The engine used, its version and plies are printed (and in the JSON). The gnubg program's
analysis of each match is kept in mathbg's cache directory ($MATHBG_DATA/gnubg, else
~/.cache/mathbg/gnubg), keyed by the match, the plies and the gnubg program: the same match
audited again (another output, another player) reads it instead of asking gnubg
(`mathbg cache clear analyses` removes them)."""

EPILOG = """\
examples:
  mathbg audit match.mat
  mathbg audit match.mat --statistics
  mathbg audit match.mat --engine gnubg --sgf match-analysed.sgf
  mathbg audit match.mat --engine gnubg-nn --met kazaross-xg2 --compare-met woolsey
  mathbg audit matches/*.txt --player lasse --json
  mathbg audit match.mat --csv decisions.csv --plot match.png
  mathbg audit match.mat --cube-only
  mathbg audit match.mat --engine native --plies 2
  mathbg audit match.mat --cube-only --rollout-errors 3 --rollout-trials 648"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``audit`` command's arguments."""
    p.add_argument("files", nargs="+", metavar="FILE", help="match files (.mat, .txt, .sgf)")
    add_engine_argument(p, "where the chances come from", "evaluate")
    p.add_argument("--plies", type=int, metavar="K",
                   help="the engine's plies (default 0; 1 or 2: gnubg's n-ply analysis, by "
                   "the gnubg program or, --engine native, in mathbg's kernels with the same "
                   "numbers; deeper: gnubg or gnubg-nn)")  # fmt: skip
    p.add_argument("--threads", type=int, metavar="N",
                   help="gnubg's calculation threads when the gnubg program analyses the "
                   "match (--engine gnubg, or auto with --plies), or the native search's "
                   "worker processes (--engine native --plies 1|2); default one per CPU at "
                   "1 ply or more, else one; the same numbers with any N")  # fmt: skip
    add_met_argument(p)
    p.add_argument("--compare-met", metavar="NAME",
                   help="a second MET: the cube decisions whose verdict changes")  # fmt: skip
    p.add_argument("--player", metavar="NAME", help="only this player's decisions")
    p.add_argument("--cube-only", action="store_true",
                   help="the cube decisions only (no checker play, no luck; with the gnubg "
                        "program, --plies 2: gnubg analyses the cube only, the same numbers "
                        "in about a fifteenth of the CPU)")  # fmt: skip
    p.add_argument("--no-exact", action="store_true",
                   help="skip the exact bearoff match solver")  # fmt: skip
    p.add_argument("--rollout-errors", type=int, metavar="K",
                   help="re-check the K costliest cube errors of each match by a cubeful "
                   "rollout at their score (native engine, 0 plies)")  # fmt: skip
    p.add_argument("--rollout-trials", type=int, metavar="N",
                   help=f"trials of each rollout (default {DEFAULT_TRIALS}; rounded up to a "
                   "multiple of 36)")  # fmt: skip
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON (every decision)")
    out.add_argument("--csv", metavar="OUT", help="write one row per decision to OUT")
    p.add_argument("--sgf", metavar="OUT",
                   help="write the first match, analysed, as gnubg .sgf to OUT")
    p.add_argument("--statistics", action="store_true",
                   help="text output: gnubg's full statistics table of each match")  # fmt: skip
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--errors", action="store_true",
                       help="text output: list every error (default: the marked ones, "
                       "doubtful or worse)")  # fmt: skip
    shown.add_argument("--all", action="store_true",
                       help="text output: list every decision")  # fmt: skip
    p.add_argument("--plot", metavar="FILE",
                   help="draw the first match's MWC along its cube decisions to FILE")  # fmt: skip
    add_decimals(p)
    add_force(p)


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg audit``: the readers' warnings are printed after the report,
    so that a refused command prints its one line only."""
    with held_warnings():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    check_output(args.plot, args.force)
    check_output(args.csv, args.force, marked=False)
    check_output(args.sgf, args.force)
    rechecking = _recheck_options(args)
    if args.threads is not None and args.threads < 1:
        from mathbg.errors import InvalidParameterError

        raise InvalidParameterError(f"--threads wants a whole number >= 1, got {args.threads}")
    from mathbg.analysis.match_audit import AuditOptions, audit
    from mathbg.analysis.match_audit.driver import expect_native
    from mathbg.rules.formats import read_match

    expect_native(args.engine, args.plies)  # the replay with the move kernel when numba comes
    records = [read_match(f) for f in args.files]
    if args.player is not None:
        _check_player(args.player, records)
    options = AuditOptions(engine=args.engine, plies=args.plies, met=load_met(args.met),
                           compare_met=load_met(args.compare_met) if args.compare_met else None,
                           exact=not args.no_exact, checker=not args.cube_only,
                           luck=not args.cube_only, disk_cache=True,
                           threads=args.threads)  # fmt: skip
    result = audit(records, options)
    if rechecking is not None:
        from mathbg.analysis.match_audit import recheck

        for m in result.matches:
            m.rollouts = recheck(m, rechecking, met=options.met, player=args.player)
    if args.sgf:
        _write_sgf(records[0], result.matches[0], args.sgf, args.force)
    if args.player is not None:
        _only(result, args.player)
    _outputs(result, args)
    if args.json:
        print_json(result.as_dict(), decimals=args.decimals)
        return 0
    _print(result, shown="all" if args.all else "errors" if args.errors else "marked",
           table=args.statistics)
    return 0


def _recheck_options(args: argparse.Namespace) -> Any:
    """``--rollout-errors``' settings, checked before any work (None: no re-check)."""
    from mathbg.errors import InvalidParameterError

    if args.rollout_errors is None:
        if args.rollout_trials is not None:
            raise InvalidParameterError("--rollout-trials goes with --rollout-errors K")
        return None
    if args.rollout_errors < 1:
        raise InvalidParameterError(f"--rollout-errors must be >= 1, got {args.rollout_errors}")
    trials = DEFAULT_TRIALS if args.rollout_trials is None else args.rollout_trials
    if trials < 1:
        raise InvalidParameterError(f"--rollout-trials must be >= 1, got {trials}")
    from mathbg.analysis.match_audit import RecheckOptions

    return RecheckOptions(args.rollout_errors, trials=trials)


def _check_player(player: str, records: list[Any]) -> None:
    from mathbg.errors import InvalidParameterError

    names = {n.lower() for r in records for n in r.players}
    if player.lower() not in names:
        raise InvalidParameterError(
            f"player {player!r} is not in the match(es): "
            + ", ".join(sorted({n for r in records for n in r.players}))
        )


def _only(result: Any, player: str) -> None:
    """Keep one player's decisions only (the statistics keep both; the .sgf was written)."""
    who = player.lower()
    for m in result.matches:
        m.decisions = [d for d in m.decisions if d.player.lower() == who]
        m.plays = [p for p in m.plays if p.player.lower() == who]
        m.compare = [c for c in m.compare if c.player.lower() == who]


def _write_sgf(record: Any, match: Any, path: str, force: bool) -> None:
    from mathbg._files import output_file
    from mathbg.analysis.match_audit.sgf import analysed_sgf

    text = analysed_sgf(record, match)
    with output_file(path, what="SGF file", force=force) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _outputs(result: Any, args: argparse.Namespace) -> None:
    if args.plot:
        from mathbg.cli._args import pyplot

        pyplot()
        from mathbg.plots import audit_timeline

        ax = audit_timeline(result)
        save_figure(ax.figure, args.plot, force=args.force)
    if args.csv is not None:
        from mathbg._files import never_ours, output_file
        from mathbg._output import format_number

        frame = result.to_frame()
        with output_file(args.csv, what="CSV file", force=args.force, is_ours=never_ours) as tmp:
            frame.to_csv(tmp, index=False,
                         float_format=lambda v: format_number(v, args.decimals))  # fmt: skip


# ----------------------------------------------------------------------------- text


def _mwc(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


def _rate(v: Any) -> str:
    return "-" if v is None else f"{1000 * v:.1f}"


def _shown(d: Any, shown: str) -> bool:
    return shown == "all" or (d.is_error and (shown == "errors" or d.mark is not None))


def _rows(m: Any, shown: str) -> list[tuple[tuple[int, int, int], str]]:
    rows = []
    for d in m.decisions:
        if not _shown(d, shown):
            continue
        extra = d.category or ""
        if d.values.exact is not None:
            extra += f"  [exact: {d.exact_best}, {_mwc(d.exact_error_mwc)}]"
        what = f"cube: {d.taken}"
        rows.append(((d.game, d.move, 0 if d.kind == "double" else 2),
                     _line(d, what, d.best, d.error_emg, d.error_mwc, d.mark, extra)))  # fmt: skip
    for p in m.plays:
        if not _shown(p, shown):
            continue
        what = f"{p.dice[0]}{p.dice[1]}: {p.played or '-'}"
        extra = f"rank {p.rank} of {p.plays}" if p.rank else ""
        rows.append(((p.game, p.move, 1),
                     _line(p, what, p.best, p.error_emg, p.error_mwc, p.mark, extra)))
    return sorted(rows, key=lambda r: r[0])


def _line(d: Any, what: str, best: str, emg: float, mwc: Any, mark: Any, extra: str) -> str:
    score = "money" if d.away is None else f"{d.away[0]}a/{d.away[1]}a"
    if d.crawford:
        score += "C"
    return (f"  {d.game:>4} {d.move:>4}  {d.player[:12]:12} {score:>8} {d.cube:>4}  "
            f"{what[:26]:26} {best[:22]:22} {emg:6.3f} {_mwc(mwc):>7}  {(mark or ''):9} "
            f"{d.position_id}:{d.match_id}  {extra}").rstrip()


def _summary(m: Any) -> list[str]:
    lines = []
    cube = m.summary()
    stats = {p.name: p for p in m.statistics.players} if m.statistics is not None else {}
    for name in m.players:
        c = cube[name]
        s = stats.get(name)
        text = f"  {name}: "
        if s is not None and m.plays:
            text += (f"checker {_rate(s.checker_rate_emg)} mEMG/move ({s.unforced_moves} "
                     f"unforced of {s.total_moves}); ")  # fmt: skip
        if s is not None:
            text += (f"cube {_rate(s.cube_rate_emg)} mEMG/decision ({s.close_cube} close of "
                     f"{s.total_cube}); error rate {_rate(s.error_rate_emg)} mEMG "
                     f"({s.overall_rating or 'n/a'}), PR "
                     f"{'-' if s.pr is None else f'{s.pr:.1f}'}, Snowie "
                     f"{'-' if s.snowie_error_rate is None else f'{s.snowie_error_rate:.1f}'}")
        lines.append(text)
        loss = "-" if c.cube_loss_per_decision is None else f"{c.cube_loss_per_decision:.1f}"
        errors = f"{c.errors} error{'' if c.errors == 1 else 's'}"
        more = f"    cube: {c.decisions} decisions, {errors}, {_mwc(c.mwc_lost)} MWC " \
               f"lost, {loss} mEMG lost per cube decision"  # fmt: skip
        if s is not None and m.plays:
            adj = s.luck_adjusted_result
            adjusted = _mwc(adj) if m.length else f"{adj:+.3f}"
            more += (f"; luck {s.luck_emg:+.3f} EMG ({_mwc(s.luck_mwc)} MWC), luck-adjusted "
                     f"result {adjusted}")
        lines.append(more)
    return lines


def _print(result: Any, shown: str = "marked", table: bool = False) -> None:
    for m in result.matches:
        length = f"{m.length}-point match" if m.length else "money session"
        print(f"{m.file}: {m.players[0]} v {m.players[1]}, {length}; engine {m.engine.text()}; "
              f"MET {m.met}")  # fmt: skip
        rows = _rows(m, shown)
        if rows:
            print(f"  {'game':>4} {'move':>4}  {'player':12} {'score':>8} {'cube':>4}  "
                  f"{'decision':26} {'best':22} {'EMG':>6} {'MWC':>7}  {'mark':9} "
                  f"position:match ID")  # fmt: skip
        for _, line in rows:
            print(line)
        for line in _summary(m):
            print(line)
        if m.compare_met is not None:
            print(f"  under {m.compare_met}: {len(m.compare)} verdict(s) change")
            for c in m.compare:
                print(f"    game {c.game} move {c.move} {c.player} ({c.taken}): "
                      f"best {c.best} -> {c.compare_best}")
        for line in _rollout_lines(m):
            print(line)
        if table and m.statistics is not None:
            print()
            print(m.statistics_text())


def _rollout_lines(m: Any) -> list[str]:
    """The re-checked errors: the audit's verdict beside the rollout's."""
    if m.rollouts is None:
        return []
    if not m.rollouts:
        return ["  rollouts: no cube error to re-check"]
    c0 = m.rollouts[0]
    lines = [f"  rollouts of the {len(m.rollouts)} costliest cube error(s) ({c0.trials} trials "
             f"each, {c0.engine}; +- one standard error):"]  # fmt: skip
    for c in m.rollouts:
        mwc = c.unit == "mwc"
        lines.append(
            f"    game {c.game} move {c.move} {c.player} ({c.kind}: {c.taken}): audit "
            f"{c.audit_best} ({c.audit_action}); rollout {c.best} ({c.action}), ND "
            f"{_value(c.no_double, mwc)} +- {_se(c.no_double_stderr, mwc)}, DT "
            f"{_value(c.double_take, mwc)} +- {_se(c.double_take_stderr, mwc)}, DP "
            f"{_value(c.double_pass, mwc)}, DT-ND {(100 if mwc else 1) * c.difference:+.2f} +- "
            f"{_se(c.difference_stderr, mwc)}: {c.verdict}")  # fmt: skip
    return lines


def _value(v: float, mwc: bool) -> str:
    return f"{100 * v:.2f}%" if mwc else f"{v:+.3f}"


def _se(v: float, mwc: bool) -> str:
    return f"{100 * v:.2f}" if mwc else f"{v:.3f}"
