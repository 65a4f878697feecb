"""``mathbg met``: build, show and convert match equity tables."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from mathbg.cli._args import (
    MAX_DECIMALS,
    add_engine_argument,
    add_force,
    add_scheduler_argument,
    add_seed_argument,
    check_directory,
    check_output,
    decimals,
    pyplot,
    save_figure,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.selfplay import SelfPlayOptions
    from mathbg.met import MET
    from mathbg.met.table import METComparison

HELP = "match equity tables: shipped, computed (zadeh, mec, cubeless, montgomery), files"
DESCRIPTION = """\
Print or write a match equity table: a shipped published table (default kazaross-xg2)
or one built by a model (zadeh, mec, cubeless, montgomery), or a MET file (gnubg .xml,
XG .met, JSON) given as --model PATH.

Formats: table (percent, for reading), csv, json ({name, length, pre, post}: pre rows
a = 1..N, columns b = 1..N, MWC of the a-away player; post = trailer's MWC at n-away vs
1-away post-Crawford), gnubg-xml, xg. Files carry no float noise: a computed number
is written with 8 significant digits (a table's own numbers exactly), --decimals fixes the
decimals; a model's file records its parameters and length in its name and description.

--model hypergammon1, hypergammon2 or hypergammon3: the exact match equity table of
Hypergammon with 1, 2 or 3 checkers a side, every score solved outright (mathbg.hyper;
default length 9; --scheduler and --store as for self-play; its convergence residual is in
the table's description).

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
  mathbg met --list
  mathbg met --model hypergammon2 --length 9 --format gnubg-xml --out hyper2.xml
  mathbg met --model selfplay --length 3 --games 600 --seed 1 --compare kazaross-xg2
  mathbg met --model selfplay --length 5 --games 9000 --store run5 --scheduler local:2
  mathbg met --model selfplay --length 5 --target-se 0.005 --scheduler local:2 --store run5"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``met`` command's arguments."""
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
        type=decimals,
        metavar="N",
        help=f"round the numbers to N in 0..{MAX_DECIMALS} decimal places (every format; "
        "table: percent; default: no float noise, 8 significant digits for computed numbers)",
    )
    parser.add_argument("--out", metavar="PATH", help="write to PATH instead of stdout")
    parser.add_argument("--plot", metavar="PNG", help="also save a heatmap + post-Crawford plot")
    parser.add_argument("--list", action="store_true", help="list the shipped tables and models")
    sp = parser.add_argument_group("self-play (--model selfplay)")
    sp.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games per entry (default 1000); with --target-se the first round's games",
    )
    sp.add_argument(
        "--target-se",
        type=float,
        metavar="SE",
        help="play each entry in rounds until its standard error is at most SE (a fraction: "
        "0.005 is 0.5 pp)",
    )
    sp.add_argument(
        "--max-games", type=int, help="with --target-se: at most this many games an entry"
    )
    add_seed_argument(sp)
    add_engine_argument(sp, "both players' engine", "play", default="gnubg-nn")
    sp.add_argument("--plies", type=int, default=0, help="gnubg-nn plies (default 0)")
    from mathbg.analysis.registry import engines

    sp.add_argument(
        "--players",
        nargs=2,
        metavar=("P0", "P1"),
        help="an unequal match: the row player's and the column player's engine, each "
        "ENGINE or ENGINE:plies=K,noise=S (gnubg-nn's noisy player: Gaussian noise of "
        "standard deviation S added to each candidate play's equity), e.g. --players "
        f"gnubg-nn:noise=0.05 gnubg-nn; engines: {', '.join(engines('play'))}",
    )
    sp.add_argument("--no-crawford", action="store_true", help="matches without Crawford rule")
    sp.add_argument("--cube-limit", type=int, help="largest cube value (a power of two)")
    sp.add_argument(
        "--start",
        metavar="COUNTS/COUNTS",
        help="every game from this bearoff (checkers on points 1..6, e.g. 0,0,0,0,0,6/0,0,0,0,0,6)",
    )
    add_scheduler_argument(sp, "--model selfplay (one task per batch of games)")
    sp.add_argument("--store", metavar="DIR_OR_URL", help="keep finished batches here (resume)")
    sp.add_argument(
        "--compare",
        metavar="TABLE",
        help="the differences from TABLE, in points and standard errors, and the entries "
        "whose cube decisions read an entry more than 2 SE from it (with --format json: "
        "inside the document, key comparison; other file formats: on stderr)",
    )
    add_force(parser)


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
    from mathbg._validate import score
    from mathbg.errors import InvalidParameterError
    from mathbg.met import MODELS, available, build, read
    from mathbg.met.formats import render, write

    if args.list:
        print("shipped tables: " + ", ".join(available()))
        print("models: " + ", ".join(MODELS))
        print("exact: " + ", ".join(_HYPER))
        return 0
    params = _parse_params(args)
    if args.length is not None:
        score(args.length, "--length", lo=1)
    check_directory(args.out)
    if args.model.strip().lower() == "selfplay":
        return _selfplay(args, params)
    if args.model.strip().lower() in _HYPER:
        met = _hyper(args, params)
    elif _is_path(args.model):
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


#: The exact Hypergammon tables (mathbg.hyper) by model name: their checker counts.
_HYPER = {"hypergammon1": 1, "hypergammon2": 2, "hypergammon3": 3}


def _hyper(args: argparse.Namespace, params: dict[str, float]) -> MET:
    """``--model hypergammonN``: the exact table (every input checked before solving)."""
    from mathbg.errors import InvalidParameterError
    from mathbg.hyper import hyper_met

    if params:
        raise InvalidParameterError(f"model parameters do not apply to --model {args.model}")
    if args.store is not None and "://" in args.store:
        raise InvalidParameterError(f"--store {args.store}: the exact tables go to a directory")
    check_output(args.out, args.force)
    check_output(args.plot, args.force)
    return hyper_met(_HYPER[args.model.strip().lower()], 9 if args.length is None else
                     args.length, scheduler=args.scheduler, store=args.store,
                     progress=sys.stderr.isatty())


def _start(text: str | None) -> tuple[list[int], list[int]] | None:
    from mathbg.errors import InvalidParameterError

    if text is None:
        return None
    try:
        sides = [[int(v) for v in side.split(",")] for side in text.split("/")]
    except ValueError:
        sides = []
    if len(sides) != 2:
        raise InvalidParameterError(
            f"--start wants two sides' checker counts, e.g. 0,0,0,0,0,6/0,0,0,0,0,6; got {text!r}"
        )
    return sides[0], sides[1]


def _selfplay_options(args: argparse.Namespace) -> SelfPlayOptions:
    """The table's options from the command line (checked: bad input stops here)."""
    from mathbg.analysis.selfplay import SelfPlayOptions

    options = SelfPlayOptions(
        5 if args.length is None else args.length,
        games=args.games,
        engine=args.engine,
        plies=args.plies,
        seed=args.seed,
        crawford=not args.no_crawford,
        cube_limit=args.cube_limit,
        start=_start(args.start),
        players=(args.players[0], args.players[1]) if args.players else (None, None),
        target_stderr=args.target_se,
        max_games=args.max_games,
    )
    if options.games_per_entry != args.games:
        print(
            f"mathbg met: note: --games {args.games} rounded up to {options.games_per_entry} "
            f"an entry (a multiple of the {options.strata} strata: first roller x "
            f"{'opening' if options.start is None else 'first'} roll, played in equal numbers)",
            file=sys.stderr,
        )
    return options


def _selfplay(args: argparse.Namespace, params: dict[str, float]) -> int:
    """``--model selfplay``: measure the table, print it with standard errors."""
    from mathbg._dask import dask_client
    from mathbg._output import dumps
    from mathbg.analysis.selfplay import selfplay_met
    from mathbg.errors import InvalidParameterError
    from mathbg.met import build
    from mathbg.met.formats import render, write

    if params:
        raise InvalidParameterError("model parameters do not apply to --model selfplay")
    ref = build(args.compare) if args.compare else None
    check_output(args.out, args.force)  # before the work, not after
    options = _selfplay_options(args)
    with dask_client(args.scheduler) as client:
        met = selfplay_met(options, client=client, store=args.store, progress=sys.stderr.isatty())
    comparison = None if ref is None else met.compare(ref)
    if args.out:
        write(met, args.out, format=args.format, force=args.force)
    elif args.format == "json" and comparison is not None:
        doc = met.to_dict()
        doc["comparison"] = {**comparison.as_dict(), "suspect_reads": _suspects(met, ref)}
        print(dumps(doc))
    elif args.format != "table":
        sys.stdout.write(render(met, args.format))
    else:
        sys.stdout.write(_table_with_errors(met))
    if comparison is not None and not (args.format == "json" and not args.out):
        machine = args.format != "table" and not args.out
        print(_comparison_text(met, comparison, _suspects(met, ref)),
              file=sys.stderr if machine else sys.stdout)  # fmt: skip
    return 0


def _suspects(met: MET, ref: MET | None) -> list[dict[str, object]]:
    """The entries whose cube decisions read an entry more than 2 SE from ``ref``."""
    from mathbg.analysis.selfplay import suspect_reads

    if ref is None:
        return []
    rows = suspect_reads(met, ref)
    rows = rows[rows["suspect_reads"] != ""]
    return [{"state": s, "away": int(a), "opp_away": int(b), "reads": r} for s, a, b, r in
            zip(rows["state"], rows["away"], rows["opp_away"], rows["suspect_reads"],
                strict=True)]  # fmt: skip


def _comparison_text(met: MET, cmp: METComparison, suspects: list[dict[str, object]]) -> str:
    """The differences as a grid, their summary and the entries that read noisy ones."""
    assert met.stderr is not None and met.post_stderr is not None
    lines = [f"\ndifferences from {cmp.other} (self-play minus table):",
             _grid(cmp.pre, met.stderr, cmp.post[0], met.post_stderr[0], diff=True)]  # fmt: skip
    if cmp.entries:
        lines.append(f"mean |diff| {100 * cmp.mean_abs_diff:.2f} pp, largest "
                     f"{100 * cmp.max_abs_diff:.2f} pp; mean |diff|/SE {cmp.mean_abs_z:.2f}, "
                     f"largest {cmp.max_abs_z:.2f}")  # fmt: skip
    for row in suspects:
        lines.append(f"note: {row['state']} {row['away']}a/{row['opp_away']}a reads entries more "
                     f"than 2 SE from {cmp.other}: {row['reads']} (its cube decisions and "
                     "pass rates reflect that noise)")  # fmt: skip
    return "\n".join(lines)


def _grid(pre: object, se: object, post: object, post_se: object, *, diff: bool) -> str:
    import numpy as np

    pre_a, se_a = np.asarray(pre), np.asarray(se)
    post_a, post_se_a = np.asarray(post), np.asarray(post_se)
    n = pre_a.shape[0]

    def cell(v: float, e: float) -> str:
        if diff:
            return f"{100 * v:+6.2f} ({v / e:+5.1f})" if np.isfinite(e) else f"{'exact':>14}"
        return f"{100 * v:6.2f} ±{100 * e:5.2f}" if np.isfinite(e) else f"{100 * v:6.2f}{'':7}"

    head = "away " + "".join(f"{b:>14}" for b in range(1, n + 1))
    lines = [head]
    for a in range(n):
        lines.append(f"{a + 1:>4} " + "".join(f"{cell(pre_a[a, b], se_a[a, b]):>14}"
                                              for b in range(n)))  # fmt: skip
    lines.append("post " + "".join(f"{cell(post_a[b], post_se_a[b]):>14}" for b in range(n)))
    return "\n".join(lines)


def _table_with_errors(met: MET) -> str:
    head = (
        f"{met.source}\nMWC % of player 0 (rows: away, columns: opponent away; column 1: "
        "Crawford game; last row: post-Crawford trailer) ± standard error\n"
    )
    assert met.post_stderr is not None
    body = _grid(met.pre, met.stderr, met.post[0], met.post_stderr[0], diff=False)
    return head + body + "\n"
