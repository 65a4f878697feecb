"""``mathbg race``: counts, winning chances and cube advice for a race position."""

from __future__ import annotations

import argparse
from typing import Any

from mathbg.cli._args import (
    add_decimals,
    add_force,
    add_money_rules,
    check_output,
    print_json,
    pyplot,
    save_figure,
)

HELP = "race counts (pip, Keith, Thorp, Kleinman, 8-9-12, Trice, Isight), chances, cube"
DESCRIPTION = """\
Evaluate a race (a position without contact): both sides' pip, Keith, Thorp, Isight and
Trice counts, Kleinman's metric and the 8-9-12 lead, each count's cube advice, the
winning chances of the side on roll (exact from the bearoff databases when both sides fit,
else a one-sided rollout) with the method used, and the cube action (money, or at the
match score a POSID:MATCHID or XGID carries; money play with the Jacoby rule and beavers,
as gnubg and the other commands play it, unless a money ID's rules or --no-jacoby /
--no-beavers say otherwise).

JSON keys: pips, keith, thorp, isight ([on roll, opponent], raw counts before the
on-roll addition), keith_adjusted, thorp_adjusted (the on-roll side's count after it),
kleinman (K), kleinman_p_win, lead_8912 (percent), epc ([on roll, opponent], null outside
the databases), p_win, p_gammon, method, cube_action, advice (each count's verdict), and
more detail (wastage, trice, p_lose_gammon, cube)."""

EPILOG = """\
examples:
  mathbg race /38AAADfAwAAAA
  mathbg race 3RULAUC7dTIAAA --json
  mathbg race --counts 1:5,2:4 1:15
  mathbg race 'XGID=-BBBBBB------------aaaaaa-:0:0:1:00:0:0:0:0:10'
  mathbg race 3RULAUC7dTIAAA --plot rolls.png"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``race`` command's arguments and handler."""
    parser.add_argument(
        "id", nargs="?", help="gnubg Position ID, POSID:MATCHID or XGID (side on roll first)"
    )
    parser.add_argument(
        "--counts",
        nargs=2,
        metavar=("PLAYER", "OPPONENT"),
        help="the position as point counts instead of an ID: each side 'point:n,...' in its "
        "own numbering (25 = bar), or 24/25 comma-separated counts; side on roll first",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(parser)
    parser.add_argument(
        "--cube-life",
        type=float,
        metavar="X",
        help="cube life (default gnubg's by class: race rule, bearoff 0.6)",
    )
    parser.add_argument("--met", help="MET for match play (default kazaross-xg2)")
    parser.add_argument("--money", action="store_true", help="money play even for a match ID")
    add_money_rules(parser)
    parser.add_argument(
        "--keith-rounding",
        choices=("down", "none"),
        default="down",
        help="Keith's 1/7 addition: rounded down as Keith wrote (default) or not (gnubg 1.07)",
    )
    parser.add_argument(
        "--thorp",
        choices=("thorp", "gnubg", "xg"),
        default="thorp",
        help="Thorp's pass line: Thorp's T > L + 2 (default), gnubg's T >= L + 2, XG's",
    )
    parser.add_argument(
        "--samples", type=int, default=8, help="one-sided rollout samples per position (8)"
    )
    parser.add_argument("--seed", type=int, default=0, help="one-sided rollout seed (0)")
    parser.add_argument(
        "--plot", metavar="PNG", help="save the two sides' distributions of rolls to finish"
    )
    add_force(parser)


def parse_side(text: str, name: str) -> list[int]:
    """One side's whole board from ``"1:5,2:4"`` (point:checkers) or 24/25 counts (the race
    command's syntax; :func:`mathbg.cli._args.parse_counts` reads a bearoff's home board)."""
    from mathbg.errors import InvalidPositionError

    text = text.strip()
    row = [0] * 25
    if not text or text == "-":
        return row
    items = [x.strip() for x in text.split(",") if x.strip()]
    try:
        if any(":" in x for x in items):
            for item in items:
                point, _, n = item.partition(":")
                p = 25 if point.lower() == "bar" else int(point)
                if not 1 <= p <= 25:
                    raise InvalidPositionError(f"{name}: point {p} not in 1..25")
                row[p - 1] += int(n)
            return row
        values = [int(x) for x in items]
    except ValueError:
        raise InvalidPositionError(
            f"{name}: cannot read {text!r}: use 'point:n,...' or 24/25 counts"
        ) from None
    if len(values) not in (24, 25):
        raise InvalidPositionError(f"{name}: expected 24 or 25 counts, got {len(values)}")
    row[: len(values)] = values
    return row


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg race``."""
    from mathbg.errors import InvalidPositionError
    from mathbg.race.evaluate import evaluate_race

    if (args.id is None) == (args.counts is None):
        raise InvalidPositionError("give either an ID or --counts PLAYER OPPONENT")
    position: Any = args.id
    if args.counts is not None:
        player = parse_side(args.counts[0], "player")
        position = (player, parse_side(args.counts[1], "opponent"))
    check_output(args.plot, args.force)
    e = evaluate_race(
        position,
        keith_rounding=args.keith_rounding,
        thorp_convention=args.thorp,
        cube_life=args.cube_life,
        met=args.met,
        money=args.money,
        jacoby=not args.no_jacoby,
        beavers=not args.no_beavers,
        samples=args.samples,
        seed=args.seed,
    )
    if args.plot:
        pyplot()
        from mathbg.plots import race_rolls

        assert e.distributions is not None  # every race evaluation carries them
        ax = race_rolls(*e.distributions)
        save_figure(
            ax.figure,
            args.plot,
            dpi=120,
            tight_layout=False,
            bbox_inches="tight",
            force=args.force,
        )
    if args.json:
        print_json(e.as_dict(), decimals=args.decimals)
        return 0
    print(format_text(e))
    return 0


def _pct(v: Any) -> str:
    from mathbg._output import pct

    return pct(v, decimals=1)


def _clamped(e: Any) -> bool:
    """Isight's formula left [0, 100] % and was clamped."""
    from mathbg.race.counts import isight_win_probability

    raw = float(isight_win_probability(*e.isight))
    return not 0.0 <= raw <= 100.0


def _f(v: Any, fmt: str = "{:.2f}") -> str:
    return "-" if v is None else fmt.format(v)


def format_text(e: Any) -> str:
    """The human-readable report of a :class:`mathbg.race.evaluate.RaceEvaluation`."""
    d = e.as_dict()
    c = e.chances
    lines = [
        f"Race {d['position_id']}   (method: {c.method})",
        f"{'':22}{'on roll':>10}{'opponent':>10}",
        f"{'pips':22}{d['pips'][0]:>10}{d['pips'][1]:>10}",
        f"{'Keith':22}{d['keith'][0]:>10}{d['keith'][1]:>10}   on roll + 1/7: "
        f"{d['keith_adjusted']:g}",
        f"{'Thorp':22}{d['thorp'][0]:>10}{d['thorp'][1]:>10}   on roll + 10 %: "
        f"{d['thorp_adjusted']:.1f}",
        f"{'Isight':22}{d['isight'][0]:>10}{d['isight'][1]:>10}   P(win) estimate "
        f"{_pct(d['isight_p_win_estimate'])}" + (" (clamped)" if _clamped(e) else ""),
        f"{'Trice (adjusted)':22}{d['trice'][0]:>10.1f}{d['trice'][1]:>10.1f}   point of last "
        f"take {d['trice_point_of_last_take']}",
        f"{'EPC':22}{_f(d['epc'][0]):>10}{_f(d['epc'][1]):>10}",
        f"{'wastage':22}{_f(d['wastage'][0]):>10}{_f(d['wastage'][1]):>10}",
        f"Kleinman K = {_f(d['kleinman'], '{:.3f}')}  (P(win) "
        f"{_f(None if d['kleinman_p_win'] is None else 100 * d['kleinman_p_win'], '{:.1f}')} %)"
        f"   8-9-12 lead {_pct(d['lead_8912_fraction'])} of the roller's pips",
        "",
        "Counts' advice:",
    ]
    names = {"keith": "Keith", "thorp": "Thorp", "kleinman": "Kleinman", "8912": "8-9-12",
             "trice": "Trice (rule 62)", "isight": "Isight"}  # fmt: skip
    for key, label in names.items():
        lines.append(f"  {label:18}{d['advice'][key]}")
    lines += [
        "",
        f"Winning chances ({c.method}): win {100 * c.p_win:.3f} %, win gammon "
        f"{100 * c.p_win_gammon:.3f} %, lose gammon {100 * c.p_lose_gammon:.3f} %",
    ]
    cube = e.cube
    if cube.score is None:
        where = "money"
    else:
        where = f"{cube.score[0]}-away/{cube.score[1]}-away"
    if isinstance(cube.x, tuple):
        life = f"cube life x = {cube.x[0]:.2f}/{cube.x[1]:.2f} (from the exact money equities)"
    elif cube.x is None:
        life = "exact two-sided database"
    else:
        life = f"cube life x = {cube.x:.3f}"
    vals = cube.emg if cube.emg is not None else (cube.no_double, cube.double_take,
                                                  cube.double_pass)  # fmt: skip
    unit = "EMG" if cube.emg is not None else "equity"
    parts = [f"ND {vals[0]:+.4f}"]
    if vals[1] is not None:
        parts += [f"D/T {vals[1]:+.4f}", f"D/P {vals[2]:+.4f}"]
    lines.append(f"Cube ({where}, {life}): {cube.action}   [{unit}] " + "  ".join(parts))
    return "\n".join(lines)
