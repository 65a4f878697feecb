"""``mathbg bearoff match``: the exact cube decision of a bearoff at a match score.

Registered by :mod:`mathbg.cli.bearoff`; the solver (:mod:`mathbg.bearoff.exact.match`) is
imported only when the command runs.
"""

from __future__ import annotations

import argparse

from mathbg.cli._args import (
    add_decimals,
    add_owner_argument,
    load_met,
    parse_counts,
    parse_pair,
    print_json,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mathbg bearoff match``."""
    parser.add_argument("roller", metavar="ROLLER", help="roller's checkers on points 1..6")
    parser.add_argument("opponent", metavar="OPPONENT", help="opponent's checkers on 1..6")
    parser.add_argument(
        "--away",
        required=True,
        metavar="A,B",
        help="points the roller and the opponent need (a 1-away side: post-Crawford "
        "unless --crawford)",
    )
    parser.add_argument("--cube", type=int, default=1, help="cube value (default 1)")
    add_owner_argument(parser, "who holds the cube: player = the roller (default centre)")
    parser.add_argument("--crawford", action="store_true", help="this is the Crawford game")
    parser.add_argument(
        "--met",
        default="kazaross-xg2",
        help="MET: shipped table, model or file (.xml, .met, .json; default kazaross-xg2)",
    )
    parser.add_argument(
        "--checkers", type=int, help="checkers per side of the solved space (default 6 or more)"
    )
    parser.add_argument(
        "--cache", action="store_true", help="keep the solved score on disk (CACHE/bearoff/match)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(parser)


def run(args: argparse.Namespace) -> int:
    """Solve (or look up) the score and print the decision."""
    from mathbg.bearoff.exact.match import match_equity

    roller = parse_counts(args.roller)
    opponent = parse_counts(args.opponent)
    eq = match_equity(
        roller,
        opponent,
        away=parse_pair(args.away, "--away", int, one_for_both=False),
        cube=args.cube,
        owner=args.owner,
        crawford=args.crawford,
        met=load_met(args.met),
        checkers=args.checkers,
        disk_cache=args.cache,
    )
    result = {"roller": roller, "opponent": opponent, **eq.as_dict()}
    if args.json:
        print_json(result, decimals=args.decimals)
        return 0
    a, b = eq.away
    state = " (Crawford game)" if eq.crawford else ""
    print(
        f"roller {','.join(map(str, roller))} vs {','.join(map(str, opponent))}  "
        f"{a}-away/{b}-away{state}, cube {eq.cube} {eq.owner}, MET {eq.met}"
    )
    print(f"cubeless P(win) {100 * eq.p_win:.4f} %")
    print(f"no double    MWC {100 * eq.no_double:8.4f} %")
    if eq.double_take is not None and eq.double_pass is not None:
        print(f"double/take  MWC {100 * eq.double_take:8.4f} %")
        print(f"double/pass  MWC {100 * eq.double_pass:8.4f} %")
    print(f"optimal      MWC {100 * eq.optimal:8.4f} %  ->  {eq.action}")
    return 0
