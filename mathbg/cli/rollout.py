"""``mathbg rollout``: a cubeful rollout of a position at a match score, or at every score."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from mathbg.cli._args import (
    add_decimals,
    add_engine_argument,
    add_force,
    add_met_argument,
    add_money_rules,
    add_owner_argument,
    add_scheduler_argument,
    add_seed_argument,
    check_output,
    held_warnings,
    load_met,
    parse_pair,
    print_json,
    save_figure,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.rollouts import RolloutMatrix, RolloutResult

HELP = "a cubeful rollout at a match score (or at every score of a match)"
DESCRIPTION = """\
Roll POSITION (the player on roll, before rolling) out many times with cube play at the
score for both sides: each line (no double: the position's cube; double/take: the cube
doubled, owned by the opponent) played on the same dice, so the difference between them
has the small error of a paired comparison. Prints each line's cubeful MWC (money: equity
per unit of the cube) and EMG with its standard error, the cubeless chances, how often
each side doubled, took and passed, DT - ND with the standard error of the difference,
and the cube action they make.

Checker play: the engine's candidates at --plies, ranked by cubeless value at the score's
gammon values. Cube decisions inside the trials: mathbg's 0-ply cubeless -> cubeful step
at the score on the engine's chances (Crawford, post-Crawford, dead cubes and the cube
limit as gnubg's rules). Variance reduction (gnubg's lookahead: the luck of every roll
against the 21 rolls at 0 ply, in MWC at the score) unless --no-variance-reduction; the
first two rolls rotate through the 36 x 36 pairs (trials are a multiple of 36); a trial
reaching a bearoff of <= 6 checkers a side ends with the exact solver's value (a single
score's two solutions are kept in mathbg's cache directory, $MATHBG_DATA if set, about
70 MB each, and read by later runs at that score). Money play follows gnubg's money rules
unless told otherwise: the Jacoby rule (a gammon counts one point while the cube is centred;
--no-jacoby) and beavers (a double the taker would beaver is not made; --no-beavers), as
analyze's money row does.

POSITION is a gnubg Position ID, POSID:MATCHID or XGID; a Match ID or XGID gives the
score, cube and owner (--away, --cube, --owner override them; its dice, if rolled, are not
used: a warning says so). --matrix --length N rolls
the position out at every score where the roller may double (cube 1 centred), beside
analyze's 0-ply matrix; --plot draws where they differ. --store keeps the finished trials:
a killed run started again with the same options resumes to the same bits."""

EPILOG = """\
examples:
  mathbg rollout 4HPwATDgc/ABMA --away 3,5 --trials 1296
  mathbg rollout 4HPwATDgc/ABMA --away 3,5 --target-se 0.002 --scheduler local:2
  mathbg rollout 4HPwATDgc/ABMA --away 3,5 --cube 2 --owner player --plies 1 --json
  mathbg rollout 4HPwATDgc/ABMA --money --trials 648 --store run1
  mathbg rollout 4HPwATDgc/ABMA --money --no-jacoby --trials 648
  mathbg rollout 4HPwATDgc/ABMA --matrix --length 5 --trials 144 --plot matrix.png"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``rollout`` command's arguments."""
    p.add_argument("position", metavar="POSITION",
                   help="gnubg Position ID, POSID:MATCHID or XGID")  # fmt: skip
    score = p.add_mutually_exclusive_group()
    score.add_argument("--away", metavar="A,B",
                       help="the score: points the player on roll and the opponent "
                       "need")  # fmt: skip
    score.add_argument("--money", action="store_true", help="money play")
    score.add_argument("--matrix", action="store_true",
                       help="every score of a --length N match (cube 1 centred)")  # fmt: skip
    p.add_argument("--length", type=int, metavar="N", help="with --matrix: the match length")
    p.add_argument("--cube", type=int, metavar="C",
                   help="cube value (default 1, or the Match ID's)")  # fmt: skip
    add_owner_argument(p, "cube owner (default centre, or the Match ID's)", default=None)
    p.add_argument("--crawford", action="store_true", help="the Crawford game (a side 1-away)")
    p.add_argument("--cube-limit", type=int, metavar="C", help="largest cube value")
    add_money_rules(p)
    add_met_argument(p)
    add_engine_argument(p, "the checker player", "play")
    p.add_argument("--plies", type=int, default=0, metavar="K",
                   help="the engine's plies (default 0)")  # fmt: skip
    count = p.add_mutually_exclusive_group()
    count.add_argument("--trials", type=int, metavar="N",
                       help="trials (default 1296; rounded up to a multiple of 36)")  # fmt: skip
    count.add_argument("--target-se", type=float, metavar="SE",
                       help="play until every line's standard error is at most SE (MWC as a "
                       "fraction: 0.002 is 0.2 pp; money: equity)")  # fmt: skip
    p.add_argument("--max-trials", type=int, metavar="N",
                   help="with --target-se: at most N trials (default 3600000); the output "
                   "says whether the target was reached")  # fmt: skip
    add_seed_argument(p)
    p.add_argument("--no-variance-reduction", action="store_true",
                   help="no lookahead (plain trials)")  # fmt: skip
    p.add_argument("--truncate", choices=("exact", "race", "none"), default="exact",
                   help="end a trial at the exact bearoff solver (default), at the first race "
                   "(the race evaluator), or never")  # fmt: skip
    p.add_argument("--lines", metavar="LINE,LINE",
                   help="no_double and/or double_take (default both where the player may "
                   "double)")  # fmt: skip
    add_scheduler_argument(p, "the batches of trials")
    p.add_argument("--store", metavar="DIR_OR_URL", help="keep finished trials here (resume)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--csv", metavar="OUT", help="write the lines (or the matrix) as CSV")
    p.add_argument("--plot", metavar="FILE", help="with --matrix: draw the rollout grid")
    add_decimals(p)
    add_force(p)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The rollout's keyword options from the command line."""
    from mathbg.errors import InvalidParameterError

    if args.max_trials is not None and args.target_se is None:
        raise InvalidParameterError("--max-trials goes with --target-se")
    rules = [f for f in ("no_jacoby", "no_beavers") if getattr(args, f)]
    if rules and (args.matrix or args.away is not None):
        raise InvalidParameterError(
            f"{' and '.join('--' + f.replace('_', '-') for f in rules)}: money play's rules "
            f"(--money, or a money Match ID), not at a match score"
        )
    lines = None
    if args.lines is not None:
        lines = tuple(p.strip() for p in args.lines.split(",") if p.strip())
    opts: dict[str, Any] = {
        "met": load_met(args.met), "engine": args.engine, "plies": args.plies,
        "trials": args.max_trials if args.target_se is not None else args.trials,
        "target_se": args.target_se, "seed": args.seed,
        "variance_reduction": not args.no_variance_reduction,
        "truncate": None if args.truncate == "none" else args.truncate,
        "cube_limit": args.cube_limit,
    }  # fmt: skip
    if args.no_jacoby:
        opts["jacoby"] = False
    if args.no_beavers:
        opts["beavers"] = False
    if args.matrix:
        given = [f for f in ("cube", "owner", "lines") if getattr(args, f) is not None]
        if given or args.crawford:
            raise InvalidParameterError(
                f"--matrix rolls out cube 1 centred at every score: drop "
                f"{', '.join('--' + g for g in given + (['crawford'] if args.crawford else []))}"
            )
        return opts
    if args.length is not None:
        raise InvalidParameterError("--length goes with --matrix (a single score: --away A,B)")
    away: Any = None
    if args.away is not None:
        away = parse_pair(args.away, "--away", int, one_for_both=False)
    elif args.money:
        away = "money"
    opts.update(away=away, cube=args.cube, owner=args.owner, lines=lines,
                crawford=True if args.crawford else None)  # fmt: skip
    return opts


def _note_rounding(notes: list[str], trials: int | None, made: int,
                   flag: str = "--trials") -> None:  # fmt: skip
    if trials is not None and trials != made:
        notes.append(f"mathbg rollout: note: {flag} {trials} rounded up to {made} (a multiple "
                     "of the 36 first rolls the dice rotation plays in equal numbers)")


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg rollout``: its notes and warnings are printed once the rollout
    is done, so that a refused command prints its one line only."""
    notes: list[str] = []
    with held_warnings():
        code = _run(args, notes)
    for line in notes:
        print(line, file=sys.stderr)
    return code


def _run(args: argparse.Namespace, notes: list[str]) -> int:
    from mathbg._dask import dask_client, local_workers
    from mathbg.analysis.rollouts import RolloutOptions, rollout, rollout_matrix
    from mathbg.errors import InvalidParameterError

    opts = _options(args)
    if args.plot is not None and not args.matrix:
        raise InvalidParameterError("--plot draws the --matrix grid")
    check_output(args.csv, args.force, marked=False)
    progress = sys.stderr.isatty()
    if args.matrix:
        if args.length is None:
            raise InvalidParameterError("--matrix needs --length N")
        from mathbg.analysis.rollouts.matrix import matrix_scores

        cap = None
        for s in matrix_scores(args.length) if 2 <= args.length <= 25 else []:  # checked
            cap = RolloutOptions(args.position, away=s, cube=1, owner="centre", crawford=False,
                                 **opts).total_trials  # fmt: skip
        with dask_client(args.scheduler) as client:
            # no disk cache: every score's two exact solutions would be kept (2-4 GB for
            # a 7-point matrix) to save a minute or so of a long run
            matrix = rollout_matrix(args.position, args.length, client=client,
                                    store=args.store, progress=progress, **opts)  # fmt: skip
        if cap is not None:
            _note_rounding(notes, opts["trials"], cap,
                           "--trials" if opts["target_se"] is None else "--max-trials")  # fmt: skip
        return _emit_matrix(matrix, args)
    made = RolloutOptions(args.position, **opts)  # bad input stops here, before any work
    _note_rounding(notes, opts["trials"], made.total_trials,
                   "--trials" if opts["target_se"] is None else "--max-trials")  # fmt: skip
    scheduler = args.scheduler
    if scheduler is not None and local_workers(scheduler) and made.total_trials <= (
            made.batch_size):  # fmt: skip
        # one batch has nothing to share out: a LocalCluster would add only its start-up
        # (about a second and a half); a scheduler at an address is used as asked
        notes.append(f"mathbg rollout: note: {made.total_trials} trials are one batch: played "
                     "in this process, without starting the LocalCluster (the same numbers)")
        scheduler = None
    with dask_client(scheduler) as client:
        result = rollout(made, client=client, store=args.store, progress=progress,
                         disk_cache=True)  # fmt: skip
    return _emit(result, args)


def _write_csv(frame: Any, args: argparse.Namespace) -> None:
    from mathbg._files import never_ours, output_file
    from mathbg._output import format_number

    with output_file(args.csv, what="CSV file", force=args.force, is_ours=never_ours) as tmp:
        frame.to_csv(tmp, index=False, float_format=lambda v: format_number(v, args.decimals))


def _emit(result: RolloutResult, args: argparse.Namespace) -> int:
    if args.json:
        print_json(result.as_dict(), decimals=args.decimals)
        return 0
    if args.csv:
        _write_csv(result.to_frame(), args)
    print(describe(result))
    return 0


def _value(v: float | None, unit: str) -> str:
    if v is None or v != v:
        return "-"
    return f"{100 * v:7.2f}%" if unit == "mwc" else f"{v:+8.4f}"


def _err(v: float, unit: str) -> str:
    if v != v:
        return "-"
    return f"±{100 * v:.2f}" if unit == "mwc" else f"±{v:.4f}"


def describe(result: RolloutResult) -> str:
    """The rollout in words and a table (the command's text output).

    Parameters
    ----------
    result : RolloutResult
        A finished rollout: its position, score, cube and lines with their values.

    Returns
    -------
    str
        The position and score, the rollout's settings, a row per line (value, standard
        error, chances, cube events), the differences between lines and the cube action.
    """
    r, u = result, result.unit
    score = "money" if r.away is None else f"{r.away[0]}-away/{r.away[1]}-away"
    if r.away is None:
        score += (f" ({'Jacoby' if r.jacoby else 'no Jacoby'}, "
                  f"{'beavers' if r.beavers else 'no beavers'})")  # fmt: skip
    score += " (Crawford game)" if r.crawford else ""
    met = f"; MET {r.met}" if r.met else ""
    vr = "variance reduction" if r.variance_reduction else "no variance reduction"
    trunc = {"exact": "truncated at the exact bearoff solver", "race": "truncated at the first "
             "race", None: "played out"}[r.truncate]  # fmt: skip
    what = "MWC" if u == "mwc" else "equity"
    out = [f"position {r.position}, {score}, cube {r.cube} {r.owner}{met}",
           f"rollout: {r.engine}, {r.trials} trials, seed {r.seed}, {vr}, {trunc}",
           f"{'line':12} {what:>8} {'SE':>7} {'EMG':>8}   win  gammon  bg   lose-g  bg"
           "   doubled P/O  passed P/O"]  # fmt: skip
    for ln in r.lines:
        w, wg, wb, lg, lb = (100 * c for c in ln.chances)
        ev = ln.events
        out.append(f"{ln.line:12} {_value(ln.value, u):>8} {_err(ln.stderr, u):>7} "
                   f"{ln.emg:+8.4f} {w:5.1f} {wg:6.1f} {wb:4.1f} {lg:7.1f} {lb:4.1f}"
                   f"   {100 * ev.player_doubled:4.0f}%/{100 * ev.opponent_doubled:3.0f}%"
                   f" {100 * ev.player_passed:4.0f}%/{100 * ev.opponent_passed:3.0f}%")  # fmt: skip
    for d in r.differences:
        scale, unit = (100.0, " pp") if u == "mwc" else (1.0, "")
        out.append(f"{d.second} - {d.first}: {scale * d.value:+.2f}{unit} ± "
                   f"{scale * d.stderr:.2f} (paired; unpaired ± {scale * d.unpaired_stderr:.2f})")
    if r.decision is not None:
        out.append(f"double/pass {_value(r.decision.double_pass, u).strip()}; "
                   f"action: {r.decision.action}")  # fmt: skip
    if r.target_se is not None:
        worst = _err(max(ln.stderr for ln in r.lines), u)
        out.append(f"target SE {_err(r.target_se, u)}: reached (the largest line's SE {worst})"
                   if r.target_reached else
                   f"target SE {_err(r.target_se, u)}: NOT reached; stopped at the cap of "
                   f"{r.trials} trials (--max-trials) with the largest line's SE {worst}")
    return "\n".join(out)


def _emit_matrix(matrix: RolloutMatrix, args: argparse.Namespace) -> int:
    if args.plot:
        from mathbg.cli._args import pyplot

        pyplot()
        from mathbg.plots import rollout_grid

        ax = rollout_grid(matrix)
        save_figure(ax.figure, args.plot, force=args.force)
    if args.json:
        print_json(matrix.as_dict(), decimals=args.decimals)
        return 0
    if args.csv:
        _write_csv(matrix.to_frame(), args)
    target = matrix.target_se
    counts = sorted({row.rollout.trials for row in matrix.rows})
    trials = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    goal = "" if target is None else f" (target SE {_err(target, 'mwc')} pp)"
    print(f"position {matrix.position}, {matrix.length}-point match, MET {matrix.met}; "
          f"{matrix.engine}, {trials} trials a score{goal}; MWC of the roller, cube 1 centred")
    print(f"{'score':>7}  {'rollout':18} {'ND':>7} {'DT':>7} {'DP':>7} {'DT-ND':>13}"
          f"  {'0-ply':18}" + ("  trials" if target is not None else ""))  # fmt: skip
    for row in matrix.rows:
        d: dict[str, Any] = row.as_dict()
        mark = " *" if row.differs else "  "
        if target is not None:
            mark += f" {d['trials']:>6}" + ("" if d["target_reached"] else " !")
        print(f"{d['away']:>3}a/{d['opp_away']}a{'' if d['opp_away'] > 9 else ' '} "
              f"{d['action']:18} {100 * d['no_double']:6.2f}% {100 * d['double_take']:6.2f}% "
              f"{100 * d['double_pass']:6.2f}% {100 * d['dt_minus_nd']:+6.2f}±"
              f"{100 * d['dt_minus_nd_stderr']:4.2f}  {d['zero_ply_action']:18}{mark}".rstrip())
    n = len(matrix.differences())
    print(f"* the rollout's action differs from the 0-ply one: {n} of {len(matrix.rows)} scores")
    if target is not None:
        short = len(matrix.short_of_target())
        print(f"! the trial cap came before the target SE: {short} of {len(matrix.rows)} scores")
    return 0


# ----------------------------------------------------------------------------- analyze's hook


def add_analyze_rollout(p: argparse.ArgumentParser) -> None:
    """``mathbg analyze --rollout N``: the option (the rollout matrix beside the analysis)."""
    p.add_argument("--rollout", type=int, metavar="N",
                   help="also roll POSITION out at every score of the match, N trials a "
                   "score (the native engine at 0 plies, gnubg-nn at --plies 1 or more; "
                   "variance reduction; as mathbg rollout --matrix), beside the 0-ply "
                   "matrix")  # fmt: skip


def check_analyze_rollout(args: argparse.Namespace) -> None:
    """Refuse a bad ``analyze --rollout`` before any work (one line, exit 2)."""
    from mathbg.analysis.rollouts import RolloutOptions
    from mathbg.errors import InvalidParameterError

    if args.rollout is None:
        return
    if args.file is not None or args.money:
        raise InvalidParameterError(
            "--rollout rolls one POSITION out at the scores of a match (money play: mathbg "
            "rollout POSITION --money)")
    if args.plot:
        raise InvalidParameterError("--rollout draws no plot here: mathbg rollout --matrix --plot")
    RolloutOptions(args.position, away=None, trials=args.rollout, met=load_met(args.met),
                   plies=args.plies or 0)  # fmt: skip


def analyze_rollout(result: Any, args: argparse.Namespace, show: Any) -> int:
    """Print ``analyze``'s result (``show`` it, or its JSON) and the rollout matrix of the
    same position and match length beside it (JSON: ``{"analysis": ..., "rollout": ...}``).
    """
    from mathbg.analysis.rollouts import rollout_matrix
    from mathbg.errors import InvalidParameterError

    if result.length is None:
        raise InvalidParameterError(
            "--rollout rolls the position out at every score of a match: give a match length "
            "(--length N); a money position rolls out with: mathbg rollout POSITION --money")
    matrix = rollout_matrix(args.position, int(result.length), trials=args.rollout,
                            met=load_met(args.met), plies=args.plies or 0,
                            progress=sys.stderr.isatty())  # fmt: skip
    if args.json:
        doc = {"analysis": result.as_dict(), "rollout": matrix.as_dict()}
        print_json(doc, decimals=args.decimals)
        return 0
    show(result)
    print()
    return _emit_matrix(matrix, args)
