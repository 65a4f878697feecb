"""``mathbg audit``: every cube decision of real matches, judged at its score."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_command,
    add_decimals,
    add_engine_argument,
    add_force,
    check_output,
    load_met,
    print_json,
    save_figure,
)

DESCRIPTION = """\
Replay match files (.mat in its dialects, gnubg .sgf) and audit every cube decision: each
turn where the player about to roll could double (doubled or not) and each double
received (taken or passed). The engine's cubeless chances of the position become the no
double / double-take / double-pass values at the match score and cube with gnubg 1.07's
0-ply transformation under the MET; the decision taken is compared with the right one.
Errors are printed in EMG (normalised to the cube, as gnubg prints them) and MWC, with
gnubg's categories (missed double, wrong double, wrong take, wrong pass; too good). In a
bearoff of <= 6 checkers a side the exact match solver's answer is given beside.

Error rate: 1000 x the EMG lost / the decisions audited (mEMG per cube decision; gnubg
divides by its close decisions only, XG's PR is 500 x per non-obvious decision)."""

EPILOG = """\
examples:
  mathbg audit match.mat
  mathbg audit match.mat --engine gnubg-nn --met kazaross-xg2 --compare-met woolsey
  mathbg audit matches/*.txt --player lasse --json
  mathbg audit match.mat --csv decisions.csv --plot match.png"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``audit`` subcommand."""
    p = add_command(subparsers, "audit", help="the cube decisions of real matches, judged",
                    description=DESCRIPTION, epilog=EPILOG)  # fmt: skip
    p.add_argument("files", nargs="+", metavar="FILE", help="match files (.mat, .txt, .sgf)")
    add_engine_argument(p, "where the cubeless chances come from", "evaluate")
    p.add_argument("--plies", type=int, metavar="K", help="gnubg-nn / gnubg plies (default 0)")
    p.add_argument("--met", default="kazaross-xg2", metavar="NAME",
                   help="match equity table (default kazaross-xg2)")  # fmt: skip
    p.add_argument("--compare-met", metavar="NAME",
                   help="a second MET: the decisions whose verdict changes")  # fmt: skip
    p.add_argument("--player", metavar="NAME", help="only this player's decisions")
    p.add_argument("--no-exact", action="store_true",
                   help="skip the exact bearoff match solver")  # fmt: skip
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--csv", metavar="OUT", help="write one row per decision to OUT")
    p.add_argument("--all", action="store_true",
                   help="text output: list every decision, not only the errors")  # fmt: skip
    p.add_argument("--plot", metavar="FILE",
                   help="draw the first match's MWC along its cube decisions to FILE")  # fmt: skip
    add_decimals(p)
    add_force(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg audit``."""
    check_output(args.plot, args.force)
    check_output(args.csv, args.force, marked=False)
    from mathbg.analysis.match_audit import audit

    result = audit(args.files, engine=args.engine, plies=args.plies, met=load_met(args.met),
                   compare_met=load_met(args.compare_met) if args.compare_met else None,
                   player=args.player, exact=not args.no_exact)  # fmt: skip
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
    if args.json:
        print_json(result.as_dict(), decimals=args.decimals)
        return 0
    _print(result, every=args.all)
    return 0


def _mwc(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


def _print(result: Any, every: bool = False) -> None:
    for m in result.matches:
        length = f"{m.length}-point match" if m.length else "money session"
        engine = m.engine["name"] + ("" if m.engine["plies"] is None
                                     else f" {m.engine['plies']}-ply")  # fmt: skip
        print(f"{m.file}: {m.players[0]} v {m.players[1]}, {length}; engine {engine}, "
              f"MET {m.met}")  # fmt: skip
        shown = [d for d in m.decisions if every or d.is_error]
        if shown:
            print(f"  {'game':>4} {'move':>4}  {'player':14} {'score':>9} {'cube':>4}  "
                  f"{'taken':10} {'best':10} {'EMG':>7} {'MWC':>7}  category / exact")
        for d in shown:
            score = "money" if d.away is None else f"{d.away[0]}a/{d.away[1]}a"
            extra = d.category or ""
            if d.values.exact is not None:
                extra += f"  [exact: {d.exact_best}, {_mwc(d.exact_error_mwc)}]"
            print(f"  {d.game:>4} {d.move:>4}  {d.player[:14]:14} {score:>9} {d.cube:>4}  "
                  f"{d.taken:10} {d.best:10} {d.error_emg:7.3f} {_mwc(d.error_mwc):>7}  "
                  f"{extra}")  # fmt: skip
        for name, t in m.summary().items():
            rate = "-" if t["error_rate"] is None else f"{t['error_rate']:.1f}"
            print(f"  {name}: {t['decisions']} cube decisions, {t['errors']} errors, "
                  f"{_mwc(t['mwc_lost'])} MWC lost, error rate {rate} mEMG/decision")
        if m.compare_met is not None:
            print(f"  under {m.compare_met}: {len(m.compare)} verdict(s) change")
            for c in m.compare:
                print(f"    game {c['game']} move {c['move']} {c['player']} ({c['taken']}): "
                      f"best {c['best']} -> {c['compare_best']}")
