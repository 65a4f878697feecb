"""``mathbg met``: build, show and convert match equity tables."""

from __future__ import annotations

import argparse
import sys

from mathbg.cli._args import (
    add_command,
    add_force,
    check_directory,
    check_output,
    pyplot,
    save_figure,
)

DESCRIPTION = """\
Print or write a match equity table: a shipped published table (default kazaross-xg2)
or one built by a model (zadeh, mec, cubeless, montgomery), or a MET file (gnubg .xml,
XG .met, JSON) given as --model PATH.

Formats: table (percent, for reading), csv, json ({name, length, pre, post}: pre rows
a = 1..N, columns b = 1..N, MWC of the a-away player; post = trailer's MWC at n-away vs
1-away post-Crawford), gnubg-xml, xg. Files carry no float noise: a computed number
is written with 8 significant digits (a table's own numbers exactly), --decimals fixes the
decimals; a model's file records its parameters and length in its name and description.

Model names and shipped table names may be shortened to any unambiguous prefix
(kazaross-xg, rock). mec's default has no free drop (gnubg's mec.xml uses 0.015,0.004)."""

EPILOG = """\
examples:
  mathbg met --length 7
  mathbg met --model mec --gammon-rate 0.26 --format json
  mathbg met --model zadeh --free-drop 0.015,0.004 --format gnubg-xml --out zadeh.xml
  mathbg met --model mec --win-rate 0.55            (a favourite's table)
  mathbg met --model montgomery --length 11
  mathbg met --model woolsey --plot woolsey.png
  mathbg met --list"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``met`` subcommand."""
    parser = add_command(
        subparsers,
        "met",
        help="match equity tables: shipped, computed (zadeh, mec, cubeless, montgomery), files",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "--model",
        default="kazaross-xg2",
        help="shipped table name, model (zadeh, mec, cubeless, montgomery) or a MET file "
        "path (default: kazaross-xg2)",
    )
    parser.add_argument("--length", type=int, help="table length (default: native, 25 for models)")
    parser.add_argument("--gammon-rate", type=float, help="gammon rate (mec, cubeless)")
    parser.add_argument(
        "--win-rate", type=float, help="player 0's game-winning chance (mec; unequal players)"
    )
    parser.add_argument(
        "--free-drop",
        metavar="F2,F4",
        help="post-Crawford free-drop values at 2-away and 4-away (zadeh, mec); defaults: "
        "zadeh 0.015,0.004 (gnubg's zadeh.xml), mec 0,0 -- no free drop, unlike gnubg's "
        "mec.xml (0.015,0.004): give --free-drop 0.015,0.004 for gnubg's table",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other model parameter, e.g. delta_bar=0.05 (repeatable)",
    )
    parser.add_argument(
        "--format",
        default="table",
        choices=("table", "csv", "csv-post-crawford", "json", "gnubg-xml", "xg"),
        help="output format (default: table); csv is the pre-Crawford matrix only (with "
        "--out, the post-Crawford vectors go beside it in NAME.post-crawford.csv), "
        "csv-post-crawford the post-Crawford vectors (away,player_0,player_1)",
    )
    parser.add_argument(
        "--decimals",
        type=int,
        help="round the numbers to N decimals (every format; table: percent; default: no "
        "float noise, 8 significant digits for computed numbers)",
    )
    parser.add_argument("--out", metavar="PATH", help="write to PATH instead of stdout")
    parser.add_argument("--plot", metavar="PNG", help="also save a heatmap + post-Crawford plot")
    parser.add_argument("--list", action="store_true", help="list the shipped tables and models")
    add_force(parser)
    parser.set_defaults(handler=run)


def _parse_params(args: argparse.Namespace) -> dict[str, float]:
    from mathbg._validate import finite_float
    from mathbg.errors import InvalidParameterError

    params: dict[str, float] = {}
    if args.gammon_rate is not None:
        params["gammon_rate"] = args.gammon_rate
    if args.win_rate is not None:
        params["win_rate"] = args.win_rate
    if args.free_drop is not None:
        parts = [p.strip() for p in args.free_drop.split(",")]
        if len(parts) != 2:
            raise InvalidParameterError(
                f"--free-drop wants two numbers F2,F4, got {args.free_drop!r}"
            )
        try:
            params["free_drop_2"], params["free_drop_4"] = (float(p) for p in parts)
        except ValueError:
            raise InvalidParameterError(
                f"--free-drop wants two numbers F2,F4, got {args.free_drop!r}"
            ) from None
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep:
            raise InvalidParameterError(f"--param wants NAME=VALUE, got {item!r}")
        key = name.strip().replace("-", "_")
        if key in ("length", "name", "model"):
            raise InvalidParameterError(
                f"--param {key}: give it as --{key.replace('name', 'model')}"
            )
        params[key] = finite_float(value, f"--param {name}")
    return params


def _is_path(model: str) -> bool:
    from pathlib import Path

    # a .met/.json name or anything with a directory is a file (missing: "no such file")
    return model.lower().endswith((".met", ".json")) or (
        model.lower().endswith(".xml") and ("/" in model or "\\" in model or Path(model).exists())
    )


def run(args: argparse.Namespace) -> int:
    """Handler of ``mathbg met``."""
    from mathbg._validate import integer, score
    from mathbg.errors import InvalidParameterError
    from mathbg.met import MODELS, available, build, read
    from mathbg.met.formats import render, write

    if args.list:
        print("shipped tables: " + ", ".join(available()))
        print("models: " + ", ".join(MODELS))
        return 0
    params = _parse_params(args)
    if args.length is not None:
        score(args.length, "--length", lo=1)
    if args.decimals is not None:
        integer(args.decimals, "--decimals", 0, 17)  # float64 holds 17 significant digits
    check_directory(args.out)
    if _is_path(args.model):
        if params:
            raise InvalidParameterError("model parameters do not apply to a MET file")
        met = read(args.model, length=args.length)
    else:
        met = build(args.model, length=args.length, **params)
    check_output(args.plot, args.force)
    options = {}
    if args.decimals is not None:
        options["decimals"] = args.decimals
    if args.out:
        path = write(met, args.out, format=args.format, force=args.force, **options)
        if args.format == "csv" or (args.format is None and path.suffix.lower() == ".csv"):
            from mathbg.met.formats import post_crawford_csv_path

            print(f"post-Crawford vectors: {post_crawford_csv_path(path)}", file=sys.stderr)
    else:
        sys.stdout.write(render(met, args.format, **options))
    if args.plot:
        plt = pyplot()
        from mathbg.plots import met_heatmap, post_crawford

        n = met.length
        fig, (ax1, ax2) = plt.subplots(
            2, 1, figsize=(4 + 0.4 * n, 7 + 0.4 * n), height_ratios=(3, 1)
        )
        met_heatmap(met, ax=ax1)
        post_crawford(met, ax=ax2)
        save_figure(fig, args.plot, force=args.force)
    return 0
