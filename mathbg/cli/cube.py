"""``mathbg cube``: money-play cube points (Janowski) and cube decisions."""

from __future__ import annotations

import argparse

from mathbg.cli._args import (
    add_command,
    add_decimals,
    add_owner_argument,
    extension_note,
    load_met,
    parse_pair,
    parse_probs,
    print_json,
)
from mathbg.cube.life import JANOWSKI_CUBE_LIFE, cube_life

HELP = "money-play cube points (Janowski) and cube decisions"
DESCRIPTION = """\
money:  Janowski's money-play points of the first-named player for a dead cube, a fully
        live cube and cube life X (--cube-life): take, beaver, raccoon, initial double (honouring
        --jacoby/--beavers), redouble, cash and too-good points, each as that player's
        winning chance.
decide: the cube action for a set of cubeless probabilities, money or at a match score
        (gnubg's 0-ply cubeless -> cubeful transformation with cube life X).

Default cube life (mathbg.cube.life): `decide` takes gnubg 1.07's value for a contact
position, 0.68, having no position to classify; `money` tabulates Janowski's points at his
normal cube life 2/3 beside the dead (0) and live (1) columns.

G0,G1 and B0,B1 are the first-named player's and the opponent's gammon and backgammon
rates, DISJOINT fractions of that side's wins (gammons that are not backgammons, and
backgammons), as gnubg's `show marketwindow` takes them; each in [0, 1]."""

EPILOG = """\
examples:
  mathbg cube money --gammons 0.2,0.2
  mathbg cube money --gammons 0.25,0.15 --backgammons 0.01,0 --cube-life 0.68 --json
  mathbg cube money --gammons 0.3,0.1 --jacoby --beavers
  mathbg cube decide --probs 0.72,0.25,0.01,0.05,0.002
  mathbg cube decide --probs 0.72,0.25,0.01,0.05,0.002 --away 3,5 --cube 1"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``cube`` command's arguments and handler."""
    sub = parser.add_subparsers(dest="cube_command", metavar="{money,decide}")
    money = add_command(
        sub, "money", help="Janowski's money points", description=DESCRIPTION, epilog=EPILOG
    )
    money.add_argument(
        "--gammons",
        default="0,0",
        metavar="G0,G1",
        help="gammon rates (player, opponent): disjoint fractions of that side's wins "
        "(gammons that are not backgammons); default 0,0",
    )
    money.add_argument(
        "--backgammons",
        default="0,0",
        metavar="B0,B1",
        help="backgammon rates (player, opponent), fractions of that side's wins; default 0,0",
    )
    money.add_argument("--cube-life", type=float, default=JANOWSKI_CUBE_LIFE, metavar="X",
                       help="cube life (0 dead .. 1 live; default Janowski's 2/3)")  # fmt: skip
    money.add_argument("--jacoby", action="store_true", help="initial double under Jacoby")
    money.add_argument("--beavers", action="store_true", help="beavers allowed (with --jacoby)")
    money.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(money)
    money.set_defaults(handler=run_money)

    decide = add_command(
        sub,
        "decide",
        help="cube action for cubeless probabilities (money or match)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    decide.add_argument(
        "--probs",
        required=True,
        metavar="W,WG,WB,LG,LB",
        help="player on roll: P(win), P(win gammon), P(win backgammon), P(lose gammon), "
        "P(lose backgammon); gammons cumulative (include backgammons), as gnubg prints them",
    )
    decide.add_argument(
        "--away", metavar="A,B", help="match score (points needed); money if absent"
    )
    decide.add_argument("--cube", type=int, default=1, help="cube value (default 1)")
    add_owner_argument(decide, "cube owner (default centre)")
    decide.add_argument("--cube-life", type=float, default=cube_life("contact"), metavar="X",
                        help="cube life (default gnubg's contact value 0.68)")  # fmt: skip
    decide.add_argument("--met", default="kazaross-xg2", metavar="NAME", help="match table")
    decide.add_argument("--crawford", action="store_true", help="a side 1-away: Crawford game")
    decide.add_argument("--jacoby", action="store_true", help="money: Jacoby rule")
    decide.add_argument("--beavers", action="store_true", help="money: beavers allowed")
    decide.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(decide)
    decide.set_defaults(handler=run_decide)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    """Print the help of a command given without its subcommand; exit status 2."""
    parser.print_help()
    return 2


def run_money(args: argparse.Namespace) -> int:
    """Handler of ``mathbg cube money``."""
    from mathbg.cube.money import money_points

    pts = money_points(
        parse_pair(args.gammons, "--gammons"),
        parse_pair(args.backgammons, "--backgammons"),
        args.cube_life,
        jacoby=args.jacoby,
        beavers=args.beavers,
    )
    if args.json:
        print_json(pts.as_dict(), decimals=args.decimals)
        return 0
    rules = ", ".join(r for r, on in (("Jacoby", pts.jacoby), ("beavers", pts.beavers)) if on)
    print(
        f"money play, W = {pts.W:.4f}, L = {pts.L:.4f}"
        + (f" ({rules})" if rules else "")
        + " - points as the first-named player's winning chance"
    )
    print(f"{'point':18}{'dead':>10}{'live':>10}{f'x={pts.cube_life:.3g}':>10}")
    for name in pts.POINTS:
        p = getattr(pts, name)
        label = name.replace("_", " ")
        print(f"{label:18}{100 * p.dead:9.3f}%{100 * p.live:9.3f}%{100 * p.x:9.3f}%")
    default = " (the default, Janowski's 2/3)" if args.cube_life == JANOWSKI_CUBE_LIFE else ""
    print("dead: cube life x = 0; live: x = 1; last column: cube life x = "
          f"{pts.cube_life:.3g}{default}")  # fmt: skip
    return 0


def run_decide(args: argparse.Namespace) -> int:
    """Handler of ``mathbg cube decide``."""
    from mathbg.cube.cubeful import cube_decision
    from mathbg.errors import InvalidParameterError

    probs = parse_probs(args.probs)
    if args.away is None and args.crawford:
        raise InvalidParameterError(
            "--crawford is a match-play state: give the score with --away A,B (a side "
            "1-away); money play has no Crawford game"
        )
    if args.away is not None and (args.jacoby or args.beavers):
        flag = "--jacoby" if args.jacoby else "--beavers"
        raise InvalidParameterError(f"{flag} is a money-play rule: drop it or drop --away")
    if args.away is None:
        dec = cube_decision(
            probs,
            cube=args.cube,
            owner=args.owner,
            cube_life=args.cube_life,
            jacoby=args.jacoby,
            beavers=args.beavers,
        )
    else:
        a, b = parse_pair(args.away, "--away", int, one_for_both=False)
        dec = cube_decision(
            probs,
            load_met(args.met),
            (a, b),
            cube=args.cube,
            owner=args.owner,
            cube_life=args.cube_life,
            crawford=args.crawford,
        )
        extension_note(load_met(args.met), max(a, b))  # after the work: errors stay one line
    out = dec.as_dict()
    if args.json:
        print_json(out, decimals=args.decimals)
        return 0
    default = ", the default: gnubg's contact value" if args.cube_life == cube_life() else ""
    print(f"cube action: {dec.action}   (cube life x = {dec.cube_life:g}{default})")
    unit = "MWC" if dec.unit == "mwc" else "equity"
    for key in ("no_double", "double_take", "double_pass"):
        v = out[key]
        text = "-" if v is None else (f"{100 * v:.3f}%" if dec.unit == "mwc" else f"{v:+.4f}")
        extra = ""
        if dec.emg is not None and out["emg"][key] is not None:
            extra = f"   (EMG {out['emg'][key]:+.4f})"
        print(f"  {key.replace('_', ' '):12} {unit} {text}{extra}")
    return 0
