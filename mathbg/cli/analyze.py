"""``mathbg analyze``: a position's cube action at every score of a match."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mathbg.cli._args import (
    add_decimals,
    add_engine_argument,
    add_force,
    add_met_argument,
    add_money_rules,
    check_output,
    extension_note,
    load_met,
    parse_probs,
    print_json,
    save_figure,
)
from mathbg.cli.rollout import add_analyze_rollout, analyze_rollout, check_analyze_rollout

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.matrix import MatrixOptions

HELP = "a position's cube action at every score"
DESCRIPTION = """\
The cube action of the side on roll at every score of a match (roller A-away, opponent
B-away; the Crawford game and post-Crawford where a side is 1-away), the 1-cube centred
and, with --max-cube, each higher cube owned by the roller while it still matters; money
play (Jacoby, beavers) as its own row.

Each row: no double / double-take / double-pass / optimal MWC (money: equity per unit
cube), the action as `mathbg cube decide` names it, the taker's take point and the margin
of the taker's chances over it. The cubeless chances come from an engine (--engine, the
choices below).
The cubeless -> cubeful step is gnubg 1.07's 0-ply transformation with gnubg's cube life
for the position class (contact 0.68, race 0.55 + 0.00125 pips in [0.6, 0.7], bearoff
0.6) unless --cube-life. In a bearoff of <= 6 checkers a side the exact match-play solver's
action stands beside the approximation, flagged where they differ.

POSITION is a gnubg Position ID, POSID:MATCHID or an XGID; a Match ID or XGID gives the
match length and marks (*) the row of its score and cube state (added when the matrix
does not list it: an opponent-owned cube, a cube above --max-cube; money play: the ID's
owned cube beside the centred one, in the JSON as "money_current"). A money ID's rules
(a Match ID's Jacoby flag, an XGID's rules field) hold for the money rows, as for a
rollout of the ID; --no-jacoby and --no-beavers turn a rule off."""

EPILOG = """\
examples:
  mathbg analyze 4HPwATDgc/ABMA --length 7 --probs 0.70,0.20,0.01,0.05,0.002
  mathbg analyze 4HPwATDgc/ABMA --length 7 --engine gnubg-nn --max-cube 2 --json
  mathbg analyze 4HPwATDgc/ABMA:cAmgAAAAAAAA --compare-met woolsey
  mathbg analyze AwAAWAAAAAAAAA --length 5 --engine exact --plot matrix.png
  mathbg analyze --file ids.txt --length 7 --csv out.csv"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``analyze`` command's arguments and handler."""
    from mathbg.analysis.registry import engines

    p.add_argument("position", nargs="?", metavar="POSITION",
                   help="gnubg Position ID, POSID:MATCHID or XGID")  # fmt: skip
    where = p.add_mutually_exclusive_group()
    where.add_argument("--length", type=int, metavar="N", help="match length (1..128)")
    where.add_argument("--money", action="store_true", help="money play only")
    add_engine_argument(p, "where the cubeless chances come from", "evaluate", "fixed")
    p.add_argument("--probs", metavar="W,WG,WB,LG,LB",
                   help="given chances of the side on roll, cumulative gammons (as gnubg "
                   "prints them); implies --engine given")  # fmt: skip
    p.add_argument("--plies", type=int, metavar="K", help="gnubg-nn / gnubg plies (default 0)")
    p.add_argument("--cube-eval", choices=("mathbg", "engine"), default="mathbg",
                   help="cube values: mathbg's 0-ply cubeless -> cubeful step on the engine's "
                   "chances (default), or the engine's own --plies cubeful evaluation at each "
                   "score (engines that take their own cube decisions: "
                   f"{', '.join(engines('cubeful'))}; gnubg's is its hint, under its default "
                   "MET)")  # fmt: skip
    add_met_argument(p)
    p.add_argument("--compare-met", metavar="NAME",
                   help="a second MET: the scores where the action changes")  # fmt: skip
    p.add_argument("--cube-life", type=float, metavar="X",
                   help="cube life for every row (default gnubg's by position class)")  # fmt: skip
    p.add_argument(
        "--max-cube",
        type=int,
        default=1,
        metavar="C",
        help="highest roller-owned cube in the matrix (default 1: centred only)",
    )
    p.add_argument("--no-exact", action="store_true",
                   help="skip the exact bearoff match solver")  # fmt: skip
    add_money_rules(p)
    p.add_argument("--plot", metavar="FILE", help="draw the action grid to FILE")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_decimals(p)
    p.add_argument("--file", metavar="IDS.txt", help="batch: one position per line")
    p.add_argument("--csv", metavar="OUT", help="batch: write every row to this CSV file")
    add_analyze_rollout(p)  # issue 31: --rollout N (mathbg.cli.rollout)
    add_force(p)


def _probs(text: str | None) -> list[float] | None:
    if text is None:
        return None
    return parse_probs(text)


def _options(args: argparse.Namespace) -> MatrixOptions:
    from mathbg.analysis.matrix import MatrixOptions

    probs = _probs(args.probs)
    engine = "given" if probs is not None and args.engine == "auto" else args.engine
    return MatrixOptions(
        length=args.length,
        money=args.money,
        engine=engine,
        probabilities=probs,
        plies=args.plies,
        met=load_met(args.met),
        compare_met=load_met(args.compare_met) if args.compare_met else None,
        cube_life=args.cube_life,
        max_cube=args.max_cube,
        exact=not args.no_exact,
        jacoby=not args.no_jacoby,
        beavers=not args.no_beavers,
        disk_cache=True,
        cube_eval=args.cube_eval,
    )


def _read_ids(path: str) -> list[str]:
    from mathbg._validate import read_text
    from mathbg.errors import InvalidIdError

    lines = [ln.strip() for ln in read_text(path).splitlines()]
    ids = [ln for ln in lines if ln and not ln.startswith("#")]
    if not ids:
        raise InvalidIdError(f"{path}: no position IDs (one per line)")
    return ids


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg analyze``."""
    from mathbg.errors import InvalidParameterError

    if args.file is not None:
        if args.position is not None:
            raise InvalidParameterError("give either POSITION or --file, not both")
        return _run_batch(args)
    if args.position is None:
        raise InvalidParameterError("give a POSITION (or --file IDS.txt)")
    if args.csv is not None:
        raise InvalidParameterError("--csv goes with --file")
    check_output(args.plot, args.force)
    check_analyze_rollout(args)
    from mathbg.analysis.matrix import analyze

    options = _options(args)
    result = analyze(args.position, options, exact_progress=True)
    extension_note(options.met, result.length)
    if args.plot:
        from mathbg.cli._args import pyplot

        pyplot()
        from mathbg.plots import cube_action_grid

        ax = cube_action_grid(result)
        save_figure(ax.figure, args.plot, force=args.force)
    if args.rollout is not None:
        return analyze_rollout(result, args, _print)
    if args.json:
        print_json(result.as_dict(), decimals=args.decimals)
        return 0
    _print(result)
    return 0


def _run_batch(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from mathbg.analysis.evaluation import as_position
    from mathbg.analysis.matrix import analyze_many
    from mathbg.errors import InvalidParameterError, MathbgError

    if args.csv is None and not args.json:
        raise InvalidParameterError("batch mode writes --csv OUT (or --json)")
    ids = _read_ids(args.file)
    for k, text in enumerate(ids, 1):  # every line checked before any work
        try:
            as_position(text)
        except MathbgError as exc:
            raise type(exc)(f"{args.file} line {k}: {exc}") from None
    check_output(args.csv, args.force, marked=False)  # before the work
    options = _options(args)
    with tqdm(total=len(ids), desc="analyze", unit="pos", disable=None) as bar:
        last = [0]

        def step(done: int) -> None:
            bar.update(done - last[0])
            last[0] = done

        results = analyze_many(ids, options, progress=step)
    if args.csv is not None:
        import pandas as pd

        frame = pd.concat([r.to_frame() for r in results], ignore_index=True)
        from mathbg._files import never_ours, output_file
        from mathbg._output import format_number

        with output_file(args.csv, what="CSV file", force=args.force, is_ours=never_ours) as tmp:
            frame.to_csv(tmp, index=False,
                         float_format=lambda v: format_number(v, args.decimals))  # fmt: skip
    if args.json:
        print_json([r.as_dict() for r in results], decimals=args.decimals)
    return 0


def _pct(v: Any, unit: str) -> str:
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{100 * v:6.2f}%" if unit == "mwc" else f"{v:+.4f}"


def _print(result: Any) -> None:
    ev = result.evaluation
    p = ev.probabilities
    # what was computed: the engine's n-ply cubeless chances, then gnubg's 0-ply cubeless ->
    # cubeful step at each score (not gnubg's own n-ply cubeful analysis)
    plies = "" if ev.plies is None else f", {ev.plies}-ply cubeless chances, 0-ply cube step"
    if result.cube_eval == "engine":
        plies = f", {ev.engine}'s own {ev.plies}-ply cubeful evaluation at each score"
    print(f"position {result.position} ({ev.evaluation_class}); engine {ev.engine}{plies}")
    head = "chances" if result.cube_eval != "engine" else "cubeless chances (not used by the rows)"
    print(head + ": win {:.2f}% (gammon {:.2f}%, backgammon {:.2f}%), lose gammon {:.2f}% "
          "(backgammon {:.2f}%)".format(*(100 * v for v in p)))  # fmt: skip
    if result.money_rules != (True, True):  # the options' or a money ID's rules field
        jacoby, beavers = result.money_rules
        print(f"money play: {'the Jacoby rule' if jacoby else 'no Jacoby rule'}, "
              f"{'beavers' if beavers else 'no beavers'}")
    if result.length is not None:
        print(f"{result.length}-point match, MET {result.met}; MWC of the side on roll")
    head = (f"{'score':>11} {'cube':>11} {'x':>5}  {'action':18} {'ND':>8} {'DT':>8} {'DP':>8}"
            f" {'TP':>7} {'margin':>7}  exact")  # fmt: skip
    print(head)
    for row in result.rows:
        if row.state == "money":
            score = "money"
        else:
            score = f"{row.away[0]}a/{row.away[1]}a" + (" C" if row.crawford else "")
        cube = f"{row.cube} {row.owner}"
        unit = row.unit
        exact = ""
        if row.exact_action is not None:
            exact = str(row.exact_action) + (" (differs)" if row.exact_differs else "")
        mark = "*" if row.current else " "
        tp = "-" if row.take_point != row.take_point else f"{100 * row.take_point:.1f}%"
        mg = "-" if row.take_margin != row.take_margin else f"{100 * row.take_margin:+.1f}"
        x = "    -" if row.cube_life != row.cube_life else f"{row.cube_life:5.3f}"
        if row.engine_action is not None:
            exact = f"{row.engine}: {row.engine_action}" + (f"; exact {exact}" if exact else "")
        print(f"{mark}{score:>10} {cube:>11} {x}  {row.action!s:18} "
              f"{_pct(row.no_double, unit):>8} {_pct(row.double_take, unit):>8} "
              f"{_pct(row.double_pass, unit):>8} {tp:>7} {mg:>7}  {exact}")  # fmt: skip
    if result.compare is not None:
        changes = result.met_changes()
        print(f"under {result.compare.met}: {len(changes)} row(s) change action")
        for r in changes.itertuples():
            where = f"{r.away}a/{r.opp_away}a" + (" Crawford" if r.crawford else "")
            print(f"  {where}, cube {r.cube} {r.owner}: {r.action} -> {r.compare_action}")
