"""``mathbg takepoint``: match-play take, double, cash and too-good points at a score."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from mathbg.cli._args import (
    add_decimals,
    add_force,
    add_owner_argument,
    check_output,
    extension_note,
    load_met,
    parse_pair,
    print_json,
    pyplot,
    save_figure,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET


HELP = "match-play take/double/cash/too-good points at a score (dead and live cube)"
DESCRIPTION = """\
Take, double, cash and too-good points of both players at a match score, for a dead and
a fully live cube, with the gammon and backgammon values, from a match equity table.

Points are winning chances of the player they belong to: the take point is the taker's
chance at which take and pass break even (against the other player's double from the
current cube to twice it); the double, cash and too-good points are the doubler's.

Words: "dead" = after the take the cube is not turned again, except the taker's free
redouble (the doubler needs <= 2 x cube and the taker more; gnubg's market window counts
it); "no recube" = not turned again at all (printed where it differs from dead); "live" =
cube life --cube-life (default 1, fully live: the theory's live limit beside the dead
one). "-" (JSON null) = does not apply: no double to take,
or nothing to double for (a doubler needing no more than the cube), or no cube at all.
JSON numbers are fractions (text: percent), without float noise; --decimals rounds them.

G0,G1 and B0,B1 are the first-named player's and the opponent's gammon and backgammon
rates, DISJOINT fractions of that side's wins (gammons that are not backgammons, and
backgammons), as gnubg's `show marketwindow` takes them; each in [0, 1].

A score with a side 1-away is post-Crawford unless --crawford is given (as gnubg's
market window treats it). --matrix prints the take points at every score up to
--length-away (rows: the taker's score, columns: the doubler's)."""

EPILOG = """\
examples:
  mathbg takepoint --away 3,3
  mathbg takepoint --away 3,5 --cube 2 --gammons 0.2,0.2
  mathbg takepoint --length 7 --score 4-3 --json
  mathbg takepoint --away 1,3                (post-Crawford leader vs 3-away trailer)
  mathbg takepoint --length 11 --matrix --plot takepoints.png"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``takepoint`` command's arguments and handler."""
    where = parser.add_argument_group("score")
    where.add_argument("--away", metavar="A,B", help="points needed: first-named player, opponent")
    where.add_argument("--length", type=int, help="match length (with --score, or --matrix)")
    where.add_argument(
        "--score", metavar="S0-S1", help="points already won (with --length), e.g. 4-3"
    )
    parser.add_argument(
        "--cube",
        type=int,
        default=1,
        help="the cube before the double (power of two): 1 = the initial double 1 -> 2 "
        "(default), 2 = a redouble 2 -> 4, ...",
    )
    add_owner_argument(
        parser,
        "who holds the cube: centre on the 1-cube; above 1, without --owner, each side's "
        "redouble as the cube's owner (a centred cube above 1 is refused); with an owner "
        "the other side's double does not apply",
        default=None,
    )
    parser.add_argument(
        "--gammons",
        default="0,0",
        metavar="G0,G1",
        help="gammon rates of the first-named player and the opponent: disjoint fractions "
        "of that side's wins (gammons that are not backgammons); one value for both sides; "
        "default 0,0",
    )
    parser.add_argument(
        "--backgammons",
        default="0,0",
        metavar="B0,B1",
        help="backgammon rates, fractions of that side's wins; one value for both; default 0,0",
    )
    parser.add_argument(
        "--met",
        default="kazaross-xg2",
        metavar="NAME",
        help="shipped table or model name, or a MET file (default kazaross-xg2)",
    )
    parser.add_argument(
        "--cube-life",
        type=float,
        metavar="X",
        help="cube life for the live points (0 dead .. 1 fully live; default 1)",
    )
    state = parser.add_mutually_exclusive_group()
    state.add_argument(
        "--crawford", action="store_true", help="a side 1-away: this is the Crawford game"
    )
    state.add_argument(
        "--post-crawford",
        action="store_true",
        help="a side 1-away: post-Crawford (the default)",
    )
    parser.add_argument("--matrix", action="store_true", help="every score up to --length-away")
    parser.add_argument("--plot", metavar="PNG", help="save a plot (window bars, or heatmaps)")
    add_force(parser)
    parser.add_argument("--json", action="store_true", help="print JSON (fractions)")
    add_decimals(parser)


def _aways(args: argparse.Namespace) -> tuple[int, int]:
    from mathbg.errors import InvalidScoreError

    if args.away is not None:
        if args.score is not None:
            raise InvalidScoreError("give either --away or --length with --score, not both")
        return parse_pair(args.away, "--away", int, one_for_both=False)
    if args.length is None or args.score is None:
        raise InvalidScoreError("give the score as --away A,B or as --length N --score S0-S1")
    if args.length < 1:
        raise InvalidScoreError(f"match length must be at least 1; got {args.length}")
    parts = args.score.replace(",", "-").split("-")
    try:
        s0, s1 = (int(p) for p in parts)
    except ValueError:
        raise InvalidScoreError(f"--score wants S0-S1, e.g. 4-3; got {args.score!r}") from None
    for s in (s0, s1):
        if s < 0 or s >= args.length:
            raise InvalidScoreError(
                f"score {s0}-{s1} is not a running score of a {args.length}-point match "
                f"(each side has 0..{args.length - 1} points)"
            )
    return args.length - s0, args.length - s1


def _pct(v: float | None, width: int = 9) -> str:
    from mathbg._output import pct

    return pct(v, width)


def _num(v: float | None, width: int = 9) -> str:
    return f"{v:{width}.5f}" if v is not None else f"{'-':>{width}}"


def cube_step(cube: int) -> str:
    """``cube 1 -> 2 (initial double)``, ``cube 2 -> 4 (redouble)``: the double a table is
    about."""
    kind = "initial double" if cube == 1 else "redouble"
    return f"cube {cube} -> {2 * cube} ({kind})"


def _held(owner: str, cube: int) -> list[str]:
    """The header line that says who holds the cube (none for the centred 1-cube)."""
    if owner == "centre":
        return []
    if owner == "each":
        return [f"each side's column: its own redouble, holding the {cube}-cube it took"]
    return [f"the {owner} holds the cube: only the {owner} may double"]


def legend(sp: Any) -> list[str]:
    """The lines that say what "dead", "no recube" and "live" mean in this table."""
    lines = [
        "dead: the cube is not turned again after the take, except the taker's free redouble",
        "      (when the doubler needs <= 2 x cube and the taker more; gnubg's 'Dead cube')",
    ]
    if sp.free_recube:
        lines += [
            "no recube: the cube is not turned again at all, not even that free redouble",
            "      (gnubg's 'Dead cube (opponent doesn't redouble)')",
        ]
    if sp.cube_life is not None:
        default = " (the default: fully live, gnubg's 'Live cube')" if sp.cube_life == 1 else ""
        lines.append(f"live: cube life x = {sp.cube_life:g}{default}")
    why = {
        "crawford": "no cube in the Crawford game",
        "post-crawford": "no double to take or nothing to double for; no live cube "
        "after the Crawford game",
        "dmp": "nothing to double for at double match point",
    }.get(sp.state, "no double to take, or nothing to double for")
    if sp.state == "post-crawford" and sp.cube > 1:
        why = "post-Crawford only the leader holds a cube above 1, with nothing to double for"
    if sp.owner in ("player", "opponent"):
        why += "; the side without the cube cannot double"
    lines.append(f"-: does not apply ({why})")
    return lines


def render_points(sp: Any) -> str:
    """Human-readable table of :class:`mathbg.cube.match.ScorePoints`."""
    a, b = sp.away
    lines = [
        f"{sp.met}: {a}-away vs {b}-away, {cube_step(sp.cube)}, {sp.state} game",
        *_held(sp.owner, sp.cube),
        f"gammon rates {100 * sp.gammons[0]:.2f}% / {100 * sp.gammons[1]:.2f}%, backgammon "
        f"rates {100 * sp.backgammons[0]:.2f}% / {100 * sp.backgammons[1]:.2f}% "
        "(disjoint fractions of wins)",
    ]
    if sp.state == "crawford":
        lines.append("Crawford game: no doubling, so no cube points.")
    if sp.free_drop:
        lines.append("post-Crawford at an even trailer score: the leader has a free drop.")
    p, o = sp.players
    head = f"{'':26}{'player':>12}{'opponent':>12}"
    sub = f"{'':26}{f'({a}-away)':>12}{f'({b}-away)':>12}"
    lines += ["", head, sub]
    live = "live" if sp.cube_life in (None, 1.0) else f"live, x={sp.cube_life:g}"
    recube = sp.free_recube
    rows = [
        ("take point, dead", "take_point_dead", _pct, True),
        ("take point, no recube", "take_point_no_recube", _pct, recube),
        (f"take point, {live}", "take_point_live", _pct, True),
        ("double point, dead", "double_point_dead", _pct, True),
        ("double point, no recube", "double_point_no_recube", _pct, recube),
        ("cash point, dead", "cash_point_dead", _pct, True),
        ("cash point, no recube", "cash_point_no_recube", _pct, recube),
        (f"cash point, {live}", "cash_point_live", _pct, True),
        ("too-good point", "too_good_point", _pct, True),
        ("gammon value", "gammon_value", _num, True),
        ("backgammon value", "backgammon_value", _num, True),
    ]
    for label, key, fmt, shown in rows:
        if shown:
            lines.append(f"{label:26}{fmt(getattr(p, key), 12)}{fmt(getattr(o, key), 12)}")
    may = {True: "yes", False: "no"}
    lines.append(f"{'may double':26}{may[p.may_double]:>12}{may[o.may_double]:>12}")
    lines += ["", *legend(sp)]
    return "\n".join(lines) + "\n"


#: Largest --length of a printed --matrix (a 128 x 128 table takes about 15 s).
MAX_MATRIX = 128


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg takepoint``."""
    from mathbg.cube.inputs import check_rates
    from mathbg.errors import InvalidScoreError

    gammons = parse_pair(args.gammons, "--gammons")
    backgammons = parse_pair(args.backgammons, "--backgammons")
    check_rates(gammons[0], backgammons[0], "player")
    check_rates(gammons[1], backgammons[1], "opponent")
    met = load_met(args.met)
    check_output(args.plot, args.force)
    if args.matrix:
        if args.length is None:
            raise InvalidScoreError("--matrix needs --length N (scores up to N-away)")
        if args.length > MAX_MATRIX:
            raise InvalidScoreError(
                f"--matrix prints at most {MAX_MATRIX} x {MAX_MATRIX} scores (got --length "
                f"{args.length}); use mathbg.cube.matrix.score_matrix for larger tables"
            )
        code = _matrix(args, met, gammons, backgammons)
        extension_note(met, args.length)  # after the work: an error stays one line
        return code
    from mathbg.cube.match import points

    a, b = _aways(args)
    if args.post_crawford and not (a == 1 or b == 1):
        raise InvalidScoreError(f"post-Crawford needs a side 1-away; the score is {a}/{b}-away")
    sp = points(
        met,
        (a, b),
        cube=args.cube,
        owner=args.owner,
        gammons=gammons,
        backgammons=backgammons,
        crawford=args.crawford,
        cube_life=args.cube_life,
    )
    extension_note(met, max(a, b))  # after the work: an error stays one line
    if args.json:
        print_json(sp.as_dict(), decimals=args.decimals)
    else:
        sys.stdout.write(render_points(sp))
    if args.plot:
        pyplot()
        from mathbg.plots import market_window_bars

        save_figure(market_window_bars(sp).figure, args.plot, force=args.force)
    return 0


def _matrix(args: argparse.Namespace, met: MET | str, gammons: Any, backgammons: Any) -> int:
    from mathbg.cube.inputs import check_cube
    from mathbg.cube.life import LIVE_CUBE_LIFE
    from mathbg.cube.match import TERMS
    from mathbg.cube.matrix import score_matrix, take_point_table

    cube = int(check_cube(args.cube))
    df = score_matrix(
        met,
        args.length,
        cubes=tuple(c for c in (1, 2, 4, 8, 16, 32, 64) if c <= max(cube, 1)) or (1,),
        gammons=gammons,
        backgammons=backgammons,
        crawford=args.crawford,
        cube_life=args.cube_life,
    )
    live_col = "take_live" if args.cube_life is None else "take_x"
    x_used = LIVE_CUBE_LIFE if args.cube_life is None else float(args.cube_life)
    if args.json:
        sel = df[df["cube"] == cube]
        records = json.loads(sel.to_json(orient="records"))
        table = {
            "met": getattr(met, "name", ""),
            "length": args.length,
            "cube": cube,
            "cube_life": x_used,
            "terms": dict(TERMS),
        }
        print_json({**table, "rows": records}, indent=1, decimals=args.decimals)
    else:
        tables = [("take_dead", "dead cube (the taker's free redouble counted)")]
        no_recube = take_point_table(df, cube, "take_no_recube")
        if not no_recube.equals(take_point_table(df, cube, "take_dead")):
            tables.append(("take_no_recube", "no recube (not even the taker's free redouble)"))
        tables.append((live_col, f"live cube, cube life x = {x_used:g}"))
        for column, title in tables:
            table = take_point_table(df, cube, column)
            print(
                f"{getattr(met, 'name', '')}: take points (%), {title}, {cube_step(cube)}; "
                "rows: taker away, columns: doubler away"
            )
            text = (100.0 * table).round(1).to_string(na_rep="-")
            print(text)
            print()
        after = "; post-Crawford a cube above 1 is the leader's" if cube > 1 else ""
        print(
            "-: does not apply (the doubler needs no more than the cube: nothing to double "
            f"for{after})"
        )
    if args.plot:
        plt = pyplot()
        from mathbg.plots import cube_point_heatmap

        n = args.length
        fig, axes = plt.subplots(1, 2, figsize=(2 * (3.5 + 0.45 * n), 3.0 + 0.45 * n))
        cube_point_heatmap(df, "take_dead", cube=cube, ax=axes[0])
        cube_point_heatmap(df, live_col, cube=cube, ax=axes[1])
        save_figure(fig, args.plot, force=args.force)
    return 0
