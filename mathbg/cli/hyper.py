"""``mathbg hyper``: exact Hypergammon cube actions, for money or at a match score."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_decimals,
    add_force,
    add_owner_argument,
    add_scheduler_argument,
    check_output,
    parse_pair,
    print_json,
)

HELP = "exact Hypergammon cube actions (money or at a score), solved outright"
DESCRIPTION = """\
The exact cube action of a Hypergammon position (1, 2 or 3 checkers a side), solved
outright: every position of the game by value iteration, with gammons and backgammons,
optimal checker play and cube decisions. Money play by default; with --away A,B at that
match score (the side on roll needing A), with the exact Hypergammon match equity table
for the scores after the game (--met another table instead). The first query of a
checker count and score solves the game (seconds for 1 and 2 checkers, about an hour a
score for 3 checkers) and keeps it in the cache (--store); later queries are lookups.

JSON keys: position, variant, away (null: money), cube, owner, crawford, action, unit
(equity or mwc), no_double, double_take, double_pass, optimal, and for money also
cubeless, probabilities (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon),
player, centre, centre_jacoby, opponent (the four cube states); at a score gammons (win,
lose: P(a gammon or more) under optimal play); tolerance and residual of the solve."""

EPILOG = """\
examples:
  mathbg hyper AACgAgAAKgAAAA
  mathbg hyper ADAAAQAkIAAAAA --json
  mathbg hyper AABAAQAACgAAAA --checkers 2 --away 3,5
  mathbg hyper AACAAAAAAgAAAA --checkers 1 --away 2,4 --cube 2 --owner player
  mathbg hyper AACgAgAAKgAAAA --write-gnubg hyper3.bd"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``hyper`` command's arguments."""
    parser.add_argument("position", help="gnubg Position ID (side on roll's view)")
    parser.add_argument("--checkers", type=int, default=None,
                        help="checkers a side: 1, 2 or 3 (default 3)")
    parser.add_argument("--variant", help="or the rule set: hypergammon1, 2 or 3")
    parser.add_argument("--away", help="match score A,B (the side on roll needs A); default money")
    parser.add_argument("--crawford", action="store_true",
                        help="with a side 1-away: the Crawford game (default post-Crawford)")
    parser.add_argument("--cube", type=int, default=None,
                        help="cube value, a power of two (default 1 centred, 2 when owned)")
    add_owner_argument(parser, "who holds the cube (player = the side on roll; default centre)")
    parser.add_argument("--met", help="MET for the scores after the game (default: the exact "
                        "Hypergammon table, solved first)")
    parser.add_argument("--jacoby", action="store_true", help="money: the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="money: beavers allowed")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="convergence tolerance of the solve (default 1e-9)")
    parser.add_argument("--store", metavar="DIR",
                        help="where solutions are kept (default the cache directory)")
    parser.add_argument("--write-gnubg", metavar="FILE",
                        help="money: also write the solution as gnubg's hyperN.bd")
    add_scheduler_argument(parser, "the exact MET's scores")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_decimals(parser)
    add_force(parser)


def _checkers(args: argparse.Namespace) -> int:
    from mathbg.errors import InvalidParameterError, UnknownVariantError
    from mathbg.hyper.space import check_checkers

    if args.variant is not None:
        from mathbg.rules.ruleset import get_ruleset
        from mathbg.rules.variations import HYPERGAMMON

        rs = get_ruleset(args.variant)
        if rs not in HYPERGAMMON.values():
            raise UnknownVariantError(
                f"--variant {args.variant}: not a Hypergammon rule set (hypergammon1, "
                "hypergammon2, hypergammon3)"
            )
        if args.checkers is not None and args.checkers != rs.checkers:
            raise InvalidParameterError(f"--checkers {args.checkers} contradicts --variant "
                                        f"{args.variant}")
        return int(rs.checkers)
    return check_checkers(3 if args.checkers is None else args.checkers)


def _inputs(args: argparse.Namespace) -> dict[str, Any]:
    """Every input checked before any work (one-line errors, exit 2)."""
    from mathbg.errors import InvalidParameterError
    from mathbg.hyper.match import MAX_LENGTH, check_state
    from mathbg.hyper.money import DEFAULT_TOLERANCE
    from mathbg.hyper.space import space
    from mathbg.rules.match import ScoreState
    from mathbg.rules.variations import hypergammon_position

    c = _checkers(args)
    pos = hypergammon_position(args.position, c)
    space(c).pair(pos)
    tol = DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    if not 0.0 < tol <= 0.1:
        raise InvalidParameterError(f"--tolerance must be in (0, 0.1], got {args.tolerance}")
    cube = args.cube if args.cube is not None else (1 if args.owner == "centre" else 2)
    away = None
    if args.away is not None:
        from mathbg._validate import away_score

        away = away_score(parse_pair(args.away, "--away", int, one_for_both=False), "--away")
        if max(away) > MAX_LENGTH:
            raise InvalidParameterError(
                f"--away {args.away}: the exact tables go to {MAX_LENGTH}-away"
            )
        check_state(cube, args.owner, away, ScoreState.of(away, crawford=args.crawford))
        if args.jacoby or args.beavers or args.write_gnubg:
            raise InvalidParameterError("--jacoby, --beavers and --write-gnubg are money options")
    else:
        if args.crawford or args.met:
            raise InvalidParameterError("--crawford and --met need a match score (--away)")
        check_state(cube, args.owner)
    check_output(args.write_gnubg, args.force, marked=False)
    return {"checkers": c, "position": pos, "tolerance": tol, "cube": cube, "away": away}


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg hyper``."""
    v = _inputs(args)
    store: Any = args.store if args.store is not None else None
    if v["away"] is None:
        from mathbg.hyper.money import solve_money

        sol = solve_money(v["checkers"], tolerance=v["tolerance"], beavers=args.beavers,
                          store=store, progress=True)
        if args.write_gnubg:
            from mathbg.hyper.gnubg_hyper import write_gnubg_hyper

            write_gnubg_hyper(sol, args.write_gnubg, force=args.force)
        d = sol.decision(v["position"], args.owner, jacoby=args.jacoby)
        eq = sol.equity(v["position"])
        out = {"position": eq.position, "variant": f"hypergammon{v['checkers']}", "away": None,
               "cube": v["cube"], "owner": args.owner, "crawford": False, **d.as_dict(),
               **{k: x for k, x in eq.as_dict().items() if k != "position"},
               "tolerance": sol.tolerance, "residual": sol.residual}
    else:
        from mathbg.hyper.match import solve_score

        score = solve_score(v["away"], checkers=v["checkers"], crawford=args.crawford,
                            met=args.met, tolerance=v["tolerance"], scheduler=args.scheduler,
                            store=store, progress=True)
        dec = score.decision(v["position"], v["cube"], args.owner)
        out = {**dec.as_dict(), "tolerance": score.tolerance, "residual": score.residual}
    if args.json:
        print_json(out, decimals=args.decimals)
    else:
        print(format_text(out))
    return 0


def _value(x: Any, unit: str) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.3f}%" if unit == "mwc" else f"{x:+.4f}"


def format_text(d: dict[str, Any]) -> str:
    """The human-readable report of ``mathbg hyper``."""
    where = "money" if d["away"] is None else f"{d['away'][0]}-away/{d['away'][1]}-away"
    if d.get("crawford"):
        where += " (Crawford game)"
    unit = d["unit"]
    lines = [
        f"{d['variant']} {d['position']}: {where}, cube {d['cube']} ({d['owner']})",
        f"  no double      {_value(d['no_double'], unit)}",
        f"  double, take   {_value(d['double_take'], unit)}",
        f"  double, pass   {_value(d['double_pass'], unit)}",
        f"  optimal        {_value(d['optimal'], unit)}",
        f"  action         {d['action']}",
    ]
    if d["away"] is None:
        p = d["probabilities"]
        lines += [
            f"cubeless equity {d['cubeless']:+.4f}: win {100 * p['win']:.2f}% (gammon "
            f"{100 * p['win_gammon']:.2f}%, backgammon {100 * p['win_backgammon']:.2f}%), "
            f"lose gammon {100 * p['lose_gammon']:.2f}% (backgammon "
            f"{100 * p['lose_backgammon']:.2f}%)",
            f"cubeful (no double): player owns {d['player']:+.4f}, centred {d['centre']:+.4f}, "
            f"centred Jacoby {d['centre_jacoby']:+.4f}, opponent owns {d['opponent']:+.4f}",
        ]
    else:
        g = d["gammons"]
        lines.append(f"gammons under optimal play: win {100 * g['win']:.2f}%, lose "
                     f"{100 * g['lose']:.2f}%")
    lines.append(f"exact: converged to {d['residual']:.2g} (tolerance {d['tolerance']:g})")
    return "\n".join(lines)
